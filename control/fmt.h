/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_FMT_H
#define LONGSPAN_FMT_H

/*
 * One report, several renderings.
 *
 * A show command describes its output once as a tree of keyed objects,
 * rows, string lists and scalars; a backend renders the tree as aligned text
 * for people, as JSON for scripts (longspanctl --json), or as an
 * rte_telemetry dict (control/telemetry.c). Backends see a stream of
 * open/scalar/close events and never the whole tree, so nothing is buffered
 * beyond what the output FILE does.
 *
 * Node kinds:
 *   FMT_OBJ   keyed members; text: a heading, then indented "key value" lines
 *   FMT_ROW   keyed members shown as one text line under a fmt_note() header
 *             (the member keys are for JSON and telemetry only)
 *   FMT_LIST  unkeyed string elements (pass key NULL); text: one line
 *
 * Ownership: a struct fmt lives on the caller's stack for one report and is
 * used by one thread.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define FMT_MAX_DEPTH 8

/* Text layout: key column and numeric column widths, in characters. */
#define FMT_KEY_WIDTH 24
#define FMT_NUM_WIDTH 12

enum fmt_node {
	FMT_OBJ = 0,
	FMT_ROW,
	FMT_LIST,
};

struct fmt;

/*
 * Backend callbacks. The fmt_*() wrappers below check nesting and keep
 * depth/node/count up to date before calling them: on open() the new level
 * is already pushed, on close() it is still there.
 */
struct fmt_ops {
	void (*open)(struct fmt *f, const char *key, enum fmt_node node);
	void (*close)(struct fmt *f);
	void (*u64)(struct fmt *f, const char *key, uint64_t v);
	void (*i64)(struct fmt *f, const char *key, int64_t v);
	void (*f64)(struct fmt *f, const char *key, double v);
	void (*str)(struct fmt *f, const char *key, const char *s);
	void (*null)(struct fmt *f, const char *key);
	void (*boolean)(struct fmt *f, const char *key, bool v);
	void (*none)(struct fmt *f, const char *key); /* may be NULL: null() */
	void (*note)(struct fmt *f, const char *line); /* may be NULL */
	void (*finish)(struct fmt *f);
};

struct fmt {
	const struct fmt_ops *ops;
	FILE *out; /* text and JSON backends */
	unsigned int depth; /* 0 = the implicit root object */
	enum fmt_node node[FMT_MAX_DEPTH];
	unsigned int count[FMT_MAX_DEPTH]; /* members emitted so far per level */
	unsigned int key_width[FMT_MAX_DEPTH]; /* text: row key column; 0 = default */
	unsigned int width; /* text: column of the next row scalar; 0 = default */
	bool any_output; /* text: something was printed (blank line rules) */
	int error; /* first misuse (-EINVAL) or backend failure, sticky */
};

/* Renderers writing to OUT. JSON opens the root object here. */
void fmt_text_init(struct fmt *f, FILE *out);
void fmt_json_init(struct fmt *f, FILE *out);

void fmt_open(struct fmt *f, const char *key, enum fmt_node node);
void fmt_close(struct fmt *f);
void fmt_u64(struct fmt *f, const char *key, uint64_t v);
/* A signed integer (a clock offset): exact, unlike fmt_f64. */
void fmt_i64(struct fmt *f, const char *key, int64_t v);
/* A ratio or percentage; NaN and infinities are rendered as null. */
void fmt_f64(struct fmt *f, const char *key, double v);
/* A string; "" (or NULL) is an absent value: "-" in text, null in JSON, "n/a" in telemetry. */
void fmt_str(struct fmt *f, const char *key, const char *s);
void fmt_strf(struct fmt *f, const char *key, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
/* A value that is not available (an ethdev call failed): "n/a" or null. */
void fmt_null(struct fmt *f, const char *key);
/* A value that does not exist (yet), e.g. a QPN not learned: "-" or null. */
void fmt_none(struct fmt *f, const char *key);
void fmt_bool(struct fmt *f, const char *key, bool v);
/*
 * Text tables: the next scalar of a row takes WIDTH characters (numbers
 * right-aligned, strings left-aligned; default FMT_NUM_WIDTH for numbers,
 * no padding for strings). JSON and telemetry ignore it.
 */
void fmt_width(struct fmt *f, unsigned int width);
/* Text tables: rows opened at the current level get a WIDTH key column. */
void fmt_key_width(struct fmt *f, unsigned int width);
/* A text-only line (table header, hint); JSON and telemetry skip it. */
void fmt_notef(struct fmt *f, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Close every open level and end the document; returns f->error. */
int fmt_finish(struct fmt *f);

struct cc_derived;
struct conf_addr;
struct conf_prefix;

/*
 * Network values of the config (control/config.h): an address as
 * inet_ntop() spells it, a prefix as "ADDRESS/LEN", both absent ("" for
 * fmt_str) when unset; a MAC as six lower-case hex pairs. KEY NULL for a
 * list element.
 */
void fmt_addr(struct fmt *f, const char *key, const struct conf_addr *a);
void fmt_prefix(struct fmt *f, const char *key, const struct conf_prefix *p);
void fmt_mac(struct fmt *f, const char *key, const uint8_t mac[6]);

/*
 * The members of a congestion parameter set (congestion/cc_params.h), one
 * per field with its unit in the key. Shared by the gateway's `tune` and
 * `longspanctl tune --offline` so the two print the same JSON.
 */
void fmt_cc_derived(struct fmt *f, const struct cc_derived *d);

/*
 * Write S as a JSON string literal (with quotes) to OUT: escapes quotes,
 * backslashes and control characters. Exported for the telemetry tests and
 * for any caller that writes JSON by hand.
 */
void fmt_json_string(FILE *out, const char *s);

#endif /* LONGSPAN_FMT_H */
