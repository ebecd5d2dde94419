/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_DECAP_H
#define LONGSPAN_DECAP_H

/*
 * WAN -> DC: tunnel termination (dp_decap() in decap.c: peer, outer UDP
 * checksum policy, GENEVE, sequence tracking, RFC 6040), then the checks
 * and the rewrite of the inner packet for the DC port, static inline here
 * because the driver runs them for every packet.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_mbuf.h>

#include "dp_conf.h"
#include "dp_helpers.h"
#include "eth.h"
#include "martian.h"
#include "parse.h"
#include "worker.h"

/*
 * Tunnel termination: validate outer IP/UDP/GENEVE, identify the peer,
 * apply RFC 6040 to the inner header and strip the outer headers. On
 * success the mbuf holds the inner IP packet only and *imeta describes it
 * (offsets relative to the new data start). clk->ns stamps the path
 * measurement (dataplane/path_meas.h); a path probe is measured and
 * consumed (probe_consumed).
 */
enum ls_drop_reason dp_decap(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m,
			     const struct pkt_meta *meta, struct pkt_meta *imeta,
			     uint32_t *peer_out, const struct dp_clock *clk);

/*
 * pipeline = p4 (p4_stage.c), in front of the SWX program, which consumes
 * the GENEVE options: what dp_decap() accounts before it strips them, the
 * peer's sequence numbers and transit time, for a packet from a known peer
 * to this gateway with the peer's VNI and a valid Longspan option. Returns
 * true for a packet the program cannot take and the C path must (control
 * packets: path probes and credit control; the credit option; a zero UDP
 * checksum over IPv6 the peer may not send; an inner header of another IP
 * version than the GENEVE protocol says): then
 * nothing is accounted here, dp_decap() does it. Packets dp_decap() would
 * drop before its accounting are left to the program, unaccounted.
 */
bool dp_decap_account(struct dp_worker *w, const struct dp_conf *c, const struct rte_mbuf *m,
		      const struct pkt_meta *meta, const struct dp_clock *clk);

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

		if (unlikely(martian4_either(ip + 12, ip + 16))) {
			if (martian4(ip + 12))
				return LS_DROP_MARTIAN_SRC;
			if (martian4(ip + 16))
				return LS_DROP_MARTIAN_DST;
		}
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

/* Egress toward the DC: prepend Ethernet [/ 802.1Q] for the inner packet. */
static inline enum ls_drop_reason
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

#endif /* LONGSPAN_DECAP_H */
