/* SPDX-License-Identifier: BSD-3-Clause */
/* Credit-based WAN hop: cumulative counters survive lost grants, lost data and restarts. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "congestion/credit.h"

#define BUF 10000

static void
setup_pair(struct credit_config *c, struct credit_tx *t, struct credit_rx *r)
{
	struct credit_params p = { .buffer_bytes = BUF, .update_bytes = 1000,
		.update_ticks = 100 };

	assert_int_equal(credit_config_init(c, &p), 0);
	credit_tx_init(t, 7);
	credit_rx_init(r);
}

/* One grant from R to T at NOW; DELIVER false drops it on the WAN. */
static void
grant(const struct credit_config *c, struct credit_rx *r, struct credit_tx *t, uint64_t now,
		bool deliver)
{
	uint64_t limit;
	uint32_t epoch;

	assert_true(credit_rx_advertise(c, r, now, &limit, &epoch));
	if (deliver)
		credit_tx_grant(t, epoch, limit);
}

/* T sends BYTES if it may; DELIVER false loses the packet on the WAN. */
static bool
send(const struct credit_config *c, struct credit_tx *t, struct credit_rx *r, uint32_t bytes,
		bool deliver)
{
	uint64_t report;

	if (!credit_tx_may_send(t, bytes))
		return false;
	report = credit_tx_sent(t, bytes);
	if (deliver) {
		credit_rx_arrive(c, r, bytes);
		credit_rx_report(r, t->epoch, report);
	}
	return true;
}

static void
test_validation(void **state)
{
	struct credit_params p = { .buffer_bytes = 1000, .update_bytes = 1000, .update_ticks = 1 };
	struct credit_config c;

	(void)state;
	assert_int_equal(credit_config_init(&c, &p), 0);
	p.update_bytes = 1001;
	assert_int_equal(credit_config_init(&c, &p), -EINVAL);
	p.update_bytes = 0;
	assert_int_equal(credit_config_init(&c, &p), -EINVAL);
	p.update_bytes = 1;
	p.update_ticks = 0;
	assert_int_equal(credit_config_init(&c, &p), -EINVAL);
	p.update_ticks = 1;
	p.buffer_bytes = 0;
	assert_int_equal(credit_config_init(&c, &p), -EINVAL);
}

static void
test_no_credit_before_sync(void **state)
{
	struct credit_config c;
	struct credit_tx t;
	struct credit_rx r;
	uint64_t limit;
	uint32_t epoch;

	(void)state;
	setup_pair(&c, &t, &r);
	assert_false(credit_tx_may_send(&t, 1));
	/* The receiver has nothing to grant against until a report arrives. */
	assert_false(credit_rx_update_due(&c, &r, 0));
	assert_false(credit_rx_limit(&c, &r, &limit, &epoch));
	/* An idle sender's control packet reports 0. */
	credit_rx_report(&r, t.epoch, 0);
	assert_true(credit_rx_update_due(&c, &r, 0));
	grant(&c, &r, &t, 0, true);
	assert_int_equal(credit_tx_available(&t), BUF);
	assert_true(send(&c, &t, &r, BUF, true));
	assert_false(send(&c, &t, &r, 1, true));
}

static void
test_lost_grant_does_not_leak(void **state)
{
	struct credit_config c;
	struct credit_tx t;
	struct credit_rx r;

	(void)state;
	setup_pair(&c, &t, &r);
	credit_rx_report(&r, t.epoch, 0);
	grant(&c, &r, &t, 0, true);
	assert_true(send(&c, &t, &r, 6000, true));
	assert_true(send(&c, &t, &r, 4000, true));
	assert_int_equal(credit_tx_available(&t), 0);
	/* The receiver drains 3000 and grants; that grant is lost on the WAN. */
	credit_rx_drain(&r, 3000);
	assert_true(credit_rx_update_due(&c, &r, 10));
	grant(&c, &r, &t, 10, false);
	assert_int_equal(credit_tx_available(&t), 0);
	assert_false(credit_rx_update_due(&c, &r, 11));
	/* More drains; the next grant carries the whole limit, the lost one included. */
	credit_rx_drain(&r, 5000);
	grant(&c, &r, &t, 20, true);
	assert_int_equal(credit_tx_available(&t), 8000);
	/* Nothing moved, yet the timer re-grants, which would repair a loss too. */
	credit_rx_drain(&r, 2000);
	credit_rx_drain(&r, 0);
	assert_true(credit_rx_update_due(&c, &r, 21)); /* 2000 >= update_bytes */
	grant(&c, &r, &t, 21, false);
	assert_false(credit_rx_update_due(&c, &r, 120));
	assert_true(credit_rx_update_due(&c, &r, 121));
	grant(&c, &r, &t, 121, true);
	assert_int_equal(credit_tx_available(&t), BUF);
	assert_int_equal(r.occupancy_bytes, 0);
	assert_int_equal(r.overrun_bytes, 0);
}

static void
test_late_grant_ignored(void **state)
{
	struct credit_config c;
	struct credit_tx t;
	struct credit_rx r;
	uint64_t old_limit;
	uint32_t epoch;

	(void)state;
	setup_pair(&c, &t, &r);
	credit_rx_report(&r, t.epoch, 0);
	assert_true(credit_rx_advertise(&c, &r, 0, &old_limit, &epoch));
	credit_rx_drain(&r, 0);
	grant(&c, &r, &t, 0, true);
	assert_true(send(&c, &t, &r, 5000, true));
	credit_rx_drain(&r, 5000);
	grant(&c, &r, &t, 1, true);
	assert_int_equal(t.limit, 15000);
	/* A duplicate of the first grant arriving late must not shrink the limit. */
	assert_false(credit_tx_grant(&t, epoch, old_limit));
	assert_int_equal(t.limit, 15000);
	assert_int_equal(t.grants_stale, 1);
}

static void
test_lost_data_does_not_leak(void **state)
{
	struct credit_config c;
	struct credit_tx t;
	struct credit_rx r;

	(void)state;
	setup_pair(&c, &t, &r);
	credit_rx_report(&r, t.epoch, 0);
	grant(&c, &r, &t, 0, true);
	assert_true(send(&c, &t, &r, 4000, true));
	assert_true(send(&c, &t, &r, 3000, false)); /* lost on the WAN */
	assert_true(send(&c, &t, &r, 3000, true)); /* its report covers the lost bytes */
	assert_int_equal(r.lost_bytes, 3000);
	assert_int_equal(r.occupancy_bytes, 7000);
	credit_rx_drain(&r, 7000);
	grant(&c, &r, &t, 1, true);
	assert_int_equal(credit_tx_available(&t), BUF);
}

static void
test_sender_restart(void **state)
{
	struct credit_config c;
	struct credit_tx t;
	struct credit_rx r;
	uint64_t limit;
	uint32_t epoch;

	(void)state;
	setup_pair(&c, &t, &r);
	credit_rx_report(&r, t.epoch, 0);
	grant(&c, &r, &t, 0, true);
	assert_true(send(&c, &t, &r, 8000, true));
	credit_rx_drain(&r, 8000);
	/* The sender restarts: new epoch, its counter from 0, no credit yet. */
	credit_tx_init(&t, 8);
	assert_true(credit_rx_advertise(&c, &r, 1, &limit, &epoch));
	assert_false(credit_tx_grant(&t, epoch, limit)); /* for its previous life */
	assert_false(credit_tx_may_send(&t, 1));
	credit_rx_report(&r, t.epoch, 0);
	assert_int_equal(r.sender_restarts, 1);
	assert_true(credit_rx_update_due(&c, &r, 2));
	grant(&c, &r, &t, 2, true);
	assert_int_equal(credit_tx_available(&t), BUF);
}

static void
test_overrun_counted(void **state)
{
	struct credit_config c;
	struct credit_tx t;
	struct credit_rx r;

	(void)state;
	setup_pair(&c, &t, &r);
	/* A sender that ignores its grants: everything above the buffer is counted. */
	credit_rx_arrive(&c, &r, 9000);
	credit_rx_arrive(&c, &r, 2000);
	credit_rx_arrive(&c, &r, 500);
	assert_int_equal(r.overrun_bytes, 1500);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validation),
		cmocka_unit_test(test_no_credit_before_sync),
		cmocka_unit_test(test_lost_grant_does_not_leak),
		cmocka_unit_test(test_late_grant_ignored),
		cmocka_unit_test(test_lost_data_does_not_leak),
		cmocka_unit_test(test_sender_restart),
		cmocka_unit_test(test_overrun_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
