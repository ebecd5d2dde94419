/* SPDX-License-Identifier: BSD-3-Clause */
#include "peering_hints.h"

#include <string.h>

#include "conf_addr.h"
#include "runtime.h"

/* Is A inside one of cfg's peer PEER's prefixes, configured or learned? */
static bool
peering_hints_from(const struct ls_runtime *rt, unsigned int peer, const struct conf_addr *a)
{
	const struct ls_peer_conf *pc = &rt->cfg->peers[peer];
	const struct runtime_learned_peer *lp;
	unsigned int i, j;

	for (i = 0; i < pc->n_prefixes; i++)
		if (conf_prefix_contains(&pc->prefixes[i], a))
			return true;
	lp = runtime_learned_find(rt->learned, pc->name);
	for (j = 0; lp != NULL && j < lp->n; j++)
		if (conf_prefix_contains(&lp->p[j], a))
			return true;
	return false;
}

/* A consistent copy of slot E, or false (free, unshaped, or changing). */
static bool
peering_hints_slot(const struct hold_entry *e, struct qpn_learn_key *key, uint64_t *rate_bps)
{
	uint32_t seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	enum trp_phase phase;
	bool used;

	if (seq & 1)
		return false;
	used = e->used;
	*key = e->key;
	phase = e->trp.phase;
	*rate_bps = phase == TRP_HOLD ? 0 : e->trp.rate_bps;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&e->seq, __ATOMIC_RELAXED) != seq)
		return false;
	return used && phase != TRP_INACTIVE;
}

void
peering_hints_collect(const struct ls_runtime *rt, unsigned int peer, struct peer_msg_hint *h,
		      uint64_t *left_out)
{
	memset(h, 0, sizeof(*h));
	h->kind = PEER_HINT_SHAPED_QPS;
	h->valid_ms = PEERING_HINT_VALID_MS;
	*left_out = 0;
	for (unsigned int w = 0; w < rt->n_workers; w++) {
		const struct hold_table *t = &rt->workers[w]->hold;

		for (unsigned int i = 0; i < HOLD_SLOTS; i++) {
			struct qpn_learn_key key;
			struct conf_addr src = { 0 };
			struct peer_msg_hint_qp *q;
			uint64_t rate;

			if (!peering_hints_slot(&t->e[i], &key, &rate))
				continue;
			src.family = key.family;
			memcpy(src.a, key.src, sizeof(src.a));
			if (!peering_hints_from(rt, peer, &src))
				continue;
			if (h->n_qps == PEER_MSG_HINT_QPS_MAX) {
				(*left_out)++;
				continue;
			}
			q = &h->qps[h->n_qps++];
			q->dst.family = key.family;
			memcpy(q->dst.a, key.dst, sizeof(q->dst.a));
			q->qpn = key.dest_qpn & 0xffffff;
			q->rate_bps = rate;
		}
	}
}
