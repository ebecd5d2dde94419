/* SPDX-License-Identifier: BSD-3-Clause */
/* Tunnel termination, WAN -> DC (decap.h). */
#include "decap.h"

#include <string.h>
#include <sys/socket.h>

#include <rte_udp.h>

#include "congestion/ecn.h"
#include "csum.h"
#include "geneve.h"
#include "mbuf_meta.h"
#include "wan_credit.h"

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

/*
 * A packet this far behind the expected sequence number is not late: no
 * path reorders 64k packets. The peer restarted (its sequence starts
 * again) or one of its workers did; follow the new sequence instead of
 * counting every later packet as reordered.
 */
#define DP_SEQ_RESTART_BACK (INT32_C(1) << 16)

static inline void
dp_seq_track(struct dp_worker *w, struct dp_counters *ctr, uint32_t peer,
	     const struct geneve_info *gi)
{
	struct dp_peer_seq *ps = &w->seq[peer];
	uint16_t wid = gi->worker % DP_MAX_WORKERS;
	int32_t d;

	if (!ps->rx_seen[wid]) {
		ctr->peer[peer].rx_seq_pkts++;
		ps->rx_seen[wid] = 1;
		ps->rx_expect[wid] = gi->seq + 1;
		return;
	}
	ctr->peer[peer].rx_seq_pkts++;
	d = (int32_t)(gi->seq - ps->rx_expect[wid]);
	if (d >= 0) {
		ctr->peer[peer].rx_seq_gaps += (uint32_t)d;
		ps->rx_expect[wid] = gi->seq + 1;
	} else if (unlikely(d < -DP_SEQ_RESTART_BACK)) {
		ctr->peer[peer].rx_seq_restarts++;
		ps->rx_expect[wid] = gi->seq + 1;
	} else {
		ctr->peer[peer].rx_seq_reorder++;
	}
}

bool
dp_decap_account(struct dp_worker *w, const struct dp_conf *c, const struct rte_mbuf *m,
		 const struct pkt_meta *meta, const struct dp_clock *clk)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t udp_end = (uint32_t)meta->l4_off +
			   rte_be_to_cpu_16(((const struct rte_udp_hdr *)(p + meta->l4_off))->dgram_len);
	const uint8_t *ip = p + meta->l3_off;
	bool v4 = meta->l3 == PKT_L3_IP4;
	/* The outer source and destination: IPv4 bytes 12 and 16, IPv6 8 and 24. */
	const uint8_t *src = ip + (v4 ? 12 : 8), *dst = ip + (v4 ? 16 : 24);
	struct geneve_info gi;
	int peer;

	if (udp_end > (uint32_t)meta->l3_off + meta->ip_len || udp_end > m->data_len)
		return false;
	peer = dp_peer_find(c, v4 ? AF_INET : AF_INET6, src);
	if (peer < 0 || memcmp(dst, c->peers[peer].src, v4 ? 4 : 16) != 0)
		return false;
	/* A zero UDP checksum over IPv6 the peer may not send: dp_decap() drops
	 * it by name (the program checks no checksum). */
	if (!v4 && ((const struct rte_udp_hdr *)(p + meta->l4_off))->dgram_cksum == 0 &&
	    !c->peers[peer].zero_csum6_ok)
		return true;
	if (geneve_parse(p, meta->l4_off + sizeof(struct rte_udp_hdr), udp_end, &gi) !=
		    LS_DROP_NONE ||
	    gi.vni != c->peers[peer].vni)
		return false;
	if (unlikely(gi.has_credit || gi.probe || gi.control))
		return true;
	/*
	 * An inner header that is not the protocol's IP version: the program
	 * would extract it as that version and judge its garbage addresses;
	 * dp_decap() names it (inner_invalid).
	 */
	if (unlikely(gi.inner_off >= udp_end ||
		     (p[gi.inner_off] >> 4) != (gi.proto == RTE_ETHER_TYPE_IPV4 ? 4 : 6)))
		return true;
	if (gi.has_ls_opt) {
		dp_seq_track(w, &w->counters, (uint32_t)peer, &gi);
		dp_path_meas_rx(&w->meas[peer], gi.tx_ns, clk->ns);
	}
	return false;
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

enum ls_drop_reason
dp_decap(struct dp_worker *w, const struct dp_conf *c, struct rte_mbuf *m,
	 const struct pkt_meta *meta, struct pkt_meta *imeta, uint32_t *peer_out,
	 const struct dp_clock *clk)
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
	/* Mechanism B on the WAN hop: both ends must have lossless = credit. */
	if (unlikely(gi.has_credit)) {
		if (!c->peers[peer].credit)
			return LS_DROP_CREDIT_NOT_ENABLED;
		if (gi.control) {
			wan_credit_rx(&w->credit, &ctr->credit, (uint32_t)peer, &gi.credit, 0);
			return LS_DROP_CREDIT_CONTROL;
		}
	}
	/* The packet crossed the WAN: account its sequence and transit even if dropped below. */
	if (gi.has_ls_opt) {
		dp_seq_track(w, ctr, (uint32_t)peer, &gi);
		dp_path_meas_rx(&w->meas[peer], gi.tx_ns, clk->ns);
	}
	if (unlikely(gi.probe)) {
		struct dp_path_meas *pm = &w->meas[peer];

		/* t1, t2 echoed; t3 = the probe's transmit time; t4 = now. */
		pm->probes_rx++;
		if (gi.echo_flags & GENEVE_ECHO_VALID)
			dp_path_meas_ntp(pm, gi.echo_t1_ns, gi.echo_t2_ns, gi.tx_ns, clk->ns);
		else
			pm->probes_rx_noecho++;
		return LS_DROP_PROBE_CONSUMED;
	}
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
	/*
	 * The packet is delivered from here on: a charged one holds its bytes
	 * of the peer's credit buffer until it leaves the gateway (the tag
	 * tells the queues that may keep it; every decapsulated packet gets
	 * one, so that no stale tag survives from the mbuf's previous use).
	 */
	dp_mbuf_meta(m)->tm.flags = 0;
	if (unlikely(gi.has_credit) &&
	    wan_credit_rx(&w->credit, &ctr->credit, (uint32_t)peer, &gi.credit, imeta->ip_len)) {
		struct dp_mbuf_meta *mm = dp_mbuf_meta(m);

		mm->tm.flags = DP_TM_F_CREDIT_RX;
		mm->tm.peer = (uint8_t)peer;
		mm->tm.frame_bytes = imeta->ip_len;
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
