/* SPDX-License-Identifier: BSD-3-Clause */
/* Distance-aware derivation: documented values, scaling, overrides, text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "congestion/cc_params.h"
#include "congestion/ecn_marker.h"

#define US 1000ull
#define MS 1000000ull
#define G 1000000000ull

static void
test_distance_to_rtt(void **state)
{
	(void)state;
	assert_int_equal(cc_params_distance_to_rtt_ns(0), 0);
	assert_int_equal(cc_params_distance_to_rtt_ns(1000), 9800); /* 1 km: 2 x 4.9 us */
	assert_int_equal(cc_params_distance_to_rtt_ns(100000), 980 * US);
	assert_int_equal(cc_params_distance_to_rtt_ns(640000), 6272 * US);
}

static void
test_100g_1ms(void **state)
{
	struct cc_link l = { .rate_bps = 100 * G, .rtt_ns = 1 * MS };
	struct cc_derived d;

	(void)state;
	assert_int_equal(cc_params_derive(&l, &d), 0);
	assert_int_equal(d.rtt_ns, 1 * MS);
	assert_int_equal(d.loop_rtt_ns, 1 * MS);
	assert_int_equal(d.dc_rtt_ns, 10 * US);
	assert_int_equal(d.mtu_bytes, 4096);
	assert_int_equal(d.bdp_bytes, 12500000); /* 12.5 MB */
	assert_int_equal(d.kmin_bytes, 1785715); /* BDP / 7, rounded up */
	assert_int_equal(d.kmax_bytes, 7142860); /* 4 x Kmin */
	assert_int_equal(d.pmax_ppm, 200000);
	assert_int_equal(d.target_delay_ns, 142858); /* Kmin at 12.5 GB/s */
	assert_int_equal(d.sojourn_interval_ns, 1 * MS);
	assert_int_equal(d.phantom_ratio_ppm, 950000);
	assert_int_equal(d.phantom_threshold_bytes, 625000); /* 5% of a BDP */
	assert_int_equal(d.buffer_bytes, 14286848); /* 2 x Kmax in 4 KB units */
	assert_int_equal(d.cnp_interval_ns, 20 * US); /* 2 DC RTTs */
	assert_int_equal(d.cut_interval_ns, 128 * US); /* 1.6 MB at 100G */
	assert_int_equal(d.hold_ns, 148 * US); /* cut interval + 2 DC RTTs */
	assert_int_equal(d.flow_idle_ns, 100 * MS);
	assert_true(d.buffer_bytes >= d.bdp_bytes);
}

static void
test_100g_1ms_near_source(void **state)
{
	struct cc_link l = { .rate_bps = 100 * G, .rtt_ns = 1 * MS, .near_source_cnp = true };
	struct cc_derived d;

	(void)state;
	assert_int_equal(cc_params_derive(&l, &d), 0);
	/* The loop is the DC's: production thresholds (Alibaba, scaled). */
	assert_int_equal(d.loop_rtt_ns, 10 * US);
	assert_int_equal(d.bdp_bytes, 12500000);
	assert_int_equal(d.kmin_bytes, 400000);
	assert_int_equal(d.kmax_bytes, 1600000);
	assert_int_equal(d.target_delay_ns, 32 * US);
	assert_int_equal(d.sojourn_interval_ns, 128 * US);
	assert_int_equal(d.phantom_threshold_bytes, 65536); /* 16 MTU floor */
	assert_int_equal(d.buffer_bytes, 12500992); /* one BDP in 4 KB units */
	assert_int_equal(d.hold_ns, 148 * US);
}

/* Mechanisms A and C follow the DC side's loop, not the WAN's. */
static void
test_dc_side_timers(void **state)
{
	struct cc_link l = { .rate_bps = 100 * G, .rtt_ns = 1 * MS, .dc_rtt_ns = 1 * US };
	struct cc_overrides ov;
	struct cc_derived d;

	(void)state;
	assert_int_equal(cc_params_derive(&l, &d), 0);
	assert_int_equal(d.cnp_interval_ns, 4 * US); /* a NIC's cut period at least */
	assert_int_equal(d.cut_interval_ns, 128 * US);
	assert_int_equal(d.hold_ns, 130 * US);
	/* The DC port drains its Kmax in the same time at any rate. */
	l.dc_rtt_ns = 8320;
	l.dc_rate_bps = 400 * G;
	assert_int_equal(cc_params_derive(&l, &d), 0);
	assert_int_equal(d.cnp_interval_ns, 16640);
	assert_int_equal(d.cut_interval_ns, 128 * US);
	assert_int_equal(d.hold_ns, 144640);
	l.dc_rate_bps = 1000000; /* 1 Mb/s: 16 bytes drain in 128 us too */
	assert_int_equal(cc_params_derive(&l, &d), 0);
	assert_int_equal(d.cut_interval_ns, 128 * US);
	/* An explicit cut interval moves the derived hold with it. */
	memset(&ov, 0, sizeof(ov));
	ov.cut_interval_ns = 50 * US;
	assert_int_equal(cc_params_resolve(&l, &ov, &d, NULL), 0);
	assert_int_equal(d.cut_interval_ns, 50 * US);
	assert_int_equal(d.hold_ns, 50 * US + 16640);
	ov.hold_ns = 3 * MS;
	assert_int_equal(cc_params_resolve(&l, &ov, &d, NULL), 0);
	assert_int_equal(d.hold_ns, 3 * MS);
	/* The WAN's length does not change them. */
	l.rtt_ns = 6 * MS;
	ov.hold_ns = 0;
	assert_int_equal(cc_params_resolve(&l, &ov, &d, NULL), 0);
	assert_int_equal(d.hold_ns, 50 * US + 16640);
}

static void
test_distance_scaling(void **state)
{
	static const struct {
		uint64_t m, rtt, bdp, kmin, buffer, hold, idle;
	} rows[] = {
		{ 10000, 98 * US, 1225000, 400000, 3203072, 148 * US, 100 * MS },
		{ 100000, 980 * US, 12250000, 1750000, 14000128, 148 * US, 100 * MS },
		{ 640000, 6272 * US, 78400000, 11200000, 89600000, 148 * US, 401408 * US },
	};
	unsigned int i;
	uint64_t last_kmin = 0, last_buffer = 0;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct cc_link l = { .rate_bps = 100 * G, .distance_m = rows[i].m };
		struct cc_derived d;

		assert_int_equal(cc_params_derive(&l, &d), 0);
		assert_int_equal(d.rtt_ns, rows[i].rtt);
		assert_int_equal(d.bdp_bytes, rows[i].bdp);
		assert_int_equal(d.kmin_bytes, rows[i].kmin);
		assert_int_equal(d.kmax_bytes, 4 * rows[i].kmin);
		assert_int_equal(d.buffer_bytes, rows[i].buffer);
		assert_int_equal(d.hold_ns, rows[i].hold);
		assert_int_equal(d.flow_idle_ns, rows[i].idle);
		assert_true(d.kmin_bytes >= last_kmin && d.buffer_bytes > last_buffer);
		last_kmin = d.kmin_bytes;
		last_buffer = d.buffer_bytes;
	}
	/* 400G scales everything by 4 at 100 km. */
	{
		struct cc_link l = { .rate_bps = 400 * G, .distance_m = 100000 };
		struct cc_derived d;

		assert_int_equal(cc_params_derive(&l, &d), 0);
		assert_int_equal(d.bdp_bytes, 49000000);
		assert_int_equal(d.kmin_bytes, 7000000);
		assert_int_equal(d.target_delay_ns, 140 * US); /* time units do not scale */
	}
}

static void
test_overrides_and_errors(void **state)
{
	struct cc_link l = { .rate_bps = 100 * G, .rtt_ns = 1 * MS };
	struct cc_overrides ov;
	struct cc_derived d, before;
	const char *why = NULL;

	(void)state;
	memset(&ov, 0, sizeof(ov));
	ov.kmin_bytes = 500000; /* Kmax, target and buffer follow it */
	assert_int_equal(cc_params_resolve(&l, &ov, &d, &why), 0);
	assert_int_equal(d.kmin_bytes, 500000);
	assert_int_equal(d.kmax_bytes, 2000000);
	assert_int_equal(d.target_delay_ns, 40 * US);
	assert_int_equal(d.buffer_bytes, 12500992);
	ov.cnp_interval_ns = 7 * US;
	ov.hold_ns = 2 * MS;
	ov.pmax_ppm = 10000;
	assert_int_equal(cc_params_resolve(&l, &ov, &d, &why), 0);
	assert_int_equal(d.cnp_interval_ns, 7 * US);
	assert_int_equal(d.hold_ns, 2 * MS);
	assert_int_equal(d.pmax_ppm, 10000);

	before = d;
	ov.kmax_bytes = 400000; /* below the explicit Kmin */
	assert_int_equal(cc_params_resolve(&l, &ov, &d, &why), -EINVAL);
	assert_string_equal(why, "kmin must be below kmax");
	assert_memory_equal(&d, &before, sizeof(d));
	memset(&ov, 0, sizeof(ov));
	ov.buffer_bytes = 1000000; /* below the derived 7.1 MB Kmax */
	assert_int_equal(cc_params_resolve(&l, &ov, &d, &why), -EINVAL);
	assert_string_equal(why, "buffer_bytes must be at least kmax_bytes");
	memset(&ov, 0, sizeof(ov));
	ov.pmax_ppm = 1000001;
	assert_int_equal(cc_params_resolve(&l, &ov, &d, &why), -EINVAL);
	ov.pmax_ppm = 0;
	ov.phantom_ratio_ppm = 1000001;
	assert_int_equal(cc_params_resolve(&l, &ov, &d, &why), -EINVAL);

	l.rate_bps = 0;
	assert_int_equal(cc_params_derive(&l, &d), -EINVAL);
	l.rate_bps = 100 * G;
	l.rtt_ns = 0;
	assert_int_equal(cc_params_resolve(&l, NULL, &d, &why), -EINVAL);
	assert_string_equal(why, "rtt_ns or distance_m is required");
	l.rtt_ns = 11 * 1000 * MS;
	assert_int_equal(cc_params_derive(&l, &d), -EINVAL);
}

static void
test_markers_from_derived(void **state)
{
	static const uint64_t rates[] = { 10 * G, 100 * G, 400 * G, 1600 * G };
	static const uint64_t dists[] = { 1000, 10000, 100000, 640000, 2000000 };
	unsigned int r, k, a;
	enum ecn_marker_kind kind;

	(void)state;
	for (r = 0; r < 4; r++) {
		for (k = 0; k < 5; k++) {
			for (a = 0; a < 2; a++) {
				struct cc_link l = { .rate_bps = rates[r], .distance_m = dists[k],
					.near_source_cnp = a };
				struct cc_derived d;

				assert_int_equal(cc_params_derive(&l, &d), 0);
				assert_true(d.buffer_bytes >= d.bdp_bytes);
				assert_true(d.buffer_bytes >= d.kmax_bytes);
				for (kind = ECN_MARKER_RED; kind < ECN_MARKER_KIND_MAX; kind++) {
					struct ecn_marker_params p;
					struct ecn_marker m;

					cc_params_marker(&d, kind, true, &p);
					assert_int_equal(ecn_marker_init(&m, &p, 1, 0), 0);
					cc_params_marker(&d, kind, false, &p);
					assert_int_equal(ecn_marker_init(&m, &p, 1, 0), 0);
				}
			}
		}
	}
}

static void
test_explain(void **state)
{
	struct cc_link l = { .rate_bps = 100 * G, .rtt_ns = 1 * MS };
	struct cc_derived d;
	char buf[4096], small[32];
	size_t n;

	(void)state;
	assert_int_equal(cc_params_derive(&l, &d), 0);
	n = cc_params_explain(&d, buf, sizeof(buf));
	assert_int_equal(n, strlen(buf));
	assert_non_null(strstr(buf, "bdp_bytes = 12500000  (rate x rtt / 8 = 12.50 MB)\n"));
	assert_non_null(strstr(buf, "kmin_bytes = 1785715 "));
	assert_non_null(strstr(buf, "cut_interval_ns = 128000 "));
	assert_non_null(strstr(buf, "hold_ns = 148000 "));
	assert_int_equal(buf[n - 1], '\n');
	/* Truncated output is still a string, and the needed length is the same. */
	assert_int_equal(cc_params_explain(&d, small, sizeof(small)), n);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(cc_params_explain(&d, NULL, 0), n);
}

static void
test_mechanism_b(void **state)
{
	struct cc_link l = { .rate_bps = 100 * G, .rtt_ns = 1 * MS };
	struct cc_overrides ov;
	struct cc_derived d;
	const char *why = NULL;

	(void)state;
	assert_int_equal(cc_params_derive(&l, &d), 0);
	assert_int_equal(d.dc_rate_bps, 100 * G);
	/* 100 Gb/s x 10 us = 125 KB, plus 3 x 4 KB. */
	assert_int_equal(d.pfc_headroom_bytes, 125000 + 3 * 4096);
	assert_int_equal(d.pfc_xoff_bytes, d.buffer_bytes - d.pfc_headroom_bytes);
	assert_int_equal(d.pfc_xon_bytes, d.pfc_xoff_bytes - d.pfc_headroom_bytes);
	assert_true(d.pfc_lossless);
	assert_int_equal(d.pfc_quanta, 0xffff);
	assert_int_equal(d.pfc_pause_ns, 335540); /* 65535 x 5.12 ns, rounded up */
	/* BDP 12.5 MB + 100 Gb/s x 335.54 us = 4.19 MB, in 4 KB units. */
	assert_int_equal(d.credit_buffer_bytes, (12500000 + 4194250 + 4095) / 4096 * 4096);
	assert_int_equal(d.credit_update_bytes, d.credit_buffer_bytes / 16);
	/* The refresh: 10 ms, or two RTTs when they are longer. */
	assert_int_equal(d.credit_refresh_ns, 10 * MS);
	l.rtt_ns = 8 * MS;
	assert_int_equal(cc_params_derive(&l, &d), 0);
	assert_int_equal(d.credit_refresh_ns, 16 * MS);
	l.rtt_ns = 1 * MS;

	/* A slower DC port: the pause is longer, the headroom smaller. */
	l.dc_rate_bps = 25 * G;
	assert_int_equal(cc_params_derive(&l, &d), 0);
	assert_int_equal(d.pfc_headroom_bytes, 31250 + 3 * 4096);
	assert_int_equal(d.pfc_pause_ns, 1342157); /* 65535 x 20.48 ns */

	/* A DC ring read late (sleeping workers) joins the headroom. */
	l.dc_rx_ring_bytes = 1024 * 4118;
	assert_int_equal(cc_params_derive(&l, &d), 0);
	assert_int_equal(d.dc_rx_ring_bytes, 1024 * 4118);
	assert_int_equal(d.pfc_headroom_bytes, 31250 + 3 * 4096 + 1024 * 4118);
	assert_int_equal(d.pfc_xoff_bytes, d.buffer_bytes - d.pfc_headroom_bytes);
	assert_true(d.pfc_lossless);
	l.dc_rx_ring_bytes = (1ull << 40) + 1;
	assert_int_equal(cc_params_resolve(&l, NULL, &d, &why), -EINVAL);
	assert_string_equal(why, "dc_rx_ring_bytes must be at most 2^40");
	l.dc_rx_ring_bytes = 0;

	/* A buffer under two headrooms: XOFF at half, flagged as not lossless. */
	l.dc_rate_bps = 0;
	memset(&ov, 0, sizeof(ov));
	ov.buffer_bytes = 200000;
	ov.kmin_bytes = 20000;
	ov.kmax_bytes = 80000;
	assert_int_equal(cc_params_resolve(&l, &ov, &d, &why), 0);
	assert_int_equal(d.pfc_xoff_bytes, 100000);
	assert_int_equal(d.pfc_xon_bytes, 50000);
	assert_false(d.pfc_lossless);

	/* Overrides, and their cross-field checks. */
	memset(&ov, 0, sizeof(ov));
	ov.pfc_xoff_bytes = 1000000;
	ov.pfc_xon_bytes = 900000;
	ov.credit_buffer_bytes = 20000000;
	assert_int_equal(cc_params_resolve(&l, &ov, &d, &why), 0);
	assert_int_equal(d.pfc_xoff_bytes, 1000000);
	assert_int_equal(d.pfc_xon_bytes, 900000);
	assert_int_equal(d.credit_buffer_bytes, 20000000);
	ov.pfc_xon_bytes = 1000000;
	assert_int_equal(cc_params_resolve(&l, &ov, &d, &why), -EINVAL);
	assert_string_equal(why, "pfc_xon_bytes must be below pfc_xoff_bytes");
	ov.pfc_xon_bytes = 0;
	ov.pfc_xoff_bytes = 1ull << 40;
	assert_int_equal(cc_params_resolve(&l, &ov, &d, &why), -EINVAL);
	assert_string_equal(why, "pfc_xoff_bytes must be at most buffer_bytes");
	ov.pfc_xoff_bytes = 0;
	ov.credit_buffer_bytes = 100;
	assert_int_equal(cc_params_resolve(&l, &ov, &d, &why), -EINVAL);
	assert_string_equal(why, "credit_buffer_bytes must be at least one MTU");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance_to_rtt),
		cmocka_unit_test(test_100g_1ms),
		cmocka_unit_test(test_100g_1ms_near_source),
		cmocka_unit_test(test_dc_side_timers),
		cmocka_unit_test(test_distance_scaling),
		cmocka_unit_test(test_overrides_and_errors),
		cmocka_unit_test(test_markers_from_derived),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_mechanism_b),
	};

	return cmocka_run_group_tests_name("cc_params", tests, NULL, NULL);
}
