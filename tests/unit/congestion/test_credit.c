/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Credit-based WAN hop: cumulative counters survive lost grants, lost data
 * and restarts; updates go only with news (a moved limit, a waiting sender)
 * or on the slow refresh, which still repairs a lost one.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "congestion/credit.h"

#define BUF 10000
#define UPD 1000
#define REFRESH 100

static void
setup_pair(struct credit_config *c, struct credit_tx *t, struct credit_rx *r)
{
	struct credit_params p = { .buffer_bytes = BUF, .update_bytes = 1000,
		.refresh_ticks = REFRESH };

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
		credit_rx_report(r, t->epoch, report, false);
	}
	return true;
}

/* T's own report (a control packet) at NOW; DELIVER false loses it. */
static bool
report(struct credit_tx *t, struct credit_rx *r, uint64_t now, bool deliver)
{
	bool wait = credit_tx_report(t, now, t->sent, false);

	if (deliver)
		credit_rx_report(r, t->epoch, t->sent, wait);
	return wait;
}

static void
test_validation(void **state)
{
	struct credit_params p = { .buffer_bytes = 1000, .update_bytes = 1000, .refresh_ticks = 1 };
	struct credit_config c;

	(void)state;
	assert_int_equal(credit_config_init(&c, &p), 0);
	p.update_bytes = 1001;
	assert_int_equal(credit_config_init(&c, &p), -EINVAL);
	p.update_bytes = 0;
	assert_int_equal(credit_config_init(&c, &p), -EINVAL);
	p.update_bytes = 1;
	p.refresh_ticks = 0;
	assert_int_equal(credit_config_init(&c, &p), -EINVAL);
	p.refresh_ticks = 1;
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
	credit_rx_report(&r, t.epoch, 0, false);
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
	credit_rx_report(&r, t.epoch, 0, false);
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
	credit_rx_report(&r, t.epoch, 0, false);
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
	credit_rx_report(&r, t.epoch, 0, false);
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
	credit_rx_report(&r, t.epoch, 0, false);
	grant(&c, &r, &t, 0, true);
	assert_true(send(&c, &t, &r, 8000, true));
	credit_rx_drain(&r, 8000);
	/* The sender restarts: new epoch, its counter from 0, no credit yet. */
	credit_tx_init(&t, 8);
	assert_true(credit_rx_advertise(&c, &r, 1, &limit, &epoch));
	assert_false(credit_tx_grant(&t, epoch, limit)); /* for its previous life */
	assert_false(credit_tx_may_send(&t, 1));
	credit_rx_report(&r, t.epoch, 0, false);
	assert_int_equal(r.sender_restarts, 1);
	assert_true(credit_rx_update_due(&c, &r, 2));
	grant(&c, &r, &t, 2, true);
	assert_int_equal(credit_tx_available(&t), BUF);
}

/*
 * Both ends idle for 100 refresh intervals, asked every tick as a worker's
 * poll would: each sends its report and its grant (one control packet each
 * way) once per refresh, not more.
 */
static void
test_idle_at_refresh_rate(void **state)
{
	struct credit_config c;
	struct credit_tx ta, tb;
	struct credit_rx ra, rb; /* ra: what A grants B; rb: what B grants A */
	unsigned int ctrl_a = 0, ctrl_b = 0;
	uint64_t now, limit;
	uint32_t epoch;

	(void)state;
	setup_pair(&c, &ta, &rb);
	credit_tx_init(&tb, 9);
	credit_rx_init(&ra);
	for (now = 1; now <= 100 * REFRESH; now++) {
		if (credit_tx_report_due(&c, &ta, now) || credit_rx_update_due(&c, &ra, now)) {
			ctrl_a++;
			report(&ta, &rb, now, true);
			if (credit_rx_advertise(&c, &ra, now, &limit, &epoch))
				credit_tx_grant(&tb, epoch, limit);
		}
		if (credit_tx_report_due(&c, &tb, now) || credit_rx_update_due(&c, &rb, now)) {
			ctrl_b++;
			report(&tb, &ra, now, true);
			if (credit_rx_advertise(&c, &rb, now, &limit, &epoch))
				credit_tx_grant(&ta, epoch, limit);
		}
	}
	/* The first report, B's first grant a tick later, then one per refresh. */
	assert_true(ctrl_a <= 100 + 2);
	assert_true(ctrl_b <= 100 + 2);
	assert_true(ctrl_a >= 100);
	assert_int_equal(credit_tx_available(&ta), BUF);
	assert_int_equal(credit_tx_available(&tb), BUF);
	/* Idle, no wait: nothing is due between refreshes. */
	assert_false(credit_tx_report_due(&c, &ta, ta.reported_at + REFRESH - 1));
	assert_true(credit_tx_report_due(&c, &ta, ta.reported_at + REFRESH));
	assert_int_equal(credit_tx_report_at(&c, &ta), ta.reported_at + REFRESH);
	assert_int_equal(credit_rx_update_at(&c, &ra), ra.advertised_at + REFRESH);
}

/*
 * A sender out of credit says so once, and is answered at once when the
 * receiver has room for it, though the limit moved less than update_bytes
 * since the last grant.
 */
static void
test_waiting_sender_answered(void **state)
{
	struct credit_config c;
	struct credit_tx t;
	struct credit_rx r;

	(void)state;
	setup_pair(&c, &t, &r);
	report(&t, &r, 0, true);
	grant(&c, &r, &t, 0, true);
	/* 9500 sent: the 500 of credit left are too few for the next packet of 1000. */
	assert_true(send(&c, &t, &r, 9500, true));
	assert_false(credit_tx_may_send(&t, 1000));
	/* Nothing is due: the sender has not said it waits, the limit did not move. */
	assert_false(credit_tx_report_due(&c, &t, 1));
	assert_false(credit_rx_update_due(&c, &r, 1));
	/* The head waits: a report is due at once, with the wait flag, once per wait. */
	credit_tx_wait(&t);
	assert_true(credit_tx_report_due(&c, &t, 1));
	assert_true(report(&t, &r, 1, true));
	assert_false(credit_tx_report_due(&c, &t, 2));
	assert_true(r.sender_waiting);
	/* Room 500 + 400 beyond its report: under update_bytes, an answer would not help. */
	credit_rx_drain(&r, 400);
	assert_false(credit_rx_update_due(&c, &r, 2));
	/*
	 * 400 more: the limit moved 800 since the last grant, under update_bytes,
	 * but it leaves the waiting sender 1300: due at once, not at the refresh.
	 */
	credit_rx_drain(&r, 400);
	assert_true(credit_rx_update_due(&c, &r, 3));
	grant(&c, &r, &t, 3, true);
	assert_false(credit_rx_update_due(&c, &r, 4)); /* answered */
	assert_true(send(&c, &t, &r, 1000, true)); /* the wait is over */
	assert_false(t.waiting);
	assert_false(r.sender_waiting);
	/* A charged packet's report never carries the wait, even if a wait began after it. */
	credit_tx_wait(&t);
	assert_false(credit_tx_report(&t, 5, t.sent, true));
	assert_true(credit_tx_report_due(&c, &t, 5));
	/* Without news, the threshold rule alone: the receiver waits for the refresh. */
	credit_rx_report(&r, t.epoch, t.sent, false);
	credit_rx_drain(&r, 100);
	assert_false(credit_rx_update_due(&c, &r, 4 + REFRESH - 2));
	assert_true(credit_rx_update_due(&c, &r, 3 + REFRESH));
}

/*
 * The grant that would have let a sender go is lost: the sender's wait
 * report is answered at once with the same cumulative limit. The answer is
 * lost too: the refresh of the report, then of the grant, repairs it.
 */
static void
test_lost_update_repaired(void **state)
{
	struct credit_config c;
	struct credit_tx t;
	struct credit_rx r;
	uint64_t now;

	(void)state;
	setup_pair(&c, &t, &r);
	report(&t, &r, 0, true);
	grant(&c, &r, &t, 0, true);
	assert_true(send(&c, &t, &r, BUF, true));
	credit_rx_drain(&r, 5000);
	assert_true(credit_rx_update_due(&c, &r, 10));
	grant(&c, &r, &t, 10, false); /* lost */
	assert_false(credit_rx_update_due(&c, &r, 11));
	/* The sender waits; its report reaches the receiver, which answers at once. */
	credit_tx_wait(&t);
	assert_true(report(&t, &r, 20, true));
	assert_true(credit_rx_update_due(&c, &r, 20));
	grant(&c, &r, &t, 20, false); /* lost as well */
	assert_false(credit_rx_update_due(&c, &r, 21));
	assert_false(credit_tx_report_due(&c, &t, 21));
	/* Nobody has news now: both wait for their refresh, 100 after their last update. */
	for (now = 21; now < 120; now++) {
		assert_false(credit_tx_report_due(&c, &t, now));
		assert_false(credit_rx_update_due(&c, &r, now));
	}
	/* The sender's refresh is lost; the receiver's grant refresh repairs it alone. */
	assert_true(credit_tx_report_due(&c, &t, 120));
	assert_true(report(&t, &r, 120, false)); /* still waiting: the flag again */
	assert_true(credit_rx_update_due(&c, &r, 120));
	grant(&c, &r, &t, 120, true);
	assert_int_equal(credit_tx_available(&t), 5000);
	assert_true(send(&c, &t, &r, 5000, true));
	/* And the other way round: the grant refresh lost, the waiting report repairs it. */
	credit_rx_drain(&r, 10000);
	grant(&c, &r, &t, 121, false);
	assert_true(credit_tx_available(&t) == 0);
	credit_tx_wait(&t);
	assert_true(report(&t, &r, 122, true));
	assert_true(credit_rx_update_due(&c, &r, 122));
	grant(&c, &r, &t, 122, true);
	assert_int_equal(credit_tx_available(&t), BUF);
	assert_int_equal(r.overrun_bytes, 0);
	assert_int_equal(r.lost_bytes, 0);
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
		cmocka_unit_test(test_idle_at_refresh_rate),
		cmocka_unit_test(test_waiting_sender_answered),
		cmocka_unit_test(test_lost_update_repaired),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
