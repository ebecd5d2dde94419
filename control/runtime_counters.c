/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The gateway's counters over every worker, as the reports (API, telemetry,
 * --stats) show them. On its own, away from the rest of runtime.c, so that
 * the API tests link the real summation without a running gateway.
 */
#include <assert.h>
#include <string.h>

#include <rte_common.h>

#include "runtime.h"

static_assert(sizeof(struct dp_counters) % sizeof(uint64_t) == 0,
	      "dp_counters must be summable as an array of uint64_t");

void
runtime_counters_sum(const struct ls_runtime *rt, struct dp_counters *out)
{
	uint64_t *dst = (uint64_t *)out;
	unsigned int w, i;

	memset(out, 0, sizeof(*out));
	for (w = 0; w < rt->n_workers; w++) {
		const uint64_t *src = (const uint64_t *)&rt->workers[w]->counters;

		for (i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
			dst[i] += src[i];
	}
	/* Maxima are maxima over workers, not sums. */
	for (i = 0; i < LS_MAX_PORTS * DP_TM_CLASS_MAX; i++) {
		struct dp_tm_counters *t = &out->tm[i / DP_TM_CLASS_MAX][i % DP_TM_CLASS_MAX];

		t->depth_max_bytes = 0;
		t->sojourn_ns_max = 0;
		for (w = 0; w < rt->n_workers; w++) {
			const struct dp_tm_counters *s =
				&rt->workers[w]->counters.tm[i / DP_TM_CLASS_MAX][i % DP_TM_CLASS_MAX];

			t->depth_max_bytes = RTE_MAX(t->depth_max_bytes, s->depth_max_bytes);
			t->sojourn_ns_max = RTE_MAX(t->sojourn_ns_max, s->sojourn_ns_max);
		}
	}
}
