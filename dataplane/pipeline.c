/* SPDX-License-Identifier: BSD-3-Clause */
#include "pipeline.h"

#include <string.h>
#include <sys/socket.h>

#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_memcpy.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include "bits.h"
#include "cnp.h"
#include "congestion/ecn.h"
#include "csum.h"
#include "eth.h"
#include "geneve.h"
#include "hook_pipe.h"
#include "martian.h"
#include "mbuf_meta.h"
#include "neigh.h"
#include "parse.h"
#include "roce.h"

#define ICMP6_ECHO_REQUEST 128
#define ICMP6_NEIGH_SOLICIT 135
#define ICMP6_NEIGH_ADVERT 136

/* Ethernet + IPv4 + UDP + GENEVE + Longspan option: an untagged template. */
#define DP_TMPL_V4_SIZE (sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) + \
			 sizeof(struct rte_udp_hdr) + GENEVE_ENCAP_HDR_SIZE)

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

/*
 * The packet is dropped (neighbor_unresolved, its one count) and its mbuf
 * carries a request to resolve addr on port to the control thread: a
 * resolve request, not a punted packet.
 */
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
	w->counters.resolve_requests++;
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
	/*
	 * CRC-32C over src || dst || proto || sport || dport (docs/wire-format.md),
	 * fed to the CRC instruction in whole words: the same bytes in the same
	 * order give the same CRC as a byte-wise loop.
	 */
	const uint8_t *src = ip + (l3 == PKT_L3_IP4 ? 12 : 8);
	uint64_t w;
	uint32_t ports, h = 0;

	if (l3 == PKT_L3_IP4) {
		/*
		 * A fragment (MF or an offset) hashes without ports: only the
		 * first fragment has them, and all fragments of a datagram must
		 * take one WAN path. (An IPv6 fragment's protocol is 44, the
		 * Fragment header, so it has no ports either.)
		 */
		if ((ip[6] & 0x3f) != 0 || ip[7] != 0)
			sport = dport = 0;
		memcpy(&w, src, 8); /* source and destination, adjacent */
		h = dp_crc32c_u64(w, h);

	} else {
		unsigned int i;

		for (i = 0; i < 32; i += 8) {
			memcpy(&w, src + i, 8);
			h = dp_crc32c_u64(w, h);
		}
	}
	h = dp_crc32c_u8(proto, h);
	if (proto != IPPROTO_UDP && proto != IPPROTO_TCP)
		sport = dport = 0;
	/* Network order on the wire: sport high, sport low, dport high, dport low. */
	ports = (uint32_t)(sport >> 8) | (uint32_t)(sport & 0xff) << 8 |
		(uint32_t)(dport >> 8) << 16 | (uint32_t)(dport & 0xff) << 24;
	return dp_crc32c_u32(ports, h);
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
static __rte_always_inline enum ls_drop_reason
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
	/*
	 * The common case in one pass: RoCEv2 over untagged IPv4 to the port
	 * MAC, not addressed to the gateway. Anything else takes the general
	 * parser below, which names what is wrong with a malformed packet.
	 */
	if (likely(pt->vlan == 0 && parse_roce4_fast(p, m->data_len, meta) &&
		   rte_is_same_ether_addr(&((const struct rte_ether_hdr *)p)->dst_addr, &pt->mac) &&
		   (!pt->has_ip4 ||
		    ((const struct rte_ipv4_hdr *)(p + 14))->dst_addr != pt->ip4)))
		return LS_DROP_NONE;
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

/*
 * Ingress match-action: martian sources and destinations are not forwarded
 * (dataplane/martian.h), route the inner destination to a peer, TTL.
 */
static enum ls_drop_reason
dp_ingress_dc(const struct dp_conf *c, struct rte_mbuf *m, const struct pkt_meta *meta,
	      uint32_t *peer)
{
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, meta->l3_off);

	if (meta->l3 == PKT_L3_IP4) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;
		rte_be16_t old_w, new_w;

		if (unlikely(martian4(ip + 12)))
			return LS_DROP_MARTIAN_SRC;
		if (unlikely(martian4(ip + 16)))
			return LS_DROP_MARTIAN_DST;
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

		if (unlikely(martian6(h->src_addr)))
			return LS_DROP_MARTIAN_SRC;
		if (unlikely(martian6(h->dst_addr)))
			return LS_DROP_MARTIAN_DST;
		if (c->lpm6 == NULL || rte_lpm6_lookup(c->lpm6, h->dst_addr, peer) != 0)
			return LS_DROP_NO_ROUTE;
		if (h->hop_limits <= 1)
			return LS_DROP_TTL_EXPIRED;
		h->hop_limits--;
	}
	return LS_DROP_NONE;
}

/*
 * True when an inner packet is addressed to the DC port itself or, for
 * IPv4, to its subnet's broadcast address: not something to forward.
 */
static inline bool
dp_dc_is_local(const struct dp_port *dc, const uint8_t *ip, uint8_t l3)
{
	if (l3 == PKT_L3_IP4) {
		uint32_t d, host;

		if (!dc->has_ip4)
			return false;
		memcpy(&d, ip + 16, 4);
		if (d == dc->ip4)
			return true;
		host = dc->ip4_prefix_len >= 31 ? 0 : ~0u >> dc->ip4_prefix_len;
		return host != 0 && dp_prefix4_match(d, dc->ip4, dc->ip4_prefix_len) &&
		       (rte_be_to_cpu_32(d) & host) == host;
	}
	return dp_ip6_is_ours(dc, ip + 24);
}

/*
 * The addresses of a packet decapsulated from peer (inner IP header at
 * ip): no martian source or destination, no source inside the DC port's
 * own subnet (the receiving site's, spoofed), and with [peer] source_check
 * = strict a source whose longest match over every peer's prefixes is this
 * peer: the strict reverse path check of RFC 3704 2.2 on the tunnel.
 */
static inline enum ls_drop_reason
dp_inner_addr_check(const struct dp_conf *c, const struct dp_port *dc, uint32_t peer,
		    const uint8_t *ip, uint8_t l3)
{
	uint32_t match;

	if (l3 == PKT_L3_IP4) {
		uint32_t s;

		if (unlikely(martian4(ip + 12)))
			return LS_DROP_MARTIAN_SRC;
		if (unlikely(martian4(ip + 16)))
			return LS_DROP_MARTIAN_DST;
		memcpy(&s, ip + 12, 4);
		if (unlikely(dc->has_ip4 && dp_prefix4_match(s, dc->ip4, dc->ip4_prefix_len)))
			return LS_DROP_INNER_SRC_SPOOF;
		if (c->peers[peer].source_strict &&
		    (c->lpm4 == NULL || rte_lpm_lookup(c->lpm4, rte_be_to_cpu_32(s), &match) != 0 ||
		     match != peer))
			return LS_DROP_INNER_SRC_SPOOF;
		return LS_DROP_NONE;
	}
	if (unlikely(martian6(ip + 8)))
		return LS_DROP_MARTIAN_SRC;
	if (unlikely(martian6(ip + 24)))
		return LS_DROP_MARTIAN_DST;
	if (unlikely(dc->has_ip6 && dp_prefix6_match(ip + 8, dc->ip6, dc->ip6_prefix_len)))
		return LS_DROP_INNER_SRC_SPOOF;
	if (c->peers[peer].source_strict &&
	    (c->lpm6 == NULL || rte_lpm6_lookup(c->lpm6, ip + 8, &match) != 0 || match != peer))
		return LS_DROP_INNER_SRC_SPOOF;
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

/* Write the Longspan GENEVE option's per-packet fields. */
static inline void
dp_geneve_fill(struct dp_worker *w, uint8_t *g, uint16_t inner_et, uint32_t peer_idx,
	       const struct dp_clock *clk)
{
	struct geneve_ls_opt *opt = (struct geneve_ls_opt *)(g + GENEVE_HDR_SIZE);

	g[2] = (uint8_t)(inner_et >> 8);
	g[3] = (uint8_t)inner_et;
	opt->worker = dp_htons((uint16_t)w->id);
	opt->seq = dp_htonl(w->seq[peer_idx].tx_seq++);
	opt->tx_ns = dp_htonll(clk->ns);
}

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
	g[0] = sizeof(struct geneve_ls_opt) / 4; /* version 0, option length in words */
	g[4] = (uint8_t)(peer->vni >> 16);
	g[5] = (uint8_t)(peer->vni >> 8);
	g[6] = (uint8_t)peer->vni;
	opt->opt_class = rte_cpu_to_be_16(GENEVE_OPT_CLASS_LONGSPAN);
	opt->type = GENEVE_OPT_TYPE_TELEMETRY;
	opt->len = (sizeof(*opt) - 4) / 4;
	opt->version = GENEVE_LS_OPT_VERSION;
	/*
	 * The sum of the IPv4 header words that never change: everything but
	 * version/IHL/TOS, the total length and the checksum (both zero here).
	 */
	ip->version_ihl = 0;
	sum = rte_raw_cksum(ip, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	peer->tmpl_csum = sum;
	peer->tmpl_l2 = (uint8_t)l2;
	peer->tmpl_len = (uint8_t)(l2 + sizeof(*ip) + sizeof(*udp) + GENEVE_ENCAP_HDR_SIZE);
}

/*
 * Egress / deparser: prepend Ethernet / outer IP / UDP / GENEVE / Longspan
 * option (docs/wire-format.md) to an inner IP packet leaving the traffic
 * manager; the mbuf data starts at the inner IP header. An IPv4 underlay
 * copies the peer's template and patches the per-packet fields.
 */
static __rte_always_inline void
dp_encap(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m,
	 const struct dp_clock *clk)
{
	const struct dp_mbuf_meta *mm = dp_mbuf_meta(m);
	uint32_t peer_idx = mm->tm.peer;
	const struct dp_peer *peer = &c->peers[peer_idx];
	const struct dp_port *wan = &c->ports[peer->port];
	const uint8_t *inner = rte_pktmbuf_mtod(m, const uint8_t *);
	bool inner4 = (inner[0] >> 4) == 4;
	uint32_t hash = mm->tm.hash;
	uint16_t ip_len = (uint16_t)m->pkt_len;
	uint16_t udp_len = (uint16_t)(sizeof(struct rte_udp_hdr) + GENEVE_ENCAP_HDR_SIZE + ip_len);
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
		uint16_t tot = (uint16_t)(sizeof(struct rte_ipv4_hdr) + udp_len);
		uint32_t sum;

		/* Headroom was checked when the packet entered the traffic manager. */
		hdr = (uint8_t *)rte_pktmbuf_prepend(m, peer->tmpl_len);
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
		 * The template's constant sum plus the version/TOS word and the
		 * length. rte_raw_cksum() sums words as loaded from memory, so
		 * the added words go in the same (network) byte order and the
		 * result is stored as is.
		 */
		sum = peer->tmpl_csum + dp_htons((uint16_t)(RTE_IPV4_VHL_DEF << 8 | tos)) +
		      dp_htons(tot);
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		ip->hdr_checksum = (rte_be16_t)~sum;
		udp = (struct rte_udp_hdr *)(ip + 1);
		udp->src_port = dp_htons(geneve_src_port(hash));
		udp->dgram_len = dp_htons(udp_len);
		dp_geneve_fill(w, (uint8_t *)(udp + 1), inner_et, peer_idx, clk);
		m->l2_len = l2;
		m->l3_len = sizeof(struct rte_ipv4_hdr);
	} else {
		uint16_t l2 = sizeof(struct rte_ether_hdr) + (wan->vlan ? sizeof(struct rte_vlan_hdr) : 0);
		uint16_t l3 = sizeof(struct rte_ipv6_hdr);
		struct rte_ipv6_hdr *ip;
		struct geneve_ls_opt *opt;
		uint8_t *g;

		hdr = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)(l2 + l3 + sizeof(*udp) +
								   GENEVE_ENCAP_HDR_SIZE));
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
		g[0] = sizeof(struct geneve_ls_opt) / 4;
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
		/* A zero UDP checksum over IPv6 is only allowed under RFC 6936. */
		udp->dgram_cksum = rte_ipv6_udptcp_cksum(ip, udp);
		m->l2_len = l2;
		m->l3_len = l3;
	}
	w->counters.peer[peer_idx].tx_pkts++;
	w->counters.peer[peer_idx].tx_bytes += ip_len;
}

/* Set the ECN field of the IP header at ip (checksum patched for IPv4). */
static inline void
dp_ip_set_ecn(uint8_t *ip, uint8_t ecn)
{
	if ((ip[0] >> 4) == 4) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;
		uint8_t tos = ecn_tos_with(h->type_of_service, ecn);

		h->hdr_checksum = rte_cpu_to_be_16(ecn_ipv4_csum_update_tos(
			rte_be_to_cpu_16(h->hdr_checksum), h->type_of_service, tos));
		h->type_of_service = tos;
	} else {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)ip;
		uint32_t vtc = rte_be_to_cpu_32(h->vtc_flow);

		vtc = (vtc & ~(ECN_MASK << 20)) | (uint32_t)(ecn & ECN_MASK) << 20;
		h->vtc_flow = rte_cpu_to_be_32(vtc);
	}
}

static inline uint8_t
dp_ip_ecn(const uint8_t *ip)
{
	return (ip[0] >> 4) == 4 ? (ip[1] & ECN_MASK) : ((ip[1] >> 4) & ECN_MASK);
}

/* The flow key of the RoCE packet whose IP header is at ip. */
static inline void
dp_flow_key(const uint8_t *ip, uint8_t l3, uint16_t sport, uint32_t dqpn, struct flow_key *k)
{
	if (l3 == PKT_L3_IP4) {
		uint32_t a;

		memset(k, 0, sizeof(*k));
		k->family = AF_INET;
		memcpy(&a, ip + 12, 4);
		memcpy(k->src, &a, 4);
		memcpy(&a, ip + 16, 4);
		memcpy(k->dst, &a, 4);
	} else {
		k->pad = 0;
		k->family = AF_INET6;
		memcpy(k->src, ip + 8, 16);
		memcpy(k->dst, ip + 24, 16);
	}
	k->sport = sport;
	k->dqpn = dqpn;
}

static inline void
dp_learn_key(const struct flow_key *fk, struct qpn_learn_key *k)
{
	memset(k, 0, sizeof(*k));
	k->family = fk->family;
	k->sport = fk->sport;
	memcpy(k->src, fk->src, 16);
	memcpy(k->dst, fk->dst, 16);
	k->dest_qpn = fk->dqpn;
}

/*
 * Per-QP accounting of one RoCE packet (key and its flow_table_hash() h):
 * the flow table entry (created on first sight) with its counters, PSN
 * tracking and rate meter.
 */
static __rte_always_inline struct flow_entry *
dp_flow_account(struct dp_worker *w, const struct pkt_meta *meta, uint8_t dir, uint16_t peer,
		const struct dp_clock *clk, const struct flow_key *key, uint32_t h)
{
	struct flow_entry *fe;
	uint8_t ecn = ecn_of_tos(meta->tos);
	bool created;

	fe = flow_table_get_hashed(&w->flows, key, h, clk->ns, &created);
	if (unlikely(fe == NULL)) {
		w->counters.flows_full++;
		return NULL;
	}
	if (created) {
		w->counters.flows_created++;
		fe->dir = dir;
		fe->peer = peer;
		fe->next_psn = meta->psn;
	}
	fe->cls = meta->cls;
	fe->pkts++;
	fe->bytes += meta->ip_len;
	if (ecn == ECN_CE) {
		fe->ce_in++;
		fe->last_ce_ns = clk->ns;
	}
	else if (ecn != ECN_NOT_ECT)
		fe->ect_in++;
	if (meta->cls == DP_CLASS_ROCE_DATA) {
		if (meta->psn != fe->next_psn)
			fe->psn_ooo++;
		fe->next_psn = (meta->psn + 1) & QPN_LEARN_PSN_MASK;
	}
	flow_entry_meter(fe, meta->ip_len, clk->ns);
	return fe;
}

/* Send a gateway CNP to the local sender of flow fe (mechanism A); false if none left. */
static bool
dp_send_cnp(struct dp_worker *w, const struct dp_conf *c, const struct flow_entry *fe,
	    struct dp_tx *tx)
{
	const struct dp_port *dc = &c->ports[c->dc_port];
	struct dp_mech_counters *mc = &w->counters.mech;
	struct rte_ether_addr dmac;
	const uint8_t *nh;
	struct rte_mbuf *cnp;
	uint8_t family;
	uint8_t l3 = fe->key.family == AF_INET ? PKT_L3_IP4 : PKT_L3_IP6;
	uint8_t hdr[40];

	/* The sender's next hop in the DC, as for a packet addressed to it. */
	memset(hdr, 0, sizeof(hdr));
	if (l3 == PKT_L3_IP4)
		memcpy(hdr + 16, fe->key.src, 4);
	else
		memcpy(hdr + 24, fe->key.src, 16);
	if (dp_dc_nexthop(dc, hdr, l3, &family, &nh) != LS_DROP_NONE ||
	    neigh_lookup(dc->neigh, family, nh, &dmac) != NEIGH_HIT) {
		mc->cnp_no_neigh++;
		return false;
	}
	if (unlikely(tx->n[c->dc_port] >= DP_TX_MAX)) {
		/* No packet was dropped: the CNP is never built. */
		mc->cnp_tx_full++;
		return false;
	}
	cnp = cnp_build(w->pool, dc, &dmac, fe->key.family, fe->key.dst, fe->key.src,
			fe->key.sport, fe->sender_qpn, c->mech.cnp_dscp);
	if (unlikely(cnp == NULL)) {
		mc->cnp_no_mbuf++;
		return false;
	}
	mc->cnp_sent++;
	dp_tx_add_own(tx, c->dc_port, cnp);
	return true;
}

/*
 * Mechanism A's answer to a signalled RoCE data packet of flow fe, counted
 * in its class tmc: a CNP to the local sender, at most one per QP per
 * cnp_interval. Returns whether the CE policy lets the packet leave
 * without CE (the gateway CNP covers the QP).
 */
static bool
dp_mech_a_answer(struct dp_worker *w, const struct dp_conf *c, struct flow_entry *fe,
		 struct dp_tm_counters *tmc, const struct dp_clock *clk, struct dp_tx *tx)
{
	struct dp_mech_counters *mc = &w->counters.mech;
	struct proxy_cnp_verdict v = proxy_cnp_decide(&c->mech.cnp, &fe->cnp, fe->qpn_known, clk->ns);

	switch (v.reason) {
	case PROXY_CNP_SENT:
		/*
		 * No CNP could be built or queued: keep the signal in the
		 * packet so the far receiver's CNP still comes.
		 */
		if (dp_send_cnp(w, c, fe, tx)) {
			tmc->cnp_sent++;
		} else {
			tmc->cnp_failed++;
			v.clear_ce = false;
		}
		fe->cnp_sent++;
		if (fe->first_cnp_ns == 0)
			fe->first_cnp_ns = clk->ns;
		break;
	case PROXY_CNP_SUPPRESSED_RATE:
		fe->cnp_suppressed++;
		mc->cnp_suppressed++;
		tmc->cnp_suppressed++;
		break;
	default:
		fe->cnp_no_qpn++;
		mc->cnp_no_qpn++;
		tmc->cnp_no_qpn++;
		break;
	}
	return v.clear_ce;
}

/*
 * The congestion signal of one packet leaving toward the WAN in class tmc:
 * the gateway's marker said mark, and/or it arrived CE-marked from the DC
 * fabric. Mechanism A answers a signalled RoCE data packet with a CNP to
 * its local sender and may clear CE (CE policy); otherwise the mark is
 * written (ECT packets only).
 */
static void
dp_signal(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m, bool mark,
	  struct flow_entry *fe, struct dp_tm_counters *tmc, const struct dp_clock *clk,
	  struct dp_tx *tx)
{
	uint8_t *ip = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t ecn = dp_ip_ecn(ip);
	uint64_t cnps = tmc->cnp_sent;
	bool clear;

	if (mark)
		tmc->mark_decisions++;
	else if (ecn != ECN_CE)
		return;
	clear = (c->mech.mechanisms & LS_MECH_A) && fe != NULL &&
		dp_mech_a_answer(w, c, fe, tmc, clk, tx);
	if (tmc->cnp_sent != cnps)
		dp_mbuf_meta(m)->tm.flags |= DP_TM_F_CNP;
	if (clear) {
		if (ecn == ECN_CE) {
			/* RoCE NICs send ECT(0). */
			dp_ip_set_ecn(ip, ECN_ECT0);
			w->counters.mech.ce_cleared++;
			tmc->ce_cleared++;
		}
		return;
	}
	if (mark && (ecn == ECN_ECT0 || ecn == ECN_ECT1)) {
		dp_ip_set_ecn(ip, ECN_CE);
		dp_mbuf_meta(m)->tm.flags |= DP_TM_F_MARKED;
		w->counters.ecn_marked++;
		tmc->ce_written++;
		if (fe != NULL) {
			fe->marked++;
			if (fe->first_mark_ns == 0)
				fe->first_mark_ns = clk->ns;
		}
	}
}

static inline enum dp_tm_class
dp_tm_class_of(uint8_t cls)
{
	switch (cls) {
	case DP_CLASS_ROCE_CNP:
	case DP_CLASS_ROCE_ACK:
		return DP_TM_CLASS_CONTROL;
	case DP_CLASS_ROCE_DATA:
		return DP_TM_CLASS_ROCE;
	default:
		return DP_TM_CLASS_OTHER;
	}
}

/* A packet that passed ingress, on its way into a WAN traffic manager. */
struct dp_ready {
	struct rte_mbuf *m;
	struct flow_entry *fe; /* RoCE data: its flow entry (mechanism A) */
	uint32_t frame; /* Ethernet frame bytes once encapsulated */
	uint8_t cls; /* enum dp_tm_class */
	uint8_t port; /* the peer's WAN port */
};

/*
 * Traffic manager, enqueue side, first part: strip the inner Ethernet
 * header, check the encapsulated size against the WAN MTU and the headroom,
 * and remember the encapsulation in the mbuf metadata.
 */
static enum ls_drop_reason
dp_tm_prepare(const struct dp_conf *c, uint32_t peer_idx, struct rte_mbuf *m,
	      const struct pkt_meta *meta, const struct rte_ether_addr *dmac,
	      struct dp_ready *r)
{
	const struct dp_peer *peer = &c->peers[peer_idx];
	uint16_t port = peer->port;
	const struct dp_port *wan = &c->ports[port];
	uint16_t l2 = sizeof(struct rte_ether_hdr) + (wan->vlan ? sizeof(struct rte_vlan_hdr) : 0);
	uint16_t l3 = peer->family == AF_INET ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr);
	uint32_t outer_ip = (uint32_t)l3 + sizeof(struct rte_udp_hdr) + GENEVE_ENCAP_HDR_SIZE + meta->ip_len;
	struct dp_mbuf_meta *mm = dp_mbuf_meta(m);
	const uint8_t *inner;

	if (outer_ip > wan->mtu)
		return LS_DROP_MTU_EXCEEDED;
	if (rte_pktmbuf_headroom(m) + meta->l3_off < l2 + outer_ip - meta->ip_len)
		return LS_DROP_NO_HEADROOM;
	inner = rte_pktmbuf_mtod_offset(m, const uint8_t *, meta->l3_off);
	mm->tm.hash = dp_flow_hash(inner, meta->l3, meta->proto, meta->sport, meta->dport);
	mm->tm.peer = (uint8_t)peer_idx;
	mm->tm.flags = meta->cls == DP_CLASS_ROCE_DATA ? DP_TM_F_ROCE_DATA : 0;
	memcpy(mm->tm.dmac, dmac->addr_bytes, RTE_ETHER_ADDR_LEN);
	/* Keep only the inner IP packet: no inner Ethernet, no padding. */
	rte_pktmbuf_adj(m, meta->l3_off);
	if (m->pkt_len > meta->ip_len)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - meta->ip_len));
	r->m = m;
	r->frame = l2 + outer_ip;
	r->port = (uint8_t)port;
	/*
	 * Without a link rate nothing is shaped and nothing queues beyond one
	 * burst: one FIFO keeps the arrival order.
	 */
	r->cls = (uint8_t)(c->tm[port].enabled ? dp_tm_class_of(meta->cls) : DP_TM_CLASS_ROCE);
	return LS_DROP_NONE;
}

/* Queue one prepared packet; enqueue-time marking and signals. */
static void
dp_tm_queue(struct dp_worker *w, const struct dp_conf *c, const struct dp_ready *r,
	    const struct dp_clock *clk, struct dp_tx *tx)
{
	const struct dp_tm_conf *tc = &c->tm[r->port];
	struct dp_tm_counters *tmc = &w->counters.tm[r->port][r->cls];
	bool mark;

	if (!tm_enqueue(&w->tm[r->port], tc, w->counters.tm[r->port], r->cls, r->m, r->frame,
			clk->ns, clk->tsc, &mark)) {
		/*
		 * A drop is the strongest congestion signal there is: with
		 * mechanism A the sender hears of it within the DC round trip
		 * instead of from a NAK a WAN round trip later. Nothing is
		 * written into the packet: it does not leave.
		 */
		uint64_t cnps = tmc->cnp_sent;
		const struct dp_hooks *hk = dp_hook_set(w, c);

		if ((c->mech.mechanisms & LS_MECH_A) && r->fe != NULL)
			dp_mech_a_answer(w, c, r->fe, tmc, clk, tx);
		if (unlikely(dp_hooks_at(hk, LS_HOOK_WAN_TX)))
			dp_hook_pipe_tx(w, hk, LS_HOOK_WAN_TX, clk, r->port, dp_mbuf_meta(r->m)->tm.peer,
					r->frame, r->m, 0,
					tmc->cnp_sent != cnps ? LS_HOOK_V_CNP_GENERATED : 0,
					LS_DROP_TM_QUEUE_FULL, 0);
		dp_drop(w, r->m, LS_DROP_TM_QUEUE_FULL);
		return;
	}
	/*
	 * Enqueue-time verdict (RED, phantom) or a CE from upstream; with a
	 * dequeue-time marker (sojourn) both are handled when the packet leaves.
	 */
	if (r->cls != DP_TM_CLASS_CONTROL && !tc->mark_at_dequeue)
		dp_signal(w, c, r->m, mark, r->fe, tmc, clk, tx);
}

/*
 * May a burst of frames (wire bytes) skip the FIFOs of port p? Only when
 * nothing waits there, the shaper has the tokens for all of it now, and
 * queueing the burst could not have made the marker mark: the result is
 * then exactly that of queueing and dequeueing in the same poll, without
 * the round trip (the common, uncongested case).
 */
static inline bool
dp_tm_can_pass(struct dp_worker *w, const struct dp_conf *c, uint16_t p, uint64_t frames,
	       uint64_t wire, const struct dp_clock *clk)
{
	const struct dp_tm_conf *tc = &c->tm[p];
	struct tm_port *t = &w->tm[p];

	if (!tm_port_empty(t))
		return false;
	if (!tc->enabled)
		return true;
	if (tc->marker.kind == ECN_MARKER_RED && frames > tc->marker.red.kmin_bytes)
		return false;
	return token_bucket_conform(&tc->shaper, &t->tb, (uint32_t)RTE_MIN(wire, UINT32_MAX),
				    clk->tsc, false);
}

/*
 * The pass-through: encapsulate and send (dp_tm_burst() counts the packet
 * as queued and dequeued at once).
 */
static __rte_always_inline void
dp_tm_pass(struct dp_worker *w, const struct dp_conf *c, const struct dp_ready *r,
	   const struct dp_clock *clk, struct dp_tx *tx)
{
	const struct dp_tm_conf *tc = &c->tm[r->port];
	struct tm_port *t = &w->tm[r->port];
	struct dp_tm_counters *cc = &w->counters.tm[r->port][r->cls];
	bool mark = false;

	if (r->cls != DP_TM_CLASS_CONTROL) {
		/* The phantom queue sees every arrival; RED and sojourn see an empty queue. */
		if (unlikely(tc->marker.kind == ECN_MARKER_PHANTOM))
			mark = ecn_marker_decide(&t->marker[r->cls], 0, 0, r->frame, clk->ns) ==
			       ECN_VERDICT_MARK;
		if (unlikely(mark || (r->fe != NULL &&
				      dp_ip_ecn(rte_pktmbuf_mtod(r->m, uint8_t *)) == ECN_CE)))
			dp_signal(w, c, r->m, mark, r->fe, cc, clk, tx);
	}
	if (unlikely(dp_hooks_at(dp_hook_set(w, c), LS_HOOK_WAN_TX)))
		dp_hook_pipe_tx(w, dp_hook_set(w, c), LS_HOOK_WAN_TX, clk, r->port,
				dp_mbuf_meta(r->m)->tm.peer, r->frame, r->m, 0,
				dp_hook_tm_verdict(dp_mbuf_meta(r->m)->tm.flags), 0, 0);
	dp_encap(w, c, r->m, clk);
	dp_tx_add(tx, r->port, r->m);
}

/* Traffic manager for a burst of prepared packets, port by port. */
static void
dp_tm_burst(struct dp_worker *w, const struct dp_conf *c, const struct dp_ready *ready,
	    unsigned int n, const struct dp_clock *clk, struct dp_tx *tx)
{
	uint16_t p;
	unsigned int i;

	for (p = 0; p < c->n_ports; p++) {
		uint64_t frames = 0, wire = 0, bytes[DP_TM_CLASS_MAX];
		unsigned int cnt = 0, q, pkts[DP_TM_CLASS_MAX];
		bool pass;

		for (i = 0; i < n; i++) {
			if (ready[i].port != p)
				continue;
			frames += ready[i].frame;
			wire += ready[i].frame + TM_WIRE_OVERHEAD;
			cnt++;
		}
		if (cnt == 0)
			continue;
		pass = cnt + tx->n[p] <= (unsigned int)DP_TX_MAX &&
		       dp_tm_can_pass(w, c, p, frames, wire, clk);
		if (!pass) {
			for (i = 0; i < n; i++)
				if (ready[i].port == p)
					dp_tm_queue(w, c, &ready[i], clk, tx);
			continue;
		}
		/* Through an empty queue: depth and sojourn 0, counted per class once. */
		for (q = 0; q < DP_TM_CLASS_MAX; q++)
			pkts[q] = bytes[q] = 0;
		for (i = 0; i < n; i++) {
			if (ready[i].port != p)
				continue;
			pkts[ready[i].cls]++;
			bytes[ready[i].cls] += ready[i].frame;
			dp_tm_pass(w, c, &ready[i], clk, tx);
		}
		for (q = 0; q < DP_TM_CLASS_MAX; q++) {
			struct dp_tm_counters *cc = &w->counters.tm[p][q];

			if (pkts[q] == 0)
				continue;
			cc->enq_pkts += pkts[q];
			cc->enq_bytes += bytes[q];
			cc->deq_pkts += pkts[q];
			cc->deq_bytes += bytes[q];
			cc->depth_hist[0] += pkts[q];
			cc->sojourn_hist[0] += pkts[q];
		}
	}
}

/* The flow entry of a queued RoCE data packet (inner IP at the mbuf start). */
static struct flow_entry *
dp_tm_flow(struct dp_worker *w, struct rte_mbuf *m, const struct dp_clock *clk)
{
	const uint8_t *ip = rte_pktmbuf_mtod(m, const uint8_t *);
	bool v4 = (ip[0] >> 4) == 4;
	uint16_t l4 = v4 ? (uint16_t)((ip[0] & 0xf) * 4) : sizeof(struct rte_ipv6_hdr);
	const struct roce_bth *bth = (const struct roce_bth *)(ip + l4 + sizeof(struct rte_udp_hdr));
	struct flow_key k;

	dp_flow_key(ip, v4 ? PKT_L3_IP4 : PKT_L3_IP6, (uint16_t)(ip[l4] << 8 | ip[l4 + 1]),
		    roce_bth_dqpn(bth), &k);
	return flow_table_find(&w->flows, &k, clk->ns);
}

/*
 * Traffic manager, dequeue side, then the egress deparser: send what the
 * shaper allows on every WAN port, with dequeue-time (sojourn) marking.
 */
static void
dp_tm_out(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
	  struct dp_tx *tx)
{
	const struct dp_hooks *hk = dp_hook_set(w, c);
	bool htx = dp_hooks_at(hk, LS_HOOK_WAN_TX);
	uint16_t p;

	for (p = 0; p < c->n_ports; p++) {
		const struct dp_tm_conf *tc = &c->tm[p];
		struct tm_port *t = &w->tm[p];
		struct rte_mbuf *out[DP_MAX_BURST];
		uint8_t cls[DP_MAX_BURST];
		uint64_t soj[DP_MAX_BURST];
		unsigned int n, i, room;
		uint64_t due;

		if (c->ports[p].role != LS_PORT_WAN || tm_port_empty(t))
			continue;
		room = DP_TX_MAX - tx->n[p];
		n = tm_dequeue(t, tc, w->counters.tm[p], clk->tsc, out, cls, soj,
			       RTE_MIN(room, (unsigned int)DP_MAX_BURST));
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = out[i];

			if (tc->mark_at_dequeue && cls[i] != DP_TM_CLASS_CONTROL) {
				bool mark = ecn_marker_decide(&t->marker[cls[i]], t->q[cls[i]].bytes,
							      soj[i], dp_mbuf_meta(m)->tm.frame_bytes,
							      clk->ns) == ECN_VERDICT_MARK;
				struct flow_entry *fe = NULL;

				if ((mark || dp_ip_ecn(rte_pktmbuf_mtod(m, uint8_t *)) == ECN_CE) &&
				    (dp_mbuf_meta(m)->tm.flags & DP_TM_F_ROCE_DATA))
					fe = dp_tm_flow(w, m, clk);
				dp_signal(w, c, m, mark, fe, &w->counters.tm[p][cls[i]], clk, tx);
			}
			if (unlikely(htx))
				dp_hook_pipe_tx(w, hk, LS_HOOK_WAN_TX, clk, p, dp_mbuf_meta(m)->tm.peer,
						dp_mbuf_meta(m)->tm.frame_bytes, m, 0,
						dp_hook_tm_verdict(dp_mbuf_meta(m)->tm.flags), 0, soj[i]);
			dp_encap(w, c, m, clk);
			dp_tx_add(tx, p, m);
		}
		due = tm_next_due(t, tc, clk->tsc);
		if (due != UINT64_MAX && clk->tsc + due < w->next_due_tsc)
			w->next_due_tsc = clk->tsc + due;
	}
	if (unlikely(htx))
		dp_hook_flush(&w->hook, hk, LS_HOOK_WAN_TX);
}

/* Mechanism C, DC -> WAN: a local receiver's CNP starts shaping its QP. */
static void
dp_mech_c_cnp(struct dp_worker *w, const struct dp_conf *c, const struct flow_key *k,
	      const struct dp_clock *clk)
{
	struct dp_mech_counters *mc = &w->counters.mech;
	const struct qpn_learn_entry *le;
	struct hold_entry *he;
	struct flow_entry *data;
	struct flow_key dk;

	mc->trp_cnps++;
	/* The CNP goes receiver -> sender; the data flow it is about goes back. */
	le = qpn_learn_find_sender(&w->learn_dst, k->family, k->dst, k->src, k->dqpn, clk->ns);
	if (le == NULL) {
		mc->trp_no_flow++;
		return;
	}
	he = hold_get(&w->hold, &le->key);
	if (he == NULL) {
		mc->trp_table_full++;
		return;
	}
	memset(&dk, 0, sizeof(dk));
	dk.family = le->key.family;
	dk.sport = le->key.sport;
	dk.dqpn = le->key.dest_qpn;
	memcpy(dk.src, le->key.src, 16);
	memcpy(dk.dst, le->key.dst, 16);
	data = flow_table_find(&w->flows, &dk, clk->ns);
	/*
	 * Data that reached this gateway already CE-marked was congested before
	 * or on the WAN, where shaping here cannot help (and throttles the QP
	 * twice): leave that to the sender and mechanism A.
	 */
	if (data != NULL && data->last_ce_ns != 0 &&
	    clk->ns - data->last_ce_ns < c->mech.trp.hold_ns) {
		mc->trp_upstream_ce++;
		if (!trp_active(&c->mech.trp, &he->trp, clk->ns))
			hold_release(&w->hold, he);
		return;
	}
	if (!trp_active(&c->mech.trp, &he->trp, clk->ns))
		mc->trp_activations++;
	trp_on_cnp(&c->mech.trp, &he->trp, clk->ns, data != NULL ? data->rate_bps : 0);
}

/*
 * Mechanisms and flow accounting of a RoCE packet going DC -> WAN: key with
 * its flow_table_hash() h and, for data under mechanism A, the learner's
 * qpn_learn_pair_hash() (both computed and prefetched in the first pass).
 */
static __rte_always_inline struct flow_entry *
dp_roce_dc(struct dp_worker *w, const struct dp_conf *c, const struct pkt_meta *meta,
	   uint32_t peer, const struct dp_clock *clk, const struct flow_key *k, uint32_t h,
	   uint32_t learn_hash)
{
	unsigned int mech = c->mech.mechanisms;
	struct dp_mech_counters *mc = &w->counters.mech;
	struct flow_entry *fe;

	fe = dp_flow_account(w, meta, FLOW_DC_TO_WAN, (uint16_t)peer, clk, k, h);
	if (meta->cls == DP_CLASS_ROCE_DATA && (mech & LS_MECH_A)) {
		struct qpn_learn_key lk;
		uint32_t qpn = 0;
		enum qpn_learn_result r;

		dp_learn_key(k, &lk);
		r = qpn_learn_on_data_hashed(&w->learn_src, &lk, learn_hash, meta->psn, clk->ns,
					     &qpn);
		mc->learn[r]++;
		if (fe != NULL && r == QPN_LEARN_DATA_KNOWN) {
			fe->qpn_known = 1;
			fe->sender_qpn = qpn;
		}
	} else if (meta->cls == DP_CLASS_ROCE_ACK && (mech & LS_MECH_C)) {
		/* A local receiver's ACK names the remote sender's QPN. */
		mc->learn_dst[qpn_learn_on_ack(&w->learn_dst, k->family, k->src, k->dst, k->dqpn,
					       meta->psn, clk->ns)]++;
	} else if (meta->cls == DP_CLASS_ROCE_CNP && (mech & LS_MECH_C)) {
		dp_mech_c_cnp(w, c, k, clk);
	}
	return meta->cls == DP_CLASS_ROCE_DATA ? fe : NULL;
}

/* Packets whose headers the parser prefetches ahead of the one it parses. */
#define DP_PREFETCH_AHEAD 4

/* A packet between the two passes of dp_pipeline_dc(). */
struct dp_dc_pkt {
	struct rte_mbuf *m;
	uint32_t peer;
	uint32_t hash; /* flow_table_hash(&key) when RoCE */
	uint32_t learn_hash; /* RoCE data with mechanism A: qpn_learn_pair_hash() */
	struct rte_ether_addr dmac; /* next hop of the outer packet */
	struct pkt_meta meta;
	struct flow_key key; /* RoCE: the per-QP flow key */
};

void
dp_pipeline_dc(struct dp_worker *w, const struct dp_conf *c, uint16_t port,
	       struct rte_mbuf **pkts, uint16_t n, const struct dp_clock *clk, struct dp_tx *tx)
{
	struct dp_counters *ctr = &w->counters;
	struct dp_ready ready[DP_MAX_BURST];
	struct dp_dc_pkt st[DP_MAX_BURST];
	const struct dp_hooks *hk;
	struct rte_ether_addr dmac;
	uint32_t dmac_peer = UINT32_MAX; /* the peer whose next hop dmac holds */
	uint64_t rx_bytes = 0;
	unsigned int nready = 0, nst = 0, j;
	bool hrx;
	uint16_t i;

	/*
	 * First pass: parser and the route, and for RoCE the flow key, whose
	 * table slot is prefetched so that the second pass finds it in cache
	 * (with many flows the table is far larger than the L2 cache). Headers
	 * of packets a few places ahead are prefetched the same way.
	 */
	for (i = 0; i < n && i < DP_PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct dp_dc_pkt *s = &st[nst];
		const struct dp_peer *peer;
		enum ls_drop_reason r;
		bool consumed;

		if (i + DP_PREFETCH_AHEAD < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + DP_PREFETCH_AHEAD], void *));
		rx_bytes += m->pkt_len;

		/* Parser. */
		r = dp_parse(w, c, port, m, &s->meta, &consumed);
		if (unlikely(r != LS_DROP_NONE)) {
			dp_drop(w, m, r);
			continue;
		}
		if (unlikely(consumed))
			continue;
		ctr->cls[s->meta.cls]++;

		/* Ingress match-action: route and TTL. */
		r = dp_ingress_dc(c, m, &s->meta, &s->peer);
		if (unlikely(r != LS_DROP_NONE)) {
			dp_drop(w, m, r);
			continue;
		}
		peer = &c->peers[s->peer];

		/* Next hop of the outer packet on the peer's WAN port, once per peer and burst. */
		if (s->peer != dmac_peer) {
			switch (neigh_lookup(c->ports[peer->port].neigh, peer->family, peer->nexthop,
					     &dmac)) {
			case NEIGH_HIT:
				dmac_peer = s->peer;
				break;
			case NEIGH_PENDING:
				dp_drop(w, m, LS_DROP_NEIGH_MISS);
				continue;
			case NEIGH_ABSENT:
				dp_punt_resolve(w, m, peer->port, peer->family, peer->nexthop);
				continue;
			}
		}
		s->dmac = dmac;
		s->m = m;
		if (s->meta.bth_off != 0) {
			dp_flow_key(rte_pktmbuf_mtod_offset(m, const uint8_t *, s->meta.l3_off),
				    s->meta.l3, s->meta.sport, s->meta.dqpn, &s->key);
			s->hash = flow_table_hash(&s->key);
			flow_table_prefetch(&w->flows, s->hash);
			s->learn_hash = 0;
			if (s->meta.cls == DP_CLASS_ROCE_DATA && (c->mech.mechanisms & LS_MECH_A)) {
				s->learn_hash = qpn_learn_pair_hash(s->key.family, s->key.src,
								    s->key.dst);
				qpn_learn_prefetch(&w->learn_src, s->learn_hash);
			}
		}
		nst++;
	}
	ctr->port[port].rx_pkts += n;
	ctr->port[port].rx_bytes += rx_bytes;

	/* Second pass. */
	hk = dp_hook_set(w, c);
	hrx = dp_hooks_at(hk, LS_HOOK_DC_RX);
	for (j = 0; j < nst; j++) {
		struct dp_dc_pkt *s = &st[j];
		enum ls_drop_reason r;

		/* Ingress match-action: the per-QP flow table, mechanisms A and C. */
		ready[nready].fe = s->meta.bth_off != 0 ?
			dp_roce_dc(w, c, &s->meta, s->peer, clk, &s->key, s->hash, s->learn_hash) :
			NULL;
		if (unlikely(hrx))
			dp_hook_pipe_rx(w, hk, LS_HOOK_DC_RX, clk, port, s->peer, s->m->pkt_len,
					rte_pktmbuf_mtod_offset(s->m, const uint8_t *, s->meta.l3_off),
					s->meta.ip_len, s->meta.bth_off != 0 ? s->hash : 0,
					ready[nready].fe);

		/* Traffic manager, enqueue side: size, headroom, encapsulation plan. */
		r = dp_tm_prepare(c, s->peer, s->m, &s->meta, &s->dmac, &ready[nready]);
		if (unlikely(r != LS_DROP_NONE)) {
			if (unlikely(dp_hooks_at(hk, LS_HOOK_WAN_TX)))
				dp_hook_pipe_tx(w, hk, LS_HOOK_WAN_TX, clk, c->peers[s->peer].port,
						s->peer, s->m->pkt_len, s->m, s->meta.l3_off, 0,
						(uint16_t)r, 0);
			dp_drop(w, s->m, r);
			continue;
		}
		nready++;
	}
	if (unlikely(hrx))
		dp_hook_flush(&w->hook, hk, LS_HOOK_DC_RX);

	/* Traffic manager: WAN queues, ECN marking, gateway CNPs. */
	dp_tm_burst(w, c, ready, nready, clk, tx);
	/* Egress / deparser: what the shapers let out now, encapsulated. */
	dp_tm_out(w, c, clk, tx);
}

void
dp_pipeline_tm(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
	       struct dp_tx *tx)
{
	dp_tm_out(w, c, clk, tx);
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
 * The peer's outer UDP checksum policy (docs/wire-format.md): zero means
 * no checksum over IPv4 (RFC 768) and is dropped over IPv6 unless the peer
 * may send it (RFC 6935, 6936); a non-zero one is verified unless the peer
 * says ignore (RFC 8926 section 3.3 lets the decapsulator choose).
 */
static inline enum ls_drop_reason
dp_decap_csum(const struct dp_peer *peer, uint8_t family, const uint8_t *src, const uint8_t *dst,
	      const uint8_t *udp, uint16_t udp_len)
{
	if (((const struct rte_udp_hdr *)udp)->dgram_cksum == 0)
		return family == AF_INET6 && !peer->zero_csum6_ok ? LS_DROP_UDP_ZERO_CSUM6 :
								    LS_DROP_NONE;
	if (peer->csum_verify &&
	    !csum_udp_ok(src, dst, family == AF_INET ? 4 : 16, udp, udp_len))
		return LS_DROP_UDP_CSUM;
	return LS_DROP_NONE;
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
	/* The parser bounded the UDP datagram by the IP packet; keep it so here. */
	if (unlikely(udp_end > (uint32_t)meta->l3_off + meta->ip_len || udp_end > m->data_len))
		return LS_DROP_UDP_LEN;
	peer = dp_peer_find(c, family, src);
	if (peer < 0)
		return LS_DROP_UNKNOWN_PEER;
	if (memcmp(dst, c->peers[peer].src, family == AF_INET ? 4 : 16) != 0)
		return LS_DROP_NOT_FOR_US;
	r = dp_decap_csum(&c->peers[peer], family, src, dst, p + meta->l4_off,
			  (uint16_t)(udp_end - meta->l4_off));
	if (r != LS_DROP_NONE)
		return r;
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
	eth_hdr_write(eth, dmac, &dc->mac, dc->vlan, 0, et);
	m->l2_len = l2;
	return LS_DROP_NONE;
}

/*
 * Mechanisms and flow accounting of a RoCE packet coming from the WAN, now
 * decapsulated (its IP header at the start of the mbuf). Returns the hold
 * slot when mechanism C shapes this QP.
 */
static struct hold_entry *
dp_roce_wan(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m,
	    const struct pkt_meta *meta, uint32_t peer, const struct dp_clock *clk)
{
	const uint8_t *ip = rte_pktmbuf_mtod(m, const uint8_t *);
	unsigned int mech = c->mech.mechanisms;
	struct dp_mech_counters *mc = &w->counters.mech;
	struct flow_key k;

	dp_flow_key(ip, meta->l3, meta->sport, meta->dqpn, &k);
	dp_flow_account(w, meta, FLOW_WAN_TO_DC, (uint16_t)peer, clk, &k, flow_table_hash(&k));
	if (meta->cls == DP_CLASS_ROCE_ACK && (mech & LS_MECH_A)) {
		/* A remote receiver's ACK names the local sender's QPN. */
		mc->learn[qpn_learn_on_ack(&w->learn_src, k.family, k.src, k.dst, k.dqpn,
					   meta->psn, clk->ns)]++;
	} else if (meta->cls == DP_CLASS_ROCE_DATA && (mech & LS_MECH_C)) {
		struct qpn_learn_key lk;

		dp_learn_key(&k, &lk);
		mc->learn_dst[qpn_learn_on_data(&w->learn_dst, &lk, meta->psn, clk->ns, NULL)]++;
		return hold_find(&w->hold, &lk);
	}
	return NULL;
}

/* Mechanism C: release held packets the QPs' reaction points allow now. */
static void
dp_hold_out(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
	    struct dp_tx *tx)
{
	struct dp_mech_counters *mc = &w->counters.mech;
	uint64_t active = 0;
	unsigned int i;

	if (w->hold.used == 0) {
		mc->trp_active = 0;
		return;
	}
	for (i = 0; i < HOLD_SLOTS; i++) {
		struct hold_entry *he = &w->hold.e[i];

		if (!he->used)
			continue;
		while (hold_count(he) != 0 && tx->n[c->dc_port] < DP_TX_MAX) {
			struct rte_mbuf *m = he->ring[he->head & (HOLD_QUEUE - 1)];
			struct trp_verdict v = trp_allow(&c->mech.trp, &he->trp, m->pkt_len, clk->ns);

			if (v.action != TRP_SEND) {
				uint64_t due = clk->tsc + (v.until_ns - clk->ns) * w->tsc_hz / 1000000000u;

				if (due < w->next_due_tsc)
					w->next_due_tsc = due;
				break;
			}
			he->head++;
			mc->trp_released++;
			mc->trp_queued--;
			if (unlikely(dp_hooks_at(dp_hook_set(w, c), LS_HOOK_DC_TX)))
				dp_hook_pipe_tx(w, dp_hook_set(w, c), LS_HOOK_DC_TX, clk, c->dc_port,
						LS_HOOK_NO_PEER, m->pkt_len, m, m->l2_len,
						LS_HOOK_V_FORWARDED | LS_HOOK_V_HELD, 0,
						(clk->tsc - dp_mbuf_meta(m)->tm.enq_tsc) * 1000000000u /
							w->tsc_hz);
			dp_tx_add(tx, c->dc_port, m);
		}
		if (trp_active(&c->mech.trp, &he->trp, clk->ns))
			active++;
		else
			hold_release(&w->hold, he);
	}
	mc->trp_active = active;
}

void
dp_pipeline_hold(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
		 struct dp_tx *tx)
{
	const struct dp_hooks *hk = dp_hook_set(w, c);

	dp_hold_out(w, c, clk, tx);
	if (unlikely(dp_hooks_at(hk, LS_HOOK_DC_TX)))
		dp_hook_flush(&w->hook, hk, LS_HOOK_DC_TX);
}

void
dp_pipeline_wan(struct dp_worker *w, const struct dp_conf *c, uint16_t port,
		struct rte_mbuf **pkts, uint16_t n, const struct dp_clock *clk, struct dp_tx *tx)
{
	const struct dp_port *pt = &c->ports[port];
	const struct dp_port *dc = &c->ports[c->dc_port];
	struct dp_counters *ctr = &w->counters;
	const struct dp_hooks *hk = dp_hook_set(w, c);
	bool hrx = dp_hooks_at(hk, LS_HOOK_WAN_RX), htx = dp_hooks_at(hk, LS_HOOK_DC_TX);
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t frame = m->pkt_len;
		struct pkt_meta meta, imeta;
		struct rte_ether_addr dmac;
		struct hold_entry *he = NULL;
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
		/*
		 * Tunnel packets are never fragments: GENEVE endpoints set DF, and
		 * a fragment's UDP length covers bytes the frame does not hold.
		 */
		if (unlikely(meta.proto != IPPROTO_UDP || !meta.first_frag || meta.fragmented ||
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
		r = dp_inner_addr_check(c, dc, peer, rte_pktmbuf_mtod(m, const uint8_t *), imeta.l3);
		if (unlikely(r != LS_DROP_NONE)) {
			dp_drop(w, m, r);
			continue;
		}
		if (unlikely(imeta.ip_len > dc->mtu)) {

			dp_drop(w, m, LS_DROP_MTU_EXCEEDED);
			continue;
		}
		ctr->peer[peer].rx_pkts++;
		ctr->peer[peer].rx_bytes += imeta.ip_len;

		/* The gateway's own DC addresses are not forwarded to. */
		if (unlikely(dp_dc_is_local(dc, rte_pktmbuf_mtod(m, const uint8_t *), imeta.l3))) {
			dp_drop(w, m, LS_DROP_LOCAL_DELIVER);
			continue;
		}

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

		/* Ingress match-action: the per-QP flow table, mechanisms A and C. */
		if (imeta.bth_off != 0)
			he = dp_roce_wan(w, c, m, &imeta, peer, clk);
		if (unlikely(hrx))
			dp_hook_pipe_rx(w, hk, LS_HOOK_WAN_RX, clk, port, peer, frame,
					rte_pktmbuf_mtod(m, const uint8_t *), imeta.ip_len, 0, NULL);

		/* Egress / deparser. */
		r = dp_dc_rewrite(dc, m, imeta.l3, &dmac);
		if (unlikely(r != LS_DROP_NONE)) {
			if (unlikely(htx))
				dp_hook_pipe_tx(w, hk, LS_HOOK_DC_TX, clk, c->dc_port, peer, m->pkt_len,
						m, 0, 0, (uint16_t)r, 0);
			dp_drop(w, m, r);
			continue;
		}

		/* Traffic manager, WAN -> DC: a QP shaped by mechanism C waits its turn. */
		if (unlikely(he != NULL) &&
		    (hold_count(he) != 0 ||
		     trp_allow(&c->mech.trp, &he->trp, m->pkt_len, clk->ns).action != TRP_SEND)) {
			if (unlikely(htx))
				dp_mbuf_meta(m)->tm.enq_tsc = clk->tsc; /* its sojourn at dc_tx */
			if (!hold_push(he, m)) {
				if (unlikely(htx))
					dp_hook_pipe_tx(w, hk, LS_HOOK_DC_TX, clk, c->dc_port, peer,
							m->pkt_len, m, m->l2_len, 0,
							LS_DROP_TRP_QUEUE_FULL, 0);
				dp_drop(w, m, LS_DROP_TRP_QUEUE_FULL);
				continue;
			}
			ctr->mech.trp_delayed++;
			ctr->mech.trp_queued++;
			continue;
		}
		if (unlikely(htx))
			dp_hook_pipe_tx(w, hk, LS_HOOK_DC_TX, clk, c->dc_port, peer, m->pkt_len, m,
					m->l2_len, LS_HOOK_V_FORWARDED, 0, 0);
		dp_tx_add(tx, c->dc_port, m);
	}
	if (unlikely(hrx))
		dp_hook_flush(&w->hook, hk, LS_HOOK_WAN_RX);
	dp_hold_out(w, c, clk, tx);
	if (unlikely(htx))
		dp_hook_flush(&w->hook, hk, LS_HOOK_DC_TX);
}
