/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gateway CNPs (dataplane/cnp.c, docs/roce-wire.md): every
 * header field of cnp_build's output for IPv4 and IPv6, tagged and not; the
 * ICRC against an independent CRC-32 (ut_pkt.h) over the pseudo-packet of
 * the RoCEv2 annex, with every rte_net_crc algorithm; the IPv4 header
 * checksum and the IPv6 UDP checksum; the parser's view of the result; and
 * an empty pool or a too-small data room.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_net_crc.h>

#include "dataplane/cnp.h"
#include "dataplane/parse.h"
#include "ut_eal.h"
#include "ut_pkt.h"

static struct rte_mempool *pool;

static const struct rte_ether_addr sender_mac = { { 0x02, 0x00, 0x00, 0x00, 0x01, 0x01 } };

static struct dp_port
dc_port(uint16_t vlan)
{
	struct dp_port p;

	memset(&p, 0, sizeof(p));
	p.role = 0;
	p.vlan = vlan;
	memcpy(p.mac.addr_bytes, "\x02\x00\x00\x00\x01\xfe", 6);
	return p;
}

/*
 * The ICRC as the InfiniBand annex A17 defines it, from scratch: CRC-32
 * over 8 bytes of ones and the IP packet up to the ICRC with TOS/TTL/header
 * checksum (IPv4) or traffic class/flow label/hop limit (IPv6), the UDP
 * checksum and the BTH FECN/BECN/resv6 byte set to ones.
 */
static uint32_t
reference_icrc(const uint8_t *ip, uint32_t len)
{
	uint8_t buf[8 + UT_PKT_MAX];
	uint8_t *b = buf + 8;
	uint32_t l4;

	memset(buf, 0xff, 8);
	memcpy(b, ip, len);
	if ((b[0] >> 4) == 4) {
		l4 = (uint32_t)(b[0] & 0xf) * 4;
		b[1] = 0xff;
		b[8] = 0xff;
		b[10] = 0xff;
		b[11] = 0xff;
	} else {
		l4 = 40;
		b[0] |= 0x0f;
		b[1] = 0xff;
		b[2] = 0xff;
		b[3] = 0xff;
		b[7] = 0xff;
	}
	b[l4 + 6] = 0xff;
	b[l4 + 7] = 0xff;
	b[l4 + 8 + 4] = 0xff;
	return ut_crc32_ieee(buf, 8 + len);
}

/* RFC 2460 8.1 pseudo-header sum over the UDP datagram at ip + 40. */
static uint16_t
ipv6_udp_sum(const uint8_t *ip)
{
	uint16_t ulen = ut_get16(ip + 40 + 4);
	uint8_t ph[8] = { 0 };
	uint32_t sum;

	ut_put32(ph, ulen);
	ph[7] = UT_PROTO_UDP;
	sum = ut_sum16(0, ip + 8, 32);
	sum = ut_sum16(sum, ph, 8);
	return (uint16_t)ut_sum16(sum, ip + 40, ulen);
}

struct cnp_case {
	uint8_t family;
	uint16_t vlan;
	uint8_t dscp;
	uint16_t sport;
	uint32_t dqpn;
};

static void
check_cnp(const struct cnp_case *c)
{
	static const uint8_t v4_src[4] = { 10, 2, 0, 2 }, v4_dst[4] = { 10, 1, 0, 1 };
	struct dp_port dc = dc_port(c->vlan);
	const uint8_t *src = c->family == AF_INET ? v4_src : ut_ip6_dst;
	const uint8_t *dst = c->family == AF_INET ? v4_dst : ut_ip6_src;
	uint32_t l2 = c->vlan ? 18 : 14, l3 = c->family == AF_INET ? 20 : 40;
	struct rte_mbuf *m;
	const uint8_t *f, *ip, *udp, *bth;
	uint32_t icrc, k;
	struct pkt_meta meta;
	uint16_t et;

	m = cnp_build(pool, &dc, &sender_mac, c->family, src, dst, c->sport, c->dqpn, c->dscp);
	assert_non_null(m);
	assert_int_equal(m->nb_segs, 1);
	assert_int_equal(rte_pktmbuf_pkt_len(m), l2 + l3 + 40);
	assert_int_equal(rte_pktmbuf_data_len(m), l2 + l3 + 40);
	assert_int_equal(m->l2_len, l2);
	assert_int_equal(m->l3_len, l3);
	f = rte_pktmbuf_mtod(m, const uint8_t *);

	/* Ethernet [/ 802.1Q PCP 6]. */
	assert_memory_equal(f, sender_mac.addr_bytes, 6);
	assert_memory_equal(f + 6, dc.mac.addr_bytes, 6);
	if (c->vlan) {
		assert_int_equal(ut_get16(f + 12), UT_ET_VLAN);
		assert_int_equal(ut_get16(f + 14), 6u << 13 | c->vlan);
	}
	assert_int_equal(ut_get16(f + l2 - 2), c->family == AF_INET ? UT_ET_IPV4 : UT_ET_IPV6);
	ip = f + l2;

	if (c->family == AF_INET) {
		assert_int_equal(ip[0], 0x45);
		assert_int_equal(ip[1], c->dscp << 2); /* Not-ECT */
		assert_int_equal(ut_get16(ip + 2), 60);
		assert_int_equal(ut_get16(ip + 4), 0);
		assert_int_equal(ut_get16(ip + 6), 0x4000); /* DF, no fragment */
		assert_int_equal(ip[8], 64);
		assert_int_equal(ip[9], UT_PROTO_UDP);
		assert_int_equal(ut_sum16(0, ip, 20), 0xffff); /* header checksum valid */
		assert_memory_equal(ip + 12, src, 4);
		assert_memory_equal(ip + 16, dst, 4);
	} else {
		assert_int_equal(ut_get32(ip), 6u << 28 | (uint32_t)(c->dscp << 2) << 20);
		assert_int_equal(ut_get16(ip + 4), 40);
		assert_int_equal(ip[6], UT_PROTO_UDP);
		assert_int_equal(ip[7], 64);
		assert_memory_equal(ip + 8, src, 16);
		assert_memory_equal(ip + 24, dst, 16);
	}
	udp = ip + l3;
	assert_int_equal(ut_get16(udp), c->sport);
	assert_int_equal(ut_get16(udp + 2), 4791);
	assert_int_equal(ut_get16(udp + 4), 40);
	if (c->family == AF_INET) {
		assert_int_equal(ut_get16(udp + 6), 0); /* no UDP checksum over IPv4 */
	} else {
		/* Mandatory over IPv6 (RFC 8200 8.1), covering the ICRC; never 0. */
		assert_int_not_equal(ut_get16(udp + 6), 0);
		assert_int_equal(ipv6_udp_sum(ip), 0xffff);
	}
	bth = udp + 8;
	assert_int_equal(bth[0], 0x81);
	assert_int_equal(bth[1], 0); /* SE, M, PadCnt, TVer */
	assert_int_equal(ut_get16(bth + 2), 0xffff);
	assert_int_equal(bth[4], 0x40); /* BECN */
	assert_int_equal((uint32_t)bth[5] << 16 | bth[6] << 8 | bth[7], c->dqpn);
	assert_int_equal(bth[8], 0); /* AckReq */
	assert_int_equal(bth[9] | bth[10] | bth[11], 0); /* PSN 0 */
	for (k = 0; k < 16; k++)
		assert_int_equal(bth[12 + k], 0);
	/* ICRC, least significant byte first. */
	icrc = (uint32_t)bth[28] | (uint32_t)bth[29] << 8 | (uint32_t)bth[30] << 16 |
	       (uint32_t)bth[31] << 24;
	assert_int_equal(icrc, reference_icrc(ip, l3 + 36));
	assert_int_equal(cnp_icrc(ip, l3 + 36), icrc);

	/* Our own parser takes it for a CNP. */
	assert_int_equal(parse_l2(f, rte_pktmbuf_data_len(m), c->vlan, &meta, &et), LS_DROP_NONE);
	assert_int_equal(parse_ip(f, rte_pktmbuf_data_len(m), meta.l3_off, et, &meta),
			 LS_DROP_NONE);
	assert_int_equal(meta.cls, DP_CLASS_ROCE_CNP);
	assert_int_equal(meta.dqpn, c->dqpn);
	assert_int_equal(meta.tos, c->dscp << 2);
	assert_int_equal(meta.ip_len, l3 + 40);
	rte_pktmbuf_free(m);
}

static const struct cnp_case cases[] = {
	{ AF_INET, 0, 48, 0xc123, 0xabcdef },
	{ AF_INET, 100, 48, 49152, 1 },
	{ AF_INET, 4095, 0, 0, 0 },
	{ AF_INET, 0, 63, 0xffff, 0xffffff },
	{ AF_INET6, 0, 48, 0xc123, 0xabcdef },
	{ AF_INET6, 100, 26, 0x1234, 0x000100 },
	{ AF_INET6, 0, 63, 0xffff, 0xffffff },
	{ AF_INET6, 7, 0, 0, 0 },
};

static void
test_fields_and_icrc(void **state)
{
	static const enum rte_net_crc_alg algs[] = { RTE_NET_CRC_SCALAR, RTE_NET_CRC_SSE42,
						     RTE_NET_CRC_AVX512 };
	size_t a, i;

	(void)state;
	/* Unsupported algorithms fall back: each must give the same ICRC. */
	for (a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
		rte_net_crc_set_alg(algs[a]);
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			check_cnp(&cases[i]);
	}
	rte_net_crc_set_alg(RTE_NET_CRC_SSE42);
}

/* The reference CRC-32 itself: the IEEE 802.3 check value, as zlib computes it. */
static void
test_reference_crc(void **state)
{
	(void)state;
	assert_int_equal(ut_crc32_ieee((const uint8_t *)"123456789", 9), 0xcbf43926);
	assert_int_equal(ut_crc32_ieee((const uint8_t *)"", 0), 0);
}

/* The variant fields do not change the ICRC; everything else does. */
static void
test_icrc_variant_fields(void **state)
{
	static const int families[] = { 4, 6 };
	size_t f;

	(void)state;
	for (f = 0; f < 2; f++) {
		struct ut_pkt p;
		uint8_t *ip;
		uint32_t len, base, bth;

		ut_build(&p, &(struct ut_spec){ .family = families[f], .tos = 2, .sport = 0xc000,
					       .roce = true, .opcode = 0x11, .dqpn = 0x123456,
					       .psn = 0x654321, .flow_label = 0xabcde });
		ip = p.b + p.l3_off;
		len = p.ip_len - 4;
		bth = p.bth_off - p.l3_off;
		base = cnp_icrc(ip, len);
		assert_int_equal(base, reference_icrc(ip, len));
		if (families[f] == 4) {
			ip[1] = 0x03; /* CE */
			ip[8] = 1; /* TTL */
			ip[10] ^= 0x5a;
		} else {
			ip[0] = 0x6f; /* traffic class and flow label */
			ip[1] = 0x00;
			ip[3] = 0x11;
			ip[7] = 1; /* hop limit */
		}
		ip[bth - 8 + 6] = 0x12; /* UDP checksum */
		ip[bth + 4] = 0xc0; /* FECN, BECN */
		assert_int_equal(cnp_icrc(ip, len), base);
		/* Invariant fields: DestQP, PSN, P_Key, ports, addresses, AETH. */
		ip[bth + 5] ^= 1;
		assert_int_not_equal(cnp_icrc(ip, len), base);
		ip[bth + 5] ^= 1;
		ip[bth + 11] ^= 1;
		assert_int_not_equal(cnp_icrc(ip, len), base);
		ip[bth + 11] ^= 1;
		ip[bth - 8] ^= 1;
		assert_int_not_equal(cnp_icrc(ip, len), base);
		ip[bth - 8] ^= 1;
		ip[len - 1] ^= 1;
		assert_int_not_equal(cnp_icrc(ip, len), base);
		ip[len - 1] ^= 1;
		ip[families[f] == 4 ? 12 : 8] ^= 1;
		assert_int_not_equal(cnp_icrc(ip, len), base);
		ip[families[f] == 4 ? 12 : 8] ^= 1;
		assert_int_equal(cnp_icrc(ip, len), base);
	}
}

static void
test_no_mbuf(void **state)
{
	struct dp_port dc = dc_port(0);
	static const uint8_t a[4] = { 10, 0, 0, 1 }, b[4] = { 10, 0, 0, 2 };
	struct rte_mempool *tiny, *small;
	struct rte_mbuf *held[4];
	unsigned int i;

	(void)state;
	tiny = rte_pktmbuf_pool_create("ut_cnp_tiny", 4, 0, 0, 256, SOCKET_ID_ANY);
	assert_non_null(tiny);
	for (i = 0; i < 4; i++)
		assert_non_null(held[i] = rte_pktmbuf_alloc(tiny));
	assert_null(cnp_build(tiny, &dc, &sender_mac, AF_INET, a, b, 1, 2, 48));
	rte_pktmbuf_free_bulk(held, 4);
	/* Room for the mbuf but not for the frame: no leak, no frame. */
	small = rte_pktmbuf_pool_create("ut_cnp_small", 4, 0, 0, 60, SOCKET_ID_ANY);
	assert_non_null(small);
	assert_null(cnp_build(small, &dc, &sender_mac, AF_INET, a, b, 1, 2, 48));
	assert_int_equal(rte_mempool_avail_count(small), 4);
	rte_mempool_free(small);
	rte_mempool_free(tiny);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_crc),
		cmocka_unit_test(test_fields_and_icrc),
		cmocka_unit_test(test_icrc_variant_fields),
		cmocka_unit_test(test_no_mbuf),
	};
	int rc;

	(void)argc;
	if (ut_eal_init(argv[0], "ut_cnp", 128) != 0)
		return 1;
	pool = rte_pktmbuf_pool_create("ut_cnp", 63, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "cannot create the mbuf pool\n");
		return 1;
	}
	rte_net_crc_set_alg(RTE_NET_CRC_SSE42);
	rc = cmocka_run_group_tests_name("dataplane_cnp", tests, NULL, NULL);
	if (rte_mempool_avail_count(pool) != 63) {
		fprintf(stderr, "mbufs leaked: %u of 63 in the pool\n",
			rte_mempool_avail_count(pool));
		rc = 1;
	}
	rte_mempool_free(pool);
	ut_eal_fini();
	return rc;
}
