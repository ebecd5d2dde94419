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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "congestion/sim/sim.h"
#include "control/conf_mech.h"

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

/*
 * The event loop's queues together (timing wheel, far heap, timer heap):
 * interleaved pushes and pops, as a run does, with delays both inside and
 * beyond the wheel's span, never go back in time, keep equal times in push
 * order across the three queues, and match a brute-force model exactly.
 */
#define MODEL_MAX 4096

static void
test_event_queues(void **state)
{
	static struct sim s;
	static uint64_t model[MODEL_MAX]; /* pending keys */
	uint32_t nmodel = 0;
	struct sim_ev ev;
	uint64_t rng = 99;
	uint64_t now = 0;
	uint32_t wheel_peak = 0;
	int i;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(sim_events_init(&s, 64, 64), 0);
	for (i = 0; i < 200000; i++) {
		/* Fill to ~2000 pending first, then push as many as pop on average. */
		uint32_t k, pushes = i < 2000 ? 2 : (uint32_t)(sim_rng_next(&rng) % 3);
		uint32_t best = 0;

		if (nmodel == 0 && pushes == 0)
			pushes = 1;
		for (k = 0; k < pushes && nmodel < MODEL_MAX; k++) {
			uint64_t r = sim_rng_next(&rng);
			/* Mostly near (wheel), some far (heap), some timers; many ties. */
			uint64_t dt = r % 8 == 0 ? 4000 + r % 600000 : r % 4 == 0 ? 0 : r % 2000;
			uint32_t type = (r >> 20) % 5 == 0 ? SIM_EV_RP : SIM_EV_ARRIVE;

			model[nmodel++] = (now + dt) << SIM_EV_SEQ_BITS |
					  (s.seq & ((1u << SIM_EV_SEQ_BITS) - 1));
			sim_schedule(&s, now + dt, type, k);
		}
		if (s.wheel.n > wheel_peak)
			wheel_peak = s.wheel.n;
		assert_true(sim_next_event(&s, &ev));
		for (k = 1; k < nmodel; k++)
			if (model[k] < model[best])
				best = k;
		assert_int_equal(ev.key, model[best]);
		model[best] = model[--nmodel];
		assert_true(ev_time(&ev) >= now);
		now = ev_time(&ev);
		s.now_ns = now;
	}
	assert_int_equal(s.wheel.n + s.heap.n + s.slow.n, nmodel);
	/* All three queues took part. */
	assert_true(wheel_peak > 10 && s.heap.peak > 10 && s.slow.peak > 10);
	sim_wheel_free(&s.wheel);
	sim_heap_free(&s.heap);
	sim_heap_free(&s.slow);
}

/* Rates and times of the HPCC-format files go through control/units.h. */
static void
test_parse_rate(void **state)
{
	const char *why;
	uint64_t v;

	(void)state;
	assert_int_equal(sim_parse_rate("100Gbps", &v, &why), 0);
	assert_int_equal(v, 100000000000ull);
	assert_int_equal(sim_parse_rate("1.6T", &v, &why), 0);
	assert_int_equal(v, 1600000000000ull);
	assert_int_equal(sim_parse_rate("50Mb/s", &v, &why), 0); /* config.txt's spelling */
	assert_int_equal(v, 50000000ull);
	assert_int_equal(sim_parse_rate("400000000000", &v, &why), 0); /* bit/s */
	assert_int_equal(v, 400000000000ull);
	assert_true(sim_parse_rate("fast", &v, &why) < 0);
	assert_true(sim_parse_rate("-5G", &v, &why) < 0);
	assert_true(sim_parse_rate("10Gbit", &v, &why) < 0);
	assert_true(sim_parse_rate("", &v, &why) < 0);
	assert_true(sim_parse_rate("1.5bps", &v, &why) < 0); /* not a whole bit/s */
}

static void
test_parse_time(void **state)
{
	const char *why;
	uint64_t v;
	double d;

	(void)state;
	assert_int_equal(sim_parse_time_ns("500us", &v, &why), 0);
	assert_int_equal(v, 500000);
	assert_int_equal(sim_parse_time_ns("1.5ms", &v, &why), 0);
	assert_int_equal(v, 1500000);
	assert_int_equal(sim_parse_time_ns("2s", &v, &why), 0);
	assert_int_equal(v, 2000000000ull);
	assert_int_equal(sim_parse_time_ns("0.001ms", &v, &why), 0); /* HPCC topologies */
	assert_int_equal(v, 1000);
	assert_int_equal(sim_parse_time_ns("0", &v, &why), 0);
	/* A bare number is no longer taken as ns: it needs a unit, as in the gateway. */
	assert_true(sim_parse_time_ns("1000", &v, &why) < 0);
	assert_non_null(strstr(why, "needs a unit (ns, us, ms or s)"));
	assert_true(sim_parse_time_ns("1.5ns", &v, &why) < 0); /* exact, never rounded */
	assert_true(sim_parse_time_ns("5 min", &v, &why) < 0);
	assert_int_equal(sim_parse_u64("42", &v), 0);
	assert_int_equal(v, 42);
	assert_true(sim_parse_u64("-1", &v) < 0);
	assert_true(sim_parse_u64("4x", &v) < 0);
	assert_int_equal(sim_parse_double("95%", &d), 0);
	assert_true(d > 0.9499 && d < 0.9501);
}

/* exact rounds to the nearest ns; ns3 truncates as ns-3's Time(double) does. */
static void
test_tx_time(void **state)
{
	(void)state;
	assert_int_equal(sim_net_tx_ns(SIM_TX_TIME_EXACT, 1048, 100000000000ull), 84); /* 83.84 */
	assert_int_equal(sim_net_tx_ns(SIM_TX_TIME_EXACT, 1048, 400000000000ull), 21); /* 20.96 */
	assert_int_equal(sim_net_tx_ns(SIM_TX_TIME_EXACT, 60, 1600000000000ull), 0);   /* 0.3 */
	assert_int_equal(sim_net_tx_ns(SIM_TX_TIME_NS3, 1048, 100000000000ull), 83);
	assert_int_equal(sim_net_tx_ns(SIM_TX_TIME_NS3, 1048, 400000000000ull), 20);
	assert_int_equal(sim_net_tx_ns(SIM_TX_TIME_NS3, 60, 100000000000ull), 4);     /* 4.8 */
	assert_int_equal(sim_net_tx_ns(SIM_TX_TIME_NS3, 1000, 100000000000ull), 80);  /* exact */
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
	/* Mechanism B joins the list in any order; each letter once, nothing else. */
	assert_int_equal(sim_config_set(&c, "gateway", "mechanisms", "C,B,A", "t", err), 0);
	assert_int_equal(c.mechanisms, SIM_MECH_A | SIM_MECH_B | SIM_MECH_C);
	assert_string_equal(conf_mech_name(c.mechanisms), "A,B,C");
	assert_int_equal(sim_config_set(&c, "gateway", "mechanisms", "B", "t", err), 0);
	assert_int_equal(c.mechanisms, SIM_MECH_B);
	assert_int_equal(c.lossless, SIM_LOSSLESS_CREDIT);
	assert_int_equal(sim_config_set(&c, "gateway", "lossless", "pfc", "t", err), 0);
	assert_int_equal(c.lossless, SIM_LOSSLESS_PFC);
	assert_true(sim_config_set(&c, "gateway", "lossless", "off", "t:9", err) < 0);
	assert_int_equal(sim_config_set(&c, "gateway", "mechanisms", "A,C", "t", err), 0);
	assert_true(sim_config_set(&c, "gateway", "mechanisms", "D", "t:3", err) < 0);
	assert_true(sim_config_set(&c, "gateway", "mechanisms", "A,A", "t:3", err) < 0);
	assert_true(sim_config_set(&c, "gateway", "mechanisms", "A,", "t:3", err) < 0);
	assert_true(sim_config_set(&c, "gateway", "mechanisms", "AB", "t:3", err) < 0);
	assert_true(sim_config_set(&c, "marker", "phantom_fraction", "2", "t:4", err) < 0);
	assert_true(sim_config_set(&c, "nope", "x", "1", "t:5", err) < 0);
	assert_true(sim_config_set(&c, "sim", "end", "1000", "t:6", err) < 0);
	assert_true(sim_config_set(&c, "marker", "kmin", "2 apples", "t:7", err) < 0);
	assert_true(sim_config_set(&c, "sim", "sed", "1", "t:8", err) < 0);
	assert_int_equal(sim_config_set(&c, "marker", "kmin", "12.5MB", "t", err), 0);
	assert_int_equal(c.kmin_bytes, 12500000);
	assert_int_equal(sim_config_set(&c, "marker", "kmax", "64KiB", "t", err), 0);
	assert_int_equal(c.kmax_bytes, 65536);
	assert_int_equal(sim_config_set(&c, "marker", "pmax", "20%", "t", err), 0);
	assert_int_equal(c.pmax_ppm, 200000);
	assert_int_equal(sim_config_set(&c, "sim", "retransmit", "off", "t", err), 0);
	assert_false(c.retransmit);
	fclose(err);
	assert_non_null(strstr(buf, "t:3: [gateway] mechanisms:"));
	assert_non_null(strstr(buf, "t:9: [gateway] lossless:"));
	assert_non_null(strstr(buf, "t:4: [marker] phantom_fraction: 2 out of range (0.01 .. 1)"));
	assert_non_null(strstr(buf, "t:5: [nope] x: unknown section [nope]"));
	/* A bare number where a unit is needed names the key and the units. */
	assert_non_null(strstr(buf, "t:6: [sim] end: bad value '1000': needs a unit (ns, us, ms or s)"));
	assert_non_null(strstr(buf, "t:7: [marker] kmin: bad value '2 apples'"));
	assert_non_null(strstr(buf, "t:8: [sim] sed: unknown key (did you mean seed?)"));
	/* Failed sets leave the previous values. */
	assert_int_equal(c.mechanisms, SIM_MECH_A | SIM_MECH_C);
}

/* Every default in the key table loads. */
static void
test_config_defaults(void **state)
{
	(void)state;
	assert_int_equal(sim_config_default_errors(), 0);
}

/* The INI reader: FILE:LINE for every error, bounded regular files only. */
static void
test_config_ini(void **state)
{
	char dir[] = "/tmp/sim-unit-XXXXXX", path[64], buf[4096];
	struct sim_config c;
	FILE *err, *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sim.ini", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("; comment\n[sim]\nseed = 7 ; inline comment\nend = 3\n[mech_x]\nhold = 1us\n"
	      "[mech_c]\nhold 1us\nhold = 20us\n", f);
	fclose(f);
	sim_config_defaults(&c);
	err = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(err);
	assert_true(sim_config_load_ini(&c, path, err) < 0);
	fclose(err);
	assert_int_equal(c.seed, 7);
	assert_int_equal(c.c_hold_ns, 20000);
	assert_non_null(strstr(buf, "sim.ini:4: [sim] end: bad value '3': needs a unit"));
	assert_non_null(strstr(buf, "sim.ini:5: unknown section [mech_x]"));
	assert_null(strstr(buf, "sim.ini:6:")); /* keys of a refused section: quiet */
	assert_non_null(strstr(buf, "sim.ini:8: [mech_c]: expected 'key = value'"));
	unlink(path);

	assert_int_equal(mkfifo(path, 0600), 0);
	err = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(err);
	assert_true(sim_config_load_ini(&c, path, err) < 0);
	assert_true(sim_config_load_hpcc(&c, path, err) < 0);
	fclose(err);
	assert_non_null(strstr(buf, "sim.ini: not a regular file (a FIFO)"));
	unlink(path);

	f = fopen(path, "w");
	assert_non_null(f);
	for (unsigned int i = 0; i < (1u << 20) / 16 + 1; i++)
		fputs("; padding......\n", f);
	fclose(f);
	err = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(err);
	assert_true(sim_config_load_ini(&c, path, err) < 0);
	fclose(err);
	assert_non_null(strstr(buf, "larger than the 1048576-byte limit"));
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heap_order),
		cmocka_unit_test(test_event_queues),
		cmocka_unit_test(test_parse_rate),
		cmocka_unit_test(test_parse_time),
		cmocka_unit_test(test_config_defaults),
		cmocka_unit_test(test_config_ini),
		cmocka_unit_test(test_tx_time),
		cmocka_unit_test(test_config_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
