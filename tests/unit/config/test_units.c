/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for control/units.c: exact parsing and printing with units. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "control/units.h"

struct units_case {
	enum units_kind kind;
	const char *text;
	uint64_t value;
};

static const struct units_case units_good[] = {
	{ UNITS_RATE, "100G", UINT64_C(100000000000) },
	{ UNITS_RATE, "400Gbps", UINT64_C(400000000000) },
	{ UNITS_RATE, "10M", UINT64_C(10000000) },
	{ UNITS_RATE, "2.5G", UINT64_C(2500000000) },
	{ UNITS_RATE, "1.6T", UINT64_C(1600000000000) },
	{ UNITS_RATE, "10 Gbit/s", UINT64_C(10000000000) },
	{ UNITS_RATE, "10g", UINT64_C(10000000000) },
	{ UNITS_RATE, "1500", 1500 },
	{ UNITS_RATE, "0", 0 },
	{ UNITS_SIZE, "12.5MB", UINT64_C(12500000) },
	{ UNITS_SIZE, "64KiB", 65536 },
	{ UNITS_SIZE, "1500", 1500 },
	{ UNITS_SIZE, "1500B", 1500 },
	{ UNITS_SIZE, "1MiB", 1048576 },
	{ UNITS_SIZE, "0.5KiB", 512 },
	{ UNITS_SIZE, "2GB", UINT64_C(2000000000) },
	{ UNITS_SIZE, "1.5kb", 1500 },
	{ UNITS_TIME, "500us", 500000 },
	{ UNITS_TIME, "1ms", 1000000 },
	{ UNITS_TIME, "2s", UINT64_C(2000000000) },
	{ UNITS_TIME, "100ns", 100 },
	{ UNITS_TIME, "0", 0 },
	{ UNITS_TIME, "1.5us", 1500 },
	{ UNITS_TIME, "0.000000001s", 1 },
	{ UNITS_TIME, "4\xc2\xb5s", 4000 },
	{ UNITS_TIME, "1.500000000000000000000000s", UINT64_C(1500000000) },
	{ UNITS_DISTANCE, "100km", 100000 },
	{ UNITS_DISTANCE, "500m", 500 },
	{ UNITS_DISTANCE, "0.5km", 500 },
	{ UNITS_FRACTION, "0.2", 200000 },
	{ UNITS_FRACTION, "20%", 200000 },
	{ UNITS_FRACTION, "0.95", 950000 },
	{ UNITS_FRACTION, "1", 1000000 },
	{ UNITS_FRACTION, "12ppm", 12 },
	{ UNITS_FRACTION, "0.000001", 1 },
	{ UNITS_COUNT, "16777215", 16777215 },
	{ UNITS_COUNT, "18446744073709551615", UINT64_MAX },
};

static void
test_units_parse_good(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(units_good) / sizeof(units_good[0]); i++) {
		const struct units_case *c = &units_good[i];
		const char *why = NULL;
		uint64_t v = 12345;
		int rc = units_parse(c->kind, c->text, &v, &why);

		if (rc != 0 || v != c->value)
			fail_msg("'%s': rc %d (%s), got %llu, want %llu", c->text, rc,
				 why != NULL ? why : "", (unsigned long long)v,
				 (unsigned long long)c->value);
	}
}

struct units_bad {
	enum units_kind kind;
	const char *text;
	int rc;
	const char *why; /* substring */
};

static const struct units_bad units_bad[] = {
	{ UNITS_RATE, "", -EINVAL, "expected a number" },
	{ UNITS_RATE, "G", -EINVAL, "expected a number" },
	{ UNITS_RATE, "10X", -EINVAL, "unknown unit" },
	{ UNITS_RATE, "-1G", -EINVAL, "expected a number" },
	{ UNITS_RATE, "0.1", -EINVAL, "whole number" },
	{ UNITS_RATE, "20000000000T", -ERANGE, "too large" },
	{ UNITS_SIZE, "64K", -EINVAL, "ambiguous" },
	{ UNITS_SIZE, "12M", -EINVAL, "ambiguous" },
	{ UNITS_SIZE, "1.", -EINVAL, "digits after" },
	{ UNITS_SIZE, "1.2.3MB", -EINVAL, "unknown unit" },
	{ UNITS_TIME, "1.5ns", -EINVAL, "whole number" },
	{ UNITS_TIME, "500", -EINVAL, "needs a unit" },
	{ UNITS_TIME, "5 minutes", -EINVAL, "unknown unit" },
	{ UNITS_TIME, "1h", -EINVAL, "unknown unit" },
	{ UNITS_TIME, "18446744073709551616ns", -ERANGE, "too large" },
	{ UNITS_TIME, "18446744074s", -ERANGE, "too large" },
	{ UNITS_DISTANCE, "100", -EINVAL, "needs a unit" },
	{ UNITS_DISTANCE, "100mi", -EINVAL, "unknown unit" },
	{ UNITS_DISTANCE, "0.0005km", -EINVAL, "whole number" },
	{ UNITS_FRACTION, "0.0000001", -EINVAL, "whole number" },
	{ UNITS_FRACTION, "20 percent", -EINVAL, "unknown unit" },
	{ UNITS_COUNT, "1.5", -EINVAL, "whole number" },
	{ UNITS_COUNT, "0x10", -EINVAL, "whole number" },
	{ UNITS_COUNT, "10G", -EINVAL, "whole number" },
	{ UNITS_COUNT, "18446744073709551616", -ERANGE, "too large" },
	{ UNITS_COUNT, " 1", -EINVAL, "" },
};

static void
test_units_parse_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(units_bad) / sizeof(units_bad[0]); i++) {
		const struct units_bad *c = &units_bad[i];
		const char *why = NULL;
		uint64_t v = 777;
		int rc = units_parse(c->kind, c->text, &v, &why);

		if (rc != c->rc || why == NULL || strstr(why, c->why) == NULL || v != 777)
			fail_msg("'%s': rc %d want %d, why '%s' want '%s', value %llu", c->text, rc,
				 c->rc, why != NULL ? why : "(null)", c->why,
				 (unsigned long long)v);
	}
}

struct units_fmt {
	enum units_kind kind;
	uint64_t value;
	const char *text;
};

static const struct units_fmt units_fmt[] = {
	{ UNITS_RATE, UINT64_C(10000000000), "10G" },
	{ UNITS_RATE, UINT64_C(2500000000), "2.5G" },
	{ UNITS_RATE, UINT64_C(1600000000000), "1.6T" },
	{ UNITS_RATE, 1234567, "1234567" }, { UNITS_RATE, 999, "999" },
	{ UNITS_RATE, 0, "0" },
	{ UNITS_SIZE, 12500000, "12.5MB" },
	{ UNITS_SIZE, 65536, "64KiB" },
	{ UNITS_SIZE, 1500, "1500" }, { UNITS_SIZE, 2176, "2176" },
	{ UNITS_SIZE, 1499, "1499" }, { UNITS_SIZE, UINT64_C(4000000000), "4GB" }, { UNITS_SIZE, 999, "999" },
	{ UNITS_SIZE, 1048576, "1MiB" },
	{ UNITS_TIME, 4000, "4us" },
	{ UNITS_TIME, 1000000, "1ms" },
	{ UNITS_TIME, 300 * UINT64_C(1000000000), "300s" },
	{ UNITS_TIME, 980000, "980us" },
	{ UNITS_TIME, 1500, "1.5us" },
	{ UNITS_TIME, 1001, "1001ns" }, { UNITS_TIME, 999, "999ns" },
	{ UNITS_DISTANCE, 100000, "100km" },
	{ UNITS_DISTANCE, 1500, "1.5km" },
	{ UNITS_DISTANCE, 1, "1m" },
	{ UNITS_FRACTION, 950000, "0.95" },
	{ UNITS_FRACTION, 1000000, "1" },
	{ UNITS_FRACTION, 1, "0.000001" },
	{ UNITS_COUNT, 6081, "6081" },
};

static void
test_units_format(void **state)
{
	char buf[UNITS_TEXT_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(units_fmt) / sizeof(units_fmt[0]); i++) {
		const struct units_fmt *c = &units_fmt[i];
		int len = units_format(c->kind, c->value, buf, sizeof(buf));

		if (len != (int)strlen(c->text) || strcmp(buf, c->text) != 0)
			fail_msg("%llu: got '%s' (%d), want '%s'", (unsigned long long)c->value, buf,
				 len, c->text);
	}
	assert_int_equal(units_format(UNITS_TIME, 1500, buf, 4), -ENOSPC);
}

/* Whatever units_format() prints parses back to the same number. */
static void
test_units_round_trip(void **state)
{
	static const enum units_kind kinds[] = { UNITS_COUNT, UNITS_RATE, UNITS_SIZE,
						 UNITS_TIME, UNITS_DISTANCE, UNITS_FRACTION };
	uint64_t x = UINT64_C(0x9e3779b97f4a7c15);

	(void)state;
	for (int i = 0; i < 200000; i++) {
		enum units_kind kind = kinds[i % 6];
		char buf[UNITS_TEXT_MAX];
		const char *why;
		uint64_t v, back = 0;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* Mix small, round and huge values. */
		switch (i % 4) {
		case 0:
			v = x % 100000;
			break;
		case 1:
			v = (x % 1000) * UINT64_C(1000000);
			break;
		case 2:
			v = (x % 4096) << (x % 30);
			break;
		default:
			v = x;
			break;
		}
		assert_true(units_format(kind, v, buf, sizeof(buf)) > 0);
		if (units_parse(kind, buf, &back, &why) != 0 || back != v)
			fail_msg("kind %d: %llu -> '%s' -> %llu", (int)kind, (unsigned long long)v,
				 buf, (unsigned long long)back);
	}
}

static void
test_units_parse_bool(void **state)
{
	static const char *const yes[] = { "yes", "TRUE", "On", "1" };
	static const char *const no[] = { "no", "False", "OFF", "0" };
	static const char *const bad[] = { "", "2", "y", "enable", "yes ", "truth" };
	bool b;

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		b = false;
		assert_int_equal(units_parse_bool(yes[i], &b), 0);
		assert_true(b);
		b = true;
		assert_int_equal(units_parse_bool(no[i], &b), 0);
		assert_false(b);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = true;
		assert_int_equal(units_parse_bool(bad[i], &b), -EINVAL);
		assert_true(b); /* untouched */
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_parse_good),
		cmocka_unit_test(test_units_parse_bad),
		cmocka_unit_test(test_units_format),
		cmocka_unit_test(test_units_round_trip),
		cmocka_unit_test(test_units_parse_bool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
