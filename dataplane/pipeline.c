/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pipeline's drivers: one function per received burst and direction,
 * running the stages below in order, plus the parser and the DC ingress
 * match-action they start with. Each stage takes a packet and its metadata
 * and returns a verdict (LS_DROP_NONE or the drop reason).
 *
 * DC port -> WAN (dp_pipeline_dc(), in two passes over the burst):
 *
 *   stage                                      function                file
 *   parser: L2, ARP/ND/echo punt, IP, RoCE     dp_parse(), dp_local()  pipeline.c, parse.c
 *   ingress: martians, route, TTL              dp_ingress_dc()         pipeline.c
 *   next hop on the WAN port                   neigh_lookup()          neigh.c
 *   ingress per QP: flow table, learners       dp_roce_dc()            mech.h
 *   mechanism C: a local receiver's CNP        dp_mech_c_cnp()         mech.c
 *   TM enqueue side: size, headroom, plan      dp_tm_prepare()         tm.h
 *   TM: queue or pass, markers, signals        dp_tm_burst()           tm.c
 *   mechanism A: gateway CNP, CE policy        dp_signal()             mech.c
 *   TM dequeue: credit, shaper, sojourn marker dp_tm_out()             tm.c, wan_credit.h
 *   egress / deparser: GENEVE encapsulation    dp_encap()              encap.h
 *
 * WAN port -> DC (dp_pipeline_wan(), one pass):
 *
 *   parser: outer headers                      dp_parse()              pipeline.c, parse.c
 *   tunnel termination, RFC 6040, credit rx    dp_decap()              decap.c, wan_credit.c
 *   inner address checks, local delivery       dp_inner_addr_check()   decap.h
 *   next hop in the DC                         dp_dc_nexthop()         dp_helpers.h
 *   ingress per QP: flow table, learners       dp_roce_wan()           mech.c
 *   egress: Ethernet for the DC port           dp_dc_rewrite()         decap.h
 *   mechanism C: hold queue, release           hold_push(), dp_hold_out()  hold.c, mech.c
 *   mechanism B: a paused priority waits       dc_pfc_hold()           dc_pfc.c
 *
 * DC port MAC control (PFC): obeyed in dp_parse() (dc_pfc_rx()); pauses
 * and resumes sent and held packets released by dp_pipeline_dc_pfc().
 * Credit control packets toward peers: wan_credit_poll(), after the
 * traffic managers in dp_worker_poll(); a charged packet from the WAN
 * leaves its peer's credit buffer when it leaves the gateway
 * (dp_pipeline_wan(), the hold and DC pause queues' releases).
 *
 * The hook points (docs/telemetry.md) sit between these stages: dc_rx after
 * dp_roce_dc(), wan_tx in the traffic manager (tm.c) and at a failed
 * dp_tm_prepare(), wan_rx after dp_roce_wan(), dc_tx at the forward, at the
 * rewrite and hold-full drops and at the hold release (dp_hold_out(),
 * mech.c). The calls are out of line in hook_pipe.h; each point is flushed
 * once per burst.
 *
 * Small helpers every stage uses (drop, punt, prefixes, ECN field, flow
 * keys) are static inline in dp_helpers.h; the FIFOs under the traffic
 * manager are the first half of tm.c.
 */
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
#include <rte_ring.h>

#include "csum.h"
#include "dc_pfc.h"
#include "decap.h"
#include "dp_helpers.h"
#include "eth.h"
#include "hook_pipe.h"
#include "martian.h"
#include "mech.h"
#include "neigh.h"
#include "parse.h"
#include "tm.h"
#include "wan_credit.h"

#define ICMP6_ECHO_REQUEST 128
#define ICMP6_NEIGH_SOLICIT 135
#define ICMP6_NEIGH_ADVERT 136

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
	/* MAC control (PFC) ends here: obeyed on the DC port, never forwarded. */
	if (unlikely(m->data_len >= 14 && p[12] == 0x88 && p[13] == 0x08))
		return pt->role == LS_PORT_DC ?
			dc_pfc_rx(&w->dc_pfc, &w->counters.pfc, p, m->data_len, w->dc_pfc.now_tsc) :
			LS_DROP_MAC_CONTROL;
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

		if (unlikely(martian4_either(ip + 12, ip + 16))) {
			if (martian4(ip + 12))
				return LS_DROP_MARTIAN_SRC;
			if (martian4(ip + 16))
				return LS_DROP_MARTIAN_DST;
		}
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
 * dp_dc_nexthop_key() (pipeline.h), inlined into dp_pipeline_dc()'s first
 * pass: a call per packet would cost its prologue and epilogue (about 30
 * instructions per packet in tests/perf/profile.py).
 */
static __rte_always_inline bool
dp_dc_nexthop_key_inline(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m,
			 struct dp_dc_pkt *s, uint32_t *dmac_peer, struct rte_ether_addr *dmac)
{
	const struct dp_peer *peer = &c->peers[s->peer];

	/* Next hop of the outer packet on the peer's WAN port, once per peer and burst. */
	if (s->peer != *dmac_peer) {
		if (!dp_neigh_or_drop(w, m, c->ports[peer->port].neigh, peer->port, peer->family,
				      peer->nexthop, dmac))
			return false;
		*dmac_peer = s->peer;
	}
	s->dmac = *dmac;
	s->m = m;
	if (s->meta.bth_off != 0) {
		dp_flow_key(rte_pktmbuf_mtod_offset(m, const uint8_t *, s->meta.l3_off), s->meta.l3,
			    s->meta.sport, s->meta.dqpn, &s->key);
		s->hash = flow_table_hash(&s->key);
		flow_table_prefetch(&w->flows, s->hash);
		s->learn_hash = 0;
		if (s->meta.cls == DP_CLASS_ROCE_DATA && (c->mech.mechanisms & LS_MECH_A)) {
			s->learn_hash = qpn_learn_pair_hash(s->key.family, s->key.src, s->key.dst);
			qpn_learn_prefetch(&w->learn_src, s->learn_hash);
		}
	}
	return true;
}

bool
dp_dc_nexthop_key(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m,
		  struct dp_dc_pkt *s, uint32_t *dmac_peer, struct rte_ether_addr *dmac)
{
	return dp_dc_nexthop_key_inline(w, c, m, s, dmac_peer, dmac);
}

/* Packets whose headers the parser prefetches ahead of the one it parses. */
#define DP_PREFETCH_AHEAD 4

void
dp_pipeline_dc(struct dp_worker *w, const struct dp_conf *c, uint16_t port,
	       struct rte_mbuf **pkts, uint16_t n, const struct dp_clock *clk, struct dp_tx *tx)
{
	struct dp_counters *ctr = &w->counters;
	struct dp_dc_pkt st[DP_MAX_BURST];
	struct rte_ether_addr dmac;
	uint32_t dmac_peer = UINT32_MAX; /* the peer whose next hop dmac holds */
	uint64_t rx_bytes = 0;
	unsigned int nst = 0;
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
		if (dp_dc_nexthop_key_inline(w, c, m, s, &dmac_peer, &dmac))
			nst++;
	}
	ctr->port[port].rx_pkts += n;
	ctr->port[port].rx_bytes += rx_bytes;
	dp_dc_egress(w, c, port, st, nst, clk, tx);
}

/*
 * The second pass of dp_dc_egress() over the nst packets of st, into ready:
 * flow table, mechanisms A and C, the dc_rx hook point, the traffic
 * manager's enqueue side. Returns the packets ready. Inlined twice, with
 * hooks (at dc_rx or wan_tx) a constant: the common case without them
 * carries no hook context through the loop and tests nothing per packet for
 * them. With them, each packet carries its flow in its mbuf for the wan_tx
 * point (dp_hook_carry(); dp_worker_sync_carry() covers the packets queued
 * before a snapshot added the first wan_tx hook).
 */
static __rte_always_inline unsigned int
dp_dc_ready(struct dp_worker *w, const struct dp_conf *c, uint16_t port, struct dp_dc_pkt *st,
	    unsigned int nst, const struct dp_clock *clk, const struct dp_hooks *hk, bool hooks,
	    struct dp_ready *ready)
{
	bool hrx = hooks && dp_hooks_at(hk, LS_HOOK_DC_RX);
	unsigned int nready = 0, j;

	for (j = 0; j < nst; j++) {
		struct dp_dc_pkt *s = &st[j];
		const struct ls_hook_ctx *hc = NULL; /* its dc_rx context */
		struct flow_entry *fe = NULL;
		enum ls_drop_reason r;
		bool absorb = false;

		/* Ingress match-action: the per-QP flow table, mechanisms A and C. */
		if (s->meta.bth_off != 0) {
			fe = dp_roce_dc(w, c, &s->meta, s->peer, clk, &s->key, s->hash,
					s->learn_hash, &absorb);
			if (hrx)
				hc = dp_hook_pipe_rx_roce(w, hk, LS_HOOK_DC_RX, port, s->peer,
							  s->m->pkt_len, &s->meta,
							  rte_pktmbuf_mtod_offset(s->m, const uint8_t *,
										  s->meta.bth_off),
							  &s->key, s->hash, fe);
		} else if (hrx) {
			hc = dp_hook_pipe_rx(w, hk, LS_HOOK_DC_RX, port, s->peer, s->m->pkt_len,
					     rte_pktmbuf_mtod_offset(s->m, const uint8_t *,
								     s->meta.l3_off),
					     s->meta.ip_len, 0, NULL);
		}
		ready[nready].fe = s->meta.cls == DP_CLASS_ROCE_DATA ? fe : NULL;
		ready[nready].hook_rx = hc;

		/* Traffic manager, enqueue side: size, headroom, encapsulation plan. */
		r = unlikely(absorb) ? LS_DROP_CNP_ABSORBED
				     : dp_tm_prepare(c, s->peer, s->m, &s->meta, &s->dmac,
						     &ready[nready]);
		if (unlikely(r != LS_DROP_NONE)) {
			if (hooks && dp_hooks_at(hk, LS_HOOK_WAN_TX))
				dp_hook_pipe_tx_rx(w, hk, LS_HOOK_WAN_TX, hc,
						   c->peers[s->peer].port, s->peer, s->m->pkt_len,
						   s->m, s->meta.l3_off, 0, (uint16_t)r, 0);
			dp_drop(w, s->m, r);
			continue;
		}
		if (hooks) /* flow table hash 0: none */
			dp_hook_carry(s->m, s->meta.bth_off != 0 ? s->hash : 0, dp_hook_slot(w, fe));
		nready++;
	}
	return nready;
}

void
dp_dc_egress(struct dp_worker *w, const struct dp_conf *c, uint16_t port, struct dp_dc_pkt *st,
	     unsigned int nst, const struct dp_clock *clk, struct dp_tx *tx)
{
	struct dp_ready ready[DP_MAX_BURST];
	const struct dp_hooks *hk = dp_hook_set(w, c);
	unsigned int nready;

	/* Second pass. */
	if (likely(!dp_hooks_at(hk, LS_HOOK_DC_RX) && !dp_hooks_at(hk, LS_HOOK_WAN_TX))) {
		nready = dp_dc_ready(w, c, port, st, nst, clk, hk, false, ready);
	} else {
		nready = dp_dc_ready(w, c, port, st, nst, clk, hk, true, ready);
		if (dp_hooks_at(hk, LS_HOOK_DC_RX))
			dp_hook_flush(&w->hook, hk, LS_HOOK_DC_RX);
	}

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
dp_pipeline_dc_pfc(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
		   struct dp_tx *tx)
{
	uint64_t roce_bytes = 0;
	uint16_t p;

	if (likely(!w->dc_pfc.enabled))
		return;
	for (p = 0; p < c->n_ports; p++)
		if (c->ports[p].role == LS_PORT_WAN)
			roce_bytes += w->tm[p].q[DP_TM_CLASS_ROCE].bytes;
	dc_pfc_poll(&w->dc_pfc, &c->lossless, &w->counters.pfc, &c->ports[c->dc_port], c->dc_port,
		    w->pool, roce_bytes, clk->tsc, tx, &w->next_due_tsc, &w->credit);
}

/*
 * The WAN -> DC stages after tunnel termination, for one packet: forwarded
 * (into tx), dropped or punted, all returning false, or queued in gateway
 * memory (mechanism C's hold queue, mechanism B's DC pause FIFO): true.
 */
static __rte_always_inline bool
dp_wan_deliver(struct dp_worker *w, const struct dp_conf *c, uint16_t port, struct rte_mbuf *m,
	       const struct pkt_meta *imeta_in, uint32_t peer, uint32_t frame,
	       const struct dp_clock *clk, struct dp_tx *tx, const struct dp_hooks *hk, bool hrx,
	       bool htx)
{
	const struct dp_port *dc = &c->ports[c->dc_port];
	struct dp_counters *ctr = &w->counters;
	struct pkt_meta imeta = *imeta_in;
	struct rte_ether_addr dmac;
	struct hold_entry *he = NULL;
	const struct ls_hook_ctx *hc = NULL; /* its wan_rx context */
	struct dp_roce_flow rf;
	const uint8_t *nh;
	uint32_t slot;
	uint8_t family;
	enum ls_drop_reason r;

	ctr->cls[imeta.cls]++;
	r = dp_inner_addr_check(c, dc, peer, rte_pktmbuf_mtod(m, const uint8_t *), imeta.l3);
	if (unlikely(r != LS_DROP_NONE)) {
		dp_drop(w, m, r);
		return false;
	}
	if (unlikely(imeta.ip_len > dc->mtu)) {

		dp_drop(w, m, LS_DROP_MTU_EXCEEDED);
		return false;
	}
	ctr->peer[peer].rx_pkts++;
	ctr->peer[peer].rx_bytes += imeta.ip_len;

	/* The gateway's own DC addresses are not forwarded to. */
	if (unlikely(dp_dc_is_local(dc, rte_pktmbuf_mtod(m, const uint8_t *), imeta.l3))) {
		dp_drop(w, m, LS_DROP_LOCAL_DELIVER);
		return false;
	}

	/* Next hop in the DC. */
	r = dp_dc_nexthop(dc, rte_pktmbuf_mtod(m, const uint8_t *), imeta.l3, &family, &nh);
	if (unlikely(r != LS_DROP_NONE)) {
		dp_drop(w, m, r);
		return false;
	}
	if (!dp_neigh_or_drop(w, m, dc->neigh, c->dc_port, family, nh, &dmac))
		return false;

	/* Ingress match-action: the per-QP flow table, mechanisms A and C. */
	rf.hash = 0;
	rf.fe = NULL;
	if (imeta.bth_off != 0) {
		he = dp_roce_wan(w, c, m, &imeta, peer, clk, &rf);
		if (unlikely(hrx))
			hc = dp_hook_pipe_rx_roce(w, hk, LS_HOOK_WAN_RX, port, peer, frame, &imeta,
						  rte_pktmbuf_mtod_offset(m, const uint8_t *,
									  imeta.bth_off),
						  &rf.key, rf.hash, rf.fe);
	} else if (unlikely(hrx)) {
		hc = dp_hook_pipe_rx(w, hk, LS_HOOK_WAN_RX, port, peer, frame,
				     rte_pktmbuf_mtod(m, const uint8_t *), imeta.ip_len, 0, NULL);
	}
	slot = dp_hook_slot(w, rf.fe);

	/* Egress / deparser. */
	r = dp_dc_rewrite(dc, m, imeta.l3, &dmac);
	if (unlikely(r != LS_DROP_NONE)) {
		if (unlikely(htx))
			dp_hook_pipe_tx_rx(w, hk, LS_HOOK_DC_TX, hc, c->dc_port, peer, m->pkt_len,
					   m, 0, 0, (uint16_t)r, 0);
		dp_drop(w, m, r);
		return false;
	}

	/* Traffic manager, WAN -> DC: a QP shaped by mechanism C waits its turn. */
	if (unlikely(he != NULL) && dp_hold_waits(c, he, m->pkt_len, clk)) {
		if (unlikely(htx))
			dp_mbuf_meta(m)->tm.enq_tsc = clk->tsc; /* its sojourn at dc_tx */
		dp_hook_carry(m, rf.hash, slot);
		if (!hold_push(he, m, m->pkt_len)) {
			if (unlikely(htx))
				dp_hook_pipe_tx_rx(w, hk, LS_HOOK_DC_TX, hc, c->dc_port, peer,
						   m->pkt_len, m, m->l2_len, 0,
						   LS_DROP_TRP_QUEUE_FULL, 0);
			dp_drop(w, m, LS_DROP_TRP_QUEUE_FULL);
			return false;
		}
		ctr->mech.trp_delayed++;
		ctr->mech.trp_queued++;
		return true;
	}
	/* Mechanism B: a priority the DC fabric paused waits in gateway memory. */
	if (unlikely(w->dc_pfc.enabled) &&
	    dc_pfc_hold(&w->dc_pfc, &ctr->pfc, m,
			dc_pfc_priority(&c->lossless, rte_pktmbuf_mtod(m, const uint8_t *) +
						      eth_hdr_size(dc->vlan)),
			clk->tsc, &r))
		return true;
	if (unlikely(r != LS_DROP_NONE)) {
		if (unlikely(htx))
			dp_hook_pipe_tx_rx(w, hk, LS_HOOK_DC_TX, hc, c->dc_port, peer,
					   m->pkt_len, m, m->l2_len, 0, (uint16_t)r, 0);
		dp_drop(w, m, r);
		return false;
	}
	if (unlikely(htx))
		dp_hook_pipe_tx_rx(w, hk, LS_HOOK_DC_TX, hc, c->dc_port, peer, m->pkt_len, m,
				   m->l2_len, LS_HOOK_V_FORWARDED, 0, 0);
	dp_tx_add(tx, c->dc_port, m);
	return false;
}

void
dp_pipeline_wan(struct dp_worker *w, const struct dp_conf *c, uint16_t port,
		struct rte_mbuf **pkts, uint16_t n, const struct dp_clock *clk, struct dp_tx *tx)
{
	const struct dp_port *pt = &c->ports[port];
	struct dp_counters *ctr = &w->counters;
	const struct dp_hooks *hk = dp_hook_set(w, c);
	bool hrx = dp_hooks_at(hk, LS_HOOK_WAN_RX), htx = dp_hooks_at(hk, LS_HOOK_DC_TX);
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t frame = m->pkt_len;
		struct pkt_meta meta, imeta;
		uint32_t peer;
		enum ls_drop_reason r;
		bool consumed, charged;

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
		r = dp_decap(w, c, m, &meta, &imeta, &peer, clk);
		if (unlikely(r != LS_DROP_NONE)) {
			dp_drop(w, m, r);
			continue;
		}
		/* A charged packet holds its peer's credit until it leaves (wan_credit.h). */
		charged = dp_mbuf_meta(m)->tm.flags & DP_TM_F_CREDIT_RX;
		if (!dp_wan_deliver(w, c, port, m, &imeta, peer, frame, clk, tx, hk, hrx, htx) &&
		    unlikely(charged))
			wan_credit_drain(&w->credit, peer, imeta.ip_len);
	}
	if (unlikely(hrx))
		dp_hook_flush(&w->hook, hk, LS_HOOK_WAN_RX);
	dp_hold_out(w, c, clk, tx);
	if (unlikely(htx))
		dp_hook_flush(&w->hook, hk, LS_HOOK_DC_TX);
}

void
dp_wan_inner(struct dp_worker *w, const struct dp_conf *c, uint16_t port, struct rte_mbuf *m,
	     uint32_t frame, const struct pkt_meta *imeta, uint32_t peer, const struct dp_clock *clk,
	     struct dp_tx *tx)
{
	const struct dp_hooks *hk = dp_hook_set(w, c);
	bool hrx = dp_hooks_at(hk, LS_HOOK_WAN_RX), htx = dp_hooks_at(hk, LS_HOOK_DC_TX);

	/* No credit hop in p4 mode (config check): no packet holds a peer's credit. */
	dp_mbuf_meta(m)->tm.flags = 0;
	dp_wan_deliver(w, c, port, m, imeta, peer, frame, clk, tx, hk, hrx, htx);
}
