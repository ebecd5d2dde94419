/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Encapsulation toward the WAN, the part prepared outside the per-packet
 * path: the peer's outer header template, built at snapshot time. The
 * per-packet encapsulation is dp_encap() in encap.h, the inner flow hash
 * that picks its outer UDP source port and flow label dp_flow_hash() in
 * flow_hash.h.
 */
#include "encap.h"

#include <assert.h>
#include <string.h>

#include <rte_ip.h>

static_assert(sizeof(struct rte_ipv6_hdr) + sizeof(struct rte_udp_hdr) + GENEVE_ENCAP_HDR_SIZE +
		      CREDIT_OPT_BYTES <= UINT8_MAX,
	      "dp_peer.encap_ip holds the largest outer headers");

void
dp_peer_template(struct dp_peer *peer, const struct dp_port *wan, uint16_t geneve_port)
{
	uint16_t l2 = sizeof(struct rte_ether_hdr) + (wan->vlan ? sizeof(struct rte_vlan_hdr) : 0);
	uint8_t *hdr = peer->tmpl;
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)hdr;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(hdr + l2);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint8_t *g = (uint8_t *)(udp + 1);
	struct geneve_ls_opt *opt = (struct geneve_ls_opt *)(g + GENEVE_HDR_SIZE);
	uint32_t sum;

	memset(peer->tmpl, 0, sizeof(peer->tmpl));
	peer->tmpl_len = 0;
	peer->encap_l2 = (uint8_t)l2;
	peer->encap_ip = (uint8_t)((peer->family == AF_INET ? sizeof(struct rte_ipv4_hdr) :
							       sizeof(struct rte_ipv6_hdr)) +
				   sizeof(struct rte_udp_hdr) + GENEVE_ENCAP_HDR_SIZE +
				   dp_encap_extra(peer));
	if (peer->family != AF_INET)
		return; /* IPv6 underlay: its UDP checksum covers the payload anyway */
	eth_hdr_write(eth, NULL, &wan->mac, wan->vlan, 0, RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = DP_OUTER_TTL;
	ip->next_proto_id = IPPROTO_UDP;
	memcpy(&ip->src_addr, peer->src, 4);
	memcpy(&ip->dst_addr, peer->dst, 4);
	udp->dst_port = rte_cpu_to_be_16(geneve_port);
	/* Version 0, options length in words: the credit option follows, written per packet. */
	g[0] = (uint8_t)((sizeof(struct geneve_ls_opt) + (peer->credit ? CREDIT_OPT_BYTES : 0)) / 4);
	g[4] = (uint8_t)(peer->vni >> 16);
	g[5] = (uint8_t)(peer->vni >> 8);
	g[6] = (uint8_t)peer->vni;
	opt->opt_class = rte_cpu_to_be_16(GENEVE_OPT_CLASS_LONGSPAN);
	opt->type = GENEVE_OPT_TYPE_TELEMETRY;
	opt->len = (sizeof(*opt) - 4) / 4;
	opt->version = GENEVE_LS_OPT_VERSION;
	/*
	 * The sum of the IPv4 header words that never change: everything but
	 * the TOS, the total length and the checksum (all three zero here).
	 */
	sum = rte_raw_cksum(ip, sizeof(*ip));
	peer->tmpl_csum = sum;
	peer->tmpl_l2 = (uint8_t)l2;
	peer->tmpl_offload = rte_mbuf_tx_offload(l2, sizeof(*ip), 0, 0, 0, 0, 0);
	peer->tmpl_len = (uint8_t)(l2 + sizeof(*ip) + sizeof(*udp) + GENEVE_ENCAP_HDR_SIZE);
}
