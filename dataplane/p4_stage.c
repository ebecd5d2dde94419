/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pipeline = p4: a received burst through the worker's SWX pipeline, then
 * the C stages after the ingress match-action (p4_stage.h has the map).
 *
 * Why the program's outer headers are stripped again on the DC side: the
 * traffic manager keeps inner packets and encapsulates at dequeue (tm.h),
 * so that the option's sequence numbers follow the wire order after three
 * strict-priority FIFOs and its timestamp is the transmit time; the SWX
 * program numbers packets at ingress and has no clock (docs/p4.md). What
 * the program decided (peer, route, TTL, martians, MTU, the DC next hop)
 * stands; the C stage takes the peer from the shim and the inner packet
 * from behind the headers the program wrote.
 */
#include "p4_stage.h"

#include <string.h>
#include <sys/socket.h>

#include <rte_branch_prediction.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_swx_pipeline.h>

#include "bits.h"
#include "decap.h"
#include "dp_helpers.h"
#include "hook_pipe.h"
#include "mech.h"
#include "parse.h"
#include "pipeline.h"

/* Outer IPv4 or IPv6 + UDP + GENEVE + the Longspan option the program writes. */
#define P4_ENCAP4_SIZE 56
#define P4_ENCAP6_SIZE 76

/* The outer headers the program writes toward peer, or strips from it. */
static inline uint16_t
p4_encap_size(const struct dp_peer *peer)
{
	return peer->family == AF_INET ? P4_ENCAP4_SIZE : P4_ENCAP6_SIZE;
}

/* The Ethernet header size at p (untagged or one 802.1Q tag). */
static inline uint16_t
p4_l2_size(const uint8_t *p)
{
	return p[12] == 0x81 && p[13] == 0x00 ? 18 : 14;
}

/*
 * Strip off bytes from the front of m and parse the IP packet left (l3 at
 * offset 0). Returns LS_DROP_NONE with meta filled, or the reason.
 */
static inline enum ls_drop_reason
p4_inner(struct rte_mbuf *m, uint16_t off, struct pkt_meta *meta)
{
	const uint8_t *ip;

	if (unlikely(m->data_len < off + sizeof(struct rte_ipv4_hdr)))
		return LS_DROP_P4_VERDICT;
	ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	rte_pktmbuf_adj(m, off);
	memset(meta, 0, sizeof(*meta));
	return parse_ip(ip, m->data_len, 0,
			(ip[0] >> 4) == 6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4, meta);
}

/*
 * What the program drops that the C parser handles: packets to the
 * gateway's own addresses (echo requests punted, the rest counted as local
 * deliveries), which the program knows only as no route from the DC, not
 * a tunnel on a WAN port, or, for IPv6 to the WAN port's link-local
 * address (neighbour discovery), not for us.
 */
static inline bool
p4_is_local(const struct dp_port *pt, const uint8_t *p, uint32_t len, uint8_t reason)
{
	uint16_t l2 = p4_l2_size(p);

	if (reason == LS_DROP_NOT_TUNNEL)
		return pt->role == LS_PORT_WAN;
	/* Only the link-local address: the program knows the port's global one. */
	if (reason == LS_DROP_NOT_FOR_US)
		return pt->role == LS_PORT_WAN && len >= l2 + 40u && (p[l2] >> 4) == 6 &&
		       memcmp(p + l2 + 24, pt->ip6_ll, 16) == 0;
	if (reason != LS_DROP_NO_ROUTE || pt->role != LS_PORT_DC || len < l2 + 20u)
		return false;
	if ((p[l2] >> 4) == 4) {
		uint32_t dst;

		memcpy(&dst, p + l2 + 16, 4);
		return pt->has_ip4 && dst == pt->ip4;
	}
	return len >= l2 + 40u && dp_ip6_is_ours(pt, p + l2 + 24);
}

/*
 * Packets the C path handles after all: it counts them again as received,
 * so they leave this burst's rx count first.
 */
static inline void
p4_c_path(struct dp_worker *w, const struct dp_conf *c, uint16_t port, struct rte_mbuf **pkts,
	  uint16_t n, uint64_t bytes, const struct dp_clock *clk, struct dp_tx *tx)
{
	w->counters.port[port].rx_pkts -= n;
	w->counters.port[port].rx_bytes -= bytes;
	if (c->ports[port].role == LS_PORT_DC)
		dp_pipeline_dc(w, c, port, pkts, n, clk, tx);
	else
		dp_pipeline_wan(w, c, port, pkts, n, clk, tx);
}

void
dp_p4_burst(struct dp_worker *w, const struct dp_conf *c, struct dp_p4 *p4, uint16_t port,
	    struct rte_mbuf **pkts, uint16_t n, const struct dp_clock *clk, struct dp_tx *tx)
{
	const struct dp_port *pt = &c->ports[port];
	struct dp_counters *ctr = &w->counters;
	struct rte_mbuf *out[DP_MAX_BURST], *cpath[DP_MAX_BURST];
	struct dp_dc_pkt st[DP_MAX_BURST];
	struct rte_ether_addr dmac;
	uint32_t dmac_peer = UINT32_MAX;
	uint64_t rx_bytes = 0, c_bytes = 0;
	unsigned int nin = 0, got = 0, k, nst = 0, nc = 0;

	for (k = 0; k < n; k++)
		rx_bytes += pkts[k]->pkt_len;
	ctr->port[port].rx_pkts += n;
	ctr->port[port].rx_bytes += rx_bytes;

	/*
	 * In front of the program: the SWX parser does not check that the
	 * frame holds what it extracts (it would read past the end of the
	 * data), nor lengths and checksums. The C parser's L2 and IP checks
	 * do, with their drop reasons; MAC control, multicast destinations
	 * (ND) and anything not IP go to the C path's parser.
	 */
	for (k = 0; k < n; k++) {
		struct rte_mbuf *m = pkts[k];
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
		struct pkt_meta meta;
		enum ls_drop_reason r;
		uint16_t et;

		if (unlikely(m->nb_segs != 1)) {
			dp_drop(w, m, LS_DROP_MULTISEG);
			continue;
		}
		if (unlikely(m->data_len >= 14 && ((p[0] & 1) != 0 || (p[12] == 0x88 && p[13] == 0x08) ||
						   (p[12] == 0x08 && p[13] == 0x06)))) {
			c_bytes += m->pkt_len;
			cpath[nc++] = m;
			continue;
		}
		r = parse_l2(p, m->data_len, pt->vlan, &meta, &et);
		if (likely(r == LS_DROP_NONE))
			r = parse_ip(p, m->data_len, meta.l3_off, et, &meta);
		/* GENEVE and its options within the packet (the program would read on). */
		if (r == LS_DROP_NONE && pt->role == LS_PORT_WAN && meta.proto == IPPROTO_UDP &&
		    meta.first_frag && meta.dport == c->geneve_port) {
			uint32_t end = (uint32_t)meta.l3_off + meta.ip_len, g = meta.l4_off + 8u;

			if (g + 8 > end || g + 8 + 4u * (p[g] & 0x3f) > end)
				r = LS_DROP_GENEVE_TRUNC;
			/*
			 * The sequence and transit of the options the program
			 * consumes; probes, credit control and the credit option:
			 * the C path, at once, so that a probe's sequence number
			 * is counted in wire order with the data around it.
			 */
			else if (dp_decap_account(w, c, m, &meta, clk)) {
				p4_c_path(w, c, port, &m, 1, m->pkt_len, clk, tx);
				continue;
			}
		}
		if (unlikely(r != LS_DROP_NONE)) {
			dp_drop(w, m, r);
			continue;
		}
		pkts[nin++] = m;
	}

	/* The program: the burst in on the port's ring, back on the output ring. */
	n = (uint16_t)nin;
	nin = rte_ring_sp_enqueue_burst(p4->in[port], (void **)pkts, n, NULL);
	for (k = nin; k < n; k++)
		dp_drop(w, pkts[k], LS_DROP_P4_LOST); /* the ring holds 4 bursts: never */
	for (k = 0; got < nin && k < DP_P4_RUN_MAX; k++) {
		rte_swx_pipeline_run(p4->pl, DP_P4_RUN_INSTR);
		rte_swx_pipeline_flush(p4->pl);
		got += rte_ring_sc_dequeue_burst(p4->out, (void **)out + got, nin - got, NULL);
	}
	ctr->drops[LS_DROP_P4_LOST] += nin - got;

	for (k = 0; k < got; k++) {
		struct rte_mbuf *m = out[k];
		const uint8_t *s = rte_pktmbuf_mtod(m, const uint8_t *);
		uint8_t verdict, reason;
		uint16_t peer;
		enum ls_drop_reason r;

		if (unlikely(m->data_len < DP_P4_SHIM_SIZE + 14)) {
			dp_drop(w, m, LS_DROP_P4_VERDICT);
			continue;
		}
		verdict = s[0];
		reason = s[1];
		peer = (uint16_t)(s[6] << 8 | s[7]); /* ls_meta.peer_id, network order */
		/* A neighbour the program does not have (it holds the static ones) may
		 * be one the control thread learned: the C stage looks it up. */
		if (verdict == DP_P4_VERDICT_DROP && reason == LS_DROP_NEIGH_MISS)
			verdict = DP_P4_VERDICT_FORWARD;
		if (verdict == DP_P4_VERDICT_PUNT ||
		    (verdict == DP_P4_VERDICT_DROP &&
		     p4_is_local(pt, s + DP_P4_SHIM_SIZE, m->data_len - DP_P4_SHIM_SIZE, reason))) {
			rte_pktmbuf_adj(m, DP_P4_SHIM_SIZE);
			c_bytes += m->pkt_len;
			cpath[nc++] = m;
			continue;
		}
		if (verdict == DP_P4_VERDICT_DROP) {
			dp_drop(w, m, reason != LS_DROP_NONE && reason < LS_DROP_MAX ?
					      (enum ls_drop_reason)reason : LS_DROP_P4_VERDICT);
			continue;
		}
		if (unlikely(verdict != DP_P4_VERDICT_FORWARD || peer >= c->n_peers)) {
			dp_drop(w, m, LS_DROP_P4_VERDICT);
			continue;
		}
		if (pt->role == LS_PORT_DC) {
			struct dp_dc_pkt *d = &st[nst];

			r = p4_inner(m, DP_P4_SHIM_SIZE + p4_l2_size(s + DP_P4_SHIM_SIZE) +
						p4_encap_size(&c->peers[peer]),
				     &d->meta);
			if (unlikely(r != LS_DROP_NONE)) {
				dp_drop(w, m, r);
				continue;
			}
			ctr->cls[d->meta.cls]++;
			d->peer = peer;
			if (dp_dc_nexthop_key(w, c, m, d, &dmac_peer, &dmac))
				nst++;
		} else {
			uint32_t frame = m->pkt_len - DP_P4_SHIM_SIZE + p4_encap_size(&c->peers[peer]);
			struct pkt_meta imeta;

			r = p4_inner(m, DP_P4_SHIM_SIZE + p4_l2_size(s + DP_P4_SHIM_SIZE), &imeta);
			ctr->cls[DP_CLASS_TUNNEL]++;
			if (unlikely(r != LS_DROP_NONE)) {
				/* As dp_decap() names what is wrong inside the tunnel. */
				dp_drop(w, m, LS_DROP_INNER_INVALID);
				continue;
			}
			if (m->pkt_len > imeta.ip_len)
				rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - imeta.ip_len));
			dp_wan_inner(w, c, port, m, frame, &imeta, peer, clk, tx);
		}
	}

	if (pt->role == LS_PORT_DC) {
		dp_dc_egress(w, c, port, st, nst, clk, tx);
	} else {
		const struct dp_hooks *hk = dp_hook_set(w, c);

		if (unlikely(dp_hooks_at(hk, LS_HOOK_WAN_RX)))
			dp_hook_flush(&w->hook, hk, LS_HOOK_WAN_RX);
		dp_hold_out(w, c, clk, tx);
		if (unlikely(dp_hooks_at(hk, LS_HOOK_DC_TX)))
			dp_hook_flush(&w->hook, hk, LS_HOOK_DC_TX);
	}
	/* Punts and local traffic: the C path's parser. */
	if (nc != 0)
		p4_c_path(w, c, port, cpath, (uint16_t)nc, c_bytes, clk, tx);
}
