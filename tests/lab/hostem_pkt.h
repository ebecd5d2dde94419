/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOSTEM_PKT_H
#define LONGSPAN_HOSTEM_PKT_H

/*
 * RoCEv2 packets as longspan-hostem sends and receives them
 * (docs/roce-wire.md, IBTA annex A17):
 *
 *   Ethernet / IPv4 or IPv6 / UDP dst 4791 / BTH / [RETH | AETH | 16 B] /
 *   payload / pad to 4 bytes / ICRC
 *
 * Each flow direction has a header template (struct hostem_hdr) built once;
 * hostem_pkt_build() copies it, fills opcode, PSN, lengths, checksums and
 * the ICRC. IPv4 carries UDP checksum 0 (what RoCE NICs send); IPv6 carries
 * the full UDP checksum (RFC 8200 forbids 0), computed after the ICRC since
 * the ICRC is inside the UDP payload.
 *
 * ICRC: CRC-32 (rte_net_crc CRC32_ETH, the Ethernet CRC) over 8 bytes of
 * ones, the IP header with its variant fields set to ones (IPv4 TOS, TTL,
 * checksum; IPv6 traffic class, flow label, hop limit), the UDP header with
 * its checksum set to ones, the BTH with its resv8a byte (FECN, BECN) set to
 * ones, and the rest up to the ICRC; stored little-endian. It is computed
 * in place: the 8 bytes before the IP header (the tail of the Ethernet
 * header) and the variant fields are saved, set to ones, covered by one
 * rte_net_crc_calc() call and restored, so no copy of the packet is made.
 *
 * Data payload: zeros, except that a payload of HOSTEM_STAMP_SIZE bytes or
 * more starts with a stamp (magic, sender QPN, transmit TSC) from which the
 * receiver measures one-way latency; all processes of the lab share the TSC.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#include "control/conf_addr.h"

struct rte_mbuf;

#define HOSTEM_ROCE_PORT 4791
#define HOSTEM_BTH_SIZE 12
#define HOSTEM_RETH_SIZE 16
#define HOSTEM_AETH_SIZE 4
#define HOSTEM_CNP_PAD_SIZE 16
#define HOSTEM_ICRC_SIZE 4
#define HOSTEM_ICRC_LRH_ONES 8 /* bytes of ones in place of the absent LRH */
#define HOSTEM_HDR_MAX (RTE_ETHER_HDR_LEN + 40 + 8 + HOSTEM_BTH_SIZE)
/* Largest frame: IPv6, RETH, 4096 B of payload, ICRC. */
#define HOSTEM_FRAME_OVERHEAD (HOSTEM_HDR_MAX + HOSTEM_RETH_SIZE + HOSTEM_ICRC_SIZE)

#define HOSTEM_OP_SEND_FIRST 0x00
#define HOSTEM_OP_SEND_ONLY_IMM 0x05
#define HOSTEM_OP_WRITE_FIRST 0x06
#define HOSTEM_OP_WRITE_MIDDLE 0x07
#define HOSTEM_OP_WRITE_LAST 0x08
#define HOSTEM_OP_WRITE_LAST_IMM 0x09
#define HOSTEM_OP_WRITE_ONLY 0x0a
#define HOSTEM_OP_WRITE_ONLY_IMM 0x0b
#define HOSTEM_OP_ACK 0x11
#define HOSTEM_OP_CNP 0x81

#define HOSTEM_BTH_BECN 0x40
#define HOSTEM_BTH_ACKREQ 0x80
#define HOSTEM_PKEY_DEFAULT 0xffff

/* AETH syndromes (IBTA 9.7.5.2.1): bits 6:5 = 00 ACK, 01 RNR NAK, 11 NAK. */
#define HOSTEM_AETH_ACK 0x1f /* ACK, credit count "invalid" (no end-to-end credits) */
#define HOSTEM_AETH_NAK_PSN_SEQ 0x60 /* NAK, PSN sequence error */
#define HOSTEM_AETH_KIND_MASK 0x60
#define HOSTEM_AETH_KIND_ACK 0x00
#define HOSTEM_AETH_KIND_RNR 0x20
#define HOSTEM_AETH_KIND_NAK 0x60

#define HOSTEM_PSN_MASK 0xffffffu

/* Payload stamp: magic "LSHE", sender QPN, transmit TSC; network order. */
#define HOSTEM_STAMP_MAGIC 0x4c534845u
#define HOSTEM_STAMP_SIZE 16

/*
 * CNPs from a hostem receiver carry this IPv4 identification (IPv6: flow
 * label), so a sender can tell them from CNPs that someone else (a
 * gateway's mechanism A) made. Both fields are outside the ICRC.
 */
#define HOSTEM_CNP_TAG 0x4c53

/* Prebuilt Ethernet / IP / UDP / BTH of one flow direction. */
struct hostem_hdr {
	uint8_t bytes[HOSTEM_HDR_MAX];
	uint16_t len; /* up to the end of the BTH */
	uint16_t l3, l4; /* offsets of the IP and UDP headers */
	uint8_t family;
};

/*
 * Build the template: MACs, addresses, UDP source port, TOS (DSCP << 2 |
 * ECN), BTH DestQP, and the IPv4 identification / IPv6 flow label.
 */
void hostem_pkt_hdr_init(struct hostem_hdr *h, const struct rte_ether_addr *src_mac,
			 const struct rte_ether_addr *dst_mac, const struct conf_addr *src,
			 const struct conf_addr *dst, uint16_t sport, uint8_t tos, uint32_t dqpn,
			 uint32_t ip_id_or_flow);

/* What one packet needs beyond the template. */
struct hostem_pkt {
	uint8_t opcode;
	uint8_t becn; /* HOSTEM_BTH_BECN or 0 */
	bool ackreq;
	uint32_t psn;
	const uint8_t *ext; /* RETH, AETH or the CNP's 16 reserved bytes */
	uint16_t ext_len;
	uint32_t payload_len; /* before padding */
	const uint8_t *stamp; /* NULL or HOSTEM_STAMP_SIZE bytes at the payload's start */
};

/* Frame size hostem_pkt_build() makes for P with template H. */
uint32_t hostem_pkt_frame_size(const struct hostem_hdr *h, const struct hostem_pkt *p);

/*
 * Write the frame into the empty mbuf M (one segment). Returns 0, or
 * -ENOSPC if it does not fit.
 */
int hostem_pkt_build(struct rte_mbuf *m, const struct hostem_hdr *h, const struct hostem_pkt *p);

/* Fill a RETH: virtual address, R_Key, DMA length. */
void hostem_pkt_reth(uint8_t reth[HOSTEM_RETH_SIZE], uint64_t va, uint32_t rkey, uint32_t dma_len);

/* Fill an AETH: syndrome, MSN. */
void hostem_pkt_aeth(uint8_t aeth[HOSTEM_AETH_SIZE], uint8_t syndrome, uint32_t msn);

/* Fill a stamp. */
void hostem_pkt_stamp(uint8_t stamp[HOSTEM_STAMP_SIZE], uint32_t qpn, uint64_t tsc);

/*
 * ICRC of the IP packet at ip (len bytes, up to but excluding the ICRC),
 * computed in place (see above); ip must have 8 writable bytes before it.
 */
uint32_t hostem_pkt_icrc(uint8_t *ip, uint32_t len);

enum hostem_rx_class {
	HOSTEM_RX_ROCE = 0,
	HOSTEM_RX_NOT_FOR_US, /* destination MAC is not ours */
	HOSTEM_RX_NOT_ROCE, /* not IPv4/IPv6 UDP to 4791 */
	HOSTEM_RX_MALFORMED, /* lengths inconsistent or truncated */
	HOSTEM_RX_MULTISEG, /* chained mbuf: not parsed */
	HOSTEM_RX_BAD_ICRC,
};

/* A parsed RoCEv2 packet; pointers into the mbuf. */
struct hostem_rx {
	struct conf_addr src, dst;
	uint8_t ecn;
	uint8_t opcode;
	uint8_t becn;
	bool ackreq;
	uint32_t dqpn;
	uint32_t psn;
	uint8_t syndrome; /* ACK only */
	uint32_t msn; /* ACK only */
	uint32_t ip_id_or_flow; /* IPv4 identification or IPv6 flow label */
	const uint8_t *payload;
	uint32_t payload_len; /* without pad and ICRC */
	uint32_t frame_len;
};

/*
 * Classify M. my_mac NULL accepts any destination. With check_icrc the
 * ICRC is verified (in place, the packet is unchanged afterwards).
 */
enum hostem_rx_class hostem_pkt_parse(struct rte_mbuf *m, const struct rte_ether_addr *my_mac,
				      bool check_icrc, struct hostem_rx *rx);

/* Read a stamp; false when the payload does not carry one. */
bool hostem_pkt_stamp_read(const struct hostem_rx *rx, uint32_t *qpn, uint64_t *tsc);

/*
 * Set CE on an ECT packet built by hostem_pkt_build() (IPv4 checksum updated
 * incrementally, RFC 1624). Returns false for a Not-ECT packet, left as is.
 */
bool hostem_pkt_mark_ce(struct rte_mbuf *m);

/* Extension header size of a BTH opcode, or -1 for opcodes hostem does not parse. */
int hostem_pkt_ext_size(uint8_t opcode);

#endif /* LONGSPAN_HOSTEM_PKT_H */
