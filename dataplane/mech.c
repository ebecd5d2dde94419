/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-QP stages: mechanisms A and C and the flow accounting of WAN packets (mech.h). */
#include "mech.h"

#include <string.h>

#include "cnp.h"
#include "congestion/gw_mech.h"
#include "dc_pfc.h"
#include "eth.h"
#include "hook_pipe.h"
#include "neigh.h"
#include "wan_credit.h"

/* Send a gateway CNP to the local sender of flow fe (mechanism A); false if none left. */
static bool
dp_send_cnp(struct dp_worker *w, const struct dp_conf *c, const struct flow_entry *fe,
	    struct dp_tx *tx)
{
	const struct dp_port *dc = &c->ports[c->dc_port];
	struct dp_mech_counters *mc = &w->counters.mech;
	struct rte_ether_addr dmac;
	const uint8_t *nh;
	struct rte_mbuf *cnp;
	uint8_t family;
	uint8_t l3 = fe->key.family == AF_INET ? PKT_L3_IP4 : PKT_L3_IP6;
	uint8_t hdr[40];

	/* The sender's next hop in the DC, as for a packet addressed to it. */
	memset(hdr, 0, sizeof(hdr));
	if (l3 == PKT_L3_IP4)
		memcpy(hdr + 16, fe->key.src, 4);
	else
		memcpy(hdr + 24, fe->key.src, 16);
	if (dp_dc_nexthop(dc, hdr, l3, &family, &nh) != LS_DROP_NONE ||
	    neigh_lookup(dc->neigh, family, nh, &dmac) != NEIGH_HIT) {
		mc->cnp_no_neigh++;
		return false;
	}
	if (unlikely(tx->n[c->dc_port] >= DP_TX_MAX)) {
		/* No packet was dropped: the CNP is never built. */
		mc->cnp_tx_full++;
		return false;
	}
	cnp = cnp_build(w->pool, dc, &dmac, fe->key.family, fe->key.dst, fe->key.src,
			fe->key.sport, fe->sender_qpn, c->mech.cnp_dscp);
	if (unlikely(cnp == NULL)) {
		mc->cnp_no_mbuf++;
		return false;
	}
	mc->cnp_sent++;
	dp_tx_add_own(tx, c->dc_port, cnp);
	return true;
}

/*
 * The gateway's fixed mechanism A knobs around the config's rate limit and
 * CE policy: a CE from the DC fabric is a signal (the simulator's
 * mech_a.dc_marks = true).
 */
static inline struct gw_mech_a_config
dp_mech_a_conf(const struct dp_conf *c)
{
	return (struct gw_mech_a_config){
		.enabled = (c->mech.mechanisms & LS_MECH_A) != 0,
		.dc_marks = true,
		.cnp = c->mech.cnp,
	};
}

/*
 * Carry out and count mechanism A's answer a to a signalled packet of flow
 * fe in class tmc: build the CNP it asks for; one that cannot be built or
 * queued leaves the signal in the packet (gw_mech_a_cnp_failed()).
 */
static void
dp_mech_a_answer(struct dp_worker *w, const struct dp_conf *c, struct flow_entry *fe,
		 struct dp_tm_counters *tmc, const struct gw_mech_a_in *in,
		 struct gw_mech_a_actions *a, const struct dp_clock *clk, struct dp_tx *tx)
{
	struct dp_mech_counters *mc = &w->counters.mech;

	switch (a->reason) {
	case PROXY_CNP_SENT:
		if (dp_send_cnp(w, c, fe, tx)) {
			tmc->cnp_sent++;
		} else {
			tmc->cnp_failed++;
			gw_mech_a_cnp_failed(in, a);
		}
		fe->cnp_sent++;
		if (fe->first_cnp_ns == 0)
			fe->first_cnp_ns = clk->ns;
		break;
	case PROXY_CNP_SUPPRESSED_RATE:
		fe->cnp_suppressed++;
		mc->cnp_suppressed++;
		tmc->cnp_suppressed++;
		break;
	default:
		fe->cnp_no_qpn++;
		mc->cnp_no_qpn++;
		tmc->cnp_no_qpn++;
		break;
	}
}

void
dp_signal(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m, bool mark, bool drop,
	  struct flow_entry *fe, struct dp_tm_counters *tmc, const struct dp_clock *clk,
	  struct dp_tx *tx)
{
	uint8_t *ip = rte_pktmbuf_mtod(m, uint8_t *);
	struct gw_mech_a_config cfg = dp_mech_a_conf(c);
	struct gw_mech_a_in in = {
		.mark = mark,
		.drop = drop,
		.ecn = dp_ip_ecn(ip),
		.qp_tracked = fe != NULL,
		.qpn_known = fe != NULL && fe->qpn_known,
	};
	struct gw_mech_a_actions a;

	if (mark)
		tmc->mark_decisions++;
	gw_mech_a(&cfg, fe != NULL ? &fe->cnp : NULL, &in, clk->ns, &a);
	if (!a.signal)
		return;
	if (a.answered) {
		dp_mech_a_answer(w, c, fe, tmc, &in, &a, clk, tx);
		if (a.send_cnp)
			dp_mbuf_meta(m)->tm.flags |= DP_TM_F_CNP;
	}
	if (a.ecn_out == in.ecn || drop)
		return;
	dp_ip_set_ecn(ip, a.ecn_out);
	if (a.set_ce) {
		dp_mbuf_meta(m)->tm.flags |= DP_TM_F_MARKED;
		w->counters.ecn_marked++;
		tmc->ce_written++;
		if (fe != NULL) {
			fe->marked++;
			if (fe->first_mark_ns == 0)
				fe->first_mark_ns = clk->ns;
		}
	} else {
		w->counters.mech.ce_cleared++;
		tmc->ce_cleared++;
	}
}

/*
 * A hold slot outlives its QP's shaping while the forwarded-CNP gap of the
 * policy still runs: it is where the time of the last forwarded CNP is kept.
 */
static void
dp_hold_idle(struct dp_worker *w, const struct dp_conf *c, struct hold_entry *he, uint64_t now_ns)
{
	uint64_t gap = c->mech.c_policy.cnp_gap_ns;

	if (trp_active(&c->mech.trp, &he->trp, now_ns))
		return;
	if (gap != 0 && he->cnp_fwd && now_ns - he->cnp_fwd_ns < gap)
		return;
	hold_release(&w->hold, he);
}

bool
dp_mech_c_cnp(struct dp_worker *w, const struct dp_conf *c, const struct flow_key *k,
	      const struct dp_clock *clk)
{
	struct dp_mech_counters *mc = &w->counters.mech;
	const struct qpn_learn_entry *le;
	struct hold_entry *he;
	struct flow_entry *data;
	struct flow_key dk;
	struct gw_mech_c_in cin = { 0 };
	struct gw_mech_c_actions ca;

	mc->trp_cnps++;
	/* The CNP goes receiver -> sender; the data flow it is about goes back. */
	le = qpn_learn_find_sender(&w->learn_dst, k->family, k->dst, k->src, k->dqpn, clk->ns);
	if (le == NULL) {
		mc->trp_no_flow++;
		return false;
	}
	he = hold_get(&w->hold, &le->key);
	if (he == NULL) {
		mc->trp_table_full++;
		return false;
	}
	memset(&dk, 0, sizeof(dk));
	dk.family = le->key.family;
	dk.sport = le->key.sport;
	dk.dqpn = le->key.dest_qpn;
	memcpy(dk.src, le->key.src, 16);
	memcpy(dk.dst, le->key.dst, 16);
	data = flow_table_find(&w->flows, &dk, clk->ns);
	/*
	 * Data that reached this gateway already CE-marked was congested before
	 * or on the WAN, where shaping here cannot help (and throttles the QP
	 * twice): leave that to the sender and mechanism A.
	 */
	cin.wan_ce_seen = data != NULL && data->last_ce_ns != 0;
	cin.wan_ce_ns = data != NULL ? data->last_ce_ns : 0;
	cin.fwd_cnp_sent = he->cnp_fwd;
	cin.last_fwd_cnp_ns = he->cnp_fwd_ns;
	cin.backlog_bytes = he->bytes;
	gw_mech_c_cnp(&c->mech.c_policy, &cin, clk->ns, &ca);
	if (ca.forward) {
		he->cnp_fwd = true;
		he->cnp_fwd_ns = clk->ns;
	}
	if (ca.skip_upstream) {
		mc->trp_upstream_ce++;
		dp_hold_idle(w, c, he, clk->ns);
		return !ca.forward; /* always forwarded: only the sender can help */
	}
	if (!trp_active(&c->mech.trp, &he->trp, clk->ns))
		mc->trp_activations++;
	trp_on_cnp(&c->mech.trp, &he->trp, clk->ns, data != NULL ? data->meter.rate_bps : 0);
	return !ca.forward;
}

struct hold_entry *
dp_roce_wan(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m,
	    const struct pkt_meta *meta, uint32_t peer, const struct dp_clock *clk,
	    struct dp_roce_flow *f)
{
	const uint8_t *ip = rte_pktmbuf_mtod(m, const uint8_t *);
	unsigned int mech = c->mech.mechanisms;
	struct dp_mech_counters *mc = &w->counters.mech;
	const struct flow_key *k = &f->key;

	dp_flow_key(ip, meta->l3, meta->sport, meta->dqpn, &f->key);
	f->hash = flow_table_hash(&f->key);
	f->fe = dp_flow_account(w, meta, FLOW_WAN_TO_DC, (uint16_t)peer, clk, &f->key, f->hash);
	if (meta->cls == DP_CLASS_ROCE_ACK && (mech & LS_MECH_A)) {
		/* A remote receiver's ACK names the local sender's QPN. */
		mc->learn[qpn_learn_on_ack(&w->learn_src, k->family, k->src, k->dst, k->dqpn,
					   meta->psn, clk->ns)]++;
	} else if (meta->cls == DP_CLASS_ROCE_DATA && (mech & LS_MECH_C)) {
		struct qpn_learn_key lk;

		dp_learn_key(k, &lk);
		mc->learn_dst[qpn_learn_on_data(&w->learn_dst, &lk, meta->psn, clk->ns, NULL)]++;
		return hold_find(&w->hold, &lk);
	}
	return NULL;
}

/*
 * A packet mechanism C releases meets mechanism B: it waits again if the
 * DC fabric paused its priority. True when it was queued or dropped.
 */
static bool
dp_hold_pfc(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m,
	    const struct dp_clock *clk)
{
	const uint8_t *l3 = rte_pktmbuf_mtod(m, const uint8_t *) +
			    eth_hdr_size(c->ports[c->dc_port].vlan);
	enum ls_drop_reason r;

	if (dc_pfc_hold(&w->dc_pfc, &w->counters.pfc, m, dc_pfc_priority(&c->lossless, l3),
			clk->tsc, &r))
		return true;
	if (r != LS_DROP_NONE) {
		wan_credit_left(&w->credit, m);
		dp_drop(w, m, r);
		return true;
	}
	return false;
}

void
dp_hold_out(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
	    struct dp_tx *tx)
{
	struct dp_mech_counters *mc = &w->counters.mech;
	uint64_t active = 0;
	unsigned int i;

	if (w->hold.used == 0) {
		mc->trp_active = 0;
		return;
	}
	for (i = 0; i < HOLD_SLOTS; i++) {
		struct hold_entry *he = &w->hold.e[i];

		if (!he->used)
			continue;
		while (hold_count(he) != 0 && tx->n[c->dc_port] < DP_TX_MAX) {
			struct rte_mbuf *m = hold_head(he);
			struct trp_verdict v = trp_allow(&c->mech.trp, &he->trp, m->pkt_len, clk->ns);

			if (v.action != TRP_SEND) {
				uint64_t due = clk->tsc + (v.until_ns - clk->ns) * w->tsc_hz / 1000000000u;

				if (due < w->next_due_tsc)
					w->next_due_tsc = due;
				break;
			}
			hold_pop(he, m->pkt_len);
			mc->trp_released++;
			mc->trp_queued--;
			if (unlikely(w->dc_pfc.enabled) && dp_hold_pfc(w, c, m, clk))
				continue;
			if (unlikely(dp_hooks_at(dp_hook_set(w, c), LS_HOOK_DC_TX)))
				dp_hook_pipe_tx_carried(
					w, dp_hook_set(w, c), LS_HOOK_DC_TX, c->dc_port,
					LS_HOOK_NO_PEER, m->pkt_len, m, m->l2_len,
					LS_HOOK_V_FORWARDED | LS_HOOK_V_HELD, 0,
					(clk->tsc - dp_mbuf_meta(m)->tm.enq_tsc) * 1000000000u /
						w->tsc_hz);
			wan_credit_left(&w->credit, m);
			dp_tx_add(tx, c->dc_port, m);
		}
		if (trp_active(&c->mech.trp, &he->trp, clk->ns))
			active++;
		else
			dp_hold_idle(w, c, he, clk->ns);
	}
	mc->trp_active = active;
}
