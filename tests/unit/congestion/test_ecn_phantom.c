/* SPDX-License-Identifier: BSD-3-Clause */
/* Phantom queue: drain arithmetic, marking threshold, cap, long idle. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "congestion/ecn_phantom.h"

/* 100 Gb/s at 95%: 11.875 bytes per ns. Threshold 10 KB, cap 2 x 10 KB. */
static const struct ecn_phantom_params p100 = {
	.line_rate_bps = 100000000000ull, .ratio_ppm = 950000, .threshold_bytes = 10000,
};

static void
test_validation(void **state)
{
	struct ecn_phantom_config c;
	struct ecn_phantom_params p = p100;

	(void)state;
	assert_int_equal(ecn_phantom_config_init(&c, &p), 0);
	assert_int_equal(c.drain_q32_per_ns, 51002736640ull); /* 11.875 * 2^32, exact */
	assert_int_equal(c.cap_q32, 20000ull << 32);
	assert_int_equal(c.full_drain_ns, 1685); /* 20000 / 11.875 = 1684.2, + 1 */
	p.ratio_ppm = 0;
	assert_int_equal(ecn_phantom_config_init(&c, &p), -EINVAL);
	p.ratio_ppm = 1000001;
	assert_int_equal(ecn_phantom_config_init(&c, &p), -EINVAL);
	p = p100;
	p.line_rate_bps = 0;
	assert_int_equal(ecn_phantom_config_init(&c, &p), -EINVAL);
	p = p100;
	p.cap_bytes = 10000; /* not above the threshold */
	assert_int_equal(ecn_phantom_config_init(&c, &p), -EINVAL);
	p.cap_bytes = ECN_PHANTOM_MAX_CAP_BYTES + 1;
	assert_int_equal(ecn_phantom_config_init(&c, &p), -EINVAL);
	p = p100;
	p.threshold_bytes = 0;
	assert_int_equal(ecn_phantom_config_init(&c, &p), -EINVAL);
}

static void
test_drain_math(void **state)
{
	struct ecn_phantom_config c;
	struct ecn_phantom v;

	(void)state;
	assert_int_equal(ecn_phantom_config_init(&c, &p100), 0);
	ecn_phantom_init(&v, 1000);
	assert_int_equal(ecn_phantom_decide(&c, &v, 1500, 1000), ECN_VERDICT_PASS);
	assert_int_equal(v.vq_q32, 1500ull << 32);
	/* 100 ns later: 1500 - 1187.5 = 312.5 bytes, then + 1500. */
	assert_int_equal(ecn_phantom_decide(&c, &v, 1500, 1100), ECN_VERDICT_PASS);
	assert_int_equal(v.vq_q32, (18125ull << 32) / 10);
	assert_int_equal(ecn_phantom_bytes(&c, &v, 1100), 1812);
	/* 152 ns more drains 1805 bytes: 7.5 left. */
	assert_int_equal(ecn_phantom_bytes(&c, &v, 1252), 7);
	/* Never below zero. */
	assert_int_equal(ecn_phantom_bytes(&c, &v, 1253), 0);
	assert_int_equal(v.vq_q32, 0);
	/* A clock that goes back changes nothing. */
	assert_int_equal(ecn_phantom_decide(&c, &v, 100, 1200), ECN_VERDICT_PASS);
	assert_int_equal(v.last_ns, 1253);
	assert_int_equal(ecn_phantom_bytes(&c, &v, 1253), 100);
}

static void
test_line_rate_marks(void **state)
{
	struct ecn_phantom_config c;
	struct ecn_phantom v;
	unsigned int k, first = 0, marks = 0;

	(void)state;
	assert_int_equal(ecn_phantom_config_init(&c, &p100), 0);
	ecn_phantom_init(&v, 0);
	/* 1500 B every 120 ns is exactly 100 Gb/s: the phantom queue gains
	 * 1500 - 120 * 11.875 = 75 B per packet, 1500 + 75 (k - 1) after the
	 * k-th, so it first exceeds 10000 at k = 115 (10050 B). */
	for (k = 1; k <= 400; k++) {
		if (ecn_phantom_decide(&c, &v, 1500, (k - 1) * 120ull) == ECN_VERDICT_MARK) {
			if (first == 0)
				first = k;
			marks++;
		}
		assert_true(v.vq_q32 <= c.cap_q32);
	}
	assert_int_equal(first, 115);
	assert_int_equal(marks, 400 - 114);
	assert_int_equal(v.vq_q32, c.cap_q32); /* pinned at the cap */
}

static void
test_below_ratio_never_marks(void **state)
{
	struct ecn_phantom_config c;
	struct ecn_phantom v;
	unsigned int k;

	(void)state;
	assert_int_equal(ecn_phantom_config_init(&c, &p100), 0);
	ecn_phantom_init(&v, 0);
	/* 1500 B every 135 ns = 88.9 Gb/s, below the 95 Gb/s drain. */
	for (k = 0; k < 100000; k++)
		assert_int_equal(ecn_phantom_decide(&c, &v, 1500, k * 135ull), ECN_VERDICT_PASS);
	assert_int_equal(ecn_phantom_bytes(&c, &v, 100000 * 135ull), 0);
}

static void
test_long_idle_and_wrap(void **state)
{
	struct ecn_phantom_params p = p100;
	struct ecn_phantom_config c;
	struct ecn_phantom v;
	uint64_t t0 = UINT64_MAX - 500; /* the caller's clock is about to wrap */

	(void)state;
	p.line_rate_bps = 1000000; /* 1 Mb/s: 1/8000 byte per ns */
	p.ratio_ppm = 1000000;
	assert_int_equal(ecn_phantom_config_init(&c, &p), 0);
	ecn_phantom_init(&v, t0);
	assert_int_equal(ecn_phantom_decide(&c, &v, 9000, t0), ECN_VERDICT_PASS);
	/* 1.25e-4 B/ns is 536870.9 in Q32, rounded to 536871. */
	assert_int_equal(c.drain_q32_per_ns, 536871);
	/* 1000 ns later, across the wrap: 0.125 byte drained (to 2e-7 B). */
	assert_int_equal(ecn_phantom_decide(&c, &v, 1001, t0 + 1000), ECN_VERDICT_MARK);
	assert_int_equal(v.vq_q32, (10001ull << 32) - 1000 * 536871ull);
	/* Years of idle: empty, no overflow. */
	assert_int_equal(ecn_phantom_bytes(&c, &v, t0 + (1ull << 62)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validation),
		cmocka_unit_test(test_drain_math),
		cmocka_unit_test(test_line_rate_marks),
		cmocka_unit_test(test_below_ratio_never_marks),
		cmocka_unit_test(test_long_idle_and_wrap),
	};

	return cmocka_run_group_tests_name("ecn_phantom", tests, NULL, NULL);
}
