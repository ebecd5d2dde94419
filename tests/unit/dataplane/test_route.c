/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peer selection (control/runtime.c runtime_dp_build): a config with
 * prefixes nested across four peers, IPv4 and IPv6, in two declaration
 * orders; the LPM tables pick the longest match and miss outside every
 * prefix; each peer gets its outer addresses and next hop (on-link remote
 * or the WAN port's gateway); a peer whose remote is off-link on a port
 * without a gateway of that family is rejected with FILE:LINE. Needs EAL
 * for rte_malloc and the LPM tables; no device is touched (every port sets
 * its MAC, so rte_eth_macaddr_get is never called).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include <rte_lpm.h>
#include <rte_lpm6.h>

#include "control/config.h"
#include "control/runtime.h"
#include "ut_eal.h"

#define HEAD                                                                                      \
	"[gateway]\n"                                                                             \
	"name = route-test\n"                                                                     \
	"\n"                                                                                      \
	"[port dc]\n"                                                                             \
	"role = dc\n"                                                                             \
	"dev = net_null0\n"                                                                       \
	"mac = 02:00:00:00:01:fe\n"                                                               \
	"ipv4 = 10.1.0.254/16\n"                                                                  \
	"ipv6 = fd00:1::fe/64\n"                                                                  \
	"\n"                                                                                      \
	"[port wan]\n"                                                                            \
	"role = wan\n"                                                                            \
	"dev = net_null1\n"                                                                       \
	"mac = 02:00:00:00:0a:02\n"                                                               \
	"ipv4 = 192.0.2.1/24\n"                                                                   \
	"ipv6 = 2001:db8:ff::1/64\n"                                                              \
	"link_rate = 10G\n"

#define GATEWAYS                                                                                  \
	"gateway4 = 192.0.2.254\n"                                                                \
	"gateway6 = 2001:db8:ff::fe\n"

/* a, widest; b inside a; c inside b; d: host routes inside c. */
#define PEER_A                                                                                    \
	"\n[peer a]\nport = wan\nremote = 192.0.2.2\nvni = 10\nrtt = 1ms\n"                       \
	"prefix = 172.16.0.0/12\nprefix = fd10::/16\nprefix = 2001:db8:1000::/36\n"
#define PEER_B                                                                                    \
	"\n[peer b]\nport = wan\nremote = 2001:db8:ff::3\nvni = 20\nrtt = 2ms\n"                  \
	"prefix = 172.20.0.0/16\nprefix = fd10:20::/32\nprefix = 2001:db8:1230::/44\n"
#define PEER_C                                                                                    \
	"\n[peer c]\nport = wan\nremote = 198.51.100.7\nvni = 30\nrtt = 3ms\n"                    \
	"prefix = 172.20.5.0/24\nprefix = 172.20.5.128/25\n"                                      \
	"prefix = fd10:20:5::/48\nprefix = fd10:20:5:1::/64\nprefix = 2001:db8:1234:5670::/60\n"
#define PEER_D                                                                                    \
	"\n[peer d]\nport = wan\nremote = 2001:db8:aaaa::1\nvni = 40\nrtt = 4ms\n"                \
	"prefix = 172.20.5.200/32\nprefix = 172.20.5.201/32\nprefix = fd10:20:5:1::42/128\n"

static struct ls_runtime rt;

/* Load text as a config named name; 0 or the loader's error. */
static int
load(const char *text, struct ls_config *cfg)
{
	FILE *in = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
	int rc;

	assert_non_null(in);
	rc = config_load_stream(in, "route.conf", cfg, stderr);
	fclose(in);
	return rc;
}

static int
peer_index(const struct dp_conf *c, const char *name)
{
	unsigned int i;

	for (i = 0; i < c->n_peers; i++)
		if (strcmp(c->peers[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* The peer name the IPv4 table gives for addr, or "-" on a miss. */
static const char *
route4(const struct dp_conf *c, const char *addr)
{
	struct in_addr a;
	uint32_t next;

	assert_int_equal(inet_pton(AF_INET, addr, &a), 1);
	if (rte_lpm_lookup(c->lpm4, ntohl(a.s_addr), &next) != 0)
		return "-";
	assert_true(next < c->n_peers);
	return c->peers[next].name;
}

static const char *
route6(const struct dp_conf *c, const char *addr)
{
	uint8_t a[16];
	uint32_t next;

	assert_int_equal(inet_pton(AF_INET6, addr, a), 1);
	if (rte_lpm6_lookup(c->lpm6, a, &next) != 0)
		return "-";
	assert_true(next < c->n_peers);
	return c->peers[next].name;
}

static void
check_routes(const struct dp_conf *c)
{
	/* IPv4: /12 > /16 > /24 > /25 > /32. */
	assert_string_equal(route4(c, "172.16.0.0"), "a");
	assert_string_equal(route4(c, "172.31.255.255"), "a");
	assert_string_equal(route4(c, "172.19.255.255"), "a");
	assert_string_equal(route4(c, "172.20.0.0"), "b");
	assert_string_equal(route4(c, "172.20.4.255"), "b");
	assert_string_equal(route4(c, "172.20.5.0"), "c");
	assert_string_equal(route4(c, "172.20.5.127"), "c");
	assert_string_equal(route4(c, "172.20.5.128"), "c");
	assert_string_equal(route4(c, "172.20.5.199"), "c");
	assert_string_equal(route4(c, "172.20.5.200"), "d");
	assert_string_equal(route4(c, "172.20.5.201"), "d");
	assert_string_equal(route4(c, "172.20.5.202"), "c");
	assert_string_equal(route4(c, "172.20.6.0"), "b");
	assert_string_equal(route4(c, "172.20.255.255"), "b");
	assert_string_equal(route4(c, "172.21.0.0"), "a");
	/* Outside every prefix: the DC subnet, the WAN, beside the /12. */
	assert_string_equal(route4(c, "172.15.255.255"), "-");
	assert_string_equal(route4(c, "172.32.0.0"), "-");
	assert_string_equal(route4(c, "10.1.0.1"), "-");
	assert_string_equal(route4(c, "192.0.2.2"), "-");
	assert_string_equal(route4(c, "0.0.0.0"), "-");
	assert_string_equal(route4(c, "255.255.255.255"), "-");

	/* IPv6: /16 > /32 > /48 > /64 > /128, and /36 > /44 > /60 off byte boundaries. */
	assert_string_equal(route6(c, "fd10::1"), "a");
	assert_string_equal(route6(c, "fd10:ffff:ffff::"), "a");
	assert_string_equal(route6(c, "fd10:20::"), "b");
	assert_string_equal(route6(c, "fd10:20:4:ffff::"), "b");
	assert_string_equal(route6(c, "fd10:20:5::"), "c");
	assert_string_equal(route6(c, "fd10:20:5:1::1"), "c");
	assert_string_equal(route6(c, "fd10:20:5:1::42"), "d");
	assert_string_equal(route6(c, "fd10:20:5:1::43"), "c");
	assert_string_equal(route6(c, "fd10:20:5:2::42"), "c");
	assert_string_equal(route6(c, "fd10:20:6::"), "b");
	assert_string_equal(route6(c, "fd10:21::"), "a");
	assert_string_equal(route6(c, "2001:db8:1000::"), "a");
	assert_string_equal(route6(c, "2001:db8:1fff:ffff::"), "a");
	assert_string_equal(route6(c, "2001:db8:1230::"), "b");
	assert_string_equal(route6(c, "2001:db8:123f:ffff::"), "b");
	assert_string_equal(route6(c, "2001:db8:1234:5670::"), "c");
	assert_string_equal(route6(c, "2001:db8:1234:567f:ffff::"), "c");
	assert_string_equal(route6(c, "2001:db8:1234:5680::"), "b");
	assert_string_equal(route6(c, "2001:db8:1240::"), "a");
	assert_string_equal(route6(c, "fd11::"), "-");
	assert_string_equal(route6(c, "fd0f:ffff::"), "-");
	assert_string_equal(route6(c, "2001:db8:2000::"), "-");
	assert_string_equal(route6(c, "2001:db8:fff::"), "-");
	assert_string_equal(route6(c, "fd00:1::1"), "-");
	assert_string_equal(route6(c, "::"), "-");
}

static void
assert_addr(const uint8_t *got, int family, const char *want)
{
	uint8_t a[16] = { 0 };

	assert_int_equal(inet_pton(family, want, a), 1);
	assert_memory_equal(got, a, family == AF_INET ? 4 : 16);
}

static void
check_peers(const struct dp_conf *c)
{
	const struct dp_peer *a = &c->peers[peer_index(c, "a")];
	const struct dp_peer *b = &c->peers[peer_index(c, "b")];
	const struct dp_peer *pc = &c->peers[peer_index(c, "c")];
	const struct dp_peer *d = &c->peers[peer_index(c, "d")];

	assert_int_equal(c->n_peers, 4);
	assert_int_equal(c->n_ports, 2);
	assert_int_equal(c->ports[c->dc_port].role, LS_PORT_DC);
	/* On-link remotes are their own next hop; off-link ones go via the gateway. */
	assert_int_equal(a->family, AF_INET);
	assert_int_equal(a->vni, 10);
	assert_addr(a->dst, AF_INET, "192.0.2.2");
	assert_addr(a->nexthop, AF_INET, "192.0.2.2");
	assert_addr(a->src, AF_INET, "192.0.2.1");
	assert_int_equal(b->family, AF_INET6);
	assert_addr(b->dst, AF_INET6, "2001:db8:ff::3");
	assert_addr(b->nexthop, AF_INET6, "2001:db8:ff::3");
	assert_addr(b->src, AF_INET6, "2001:db8:ff::1");
	assert_int_equal(pc->family, AF_INET);
	assert_addr(pc->dst, AF_INET, "198.51.100.7");
	assert_addr(pc->nexthop, AF_INET, "192.0.2.254");
	assert_int_equal(d->family, AF_INET6);
	assert_addr(d->dst, AF_INET6, "2001:db8:aaaa::1");
	assert_addr(d->nexthop, AF_INET6, "2001:db8:ff::fe");
	assert_int_equal(d->vni, 40);
	assert_int_equal(d->rtt_ns, 4000000);
	assert_int_equal(a->port, b->port);
	assert_int_equal(c->ports[a->port].role, LS_PORT_WAN);
	/* The WAN port shapes at its link rate; the DC port has no traffic manager. */
	assert_true(c->tm[a->port].enabled);
	assert_int_equal(c->tm[a->port].shaper.rate_bps, UINT64_C(10000000000));
	assert_false(c->tm[c->dc_port].enabled);
	/* The configured MACs are used as given. */
	assert_memory_equal(c->ports[c->dc_port].mac.addr_bytes, "\x02\x00\x00\x00\x01\xfe", 6);
}

static void
build_and_check(const char *text)
{
	struct ls_config *cfg = calloc(1, sizeof(*cfg));
	struct dp_conf *c = NULL;

	assert_non_null(cfg);
	assert_int_equal(load(text, cfg), 0);
	assert_int_equal(runtime_dp_build(&rt, cfg, &c, stderr), 0);
	assert_non_null(c);
	assert_non_null(c->lpm4);
	assert_non_null(c->lpm6);
	check_peers(c);
	check_routes(c);
	runtime_dp_free(c);
	free(cfg);
}

static void
test_longest_match(void **state)
{
	(void)state;
	build_and_check(HEAD GATEWAYS PEER_A PEER_B PEER_C PEER_D);
}

/* Most specific first: the result cannot depend on the order routes were added. */
static void
test_longest_match_reverse_order(void **state)
{
	(void)state;
	build_and_check(HEAD GATEWAYS PEER_D PEER_C PEER_B PEER_A);
}

/* Only IPv4 prefixes: no IPv6 table at all. */
static void
test_single_family(void **state)
{
	struct ls_config *cfg = calloc(1, sizeof(*cfg));
	struct dp_conf *c = NULL;

	(void)state;
	assert_non_null(cfg);
	assert_int_equal(load(HEAD "\n[peer a]\nport = wan\nremote = 192.0.2.2\nvni = 1\n"
				   "rtt = 1ms\nprefix = 172.16.0.0/12\n",
			      cfg),
			 0);
	assert_int_equal(runtime_dp_build(&rt, cfg, &c, stderr), 0);
	assert_non_null(c->lpm4);
	assert_null(c->lpm6);
	assert_string_equal(route4(c, "172.16.1.1"), "a");
	runtime_dp_free(c);
	free(cfg);
}

/* Build text, which the config loader accepts, and expect a rejection mentioning want. */
static void
expect_rejected(const char *text, const char *want)
{
	struct ls_config *cfg = calloc(1, sizeof(*cfg));
	struct dp_conf *c = NULL;
	char *msg = NULL;
	size_t size = 0;
	FILE *err = open_memstream(&msg, &size);
	int rc;

	assert_non_null(cfg);
	assert_non_null(err);
	assert_int_equal(load(text, cfg), 0);
	rc = runtime_dp_build(&rt, cfg, &c, err);
	fclose(err);
	assert_int_equal(rc, -EINVAL);
	assert_null(c);
	if (strstr(msg, want) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", msg, want);
	free(msg);
	free(cfg);
}

static void
test_offlink_without_gateway(void **state)
{
	(void)state;
	/* An off-link IPv4 remote with no gateway4 (line 28 is the [peer c] header). */
	expect_rejected(HEAD PEER_A PEER_C,
			"route.conf:28: [peer c] remote: not on port 'wan''s subnet and the port "
			"has no gateway4");
	/* IPv6: a gateway4 does not help an IPv6 remote. */
	expect_rejected(HEAD "gateway4 = 192.0.2.254\n" PEER_D,
			"[peer d] remote: not on port 'wan''s subnet and the port has no gateway6");
	/* Both wrong: both reported. */
	{
		struct ls_config *cfg = calloc(1, sizeof(*cfg));
		struct dp_conf *c = NULL;
		char *msg = NULL;
		size_t size = 0;
		FILE *err = open_memstream(&msg, &size);

		assert_int_equal(load(HEAD PEER_C PEER_D, cfg), 0);
		assert_int_equal(runtime_dp_build(&rt, cfg, &c, err), -EINVAL);
		fclose(err);
		assert_non_null(strstr(msg, "[peer c]"));
		assert_non_null(strstr(msg, "[peer d]"));
		free(msg);
		free(cfg);
	}
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_longest_match),
		cmocka_unit_test(test_longest_match_reverse_order),
		cmocka_unit_test(test_single_family),
		cmocka_unit_test(test_offlink_without_gateway),
	};
	int rc;

	(void)argc;
	/* rte_lpm and rte_lpm6 each zero a 64 MB tbl24. */
	if (ut_eal_init(argv[0], "ut_route", 256) != 0)
		return 1;
	rc = cmocka_run_group_tests_name("dataplane_route", tests, NULL, NULL);
	ut_eal_fini();
	return rc;
}
