/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wanem_line with a controlled clock (1 tick = 1 ns): exact due times,
 * serialization arithmetic, tail drop, seeded loss within binomial bounds,
 * reordering semantics, the accounting identity and validation.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wanem_line.h"

#define HZ UINT64_C(1000000000)
#define NSLOTS 1024u

static struct wanem_line_slot slots[1u << 17];

static void
params_base(struct wanem_line_params *p)
{
	memset(p, 0, sizeof(*p));
	p->hz = HZ;
	p->delay_ns = 500000;
	p->reorder_gap = 3;
	p->reorder_max_ns = 1000000;
	p->seed = 7;
}

static void
line_make(struct wanem_line *l, const struct wanem_line_params *p, uint32_t nslots, uint64_t now)
{
	struct wanem_line_config c;

	assert_int_equal(wanem_line_config_init(&c, p), 0);
	assert_int_equal(wanem_line_init(l, &c, slots, nslots, now), 0);
}

/* Fake packet pointers: 1, 2, 3... */
static void *
pkt(uintptr_t i)
{
	return (void *)i;
}

static void
assert_accounts(const struct wanem_line *l)
{
	const struct wanem_line_stats *s = &l->st;

	assert_int_equal(s->rx_pkts,
			 s->tx_pkts + s->drop_slots + s->drop_queue + s->drop_loss + s->held_pkts +
				 s->drained);
}

/* Release at now and transmit everything ready; returns how many left. */
static uint32_t
take(struct wanem_line *l, uint64_t now, uintptr_t *out, uint32_t max)
{
	void *p[WANEM_LINE_READY];
	uint32_t n, i;

	wanem_line_release(l, now);
	n = wanem_line_ready(l, p, max < WANEM_LINE_READY ? max : WANEM_LINE_READY);
	for (i = 0; i < n; i++)
		out[i] = (uintptr_t)p[i];
	wanem_line_sent(l, n, now);
	return n;
}

static void
test_delay_exact(void **state)
{
	struct wanem_line_params p;
	struct wanem_line l;
	uintptr_t out[8];

	(void)state;
	params_base(&p);
	line_make(&l, &p, NSLOTS, 1000);
	assert_int_equal(wanem_line_next_due(&l), UINT64_MAX);
	assert_int_equal(wanem_line_enqueue(&l, pkt(1), 100, 1000), WANEM_LINE_QUEUED);
	assert_int_equal(wanem_line_enqueue(&l, pkt(2), 100, 1500), WANEM_LINE_QUEUED);
	assert_int_equal(wanem_line_next_due(&l), 501000);
	assert_int_equal(take(&l, 500999, out, 8), 0);
	assert_int_equal(take(&l, 501000, out, 8), 1);
	assert_int_equal(out[0], 1);
	assert_int_equal(wanem_line_next_due(&l), 501500);
	/* Late by 300 ticks: counted as lateness. */
	assert_int_equal(take(&l, 501800, out, 8), 1);
	assert_int_equal(out[0], 2);
	assert_int_equal(l.st.late_max_ticks, 300);
	assert_int_equal(l.st.late_sum_ticks, 300);
	assert_int_equal(l.st.tx_bytes, 200);
	assert_accounts(&l);
}

/* --delay-alt: a new delay applies to later packets, never reorders. */
static void
test_delay_change(void **state)
{
	struct wanem_line_params p;
	struct wanem_line l;
	uintptr_t out[8];

	(void)state;
	params_base(&p);
	line_make(&l, &p, NSLOTS, 1000);
	assert_int_equal(wanem_line_enqueue(&l, pkt(1), 100, 1000), WANEM_LINE_QUEUED);
	assert_int_equal(wanem_line_set_delay(&l, 49000), 0);
	/* Due at 51000, behind packet 1 (due 501000): it waits for it. */
	assert_int_equal(wanem_line_enqueue(&l, pkt(2), 100, 2000), WANEM_LINE_QUEUED);
	assert_int_equal(take(&l, 60000, out, 8), 0);
	assert_int_equal(take(&l, 501000, out, 8), 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	assert_int_equal(wanem_line_enqueue(&l, pkt(3), 100, 600000), WANEM_LINE_QUEUED);
	assert_int_equal(wanem_line_next_due(&l), 649000);
	assert_int_equal(wanem_line_set_delay(&l, 490000), 0);
	assert_int_equal(wanem_line_enqueue(&l, pkt(4), 100, 600100), WANEM_LINE_QUEUED);
	assert_int_equal(take(&l, 649000, out, 8), 1);
	assert_int_equal(out[0], 3);
	assert_int_equal(wanem_line_next_due(&l), 1090100);
	assert_int_equal(wanem_line_set_delay(&l, WANEM_LINE_MAX_DELAY_NS + 1), -EINVAL);
	assert_int_equal(wanem_line_next_due(&l), 1090100);
	assert_accounts(&l);
}

static void
test_rate_serialization(void **state)
{
	struct wanem_line_params p;
	struct wanem_line l;
	uintptr_t out[8];
	int i;

	(void)state;
	params_base(&p);
	p.rate_bps = 8000000; /* 1 byte per us */
	p.overhead_bytes = 24;
	p.queue_bytes = 3000;
	line_make(&l, &p, NSLOTS, 0);
	/* 976 + 24 bytes = 1 ms each on the link; all arrive at t = 0. */
	for (i = 1; i <= 4; i++)
		assert_int_equal(wanem_line_enqueue(&l, pkt((uintptr_t)i), 976, 0),
				 i <= 3 ? WANEM_LINE_QUEUED : WANEM_LINE_DROP_QUEUE);
	/* Backlog at t = 0: three packets = 3000 bytes of link time. */
	assert_int_equal(wanem_line_backlog_bytes(&l, 0), 3000);
	assert_int_equal(wanem_line_backlog_bytes(&l, 1500000), 1500);
	assert_int_equal(l.st.drop_queue, 1);
	/* Due times: k ms of serialization + 500 us of fibre. */
	assert_int_equal(wanem_line_next_due(&l), 1500000);
	assert_int_equal(take(&l, 1499999, out, 8), 0);
	assert_int_equal(take(&l, 1500000, out, 8), 1);
	assert_int_equal(take(&l, 2500000, out, 8), 1);
	/* The link is free again at 3 ms: a new arrival starts at once. */
	assert_int_equal(wanem_line_enqueue(&l, pkt(5), 976, 4000000), WANEM_LINE_QUEUED);
	assert_int_equal(take(&l, 3500000, out, 8), 1);
	assert_int_equal(out[0], 3);
	assert_int_equal(wanem_line_next_due(&l), 5500000);
	assert_accounts(&l);
}

static void
test_rate_no_drift(void **state)
{
	struct wanem_line_params p;
	struct wanem_line l;
	uint64_t i, n = 100000;

	(void)state;
	params_base(&p);
	p.delay_ns = 0;
	p.rate_bps = 3000000000; /* 0.375 bytes per ns: fractional ticks per byte */
	line_make(&l, &p, 1u << 17, 0);
	for (i = 0; i < n; i++)
		assert_int_equal(wanem_line_enqueue(&l, pkt(i + 1), 1500, 0), WANEM_LINE_QUEUED);
	/* 1e5 x 1500 B x 8 / 3e9 = 400 ms exactly; rounding never accumulates. */
	assert_true(l.link_free >= 399999999 && l.link_free <= 400000001);
}

static void
test_slots_full(void **state)
{
	struct wanem_line_params p;
	struct wanem_line l;

	(void)state;
	params_base(&p);
	line_make(&l, &p, 4, 0);
	for (uintptr_t i = 1; i <= 4; i++)
		assert_int_equal(wanem_line_enqueue(&l, pkt(i), 64, 0), WANEM_LINE_QUEUED);
	assert_int_equal(wanem_line_enqueue(&l, pkt(5), 64, 0), WANEM_LINE_DROP_SLOTS);
	assert_int_equal(l.st.drop_slots, 1);
	assert_int_equal(l.st.max_held_pkts, 4);
	assert_accounts(&l);
}

/* Binomial bounds: |k - np| <= 5 sqrt(np(1-p)). */
static void
assert_binomial(uint64_t k, uint64_t n, double p)
{
	double mean = (double)n * p, sd = sqrt((double)n * p * (1 - p));

	assert_true(fabs((double)k - mean) <= 5 * sd + 1);
}

/* n packets 100 ns apart through a 1 us line with loss; returns the line's losses. */
static uint64_t
run_loss(struct wanem_line *l, struct wanem_line_params *p, uint64_t n)
{
	uintptr_t out[WANEM_LINE_READY];
	uint64_t i, t = 0;

	line_make(l, p, 1u << 17, 0);
	for (i = 0; i < n; i++) {
		t += 100;
		wanem_line_enqueue(l, pkt(i + 1), 100, t);
		take(l, t, out, WANEM_LINE_READY);
	}
	while (take(l, t += 1000, out, WANEM_LINE_READY) > 0)
		;
	return l->st.drop_loss;
}

static void
test_loss_seeded(void **state)
{
	struct wanem_line_params p;
	struct wanem_line l;
	uint64_t n = 200000, lost;

	(void)state;
	params_base(&p);
	p.loss = 0.01;
	p.delay_ns = 1000;
	lost = run_loss(&l, &p, n);
	assert_binomial(lost, n, 0.01);
	assert_int_equal(l.st.tx_pkts + l.st.drop_loss, n);
	assert_int_equal(l.st.held_pkts, 0);
	assert_accounts(&l);
	/* Same seed, same losses; another seed, other losses. */
	assert_int_equal(run_loss(&l, &p, n), lost);
	p.seed = 8;
	assert_int_not_equal(run_loss(&l, &p, n), lost);
	assert_binomial(l.st.drop_loss, n, 0.01);
	p.loss = 0.5;
	assert_binomial(run_loss(&l, &p, n), n, 0.5);
}

static void
test_reorder_exact(void **state)
{
	struct wanem_line_params p;
	struct wanem_line l;
	uintptr_t out[8];

	(void)state;
	params_base(&p);
	p.reorder = 1.0;
	p.reorder_gap = 2;
	line_make(&l, &p, NSLOTS, 0);
	wanem_line_enqueue(&l, pkt(1), 100, 0);
	wanem_line_enqueue(&l, pkt(2), 100, 10);
	wanem_line_enqueue(&l, pkt(3), 100, 20);
	wanem_line_enqueue(&l, pkt(4), 100, 30);
	/* Packet 1 is picked (p = 1), then picking stops. */
	assert_int_equal(take(&l, 500000, out, 8), 0);
	assert_int_equal(l.st.reordered, 1);
	l.cfg.reorder_q32 = 0;
	assert_int_equal(take(&l, 500010, out, 8), 1);
	assert_int_equal(out[0], 2);
	/* The second later packet releases packet 1 right behind it. */
	assert_int_equal(take(&l, 500020, out, 8), 2);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 1);
	assert_int_equal(take(&l, 500030, out, 8), 1);
	assert_int_equal(out[0], 4);
	assert_int_equal(l.st.reorder_timeouts, 0);
	assert_accounts(&l);
}

static void
test_reorder_timeout(void **state)
{
	struct wanem_line_params p;
	struct wanem_line l;
	uintptr_t out[8];

	(void)state;
	params_base(&p);
	p.reorder = 1.0;
	p.reorder_gap = 5;
	p.reorder_max_ns = 200000;
	line_make(&l, &p, NSLOTS, 0);
	wanem_line_enqueue(&l, pkt(1), 100, 0);
	assert_int_equal(take(&l, 500000, out, 8), 0);
	assert_int_equal(wanem_line_next_due(&l), 700000);
	assert_int_equal(take(&l, 699999, out, 8), 0);
	assert_int_equal(take(&l, 700000, out, 8), 1);
	assert_int_equal(l.st.reorder_timeouts, 1);
	assert_int_equal(wanem_line_next_due(&l), UINT64_MAX);
	assert_accounts(&l);
}

struct order_check {
	uint8_t *seen;
	uintptr_t max_out;
	uint64_t got, overtaken;
};

/* Each packet leaves once; one below the highest seen so far was overtaken. */
static void
order_check(struct order_check *oc, const uintptr_t *out, uint32_t k)
{
	for (uint32_t j = 0; j < k; j++) {
		assert_int_equal(oc->seen[out[j]], 0);
		oc->seen[out[j]] = 1;
		if (out[j] < oc->max_out)
			oc->overtaken++;
		else
			oc->max_out = out[j];
		oc->got++;
	}
}

static void
test_reorder_random(void **state)
{
	struct wanem_line_params p;
	struct wanem_line l;
	uint64_t n = 100000, i, t = 0;
	uintptr_t out[WANEM_LINE_READY];
	struct order_check oc = { .seen = calloc(n + 1, 1) };
	uint32_t k;

	(void)state;
	assert_non_null(oc.seen);
	params_base(&p);
	p.reorder = 0.01;
	p.reorder_gap = 3;
	p.delay_ns = 1000;
	line_make(&l, &p, 1u << 17, 0);
	for (i = 0; i < n; i++) {
		t += 100;
		wanem_line_enqueue(&l, pkt(i + 1), 100, t);
		order_check(&oc, out, take(&l, t, out, WANEM_LINE_READY));
	}
	t += 2000000;
	while ((k = take(&l, t, out, WANEM_LINE_READY)) > 0)
		order_check(&oc, out, k);
	assert_int_equal(oc.got, n);
	assert_binomial(l.st.reordered, n, 0.01);
	/*
	 * Traffic never paused: every picked packet was overtaken by 3 others,
	 * except those among the last 3, released by their deadline.
	 */
	assert_true(l.st.reorder_timeouts <= 3);
	assert_int_equal(oc.overtaken + l.st.reorder_timeouts, l.st.reordered);
	assert_accounts(&l);
	free(oc.seen);
}

static void
test_ready_partial_and_drain(void **state)
{
	struct wanem_line_params p;
	struct wanem_line l;
	void *ptrs[8];

	(void)state;
	params_base(&p);
	line_make(&l, &p, NSLOTS, 0);
	for (uintptr_t i = 1; i <= 6; i++)
		wanem_line_enqueue(&l, pkt(i), 100, i <= 4 ? 0 : 100000);
	wanem_line_release(&l, 500000);
	assert_int_equal(wanem_line_next_due(&l), 0);
	assert_int_equal(wanem_line_ready(&l, ptrs, 8), 4);
	/* The port took only two: the other two stay first in line. */
	wanem_line_sent(&l, 2, 500000);
	assert_int_equal(wanem_line_ready(&l, ptrs, 8), 2);
	assert_ptr_equal(ptrs[0], pkt(3));
	assert_int_equal(wanem_line_drain(&l, ptrs, 8), 4);
	assert_ptr_equal(ptrs[0], pkt(3));
	assert_ptr_equal(ptrs[3], pkt(6));
	assert_int_equal(l.st.drained, 4);
	assert_int_equal(l.st.held_pkts, 0);
	assert_int_equal(wanem_line_next_due(&l), UINT64_MAX);
	assert_accounts(&l);
}

static void
test_validation(void **state)
{
	struct wanem_line_params p;
	struct wanem_line_config c;
	struct wanem_line l;

	(void)state;
	params_base(&p);
	p.loss = 1.5;
	assert_int_equal(wanem_line_config_init(&c, &p), -EINVAL);
	params_base(&p);
	p.loss = -0.1;
	assert_int_equal(wanem_line_config_init(&c, &p), -EINVAL);
	params_base(&p);
	p.reorder = 0.1;
	p.reorder_gap = 0;
	assert_int_equal(wanem_line_config_init(&c, &p), -EINVAL);
	params_base(&p);
	p.hz = 0;
	assert_int_equal(wanem_line_config_init(&c, &p), -EINVAL);
	params_base(&p);
	p.delay_ns = UINT64_C(20000000000);
	assert_int_equal(wanem_line_config_init(&c, &p), -EINVAL);
	params_base(&p);
	assert_int_equal(wanem_line_config_init(&c, &p), 0);
	assert_int_equal(wanem_line_init(&l, &c, slots, 1000, 0), -EINVAL);
	/* Loss 1 drops everything. */
	p.loss = 1.0;
	line_make(&l, &p, NSLOTS, 0);
	assert_int_equal(wanem_line_enqueue(&l, pkt(1), 10, 0), WANEM_LINE_DROP_LOSS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delay_exact),
		cmocka_unit_test(test_delay_change),
		cmocka_unit_test(test_rate_serialization),
		cmocka_unit_test(test_rate_no_drift),
		cmocka_unit_test(test_slots_full),
		cmocka_unit_test(test_loss_seeded),
		cmocka_unit_test(test_reorder_exact),
		cmocka_unit_test(test_reorder_timeout),
		cmocka_unit_test(test_reorder_random),
		cmocka_unit_test(test_ready_partial_and_drain),
		cmocka_unit_test(test_validation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
