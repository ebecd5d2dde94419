/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_FLOW_H
#define LONGSPAN_FLOW_H

/*
 * Per-worker RoCE flow table: one entry per QP direction, keyed by inner
 * (source, destination, UDP source port, BTH DestQP), holding the counters
 * operators read (`longspanctl show flows`) and what mechanism A needs per
 * QP (gateway CNP rate limit).
 *
 * Ownership: written only by the owning worker. The control thread reads
 * entries for reports without locks; a report may show an entry while it
 * is being reused (counters of two flows mixed for one line), never a
 * crash. Storage: fixed-capacity open addressing in memory the control
 * thread allocates once; entries idle for longer than the idle time are
 * reused in place (lazy aging, no sweeper on the fast path).
 */

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_common.h>
#include <rte_prefetch.h>

#include "bits.h"

#include "congestion/proxy_cnp.h"
#include "congestion/rate_meter.h"

#define FLOW_PROBE_MAX 16

struct __attribute__((aligned(8))) flow_key {
	uint8_t family; /* AF_INET / AF_INET6 */
	uint8_t pad;
	uint16_t sport; /* UDP source port, host order */
	uint32_t dqpn; /* BTH DestQP */
	uint8_t src[16]; /* IPv4 in the first 4 bytes, rest zero */
	uint8_t dst[16];
};

enum flow_dir {
	FLOW_DC_TO_WAN = 0,
	FLOW_WAN_TO_DC = 1,
};

/*
 * Laid out for the fast path: the first cache line holds what every packet
 * reads and writes (key, hash, last seen, packets), the second the other
 * per-packet counters, the rest is touched only by mechanism A and reports.
 */
struct flow_entry {
	/* Cache line 0. */
	struct flow_key key;
	uint32_t hash; /* 0 = never used */
	uint8_t dir; /* enum flow_dir */
	uint8_t cls; /* enum dp_class of the last packet */
	uint8_t qpn_known; /* mechanism A: sender QPN learned */
	uint8_t pad;
	uint64_t last_ns;
	uint64_t pkts;
	/* Cache line 1. */
	uint64_t bytes;
	uint64_t ect_in, ce_in; /* ECN as received */
	uint32_t next_psn; /* expected next data PSN */
	uint16_t peer;
	uint64_t psn_ooo; /* data PSN other than the expected one */
	struct rate_meter meter; /* measured rate (congestion/rate_meter.h) */
	/* Cold. */
	uint64_t first_ns;
	uint32_t sender_qpn; /* valid when qpn_known */
	uint64_t marked; /* CE written by the gateway */
	uint64_t cnp_sent, cnp_suppressed, cnp_no_qpn; /* mechanism A */
	uint64_t first_mark_ns; /* first CE the gateway wrote (0 = none); lab feedback loop */
	uint64_t first_cnp_ns; /* first gateway CNP sent for this QP (0 = none) */
	uint64_t last_ce_ns; /* last packet that arrived CE-marked (0 = none) */
	struct proxy_cnp_qp cnp; /* mechanism A per-QP state */
} __rte_cache_aligned;

static_assert(offsetof(struct flow_entry, bytes) == 64,
	      "a flow entry's first cache line holds what every packet touches");


struct flow_table {
	struct flow_entry *e;
	uint32_t mask; /* entries - 1 */
	uint64_t idle_ns;
};

/* Bytes of memory for ENTRIES (a power of two) entries. */
uint64_t flow_table_mem_size(uint32_t entries);

/* Set up over MEM; entries must be a power of two. */
void flow_table_init(struct flow_table *t, void *mem, uint32_t entries, uint64_t idle_ns);

/* Word i of a key; memcpy, not a cast: keys are written field by field (strict aliasing). */
static inline uint64_t
flow_key_word(const struct flow_key *k, unsigned int i)
{
	uint64_t w;

	memcpy(&w, (const uint8_t *)k + 8 * i, sizeof(w));
	return w;
}

/* The table's hash of a key (never 0). */
static inline uint32_t
flow_table_hash(const struct flow_key *k)
{
	uint32_t h = dp_crc32c_u64(flow_key_word(k, 0), 0x4c53); /* family, port, QPN */

	/* Words 1..4: the addresses; IPv4 only has the first half of each. */
	h = dp_crc32c_u64(flow_key_word(k, 1), h);
	h = dp_crc32c_u64(flow_key_word(k, 3), h);
	if (k->family != AF_INET) {
		h = dp_crc32c_u64(flow_key_word(k, 2), h);
		h = dp_crc32c_u64(flow_key_word(k, 4), h);
	}
	return h != 0 ? h : 1; /* 0 marks an unused slot */
}

/*
 * Find or create the entry for key (whose flow_table_hash() is h) at now.
 * Returns NULL when every slot of the probe window holds a live flow.
 * *created tells a new entry.
 */
struct flow_entry *flow_table_get_hashed(struct flow_table *t, const struct flow_key *key,
					 uint32_t h, uint64_t now_ns, bool *created);

static inline struct flow_entry *
flow_table_get(struct flow_table *t, const struct flow_key *key, uint64_t now_ns, bool *created)
{
	return flow_table_get_hashed(t, key, flow_table_hash(key), now_ns, created);
}

/* Bring the first slot key's probe will read into the cache (hash h). */
static inline void
flow_table_prefetch(const struct flow_table *t, uint32_t h)
{
	rte_prefetch0(&t->e[h & t->mask]);
}

/* The live entry for key, or NULL; never creates. */
struct flow_entry *flow_table_find(struct flow_table *t, const struct flow_key *key,
				   uint64_t now_ns);

/* True when the entry holds a flow seen within the idle time. */
static inline bool
flow_entry_live(const struct flow_table *t, const struct flow_entry *e, uint64_t now_ns)
{
	return e->hash != 0 && now_ns - e->last_ns <= t->idle_ns;
}

#endif /* LONGSPAN_FLOW_H */
