/* SPDX-License-Identifier: BSD-3-Clause */
#include "hook_export.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* One flow of the aggregate. */
struct hook_export_flow {
	struct ls_hook_flow_key key;
	struct hook_flow_total total; /* since the flow appeared */
	struct hook_flow_total pending; /* since its last IPFIX record */
	uint64_t span_start_ns; /* first packet of the pending span, 0 = nothing pending */
	uint64_t last_record_ns; /* when its last record was cut (or it appeared) */
	uint32_t lcore_mask; /* sources that saw it */
	bool dirty; /* changed since the pinned map was last written */
};

/*
 * A slot seen as 64-bit words: the exporter reads each word with one
 * relaxed atomic load while a hook stores into it (aligned 8-byte stores
 * and loads do not tear), through the union rather than a cast.
 */
union hook_export_slot {
	struct ls_hook_flow_rec r;
	uint64_t w[sizeof(struct ls_hook_flow_rec) / 8];
};

#define HOOK_W(field) (offsetof(struct ls_hook_flow_rec, field) / 8)
static_assert(offsetof(struct ls_hook_flow_rec, pkts) % 8 == 0 &&
		      offsetof(struct ls_hook_flow_rec, tx_pkts) % 8 == 0 &&
		      offsetof(struct ls_hook_flow_rec, first_ns) % 8 == 0,
	      "words the exporter polls are whole");
/* hash shares word 0 with dest_qp: both are key. tx_drops shares a word with held. */
#define HOOK_W_TX_DROPS (offsetof(struct ls_hook_flow_rec, tx_drops) / 8)

/*
 * The large arrays (aggregate, index, shadows: tens of MB at 64k flows) are
 * mapped and populated at creation, so that no exporter interval pays for
 * first-touch page faults on the control thread (measured: ~1 s for 64k new
 * flows on a VM, ~10 ms populated).
 */
struct hook_export_mem {
	void *p;
	size_t bytes;
};

struct hook_export {
	struct hook_export_params p;
	char **peer_names, **port_names; /* copies */
	unsigned int n_src;
	struct hook_export_source src[HOOK_EXPORT_SOURCES_MAX];
	struct ls_hook_flow_rec *shadow[HOOK_EXPORT_SOURCES_MAX]; /* slot as of the last read */
	struct hook_export_mem shadow_mem[HOOK_EXPORT_SOURCES_MAX], flows_mem, index_mem;
	struct hook_export_mem upd_keys_mem, upd_vals_mem, del_keys_mem;
	/* The aggregate: dense entries, and an open-addressed index over them. */
	struct hook_export_flow *flows;
	uint32_t n_flows, max_flows;
	uint32_t *index; /* flows[] position + 1, 0 = empty */
	uint32_t index_mask;
	struct hook_flow_total gateway;
	struct hook_flow_total *peers, *ports;
	struct hook_maps *maps;
	hook_export_record_fn record;
	void *arg;
	struct hook_export_stats st;
	/* The pass in progress: next slot to read, time spent so far. */
	unsigned int cur_src;
	uint32_t cur_slot;
	uint64_t pass_ns;
	/* Batches for the pinned map. */
	struct ls_hook_flow_key *upd_keys, *del_keys;
	struct hook_flow_total *upd_vals;
	uint32_t n_upd, n_del;
};

static int hook_export_fail(char *err, size_t err_size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
hook_export_fail(char *err, size_t err_size, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && err_size > 0) {
		va_start(ap, fmt);
		vsnprintf(err, err_size, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static void *
hook_export_alloc(struct hook_export_mem *m, size_t n, size_t size)
{
	m->bytes = n * size;
	m->p = mmap(NULL, m->bytes > 0 ? m->bytes : 1, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (m->p == MAP_FAILED)
		m->p = NULL;
	return m->p;
}

static void
hook_export_unmap(struct hook_export_mem *m)
{
	if (m->p != NULL)
		munmap(m->p, m->bytes > 0 ? m->bytes : 1);
	m->p = NULL;
}

static char **
hook_export_names(const char *const *names, unsigned int n)
{
	char **c;
	unsigned int i;

	if (n == 0)
		return NULL;
	c = calloc(n, sizeof(*c));
	if (c == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		c[i] = strdup(names != NULL && names[i] != NULL ? names[i] : "");
		if (c[i] == NULL)
			return c; /* freed with the exporter; create checks */
	}
	return c;
}

static void
hook_export_free_names(char **c, unsigned int n)
{
	unsigned int i;

	if (c == NULL)
		return;
	for (i = 0; i < n; i++)
		free(c[i]);
	free(c);
}

struct hook_export *
hook_export_create(const struct hook_export_params *p, const struct hook_export_source *src,
		   unsigned int n, struct hook_maps *maps, hook_export_record_fn record, void *arg,
		   char *err, size_t err_size)
{
	struct hook_export *e;
	uint32_t cap = 1;
	unsigned int i;

	if (n == 0 || n > HOOK_EXPORT_SOURCES_MAX) {
		hook_export_fail(err, err_size, "%u flow maps (1 to %u)", n,
				 HOOK_EXPORT_SOURCES_MAX);
		return NULL;
	}
	if (p->max_flows == 0 || p->max_flows > (1u << 24) || p->top_k > HOOK_EXPORT_TOP_MAX ||
	    p->n_peers > HOOK_EXPORT_NAMES_MAX || p->n_ports > HOOK_EXPORT_NAMES_MAX ||
	    p->idle_timeout_ns == 0 || p->active_timeout_ns == 0) {
		hook_export_fail(err, err_size,
				 "bad parameters: max_flows %u, top_k %u (at most %u), %u peers, "
				 "%u ports (at most %u), timeouts must not be 0",
				 p->max_flows, p->top_k, HOOK_EXPORT_TOP_MAX, p->n_peers, p->n_ports,
				 HOOK_EXPORT_NAMES_MAX);
		return NULL;
	}
	while (cap < 2 * p->max_flows)
		cap <<= 1; /* index at most half full */
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		goto nomem;
	e->p = *p;
	e->n_src = n;
	e->max_flows = p->max_flows;
	e->index_mask = cap - 1;
	e->maps = maps;
	e->record = record;
	e->arg = arg;
	e->peer_names = hook_export_names(p->peer_names, p->n_peers);
	e->port_names = hook_export_names(p->port_names, p->n_ports);
	e->p.peer_names = (const char *const *)e->peer_names;
	e->p.port_names = (const char *const *)e->port_names;
	e->flows = hook_export_alloc(&e->flows_mem, p->max_flows, sizeof(*e->flows));
	e->index = hook_export_alloc(&e->index_mem, cap, sizeof(*e->index));
	e->peers = calloc(p->n_peers + 1, sizeof(*e->peers));
	e->ports = calloc(p->n_ports + 1, sizeof(*e->ports));
	e->upd_keys = hook_export_alloc(&e->upd_keys_mem, p->max_flows, sizeof(*e->upd_keys));
	e->upd_vals = hook_export_alloc(&e->upd_vals_mem, p->max_flows, sizeof(*e->upd_vals));
	e->del_keys = hook_export_alloc(&e->del_keys_mem, p->max_flows, sizeof(*e->del_keys));
	if (e->flows == NULL || e->index == NULL || e->peers == NULL || e->ports == NULL ||
	    e->upd_keys == NULL || e->upd_vals == NULL || e->del_keys == NULL ||
	    (p->n_peers > 0 && e->peer_names == NULL) || (p->n_ports > 0 && e->port_names == NULL))
		goto nomem;
	for (i = 0; i < p->n_peers; i++)
		if (e->peer_names[i] == NULL)
			goto nomem;
	for (i = 0; i < p->n_ports; i++)
		if (e->port_names[i] == NULL)
			goto nomem;
	for (i = 0; i < n; i++) {
		e->src[i] = src[i];
		e->shadow[i] = hook_export_alloc(&e->shadow_mem[i], src[i].n_slots,
						 sizeof(struct ls_hook_flow_rec));
		if (e->shadow[i] == NULL)
			goto nomem;
	}
	return e;
nomem:
	hook_export_free(e);
	hook_export_fail(err, err_size, "out of memory for %u flows", p->max_flows);
	return NULL;
}

void
hook_export_free(struct hook_export *e)
{
	unsigned int i;

	if (e == NULL)
		return;
	for (i = 0; i < HOOK_EXPORT_SOURCES_MAX; i++)
		hook_export_unmap(&e->shadow_mem[i]);
	hook_export_free_names(e->peer_names, e->p.n_peers);
	hook_export_free_names(e->port_names, e->p.n_ports);
	hook_export_unmap(&e->flows_mem);
	hook_export_unmap(&e->index_mem);
	free(e->peers);
	free(e->ports);
	hook_export_unmap(&e->upd_keys_mem);
	hook_export_unmap(&e->upd_vals_mem);
	hook_export_unmap(&e->del_keys_mem);
	free(e);
}

/* --- the aggregate's index --- */

static uint32_t
hook_export_slot_of(const struct hook_export *e, const struct ls_hook_flow_key *k)
{
	/* The flow hash is a CRC; spread it over the index (Fibonacci hashing). */
	return (uint32_t)(((uint64_t)k->hash * 0x9e3779b97f4a7c15ull) >> 32) & e->index_mask;
}

static bool
hook_key_eq(const struct ls_hook_flow_key *a, const struct ls_hook_flow_key *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* Index slot holding flow KEY, or of the empty slot where it would go. */
static uint32_t
hook_export_probe(const struct hook_export *e, const struct ls_hook_flow_key *k)
{
	uint32_t i = hook_export_slot_of(e, k);

	while (e->index[i] != 0 && !hook_key_eq(&e->flows[e->index[i] - 1].key, k))
		i = (i + 1) & e->index_mask;
	return i;
}

static struct hook_export_flow *
hook_export_get(struct hook_export *e, const struct ls_hook_flow_key *k, uint64_t now_ns,
		bool *created)
{
	uint32_t i = hook_export_probe(e, k);
	struct hook_export_flow *f;

	*created = false;
	if (e->index[i] != 0)
		return &e->flows[e->index[i] - 1];
	if (e->n_flows == e->max_flows)
		return NULL;
	f = &e->flows[e->n_flows++];
	memset(f, 0, sizeof(*f));
	f->key = *k;
	f->last_record_ns = now_ns;
	e->index[i] = e->n_flows;
	*created = true;
	return f;
}

/* Remove dense entry pos: backward-shift delete in the index, swap-remove in flows[]. */
static void
hook_export_remove(struct hook_export *e, uint32_t pos)
{
	uint32_t i = hook_export_probe(e, &e->flows[pos].key), j = i, last = e->n_flows - 1;

	e->index[i] = 0;
	for (;;) {
		uint32_t home;

		j = (j + 1) & e->index_mask;
		if (e->index[j] == 0)
			break;
		home = hook_export_slot_of(e, &e->flows[e->index[j] - 1].key);
		/* Move j back to the hole i unless its home lies in (i, j]. */
		if (((j - home) & e->index_mask) >= ((j - i) & e->index_mask)) {
			e->index[i] = e->index[j];
			e->index[j] = 0;
			i = j;
		}
	}
	if (pos != last) {
		e->flows[pos] = e->flows[last];
		e->index[hook_export_probe(e, &e->flows[pos].key)] = pos + 1;
	}
	e->n_flows--;
}

/* --- reading slots --- */

static uint64_t
hook_load_word(const union hook_export_slot *s, size_t w)
{
	return __atomic_load_n(&s->w[w], __ATOMIC_RELAXED);
}

/* cur = slot, word by word; false when the slot changed hands meanwhile. */
static bool
hook_export_read_slot(const struct ls_hook_flow_rec *slot, struct ls_hook_flow_rec *cur)
{
	const union hook_export_slot *s = (const union hook_export_slot *)(const void *)slot;
	union hook_export_slot *c = (union hook_export_slot *)(void *)cur;
	size_t i;

	for (i = 0; i < sizeof(c->w) / sizeof(c->w[0]); i++)
		c->w[i] = hook_load_word(s, i);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return hook_load_word(s, 0) == c->w[0] &&
	       hook_load_word(s, HOOK_W(first_ns)) == c->w[HOOK_W(first_ns)];
}

/* d = cur - base, counter by counter (the u32 ones wrap). */
static void
hook_export_delta(struct hook_flow_total *d, const struct ls_hook_flow_rec *c,
		  const struct ls_hook_flow_rec *b)
{
	unsigned int k;

	memset(d, 0, sizeof(*d));
#define D64(f) d->f = c->f - b->f
#define D32(f) d->f = (uint32_t)(c->f - b->f)
	D64(pkts);
	D64(bytes);
	D64(ect_pkts);
	D64(ce_pkts);
	D32(cnp_seen);
	D32(cnp_generated);
	D32(psn_gaps);
	D32(psn_skipped);
	D32(psn_ooo);
	D32(retrans);
	D32(naks);
	D32(rnr_naks);
	D32(marked);
	D32(held);
	D64(tx_pkts);
	D64(tx_bytes);
	D32(tx_drops);
	D64(sojourn_sum_ns);
	for (k = 0; k < LS_HOOK_SOJOURN_BUCKETS; k++)
		D32(sojourn_hist[k]);
#undef D64
#undef D32
}
static_assert(HOOK_FLOW_TOTAL_N_COUNTERS == 18 + LS_HOOK_SOJOURN_BUCKETS,
	      "hook_export_delta() takes every counter of a record");

/* t += d over the counters. */
static void
hook_total_add(struct hook_flow_total *t, const struct hook_flow_total *d)
{
#define HOOK_ADD(type, name, dim, desc)                                                           \
	{                                                                                         \
		uint64_t *a = (uint64_t *)(void *)&t->name;                                       \
		const uint64_t *b = (const uint64_t *)(const void *)&d->name;                     \
		size_t i;                                                                         \
                                                                                                  \
		for (i = 0; i < sizeof(t->name) / sizeof(*a); i++)                                \
			a[i] += b[i];                                                             \
	}
	HOOK_FLOW_TOTAL_COUNTERS(HOOK_ADD)
#undef HOOK_ADD
}

static bool
hook_total_any(const struct hook_flow_total *t)
{
	return t->pkts != 0 || t->tx_pkts != 0 || t->tx_drops != 0;
}

static void
hook_export_one_slot(struct hook_export *e, unsigned int si, uint32_t slot, uint64_t now_ns)
{
	const union hook_export_slot *s =
		(const union hook_export_slot *)(const void *)&e->src[si].slots[slot];
	union hook_export_slot *sh = (union hook_export_slot *)(void *)&e->shadow[si][slot];
	static const struct ls_hook_flow_rec zero;
	struct ls_hook_flow_rec cur;
	const struct ls_hook_flow_rec *base;
	struct ls_hook_flow_key key;
	struct hook_flow_total d;
	struct hook_export_flow *f;
	bool same, created;

	/* Cheap test first: word 0 (hash, QP) and the packet counters of both points. */
	if (hook_load_word(s, 0) == 0)
		return;
	if (hook_load_word(s, 0) == sh->w[0] && hook_load_word(s, HOOK_W(pkts)) == sh->w[HOOK_W(pkts)] &&
	    hook_load_word(s, HOOK_W(tx_pkts)) == sh->w[HOOK_W(tx_pkts)] &&
	    hook_load_word(s, HOOK_W_TX_DROPS) == sh->w[HOOK_W_TX_DROPS])
		return;
	if (!hook_export_read_slot(&s->r, &cur) || cur.hash == 0) {
		e->st.slots_torn++;
		return;
	}
	same = memcmp(&cur, &sh->r, LS_HOOK_KEY_BYTES) == 0 && cur.first_ns == sh->r.first_ns;
	base = same ? &sh->r : &zero;
	hook_export_delta(&d, &cur, base);
	if (!hook_total_any(&d)) {
		sh->r = cur;
		return;
	}
	memcpy(&key, &cur, sizeof(key));
	f = hook_export_get(e, &key, now_ns, &created);
	if (f == NULL) {
		e->st.aggregate_full++; /* shadow kept: the change is taken when room frees */
		return;
	}
	e->st.slots_changed++;
	if (created) {
		e->st.flows_started++;
		f->total.peer = LS_HOOK_NO_PEER;
	}
	hook_total_add(&f->total, &d);
	hook_total_add(&f->pending, &d);
	if (f->span_start_ns == 0)
		f->span_start_ns = same && sh->r.last_ns != 0 ? sh->r.last_ns : cur.first_ns;
	if (f->total.first_ns == 0 || cur.first_ns < f->total.first_ns)
		f->total.first_ns = cur.first_ns;
	if (cur.last_ns > f->total.last_ns)
		f->total.last_ns = cur.last_ns;
	if (d.pkts > 0) {
		f->total.port = cur.port;
		f->total.peer = cur.peer;
		f->total.dscp = cur.dscp;
	}
	f->lcore_mask |= 1u << si;
	f->total.lcores = (uint8_t)__builtin_popcount(f->lcore_mask);
	f->dirty = true;
	hook_total_add(&e->gateway, &d);
	if (cur.peer < e->p.n_peers)
		hook_total_add(&e->peers[cur.peer], &d);
	if (cur.port < e->p.n_ports)
		hook_total_add(&e->ports[cur.port], &d);
	sh->r = cur;
}

/* --- records and the pinned map --- */

static void
hook_export_cut(struct hook_export *e, struct hook_export_flow *f, uint8_t reason, uint64_t now_ns)
{
	struct hook_export_record r;

	if (!hook_total_any(&f->pending))
		return;
	memset(&r, 0, sizeof(r));
	r.key = f->key;
	r.delta = f->pending;
	r.start_ns = f->span_start_ns;
	r.end_ns = f->total.last_ns;
	r.reason = reason;
	r.port = f->total.port;
	r.peer = f->total.peer;
	r.dscp = f->total.dscp;
	if (e->record != NULL)
		e->record(e->arg, &r);
	e->st.records++;
	memset(&f->pending, 0, sizeof(f->pending));
	f->span_start_ns = 0;
	f->last_record_ns = now_ns;
}

static void
hook_export_write_map(struct hook_export *e)
{
	if (e->maps == NULL || e->maps->totals.fd < 0) {
		e->n_upd = e->n_del = 0;
		return;
	}
	if (e->n_del > 0) {
		if (hook_maps_totals_delete(e->maps, e->del_keys, e->n_del) == 0)
			e->st.map_deletes += e->n_del;
		else
			e->st.map_errors++;
	}
	if (e->n_upd > 0) {
		if (hook_maps_totals_update(e->maps, e->upd_keys, e->upd_vals, e->n_upd) == 0)
			e->st.map_updates += e->n_upd;
		else
			e->st.map_errors++;
	}
	e->n_upd = e->n_del = 0;
}

static uint64_t
hook_export_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The end of a pass: timeouts, then the pinned map. */
static void
hook_export_finish(struct hook_export *e, uint64_t now_ns)
{
	uint32_t i = 0;

	while (i < e->n_flows) {
		struct hook_export_flow *f = &e->flows[i];

		if (now_ns > f->total.last_ns && now_ns - f->total.last_ns > e->p.idle_timeout_ns) {
			hook_export_cut(e, f, HOOK_EXPORT_IDLE, now_ns);
			e->del_keys[e->n_del++] = f->key;
			e->st.flows_ended++;
			hook_export_remove(e, i);
			continue; /* another flow moved into position i */
		}
		if (now_ns - f->last_record_ns >= e->p.active_timeout_ns)
			hook_export_cut(e, f, HOOK_EXPORT_ACTIVE, now_ns);
		if (f->dirty) {
			e->upd_keys[e->n_upd] = f->key;
			e->upd_vals[e->n_upd] = f->total;
			e->n_upd++;
			f->dirty = false;
		}
		i++;
	}
	hook_export_write_map(e);
}

bool
hook_export_step(struct hook_export *e, uint64_t now_ns, uint32_t max_slots)
{
	uint64_t t0 = hook_export_mono_ns();

	while (max_slots > 0 && e->cur_src < e->n_src) {
		uint32_t n = e->src[e->cur_src].n_slots - e->cur_slot, end;

		if (n > max_slots)
			n = max_slots;
		for (end = e->cur_slot + n; e->cur_slot < end; e->cur_slot++)
			hook_export_one_slot(e, e->cur_src, e->cur_slot, now_ns);
		max_slots -= n;
		if (e->cur_slot == e->src[e->cur_src].n_slots) {
			e->cur_src++;
			e->cur_slot = 0;
		}
	}
	if (e->cur_src < e->n_src) {
		e->pass_ns += hook_export_mono_ns() - t0;
		return false;
	}
	hook_export_finish(e, now_ns);
	e->st.ticks++;
	e->st.last_tick_ns = e->pass_ns + (hook_export_mono_ns() - t0);
	e->pass_ns = 0;
	e->cur_src = 0;
	return true;
}

void
hook_export_tick(struct hook_export *e, uint64_t now_ns)
{
	while (!hook_export_step(e, now_ns, UINT32_MAX))
		;
}

void
hook_export_flush(struct hook_export *e, uint64_t now_ns)
{
	uint32_t i;

	for (i = 0; i < e->n_flows; i++)
		hook_export_cut(e, &e->flows[i], HOOK_EXPORT_FORCED, now_ns);
}

/* --- views --- */

const struct hook_export_stats *
hook_export_stats(const struct hook_export *e)
{
	return &e->st;
}

const struct hook_export_params *
hook_export_params(const struct hook_export *e)
{
	return &e->p;
}

uint32_t
hook_export_n_flows(const struct hook_export *e)
{
	return e->n_flows;
}

const struct hook_flow_total *
hook_export_gateway(const struct hook_export *e)
{
	return &e->gateway;
}

const struct hook_flow_total *
hook_export_peer(const struct hook_export *e, unsigned int peer)
{
	return peer < e->p.n_peers ? &e->peers[peer] : NULL;
}

const struct hook_flow_total *
hook_export_port(const struct hook_export *e, unsigned int port)
{
	return port < e->p.n_ports ? &e->ports[port] : NULL;
}

uint32_t
hook_export_flows(const struct hook_export *e, uint32_t first, uint32_t n,
		  struct hook_export_flow_view *out)
{
	uint32_t i;

	if (first >= e->n_flows)
		return 0;
	if (n > e->n_flows - first)
		n = e->n_flows - first;
	for (i = 0; i < n; i++) {
		out[i].key = &e->flows[first + i].key;
		out[i].total = &e->flows[first + i].total;
	}
	return n;
}

/* Min-heap on bytes (ties: the lower flow hash is smaller, for a stable order). */
static bool
hook_top_less(const struct hook_export_flow *a, const struct hook_export_flow *b)
{
	if (a->total.bytes != b->total.bytes)
		return a->total.bytes < b->total.bytes;
	return memcmp(&a->key, &b->key, sizeof(a->key)) > 0;
}

static void
hook_top_sift_down(const struct hook_export_flow **h, unsigned int n, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, m = i;
		const struct hook_export_flow *t;

		if (l < n && hook_top_less(h[l], h[m]))
			m = l;
		if (r < n && hook_top_less(h[r], h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

unsigned int
hook_export_top(const struct hook_export *e, unsigned int k, struct hook_export_flow_view *out)
{
	const struct hook_export_flow *h[HOOK_EXPORT_TOP_MAX];
	unsigned int n = 0, i;
	uint32_t f;

	if (k > HOOK_EXPORT_TOP_MAX)
		k = HOOK_EXPORT_TOP_MAX;
	if (k == 0)
		return 0;
	for (f = 0; f < e->n_flows; f++) {
		const struct hook_export_flow *x = &e->flows[f];

		if (n < k) {
			h[n++] = x;
			if (n == k)
				for (i = k / 2; i-- > 0;)
					hook_top_sift_down(h, n, i);
		} else if (hook_top_less(h[0], x)) {
			h[0] = x;
			hook_top_sift_down(h, n, 0);
		}
	}
	if (n < k)
		for (i = n / 2; i-- > 0;)
			hook_top_sift_down(h, n, i);
	/* Pop the smallest into the back: most bytes first. */
	for (i = n; i-- > 0;) {
		out[i].key = &h[0]->key;
		out[i].total = &h[0]->total;
		h[0] = h[i];
		hook_top_sift_down(h, i, 0);
	}
	return n;
}

uint64_t
hook_export_bucket_ns(unsigned int k)
{
	if (k >= LS_HOOK_SOJOURN_BUCKETS - 1)
		return 1ull << (LS_HOOK_SOJOURN_SHIFT + LS_HOOK_SOJOURN_BUCKETS - 2);
	return 1ull << (LS_HOOK_SOJOURN_SHIFT + k);
}

uint64_t
hook_export_sojourn_pct_ns(const uint64_t hist[LS_HOOK_SOJOURN_BUCKETS], unsigned int p)
{
	uint64_t n = 0, seen = 0, want;
	unsigned int k;

	for (k = 0; k < LS_HOOK_SOJOURN_BUCKETS; k++)
		n += hist[k];
	if (n == 0)
		return 0;
	/* The smallest bucket holding at least p% of the samples (nearest rank). */
	want = (n * p + 99) / 100;
	for (k = 0; k < LS_HOOK_SOJOURN_BUCKETS; k++) {
		seen += hist[k];
		if (seen >= want)
			return hook_export_bucket_ns(k);
	}
	return hook_export_bucket_ns(LS_HOOK_SOJOURN_BUCKETS - 1);
}
