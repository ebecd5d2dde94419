/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * show flows: the live per-QP RoCE flows of every worker's flow table,
 * sorted and paged without copying the tables (a heap of references).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "api.h"
#include "api_cmds.h"
#include "runtime.h"
#include "dataplane/flow.h"

/*
 * Columns of a flow row: JSON key, text title and text width. Rows emit
 * their members in this order (api_flow_emit), the header is built from
 * the same table, so the two cannot disagree on widths.
 */
enum api_flow_col {
	API_FLOW_WORKER = 0,
	API_FLOW_DIR,
	API_FLOW_CLASS,
	API_FLOW_SRC,
	API_FLOW_DST,
	API_FLOW_SPORT,
	API_FLOW_DEST_QPN,
	API_FLOW_SENDER_QPN,
	API_FLOW_PEER,
	API_FLOW_PKTS,
	API_FLOW_BYTES,
	API_FLOW_RATE,
	API_FLOW_ECT_IN,
	API_FLOW_CE_IN,
	API_FLOW_MARKED,
	API_FLOW_PSN_OOO,
	API_FLOW_CNP_SENT,
	API_FLOW_CNP_SUPPRESSED,
	API_FLOW_CNP_NO_QPN,
	API_FLOW_AGE,
	API_FLOW_IDLE,
	API_FLOW_FIRST_MARK,
	API_FLOW_FIRST_CNP,
	API_FLOW_COLS
};

static const struct {
	const char *key;
	const char *title;
	unsigned int width; /* text characters */
	bool left; /* a string column: left-aligned */
} api_flow_cols[API_FLOW_COLS] = {
	[API_FLOW_WORKER] = { "worker", "w", 2, false },
	[API_FLOW_DIR] = { "dir", "dir", 7, true },
	[API_FLOW_CLASS] = { "class", "class", 9, true },
	[API_FLOW_SRC] = { "src", "src", 15, true },
	[API_FLOW_DST] = { "dst", "dst", 15, true },
	[API_FLOW_SPORT] = { "sport", "sport", 5, false },
	[API_FLOW_DEST_QPN] = { "dest_qpn", "dqpn", 8, false },
	[API_FLOW_SENDER_QPN] = { "sender_qpn", "sqpn", 8, false },
	[API_FLOW_PEER] = { "peer", "peer", 10, true },
	[API_FLOW_PKTS] = { "pkts", "pkts", 10, false },
	[API_FLOW_BYTES] = { "bytes", "bytes", 12, false },
	[API_FLOW_RATE] = { "rate_bps", "rate_bps", 12, false },
	[API_FLOW_ECT_IN] = { "ect_in", "ect_in", 10, false },
	[API_FLOW_CE_IN] = { "ce_in", "ce_in", 8, false },
	[API_FLOW_MARKED] = { "marked", "marked", 8, false },
	[API_FLOW_PSN_OOO] = { "psn_ooo", "psn_ooo", 8, false },
	[API_FLOW_CNP_SENT] = { "cnp_sent", "cnp", 7, false },
	[API_FLOW_CNP_SUPPRESSED] = { "cnp_suppressed", "cnp_sup", 7, false },
	[API_FLOW_CNP_NO_QPN] = { "cnp_no_qpn", "cnp_noq", 7, false },
	[API_FLOW_AGE] = { "age_ms", "age_ms", 9, false },
	[API_FLOW_IDLE] = { "idle_ms", "idle_ms", 7, false },
	/* Wall-clock ns of the first gateway mark / CNP: the lab's feedback loop. */
	[API_FLOW_FIRST_MARK] = { "first_mark_ns", "first_mark_ns", 19, false },
	[API_FLOW_FIRST_CNP] = { "first_cnp_ns", "first_cnp_ns", 19, false },
};

#define API_FLOW_RANK_WIDTH 6 /* text key column: the flow's rank in the sort */

/* Set the text width of column C for the next member; returns its key. */
static const char *
api_flow_col(struct fmt *f, enum api_flow_col c)
{
	fmt_width(f, api_flow_cols[c].width);
	return api_flow_cols[c].key;
}

static void
api_flow_header(struct fmt *f)
{
	char line[512];
	size_t length;
	unsigned int c;

	length = (size_t)snprintf(line, sizeof(line), "%-*s", API_FLOW_RANK_WIDTH, "#");
	for (c = 0; c < API_FLOW_COLS && length < sizeof(line); c++) {
		/* The same spacing as the text backend: 2 before strings, 1 before numbers. */
		int width = (int)api_flow_cols[c].width;

		length += (size_t)snprintf(line + length, sizeof(line) - length,
					   api_flow_cols[c].left ? "  %-*s" : " %*s", width,
					   api_flow_cols[c].title);
	}
	fmt_notef(f, "%s", line);
}

enum api_flow_sort {
	API_FLOW_SORT_BYTES = 0,
	API_FLOW_SORT_PKTS,
	API_FLOW_SORT_RATE,
	API_FLOW_SORT_CE,
	API_FLOW_SORT_CNP,
	API_FLOW_SORT_MAX
};

static const char *const api_flow_sort_names[API_FLOW_SORT_MAX] = {
	[API_FLOW_SORT_BYTES] = "bytes", [API_FLOW_SORT_PKTS] = "pkts",
	[API_FLOW_SORT_RATE] = "rate",	 [API_FLOW_SORT_CE] = "ce",
	[API_FLOW_SORT_CNP] = "cnp",
};

/* What a request selects and how it orders. */
struct api_flow_query {
	enum api_flow_sort sort;
	int dir; /* enum flow_dir, or -1 for both */
	int peer; /* index into rt->dp->peers, or -1 for all */
};

/*
 * One selected flow while sorting: 24 bytes instead of a whole entry, so
 * a deep page of a large table stays cheap. hash tells whether the slot
 * still holds the same flow when its line is printed.
 */
struct api_flow_ref {
	uint64_t value; /* the sort key */
	uint32_t slot;
	uint32_t hash;
	uint16_t worker;
};

/* True when A sorts before B: larger value first, then worker and slot. */
static bool
api_flow_before(const struct api_flow_ref *a, const struct api_flow_ref *b)
{
	if (a->value != b->value)
		return a->value > b->value;
	if (a->worker != b->worker)
		return a->worker < b->worker;
	return a->slot < b->slot;
}

static int
api_flow_cmp(const void *a, const void *b)
{
	if (api_flow_before(a, b))
		return -1;
	return api_flow_before(b, a) ? 1 : 0;
}

/*
 * A heap of the best K refs seen so far, its root the one that sorts
 * last, so a scan of the whole table keeps only what the page needs.
 */
struct api_flow_heap {
	struct api_flow_ref *ref;
	unsigned int n, k;
};

static void
api_flow_heap_down(struct api_flow_heap *h, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, last = i;
		struct api_flow_ref tmp;

		if (l < h->n && api_flow_before(&h->ref[last], &h->ref[l]))
			last = l;
		if (r < h->n && api_flow_before(&h->ref[last], &h->ref[r]))
			last = r;
		if (last == i)
			return;
		tmp = h->ref[i];
		h->ref[i] = h->ref[last];
		h->ref[last] = tmp;
		i = last;
	}
}

static void
api_flow_heap_add(struct api_flow_heap *h, const struct api_flow_ref *ref)
{
	unsigned int i;

	if (h->n < h->k) {
		/* Sift up: parents sort after their children. */
		for (i = h->n++; i > 0 && api_flow_before(&h->ref[(i - 1) / 2], ref);
		     i = (i - 1) / 2)
			h->ref[i] = h->ref[(i - 1) / 2];
		h->ref[i] = *ref;
	} else if (h->k > 0 && api_flow_before(ref, &h->ref[0])) {
		h->ref[0] = *ref;
		api_flow_heap_down(h, 0);
	}
}

/*
 * The worker's clock (dp_clock_now in worker.c) read from the control
 * thread: flow times are in it. 0 when the worker never started.
 */
static uint64_t
api_worker_now_ns(const struct dp_worker *w)
{
	uint64_t d;

	if (w->tsc_hz == 0)
		return 0;
	d = rte_rdtsc() - w->tsc_base;
	return w->ns_base + (uint64_t)(((unsigned __int128)d * 1000000000u) / w->tsc_hz);
}

/*
 * Copy slot I of table T and tell whether it holds a live flow at NOW. The
 * worker writes the entry meanwhile: the copy may mix two flows of a
 * reused slot, which is harmless for a report (flow.h), and a slot never
 * used (hash 0) is skipped.
 */
static bool
api_flow_copy(const struct flow_table *t, uint32_t i, uint64_t now_ns, struct flow_entry *e)
{
	memcpy(e, &t->e[i], sizeof(*e));
	/* The worker's clock may be a little ahead of ours: not idle then. */
	return e->hash != 0 && flow_entry_live(t, e, RTE_MAX(now_ns, e->last_ns));
}

static bool
api_flow_match(const struct api_flow_query *q, const struct flow_entry *e)
{
	return (q->dir < 0 || e->dir == q->dir) && (q->peer < 0 || e->peer == q->peer);
}

static uint64_t
api_flow_value(const struct api_flow_query *q, const struct flow_entry *e)
{
	switch (q->sort) {
	case API_FLOW_SORT_PKTS:
		return e->pkts;
	case API_FLOW_SORT_RATE:
		return e->meter.rate_bps;
	case API_FLOW_SORT_CE:
		return e->ce_in;
	case API_FLOW_SORT_CNP:
		return e->cnp_sent;
	case API_FLOW_SORT_BYTES:
	case API_FLOW_SORT_MAX:
		break;
	}
	return e->bytes;
}

static void
api_flow_addr(const struct flow_entry *e, const uint8_t *a, char *buf, size_t size)
{
	buf[0] = '\0';
	if (e->key.family == AF_INET || e->key.family == AF_INET6)
		inet_ntop(e->key.family, a, buf, size);
}

static void
api_flow_emit(struct api_ctx *ctx, unsigned int rank, unsigned int worker,
	      const struct flow_entry *e, uint64_t now_ns)
{
	const struct dp_conf *dp = ctx->rt->dp;
	struct fmt *f = ctx->fmt;
	char key[16], src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	uint64_t last_ns = RTE_MIN(e->last_ns, now_ns);

	api_flow_addr(e, e->key.src, src, sizeof(src));
	api_flow_addr(e, e->key.dst, dst, sizeof(dst));
	snprintf(key, sizeof(key), "%u", rank);
	fmt_open(f, key, FMT_ROW);
	fmt_u64(f, api_flow_col(f, API_FLOW_WORKER), worker);
	fmt_str(f, api_flow_col(f, API_FLOW_DIR), e->dir == FLOW_WAN_TO_DC ? "wan->dc" : "dc->wan");
	fmt_str(f, api_flow_col(f, API_FLOW_CLASS),
		e->cls < DP_CLASS_MAX ? api_class_names[e->cls] : "?");
	fmt_str(f, api_flow_col(f, API_FLOW_SRC), src);
	fmt_str(f, api_flow_col(f, API_FLOW_DST), dst);
	fmt_u64(f, api_flow_col(f, API_FLOW_SPORT), e->key.sport);
	fmt_u64(f, api_flow_col(f, API_FLOW_DEST_QPN), e->key.dqpn);
	if (e->qpn_known)
		fmt_u64(f, api_flow_col(f, API_FLOW_SENDER_QPN), e->sender_qpn);
	else
		fmt_none(f, api_flow_col(f, API_FLOW_SENDER_QPN));
	fmt_str(f, api_flow_col(f, API_FLOW_PEER),
		dp != NULL && e->peer < dp->n_peers ? dp->peers[e->peer].name : "");
	fmt_u64(f, api_flow_col(f, API_FLOW_PKTS), e->pkts);
	fmt_u64(f, api_flow_col(f, API_FLOW_BYTES), e->bytes);
	fmt_u64(f, api_flow_col(f, API_FLOW_RATE), e->meter.rate_bps);
	fmt_u64(f, api_flow_col(f, API_FLOW_ECT_IN), e->ect_in);
	fmt_u64(f, api_flow_col(f, API_FLOW_CE_IN), e->ce_in);
	fmt_u64(f, api_flow_col(f, API_FLOW_MARKED), e->marked);
	fmt_u64(f, api_flow_col(f, API_FLOW_PSN_OOO), e->psn_ooo);
	fmt_u64(f, api_flow_col(f, API_FLOW_CNP_SENT), e->cnp_sent);
	fmt_u64(f, api_flow_col(f, API_FLOW_CNP_SUPPRESSED), e->cnp_suppressed);
	fmt_u64(f, api_flow_col(f, API_FLOW_CNP_NO_QPN), e->cnp_no_qpn);
	fmt_u64(f, api_flow_col(f, API_FLOW_AGE),
		(now_ns - RTE_MIN(e->first_ns, last_ns)) / 1000000);
	fmt_u64(f, api_flow_col(f, API_FLOW_IDLE), (now_ns - last_ns) / 1000000);
	if (e->first_mark_ns != 0)
		fmt_u64(f, api_flow_col(f, API_FLOW_FIRST_MARK), e->first_mark_ns);
	else
		fmt_none(f, api_flow_col(f, API_FLOW_FIRST_MARK));
	if (e->first_cnp_ns != 0)
		fmt_u64(f, api_flow_col(f, API_FLOW_FIRST_CNP), e->first_cnp_ns);
	else
		fmt_none(f, api_flow_col(f, API_FLOW_FIRST_CNP));
	fmt_close(f);
}

/* Parse a word option against NAMES[0..n); -EINVAL after api_error(). */
static int
api_opt_choice(struct api_ctx *ctx, const char *opt, const char *value,
	       const char *const *names, unsigned int n, int *out)
{
	char choices[128];
	size_t length = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (strcmp(value, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
		length += (size_t)snprintf(choices + length, sizeof(choices) - length, "%s%s",
					   i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
		if (length >= sizeof(choices))
			break;
	}
	api_error(ctx, "%s: expected %s, got '%s'", opt, choices, value);
	return -EINVAL;
}

static int
api_flow_query_parse(struct api_ctx *ctx, const char *sort, const char *dir, const char *peer,
		     struct api_flow_query *q)
{
	static const char *const dir_names[] = {
		[FLOW_DC_TO_WAN] = "dc",
		[FLOW_WAN_TO_DC] = "wan",
	};
	const struct dp_conf *dp = ctx->rt->dp;
	int v, rc;
	unsigned int i;

	q->sort = API_FLOW_SORT_BYTES;
	q->dir = -1;
	q->peer = -1;
	if (sort != NULL) {
		rc = api_opt_choice(ctx, "--sort", sort, api_flow_sort_names, API_FLOW_SORT_MAX,
				    &v);
		if (rc < 0)
			return rc;
		q->sort = (enum api_flow_sort)v;
	}
	if (dir != NULL) {
		rc = api_opt_choice(ctx, "--dir", dir, dir_names, RTE_DIM(dir_names), &q->dir);
		if (rc < 0)
			return rc;
	}
	if (peer != NULL) {
		for (i = 0; dp != NULL && i < dp->n_peers; i++)
			if (strcmp(dp->peers[i].name, peer) == 0)
				break;
		if (dp == NULL || i == dp->n_peers) {
			api_error(ctx, "no peer named '%s'", peer);
			return -ENOENT;
		}
		q->peer = (int)i;
	}
	return 0;
}

int
api_show_flows(struct api_ctx *ctx, int argc, char **argv)
{
	struct api_page pg = { 0, 0 };
	const char *sort = NULL, *dir = NULL, *peer = NULL;
	const struct api_opt opts[] = {
		API_PAGE_OPTS(&pg),
		{ "--sort", API_OPT_STR, 0, 0, &sort },
		{ "--dir", API_OPT_STR, 0, 0, &dir },
		{ "--peer", API_OPT_STR, 0, 0, &peer },
	};
	const struct ls_runtime *rt = ctx->rt;
	struct api_flow_heap heap = { NULL, 0, 0 };
	struct api_flow_query q;
	struct flow_entry e;
	struct dp_counters sum;
	uint64_t now_ns[DP_MAX_WORKERS] = { 0 };
	uint64_t capacity = 0, live = 0;
	unsigned int matching = 0, first, end, i, w;
	struct fmt *f = ctx->fmt;
	int n_pos, rc;

	rc = api_opts_parse(ctx, argc, argv, opts, RTE_DIM(opts), 0, &n_pos);
	if (rc < 0)
		return rc;
	rc = api_flow_query_parse(ctx, sort, dir, peer, &q);
	if (rc < 0)
		return rc;
	/* Unlike the short lists, a flow table is paged unless asked otherwise. */
	if (pg.page == 0 && pg.limit == 0)
		pg.limit = API_FLOWS_LIMIT_DEFAULT;
	api_page_defaults(ctx, &pg);

	for (w = 0; w < rt->n_workers && w < DP_MAX_WORKERS; w++)
		if (rt->workers[w] != NULL && rt->workers[w]->flows.e != NULL)
			capacity += (uint64_t)rt->workers[w]->flows.mask + 1;
	/* Keep the refs up to the end of the page (page and limit are 32-bit). */
	heap.k = (unsigned int)RTE_MIN(pg.page * pg.limit, RTE_MIN(capacity, (uint64_t)UINT_MAX));
	if (heap.k > 0) {
		heap.ref = calloc(heap.k, sizeof(*heap.ref));
		if (heap.ref == NULL) {
			api_error(ctx, "out of memory");
			return -ENOMEM;
		}
	}
	for (w = 0; w < rt->n_workers && w < DP_MAX_WORKERS; w++) {
		const struct dp_worker *wk = rt->workers[w];

		if (wk == NULL || wk->flows.e == NULL)
			continue;
		now_ns[w] = api_worker_now_ns(wk);
		if (now_ns[w] == 0)
			continue; /* never started: no clock to age its entries by */
		for (i = 0; i <= wk->flows.mask; i++) {
			struct api_flow_ref ref;

			if (!api_flow_copy(&wk->flows, i, now_ns[w], &e))
				continue;
			live++;
			if (!api_flow_match(&q, &e))
				continue;
			matching++;
			ref = (struct api_flow_ref){
				.value = api_flow_value(&q, &e),
				.slot = i,
				.hash = e.hash,
				.worker = (uint16_t)w,
			};
			api_flow_heap_add(&heap, &ref);
		}
	}
	rc = api_page_range(ctx, &pg, matching, &first, &end);
	if (rc < 0)
		goto out;
	if (heap.n > 0)
		qsort(heap.ref, heap.n, sizeof(*heap.ref), api_flow_cmp);

	runtime_counters_sum(rt, &sum);
	fmt_u64(f, "live", live);
	fmt_u64(f, "matching", matching);
	fmt_u64(f, "created", sum.flows_created);
	fmt_u64(f, "table_full", sum.flows_full);
	fmt_u64(f, "capacity", capacity);
	fmt_str(f, "sort", api_flow_sort_names[q.sort]);
	fmt_open(f, "flows", FMT_OBJ);
	fmt_key_width(f, API_FLOW_RANK_WIDTH);
	api_flow_header(f);
	for (i = first; i < end && i < heap.n; i++) {
		const struct api_flow_ref *ref = &heap.ref[i];
		const struct dp_worker *wk = rt->workers[ref->worker];

		/*
		 * Copied again: only refs were kept. A slot reused by another
		 * flow since the scan is left out of this page.
		 */
		if (!api_flow_copy(&wk->flows, ref->slot, now_ns[ref->worker], &e) ||
		    e.hash != ref->hash || !api_flow_match(&q, &e))
			continue;
		api_flow_emit(ctx, i + 1, ref->worker, &e, RTE_MAX(now_ns[ref->worker], e.last_ns));
	}
	fmt_close(f);
	api_page_emit(ctx, &pg, matching, "flows");
out:
	free(heap.ref);
	return rc;
}
