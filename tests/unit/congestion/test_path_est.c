/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The path estimator (congestion/path_est.h): RTT and offset of NTP-style
 * exchanges whatever the clock offset, RFC 3550 jitter, loss and
 * reordering from sequence counters, and the RTT hysteresis.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "congestion/path_est.h"

/*
 * An exchange over a path with forward delay fwd and backward delay back
 * (ns), the peer's clock = ours + offset, the peer holding the echo for
 * hold ns; t1 at our time a.
 */
static struct path_ntp_sample
exchange(uint64_t a, int64_t offset, uint64_t fwd, uint64_t back, uint64_t hold)
{
	struct path_ntp_sample s;

	s.t1_ns = a;
	s.t2_ns = (uint64_t)((int64_t)(a + fwd) + offset);
	s.t3_ns = s.t2_ns + hold;
	s.t4_ns = a + fwd + hold + back;
	return s;
}

/* The offset cancels: any offset, positive or negative, gives the same RTT. */
static void
test_ntp_offset_cancelled(void **state)
{
	static const int64_t offsets[] = { 0, 1, -1, 123456789, -987654321,
					   (int64_t)3600 * 1000000000, -(int64_t)3600 * 1000000000 };
	static const uint64_t delays[] = { 100000, 1000000, 5000000 };
	int64_t rtt, off;

	(void)state;
	for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++)
		for (size_t j = 0; j < sizeof(delays) / sizeof(delays[0]); j++) {
			struct path_ntp_sample s = exchange(UINT64_C(1700000000000000000),
							    offsets[i], delays[j], delays[j],
							    37000);

			assert_true(path_ntp(&s, &rtt, &off));
			assert_int_equal(rtt, 2 * (int64_t)delays[j]);
			assert_int_equal(off, offsets[i]);
		}
}

/* An asymmetric path: the RTT is exact, the offset is off by half the asymmetry (RFC 5905). */
static void
test_ntp_asymmetry(void **state)
{
	struct path_ntp_sample s = exchange(1000000000, 5000, 1000000, 1200000, 0);
	int64_t rtt, off;

	(void)state;
	assert_true(path_ntp(&s, &rtt, &off));
	assert_int_equal(rtt, 2200000);
	assert_int_equal(off, 5000 - 100000);
}

/* Clocks near the wrap of 64 bits still give the right answer. */
static void
test_ntp_wrap(void **state)
{
	struct path_ntp_sample s = exchange(UINT64_MAX - 500000, -2000000000, 1000000, 1000000, 10);
	int64_t rtt, off;

	(void)state;
	assert_true(path_ntp(&s, &rtt, &off));
	assert_int_equal(rtt, 2000000);
	assert_int_equal(off, -2000000000);
}

/* Impossible samples (a forged or corrupted echo) are refused, not averaged in. */
static void
test_ntp_impossible(void **state)
{
	struct path_ntp_sample s = exchange(1000000000, 0, 1000, 1000, 100);
	int64_t rtt, off;

	(void)state;
	s.t4_ns = s.t1_ns - 1; /* received before it was sent */
	assert_false(path_ntp(&s, &rtt, &off));
	s = exchange(1000000000, 0, 1000, 1000, 100);
	s.t3_ns = s.t2_ns - 1; /* the peer sent before it received */
	assert_false(path_ntp(&s, &rtt, &off));
	s = exchange(1000000000, 0, 1000, 1000, 100);
	s.t3_ns = s.t2_ns + 1000000; /* held longer than the whole round trip */
	assert_false(path_ntp(&s, &rtt, &off));
}

/*
 * RFC 3550 jitter: a constant transit has none, whatever the offset in
 * it; transits alternating by D converge to D (J += (|D| - J) / 16).
 */
static void
test_jitter(void **state)
{
	struct path_jitter j = { 0 };
	unsigned int i;

	(void)state;
	for (i = 0; i < 100; i++)
		path_jitter_update(&j, -5000000000 + 1000000);
	assert_int_equal(path_jitter_ns(&j), 0);
	for (i = 0; i < 400; i++)
		path_jitter_update(&j, 1000000 + (i % 2 ? 20000 : 0));
	assert_in_range(path_jitter_ns(&j), 19000, 20000);
	/* One step of a fresh estimator: |D| / 16. */
	j = (struct path_jitter){ 0 };
	path_jitter_update(&j, 0);
	path_jitter_update(&j, 160000);
	assert_int_equal(path_jitter_ns(&j), 10000);
}

/* Loss: lost = gaps - reorder out of received + lost; reordering is counted apart. */
static void
test_loss_reorder(void **state)
{
	struct path_seq_counts a = { 1000, 10, 2 }, b;
	uint32_t loss, reorder;
	uint64_t expected;

	(void)state;
	/* 990 arrived, 12 skipped, 2 of those arrived late: 10 lost of 1000. */
	b = (struct path_seq_counts){ 1000 + 990, 10 + 12, 2 + 2 };
	assert_true(path_loss(&a, &b, &loss, &reorder, &expected));
	assert_int_equal(expected, 1000);
	assert_int_equal(loss, 10000); /* 1% */
	assert_int_equal(reorder, 2000);
	/* Nothing arrived and nothing is missing: no reading. */
	assert_false(path_loss(&b, &b, &loss, &reorder, &expected));
	/* More reordered than skipped (duplicates): no negative loss. */
	b = (struct path_seq_counts){ 1100, 10, 7 };
	assert_true(path_loss(&a, &b, &loss, &reorder, &expected));
	assert_int_equal(loss, 0);
	assert_int_equal(expected, 100);
}

/* Hysteresis: 10% for 3 intervals, the first measurement at once. */
static void
test_hysteresis(void **state)
{
	const struct path_hyst_params p = { PATH_HYST_BAND_PPM, PATH_HYST_INTERVALS,
					     PATH_HYST_NOISE_MULT };
	struct path_hyst h = { 0 };

	(void)state;
	assert_int_equal(path_hyst_update(&h, &p, 0, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 1000000, 0), PATH_HYST_FIRST);
	assert_int_equal(h.applied_ns, 1000000);
	/* Inside the band: never moves. */
	for (int i = 0; i < 10; i++)
		assert_int_equal(path_hyst_update(&h, &p, i % 2 ? 1100000 : 900000, 0), PATH_HYST_KEEP);
	/* Outside twice, back inside: the count starts over. */
	assert_int_equal(path_hyst_update(&h, &p, 1200000, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 1200000, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 1050000, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 1200000, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 1200000, 0), PATH_HYST_KEEP);
	assert_int_equal(h.applied_ns, 1000000);
	/* The third interval in a row outside: applied. */
	assert_int_equal(path_hyst_update(&h, &p, 1250000, 0), PATH_HYST_CHANGE);
	assert_int_equal(h.applied_ns, 1250000);
	/* 10 km -> 100 km: 98 us -> 980 us moves after three intervals, and once. */
	h = (struct path_hyst){ .applied_ns = 98000 };
	assert_int_equal(path_hyst_update(&h, &p, 980000, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 981000, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 979000, 0), PATH_HYST_CHANGE);
	assert_int_equal(path_hyst_update(&h, &p, 980000, 0), PATH_HYST_KEEP);
	assert_int_equal(h.changes, 1);
	/*
	 * A short path whose measurement is noisier than 10% of it (10 km,
	 * 98 us, read 200-390 us with 100 us of jitter): noise never moves it,
	 * the step to 100 km does.
	 */
	h = (struct path_hyst){ .applied_ns = 300000 };
	for (int i = 0; i < 12; i++)
		assert_int_equal(path_hyst_update(&h, &p, i % 3 ? 200000 : 390000, 100000),
				 PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 1100000, 100000), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 1100000, 100000), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 1100000, 100000), PATH_HYST_CHANGE);
	assert_int_equal(h.applied_ns, 1100000);
	/* Without the noise the same readings are outside 10%: they move it. */
	h = (struct path_hyst){ .applied_ns = 300000 };
	for (int i = 0; i < 3; i++)
		assert_int_equal(path_hyst_update(&h, &p, 200000, 0),
				 i < 2 ? PATH_HYST_KEEP : PATH_HYST_CHANGE);
	/*
	 * Two intervals of noise outside the band just before the 10 -> 100 km
	 * step, then the step's own interval (its smallest sample half on the old
	 * path, 950 us): no run of three that agree, so nothing moves to 950 us;
	 * the 100 km readings that follow move it, to one of theirs.
	 */
	h = (struct path_hyst){ .applied_ns = 293627 };
	assert_int_equal(path_hyst_update(&h, &p, 330000, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 335000, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 950043, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 1092153, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 1080000, 0), PATH_HYST_CHANGE);
	assert_int_equal(h.applied_ns, 1080000);
	assert_int_equal(h.changes, 1);
	/* Outside on both sides in turn: noise around the value in use, never a run. */
	h = (struct path_hyst){ .applied_ns = 1000000 };
	for (int i = 0; i < 9; i++)
		assert_int_equal(path_hyst_update(&h, &p, i % 2 ? 1150000 : 850000, 0),
				 PATH_HYST_KEEP);
	assert_int_equal(h.applied_ns, 1000000);
	/* Far apart on one side (a path still moving): each one starts the run over. */
	h = (struct path_hyst){ .applied_ns = 1000000 };
	assert_int_equal(path_hyst_update(&h, &p, 1500000, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 2500000, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 4000000, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 4100000, 0), PATH_HYST_KEEP);
	assert_int_equal(path_hyst_update(&h, &p, 4050000, 0), PATH_HYST_CHANGE);
	assert_int_equal(h.applied_ns, 4050000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ntp_offset_cancelled), cmocka_unit_test(test_ntp_asymmetry),
		cmocka_unit_test(test_ntp_wrap),	     cmocka_unit_test(test_ntp_impossible),
		cmocka_unit_test(test_jitter),		     cmocka_unit_test(test_loss_reorder),
		cmocka_unit_test(test_hysteresis),
	};

	return cmocka_run_group_tests_name("path_est", tests, NULL, NULL);
}
