/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CTL_CHECK_H
#define LONGSPAN_CTL_CHECK_H

/* Assertion helpers shared by the ctl tests (cmocka must be included first). */

#include <stdbool.h>
#include <stddef.h>

/*
 * Parse JSON with /usr/bin/python3's json module (a validator we did not
 * write), rejecting duplicate keys, and evaluate the Python expression EXPR
 * with the document bound to d; fails the test, printing the document,
 * unless it parses and EXPR holds.
 */
void ctl_check_json(const char *json, size_t size, const char *expr);

/*
 * True if TEXT has a line whose blank-separated words start with WORDS
 * (N of them; "*" matches any word).
 */
bool ctl_has_line(const char *text, const char *const words[], unsigned int n);

#define CTL_HAS_LINE(text, ...)                                                \
	ctl_has_line((text), (const char *const[]){ __VA_ARGS__ },             \
		     sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *))

unsigned int ctl_count_lines(const char *text);

#endif /* LONGSPAN_CTL_CHECK_H */
