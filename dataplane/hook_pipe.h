/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOOK_PIPE_H
#define LONGSPAN_HOOK_PIPE_H

/*
 * The pipeline's hook points (docs/telemetry.md): what a stage calls where
 * a point is. A stage loads its worker's struct dp_hooks once per burst
 * (dp_hook_set()) and tests dp_hooks_at() once; only with hooks at the
 * point does it call these (cold, out of line), so a gateway without hooks
 * pays one load and a branch per burst and point. The stages live in several
 * files (pipeline.c, tm.c, mech.c), each using some of the calls: hence
 * __rte_unused.
 */

#include <rte_mbuf.h>

#include "hook.h"
#include "mbuf_meta.h"
#include "worker.h"

/* The hooks this worker runs, from the snapshot it holds. */
static inline const struct dp_hooks *
dp_hook_set(const struct dp_worker *w, const struct dp_conf *c)
{
	return c->hooks[w->id];
}

static inline struct dp_hook_at
dp_hook_here(uint16_t port, uint32_t peer, uint32_t frame_bytes)
{
	struct dp_hook_at at = {
		.port = port,
		.peer = peer < LS_HOOK_NO_PEER ? (uint16_t)peer : LS_HOOK_NO_PEER,
		.frame_bytes = frame_bytes,
	};

	return at;
}

/* The flow table slot of entry fe, LS_HOOK_NO_SLOT for none. */
static inline uint32_t
dp_hook_slot(const struct dp_worker *w, const struct flow_entry *fe)
{
	return fe != NULL ? (uint32_t)(fe - w->flows.e) : LS_HOOK_NO_SLOT;
}

/*
 * The rx point's flow for the tx point: m carries the flow table hash (0:
 * none) and slot through the traffic manager or a hold queue in its rx
 * hash word (m->hash: the NIC's RSS or flow director result, which the
 * gateway never reads, and which no PMD reads on transmit). Not in struct
 * dp_mbuf_meta: that takes 24 of the dynamic field area's 36 bytes, and
 * the rest is for PMDs (net_pcap registers an 8-byte rx timestamp: a
 * 32-byte metadata field failed to register beside it). Written only
 * while the packet's tx point has hooks: toward the WAN the second pass
 * tests that once per burst, and when a snapshot adds the first wan_tx hook
 * dp_worker_sync_carry() (worker.c) marks the packets already queued as
 * carrying none, so that the new hook never reads a stale flow; toward the
 * DC only a held packet waits past its burst, and it always carries its flow.
 */
static inline void
dp_hook_carry(struct rte_mbuf *m, uint32_t hash, uint32_t slot)
{
	m->hash.fdir.lo = hash;
	m->hash.fdir.hi = slot;
}

/*
 * A RoCE packet at rx point p: what the parser found (meta, its BTH at
 * bth) and the flow lookup's key k, hash and entry fe. Returns its context
 * for the packet's tx point in the same burst (dp_hook_pipe_tx_rx()).
 */
static __rte_noinline __rte_unused const struct ls_hook_ctx *
dp_hook_pipe_rx_roce(struct dp_worker *w, const struct dp_hooks *h, enum ls_hook_point p,
		     uint16_t port, uint32_t peer, uint32_t frame_bytes,
		     const struct pkt_meta *meta, const uint8_t *bth, const struct flow_key *k,
		     uint32_t hash, const struct flow_entry *fe)
{
	struct dp_hook_at at = dp_hook_here(port, peer, frame_bytes);

	return dp_hook_rx_roce(&w->hook, h, p, &at, meta, bth, k, hash, dp_hook_slot(w, fe));
}

/*
 * A packet at rx point p: inner IP at ip, flow table hash h (0: none), entry
 * fe. Inline: dp_hook_rx() is the out-of-line call (hook.c), so the stage
 * makes one call, not two with the arguments marshalled twice.
 */
static inline __rte_unused const struct ls_hook_ctx *
dp_hook_pipe_rx(struct dp_worker *w, const struct dp_hooks *h, enum ls_hook_point p,
		uint16_t port, uint32_t peer, uint32_t frame_bytes, const uint8_t *ip, uint32_t len,
		uint32_t hash, const struct flow_entry *fe)
{
	struct dp_hook_at at = dp_hook_here(port, peer, frame_bytes);

	return dp_hook_rx(&w->hook, h, p, &at, ip, len, hash, dp_hook_slot(w, fe));
}

/*
 * Packet m at tx point p, its IP header ip_off bytes into the mbuf; verdict
 * LS_HOOK_V_*, or a drop (reason drop) after its rx point; hash and slot:
 * its rx point's flow (dp_hook_carry()). Inline, as dp_hook_pipe_rx(): the
 * call is dp_hook_tx().
 */
static inline __rte_unused void
dp_hook_pipe_tx(struct dp_worker *w, const struct dp_hooks *h, enum ls_hook_point p,
		uint16_t port, uint32_t peer, uint32_t frame_bytes, struct rte_mbuf *m,
		uint32_t ip_off, uint8_t verdict, uint16_t drop, uint64_t sojourn_ns, uint32_t hash,
		uint32_t slot)
{
	struct dp_hook_at at = dp_hook_here(port, peer, frame_bytes);
	uint32_t len = rte_pktmbuf_data_len(m) > ip_off ? rte_pktmbuf_data_len(m) - ip_off : 0;

	dp_hook_tx(&w->hook, h, p, &at, rte_pktmbuf_mtod_offset(m, const uint8_t *, ip_off), len,
		   verdict, drop, sojourn_ns, hash, slot);
}

/* dp_hook_pipe_tx() of a packet whose rx point's flow is in its metadata. */
static inline __rte_unused void
dp_hook_pipe_tx_carried(struct dp_worker *w, const struct dp_hooks *h, enum ls_hook_point p,
			uint16_t port, uint32_t peer, uint32_t frame_bytes, struct rte_mbuf *m,
			uint32_t ip_off, uint8_t verdict, uint16_t drop, uint64_t sojourn_ns)
{
	dp_hook_pipe_tx(w, h, p, port, peer, frame_bytes, m, ip_off, verdict, drop, sojourn_ns,
			m->hash.fdir.lo, m->hash.fdir.hi);
}

/*
 * Packet m at tx point p in the burst in which its rx point filled rx (not
 * NULL): dp_hook_tx_from_rx(), no parse. Otherwise (it waited in a queue
 * past its burst, or its rx point has no hooks) dp_hook_pipe_tx_carried().
 */
static inline __rte_unused void
dp_hook_pipe_tx_rx(struct dp_worker *w, const struct dp_hooks *h, enum ls_hook_point p,
		   const struct ls_hook_ctx *rx, uint16_t port, uint32_t peer, uint32_t frame_bytes,
		   struct rte_mbuf *m, uint32_t ip_off, uint8_t verdict, uint16_t drop,
		   uint64_t sojourn_ns)
{
	struct dp_hook_at at = dp_hook_here(port, peer, frame_bytes);

	if (rx == NULL) {
		dp_hook_pipe_tx_carried(w, h, p, port, peer, frame_bytes, m, ip_off, verdict, drop,
					sojourn_ns);
		return;
	}
	dp_hook_tx_from_rx(&w->hook, h, p, rx, &at,
			   rte_pktmbuf_mtod_offset(m, const uint8_t *, ip_off), verdict, drop,
			   sojourn_ns);
}

/* The wan_tx verdict of a packet leaving a traffic manager (flags of its metadata). */
static inline uint8_t
dp_hook_tm_verdict(uint8_t tm_flags)
{
	return (uint8_t)(LS_HOOK_V_FORWARDED | (tm_flags & (DP_TM_F_MARKED | DP_TM_F_CNP)));
}
static_assert(DP_TM_F_MARKED == LS_HOOK_V_MARKED && DP_TM_F_CNP == LS_HOOK_V_CNP_GENERATED,
	      "the traffic manager's flags are the hook verdict's bits");

#endif /* LONGSPAN_HOOK_PIPE_H */
