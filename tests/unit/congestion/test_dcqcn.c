/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN reaction and notification points against hand-computed traces.
 * The constants were worked out from the rules in dcqcn.h with integer Q32
 * arithmetic (alpha and g in units of 2^-32, rates in b/s, averages rounded
 * up); each is also checked against the real-valued formula it stands for.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "congestion/cc_rng.h"
#include "congestion/dcqcn.h"

#define US 1000ull
#define MS 1000000ull
#define G100 100000000000ull
#define Q32 4294967296.0

static void
rp_setup(enum dcqcn_variant v, struct dcqcn_rp_config *c, struct dcqcn_rp *rp)
{
	struct dcqcn_rp_params p;

	dcqcn_params_default(v, G100, &p, NULL);
	assert_int_equal(dcqcn_rp_config_init(c, &p), 0);
	dcqcn_rp_init(c, rp);
}

static void
assert_close(double got, double want, double rel)
{
	assert_true(fabs(got - want) <= rel * fabs(want));
}

static void
test_params_and_validation(void **state)
{
	struct dcqcn_rp_params p;
	struct dcqcn_np_params np;
	struct dcqcn_rp_config c;

	(void)state;
	dcqcn_params_default(DCQCN_VARIANT_FIRMWARE, G100, &p, &np);
	assert_int_equal(p.byte_counter_bytes, 2097088); /* 32767 x 64 B */
	assert_int_equal(p.timer_ns, 300 * US);
	assert_int_equal(np.min_interval_ns, 4 * US);
	assert_int_equal(dcqcn_rp_config_init(&c, &p), 0);
	assert_int_equal(c.g_q32, 5ull << 22); /* 5/1024 */
	assert_int_equal(c.initial_alpha_q32, 1023ull << 22);
	assert_true(c.release_at_line_rate);

	p.g = 0;
	assert_int_equal(dcqcn_rp_config_init(&c, &p), -EINVAL);
	p.g = 1.0;
	assert_int_equal(dcqcn_rp_config_init(&c, &p), -EINVAL);
	dcqcn_params_default(DCQCN_VARIANT_FIRMWARE, G100, &p, NULL);
	p.min_rate_bps = G100 + 1;
	assert_int_equal(dcqcn_rp_config_init(&c, &p), -EINVAL);
	dcqcn_params_default(DCQCN_VARIANT_FIRMWARE, G100, &p, NULL);
	p.rate_reduce_interval_ns = 0; /* needed by the firmware's monitor */
	assert_int_equal(dcqcn_rp_config_init(&c, &p), -EINVAL);
	p.variant = DCQCN_VARIANT_MAX;
	assert_int_equal(dcqcn_rp_config_init(&c, &p), -EINVAL);

	dcqcn_params_default(DCQCN_VARIANT_PAPER, G100, &p, &np);
	assert_int_equal(np.min_interval_ns, 50 * US);
	assert_int_equal(dcqcn_rp_config_init(&c, &p), 0); /* no reduce interval needed */
	dcqcn_params_default(DCQCN_VARIANT_HPCC, G100, &p, &np);
	assert_int_equal(np.min_interval_ns, 0);
	assert_int_equal(p.byte_counter_bytes, 0);
	assert_int_equal(dcqcn_rp_config_init(&c, &p), 0);
	assert_false(c.release_at_line_rate);

	assert_string_equal(dcqcn_variant_name(DCQCN_VARIANT_FIRMWARE), "firmware");
	assert_string_equal(dcqcn_variant_name(DCQCN_VARIANT_PAPER), "paper");
	assert_string_equal(dcqcn_variant_name(DCQCN_VARIANT_HPCC), "hpcc");
	assert_string_equal(dcqcn_variant_name(DCQCN_VARIANT_MAX), "?");
}

static void
test_firmware_first_cut_and_alpha(void **state)
{
	struct dcqcn_rp_config c;
	struct dcqcn_rp rp;
	uint64_t a;
	unsigned int i;

	(void)state;
	rp_setup(DCQCN_VARIANT_FIRMWARE, &c, &rp);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), G100);
	assert_int_equal(dcqcn_rp_next_event(&c, &rp), CC_TIME_NEVER);

	/* CNP at t = 0 from line rate: cut at once by alpha / 2, alpha = 1023/1024:
	 * 100e9 * (1 - 1023/2048) = 50048828125 exactly. */
	dcqcn_rp_on_cnp(&c, &rp, 0);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 50048828125ull);
	assert_int_equal(rp.target_bps, G100); /* no timer increase yet: not clamped */
	assert_int_equal(rp.n_cut, 1);
	/* Nothing pending; the next rate change is the 300 us increase timer. */
	assert_int_equal(dcqcn_rp_next_event(&c, &rp), 300 * US);

	/* Alpha keeps 1019/1024 each microsecond without CNPs. */
	dcqcn_rp_advance(&c, &rp, 10 * US);
	assert_int_equal(rp.alpha_q32, 4085806655ull);
	assert_close(rp.alpha_q32 / Q32, 1023.0 / 1024 * pow(1019.0 / 1024, 10), 1e-8);
	a = 1023ull << 22;
	for (i = 0; i < 10; i++)
		a = (uint64_t)(((unsigned __int128)a * (1019ull << 22)) >> 32);
	assert_int_equal(rp.alpha_q32, a);
	/* Its time constant: 1024/5 = 204.8 us to fall by e. */
	dcqcn_rp_advance(&c, &rp, 205 * US);
	assert_close(rp.alpha_q32 / Q32, 1023.0 / 1024 * pow(1019.0 / 1024, 205), 1e-6);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 50048828125ull); /* alpha alone moves no rate */
}

static void
test_firmware_monitor_period(void **state)
{
	struct dcqcn_rp_config c;
	struct dcqcn_rp rp;

	(void)state;
	rp_setup(DCQCN_VARIANT_FIRMWARE, &c, &rp);
	dcqcn_rp_on_cnp(&c, &rp, 0);
	/* 12.5 us later the last cut is older than 4 us: cut at once with alpha(12 us). */
	dcqcn_rp_on_cnp(&c, &rp, 12500);
	assert_int_equal(rp.n_cut, 2);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 26474988628ull);
	/* 1.5 us after that cut: pending until last cut + 4 us = 16.5 us. */
	dcqcn_rp_on_cnp(&c, &rp, 14000);
	assert_int_equal(rp.n_cut, 2);
	assert_true(rp.cut_pending);
	assert_int_equal(dcqcn_rp_next_event(&c, &rp), 16500);
	dcqcn_rp_advance(&c, &rp, 16499);
	assert_int_equal(rp.n_cut, 2);
	/* At 16.5 us, with alpha updated at 13 (CNP seen), 14, 15 (CNP seen), 16 us. */
	dcqcn_rp_advance(&c, &rp, 16500);
	assert_int_equal(rp.n_cut, 3);
	assert_int_equal(rp.alpha_q32, 4009091943ull);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 14118589117ull);
	assert_int_equal(rp.target_bps, G100);
	assert_int_equal(dcqcn_rp_next_event(&c, &rp), 16500 + 300 * US);

	/* Timer 1 (T = 0 < F = 1): fast recovery, halfway back to the target. */
	dcqcn_rp_advance(&c, &rp, 316500);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 57059294559ull);
	assert_int_equal(rp.n_fast_recovery, 1);
	/* Timer 2 (T = 1 = F, BC = 0 < F): additive increase; R_T capped at line. */
	dcqcn_rp_advance(&c, &rp, 616500);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 78529647280ull);
	assert_int_equal(rp.n_additive, 1);
	assert_int_equal(rp.target_bps, G100);

	/* A CNP after a timer increase clamps R_T to R_C
	 * (clamp_tgt_rate_after_time_inc), then cuts. */
	dcqcn_rp_on_cnp(&c, &rp, 700 * US);
	assert_int_equal(rp.target_bps, 78529647280ull);
	assert_true(dcqcn_rp_rate_bps(&rp) < 78529647280ull);
}

static void
test_firmware_byte_counter_and_hyper(void **state)
{
	struct dcqcn_rp_config c;
	struct dcqcn_rp rp;
	uint64_t r0, t0;

	(void)state;
	rp_setup(DCQCN_VARIANT_FIRMWARE, &c, &rp);
	/* Throttle, then let the timer raise the rate once so that the next CNP
	 * clamps R_T below line rate. */
	dcqcn_rp_on_cnp(&c, &rp, 0);
	dcqcn_rp_advance(&c, &rp, 300 * US);
	dcqcn_rp_on_cnp(&c, &rp, 301 * US);
	t0 = rp.target_bps;
	r0 = dcqcn_rp_rate_bps(&rp);
	assert_true(t0 < G100);
	assert_int_equal(rp.t_count, 0);

	/* 2 MiB - 64 B is one byte counter event: fast recovery (BC = 0 < F). */
	dcqcn_rp_on_tx(&c, &rp, 2097087, 302 * US);
	assert_int_equal(rp.bc_count, 0);
	dcqcn_rp_on_tx(&c, &rp, 1, 302 * US);
	assert_int_equal(rp.bc_count, 1);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), r0 + (t0 - r0 + 1) / 2);
	/* Second byte event: BC = 1 = F but T = 0 < F: additive, +5 Mb/s. */
	dcqcn_rp_on_tx(&c, &rp, 2097088, 303 * US);
	assert_int_equal(rp.target_bps, t0 + 5000000);
	/* Timer at 601 us: T = 0 < F: fast recovery. */
	dcqcn_rp_advance(&c, &rp, 601 * US);
	assert_int_equal(rp.t_count, 1);
	assert_int_equal(rp.target_bps, t0 + 5000000);
	/* Now BC = 2, T = 1: hyper increase by i = min(2, 1) - 1 + 1 = 1 x 50 Mb/s. */
	dcqcn_rp_on_tx(&c, &rp, 2097088, 602 * US);
	assert_int_equal(rp.target_bps, t0 + 5000000 + 50000000);
	assert_int_equal(rp.n_hyper, 1);
	/* BC = 3, T = 1: still i = 1. Timer at 901 us: T = 1, BC = 4: i = 1... */
	dcqcn_rp_on_tx(&c, &rp, 2097088, 603 * US);
	assert_int_equal(rp.target_bps, t0 + 5000000 + 100000000);
	dcqcn_rp_advance(&c, &rp, 901 * US);
	/* ...then T = 2, BC = 4: i = min(4, 2) - 1 + 1 = 2 -> +100 Mb/s. */
	dcqcn_rp_on_tx(&c, &rp, 2097088, 902 * US);
	assert_int_equal(rp.target_bps, t0 + 5000000 + 150000000 + 100000000);
}

static void
test_firmware_min_rate_and_release(void **state)
{
	struct dcqcn_rp_config c;
	struct dcqcn_rp rp;
	uint64_t t;

	(void)state;
	rp_setup(DCQCN_VARIANT_FIRMWARE, &c, &rp);
	/* A CNP every 4 us for 2 ms: at most 50% per cut, never below 1 Mb/s. */
	for (t = 0; t < 2 * MS; t += 4 * US) {
		uint64_t before = dcqcn_rp_rate_bps(&rp);

		dcqcn_rp_on_cnp(&c, &rp, t);
		assert_true(dcqcn_rp_rate_bps(&rp) >= before / 2);
		assert_true(dcqcn_rp_rate_bps(&rp) >= 1000000);
	}
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 1000000);
	assert_int_equal(rp.n_cut, 500);

	/* No more CNPs: the timer alone brings the QP back to line rate and
	 * releases it. R_T stayed at line rate (no timer increase before the
	 * cuts), so fast recovery halves the gap every 300 us. */
	t = 2 * MS;
	while (rp.active) {
		uint64_t next = dcqcn_rp_next_event(&c, &rp);

		assert_true(next != CC_TIME_NEVER && next > t);
		t = next;
		dcqcn_rp_advance(&c, &rp, t);
	}
	assert_int_equal(rp.n_release, 1);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), G100);
	assert_int_equal(rp.alpha_q32, 1023ull << 22); /* reset for the next episode */
	assert_int_equal(dcqcn_rp_next_event(&c, &rp), CC_TIME_NEVER);
	/* 1 fast recovery, then additive steps at line-rate target: ceil halving
	 * of a 99.999 Gb/s gap takes 37 events of 300 us. */
	assert_int_equal(rp.n_fast_recovery + rp.n_additive + rp.n_hyper, 37);
	assert_int_equal(t, 2 * MS - 4 * US + 37 * 300 * US);
}

static void
test_max_cut(void **state)
{
	struct dcqcn_rp_params p;
	struct dcqcn_rp_config c;
	struct dcqcn_rp rp;

	(void)state;
	dcqcn_params_default(DCQCN_VARIANT_FIRMWARE, G100, &p, NULL);
	p.max_cut_ppm = 100000; /* at most 10% per cut */
	assert_int_equal(dcqcn_rp_config_init(&c, &p), 0);
	dcqcn_rp_init(&c, &rp);
	dcqcn_rp_on_cnp(&c, &rp, 0);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 90000000000ull);
}

static void
test_paper_trace(void **state)
{
	struct dcqcn_rp_config c;
	struct dcqcn_rp rp;
	unsigned int i;

	(void)state;
	rp_setup(DCQCN_VARIANT_PAPER, &c, &rp);
	/* Every CNP cuts at once: R_T = R_C, R_C *= 1 - alpha / 2, alpha = 1. */
	dcqcn_rp_on_cnp(&c, &rp, 0);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 50000000000ull);
	assert_int_equal(rp.target_bps, G100);
	assert_int_equal(rp.alpha_q32, 1ull << 32);
	dcqcn_rp_on_cnp(&c, &rp, 10 * US);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 25000000000ull);
	assert_int_equal(rp.target_bps, 50000000000ull);
	/* K = 55 us without a CNP: alpha *= 255/256; T = 55 us after the cut:
	 * fast recovery to 37.5 G. */
	assert_int_equal(dcqcn_rp_next_event(&c, &rp), 65 * US);
	dcqcn_rp_advance(&c, &rp, 65 * US);
	assert_int_equal(rp.alpha_q32, 255ull << 24);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 37500000000ull);
	/* F = 5 fast recovery timer events (T = 0..4), at 65, 120, ..., 285 us. */
	dcqcn_rp_advance(&c, &rp, 285 * US);
	assert_int_equal(rp.n_fast_recovery, 5);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 49218750000ull);
	/* T = 5 >= F, BC = 0 < F: additive increase of R_AI = 40 Mb/s. */
	dcqcn_rp_advance(&c, &rp, 340 * US);
	assert_int_equal(rp.target_bps, 50040000000ull);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 49629375000ull);
	/* 5 x 10 MB: five byte counter fast recoveries. */
	for (i = 0; i < 5; i++)
		dcqcn_rp_on_tx(&c, &rp, 10000000, 341 * US);
	assert_int_equal(rp.n_fast_recovery, 10);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 50027167969ull);
	/* Both counters >= F: hyper increase, i = min(6, 5) - 5 + 1 = 1. */
	dcqcn_rp_advance(&c, &rp, 395 * US);
	assert_int_equal(rp.target_bps, 50440000000ull);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 50233583985ull);
	assert_int_equal(rp.n_hyper, 1);
	/* Released at line rate at 8.81 ms. */
	dcqcn_rp_advance(&c, &rp, 8809 * US);
	assert_true(rp.active);
	dcqcn_rp_advance(&c, &rp, 8810 * US);
	assert_false(rp.active);
	assert_int_equal(rp.n_release, 1);
}

static void
test_hpcc_trace(void **state)
{
	struct dcqcn_rp_config c;
	struct dcqcn_rp rp;
	struct dcqcn_rp_params p;

	(void)state;
	rp_setup(DCQCN_VARIANT_HPCC, &c, &rp);
	/* The first CNP sets alpha = 1 and starts the periodic timers; the
	 * first cut check is 4 us + 1 ns later. */
	dcqcn_rp_on_cnp(&c, &rp, 0);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), G100);
	assert_int_equal(dcqcn_rp_next_event(&c, &rp), 4001);
	/* Alpha updated at 1, 2, 3, 4 us without CNP: (255/256)^4. */
	dcqcn_rp_advance(&c, &rp, 4001);
	assert_int_equal(rp.alpha_q32, 4228250625ull);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 50776684273ull);
	assert_close((double)dcqcn_rp_rate_bps(&rp), 1e11 * (1 - pow(255.0 / 256, 4) / 2), 1e-9);
	assert_int_equal(rp.target_bps, G100);
	/* A CNP at 5 us waits for the check at 8.001 us. */
	dcqcn_rp_on_cnp(&c, &rp, 5 * US);
	assert_int_equal(dcqcn_rp_next_event(&c, &rp), 8001);
	dcqcn_rp_advance(&c, &rp, 8001);
	assert_int_equal(rp.alpha_q32, 4179216706ull);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 26072565177ull);
	/* RP_TIMER = 900 us from the last cut: fast recovery (stage 0 < 1)... */
	assert_int_equal(dcqcn_rp_next_event(&c, &rp), 908001);
	dcqcn_rp_advance(&c, &rp, 908001);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 63036282589ull);
	/* ...additive at stage 1 (R_T already at line rate)... */
	dcqcn_rp_advance(&c, &rp, 1808001);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 81518141295ull);
	assert_int_equal(rp.n_additive, 1);
	/* ...then hyper increases of RATE_HAI, never multiplied. */
	dcqcn_rp_advance(&c, &rp, 2708001);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 90759070648ull);
	assert_int_equal(rp.n_hyper, 1);
	/* A CNP after timer stages clamps R_T = R_C at the next check (2.712001 ms). */
	dcqcn_rp_on_cnp(&c, &rp, 2710 * US);
	assert_int_equal(dcqcn_rp_next_event(&c, &rp), 2712001);
	dcqcn_rp_advance(&c, &rp, 2712001);
	assert_int_equal(rp.target_bps, 90759070648ull);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 90581381715ull);

	/* Never released: back at line rate the QP stays active, but no rate
	 * event is pending. */
	dcqcn_rp_advance(&c, &rp, 1000 * MS);
	assert_true(rp.active);
	assert_int_equal(dcqcn_rp_rate_bps(&rp), G100);
	assert_int_equal(dcqcn_rp_next_event(&c, &rp), CC_TIME_NEVER);
	assert_int_equal(rp.alpha_q32, 0);

	/* MIN_RATE 100 Mb/s. */
	dcqcn_params_default(DCQCN_VARIANT_HPCC, G100, &p, NULL);
	assert_int_equal(dcqcn_rp_config_init(&c, &p), 0);
	dcqcn_rp_init(&c, &rp);
	{
		uint64_t t;

		for (t = 0; t < 1 * MS; t += 1 * US)
			dcqcn_rp_on_cnp(&c, &rp, t);
	}
	assert_int_equal(dcqcn_rp_rate_bps(&rp), 100000000);
}

/* Same inputs, different call patterns: identical state. */
static void
run_pattern(enum dcqcn_variant v, bool poll, struct dcqcn_rp *out)
{
	struct dcqcn_rp_config c;
	struct dcqcn_rp rp;
	struct cc_rng rng;
	uint64_t t = 0, end = 30 * MS, next_cnp = 0;

	rp_setup(v, &c, &rp);
	cc_rng_seed(&rng, 2015);
	while (t < end) {
		uint64_t ev = dcqcn_rp_next_event(&c, &rp);
		uint64_t step = poll ? t + 1 * US : (ev < next_cnp ? ev : next_cnp);

		if (step > next_cnp)
			step = next_cnp;
		if (step > end)
			step = end;
		if (step == t && step != next_cnp)
			step = t + 1;
		t = step;
		if (t == next_cnp) {
			dcqcn_rp_on_cnp(&c, &rp, t);
			dcqcn_rp_on_tx(&c, &rp, 1000000, t);
			/* Bursts of CNPs a few us apart, then quiet for up to 3 ms. */
			next_cnp = t + (cc_rng_next_u32(&rng) % 8 == 0 ?
					cc_rng_next_u32(&rng) % (3 * MS) :
					cc_rng_next_u32(&rng) % (10 * US)) + 1;
		} else {
			dcqcn_rp_advance(&c, &rp, t);
		}
	}
	dcqcn_rp_advance(&c, &rp, end);
	*out = rp;
}

static void
test_call_pattern_independence(void **state)
{
	enum dcqcn_variant v;

	(void)state;
	for (v = 0; v < DCQCN_VARIANT_MAX; v++) {
		struct dcqcn_rp a, b;

		run_pattern(v, false, &a);
		run_pattern(v, true, &b);
		assert_true(a.n_cut > 10);
		/* Field by field: padding bytes are not part of the state. */
		assert_int_equal(a.rate_bps, b.rate_bps);
		assert_int_equal(a.target_bps, b.target_bps);
		assert_int_equal(a.alpha_q32, b.alpha_q32);
		assert_int_equal(a.alpha_next_ns, b.alpha_next_ns);
		assert_int_equal(a.timer_next_ns, b.timer_next_ns);
		assert_int_equal(a.last_cut_ns, b.last_cut_ns);
		assert_int_equal(a.bytes, b.bytes);
		assert_int_equal(a.t_count, b.t_count);
		assert_int_equal(a.bc_count, b.bc_count);
		assert_int_equal(a.active, b.active);
		assert_int_equal(a.cut_pending, b.cut_pending);
		assert_int_equal(a.n_cut, b.n_cut);
		assert_int_equal(a.n_fast_recovery, b.n_fast_recovery);
		assert_int_equal(a.n_additive, b.n_additive);
		assert_int_equal(a.n_hyper, b.n_hyper);
		assert_int_equal(a.n_release, b.n_release);
	}
}

static void
test_np_interval(void **state)
{
	struct dcqcn_np_params p = { .min_interval_ns = 50 * US };
	struct dcqcn_np_config c;
	struct dcqcn_np np;

	(void)state;
	assert_int_equal(dcqcn_np_config_init(&c, &p), 0);
	dcqcn_np_init(&np);
	assert_int_equal(dcqcn_np_on_ce(&c, &np, 7), DCQCN_NP_SEND_CNP);
	assert_int_equal(dcqcn_np_on_ce(&c, &np, 8), DCQCN_NP_SUPPRESS);
	assert_int_equal(dcqcn_np_on_ce(&c, &np, 7 + 50 * US - 1), DCQCN_NP_SUPPRESS);
	assert_int_equal(dcqcn_np_on_ce(&c, &np, 7 + 50 * US), DCQCN_NP_SEND_CNP);
	assert_int_equal(dcqcn_np_on_ce(&c, &np, 7 + 60 * US), DCQCN_NP_SUPPRESS);

	p.min_interval_ns = 0; /* HPCC: every CE packet */
	assert_int_equal(dcqcn_np_config_init(&c, &p), 0);
	dcqcn_np_init(&np);
	assert_int_equal(dcqcn_np_on_ce(&c, &np, 5), DCQCN_NP_SEND_CNP);
	assert_int_equal(dcqcn_np_on_ce(&c, &np, 5), DCQCN_NP_SEND_CNP);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_and_validation),
		cmocka_unit_test(test_firmware_first_cut_and_alpha),
		cmocka_unit_test(test_firmware_monitor_period),
		cmocka_unit_test(test_firmware_byte_counter_and_hyper),
		cmocka_unit_test(test_firmware_min_rate_and_release),
		cmocka_unit_test(test_max_cut),
		cmocka_unit_test(test_paper_trace),
		cmocka_unit_test(test_hpcc_trace),
		cmocka_unit_test(test_call_pattern_independence),
		cmocka_unit_test(test_np_interval),
	};

	return cmocka_run_group_tests_name("dcqcn", tests, NULL, NULL);
}
