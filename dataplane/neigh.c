/* SPDX-License-Identifier: BSD-3-Clause */
#include "neigh.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_hash_crc.h>

static inline uint32_t
neigh_addr_len(uint8_t family)
{
	return family == AF_INET ? 4 : 16;
}

static inline uint32_t
neigh_slot(uint8_t family, const uint8_t *ip)
{
	/* rte_hash_crc() loads 8 and 4 bytes at a time: hand it aligned memory. */
	uint64_t key[2];

	memcpy(key, ip, neigh_addr_len(family));
	return rte_hash_crc(key, neigh_addr_len(family), family) & (NEIGH_TABLE_SIZE - 1);
}

static inline bool
neigh_key_eq(const struct neigh_entry *e, uint8_t family, const uint8_t *ip)
{
	return e->family == family && memcmp(e->ip, ip, neigh_addr_len(family)) == 0;
}

enum neigh_result
neigh_lookup(const struct neigh_table *t, uint8_t family, const uint8_t *ip,
	     struct rte_ether_addr *mac)
{
	uint32_t slot = neigh_slot(family, ip);
	unsigned int i;

	for (i = 0; i < NEIGH_PROBE_MAX; i++) {
		const struct neigh_entry *e = &t->e[(slot + i) & (NEIGH_TABLE_SIZE - 1)];
		uint32_t sn;
		uint8_t state;
		bool match;

		do {
			sn = rte_seqcount_read_begin(&e->sc);
			state = e->state;
			match = state != NEIGH_FREE && neigh_key_eq(e, family, ip);
			*mac = e->mac;
		} while (rte_seqcount_read_retry(&e->sc, sn));
		if (state == NEIGH_FREE)
			return NEIGH_ABSENT; /* entries are only freed by aging, which rehashes */
		if (match)
			return state == NEIGH_INCOMPLETE ? NEIGH_PENDING : NEIGH_HIT;
	}
	return NEIGH_ABSENT;
}

void
neigh_init(struct neigh_table *t)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < NEIGH_TABLE_SIZE; i++)
		rte_seqcount_init(&t->e[i].sc);
}

struct neigh_entry *
neigh_find(struct neigh_table *t, uint8_t family, const uint8_t *ip)
{
	uint32_t slot = neigh_slot(family, ip);
	unsigned int i;

	for (i = 0; i < NEIGH_PROBE_MAX; i++) {
		struct neigh_entry *e = &t->e[(slot + i) & (NEIGH_TABLE_SIZE - 1)];

		if (e->state == NEIGH_FREE)
			return NULL;
		if (neigh_key_eq(e, family, ip))
			return e;
	}
	return NULL;
}

struct neigh_entry *
neigh_get_or_create(struct neigh_table *t, uint8_t family, const uint8_t *ip)
{
	uint32_t slot = neigh_slot(family, ip);
	unsigned int i;

	for (i = 0; i < NEIGH_PROBE_MAX; i++) {
		struct neigh_entry *e = &t->e[(slot + i) & (NEIGH_TABLE_SIZE - 1)];

		if (e->state != NEIGH_FREE && neigh_key_eq(e, family, ip))
			return e;
		if (e->state == NEIGH_FREE) {
			rte_seqcount_write_begin(&e->sc);
			memset(e->ip, 0, sizeof(e->ip));
			memcpy(e->ip, ip, neigh_addr_len(family));
			e->family = family;
			e->state = NEIGH_INCOMPLETE;
			memset(&e->mac, 0, sizeof(e->mac));
			rte_seqcount_write_end(&e->sc);
			e->requested_ns = 0;
			e->requests = 0;
			e->updated_ns = 0;
			return e;
		}
	}
	return NULL;
}

int
neigh_update(struct neigh_table *t, uint8_t family, const uint8_t *ip,
	     const struct rte_ether_addr *mac, bool is_static, uint64_t now_ns)
{
	struct neigh_entry *e = neigh_get_or_create(t, family, ip);

	if (e == NULL)
		return -ENOSPC;
	/* A learned answer never overrides an operator's static entry. */
	if (e->state == NEIGH_STATIC && !is_static)
		return 0;
	rte_seqcount_write_begin(&e->sc);
	e->mac = *mac;
	e->state = is_static ? NEIGH_STATIC : NEIGH_VALID;
	rte_seqcount_write_end(&e->sc);
	e->updated_ns = now_ns;
	e->requests = 0;
	return 1;
}

/*
 * Removing an entry from a linear-probe table would break the probe chain
 * of later entries, so aging collects the survivors and reinserts them.
 * Readers may miss an entry for the few microseconds this takes; they count
 * a neighbor_unresolved drop, never read a torn entry.
 */
unsigned int
neigh_age(struct neigh_table *t, uint64_t now_ns, uint64_t valid_timeout_ns,
	  uint64_t incomplete_timeout_ns)
{
	static struct neigh_entry keep[NEIGH_TABLE_SIZE];
	unsigned int i, n_keep = 0, removed = 0, start = 0;

	/*
	 * Survivors are reinserted in their original probe order, starting
	 * just after a slot that was free: no probe chain crosses a free slot,
	 * so every entry lands at or before its old place and stays within
	 * NEIGH_PROBE_MAX of its home.
	 */
	for (i = 0; i < NEIGH_TABLE_SIZE; i++)
		if (t->e[i].state == NEIGH_FREE) {
			start = (i + 1) & (NEIGH_TABLE_SIZE - 1);
			break;
		}
	for (i = 0; i < NEIGH_TABLE_SIZE; i++) {
		struct neigh_entry *e = &t->e[(start + i) & (NEIGH_TABLE_SIZE - 1)];

		if (e->state == NEIGH_FREE)
			continue;
		if (e->state == NEIGH_VALID && now_ns - e->updated_ns > valid_timeout_ns) {
			removed++;
			continue;
		}
		if (e->state == NEIGH_INCOMPLETE && now_ns - e->requested_ns > incomplete_timeout_ns) {
			removed++;
			continue;
		}
		keep[n_keep++] = *e;
	}
	if (removed == 0)
		return 0;
	for (i = 0; i < NEIGH_TABLE_SIZE; i++) {
		struct neigh_entry *e = &t->e[i];

		if (e->state == NEIGH_FREE)
			continue;
		rte_seqcount_write_begin(&e->sc);
		e->state = NEIGH_FREE;
		rte_seqcount_write_end(&e->sc);
	}
	for (i = 0; i < n_keep; i++) {
		struct neigh_entry *e = neigh_get_or_create(t, keep[i].family, keep[i].ip);

		if (e == NULL)
			continue;
		rte_seqcount_write_begin(&e->sc);
		e->mac = keep[i].mac;
		e->state = keep[i].state;
		rte_seqcount_write_end(&e->sc);
		e->updated_ns = keep[i].updated_ns;
		e->requested_ns = keep[i].requested_ns;
		e->requests = keep[i].requests;
	}
	return removed;
}
