/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The measured TSC rate (dataplane/tsc.h): a 300 ms interval timed by the
 * TSC at tsc_hz() agrees with CLOCK_MONOTONIC_RAW to 200 ppm. DPDK 22.11's
 * own rate, rounded to 10 MHz, is 1900 ppm off on this project's VMs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <cmocka.h>

#include <rte_cycles.h>

#include "dataplane/tsc.h"
#include "ut_eal.h"

#define INTERVAL_NS UINT64_C(300000000)
#define MAX_ERR_PPM 200

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* |TSC-timed - clock-timed| / clock-timed over one interval at HZ, in ppm. */
static double
interval_err_ppm(uint64_t hz)
{
	struct timespec w = { 0, (long)INTERVAL_NS };
	uint64_t n0 = mono_ns(), t0 = rte_rdtsc_precise(), n1, t1;
	double tsc_ns, clk_ns;

	nanosleep(&w, NULL);
	n1 = mono_ns();
	t1 = rte_rdtsc_precise();
	tsc_ns = (double)(t1 - t0) * 1e9 / (double)hz;
	clk_ns = (double)(n1 - n0);
	return (tsc_ns > clk_ns ? tsc_ns - clk_ns : clk_ns - tsc_ns) / clk_ns * 1e6;
}

static void
test_before_calibration_is_dpdk(void **state)
{
	(void)state;
	assert_int_equal(tsc_hz(), rte_get_tsc_hz());
}

static void
test_rate_matches_the_clock(void **state)
{
	uint64_t hz = tsc_calibrate(TSC_CALIBRATE_NS), dpdk = rte_get_tsc_hz();
	double err = interval_err_ppm(hz), dpdk_err = interval_err_ppm(dpdk);

	(void)state;
	printf("tsc: measured %llu Hz, DPDK %llu Hz; over 300 ms: %.1f ppm off, DPDK's %.1f ppm\n",
	       (unsigned long long)hz, (unsigned long long)dpdk, err, dpdk_err);
	assert_int_equal(tsc_hz(), hz);
	assert_true(hz > dpdk / 100 * 99 && hz < dpdk / 100 * 101);
	/* Best of three intervals: a preemption inside one widens it. */
	if (err > MAX_ERR_PPM)
		err = interval_err_ppm(hz);
	if (err > MAX_ERR_PPM)
		err = interval_err_ppm(hz);
	assert_true(err <= MAX_ERR_PPM);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_before_calibration_is_dpdk),
		cmocka_unit_test(test_rate_matches_the_clock),
	};
	int rc;

	(void)argc;
	if (ut_eal_init(argv[0], "ut_tsc", 64) != 0)
		return 1;
	rc = cmocka_run_group_tests_name("dataplane_tsc", tests, NULL, NULL);
	ut_eal_fini();
	return rc;
}
