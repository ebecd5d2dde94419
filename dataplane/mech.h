/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_MECH_H
#define LONGSPAN_MECH_H

/*
 * Per-QP stages: the flow table accounting of every RoCE packet, the QPN
 * learners, mechanism A (gateway CNPs to local senders, the CE policy) and
 * mechanism C (a local receiver's CNP starts shaping its QP's incoming
 * data; held packets leave at the rate of its reaction point). The
 * per-packet entry points of the DC -> WAN direction are static inline
 * here; the rest is in mech.c.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>

#include "congestion/ecn.h"
#include "congestion/qpn_learn.h"
#include "dp_conf.h"
#include "dp_helpers.h"
#include "flow.h"
#include "hold.h"
#include "parse.h"
#include "pipeline.h"
#include "worker.h"

/*
 * The congestion signal of one packet leaving toward the WAN in class tmc:
 * the gateway's marker said mark, and/or it arrived CE-marked from the DC
 * fabric, or (drop) the queue could not take it. The decision is
 * gw_mech_a() (congestion/gw_mech.h): mechanism A answers a signalled RoCE
 * data packet (fe: its flow entry) with a CNP to its local sender and may
 * clear CE (CE policy); otherwise the mark is written (ECT packets only).
 * Nothing is written into a dropped packet.
 */
void dp_signal(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m, bool mark,
	       bool drop, struct flow_entry *fe, struct dp_tm_counters *tmc, const struct dp_clock *clk,
	       struct dp_tx *tx);

/*
 * Mechanism C, DC -> WAN: a local receiver's CNP starts shaping its QP.
 * Returns true when the CNP goes no further (the reaction point answered
 * it alone, [congestion] cnp_forward = no): the caller drops it.
 */
bool dp_mech_c_cnp(struct dp_worker *w, const struct dp_conf *c, const struct flow_key *k,
		   const struct dp_clock *clk);

/* The flow of a RoCE packet as the flow lookup found it (for its hook points). */
struct dp_roce_flow {
	struct flow_key key;
	uint32_t hash; /* flow_table_hash(&key) */
	struct flow_entry *fe; /* its flow table entry, NULL when the table was full */
};

/*
 * Mechanisms and flow accounting of a RoCE packet coming from the WAN, now
 * decapsulated (its IP header at the start of the mbuf); *f gets its flow.
 * Returns the hold slot when mechanism C shapes this QP.
 */
struct hold_entry *dp_roce_wan(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m,
			       const struct pkt_meta *meta, uint32_t peer,
			       const struct dp_clock *clk, struct dp_roce_flow *f);

/*
 * Mechanism C's traffic manager: whether a packet of len bytes of the QP
 * he shapes must wait in gateway memory (behind held packets, or not yet
 * allowed by the QP's reaction point) rather than leave now.
 */
static inline bool
dp_hold_waits(const struct dp_conf *c, struct hold_entry *he, uint32_t len,
	      const struct dp_clock *clk)
{
	return hold_count(he) != 0 ||
	       trp_allow(&c->mech.trp, &he->trp, len, clk->ns).action != TRP_SEND;
}

/* Mechanism C: release held packets the QPs' reaction points allow now. */
void dp_hold_out(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
		 struct dp_tx *tx);

/*
 * Per-QP accounting of one RoCE packet (key and its flow_table_hash() h):
 * the flow table entry (created on first sight) with its counters, PSN
 * tracking and rate meter.
 */
static __rte_always_inline struct flow_entry *
dp_flow_account(struct dp_worker *w, const struct pkt_meta *meta, uint8_t dir, uint16_t peer,
		const struct dp_clock *clk, const struct flow_key *key, uint32_t h)
{
	struct flow_entry *fe;
	uint8_t ecn = ecn_of_tos(meta->tos);
	bool created;

	fe = flow_table_get_hashed(&w->flows, key, h, clk->ns, &created);
	if (unlikely(fe == NULL)) {
		w->counters.flows_full++;
		return NULL;
	}
	if (created) {
		w->counters.flows_created++;
		fe->dir = dir;
		fe->peer = peer;
		fe->next_psn = meta->psn;
	}
	fe->cls = meta->cls;
	fe->pkts++;
	fe->bytes += meta->ip_len;
	if (ecn == ECN_CE) {
		fe->ce_in++;
		fe->last_ce_ns = clk->ns;
	}
	else if (ecn != ECN_NOT_ECT)
		fe->ect_in++;
	if (meta->cls == DP_CLASS_ROCE_DATA) {
		if (meta->psn != fe->next_psn)
			fe->psn_ooo++;
		fe->next_psn = (meta->psn + 1) & QPN_LEARN_PSN_MASK;
	}
	rate_meter_add(&fe->meter, meta->ip_len, clk->ns);
	return fe;
}

/*
 * Mechanisms and flow accounting of a RoCE packet going DC -> WAN: key with
 * its flow_table_hash() h and, for data under mechanism A, the learner's
 * qpn_learn_pair_hash() (both computed and prefetched in the first pass).
 * Returns its flow table entry (NULL when the table is full); mechanism A
 * uses it for data only. *absorb becomes true for a CNP mechanism C keeps
 * (dp_mech_c_cnp()) and is left alone otherwise.
 */
static __rte_always_inline struct flow_entry *
dp_roce_dc(struct dp_worker *w, const struct dp_conf *c, const struct pkt_meta *meta,
	   uint32_t peer, const struct dp_clock *clk, const struct flow_key *k, uint32_t h,
	   uint32_t learn_hash, bool *absorb)
{
	unsigned int mech = c->mech.mechanisms;
	struct dp_mech_counters *mc = &w->counters.mech;
	struct flow_entry *fe;

	fe = dp_flow_account(w, meta, FLOW_DC_TO_WAN, (uint16_t)peer, clk, k, h);
	if (meta->cls == DP_CLASS_ROCE_DATA && (mech & LS_MECH_A)) {
		struct qpn_learn_key lk;
		uint32_t qpn = 0;
		enum qpn_learn_result r;

		dp_learn_key(k, &lk);
		r = qpn_learn_on_data_hashed(&w->learn_src, &lk, learn_hash, meta->psn, clk->ns,
					     &qpn);
		mc->learn[r]++;
		if (fe != NULL && r == QPN_LEARN_DATA_KNOWN) {
			fe->qpn_known = 1;
			fe->sender_qpn = qpn;
		}
	} else if (meta->cls == DP_CLASS_ROCE_ACK && (mech & LS_MECH_C)) {
		/* A local receiver's ACK names the remote sender's QPN. */
		mc->learn_dst[qpn_learn_on_ack(&w->learn_dst, k->family, k->src, k->dst, k->dqpn,
					       meta->psn, clk->ns)]++;
	} else if (meta->cls == DP_CLASS_ROCE_CNP && (mech & LS_MECH_C)) {
		*absorb = dp_mech_c_cnp(w, c, k, clk);
	}
	return fe;
}

#endif /* LONGSPAN_MECH_H */
