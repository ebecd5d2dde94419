/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CONF_INI_H
#define LONGSPAN_CONF_INI_H

/*
 * The INI reader of every Longspan config file (longspand, longspan-sim,
 * longspan-hostem). It splits a file held in memory into section headers
 * and key lines, counts lines, and reports malformed lines; what a section
 * or key means is the caller's (its key table, conf_key.h).
 *
 * Syntax, the same for every tool:
 *   - a line is at most max_line characters after trimming blanks; a longer
 *     one, or one with a NUL byte, is an error; a UTF-8 BOM may start line 1
 *   - blank lines and lines starting with ';' or '#' are comments
 *   - "[TYPE]" or "[TYPE NAME]" starts a section; a ';' after a blank ends
 *     the header early, anything but a comment after ']' is an error
 *   - "key = value" or "key: value"; a ';' after a blank starts a comment;
 *     blanks around key and value are dropped. Values are not unquoted and
 *     do not continue on the next line.
 *
 * Errors go to the caller's error() with the line; parsing continues so
 * that one run reports them all. A section the caller refuses (section()
 * returns non-zero) has its keys and malformed lines ignored quietly: the
 * header's error says it all.
 */

#include <stdbool.h>
#include <stddef.h>

/* Where an error of the reader is: on its own line (a bad header), or
 * inside the current section (a line that is not 'key = value'). */
enum conf_ini_where {
	CONF_INI_LINE = 0,
	CONF_INI_SECTION,
};

struct conf_ini_ops {
	/* "[TYPE NAME]" at LINE (NAME "" when absent); 0 accepts it. */
	int (*section)(void *ctx, unsigned int line, const char *type, const char *name);
	/* "KEY = VALUE" at LINE, in the last accepted section or before any. */
	void (*key)(void *ctx, unsigned int line, const char *key, const char *value);
	/* A malformed line. */
	void (*error)(void *ctx, unsigned int line, enum conf_ini_where where, const char *msg);
	/* Optional: true stops reading (too many errors already). */
	bool (*stop)(void *ctx);
};

/* Longest line conf_ini_parse() can be asked to take. */
#define CONF_INI_LINE_MAX 1023

/*
 * Read SIZE bytes at TEXT (need not be NUL-terminated) calling OPS with CTX.
 * MAX_LINE (at most CONF_INI_LINE_MAX) bounds a line. Returns the number of
 * lines read.
 */
unsigned int conf_ini_parse(const char *text, size_t size, size_t max_line,
			    const struct conf_ini_ops *ops, void *ctx);

#endif /* LONGSPAN_CONF_INI_H */
