/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PIPELINE_H
#define LONGSPAN_PIPELINE_H

/*
 * The packet pipeline, shaped like a P4 switch so a P4 (SWX) backend can
 * run the same fixtures later:
 *
 *   parser -> ingress match-action (route, flow) -> traffic manager ->
 *   egress / deparser (encap or decap rewrite)
 *
 * Each stage is a function taking the packet and its metadata and returning
 * a verdict (LS_DROP_NONE to continue, or the drop reason). The burst
 * functions run the stages for every packet of one rx burst and collect the
 * packets to send per port in struct dp_tx; the worker then transmits.
 */

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>

#include "dp_conf.h"
#include "flow.h"
#include "flow_hash.h"
#include "parse.h"
#include "worker.h"

struct rte_mbuf;

#define DP_TX_MAX (2 * DP_MAX_BURST)

/*
 * Packets to send per port. own/own_at tell which of them the gateway
 * built itself (CNPs, injects), so that a full transmit queue is counted
 * as a drop of a received packet only when it was one (dp_tx_flush()).
 * Reset n and own before use; own_at[p] is valid while own[p] != 0.
 */
struct dp_tx {
	uint16_t n[LS_MAX_PORTS];
	uint16_t own[LS_MAX_PORTS];
	uint64_t own_at[LS_MAX_PORTS][DP_TX_MAX / 64]; /* bit i: pkts[p][i] is the gateway's */
	struct rte_mbuf *pkts[LS_MAX_PORTS][DP_TX_MAX];
};
static_assert(DP_TX_MAX % 64 == 0, "own_at holds whole words");

/* A received packet, to send on port. */
static inline void
dp_tx_add(struct dp_tx *tx, uint16_t port, struct rte_mbuf *m)
{
	tx->pkts[port][tx->n[port]++] = m;
}

/* A packet the gateway built, to send on port. */
static inline void
dp_tx_add_own(struct dp_tx *tx, uint16_t port, struct rte_mbuf *m)
{
	uint16_t i = tx->n[port];

	if (tx->own[port]++ == 0)
		memset(tx->own_at[port], 0, sizeof(tx->own_at[port]));
	tx->own_at[port][i / 64] |= UINT64_C(1) << (i % 64);
	dp_tx_add(tx, port, m);
}

static inline bool
dp_tx_is_own(const struct dp_tx *tx, uint16_t port, uint16_t i)
{
	return tx->own[port] != 0 && (tx->own_at[port][i / 64] >> (i % 64) & 1) != 0;
}

/* Packets received on a DC-facing port (port = index into c->ports). */
void dp_pipeline_dc(struct dp_worker *w, const struct dp_conf *c, uint16_t port,
		    struct rte_mbuf **pkts, uint16_t n, const struct dp_clock *clk,
		    struct dp_tx *tx);

/* Packets received on a WAN port. */
void dp_pipeline_wan(struct dp_worker *w, const struct dp_conf *c, uint16_t port,
		     struct rte_mbuf **pkts, uint16_t n, const struct dp_clock *clk,
		     struct dp_tx *tx);

/*
 * Packets queued in the traffic managers (WAN egress) and mechanism C hold
 * queues (DC egress) that may leave now; called every poll, with or without
 * received packets. Sets w->next_due_tsc.
 */
void dp_pipeline_tm(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
		    struct dp_tx *tx);
void dp_pipeline_hold(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
		      struct dp_tx *tx);
/* Mechanism B at the DC port: released held packets, PFC pauses and resumes (dc_pfc.h). */
void dp_pipeline_dc_pfc(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
			struct dp_tx *tx);

/* A packet between the two passes of dp_pipeline_dc(). */
struct dp_dc_pkt {
	struct rte_mbuf *m;
	uint32_t peer;
	uint32_t hash; /* flow_table_hash(&key) when RoCE */
	uint32_t learn_hash; /* RoCE data with mechanism A: qpn_learn_pair_hash() */
	struct rte_ether_addr dmac; /* next hop of the outer packet */
	struct pkt_meta meta;
	struct flow_key key; /* RoCE: the per-QP flow key */
};

/*
 * The stages of dp_pipeline_dc() after its ingress match-action, shared with
 * the P4 mode's C stage (dataplane/p4_stage.c), which runs them after the
 * SWX pipeline: s->m, s->peer and s->meta set, the rest filled here.
 *
 * dp_dc_nexthop_key(): the peer's next hop (*dmac caches it for
 * *dmac_peer, once per burst) and the flow key; false when the packet was
 * dropped or punted for resolution.
 * dp_dc_egress(): flow table, mechanisms A and C, hooks, the traffic
 * manager and the encapsulation, for the nst packets of st.
 */
bool dp_dc_nexthop_key(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m,
		       struct dp_dc_pkt *s, uint32_t *dmac_peer, struct rte_ether_addr *dmac);
void dp_dc_egress(struct dp_worker *w, const struct dp_conf *c, uint16_t port, struct dp_dc_pkt *st,
		  unsigned int nst, const struct dp_clock *clk, struct dp_tx *tx);

/*
 * dp_pipeline_wan() after tunnel termination, for one decapsulated packet m
 * (inner IP at offset 0, imeta its metadata, frame its received length):
 * the inner class count and address checks, MTU, the peer's counters, local
 * delivery, the DC next hop, the flow table and mechanism C, hooks, the DC
 * rewrite, hold and PFC queues (dp_wan_deliver()). p4 mode only: it has no
 * credit hop, so the packet is never charged to the peer's credit.
 */
void dp_wan_inner(struct dp_worker *w, const struct dp_conf *c, uint16_t port, struct rte_mbuf *m,
		  uint32_t frame, const struct pkt_meta *imeta, uint32_t peer,
		  const struct dp_clock *clk, struct dp_tx *tx);

#endif /* LONGSPAN_PIPELINE_H */
