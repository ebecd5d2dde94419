/* SPDX-License-Identifier: BSD-3-Clause */
/* Mechanism A decision: per-QP rate limit, reasons, CE-clearing policies. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "congestion/proxy_cnp.h"

static void
test_reasons_and_rate_limit(void **state)
{
	struct proxy_cnp_params p = { .interval_ns = 5000, .ce_policy = PROXY_CNP_CE_CLEAR_COVERED };
	struct proxy_cnp_config c;
	struct proxy_cnp_qp q;
	struct proxy_cnp_verdict v;

	(void)state;
	assert_int_equal(proxy_cnp_config_init(&c, &p), 0);
	proxy_cnp_qp_init(&q);

	/* No learned QPN: nothing can be sent and CE must stay. */
	v = proxy_cnp_decide(&c, &q, false, 100);
	assert_int_equal(v.reason, PROXY_CNP_NO_QPN);
	assert_false(v.clear_ce);
	assert_false(q.sent);

	v = proxy_cnp_decide(&c, &q, true, 1000);
	assert_int_equal(v.reason, PROXY_CNP_SENT);
	assert_true(v.clear_ce);
	v = proxy_cnp_decide(&c, &q, true, 1001);
	assert_int_equal(v.reason, PROXY_CNP_SUPPRESSED_RATE);
	assert_true(v.clear_ce); /* covered by the CNP sent 1 ns ago */
	v = proxy_cnp_decide(&c, &q, true, 5999);
	assert_int_equal(v.reason, PROXY_CNP_SUPPRESSED_RATE);
	v = proxy_cnp_decide(&c, &q, true, 6000); /* exactly one interval later */
	assert_int_equal(v.reason, PROXY_CNP_SENT);
	assert_int_equal(q.last_cnp_ns, 6000);
	/* The limit is per QP. */
	{
		struct proxy_cnp_qp other;

		proxy_cnp_qp_init(&other);
		assert_int_equal(proxy_cnp_decide(&c, &other, true, 6001).reason, PROXY_CNP_SENT);
	}
	/* A clock that goes back never sends early. */
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 10).reason, PROXY_CNP_SUPPRESSED_RATE);
}

static void
test_ce_policies(void **state)
{
	static const struct {
		enum proxy_cnp_ce_policy policy;
		bool clear_sent, clear_suppressed;
	} cases[] = {
		{ PROXY_CNP_CE_KEEP, false, false },
		{ PROXY_CNP_CE_CLEAR_SENT, true, false },
		{ PROXY_CNP_CE_CLEAR_COVERED, true, true },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct proxy_cnp_params p = { .interval_ns = 4000, .ce_policy = cases[i].policy };
		struct proxy_cnp_config c;
		struct proxy_cnp_qp q;

		assert_int_equal(proxy_cnp_config_init(&c, &p), 0);
		proxy_cnp_qp_init(&q);
		assert_int_equal(proxy_cnp_decide(&c, &q, true, 0).clear_ce, cases[i].clear_sent);
		assert_int_equal(proxy_cnp_decide(&c, &q, true, 1).clear_ce,
				cases[i].clear_suppressed);
		assert_false(proxy_cnp_decide(&c, &q, false, 2).clear_ce);
	}
}

static void
test_no_limit_and_validation(void **state)
{
	struct proxy_cnp_params p = { .interval_ns = 0, .ce_policy = PROXY_CNP_CE_KEEP };
	struct proxy_cnp_config c;
	struct proxy_cnp_qp q;

	(void)state;
	assert_int_equal(proxy_cnp_config_init(&c, &p), 0);
	proxy_cnp_qp_init(&q);
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 5).reason, PROXY_CNP_SENT);
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 5).reason, PROXY_CNP_SENT);
	p.ce_policy = (enum proxy_cnp_ce_policy)7;
	assert_int_equal(proxy_cnp_config_init(&c, &p), -EINVAL);
	assert_string_equal(proxy_cnp_reason_name(PROXY_CNP_SENT), "sent");
	assert_string_equal(proxy_cnp_reason_name(PROXY_CNP_SUPPRESSED_RATE), "suppressed_rate");
	assert_string_equal(proxy_cnp_reason_name(PROXY_CNP_NO_QPN), "no_qpn");
	assert_string_equal(proxy_cnp_reason_name(PROXY_CNP_REASON_MAX), "?");
}

/* A signal that persists doubles the spacing up to the maximum; a quiet gap resets it. */
static void
test_backoff(void **state)
{
	struct proxy_cnp_params p = { .interval_ns = 1000, .backoff_max_ns = 4000,
				      .ce_policy = PROXY_CNP_CE_CLEAR_COVERED };
	struct proxy_cnp_config c;
	struct proxy_cnp_qp q;

	(void)state;
	assert_int_equal(proxy_cnp_config_init(&c, &p), 0);
	proxy_cnp_qp_init(&q);
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 10000).reason, PROXY_CNP_SENT);
	assert_int_equal(q.spacing_ns, 1000); /* the first of an episode: the interval */
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 10999).reason, PROXY_CNP_SUPPRESSED_RATE);
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 11000).reason, PROXY_CNP_SENT);
	assert_int_equal(q.spacing_ns, 2000); /* within 2 x spacing: doubled */
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 12999).reason, PROXY_CNP_SUPPRESSED_RATE);
	assert_true(proxy_cnp_decide(&c, &q, true, 12999).clear_ce); /* still covered */
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 13000).reason, PROXY_CNP_SENT);
	assert_int_equal(q.spacing_ns, 4000);
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 17000).reason, PROXY_CNP_SENT);
	assert_int_equal(q.spacing_ns, 4000); /* capped at backoff_max */
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 20999).reason, PROXY_CNP_SUPPRESSED_RATE);
	/* Quiet for 2 x spacing since the last CNP: a new episode. */
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 25000).reason, PROXY_CNP_SENT);
	assert_int_equal(q.spacing_ns, 1000);
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 26000).reason, PROXY_CNP_SENT);
	/* Without backoff the spacing stays the interval. */
	p.backoff_max_ns = 0;
	assert_int_equal(proxy_cnp_config_init(&c, &p), 0);
	proxy_cnp_qp_init(&q);
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 0).reason, PROXY_CNP_SENT);
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 1000).reason, PROXY_CNP_SENT);
	assert_int_equal(proxy_cnp_decide(&c, &q, true, 2000).reason, PROXY_CNP_SENT);
	/* Refused: backoff without an interval, below it, or past 32 bits. */
	p.interval_ns = 0;
	p.backoff_max_ns = 4000;
	assert_int_equal(proxy_cnp_config_init(&c, &p), -EINVAL);
	p.interval_ns = 5000;
	assert_int_equal(proxy_cnp_config_init(&c, &p), -EINVAL);
	p.backoff_max_ns = UINT64_C(1) << 32;
	assert_int_equal(proxy_cnp_config_init(&c, &p), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reasons_and_rate_limit),
		cmocka_unit_test(test_ce_policies),
		cmocka_unit_test(test_no_limit_and_validation),
		cmocka_unit_test(test_backoff),
	};

	return cmocka_run_group_tests_name("proxy_cnp", tests, NULL, NULL);
}
