/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * WAN traffic manager (dataplane/tm.c) on a clock the test controls: strict
 * priority between the classes, packet and byte limits, the token-bucket
 * shaper letting packets leave at the configured rate, tm_next_due, RED
 * marking at a threshold and on its ramp through a marker with explicit
 * parameters, sojourn times and the counters. EAL runs without hugepages
 * for the mempool and the mbuf dynamic field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dataplane/mbuf_meta.h"
#include "dataplane/tm.h"
#include "ut_eal.h"

#define RING_CAP 2048
#define NS_HZ UINT64_C(1000000000)

static struct rte_mempool *pool;
static struct rte_mbuf *rings[DP_TM_CLASS_MAX][RING_CAP];
static struct tm_port tp;
static struct dp_tm_conf conf;
static struct dp_tm_counters ctr[DP_TM_CLASS_MAX];
static uint64_t generation;

/* A fresh port: rings of cap packets per class, TSC of hz, shaper and marker off. */
static void
port_reset(uint32_t cap, uint64_t hz)
{
	unsigned int c;

	memset(&tp, 0, sizeof(tp));
	memset(&conf, 0, sizeof(conf));
	memset(ctr, 0, sizeof(ctr));
	for (c = 0; c < DP_TM_CLASS_MAX; c++) {
		tp.q[c].ring = rings[c];
		tp.q[c].mask = cap - 1;
	}
	tp.tsc_hz = hz;
	conf.marker.kind = ECN_MARKER_NONE;
	tm_sync(&tp, &conf, ++generation, 1, 0, 0);
}

/* Turn the shaper on at rate_bps with burst_bytes, in ticks of tp.tsc_hz. */
static void
shaper_on(uint64_t rate_bps, uint64_t burst_bytes, uint64_t buffer_bytes, uint64_t tsc)
{
	conf.enabled = true;
	conf.buffer_bytes = buffer_bytes;
	assert_int_equal(token_bucket_config_init(&conf.shaper, rate_bps, burst_bytes, tp.tsc_hz),
			 0);
	tm_sync(&tp, &conf, ++generation, 1, 0, tsc);
}

static struct rte_mbuf *
mk(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	assert_non_null(m);
	return m;
}

static bool
enq(enum dp_tm_class cls, struct rte_mbuf *m, uint32_t bytes, uint64_t tsc, bool *mark)
{
	bool dummy;

	return tm_enqueue(&tp, &conf, ctr, cls, m, bytes, tsc, tsc, mark != NULL ? mark : &dummy);
}

/* Dequeue everything due at tsc (up to max), freeing the mbufs; returns the count. */
static unsigned int
deq_free(uint64_t tsc, unsigned int max)
{
	struct rte_mbuf *out[64];
	uint8_t cls[64];
	uint64_t soj[64];
	unsigned int n, i;

	assert_true(max <= 64);
	n = tm_dequeue(&tp, &conf, ctr, tsc, out, cls, soj, max, NULL, NULL);
	for (i = 0; i < n; i++)
		rte_pktmbuf_free(out[i]);
	return n;
}

static void
drain(void)
{
	while (!tm_port_empty(&tp)) {
		conf.enabled = false;
		deq_free(0, 64);
	}
}

static int
setup(void **state)
{
	(void)state;
	port_reset(RING_CAP, NS_HZ);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	drain();
	/* Every mbuf is back in the pool. */
	return rte_mempool_avail_count(pool) == pool->size ? 0 : -1;
}

static void
test_strict_priority(void **state)
{
	struct rte_mbuf *o1 = mk(), *r1 = mk(), *c1 = mk(), *o2 = mk(), *r2 = mk(), *c2 = mk();
	struct rte_mbuf *c3 = mk(), *out[8];
	uint8_t cls[8];
	uint64_t soj[8];

	(void)state;
	assert_true(enq(DP_TM_CLASS_OTHER, o1, 100, 0, NULL));
	assert_true(enq(DP_TM_CLASS_ROCE, r1, 100, 0, NULL));
	assert_true(enq(DP_TM_CLASS_CONTROL, c1, 100, 0, NULL));
	assert_true(enq(DP_TM_CLASS_OTHER, o2, 100, 0, NULL));
	assert_true(enq(DP_TM_CLASS_ROCE, r2, 100, 0, NULL));
	assert_true(enq(DP_TM_CLASS_CONTROL, c2, 100, 0, NULL));
	assert_int_equal(tm_dequeue(&tp, &conf, ctr, 10, out, cls, soj, 2, NULL, NULL), 2);
	assert_ptr_equal(out[0], c1);
	assert_ptr_equal(out[1], c2);
	assert_int_equal(cls[0], DP_TM_CLASS_CONTROL);
	/* A control packet arriving now overtakes the data already waiting. */
	assert_true(enq(DP_TM_CLASS_CONTROL, c3, 100, 20, NULL));
	assert_int_equal(tm_dequeue(&tp, &conf, ctr, 30, out + 2, cls + 2, soj + 2, 6, NULL, NULL), 5);
	assert_ptr_equal(out[2], c3);
	assert_ptr_equal(out[3], r1);
	assert_ptr_equal(out[4], r2);
	assert_ptr_equal(out[5], o1);
	assert_ptr_equal(out[6], o2);
	assert_int_equal(cls[2], DP_TM_CLASS_CONTROL);
	assert_int_equal(cls[3], DP_TM_CLASS_ROCE);
	assert_int_equal(cls[4], DP_TM_CLASS_ROCE);
	assert_int_equal(cls[5], DP_TM_CLASS_OTHER);
	assert_int_equal(cls[6], DP_TM_CLASS_OTHER);
	assert_true(tm_port_empty(&tp));
	assert_int_equal(tm_dequeue(&tp, &conf, ctr, 40, out, cls, soj, 8, NULL, NULL), 0);
	rte_pktmbuf_free_bulk(out, 7);
	assert_int_equal(ctr[DP_TM_CLASS_CONTROL].deq_pkts, 3);
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].deq_pkts, 2);
	assert_int_equal(ctr[DP_TM_CLASS_OTHER].enq_bytes, 200);
}

static void
test_packet_limit(void **state)
{
	struct rte_mbuf *extra = mk();
	unsigned int i;

	(void)state;
	port_reset(8, NS_HZ);
	/* The shaper is off, so no byte limit: eight packets of any size, then full. */
	for (i = 0; i < 8; i++)
		assert_true(enq(DP_TM_CLASS_ROCE, mk(), 60000, 0, NULL));
	assert_false(enq(DP_TM_CLASS_ROCE, extra, 64, 0, NULL));
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].drops, 1);
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].enq_pkts, 8);
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].depth_pkts, 8);
	/* Other classes have their own rings. */
	assert_true(enq(DP_TM_CLASS_OTHER, extra, 64, 0, NULL));
	/* One out, one in, with the ring indices wrapping. */
	for (i = 0; i < 20; i++) {
		conf.enabled = false;
		assert_int_equal(deq_free(0, 1), 1);
		assert_true(enq(DP_TM_CLASS_ROCE, mk(), 100, 0, NULL));
	}
	assert_int_equal(tm_fifo_count(&tp.q[DP_TM_CLASS_ROCE]), 8);
}

static void
test_byte_limit(void **state)
{
	struct rte_mbuf *m;
	unsigned int i;

	(void)state;
	shaper_on(UINT64_C(10000000000), 100000, 3000, 0);
	for (i = 0; i < 3; i++)
		assert_true(enq(DP_TM_CLASS_ROCE, mk(), 1000, 0, NULL));
	m = mk();
	assert_false(enq(DP_TM_CLASS_ROCE, m, 1000, 0, NULL)); /* 4000 > 3000 */
	assert_false(enq(DP_TM_CLASS_ROCE, m, 1, 0, NULL)); /* 3001 > 3000 */
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].drops, 2);
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].depth_bytes, 3000);
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].depth_max_bytes, 3000);
	/* Per class: the other classes still take a full buffer each. */
	assert_true(enq(DP_TM_CLASS_OTHER, m, 3000, 0, NULL));
	/* An empty class takes one packet even above the limit, then nothing. */
	assert_true(enq(DP_TM_CLASS_CONTROL, mk(), 9000, 0, NULL));
	m = mk();
	assert_false(enq(DP_TM_CLASS_CONTROL, m, 64, 0, NULL));
	rte_pktmbuf_free(m);
	/* Room again once one has left. */
	assert_int_equal(deq_free(0, 2), 2);
	m = mk();
	assert_true(enq(DP_TM_CLASS_ROCE, m, 1000, 0, NULL));
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].depth_bytes, 3000);
}

/*
 * 8 Gb/s with a 1 GHz clock is exactly one byte per tick. 1000-byte frames
 * cost 1024 tokens with the wire overhead; a 3000-byte bucket lets three go
 * at once (the third into debt), then one every 1024 ticks.
 */
static void
test_shaper_exact(void **state)
{
	uint64_t t0 = 1000000, t;
	unsigned int i;

	(void)state;
	shaper_on(UINT64_C(8000000000), 3000, UINT64_C(1) << 30, t0);
	assert_int_equal(tm_next_due(&tp, &conf, t0, NULL), UINT64_MAX);
	for (i = 0; i < 20; i++)
		assert_true(enq(DP_TM_CLASS_ROCE, mk(), 1000, t0, NULL));
	assert_int_equal(tm_next_due(&tp, &conf, t0, NULL), 0);
	assert_int_equal(deq_free(t0, 64), 3);
	/* 72 bytes of debt: positive again 73 ticks later. */
	assert_int_equal(tm_next_due(&tp, &conf, t0, NULL), 73);
	assert_int_equal(deq_free(t0 + 72, 64), 0);
	assert_int_equal(tm_next_due(&tp, &conf, t0 + 72, NULL), 1);
	assert_int_equal(deq_free(t0 + 73, 64), 1);
	t = t0 + 73;
	for (i = 4; i < 20; i++) {
		assert_int_equal(tm_next_due(&tp, &conf, t, NULL), 1024);
		assert_int_equal(deq_free(t + 1023, 64), 0);
		t += 1024;
		assert_int_equal(deq_free(t, 64), 1);
	}
	assert_true(tm_port_empty(&tp));
	assert_int_equal(tm_next_due(&tp, &conf, t, NULL), UINT64_MAX);
	/* Shaping holds back every class, control too. */
	assert_true(enq(DP_TM_CLASS_CONTROL, mk(), 1000, t, NULL));
	assert_int_equal(tm_next_due(&tp, &conf, t, NULL), 1024);
	assert_int_equal(deq_free(t, 64), 0);
	assert_int_equal(deq_free(t + 1024, 64), 1);
}

/*
 * A realistic TSC (2.1 GHz) and rates from 1 to 100 Gb/s: the departures a
 * poll loop driven by tm_next_due sees average the configured rate.
 */
static void
test_shaper_rate(void **state)
{
	static const uint64_t rates[] = { UINT64_C(1000000000), UINT64_C(10000000000),
					  UINT64_C(25000000000), UINT64_C(100000000000) };
	const uint64_t hz = 2100000000;
	size_t r;

	(void)state;
	for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		uint64_t t = 5000, first = 0, last = 0, bytes = 0;
		unsigned int sent = 0, i, frame = 1500;

		port_reset(RING_CAP, hz);
		shaper_on(rates[r], 3 * 1600, UINT64_C(1) << 30, t);
		for (i = 0; i < 2000; i++)
			assert_true(enq(DP_TM_CLASS_ROCE, mk(), frame, t, NULL));
		while (sent < 2000) {
			uint64_t due = tm_next_due(&tp, &conf, t, NULL);
			unsigned int n;

			assert_true(due != UINT64_MAX);
			t += due;
			n = deq_free(t, 64);
			/* The poll loop never sees a due time that sends nothing. */
			assert_true(n >= 1);
			if (sent >= 100) { /* past the initial burst */
				if (first == 0)
					first = t;
				else
					bytes += (uint64_t)n * (frame + TM_WIRE_OVERHEAD);
				last = t;
			}
			sent += n;
		}
		{
			double secs = (double)(last - first) / (double)hz;
			double bps = (double)bytes * 8 / secs;
			double err = bps / (double)rates[r] - 1;

			if (err > 0.001 || err < -0.001)
				fail_msg("rate %llu: measured %.0f b/s (%.4f%%)",
					 (unsigned long long)rates[r], bps, err * 100);
		}
	}
}

/* RED with explicit parameters: nothing at or below Kmin, everything above Kmax. */
static void
test_red_threshold(void **state)
{
	unsigned int i;

	(void)state;
	conf.marker.kind = ECN_MARKER_RED;
	conf.marker.red.kmin_bytes = 2000;
	conf.marker.red.kmax_bytes = 2999;
	conf.marker.red.pmax_ppm = 1000000;
	shaper_on(UINT64_C(10000000000), 100000, 100000, 0);
	for (i = 0; i < 6; i++) {
		bool mark_roce, mark_other, mark_ctl;

		/* Judged on the bytes ahead: 0, 1000, 2000 pass; 3000 and more mark. */
		assert_true(enq(DP_TM_CLASS_ROCE, mk(), 1000, 0, &mark_roce));
		assert_true(enq(DP_TM_CLASS_OTHER, mk(), 1000, 0, &mark_other));
		assert_true(enq(DP_TM_CLASS_CONTROL, mk(), 1000, 0, &mark_ctl));
		assert_int_equal(mark_roce, i >= 3);
		assert_int_equal(mark_other, i >= 3);
		assert_false(mark_ctl); /* control packets are never marked */
	}
	/* Sojourn marking decides at dequeue: nothing at enqueue. */
	drain();
	conf.marker.kind = ECN_MARKER_SOJOURN;
	conf.marker.sojourn.target_ns = 1000;
	conf.marker.sojourn.interval_ns = 0;
	conf.mark_at_dequeue = true;
	shaper_on(UINT64_C(10000000000), 100000, 100000, 0);
	for (i = 0; i < 6; i++) {
		bool mark;

		assert_true(enq(DP_TM_CLASS_ROCE, mk(), 1000, 0, &mark));
		assert_false(mark);
	}
	/* Shaper off: no marker at all. */
	drain();
	port_reset(RING_CAP, NS_HZ);
	conf.marker.kind = ECN_MARKER_RED;
	conf.marker.red.kmin_bytes = 0;
	conf.marker.red.kmax_bytes = 1;
	conf.marker.red.pmax_ppm = 1000000;
	tm_sync(&tp, &conf, ++generation, 1, 0, 0);
	for (i = 0; i < 6; i++) {
		bool mark;

		assert_true(enq(DP_TM_CLASS_ROCE, mk(), 1000, 0, &mark));
		assert_false(mark);
	}
}

/* On the ramp, the mark fraction follows p(q) = Pmax (q - Kmin) / (Kmax - Kmin). */
static void
test_red_ramp(void **state)
{
	unsigned int i, marks = 0, trials = 20000;

	(void)state;
	conf.marker.kind = ECN_MARKER_RED;
	conf.marker.red.kmin_bytes = 0;
	conf.marker.red.kmax_bytes = 100000;
	conf.marker.red.pmax_ppm = 200000; /* 20% at Kmax */
	shaper_on(UINT64_C(10000000000), 100000, 1000000, 0);
	/* Hold the queue at 50 000 bytes ahead: p = 10%. */
	for (i = 0; i < 50; i++)
		assert_true(enq(DP_TM_CLASS_ROCE, mk(), 1000, 0, NULL));
	for (i = 0; i < trials; i++) {
		bool mark;

		conf.enabled = true;
		assert_true(enq(DP_TM_CLASS_ROCE, mk(), 1000, 0, &mark));
		marks += mark;
		conf.enabled = false; /* take one out without waiting for the shaper */
		assert_int_equal(deq_free(0, 1), 1);
		conf.enabled = true;
	}
	/* 10% of 20000 = 2000, sigma ~42. */
	if (marks < 1800 || marks > 2200)
		fail_msg("%u marks in %u trials at p = 10%%", marks, trials);
}

static void
test_sojourn(void **state)
{
	struct rte_mbuf *out[4];
	uint8_t cls[4];
	uint64_t soj[4];

	(void)state;
	/* 2 GHz: 2000 ticks are exactly 1000 ns. */
	port_reset(RING_CAP, 2000000000);
	assert_true(enq(DP_TM_CLASS_ROCE, mk(), 500, 1000, NULL));
	assert_true(enq(DP_TM_CLASS_ROCE, mk(), 700, 5000, NULL));
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].depth_bytes, 1200);
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].depth_hist[0], 1); /* 0 bytes ahead */
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].depth_hist[8], 1); /* 500: [256, 512) */
	assert_int_equal(tm_dequeue(&tp, &conf, ctr, 3000, out, cls, soj, 1, NULL, NULL), 1);
	assert_int_equal(soj[0], 1000);
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].depth_bytes, 700);
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].depth_pkts, 1);
	assert_int_equal(tm_dequeue(&tp, &conf, ctr, 2000005000, out + 1, cls + 1, soj + 1, 1, NULL, NULL), 1);
	assert_int_equal(soj[1], 1000000000); /* one second */
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].deq_pkts, 2);
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].deq_bytes, 1200);
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].sojourn_ns_sum, 1000001000);
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].sojourn_ns_max, 1000000000);
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].sojourn_hist[9], 1); /* [512, 1024) */
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].sojourn_hist[29], 1); /* [2^29, 2^30) */
	assert_int_equal(ctr[DP_TM_CLASS_ROCE].depth_bytes, 0);
	rte_pktmbuf_free_bulk(out, 2);

	/* 3 GHz does not divide a second evenly: within a nanosecond for a microsecond. */
	port_reset(RING_CAP, 3000000000);
	assert_true(enq(DP_TM_CLASS_OTHER, mk(), 64, 0, NULL));
	assert_true(enq(DP_TM_CLASS_OTHER, mk(), 64, 0, NULL));
	assert_int_equal(tm_dequeue(&tp, &conf, ctr, 3000, out, cls, soj, 1, NULL, NULL), 1);
	assert_true(soj[0] >= 999 && soj[0] <= 1000);
	assert_int_equal(tm_dequeue(&tp, &conf, ctr, UINT64_C(3000000000) * 60, out + 1, cls + 1,
				    soj + 1, 1, NULL, NULL), 1);
	/* A minute of waiting: Q32 nanoseconds per tick are good to 1e-9. */
	assert_true(soj[1] >= UINT64_C(60000000000) - 60 && soj[1] <= UINT64_C(60000000000));
	rte_pktmbuf_free_bulk(out, 2);
}

/* tm_sync rebuilds only on a new generation; queued packets stay. */
static void
test_sync_generation(void **state)
{
	uint64_t t0 = 0;

	(void)state;
	shaper_on(UINT64_C(8000000000), 3000, UINT64_C(1) << 30, t0);
	assert_true(enq(DP_TM_CLASS_ROCE, mk(), 9000, t0, NULL));
	assert_true(enq(DP_TM_CLASS_ROCE, mk(), 1000, t0, NULL));
	assert_int_equal(deq_free(t0, 64), 1); /* into 6024 bytes of debt */
	assert_int_equal(tm_next_due(&tp, &conf, t0, NULL), 6025);
	/* Same generation: nothing changes. */
	tm_sync(&tp, &conf, generation, 1, 0, t0);
	assert_int_equal(tm_next_due(&tp, &conf, t0, NULL), 6025);
	/* A new one starts a full bucket; the packet is still there. */
	tm_sync(&tp, &conf, ++generation, 1, 0, t0);
	assert_int_equal(tm_next_due(&tp, &conf, t0, NULL), 0);
	assert_int_equal(deq_free(t0, 64), 1);
	/* Disabled: whatever is queued is due at once. */
	assert_true(enq(DP_TM_CLASS_ROCE, mk(), 1000, t0, NULL));
	conf.enabled = false;
	assert_int_equal(tm_next_due(&tp, &conf, t0, NULL), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_strict_priority, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_byte_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shaper_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shaper_rate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_red_threshold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_red_ramp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sojourn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_generation, setup, teardown),
	};
	int rc;

	(void)argc;
	if (ut_eal_init(argv[0], "ut_tm", 128) != 0)
		return 1;
	if (dp_mbuf_meta_register() != 0) {
		fprintf(stderr, "cannot register the mbuf dynamic field\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("ut_tm", 4095, 0, 0, 256, SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "cannot create the mbuf pool\n");
		return 1;
	}
	rc = cmocka_run_group_tests_name("dataplane_tm", tests, NULL, NULL);
	rte_mempool_free(pool);
	ut_eal_fini();
	return rc;
}
