/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_WAN_CREDIT_H
#define LONGSPAN_WAN_CREDIT_H

/*
 * Mechanism B on the WAN hop: the credit-based flow control between two
 * gateways, per peer with [peer] lossless = credit, for the RoCE data
 * priority (dp_lossless_conf.data_priority). congestion/credit.c decides;
 * this file carries its decisions out:
 *
 * - Sending: a RoCE data packet toward a credit peer leaves the WAN
 *   traffic manager only while credit_tx_may_send() says so; otherwise the
 *   RoCE class of that WAN port waits (the head packet blocks it, behind
 *   it also packets to other peers on the port) and the queue grows until
 *   the existing PFC generation pauses the local senders at XOFF. Every
 *   packet toward the peer carries the report (the sender's cumulative
 *   byte counter, stored in the mbuf at dequeue so it matches the wire
 *   order) and the grant of the reverse direction, in the credit option
 *   (credit_opt.h).
 * - Receiving: a charged packet from the peer enters the credit buffer at
 *   decapsulation (credit_rx_arrive(), then its report) and leaves it when
 *   it leaves the gateway toward the DC, or is dropped: at once, or when
 *   mechanism C's hold queue or the DC pause FIFO releases it (the mbuf is
 *   tagged DP_TM_F_CREDIT_RX with its peer and bytes).
 * - Control packets: once per poll, a GENEVE control packet (O = 1,
 *   protocol 0, the credit option only, outer DSCP of the CNP class) goes
 *   to a peer when no packet toward it in that poll carried what is due:
 *   a grant (credit_rx_update_due(): the limit moved update_bytes, a
 *   waiting peer's report to answer, or the refresh) or a report
 *   (credit_tx_report_due(): the first, the start of a wait, with the
 *   wait flag, or the refresh). An idle peer costs one ~100-byte frame
 *   each way per refresh_ticks (cc_params: max(10 ms, 2 RTT)). They go
 *   straight onto the WAN port's transmit list after what the traffic
 *   manager sent in that poll (wire order), not through its shaper.
 *
 * The credit clock is dp_clock.ns. Byte counts are the inner IP packet's
 * (what both ends see). The state is per worker: [gateway] workers = 1 is
 * required with lossless = credit (control/lossless_conf.c), since both
 * ends must see one channel per peer.
 *
 * Ownership: struct wan_credit is written by its worker only; the params
 * come from the snapshot (dp_lossless_conf), rebuilt on a new generation.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "congestion/credit.h"
#include "credit_opt.h"
#include "dp_conf.h"
#include "mbuf_meta.h"

struct rte_mempool;
struct dp_tx;

struct wan_credit_peer {
	struct credit_config cfg;
	struct credit_tx tx; /* what we may send the peer */
	struct credit_rx rx; /* what we grant the peer */
	bool on;
	bool blocked; /* the head RoCE packet waits for credit */
	uint64_t blocked_since_ns;
	uint64_t retry_ns; /* no control packet before (one could not be built) */
};

struct wan_credit {
	bool enabled;
	uint8_t priority; /* the credited priority */
	uint64_t generation;
	uint64_t now_ns; /* the clock of the poll in progress */
	uint32_t epoch; /* this worker's, random per start */
	bool port_on[LS_MAX_PORTS]; /* a credit peer sends through this WAN port */
	struct wan_credit_peer p[LS_MAX_PEERS];
};

/* Start with no peer; epoch is this start's (random). */
void wan_credit_init(struct wan_credit *cr, uint32_t epoch);

/*
 * Rebuild the per-peer configs when the snapshot changed. A peer that
 * stays a credit peer keeps its counters; one that becomes one starts
 * afresh (no credit until its first grant).
 */
void wan_credit_sync(struct wan_credit *cr, const struct dp_conf *c, uint64_t generation);

/*
 * Does the RoCE data packet m (inner IP, tm metadata set) wait for its
 * peer's credit? Changes nothing: the traffic manager asks it to know
 * whether a queue's head is due at all.
 */
static inline bool
wan_credit_tx_waits(const struct wan_credit *cr, const struct rte_mbuf *m)
{
	const struct wan_credit_peer *cp =
		&cr->p[dp_mbuf_meta((struct rte_mbuf *)(uintptr_t)m)->tm.peer % LS_MAX_PEERS];

	return cp->on && !credit_tx_may_send(&cp->tx, m->pkt_len);
}

/* May the RoCE data packet m (inner IP, tm metadata set) leave now? Dequeue side. */
static inline bool
wan_credit_tx_gate(struct wan_credit *cr, struct dp_credit_counters *ctr, struct rte_mbuf *m)
{
	struct wan_credit_peer *cp = &cr->p[dp_mbuf_meta(m)->tm.peer % LS_MAX_PEERS];

	if (!wan_credit_tx_waits(cr, m))
		return true;
	ctr->blocked++;
	credit_tx_wait(&cp->tx);
	if (!cp->blocked) {
		cp->blocked = true;
		cp->blocked_since_ns = cr->now_ns;
	}
	return false;
}

/*
 * m was dequeued toward its peer (any class); a RoCE data packet (charge)
 * is counted against the credit. Stores the report it carries.
 */
static inline void
wan_credit_tx_commit(struct wan_credit *cr, struct dp_credit_counters *ctr, struct rte_mbuf *m,
		     bool charge)
{
	struct dp_mbuf_meta *mm = dp_mbuf_meta(m);
	struct wan_credit_peer *cp = &cr->p[mm->tm.peer % LS_MAX_PEERS];

	if (!cp->on)
		return;
	if (charge) {
		credit_tx_sent(&cp->tx, m->pkt_len);
		ctr->sent_bytes += m->pkt_len;
		mm->tm.flags |= DP_TM_F_CREDIT_TX;
		if (cp->blocked) {
			ctr->blocked_ns += cr->now_ns - cp->blocked_since_ns;
			cp->blocked = false;
		}
	}
	mm->tm.credit_report = cp->tx.sent;
}

/*
 * Fill the option for one packet toward peer: report (report, and whether
 * this packet is in it) and the grant for the reverse direction.
 */
static inline void
wan_credit_opt(struct wan_credit *cr, struct dp_credit_counters *ctr, uint32_t peer,
	       uint64_t report, bool charged, struct credit_opt *o)
{
	struct wan_credit_peer *cp = &cr->p[peer % LS_MAX_PEERS];

	o->priority = cr->priority;
	o->flags = CREDIT_OPT_F_REPORT | (charged ? CREDIT_OPT_F_CHARGED : 0);
	if (credit_tx_report(&cp->tx, cr->now_ns, report, charged))
		o->flags |= CREDIT_OPT_F_WAIT;
	o->report_epoch = cp->tx.epoch;
	o->report = report;
	o->grant_epoch = 0;
	o->grant_limit = 0;
	if (credit_rx_advertise(&cp->cfg, &cp->rx, cr->now_ns, &o->grant_limit, &o->grant_epoch)) {
		o->flags |= CREDIT_OPT_F_GRANT;
		ctr->grants_tx++;
	}
}

/*
 * A credit option arrived from peer (a credit peer) on a packet of
 * inner_bytes (0 for a control packet). Returns true when the packet is
 * charged: it now holds inner_bytes of the peer's buffer until
 * wan_credit_left().
 */
bool wan_credit_rx(struct wan_credit *cr, struct dp_credit_counters *ctr, uint32_t peer,
		   const struct credit_opt *o, uint32_t inner_bytes);

/* bytes of peer's buffer left the gateway (sent to the DC or dropped). */
static inline void
wan_credit_drain(struct wan_credit *cr, uint32_t peer, uint32_t bytes)
{
	credit_rx_drain(&cr->p[peer % LS_MAX_PEERS].rx, bytes);
}

/* A queued packet from the WAN leaves the gateway: free its part of the buffer. */
static inline void
wan_credit_left(struct wan_credit *cr, struct rte_mbuf *m)
{
	struct dp_mbuf_meta *mm = dp_mbuf_meta(m);

	if (mm->tm.flags & DP_TM_F_CREDIT_RX) {
		mm->tm.flags &= (uint8_t)~DP_TM_F_CREDIT_RX;
		wan_credit_drain(cr, mm->tm.peer, mm->tm.frame_bytes);
	}
}

/*
 * Once per poll, after the traffic managers: control packets that are due
 * (built from pool, added to tx as the gateway's own), the blocked-time
 * and buffer gauges. Lowers *next_due_tsc to the next refresh (tsc_hz
 * converts the ns of the credit clock).
 */
void wan_credit_poll(struct wan_credit *cr, const struct dp_conf *c,
		     struct dp_credit_counters *ctr, struct rte_mempool *pool, uint64_t tsc,
		     uint64_t tsc_hz, struct dp_tx *tx, uint64_t *next_due_tsc);

/*
 * Write a credit control packet toward peer into buf (room for the
 * largest: Ethernet + VLAN + IPv6 + UDP + GENEVE + option) with next-hop
 * MAC dmac and the option o; returns its length.
 */
uint32_t wan_credit_ctrl_write(const struct dp_conf *c, uint32_t peer, const uint8_t *dmac,
			       const struct credit_opt *o, uint8_t *buf);

#define WAN_CREDIT_CTRL_MAX (18 + 40 + 8 + 8 + CREDIT_OPT_BYTES)

#endif /* LONGSPAN_WAN_CREDIT_H */
