/* SPDX-License-Identifier: BSD-3-Clause */
/* PFC state machine: exact pause durations, resume, refresh, watermarks, paused time. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "congestion/cc_time.h"
#include "congestion/pfc.h"

#define NS_HZ 1000000000ull
#define G 1000000000ull

static void
config(struct pfc_config *c, uint64_t rate_bps, uint64_t hz)
{
	struct pfc_params p = {
		.port_rate_bps = rate_bps, .hz = hz, .xoff_bytes = 100000,
		.xon_bytes = 50000, .pause_quanta = PFC_QUANTA_MAX, .priority_mask = 1u << 3,
	};

	assert_int_equal(pfc_config_init(c, &p), 0);
}

static void
test_validation(void **state)
{
	struct pfc_params p = {
		.port_rate_bps = 10 * G, .hz = NS_HZ, .xoff_bytes = 1000, .xon_bytes = 500,
		.pause_quanta = 1, .priority_mask = 0xff,
	};
	struct pfc_config c;

	(void)state;
	assert_int_equal(pfc_config_init(&c, &p), 0);
	p.xon_bytes = 1000;
	assert_int_equal(pfc_config_init(&c, &p), -EINVAL);
	p.xon_bytes = 0;
	p.pause_quanta = 0;
	assert_int_equal(pfc_config_init(&c, &p), -EINVAL);
	p.pause_quanta = 1;
	p.port_rate_bps = 0;
	assert_int_equal(pfc_config_init(&c, &p), -EINVAL);
	p.port_rate_bps = 10 * G;
	p.hz = 0;
	assert_int_equal(pfc_config_init(&c, &p), -EINVAL);
	p.hz = NS_HZ;
	p.xoff_bytes = 0;
	assert_int_equal(pfc_config_init(&c, &p), -EINVAL);
}

static void
test_quanta_ticks(void **state)
{
	struct pfc_config c;

	(void)state;
	/* 10 Gb/s: a quantum is 51.2 ns. */
	config(&c, 10 * G, NS_HZ);
	assert_int_equal(pfc_quanta_to_ticks(&c, 0), 0);
	assert_int_equal(pfc_quanta_to_ticks(&c, 10), 512);
	assert_int_equal(pfc_quanta_to_ticks(&c, 1), 52); /* rounded up, never shorter */
	assert_int_equal(c.pause_ticks, 3355392); /* 65535 x 51.2 ns */
	assert_int_equal(c.refresh_ticks, 1677696);
	/* 100 Gb/s: 5.12 ns; 65535 quanta = 335539.2 ns. */
	config(&c, 100 * G, NS_HZ);
	assert_int_equal(pfc_quanta_to_ticks(&c, PFC_QUANTA_MAX), 335540);
	/* A 2.5 GHz TSC at 100 Gb/s: 12.8 cycles per quantum. */
	config(&c, 100 * G, 2500000000ull);
	assert_int_equal(pfc_quanta_to_ticks(&c, 5), 64);
}

static void
test_rx_exact_duration(void **state)
{
	uint16_t q[PFC_PRIORITIES] = { 0 };
	struct pfc_config c;
	struct pfc s;
	uint64_t t0 = UINT64_MAX - 100; /* the pause spans the clock's wrap */
	unsigned int i;

	(void)state;
	config(&c, 10 * G, NS_HZ);
	pfc_init(&s);
	q[3] = 1000; /* 51.2 us */
	q[5] = 7;
	pfc_rx_frame(&c, &s, 1u << 3, q, t0);
	for (i = 0; i < PFC_PRIORITIES; i++)
		assert_int_equal(pfc_rx_paused(&s, i, t0), i == 3); /* bit 5 not enabled */
	assert_true(pfc_rx_paused(&s, 3, t0 + 51199));
	assert_int_equal(pfc_next_event(&c, &s), t0 + 51200);
	assert_false(pfc_rx_paused(&s, 3, t0 + 51200));
	assert_int_equal(pfc_rx_paused_ticks(&s, 3, t0 + 90000), 51200);
	assert_int_equal(s.rx[3].frames, 1);
	assert_int_equal(pfc_next_event(&c, &s), CC_TIME_NEVER);
}

static void
test_rx_extend_and_resume(void **state)
{
	uint16_t q[PFC_PRIORITIES] = { 0 };
	struct pfc_config c;
	struct pfc s;

	(void)state;
	config(&c, 10 * G, NS_HZ);
	pfc_init(&s);
	q[3] = 100; /* 5120 ns */
	pfc_rx_frame(&c, &s, 0x08, q, 1000);
	/* A refresh reloads the timer from its own arrival. */
	pfc_rx_frame(&c, &s, 0x08, q, 5000);
	assert_true(pfc_rx_paused(&s, 3, 10119));
	assert_false(pfc_rx_paused(&s, 3, 10120));
	assert_int_equal(pfc_rx_paused_ticks(&s, 3, 20000), 9120);
	/* Zero quanta resumes at once; time counted up to the resume. */
	q[3] = 0xffff;
	pfc_rx_frame(&c, &s, 0x08, q, 30000);
	assert_int_equal(pfc_rx_paused_ticks(&s, 3, 30500), 9620);
	q[3] = 0;
	pfc_rx_frame(&c, &s, 0x08, q, 31000);
	assert_false(pfc_rx_paused(&s, 3, 31000));
	assert_int_equal(pfc_rx_paused_ticks(&s, 3, 99999), 10120);
	assert_int_equal(s.rx[3].resumes, 1);
	/* A zero-quanta frame while running changes nothing. */
	pfc_rx_frame(&c, &s, 0x08, q, 40000);
	assert_int_equal(s.rx[3].resumes, 1);
	/* A pause that expired before the next frame ends at its expiry. */
	q[3] = 100;
	pfc_rx_frame(&c, &s, 0x08, q, 50000);
	pfc_rx_frame(&c, &s, 0x08, q, 60000);
	assert_int_equal(pfc_rx_paused_ticks(&s, 3, 60000), 10120 + 5120);
}

static void
test_tx_watermarks_and_refresh(void **state)
{
	struct pfc_config c;
	struct pfc s;
	uint64_t r;

	(void)state;
	config(&c, 10 * G, NS_HZ);
	r = c.refresh_ticks;
	pfc_init(&s);
	/* Not a lossless priority: never paused. */
	assert_int_equal(pfc_tx_decide(&c, &s, 0, 1 << 30, 0), PFC_TX_NONE);
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 99999, 0), PFC_TX_NONE);
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 100000, 10), PFC_TX_PAUSE);
	/* Above XON: nothing until the refresh is due, half the pause later. */
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 200000, 11), PFC_TX_NONE);
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 50001, 10 + r - 1), PFC_TX_NONE);
	assert_int_equal(pfc_next_event(&c, &s), 10 + r);
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 50001, 10 + r), PFC_TX_PAUSE);
	assert_int_equal(s.tx[3].pauses, 2);
	/* At XON: resume. */
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 50000, 10 + r + 100), PFC_TX_RESUME);
	assert_int_equal(pfc_tx_paused_ticks(&c, &s, 3, 10 * r), r + 100);
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 60000, 10 + r + 200), PFC_TX_NONE);
	assert_int_equal(s.tx[3].resumes, 1);
	/* Every frame in time: no lapse; the longest gap was the refresh. */
	assert_int_equal(s.tx[3].lapses, 0);
	assert_int_equal(s.tx[3].lapsed_ticks, 0);
}

static void
test_tx_unsent(void **state)
{
	struct pfc_config c;
	struct pfc s;

	(void)state;
	config(&c, 10 * G, NS_HZ);
	pfc_init(&s);
	/* The first pause could not leave: the next call tries again. */
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 100000, 10), PFC_TX_PAUSE);
	pfc_tx_unsent(&s, 3);
	assert_false(s.tx[3].xoff);
	assert_int_equal(s.tx[3].pauses, 0);
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 100000, 20), PFC_TX_PAUSE);
	/* A resume that could not leave is given again. */
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 0, 30), PFC_TX_RESUME);
	pfc_tx_unsent(&s, 3);
	assert_true(s.tx[3].xoff);
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 0, 40), PFC_TX_RESUME);
	assert_int_equal(pfc_tx_paused_ticks(&c, &s, 3, 50), 20);
}

static void
test_tx_late_refresh(void **state)
{
	struct pfc_config c;
	struct pfc s;

	(void)state;
	config(&c, 10 * G, NS_HZ);
	pfc_init(&s);
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 100000, 0), PFC_TX_PAUSE);
	/* Called too late: the fabric ran from the expiry until this refresh. */
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 100000, 2 * c.pause_ticks), PFC_TX_PAUSE);
	assert_int_equal(pfc_tx_paused_ticks(&c, &s, 3, 2 * c.pause_ticks + 5),
			c.pause_ticks + 5);
	assert_int_equal(s.tx[3].lapses, 1);
	assert_int_equal(s.tx[3].lapsed_ticks, c.pause_ticks);
	/* A resume after the pause expired is a lapse too; one just before is not. */
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 0, 3 * c.pause_ticks + 7), PFC_TX_RESUME);
	assert_int_equal(s.tx[3].lapses, 2);
	assert_int_equal(s.tx[3].lapsed_ticks, c.pause_ticks + 7);
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 100000, 4 * c.pause_ticks), PFC_TX_PAUSE);
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 0, 5 * c.pause_ticks - 1), PFC_TX_RESUME);
	assert_int_equal(s.tx[3].lapses, 2);
	/* A refused frame changes neither. */
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 100000, 6 * c.pause_ticks), PFC_TX_PAUSE);
	assert_int_equal(pfc_tx_decide(&c, &s, 3, 100000, 8 * c.pause_ticks), PFC_TX_PAUSE);
	pfc_tx_unsent(&s, 3);
	assert_int_equal(s.tx[3].lapses, 2);
	assert_int_equal(s.tx[3].lapsed_ticks, c.pause_ticks + 7);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validation),
		cmocka_unit_test(test_quanta_ticks),
		cmocka_unit_test(test_rx_exact_duration),
		cmocka_unit_test(test_rx_extend_and_resume),
		cmocka_unit_test(test_tx_watermarks_and_refresh),
		cmocka_unit_test(test_tx_unsent),
		cmocka_unit_test(test_tx_late_refresh),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
