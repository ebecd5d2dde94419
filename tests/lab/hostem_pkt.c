/* SPDX-License-Identifier: BSD-3-Clause */
#include "hostem_pkt.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_net_crc.h>
#include <rte_udp.h>

#include "congestion/ecn.h"

#define HOSTEM_TTL 64
#define HOSTEM_IPV4_HDR 20
#define HOSTEM_IPV6_HDR 40
#define HOSTEM_UDP_HDR 8

static_assert(sizeof(struct rte_ipv4_hdr) == HOSTEM_IPV4_HDR, "IPv4 header");
static_assert(sizeof(struct rte_ipv6_hdr) == HOSTEM_IPV6_HDR, "IPv6 header");
static_assert(sizeof(struct rte_udp_hdr) == HOSTEM_UDP_HDR, "UDP header");

static inline void
hostem_put24(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 16);
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)v;
}

static inline uint32_t
hostem_get24(const uint8_t *b)
{
	return (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
}

int
hostem_pkt_ext_size(uint8_t opcode)
{
	switch (opcode) {
	case 0x00: /* SEND FIRST */
	case 0x01: /* SEND MIDDLE */
	case 0x02: /* SEND LAST */
	case 0x04: /* SEND ONLY */
	case HOSTEM_OP_WRITE_MIDDLE:
	case HOSTEM_OP_WRITE_LAST:
		return 0;
	case 0x03: /* SEND LAST with immediate */
	case HOSTEM_OP_SEND_ONLY_IMM:
	case HOSTEM_OP_WRITE_LAST_IMM:
		return 4;
	case HOSTEM_OP_WRITE_FIRST:
	case HOSTEM_OP_WRITE_ONLY:
		return HOSTEM_RETH_SIZE;
	case HOSTEM_OP_WRITE_ONLY_IMM:
		return HOSTEM_RETH_SIZE + 4;
	case HOSTEM_OP_ACK:
		return HOSTEM_AETH_SIZE;
	case HOSTEM_OP_CNP:
		return HOSTEM_CNP_PAD_SIZE;
	default:
		return -1;
	}
}

void
hostem_pkt_hdr_init(struct hostem_hdr *h, const struct rte_ether_addr *src_mac,
		    const struct rte_ether_addr *dst_mac, const struct conf_addr *src,
		    const struct conf_addr *dst, uint16_t sport, uint8_t tos, uint32_t dqpn,
		    uint32_t ip_id_or_flow)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)h->bytes;
	struct rte_udp_hdr *udp;
	uint8_t *bth;

	memset(h, 0, sizeof(*h));
	h->family = src->family;
	rte_ether_addr_copy(dst_mac, &eth->dst_addr);
	rte_ether_addr_copy(src_mac, &eth->src_addr);
	h->l3 = RTE_ETHER_HDR_LEN;
	if (src->family == AF_INET) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(h->bytes + h->l3);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->type_of_service = tos;
		ip->packet_id = rte_cpu_to_be_16((uint16_t)ip_id_or_flow);
		ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = HOSTEM_TTL;
		ip->next_proto_id = IPPROTO_UDP;
		memcpy(&ip->src_addr, src->a, 4);
		memcpy(&ip->dst_addr, dst->a, 4);
		h->l4 = h->l3 + HOSTEM_IPV4_HDR;
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(h->bytes + h->l3);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
		ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)tos << RTE_IPV6_HDR_TC_SHIFT |
						(ip_id_or_flow & RTE_IPV6_HDR_FL_MASK));
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = HOSTEM_TTL;
		memcpy(ip->src_addr, src->a, 16);
		memcpy(ip->dst_addr, dst->a, 16);
		h->l4 = h->l3 + HOSTEM_IPV6_HDR;
	}
	udp = (struct rte_udp_hdr *)(h->bytes + h->l4);
	udp->src_port = rte_cpu_to_be_16(sport);
	udp->dst_port = rte_cpu_to_be_16(HOSTEM_ROCE_PORT);
	bth = h->bytes + h->l4 + HOSTEM_UDP_HDR;
	bth[2] = HOSTEM_PKEY_DEFAULT >> 8;
	bth[3] = HOSTEM_PKEY_DEFAULT & 0xff;
	hostem_put24(bth + 5, dqpn & HOSTEM_PSN_MASK);
	h->len = (uint16_t)(h->l4 + HOSTEM_UDP_HDR + HOSTEM_BTH_SIZE);
}

uint32_t
hostem_pkt_frame_size(const struct hostem_hdr *h, const struct hostem_pkt *p)
{
	return h->len + p->ext_len + ((p->payload_len + 3) & ~3u) + HOSTEM_ICRC_SIZE;
}

uint32_t
hostem_pkt_icrc(uint8_t *ip, uint32_t len)
{
	uint8_t pre[HOSTEM_ICRC_LRH_ONES], v[4], hop, tos_ttl[2], csum[2], ucsum[2], resv;
	uint32_t l4, crc;
	bool v4 = (ip[0] >> 4) == 4;

	memcpy(pre, ip - HOSTEM_ICRC_LRH_ONES, sizeof(pre));
	memset(ip - HOSTEM_ICRC_LRH_ONES, 0xff, HOSTEM_ICRC_LRH_ONES);
	if (v4) {
		l4 = (uint32_t)(ip[0] & 0xf) * 4;
		tos_ttl[0] = ip[1];
		tos_ttl[1] = ip[8];
		memcpy(csum, ip + 10, 2);
		ip[1] = ip[8] = ip[10] = ip[11] = 0xff;
	} else {
		l4 = HOSTEM_IPV6_HDR;
		memcpy(v, ip, 4);
		hop = ip[7];
		ip[0] |= 0x0f;
		ip[1] = ip[2] = ip[3] = ip[7] = 0xff;
	}
	memcpy(ucsum, ip + l4 + 6, 2);
	ip[l4 + 6] = ip[l4 + 7] = 0xff;
	resv = ip[l4 + HOSTEM_UDP_HDR + 4];
	ip[l4 + HOSTEM_UDP_HDR + 4] = 0xff;

	crc = rte_net_crc_calc(ip - HOSTEM_ICRC_LRH_ONES, len + HOSTEM_ICRC_LRH_ONES,
			       RTE_NET_CRC32_ETH);

	ip[l4 + HOSTEM_UDP_HDR + 4] = resv;
	memcpy(ip + l4 + 6, ucsum, 2);
	if (v4) {
		ip[1] = tos_ttl[0];
		ip[8] = tos_ttl[1];
		memcpy(ip + 10, csum, 2);
	} else {
		memcpy(ip, v, 4);
		ip[7] = hop;
	}
	memcpy(ip - HOSTEM_ICRC_LRH_ONES, pre, sizeof(pre));
	return crc;
}

int
hostem_pkt_build(struct rte_mbuf *m, const struct hostem_hdr *h, const struct hostem_pkt *p)
{
	uint32_t padded = (p->payload_len + 3) & ~3u;
	uint32_t frame = hostem_pkt_frame_size(h, p);
	struct rte_udp_hdr *udp;
	uint8_t *d, *bth, *pl, *ip;
	uint32_t crc;

	if (frame > UINT16_MAX)
		return -ENOSPC;
	d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)frame);
	if (d == NULL)
		return -ENOSPC;
	memcpy(d, h->bytes, h->len);
	ip = d + h->l3;
	udp = (struct rte_udp_hdr *)(d + h->l4);
	bth = d + h->l4 + HOSTEM_UDP_HDR;
	bth[0] = p->opcode;
	bth[1] = (uint8_t)((padded - p->payload_len) << 4); /* SE 0, M 0, PadCnt, TVer 0 */
	bth[4] = p->becn;
	bth[8] = p->ackreq ? HOSTEM_BTH_ACKREQ : 0;
	hostem_put24(bth + 9, p->psn & HOSTEM_PSN_MASK);
	if (p->ext_len != 0)
		memcpy(bth + HOSTEM_BTH_SIZE, p->ext, p->ext_len);
	pl = bth + HOSTEM_BTH_SIZE + p->ext_len;
	memset(pl, 0, padded);
	if (p->stamp != NULL && p->payload_len >= HOSTEM_STAMP_SIZE)
		memcpy(pl, p->stamp, HOSTEM_STAMP_SIZE);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(frame - h->l4));
	udp->dgram_cksum = 0;
	if (h->family == AF_INET) {
		struct rte_ipv4_hdr *ip4 = (struct rte_ipv4_hdr *)ip;

		ip4->total_length = rte_cpu_to_be_16((uint16_t)(frame - h->l3));
		ip4->hdr_checksum = 0;
		ip4->hdr_checksum = rte_ipv4_cksum(ip4);
	} else {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)ip;

		ip6->payload_len = rte_cpu_to_be_16((uint16_t)(frame - h->l4));
	}
	crc = hostem_pkt_icrc(ip, frame - h->l3 - HOSTEM_ICRC_SIZE);
	crc = rte_cpu_to_le_32(crc);
	memcpy(d + frame - HOSTEM_ICRC_SIZE, &crc, HOSTEM_ICRC_SIZE);
	if (h->family == AF_INET6)
		udp->dgram_cksum = rte_ipv6_udptcp_cksum((struct rte_ipv6_hdr *)ip, udp);
	m->l2_len = h->l3;
	m->l3_len = (uint16_t)(h->l4 - h->l3);
	return 0;
}

void
hostem_pkt_reth(uint8_t reth[HOSTEM_RETH_SIZE], uint64_t va, uint32_t rkey, uint32_t dma_len)
{
	uint64_t va_be = rte_cpu_to_be_64(va);
	uint32_t rkey_be = rte_cpu_to_be_32(rkey), len_be = rte_cpu_to_be_32(dma_len);

	memcpy(reth, &va_be, 8);
	memcpy(reth + 8, &rkey_be, 4);
	memcpy(reth + 12, &len_be, 4);
}

void
hostem_pkt_aeth(uint8_t aeth[HOSTEM_AETH_SIZE], uint8_t syndrome, uint32_t msn)
{
	aeth[0] = syndrome;
	hostem_put24(aeth + 1, msn & HOSTEM_PSN_MASK);
}

void
hostem_pkt_stamp(uint8_t stamp[HOSTEM_STAMP_SIZE], uint32_t qpn, uint64_t tsc)
{
	uint32_t magic = rte_cpu_to_be_32(HOSTEM_STAMP_MAGIC), q = rte_cpu_to_be_32(qpn);
	uint64_t t = rte_cpu_to_be_64(tsc);

	memcpy(stamp, &magic, 4);
	memcpy(stamp + 4, &q, 4);
	memcpy(stamp + 8, &t, 8);
}

bool
hostem_pkt_stamp_read(const struct hostem_rx *rx, uint32_t *qpn, uint64_t *tsc)
{
	uint32_t magic, q;
	uint64_t t;

	if (rx->payload == NULL || rx->payload_len < HOSTEM_STAMP_SIZE)
		return false;
	memcpy(&magic, rx->payload, 4);
	if (rte_be_to_cpu_32(magic) != HOSTEM_STAMP_MAGIC)
		return false;
	memcpy(&q, rx->payload + 4, 4);
	memcpy(&t, rx->payload + 8, 8);
	*qpn = rte_be_to_cpu_32(q);
	*tsc = rte_be_to_cpu_64(t);
	return true;
}

enum hostem_rx_class
hostem_pkt_parse(struct rte_mbuf *m, const struct rte_ether_addr *my_mac, bool check_icrc,
		 struct hostem_rx *rx)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = m->data_len, l3 = RTE_ETHER_HDR_LEN, l4, ip_payload, udp_len;
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)d;
	const struct rte_udp_hdr *udp;
	const uint8_t *bth;
	uint16_t et;
	int ext;
	uint32_t pad, fixed;

	if (m->nb_segs > 1)
		return HOSTEM_RX_MULTISEG;
	if (len < RTE_ETHER_HDR_LEN)
		return HOSTEM_RX_MALFORMED;
	if (my_mac != NULL && !rte_is_same_ether_addr(&eth->dst_addr, my_mac))
		return HOSTEM_RX_NOT_FOR_US;
	et = rte_be_to_cpu_16(eth->ether_type);
	if (et == RTE_ETHER_TYPE_VLAN) {
		if (len < RTE_ETHER_HDR_LEN + 4)
			return HOSTEM_RX_MALFORMED;
		et = (uint16_t)(d[16] << 8 | d[17]);
		l3 += 4;
	}
	memset(rx, 0, sizeof(*rx));
	rx->frame_len = len;
	if (et == RTE_ETHER_TYPE_IPV4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(d + l3);
		uint32_t ihl, total;

		if (len < l3 + HOSTEM_IPV4_HDR)
			return HOSTEM_RX_MALFORMED;
		ihl = (uint32_t)(ip->version_ihl & 0xf) * 4;
		total = rte_be_to_cpu_16(ip->total_length);
		if ((ip->version_ihl >> 4) != 4 || ihl < HOSTEM_IPV4_HDR || total < ihl ||
		    l3 + total > len)
			return HOSTEM_RX_MALFORMED;
		if (ip->next_proto_id != IPPROTO_UDP ||
		    (rte_be_to_cpu_16(ip->fragment_offset) &
		     (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)))
			return HOSTEM_RX_NOT_ROCE;
		rx->src.family = rx->dst.family = AF_INET;
		memcpy(rx->src.a, &ip->src_addr, 4);
		memcpy(rx->dst.a, &ip->dst_addr, 4);
		rx->ecn = ip->type_of_service & ECN_MASK;
		rx->ip_id_or_flow = rte_be_to_cpu_16(ip->packet_id);
		l4 = l3 + ihl;
		ip_payload = total - ihl;
	} else if (et == RTE_ETHER_TYPE_IPV6) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(d + l3);
		uint32_t vtc;

		if (len < l3 + HOSTEM_IPV6_HDR)
			return HOSTEM_RX_MALFORMED;
		vtc = rte_be_to_cpu_32(ip->vtc_flow);
		ip_payload = rte_be_to_cpu_16(ip->payload_len);
		if ((vtc >> 28) != 6 || l3 + HOSTEM_IPV6_HDR + ip_payload > len)
			return HOSTEM_RX_MALFORMED;
		if (ip->proto != IPPROTO_UDP)
			return HOSTEM_RX_NOT_ROCE;
		rx->src.family = rx->dst.family = AF_INET6;
		memcpy(rx->src.a, ip->src_addr, 16);
		memcpy(rx->dst.a, ip->dst_addr, 16);
		rx->ecn = (uint8_t)((vtc >> RTE_IPV6_HDR_TC_SHIFT) & ECN_MASK);
		rx->ip_id_or_flow = vtc & RTE_IPV6_HDR_FL_MASK;
		l4 = l3 + HOSTEM_IPV6_HDR;
	} else {
		return HOSTEM_RX_NOT_ROCE;
	}
	if (ip_payload < HOSTEM_UDP_HDR)
		return HOSTEM_RX_MALFORMED;
	udp = (const struct rte_udp_hdr *)(d + l4);
	if (rte_be_to_cpu_16(udp->dst_port) != HOSTEM_ROCE_PORT)
		return HOSTEM_RX_NOT_ROCE;
	udp_len = rte_be_to_cpu_16(udp->dgram_len);
	if (udp_len != ip_payload || udp_len < HOSTEM_UDP_HDR + HOSTEM_BTH_SIZE + HOSTEM_ICRC_SIZE)
		return HOSTEM_RX_MALFORMED;
	bth = d + l4 + HOSTEM_UDP_HDR;
	rx->opcode = bth[0];
	rx->becn = bth[4] & HOSTEM_BTH_BECN;
	rx->dqpn = hostem_get24(bth + 5);
	rx->ackreq = (bth[8] & HOSTEM_BTH_ACKREQ) != 0;
	rx->psn = hostem_get24(bth + 9);
	ext = hostem_pkt_ext_size(rx->opcode);
	if (ext >= 0) {
		pad = (bth[1] >> 4) & 3;
		fixed = HOSTEM_UDP_HDR + HOSTEM_BTH_SIZE + (uint32_t)ext + pad + HOSTEM_ICRC_SIZE;
		if (udp_len < fixed)
			return HOSTEM_RX_MALFORMED;
		rx->payload = bth + HOSTEM_BTH_SIZE + ext;
		rx->payload_len = udp_len - fixed;
		if (rx->opcode == HOSTEM_OP_ACK) {
			rx->syndrome = bth[HOSTEM_BTH_SIZE];
			rx->msn = hostem_get24(bth + HOSTEM_BTH_SIZE + 1);
		}
	}
	if (check_icrc) {
		uint32_t ip_len = (l4 - l3) + udp_len - HOSTEM_ICRC_SIZE, got;

		memcpy(&got, d + l3 + ip_len, 4);
		if (rte_le_to_cpu_32(got) != hostem_pkt_icrc(d + l3, ip_len))
			return HOSTEM_RX_BAD_ICRC;
	}
	return HOSTEM_RX_ROCE;
}

bool
hostem_pkt_mark_ce(struct rte_mbuf *m)
{
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, m->l2_len);

	if ((ip[0] >> 4) == 4) {
		struct rte_ipv4_hdr *ip4 = (struct rte_ipv4_hdr *)ip;
		uint8_t old = ip4->type_of_service;

		if (!ecn_is_capable(ecn_of_tos(old)))
			return false;
		ip4->type_of_service = ecn_tos_with(old, ECN_CE);
		ip4->hdr_checksum = rte_cpu_to_be_16(ecn_ipv4_csum_update_tos(
			rte_be_to_cpu_16(ip4->hdr_checksum), old, ip4->type_of_service));
	} else {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)ip;
		uint32_t vtc = rte_be_to_cpu_32(ip6->vtc_flow);
		uint8_t ecn = (uint8_t)((vtc >> RTE_IPV6_HDR_TC_SHIFT) & ECN_MASK);

		if (!ecn_is_capable(ecn))
			return false;
		vtc |= (uint32_t)ECN_CE << RTE_IPV6_HDR_TC_SHIFT;
		ip6->vtc_flow = rte_cpu_to_be_32(vtc);
	}
	return true;
}
