/* SPDX-License-Identifier: BSD-3-Clause */
#include "wanem_line.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "congestion/cc_time.h"

#define Q32_ONE (UINT64_C(1) << 32)

static int
wanem_line_prob_q32(double p, uint64_t *q)
{
	if (!(p >= 0.0 && p <= 1.0))
		return -EINVAL;
	*q = p >= 1.0 ? Q32_ONE : (uint64_t)(p * (double)Q32_ONE + 0.5);
	return 0;
}

static uint64_t
wanem_line_ns_to_ticks(uint64_t ns, uint64_t hz)
{
	return (uint64_t)(((unsigned __int128)ns * hz + 500000000u) / 1000000000u);
}

int
wanem_line_set_delay(struct wanem_line *l, uint64_t delay_ns)
{
	if (delay_ns > WANEM_LINE_MAX_DELAY_NS)
		return -EINVAL;
	l->cfg.delay_ticks = wanem_line_ns_to_ticks(delay_ns, l->cfg.hz);
	return 0;
}

int
wanem_line_config_init(struct wanem_line_config *c, const struct wanem_line_params *p)
{
	struct wanem_line_config n;

	memset(&n, 0, sizeof(n));
	if (p->hz == 0 || p->delay_ns > WANEM_LINE_MAX_DELAY_NS ||
	    p->reorder_max_ns > WANEM_LINE_MAX_DELAY_NS)
		return -EINVAL;
	if (wanem_line_prob_q32(p->loss, &n.loss_q32) != 0 ||
	    wanem_line_prob_q32(p->reorder, &n.reorder_q32) != 0)
		return -EINVAL;
	if (n.reorder_q32 != 0 && p->reorder_gap == 0)
		return -EINVAL;
	n.hz = p->hz;
	n.delay_ticks = wanem_line_ns_to_ticks(p->delay_ns, p->hz);
	n.rate_bps = p->rate_bps;
	if (p->rate_bps != 0) {
		/* 8 * hz / rate ticks per byte, in Q32; at least 2^-32 ticks. */
		unsigned __int128 t = ((unsigned __int128)8 * p->hz << 32) / p->rate_bps;

		if (t == 0 || t > ((unsigned __int128)1 << 62))
			return -EINVAL;
		n.ticks_per_byte_q32 = (uint64_t)t;
	}
	n.overhead_bytes = p->overhead_bytes;
	n.queue_bytes = p->queue_bytes;
	n.reorder_gap = p->reorder_gap;
	n.reorder_max_ticks = wanem_line_ns_to_ticks(p->reorder_max_ns, p->hz);
	n.seed = p->seed;
	*c = n;
	return 0;
}

int
wanem_line_init(struct wanem_line *l, const struct wanem_line_config *c,
		struct wanem_line_slot *slots, uint32_t nslots, uint64_t now)
{
	if (nslots < 2 || (nslots & (nslots - 1)) != 0)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	l->cfg = *c;
	l->slots = slots;
	l->mask = nslots - 1;
	l->link_free = now;
	cc_rng_seed(&l->rng, c->seed);
	return 0;
}

uint64_t
wanem_line_backlog_bytes(const struct wanem_line *l, uint64_t now)
{
	uint64_t busy;

	if (l->cfg.ticks_per_byte_q32 == 0 || !cc_time_after(l->link_free, now))
		return 0;
	busy = l->link_free - now;
	return (uint64_t)(((unsigned __int128)busy << 32) / l->cfg.ticks_per_byte_q32);
}

static inline bool
wanem_line_draw(struct wanem_line *l, uint64_t p_q32)
{
	if (p_q32 == 0)
		return false;
	if (p_q32 >= Q32_ONE)
		return true;
	return cc_rng_next_u32(&l->rng) < p_q32;
}

enum wanem_line_verdict
wanem_line_enqueue(struct wanem_line *l, void *pkt, uint32_t bytes, uint64_t now)
{
	const struct wanem_line_config *c = &l->cfg;
	struct wanem_line_slot *s;
	uint64_t due;

	l->st.rx_pkts++;
	l->st.rx_bytes += bytes;
	if (l->tail - l->head > l->mask) {
		l->st.drop_slots++;
		return WANEM_LINE_DROP_SLOTS;
	}
	if (c->ticks_per_byte_q32 != 0) {
		uint64_t backlog = wanem_line_backlog_bytes(l, now);
		uint64_t total;

		if (backlog > l->st.max_backlog_bytes)
			l->st.max_backlog_bytes = backlog;
		if (c->queue_bytes != 0 && backlog + bytes > c->queue_bytes) {
			l->st.drop_queue++;
			return WANEM_LINE_DROP_QUEUE;
		}
		if (!cc_time_after(l->link_free, now)) {
			l->link_free = now;
			l->link_frac = 0;
		}
		total = (uint64_t)l->link_frac +
			(uint64_t)(bytes + c->overhead_bytes) * c->ticks_per_byte_q32;
		l->link_free += total >> 32;
		l->link_frac = (uint32_t)total;
		due = l->link_free + c->delay_ticks;
	} else {
		due = now + c->delay_ticks;
	}
	if (wanem_line_draw(l, c->loss_q32)) {
		l->st.drop_loss++;
		return WANEM_LINE_DROP_LOSS;
	}
	s = &l->slots[l->tail & l->mask];
	s->pkt = pkt;
	s->bytes = bytes;
	s->due = due;
	l->tail++;
	l->st.held_pkts++;
	l->st.held_bytes += bytes;
	if (l->st.held_pkts > l->st.max_held_pkts)
		l->st.max_held_pkts = l->st.held_pkts;
	if (l->st.held_bytes > l->st.max_held_bytes)
		l->st.max_held_bytes = l->st.held_bytes;
	return WANEM_LINE_QUEUED;
}

static inline uint32_t
wanem_line_ready_room(const struct wanem_line *l)
{
	return WANEM_LINE_READY - (l->rtail - l->rhead);
}

static inline void
wanem_line_to_ready(struct wanem_line *l, const struct wanem_line_slot *s)
{
	l->ready[l->rtail % WANEM_LINE_READY] = *s;
	l->rtail++;
}

static void
wanem_line_stash_remove(struct wanem_line *l, uint32_t i)
{
	memmove(&l->stash[i], &l->stash[i + 1], (l->nstash - i - 1) * sizeof(l->stash[0]));
	l->nstash--;
}

void
wanem_line_release(struct wanem_line *l, uint64_t now)
{
	const struct wanem_line_config *c = &l->cfg;
	uint32_t i;

	/* Held-back packets whose deadline passed leave first. */
	for (i = 0; i < l->nstash && wanem_line_ready_room(l) > 0;) {
		if (!cc_time_after(l->stash[i].deadline, now)) {
			wanem_line_to_ready(l, &l->stash[i].s);
			l->st.reorder_timeouts++;
			wanem_line_stash_remove(l, i);
		} else {
			i++;
		}
	}
	/* Room for this packet and every stashed one it may release. */
	while (l->head != l->tail && wanem_line_ready_room(l) > l->nstash) {
		struct wanem_line_slot *s = &l->slots[l->head & l->mask];

		if (cc_time_after(s->due, now))
			break;
		l->head++;
		if (l->nstash < WANEM_LINE_STASH && wanem_line_draw(l, c->reorder_q32)) {
			struct wanem_line_stash *h = &l->stash[l->nstash++];

			h->s = *s;
			h->deadline = s->due + c->reorder_max_ticks;
			h->left = c->reorder_gap;
			l->st.reordered++;
			continue;
		}
		wanem_line_to_ready(l, s);
		for (i = 0; i < l->nstash;) {
			if (--l->stash[i].left == 0) {
				wanem_line_to_ready(l, &l->stash[i].s);
				wanem_line_stash_remove(l, i);
			} else {
				i++;
			}
		}
	}
}

uint32_t
wanem_line_ready(const struct wanem_line *l, void **pkts, uint32_t max)
{
	uint32_t n = l->rtail - l->rhead, i;

	if (n > max)
		n = max;
	for (i = 0; i < n; i++)
		pkts[i] = l->ready[(l->rhead + i) % WANEM_LINE_READY].pkt;
	return n;
}

void
wanem_line_sent(struct wanem_line *l, uint32_t n, uint64_t now)
{
	uint32_t i;

	for (i = 0; i < n && l->rhead != l->rtail; i++) {
		const struct wanem_line_slot *s = &l->ready[l->rhead % WANEM_LINE_READY];
		uint64_t late = cc_time_after(now, s->due) ? now - s->due : 0;

		l->st.tx_pkts++;
		l->st.tx_bytes += s->bytes;
		l->st.held_pkts--;
		l->st.held_bytes -= s->bytes;
		l->st.late_sum_ticks += late;
		if (late > l->st.late_max_ticks)
			l->st.late_max_ticks = late;
		l->rhead++;
	}
}

uint64_t
wanem_line_next_due(const struct wanem_line *l)
{
	uint64_t due = UINT64_MAX;
	uint32_t i;

	if (l->rhead != l->rtail)
		return 0;
	if (l->head != l->tail)
		due = l->slots[l->head & l->mask].due;
	for (i = 0; i < l->nstash; i++)
		if (due == UINT64_MAX || cc_time_after(due, l->stash[i].deadline))
			due = l->stash[i].deadline;
	return due;
}

uint32_t
wanem_line_drain(struct wanem_line *l, void **pkts, uint32_t max)
{
	uint32_t n = 0;

	while (n < max && l->rhead != l->rtail) {
		const struct wanem_line_slot *s = &l->ready[l->rhead++ % WANEM_LINE_READY];

		pkts[n++] = s->pkt;
		l->st.drained++;
		l->st.held_pkts--;
		l->st.held_bytes -= s->bytes;
	}
	while (n < max && l->nstash > 0) {
		const struct wanem_line_slot *s = &l->stash[l->nstash - 1].s;

		pkts[n++] = s->pkt;
		l->st.drained++;
		l->st.held_pkts--;
		l->st.held_bytes -= s->bytes;
		l->nstash--;
	}
	while (n < max && l->head != l->tail) {
		const struct wanem_line_slot *s = &l->slots[l->head++ & l->mask];

		pkts[n++] = s->pkt;
		l->st.drained++;
		l->st.held_pkts--;
		l->st.held_bytes -= s->bytes;
	}
	return n;
}
