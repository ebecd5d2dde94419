/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CONF_KEY_H
#define LONGSPAN_CONF_KEY_H

/*
 * Config key tables, shared by longspand (control/config_keys.c),
 * longspan-sim (congestion/sim/sim_config.c) and longspan-hostem: one row
 * per key with its section, type, unit, limits, default, help text and
 * where its value lives. Parsing, defaults, range checks, dumps and docs
 * all walk the table (style.md rule 3).
 *
 * Each value type has one setter and one dumper (struct conf_type); a
 * table's types[] is indexed by conf_key.type. The four built-in types come
 * first in every types[] (CONF_TYPE_BUILTINS); a tool appends its own
 * (addresses, MACs, mechanism lists) after CONF_T_FIRST_APP.
 *
 * Adding a key of an existing type is one row in a table; a new type is
 * one conf_type (set + dump) and one enum value.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "units.h"

/* The built-in types, the first entries of every table's types[]. */
enum conf_builtin_type {
	CONF_T_BOOL = 0, /* yes/no/true/false/on/off/1/0 into a bool */
	CONF_T_UINT, /* an integer with key->units, min..max, into a 1, 2, 4 or 8-byte field */
	CONF_T_ENUM, /* one of key->names (any case), its value into an integer field */
	CONF_T_STRING, /* key->min..key->max characters into a char array */
	CONF_T_FIRST_APP, /* a tool's own types start here */
};

/* Key flags. */
#define CONF_F_REQUIRED (1u << 0)
#define CONF_F_REPEAT (1u << 1) /* may appear many times, appends */
#define CONF_F_ZERO (1u << 2) /* 0 is accepted besides min..max ("derive") */
#define CONF_F_POW2 (1u << 3) /* must be a power of two */
#define CONF_F_NAMECHARS (1u << 4) /* string of [A-Za-z0-9_.-] */

#define CONF_NO_OFFSET UINT16_MAX

struct conf_enum_name {
	const char *name;
	unsigned int value;
};

struct conf_key {
	unsigned int section; /* index into the table's section names */
	const char *name;
	uint8_t type; /* index into the table's types[] */
	enum units_kind units; /* CONF_T_UINT */
	const char *unit_label; /* shown after numbers in docs ("bytes", "packets") */
	uint32_t flags;
	uint64_t min, max; /* CONF_T_UINT in base units; CONF_T_STRING: length */
	const char *def; /* default in config syntax; NULL = unset */
	const struct conf_enum_name *names; /* CONF_T_ENUM */
	/* Where the value lives, relative to the section's struct. */
	uint16_t offset;
	uint16_t size; /* sizeof the field (of one element if repeatable) */
	uint16_t set_offset; /* bool "was set" field, or CONF_NO_OFFSET */
	uint16_t count_offset; /* repeatable: unsigned int element count */
	uint16_t max_count; /* repeatable: array capacity */
	const char *help;
};

/* What a setter gets besides the key, the section's struct and the text. */
struct conf_set_ctx {
	unsigned int line; /* the value's line; 0 for a default from the table */
	unsigned int *elem_line; /* repeatable keys: the line of each element so far */
	char msg[480]; /* on failure: the message, without "FILE:LINE: [section] key: " */
};

struct conf_type {
	const char *doc; /* for docs ("bool", "IP MAC"); CONF_T_UINT's depends on units */
	/* Parse VALUE into the struct at BASE; 0, or -EINVAL with ctx->msg. */
	int (*set)(const struct conf_key *k, void *base, const char *value,
		   struct conf_set_ctx *ctx);
	/* Write "name = value" line(s) for the value at BASE (none when unset). */
	void (*dump)(const struct conf_key *k, const void *base, FILE *out);
};

/* A key table: its rows, section names and types. */
struct conf_table {
	const struct conf_key *keys;
	unsigned int n_keys;
	const char *const *section_names;
	unsigned int n_sections;
	const struct conf_type *types;
	unsigned int n_types;
};

int conf_set_bool(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx);
int conf_set_uint(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx);
int conf_set_enum(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx);
int conf_set_string(const struct conf_key *k, void *base, const char *value,
		    struct conf_set_ctx *ctx);
void conf_dump_bool(const struct conf_key *k, const void *base, FILE *out);
void conf_dump_uint(const struct conf_key *k, const void *base, FILE *out);
void conf_dump_enum(const struct conf_key *k, const void *base, FILE *out);
void conf_dump_string(const struct conf_key *k, const void *base, FILE *out);

/* The first entries of every types[]. */
#define CONF_TYPE_BUILTINS                                                        \
	[CONF_T_BOOL] = { "bool", conf_set_bool, conf_dump_bool },                 \
	[CONF_T_UINT] = { NULL, conf_set_uint, conf_dump_uint },                   \
	[CONF_T_ENUM] = { "enum", conf_set_enum, conf_dump_enum },                 \
	[CONF_T_STRING] = { "string", conf_set_string, conf_dump_string }

/* Row helpers: where a key's value lives in TYPE. */
#define CONF_SIZEOF(type, f) sizeof(((type *)0)->f)
/* A scalar field. */
#define CONF_FIELD(type, f)                                                       \
	.offset = offsetof(type, f), .size = CONF_SIZEOF(type, f),                 \
	.set_offset = CONF_NO_OFFSET, .count_offset = CONF_NO_OFFSET
/* A scalar field with a bool that records whether the key was given. */
#define CONF_FIELD_SET(type, f, setf)                                             \
	.offset = offsetof(type, f), .size = CONF_SIZEOF(type, f),                 \
	.set_offset = offsetof(type, setf), .count_offset = CONF_NO_OFFSET
/* An array field filled by a repeatable key, with its element count. */
#define CONF_FIELD_LIST(type, arr, count)                                         \
	.offset = offsetof(type, arr), .size = CONF_SIZEOF(type, arr[0]),          \
	.set_offset = CONF_NO_OFFSET, .count_offset = offsetof(type, count),       \
	.max_count = CONF_SIZEOF(type, arr) / CONF_SIZEOF(type, arr[0])

/*
 * Parse VALUE for key K of TABLE into the struct at BASE: the checks every
 * value gets (not empty, no control character, not starting with ';', which
 * a dump could not load back), then the type's setter, then the key's "was
 * set" flag. Returns 0, or -EINVAL with ctx->msg.
 */
int conf_key_set(const struct conf_table *table, const struct conf_key *k, void *base,
		 const char *value, struct conf_set_ctx *ctx);

/* Write key K of the struct at BASE through its type's dumper, unless a
 * "was set" flag says it was not given. */
void conf_key_dump(const struct conf_table *table, const struct conf_key *k, const void *base,
		   FILE *out);

/* Fill BASE with the defaults of SECTION's keys; returns how many failed
 * (a bug in the table: tests load every default). */
unsigned int conf_key_defaults(const struct conf_table *table, unsigned int section, void *base);

/* The key NAME of SECTION, or NULL. */
const struct conf_key *conf_key_find(const struct conf_table *table, unsigned int section,
				     const char *name);

/* The key of SECTION closest to NAME if NAME is a likely typo, else NULL. */
const char *conf_key_suggest(const struct conf_table *table, unsigned int section,
			     const char *name);

/* Edit distance of two short strings (large when either is long). */
unsigned int conf_distance(const char *a, const char *b);

/* "1 .. 16", "0 or 1024 .. 67108864", "1us .. 1s", "576 .. 9216 bytes",
 * "up to 31 characters": the accepted values of KEY, for messages and docs. */
void conf_key_range_text(const struct conf_key *key, char *buf, size_t size);

/* Short type description for docs: "time", "rate", "bool", ... */
const char *conf_key_type_text(const struct conf_table *table, const struct conf_key *key);

/* "dc, wan": the names of an enum, for messages. */
void conf_names_text(const struct conf_enum_name *names, char *buf, size_t size);

/* Only letters, digits, '.', '_' and '-'. */
bool conf_name_ok(const char *s);

/* An integer field of SIZE bytes (1, 2, 4 or 8). */
void conf_put_uint(void *field, size_t size, uint64_t v);
uint64_t conf_get_uint(const void *field, size_t size);

/* Format ctx->msg and return -EINVAL, for setters. */
int conf_fail(struct conf_set_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* LONGSPAN_CONF_KEY_H */
