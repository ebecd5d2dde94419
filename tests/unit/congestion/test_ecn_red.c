/* SPDX-License-Identifier: BSD-3-Clause */
/* RED on instantaneous queue bytes: exact fixed point, seeded trials. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "congestion/cc_math.h"
#include "congestion/ecn_red.h"

/* Alibaba's 25G production setting: 100 KB / 400 KB / 20%. */
static const struct ecn_red_params alibaba = {
	.kmin_bytes = 100000, .kmax_bytes = 400000, .pmax_ppm = 200000,
};

static void
test_config_validation(void **state)
{
	struct ecn_red_config c;
	struct ecn_red_params p = alibaba;

	(void)state;
	assert_int_equal(ecn_red_config_init(&c, &p), 0);
	p.kmax_bytes = p.kmin_bytes;
	assert_int_equal(ecn_red_config_init(&c, &p), -EINVAL);
	p = alibaba;
	p.pmax_ppm = 0;
	assert_int_equal(ecn_red_config_init(&c, &p), -EINVAL);
	p.pmax_ppm = 1000001;
	assert_int_equal(ecn_red_config_init(&c, &p), -EINVAL);
	p.pmax_ppm = 1000000;
	assert_int_equal(ecn_red_config_init(&c, &p), 0);
	p.kmin_bytes = 0;
	p.kmax_bytes = ECN_RED_MAX_RANGE_BYTES + 1;
	assert_int_equal(ecn_red_config_init(&c, &p), -EINVAL);
	p.kmax_bytes = ECN_RED_MAX_RANGE_BYTES;
	assert_int_equal(ecn_red_config_init(&c, &p), 0);
}

static void
test_exact_probabilities(void **state)
{
	struct ecn_red_config c;

	(void)state;
	assert_int_equal(ecn_red_config_init(&c, &alibaba), 0);
	/* Pmax = floor(0.2 * 2^32); slope = floor(Pmax * 2^16 / 300000). */
	assert_int_equal(c.pmax_q32, 858993459);
	assert_int_equal(c.slope_q48, 187649984);
	assert_int_equal(ecn_red_prob_q32(&c, 0), 0);
	assert_int_equal(ecn_red_prob_q32(&c, 100000), 0); /* q <= Kmin */
	assert_int_equal(ecn_red_prob_q32(&c, 100001), 2863); /* 2863.31 exact */
	assert_int_equal(ecn_red_prob_q32(&c, 175000), 214748364); /* 5%: 214748364.8 */
	assert_int_equal(ecn_red_prob_q32(&c, 250000), 429496728); /* 10%: 429496729.6 */
	assert_int_equal(ecn_red_prob_q32(&c, 400000), 858993457); /* 20%: 858993459.2 */
	assert_int_equal(ecn_red_prob_q32(&c, 400001), CC_Q32_ONE); /* q > Kmax */
	assert_int_equal(ecn_red_prob_q32(&c, UINT64_MAX), CC_Q32_ONE);
}

static void
test_wide_ramp_precision(void **state)
{
	/* 1% over 12.5 MB: a naive Q32 slope would be 3 units per byte (15% off). */
	struct ecn_red_params p = { .kmin_bytes = 0, .kmax_bytes = 12500000, .pmax_ppm = 10000 };
	struct ecn_red_config c;
	uint64_t mid;

	(void)state;
	assert_int_equal(ecn_red_config_init(&c, &p), 0);
	mid = ecn_red_prob_q32(&c, 6250000);
	assert_int_equal(mid, 21474742); /* ideal 21474836.48: 4.4e-6 relative */
	assert_true(mid <= 21474837 && mid >= 21474836 - 21474836 / 100000);
}

static unsigned int
count_marks(const struct ecn_red_config *c, uint64_t seed, uint64_t q, unsigned int n)
{
	struct ecn_red r;
	unsigned int i, marks = 0;

	ecn_red_init(&r, seed);
	for (i = 0; i < n; i++)
		marks += ecn_red_decide(c, &r, q) == ECN_VERDICT_MARK;
	return marks;
}

static void
test_bernoulli_trials(void **state)
{
	struct ecn_red_config c;
	const unsigned int n = 200000;
	uint64_t seed;

	(void)state;
	assert_int_equal(ecn_red_config_init(&c, &alibaba), 0);
	for (seed = 1; seed <= 4; seed++) {
		/* p = 10%: mean 20000, sigma 134; accept +-5 sigma. */
		unsigned int m = count_marks(&c, seed, 250000, n);

		assert_in_range(m, 20000 - 670, 20000 + 670);
		/* p = 5%: mean 10000, sigma 97. */
		m = count_marks(&c, seed, 175000, n);
		assert_in_range(m, 10000 - 490, 10000 + 490);
		/* p = 20% at Kmax: mean 40000, sigma 179. */
		m = count_marks(&c, seed, 400000, n);
		assert_in_range(m, 40000 - 900, 40000 + 900);
	}
	assert_int_equal(count_marks(&c, 7, 100000, n), 0);
	assert_int_equal(count_marks(&c, 7, 400001, n), n);
}

static void
test_reproducible_and_independent(void **state)
{
	struct ecn_red_config c;
	struct ecn_red a, b, other;
	unsigned int i, differ = 0;

	(void)state;
	assert_int_equal(ecn_red_config_init(&c, &alibaba), 0);
	ecn_red_init(&a, 42);
	ecn_red_init(&b, 42);
	ecn_red_init(&other, 43);
	for (i = 0; i < 10000; i++) {
		enum ecn_verdict va = ecn_red_decide(&c, &a, 250000);

		assert_int_equal(va, ecn_red_decide(&c, &b, 250000));
		differ += va != ecn_red_decide(&c, &other, 250000);
	}
	assert_true(differ > 1000); /* two 10% streams disagree ~18% of the time */
}

static void
test_no_draw_off_ramp(void **state)
{
	struct ecn_red_config c;
	struct ecn_red r;
	uint64_t s;

	(void)state;
	assert_int_equal(ecn_red_config_init(&c, &alibaba), 0);
	ecn_red_init(&r, 5);
	s = r.rng.s;
	assert_int_equal(ecn_red_decide(&c, &r, 1000), ECN_VERDICT_PASS);
	assert_int_equal(ecn_red_decide(&c, &r, 500000), ECN_VERDICT_MARK);
	assert_int_equal(r.rng.s, s);
	(void)ecn_red_decide(&c, &r, 200000);
	assert_int_not_equal(r.rng.s, s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_validation),
		cmocka_unit_test(test_exact_probabilities),
		cmocka_unit_test(test_wide_ramp_precision),
		cmocka_unit_test(test_bernoulli_trials),
		cmocka_unit_test(test_reproducible_and_independent),
		cmocka_unit_test(test_no_draw_off_ramp),
	};

	return cmocka_run_group_tests_name("ecn_red", tests, NULL, NULL);
}
