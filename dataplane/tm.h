/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_TM_H
#define LONGSPAN_TM_H

/*
 * Traffic manager of one WAN port, per worker: three FIFOs served in strict
 * priority (enum dp_tm_class), a token-bucket shaper at the link rate in
 * TSC ticks so the gateway, not a hidden device queue, owns the WAN queue,
 * a byte limit per class (one BDP by default), and an ECN marker per class
 * from congestion/ (RED and phantom decide at enqueue, sojourn at dequeue).
 *
 * Packets wait as inner IP packets with their encapsulation decided
 * (peer, next-hop MAC, flow hash in the mbuf metadata); the egress stage
 * encapsulates them when they leave, so GENEVE sequence numbers follow the
 * wire order and timestamps are transmit times.
 *
 * Ownership: written only by the owning worker. The FIFO rings are
 * allocated once by the control thread; the shaper and markers are rebuilt
 * by the worker itself when it sees a new config generation.
 */

#include <stdbool.h>
#include <stdint.h>

#include <sys/socket.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "congestion/ecn_marker.h"
#include "congestion/token_bucket.h"
#include "dp_conf.h"
#include "flow_hash.h"
#include "geneve.h"
#include "mbuf_meta.h"
#include "parse.h"

struct rte_mbuf;

struct tm_fifo {
	struct rte_mbuf **ring;
	uint32_t mask; /* capacity - 1 */
	uint32_t head, tail; /* free-running; count = tail - head */
	uint64_t bytes;
};

struct tm_port {
	struct tm_fifo q[DP_TM_CLASS_MAX];
	struct token_bucket tb;
	struct ecn_marker marker[DP_TM_CLASS_MAX];
	uint64_t generation; /* config the shaper and markers were built from */
	uint64_t tsc_hz;
};

static inline uint32_t
tm_fifo_count(const struct tm_fifo *f)
{
	return f->tail - f->head;
}

static inline bool
tm_port_empty(const struct tm_port *t)
{
	unsigned int c;

	for (c = 0; c < DP_TM_CLASS_MAX; c++)
		if (tm_fifo_count(&t->q[c]) != 0)
			return false;
	return true;
}

/* Bytes a frame takes on the wire: preamble, FCS and inter-frame gap. */
#define TM_WIRE_OVERHEAD 24

/*
 * Rebuild the shaper and markers from conf when its generation changed
 * (queued packets stay). now_ns for the markers, tsc for the shaper.
 */
void tm_sync(struct tm_port *t, const struct dp_tm_conf *conf, uint64_t generation,
	     uint64_t seed, uint64_t now_ns, uint64_t tsc);

/*
 * Enqueue m (wire_bytes = its Ethernet frame length once encapsulated) in class cls. Returns false
 * when the class is at its byte or packet limit (the caller drops and
 * counts). *mark is set when an enqueue-time marker asks for CE.
 */
bool tm_enqueue(struct tm_port *t, const struct dp_tm_conf *conf, struct dp_tm_counters *ctr,
		enum dp_tm_class cls, struct rte_mbuf *m, uint32_t wire_bytes, uint64_t now_ns,
		uint64_t tsc, bool *mark);

struct wan_credit;
struct dp_credit_counters;

/*
 * Take up to max packets the shaper allows at tsc, highest class first.
 * cls_out[i] is each packet's class; sojourn_out[i] its time in the queue.
 * With cr (mechanism B on the WAN hop, may be NULL) a RoCE data packet
 * toward a credit peer also needs its credit, else its class waits; what
 * leaves toward a credit peer is accounted (wan_credit_tx_commit()).
 * Returns the count.
 */
unsigned int tm_dequeue(struct tm_port *t, const struct dp_tm_conf *conf,
			struct dp_tm_counters *ctr, uint64_t tsc, struct rte_mbuf **out,
			uint8_t *cls_out, uint64_t *sojourn_out, unsigned int max,
			struct wan_credit *cr, struct dp_credit_counters *cctr);

/*
 * TSC ticks until the head packet may leave (0 = now, UINT64_MAX = empty).
 * With cr (as tm_dequeue()), a class whose head RoCE packet waits for its
 * peer's credit is not due: only a grant frees it, and a grant arrives as
 * a packet, which wakes the worker (the credit refresh has its own due
 * time, wan_credit_poll()). The class after it is looked at instead, as
 * tm_dequeue() serves it.
 */
uint64_t tm_next_due(struct tm_port *t, const struct dp_tm_conf *conf, uint64_t tsc,
		     const struct wan_credit *cr);

/* ------------------------------------------------------------------------ */
/* The traffic manager as the pipeline sees it (the policy part of tm.c).   */

struct dp_worker;
struct dp_clock;
struct dp_tx;
struct flow_entry;

/* A packet that passed ingress, on its way into a WAN traffic manager. */
struct ls_hook_ctx;

struct dp_ready {
	struct rte_mbuf *m;
	struct flow_entry *fe; /* RoCE data: its flow entry (mechanism A) */
	uint32_t frame; /* Ethernet frame bytes once encapsulated */
	uint8_t cls; /* enum dp_tm_class */
	uint8_t port; /* the peer's WAN port */
	/* Its dc_rx hook context in this burst, NULL without: its wan_tx context's source. */
	const struct ls_hook_ctx *hook_rx;
};

static inline enum dp_tm_class
dp_tm_class_of(uint8_t cls)
{
	switch (cls) {
	case DP_CLASS_ROCE_CNP:
	case DP_CLASS_ROCE_ACK:
		return DP_TM_CLASS_CONTROL;
	case DP_CLASS_ROCE_DATA:
		return DP_TM_CLASS_ROCE;
	default:
		return DP_TM_CLASS_OTHER;
	}
}

/*
 * Traffic manager, enqueue side, first part: strip the inner Ethernet
 * header, check the encapsulated size against the WAN MTU and the headroom,
 * and remember the encapsulation in the mbuf metadata. Per packet, so
 * static inline; the rest of the policy is per burst, in tm.c.
 */
static inline enum ls_drop_reason
dp_tm_prepare(const struct dp_conf *c, uint32_t peer_idx, struct rte_mbuf *m,
	      const struct pkt_meta *meta, const struct rte_ether_addr *dmac,
	      struct dp_ready *r)
{
	const struct dp_peer *peer = &c->peers[peer_idx];
	uint16_t port = peer->port;
	const struct dp_port *wan = &c->ports[port];
	uint16_t l2 = peer->encap_l2;
	/* Toward a credit peer the credit option follows the telemetry option (encap_ip). */
	uint32_t outer_ip = (uint32_t)peer->encap_ip + meta->ip_len;
	struct dp_mbuf_meta *mm = dp_mbuf_meta(m);
	const uint8_t *inner;

	if (outer_ip > wan->mtu)
		return LS_DROP_MTU_EXCEEDED;
	if (rte_pktmbuf_headroom(m) + meta->l3_off < (uint32_t)l2 + peer->encap_ip)
		return LS_DROP_NO_HEADROOM;
	inner = rte_pktmbuf_mtod_offset(m, const uint8_t *, meta->l3_off);
	mm->tm.hash = dp_flow_hash(inner, meta->l3, meta->proto, meta->sport, meta->dport);
	mm->tm.peer = (uint8_t)peer_idx;
	mm->tm.flags = meta->cls == DP_CLASS_ROCE_DATA ? DP_TM_F_ROCE_DATA : 0;
	memcpy(mm->tm.dmac, dmac->addr_bytes, RTE_ETHER_ADDR_LEN);
	/* Keep only the inner IP packet: no inner Ethernet, no padding. */
	rte_pktmbuf_adj(m, meta->l3_off);
	if (m->pkt_len > meta->ip_len)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - meta->ip_len));
	r->m = m;
	r->frame = l2 + outer_ip;
	r->port = (uint8_t)port;
	/*
	 * Without a link rate nothing is shaped and nothing queues beyond one
	 * burst: one FIFO keeps the arrival order.
	 */
	r->cls = (uint8_t)(c->tm[port].enabled ? dp_tm_class_of(meta->cls) : DP_TM_CLASS_ROCE);
	return LS_DROP_NONE;
}

/* Traffic manager for a burst of prepared packets, port by port. */
void dp_tm_burst(struct dp_worker *w, const struct dp_conf *c, const struct dp_ready *ready,
		 unsigned int n, const struct dp_clock *clk, struct dp_tx *tx);

/*
 * Traffic manager, dequeue side, then the egress deparser: send what the
 * shaper allows on every WAN port, with dequeue-time (sojourn) marking.
 */
void dp_tm_out(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
	       struct dp_tx *tx);

#endif /* LONGSPAN_TM_H */
