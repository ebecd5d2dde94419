/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PROM_PARSE_H
#define LONGSPAN_PROM_PARSE_H

/*
 * A strict parser of the Prometheus text exposition format, version 0.0.4
 * (prometheus.io "Exposition formats"), for the tests: written from the
 * format's description, not from the exporter, and stricter than
 * Prometheus where the format says "should":
 *
 *   - every line ends with \n, including the last;
 *   - "# HELP name text" and "# TYPE name type" at most once per family,
 *     TYPE before its first sample; with require_meta, both for every
 *     family;
 *   - metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names
 *     [a-zA-Z_][a-zA-Z0-9_]* not starting with __, label values with only
 *     the \\, \" and \n escapes, no label twice in one sample;
 *   - values as Go's ParseFloat reads them (and +Inf, -Inf, NaN), an
 *     optional integer timestamp;
 *   - a family's lines all together, no sample twice (same name and label
 *     set in any order);
 *   - histograms: per label set, buckets in increasing le ending with
 *     le="+Inf", counts not decreasing, _count equal to the +Inf bucket and
 *     a _sum; counters not negative.
 */

#include <stdbool.h>
#include <stddef.h>

struct prom_sample {
	char name[128];
	char labels[512]; /* canonical: name="value" pairs sorted by name, comma-separated */
	char labels_no_le[512]; /* the same without le (histogram buckets) */
	double le; /* of a bucket, when has_le */
	bool has_le;
	double value;
};

struct prom_doc {
	struct prom_sample *s;
	size_t n, cap;
	unsigned int families;
};

/* Parse TEXT (LEN bytes); 0, or -1 with "line N: reason" in err. */
int prom_parse(const char *text, size_t len, bool require_meta, struct prom_doc *doc, char *err,
	       size_t err_size);

/* The value of NAME with canonical LABELS ("" for none); false when absent. */
bool prom_value(const struct prom_doc *doc, const char *name, const char *labels, double *v);

/* Samples named NAME. */
size_t prom_count(const struct prom_doc *doc, const char *name);

void prom_free(struct prom_doc *doc);

#endif /* LONGSPAN_PROM_PARSE_H */
