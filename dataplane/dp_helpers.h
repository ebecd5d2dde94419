/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_DP_HELPERS_H
#define LONGSPAN_DP_HELPERS_H

/*
 * Small helpers every stage of the pipeline uses: drop and punt a packet,
 * address and prefix tests on a port, the DC next hop, the ECN field of an
 * IP header, and the per-QP flow and learner keys. All static inline: they
 * sit on the per-packet path of every stage file.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "congestion/ecn.h"
#include "congestion/qpn_learn.h"
#include "dp_conf.h"
#include "flow.h"
#include "mbuf_meta.h"
#include "neigh.h"
#include "parse.h"
#include "worker.h"

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

/*
 * The MAC of next hop nh (family) in table t, for a packet leaving by port:
 * true with *dmac on a hit; otherwise the packet is dropped as
 * neighbor_unresolved (resolution pending) or handed over with a request to
 * resolve nh (unknown), and false.
 */
static __rte_always_inline bool
dp_neigh_or_drop(struct dp_worker *w, struct rte_mbuf *m, const struct neigh_table *t,
		 uint16_t port, uint8_t family, const uint8_t *nh, struct rte_ether_addr *dmac)
{
	switch (neigh_lookup(t, family, nh, dmac)) {
	case NEIGH_HIT:
		return true;
	case NEIGH_PENDING:
		dp_drop(w, m, LS_DROP_NEIGH_MISS);
		return false;
	case NEIGH_ABSENT:
		break;
	}
	dp_punt_resolve(w, m, port, family, nh);
	return false;
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

#endif /* LONGSPAN_DP_HELPERS_H */
