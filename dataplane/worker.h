/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_WORKER_H
#define LONGSPAN_WORKER_H

/*
 * A worker lcore: polls one rx queue on every port, runs the pipeline to
 * completion, transmits on its own tx queue of every port.
 *
 * Ownership: everything in struct dp_worker is written by its worker only,
 * except `stop` (written by the control thread, read with an acquire load)
 * and the inject ring (control thread produces, worker consumes). The
 * control thread reads `counters` without locks.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "congestion/qpn_learn.h"
#include "dc_pfc.h"
#include "dp_conf.h"
#include "flow.h"
#include "hold.h"
#include "hook.h"
#include "idle.h"
#include "path_meas.h"
#include "tm.h"
#include "wan_credit.h"

struct rte_mbuf;

/* Per (peer) state the worker keeps for the GENEVE option. */
struct dp_peer_seq {
	uint32_t tx_seq; /* next sequence number to send */
	uint32_t rx_expect[DP_MAX_WORKERS]; /* next expected, per remote worker */
	uint8_t rx_seen[DP_MAX_WORKERS];
};

/* Clock handed to the pipeline once per burst (style.md 4: clock passed in). */
struct dp_clock {
	uint64_t tsc;
	uint64_t ns; /* wall-clock-like ns used for GENEVE timestamps */
	/*
	 * Read from the TSC (dp_worker_main()): dp_worker_poll() reads it again
	 * after each burst it receives, so that a receive timestamp never
	 * precedes the arrival (the path measurement's t2 and t4). false: the
	 * caller's clock throughout (the unit tests' fixed times).
	 */
	bool live;
};

struct dp_worker {
	unsigned int id; /* 0..n_workers-1, also the queue index on each port */
	unsigned int lcore;
	unsigned int rcu_id;
	struct rte_rcu_qsbr *rcu;
	struct dp_conf **conf; /* &runtime published pointer */
	struct rte_ring *punt; /* worker -> control: mbufs for ARP/ND learning, misses */
	struct rte_ring *inject; /* control -> worker: mbufs to transmit */
	bool stop; /* set by control (release), read by worker (acquire) */
	uint8_t idle_mode; /* enum idle_mode, [gateway] idle */
	uint64_t idle_sleep_ns; /* longest back-off sleep */
	struct idle idle; /* owned by dp_worker_main() */
	/*
	 * Start-up status, for the control thread to report (a worker never
	 * logs): written by dp_worker_main() before it sets started (release),
	 * read by control after it saw started (acquire). idle_intr_rc is 0, or
	 * the negative errno with which idle_intr_port refused rx interrupts
	 * (the worker then sleeps when idle instead).
	 */
	bool started;
	int idle_intr_rc;
	uint16_t idle_intr_port;
	uint64_t tsc_hz;
	uint64_t ns_base; /* CLOCK_REALTIME ns at tsc_base */
	uint64_t tsc_base;
	uint64_t ns_per_tick_q32; /* 1e9 / tsc_hz in Q32, set by dp_worker_main() */
	struct dp_peer_seq seq[LS_MAX_PEERS];
	struct dp_path_meas meas[LS_MAX_PEERS]; /* path measurement (path_meas.h) */
	struct rte_mempool *pool; /* for packets the worker builds (CNPs) */
	uint64_t generation; /* of the snapshot the state below was synced to */
	bool hook_carry; /* that snapshot has wan_tx hooks: packets carry their flow */
	uint64_t next_due_tsc; /* earliest queued packet due; UINT64_MAX = none */
	struct tm_port tm[LS_MAX_PORTS]; /* WAN ports */
	struct flow_table flows;
	struct qpn_learn learn_src; /* mechanism A: local senders' QPNs */
	struct qpn_learn learn_dst; /* mechanism C: remote senders' QPNs */
	struct hold_table hold; /* mechanism C */
	struct dc_pfc dc_pfc; /* mechanism B at the DC port */
	struct wan_credit credit; /* mechanism B on the WAN hop */
	struct dp_counters counters;
	struct dp_hook_io hook; /* hook contexts of this poll, per-hook counters */
} __rte_cache_aligned;

/* lcore entry point (rte_eal_remote_launch); returns when stop is set. */
int dp_worker_main(void *arg);

/*
 * One poll of every port and the inject ring from the clock start (read again
 * after each received burst when start->live); returns
 * the number of packets received. Used by dp_worker_main() and by the
 * fixture and benchmark harnesses, which drive the clock themselves.
 */
unsigned int dp_worker_poll(struct dp_worker *w, const struct dp_clock *start);

/* Reset sequence state and counters (tests). */
void dp_worker_reset(struct dp_worker *w);

#endif /* LONGSPAN_WORKER_H */
