/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_ENCAP_H
#define LONGSPAN_ENCAP_H

/*
 * Egress / deparser toward the WAN: the GENEVE encapsulation of an inner IP
 * packet leaving the traffic manager (docs/wire-format.md). dp_encap() is
 * static inline: the traffic manager calls it for every packet it sends.
 * The per-peer header templates and the inner flow hash are in encap.c.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "bits.h"
#include "congestion/ecn.h"
#include "dp_conf.h"
#include "eth.h"
#include "geneve.h"
#include "mbuf_meta.h"
#include "wan_credit.h"
#include "worker.h"

/* Ethernet + IPv4 + UDP + GENEVE + Longspan option: an untagged template. */
#define DP_TMPL_V4_SIZE (sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) + \
			 sizeof(struct rte_udp_hdr) + GENEVE_ENCAP_HDR_SIZE)

/* Outer IPv4 TTL / IPv6 hop limit of tunnel packets. */
#define DP_OUTER_TTL 64

/* Write the Longspan GENEVE option's per-packet fields. */
static inline void
dp_geneve_fill(struct dp_worker *w, uint8_t *g, uint16_t inner_et, uint32_t peer_idx,
	       const struct dp_clock *clk)
{
	struct geneve_ls_opt *opt = (struct geneve_ls_opt *)(g + GENEVE_HDR_SIZE);
	rte_be16_t et = dp_htons(inner_et);

	memcpy(g + 2, &et, sizeof(et)); /* protocol type: one 16-bit store */
	opt->worker = dp_htons((uint16_t)w->id);
	opt->seq = dp_htonl(w->seq[peer_idx].tx_seq++);
	opt->tx_ns = dp_htonll(clk->ns);
}

/* Bytes of GENEVE options after the telemetry option: the credit option toward a credit peer. */
static inline uint16_t
dp_encap_extra(const struct dp_peer *peer)
{
	return peer->credit ? CREDIT_OPT_BYTES : 0;
}

/* The credit option of a packet toward a credit peer (report stored at dequeue, grant now). */
static inline void
dp_encap_credit(struct dp_worker *w, const struct dp_mbuf_meta *mm, uint32_t peer_idx, uint8_t *p)
{
	struct credit_opt o;

	wan_credit_opt(&w->credit, &w->counters.credit, peer_idx, mm->tm.credit_report,
		       (mm->tm.flags & DP_TM_F_CREDIT_TX) != 0, &o);
	credit_opt_write(p, &o);
}

/*
 * Egress / deparser: prepend Ethernet / outer IP / UDP / GENEVE / Longspan
 * option [/ credit option] (docs/wire-format.md) to an inner IP packet
 * leaving the traffic manager; the mbuf data starts at the inner IP
 * header. An IPv4 underlay copies the peer's template and patches the
 * per-packet fields.
 */
static __rte_always_inline void
dp_encap(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m,
	 const struct dp_clock *clk)
{
	const struct dp_mbuf_meta *mm = dp_mbuf_meta(m);
	uint32_t peer_idx = mm->tm.peer;
	const struct dp_peer *peer = &c->peers[peer_idx];
	const uint8_t *inner = rte_pktmbuf_mtod(m, const uint8_t *);
	bool inner4 = (inner[0] >> 4) == 4;
	uint32_t hash = mm->tm.hash;
	uint16_t ip_len = (uint16_t)m->pkt_len;
	uint16_t udp_len;
	uint16_t inner_et = inner4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6;
	/* RFC 6040: copy DSCP and ECN (including the gateway's own mark) outward. */
	uint8_t in_tos = inner4 ? inner[1] : (uint8_t)((inner[0] << 4) | (inner[1] >> 4));
	uint8_t tos = ecn_tos_with(in_tos, ecn_encap(ecn_of_tos(in_tos)));
	struct rte_ether_hdr *eth;
	struct rte_udp_hdr *udp;
	uint8_t *hdr;

	if (likely(peer->tmpl_len != 0)) {
		uint16_t l2 = peer->tmpl_l2;
		struct rte_ipv4_hdr *ip;
		/* encap_ip: IPv4, UDP, GENEVE and options (dp_peer_template()). */
		uint16_t tot = (uint16_t)(peer->encap_ip + ip_len);
		uint32_t sum;

		udp_len = (uint16_t)(tot - sizeof(struct rte_ipv4_hdr));
		/* Headroom was checked when the packet entered the traffic manager. */
		hdr = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)(l2 + peer->encap_ip));
		/* Constant sizes let the compiler emit a few vector moves. */
		if (l2 == sizeof(struct rte_ether_hdr))
			memcpy(hdr, peer->tmpl, DP_TMPL_V4_SIZE);
		else
			memcpy(hdr, peer->tmpl, DP_TMPL_V4_SIZE + sizeof(struct rte_vlan_hdr));
		memcpy(hdr, mm->tm.dmac, RTE_ETHER_ADDR_LEN);
		ip = (struct rte_ipv4_hdr *)(hdr + l2);
		ip->type_of_service = tos;
		ip->total_length = dp_htons(tot);
		/*
		 * The template's constant sum (version and IHL included) plus
		 * the TOS and the length. rte_raw_cksum() sums words as loaded
		 * from memory, so the added words go in the same (network) byte
		 * order and the result is stored as is.
		 */
		sum = peer->tmpl_csum + dp_htons(tos) + dp_htons(tot);
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		ip->hdr_checksum = (rte_be16_t)~sum;
		udp = (struct rte_udp_hdr *)(ip + 1);
		udp->src_port = dp_htons(geneve_src_port(hash));
		udp->dgram_len = dp_htons(udp_len);
		dp_geneve_fill(w, (uint8_t *)(udp + 1), inner_et, peer_idx, clk);
		if (unlikely(peer->credit))
			dp_encap_credit(w, mm, peer_idx, hdr + peer->tmpl_len);
		m->tx_offload = peer->tmpl_offload; /* l2_len, l3_len */
	} else {
		const struct dp_port *wan = &c->ports[peer->port];
		uint16_t extra = dp_encap_extra(peer);
		uint16_t l2 = sizeof(struct rte_ether_hdr) + (wan->vlan ? sizeof(struct rte_vlan_hdr) : 0);
		uint16_t l3 = sizeof(struct rte_ipv6_hdr);
		struct rte_ipv6_hdr *ip;
		struct geneve_ls_opt *opt;
		uint8_t *g;

		udp_len = (uint16_t)(sizeof(struct rte_udp_hdr) + GENEVE_ENCAP_HDR_SIZE + extra +
				     ip_len);

		hdr = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)(l2 + l3 + sizeof(*udp) +
								   GENEVE_ENCAP_HDR_SIZE + extra));
		eth = (struct rte_ether_hdr *)hdr;
		memcpy(&eth->dst_addr, mm->tm.dmac, RTE_ETHER_ADDR_LEN);
		eth_hdr_write(eth, NULL, &wan->mac, wan->vlan, 0, RTE_ETHER_TYPE_IPV6);
		ip = (struct rte_ipv6_hdr *)(hdr + l2);
		ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)tos << 20 | (hash & 0xfffff));
		ip->payload_len = rte_cpu_to_be_16(udp_len);
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = DP_OUTER_TTL;
		memcpy(ip->src_addr, peer->src, 16);
		memcpy(ip->dst_addr, peer->dst, 16);
		udp = (struct rte_udp_hdr *)(ip + 1);
		udp->src_port = rte_cpu_to_be_16(geneve_src_port(hash));
		udp->dst_port = rte_cpu_to_be_16(c->geneve_port);
		udp->dgram_len = rte_cpu_to_be_16(udp_len);
		udp->dgram_cksum = 0;
		g = (uint8_t *)(udp + 1);
		g[0] = (uint8_t)((sizeof(struct geneve_ls_opt) + extra) / 4);
		g[1] = 0;
		g[4] = (uint8_t)(peer->vni >> 16);
		g[5] = (uint8_t)(peer->vni >> 8);
		g[6] = (uint8_t)peer->vni;
		g[7] = 0;
		opt = (struct geneve_ls_opt *)(g + GENEVE_HDR_SIZE);
		opt->opt_class = rte_cpu_to_be_16(GENEVE_OPT_CLASS_LONGSPAN);
		opt->type = GENEVE_OPT_TYPE_TELEMETRY;
		opt->len = (sizeof(*opt) - 4) / 4;
		opt->version = GENEVE_LS_OPT_VERSION;
		opt->flags = 0;
		dp_geneve_fill(w, g, inner_et, peer_idx, clk);
		if (unlikely(extra != 0))
			dp_encap_credit(w, mm, peer_idx, g + GENEVE_ENCAP_HDR_SIZE);
		/* A zero UDP checksum over IPv6 is only allowed under RFC 6936. */
		udp->dgram_cksum = rte_ipv6_udptcp_cksum(ip, udp);
		m->l2_len = l2;
		m->l3_len = l3;
	}
	w->counters.peer[peer_idx].tx_pkts++;
	w->counters.peer[peer_idx].tx_bytes += ip_len;
}

#endif /* LONGSPAN_ENCAP_H */
