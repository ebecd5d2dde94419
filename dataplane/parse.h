/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PARSE_H
#define LONGSPAN_PARSE_H

/*
 * Parser stage: Ethernet [/ 802.1Q] / IPv4 | IPv6 [/ UDP [/ BTH [/ AETH]]]
 * and ARP. Reads only bytes the frame holds (checked against data_len of a
 * single-segment mbuf) and returns a drop reason instead of ever reading
 * past the packet. Fills a struct pkt_meta that the later stages use.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "bits.h"
#include "dp_conf.h"
#include "drop_reason.h"
#include "roce.h"

struct rte_mbuf;

enum pkt_l3 {
	PKT_L3_NONE = 0,
	PKT_L3_IP4,
	PKT_L3_IP6,
	PKT_L3_ARP,
};

/* Offsets are from the start of the frame, bytes; ports are host order. */
struct pkt_meta {
	uint16_t l3_off; /* after Ethernet and VLAN */
	uint16_t l4_off; /* after the IP header; 0 when there is no L4 */
	uint16_t ip_len; /* IPv4 total length or 40 + IPv6 payload length */
	uint16_t vlan; /* VLAN id of the tag, 0 when untagged */
	uint8_t l3; /* enum pkt_l3 */
	uint8_t proto; /* IP protocol / IPv6 next header */
	uint8_t tos; /* DSCP << 2 | ECN */
	uint8_t cls; /* enum dp_class */
	uint8_t first_frag; /* L4 header present (not a non-first fragment) */
	uint8_t fragmented; /* IPv4 fragment (MF set or offset non-zero) */
	uint8_t opcode; /* BTH opcode when cls is a RoCE class */
	uint16_t sport, dport;
	uint16_t bth_off; /* offset of the BTH, 0 when not RoCE */
	uint32_t dqpn; /* BTH destination QP */
	uint32_t psn;
};

/* Parse the L2 header. port_vlan = the port's VLAN (0 = untagged). */
enum ls_drop_reason parse_l2(const uint8_t *p, uint32_t len, uint16_t port_vlan,
			     struct pkt_meta *meta, uint16_t *ether_type);

/*
 * Parse an IP packet starting at off (meta->l3_off is set to off), classify
 * it and, for UDP to 4791, the BTH. len is the number of valid bytes in the
 * buffer. On success meta->ip_len bytes from off are the IP packet (any
 * Ethernet padding beyond it is for the caller to trim).
 */
enum ls_drop_reason parse_ip(const uint8_t *p, uint32_t len, uint16_t off, uint16_t ether_type,
			     struct pkt_meta *meta);

/*
 * One pass for the common packet: untagged Ethernet / IPv4 without options
 * or fragmentation / UDP to 4791 / BTH (and AETH for an ACK), lengths and
 * header checksum right. Fills meta exactly as parse_l2() + parse_ip()
 * would and returns true; returns false, touching nothing the general
 * parser needs, for anything else (the caller then runs the general one,
 * which also names the drop reason of a malformed packet).
 */
/* Inline: called once per packet on the fast path. */
static inline bool
parse_roce4_fast(const uint8_t *p, uint32_t len, struct pkt_meta *meta)
{
	/* Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4. */
	static const uint32_t min_len = 14 + 20 + 8 + 12 + ROCE_ICRC_SIZE;
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + 14);
	const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(p + 34);
	const struct roce_bth *bth = (const struct roce_bth *)(p + 42);
	uint64_t q0, q1, sum;
	uint32_t w4;
	uint16_t tot, ulen;
	uint8_t op;

	if (len < min_len || p[12] != 0x08 || p[13] != 0x00 || ip->version_ihl != 0x45 ||
	    ip->next_proto_id != IPPROTO_UDP ||
	    (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK |
						     RTE_IPV4_HDR_MF_FLAG)) != 0 ||
	    udp->dst_port != rte_cpu_to_be_16(ROCE_UDP_PORT))
		return false;
	tot = dp_ntohs(ip->total_length);
	ulen = dp_ntohs(udp->dgram_len);
	op = bth->opcode;
	if (14u + tot > len || ulen != tot - 20u ||
	    ulen < sizeof(*udp) + sizeof(*bth) + ROCE_ICRC_SIZE +
			   ((op == ROCE_OP_RC_ACK || op == ROCE_OP_RC_ATOMIC_ACK) ?
				    sizeof(struct roce_aeth) : 0))
		return false;
	/*
	 * Header checksum: a right header sums to 0xffff (ones' complement).
	 * Two 64-bit words and a 32-bit one with end-around carries (2^32 and
	 * 2^64 are 1 modulo 0xffff, so the fold below ends at the same value
	 * as a sum of the 16-bit words): three loads straight into registers.
	 */
	memcpy(&q0, ip, 8);
	memcpy(&q1, (const uint8_t *)ip + 8, 8);
	memcpy(&w4, (const uint8_t *)ip + 16, 4);
	sum = q0 + q1;
	sum += sum < q0;
	sum += w4;
	sum += sum < w4;
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	if (sum != 0xffff)
		return false;
	meta->l3_off = 14;
	meta->l4_off = 34;
	meta->ip_len = tot;
	meta->vlan = 0;
	meta->l3 = PKT_L3_IP4;
	meta->proto = IPPROTO_UDP;
	meta->tos = ip->type_of_service;
	meta->first_frag = 1;
	meta->fragmented = 0;
	meta->sport = dp_ntohs(udp->src_port);
	meta->dport = ROCE_UDP_PORT;
	meta->bth_off = 42;
	meta->opcode = op;
	meta->dqpn = roce_bth_dqpn(bth);
	meta->psn = roce_bth_psn(bth);
	if (op == ROCE_OP_CNP)
		meta->cls = DP_CLASS_ROCE_CNP;
	else if (op == ROCE_OP_RC_ACK || op == ROCE_OP_RC_ATOMIC_ACK)
		meta->cls = DP_CLASS_ROCE_ACK;
	else
		meta->cls = DP_CLASS_ROCE_DATA;
	return true;
}

#endif /* LONGSPAN_PARSE_H */
