/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The WAN egress traffic manager (tm.h): the per-class FIFOs with their
 * shaper and markers first, then the policy that runs them for the
 * pipeline: queue or pass a burst, signal congestion, dequeue and
 * encapsulate.
 */
#include "tm.h"

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_mbuf.h>

#include "congestion/ecn.h"
#include "dp_helpers.h"
#include "encap.h"
#include "hook_pipe.h"
#include "mbuf_meta.h"
#include "mech.h"
#include "pipeline.h"
#include "roce.h"
#include "wan_credit.h"

/* Index of the log2 bucket of v (bucket 0 holds 0 and 1). */
static inline unsigned int
tm_hist_bucket(uint64_t v)
{
	unsigned int b = v <= 1 ? 0 : 63 - (unsigned int)__builtin_clzll(v);

	return b < DP_HIST_BUCKETS ? b : DP_HIST_BUCKETS - 1;
}

void
tm_sync(struct tm_port *t, const struct dp_tm_conf *conf, uint64_t generation, uint64_t seed,
	uint64_t now_ns, uint64_t tsc)
{
	unsigned int c;

	if (t->generation == generation)
		return;
	t->generation = generation;
	if (conf->enabled)
		token_bucket_init(&conf->shaper, &t->tb, tsc);
	for (c = 0; c < DP_TM_CLASS_MAX; c++) {
		struct ecn_marker_params none = { .kind = ECN_MARKER_NONE };
		const struct ecn_marker_params *p =
			c == DP_TM_CLASS_CONTROL || !conf->enabled ? &none : &conf->marker;

		/* Validated when the snapshot was built; NONE cannot fail. */
		if (ecn_marker_init(&t->marker[c], p, seed + c, now_ns) != 0)
			ecn_marker_init(&t->marker[c], &none, seed + c, now_ns);
	}
}

bool
tm_enqueue(struct tm_port *t, const struct dp_tm_conf *conf, struct dp_tm_counters *ctr,
	   enum dp_tm_class cls, struct rte_mbuf *m, uint32_t wire_bytes, uint64_t now_ns,
	   uint64_t tsc, bool *mark)
{
	struct tm_fifo *f = &t->q[cls];
	struct dp_tm_counters *cc = &ctr[cls];

	*mark = false;
	if (tm_fifo_count(f) > f->mask ||
	    (conf->enabled && f->bytes + wire_bytes > conf->buffer_bytes && tm_fifo_count(f) != 0)) {
		cc->drops++;
		return false;
	}
	if (!conf->mark_at_dequeue &&
	    ecn_marker_decide(&t->marker[cls], f->bytes, 0, wire_bytes, now_ns) == ECN_VERDICT_MARK)
		*mark = true;
	cc->depth_hist[tm_hist_bucket(f->bytes)]++;
	dp_mbuf_meta(m)->tm.enq_tsc = tsc;
	dp_mbuf_meta(m)->tm.frame_bytes = (uint16_t)wire_bytes;
	f->ring[f->tail & f->mask] = m;
	f->tail++;
	f->bytes += wire_bytes;
	cc->enq_pkts++;
	cc->enq_bytes += wire_bytes;
	cc->depth_bytes = f->bytes;
	cc->depth_pkts = tm_fifo_count(f);
	if (f->bytes > cc->depth_max_bytes)
		cc->depth_max_bytes = f->bytes;
	return true;
}

unsigned int
tm_dequeue(struct tm_port *t, const struct dp_tm_conf *conf, struct dp_tm_counters *ctr,
	   uint64_t tsc, struct rte_mbuf **out, uint8_t *cls_out, uint64_t *sojourn_out,
	   unsigned int max, struct wan_credit *cr, struct dp_credit_counters *cctr)
{
	uint64_t ns_per_tick_q32 = t->tsc_hz ? (UINT64_C(1000000000) << 32) / t->tsc_hz : 0;
	unsigned int n = 0, c;

	for (c = 0; c < DP_TM_CLASS_MAX && n < max; c++) {
		struct tm_fifo *f = &t->q[c];
		struct dp_tm_counters *cc = &ctr[c];

		while (n < max && tm_fifo_count(f) != 0) {
			struct rte_mbuf *m = f->ring[f->head & f->mask];
			uint32_t frame = dp_mbuf_meta(m)->tm.frame_bytes;
			bool roce = dp_mbuf_meta(m)->tm.flags & DP_TM_F_ROCE_DATA;
			uint64_t soj;

			/* Mechanism B: RoCE data waits for its peer's credit, and the class behind it. */
			if (cr != NULL && roce && !wan_credit_tx_gate(cr, cctr, m))
				break;
			/*
			 * Debt is allowed so a packet larger than the bucket still
			 * goes; the next one then waits for the debt to be repaid.
			 */
			if (conf->enabled &&
			    !token_bucket_conform(&conf->shaper, &t->tb, frame + TM_WIRE_OVERHEAD,
						  tsc, true))
				return n;
			f->head++;
			f->bytes -= frame;
			soj = (uint64_t)(((unsigned __int128)(tsc - dp_mbuf_meta(m)->tm.enq_tsc) *
					  ns_per_tick_q32) >> 32);
			if (cr != NULL)
				wan_credit_tx_commit(cr, cctr, m, roce); /* overwrites enq_tsc */
			cc->deq_pkts++;
			cc->deq_bytes += frame;
			cc->sojourn_ns_sum += soj;
			if (soj > cc->sojourn_ns_max)
				cc->sojourn_ns_max = soj;
			cc->sojourn_hist[tm_hist_bucket(soj)]++;
			cc->depth_bytes = f->bytes;
			cc->depth_pkts = tm_fifo_count(f);
			out[n] = m;
			cls_out[n] = (uint8_t)c;
			sojourn_out[n] = soj;
			n++;
		}
	}
	return n;
}

uint64_t
tm_next_due(struct tm_port *t, const struct dp_tm_conf *conf, uint64_t tsc,
	    const struct wan_credit *cr)
{
	unsigned int c;

	for (c = 0; c < DP_TM_CLASS_MAX; c++) {
		const struct tm_fifo *f = &t->q[c];
		const struct rte_mbuf *m;

		if (tm_fifo_count(f) == 0)
			continue;
		m = f->ring[f->head & f->mask];
		if (cr != NULL &&
		    (dp_mbuf_meta((struct rte_mbuf *)(uintptr_t)m)->tm.flags & DP_TM_F_ROCE_DATA) &&
		    wan_credit_tx_waits(cr, m))
			continue;
		if (!conf->enabled)
			return 0;
		return token_bucket_wait(&conf->shaper, &t->tb,
					 dp_mbuf_meta((struct rte_mbuf *)(uintptr_t)m)->tm.frame_bytes +
						 TM_WIRE_OVERHEAD,
					 tsc, true);
	}
	return UINT64_MAX;
}

/* ------------------------------------------------------------------------ */
/* Policy: what the pipeline calls.                                         */

/* Queue one prepared packet; enqueue-time marking and signals. */
static void
dp_tm_queue(struct dp_worker *w, const struct dp_conf *c, const struct dp_ready *r,
	    const struct dp_clock *clk, struct dp_tx *tx)
{
	const struct dp_tm_conf *tc = &c->tm[r->port];
	struct dp_tm_counters *tmc = &w->counters.tm[r->port][r->cls];
	bool mark;

	if (!tm_enqueue(&w->tm[r->port], tc, w->counters.tm[r->port], r->cls, r->m, r->frame,
			clk->ns, clk->tsc, &mark)) {
		/*
		 * A drop is the strongest congestion signal there is: with
		 * mechanism A the sender hears of it within the DC round trip
		 * instead of from a NAK a WAN round trip later. Nothing is
		 * written into the packet: it does not leave.
		 */
		const struct dp_hooks *hk = dp_hook_set(w, c);

		dp_signal(w, c, r->m, false, true, r->fe, tmc, clk, tx);
		if (unlikely(dp_hooks_at(hk, LS_HOOK_WAN_TX)))
			dp_hook_pipe_tx_rx(w, hk, LS_HOOK_WAN_TX, r->hook_rx, r->port,
					   dp_mbuf_meta(r->m)->tm.peer, r->frame, r->m, 0,
					   (dp_mbuf_meta(r->m)->tm.flags & DP_TM_F_CNP) ?
						   LS_HOOK_V_CNP_GENERATED : 0,
					   LS_DROP_TM_QUEUE_FULL, 0);
		dp_drop(w, r->m, LS_DROP_TM_QUEUE_FULL);
		return;
	}
	/*
	 * Enqueue-time verdict (RED, phantom) or a CE from upstream; with a
	 * dequeue-time marker (sojourn) both are handled when the packet leaves.
	 */
	if (r->cls != DP_TM_CLASS_CONTROL && !tc->mark_at_dequeue)
		dp_signal(w, c, r->m, mark, false, r->fe, tmc, clk, tx);
}

/*
 * May a burst of frames (wire bytes) skip the FIFOs of port p? Only when
 * nothing waits there, the shaper has the tokens for all of it now, and
 * queueing the burst could not have made the marker mark: the result is
 * then exactly that of queueing and dequeueing in the same poll, without
 * the round trip (the common, uncongested case).
 */
static inline bool
dp_tm_can_pass(struct dp_worker *w, const struct dp_conf *c, uint16_t p, uint64_t frames,
	       uint64_t wire, const struct dp_clock *clk)
{
	const struct dp_tm_conf *tc = &c->tm[p];
	struct tm_port *t = &w->tm[p];

	if (!tm_port_empty(t))
		return false;
	/* Toward a credit peer every packet goes through the FIFOs, where credit is checked. */
	if (unlikely(w->credit.port_on[p]))
		return false;
	if (!tc->enabled)
		return true;
	if (!ecn_marker_depth_quiet(&tc->marker, frames))
		return false;
	return token_bucket_conform(&tc->shaper, &t->tb, (uint32_t)RTE_MIN(wire, UINT32_MAX),
				    clk->tsc, false);
}

/*
 * The pass-through: encapsulate and send (dp_tm_burst() counts the packet
 * as queued and dequeued at once).
 */
static __rte_always_inline void
dp_tm_pass(struct dp_worker *w, const struct dp_conf *c, const struct dp_ready *r,
	   const struct dp_clock *clk, struct dp_tx *tx, const struct dp_hooks *hk, bool htx,
	   bool phantom)
{
	struct tm_port *t = &w->tm[r->port];
	struct dp_tm_counters *cc = &w->counters.tm[r->port][r->cls];
	bool mark = false;

	if (r->cls != DP_TM_CLASS_CONTROL) {
		/*
		 * The phantom queue sees every arrival; RED and sojourn see an
		 * empty queue. phantom: the port's marker is one (per burst).
		 */
		if (unlikely(phantom))
			mark = ecn_marker_decide(&t->marker[r->cls], 0, 0, r->frame, clk->ns) ==
			       ECN_VERDICT_MARK;
		if (unlikely(mark || (r->fe != NULL &&
				      dp_ip_ecn(rte_pktmbuf_mtod(r->m, uint8_t *)) == ECN_CE)))
			dp_signal(w, c, r->m, mark, false, r->fe, cc, clk, tx);
	}
	if (unlikely(htx))
		dp_hook_pipe_tx_rx(w, hk, LS_HOOK_WAN_TX, r->hook_rx, r->port,
				   dp_mbuf_meta(r->m)->tm.peer, r->frame, r->m, 0,
				   dp_hook_tm_verdict(dp_mbuf_meta(r->m)->tm.flags), 0, 0);
	dp_encap(w, c, r->m, clk);
	dp_tx_add(tx, r->port, r->m);
}

void
dp_tm_burst(struct dp_worker *w, const struct dp_conf *c, const struct dp_ready *ready,
	    unsigned int n, const struct dp_clock *clk, struct dp_tx *tx)
{
	const struct dp_hooks *hk = dp_hook_set(w, c);
	bool htx = dp_hooks_at(hk, LS_HOOK_WAN_TX);
	uint64_t frames[LS_MAX_PORTS];
	unsigned int cnt[LS_MAX_PORTS];
	uint16_t p;
	unsigned int i;

	/* Frame bytes and packets per WAN port, in one pass over the burst. */
	for (p = 0; p < c->n_ports; p++) {
		frames[p] = 0;
		cnt[p] = 0;
	}
	for (i = 0; i < n; i++) {
		frames[ready[i].port] += ready[i].frame;
		cnt[ready[i].port]++;
	}
	for (p = 0; p < c->n_ports; p++) {
		uint64_t bytes[DP_TM_CLASS_MAX];
		unsigned int q, pkts[DP_TM_CLASS_MAX];
		bool pass, phantom;

		if (cnt[p] == 0)
			continue;
		pass = cnt[p] + tx->n[p] <= (unsigned int)DP_TX_MAX &&
		       dp_tm_can_pass(w, c, p, frames[p],
				      frames[p] + (uint64_t)cnt[p] * TM_WIRE_OVERHEAD, clk);
		if (!pass) {
			for (i = 0; i < n; i++)
				if (ready[i].port == p)
					dp_tm_queue(w, c, &ready[i], clk, tx);
			continue;
		}
		/* Through an empty queue: depth and sojourn 0, counted per class once. */
		phantom = c->tm[p].marker.kind == ECN_MARKER_PHANTOM;
		for (q = 0; q < DP_TM_CLASS_MAX; q++)
			pkts[q] = bytes[q] = 0;
		for (i = 0; i < n; i++) {
			if (ready[i].port != p)
				continue;
			pkts[ready[i].cls]++;
			bytes[ready[i].cls] += ready[i].frame;
			dp_tm_pass(w, c, &ready[i], clk, tx, hk, htx, phantom);
		}
		for (q = 0; q < DP_TM_CLASS_MAX; q++) {
			struct dp_tm_counters *cc = &w->counters.tm[p][q];

			if (pkts[q] == 0)
				continue;
			cc->enq_pkts += pkts[q];
			cc->enq_bytes += bytes[q];
			cc->deq_pkts += pkts[q];
			cc->deq_bytes += bytes[q];
			cc->depth_hist[0] += pkts[q];
			cc->sojourn_hist[0] += pkts[q];
		}
	}
}

/* The flow entry of a queued RoCE data packet (inner IP at the mbuf start). */
static struct flow_entry *
dp_tm_flow(struct dp_worker *w, struct rte_mbuf *m, const struct dp_clock *clk)
{
	const uint8_t *ip = rte_pktmbuf_mtod(m, const uint8_t *);
	bool v4 = (ip[0] >> 4) == 4;
	uint16_t l4 = v4 ? (uint16_t)((ip[0] & 0xf) * 4) : sizeof(struct rte_ipv6_hdr);
	const struct roce_bth *bth = (const struct roce_bth *)(ip + l4 + sizeof(struct rte_udp_hdr));
	struct flow_key k;

	dp_flow_key(ip, v4 ? PKT_L3_IP4 : PKT_L3_IP6, (uint16_t)(ip[l4] << 8 | ip[l4 + 1]),
		    roce_bth_dqpn(bth), &k);
	return flow_table_find(&w->flows, &k, clk->ns);
}

void
dp_tm_out(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
	  struct dp_tx *tx)
{
	const struct dp_hooks *hk = dp_hook_set(w, c);
	bool htx = dp_hooks_at(hk, LS_HOOK_WAN_TX);
	uint16_t p;

	for (p = 0; p < c->n_ports; p++) {
		const struct dp_tm_conf *tc = &c->tm[p];
		struct tm_port *t = &w->tm[p];
		struct rte_mbuf *out[DP_MAX_BURST];
		uint8_t cls[DP_MAX_BURST];
		uint64_t soj[DP_MAX_BURST];
		unsigned int n, i, room;
		uint64_t due;

		/* A stopped port (its link restarting): the queue holds. */
		if (c->ports[p].role != LS_PORT_WAN || c->ports[p].stopped || tm_port_empty(t))
			continue;
		room = DP_TX_MAX - tx->n[p];
		n = tm_dequeue(t, tc, w->counters.tm[p], clk->tsc, out, cls, soj,
			       RTE_MIN(room, (unsigned int)DP_MAX_BURST),
			       w->credit.port_on[p] ? &w->credit : NULL, &w->counters.credit);
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = out[i];

			if (tc->mark_at_dequeue && cls[i] != DP_TM_CLASS_CONTROL) {
				bool mark = ecn_marker_decide(&t->marker[cls[i]], t->q[cls[i]].bytes,
							      soj[i], dp_mbuf_meta(m)->tm.frame_bytes,
							      clk->ns) == ECN_VERDICT_MARK;
				struct flow_entry *fe = NULL;

				if ((mark || dp_ip_ecn(rte_pktmbuf_mtod(m, uint8_t *)) == ECN_CE) &&
				    (dp_mbuf_meta(m)->tm.flags & DP_TM_F_ROCE_DATA))
					fe = dp_tm_flow(w, m, clk);
				dp_signal(w, c, m, mark, false, fe, &w->counters.tm[p][cls[i]], clk, tx);
			}
			if (unlikely(htx))
				dp_hook_pipe_tx_carried(w, hk, LS_HOOK_WAN_TX, p,
							dp_mbuf_meta(m)->tm.peer,
							dp_mbuf_meta(m)->tm.frame_bytes, m, 0,
							dp_hook_tm_verdict(dp_mbuf_meta(m)->tm.flags),
							0, soj[i]);
			dp_encap(w, c, m, clk);
			dp_tx_add(tx, p, m);
		}
		due = tm_next_due(t, tc, clk->tsc, w->credit.port_on[p] ? &w->credit : NULL);
		if (due != UINT64_MAX && clk->tsc + due < w->next_due_tsc)
			w->next_due_tsc = clk->tsc + due;
	}
	if (unlikely(htx))
		dp_hook_flush(&w->hook, hk, LS_HOOK_WAN_TX);
}