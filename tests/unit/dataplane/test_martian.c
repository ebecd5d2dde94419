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
	const char *addr;
	bool martian;
};

static void
test_ipv4(void **state)
{
	static const struct addr_case cases[] = {
		{ "0.0.0.0", true }, { "0.255.255.255", true }, { "1.0.0.0", false },
		{ "10.1.0.1", false }, { "126.255.255.255", false }, { "127.0.0.0", true },
		{ "127.0.0.1", true }, { "127.255.255.255", true }, { "128.0.0.0", false },
		{ "169.253.255.255", false }, { "169.254.0.0", true }, { "169.254.255.255", true },
		{ "169.255.0.0", false }, { "192.0.2.1", false }, { "223.255.255.255", false },
		{ "224.0.0.0", true }, { "224.0.0.5", true }, { "239.255.255.255", true },
		{ "240.0.0.0", true }, { "255.255.255.254", true }, { "255.255.255.255", true },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t a[4];

		assert_int_equal(inet_pton(AF_INET, cases[i].addr, a), 1);
		if (martian4(a) != cases[i].martian)
			fail_msg("%s: martian4 %d, expected %d", cases[i].addr, martian4(a),
				 cases[i].martian);
	}
}

static void
test_ipv6(void **state)
{
	static const struct addr_case cases[] = {
		{ "::", true }, { "::1", true }, { "::2", false }, { "::100", false },
		{ "1::", false }, { "::ffff:10.1.0.1", false }, { "2001:db8::1", false },
		{ "fd00:1::1", false }, { "fe7f:ffff::1", false }, { "fe80::", true },
		{ "fe80::1", true }, { "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true },
		{ "fec0::1", false }, { "feff::1", false }, { "ff00::", true }, { "ff02::1", true },
		{ "ff0e::1", true }, { "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true },
		{ "100::1", false },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t a[16];

		assert_int_equal(inet_pton(AF_INET6, cases[i].addr, a), 1);
		if (martian6(a) != cases[i].martian)
			fail_msg("%s: martian6 %d, expected %d", cases[i].addr, martian6(a),
				 cases[i].martian);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4),
		cmocka_unit_test(test_ipv6),
	};

	return cmocka_run_group_tests_name("dataplane_martian", tests, NULL, NULL);
}
