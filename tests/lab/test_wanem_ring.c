/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspan-wanem's real loop (wanem_run) on lcore 1 between two in-process
 * net_ring ports; lcore 0 plays both ends, stamping each packet with the
 * TSC and timing it out. No hugepages needed.
 *
 *   delay    every packet leaves >= the delay after it entered, in order;
 *            counts add up in both directions
 *   loss     seeded loss within binomial bounds, the same packets lost in a
 *            second run with the same seed, counts add up
 *   rate     a burst into a 100 Mb/s bottleneck: tail drop at queue_bytes,
 *            no packet before its serialization is done; a 2x overload for
 *            0.4 s: the average departure rate is the bottleneck's
 *   reorder  every packet overtaken was picked for reordering, and every
 *            pick was overtaken unless its deadline released it
 *
 * The tests assert behaviour, not the machine's timing: wanem's loop wakes
 * when the kernel lets it (a 10 us sleep takes ~110 us on a shared VM), so
 * single departures are late by its wake-up granularity, but the line
 * releases by due time, so lateness never accumulates. Latency and spacing
 * are printed; the only upper bounds asserted are ones a late wake-up
 * cannot reach (a unit error would: ms for us is 1000x).
 */
#include <stdbool.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "lab.h"
#include "wanem.h"

#define RING_SIZE 8192
#define MAX_PKTS 8192

struct side {
	struct rte_ring *rx, *tx; /* wanem's rx (we feed it) and tx (we read it) */
	uint16_t port;
};

struct probe {
	uint64_t seq;
	uint64_t tsc;
};

static struct side sides[2];
static struct rte_mempool *pool;
static volatile sig_atomic_t wanem_stop_flag;
static int failures;
/*
 * The median latency may exceed the delay by this much: far above any
 * scheduler's wake-up lateness, far below a unit error (500 us taken as ms).
 */
#define MEDIAN_SLACK_NS 20000000u
/* The average departure rate of a 0.4 s overload: within 5% of the line's. */
#define RATE_TOLERANCE 0.05
/*
 * Slots for every packet a scenario sends: a loop descheduled for
 * milliseconds finds thousands in its ring, and a slot drop would shift the
 * seeded loss stream (the same seed must lose the same packets).
 */
#define SLOTS_ALL MAX_PKTS

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("FAIL %s:%d: ", __func__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static int
run_wanem(void *arg)
{
	wanem_run(arg, &wanem_stop_flag, stdout);
	return 0;
}

static struct rte_mbuf *
probe_pkt(uint64_t seq, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct probe *p;

	if (m == NULL)
		return NULL;
	p = (struct probe *)rte_pktmbuf_append(m, len);
	memset(p, 0, len);
	p->seq = seq;
	p->tsc = rte_rdtsc();
	return m;
}

struct result {
	uint64_t n;
	uint64_t min_ns, max_ns;
	uint64_t *lat_ns; /* by arrival order */
	uint64_t *seq; /* by arrival order */
	uint64_t *out_tsc;
};

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t
median(const uint64_t *v, uint64_t n)
{
	uint64_t *c = malloc(n * sizeof(*c)), m;

	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_u64);
	m = c[n / 2];
	free(c);
	return m;
}

static void
collect(struct side *s, struct result *r, uint64_t hz)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(s->tx, (void **)&m) == 0) {
		uint64_t now = rte_rdtsc();
		const struct probe *p = rte_pktmbuf_mtod(m, const struct probe *);
		uint64_t ns = (now - p->tsc) * 1000000000u / hz;

		if (r->n < MAX_PKTS) {
			r->lat_ns[r->n] = ns;
			r->seq[r->n] = p->seq;
			r->out_tsc[r->n] = now;
		}
		if (r->n == 0 || ns < r->min_ns)
			r->min_ns = ns;
		if (ns > r->max_ns)
			r->max_ns = ns;
		r->n++;
		rte_pktmbuf_free(m);
	}
}

static void
result_init(struct result *r)
{
	memset(r, 0, sizeof(*r));
	r->lat_ns = calloc(MAX_PKTS, sizeof(uint64_t));
	r->seq = calloc(MAX_PKTS, sizeof(uint64_t));
	r->out_tsc = calloc(MAX_PKTS, sizeof(uint64_t));
}

static void
result_free(struct result *r)
{
	free(r->lat_ns);
	free(r->seq);
	free(r->out_tsc);
}

/*
 * Run wanem with opts; send n packets of len bytes into each side, gap_us
 * apart (0: as one burst), then let the line drain.
 */
static struct wanem *
scenario(struct wanem_opts *o, uint64_t n, uint16_t len, uint64_t gap_us, struct result res[2])
{
	struct wanem *w = calloc(1, sizeof(*w));
	uint64_t hz = rte_get_tsc_hz(), next, injected = n;

	if (wanem_opts_resolve(o) != 0 || wanem_init(w, o, sides[0].port, sides[1].port) != 0) {
		printf("FAIL: wanem setup\n");
		exit(1);
	}
	result_init(&res[0]);
	result_init(&res[1]);
	wanem_stop_flag = 0;
	rte_eal_remote_launch(run_wanem, w, rte_get_next_lcore(-1, 1, 0));
	next = rte_rdtsc();
	if (gap_us == 0) {
		/* One burst, in the rings before wanem's next poll can split it. */
		static struct rte_mbuf *burst[2][MAX_PKTS];

		for (uint64_t i = 0; i < n && i < MAX_PKTS; i++)
			for (int s = 0; s < 2; s++)
				burst[s][i] = probe_pkt(i, len);
		for (int s = 0; s < 2; s++)
			if (n > MAX_PKTS ||
			    rte_ring_enqueue_bulk(sides[s].rx, (void **)burst[s], (unsigned int)n,
						  NULL) != n) {
				printf("FAIL: cannot inject the burst\n");
				exit(1);
			}
		n = 0;
	}
	for (uint64_t i = 0; i < n; i++) {
		for (int s = 0; s < 2; s++) {
			struct rte_mbuf *m = probe_pkt(i, len);

			if (m == NULL || rte_ring_enqueue(sides[s].rx, m) != 0) {
				printf("FAIL: cannot inject packet %" PRIu64 "\n", i);
				exit(1);
			}
		}
		next += gap_us * hz / 1000000;
		while (rte_rdtsc() < next) {
			collect(&sides[1], &res[0], hz); /* side 0 -> side 1 */
			collect(&sides[0], &res[1], hz);
		}
	}
	/*
	 * Drain: until every packet that went in has come out or been dropped
	 * (wanem's counters, read while it runs), however slowly a busy
	 * machine lets the loop run; at most 30 s.
	 */
	{
		uint64_t start = rte_rdtsc();
		while (rte_rdtsc() - start < 30 * hz) {
			bool done = true;

			collect(&sides[1], &res[0], hz);
			collect(&sides[0], &res[1], hz);
			for (int d = 0; d < 2; d++) {
				const struct wanem_line_stats *st = &w->dir[d].line.st;

				if (__atomic_load_n(&st->rx_pkts, __ATOMIC_RELAXED) != injected ||
				    __atomic_load_n(&st->held_pkts, __ATOMIC_RELAXED) != 0 ||
				    res[d].n != __atomic_load_n(&st->tx_pkts, __ATOMIC_RELAXED))
					done = false;
			}
			if (done)
				break;
		}
	}
	wanem_stop_flag = 1;
	rte_eal_mp_wait_lcore();
	return w;
}

static void
assert_accounts(const struct wanem *w, const struct result res[2], uint64_t sent)
{
	for (int d = 0; d < 2; d++) {
		const struct wanem_line_stats *s = &w->dir[d].line.st;

		CHECK(s->rx_pkts == sent, "dir %d: wanem received %" PRIu64 " of %" PRIu64, d,
		      s->rx_pkts, sent);
		CHECK(s->rx_pkts ==
			      s->tx_pkts + s->drop_loss + s->drop_queue + s->drop_slots +
				      s->held_pkts + s->drained,
		      "dir %d: counts do not add up", d);
		CHECK(res[d].n == s->tx_pkts, "dir %d: %" PRIu64 " came out, wanem sent %" PRIu64,
		      d, res[d].n, s->tx_pkts);
	}
}

static void
finish(struct wanem *w, struct result res[2])
{
	wanem_fini(w);
	free(w);
	result_free(&res[0]);
	result_free(&res[1]);
}

static void
test_delay(void)
{
	struct wanem_opts o;
	struct result res[2];
	struct wanem *w;
	uint64_t n = 3000;

	wanem_opts_default(&o);
	o.delay_ns = 500000;
	o.stats_interval_ns = 0;
	o.queue_pkts = SLOTS_ALL;
	w = scenario(&o, n, 128, 20, res);
	assert_accounts(w, res, n);
	for (int d = 0; d < 2; d++) {
		uint64_t med = median(res[d].lat_ns, RTE_MIN(res[d].n, (uint64_t)MAX_PKTS));
		const struct wanem_line_stats *s = &w->dir[d].line.st;

		printf("delay: dir %d: %" PRIu64 " packets, latency min %.1f us, median %.1f us, "
		       "max %.1f us; release lateness avg %.2f us max %.1f us\n",
		       d, res[d].n, res[d].min_ns / 1e3, med / 1e3, res[d].max_ns / 1e3,
		       s->tx_pkts ? (double)s->late_sum_ticks * 1e6 / (double)w->clk.hz /
				       (double)s->tx_pkts
				  : 0.0,
		       (double)s->late_max_ticks * 1e6 / (double)w->clk.hz);
		CHECK(res[d].n == n, "dir %d: %" PRIu64 " of %" PRIu64 " arrived", d, res[d].n, n);
		CHECK(res[d].min_ns >= o.delay_ns, "dir %d: a packet left after %" PRIu64 " ns", d,
		      res[d].min_ns);
		CHECK(med <= o.delay_ns + MEDIAN_SLACK_NS, "dir %d: median %.1f us: not the delay",
		      d, med / 1e3);
		/* Without loss or reordering the order is kept. */
		for (uint64_t i = 1; i < RTE_MIN(res[d].n, (uint64_t)MAX_PKTS); i++)
			if (res[d].seq[i] != res[d].seq[i - 1] + 1) {
				CHECK(false, "dir %d: out of order at %" PRIu64, d, i);
				break;
			}
	}
	finish(w, res);
}

/* Lost sequence numbers of direction 0, as a bitmap over n. */
static void
lost_set(const struct result *r, uint64_t n, uint8_t *lost)
{
	memset(lost, 1, n);
	for (uint64_t i = 0; i < RTE_MIN(r->n, (uint64_t)MAX_PKTS); i++)
		lost[r->seq[i]] = 0;
}

static void
test_loss(void)
{
	struct wanem_opts o;
	struct result res[2];
	struct wanem *w;
	uint64_t n = 4000, lost1;
	uint8_t *a = malloc(n), *b = malloc(n);

	wanem_opts_default(&o);
	o.delay_ns = 100000;
	o.loss = 0.05;
	o.seed = 42;
	o.stats_interval_ns = 0;
	o.queue_pkts = SLOTS_ALL;
	w = scenario(&o, n, 64, 5, res);
	assert_accounts(w, res, n);
	lost1 = w->dir[0].line.st.drop_loss;
	for (int d = 0; d < 2; d++) {
		uint64_t k = w->dir[d].line.st.drop_loss;
		double mean = 0.05 * (double)n, sd = sqrt((double)n * 0.05 * 0.95);

		printf("loss: dir %d lost %" PRIu64 " of %" PRIu64 " (%.1f +- %.1f)\n", d, k, n,
		       mean, sd);
		CHECK(fabs((double)k - mean) <= 5 * sd, "dir %d: loss outside 5 sigma", d);
		CHECK(res[d].n + k == n, "dir %d: out %" PRIu64 " + lost %" PRIu64 " != %" PRIu64,
		      d, res[d].n, k, n);
	}
	lost_set(&res[0], n, a);
	finish(w, res);
	w = scenario(&o, n, 64, 5, res);
	assert_accounts(w, res, n);
	CHECK(res[0].n + w->dir[0].line.st.drop_loss == n, "second run: packets in flight");
	lost_set(&res[0], n, b);
	CHECK(w->dir[0].line.st.drop_loss == lost1 && memcmp(a, b, n) == 0,
	      "the same seed lost other packets");
	finish(w, res);
	free(a);
	free(b);
}

static void
test_rate_burst(void)
{
	struct wanem_opts o;
	struct result res[2];
	struct wanem *w;
	uint64_t n = 30, serial_ns = 1000 * 8 * 1000 / 100; /* 1000 B at 100 Mb/s: 80 us */

	wanem_opts_default(&o);
	o.delay_ns = 200000;
	o.rate_bps = 100000000;
	o.queue_bytes = 20000;
	o.stats_interval_ns = 0;
	w = scenario(&o, n, 1000, 0, res);
	assert_accounts(w, res, n);
	for (int d = 0; d < 2; d++) {
		const struct wanem_line_stats *s = &w->dir[d].line.st;
		uint64_t k = res[d].n;

		/* 20 packets fit the 20 KB buffer (backlog + packet <= queue). */
		CHECK(k == 20 && s->drop_queue == 10,
		      "dir %d: %" PRIu64 " passed, %" PRIu64 " tail-dropped", d, k, s->drop_queue);
		/*
		 * They all entered at once: the i-th leaves no earlier than the
		 * delay plus i + 1 serializations, and in order.
		 */
		for (uint64_t i = 0; i < k; i++) {
			CHECK(res[d].lat_ns[i] >= o.delay_ns + (i + 1) * serial_ns,
			      "dir %d: packet %" PRIu64 " left after %.1f us, before its %.1f us", d,
			      i, res[d].lat_ns[i] / 1e3, (o.delay_ns + (i + 1) * serial_ns) / 1e3);
			CHECK(res[d].seq[i] == i, "dir %d: packet %" PRIu64 " is #%" PRIu64, d, i,
			      res[d].seq[i]);
		}
		if (k >= 2)
			printf("rate: burst, dir %d: %" PRIu64 " packets, first after %.1f us, "
			       "departures every %.1f us on average, serialization %.1f us\n",
			       d, k, res[d].lat_ns[0] / 1e3,
			       (double)(res[d].out_tsc[k - 1] - res[d].out_tsc[0]) * 1e6 /
				       (double)rte_get_tsc_hz() / (double)(k - 1),
			       serial_ns / 1e3);
	}
	finish(w, res);
}

/*
 * 0.4 s of packets at once into a buffer that holds them all: the line
 * serializes them back to back, so the departures' average rate is the
 * line's however late single wake-ups are (a loop that released one packet
 * per wake-up, not everything due, would fall behind by each wake-up's
 * lateness and never catch up).
 */
static void
test_rate_sustained(void)
{
	struct wanem_opts o;
	struct result res[2];
	struct wanem *w;
	const uint16_t len = 1500;
	uint64_t serial_ns = (uint64_t)len * 8 * 1000 / 100; /* 120 us at 100 Mb/s */
	uint64_t n = 400000000 / serial_ns;

	wanem_opts_default(&o);
	o.delay_ns = 200000;
	o.rate_bps = 100000000;
	o.queue_bytes = n * len;
	o.stats_interval_ns = 0;
	w = scenario(&o, n, len, 0, res);
	assert_accounts(w, res, n);
	for (int d = 0; d < 2; d++) {
		const struct wanem_line_stats *s = &w->dir[d].line.st;
		uint64_t k = RTE_MIN(res[d].n, (uint64_t)MAX_PKTS);
		double span_s, rate;

		CHECK(k == n && s->drop_queue == 0,
		      "dir %d: %" PRIu64 " passed, %" PRIu64 " tail-dropped of %" PRIu64, d, k,
		      s->drop_queue, n);
		if (k < 100)
			continue;
		span_s = (double)(res[d].out_tsc[k - 1] - res[d].out_tsc[0]) /
			 (double)rte_get_tsc_hz();
		rate = (double)(k - 1) * len * 8 / span_s;
		printf("rate: sustained, dir %d: %" PRIu64 " packets in %.1f ms: %.2f Mb/s "
		       "(line 100 Mb/s); release lateness avg %.1f us max %.1f us\n",
		       d, k, span_s * 1e3, rate / 1e6,
		       s->tx_pkts ? (double)s->late_sum_ticks * 1e6 / (double)w->clk.hz /
				       (double)s->tx_pkts
				  : 0.0,
		       (double)s->late_max_ticks * 1e6 / (double)w->clk.hz);
		CHECK(fabs(rate / (double)o.rate_bps - 1) <= RATE_TOLERANCE,
		      "dir %d: %.2f Mb/s out of a 100 Mb/s line", d, rate / 1e6);
		/* In order, and none before its serialization behind the others. */
		for (uint64_t i = 0; i < k; i++)
			if (res[d].seq[i] != i || res[d].lat_ns[i] < o.delay_ns + (i + 1) * serial_ns) {
				CHECK(false, "dir %d: packet %" PRIu64 " (#%" PRIu64 ") early or out of "
				      "order", d, i, res[d].seq[i]);
				break;
			}
	}
	finish(w, res);
}

static void
test_reorder(void)
{
	struct wanem_opts o;
	struct result res[2];
	struct wanem *w;
	uint64_t n = 4000, behind = 0, top = 0;

	wanem_opts_default(&o);
	o.delay_ns = 100000;
	o.reorder = 0.02;
	o.reorder_gap = 3;
	o.stats_interval_ns = 0;
	o.queue_pkts = SLOTS_ALL;
	w = scenario(&o, n, 64, 5, res);
	assert_accounts(w, res, n);
	for (uint64_t i = 0; i < RTE_MIN(res[0].n, (uint64_t)MAX_PKTS); i++) {
		if (i > 0 && res[0].seq[i] < top)
			behind++;
		else
			top = res[0].seq[i];
	}
	printf("reorder: %" PRIu64 " picked, %" PRIu64 " arrived behind a later packet, %" PRIu64
	       " released by the deadline\n",
	       w->dir[0].line.st.reordered, behind, w->dir[0].line.st.reorder_timeouts);
	CHECK(res[0].n == n, "reordering lost packets");
	/* A pick released by its deadline may or may not have been overtaken. */
	CHECK(w->dir[0].line.st.reordered > 0 && behind <= w->dir[0].line.st.reordered &&
		      behind >= w->dir[0].line.st.reordered - w->dir[0].line.st.reorder_timeouts,
	      "overtaken packets do not match the picks");
	finish(w, res);
}

int
main(int argc, char **argv)
{
	int rc = rte_eal_init(argc, argv);

	if (rc < 0) {
		printf("EAL init failed\n");
		return 1;
	}
	argc -= rc;
	argv += rc;
	if (rte_lcore_count() < 2) {
		printf("need two lcores (-l 0,1)\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("probe", 4 * MAX_PKTS + 1024, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	for (int s = 0; s < 2; s++) {
		char name[32];

		snprintf(name, sizeof(name), "wr%d_rx", s);
		sides[s].rx = rte_ring_create(name, RING_SIZE, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "wr%d_tx", s);
		sides[s].tx = rte_ring_create(name, RING_SIZE, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "wr%d", s);
		rc = rte_eth_from_rings(name, &sides[s].rx, 1, &sides[s].tx, 1, 0);
		if (pool == NULL || sides[s].rx == NULL || sides[s].tx == NULL || rc < 0 ||
		    lab_port_start("test", (uint16_t)rc, pool, 1024, false) != 0) {
			printf("setup failed\n");
			return 1;
		}
		sides[s].port = (uint16_t)rc;
	}
	test_delay();
	test_loss();
	test_rate_burst();
	test_rate_sustained();
	test_reorder();
	for (int s = 0; s < 2; s++)
		lab_port_close(sides[s].port);
	printf("%s (%d failures), mbufs in use at exit: %u\n", failures ? "FAILED" : "passed",
	       failures, rte_mempool_in_use_count(pool));
	rc = failures == 0 && rte_mempool_in_use_count(pool) == 0 ? 0 : 1;
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return rc;
}
