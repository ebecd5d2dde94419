/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The INI reader (conf_ini.h). Its rules are those libinih applied to
 * longspand's files before it (comment prefixes, inline ';' after a blank,
 * '=' or ':' as separator), minus multi-line values, so that every file
 * that loaded before loads the same way.
 */

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "conf_ini.h"

struct conf_ini_reader {
	const struct conf_ini_ops *ops;
	void *ctx;
	unsigned int line;
	bool skip_section; /* after a refused header: ignore its lines quietly */
};

static void
conf_ini_error(struct conf_ini_reader *r, enum conf_ini_where where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
conf_ini_error(struct conf_ini_reader *r, enum conf_ini_where where, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->ops->error(r->ctx, r->line, where, msg);
}

/* S points at '['; S is modified. */
static void
conf_ini_header(struct conf_ini_reader *r, char *s)
{
	char *end, *type, *name, *rest;

	r->skip_section = true;
	/* The first ']' before an inline comment. */
	for (end = s + 1; *end != '\0' && *end != ']'; end++)
		if (*end == ';' && isspace((unsigned char)end[-1]))
			break;
	if (*end != ']') {
		conf_ini_error(r, CONF_INI_LINE, "section header without a closing ']'");
		return;
	}
	*end = '\0';
	rest = end + 1;
	rest += strspn(rest, " \t");
	if (*rest != '\0' && *rest != ';' && *rest != '#') {
		conf_ini_error(r, CONF_INI_LINE, "[%s]: text after ']'", s + 1);
		return;
	}
	type = s + 1;
	type += strspn(type, " \t");
	name = type + strcspn(type, " \t");
	if (*name != '\0') {
		*name++ = '\0';
		name += strspn(name, " \t");
		for (char *t = name + strlen(name); t > name && isspace((unsigned char)t[-1]); t--)
			t[-1] = '\0';
	}
	r->skip_section = r->ops->section(r->ctx, r->line, type, name) != 0;
}

/* The first of CHARS, or an inline comment (';' after a blank), or the end. */
static char *
conf_ini_find(char *s, const char *chars)
{
	bool was_space = false;

	while (*s != '\0' && (chars == NULL || strchr(chars, *s) == NULL) &&
	       !(was_space && *s == ';')) {
		was_space = isspace((unsigned char)*s);
		s++;
	}
	return s;
}

static char *
conf_ini_rstrip(char *s)
{
	for (char *e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
		e[-1] = '\0';
	return s;
}

/* S is a trimmed line that is neither blank, a comment nor a header. */
static void
conf_ini_key_line(struct conf_ini_reader *r, char *s)
{
	char *sep = conf_ini_find(s, "=:"), *value;

	if (*sep != '=' && *sep != ':') {
		if (!r->skip_section)
			conf_ini_error(r, CONF_INI_SECTION,
				       "expected 'key = value' or '[section]', not '%.40s'", s);
		return;
	}
	if (r->skip_section)
		return;
	*sep = '\0';
	conf_ini_rstrip(s);
	value = sep + 1;
	*conf_ini_find(value, NULL) = '\0';
	value += strspn(value, " \t\r\n\v\f");
	conf_ini_rstrip(value);
	r->ops->key(r->ctx, r->line, s, value);
}

unsigned int
conf_ini_parse(const char *text, size_t size, size_t max_line, const struct conf_ini_ops *ops,
	       void *ctx)
{
	struct conf_ini_reader r = { .ops = ops, .ctx = ctx };
	char buf[CONF_INI_LINE_MAX + 1];
	size_t pos = 0;

	if (max_line > CONF_INI_LINE_MAX)
		max_line = CONF_INI_LINE_MAX;
	while (pos < size && (ops->stop == NULL || !ops->stop(ctx))) {
		const char *at = text + pos;
		const char *nl = memchr(at, '\n', size - pos);
		size_t n = nl != NULL ? (size_t)(nl - at) : size - pos;
		bool long_line = n > sizeof(buf) - 1;
		bool nul = memchr(at, '\0', n) != NULL;
		size_t len = long_line ? sizeof(buf) - 1 : n;
		char *s;

		pos += n + (nl != NULL);
		memcpy(buf, at, len);
		buf[len] = '\0';
		r.line++;

		s = buf;
		if (r.line == 1 && strncmp(s, "\xef\xbb\xbf", 3) == 0) /* UTF-8 BOM */
			s += 3;
		while (isspace((unsigned char)*s))
			s++;
		conf_ini_rstrip(s);

		if (nul)
			conf_ini_error(&r, CONF_INI_LINE, "line contains a NUL byte");
		else if (long_line || strlen(s) > max_line)
			conf_ini_error(&r, CONF_INI_LINE, "line is longer than %zu characters",
				       max_line);
		else if (*s == '\0' || *s == ';' || *s == '#')
			continue;
		else if (*s == '[')
			conf_ini_header(&r, s);
		else
			conf_ini_key_line(&r, s);
	}
	return r.line;
}
