/* SPDX-License-Identifier: BSD-3-Clause */
/* Token bucket: exact Q32 arithmetic, debt, TSC units, long idle, rate changes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "congestion/token_bucket.h"

#define NS_HZ 1000000000ull

static void
test_validation(void **state)
{
	struct token_bucket_config c;

	(void)state;
	assert_int_equal(token_bucket_config_init(&c, 0, 1000, NS_HZ), -EINVAL);
	assert_int_equal(token_bucket_config_init(&c, 1000, 0, NS_HZ), -EINVAL);
	assert_int_equal(token_bucket_config_init(&c, 1000, 1000, 0), -EINVAL);
	assert_int_equal(token_bucket_config_init(&c, 1000, TOKEN_BUCKET_MAX_BURST_BYTES + 1,
			NS_HZ), -EINVAL);
	/* Slower than 2^-33 bytes per tick rounds to 0. */
	assert_int_equal(token_bucket_config_init(&c, 1, 1000, 8 * NS_HZ), -EINVAL);
	assert_int_equal(token_bucket_config_init(&c, 1, 1000, NS_HZ), 0);
	assert_int_equal(token_bucket_config_init(&c, 1600000000000ull, 1000, NS_HZ), 0);
}

static void
test_exact_one_byte_per_ns(void **state)
{
	struct token_bucket_config c;
	struct token_bucket tb;

	(void)state;
	/* 8 Gb/s in ns ticks is exactly 1 byte per tick. */
	assert_int_equal(token_bucket_config_init(&c, 8000000000ull, 1000, NS_HZ), 0);
	assert_int_equal(c.rate_q32, 1ull << 32);
	token_bucket_init(&c, &tb, 100);
	assert_int_equal(token_bucket_tokens(&c, &tb, 100), 1000);
	assert_true(token_bucket_conform(&c, &tb, 1000, 100, false));
	assert_false(token_bucket_conform(&c, &tb, 1, 100, false));
	assert_int_equal(token_bucket_wait(&c, &tb, 1, 100, false), 1);
	assert_int_equal(token_bucket_wait(&c, &tb, 600, 100, false), 600);
	assert_int_equal(token_bucket_tokens(&c, &tb, 600), 500);
	assert_false(token_bucket_conform(&c, &tb, 600, 600, false));
	assert_int_equal(token_bucket_wait(&c, &tb, 600, 600, false), 100);
	assert_true(token_bucket_conform(&c, &tb, 600, 700, false));
	/* Full after long idle, never above the burst. */
	assert_int_equal(token_bucket_tokens(&c, &tb, 1000000), 1000);
	/* Bigger than the burst: never without debt. */
	assert_int_equal(token_bucket_wait(&c, &tb, 1001, 1000000, false), UINT64_MAX);
}

static void
test_debt(void **state)
{
	struct token_bucket_config c;
	struct token_bucket tb;

	(void)state;
	assert_int_equal(token_bucket_config_init(&c, 8000000000ull, 1000, NS_HZ), 0);
	token_bucket_init(&c, &tb, 0);
	/* A 9000 B jumbo goes on a positive balance and leaves 8000 B of debt. */
	assert_true(token_bucket_conform(&c, &tb, 9000, 0, true));
	assert_int_equal(token_bucket_tokens(&c, &tb, 0), -8000);
	assert_false(token_bucket_conform(&c, &tb, 64, 0, true));
	/* Positive again one tick after the debt is repaid. */
	assert_int_equal(token_bucket_wait(&c, &tb, 64, 0, true), 8001);
	assert_false(token_bucket_conform(&c, &tb, 64, 8000, true));
	assert_true(token_bucket_conform(&c, &tb, 64, 8001, true));
	token_bucket_charge(&c, &tb, 100, 8001);
	assert_int_equal(token_bucket_tokens(&c, &tb, 8001), -163);
}

static void
test_tsc_rate_accuracy(void **state)
{
	struct token_bucket_config c;
	struct token_bucket tb;
	uint64_t hz = 2999999937ull; /* an odd TSC frequency */
	uint64_t t = 5, sent = 0, end = hz; /* one second */
	double err;

	(void)state;
	assert_int_equal(token_bucket_config_init(&c, 100000000000ull, 16384, hz), 0);
	token_bucket_init(&c, &tb, t);
	/* A shaper that sends 1500 B packets as soon as they conform. */
	while (t < end) {
		uint64_t w = token_bucket_wait(&c, &tb, 1500, t, false);

		if (w != 0) {
			t += w;
			continue;
		}
		assert_true(token_bucket_conform(&c, &tb, 1500, t, false));
		sent += 1500;
	}
	/* 12.5 GB plus the initial burst, to one packet and 1e-6 of the rate. */
	err = (double)sent - (12.5e9 + 16384);
	assert_true(err < 1500 + 12.5e3 && err > -1500 - 12.5e3);
}

static void
test_wrap_and_idle(void **state)
{
	struct token_bucket_config c;
	struct token_bucket tb;
	uint64_t t0 = UINT64_MAX - 10;

	(void)state;
	assert_int_equal(token_bucket_config_init(&c, 1600000000000ull, 1 << 30, NS_HZ), 0);
	token_bucket_init(&c, &tb, t0);
	token_bucket_charge(&c, &tb, UINT32_MAX, t0); /* deepest debt */
	assert_true(token_bucket_tokens(&c, &tb, t0) < 0);
	/* 200 B/ns; 20 ticks across the wrap earn 4000 B. */
	{
		int64_t before = token_bucket_tokens(&c, &tb, t0);

		assert_int_equal(token_bucket_tokens(&c, &tb, t0 + 20), before + 4000);
	}
	/* Centuries later: full, no overflow. */
	assert_int_equal(token_bucket_tokens(&c, &tb, t0 + (1ull << 62)), 1 << 30);
}

static void
test_set_rate_keeps_balance(void **state)
{
	struct token_bucket_config c;
	struct token_bucket tb;

	(void)state;
	assert_int_equal(token_bucket_config_init(&c, 8000000000ull, 10000, NS_HZ), 0);
	token_bucket_init(&c, &tb, 0);
	assert_true(token_bucket_conform(&c, &tb, 10000, 0, false));
	/* 100 ticks at 1 B/ns, then the rate doubles. */
	assert_int_equal(token_bucket_set_rate(&c, &tb, 16000000000ull, 100), 0);
	assert_int_equal(token_bucket_tokens(&c, &tb, 100), 100);
	assert_int_equal(token_bucket_tokens(&c, &tb, 200), 300);
	assert_int_equal(c.rate_bps, 16000000000ull);
	assert_int_equal(token_bucket_set_rate(&c, &tb, 0, 300), -EINVAL);
	assert_int_equal(c.rate_bps, 16000000000ull);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validation),
		cmocka_unit_test(test_exact_one_byte_per_ns),
		cmocka_unit_test(test_debt),
		cmocka_unit_test(test_tsc_rate_accuracy),
		cmocka_unit_test(test_wrap_and_idle),
		cmocka_unit_test(test_set_rate_keeps_balance),
	};

	return cmocka_run_group_tests_name("token_bucket", tests, NULL, NULL);
}
