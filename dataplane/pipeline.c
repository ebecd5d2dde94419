/* SPDX-License-Identifier: BSD-3-Clause */
#include "pipeline.h"

#include <string.h>
#include <sys/socket.h>

#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include "congestion/ecn.h"
#include "csum.h"
#include "geneve.h"
#include "mbuf_meta.h"
#include "neigh.h"
#include "parse.h"

#define ICMP6_ECHO_REQUEST 128
#define ICMP6_NEIGH_SOLICIT 135
#define ICMP6_NEIGH_ADVERT 136

/* Outer IPv4 TTL / IPv6 hop limit of tunnel packets. */
#define DP_OUTER_TTL 64

/* ------------------------------------------------------------------------ */
/* Helpers shared by the stages.                                            */

static inline void
dp_drop(struct dp_worker *w, struct rte_mbuf *m, enum ls_drop_reason r)
{
	w->counters.drops[r]++;
	rte_pktmbuf_free(m);
}

static inline void
dp_tx_add(struct dp_tx *tx, uint16_t port, struct rte_mbuf *m)
{
	tx->pkts[port][tx->n[port]++] = m;
}

/* Hand a packet to the control thread; the reason travels in the dynfield. */
static inline void
dp_punt(struct dp_worker *w, struct rte_mbuf *m, uint16_t port, enum dp_punt_reason why)
{
	struct dp_mbuf_meta *mm = dp_mbuf_meta(m);

	mm->port = (uint8_t)port;
	mm->reason = (uint8_t)why;
	if (rte_ring_sp_enqueue(w->punt, m) != 0) {
		dp_drop(w, m, LS_DROP_PUNT_FULL);
		return;
	}
	w->counters.punted++;
}

/* Ask the control thread to resolve addr on port; the packet is dropped. */
static inline void
dp_punt_resolve(struct dp_worker *w, struct rte_mbuf *m, uint16_t port, uint8_t family,
		const uint8_t *addr)
{
	struct dp_mbuf_meta *mm = dp_mbuf_meta(m);

	w->counters.drops[LS_DROP_NEIGH_MISS]++;
	mm->port = (uint8_t)port;
	mm->reason = DP_PUNT_RESOLVE;
	mm->family = family;
	memcpy(mm->addr, addr, family == AF_INET ? 4 : 16);
	if (rte_ring_sp_enqueue(w->punt, m) != 0) {
		rte_pktmbuf_free(m);
		return;
	}
	w->counters.punted++;
}

static inline bool
dp_mac_accept(const struct dp_port *pt, const struct rte_ether_hdr *eth)
{
	return rte_is_same_ether_addr(&eth->dst_addr, &pt->mac) ||
	       rte_is_multicast_ether_addr(&eth->dst_addr);
}

static inline bool
dp_ip6_is_ours(const struct dp_port *pt, const uint8_t *a)
{
	return (pt->has_ip6 && memcmp(a, pt->ip6, 16) == 0) || memcmp(a, pt->ip6_ll, 16) == 0;
}

static inline bool
dp_prefix4_match(uint32_t a_be, uint32_t b_be, uint8_t plen)
{
	uint32_t mask = plen == 0 ? 0 : ~0u << (32 - plen);

	return ((rte_be_to_cpu_32(a_be) ^ rte_be_to_cpu_32(b_be)) & mask) == 0;
}

static inline bool
dp_prefix6_match(const uint8_t *a, const uint8_t *b, uint8_t plen)
{
	unsigned int full = plen / 8, rem = plen % 8;

	if (memcmp(a, b, full) != 0)
		return false;
	if (rem == 0)
		return true;
	return ((a[full] ^ b[full]) & (uint8_t)(0xff << (8 - rem))) == 0;
}

uint32_t
dp_flow_hash(const uint8_t *ip, uint8_t l3, uint8_t proto, uint16_t sport, uint16_t dport)
{
	/* rte_hash_crc() loads 8 bytes at a time: keep the key 8-byte aligned. */
	uint64_t key_words[5];
	uint8_t *key = (uint8_t *)key_words;
	uint32_t alen = l3 == PKT_L3_IP4 ? 4 : 16;
	const uint8_t *src = ip + (l3 == PKT_L3_IP4 ? 12 : 8);
	uint32_t n = 0;

	memcpy(key, src, 2 * alen); /* source then destination, adjacent in both */
	n = 2 * alen;
	key[n++] = proto;
	if (proto != IPPROTO_UDP && proto != IPPROTO_TCP)
		sport = dport = 0;
	key[n++] = (uint8_t)(sport >> 8);
	key[n++] = (uint8_t)sport;
	key[n++] = (uint8_t)(dport >> 8);
	key[n++] = (uint8_t)dport;
	return rte_hash_crc(key, n, 0);
}

/*
 * Classify what is addressed to the gateway itself: ARP, ND, echo requests
 * go to the control thread; the rest is counted and dropped. Returns true
 * when the packet was consumed.
 */
static bool
dp_local(struct dp_worker *w, const struct dp_conf *c, const struct dp_port *pt, uint16_t port,
	 struct rte_mbuf *m, const uint8_t *p, const struct pkt_meta *meta)
{
	/* What the gateway cannot handle itself: on a WAN port, anything but the tunnel. */
	enum ls_drop_reason other = pt->role == LS_PORT_WAN ? LS_DROP_NOT_TUNNEL :
							      LS_DROP_LOCAL_DELIVER;

	/* Tunnel traffic on a WAN port is for the decapsulation stage. */
	if (pt->role == LS_PORT_WAN && meta->proto == IPPROTO_UDP && meta->first_frag &&
	    meta->dport == c->geneve_port)
		return false;
	if (meta->l3 == PKT_L3_IP4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + meta->l3_off);

		if (!pt->has_ip4 || ip->dst_addr != pt->ip4)
			return false;
		if (meta->proto == IPPROTO_ICMP && meta->first_frag &&
		    meta->ip_len >= meta->l4_off - meta->l3_off + 8 &&
		    p[meta->l4_off] == RTE_IP_ICMP_ECHO_REQUEST) {
			dp_punt(w, m, port, DP_PUNT_ICMP_ECHO);
			return true;
		}
		dp_drop(w, m, other);
		return true;
	}
	if (meta->l3 == PKT_L3_IP6) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(p + meta->l3_off);
		bool ours = dp_ip6_is_ours(pt, ip->dst_addr);
		bool mcast = ip->dst_addr[0] == 0xff;
		uint8_t type;

		if (!ours && !mcast)
			return false;
		if (meta->proto != IPPROTO_ICMPV6 ||
		    meta->ip_len < sizeof(struct rte_ipv6_hdr) + 4) {
			dp_drop(w, m, other);
			return true;
		}
		type = p[meta->l4_off];
		if (type == ICMP6_NEIGH_SOLICIT || type == ICMP6_NEIGH_ADVERT)
			dp_punt(w, m, port, DP_PUNT_ND);
		else if (type == ICMP6_ECHO_REQUEST && ours)
			dp_punt(w, m, port, DP_PUNT_ICMP_ECHO);
		else
			dp_drop(w, m, other);
		return true;
	}
	return false;
}

/*
 * Parser stage for both port roles: L2 checks, ARP punt, IP parse.
 * Returns LS_DROP_NONE with meta filled, or a reason. *consumed is set when
 * the packet went to the control thread.
 */
static enum ls_drop_reason
dp_parse(struct dp_worker *w, const struct dp_conf *c, uint16_t port, struct rte_mbuf *m,
	 struct pkt_meta *meta, bool *consumed)
{
	const struct dp_port *pt = &c->ports[port];
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t et;
	enum ls_drop_reason r;

	*consumed = false;
	if (unlikely(m->nb_segs != 1))
		return LS_DROP_MULTISEG;
	r = parse_l2(p, m->data_len, pt->vlan, meta, &et);
	if (unlikely(r != LS_DROP_NONE))
		return r;
	if (unlikely(!dp_mac_accept(pt, (const struct rte_ether_hdr *)p)))
		return LS_DROP_L2_NOT_FOR_US;
	if (unlikely(et == RTE_ETHER_TYPE_ARP)) {
		w->counters.cls[DP_CLASS_ARP]++;
		dp_punt(w, m, port, DP_PUNT_ARP);
		*consumed = true;
		return LS_DROP_NONE;
	}
	r = parse_ip(p, m->data_len, meta->l3_off, et, meta);
	if (unlikely(r != LS_DROP_NONE))
		return r;
	if (unlikely(meta->l3 == PKT_L3_IP6 && meta->proto == IPPROTO_ICMPV6 &&
		     meta->ip_len >= sizeof(struct rte_ipv6_hdr) + 4 &&
		     (p[meta->l4_off] == ICMP6_NEIGH_SOLICIT ||
		      p[meta->l4_off] == ICMP6_NEIGH_ADVERT)))
		w->counters.cls[DP_CLASS_ND]++;
	if (unlikely(dp_local(w, c, pt, port, m, p, meta))) {
		*consumed = true;
		return LS_DROP_NONE;
	}
	/* Only unicast to the port MAC is routed. */
	if (unlikely(rte_is_multicast_ether_addr(&((const struct rte_ether_hdr *)p)->dst_addr)))
		return LS_DROP_L2_NOT_FOR_US;
	return LS_DROP_NONE;
}

/* ------------------------------------------------------------------------ */
/* DC -> WAN                                                                */

/* Ingress match-action: route the inner destination to a peer, TTL. */
static enum ls_drop_reason
dp_ingress_dc(const struct dp_conf *c, struct rte_mbuf *m, const struct pkt_meta *meta,
	      uint32_t *peer)
{
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, meta->l3_off);

	if (meta->l3 == PKT_L3_IP4) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;
		rte_be16_t old_w, new_w;

		if (c->lpm4 == NULL || rte_lpm_lookup(c->lpm4, rte_be_to_cpu_32(h->dst_addr), peer) != 0)
			return LS_DROP_NO_ROUTE;
		if (h->time_to_live <= 1)
			return LS_DROP_TTL_EXPIRED;
		old_w = *(rte_be16_t *)&h->time_to_live;
		h->time_to_live--;
		new_w = *(rte_be16_t *)&h->time_to_live;
		h->hdr_checksum = csum_update16(h->hdr_checksum, old_w, new_w);
	} else {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)ip;

		if (c->lpm6 == NULL || rte_lpm6_lookup(c->lpm6, h->dst_addr, peer) != 0)
			return LS_DROP_NO_ROUTE;
		if (h->hop_limits <= 1)
			return LS_DROP_TTL_EXPIRED;
		h->hop_limits--;
	}
	return LS_DROP_NONE;
}

/*
 * Egress / deparser: replace the inner Ethernet header with
 * Ethernet / outer IP / UDP / GENEVE / Longspan option (docs/wire-format.md).
 */
static enum ls_drop_reason
dp_encap(struct dp_worker *w, const struct dp_conf *c, uint32_t peer_idx, struct rte_mbuf *m,
	 const struct pkt_meta *meta, const struct rte_ether_addr *dmac, const struct dp_clock *clk)
{
	const struct dp_peer *peer = &c->peers[peer_idx];
	const struct dp_port *wan = &c->ports[peer->port];
	const uint8_t *inner = rte_pktmbuf_mtod_offset(m, const uint8_t *, meta->l3_off);
	uint32_t hash = dp_flow_hash(inner, meta->l3, meta->proto, meta->sport, meta->dport);
	uint16_t l2 = sizeof(struct rte_ether_hdr) + (wan->vlan ? sizeof(struct rte_vlan_hdr) : 0);
	uint16_t l3 = peer->family == AF_INET ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr);
	uint16_t udp_len = (uint16_t)(sizeof(struct rte_udp_hdr) + GENEVE_ENCAP_HDR_SIZE + meta->ip_len);
	uint16_t inner_et = meta->l3 == PKT_L3_IP4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6;
	uint16_t outer_et = peer->family == AF_INET ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6;
	/* RFC 6040: copy DSCP and ECN to the outer header. */
	uint8_t tos = ecn_tos_with(meta->tos, ecn_encap(ecn_of_tos(meta->tos)));
	struct dp_peer_seq *ps = &w->seq[peer_idx];
	struct rte_ether_hdr *eth;
	struct rte_udp_hdr *udp;
	struct geneve_ls_opt *opt;
	uint8_t *hdr;
	uint8_t *g;

	if ((uint32_t)l3 + udp_len > wan->mtu)
		return LS_DROP_MTU_EXCEEDED;
	/* Strip the inner Ethernet header and any Ethernet padding. */
	rte_pktmbuf_adj(m, meta->l3_off);
	if (m->pkt_len > meta->ip_len)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - meta->ip_len));
	hdr = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)(l2 + l3 + sizeof(*udp) + GENEVE_ENCAP_HDR_SIZE));
	if (unlikely(hdr == NULL))
		return LS_DROP_NO_HEADROOM;

	eth = (struct rte_ether_hdr *)hdr;
	rte_ether_addr_copy(dmac, &eth->dst_addr);
	rte_ether_addr_copy(&wan->mac, &eth->src_addr);
	if (wan->vlan) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(wan->vlan);
		vh->eth_proto = rte_cpu_to_be_16(outer_et);
	} else {
		eth->ether_type = rte_cpu_to_be_16(outer_et);
	}

	if (peer->family == AF_INET) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(hdr + l2);

		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->type_of_service = tos;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(l3 + udp_len));
		ip->packet_id = 0;
		ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = DP_OUTER_TTL;
		ip->next_proto_id = IPPROTO_UDP;
		ip->hdr_checksum = 0;
		memcpy(&ip->src_addr, peer->src, 4);
		memcpy(&ip->dst_addr, peer->dst, 4);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(hdr + l2);

		ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)tos << 20 | (hash & 0xfffff));
		ip->payload_len = rte_cpu_to_be_16(udp_len);
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = DP_OUTER_TTL;
		memcpy(ip->src_addr, peer->src, 16);
		memcpy(ip->dst_addr, peer->dst, 16);
	}

	udp = (struct rte_udp_hdr *)(hdr + l2 + l3);
	udp->src_port = rte_cpu_to_be_16(geneve_src_port(hash));
	udp->dst_port = rte_cpu_to_be_16(c->geneve_port);
	udp->dgram_len = rte_cpu_to_be_16(udp_len);
	udp->dgram_cksum = 0;

	g = (uint8_t *)(udp + 1);
	g[0] = sizeof(struct geneve_ls_opt) / 4; /* version 0, option length in words */
	g[1] = 0; /* O = 0, C = 0 */
	g[2] = (uint8_t)(inner_et >> 8);
	g[3] = (uint8_t)inner_et;
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
	opt->worker = rte_cpu_to_be_16((uint16_t)w->id);
	opt->seq = rte_cpu_to_be_32(ps->tx_seq++);
	opt->tx_ns = rte_cpu_to_be_64(clk->ns);

	if (peer->family == AF_INET6) {
		/* A zero UDP checksum over IPv6 is only allowed under RFC 6936. */
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(hdr + l2);

		udp->dgram_cksum = rte_ipv6_udptcp_cksum(ip, udp);
	}
	m->l2_len = l2;
	m->l3_len = l3;
	return LS_DROP_NONE;
}

void
dp_pipeline_dc(struct dp_worker *w, const struct dp_conf *c, uint16_t port,
	       struct rte_mbuf **pkts, uint16_t n, const struct dp_clock *clk, struct dp_tx *tx)
{
	struct dp_counters *ctr = &w->counters;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct pkt_meta meta;
		struct rte_ether_addr dmac;
		const struct dp_peer *peer;
		uint32_t peer_idx;
		enum ls_drop_reason r;
		bool consumed;

		ctr->port[port].rx_pkts++;
		ctr->port[port].rx_bytes += m->pkt_len;

		/* Parser. */
		r = dp_parse(w, c, port, m, &meta, &consumed);
		if (unlikely(r != LS_DROP_NONE)) {
			dp_drop(w, m, r);
			continue;
		}
		if (unlikely(consumed))
			continue;
		ctr->cls[meta.cls]++;

		/* Ingress match-action: route and TTL. */
		r = dp_ingress_dc(c, m, &meta, &peer_idx);
		if (unlikely(r != LS_DROP_NONE)) {
			dp_drop(w, m, r);
			continue;
		}
		peer = &c->peers[peer_idx];

		/* Next hop of the outer packet on the peer's WAN port. */
		switch (neigh_lookup(c->ports[peer->port].neigh, peer->family, peer->nexthop, &dmac)) {
		case NEIGH_HIT:
			break;
		case NEIGH_PENDING:
			dp_drop(w, m, LS_DROP_NEIGH_MISS);
			continue;
		case NEIGH_ABSENT:
			dp_punt_resolve(w, m, peer->port, peer->family, peer->nexthop);
			continue;
		}

		/* Traffic manager: the WAN queue, shaping and ECN marking hook here. */

		/* Egress / deparser: GENEVE encapsulation. */
		r = dp_encap(w, c, peer_idx, m, &meta, &dmac, clk);
		if (unlikely(r != LS_DROP_NONE)) {
			dp_drop(w, m, r);
			continue;
		}
		ctr->peer[peer_idx].tx_pkts++;
		ctr->peer[peer_idx].tx_bytes += meta.ip_len;
		dp_tx_add(tx, peer->port, m);
	}
}

/* ------------------------------------------------------------------------ */
/* WAN -> DC                                                                */

static inline int
dp_peer_find(const struct dp_conf *c, uint8_t family, const uint8_t *src)
{
	uint16_t i;

	for (i = 0; i < c->n_peers; i++) {
		const struct dp_peer *p = &c->peers[i];

		if (p->family == family && memcmp(p->dst, src, family == AF_INET ? 4 : 16) == 0)
			return i;
	}
	return -1;
}

static inline void
dp_seq_track(struct dp_worker *w, struct dp_counters *ctr, uint32_t peer,
	     const struct geneve_info *gi)
{
	struct dp_peer_seq *ps = &w->seq[peer];
	uint16_t wid = gi->worker % DP_MAX_WORKERS;
	int32_t d;

	if (!ps->rx_seen[wid]) {
		ps->rx_seen[wid] = 1;
		ps->rx_expect[wid] = gi->seq + 1;
		return;
	}
	d = (int32_t)(gi->seq - ps->rx_expect[wid]);
	if (d >= 0) {
		ctr->peer[peer].rx_seq_gaps += (uint32_t)d;
		ps->rx_expect[wid] = gi->seq + 1;
	} else {
		ctr->peer[peer].rx_seq_reorder++;
	}
}

/*
 * Tunnel termination: validate outer IP/UDP/GENEVE, identify the peer,
 * apply RFC 6040 to the inner header and strip the outer headers. On
 * success the mbuf holds the inner IP packet only and *imeta describes it
 * (offsets relative to the new data start).
 */
static enum ls_drop_reason
dp_decap(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m,
	 const struct pkt_meta *meta, struct pkt_meta *imeta, uint32_t *peer_out)
{
	struct dp_counters *ctr = &w->counters;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t udp_end = (uint32_t)meta->l4_off +
			   rte_be_to_cpu_16(((struct rte_udp_hdr *)(p + meta->l4_off))->dgram_len);
	const uint8_t *src, *dst;
	struct geneve_info gi;
	enum ls_drop_reason r;
	uint8_t family, outer_ecn, inner_ecn;
	int peer, ecn;

	if (meta->l3 == PKT_L3_IP4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + meta->l3_off);

		family = AF_INET;
		src = (const uint8_t *)&ip->src_addr;
		dst = (const uint8_t *)&ip->dst_addr;
	} else {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(p + meta->l3_off);

		family = AF_INET6;
		src = ip->src_addr;
		dst = ip->dst_addr;
	}
	peer = dp_peer_find(c, family, src);
	if (peer < 0)
		return LS_DROP_UNKNOWN_PEER;
	if (memcmp(dst, c->peers[peer].src, family == AF_INET ? 4 : 16) != 0)
		return LS_DROP_NOT_FOR_US;
	r = geneve_parse(p, meta->l4_off + sizeof(struct rte_udp_hdr), udp_end, &gi);
	if (r != LS_DROP_NONE)
		return r;
	if (gi.vni != c->peers[peer].vni)
		return LS_DROP_VNI_MISMATCH;
	/* The packet crossed the WAN: account its sequence even if dropped below. */
	if (gi.has_ls_opt)
		dp_seq_track(w, ctr, (uint32_t)peer, &gi);
	if (parse_ip(p, udp_end, gi.inner_off, gi.proto, imeta) != LS_DROP_NONE)
		return LS_DROP_INNER_INVALID;

	/* RFC 6040 decapsulation. */
	outer_ecn = ecn_of_tos(meta->tos);
	inner_ecn = ecn_of_tos(imeta->tos);
	ecn = ecn_decap(outer_ecn, inner_ecn);
	if (ecn == ECN_DECAP_DROP)
		return LS_DROP_ECN_CE_NOT_ECT;
	if (outer_ecn == ECN_CE)
		ctr->peer[peer].rx_ce++;
	if (ecn != inner_ecn) {
		uint8_t tos = ecn_tos_with(imeta->tos, (uint8_t)ecn);
		uint8_t *ih = p + gi.inner_off;

		if (imeta->l3 == PKT_L3_IP4) {
			struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)ih;

			ip->type_of_service = tos;
			ip->hdr_checksum = rte_cpu_to_be_16(ecn_ipv4_csum_update_tos(
				rte_be_to_cpu_16(ip->hdr_checksum), imeta->tos, tos));
		} else {
			struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)ih;
			uint32_t vtc = rte_be_to_cpu_32(ip->vtc_flow);

			vtc = (vtc & ~(0xffu << 20)) | (uint32_t)tos << 20;
			ip->vtc_flow = rte_cpu_to_be_32(vtc);
		}
		if (ecn == ECN_CE)
			ctr->ecn_marked++;
		imeta->tos = tos;
	}
	/* Strip: keep only the inner IP packet. */
	if (m->pkt_len > gi.inner_off + imeta->ip_len)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - gi.inner_off - imeta->ip_len));
	rte_pktmbuf_adj(m, gi.inner_off);
	imeta->l4_off = (uint16_t)(imeta->l4_off - gi.inner_off);
	if (imeta->bth_off)
		imeta->bth_off = (uint16_t)(imeta->bth_off - gi.inner_off);
	imeta->l3_off = 0;
	*peer_out = (uint32_t)peer;
	return LS_DROP_NONE;
}

/* Next hop on the DC port for an inner destination: on-link or gateway. */
static inline enum ls_drop_reason
dp_dc_nexthop(const struct dp_port *dc, const uint8_t *ip, uint8_t l3, uint8_t *family,
	      const uint8_t **nh)
{
	if (l3 == PKT_L3_IP4) {
		const uint8_t *dst = ip + 16;
		uint32_t d;

		memcpy(&d, dst, 4);
		*family = AF_INET;
		if (dc->has_ip4 && dp_prefix4_match(d, dc->ip4, dc->ip4_prefix_len))
			*nh = dst;
		else if (dc->has_gw4)
			*nh = (const uint8_t *)&dc->gw4;
		else
			return LS_DROP_NO_ROUTE;
		return LS_DROP_NONE;
	}
	*family = AF_INET6;
	if (dc->has_ip6 && dp_prefix6_match(ip + 24, dc->ip6, dc->ip6_prefix_len))
		*nh = ip + 24;
	else if (dc->has_gw6)
		*nh = dc->gw6;
	else
		return LS_DROP_NO_ROUTE;
	return LS_DROP_NONE;
}

/* Egress toward the DC: prepend Ethernet [/ 802.1Q] for the inner packet. */
static enum ls_drop_reason
dp_dc_rewrite(const struct dp_port *dc, struct rte_mbuf *m, uint8_t l3,
	      const struct rte_ether_addr *dmac)
{
	uint16_t et = l3 == PKT_L3_IP4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6;
	uint16_t l2 = sizeof(struct rte_ether_hdr) + (dc->vlan ? sizeof(struct rte_vlan_hdr) : 0);
	struct rte_ether_hdr *eth;

	eth = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, l2);
	if (unlikely(eth == NULL))
		return LS_DROP_NO_HEADROOM;
	rte_ether_addr_copy(dmac, &eth->dst_addr);
	rte_ether_addr_copy(&dc->mac, &eth->src_addr);
	if (dc->vlan) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(dc->vlan);
		vh->eth_proto = rte_cpu_to_be_16(et);
	} else {
		eth->ether_type = rte_cpu_to_be_16(et);
	}
	m->l2_len = l2;
	return LS_DROP_NONE;
}

void
dp_pipeline_wan(struct dp_worker *w, const struct dp_conf *c, uint16_t port,
		struct rte_mbuf **pkts, uint16_t n, const struct dp_clock *clk, struct dp_tx *tx)
{
	const struct dp_port *pt = &c->ports[port];
	const struct dp_port *dc = &c->ports[c->dc_port];
	struct dp_counters *ctr = &w->counters;
	uint16_t i;

	RTE_SET_USED(clk);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct pkt_meta meta, imeta;
		struct rte_ether_addr dmac;
		const uint8_t *nh;
		uint32_t peer;
		uint8_t family;
		enum ls_drop_reason r;
		bool consumed;

		ctr->port[port].rx_pkts++;
		ctr->port[port].rx_bytes += m->pkt_len;

		/* Parser: outer headers. */
		r = dp_parse(w, c, port, m, &meta, &consumed);
		if (unlikely(r != LS_DROP_NONE)) {
			dp_drop(w, m, r);
			continue;
		}
		if (unlikely(consumed))
			continue;
		if (unlikely(meta.proto != IPPROTO_UDP || !meta.first_frag ||
			     meta.dport != c->geneve_port)) {
			const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
			bool ours = meta.l3 == PKT_L3_IP4 ?
					    ((const struct rte_ipv4_hdr *)(p + meta.l3_off))->dst_addr == pt->ip4 :
					    dp_ip6_is_ours(pt, ((const struct rte_ipv6_hdr *)(p + meta.l3_off))->dst_addr);

			dp_drop(w, m, ours ? LS_DROP_NOT_TUNNEL : LS_DROP_NOT_FOR_US);
			continue;
		}
		ctr->cls[DP_CLASS_TUNNEL]++;

		/* Ingress match-action: tunnel termination and peer lookup. */
		r = dp_decap(w, c, m, &meta, &imeta, &peer);
		if (unlikely(r != LS_DROP_NONE)) {
			dp_drop(w, m, r);
			continue;
		}
		ctr->cls[imeta.cls]++;
		if (unlikely(imeta.ip_len > dc->mtu)) {
			dp_drop(w, m, LS_DROP_MTU_EXCEEDED);
			continue;
		}
		ctr->peer[peer].rx_pkts++;
		ctr->peer[peer].rx_bytes += imeta.ip_len;

		/* Next hop in the DC. */
		r = dp_dc_nexthop(dc, rte_pktmbuf_mtod(m, const uint8_t *), imeta.l3, &family, &nh);
		if (unlikely(r != LS_DROP_NONE)) {
			dp_drop(w, m, r);
			continue;
		}
		switch (neigh_lookup(dc->neigh, family, nh, &dmac)) {
		case NEIGH_HIT:
			break;
		case NEIGH_PENDING:
			dp_drop(w, m, LS_DROP_NEIGH_MISS);
			continue;
		case NEIGH_ABSENT:
			dp_punt_resolve(w, m, c->dc_port, family, nh);
			continue;
		}

		/* Traffic manager hook (WAN -> DC shaping, mechanism C) goes here. */

		/* Egress / deparser. */
		r = dp_dc_rewrite(dc, m, imeta.l3, &dmac);
		if (unlikely(r != LS_DROP_NONE)) {
			dp_drop(w, m, r);
			continue;
		}
		dp_tx_add(tx, c->dc_port, m);
	}
}
