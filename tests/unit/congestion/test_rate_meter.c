/* SPDX-License-Identifier: BSD-3-Clause */
/* congestion/rate_meter.h: windows of at least 16 us and 8 KB, unknown after 1 ms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "congestion/rate_meter.h"

/* Packets of len bytes every gap_ns from t0, n of them; returns the time of the last. */
static uint64_t
feed(struct rate_meter *m, uint64_t t0, uint64_t gap_ns, uint32_t len, unsigned int n)
{
	uint64_t t = t0;

	for (unsigned int i = 0; i < n; i++, t += gap_ns)
		rate_meter_add(m, len, t);
	return t - gap_ns;
}

/* 10 Gb/s of 1000-byte packets (one every 800 ns): a window closes at 16 us. */
static void
test_fast(void **state)
{
	struct rate_meter m = { 0 };

	(void)state;
	feed(&m, 1000000, 800, 1000, 20); /* 0 .. 15.2 us: still open */
	assert_int_equal(m.rate_bps, 0);
	feed(&m, 1000000 + 20 * 800, 800, 1000, 1); /* at 16 us: 20 packets in 16 us */
	assert_int_equal(m.rate_bps, UINT64_C(10000000000));
	assert_int_equal(m.start_ns, 1000000 + 16000);
	assert_int_equal(m.bytes, 1000);
}

/* 125 Mb/s (a 1000-byte packet every 64 us): the window waits for 8 KB. */
static void
test_slow(void **state)
{
	struct rate_meter m = { 0 };

	(void)state;
	feed(&m, 0, 64000, 1000, 9); /* 8 packets in 512 us; the 9th would close 8000 < 8192 */
	assert_int_equal(m.rate_bps, 0);
	rate_meter_add(&m, 1000, 9 * 64000); /* 9 packets, 9000 bytes by 576 us */
	assert_int_equal(m.rate_bps, UINT64_C(9000) * 8000000000u / 576000);
	assert_true(m.rate_bps > 120000000 && m.rate_bps < 130000000);
}

/* A window open 1 ms is dropped: the QP paused, its rate is unknown again. */
static void
test_idle(void **state)
{
	struct rate_meter m = { 0 };
	uint64_t t;

	(void)state;
	t = feed(&m, 0, 800, 1000, 21);
	assert_true(m.rate_bps != 0);
	rate_meter_add(&m, 1000, t + 1000000); /* one more packet 1 ms later */
	assert_int_equal(m.rate_bps, 0);
	assert_int_equal(m.start_ns, t + 1000000);
	assert_int_equal(m.bytes, 1000);
	/* And it measures again from there. */
	feed(&m, t + 1000000 + 800, 800, 1000, 20);
	assert_int_equal(m.rate_bps, UINT64_C(10000000000));
}

/* 1.6 Tb/s for just under 1 ms: the product stays within 64 bits. */
static void
test_no_overflow(void **state)
{
	struct rate_meter m = { 0 };

	(void)state;
	rate_meter_add(&m, 9000, 0);
	m.bytes = UINT64_C(199000000); /* 199 MB in the open window */
	rate_meter_add(&m, 9000, 999999);
	assert_int_equal(m.rate_bps, UINT64_C(199000000) * 8000000000u / 999999);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast),
		cmocka_unit_test(test_slow),
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_no_overflow),
	};

	return cmocka_run_group_tests_name("congestion_rate_meter", tests, NULL, NULL);
}
