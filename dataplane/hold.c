/* SPDX-License-Identifier: BSD-3-Clause */
#include "hold.h"

#include <string.h>

#include <rte_hash_crc.h>

static inline uint32_t
hold_slot(const struct qpn_learn_key *k)
{
	uint64_t w[5];

	/* rte_hash_crc() loads 8 bytes at a time: hash an aligned copy. */
	memcpy(w, k->src, 16);
	memcpy(w + 2, k->dst, 16);
	w[4] = (uint64_t)k->family << 32 | k->dest_qpn;
	return rte_hash_crc(w, sizeof(w), 0) & (HOLD_SLOTS - 1);
}

static inline bool
hold_key_eq(const struct qpn_learn_key *a, const struct qpn_learn_key *b)
{
	return a->family == b->family && a->dest_qpn == b->dest_qpn &&
	       memcmp(a->src, b->src, 16) == 0 && memcmp(a->dst, b->dst, 16) == 0;
}

void
hold_init(struct hold_table *t, struct rte_mbuf **mem)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < HOLD_SLOTS; i++) {
		t->e[i].ring = mem + (size_t)i * HOLD_QUEUE;
		trp_init(&t->e[i].trp);
	}
}

struct hold_entry *
hold_find(struct hold_table *t, const struct qpn_learn_key *key)
{
	uint32_t s = hold_slot(key);
	unsigned int i;

	if (t->used == 0)
		return NULL;
	for (i = 0; i < HOLD_SLOTS; i++) {
		struct hold_entry *e = &t->e[(s + i) & (HOLD_SLOTS - 1)];

		if (e->used && hold_key_eq(&e->key, key))
			return e;
	}
	return NULL;
}

struct hold_entry *
hold_get(struct hold_table *t, const struct qpn_learn_key *key)
{
	uint32_t s = hold_slot(key);
	struct hold_entry *e = hold_find(t, key);
	unsigned int i;

	if (e != NULL)
		return e;
	for (i = 0; i < HOLD_SLOTS; i++) {
		e = &t->e[(s + i) & (HOLD_SLOTS - 1)];
		if (!e->used) {
			__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_RELEASE);
			e->key = *key;
			e->used = true;
			e->head = e->tail = 0;
			e->bytes = 0;
			e->cnp_fwd = false;
			e->cnp_fwd_ns = 0;
			trp_init(&e->trp);
			__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELEASE);
			t->used++;
			return e;
		}
	}
	return NULL;
}

void
hold_release(struct hold_table *t, struct hold_entry *e)
{
	if (!e->used || hold_count(e) != 0)
		return;
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	e->used = false;
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELEASE);
	t->used--;
}
