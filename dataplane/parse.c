/* SPDX-License-Identifier: BSD-3-Clause */
#include "parse.h"

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "bits.h"
#include "dp_conf.h"
#include "roce.h"

enum ls_drop_reason
parse_l2(const uint8_t *p, uint32_t len, uint16_t port_vlan, struct pkt_meta *meta,
	 uint16_t *ether_type)
{
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)p;
	uint16_t et;
	uint16_t off = sizeof(*eth);

	if (len < sizeof(*eth))
		return LS_DROP_ETH_TRUNC;
	et = rte_be_to_cpu_16(eth->ether_type);
	meta->vlan = 0;
	if (et == RTE_ETHER_TYPE_VLAN) {
		const struct rte_vlan_hdr *vh = (const struct rte_vlan_hdr *)(p + off);

		if (len < off + sizeof(*vh))
			return LS_DROP_VLAN_TRUNC;
		meta->vlan = rte_be_to_cpu_16(vh->vlan_tci) & 0xfff;
		et = rte_be_to_cpu_16(vh->eth_proto);
		off += sizeof(*vh);
		if (et == RTE_ETHER_TYPE_VLAN || et == RTE_ETHER_TYPE_QINQ)
			return LS_DROP_VLAN_STACKED;
	} else if (et == RTE_ETHER_TYPE_QINQ) {
		return LS_DROP_VLAN_STACKED;
	}
	/* A priority tag (VID 0) is accepted on an untagged port. */
	if (meta->vlan != port_vlan)
		return LS_DROP_VLAN_MISMATCH;
	meta->l3_off = off;
	*ether_type = et;
	return LS_DROP_NONE;
}

static enum ls_drop_reason
parse_l4(const uint8_t *p, uint32_t end, struct pkt_meta *meta)
{
	const struct rte_udp_hdr *udp;
	uint16_t off = meta->l4_off;
	uint16_t ulen;

	meta->sport = 0;
	meta->dport = 0;
	meta->bth_off = 0;
	meta->cls = DP_CLASS_OTHER_IP;
	if (!meta->first_frag)
		return LS_DROP_NONE;
	if (meta->fragmented) {
		/*
		 * The first fragment of a datagram: its ports are read (a WAN
		 * fragment to geneve_port is then named as such), but its UDP
		 * length covers fragments still to come, and RoCEv2 never
		 * fragments, so it is forwarded as other IP. The flow hash
		 * leaves fragments' ports out (dp_flow_hash()).
		 */

		if ((meta->proto == IPPROTO_UDP || meta->proto == IPPROTO_TCP) &&
		    end >= (uint32_t)off + 4) {
			meta->sport = (uint16_t)(p[off] << 8 | p[off + 1]);
			meta->dport = (uint16_t)(p[off + 2] << 8 | p[off + 3]);
		}
		return LS_DROP_NONE;
	}
	if (meta->proto == IPPROTO_TCP) {
		/* Ports only, for the flow hash; TCP is forwarded as other IP. */
		if (end < (uint32_t)off + 4)
			return LS_DROP_NONE;
		meta->sport = (uint16_t)(p[off] << 8 | p[off + 1]);
		meta->dport = (uint16_t)(p[off + 2] << 8 | p[off + 3]);
		return LS_DROP_NONE;
	}
	if (meta->proto != IPPROTO_UDP)
		return LS_DROP_NONE;
	if (end < (uint32_t)off + sizeof(*udp))
		return LS_DROP_UDP_TRUNC;
	udp = (const struct rte_udp_hdr *)(p + off);
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if (ulen < sizeof(*udp) || (uint32_t)off + ulen > end)
		return LS_DROP_UDP_LEN;
	meta->sport = rte_be_to_cpu_16(udp->src_port);
	meta->dport = rte_be_to_cpu_16(udp->dst_port);
	if (meta->dport == ROCE_UDP_PORT) {
		const struct roce_bth *bth;
		uint16_t boff = off + sizeof(*udp);

		if (ulen < sizeof(*udp) + sizeof(*bth))
			return LS_DROP_BTH_TRUNC;
		bth = (const struct roce_bth *)(p + boff);
		meta->bth_off = boff;
		meta->opcode = bth->opcode;
		meta->dqpn = roce_u24(bth->dqpn);
		meta->psn = roce_u24(bth->psn);
		if (bth->opcode == ROCE_OP_CNP) {
			meta->cls = DP_CLASS_ROCE_CNP;
		} else if (bth->opcode == ROCE_OP_RC_ACK || bth->opcode == ROCE_OP_RC_ATOMIC_ACK) {
			/* AETH, then the 4-byte ICRC every RoCEv2 packet ends with. */
			if (ulen < sizeof(*udp) + sizeof(*bth) + sizeof(struct roce_aeth) +
					   ROCE_ICRC_SIZE)
				return LS_DROP_AETH_TRUNC;
			meta->cls = DP_CLASS_ROCE_ACK;
		} else {
			meta->cls = DP_CLASS_ROCE_DATA;
		}
		if (ulen < sizeof(*udp) + sizeof(*bth) + ROCE_ICRC_SIZE)
			return LS_DROP_BTH_TRUNC;
	}
	return LS_DROP_NONE;
}

static enum ls_drop_reason
parse_ip4(const uint8_t *p, uint32_t len, uint16_t off, struct pkt_meta *meta)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + off);
	uint32_t ihl_bytes;
	uint16_t tot, frag;

	if (len < (uint32_t)off + sizeof(*ip))
		return LS_DROP_IP4_TRUNC;
	if ((ip->version_ihl >> 4) != 4)
		return LS_DROP_IP4_VERSION;
	ihl_bytes = (uint32_t)(ip->version_ihl & 0xf) * 4;
	if (ihl_bytes < sizeof(*ip))
		return LS_DROP_IP4_IHL;
	if (len < off + ihl_bytes)
		return LS_DROP_IP4_TRUNC;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < ihl_bytes || (uint32_t)off + tot > len)
		return LS_DROP_IP4_LEN;
	/* A correct header sums to 0xffff including its checksum field. */
	if (rte_raw_cksum(ip, ihl_bytes) != 0xffff)
		return LS_DROP_IP4_CSUM;
	meta->l3 = PKT_L3_IP4;
	meta->ip_len = tot;
	meta->proto = ip->next_proto_id;
	meta->tos = ip->type_of_service;
	meta->l4_off = (uint16_t)(off + ihl_bytes);
	frag = rte_be_to_cpu_16(ip->fragment_offset);
	meta->first_frag = (frag & RTE_IPV4_HDR_OFFSET_MASK) == 0;
	meta->fragmented = (frag & (RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG)) != 0;
	return parse_l4(p, (uint32_t)off + tot, meta);
}

static enum ls_drop_reason
parse_ip6(const uint8_t *p, uint32_t len, uint16_t off, struct pkt_meta *meta)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(p + off);
	uint32_t vtc;
	uint16_t plen;

	if (len < (uint32_t)off + sizeof(*ip))
		return LS_DROP_IP6_TRUNC;
	vtc = rte_be_to_cpu_32(ip->vtc_flow);
	if ((vtc >> 28) != 6)
		return LS_DROP_IP6_VERSION;
	plen = rte_be_to_cpu_16(ip->payload_len);
	if ((uint32_t)off + sizeof(*ip) + plen > len)
		return LS_DROP_IP6_LEN;
	meta->l3 = PKT_L3_IP6;
	meta->ip_len = (uint16_t)(sizeof(*ip) + plen);
	meta->proto = ip->proto;
	meta->tos = (uint8_t)(vtc >> 20);
	meta->l4_off = (uint16_t)(off + sizeof(*ip));
	/*
	 * Extension headers are forwarded untouched; the gateway only looks
	 * at UDP (RoCEv2) and ICMPv6 (ND) directly after the fixed header.
	 */
	meta->first_frag = 1;
	meta->fragmented = 0;
	return parse_l4(p, (uint32_t)off + meta->ip_len, meta);
}

enum ls_drop_reason
parse_ip(const uint8_t *p, uint32_t len, uint16_t off, uint16_t ether_type, struct pkt_meta *meta)
{
	meta->l3_off = off;
	meta->bth_off = 0;
	if (ether_type == RTE_ETHER_TYPE_IPV4)
		return parse_ip4(p, len, off, meta);
	if (ether_type == RTE_ETHER_TYPE_IPV6)
		return parse_ip6(p, len, off, meta);
	return LS_DROP_ETHERTYPE;
}
