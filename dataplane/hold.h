/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOLD_H
#define LONGSPAN_HOLD_H

/*
 * Mechanism C, the destination-side temporary reaction point: per-QP state
 * for incoming (WAN -> DC) data flows whose receiver sent a CNP. While a
 * QP's trp shapes it, its packets wait here, in gateway memory, in their
 * own FIFO, and leave toward the DC at the shaped rate.
 *
 * Ownership: one table per worker, written only by it; the FIFO memory is
 * allocated once by the control thread. A slot is free when its QP is no
 * longer shaped and its FIFO is empty. The control thread reads the slots
 * for its congestion hints (control/peering_hints.c) without locks: seq is
 * odd while the worker takes or gives back a slot, and a reader keeps what
 * it copied only when seq was even and unchanged across its copy.
 */

#include <stdbool.h>
#include <stdint.h>

#include "congestion/qpn_learn.h"
#include "congestion/trp.h"

struct rte_mbuf;

#define HOLD_SLOTS 64 /* QPs shaped at once per worker, power of two */
#define HOLD_QUEUE 4096 /* packets held per QP, power of two */

struct hold_entry {
	struct qpn_learn_key key; /* (family, remote sender, local receiver, receiver QPN) */
	uint32_t seq; /* odd while key and used change (release stores) */
	bool used;
	struct trp trp;
	struct rte_mbuf **ring;
	uint32_t head, tail; /* free-running */
	uint32_t bytes; /* the held packets' bytes (pkt_len): the QP's backlog here */
	bool cnp_fwd; /* a receiver CNP of this QP went on to the sender at cnp_fwd_ns */
	uint64_t cnp_fwd_ns;
};

struct hold_table {
	struct hold_entry e[HOLD_SLOTS];
	uint32_t used; /* slots in use */
};

/* Set up over ring memory for HOLD_SLOTS x HOLD_QUEUE mbuf pointers. */
void hold_init(struct hold_table *t, struct rte_mbuf **mem);

/* The slot of key, or NULL. */
struct hold_entry *hold_find(struct hold_table *t, const struct qpn_learn_key *key);

/* The slot of key, taking a free one if needed; NULL when all are busy. */
struct hold_entry *hold_get(struct hold_table *t, const struct qpn_learn_key *key);

static inline uint32_t
hold_count(const struct hold_entry *e)
{
	return e->tail - e->head;
}

/* Queue m (len bytes) behind the QP's held packets; false when the FIFO is full. */
static inline bool
hold_push(struct hold_entry *e, struct rte_mbuf *m, uint32_t len)
{
	if (hold_count(e) >= HOLD_QUEUE)
		return false;
	e->ring[e->tail++ & (HOLD_QUEUE - 1)] = m;
	e->bytes += len;
	return true;
}

/* The oldest held packet; the FIFO must not be empty. */
static inline struct rte_mbuf *
hold_head(const struct hold_entry *e)
{
	return e->ring[e->head & (HOLD_QUEUE - 1)];
}

/* Take the oldest held packet (len bytes, as it was pushed) off the FIFO. */
static inline struct rte_mbuf *
hold_pop(struct hold_entry *e, uint32_t len)
{
	struct rte_mbuf *m = hold_head(e);

	e->head++;
	e->bytes -= len;
	return m;
}

/* Give a slot back once its QP is no longer shaped and nothing is held. */
void hold_release(struct hold_table *t, struct hold_entry *e);

#endif /* LONGSPAN_HOLD_H */
