/* SPDX-License-Identifier: BSD-3-Clause */
/* The common marker interface dispatches to the same logic as each module. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "congestion/ecn_marker.h"

static void
test_init_and_names(void **state)
{
	struct ecn_marker m, before;
	struct ecn_marker_params p;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.kind = ECN_MARKER_NONE;
	assert_int_equal(ecn_marker_init(&m, &p, 1, 0), 0);
	assert_int_equal(ecn_marker_decide(&m, UINT64_MAX, UINT64_MAX, 9000, 0), ECN_VERDICT_PASS);

	/* Invalid parameters leave the marker as it was. */
	before = m;
	p.kind = ECN_MARKER_RED;
	p.red.kmin_bytes = 10;
	p.red.kmax_bytes = 5;
	p.red.pmax_ppm = 1;
	assert_int_equal(ecn_marker_init(&m, &p, 1, 0), -EINVAL);
	assert_memory_equal(&m, &before, sizeof(m));
	p.kind = ECN_MARKER_KIND_MAX;
	assert_int_equal(ecn_marker_init(&m, &p, 1, 0), -EINVAL);

	assert_string_equal(ecn_marker_kind_name(ECN_MARKER_NONE), "none");
	assert_string_equal(ecn_marker_kind_name(ECN_MARKER_RED), "red");
	assert_string_equal(ecn_marker_kind_name(ECN_MARKER_SOJOURN), "sojourn");
	assert_string_equal(ecn_marker_kind_name(ECN_MARKER_PHANTOM), "phantom");
	assert_string_equal(ecn_marker_kind_name(ECN_MARKER_KIND_MAX), "?");
}

static void
test_red_matches_module(void **state)
{
	struct ecn_marker_params p = { .kind = ECN_MARKER_RED };
	struct ecn_red_config c;
	struct ecn_red r;
	struct ecn_marker m;
	uint64_t q;

	(void)state;
	p.red.kmin_bytes = 400000;
	p.red.kmax_bytes = 1600000;
	p.red.pmax_ppm = 200000;
	assert_int_equal(ecn_marker_init(&m, &p, 99, 0), 0);
	assert_false(ecn_marker_at_dequeue(&m));
	assert_int_equal(ecn_red_config_init(&c, &p.red), 0);
	ecn_red_init(&r, 99);
	for (q = 0; q < 2000000; q += 997)
		assert_int_equal(ecn_marker_decide(&m, q, 0, 1000, q),
				ecn_red_decide(&c, &r, q));
}

static void
test_sojourn_and_phantom(void **state)
{
	struct ecn_marker_params p = { .kind = ECN_MARKER_SOJOURN };
	struct ecn_marker m;

	(void)state;
	p.sojourn.target_ns = 32000;
	assert_int_equal(ecn_marker_init(&m, &p, 0, 0), 0);
	assert_true(ecn_marker_at_dequeue(&m));
	/* Sojourn ignores the queue size; only the waiting time counts. */
	assert_int_equal(ecn_marker_decide(&m, UINT64_MAX, 32000, 1000, 0), ECN_VERDICT_PASS);
	assert_int_equal(ecn_marker_decide(&m, 0, 32001, 1000, 0), ECN_VERDICT_MARK);

	memset(&p, 0, sizeof(p));
	p.kind = ECN_MARKER_PHANTOM;
	p.phantom.line_rate_bps = 8000000000ull; /* 1 B/ns */
	p.phantom.ratio_ppm = 500000; /* drains 0.5 B/ns */
	p.phantom.threshold_bytes = 3000;
	assert_int_equal(ecn_marker_init(&m, &p, 0, 1000), 0);
	assert_false(ecn_marker_at_dequeue(&m));
	/* 1500 B every 1000 ns, 500 B drained in between: 1500, 2500, 3500. */
	assert_int_equal(ecn_marker_decide(&m, UINT64_MAX, 0, 1500, 1000), ECN_VERDICT_PASS);
	assert_int_equal(ecn_marker_decide(&m, UINT64_MAX, 0, 1500, 2000), ECN_VERDICT_PASS);
	assert_int_equal(ecn_marker_decide(&m, 0, 0, 1500, 3000), ECN_VERDICT_MARK);
	assert_int_equal(ecn_phantom_bytes(&m.phantom.cfg, &m.phantom.vars, 3000), 3500);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_and_names),
		cmocka_unit_test(test_red_matches_module),
		cmocka_unit_test(test_sojourn_and_phantom),
	};

	return cmocka_run_group_tests_name("ecn_marker", tests, NULL, NULL);
}
