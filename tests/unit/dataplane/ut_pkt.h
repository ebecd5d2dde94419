/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_UT_PKT_H
#define LONGSPAN_UT_PKT_H

/*
 * Frame builder and reference arithmetic for the dataplane unit tests.
 *
 * Written from the RFCs and the InfiniBand annex, not from dataplane/: the
 * Internet checksum (RFC 1071), CRC-32C (RFC 3720 B.4, bitwise) and CRC-32
 * (IEEE 802.3, as zlib) here are the independent references the modules are
 * checked against. Everything is byte-wise and big-endian by hand, so the
 * builder shares no struct layout with the code under test.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define UT_PKT_MAX 2048

#define UT_ET_IPV4 0x0800
#define UT_ET_IPV6 0x86dd
#define UT_ET_ARP 0x0806
#define UT_ET_VLAN 0x8100
#define UT_ET_QINQ 0x88a8

#define UT_PROTO_ICMP 1
#define UT_PROTO_TCP 6
#define UT_PROTO_UDP 17
#define UT_PROTO_ICMP6 58

#define UT_ROCE_PORT 4791

/* What to build: Ethernet [/ 802.1Q] / IPv4 | IPv6 / L4 [/ BTH [/ AETH]] / payload [/ ICRC]. */
struct ut_spec {
	bool tagged; /* one 802.1Q tag carrying tci */
	uint16_t tci;
	int family; /* 4 (also 0) or 6 */
	uint8_t tos; /* DSCP << 2 | ECN */
	uint8_t proto; /* 0 = UDP */
	uint8_t ttl; /* 0 = 64 */
	uint16_t frag; /* IPv4 flags + fragment offset, host order */
	uint8_t ihl; /* IPv4 header words, 0 = 5 */
	uint32_t flow_label; /* IPv6 */
	bool v6_has_ext; /* IPv6: an 8-byte extension header of type v6_ext first */
	uint8_t v6_ext;
	uint16_t sport, dport; /* UDP/TCP; dport 0 = 4791 when roce */
	bool roce; /* UDP carries a BTH with opcode */
	uint8_t opcode;
	uint32_t dqpn, psn;
	uint8_t syndrome; /* AETH syndrome of ACK opcodes */
	uint16_t payload; /* bytes after the transport headers, before the ICRC */
	uint16_t pad_to; /* Ethernet padding up to this frame size */
	uint16_t trailer; /* extra bytes beyond the IP packet (besides padding) */
};

/* A built frame and where the builder put each header. */
struct ut_pkt {
	uint8_t b[UT_PKT_MAX];
	uint32_t len; /* frame bytes */
	uint16_t l3_off, l4_off, bth_off; /* bth_off 0 when no BTH */
	uint16_t ip_len; /* IP header + payload */
	uint16_t udp_len;
};

static inline void
ut_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
ut_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline uint16_t
ut_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
ut_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* RFC 1071 one's complement sum of big-endian 16-bit words, folded, not inverted. */
static inline uint32_t
ut_sum16(uint32_t sum, const uint8_t *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += ut_get16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* The Internet checksum of p[0..len): the value to store, host order. */
static inline uint16_t
ut_csum(const uint8_t *p, uint32_t len)
{
	return (uint16_t)~ut_sum16(0, p, len);
}

/* Recompute the IPv4 header checksum of the header at ip. */
static inline void
ut_ip4_fix_csum(uint8_t *ip)
{
	uint32_t ihl = (uint32_t)(ip[0] & 0xf) * 4;

	ut_put16(ip + 10, 0);
	ut_put16(ip + 10, ut_csum(ip, ihl));
}

/* CRC-32C (Castagnoli, reflected 0x82F63B78), bit by bit; caller picks init / final xor. */
static inline uint32_t
ut_crc32c(uint32_t crc, const uint8_t *p, size_t len)
{
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return crc;
}

/* CRC-32 of IEEE 802.3 as zlib's crc32(0, p, len): reflected 0xEDB88320, init and xorout ~0. */
static inline uint32_t
ut_crc32_ieee(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffffu;
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

/* Deterministic generator for the tests (xorshift64*). */
static inline uint64_t
ut_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

static const uint8_t ut_ip4_src[4] = { 10, 1, 0, 1 };
static const uint8_t ut_ip4_dst[4] = { 10, 2, 0, 2 };
static const uint8_t ut_ip6_src[16] = { 0xfd, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t ut_ip6_dst[16] = { 0xfd, 0x00, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };

static inline int
ut_is_ack(int opcode)
{
	return opcode == 0x11 || opcode == 0x12;
}

/* Build the frame s describes into p. */
static inline void
ut_build(struct ut_pkt *p, const struct ut_spec *s)
{
	uint8_t *b = p->b;
	uint32_t off = 0, l4_bytes = 0, ext = 0, ihl, i;
	uint8_t proto = s->proto ? s->proto : UT_PROTO_UDP;
	uint16_t dport = s->dport;

	memset(p, 0, sizeof(*p));
	if (s->roce && dport == 0)
		dport = UT_ROCE_PORT;
	/* Ethernet: locally administered unicast addresses. */
	memcpy(b, "\x02\x00\x00\x00\x01\xfe", 6);
	memcpy(b + 6, "\x02\x00\x00\x00\x01\x01", 6);
	off = 12;
	if (s->tagged) {
		ut_put16(b + off, UT_ET_VLAN);
		ut_put16(b + off + 2, s->tci);
		off += 4;
	}
	ut_put16(b + off, s->family != 6 ? UT_ET_IPV4 : UT_ET_IPV6);
	off += 2;
	p->l3_off = (uint16_t)off;

	/* L4 size: UDP/TCP header, BTH, AETH (+ AtomicAckETH), payload, ICRC. */
	if (proto == UT_PROTO_UDP) {
		l4_bytes = 8;
		if (s->roce) {
			l4_bytes += 12;
			if (ut_is_ack(s->opcode))
				l4_bytes += s->opcode == 0x12 ? 12 : 4;
			l4_bytes += 4; /* ICRC */
		}
	} else if (proto == UT_PROTO_TCP) {
		l4_bytes = 20;
	}
	l4_bytes += s->payload;

	if (s->family != 6) {
		ihl = s->ihl ? s->ihl : 5;
		b[off] = (uint8_t)(0x40 | ihl);
		b[off + 1] = s->tos;
		ut_put16(b + off + 2, (uint16_t)(ihl * 4 + l4_bytes));
		ut_put16(b + off + 4, 0x1234);
		ut_put16(b + off + 6, s->frag);
		b[off + 8] = s->ttl ? s->ttl : 64;
		b[off + 9] = proto;
		memcpy(b + off + 12, ut_ip4_src, 4);
		memcpy(b + off + 16, ut_ip4_dst, 4);
		for (i = 20; i < ihl * 4; i++)
			b[off + i] = 0x01; /* NOP options */
		ut_ip4_fix_csum(b + off);
		off += ihl * 4;
	} else {
		ext = s->v6_has_ext ? 8 : 0;
		ut_put32(b + off, 6u << 28 | (uint32_t)s->tos << 20 | (s->flow_label & 0xfffff));
		ut_put16(b + off + 4, (uint16_t)(ext + l4_bytes));
		b[off + 6] = s->v6_has_ext ? s->v6_ext : proto;
		b[off + 7] = s->ttl ? s->ttl : 64;
		memcpy(b + off + 8, ut_ip6_src, 16);
		memcpy(b + off + 24, ut_ip6_dst, 16);
		off += 40;
		if (ext) {
			b[off] = proto; /* next header, length 0 = 8 bytes, PadN */
			b[off + 2] = 1;
			b[off + 3] = 4;
			off += 8;
		}
	}
	p->l4_off = (uint16_t)(s->family != 6 ? off : p->l3_off + 40u);
	if (proto == UT_PROTO_UDP) {
		ut_put16(b + off, s->sport);
		ut_put16(b + off + 2, dport);
		ut_put16(b + off + 4, (uint16_t)l4_bytes);
		p->udp_len = (uint16_t)l4_bytes;
		if (s->roce) {
			uint8_t *bth = b + off + 8;

			p->bth_off = (uint16_t)(off + 8);
			bth[0] = (uint8_t)s->opcode;
			ut_put16(bth + 2, 0xffff);
			bth[5] = (uint8_t)(s->dqpn >> 16);
			bth[6] = (uint8_t)(s->dqpn >> 8);
			bth[7] = (uint8_t)s->dqpn;
			bth[9] = (uint8_t)(s->psn >> 16);
			bth[10] = (uint8_t)(s->psn >> 8);
			bth[11] = (uint8_t)s->psn;
			if (ut_is_ack(s->opcode))
				bth[12] = s->syndrome;
		}
	} else if (proto == UT_PROTO_TCP) {
		ut_put16(b + off, s->sport);
		ut_put16(b + off + 2, dport);
		b[off + 12] = 0x50;
	}
	/* Payload: a recognisable pattern. */
	for (i = 0; i < s->payload; i++)
		b[off + l4_bytes - s->payload - (s->roce ? 4 : 0) + i] =
			(uint8_t)(0xa0 + i);
	off += l4_bytes;
	p->ip_len = (uint16_t)(off - p->l3_off);
	for (i = 0; i < s->trailer; i++)
		b[off++] = 0xee;
	while (off < s->pad_to)
		b[off++] = 0;
	p->len = off;
}

/* A copy of p in a heap buffer of exactly len bytes, so ASan flags any over-read. */
static inline uint8_t *
ut_exact_copy(const uint8_t *p, uint32_t len)
{
	uint8_t *b = malloc(len); /* glibc returns a unique pointer for 0 too */

	if (b != NULL && len != 0)
		memcpy(b, p, len);
	return b;
}

#endif /* LONGSPAN_UT_PKT_H */
