/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_WANEM_LINE_H
#define LONGSPAN_WANEM_LINE_H

/*
 * One direction of longspan-wanem's delay line: a bottleneck (serialization
 * at rate_bps behind a buffer of queue_bytes), then fibre (delay_ns), with
 * optional random loss and reordering.
 *
 * Pure C, no DPDK runtime: packets are opaque pointers with a size, the
 * clock is passed in as ticks (TSC in the tool, anything in tests), and
 * slot memory comes from the caller. One owner thread per line.
 *
 * Timeline of a packet of B bytes arriving at t (ticks):
 *   start = max(t, link_free)                 waits behind the queue
 *   link_free = start + (B + overhead) * 8 / rate   last bit on the fibre
 *   due = link_free + delay                   last bit at the far end
 * Without a rate, due = t + delay. Packets leave in due order (FIFO), except
 * the ones picked for reordering (below).
 *
 * Verdicts at arrival, in this order:
 *   DROP_SLOTS  no free slot (the packet capacity, sized by the caller)
 *   DROP_QUEUE  with a rate: the bottleneck backlog (bytes not yet
 *               serialized, i.e. (link_free - t) * rate) plus this packet
 *               would exceed queue_bytes: tail drop
 *   DROP_LOSS   random loss with probability loss, drawn after
 *               serialization: a lost packet used the link but never
 *               arrives (like corruption on the fibre)
 *   QUEUED      otherwise
 *
 * Reordering: when a due packet is released, with probability reorder it
 * is held back until reorder_gap later packets of this direction have been
 * released, then released right after the last of them; if traffic stops
 * first, it leaves reorder_max_ns after its own due time at the latest.
 * At most WANEM_LINE_STASH packets are held back at once (no new pick
 * while the stash is full).
 *
 * Release and transmission are separate: wanem_line_release() moves due
 * packets to a ready list, the caller transmits from wanem_line_ready() and
 * confirms with wanem_line_sent() the ones the port took; the rest stay
 * first in line.
 */

#include <stdint.h>

#include "congestion/cc_rng.h"

#define WANEM_LINE_STASH 64 /* packets held back for reordering at once */
#define WANEM_LINE_READY 256 /* released, not yet transmitted */

struct wanem_line_params {
	uint64_t hz; /* clock ticks per second, > 0 */
	uint64_t delay_ns; /* one-way propagation delay, <= 10 s */
	uint64_t rate_bps; /* bottleneck rate; 0 = no serialization */
	uint32_t overhead_bytes; /* added to each packet's size for serialization */
	uint64_t queue_bytes; /* bottleneck buffer, with a rate; 0 = unlimited */
	double loss; /* 0..1 */
	double reorder; /* 0..1 */
	uint32_t reorder_gap; /* >= 1 when reorder > 0 */
	uint64_t reorder_max_ns; /* longest extra hold of a reordered packet */
	uint64_t seed;
};

#define WANEM_LINE_MAX_DELAY_NS UINT64_C(10000000000) /* 10 s */

struct wanem_line_config {
	uint64_t hz;
	uint64_t delay_ticks;
	uint64_t rate_bps;
	uint64_t ticks_per_byte_q32; /* serialization time of one byte, Q32 ticks; 0 = no rate */
	uint32_t overhead_bytes;
	uint64_t queue_bytes;
	uint64_t loss_q32; /* P(loss) as a Q32 fraction, 2^32 = always */
	uint64_t reorder_q32;
	uint32_t reorder_gap;
	uint64_t reorder_max_ticks;
	uint64_t seed;
};

enum wanem_line_verdict {
	WANEM_LINE_QUEUED = 0,
	WANEM_LINE_DROP_SLOTS,
	WANEM_LINE_DROP_QUEUE,
	WANEM_LINE_DROP_LOSS,
};

struct wanem_line_slot {
	void *pkt;
	uint32_t bytes;
	uint64_t due; /* ticks */
};

struct wanem_line_stash {
	struct wanem_line_slot s;
	uint64_t deadline; /* ticks: released at the latest then */
	uint32_t left; /* later packets still to overtake it */
};

/*
 * Counters. rx = tx + drop_slots + drop_queue + drop_loss + held_pkts +
 * drained at every moment (tests check it).
 */
struct wanem_line_stats {
	uint64_t rx_pkts, rx_bytes;
	uint64_t tx_pkts, tx_bytes;
	uint64_t drop_slots, drop_queue, drop_loss;
	uint64_t reordered; /* packets picked for reordering */
	uint64_t reorder_timeouts; /* of those, released by the deadline */
	uint64_t held_pkts, held_bytes; /* now: in the line, stash or ready list */
	uint64_t drained; /* removed by wanem_line_drain() at shutdown */
	uint64_t max_held_pkts, max_held_bytes;
	uint64_t max_backlog_bytes; /* largest bottleneck backlog seen at an arrival */
	uint64_t late_sum_ticks, late_max_ticks; /* transmission time - due time */
};

struct wanem_line {
	struct wanem_line_config cfg;
	struct wanem_line_slot *slots; /* caller memory, mask + 1 entries */
	uint32_t mask;
	uint32_t head, tail; /* FIFO in due order: [head, tail) */
	struct wanem_line_slot ready[WANEM_LINE_READY];
	uint32_t rhead, rtail;
	struct wanem_line_stash stash[WANEM_LINE_STASH];
	uint32_t nstash;
	uint64_t link_free; /* ticks: the bottleneck is busy until then */
	uint32_t link_frac; /* Q32 fraction of a tick carried over */
	struct cc_rng rng;
	struct wanem_line_stats st;
};

/*
 * A new one-way delay from now on (<= WANEM_LINE_MAX_DELAY_NS, else
 * -EINVAL): packets already on the line keep their due time, later ones
 * leave no earlier than the packets ahead of them (FIFO), so a change
 * never reorders.
 */
int wanem_line_set_delay(struct wanem_line *l, uint64_t delay_ns);

/* Validate P into C. Returns 0 or -EINVAL (C untouched). */
int wanem_line_config_init(struct wanem_line_config *c, const struct wanem_line_params *p);

/*
 * Start an empty line at now over nslots slots (a power of two, >= 2) of
 * caller memory.
 */
int wanem_line_init(struct wanem_line *l, const struct wanem_line_config *c,
		    struct wanem_line_slot *slots, uint32_t nslots, uint64_t now);

/* A packet of BYTES arrived at now. Anything but QUEUED: the caller frees it. */
enum wanem_line_verdict wanem_line_enqueue(struct wanem_line *l, void *pkt, uint32_t bytes,
					   uint64_t now);

/* Move the packets due at now to the ready list (reordering applied). */
void wanem_line_release(struct wanem_line *l, uint64_t now);

/* Copy up to max ready packets, oldest first, without removing them. */
uint32_t wanem_line_ready(const struct wanem_line *l, void **pkts, uint32_t max);

/* The first n ready packets were transmitted at now. */
void wanem_line_sent(struct wanem_line *l, uint32_t n, uint64_t now);

/*
 * When wanem_line_release() next has work: now (0) if packets are ready,
 * else the earliest due time or reorder deadline, or UINT64_MAX when empty.
 */
uint64_t wanem_line_next_due(const struct wanem_line *l);

/* Bottleneck backlog at now, bytes (0 without a rate). */
uint64_t wanem_line_backlog_bytes(const struct wanem_line *l, uint64_t now);

/*
 * Remove up to max held packets of any kind (shutdown); returns how many.
 * They are not counted as transmitted: held_pkts goes down.
 */
uint32_t wanem_line_drain(struct wanem_line *l, void **pkts, uint32_t max);

#endif /* LONGSPAN_WANEM_LINE_H */
