/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_GENEVE_H
#define LONGSPAN_GENEVE_H

/*
 * GENEVE (RFC 8926) encapsulation toward a peer gateway and the parsing of
 * received tunnel headers, as specified in docs/wire-format.md.
 */

#include <assert.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "credit_opt.h"
#include "drop_reason.h"

#define GENEVE_UDP_PORT 6081
#define GENEVE_HDR_SIZE 8
#define GENEVE_OPT_CLASS_LONGSPAN 0xff4c /* RFC 8926 experimental range */
#define GENEVE_OPT_TYPE_TELEMETRY 0x01
#define GENEVE_OPT_TYPE_CREDIT CREDIT_OPT_TYPE /* credit_opt.h */
#define GENEVE_OPT_TYPE_CRITICAL 0x80
#define GENEVE_LS_OPT_VERSION 1

/* The Longspan telemetry option: 4-byte option header + 16 bytes data. */
struct geneve_ls_opt {
	rte_be16_t opt_class;
	uint8_t type;
	uint8_t len; /* R(3) | length in 4-byte words (5) */
	uint8_t version;
	uint8_t flags;
	rte_be16_t worker;
	rte_be32_t seq;
	rte_be64_t tx_ns;
} __rte_packed;
static_assert(sizeof(struct geneve_ls_opt) == 20, "Longspan GENEVE option is 20 bytes");

#define GENEVE_ENCAP_HDR_SIZE (GENEVE_HDR_SIZE + sizeof(struct geneve_ls_opt))

/* What decapsulation learned from a GENEVE header. */
struct geneve_info {
	uint32_t vni;
	uint16_t proto; /* inner ether type, host order */
	uint16_t inner_off; /* offset of the inner IP header from the buffer start */
	uint8_t has_ls_opt;
	uint16_t worker;
	uint32_t seq;
	uint64_t tx_ns;
	uint8_t has_credit; /* a well-formed credit option (mechanism B) */
	uint8_t control; /* a credit control packet: O = 1, protocol 0, no inner packet */
	struct credit_opt credit;
};

/*
 * Parse the GENEVE header at p[off..end). Returns LS_DROP_NONE and fills gi,
 * or the reason the packet must be dropped. A control message (O = 1) is
 * accepted only as a credit control packet (gi->control): protocol type 0,
 * one credit option and nothing after the options; any other is
 * geneve_oam. A malformed or repeated credit option is credit_option_bad.
 */
enum ls_drop_reason geneve_parse(const uint8_t *p, uint32_t off, uint32_t end,
				 struct geneve_info *gi);

/* Outer UDP source port from the inner flow hash (RFC 8926 section 3.3). */
static inline uint16_t
geneve_src_port(uint32_t hash)
{
	return (uint16_t)(0xc000 | (hash & 0x3fff));
}

#endif /* LONGSPAN_GENEVE_H */
