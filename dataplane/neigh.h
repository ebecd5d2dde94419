/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_NEIGH_H
#define LONGSPAN_NEIGH_H

/*
 * Neighbour (ARP / IPv6 ND) table of one port.
 *
 * Ownership: the control thread is the only writer (learning from punted
 * ARP/ND, static entries from config, aging). Workers read entries under a
 * per-entry sequence counter (rte_seqcount), so a lookup never sees a torn
 * MAC and never takes a lock. The table has a fixed size and lives for the
 * whole run (it is not part of a config snapshot).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_seqcount.h>

#define NEIGH_TABLE_SIZE 1024 /* entries, power of two */
#define NEIGH_PROBE_MAX 16 /* linear probe limit */

enum neigh_state {
	NEIGH_FREE = 0,
	NEIGH_INCOMPLETE, /* resolution requested, no answer yet */
	NEIGH_VALID, /* learned, ages out */
	NEIGH_STATIC, /* from config, never ages */
};

struct neigh_entry {
	rte_seqcount_t sc;
	uint8_t state; /* enum neigh_state */
	uint8_t family; /* AF_INET / AF_INET6 */
	uint8_t ip[16]; /* IPv4 in the first 4 bytes */
	struct rte_ether_addr mac;
	/* Control-thread-only bookkeeping below. */
	uint64_t updated_ns;
	uint64_t requested_ns;
	uint32_t requests;
};

struct neigh_table {
	struct neigh_entry e[NEIGH_TABLE_SIZE];
};

enum neigh_result {
	NEIGH_HIT = 0, /* *mac is valid */
	NEIGH_PENDING, /* resolution in progress: drop, do not ask again */
	NEIGH_ABSENT, /* unknown: ask the control thread to resolve */
};

/* Worker side: look up ip; never blocks, never writes. */
enum neigh_result neigh_lookup(const struct neigh_table *t, uint8_t family, const uint8_t *ip,
			       struct rte_ether_addr *mac);

/* Control side. */
void neigh_init(struct neigh_table *t);
/*
 * Insert or update; returns 1 when the entry changed, 0 when a learned
 * answer was ignored because the entry is static, -ENOSPC when the probe
 * window is full.
 */
int neigh_update(struct neigh_table *t, uint8_t family, const uint8_t *ip,
		 const struct rte_ether_addr *mac, bool is_static, uint64_t now_ns);
/* Find the entry for ip (any state), NULL if absent. Control thread only. */
struct neigh_entry *neigh_find(struct neigh_table *t, uint8_t family, const uint8_t *ip);
/* Create an INCOMPLETE entry if absent; returns it or NULL when full. */
struct neigh_entry *neigh_get_or_create(struct neigh_table *t, uint8_t family, const uint8_t *ip);
/*
 * Free learned entries not refreshed for valid_timeout_ns and incomplete
 * ones unanswered for incomplete_timeout_ns; returns the number removed.
 */
unsigned int neigh_age(struct neigh_table *t, uint64_t now_ns, uint64_t valid_timeout_ns,
		       uint64_t incomplete_timeout_ns);

#endif /* LONGSPAN_NEIGH_H */
