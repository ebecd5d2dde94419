/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inner flow hash (dp_flow_hash in dataplane/pipeline.c) against
 * docs/wire-format.md, computed independently: CRC-32C (Castagnoli,
 * reflected, initial value 0, no final inversion), bit by bit, over
 * src || dst || protocol || source port || destination port, ports in
 * network order and zero unless the protocol is UDP or TCP, and zero for
 * an IPv4 fragment (MF or a fragment offset).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dataplane/parse.h"
#include "dataplane/pipeline.h"
#include "ut_pkt.h"

/* The key of docs/wire-format.md, built byte by byte (frag: an IPv4 fragment). */
static uint32_t
reference_hash_frag(const uint8_t *src, const uint8_t *dst, uint32_t alen, uint8_t proto,
		    uint16_t sport, uint16_t dport, bool frag)
{
	uint8_t key[40];
	uint32_t n = 0;

	memcpy(key, src, alen);
	n += alen;
	memcpy(key + n, dst, alen);
	n += alen;
	key[n++] = proto;
	if ((proto != UT_PROTO_UDP && proto != UT_PROTO_TCP) || frag)
		sport = dport = 0;
	ut_put16(key + n, sport);
	n += 2;
	ut_put16(key + n, dport);
	n += 2;
	return ut_crc32c(0, key, n);
}

static uint32_t
reference_hash(const uint8_t *src, const uint8_t *dst, uint32_t alen, uint8_t proto,
	       uint16_t sport, uint16_t dport)
{
	return reference_hash_frag(src, dst, alen, proto, sport, dport, false);
}

/* MF or a fragment offset in the IPv4 header at ip. */
static bool
ip4_is_fragment(const uint8_t *ip)
{
	return ((ip[6] << 8 | ip[7]) & 0x3fff) != 0;
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
			want = reference_hash_frag(ip + 12, ip + 16, 4, proto, sport, dport,
						   ip4_is_fragment(ip));
		got = dp_flow_hash(ip, v6 ? PKT_L3_IP6 : PKT_L3_IP4, proto, sport, dport);
		if (got != want)
			fail_msg("IPv%d proto %u: dp_flow_hash %#010x, reference %#010x", v6 ? 6 : 4,
				 proto, got, want);
		/* Bytes outside the addresses (and the IPv4 fragment field) do not matter. */
		for (k = 0; k < (v6 ? 8u : 12u); k++)
			if (v6 || (k != 6 && k != 7))
				ip[k] ^= 0x5a;
		for (k = v6 ? 40 : 20; k < 64; k++)
			ip[k] ^= 0xa5;
		assert_int_equal(dp_flow_hash(ip, v6 ? PKT_L3_IP6 : PKT_L3_IP4, proto, sport, dport),
				 want);
	}
}

/*
 * The fragments of one datagram hash alike: the first one (MF, offset 0)
 * carries the ports, the later ones do not (the parser gives them ports 0),
 * so the hash leaves them out for every fragment. IPv6 fragments carry the
 * Fragment header (44) as protocol and hash without ports anyway.
 */
static void
test_fragments(void **state)
{
	static const uint16_t frag_fields[] = { 0x2000, 0x6000 /* DF too */, 0x2000 | 185,
						185, 0x0001, 0x1fff };
	uint8_t ip4[20] = { 0x45 }, ip6[40] = { 0x60 };
	uint32_t whole, first, h;
	unsigned int i;

	(void)state;
	memcpy(ip4 + 12, ut_ip4_src, 4);
	memcpy(ip4 + 16, ut_ip4_dst, 4);
	whole = dp_flow_hash(ip4, PKT_L3_IP4, UT_PROTO_UDP, 4000, 4001);
	ut_put16(ip4 + 6, 0x2000); /* first fragment: MF, offset 0, ports as parsed */
	first = dp_flow_hash(ip4, PKT_L3_IP4, UT_PROTO_UDP, 4000, 4001);
	assert_int_equal(first, reference_hash(ut_ip4_src, ut_ip4_dst, 4, UT_PROTO_UDP, 0, 0));
	assert_int_not_equal(first, whole);
	for (i = 0; i < sizeof(frag_fields) / sizeof(frag_fields[0]); i++) {
		ut_put16(ip4 + 6, frag_fields[i]);
		/* A later fragment: the parser has no ports for it. */
		h = dp_flow_hash(ip4, PKT_L3_IP4, UT_PROTO_UDP, 0, 0);
		if (h != first)
			fail_msg("fragment field %#06x hashes to %#010x, the first fragment to %#010x",
				 frag_fields[i], h, first);
		assert_int_equal(dp_flow_hash(ip4, PKT_L3_IP4, UT_PROTO_UDP, 4000, 4001), first);
	}
	/* DF alone is no fragment: the ports count. */
	ut_put16(ip4 + 6, 0x4000);
	assert_int_equal(dp_flow_hash(ip4, PKT_L3_IP4, UT_PROTO_UDP, 4000, 4001), whole);

	memcpy(ip6 + 8, ut_ip6_src, 16);
	memcpy(ip6 + 24, ut_ip6_dst, 16);
	ip6[6] = 44;
	assert_int_equal(dp_flow_hash(ip6, PKT_L3_IP6, 44, 0, 0),
			 reference_hash(ut_ip6_src, ut_ip6_dst, 16, 44, 0, 0));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_crc),
		cmocka_unit_test(test_known_tuples),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_fragments),

	};

	return cmocka_run_group_tests_name("dataplane_hash", tests, NULL, NULL);
}
