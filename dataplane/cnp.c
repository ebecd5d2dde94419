/* SPDX-License-Identifier: BSD-3-Clause */
#include "cnp.h"

#include <string.h>
#include <sys/socket.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_net_crc.h>
#include <rte_udp.h>

#include "congestion/ecn.h"
#include "eth.h"
#include "own_mbuf.h"
#include "roce.h"

#define CNP_PAD_BYTES 16 /* reserved bytes after the BTH */
#define CNP_L4_BYTES (sizeof(struct rte_udp_hdr) + sizeof(struct roce_bth) + CNP_PAD_BYTES + \
		      ROCE_ICRC_SIZE)
#define CNP_TTL 64
#define ICRC_LRH_ONES 8 /* bytes of ones standing in for the absent LRH */

uint32_t
cnp_icrc(const uint8_t *ip, uint32_t len)
{
	uint8_t buf[ICRC_LRH_ONES + sizeof(struct rte_ipv6_hdr) + CNP_L4_BYTES];
	uint8_t *b = buf + ICRC_LRH_ONES;
	uint32_t l4;

	if (len > sizeof(buf) - ICRC_LRH_ONES)
		return 0;
	memset(buf, 0xff, ICRC_LRH_ONES);
	memcpy(b, ip, len);
	/* Variant fields to ones (RoCEv2 annex A17.4.4.1). */
	if ((b[0] >> 4) == 4) {
		l4 = (uint32_t)(b[0] & 0xf) * 4;
		b[1] = 0xff; /* DSCP + ECN */
		b[8] = 0xff; /* TTL */
		b[10] = b[11] = 0xff; /* header checksum */
	} else {
		l4 = sizeof(struct rte_ipv6_hdr);
		b[0] |= 0x0f; /* traffic class, flow label */
		b[1] = b[2] = b[3] = 0xff;
		b[7] = 0xff; /* hop limit */
	}
	b[l4 + 6] = b[l4 + 7] = 0xff; /* UDP checksum */
	b[l4 + sizeof(struct rte_udp_hdr) + 4] = 0xff; /* BTH FECN, BECN, resv6 */
	return rte_net_crc_calc(buf, ICRC_LRH_ONES + len, RTE_NET_CRC32_ETH);
}

struct rte_mbuf *
cnp_build(struct rte_mempool *mp, const struct dp_port *dc, const struct rte_ether_addr *dmac,
	  uint8_t family, const uint8_t *src_ip, const uint8_t *dst_ip, uint16_t sport,
	  uint32_t dqpn, uint8_t dscp)
{
	uint16_t l2 = sizeof(struct rte_ether_hdr) + (dc->vlan ? sizeof(struct rte_vlan_hdr) : 0);
	uint16_t l3 = family == AF_INET ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr);
	uint16_t et = family == AF_INET ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6;
	struct rte_ether_hdr *eth;
	struct rte_udp_hdr *udp;
	struct roce_bth *bth;
	uint8_t *ip, *icrc;
	uint32_t crc;
	void *data;
	struct rte_mbuf *m = own_mbuf_new(mp, (uint16_t)(l2 + l3 + CNP_L4_BYTES), &data);

	if (m == NULL)
		return NULL;
	eth = data;
	memset(eth, 0, (size_t)l2 + l3 + CNP_L4_BYTES);
	/* PCP 6 when tagged: CNPs ride the high-priority class (congestion.md). */
	eth_hdr_write(eth, dmac, &dc->mac, dc->vlan, 6, et);
	ip = (uint8_t *)eth + l2;
	if (family == AF_INET) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;

		h->version_ihl = RTE_IPV4_VHL_DEF;
		h->type_of_service = (uint8_t)(dscp << 2 | ECN_NOT_ECT);
		h->total_length = rte_cpu_to_be_16((uint16_t)(l3 + CNP_L4_BYTES));
		h->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		h->time_to_live = CNP_TTL;
		h->next_proto_id = IPPROTO_UDP;
		memcpy(&h->src_addr, src_ip, 4);
		memcpy(&h->dst_addr, dst_ip, 4);
		h->hdr_checksum = rte_ipv4_cksum(h);
	} else {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)ip;

		h->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)(dscp << 2 | ECN_NOT_ECT) << 20);
		h->payload_len = rte_cpu_to_be_16(CNP_L4_BYTES);
		h->proto = IPPROTO_UDP;
		h->hop_limits = CNP_TTL;
		memcpy(h->src_addr, src_ip, 16);
		memcpy(h->dst_addr, dst_ip, 16);
	}
	udp = (struct rte_udp_hdr *)(ip + l3);
	udp->src_port = rte_cpu_to_be_16(sport);
	udp->dst_port = rte_cpu_to_be_16(ROCE_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16(CNP_L4_BYTES);
	bth = (struct roce_bth *)(udp + 1);
	bth->opcode = ROCE_OP_CNP;
	bth->pkey = rte_cpu_to_be_16(0xffff);
	bth->fecn_becn = ROCE_BTH_BECN;
	roce_set_u24(bth->dqpn, dqpn);
	/* PSN 0, AckReq 0, then 16 reserved bytes of zero. */
	if (family == AF_INET6)
		udp->dgram_cksum = rte_ipv6_udptcp_cksum((struct rte_ipv6_hdr *)ip, udp);
	icrc = (uint8_t *)udp + CNP_L4_BYTES - ROCE_ICRC_SIZE;
	crc = cnp_icrc(ip, (uint32_t)(icrc - ip));
	/* The ICRC goes on the wire least significant byte first. */
	icrc[0] = (uint8_t)crc;
	icrc[1] = (uint8_t)(crc >> 8);
	icrc[2] = (uint8_t)(crc >> 16);
	icrc[3] = (uint8_t)(crc >> 24);
	if (family == AF_INET6) {
		/* The checksum covers the ICRC: recompute now that it is set. */
		udp->dgram_cksum = 0;
		udp->dgram_cksum = rte_ipv6_udptcp_cksum((struct rte_ipv6_hdr *)ip, udp);
	}
	m->l2_len = l2;
	m->l3_len = l3;
	return m;
}
