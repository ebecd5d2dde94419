/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PATH_MEAS_H
#define LONGSPAN_PATH_MEAS_H

/*
 * What a worker records per peer for the path measurement
 * (docs/wire-format.md, "Path measurement"): stamps and last samples
 * only; the control thread aggregates (control/measure.c) with the pure
 * estimator of congestion/path_est.h.
 *
 * Ownership: struct dp_path_meas is written by its worker only, with plain
 * stores, per packet: no lock, no allocation, no log. The control thread
 * reads it without locks:
 * - ring[]: NTP samples; the worker fills ring[n % DP_MEAS_RING] and then
 *   stores n + 1 into ntp_n (release). The reader loads ntp_n (acquire),
 *   copies the entries it has not seen, loads ntp_n again and drops those
 *   the worker may have overwritten meanwhile (a sequence-count read).
 * - transit_sum_ns / transit_n: written sum first, then the count
 *   (release); a reader may see a sum one sample ahead of the count, an
 *   error of one sample in an interval's mean.
 * - echo_t1_ns / echo_t2_ns: the worker's own (it echoes them in its probes).
 */

#include <stdint.h>

#include "congestion/path_est.h"

#define DP_MEAS_RING 16 /* probes are at most one per probe_interval per worker and peer */

struct dp_path_meas {
	/* The last packet received from the peer, echoed by this worker's next probe. */
	uint64_t echo_t1_ns; /* its transmit timestamp, the peer's clock */
	uint64_t echo_t2_ns; /* when it arrived, our clock; 0 = nothing yet */
	/* Transit (our receive time - the peer's timestamp) of every packet with the option. */
	uint64_t transit_sum_ns; /* sum of (int64) transits, wrapping: differences are exact */
	uint64_t transit_n;
	uint64_t last_rx_ns; /* our clock */
	struct path_jitter jitter; /* RFC 3550 over the same transits */
	/* Probes. */
	uint64_t probe_next_ns; /* when this worker probes the peer next */
	uint64_t probes_tx; /* built and queued for transmit */
	uint64_t probes_failed; /* not built: no mbuf, next hop unresolved, no transmit room */
	uint64_t probes_rx; /* received from the peer */
	uint64_t probes_rx_noecho; /* received without a valid echo (the peer had heard nothing yet) */
	uint64_t ntp_n; /* NTP samples written */
	struct path_ntp_sample ring[DP_MEAS_RING];
};

/* A packet with the Longspan option arrived from the peer at now_ns (worker). */
static inline void
dp_path_meas_rx(struct dp_path_meas *pm, uint64_t tx_ns, uint64_t now_ns)
{
	int64_t transit = (int64_t)(now_ns - tx_ns);

	pm->echo_t1_ns = tx_ns;
	pm->echo_t2_ns = now_ns;
	pm->last_rx_ns = now_ns;
	path_jitter_update(&pm->jitter, transit);
	pm->transit_sum_ns += (uint64_t)transit;
	__atomic_store_n(&pm->transit_n, pm->transit_n + 1, __ATOMIC_RELEASE);
}

/* A probe carrying an echo arrived: one NTP sample (worker). */
static inline void
dp_path_meas_ntp(struct dp_path_meas *pm, uint64_t t1, uint64_t t2, uint64_t t3, uint64_t t4)
{
	struct path_ntp_sample *s = &pm->ring[pm->ntp_n % DP_MEAS_RING];

	s->t1_ns = t1;
	s->t2_ns = t2;
	s->t3_ns = t3;
	s->t4_ns = t4;
	__atomic_store_n(&pm->ntp_n, pm->ntp_n + 1, __ATOMIC_RELEASE);
}

#endif /* LONGSPAN_PATH_MEAS_H */
