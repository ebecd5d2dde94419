/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Incremental checksum update (dataplane/csum.h, RFC 1624 eqn. 3) against
 * a full recomputation (RFC 1071, ut_pkt.h): random IPv4 headers, every TTL
 * decrement, every TOS change (the ECN and DSCP rewrites of the pipeline),
 * any 16-bit word, and the header whose checksum is 0x0000. The UDP
 * checksum check (csum_udp_ok) against the same reference over random
 * IPv4 and IPv6 datagrams of every length parity.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>

#include "dataplane/csum.h"
#include "ut_pkt.h"

static void
random_header(uint8_t *ip, uint64_t *seed)
{
	unsigned int i;

	for (i = 0; i < 20; i++)
		ip[i] = (uint8_t)ut_rand(seed);
	ip[0] = 0x45;
	ut_ip4_fix_csum(ip);
}

static rte_be16_t
be16_at(const uint8_t *p)
{
	rte_be16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* Rewrite the word at w_off to new_w (host order) with csum_update16, as the pipeline does. */
static void
update_word(uint8_t *ip, unsigned int w_off, uint16_t new_w)
{
	rte_be16_t old_w = be16_at(ip + w_off), csum = be16_at(ip + 10);
	rte_be16_t n = rte_cpu_to_be_16(new_w);

	ut_put16(ip + w_off, new_w);
	csum = csum_update16(csum, old_w, n);
	memcpy(ip + 10, &csum, 2);
}

/* The updated checksum equals a recomputation and the header verifies. */
static void
assert_header_ok(const uint8_t *ip)
{
	uint8_t copy[20];
	uint16_t stored = ut_get16(ip + 10);

	/* Over the 20 bytes whatever the IHL field now says. */
	memcpy(copy, ip, 20);
	ut_put16(copy + 10, 0);
	if (ut_csum(copy, 20) != stored)
		fail_msg("incremental checksum %#06x, recomputed %#06x", stored,
			 ut_csum(copy, 20));
	assert_int_equal(ut_sum16(0, ip, 20), 0xffff);
}

static void
test_every_ttl_decrement(void **state)
{
	uint64_t seed = 1;
	unsigned int h, ttl;

	(void)state;
	for (h = 0; h < 200; h++) {
		uint8_t ip[20];

		random_header(ip, &seed);
		for (ttl = 255; ttl >= 1; ttl--) {
			/* TTL shares a word with the protocol, as in the pipeline. */
			ip[8] = (uint8_t)ttl;
			ut_ip4_fix_csum(ip);
			update_word(ip, 8, (uint16_t)((ttl - 1) << 8 | ip[9]));
			assert_int_equal(ip[8], ttl - 1);
			assert_header_ok(ip);
		}
	}
}

static void
test_every_tos_change(void **state)
{
	uint64_t seed = 2;
	unsigned int h, from, to;

	(void)state;
	for (h = 0; h < 8; h++) {
		uint8_t base[20];

		random_header(base, &seed);
		for (from = 0; from < 256; from++) {
			for (to = 0; to < 256; to++) {
				uint8_t ip[20];

				memcpy(ip, base, 20);
				ip[1] = (uint8_t)from;
				ut_ip4_fix_csum(ip);
				update_word(ip, 0, (uint16_t)(0x45 << 8 | to));
				assert_int_equal(ip[1], to);
				assert_header_ok(ip);
			}
		}
	}
}

/* Any word but the checksum itself, any new value, random headers. */
static void
test_random_words(void **state)
{
	uint64_t seed = 3;
	unsigned int i;

	(void)state;
	for (i = 0; i < 200000; i++) {
		uint8_t ip[20];
		unsigned int w = (unsigned int)(ut_rand(&seed) % 9);

		random_header(ip, &seed);
		update_word(ip, w < 5 ? 2 * w : 2 * w + 2, (uint16_t)ut_rand(&seed));
		assert_header_ok(ip);
		/* Chains of updates stay exact. */
		update_word(ip, 8, (uint16_t)ut_rand(&seed));
		update_word(ip, 0, (uint16_t)(0x4500 | (ut_rand(&seed) & 0xff)));
		assert_header_ok(ip);
	}
}

/*
 * RFC 1624 section 3: a header whose checksum is 0x0000 (its other words
 * sum to 0xffff) is where eqn. 2 went wrong. Update into and out of it.
 */
static void
test_zero_checksum_header(void **state)
{
	uint8_t ip[20] = { 0x45, 0x00, 0x00, 0x54, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11 };
	uint32_t sum;
	uint16_t fill;

	(void)state;
	memcpy(ip + 12, ut_ip4_src, 4);
	memcpy(ip + 16, ut_ip4_dst, 4);
	/* Choose the identification so the other words sum to 0xffff. */
	ut_put16(ip + 4, 0);
	ut_put16(ip + 10, 0);
	sum = ut_sum16(0, ip, 20);
	fill = (uint16_t)(0xffff - sum);
	ut_put16(ip + 4, fill);
	ut_ip4_fix_csum(ip);
	assert_int_equal(ut_get16(ip + 10), 0x0000);
	/* Out of it: TTL 64 -> 63, and back in: 63 -> 64. */
	update_word(ip, 8, 0x3f11);
	assert_header_ok(ip);
	update_word(ip, 8, 0x4011);
	assert_header_ok(ip);
	assert_int_equal(ut_get16(ip + 10), 0x0000);
	/* A no-op update leaves it alone. */
	update_word(ip, 8, 0x4011);
	assert_int_equal(ut_get16(ip + 10), 0x0000);
}

/* Fill the UDP checksum of udp (len bytes) from the RFC 768 pseudo-header, by the reference. */
static void
ref_udp_csum(const uint8_t *src, const uint8_t *dst, unsigned int alen, uint8_t *udp,
	     uint16_t len)
{
	uint8_t tail[4] = { 0, 17 };
	uint32_t sum;
	uint16_t c;

	ut_put16(tail + 2, len);
	ut_put16(udp + 6, 0);
	sum = ut_sum16(0, src, alen);
	sum = ut_sum16(sum, dst, alen);
	sum = ut_sum16(sum, tail, 4);
	sum = ut_sum16(sum, udp, len);
	c = (uint16_t)~sum;
	ut_put16(udp + 6, c == 0 ? 0xffff : c); /* RFC 768: a computed 0 is sent as all ones */
}

static void
test_udp_checksum(void **state)
{
	static uint8_t buf[2048 + 1];
	uint64_t seed = 11;
	unsigned int i, k;

	(void)state;
	for (i = 0; i < 20000; i++) {
		unsigned int alen = (i & 1) ? 16 : 4;
		uint16_t len = (uint16_t)(8 + ut_rand(&seed) % 1500);
		/* Odd offsets too: the datagram follows headers of any length. */
		uint8_t *udp = buf + (i >> 1 & 1), src[16], dst[16];

		for (k = 0; k < alen; k++) {
			src[k] = (uint8_t)ut_rand(&seed);
			dst[k] = (uint8_t)ut_rand(&seed);
		}
		for (k = 0; k < len; k++)
			udp[k] = (uint8_t)ut_rand(&seed);
		ut_put16(udp + 4, len);
		ref_udp_csum(src, dst, alen, udp, len);
		if (!csum_udp_ok(src, dst, alen, udp, len))
			fail_msg("IPv%d, %u bytes: a right checksum %#06x is refused",
				 alen == 4 ? 4 : 6, len, ut_get16(udp + 6));
		/* Any one bit changed in the datagram or the addresses is caught. */
		k = (unsigned int)(ut_rand(&seed) % (len + 2u * alen));
		if (k < len)
			udp[k] ^= (uint8_t)(1u << (ut_rand(&seed) % 8));
		else if (k < len + alen)
			src[k - len] ^= 0x10;
		else
			dst[k - len - alen] ^= 0x01;
		assert_false(csum_udp_ok(src, dst, alen, udp, len));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udp_checksum),

		cmocka_unit_test(test_every_ttl_decrement),
		cmocka_unit_test(test_every_tos_change),
		cmocka_unit_test(test_random_words),
		cmocka_unit_test(test_zero_checksum_header),
	};

	return cmocka_run_group_tests_name("dataplane_csum", tests, NULL, NULL);
}
