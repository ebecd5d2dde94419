/* SPDX-License-Identifier: BSD-3-Clause */
#include "worker.h"

#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "hook_pipe.h"
#include "mbuf_meta.h"
#include "p4_stage.h"
#include "pipeline.h"
#include "probe.h"

/* Idle: spin this many empty polls, then wait (dataplane/idle.h). */
#define DP_IDLE_SPIN_POLLS 256
#define DP_IDLE_SLEEP_MIN_NS 10000u

int dp_mbuf_meta_offset = -1;

int
dp_mbuf_meta_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "longspan_meta",
		.size = sizeof(struct dp_mbuf_meta),
		.align = __alignof__(struct dp_mbuf_meta),
	};
	int off = rte_mbuf_dynfield_register(&desc);

	if (off < 0)
		return -rte_errno;
	dp_mbuf_meta_offset = off;
	return 0;
}

static inline void
dp_clock_now(const struct dp_worker *w, struct dp_clock *clk)
{
	clk->tsc = rte_rdtsc();
	/* ns per tick in Q32, precomputed: a multiply, not a 128-bit divide. */
	clk->ns = w->ns_base +
		  (uint64_t)(((unsigned __int128)(clk->tsc - w->tsc_base) * w->ns_per_tick_q32) >> 32);
}

/*
 * Transmit everything collected for each port. What the queue refuses is a
 * tx_ring_full drop when it was a received packet, own_tx_failed when the
 * gateway built it (it was never received, so it is no packet drop).
 */
static inline void
dp_tx_flush(struct dp_worker *w, const struct dp_conf *c, struct dp_tx *tx)
{
	struct dp_counters *ctr = &w->counters;
	uint16_t p;

	for (p = 0; p < c->n_ports; p++) {
		uint16_t n = tx->n[p], own = tx->own[p], sent, i;
		uint64_t bytes = 0;

		if (n == 0)
			continue;
		for (i = 0; i < n; i++)
			bytes += tx->pkts[p][i]->pkt_len;
		/* A stopped port's queues may be torn down: never called. */
		sent = unlikely(c->ports[p].stopped) ?
			       0 :
			       rte_eth_tx_burst(c->ports[p].port_id, (uint16_t)w->id, tx->pkts[p], n);
		for (i = sent; i < n; i++) {
			bytes -= tx->pkts[p][i]->pkt_len;
			if (dp_tx_is_own(tx, p, i)) {
				ctr->own_tx_failed++;
				own--;
			} else {
				ctr->drops[c->ports[p].stopped ? LS_DROP_PORT_STOPPED : LS_DROP_TX_FULL]++;
			}
			rte_pktmbuf_free(tx->pkts[p][i]);
		}
		/* own now counts the gateway's packets among the sent ones. */
		ctr->own_tx += own;
		ctr->forwarded += sent - own;
		ctr->port[p].tx_pkts += sent;
		ctr->port[p].tx_bytes += bytes;
		tx->n[p] = 0;
		tx->own[p] = 0;
	}
}

/*
 * The second pass writes a packet's flow into its mbuf for the wan_tx point
 * only while that point has hooks (dp_hook_carry(): the common case without
 * them pays nothing per packet). When a snapshot brings the first wan_tx
 * hook, what waits in the traffic manager's queues carries whatever its mbuf
 * held last: mark it as carrying no flow (its hook context then takes the
 * hash from the packet).
 */
static void
dp_worker_sync_carry(struct dp_worker *w, const struct dp_conf *c)
{
	bool carry = dp_hooks_at(dp_hook_set(w, c), LS_HOOK_WAN_TX);
	unsigned int p, q;
	uint32_t i;

	if (carry && !w->hook_carry)
		for (p = 0; p < LS_MAX_PORTS; p++)
			for (q = 0; q < DP_TM_CLASS_MAX; q++) {
				const struct tm_fifo *f = &w->tm[p].q[q];

				for (i = f->head; i != f->tail; i++)
					dp_hook_carry(f->ring[i & f->mask], 0, LS_HOOK_NO_SLOT);
			}
	w->hook_carry = carry;
}

/* Rebuild per-worker state that depends on the config (shapers, markers, aging). */
static void
dp_worker_sync(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk)
{
	uint16_t p;

	dp_worker_sync_carry(w, c);

	for (p = 0; p < c->n_ports; p++)
		if (c->ports[p].role == LS_PORT_WAN)
			tm_sync(&w->tm[p], &c->tm[p], c->generation,
				(uint64_t)w->id << 16 | p, clk->ns, clk->tsc);
	w->flows.idle_ns = c->mech.flow_idle_ns;
	w->learn_src.idle_ns = c->mech.learn.idle_ns;
	w->learn_dst.idle_ns = c->mech.learn.idle_ns;
	dc_pfc_sync(&w->dc_pfc, &c->lossless, c->generation, w->tsc_hz);
	wan_credit_sync(&w->credit, c, c->generation);
	w->generation = c->generation;
}

unsigned int
dp_worker_poll(struct dp_worker *w, const struct dp_clock *start)
{
	const struct dp_conf *c = __atomic_load_n(w->conf, __ATOMIC_ACQUIRE);
	struct dp_clock now = *start, *clk = &now;
	struct rte_mbuf *pkts[DP_MAX_BURST];
	struct dp_tx tx;
	unsigned int total = 0, i;
	uint16_t p, n;

	w->counters.polls++;
	if (unlikely(c == NULL))
		return 0;
	if (unlikely(c->generation != w->generation))
		dp_worker_sync(w, c, clk);
	w->dc_pfc.now_tsc = clk->tsc;
	w->credit.now_ns = clk->ns;
	w->hook.tsc = clk->tsc; /* the hook contexts' clock: written at each point's flush */
	w->hook.now_ns = clk->ns;
	memset(tx.n, 0, sizeof(tx.n));
	memset(tx.own, 0, sizeof(tx.own));
	w->next_due_tsc = UINT64_MAX;

	for (p = 0; p < c->n_ports; p++) {
		if (unlikely(c->ports[p].stopped))
			continue;
		n = rte_eth_rx_burst(c->ports[p].port_id, (uint16_t)w->id, pkts, c->burst);
		if (n == 0)
			continue;
		/*
		 * Stamped after the burst arrived: the clock read at the start
		 * precedes whatever came in while an earlier port's burst was
		 * processed (or this thread was preempted), which made some
		 * path samples shorter than the path.
		 */
		if (clk->live)
			dp_clock_now(w, clk);
		total += n;
		if (c->p4[w->id] != NULL)
			dp_p4_burst(w, c, c->p4[w->id], p, pkts, n, clk, &tx);
		else if (c->ports[p].role == LS_PORT_DC)
			dp_pipeline_dc(w, c, p, pkts, n, clk, &tx);
		else
			dp_pipeline_wan(w, c, p, pkts, n, clk, &tx);
		dp_tx_flush(w, c, &tx);
	}

	/* Queued packets whose time has come: WAN shapers, mechanism C holds. */
	dp_pipeline_tm(w, c, clk, &tx);
	/* After the traffic managers: a control packet's report covers what they sent. */
	if (unlikely(w->credit.enabled))
		wan_credit_poll(&w->credit, c, &w->counters.credit, w->pool, clk->tsc, w->tsc_hz,
				&tx, &w->next_due_tsc);
	dp_pipeline_hold(w, c, clk, &tx);
	dp_pipeline_dc_pfc(w, c, clk, &tx);
	dp_probe_poll(w, c, clk, &tx);
	dp_tx_flush(w, c, &tx);

	/* Packets the control thread built (ARP/ND replies and requests, echo). */
	n = (uint16_t)rte_ring_sc_dequeue_burst(w->inject, (void **)pkts, DP_MAX_BURST, NULL);
	w->counters.injected += n;
	for (i = 0; i < n; i++) {
		uint8_t port = dp_mbuf_meta(pkts[i])->port;

		if (unlikely(port >= c->n_ports)) {
			w->counters.own_tx_failed++;
			rte_pktmbuf_free(pkts[i]);
			continue;
		}
		dp_tx_add_own(&tx, port, pkts[i]);
	}
	if (n)
		dp_tx_flush(w, c, &tx);
	return total;
}

void
dp_worker_reset(struct dp_worker *w)
{
	unsigned int p, q, i;

	for (p = 0; p < LS_MAX_PORTS; p++) {
		for (q = 0; q < DP_TM_CLASS_MAX; q++) {
			struct tm_fifo *f = &w->tm[p].q[q];

			while (tm_fifo_count(f) != 0)
				rte_pktmbuf_free(f->ring[f->head++ & f->mask]);
			f->head = f->tail = 0;
			f->bytes = 0;
		}
		w->tm[p].generation = 0;
	}
	for (i = 0; i < HOLD_SLOTS; i++) {
		struct hold_entry *he = &w->hold.e[i];

		while (hold_count(he) != 0)
			rte_pktmbuf_free(hold_pop(he, hold_head(he)->pkt_len));
		he->used = false;
		trp_init(&he->trp);
	}
	w->hold.used = 0;
	if (w->flows.e != NULL)
		flow_table_init(&w->flows, w->flows.e, w->flows.mask + 1, w->flows.idle_ns);
	if (w->learn_src.slots != NULL)
		memset(w->learn_src.slots, 0, qpn_learn_mem_size(w->learn_src.mask + 1));
	if (w->learn_dst.slots != NULL)
		memset(w->learn_dst.slots, 0, qpn_learn_mem_size(w->learn_dst.mask + 1));
	w->generation = 0;
	w->hook_carry = false;
	memset(w->seq, 0, sizeof(w->seq));
	memset(w->meas, 0, sizeof(w->meas));
	memset(&w->counters, 0, sizeof(w->counters));
}

/* Register this worker's rx queue of every port for interrupt waits. */
static void
dp_worker_idle_init(struct dp_worker *w)
{
	const struct dp_conf *c = __atomic_load_n(w->conf, __ATOMIC_ACQUIRE);
	enum idle_mode mode = (enum idle_mode)w->idle_mode;

	/* idle_sleep = 0 has always meant busy polling. */
	if (w->idle_sleep_ns == 0)
		mode = IDLE_POLL;
	idle_init(&w->idle, mode, DP_IDLE_SPIN_POLLS, DP_IDLE_SLEEP_MIN_NS,
		  RTE_MAX(w->idle_sleep_ns, (uint64_t)DP_IDLE_SLEEP_MIN_NS));
	idle_start(&w->idle);
	for (uint16_t p = 0; c != NULL && mode == IDLE_INTERRUPT && p < c->n_ports; p++) {
		int rc = idle_add_queue(&w->idle, c->ports[p].port_id, (uint16_t)w->id);

		if (rc != 0) {
			/* The port's driver has no rx interrupts: control says so. */
			w->idle_intr_rc = rc;
			w->idle_intr_port = c->ports[p].port_id;
			break;
		}
	}
}

int
dp_worker_main(void *arg)
{
	struct dp_worker *w = arg;
	struct dp_clock clk = { .live = true };

	w->ns_per_tick_q32 = (uint64_t)(((unsigned __int128)1000000000u << 32) / w->tsc_hz);
	w->idle_intr_rc = 0;
	dp_worker_idle_init(w);
	__atomic_store_n(&w->started, true, __ATOMIC_RELEASE);
	rte_rcu_qsbr_thread_online(w->rcu, w->rcu_id);
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		uint64_t t0;
		unsigned int n;

		dp_clock_now(w, &clk);
		t0 = clk.tsc;
		n = dp_worker_poll(w, &clk);
		rte_rcu_qsbr_quiescent(w->rcu, w->rcu_id);
		if (n > 0) {
			w->counters.busy_tsc += rte_rdtsc() - t0;
			idle_work(&w->idle);
			continue;
		}
		w->counters.idle_polls++;
		if (!idle_may_block(&w->idle)) {
			idle_wait(&w->idle, t0, w->next_due_tsc);
			continue;
		}
		/*
		 * Idle: give the core away (a sleep never past a shaper or hold
		 * deadline, or a wait for rx interrupts bounded by it). Offline
		 * meanwhile, so that a config publish does not wait for us; stop
		 * is seen within IDLE_INTR_MAX_WAIT_NS.
		 */
		rte_rcu_qsbr_thread_offline(w->rcu, w->rcu_id);
		idle_wait(&w->idle, rte_rdtsc(), w->next_due_tsc);
		rte_rcu_qsbr_thread_online(w->rcu, w->rcu_id);
		w->counters.sleeps = w->idle.sleeps + w->idle.intr_waits;
	}
	rte_rcu_qsbr_thread_offline(w->rcu, w->rcu_id);
	idle_fini(&w->idle);
	return 0;
}
