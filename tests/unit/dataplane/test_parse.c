/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parser (dataplane/parse.c): every drop reason parse_l2/parse_ip can
 * return, the metadata of good RoCE data/ACK/NAK/CNP frames over IPv4 and
 * IPv6, VLAN handling, fragments, IPv6 extension headers, Ethernet padding,
 * and every good frame truncated at every length. Each parse runs on a heap
 * copy of exactly the frame's size, so an ASan build catches any over-read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dataplane/dp_conf.h"
#include "dataplane/parse.h"
#include "ut_pkt.h"

#define PORT_VLAN 100

/* parse_l2 then, when it passes and the frame is IP, parse_ip: the pipeline's order. */
static enum ls_drop_reason
parse_frame(const uint8_t *frame, uint32_t len, uint16_t port_vlan, struct pkt_meta *m)
{
	uint8_t *b = ut_exact_copy(frame, len);
	enum ls_drop_reason r;
	uint16_t et = 0;

	assert_true(b != NULL || len == 0);
	memset(m, 0xa5, sizeof(*m)); /* fields the parser leaves alone stay poisoned */
	r = parse_l2(b, len, port_vlan, m, &et);
	if (r == LS_DROP_NONE)
		r = parse_ip(b, len, m->l3_off, et, m);
	free(b);
	return r;
}

static void
assert_reason(enum ls_drop_reason got, enum ls_drop_reason want)
{
	if (got != want)
		fail_msg("parser said %s, expected %s", ls_drop_reason_names[got],
			 ls_drop_reason_names[want]);
}

/* ---- good frames ------------------------------------------------------------ */

struct good_case {
	const char *name;
	struct ut_spec s;
	uint16_t port_vlan;
	uint8_t cls; /* enum dp_class */
};

#define V4 .family = 4
#define V6 .family = 6
#define ROCE(op) .roce = true, .opcode = (op)

static const struct good_case good_cases[] = {
	{ "v4 write-only", { V4, .tos = 26 << 2 | 2, .sport = 0xc123, ROCE(0x0a),
			     .dqpn = 0x123456, .psn = 0xabcdef, .payload = 64 }, 0,
	  DP_CLASS_ROCE_DATA },
	{ "v4 send-only", { V4, .tos = 2, .sport = 49152, ROCE(0x04), .dqpn = 1, .psn = 0,
			    .payload = 1 }, 0, DP_CLASS_ROCE_DATA },
	{ "v4 write-first no payload", { V4, .sport = 1, ROCE(0x06), .dqpn = 0xffffff,
					 .psn = 0xffffff }, 0, DP_CLASS_ROCE_DATA },
	{ "v4 UD send", { V4, .sport = 7, ROCE(0x64), .dqpn = 0x10, .payload = 8 }, 0,
	  DP_CLASS_ROCE_DATA },
	{ "v4 ack", { V4, .tos = 48 << 2, .sport = 0xd000, ROCE(0x11), .dqpn = 0x000abc,
		      .psn = 77, .syndrome = 0x1f }, 0, DP_CLASS_ROCE_ACK },
	{ "v4 nak", { V4, .sport = 0xd001, ROCE(0x11), .dqpn = 0x000abd, .psn = 78,
		      .syndrome = 0x60 }, 0, DP_CLASS_ROCE_ACK },
	{ "v4 atomic ack", { V4, .sport = 0xd002, ROCE(0x12), .dqpn = 0x42, .psn = 79 }, 0,
	  DP_CLASS_ROCE_ACK },
	{ "v4 cnp", { V4, .tos = 48 << 2, .sport = 0, ROCE(0x81), .dqpn = 0x00beef,
		      .payload = 16 }, 0, DP_CLASS_ROCE_CNP },
	{ "v4 cnp without padding", { V4, ROCE(0x81), .dqpn = 5 }, 0, DP_CLASS_ROCE_CNP },
	{ "v4 options", { V4, .ihl = 7, .tos = 1, .sport = 0xc000, ROCE(0x0a), .dqpn = 9,
			  .psn = 10, .payload = 32 }, 0, DP_CLASS_ROCE_DATA },
	{ "v4 ihl 15", { V4, .ihl = 15, ROCE(0x11), .dqpn = 9, .psn = 10 }, 0,
	  DP_CLASS_ROCE_ACK },
	{ "v4 DF only", { V4, .frag = 0x4000, .sport = 3, ROCE(0x0a), .dqpn = 3, .psn = 3,
			  .payload = 4 }, 0, DP_CLASS_ROCE_DATA },
	{ "v4 tagged", { V4, .tagged = true, .tci = 3 << 13 | PORT_VLAN, .sport = 0xc001,
			 ROCE(0x0a), .dqpn = 0x010203, .psn = 0x040506, .payload = 100 },
	  PORT_VLAN, DP_CLASS_ROCE_DATA },
	{ "v4 tagged DEI", { V4, .tagged = true, .tci = 1 << 12 | PORT_VLAN, ROCE(0x81),
			     .dqpn = 1, .payload = 16 }, PORT_VLAN, DP_CLASS_ROCE_CNP },
	{ "v4 priority tag", { V4, .tagged = true, .tci = 5 << 13, ROCE(0x11), .dqpn = 4,
			       .psn = 4 }, 0, DP_CLASS_ROCE_ACK },
	{ "v4 udp other port", { V4, .sport = 1234, .dport = 5678, .payload = 10 }, 0,
	  DP_CLASS_OTHER_IP },
	{ "v4 udp empty", { V4, .sport = 1, .dport = 2 }, 0, DP_CLASS_OTHER_IP },
	{ "v4 tcp", { V4, .proto = UT_PROTO_TCP, .sport = 4791, .dport = 4791, .payload = 3 },
	  0, DP_CLASS_OTHER_IP },
	{ "v4 icmp", { V4, .proto = UT_PROTO_ICMP, .payload = 8 }, 0, DP_CLASS_OTHER_IP },
	{ "v4 padded", { V4, .sport = 9, .dport = 10, .payload = 4, .pad_to = 60 }, 0,
	  DP_CLASS_OTHER_IP },
	{ "v4 roce with trailer", { V4, .sport = 9, ROCE(0x11), .dqpn = 8, .psn = 1,
				    .trailer = 9 }, 0, DP_CLASS_ROCE_ACK },
	{ "v6 write-only", { V6, .tos = 26 << 2 | 2, .flow_label = 0xfffff, .sport = 0xc123,
			     ROCE(0x0a), .dqpn = 0x654321, .psn = 0x000001, .payload = 64 }, 0,
	  DP_CLASS_ROCE_DATA },
	{ "v6 ack", { V6, .tos = 0xff, .flow_label = 0x12345, .sport = 0xc124, ROCE(0x11),
		      .dqpn = 0x000111, .psn = 0x222222 }, 0, DP_CLASS_ROCE_ACK },
	{ "v6 nak", { V6, .sport = 0xc125, ROCE(0x11), .dqpn = 0x000112, .psn = 0x222223,
		      .syndrome = 0x60 }, 0, DP_CLASS_ROCE_ACK },
	{ "v6 atomic ack", { V6, .sport = 0xc126, ROCE(0x12), .dqpn = 0x113, .psn = 5 }, 0,
	  DP_CLASS_ROCE_ACK },
	{ "v6 cnp", { V6, .tos = 48 << 2, .sport = 0, ROCE(0x81), .dqpn = 0x00beef,
		      .payload = 16 }, 0, DP_CLASS_ROCE_CNP },
	{ "v6 tagged", { V6, .tagged = true, .tci = PORT_VLAN, .sport = 0xc127, ROCE(0x07),
			 .dqpn = 0x7, .psn = 0x8, .payload = 256 }, PORT_VLAN,
	  DP_CLASS_ROCE_DATA },
	{ "v6 udp other port", { V6, .sport = 53, .dport = 53, .payload = 20 }, 0,
	  DP_CLASS_OTHER_IP },
	{ "v6 tcp", { V6, .proto = UT_PROTO_TCP, .sport = 80, .dport = 8080 }, 0,
	  DP_CLASS_OTHER_IP },
	{ "v6 icmp padded", { V6, .proto = UT_PROTO_ICMP6, .payload = 4, .pad_to = 64 }, 0,
	  DP_CLASS_OTHER_IP },
};

static uint8_t
expected_proto(const struct ut_spec *s)
{
	if (s->family == 6 && s->v6_has_ext)
		return s->v6_ext;
	return s->proto ? s->proto : UT_PROTO_UDP;
}

/* Every meta field a later stage reads, against where the builder put things. */
static void
check_good(const struct good_case *gc, const struct ut_pkt *p, const struct pkt_meta *m)
{
	const struct ut_spec *s = &gc->s;
	uint8_t proto = expected_proto(s);
	bool l4_ports = (proto == UT_PROTO_UDP || proto == UT_PROTO_TCP) && !(s->frag & 0x1fff);

	assert_int_equal(m->l3_off, p->l3_off);
	assert_int_equal(m->l3_off, s->tagged ? 18 : 14);
	assert_int_equal(m->vlan, s->tagged ? (s->tci & 0xfff) : 0);
	assert_int_equal(m->l3, s->family == 6 ? PKT_L3_IP6 : PKT_L3_IP4);
	assert_int_equal(m->ip_len, p->ip_len);
	assert_true((uint32_t)m->l3_off + m->ip_len <= p->len);
	assert_int_equal(m->l4_off, p->l4_off);
	assert_int_equal(m->proto, proto);
	assert_int_equal(m->tos, s->tos);
	assert_int_equal(m->cls, gc->cls);
	assert_int_equal(m->first_frag, 1);
	assert_int_equal(m->fragmented, 0);
	assert_int_equal(m->sport, l4_ports ? s->sport : 0);
	assert_int_equal(m->dport, l4_ports ? (s->roce && !s->dport ? 4791 : s->dport) : 0);
	if (gc->cls <= DP_CLASS_ROCE_CNP) {
		assert_int_equal(m->bth_off, p->bth_off);
		assert_int_equal(m->bth_off, m->l4_off + 8);
		assert_int_equal(m->opcode, s->opcode);
		assert_int_equal(m->dqpn, s->dqpn);
		assert_int_equal(m->psn, s->psn);
	} else {
		assert_int_equal(m->bth_off, 0);
	}
}

static void
test_good_frames(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good_cases) / sizeof(good_cases[0]); i++) {
		const struct good_case *gc = &good_cases[i];
		struct ut_pkt p;
		struct pkt_meta m;
		enum ls_drop_reason r;

		ut_build(&p, &gc->s);
		r = parse_frame(p.b, p.len, gc->port_vlan, &m);
		if (r != LS_DROP_NONE)
			fail_msg("%s: dropped as %s", gc->name, ls_drop_reason_names[r]);
		check_good(gc, &p, &m);
	}
}

/* ---- VLAN ------------------------------------------------------------------- */

static void
test_vlan(void **state)
{
	struct ut_spec s = { V4, ROCE(0x0a), .sport = 1, .dqpn = 2, .psn = 3 };
	struct ut_pkt p;
	struct pkt_meta m;

	(void)state;
	/* Untagged on an untagged port; untagged on a tagged port. */
	ut_build(&p, &s);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
	assert_int_equal(m.vlan, 0);
	assert_reason(parse_frame(p.b, p.len, PORT_VLAN, &m), LS_DROP_VLAN_MISMATCH);

	/* Tag = port VLAN passes whatever PCP/DEI say; another VID or an untagged port drops. */
	s.tagged = true;
	s.tci = 7 << 13 | 1 << 12 | PORT_VLAN;
	ut_build(&p, &s);
	assert_reason(parse_frame(p.b, p.len, PORT_VLAN, &m), LS_DROP_NONE);
	assert_int_equal(m.vlan, PORT_VLAN);
	assert_int_equal(m.l3_off, 18);
	assert_reason(parse_frame(p.b, p.len, PORT_VLAN + 1, &m), LS_DROP_VLAN_MISMATCH);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_VLAN_MISMATCH);
	s.tci = PORT_VLAN + 1;
	ut_build(&p, &s);
	assert_reason(parse_frame(p.b, p.len, PORT_VLAN, &m), LS_DROP_VLAN_MISMATCH);
	/* VID 4095 is kept to 12 bits. */
	s.tci = 0xffff;
	ut_build(&p, &s);
	assert_reason(parse_frame(p.b, p.len, 0xfff, &m), LS_DROP_NONE);
	assert_int_equal(m.vlan, 0xfff);

	/* A priority tag (VID 0, PCP set) is untagged traffic: fine on an untagged port only. */
	s.tci = 6 << 13;
	ut_build(&p, &s);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
	assert_int_equal(m.vlan, 0);
	assert_int_equal(m.l3_off, 18);
	assert_int_equal(m.cls, DP_CLASS_ROCE_DATA);
	assert_reason(parse_frame(p.b, p.len, PORT_VLAN, &m), LS_DROP_VLAN_MISMATCH);
}

static void
test_vlan_drops(void **state)
{
	struct ut_spec s = { V4, .tagged = true, .tci = PORT_VLAN, ROCE(0x0a) };
	struct ut_pkt p;
	struct pkt_meta m;
	uint32_t len;

	(void)state;
	ut_build(&p, &s);
	/* The tag itself cut short. */
	for (len = 14; len < 18; len++)
		assert_reason(parse_frame(p.b, len, PORT_VLAN, &m), LS_DROP_VLAN_TRUNC);
	/* Ethernet header cut short. */
	for (len = 0; len < 14; len++)
		assert_reason(parse_frame(p.b, len, PORT_VLAN, &m), LS_DROP_ETH_TRUNC);
	/* Two tags, 802.1Q or 802.1ad inside, or an 802.1ad outer tag. */
	ut_put16(p.b + 16, UT_ET_VLAN);
	assert_reason(parse_frame(p.b, p.len, PORT_VLAN, &m), LS_DROP_VLAN_STACKED);
	ut_put16(p.b + 16, UT_ET_QINQ);
	assert_reason(parse_frame(p.b, p.len, PORT_VLAN, &m), LS_DROP_VLAN_STACKED);
	ut_build(&p, &s);
	ut_put16(p.b + 12, UT_ET_QINQ);
	assert_reason(parse_frame(p.b, p.len, PORT_VLAN, &m), LS_DROP_VLAN_STACKED);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_VLAN_STACKED);
	/* An 802.1ad tag alone, cut after the EtherType, is still stacked, not a read. */
	assert_reason(parse_frame(p.b, 14, 0, &m), LS_DROP_VLAN_STACKED);
}

/* ---- Ethernet / EtherType ------------------------------------------------------ */

static void
test_ethertype(void **state)
{
	struct ut_spec s = { V4, .proto = UT_PROTO_ICMP, .payload = 28 };
	struct ut_pkt p;
	struct pkt_meta m;
	uint16_t et = 0;
	uint8_t *b;

	(void)state;
	ut_build(&p, &s);
	/* ARP passes L2 (the pipeline punts it) but is no IP. */
	ut_put16(p.b + 12, UT_ET_ARP);
	b = ut_exact_copy(p.b, p.len);
	assert_reason(parse_l2(b, p.len, 0, &m, &et), LS_DROP_NONE);
	assert_int_equal(et, UT_ET_ARP);
	assert_int_equal(m.l3_off, 14);
	free(b);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_ETHERTYPE);
	/* LLDP, an 802.3 length field and zero. */
	ut_put16(p.b + 12, 0x88cc);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_ETHERTYPE);
	ut_put16(p.b + 12, 0x0040);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_ETHERTYPE);
	ut_put16(p.b + 12, 0);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_ETHERTYPE);
	/* A bare Ethernet header is a valid L2 frame with nothing in it. */
	ut_put16(p.b + 12, UT_ET_IPV4);
	assert_reason(parse_frame(p.b, 14, 0, &m), LS_DROP_IP4_TRUNC);
	ut_put16(p.b + 12, UT_ET_IPV6);
	assert_reason(parse_frame(p.b, 14, 0, &m), LS_DROP_IP6_TRUNC);
	/* Tagged ARP: the inner EtherType is what counts. */
	s.tagged = true;
	s.tci = PORT_VLAN;
	ut_build(&p, &s);
	ut_put16(p.b + 16, UT_ET_ARP);
	assert_reason(parse_frame(p.b, p.len, PORT_VLAN, &m), LS_DROP_ETHERTYPE);
	/* parse_ip with an off beyond the buffer: a truncation, never a read. */
	ut_build(&p, &(struct ut_spec){ V4 });
	b = ut_exact_copy(p.b, p.len);
	assert_reason(parse_ip(b, p.len, (uint16_t)(p.len + 100), UT_ET_IPV4, &m),
		      LS_DROP_IP4_TRUNC);
	assert_reason(parse_ip(b, p.len, (uint16_t)(p.len + 100), UT_ET_IPV6, &m),
		      LS_DROP_IP6_TRUNC);
	free(b);
}

/* ---- IPv4 ------------------------------------------------------------------------ */

static void
test_ipv4_drops(void **state)
{
	struct ut_spec s = { V4, .sport = 1, ROCE(0x0a), .dqpn = 1, .payload = 8 };
	struct ut_pkt p;
	struct pkt_meta m;
	uint8_t *ip;
	uint32_t len;

	(void)state;
	ut_build(&p, &s);
	ip = p.b + 14;
	for (len = 14; len < 34; len++)
		assert_reason(parse_frame(p.b, len, 0, &m), LS_DROP_IP4_TRUNC);

	/* Version. */
	ip[0] = 0x65;
	ut_ip4_fix_csum(ip);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP4_VERSION);
	ip[0] = 0x05;
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP4_VERSION);
	ip[0] = 0xf5;
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP4_VERSION);

	/* IHL below five words. */
	for (ip[0] = 0x40; ip[0] < 0x45; ip[0]++)
		assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP4_IHL);

	/* Options that run past the frame. */
	ut_build(&p, &(struct ut_spec){ V4, .ihl = 15 });
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
	for (len = 34; len < 14 + 60; len++)
		assert_reason(parse_frame(p.b, len, 0, &m), LS_DROP_IP4_TRUNC);

	/* Total length below the header, or beyond the frame. */
	ut_build(&p, &s);
	ip = p.b + 14;
	ut_put16(ip + 2, 19);
	ut_ip4_fix_csum(ip);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP4_LEN);
	ut_put16(ip + 2, 0);
	ut_ip4_fix_csum(ip);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP4_LEN);
	ut_put16(ip + 2, (uint16_t)(p.len - 14 + 1));
	ut_ip4_fix_csum(ip);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP4_LEN);
	ut_put16(ip + 2, 0xffff);
	ut_ip4_fix_csum(ip);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP4_LEN);
	ut_build(&p, &(struct ut_spec){ V4, .ihl = 6, .payload = 4 });
	ip = p.b + 14;
	ut_put16(ip + 2, 20); /* covers the fixed header but not the options */
	ut_ip4_fix_csum(ip);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP4_LEN);
	ut_put16(ip + 2, 24); /* header only: no room for the UDP header */
	ut_ip4_fix_csum(ip);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_UDP_TRUNC);

	/* Checksum: a wrong field, a changed header byte, options covered too. */
	ut_build(&p, &s);
	ip = p.b + 14;
	ip[10] ^= 0x01;
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP4_CSUM);
	ut_build(&p, &s);
	ip[8]--; /* TTL decremented without the checksum update */
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP4_CSUM);
	ut_build(&p, &(struct ut_spec){ V4, .ihl = 6 });
	ip[22] ^= 0x80;
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP4_CSUM);
}

/* ---- IPv6 ------------------------------------------------------------------------ */

static void
test_ipv6_drops(void **state)
{
	struct ut_spec s = { V6, .sport = 1, ROCE(0x0a), .dqpn = 1, .payload = 8 };
	struct ut_pkt p;
	struct pkt_meta m;
	uint8_t *ip;
	uint32_t len;

	(void)state;
	ut_build(&p, &s);
	ip = p.b + 14;
	for (len = 14; len < 54; len++)
		assert_reason(parse_frame(p.b, len, 0, &m), LS_DROP_IP6_TRUNC);
	ip[0] = 0x40;
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP6_VERSION);
	ip[0] = 0x00;
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP6_VERSION);
	ip[0] = 0x7f;
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP6_VERSION);
	ut_build(&p, &s);
	ut_put16(ip + 4, (uint16_t)(p.len - 54 + 1));
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP6_LEN);
	ut_put16(ip + 4, 0xffff);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_IP6_LEN);
	/* Payload length 0 (a jumbogram or nothing): no room for UDP. */
	ut_put16(ip + 4, 0);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_UDP_TRUNC);
}

/* ---- UDP / BTH / AETH ------------------------------------------------------------- */

/* Build s, then set the IP payload length to ip_payload and the UDP length to udp_len. */
static enum ls_drop_reason
parse_with_lengths(const struct ut_spec *s, int ip_payload, int udp_len, struct pkt_meta *m)
{
	struct ut_pkt p;
	uint8_t *ip;

	ut_build(&p, s);
	ip = p.b + p.l3_off;
	if (udp_len >= 0)
		ut_put16(p.b + p.l4_off + 4, (uint16_t)udp_len);
	if (ip_payload >= 0) {
		if (s->family == 6) {
			ut_put16(ip + 4, (uint16_t)ip_payload);
		} else {
			ut_put16(ip + 2, (uint16_t)(20 + ip_payload));
			ut_ip4_fix_csum(ip);
		}
	}
	return parse_frame(p.b, p.len, 0, m);
}

static void
test_udp_bth_aeth_drops(void **state)
{
	static const int families[] = { 4, 6 };
	struct pkt_meta m;
	size_t f;
	int n;

	(void)state;
	for (f = 0; f < 2; f++) {
		struct ut_spec data = { .family = families[f], .sport = 1, ROCE(0x0a), .dqpn = 1,
					.payload = 8 };
		struct ut_spec ack = { .family = families[f], .sport = 1, ROCE(0x11), .dqpn = 1 };
		struct ut_spec aack = { .family = families[f], .sport = 1, ROCE(0x12), .dqpn = 1 };
		struct ut_spec cnp = { .family = families[f], .sport = 1, ROCE(0x81), .dqpn = 1,
				       .payload = 16 };
		struct ut_spec udp = { .family = families[f], .sport = 1, .dport = 2, .payload = 8 };

		/* UDP header cut short by the IP length. */
		for (n = 0; n < 8; n++)
			assert_reason(parse_with_lengths(&udp, n, -1, &m), LS_DROP_UDP_TRUNC);
		for (n = 0; n < 8; n++)
			assert_reason(parse_with_lengths(&data, n, -1, &m), LS_DROP_UDP_TRUNC);
		/* UDP length below its header or beyond the IP payload. */
		for (n = 0; n < 8; n++)
			assert_reason(parse_with_lengths(&udp, -1, n, &m), LS_DROP_UDP_LEN);
		assert_reason(parse_with_lengths(&udp, -1, 8 + 8 + 1, &m), LS_DROP_UDP_LEN);
		assert_reason(parse_with_lengths(&udp, -1, 0xffff, &m), LS_DROP_UDP_LEN);
		/* UDP shorter than the IP payload: the datagram is what UDP says. */
		assert_reason(parse_with_lengths(&udp, -1, 8, &m), LS_DROP_NONE);
		assert_int_equal(m.cls, DP_CLASS_OTHER_IP);
		/* The IP payload cuts the datagram short: UDP length too long. */
		assert_reason(parse_with_lengths(&data, 8 + 12 + 4 + 7, -1, &m), LS_DROP_UDP_LEN);

		/* BTH: shorter than 12 bytes, or no room for the ICRC, for every opcode class. */
		for (n = 8; n < 8 + 12; n++) {
			assert_reason(parse_with_lengths(&data, -1, n, &m), LS_DROP_BTH_TRUNC);
			assert_reason(parse_with_lengths(&cnp, -1, n, &m), LS_DROP_BTH_TRUNC);
		}
		for (n = 8 + 12; n < 8 + 12 + 4; n++) {
			assert_reason(parse_with_lengths(&data, -1, n, &m), LS_DROP_BTH_TRUNC);
			assert_reason(parse_with_lengths(&cnp, -1, n, &m), LS_DROP_BTH_TRUNC);
		}
		assert_reason(parse_with_lengths(&data, -1, 8 + 12 + 4, &m), LS_DROP_NONE);
		assert_int_equal(m.cls, DP_CLASS_ROCE_DATA);
		assert_reason(parse_with_lengths(&cnp, -1, 8 + 12 + 4, &m), LS_DROP_NONE);
		assert_int_equal(m.cls, DP_CLASS_ROCE_CNP);

		/* ACK and atomic ACK need BTH + AETH + ICRC. */
		for (n = 8; n < 8 + 12; n++)
			assert_reason(parse_with_lengths(&ack, -1, n, &m), LS_DROP_BTH_TRUNC);
		for (n = 8 + 12; n < 8 + 12 + 4 + 4; n++) {
			assert_reason(parse_with_lengths(&ack, -1, n, &m), LS_DROP_AETH_TRUNC);
			assert_reason(parse_with_lengths(&aack, -1, n, &m), LS_DROP_AETH_TRUNC);
		}
		assert_reason(parse_with_lengths(&ack, -1, 8 + 12 + 4 + 4, &m), LS_DROP_NONE);
		assert_int_equal(m.cls, DP_CLASS_ROCE_ACK);
		assert_reason(parse_with_lengths(&aack, -1, 8 + 12 + 4 + 4, &m), LS_DROP_NONE);
		assert_int_equal(m.cls, DP_CLASS_ROCE_ACK);
	}
}

/* ---- fragments --------------------------------------------------------------------- */

static void
test_fragments(void **state)
{
	struct ut_spec first = { V4, .frag = 0x2000, .sport = 0xc0de, ROCE(0x0a), .dqpn = 1,
				 .payload = 64 };
	struct ut_spec later = { V4, .frag = 185, .sport = 0xc0de, ROCE(0x0a), .payload = 64 };
	struct ut_pkt p;
	struct pkt_meta m;

	(void)state;
	/* First fragment: ports for the hash, no BTH, other IP, even with a UDP length past it. */
	ut_build(&p, &first);
	ut_put16(p.b + p.l4_off + 4, 3000);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
	assert_int_equal(m.cls, DP_CLASS_OTHER_IP);
	assert_int_equal(m.first_frag, 1);
	assert_int_equal(m.fragmented, 1);
	assert_int_equal(m.sport, 0xc0de);
	assert_int_equal(m.dport, 4791);
	assert_int_equal(m.bth_off, 0);
	assert_int_equal(m.l4_off, 34);
	assert_int_equal(m.ip_len, p.ip_len);
	/* With DF too. */
	ut_put16(p.b + 14 + 6, 0x6000);
	ut_ip4_fix_csum(p.b + 14);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
	assert_int_equal(m.fragmented, 1);
	/* A first fragment too short for ports: forwarded, ports zero. */
	ut_put16(p.b + 14 + 2, 20 + 3);
	ut_ip4_fix_csum(p.b + 14);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
	assert_int_equal(m.sport, 0);
	assert_int_equal(m.dport, 0);
	assert_int_equal(m.cls, DP_CLASS_OTHER_IP);
	ut_put16(p.b + 14 + 2, 20 + 4);
	ut_ip4_fix_csum(p.b + 14);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
	assert_int_equal(m.sport, 0xc0de);
	/* A first TCP fragment keeps its ports too. */
	ut_build(&p, &(struct ut_spec){ V4, .proto = UT_PROTO_TCP, .frag = 0x2000, .sport = 22,
				       .dport = 2222 });
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
	assert_int_equal(m.sport, 22);
	assert_int_equal(m.dport, 2222);

	/* Later fragments: no L4 at all, whatever the bytes look like. */
	ut_build(&p, &later);
	ut_put16(p.b + p.l4_off + 4, 1); /* would be udp_bad_length in a first fragment */
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
	assert_int_equal(m.first_frag, 0);
	assert_int_equal(m.fragmented, 1);
	assert_int_equal(m.sport, 0);
	assert_int_equal(m.dport, 0);
	assert_int_equal(m.bth_off, 0);
	assert_int_equal(m.cls, DP_CLASS_OTHER_IP);
	assert_int_equal(m.proto, UT_PROTO_UDP);
	/* The last fragment (MF clear, offset set) and one with MF and offset. */
	ut_put16(p.b + 14 + 6, 0x2001);
	ut_ip4_fix_csum(p.b + 14);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
	assert_int_equal(m.first_frag, 0);
	assert_int_equal(m.fragmented, 1);
	/* A later fragment with an IP payload of a single byte. */
	ut_put16(p.b + 14 + 2, 21);
	ut_ip4_fix_csum(p.b + 14);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
	assert_int_equal(m.cls, DP_CLASS_OTHER_IP);
	ut_put16(p.b + 14 + 2, 20);
	ut_ip4_fix_csum(p.b + 14);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
}

/* ---- IPv6 extension headers ---------------------------------------------------------- */

static void
test_ipv6_extension_headers(void **state)
{
	static const uint8_t ext[] = { 0 /* hop-by-hop */, 43 /* routing */, 44 /* fragment */,
				       60 /* destination options */ };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ext); i++) {
		struct ut_spec s = { V6, .v6_has_ext = true, .v6_ext = ext[i], .tos = 2, .sport = 0xc000, ROCE(0x0a),
				     .dqpn = 1, .payload = 16 };
		struct ut_pkt p;
		struct pkt_meta m;

		ut_build(&p, &s);
		/* Forwarded untouched as other IP: the UDP behind it is not looked at. */
		assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
		assert_int_equal(m.l3, PKT_L3_IP6);
		assert_int_equal(m.proto, ext[i]);
		assert_int_equal(m.cls, DP_CLASS_OTHER_IP);
		assert_int_equal(m.bth_off, 0);
		assert_int_equal(m.sport, 0);
		assert_int_equal(m.dport, 0);
		assert_int_equal(m.l4_off, 14 + 40);
		assert_int_equal(m.ip_len, p.ip_len);
		assert_int_equal(m.tos, 2);
		assert_int_equal(m.first_frag, 1);
		assert_int_equal(m.fragmented, 0);
		/* Even an empty one. */
		ut_put16(p.b + 18, 0);
		assert_reason(parse_frame(p.b, 54, 0, &m), LS_DROP_NONE);
		assert_int_equal(m.ip_len, 40);
	}
}

/* ---- Ethernet padding ------------------------------------------------------------------ */

static void
test_padding(void **state)
{
	struct ut_pkt p;
	struct pkt_meta m;

	(void)state;
	/* A 60-byte minimum frame around a 32-byte IPv4 packet. */
	ut_build(&p, &(struct ut_spec){ V4, .sport = 5, .dport = 6, .payload = 4, .pad_to = 60 });
	assert_int_equal(p.len, 60);
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
	assert_int_equal(m.ip_len, 32);
	assert_true(m.l3_off + m.ip_len < p.len);
	assert_int_equal(m.sport, 5);
	/* A tagged RoCE ACK with padding up to 80 bytes and non-zero trailer bytes. */
	ut_build(&p, &(struct ut_spec){ V4, .tagged = true, .tci = PORT_VLAN, ROCE(0x11),
				       .dqpn = 3, .psn = 4, .trailer = 4, .pad_to = 80 });
	assert_reason(parse_frame(p.b, p.len, PORT_VLAN, &m), LS_DROP_NONE);
	assert_int_equal(m.ip_len, 20 + 8 + 12 + 4 + 4);
	assert_int_equal(m.cls, DP_CLASS_ROCE_ACK);
	/* IPv6 with padding. */
	ut_build(&p, &(struct ut_spec){ V6, .proto = UT_PROTO_ICMP6, .payload = 4, .pad_to = 64 });
	assert_reason(parse_frame(p.b, p.len, 0, &m), LS_DROP_NONE);
	assert_int_equal(m.ip_len, 44);
	assert_int_equal(p.len, 64);
}

/* ---- truncation at every length ---------------------------------------------------------- */

static void
check_bounds(const struct pkt_meta *m, uint32_t len)
{
	assert_true(m->l3_off <= len);
	assert_true((uint32_t)m->l3_off + m->ip_len <= len);
	assert_true(m->l4_off <= (uint32_t)m->l3_off + m->ip_len);
	if (m->bth_off != 0)
		assert_true((uint32_t)m->bth_off + 12 + 4 <= (uint32_t)m->l3_off + m->ip_len);
	assert_true(m->cls < DP_CLASS_MAX);
}

static void
test_truncate_everywhere(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good_cases) / sizeof(good_cases[0]); i++) {
		const struct good_case *gc = &good_cases[i];
		struct ut_pkt p;
		struct pkt_meta full, m;
		uint32_t len, need;

		ut_build(&p, &gc->s);
		assert_reason(parse_frame(p.b, p.len, gc->port_vlan, &full), LS_DROP_NONE);
		need = (uint32_t)full.l3_off + full.ip_len;
		for (len = 0; len <= p.len; len++) {
			enum ls_drop_reason r = parse_frame(p.b, len, gc->port_vlan, &m);

			if (len < need) {
				/* Cutting into the IP packet is always a drop. */
				if (r == LS_DROP_NONE)
					fail_msg("%s cut to %u of %u bytes was accepted", gc->name,
						 len, p.len);
				assert_true(r < LS_DROP_MAX);
			} else {
				/* Cutting padding or trailer only: same verdict, same meta. */
				assert_reason(r, LS_DROP_NONE);
				check_bounds(&m, len);
				assert_memory_equal(&m, &full, sizeof(m));
			}
		}
	}
}

/* Random byte changes to good frames: never a verdict that points beyond the frame. */
static void
test_mutations(void **state)
{
	uint64_t seed = 0x5eed;
	unsigned int iter, accepted = 0;

	(void)state;
	for (iter = 0; iter < 40000; iter++) {
		const struct good_case *gc =
			&good_cases[ut_rand(&seed) % (sizeof(good_cases) / sizeof(good_cases[0]))];
		struct ut_pkt p;
		struct pkt_meta m;
		enum ls_drop_reason r;
		unsigned int k, n = 1 + ut_rand(&seed) % 4;
		uint32_t len;

		ut_build(&p, &gc->s);
		for (k = 0; k < n; k++)
			p.b[ut_rand(&seed) % p.len] ^= (uint8_t)(1u << (ut_rand(&seed) % 8));
		if (ut_rand(&seed) & 1)
			ut_ip4_fix_csum(p.b + p.l3_off); /* let some through the checksum */
		len = (ut_rand(&seed) & 3) == 0 ? (uint32_t)(ut_rand(&seed) % (p.len + 1)) : p.len;
		r = parse_frame(p.b, len, gc->port_vlan, &m);
		assert_true(r < LS_DROP_MAX);
		if (r == LS_DROP_NONE) {
			accepted++;
			check_bounds(&m, len);
		}
	}
	assert_true(accepted > 1000);
}

/*
 * The one-pass parser must agree with the general one: whenever it accepts
 * a frame, the general parser accepts it too with the same metadata. Good
 * frames, every truncation, and random mutations.
 */
static void
fast_agrees(const uint8_t *b, uint32_t len, unsigned int *accepted)
{
	struct pkt_meta fast, slow;

	memset(&fast, 0, sizeof(fast));
	memset(&slow, 0, sizeof(slow));
	if (!parse_roce4_fast(b, len, &fast))
		return;
	(*accepted)++;
	assert_reason(parse_frame(b, len, 0, &slow), LS_DROP_NONE);
	check_bounds(&fast, len);
	/* Field by field: the padding of the two structs differs. */
	assert_int_equal(fast.l3_off, slow.l3_off);
	assert_int_equal(fast.l4_off, slow.l4_off);
	assert_int_equal(fast.ip_len, slow.ip_len);
	assert_int_equal(fast.vlan, slow.vlan);
	assert_int_equal(fast.l3, slow.l3);
	assert_int_equal(fast.proto, slow.proto);
	assert_int_equal(fast.tos, slow.tos);
	assert_int_equal(fast.cls, slow.cls);
	assert_int_equal(fast.first_frag, slow.first_frag);
	assert_int_equal(fast.fragmented, slow.fragmented);
	assert_int_equal(fast.opcode, slow.opcode);
	assert_int_equal(fast.sport, slow.sport);
	assert_int_equal(fast.dport, slow.dport);
	assert_int_equal(fast.bth_off, slow.bth_off);
	assert_int_equal(fast.dqpn, slow.dqpn);
	assert_int_equal(fast.psn, slow.psn);
}

static void
test_fast_path_agrees(void **state)
{
	uint64_t seed = 0xfa57;
	unsigned int accepted = 0, iter;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good_cases) / sizeof(good_cases[0]); i++) {
		struct ut_pkt p;
		uint32_t len;

		ut_build(&p, &good_cases[i].s);
		for (len = 0; len <= p.len; len++)
			fast_agrees(p.b, len, &accepted);
	}
	for (iter = 0; iter < 40000; iter++) {
		const struct good_case *gc =
			&good_cases[ut_rand(&seed) % (sizeof(good_cases) / sizeof(good_cases[0]))];
		struct ut_pkt p;
		unsigned int k, n = 1 + ut_rand(&seed) % 3;

		ut_build(&p, &gc->s);
		for (k = 0; k < n; k++)
			p.b[ut_rand(&seed) % p.len] ^= (uint8_t)(1u << (ut_rand(&seed) % 8));
		if (ut_rand(&seed) & 1)
			ut_ip4_fix_csum(p.b + p.l3_off);
		fast_agrees(p.b, p.len, &accepted);
	}
	/* The good IPv4 RoCE frames (and many mutants) take the fast path. */
	assert_true(accepted > 100);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_path_agrees),
		cmocka_unit_test(test_good_frames),
		cmocka_unit_test(test_vlan),
		cmocka_unit_test(test_vlan_drops),
		cmocka_unit_test(test_ethertype),
		cmocka_unit_test(test_ipv4_drops),
		cmocka_unit_test(test_ipv6_drops),
		cmocka_unit_test(test_udp_bth_aeth_drops),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_ipv6_extension_headers),
		cmocka_unit_test(test_padding),
		cmocka_unit_test(test_truncate_everywhere),
		cmocka_unit_test(test_mutations),
	};

	return cmocka_run_group_tests_name("dataplane_parse", tests, NULL, NULL);
}
