/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_ROCE_H
#define LONGSPAN_ROCE_H

/*
 * RoCEv2 wire structures (InfiniBand Architecture Specification vol. 1,
 * annex A17). DPDK 22.11 as packaged in Debian has no rte_ib.h, so the
 * Base Transport Header is defined here.
 */

#include <assert.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

#define ROCE_UDP_PORT 4791
#define ROCE_ICRC_SIZE 4

/* BTH opcodes the gateway distinguishes. */
#define ROCE_OP_RC_SEND_ONLY 0x04
#define ROCE_OP_RC_WRITE_FIRST 0x06
#define ROCE_OP_RC_WRITE_MIDDLE 0x07
#define ROCE_OP_RC_WRITE_LAST 0x08
#define ROCE_OP_RC_WRITE_ONLY 0x0a
#define ROCE_OP_RC_ACK 0x11 /* carries an AETH; NAK is an ACK with a NAK syndrome */
#define ROCE_OP_RC_ATOMIC_ACK 0x12 /* AETH + AtomicAckETH */
#define ROCE_OP_CNP 0x81

/* Base Transport Header, 12 bytes, network order. */
struct roce_bth {
	uint8_t opcode;
	uint8_t flags; /* SE(1) M(1) PadCnt(2) TVer(4) */
	rte_be16_t pkey;
	uint8_t fecn_becn; /* FECN(1) BECN(1) resv6 */
	uint8_t dqpn[3];
	uint8_t ackreq; /* AckReq(1) resv7 */
	uint8_t psn[3];
} __rte_packed;
static_assert(sizeof(struct roce_bth) == 12, "BTH is 12 bytes");

#define ROCE_BTH_FECN 0x80
#define ROCE_BTH_BECN 0x40

/* ACK Extended Transport Header, 4 bytes. */
struct roce_aeth {
	uint8_t syndrome; /* bits 6:5 = 00 ACK, 01 RNR NAK, 11 NAK */
	uint8_t msn[3];
} __rte_packed;
static_assert(sizeof(struct roce_aeth) == 4, "AETH is 4 bytes");

static inline uint32_t
roce_u24(const uint8_t b[3])
{
	return ((uint32_t)b[0] << 16) | ((uint32_t)b[1] << 8) | b[2];
}

/* DestQP and PSN of a BTH: one 32-bit load each (the byte before is reserved/AckReq). */
static inline uint32_t
roce_bth_dqpn(const struct roce_bth *b)
{
	uint32_t v;

	memcpy(&v, &b->fecn_becn, sizeof(v));
	return __builtin_bswap32(v) & 0xffffff;
}

static inline uint32_t
roce_bth_psn(const struct roce_bth *b)
{
	uint32_t v;

	memcpy(&v, &b->ackreq, sizeof(v));
	return __builtin_bswap32(v) & 0xffffff;
}

static inline void
roce_set_u24(uint8_t b[3], uint32_t v)
{
	b[0] = (uint8_t)(v >> 16);
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)v;
}

#endif /* LONGSPAN_ROCE_H */
