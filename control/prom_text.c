/* SPDX-License-Identifier: BSD-3-Clause */
#include "prom_text.h"

#include <inttypes.h>

void
prom_escape(char *out, size_t size, const char *s)
{
	size_t n = 0;

	for (; *s != '\0' && n + 3 < size; s++) {
		if (*s == '\\' || *s == '"') {
			out[n++] = '\\';
			out[n++] = *s;
		} else if (*s == '\n') {
			out[n++] = '\\';
			out[n++] = 'n';
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
}

void
prom_family(FILE *f, const char *prefix, const char *name, const char *type, const char *help,
	    const char *scope_help)
{
	fprintf(f, "# HELP %s%s %s%s\n# TYPE %s%s %s\n", prefix, name, help, scope_help, prefix,
		name, type);
}

void
prom_seconds(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

void
prom_seconds_signed(FILE *f, int64_t ns)
{
	if (ns < 0) {
		fputc('-', f);
		prom_seconds(f, (uint64_t)0 - (uint64_t)ns);
	} else {
		prom_seconds(f, (uint64_t)ns);
	}
}
