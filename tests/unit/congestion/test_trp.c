/* SPDX-License-Identifier: BSD-3-Clause */
/* Mechanism C: cut, hold, ramp, release; shaping verdicts. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "congestion/trp.h"

#define US 1000ull
#define MS 1000000ull
#define G 1000000000ull

static void
setup(struct trp_config *c, struct trp *t, uint64_t hold_ns)
{
	struct trp_params p;

	trp_params_default(&p, 100 * G, hold_ns);
	assert_int_equal(trp_config_init(c, &p), 0);
	trp_init(t);
}

static void
test_defaults_and_validation(void **state)
{
	struct trp_params p;
	struct trp_config c;

	(void)state;
	trp_params_default(&p, 100 * G, 1 * MS);
	assert_int_equal(p.min_rate_bps, 100000000);
	assert_int_equal(p.cut_ppm, 500000);
	assert_int_equal(p.cut_interval_ns, 4 * US);
	assert_int_equal(p.ramp_interval_ns, 125 * US);
	assert_int_equal(p.ramp_steps, 5);
	assert_int_equal(trp_config_init(&c, &p), 0);
	p.hold_ns = 0;
	assert_int_equal(trp_config_init(&c, &p), -EINVAL);
	trp_params_default(&p, 100 * G, 1 * MS);
	p.min_rate_bps = 200 * G;
	assert_int_equal(trp_config_init(&c, &p), -EINVAL);
	trp_params_default(&p, 100 * G, 1 * MS);
	p.cut_ppm = 0;
	assert_int_equal(trp_config_init(&c, &p), -EINVAL);
	trp_params_default(&p, 100 * G, 1 * MS);
	p.burst_bytes = 0;
	assert_int_equal(trp_config_init(&c, &p), -EINVAL);
}

static void
test_timeline(void **state)
{
	struct trp_config c;
	struct trp t;
	static const uint64_t ramp[5] = {
		62500000000ull, 81250000000ull, 90625000000ull, 95312500000ull, 97656250000ull,
	};
	unsigned int i;

	(void)state;
	setup(&c, &t, 1 * MS);
	assert_false(trp_active(&c, &t, 0));
	assert_int_equal(trp_allow(&c, &t, 4096, 0).action, TRP_SEND);
	assert_int_equal(trp_rate_bps(&c, &t), 100 * G);
	assert_int_equal(trp_next_event(&t), CC_TIME_NEVER);

	/* CNP at 0 with no measurement: from line rate, cut 50%, hold 1 ms. */
	trp_on_cnp(&c, &t, 0, 0);
	assert_true(trp_active(&c, &t, 0));
	assert_int_equal(trp_rate_bps(&c, &t), 50 * G);
	assert_int_equal(trp_next_event(&t), 1 * MS);
	/* A second CNP 2 us later: too soon to cut again, the hold restarts. */
	trp_on_cnp(&c, &t, 2 * US, 0);
	assert_int_equal(trp_rate_bps(&c, &t), 50 * G);
	assert_int_equal(trp_next_event(&t), 1 * MS + 2 * US);
	/* 10 us: a second cut, hold until 1.010 ms. */
	trp_on_cnp(&c, &t, 10 * US, 0);
	assert_int_equal(trp_rate_bps(&c, &t), 25 * G);
	assert_int_equal(t.n_cut, 2);
	assert_int_equal(trp_next_event(&t), 1010 * US);
	trp_advance(&c, &t, 1010 * US - 1);
	assert_int_equal(t.phase, TRP_HOLD);

	/* Ramp: halfway to the pre-cut 100 G every 125 us, five steps, release. */
	for (i = 0; i < 5; i++) {
		uint64_t at = 1010 * US + i * 125 * US;

		assert_true(trp_active(&c, &t, at - 1));
		trp_advance(&c, &t, at);
		if (i < 4) {
			assert_int_equal(t.phase, TRP_RAMP);
			assert_int_equal(trp_rate_bps(&c, &t), ramp[i]);
			assert_int_equal(trp_next_event(&t), at + 125 * US);
		}
	}
	assert_false(trp_active(&c, &t, 1510 * US));
	assert_int_equal(t.rate_bps, ramp[4]);
	assert_int_equal(t.n_release, 1);
	assert_int_equal(trp_rate_bps(&c, &t), 100 * G);
	assert_int_equal(trp_allow(&c, &t, 9000, 1510 * US).action, TRP_SEND);
}

static void
test_shaping(void **state)
{
	struct trp_config c;
	struct trp t;
	struct trp_verdict v;
	uint64_t now, sent = 0;

	(void)state;
	setup(&c, &t, 1 * MS);
	trp_on_cnp(&c, &t, 0, 0); /* 50 G = 6.25 B/ns, bucket 8192 B */
	assert_int_equal(trp_allow(&c, &t, 4096, 0).action, TRP_SEND);
	assert_int_equal(trp_allow(&c, &t, 4096, 0).action, TRP_SEND);
	v = trp_allow(&c, &t, 4096, 0);
	assert_int_equal(v.action, TRP_DELAY);
	assert_int_equal(v.until_ns, 1); /* any positive balance will do */
	assert_int_equal(trp_allow(&c, &t, 4096, 1).action, TRP_SEND);
	/* Debt of 4089.75 B: positive again after 655 ns. */
	v = trp_allow(&c, &t, 4096, 1);
	assert_int_equal(v.action, TRP_DELAY);
	assert_int_equal(v.until_ns, 1 + 655);

	/* Greedy sender for 900 us: 50 G x 900 us = 5.625 MB, within a packet. */
	for (now = 100 * US; now < 1000 * US;) {
		v = trp_allow(&c, &t, 4096, now);
		if (v.action == TRP_SEND) {
			sent += 4096;
		} else {
			assert_true(v.until_ns > now);
			now = v.until_ns;
		}
	}
	assert_in_range(sent, 5625000 - 4096, 5625000 + 8192 + 4096);
}

static void
test_measured_rate_and_release_at_target(void **state)
{
	struct trp_params p;
	struct trp_config c;
	struct trp t;
	uint64_t now;

	(void)state;
	trp_params_default(&p, 100 * G, 1 * MS);
	p.ramp_steps = 64;
	assert_int_equal(trp_config_init(&c, &p), 0);
	trp_init(&t);
	/* The QP was arriving at 40 G: cut from there, aim back at 40 G. */
	trp_on_cnp(&c, &t, 0, 40 * G);
	assert_int_equal(trp_rate_bps(&c, &t), 20 * G);
	assert_int_equal(t.target_bps, 40 * G);
	for (now = 1 * MS; trp_active(&c, &t, now); now += 125 * US)
		assert_true(t.steps < 64);
	/* Released because the rate reached the target: each step leaves
	 * floor(gap / 2), and 20e9 halves to 0 in 35 steps (2^35 > 2e10). */
	assert_int_equal(t.rate_bps, 40 * G);
	assert_int_equal(t.steps, 35);
	/* A measurement above line rate is capped. */
	trp_on_cnp(&c, &t, 100 * MS, 400 * G);
	assert_int_equal(trp_rate_bps(&c, &t), 50 * G);
}

static void
test_cnp_during_ramp(void **state)
{
	struct trp_config c;
	struct trp t;

	(void)state;
	setup(&c, &t, 1 * MS);
	trp_on_cnp(&c, &t, 0, 0);
	trp_advance(&c, &t, 1125 * US); /* steps at 1.0 and 1.125 ms: 75 G, 87.5 G */
	assert_int_equal(t.phase, TRP_RAMP);
	assert_int_equal(trp_rate_bps(&c, &t), 87500000000ull);
	/* The ramp overshot: aim at 87.5 G now, cut to 43.75 G, hold again. */
	trp_on_cnp(&c, &t, 1200 * US, 0);
	assert_int_equal(t.phase, TRP_HOLD);
	assert_int_equal(t.target_bps, 87500000000ull);
	assert_int_equal(trp_rate_bps(&c, &t), 43750000000ull);
	assert_int_equal(trp_next_event(&t), 2200 * US);
	/* A lower measurement wins over the shaping rate. */
	trp_on_cnp(&c, &t, 1300 * US, 10 * G);
	assert_int_equal(trp_rate_bps(&c, &t), 5 * G);
}

static void
test_delay_capped_at_next_event(void **state)
{
	struct trp_params p;
	struct trp_config c;
	struct trp t;
	struct trp_verdict v;

	(void)state;
	trp_params_default(&p, 100 * G, 10 * US);
	p.min_rate_bps = 1 * G; /* 0.125 B/ns */
	p.cut_ppm = 999999; /* cut to the floor */
	assert_int_equal(trp_config_init(&c, &p), 0);
	trp_init(&t);
	trp_on_cnp(&c, &t, 0, 0);
	assert_int_equal(trp_rate_bps(&c, &t), 1 * G);
	assert_int_equal(trp_allow(&c, &t, 8192, 0).action, TRP_SEND);
	assert_int_equal(trp_allow(&c, &t, 60000, 1).action, TRP_SEND); /* into debt */
	/* Repaying 60 KB at 1 G takes 480 us, but the hold ends at 10 us. */
	v = trp_allow(&c, &t, 64, 2);
	assert_int_equal(v.action, TRP_DELAY);
	assert_int_equal(v.until_ns, 10 * US);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_validation),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_shaping),
		cmocka_unit_test(test_measured_rate_and_release_at_target),
		cmocka_unit_test(test_cnp_during_ramp),
		cmocka_unit_test(test_delay_capped_at_next_event),
	};

	return cmocka_run_group_tests_name("trp", tests, NULL, NULL);
}
