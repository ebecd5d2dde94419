/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdalign.h>
#include <string.h>
#include <sys/socket.h>

#include "cc_time.h"
#include "qpn_learn.h"

#define PSN_HALF (UINT32_C(1) << 23) /* serial arithmetic horizon */

static const char *const qpn_learn_names[QPN_LEARN_RESULT_MAX] = {
#define QPN_LEARN_NAME(e, s) [QPN_LEARN_##e] = s,
	QPN_LEARN_RESULTS(QPN_LEARN_NAME)
#undef QPN_LEARN_NAME
};

const char *
qpn_learn_result_name(enum qpn_learn_result r)
{
	if ((unsigned int)r >= QPN_LEARN_RESULT_MAX)
		return "?";
	return qpn_learn_names[r];
}

size_t
qpn_learn_mem_size(size_t entries)
{
	return entries * sizeof(struct qpn_learn_entry);
}

int
qpn_learn_init(struct qpn_learn *t, void *mem, size_t entries, const struct qpn_learn_params *p)
{
	if (mem == NULL || entries == 0 || entries > (UINT32_C(1) << 31) ||
			(entries & (entries - 1)) != 0)
		return -EINVAL;
	if (((uintptr_t)mem % alignof(struct qpn_learn_entry)) != 0)
		return -EINVAL;
	if (p->idle_ns == 0 || p->max_probe == 0 || p->max_probe > entries ||
			p->psn_window == 0 || p->psn_window > PSN_HALF)
		return -EINVAL;

	memset(mem, 0, qpn_learn_mem_size(entries));
	t->slots = mem;
	t->mask = (uint32_t)(entries - 1);
	t->max_probe = p->max_probe;
	t->psn_window = p->psn_window;
	t->idle_ns = p->idle_ns;
	return 0;
}

static uint64_t
mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

static uint64_t
load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Hash of (family, src, dst); never 0, which marks a never-used slot. */
uint32_t
qpn_learn_pair_hash(uint8_t family, const uint8_t src[16], const uint8_t dst[16])
{
	uint64_t h;

	if (family == AF_INET) {
		/* 4-byte addresses: both fit one word, which mix64() maps one to one. */
		uint32_t s, d;

		memcpy(&s, src, sizeof(s));
		memcpy(&d, dst, sizeof(d));
		h = mix64(((uint64_t)d << 32 | s) ^ family);
	} else {
		h = family;
		h = mix64(h ^ load64(src));
		h = mix64(h ^ load64(src + 8));
		h = mix64(h ^ load64(dst));
		h = mix64(h ^ load64(dst + 8));
	}
	h = (uint32_t)(h >> 32) ^ (uint32_t)h;
	return h != 0 ? (uint32_t)h : 1;
}

static bool
entry_live(const struct qpn_learn *t, const struct qpn_learn_entry *e, uint64_t now)
{
	return e->pair_hash != 0 && cc_time_elapsed(now, e->last_seen_ns) <= t->idle_ns;
}

static bool
pair_eq(const struct qpn_learn_key *k, uint8_t family, const uint8_t src[16],
		const uint8_t dst[16])
{
	return k->family == family && memcmp(k->src, src, 16) == 0 &&
			memcmp(k->dst, dst, 16) == 0;
}

static bool
key_eq(const struct qpn_learn_key *a, const struct qpn_learn_key *b)
{
	return (a->dest_qpn & QPN_LEARN_PSN_MASK) == (b->dest_qpn & QPN_LEARN_PSN_MASK) &&
			pair_eq(a, b->family, b->src, b->dst);
}

static struct qpn_learn_entry *
slot(const struct qpn_learn *t, uint32_t hash, uint32_t i)
{
	return &t->slots[(hash + i) & t->mask];
}

/* Fold data PSN p into the entry's window (rules in qpn_learn.h). */
static void
window_update(const struct qpn_learn *t, struct qpn_learn_entry *e, uint32_t p)
{
	uint32_t ahead = (p - e->last_psn) & QPN_LEARN_PSN_MASK;
	uint32_t span = (e->last_psn - e->first_psn) & QPN_LEARN_PSN_MASK;
	uint32_t back;

	if (ahead == 0)
		return;
	if (ahead < PSN_HALF) {
		e->last_psn = p;
		if (span + ahead >= t->psn_window)
			e->first_psn = (p - t->psn_window + 1) & QPN_LEARN_PSN_MASK;
		return;
	}
	back = (e->last_psn - p) & QPN_LEARN_PSN_MASK;
	if (back <= span)
		return; /* a retransmission inside the window */
	if (back < t->psn_window) {
		e->first_psn = p; /* an older retransmission: extend down */
		return;
	}
	e->first_psn = p; /* a new connection reusing the key */
	e->last_psn = p;
	e->learned = 0;
}

static bool
window_has(const struct qpn_learn_entry *e, uint32_t p)
{
	return ((p - e->first_psn) & QPN_LEARN_PSN_MASK) <=
			((e->last_psn - e->first_psn) & QPN_LEARN_PSN_MASK);
}

enum qpn_learn_result
qpn_learn_on_data(struct qpn_learn *t, const struct qpn_learn_key *key, uint32_t psn,
		uint64_t now_ns, uint32_t *sender_qpn)
{
	uint32_t h = qpn_learn_pair_hash(key->family, key->src, key->dst);

	return qpn_learn_on_data_hashed(t, key, h, psn, now_ns, sender_qpn);
}

enum qpn_learn_result
qpn_learn_on_data_hashed(struct qpn_learn *t, const struct qpn_learn_key *key, uint32_t h,
		uint32_t psn, uint64_t now_ns, uint32_t *sender_qpn)
{
	struct qpn_learn_entry *free_slot = NULL;
	struct qpn_learn_entry *e;
	uint32_t i;

	psn &= QPN_LEARN_PSN_MASK;
	for (i = 0; i < t->max_probe; i++) {
		e = slot(t, h, i);
		if (e->pair_hash == 0) {
			if (free_slot == NULL)
				free_slot = e;
			break; /* never used: the key cannot be further on */
		}
		if (!entry_live(t, e, now_ns)) {
			if (free_slot == NULL)
				free_slot = e;
			continue;
		}
		if (e->pair_hash != h || !key_eq(&e->key, key))
			continue;
		window_update(t, e, psn);
		e->last_seen_ns = now_ns;
		e->key.sport = key->sport;
		if (!e->learned)
			return QPN_LEARN_DATA_UNKNOWN;
		if (sender_qpn != NULL)
			*sender_qpn = e->sender_qpn;
		return QPN_LEARN_DATA_KNOWN;
	}
	if (free_slot == NULL)
		return QPN_LEARN_DATA_FULL;

	e = free_slot;
	memset(e, 0, sizeof(*e));
	e->key.family = key->family;
	memcpy(e->key.src, key->src, sizeof(e->key.src));
	memcpy(e->key.dst, key->dst, sizeof(e->key.dst));
	e->key.dest_qpn = key->dest_qpn & QPN_LEARN_PSN_MASK;
	e->key.sport = key->sport;
	e->pair_hash = h;
	e->first_psn = psn;
	e->last_psn = psn;
	e->last_seen_ns = now_ns;
	return QPN_LEARN_DATA_UNKNOWN;
}

enum qpn_learn_result
qpn_learn_on_ack(struct qpn_learn *t, uint8_t family, const uint8_t ack_src[16],
		const uint8_t ack_dst[16], uint32_t ack_dest_qpn, uint32_t psn, uint64_t now_ns)
{
	/* The data flow went the other way: its source is the ACK's destination. */
	uint32_t h = qpn_learn_pair_hash(family, ack_dst, ack_src);
	struct qpn_learn_entry *match = NULL;
	unsigned int flows = 0, matches = 0;
	uint32_t i;

	psn &= QPN_LEARN_PSN_MASK;
	ack_dest_qpn &= QPN_LEARN_PSN_MASK;
	for (i = 0; i < t->max_probe; i++) {
		struct qpn_learn_entry *e = slot(t, h, i);

		if (e->pair_hash == 0)
			break;
		if (e->pair_hash != h || !entry_live(t, e, now_ns) ||
				!pair_eq(&e->key, family, ack_dst, ack_src))
			continue;
		flows++;
		if (window_has(e, psn)) {
			matches++;
			match = e;
		}
	}
	if (flows == 0)
		return QPN_LEARN_ACK_NO_FLOW;
	if (matches == 0)
		return QPN_LEARN_ACK_PSN_OUTSIDE;
	if (matches > 1)
		return QPN_LEARN_ACK_AMBIGUOUS;

	match->last_seen_ns = now_ns;
	if (!match->learned) {
		match->learned = 1;
		match->sender_qpn = ack_dest_qpn;
		return QPN_LEARN_ACK_LEARNED;
	}
	if (match->sender_qpn == ack_dest_qpn)
		return QPN_LEARN_ACK_CONFIRMED;
	match->sender_qpn = ack_dest_qpn;
	return QPN_LEARN_ACK_CHANGED;
}

const struct qpn_learn_entry *
qpn_learn_lookup(const struct qpn_learn *t, const struct qpn_learn_key *key, uint64_t now_ns)
{
	uint32_t h = qpn_learn_pair_hash(key->family, key->src, key->dst);
	uint32_t i;

	for (i = 0; i < t->max_probe; i++) {
		const struct qpn_learn_entry *e = slot(t, h, i);

		if (e->pair_hash == 0)
			break;
		if (e->pair_hash == h && entry_live(t, e, now_ns) && key_eq(&e->key, key))
			return e;
	}
	return NULL;
}

const struct qpn_learn_entry *
qpn_learn_find_sender(const struct qpn_learn *t, uint8_t family, const uint8_t src[16],
		const uint8_t dst[16], uint32_t sender_qpn, uint64_t now_ns)
{
	uint32_t h = qpn_learn_pair_hash(family, src, dst);
	uint32_t i;

	sender_qpn &= QPN_LEARN_PSN_MASK;
	for (i = 0; i < t->max_probe; i++) {
		const struct qpn_learn_entry *e = slot(t, h, i);

		if (e->pair_hash == 0)
			break;
		if (e->pair_hash == h && e->learned && e->sender_qpn == sender_qpn &&
				entry_live(t, e, now_ns) && pair_eq(&e->key, family, src, dst))
			return e;
	}
	return NULL;
}

size_t
qpn_learn_count(const struct qpn_learn *t, uint64_t now_ns)
{
	size_t n = 0;
	uint64_t i;

	for (i = 0; i <= t->mask; i++)
		n += entry_live(t, &t->slots[i], now_ns);
	return n;
}
