/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event queue: a 4-ary min-heap of 16-byte entries ordered by (time,
 * insertion sequence).  Four children share one 64-byte cache line, so a
 * sift-down touches one line per level; with a few thousand pending events
 * (one per busy port, link and active QP) the heap stays in L1/L2.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static inline bool
sim_heap_less(const struct sim_ev *a, const struct sim_ev *b)
{
	if (a->t_ns != b->t_ns)
		return a->t_ns < b->t_ns;
	/* Wrap-safe: equal-time events are never 2^31 insertions apart. */
	return (int32_t)(a->seq - b->seq) < 0;
}

int
sim_heap_init(struct sim_heap *h, uint32_t cap)
{
	memset(h, 0, sizeof(*h));
	h->cap = cap < 64 ? 64 : cap;
	h->ev = malloc(sizeof(*h->ev) * h->cap);
	return h->ev == NULL ? -1 : 0;
}

void
sim_heap_free(struct sim_heap *h)
{
	free(h->ev);
	memset(h, 0, sizeof(*h));
}

void
sim_heap_push(struct sim_heap *h, uint64_t t_ns, uint32_t type, uint32_t idx)
{
	struct sim_ev e = {
		.t_ns = t_ns,
		.seq = h->seq++,
		.arg = type << SIM_EV_IDX_BITS | (idx & SIM_EV_IDX_MASK),
	};
	uint32_t i;

	if (h->n == h->cap) {
		/* Growth is rare (once per doubling); failure is fatal. */
		struct sim_ev *ev = realloc(h->ev, sizeof(*ev) * h->cap * 2);

		if (ev == NULL)
			abort();
		h->ev = ev;
		h->cap *= 2;
	}
	i = h->n++;
	while (i > 0) {
		uint32_t parent = (i - 1) >> 2;

		if (!sim_heap_less(&e, &h->ev[parent]))
			break;
		h->ev[i] = h->ev[parent];
		i = parent;
	}
	h->ev[i] = e;
}

bool
sim_heap_pop(struct sim_heap *h, struct sim_ev *out)
{
	struct sim_ev last;
	uint32_t i = 0;
	uint32_t n;

	if (h->n == 0)
		return false;
	*out = h->ev[0];
	n = --h->n;
	if (n == 0)
		return true;
	last = h->ev[n];
	for (;;) {
		uint32_t c = 4 * i + 1;
		uint32_t best;
		uint32_t end;

		if (c >= n)
			break;
		best = c;
		end = c + 4 < n ? c + 4 : n;
		for (c = c + 1; c < end; c++)
			if (sim_heap_less(&h->ev[c], &h->ev[best]))
				best = c;
		if (!sim_heap_less(&h->ev[best], &last))
			break;
		h->ev[i] = h->ev[best];
		i = best;
	}
	h->ev[i] = last;
	return true;
}
