/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_MEASURE_H
#define LONGSPAN_MEASURE_H

/*
 * Measured distance to each peer (docs/wire-format.md, "Path
 * measurement"): once per [gateway] measure_interval the control thread
 * reads every worker's path samples (dataplane/path_meas.h) and makes the
 * peer's RTT, clock offset, one-way delays, jitter, loss and reordering
 * with congestion/path_est.h; for a peer with rtt = auto it runs the
 * hysteresis that decides when the parameters follow (runtime.c
 * republishes).
 *
 * Ownership: struct measure is written by the control thread only, under
 * cfg_lock (the telemetry thread reads it for show peers under the same
 * lock).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "congestion/path_est.h"
#include "dataplane/dp_limits.h"

struct dp_worker;
struct fmt;

/* What one interval collected for one peer so far. */
struct measure_acc {
	uint64_t n; /* valid NTP samples */
	int64_t best_rtt, best_off; /* the smallest-RTT sample */
	int64_t rtt_sum;
	int64_t fwd_min, rev_min; /* t2 - t1 and t4 - t3, offset included: the smallest */
	uint64_t transit_n; /* packets from the peer with the option */
	int64_t transit_sum;
	uint64_t jitter;
	struct path_seq_counts seq;
};

struct measure_peer {
	char name[LS_NAME_MAX]; /* the config peer these numbers are of */
	/* Measured (control thread's CLOCK_REALTIME ns at the update; 0 = never). */
	int64_t rtt_ns; /* smallest RTT of the last interval with samples */
	int64_t rtt_mean_ns;
	int64_t offset_ns; /* peer's clock minus ours, from that smallest-RTT sample */
	/*
	 * One-way delays: the smallest of the interval's probe samples, like the
	 * RTT, so a stall that held some packets does not move them; the mean
	 * transit of every packet from the peer is shown beside (queueing).
	 */
	int64_t owd_tx_ns; /* toward the peer: min(t2 - t1) - offset */
	int64_t owd_rx_ns; /* from the peer: min(t4 - t3) + offset */
	int64_t owd_rx_mean_ns; /* from the peer: mean transit of every packet + offset */
	uint64_t jitter_ns; /* RFC 3550, the largest of the workers' */
	uint32_t loss_ppm, reorder_ppm; /* packets from the peer, last interval with any */
	uint64_t samples; /* NTP samples of the last interval with samples */
	uint64_t rtt_updated_ns, owd_rx_mean_updated_ns, jitter_updated_ns, loss_updated_ns;
	uint64_t samples_rejected; /* impossible NTP samples, cumulative */
	uint64_t samples_overrun; /* overwritten before they were read, cumulative */
	/* rtt = auto. */
	struct path_hyst hyst;
	uint64_t rtt_applied_ns; /* what the published parameters were derived from; 0 = config */
	uint64_t rtt_changes; /* republishes this peer caused */
	uint64_t rtt_changed_interval; /* measure.intervals of the last one; 0 = none */
	/* Reading state. */
	uint64_t ntp_seen[LS_MAX_WORKERS];
	uint64_t transit_sum_prev[LS_MAX_WORKERS], transit_n_prev[LS_MAX_WORKERS];
	struct path_seq_counts seq_prev;
	struct measure_acc ntp; /* this interval's NTP samples so far (measure_read()) */
	bool primed; /* the *_prev values hold a reading */
};

struct measure {
	uint64_t next_ns; /* monotonic ns of the next interval end */
	uint64_t next_read_ns; /* monotonic ns of the next measure_read() */
	uint64_t intervals;
	uint64_t rtt_changes; /* all peers */
	uint64_t republish_failed;
	struct measure_peer peers[LS_MAX_PEERS];
};

/*
 * One interval: read the workers, update every peer of cfg, run the
 * hysteresis of the rtt = auto peers. now_ns: CLOCK_REALTIME (shown as
 * "updated"). Every change of an applied RTT is logged on log (old -> new
 * and why) and counted; returns true when one changed and the snapshot
 * must be rebuilt.
 */
bool measure_interval(struct measure *m, const struct ls_config *cfg,
		      struct dp_worker *const *workers, unsigned int n_workers, uint64_t now_ns,
		      FILE *log);

/*
 * Take the workers' new NTP samples into the interval's: each worker keeps
 * the last DP_MEAS_RING only, so the control thread calls this every
 * MEASURE_READ_NS (measure_interval() does too).
 */
#define MEASURE_READ_NS 5000000u
void measure_read(struct measure *m, const struct ls_config *cfg, struct dp_worker *const *workers,
		  unsigned int n_workers);

/* The RTT the parameters of cfg's peer i are derived from (measured for rtt = auto). */
uint64_t measure_rtt_ns(const struct measure *m, const struct ls_config *cfg, unsigned int i);

/*
 * show peers: the measurement of cfg's peer i, as of now_ns (CLOCK_REALTIME);
 * the probe counters are the workers' own, summed now.
 */
void measure_show_peer(struct fmt *f, const struct measure *m, const struct ls_config *cfg,
		       unsigned int i, struct dp_worker *const *workers, unsigned int n_workers,
		       uint64_t now_ns);

#endif /* LONGSPAN_MEASURE_H */
