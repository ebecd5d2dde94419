/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PROM_TEXT_H
#define LONGSPAN_PROM_TEXT_H

/*
 * Pieces of the Prometheus text exposition (format 0.0.4) shared by the
 * sections that render it (hook_prom.c, measure_prom.c).
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* S escaped for a label value (\\, \", \n) into OUT, truncated to SIZE. */
void prom_escape(char *out, size_t size, const char *s);

/* "# HELP PREFIXNAME HELPSCOPE_HELP" and "# TYPE PREFIXNAME TYPE". */
void prom_family(FILE *f, const char *prefix, const char *name, const char *type,
		 const char *help, const char *scope_help);

/* NS as seconds with 9 decimals: exact, whatever the magnitude. */
void prom_seconds(FILE *f, uint64_t ns);

/* The same for a signed NS (a clock offset). */
void prom_seconds_signed(FILE *f, int64_t ns);

#endif /* LONGSPAN_PROM_TEXT_H */
