/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The gateway's mechanism A/C policy (congestion/gw_mech.h), the code both
 * the dataplane and the simulator run: one event trace per case, each
 * event with the actions it must produce.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "congestion/gw_mech.h"

struct ev {
	uint64_t t_ns;
	bool mark, drop, qpn_known;
	uint8_t ecn;
	/* expected */
	bool signal, answered;
	enum proxy_cnp_reason reason;
	bool set_ce, clear_ce;
	uint8_t ecn_out;
};

static void
run_trace(const struct gw_mech_a_config *cfg, const struct ev *e, size_t n)
{
	struct proxy_cnp_qp q;
	size_t i;

	proxy_cnp_qp_init(&q);
	for (i = 0; i < n; i++) {
		struct gw_mech_a_in in = { .mark = e[i].mark, .drop = e[i].drop, .ecn = e[i].ecn,
					   .qp_tracked = true, .qpn_known = e[i].qpn_known };
		struct gw_mech_a_actions a;

		gw_mech_a(cfg, &q, &in, e[i].t_ns, &a);
		print_message("event %zu\n", i);
		assert_int_equal(a.signal, e[i].signal);
		assert_int_equal(a.answered, e[i].answered);
		if (a.answered) {
			assert_int_equal(a.reason, e[i].reason);
			assert_int_equal(a.send_cnp, e[i].reason == PROXY_CNP_SENT);
		}
		assert_int_equal(a.set_ce, e[i].set_ce);
		assert_int_equal(a.clear_ce, e[i].clear_ce);
		if (!e[i].drop)
			assert_int_equal(a.ecn_out, e[i].ecn_out);
	}
}

static struct gw_mech_a_config
a_cfg(bool enabled, bool dc_marks, enum proxy_cnp_ce_policy pol)
{
	struct gw_mech_a_config c = { .enabled = enabled, .dc_marks = dc_marks };
	struct proxy_cnp_params p = { .interval_ns = 4000, .ce_policy = pol };

	assert_int_equal(proxy_cnp_config_init(&c.cnp, &p), 0);
	return c;
}

/* Mechanism A with the CE cleared on covered packets (the gateway's default). */
static void
test_a_clear_covered(void **state)
{
	struct gw_mech_a_config c = a_cfg(true, true, PROXY_CNP_CE_CLEAR_COVERED);
	static const struct ev tr[] = {
		/* unmarked ECT: no signal, untouched */
		{ 0, false, false, true, ECN_ECT0, false, false, 0, false, false, ECN_ECT0 },
		/* QPN unknown: no CNP, the marker's CE is written */
		{ 100, true, false, false, ECN_ECT0, true, true, PROXY_CNP_NO_QPN, true, false, ECN_CE },
		/* CE from the DC, QPN unknown: kept */
		{ 200, false, false, false, ECN_CE, true, true, PROXY_CNP_NO_QPN, false, false, ECN_CE },
		/* marked, QPN known: CNP, the mark is not written */
		{ 1000, true, false, true, ECN_ECT0, true, true, PROXY_CNP_SENT, false, true, ECN_ECT0 },
		/* CE from the DC within the interval: covered, cleared */
		{ 2000, false, false, true, ECN_CE, true, true, PROXY_CNP_SUPPRESSED_RATE, false, true,
		  ECN_ECT0 },
		/* a drop is a signal; nothing is written */
		{ 5000, false, true, true, ECN_ECT0, true, true, PROXY_CNP_SENT, false, false, 0 },
		/* marked not-ECT: answered, the codepoint stays */
		{ 6000, true, false, true, ECN_NOT_ECT, true, true, PROXY_CNP_SUPPRESSED_RATE, false, true,
		  ECN_NOT_ECT },
		/* marked ECT(1), covered: left as it came */
		{ 9000, true, false, true, ECN_ECT1, true, true, PROXY_CNP_SENT, false, true, ECN_ECT1 },
	};

	(void)state;
	run_trace(&c, tr, sizeof(tr) / sizeof(tr[0]));
}

/* Without mechanism A the marker's CE is written and nothing is answered. */
static void
test_a_off_and_dc_marks(void **state)
{
	struct gw_mech_a_config off = a_cfg(false, true, PROXY_CNP_CE_CLEAR_COVERED);
	struct gw_mech_a_config nodc = a_cfg(true, false, PROXY_CNP_CE_CLEAR_COVERED);
	struct gw_mech_a_config keep = a_cfg(true, true, PROXY_CNP_CE_KEEP);
	static const struct ev tr_off[] = {
		{ 0, true, false, true, ECN_ECT0, true, false, 0, true, false, ECN_CE },
		{ 10, true, false, true, ECN_NOT_ECT, true, false, 0, false, false, ECN_NOT_ECT },
		{ 20, false, false, true, ECN_CE, true, false, 0, false, false, ECN_CE },
	};
	static const struct ev tr_nodc[] = {
		/* a CE from the DC alone is not a signal without dc_marks */
		{ 0, false, false, true, ECN_CE, false, false, 0, false, false, ECN_CE },
		{ 10, true, false, true, ECN_CE, true, true, PROXY_CNP_SENT, false, true, ECN_ECT0 },
	};
	static const struct ev tr_keep[] = {
		{ 0, true, false, true, ECN_ECT0, true, true, PROXY_CNP_SENT, true, false, ECN_CE },
		{ 10, false, false, true, ECN_CE, true, true, PROXY_CNP_SUPPRESSED_RATE, false, false,
		  ECN_CE },
	};

	(void)state;
	run_trace(&off, tr_off, sizeof(tr_off) / sizeof(tr_off[0]));
	run_trace(&nodc, tr_nodc, sizeof(tr_nodc) / sizeof(tr_nodc[0]));
	run_trace(&keep, tr_keep, sizeof(tr_keep) / sizeof(tr_keep[0]));
}

/* A CNP that could not be built leaves the signal in the packet. */
static void
test_a_cnp_failed(void **state)
{
	struct gw_mech_a_config c = a_cfg(true, true, PROXY_CNP_CE_CLEAR_COVERED);
	struct proxy_cnp_qp q;
	struct gw_mech_a_in mark = { .mark = true, .ecn = ECN_ECT0, .qp_tracked = true,
				     .qpn_known = true };
	struct gw_mech_a_in ce = { .ecn = ECN_CE, .qp_tracked = true, .qpn_known = true };
	struct gw_mech_a_actions a;

	(void)state;
	proxy_cnp_qp_init(&q);
	gw_mech_a(&c, &q, &mark, 0, &a);
	assert_true(a.send_cnp);
	gw_mech_a_cnp_failed(&mark, &a);
	assert_false(a.send_cnp);
	assert_false(a.clear_ce);
	assert_true(a.set_ce);
	assert_int_equal(a.ecn_out, ECN_CE);

	gw_mech_a(&c, &q, &ce, 10000, &a);
	assert_true(a.send_cnp);
	assert_int_equal(a.ecn_out, ECN_ECT0);
	gw_mech_a_cnp_failed(&ce, &a);
	assert_false(a.clear_ce);
	assert_false(a.set_ce);
	assert_int_equal(a.ecn_out, ECN_CE);
}

/* Mechanism C: the upstream-CE window and CNP forwarding. */
static void
test_c_cnp(void **state)
{
	struct gw_mech_c_config gw = { .upstream_ce_window_ns = 1000, .forward_cnp = true };
	struct gw_mech_c_config thin = { .upstream_ce_window_ns = 0, .forward_cnp = true,
					 .cnp_gap_ns = 500 };
	struct gw_mech_c_config nofwd = { .upstream_ce_window_ns = 1000, .forward_cnp = false };
	struct gw_mech_c_in in = { 0 };
	struct gw_mech_c_actions a;

	(void)state;
	gw_mech_c_cnp(&gw, &in, 5000, &a); /* no CE seen */
	assert_true(a.start_trp);
	assert_false(a.skip_upstream);
	assert_true(a.forward);
	in.wan_ce_seen = true;
	in.wan_ce_ns = 4500;
	gw_mech_c_cnp(&gw, &in, 5000, &a); /* CE 500 ns ago, inside the window */
	assert_false(a.start_trp);
	assert_true(a.skip_upstream);
	assert_true(a.forward);
	gw_mech_c_cnp(&gw, &in, 5500, &a); /* exactly one window later: outside */
	assert_true(a.start_trp);
	gw_mech_c_cnp(&thin, &in, 5000, &a); /* window 0: never skipped */
	assert_true(a.start_trp);
	in.fwd_cnp_sent = true;
	in.last_fwd_cnp_ns = 4800;
	gw_mech_c_cnp(&thin, &in, 5000, &a);
	assert_false(a.forward);
	gw_mech_c_cnp(&thin, &in, 5300, &a);
	assert_true(a.forward);
	gw_mech_c_cnp(&nofwd, &in, 9000, &a);
	assert_false(a.forward);
	assert_true(a.start_trp);
	/* Upstream congestion: only the sender can react, so its CNP always goes on. */
	gw_mech_c_cnp(&nofwd, &in, 5000, &a);
	assert_true(a.skip_upstream);
	assert_true(a.forward);
}

/* Mechanism C: only what the gateway's memory holds past the threshold reaches the sender. */
static void
test_c_forward_backlog(void **state)
{
	struct gw_mech_c_config cfg = { .forward_cnp = true, .forward_backlog_bytes = 65536 };
	struct gw_mech_c_in in = { 0 };
	struct gw_mech_c_actions a;

	(void)state;
	gw_mech_c_cnp(&cfg, &in, 1000, &a); /* nothing held: the reaction point absorbs it */
	assert_false(a.forward);
	assert_true(a.start_trp);
	in.backlog_bytes = 65535;
	gw_mech_c_cnp(&cfg, &in, 1000, &a);
	assert_false(a.forward);
	in.backlog_bytes = 65536;
	gw_mech_c_cnp(&cfg, &in, 1000, &a);
	assert_true(a.forward);
	cfg.upstream_ce_window_ns = 1000;
	in.backlog_bytes = 0;
	in.wan_ce_seen = true;
	in.wan_ce_ns = 900;
	gw_mech_c_cnp(&cfg, &in, 1000, &a); /* upstream: goes on with nothing held */
	assert_true(a.forward);
	in.wan_ce_seen = false;
	in.backlog_bytes = 65536;
	cfg.cnp_gap_ns = 500; /* both limits apply */
	in.fwd_cnp_sent = true;
	in.last_fwd_cnp_ns = 800;
	gw_mech_c_cnp(&cfg, &in, 1000, &a);
	assert_false(a.forward);
	cfg.forward_cnp = false;
	in.fwd_cnp_sent = false;
	gw_mech_c_cnp(&cfg, &in, 1000, &a);
	assert_false(a.forward);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_clear_covered),
		cmocka_unit_test(test_a_off_and_dc_marks),
		cmocka_unit_test(test_a_cnp_failed),
		cmocka_unit_test(test_c_cnp),
		cmocka_unit_test(test_c_forward_backlog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
