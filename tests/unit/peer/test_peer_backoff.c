/* SPDX-License-Identifier: BSD-3-Clause */
/* Reconnect back-off: doubling ceilings, equal jitter, reset, no overflow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "control/peer_backoff.h"

#define MS 1000000ull

static void
test_ceilings_double_to_max(void **state)
{
	const struct peer_backoff_params p = { .min_ns = 100 * MS, .max_ns = 1600 * MS };
	static const uint64_t want[] = { 100, 200, 400, 800, 1600, 1600, 1600 };
	struct peer_backoff b;
	uint64_t now = 5000 * MS;
	unsigned int i;

	(void)state;
	peer_backoff_init(&b, 1);
	assert_int_equal(peer_backoff_ceiling_ns(&b, &p), 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint64_t at = peer_backoff_fail(&b, &p, now);
		uint64_t c = peer_backoff_ceiling_ns(&b, &p);

		assert_true(c == want[i] * MS);
		/* Equal jitter: never below half the ceiling, never above it. */
		assert_true(at - now >= c / 2 && at - now <= c);
		assert_true(at - now == b.last_delay_ns);
		now = at;
	}
	peer_backoff_reset(&b);
	assert_int_equal(b.failures, 0);
	peer_backoff_fail(&b, &p, now);
	assert_true(peer_backoff_ceiling_ns(&b, &p) == 100 * MS);
}

static void
test_jitter_spreads(void **state)
{
	const struct peer_backoff_params p = { .min_ns = 1000 * MS, .max_ns = 1000 * MS };
	struct peer_backoff a, b;
	uint64_t sum = 0, lo = UINT64_MAX, hi = 0;
	unsigned int i, same = 0;

	(void)state;
	peer_backoff_init(&a, 42);
	peer_backoff_init(&b, 43);
	for (i = 0; i < 10000; i++) {
		uint64_t da = peer_backoff_fail(&a, &p, 0);
		uint64_t db = peer_backoff_fail(&b, &p, 0);

		sum += da;
		lo = da < lo ? da : lo;
		hi = da > hi ? da : hi;
		same += da == db;
	}
	/* Uniform on [500, 1000] ms: mean 750 ms, the range nearly covered. */
	assert_true(sum / 10000 > 740 * MS && sum / 10000 < 760 * MS);
	assert_true(lo >= 500 * MS && lo < 510 * MS);
	assert_true(hi <= 1000 * MS && hi > 990 * MS);
	/* Two gateways that lost each other together do not retry in step. */
	assert_true(same < 10);
}

static void
test_same_seed_same_delays(void **state)
{
	const struct peer_backoff_params p = { .min_ns = 10 * MS, .max_ns = 10000 * MS };
	struct peer_backoff a, b;
	unsigned int i;

	(void)state;
	peer_backoff_init(&a, 7);
	peer_backoff_init(&b, 7);
	for (i = 0; i < 20; i++)
		assert_true(peer_backoff_fail(&a, &p, i) == peer_backoff_fail(&b, &p, i));
}

static void
test_no_overflow(void **state)
{
	const struct peer_backoff_params p = { .min_ns = 3, .max_ns = UINT64_MAX / 2 + 7 };
	struct peer_backoff b;
	unsigned int i;

	(void)state;
	peer_backoff_init(&b, 9);
	for (i = 0; i < 200; i++)
		peer_backoff_fail(&b, &p, 0);
	assert_true(peer_backoff_ceiling_ns(&b, &p) == p.max_ns);
	assert_true(b.last_delay_ns >= p.max_ns / 2 && b.last_delay_ns <= p.max_ns);
	/* One nanosecond of back-off stays one nanosecond. */
	{
		const struct peer_backoff_params q = { .min_ns = 1, .max_ns = 1 };

		peer_backoff_init(&b, 9);
		assert_true(peer_backoff_fail(&b, &q, 100) <= 101);
		assert_true(peer_backoff_fail(&b, &q, 100) >= 100);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ceilings_double_to_max),
		cmocka_unit_test(test_jitter_spreads),
		cmocka_unit_test(test_same_seed_same_delays),
		cmocka_unit_test(test_no_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
