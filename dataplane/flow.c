/* SPDX-License-Identifier: BSD-3-Clause */
#include "flow.h"

#include <assert.h>
#include <string.h>
#include <sys/socket.h>

static_assert(sizeof(struct flow_key) == 40, "flow_key is hashed as five 8-byte words");

uint64_t
flow_table_mem_size(uint32_t entries)
{
	return (uint64_t)entries * sizeof(struct flow_entry);
}

void
flow_table_init(struct flow_table *t, void *mem, uint32_t entries, uint64_t idle_ns)
{
	memset(mem, 0, flow_table_mem_size(entries));
	t->e = mem;
	t->mask = entries - 1;
	t->idle_ns = idle_ns;
}

static inline bool
flow_key_eq(const struct flow_key *a, const struct flow_key *b)
{
	uint64_t d = 0;
	unsigned int i;

	for (i = 0; i < 5; i++)
		d |= flow_key_word(a, i) ^ flow_key_word(b, i);
	return d == 0;
}

struct flow_entry *
flow_table_get_hashed(struct flow_table *t, const struct flow_key *key, uint32_t h,
		      uint64_t now_ns, bool *created)
{
	struct flow_entry *reuse = NULL;
	unsigned int i;

	*created = false;
	for (i = 0; i < FLOW_PROBE_MAX; i++) {
		struct flow_entry *e = &t->e[(h + i) & t->mask];

		if (e->hash == h && flow_key_eq(&e->key, key)) {
			if (!flow_entry_live(t, e, now_ns)) {
				reuse = e; /* same key after a long silence: start afresh */
				break;
			}
			e->last_ns = now_ns;
			return e;
		}
		if (e->hash == 0) {
			if (reuse == NULL)
				reuse = e;
			break; /* the key cannot be further along */
		}
		if (reuse == NULL && !flow_entry_live(t, e, now_ns))
			reuse = e;
	}
	if (reuse == NULL)
		return NULL;
	memset(reuse, 0, sizeof(*reuse));
	reuse->key = *key;
	reuse->hash = h;
	reuse->first_ns = now_ns;
	reuse->last_ns = now_ns;
	proxy_cnp_qp_init(&reuse->cnp);
	*created = true;
	return reuse;
}

struct flow_entry *
flow_table_find(struct flow_table *t, const struct flow_key *key, uint64_t now_ns)
{
	uint32_t h = flow_table_hash(key);
	unsigned int i;

	for (i = 0; i < FLOW_PROBE_MAX; i++) {
		struct flow_entry *e = &t->e[(h + i) & t->mask];

		if (e->hash == 0)
			return NULL;
		if (e->hash == h && flow_key_eq(&e->key, key))
			return flow_entry_live(t, e, now_ns) ? e : NULL;
	}
	return NULL;
}
