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
#define GENEVE_OPT_TYPE_ECHO 0x03 /* path probe echo (0x02 is the credit option) */
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

/*
 * The echo option of a path probe (docs/wire-format.md, "Path
 * measurement"): the transmit timestamp of the last packet this worker
 * received from the peer (t1, the peer's clock) and when it arrived (t2,
 * this gateway's clock). The probe's own telemetry option carries t3.
 */
#define GENEVE_ECHO_VALID 0x01 /* flags: t1/t2 hold a packet received from the peer */
struct geneve_ls_echo {
	rte_be16_t opt_class;
	uint8_t type;
	uint8_t len; /* R(3) | length in 4-byte words (5) */
	uint8_t version;
	uint8_t flags;
	rte_be16_t reserved;
	rte_be64_t t1_ns;
	rte_be64_t t2_ns;
} __rte_packed;
static_assert(sizeof(struct geneve_ls_echo) == 24, "Longspan echo option is 24 bytes");

/* A probe: GENEVE (O = 1, protocol 0) with the telemetry and echo options, no inner packet. */
#define GENEVE_PROBE_HDR_SIZE (GENEVE_ENCAP_HDR_SIZE + sizeof(struct geneve_ls_echo))

/* What decapsulation learned from a GENEVE header. */
struct geneve_info {
	uint32_t vni;
	uint16_t proto; /* inner ether type, host order */
	uint16_t inner_off; /* offset of the inner IP header from the buffer start */
	uint8_t has_ls_opt;
	uint16_t worker;
	uint32_t seq;
	uint64_t tx_ns;
	uint8_t probe; /* a path probe (O = 1, protocol 0, both options): consumed */
	uint8_t has_echo; /* an echo option was present */
	uint8_t echo_flags; /* its flags (GENEVE_ECHO_*; unknown bits ignored) */
	uint64_t echo_t1_ns, echo_t2_ns;
	uint8_t has_credit; /* a well-formed credit option (mechanism B) */
	uint8_t control; /* a credit control packet: O = 1, protocol 0, no inner packet */
	struct credit_opt credit;
};

/*
 * Parse the GENEVE header at p[off..end). Returns LS_DROP_NONE and fills gi,
 * or the reason the packet must be dropped. A control packet (O = 1,
 * protocol 0, nothing after the options) is accepted only as a path probe
 * (gi->probe: the telemetry and echo options) or a credit control packet
 * (gi->control: a credit option); any other is geneve_oam. A malformed or
 * repeated credit option is credit_option_bad.
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
