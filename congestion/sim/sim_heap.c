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


/*
 * The children of entry i are 4i+1 .. 4i+4.  Entry 0 is placed 48 bytes
 * into a 64-byte line so that every family of four starts a cache line.
 */
static struct sim_ev *
sim_heap_alloc(uint32_t cap, void **mem)
{
	*mem = aligned_alloc(64, ((size_t)cap + 4) * sizeof(struct sim_ev));
	return *mem == NULL ? NULL : (struct sim_ev *)*mem + 3;
}

int
sim_events_init(struct sim *s, uint32_t heap_cap, uint32_t slow_cap)
{
	s->far_key = UINT64_MAX;
	if (sim_wheel_init(&s->wheel) < 0 || sim_heap_init(&s->heap, heap_cap) < 0 ||
	    sim_heap_init(&s->slow, slow_cap) < 0)
		return -1;
	return 0;
}

int
sim_heap_init(struct sim_heap *h, uint32_t cap)
{
	memset(h, 0, sizeof(*h));
	h->cap = cap < 64 ? 64 : cap;
	h->ev = sim_heap_alloc(h->cap, &h->mem);
	if (h->ev == NULL)
		return -1;
	h->ev[0].key = UINT64_MAX; /* empty: see sim_heap_min_key() */
	return 0;
}

void
sim_heap_free(struct sim_heap *h)
{
	free(h->mem);
	memset(h, 0, sizeof(*h));
}

void
sim_heap_push(struct sim_heap *h, uint64_t key, uint32_t arg)
{
	struct sim_ev e = { .key = key, .arg = arg };
	uint32_t i;

	if (h->n == h->cap) {
		/* Growth is rare (once per doubling); failure is fatal. */
		void *mem;
		struct sim_ev *ev = sim_heap_alloc(h->cap * 2, &mem);

		if (ev == NULL)
			abort();
		memcpy(ev, h->ev, sizeof(*ev) * h->n);
		free(h->mem);
		h->mem = mem;
		h->ev = ev;
		h->cap *= 2;
	}
	i = h->n++;
	if (h->n > h->peak)
		h->peak = h->n;
	while (i > 0) {
		uint32_t parent = (i - 1) >> 2;

		if (e.key >= h->ev[parent].key)
			break;
		h->ev[i] = h->ev[parent];
		i = parent;
	}
	h->ev[i] = e;
}

/*
 * Pop the minimum.  Bottom-up: walk the hole down along the smallest
 * children to a leaf without comparing against the displaced last entry,
 * then sift that entry up from there.  It usually belongs near the bottom,
 * so this saves a compare per level over the textbook sift-down.
 */
bool
sim_heap_pop(struct sim_heap *h, struct sim_ev *out)
{
	struct sim_ev *ev = h->ev;
	struct sim_ev last;
	uint32_t i = 0;
	uint32_t n;

	if (h->n == 0)
		return false;
	*out = ev[0];
	n = --h->n;
	if (n == 0) {
		ev[0].key = UINT64_MAX;
		return true;
	}
	last = ev[n];
	for (;;) {
		uint32_t c = 4 * i + 1;
		uint32_t best;

		if (c + 3 < n) {
			/* A full family: branch-free minimum of four keys. */
			uint64_t k0 = ev[c].key, k1 = ev[c + 1].key;
			uint64_t k2 = ev[c + 2].key, k3 = ev[c + 3].key;
			uint32_t b01 = k1 < k0 ? c + 1 : c;
			uint32_t b23 = k3 < k2 ? c + 3 : c + 2;
			uint64_t m01 = k1 < k0 ? k1 : k0;
			uint64_t m23 = k3 < k2 ? k3 : k2;

			best = m23 < m01 ? b23 : b01;
		} else {
			if (c >= n)
				break;
			best = c;
			for (c = c + 1; c < n; c++)
				if (ev[c].key < ev[best].key)
					best = c;
		}
		ev[i] = ev[best];
		i = best;
	}
	while (i > 0) {
		uint32_t parent = (i - 1) >> 2;

		if (last.key >= ev[parent].key)
			break;
		ev[i] = ev[parent];
		i = parent;
	}
	ev[i] = last;
	return true;
}

/* ------------------------------------------------------------ timing wheel */

int
sim_wheel_init(struct sim_wheel *w)
{
	uint32_t i;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < SIM_WHEEL_SLOTS; i++)
		w->slot[i].head = w->slot[i].tail = SIM_NONE;
	w->free = SIM_NONE;
	sim_wheel_grow(w);
	return 0;
}

void
sim_wheel_free(struct sim_wheel *w)
{
	free(w->node);
	w->node = NULL;
}

/* Doubles the node pool; growth is rare (once per doubling), failure fatal. */
void
sim_wheel_grow(struct sim_wheel *w)
{
	uint32_t cap = w->cap ? w->cap * 2 : 1024;
	struct sim_wheel_node *n = realloc(w->node, sizeof(*n) * cap);
	uint32_t i;

	if (n == NULL)
		abort();
	for (i = w->cap; i < cap; i++)
		n[i].next = i + 1 < cap ? i + 1 : w->free;
	w->free = w->cap;
	w->node = n;
	w->cap = cap;
}

uint32_t
sim_wheel_seek_far(struct sim_wheel *w)
{
	uint32_t slot = (uint32_t)w->cursor_ns & SIM_WHEEL_MASK;
	uint32_t word = slot / 64, k, next;
	uint64_t m;

	/* Scan the bitmap from the cursor, wrapping once around the wheel. */
	m = w->bits[word] & (~UINT64_C(0) << (slot % 64));
	for (k = 0; m == 0 && k < SIM_WHEEL_SLOTS / 64; k++) {
		word = (word + 1) % (SIM_WHEEL_SLOTS / 64);
		m = w->bits[word];
	}
	next = word * 64 + (uint32_t)__builtin_ctzll(m);
	w->cursor_ns += (next - slot) & SIM_WHEEL_MASK;
	return next;
}
