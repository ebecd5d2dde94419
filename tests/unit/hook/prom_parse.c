/* SPDX-License-Identifier: BSD-3-Clause */
#include "prom_parse.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROM_LABELS_MAX 16

struct prom_family {
	char name[128];
	char type[16]; /* "" until TYPE */
	bool help;
	bool sampled; /* a sample was seen */
	bool closed; /* its group ended */
};

struct prom_state {
	struct prom_doc *doc;
	struct prom_family *fam;
	size_t n_fam, cap_fam;
	long cur; /* family of the current group, -1 none */
	unsigned int line;
	char *err;
	size_t err_size;
};

static int prom_fail(struct prom_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
prom_fail(struct prom_state *st, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(st->err, st->err_size, "line %u: ", st->line);

	if (n >= 0 && (size_t)n < st->err_size) {
		va_start(ap, fmt);
		vsnprintf(st->err + n, st->err_size - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static bool
prom_name_char(char c, bool first, bool colon)
{
	return isalpha((unsigned char)c) || c == '_' || (colon && c == ':') ||
	       (!first && isdigit((unsigned char)c));
}

/* A name at *p into out; advances *p. */
static bool
prom_name(const char **p, const char *end, char *out, size_t size, bool colon)
{
	size_t n = 0;

	while (*p < end && prom_name_char(**p, n == 0, colon)) {
		if (n + 1 >= size)
			return false;
		out[n++] = *(*p)++;
	}
	out[n] = '\0';
	return n > 0;
}

static void
prom_blanks(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
}

static long
prom_family_find(const struct prom_state *st, const char *name)
{
	size_t i;

	for (i = 0; i < st->n_fam; i++)
		if (strcmp(st->fam[i].name, name) == 0)
			return (long)i;
	return -1;
}

static long
prom_family_get(struct prom_state *st, const char *name)
{
	long i = prom_family_find(st, name);

	if (i >= 0)
		return i;
	if (st->n_fam == st->cap_fam) {
		size_t cap = st->cap_fam ? 2 * st->cap_fam : 64;
		struct prom_family *f = realloc(st->fam, cap * sizeof(*f));

		if (f == NULL)
			return -1;
		st->fam = f;
		st->cap_fam = cap;
	}
	memset(&st->fam[st->n_fam], 0, sizeof(st->fam[0]));
	snprintf(st->fam[st->n_fam].name, sizeof(st->fam[0].name), "%s", name);
	return (long)st->n_fam++;
}

/* The line belongs to family f: it must be the current group or start a new one. */
static int
prom_group(struct prom_state *st, long f)
{
	if (st->cur == f)
		return 0;
	if (st->fam[f].closed)
		return prom_fail(st, "family %s continues after other families", st->fam[f].name);
	if (st->cur >= 0)
		st->fam[st->cur].closed = true;
	st->cur = f;
	return 0;
}

static int
prom_meta(struct prom_state *st, const char *p, const char *end)
{
	char kw[8], name[128];
	size_t n = 0;
	long f;

	p++; /* '#' */
	prom_blanks(&p, end);
	while (p < end && n + 1 < sizeof(kw) && isalpha((unsigned char)*p))
		kw[n++] = *p++;
	kw[n] = '\0';
	if (strcmp(kw, "HELP") != 0 && strcmp(kw, "TYPE") != 0)
		return 0; /* a comment */
	if (p == end || (*p != ' ' && *p != '\t'))
		return prom_fail(st, "# %s without a metric name", kw);
	prom_blanks(&p, end);
	if (!prom_name(&p, end, name, sizeof(name), true))
		return prom_fail(st, "# %s: bad metric name", kw);
	f = prom_family_get(st, name);
	if (f < 0)
		return prom_fail(st, "out of memory");
	if (prom_group(st, f) != 0)
		return -1;
	if (strcmp(kw, "HELP") == 0) {
		if (st->fam[f].help)
			return prom_fail(st, "second HELP for %s", name);
		st->fam[f].help = true;
		if (p < end && *p != ' ' && *p != '\t')
			return prom_fail(st, "HELP %s: no blank before the text", name);
		for (; p < end; p++)
			if (*p == '\\' && (p + 1 == end || (p[1] != '\\' && p[1] != 'n')))
				return prom_fail(st, "HELP %s: bad escape", name);
			else if (*p == '\\')
				p++;
		return 0;
	}
	if (st->fam[f].type[0] != '\0')
		return prom_fail(st, "second TYPE for %s", name);
	if (st->fam[f].sampled)
		return prom_fail(st, "TYPE for %s after its samples", name);
	prom_blanks(&p, end);
	n = 0;
	while (p < end && n + 1 < sizeof(st->fam[f].type) && isalpha((unsigned char)*p))
		st->fam[f].type[n++] = *p++;
	st->fam[f].type[n] = '\0';
	prom_blanks(&p, end);
	if (p != end || (strcmp(st->fam[f].type, "counter") != 0 && strcmp(st->fam[f].type, "gauge") != 0 &&
			 strcmp(st->fam[f].type, "histogram") != 0 &&
			 strcmp(st->fam[f].type, "summary") != 0 &&
			 strcmp(st->fam[f].type, "untyped") != 0))
		return prom_fail(st, "TYPE %s: unknown type", name);
	return 0;
}

struct prom_label {
	char name[64];
	char value[256];
};

static int
prom_label_cmp(const void *a, const void *b)
{
	return strcmp(((const struct prom_label *)a)->name, ((const struct prom_label *)b)->name);
}

static int
prom_labels(struct prom_state *st, const char **pp, const char *end, struct prom_label *l,
	    unsigned int *n)
{
	const char *p = *pp + 1; /* '{' */
	unsigned int i;

	*n = 0;
	for (;;) {
		size_t v = 0;

		prom_blanks(&p, end);
		if (p < end && *p == '}')
			break;
		if (*n == PROM_LABELS_MAX)
			return prom_fail(st, "more than %u labels", PROM_LABELS_MAX);
		if (!prom_name(&p, end, l[*n].name, sizeof(l[0].name), false))
			return prom_fail(st, "bad label name");
		if (strncmp(l[*n].name, "__", 2) == 0)
			return prom_fail(st, "reserved label name %s", l[*n].name);
		prom_blanks(&p, end);
		if (p == end || *p++ != '=')
			return prom_fail(st, "label %s: no =", l[*n].name);
		prom_blanks(&p, end);
		if (p == end || *p++ != '"')
			return prom_fail(st, "label %s: value not quoted", l[*n].name);
		while (p < end && *p != '"') {
			char c = *p++;

			if (c == '\\') {
				if (p == end || (*p != '\\' && *p != '"' && *p != 'n'))
					return prom_fail(st, "label %s: bad escape", l[*n].name);
				c = *p == 'n' ? '\n' : *p;
				p++;
			}
			if (v + 1 >= sizeof(l[0].value))
				return prom_fail(st, "label %s: value too long", l[*n].name);
			l[*n].value[v++] = c;
		}
		if (p == end)
			return prom_fail(st, "label %s: unterminated value", l[*n].name);
		p++;
		l[*n].value[v] = '\0';
		for (i = 0; i < *n; i++)
			if (strcmp(l[i].name, l[*n].name) == 0)
				return prom_fail(st, "label %s twice", l[*n].name);
		(*n)++;
		prom_blanks(&p, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		if (p < end && *p == '}')
			break;
		return prom_fail(st, "labels: expected , or }");
	}
	*pp = p + 1;
	qsort(l, *n, sizeof(*l), prom_label_cmp);
	return 0;
}

static void
prom_canon(char *out, size_t size, const struct prom_label *l, unsigned int n, const char *skip)
{
	size_t off = 0;
	unsigned int i;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		int w;

		if (skip != NULL && strcmp(l[i].name, skip) == 0)
			continue;
		w = snprintf(out + off, size - off, "%s%s=\"%s\"", off > 0 ? "," : "", l[i].name,
			     l[i].value);
		if (w < 0 || (size_t)w >= size - off)
			return;
		off += (size_t)w;
	}
}

/* Go's ParseFloat plus the exposition's +Inf/-Inf/NaN; no hex, no "nan(...)". */
static bool
prom_float(const char *s, double *v)
{
	char *end;

	if (strcmp(s, "+Inf") == 0 || strcmp(s, "-Inf") == 0 || strcmp(s, "NaN") == 0) {
		*v = s[0] == 'N' ? NAN : s[0] == '+' ? INFINITY : -INFINITY;
		return true;
	}
	if (strchr(s, 'x') != NULL || strchr(s, 'X') != NULL || strpbrk(s, "nN(") != NULL)
		return false;
	*v = strtod(s, &end);
	return end != s && *end == '\0';
}

static bool
prom_suffix(const char *name, const char *suffix, char *base, size_t size)
{
	size_t n = strlen(name), k = strlen(suffix);

	if (n <= k || strcmp(name + n - k, suffix) != 0 || n - k >= size)
		return false;
	memcpy(base, name, n - k);
	base[n - k] = '\0';
	return true;
}

static int
prom_sample_line(struct prom_state *st, const char *p, const char *end, bool require_meta)
{
	struct prom_label l[PROM_LABELS_MAX];
	struct prom_sample s;
	char base[128], tok[64];
	unsigned int n = 0;
	size_t i, t = 0;
	long f = -1;

	memset(&s, 0, sizeof(s));
	if (!prom_name(&p, end, s.name, sizeof(s.name), true))
		return prom_fail(st, "bad metric name");
	if (p < end && *p == '{' && prom_labels(st, &p, end, l, &n) != 0)
		return -1;
	if (p == end || (*p != ' ' && *p != '\t'))
		return prom_fail(st, "%s: no blank before the value", s.name);
	prom_blanks(&p, end);
	while (p < end && *p != ' ' && *p != '\t' && t + 1 < sizeof(tok))
		tok[t++] = *p++;
	tok[t] = '\0';
	if (!prom_float(tok, &s.value))
		return prom_fail(st, "%s: bad value '%s'", s.name, tok);
	prom_blanks(&p, end);
	if (p < end) {
		const char *ts = p;

		if (*p == '-')
			p++;
		while (p < end && isdigit((unsigned char)*p))
			p++;
		if (p == ts || p != end)
			return prom_fail(st, "%s: bad timestamp", s.name);
	}
	prom_canon(s.labels, sizeof(s.labels), l, n, NULL);
	prom_canon(s.labels_no_le, sizeof(s.labels_no_le), l, n, "le");
	for (i = 0; i < n; i++)
		if (strcmp(l[i].name, "le") == 0) {
			if (!prom_float(l[i].value, &s.le))
				return prom_fail(st, "%s: le=\"%s\" is not a number", s.name, l[i].value);
			s.has_le = true;
		}

	f = prom_family_find(st, s.name);
	if (f < 0 || strcmp(st->fam[f].type, "histogram") == 0 ||
	    strcmp(st->fam[f].type, "summary") == 0) {
		long h = -1;

		if (prom_suffix(s.name, "_bucket", base, sizeof(base)) ||
		    prom_suffix(s.name, "_sum", base, sizeof(base)) ||
		    prom_suffix(s.name, "_count", base, sizeof(base)))
			h = prom_family_find(st, base);
		if (h >= 0 && (strcmp(st->fam[h].type, "histogram") == 0 ||
			       (strcmp(st->fam[h].type, "summary") == 0 &&
				strstr(s.name, "_bucket") == NULL)))
			f = h;
		else if (f >= 0)
			return prom_fail(st, "%s: a %s family has no plain samples", s.name,
					 st->fam[f].type);
	}
	if (f < 0)
		f = prom_family_get(st, s.name);
	if (f < 0)
		return prom_fail(st, "out of memory");
	if (require_meta && (st->fam[f].type[0] == '\0' || !st->fam[f].help))
		return prom_fail(st, "%s: no HELP and TYPE before it", s.name);
	if (prom_group(st, f) != 0)
		return -1;
	st->fam[f].sampled = true;
	if (strcmp(st->fam[f].type, "histogram") == 0 && strstr(s.name, "_bucket") != NULL &&
	    !s.has_le)
		return prom_fail(st, "%s: a bucket without le", s.name);
	if (strcmp(st->fam[f].type, "counter") == 0 && !(s.value >= 0))
		return prom_fail(st, "%s: counter value %g", s.name, s.value);
	for (i = 0; i < st->doc->n; i++)
		if (strcmp(st->doc->s[i].name, s.name) == 0 &&
		    strcmp(st->doc->s[i].labels, s.labels) == 0)
			return prom_fail(st, "%s{%s} twice", s.name, s.labels);
	if (st->doc->n == st->doc->cap) {
		size_t cap = st->doc->cap ? 2 * st->doc->cap : 256;
		struct prom_sample *ns = realloc(st->doc->s, cap * sizeof(*ns));

		if (ns == NULL)
			return prom_fail(st, "out of memory");
		st->doc->s = ns;
		st->doc->cap = cap;
	}
	st->doc->s[st->doc->n++] = s;
	return 0;
}

static int
prom_check_histograms(struct prom_state *st)
{
	size_t f, i, j;

	for (f = 0; f < st->n_fam; f++) {
		char bucket[160], sum[160], count[160];

		if (strcmp(st->fam[f].type, "histogram") != 0)
			continue;
		snprintf(bucket, sizeof(bucket), "%s_bucket", st->fam[f].name);
		snprintf(sum, sizeof(sum), "%s_sum", st->fam[f].name);
		snprintf(count, sizeof(count), "%s_count", st->fam[f].name);
		for (i = 0; i < st->doc->n; i++) {
			double c;

			if (strcmp(st->doc->s[i].name, bucket) == 0 &&
			    !prom_value(st->doc, count, st->doc->s[i].labels_no_le, &c))
				return prom_fail(st, "%s{%s}: no _count", bucket, st->doc->s[i].labels);
		}
		for (i = 0; i < st->doc->n; i++) {
			char key[512];
			double prev_le = -INFINITY, prev_n = 0, le, c;
			bool inf = false;

			if (strcmp(st->doc->s[i].name, count) != 0)
				continue;
			snprintf(key, sizeof(key), "%s", st->doc->s[i].labels);
			for (j = 0; j < st->doc->n; j++) {
				if (strcmp(st->doc->s[j].name, bucket) != 0 ||
				    strcmp(st->doc->s[j].labels_no_le, key) != 0)
					continue;
				le = st->doc->s[j].le;
				if (inf || !(le > prev_le))
					return prom_fail(st, "%s{%s}: le not increasing", bucket, key);
				if (st->doc->s[j].value < prev_n)
					return prom_fail(st, "%s{%s}: bucket counts decrease", bucket,
							 key);
				prev_le = le;
				prev_n = st->doc->s[j].value;
				inf = isinf(le) && le > 0;
			}
			c = st->doc->s[i].value;
			if (!inf)
				return prom_fail(st, "%s{%s}: no le=\"+Inf\" bucket", bucket, key);
			if (c != prev_n)
				return prom_fail(st, "%s{%s} = %g, the +Inf bucket %g", count, key, c,
						 prev_n);
			if (!prom_value(st->doc, sum, key, &c))
				return prom_fail(st, "%s{%s}: no _sum", st->fam[f].name, key);
		}
	}
	return 0;
}

int
prom_parse(const char *text, size_t len, bool require_meta, struct prom_doc *doc, char *err,
	   size_t err_size)
{
	struct prom_state st = { .doc = doc, .cur = -1, .err = err, .err_size = err_size };
	const char *p = text, *end = text + len;
	int rc = 0;

	memset(doc, 0, sizeof(*doc));
	if (len == 0 || text[len - 1] != '\n') {
		st.line = 0;
		rc = prom_fail(&st, "the text does not end with a newline");
		goto out;
	}
	while (p < end && rc == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *q = p;

		st.line++;
		prom_blanks(&q, nl);
		if (memchr(p, '\0', (size_t)(nl - p)) != NULL)
			rc = prom_fail(&st, "NUL byte");
		else if (q == nl)
			; /* empty lines are ignored */
		else if (*q == '#')
			rc = prom_meta(&st, q, nl);
		else
			rc = prom_sample_line(&st, q, nl, require_meta);
		p = nl + 1;
	}
	if (rc == 0)
		rc = prom_check_histograms(&st);
	doc->families = (unsigned int)st.n_fam;
out:
	free(st.fam);
	if (rc != 0)
		prom_free(doc);
	return rc;
}

bool
prom_value(const struct prom_doc *doc, const char *name, const char *labels, double *v)
{
	size_t i;

	for (i = 0; i < doc->n; i++)
		if (strcmp(doc->s[i].name, name) == 0 && strcmp(doc->s[i].labels, labels) == 0) {
			*v = doc->s[i].value;
			return true;
		}
	return false;
}

size_t
prom_count(const struct prom_doc *doc, const char *name)
{
	size_t i, n = 0;

	for (i = 0; i < doc->n; i++)
		n += strcmp(doc->s[i].name, name) == 0;
	return n;
}

void
prom_free(struct prom_doc *doc)
{
	free(doc->s);
	memset(doc, 0, sizeof(*doc));
}
