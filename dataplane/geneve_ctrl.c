/* SPDX-License-Identifier: BSD-3-Clause */
/* Outer headers of GENEVE control packets (geneve_ctrl.h). */
#include "geneve_ctrl.h"

#include <string.h>
#include <sys/socket.h>

#include <rte_ip.h>
#include <rte_udp.h>

#include "bits.h"
#include "congestion/ecn.h"
#include "dp_conf.h"
#include "eth.h"
#include "geneve.h"

uint32_t
geneve_ctrl_write(const struct dp_conf *c, uint32_t idx, const struct rte_ether_addr *dmac,
		  uint16_t src_port, uint16_t opt_bytes, uint8_t *buf)
{
	const struct dp_peer *peer = &c->peers[idx];
	const struct dp_port *wan = &c->ports[peer->port];
	bool v4 = peer->family == AF_INET;
	uint16_t l2 = eth_hdr_size(wan->vlan);
	uint16_t l3 = v4 ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr);
	uint16_t udp_len = (uint16_t)(sizeof(struct rte_udp_hdr) + GENEVE_HDR_SIZE + opt_bytes);
	uint8_t tos = (uint8_t)(c->mech.cnp_dscp << 2 | ECN_NOT_ECT);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(buf + l2 + l3);
	uint8_t *g = (uint8_t *)(udp + 1);

	memset(buf, 0, (size_t)l2 + l3 + udp_len);
	eth_hdr_write((struct rte_ether_hdr *)buf, dmac, &wan->mac, wan->vlan, GENEVE_CTRL_PCP,
		      v4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	if (v4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + l2);

		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->type_of_service = tos;
		ip->total_length = dp_htons((uint16_t)(l3 + udp_len));
		ip->fragment_offset = dp_htons(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_UDP;
		memcpy(&ip->src_addr, peer->src, 4);
		memcpy(&ip->dst_addr, peer->dst, 4);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		/* UDP checksum 0 over IPv4, as the data packets (RFC 8926 section 3.3). */
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(buf + l2);

		ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)tos << 20);
		ip->payload_len = dp_htons(udp_len);
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = 64;
		memcpy(ip->src_addr, peer->src, 16);
		memcpy(ip->dst_addr, peer->dst, 16);
	}
	udp->src_port = dp_htons(src_port);
	udp->dst_port = dp_htons(c->geneve_port);
	udp->dgram_len = dp_htons(udp_len);
	g[0] = (uint8_t)(opt_bytes / 4); /* version 0, options length in words */
	g[1] = 0x80; /* O: a control message; protocol type 0: no inner packet */
	g[4] = (uint8_t)(peer->vni >> 16);
	g[5] = (uint8_t)(peer->vni >> 8);
	g[6] = (uint8_t)peer->vni;
	return (uint32_t)l2 + l3 + udp_len;
}

void
geneve_ctrl_finish(const struct dp_conf *c, uint32_t idx, uint8_t *buf)
{
	const struct dp_peer *peer = &c->peers[idx];
	struct rte_ipv6_hdr *ip;

	if (peer->family == AF_INET)
		return;
	ip = (struct rte_ipv6_hdr *)(buf + eth_hdr_size(c->ports[peer->port].vlan));
	((struct rte_udp_hdr *)(ip + 1))->dgram_cksum = rte_ipv6_udptcp_cksum(ip, ip + 1);
}
