/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control-thread side of layer 2 and local delivery: answers ARP requests,
 * IPv6 neighbour solicitations and echo requests for the gateway's own
 * addresses, learns neighbours from ARP/ND, resolves next hops the workers
 * asked for, and keeps the neighbour tables fresh.
 *
 * Packets arrive from the workers' punt rings and leave through worker 0's
 * inject ring, so each port queue keeps a single writer.
 */
#include "l2.h"

#include <string.h>
#include <sys/socket.h>

#include <rte_arp.h>
#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dataplane/eth.h"
#include "dataplane/mbuf_meta.h"
#include "dataplane/neigh.h"
#include "dataplane/parse.h"

#define ICMP6_ECHO_REQUEST 128
#define ICMP6_ECHO_REPLY 129
#define ICMP6_NS 135
#define ICMP6_NA 136
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define ND_NA_FLAG_ROUTER 0x80
#define ND_NA_FLAG_SOLICITED 0x40
#define ND_NA_FLAG_OVERRIDE 0x20
#define ND_HOP_LIMIT 255
#define ND_MSG_SIZE 24 /* type, code, checksum, flags/reserved, target */

#define L2_RETRY_NS (1000ull * 1000 * 1000) /* one request per second per address */
#define L2_INCOMPLETE_TIMEOUT_NS (3ull * L2_RETRY_NS)

static const struct rte_ether_addr l2_bcast = {
	.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }
};

/* Queue a control-built frame for transmission on port. */
static void
l2_send(struct ls_runtime *rt, unsigned int port, struct rte_mbuf *m)
{
	dp_mbuf_meta(m)->port = (uint8_t)port;
	if (rt->n_workers == 0 || rte_ring_mp_enqueue(rt->workers[0]->inject, m) != 0) {
		rt->l2.tx_failed++;
		rte_pktmbuf_free(m);
		return;
	}
	rt->l2.tx++;
}

/*
 * Allocate a frame with an Ethernet header (and the port's VLAN tag) and
 * return a pointer to its payload of payload_size bytes.
 */
static uint8_t *
l2_frame(struct ls_runtime *rt, const struct dp_port *pt, const struct rte_ether_addr *dst,
	 uint16_t ether_type, uint16_t payload_size, struct rte_mbuf **out)
{
	uint16_t l2 = sizeof(struct rte_ether_hdr) + (pt->vlan ? sizeof(struct rte_vlan_hdr) : 0);
	struct rte_mbuf *m = rte_pktmbuf_alloc(rt->pool);
	struct rte_ether_hdr *eth;

	if (m == NULL) {
		rt->l2.alloc_failed++;
		return NULL;
	}
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)(l2 + payload_size));
	if (eth == NULL) {
		rte_pktmbuf_free(m);
		rt->l2.alloc_failed++;
		return NULL;
	}
	memset(eth, 0, (size_t)l2 + payload_size);
	eth_hdr_write(eth, dst, &pt->mac, pt->vlan, 0, ether_type);
	*out = m;
	return (uint8_t *)eth + l2;
}

static void
l2_arp_send(struct ls_runtime *rt, unsigned int port, uint16_t op,
	    const struct rte_ether_addr *eth_dst, const struct rte_ether_addr *tha, uint32_t tip)
{
	const struct dp_port *pt = &rt->dp->ports[port];
	struct rte_arp_hdr *arp;
	struct rte_mbuf *m;

	arp = (struct rte_arp_hdr *)l2_frame(rt, pt, eth_dst, RTE_ETHER_TYPE_ARP, sizeof(*arp), &m);
	if (arp == NULL)
		return;
	arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(op);
	rte_ether_addr_copy(&pt->mac, &arp->arp_data.arp_sha);
	arp->arp_data.arp_sip = pt->ip4;
	rte_ether_addr_copy(tha, &arp->arp_data.arp_tha);
	arp->arp_data.arp_tip = tip;
	l2_send(rt, port, m);
}

/* Solicited-node multicast address ff02::1:ffXX:XXXX and its MAC. */
static void
l2_solicited_node(const uint8_t *target, uint8_t *ip, struct rte_ether_addr *mac)
{
	static const uint8_t pfx[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff };

	memcpy(ip, pfx, sizeof(pfx));
	memcpy(ip + 13, target + 13, 3);
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], ip + 12, 4);
}

/* Build an NS or NA with one link-layer address option. */
static void
l2_nd_send(struct ls_runtime *rt, unsigned int port, uint8_t type, uint8_t flags,
	   const uint8_t *src, const uint8_t *dst, const struct rte_ether_addr *eth_dst,
	   const uint8_t *target)
{
	const struct dp_port *pt = &rt->dp->ports[port];
	uint16_t plen = ND_MSG_SIZE + 8;
	struct rte_ipv6_hdr *ip;
	struct rte_mbuf *m;
	uint8_t *icmp;

	ip = (struct rte_ipv6_hdr *)l2_frame(rt, pt, eth_dst, RTE_ETHER_TYPE_IPV6,
					     (uint16_t)(sizeof(*ip) + plen), &m);
	if (ip == NULL)
		return;
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(plen);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = ND_HOP_LIMIT;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	icmp = (uint8_t *)(ip + 1);
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target, 16);
	icmp[ND_MSG_SIZE] = type == ICMP6_NS ? ND_OPT_SLLA : ND_OPT_TLLA;
	icmp[ND_MSG_SIZE + 1] = 1; /* 8 bytes */
	memcpy(icmp + ND_MSG_SIZE + 2, pt->mac.addr_bytes, 6);
	*(rte_be16_t *)(icmp + 2) = rte_ipv6_udptcp_cksum(ip, icmp);
	l2_send(rt, port, m);
}

static bool
l2_in_subnet4(const struct dp_port *pt, uint32_t a_be)
{
	uint32_t mask = pt->ip4_prefix_len == 0 ? 0 : ~0u << (32 - pt->ip4_prefix_len);

	return pt->has_ip4 && ((rte_be_to_cpu_32(a_be) ^ rte_be_to_cpu_32(pt->ip4)) & mask) == 0;
}

static void
l2_arp_input(struct ls_runtime *rt, unsigned int port, const uint8_t *p, uint32_t len,
	     uint64_t now_ns)
{
	const struct dp_port *pt = &rt->dp->ports[port];
	const struct rte_arp_hdr *arp = (const struct rte_arp_hdr *)p;
	struct neigh_table *nt = rt->neigh[port];
	uint32_t sip, tip;
	uint16_t op;
	bool for_us;

	if (len < sizeof(*arp) || rte_be_to_cpu_16(arp->arp_hardware) != RTE_ARP_HRD_ETHER ||
	    rte_be_to_cpu_16(arp->arp_protocol) != RTE_ETHER_TYPE_IPV4 ||
	    arp->arp_hlen != RTE_ETHER_ADDR_LEN || arp->arp_plen != 4) {
		rt->l2.invalid++;
		return;
	}
	op = rte_be_to_cpu_16(arp->arp_opcode);
	sip = arp->arp_data.arp_sip;
	tip = arp->arp_data.arp_tip;
	for_us = pt->has_ip4 && tip == pt->ip4;
	if (op != RTE_ARP_OP_REQUEST && op != RTE_ARP_OP_REPLY) {
		rt->l2.invalid++;
		return;
	}
	/* RFC 826 merge: refresh a known sender; create one that talks to us. */
	if (sip != 0 && l2_in_subnet4(pt, sip) && rte_is_unicast_ether_addr(&arp->arp_data.arp_sha) &&
	    (for_us || neigh_find(nt, AF_INET, (const uint8_t *)&sip) != NULL)) {
		if (neigh_update(nt, AF_INET, (const uint8_t *)&sip, &arp->arp_data.arp_sha, false,
				 now_ns) > 0)
			rt->l2.learned++;
	}
	if (op == RTE_ARP_OP_REQUEST && for_us) {
		rt->l2.arp_replies++;
		l2_arp_send(rt, port, RTE_ARP_OP_REPLY, &arp->arp_data.arp_sha,
			    &arp->arp_data.arp_sha, sip);
	}
}

/* Find a link-layer address option of the given type after the ND message. */
static const uint8_t *
l2_nd_lladdr(const uint8_t *opt, uint32_t len, uint8_t type)
{
	while (len >= 8) {
		uint32_t olen = (uint32_t)opt[1] * 8;

		if (olen == 0 || olen > len)
			return NULL;
		if (opt[0] == type && olen == 8)
			return opt + 2;
		opt += olen;
		len -= olen;
	}
	return NULL;
}

static bool
l2_ip6_is_ours(const struct dp_port *pt, const uint8_t *a)
{
	return (pt->has_ip6 && memcmp(a, pt->ip6, 16) == 0) || memcmp(a, pt->ip6_ll, 16) == 0;
}

static void
l2_nd_input(struct ls_runtime *rt, unsigned int port, const uint8_t *ipb, uint32_t len,
	    uint64_t now_ns)
{
	static const uint8_t unspec[16];
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	const struct dp_port *pt = &rt->dp->ports[port];
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)ipb;
	struct neigh_table *nt = rt->neigh[port];
	const uint8_t *icmp = ipb + sizeof(*ip);
	uint32_t ilen = len - (uint32_t)sizeof(*ip);
	const uint8_t *target, *lla;

	if (ip->hop_limits != ND_HOP_LIMIT || ilen < ND_MSG_SIZE || icmp[1] != 0 ||
	    rte_ipv6_udptcp_cksum_verify(ip, icmp) != 0) {
		rt->l2.invalid++;
		return;
	}
	target = icmp + 8;
	if (icmp[0] == ICMP6_NS) {
		bool from_unspec = memcmp(ip->src_addr, unspec, 16) == 0;

		lla = l2_nd_lladdr(icmp + ND_MSG_SIZE, ilen - ND_MSG_SIZE, ND_OPT_SLLA);
		if (!from_unspec && lla != NULL &&
		    neigh_update(nt, AF_INET6, ip->src_addr, (const struct rte_ether_addr *)lla,
				 false, now_ns) > 0)
			rt->l2.learned++;
		if (!l2_ip6_is_ours(pt, target))
			return;
		rt->l2.nd_adverts++;
		if (from_unspec) {
			struct rte_ether_addr mc = { .addr_bytes = { 0x33, 0x33, 0, 0, 0, 1 } };

			l2_nd_send(rt, port, ICMP6_NA, ND_NA_FLAG_ROUTER | ND_NA_FLAG_OVERRIDE,
				   target, all_nodes, &mc, target);
		} else {
			const struct rte_ether_hdr *eth =
				(const struct rte_ether_hdr *)(ipb - sizeof(*eth) -
							       (pt->vlan ? sizeof(struct rte_vlan_hdr) : 0));
			const struct rte_ether_addr *dmac =
				lla ? (const struct rte_ether_addr *)lla : &eth->src_addr;

			l2_nd_send(rt, port, ICMP6_NA,
				   ND_NA_FLAG_ROUTER | ND_NA_FLAG_SOLICITED | ND_NA_FLAG_OVERRIDE,
				   target, ip->src_addr, dmac, target);
		}
	} else if (icmp[0] == ICMP6_NA) {
		lla = l2_nd_lladdr(icmp + ND_MSG_SIZE, ilen - ND_MSG_SIZE, ND_OPT_TLLA);
		if (lla != NULL && neigh_find(nt, AF_INET6, target) != NULL &&
		    neigh_update(nt, AF_INET6, target, (const struct rte_ether_addr *)lla, false,
				 now_ns) > 0)
			rt->l2.learned++;
	}
}

/* Turn an echo request into a reply in place and send it back. */
static bool
l2_echo(struct ls_runtime *rt, unsigned int port, struct rte_mbuf *m, const struct pkt_meta *meta)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)p;
	struct rte_ether_addr tmp;
	uint8_t *l4 = p + meta->l4_off;

	if (meta->l3 == PKT_L3_IP4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + meta->l3_off);
		uint16_t l4len = (uint16_t)(meta->ip_len - (meta->l4_off - meta->l3_off));
		rte_be32_t a = ip->src_addr;

		if (rte_raw_cksum(l4, l4len) != 0xffff) {
			rt->l2.invalid++;
			return false;
		}
		ip->src_addr = ip->dst_addr;
		ip->dst_addr = a;
		ip->time_to_live = 64;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		l4[0] = RTE_IP_ICMP_ECHO_REPLY;
		l4[2] = l4[3] = 0;
		*(uint16_t *)(l4 + 2) = (uint16_t)~rte_raw_cksum(l4, l4len);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(p + meta->l3_off);
		uint8_t a[16];

		if (rte_ipv6_udptcp_cksum_verify(ip, l4) != 0) {
			rt->l2.invalid++;
			return false;
		}
		memcpy(a, ip->src_addr, 16);
		memcpy(ip->src_addr, ip->dst_addr, 16);
		memcpy(ip->dst_addr, a, 16);
		ip->hop_limits = 64;
		l4[0] = ICMP6_ECHO_REPLY;
		l4[2] = l4[3] = 0;
		*(rte_be16_t *)(l4 + 2) = rte_ipv6_udptcp_cksum(ip, l4);
	}
	/* Drop any Ethernet padding, swap the MACs. */
	if (m->pkt_len > (uint32_t)meta->l3_off + meta->ip_len)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - meta->l3_off - meta->ip_len));
	tmp = eth->src_addr;
	eth->src_addr = rt->dp->ports[port].mac;
	eth->dst_addr = tmp;
	rt->l2.echo_replies++;
	l2_send(rt, port, m);
	return true;
}

void
l2_resolve(struct ls_runtime *rt, unsigned int port, uint8_t family, const uint8_t *addr,
	   uint64_t now_ns)
{
	struct neigh_entry *e = neigh_get_or_create(rt->neigh[port], family, addr);
	const struct dp_port *pt = &rt->dp->ports[port];

	if (e == NULL) {
		rt->l2.table_full++;
		return;
	}
	if (e->state == NEIGH_STATIC)
		return;
	if (e->requested_ns != 0 && now_ns - e->requested_ns < L2_RETRY_NS)
		return;
	e->requested_ns = now_ns;
	e->requests++;
	rt->l2.requests++;
	if (family == AF_INET) {
		static const struct rte_ether_addr zero;
		uint32_t tip;

		if (!pt->has_ip4)
			return;
		memcpy(&tip, addr, 4);
		l2_arp_send(rt, port, RTE_ARP_OP_REQUEST, &l2_bcast, &zero, tip);
	} else {
		uint8_t sn[16];
		struct rte_ether_addr mc;

		l2_solicited_node(addr, sn, &mc);
		l2_nd_send(rt, port, ICMP6_NS, 0, pt->ip6_ll, sn, &mc, addr);
	}
}

void
l2_punt_input(struct ls_runtime *rt, struct rte_mbuf *m, uint64_t now_ns)
{
	const struct dp_mbuf_meta *mm = dp_mbuf_meta(m);
	unsigned int port = mm->port;
	const struct dp_port *pt;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	struct pkt_meta meta;
	uint16_t et;

	if (port >= rt->dp->n_ports) {
		rt->l2.invalid++;
		rte_pktmbuf_free(m);
		return;
	}
	pt = &rt->dp->ports[port];
	if (mm->reason == DP_PUNT_RESOLVE) {
		l2_resolve(rt, port, mm->family, mm->addr, now_ns);
		rte_pktmbuf_free(m);
		return;
	}
	/* The worker validated these headers; parse again for offsets. */
	if (parse_l2(p, m->data_len, pt->vlan, &meta, &et) != LS_DROP_NONE) {
		rt->l2.invalid++;
		rte_pktmbuf_free(m);
		return;
	}
	if (mm->reason == DP_PUNT_ARP) {
		l2_arp_input(rt, port, p + meta.l3_off, m->data_len - meta.l3_off, now_ns);
		rte_pktmbuf_free(m);
		return;
	}
	if (parse_ip(p, m->data_len, meta.l3_off, et, &meta) != LS_DROP_NONE) {
		rt->l2.invalid++;
		rte_pktmbuf_free(m);
		return;
	}
	if (mm->reason == DP_PUNT_ND && meta.l3 == PKT_L3_IP6) {
		l2_nd_input(rt, port, p + meta.l3_off, meta.ip_len, now_ns);
	} else if (mm->reason == DP_PUNT_ICMP_ECHO) {
		if (l2_echo(rt, port, m, &meta))
			return; /* the mbuf went out as the reply */
	} else {
		rt->l2.invalid++;
	}
	rte_pktmbuf_free(m);
}

void
l2_maintain(struct ls_runtime *rt, uint64_t now_ns)
{
	uint64_t timeout = rt->cfg->gw.neigh_timeout_ns;
	unsigned int port, i;

	for (port = 0; port < rt->dp->n_ports; port++) {
		struct neigh_table *nt = rt->neigh[port];

		rt->l2.aged += neigh_age(nt, now_ns, timeout, L2_INCOMPLETE_TIMEOUT_NS);
		for (i = 0; i < NEIGH_TABLE_SIZE; i++) {
			struct neigh_entry *e = &nt->e[i];

			/* Retry unanswered requests; re-probe entries before they expire. */
			if ((e->state == NEIGH_INCOMPLETE) ||
			    (e->state == NEIGH_VALID && now_ns - e->updated_ns > timeout / 4 * 3))
				l2_resolve(rt, port, e->family, e->ip, now_ns);
		}
	}
}
