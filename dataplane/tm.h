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

#include "congestion/ecn_marker.h"
#include "congestion/token_bucket.h"
#include "dp_conf.h"

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

/*
 * Take up to max packets the shaper allows at tsc, highest class first.
 * cls_out[i] is each packet's class; sojourn_out[i] its time in the queue.
 * Returns the count.
 */
unsigned int tm_dequeue(struct tm_port *t, const struct dp_tm_conf *conf,
			struct dp_tm_counters *ctr, uint64_t tsc, struct rte_mbuf **out,
			uint8_t *cls_out, uint64_t *sojourn_out, unsigned int max);

/* TSC ticks until the head packet may leave (0 = now, UINT64_MAX = empty). */
uint64_t tm_next_due(struct tm_port *t, const struct dp_tm_conf *conf, uint64_t tsc);

#endif /* LONGSPAN_TM_H */
