/* SPDX-License-Identifier: BSD-3-Clause */
/* Path probes toward the peers (probe.h). */
#include "probe.h"

#include <string.h>
#include <sys/socket.h>

#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "bits.h"
#include "congestion/ecn.h"
#include "eth.h"
#include "geneve.h"
#include "neigh.h"

/* Build one probe toward peer idx; NULL when no mbuf. */
static struct rte_mbuf *
dp_probe_build(struct dp_worker *w, const struct dp_conf *c, uint32_t idx,
	       const struct rte_ether_addr *dmac, const struct dp_clock *clk)
{
	const struct dp_peer *peer = &c->peers[idx];
	const struct dp_port *wan = &c->ports[peer->port];
	struct dp_path_meas *pm = &w->meas[idx];
	bool v4 = peer->family == AF_INET;
	uint16_t l2 = sizeof(struct rte_ether_hdr) + (wan->vlan ? sizeof(struct rte_vlan_hdr) : 0);
	uint16_t l3 = v4 ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr);
	uint16_t udp_len = (uint16_t)(sizeof(struct rte_udp_hdr) + GENEVE_PROBE_HDR_SIZE);
	uint8_t tos = (uint8_t)(c->mech.cnp_dscp << 2 | ECN_NOT_ECT);
	struct rte_mbuf *m = rte_pktmbuf_alloc(w->pool);
	struct geneve_ls_opt *opt;
	struct geneve_ls_echo *echo;
	struct rte_udp_hdr *udp;
	uint8_t *hdr, *g;

	if (m == NULL)
		return NULL;
	hdr = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(l2 + l3 + udp_len));
	if (hdr == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(hdr, 0, (size_t)l2 + l3 + udp_len);
	eth_hdr_write((struct rte_ether_hdr *)hdr, dmac, &wan->mac, wan->vlan, 6,
		      v4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	udp = (struct rte_udp_hdr *)(hdr + l2 + l3);
	udp->src_port = dp_htons(geneve_src_port(w->id));
	udp->dst_port = dp_htons(c->geneve_port);
	udp->dgram_len = dp_htons(udp_len);
	g = (uint8_t *)(udp + 1);
	g[0] = GENEVE_PROBE_HDR_SIZE / 4 - GENEVE_HDR_SIZE / 4; /* option length, words */
	g[1] = 0x80; /* O: a control message (RFC 8926 section 3.4); protocol 0 */
	g[4] = (uint8_t)(peer->vni >> 16);
	g[5] = (uint8_t)(peer->vni >> 8);
	g[6] = (uint8_t)peer->vni;
	opt = (struct geneve_ls_opt *)(g + GENEVE_HDR_SIZE);
	opt->opt_class = dp_htons(GENEVE_OPT_CLASS_LONGSPAN);
	opt->type = GENEVE_OPT_TYPE_TELEMETRY;
	opt->len = (sizeof(*opt) - 4) / 4;
	opt->version = GENEVE_LS_OPT_VERSION;
	opt->worker = dp_htons((uint16_t)w->id);
	/* The data packets' sequence: a lost probe is a gap like a lost packet. */
	opt->seq = dp_htonl(w->seq[idx].tx_seq++);
	opt->tx_ns = dp_htonll(clk->ns);
	echo = (struct geneve_ls_echo *)(opt + 1);
	echo->opt_class = dp_htons(GENEVE_OPT_CLASS_LONGSPAN);
	echo->type = GENEVE_OPT_TYPE_ECHO;
	echo->len = (sizeof(*echo) - 4) / 4;
	echo->version = GENEVE_LS_OPT_VERSION;
	if (pm->echo_t2_ns != 0) {
		echo->flags = GENEVE_ECHO_VALID;
		echo->t1_ns = dp_htonll(pm->echo_t1_ns);
		echo->t2_ns = dp_htonll(pm->echo_t2_ns);
	}
	if (v4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(hdr + l2);

		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->type_of_service = tos;
		ip->total_length = dp_htons((uint16_t)(l3 + udp_len));
		ip->fragment_offset = dp_htons(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_UDP;
		memcpy(&ip->src_addr, peer->src, 4);
		memcpy(&ip->dst_addr, peer->dst, 4);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		/* UDP checksum 0 over IPv4, as the data packets (RFC 8926 3.3). */
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(hdr + l2);

		ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)tos << 20);
		ip->payload_len = dp_htons(udp_len);
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = 64;
		memcpy(ip->src_addr, peer->src, 16);
		memcpy(ip->dst_addr, peer->dst, 16);
		udp->dgram_cksum = rte_ipv6_udptcp_cksum(ip, udp);
	}
	m->l2_len = l2;
	m->l3_len = l3;
	return m;
}

void
dp_probe_poll(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
	      struct dp_tx *tx)
{
	uint16_t i;

	if (c->probe_interval_ns == 0)
		return;
	for (i = 0; i < c->n_peers; i++) {
		const struct dp_peer *peer = &c->peers[i];
		struct dp_path_meas *pm = &w->meas[i];
		struct rte_eth_link link;
		struct rte_ether_addr dmac;
		struct rte_mbuf *m;

		if ((int64_t)(clk->ns - pm->probe_next_ns) < 0)
			continue;
		pm->probe_next_ns = clk->ns + c->probe_interval_ns;
		/*
		 * Not into a link that is down: the probe's sequence number
		 * would count as lost at the peer. Once per interval, so the
		 * driver call costs nothing per packet.
		 */
		if (rte_eth_link_get_nowait(c->ports[peer->port].port_id, &link) != 0 ||
		    link.link_status == RTE_ETH_LINK_DOWN ||
		    neigh_lookup(c->ports[peer->port].neigh, peer->family, peer->nexthop, &dmac) !=
			    NEIGH_HIT ||
		    tx->n[peer->port] >= DP_TX_MAX) {
			pm->probes_failed++;
			continue;
		}
		m = dp_probe_build(w, c, i, &dmac, clk);
		if (m == NULL) {
			pm->probes_failed++;
			continue;
		}
		pm->probes_tx++;
		w->counters.probes_sent++;
		dp_tx_add_own(tx, peer->port, m);
	}
}
