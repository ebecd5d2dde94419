/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dataplane/martian.h against the address blocks of RFC 1812 5.3.7, RFC
 * 3927 section 7 and RFC 4291 section 2, with the first and last address
 * of each block and its neighbours outside it.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dataplane/martian.h"

struct addr_case {
	int family;
	const char *addr;
	bool martian;
};

static void
test_blocks(void **state)
{
	static const struct addr_case cases[] = {
		{ AF_INET, "0.0.0.0", true }, { AF_INET, "0.255.255.255", true },
		{ AF_INET, "1.0.0.0", false }, { AF_INET, "10.1.0.1", false },
		{ AF_INET, "126.255.255.255", false }, { AF_INET, "127.0.0.0", true },
		{ AF_INET, "127.0.0.1", true }, { AF_INET, "127.255.255.255", true },
		{ AF_INET, "128.0.0.0", false }, { AF_INET, "169.253.255.255", false },
		{ AF_INET, "169.254.0.0", true }, { AF_INET, "169.254.255.255", true },
		{ AF_INET, "169.255.0.0", false }, { AF_INET, "192.0.2.1", false },
		{ AF_INET, "223.255.255.255", false }, { AF_INET, "224.0.0.0", true },
		{ AF_INET, "224.0.0.5", true }, { AF_INET, "239.255.255.255", true },
		{ AF_INET, "240.0.0.0", true }, { AF_INET, "255.255.255.254", true },
		{ AF_INET, "255.255.255.255", true },
		{ AF_INET6, "::", true }, { AF_INET6, "::1", true }, { AF_INET6, "::2", false },
		{ AF_INET6, "::100", false }, { AF_INET6, "1::", false },
		{ AF_INET6, "::ffff:10.1.0.1", false }, { AF_INET6, "2001:db8::1", false },
		{ AF_INET6, "fd00:1::1", false }, { AF_INET6, "fe7f:ffff::1", false },
		{ AF_INET6, "fe80::", true }, { AF_INET6, "fe80::1", true },
		{ AF_INET6, "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true },
		{ AF_INET6, "fec0::1", false }, { AF_INET6, "feff::1", false },
		{ AF_INET6, "ff00::", true }, { AF_INET6, "ff02::1", true },
		{ AF_INET6, "ff0e::1", true },
		{ AF_INET6, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true },
		{ AF_INET6, "100::1", false },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t a[16];
		bool got;

		assert_int_equal(inet_pton(cases[i].family, cases[i].addr, a), 1);
		got = cases[i].family == AF_INET ? martian4(a) : martian6(a);
		if (got != cases[i].martian)
			fail_msg("%s: martian %d, expected %d", cases[i].addr, got, cases[i].martian);
	}
}

/* martian4_either() is false only when martian4() is false for both addresses. */
static void
test_either(void **state)
{
	static const uint8_t other[][4] = { { 10, 1, 0, 1 }, { 127, 0, 0, 1 } };
	unsigned int o, v;

	(void)state;
	for (o = 0; o < sizeof(other) / sizeof(other[0]); o++) {
		for (v = 0; v < 65536; v++) {
			uint8_t a[4] = { (uint8_t)(v >> 8), (uint8_t)v, 0, 1 };
			bool m = martian4(a) || martian4(other[o]);

			if (m && !martian4_either(a, other[o]))
				fail_msg("%u.%u.0.1: martian, but martian4_either() false", a[0], a[1]);
			if (m && !martian4_either(other[o], a))
				fail_msg("%u.%u.0.1 second: martian, but martian4_either() false",
					 a[0], a[1]);
		}
	}
	/* And it clears the common case in one test. */
	assert_false(martian4_either(other[0], (const uint8_t[4]){ 192, 0, 2, 1 }));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_either),
	};

	return cmocka_run_group_tests_name("dataplane_martian", tests, NULL, NULL);
}
