/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inner flow hash (dp_flow_hash in dataplane/pipeline.c) against
 * docs/wire-format.md, computed independently: CRC-32C (Castagnoli,
 * reflected, initial value 0, no final inversion), bit by bit, over
 * src || dst || protocol || source port || destination port, ports in
 * network order and zero unless the protocol is UDP or TCP.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dataplane/parse.h"
#include "dataplane/pipeline.h"
#include "ut_pkt.h"

/* The key of docs/wire-format.md, built byte by byte. */
static uint32_t
reference_hash(const uint8_t *src, const uint8_t *dst, uint32_t alen, uint8_t proto,
	       uint16_t sport, uint16_t dport)
{
	uint8_t key[40];
	uint32_t n = 0;

	memcpy(key, src, alen);
	n += alen;
	memcpy(key + n, dst, alen);
	n += alen;
	key[n++] = proto;
	if (proto != UT_PROTO_UDP && proto != UT_PROTO_TCP)
		sport = dport = 0;
	ut_put16(key + n, sport);
	n += 2;
	ut_put16(key + n, dport);
	n += 2;
	return ut_crc32c(0, key, n);
}

/* The reference CRC-32C itself: RFC 3720 B.4 check value with the usual init and xorout. */
static void
test_reference_crc(void **state)
{
	static const uint8_t zeros[32];
	uint8_t ones[32], inc[32];
	unsigned int i;

	(void)state;
	memset(ones, 0xff, sizeof(ones));
	assert_int_equal(~ut_crc32c(~0u, (const uint8_t *)"123456789", 9), 0xe3069283);
	/* RFC 3720 B.4 test vectors (as stored little-endian). */
	for (i = 0; i < 32; i++)
		inc[i] = (uint8_t)i;
	assert_int_equal(~ut_crc32c(~0u, zeros, 32), 0x8a9136aa);
	assert_int_equal(~ut_crc32c(~0u, ones, 32), 0x62a8ab43);
	assert_int_equal(~ut_crc32c(~0u, inc, 32), 0x46dd794e);
}

static void
test_known_tuples(void **state)
{
	uint8_t ip4[20] = { 0x45 }, ip6[40] = { 0x60 };

	(void)state;
	memcpy(ip4 + 12, ut_ip4_src, 4);
	memcpy(ip4 + 16, ut_ip4_dst, 4);
	memcpy(ip6 + 8, ut_ip6_src, 16);
	memcpy(ip6 + 24, ut_ip6_dst, 16);
	assert_int_equal(dp_flow_hash(ip4, PKT_L3_IP4, UT_PROTO_UDP, 0xc123, 4791),
			 reference_hash(ut_ip4_src, ut_ip4_dst, 4, UT_PROTO_UDP, 0xc123, 4791));
	assert_int_equal(dp_flow_hash(ip6, PKT_L3_IP6, UT_PROTO_UDP, 0xc123, 4791),
			 reference_hash(ut_ip6_src, ut_ip6_dst, 16, UT_PROTO_UDP, 0xc123, 4791));
	/* Ports are ignored for other protocols: ICMP hashes on addresses and protocol. */
	assert_int_equal(dp_flow_hash(ip4, PKT_L3_IP4, UT_PROTO_ICMP, 1, 2),
			 dp_flow_hash(ip4, PKT_L3_IP4, UT_PROTO_ICMP, 0, 0));
	assert_int_equal(dp_flow_hash(ip4, PKT_L3_IP4, UT_PROTO_ICMP, 1, 2),
			 reference_hash(ut_ip4_src, ut_ip4_dst, 4, UT_PROTO_ICMP, 0, 0));
	/* Direction matters: the reverse flow hashes differently here. */
	assert_int_not_equal(dp_flow_hash(ip4, PKT_L3_IP4, UT_PROTO_UDP, 1, 2),
			     dp_flow_hash(ip4, PKT_L3_IP4, UT_PROTO_UDP, 2, 1));
}

/* Random headers at every alignment; only address bytes and the arguments count. */
static void
test_random(void **state)
{
	static const uint8_t protos[] = { UT_PROTO_UDP, UT_PROTO_TCP, UT_PROTO_ICMP,
					  UT_PROTO_ICMP6, 0, 47, 132, 255 };
	uint64_t seed = 7;
	unsigned int i;

	(void)state;
	for (i = 0; i < 100000; i++) {
		uint8_t buf[64 + 8];
		unsigned int align = i % 8, k;
		uint8_t *ip = buf + align;
		bool v6 = (i / 8) & 1;
		uint8_t proto = protos[ut_rand(&seed) % sizeof(protos)];
		uint16_t sport = (uint16_t)ut_rand(&seed), dport = (uint16_t)ut_rand(&seed);
		uint32_t got, want;

		for (k = 0; k < sizeof(buf); k++)
			buf[k] = (uint8_t)ut_rand(&seed);
		if (v6)
			want = reference_hash(ip + 8, ip + 24, 16, proto, sport, dport);
		else
			want = reference_hash(ip + 12, ip + 16, 4, proto, sport, dport);
		got = dp_flow_hash(ip, v6 ? PKT_L3_IP6 : PKT_L3_IP4, proto, sport, dport);
		if (got != want)
			fail_msg("IPv%d proto %u: dp_flow_hash %#010x, reference %#010x", v6 ? 6 : 4,
				 proto, got, want);
		/* Bytes outside the addresses do not matter. */
		for (k = 0; k < (v6 ? 8u : 12u); k++)
			ip[k] ^= 0x5a;
		for (k = v6 ? 40 : 20; k < 64; k++)
			ip[k] ^= 0xa5;
		assert_int_equal(dp_flow_hash(ip, v6 ? PKT_L3_IP6 : PKT_L3_IP4, proto, sport, dport),
				 want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_crc),
		cmocka_unit_test(test_known_tuples),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests_name("dataplane_hash", tests, NULL, NULL);
}
