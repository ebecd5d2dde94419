/* SPDX-License-Identifier: BSD-3-Clause */
#include "tsc.h"

#include <time.h>

#include <rte_cycles.h>

#define TSC_PAIR_TRIES 16
#define TSC_MAX_DISAGREE_PPM 10000 /* 1% */

static uint64_t tsc_rate;

/*
 * One (tsc, ns) pair: the clock read between two TSC reads, the pair with
 * the shortest bracket of TSC_PAIR_TRIES (a preemption between the reads
 * widens it), its TSC the bracket's middle.
 */
static void
tsc_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (unsigned int i = 0; i < TSC_PAIR_TRIES; i++) {
		struct timespec ts;
		uint64_t t0 = rte_rdtsc_precise(), t1;

		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		t1 = rte_rdtsc_precise();
		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*ns = (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
		}
	}
}

uint64_t
tsc_calibrate(uint64_t window_ns)
{
	uint64_t dpdk = rte_get_tsc_hz(), tsc0 = 0, ns0 = 0, tsc1 = 0, ns1 = 0, hz;
	struct timespec w = { (time_t)(window_ns / 1000000000u), (long)(window_ns % 1000000000u) };

	tsc_pair(&tsc0, &ns0);
	nanosleep(&w, NULL);
	tsc_pair(&tsc1, &ns1);
	if (ns1 <= ns0 || tsc1 <= tsc0) {
		tsc_rate = dpdk;
		return tsc_rate;
	}
	hz = (uint64_t)(((unsigned __int128)(tsc1 - tsc0) * 1000000000u + (ns1 - ns0) / 2) /
			(ns1 - ns0));
	/* A clock that jumped, or a TSC that stopped: DPDK's is the safer guess. */
	if ((hz > dpdk ? hz - dpdk : dpdk - hz) > dpdk / 1000000 * TSC_MAX_DISAGREE_PPM)
		hz = dpdk;
	tsc_rate = hz;
	return tsc_rate;
}

uint64_t
tsc_hz(void)
{
	return tsc_rate != 0 ? tsc_rate : rte_get_tsc_hz();
}
