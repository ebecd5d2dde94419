/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspan-sim's own algorithms: the event heap's order (time, then
 * insertion), the value parsers with units and the key table's errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "congestion/sim/sim.h"

static uint64_t
ev_time(const struct sim_ev *e)
{
	return e->key >> SIM_EV_SEQ_BITS;
}

/* Random times, many equal: pops come out by time, then in push order. */
static void
test_heap_order(void **state)
{
	static struct sim s;
	struct sim_ev ev;
	uint64_t rng = 12345;
	uint64_t last_t = 0;
	uint32_t last_idx = 0;
	uint32_t n = 0;
	int i;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(sim_heap_init(&s.slow, 4), 0);
	for (i = 0; i < 20000; i++) {
		/* 50 distinct times: lots of ties; idx records push order. */
		uint64_t t = 1000 + sim_rng_next(&rng) % 50;

		sim_schedule(&s, t, SIM_EV_RP, (uint32_t)i);
	}
	assert_int_equal(s.slow.n, 20000);
	while (sim_heap_pop(&s.slow, &ev)) {
		uint64_t t = ev_time(&ev);
		uint32_t idx = ev.arg & SIM_EV_IDX_MASK;

		assert_int_equal(ev.arg >> SIM_EV_IDX_BITS, SIM_EV_RP);
		assert_true(t >= last_t);
		if (n > 0 && t == last_t)
			assert_true(idx > last_idx); /* FIFO among equal times */
		last_t = t;
		last_idx = idx;
		n++;
	}
	assert_int_equal(n, 20000);
	sim_heap_free(&s.slow);
}

/* Interleaved push and pop, as the event loop does, against a sorted model. */
static void
test_heap_interleaved(void **state)
{
	static struct sim s;
	struct sim_ev ev;
	uint64_t rng = 99;
	uint64_t now = 0;
	int i;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(sim_heap_init(&s.heap, 64), 0);
	sim_schedule(&s, 0, SIM_EV_ARRIVE, 0);
	for (i = 0; i < 100000; i++) {
		uint32_t k, pushes = (uint32_t)(sim_rng_next(&rng) % 3);

		assert_true(sim_heap_pop(&s.heap, &ev));
		assert_true(ev_time(&ev) >= now); /* never back in time */
		now = ev_time(&ev);
		for (k = 0; k < pushes || s.heap.n == 0; k++)
			sim_schedule(&s, now + sim_rng_next(&rng) % 1000, SIM_EV_ARRIVE, k);
	}
	assert_true(s.heap.peak < 2000);
	sim_heap_free(&s.heap);
}

static void
test_parse_rate(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(sim_parse_rate("100Gbps", &v), 0);
	assert_int_equal(v, 100000000000ull);
	assert_int_equal(sim_parse_rate("1.6T", &v), 0);
	assert_int_equal(v, 1600000000000ull);
	assert_int_equal(sim_parse_rate("50Mb/s", &v), 0);
	assert_int_equal(v, 50000000ull);
	assert_int_equal(sim_parse_rate("400000000000", &v), 0);
	assert_int_equal(v, 400000000000ull);
	assert_true(sim_parse_rate("fast", &v) < 0);
	assert_true(sim_parse_rate("-5G", &v) < 0);
	assert_true(sim_parse_rate("10Gbit", &v) < 0);
	assert_true(sim_parse_rate("", &v) < 0);
}

static void
test_parse_time_bytes(void **state)
{
	uint64_t v;
	double d;

	(void)state;
	assert_int_equal(sim_parse_time_ns("500us", &v), 0);
	assert_int_equal(v, 500000);
	assert_int_equal(sim_parse_time_ns("1.5ms", &v), 0);
	assert_int_equal(v, 1500000);
	assert_int_equal(sim_parse_time_ns("2s", &v), 0);
	assert_int_equal(v, 2000000000ull);
	assert_int_equal(sim_parse_time_ns("1000", &v), 0);
	assert_int_equal(v, 1000);
	assert_true(sim_parse_time_ns("5 min", &v) < 0);
	assert_int_equal(sim_parse_bytes("12.5MB", &v), 0);
	assert_int_equal(v, 12500000);
	assert_int_equal(sim_parse_bytes("64KiB", &v), 0);
	assert_int_equal(v, 65536);
	assert_true(sim_parse_bytes("2 apples", &v) < 0);
	assert_int_equal(sim_parse_u64("42", &v), 0);
	assert_int_equal(v, 42);
	assert_true(sim_parse_u64("-1", &v) < 0);
	assert_true(sim_parse_u64("4x", &v) < 0);
	assert_int_equal(sim_parse_double("95%", &d), 0);
	assert_true(d > 0.9499 && d < 0.9501);
}

/* ns-3 rounds serialisation to whole ns; the port keeps the remainder. */
static void
test_tx_time(void **state)
{
	(void)state;
	assert_int_equal(sim_net_tx_ns(1048, 100000000000ull), 84); /* 83.84 */
	assert_int_equal(sim_net_tx_ns(1048, 400000000000ull), 21); /* 20.96 */
	assert_int_equal(sim_net_tx_ns(60, 1600000000000ull), 0);   /* 0.3 */
}

static void
test_config_keys(void **state)
{
	struct sim_config c;
	char buf[4096];
	FILE *err = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(err);
	sim_config_defaults(&c);
	assert_int_equal(c.mechanisms, 0);
	assert_int_equal(sim_config_set(&c, "gateway", "mechanisms", "A,C", "t", err), 0);
	assert_int_equal(c.mechanisms, SIM_MECH_A | SIM_MECH_C);
	assert_int_equal(sim_config_set(&c, "gateway", "marker", "phantom", "t", err), 0);
	assert_int_equal(c.marker, SIM_MARKER_PHANTOM);
	assert_int_equal(sim_config_set(&c, "mech_a", "cnp_interval", "7us", "t", err), 0);
	assert_int_equal(c.a_cnp_interval_ns, 7000);
	assert_true(sim_config_set(&c, "gateway", "mechanisms", "B", "t:3", err) < 0);
	assert_true(sim_config_set(&c, "marker", "phantom_fraction", "2", "t:4", err) < 0);
	assert_true(sim_config_set(&c, "nope", "x", "1", "t:5", err) < 0);
	fclose(err);
	assert_non_null(strstr(buf, "t:3: [gateway] mechanisms:"));
	assert_non_null(strstr(buf, "t:4: [marker] phantom_fraction: out of range"));
	assert_non_null(strstr(buf, "t:5: [nope] x: unknown key"));
	/* Failed sets leave the previous values. */
	assert_int_equal(c.mechanisms, SIM_MECH_A | SIM_MECH_C);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heap_order),
		cmocka_unit_test(test_heap_interleaved),
		cmocka_unit_test(test_parse_rate),
		cmocka_unit_test(test_parse_time_bytes),
		cmocka_unit_test(test_tx_time),
		cmocka_unit_test(test_config_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
