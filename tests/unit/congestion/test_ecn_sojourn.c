/* SPDX-License-Identifier: BSD-3-Clause */
/* Sojourn-time marking: thresholds and the CoDel-like schedule. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "congestion/ecn_sojourn.h"

#define US 1000ull
#define MS 1000000ull

static void
test_validation(void **state)
{
	struct ecn_sojourn_config c;
	struct ecn_sojourn_params p = { .target_ns = 0 };

	(void)state;
	assert_int_equal(ecn_sojourn_config_init(&c, &p), -EINVAL);
	p.target_ns = 100 * US;
	p.interval_ns = 50 * US; /* shorter than the target */
	assert_int_equal(ecn_sojourn_config_init(&c, &p), -EINVAL);
	p.interval_ns = 100 * US;
	assert_int_equal(ecn_sojourn_config_init(&c, &p), 0);
	p.interval_ns = 0;
	assert_int_equal(ecn_sojourn_config_init(&c, &p), 0);
}

static void
test_threshold_exact(void **state)
{
	struct ecn_sojourn_params p = { .target_ns = 142858 };
	struct ecn_sojourn_config c;
	struct ecn_sojourn s;

	(void)state;
	assert_int_equal(ecn_sojourn_config_init(&c, &p), 0);
	ecn_sojourn_init(&s);
	assert_int_equal(ecn_sojourn_decide(&c, &s, 0, 0), ECN_VERDICT_PASS);
	assert_int_equal(ecn_sojourn_decide(&c, &s, 142857, 1), ECN_VERDICT_PASS);
	assert_int_equal(ecn_sojourn_decide(&c, &s, 142858, 2), ECN_VERDICT_PASS); /* not above */
	assert_int_equal(ecn_sojourn_decide(&c, &s, 142859, 3), ECN_VERDICT_MARK);
	assert_int_equal(ecn_sojourn_decide(&c, &s, UINT64_MAX, 4), ECN_VERDICT_MARK);
	/* Stateless: the same answers again, in any order. */
	assert_int_equal(ecn_sojourn_decide(&c, &s, 142858, 5), ECN_VERDICT_PASS);
}

/* Feed one packet every 10 us from t0 to t1 (exclusive) with a fixed sojourn. */
static unsigned int
feed(const struct ecn_sojourn_config *c, struct ecn_sojourn *s, uint64_t t0, uint64_t t1,
		uint64_t sojourn, uint64_t *marks_at, unsigned int max_marks)
{
	unsigned int n = 0;
	uint64_t t;

	for (t = t0; t < t1; t += 10 * US) {
		if (ecn_sojourn_decide(c, s, sojourn, t) == ECN_VERDICT_MARK) {
			if (n < max_marks)
				marks_at[n] = t;
			n++;
		}
	}
	return n;
}

static void
test_codel_schedule(void **state)
{
	struct ecn_sojourn_params p = { .target_ns = 100 * US, .interval_ns = 1 * MS };
	struct ecn_sojourn_config c;
	struct ecn_sojourn s;
	uint64_t at[8];
	unsigned int n;

	(void)state;
	assert_int_equal(ecn_sojourn_config_init(&c, &p), 0);
	ecn_sojourn_init(&s);

	/* Above target from t = 0: nothing for a whole interval, then marks
	 * spaced interval / sqrt(count): 1 ms, then 1 ms / sqrt(2) = 707113 ns
	 * (sqrt in Q16), then 1 ms / sqrt(3) = 577353 ns, each taken by the
	 * first packet at or after the scheduled time. */
	n = feed(&c, &s, 0, 3500 * US, 200 * US, at, 8);
	assert_int_equal(n, 4);
	assert_int_equal(at[0], 1 * MS);
	assert_int_equal(at[1], 2 * MS);
	assert_int_equal(at[2], 2710 * US); /* due 2707113 */
	assert_int_equal(at[3], 3290 * US); /* due 3284466 */
	assert_int_equal(s.count, 4);
	assert_int_equal(s.next_mark_ns, 3284466ull + 500000ull); /* + 1 ms / sqrt(4) */

	/* The queue drains: the episode ends at once. */
	assert_int_equal(ecn_sojourn_decide(&c, &s, 50 * US, 3500 * US), ECN_VERDICT_PASS);
	assert_false(s.marking);

	/* It builds again 100 us later: another full interval of grace, then
	 * marking resumes with the last episode's marks beyond its first
	 * (count 4 - 1 = 3) instead of starting gently at 1. */
	n = feed(&c, &s, 3600 * US, 4600 * US, 200 * US, at, 8);
	assert_int_equal(n, 0);
	assert_int_equal(ecn_sojourn_decide(&c, &s, 200 * US, 4600 * US), ECN_VERDICT_MARK);
	assert_int_equal(s.count, 3);
	assert_int_equal(s.next_mark_ns, 4600 * US + 577353);
}

static void
test_codel_burst_passes(void **state)
{
	struct ecn_sojourn_params p = { .target_ns = 100 * US, .interval_ns = 1 * MS };
	struct ecn_sojourn_config c;
	struct ecn_sojourn s;
	uint64_t at[1];

	(void)state;
	assert_int_equal(ecn_sojourn_config_init(&c, &p), 0);
	ecn_sojourn_init(&s);
	/* 900 us above target, then one packet below: never marked. */
	assert_int_equal(feed(&c, &s, 0, 900 * US, 300 * US, at, 1), 0);
	assert_int_equal(ecn_sojourn_decide(&c, &s, 10 * US, 900 * US), ECN_VERDICT_PASS);
	assert_int_equal(feed(&c, &s, 910 * US, 1800 * US, 300 * US, at, 1), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validation),
		cmocka_unit_test(test_threshold_exact),
		cmocka_unit_test(test_codel_schedule),
		cmocka_unit_test(test_codel_burst_passes),
	};

	return cmocka_run_group_tests_name("ecn_sojourn", tests, NULL, NULL);
}
