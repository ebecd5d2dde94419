/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the packet parsers on arbitrary bytes, the way the pipeline
 * chains them: parse_l2, parse_ip and, for a UDP datagram to the GENEVE
 * port, geneve_parse and parse_ip of the inner packet (decapsulation);
 * plus geneve_parse straight on the raw bytes.
 *
 * Input: one flags byte, then the frame.
 *   bit 0     the port's VLAN is 100 (else untagged)
 *   bits 2-7  offset for the direct geneve_parse call
 *
 * The frame is copied into a heap buffer of exactly its size, so ASan
 * reports any read past it. Beyond memory safety, each verdict is checked
 * against parse.h and geneve.h: offsets and lengths a later stage will use
 * stay inside the frame, classes come with their headers, fragments carry
 * no transport header. The decapsulation's address and checksum checks
 * (martian.h, csum_udp_ok) run on what the parser accepted.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/csum.h"
#include "dataplane/dp_conf.h"
#include "dataplane/geneve.h"
#include "dataplane/martian.h"
#include "dataplane/parse.h"
#include "fuzz.h"

#define FUZZ_PORT_VLAN 100
#define FUZZ_GENEVE_PORT 6081
#define FUZZ_ROCE_PORT 4791

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* A successful parse_ip verdict on p[0..len). */
static void
check_ip(const uint8_t *p, uint32_t len, uint16_t off, const struct pkt_meta *m)
{
	uint32_t ip_end = (uint32_t)m->l3_off + m->ip_len;
	uint32_t min_hdr = m->l3 == PKT_L3_IP4 ? 20 : 40;

	FUZZ_CHECK(m->l3_off == off);
	FUZZ_CHECK(m->l3 == PKT_L3_IP4 || m->l3 == PKT_L3_IP6);
	FUZZ_CHECK(m->ip_len >= min_hdr);
	FUZZ_CHECK(ip_end <= len);
	FUZZ_CHECK(m->l4_off >= m->l3_off + min_hdr);
	FUZZ_CHECK(m->l4_off <= ip_end);
	FUZZ_CHECK(m->cls == DP_CLASS_ROCE_DATA || m->cls == DP_CLASS_ROCE_ACK ||
		   m->cls == DP_CLASS_ROCE_CNP || m->cls == DP_CLASS_OTHER_IP);
	FUZZ_CHECK(m->first_frag <= 1 && m->fragmented <= 1);
	FUZZ_CHECK(m->first_frag || m->fragmented);
	if (m->l3 == PKT_L3_IP6)
		FUZZ_CHECK(m->first_frag && !m->fragmented);
	if (!m->first_frag)
		FUZZ_CHECK(m->sport == 0 && m->dport == 0);
	if (m->fragmented || m->proto != 17) {
		FUZZ_CHECK(m->cls == DP_CLASS_OTHER_IP);
		FUZZ_CHECK(m->bth_off == 0);
		return;
	}
	/* A whole UDP datagram: its length checked against the IP packet. */
	{
		uint16_t ulen = get16(p + m->l4_off + 4);

		FUZZ_CHECK(m->l4_off + 8u <= ip_end);
		FUZZ_CHECK(ulen >= 8 && m->l4_off + (uint32_t)ulen <= ip_end);
		FUZZ_CHECK(m->sport == get16(p + m->l4_off));
		FUZZ_CHECK(m->dport == get16(p + m->l4_off + 2));
		if (m->dport != FUZZ_ROCE_PORT) {
			FUZZ_CHECK(m->cls == DP_CLASS_OTHER_IP && m->bth_off == 0);
			return;
		}
		/* RoCEv2: BTH and ICRC inside the datagram, AETH too for ACKs. */
		FUZZ_CHECK(m->bth_off == m->l4_off + 8);
		FUZZ_CHECK(8u + 12 + 4 <= ulen);
		FUZZ_CHECK(m->opcode == p[m->bth_off]);
		FUZZ_CHECK(m->dqpn <= 0xffffff && m->psn <= 0xffffff);
		if (m->cls == DP_CLASS_ROCE_ACK)
			FUZZ_CHECK(8u + 12 + 4 + 4 <= ulen);
		if (m->opcode == 0x81)
			FUZZ_CHECK(m->cls == DP_CLASS_ROCE_CNP);
		FUZZ_CHECK(m->cls != DP_CLASS_OTHER_IP);
	}
}

static void
check_geneve(uint32_t off, uint32_t end, enum ls_drop_reason r, const struct geneve_info *gi)
{
	FUZZ_CHECK(r < LS_DROP_MAX);
	if (r != LS_DROP_NONE)
		return;
	FUZZ_CHECK(off + 8 <= end);
	FUZZ_CHECK(gi->inner_off >= off + 8 && gi->inner_off <= end);
	FUZZ_CHECK((gi->inner_off - off) % 4 == 0);
	/* A path probe: a control packet with both Longspan options and nothing after them. */
	if (gi->probe) {
		FUZZ_CHECK(gi->proto == 0 && gi->inner_off == end && gi->has_ls_opt &&
			   gi->has_echo && !gi->control);
		return;
	}
	/* A credit control packet (O = 1) has protocol 0, the option and nothing inside. */
	if (gi->control) {
		FUZZ_CHECK(gi->proto == 0 && gi->has_credit == 1 && gi->inner_off == end);
	} else {
		FUZZ_CHECK(gi->proto == 0x0800 || gi->proto == 0x86dd);
	}
	FUZZ_CHECK(gi->vni <= 0xffffff);
	FUZZ_CHECK(gi->has_ls_opt <= 1);
	FUZZ_CHECK(gi->has_credit <= 1);
	if (gi->has_credit)
		FUZZ_CHECK(gi->credit.priority <= 7 && gi->credit.flags != 0);
}

/* What the WAN stage does with a tunnel packet: GENEVE, then the inner packet. */
static void
fuzz_decap(const uint8_t *p, const struct pkt_meta *m)
{
	uint32_t end = m->l4_off + (uint32_t)get16(p + m->l4_off + 4);
	struct geneve_info gi;
	struct pkt_meta im;
	enum ls_drop_reason r;

	/* The outer checksum over the datagram the parser bounded. */
	if (m->l3 == PKT_L3_IP4)
		(void)csum_udp_ok(p + m->l3_off + 12, p + m->l3_off + 16, 4, p + m->l4_off,
				  (uint16_t)(end - m->l4_off));
	else
		(void)csum_udp_ok(p + m->l3_off + 8, p + m->l3_off + 24, 16, p + m->l4_off,
				  (uint16_t)(end - m->l4_off));
	memset(&gi, 0, sizeof(gi));
	r = geneve_parse(p, m->l4_off + 8u, end, &gi);
	check_geneve(m->l4_off + 8u, end, r, &gi);
	if (r != LS_DROP_NONE || gi.probe || gi.control)
		return;
	memset(&im, 0, sizeof(im));
	r = parse_ip(p, end, gi.inner_off, gi.proto, &im);
	FUZZ_CHECK(r < LS_DROP_MAX);
	if (r != LS_DROP_NONE)
		return;
	check_ip(p, end, gi.inner_off, &im);
	/* The inner addresses the source checks read. */
	if (im.l3 == PKT_L3_IP4)
		(void)(martian4(p + im.l3_off + 12) || martian4(p + im.l3_off + 16));
	else
		(void)(martian6(p + im.l3_off + 8) || martian6(p + im.l3_off + 24));

}

static void
fuzz_frame(const uint8_t *p, uint32_t len, uint16_t port_vlan)
{
	struct pkt_meta m;
	enum ls_drop_reason r;
	uint16_t et = 0;

	memset(&m, 0, sizeof(m));
	r = parse_l2(p, len, port_vlan, &m, &et);
	FUZZ_CHECK(r < LS_DROP_MAX);
	if (r != LS_DROP_NONE)
		return;
	FUZZ_CHECK(m.l3_off == 14 || m.l3_off == 18);
	FUZZ_CHECK(m.l3_off <= len);
	FUZZ_CHECK(m.vlan == port_vlan);
	r = parse_ip(p, len, m.l3_off, et, &m);
	FUZZ_CHECK(r < LS_DROP_MAX);
	if (r != LS_DROP_NONE)
		return;
	check_ip(p, len, m.l3_off, &m);
	if (m.proto == 17 && !m.fragmented && m.dport == FUZZ_GENEVE_PORT)
		fuzz_decap(p, &m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct geneve_info gi;
	uint32_t len, goff;
	uint8_t flags, *p;

	/* A frame is one mbuf segment: data_len is 16 bits. */
	if (size < 1 || size - 1 > UINT16_MAX)
		return 0;
	flags = data[0];
	len = (uint32_t)(size - 1);
	p = malloc(len);
	if (p == NULL && len != 0)
		return 0;
	if (len != 0)
		memcpy(p, data + 1, len);
	fuzz_frame(p, len, (flags & 1) ? FUZZ_PORT_VLAN : 0);
	goff = flags >> 2;
	if (goff > len)
		goff = len;
	memset(&gi, 0, sizeof(gi));
	check_geneve(goff, len, geneve_parse(p, goff, len, &gi), &gi);
	free(p);
	return 0;
}
