/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_ECN_H
#define LONGSPAN_ECN_H

/*
 * ECN on the wire: RFC 3168 codepoints, RFC 6040 tunnel rules and the
 * RFC 1624 incremental IPv4 header checksum update for a TOS change.
 *
 * Everything here is a pure function of a few bits, cheap enough for the
 * per-packet path. "ecn" arguments are the two ECN bits (0..3); "tos" is the
 * whole IPv4 TOS / IPv6 traffic class byte (DSCP << 2 | ECN).
 */

#include <stdbool.h>
#include <stdint.h>

/* RFC 3168 section 5: the ECN field, the two low bits of TOS/traffic class. */
#define ECN_NOT_ECT 0x0 /* not ECN-capable transport */
#define ECN_ECT1 0x1 /* ECN-capable, codepoint 1 (L4S, RFC 9331) */
#define ECN_ECT0 0x2 /* ECN-capable, codepoint 0: what RoCE NICs send */
#define ECN_CE 0x3 /* congestion experienced */
#define ECN_MASK 0x3

/* A marker's decision for one packet (ecn_red, ecn_sojourn, ecn_phantom). */
enum ecn_verdict {
	ECN_VERDICT_PASS = 0, /* no congestion signal for this packet */
	ECN_VERDICT_MARK, /* signal congestion: see ecn_mark_action() */
};

/* RFC 6040 decapsulation verdict: the packet must be dropped. */
#define ECN_DECAP_DROP (-1)

static inline uint8_t
ecn_of_tos(uint8_t tos)
{
	return tos & ECN_MASK;
}

static inline uint8_t
ecn_tos_with(uint8_t tos, uint8_t ecn)
{
	return (uint8_t)((tos & ~ECN_MASK) | (ecn & ECN_MASK));
}

/* True for ECT(0), ECT(1) and CE: the transport understands ECN. */
static inline bool
ecn_is_capable(uint8_t ecn)
{
	return (ecn & ECN_MASK) != ECN_NOT_ECT;
}

/*
 * What to do with a packet a marker chose (verdict MARK), by its ECN field:
 * ECT(0)/ECT(1) get CE; CE stays CE (nothing to write); Not-ECT cannot carry
 * the signal, so it is dropped when drop_not_ect is set (classic RED) or
 * forwarded unchanged otherwise (a lossless RoCE class never drops for
 * marking). Marks and drops are counted separately by the caller.
 */
enum ecn_action {
	ECN_ACTION_FORWARD = 0, /* leave the packet as it is */
	ECN_ACTION_SET_CE, /* write CE, patch the checksum */
	ECN_ACTION_DROP, /* Not-ECT selected for marking, drop_not_ect set */
};

static inline enum ecn_action
ecn_mark_action(uint8_t ecn, bool drop_not_ect)
{
	switch (ecn & ECN_MASK) {
	case ECN_ECT0:
	case ECN_ECT1:
		return ECN_ACTION_SET_CE;
	case ECN_CE:
		return ECN_ACTION_FORWARD;
	default:
		return drop_not_ect ? ECN_ACTION_DROP : ECN_ACTION_FORWARD;
	}
}

/*
 * RFC 6040 section 4.1, normal mode: the outer header gets a copy of the
 * inner ECN field on encapsulation (CE included, so congestion seen before
 * the tunnel stays visible to tunnel routers).
 */
static inline uint8_t
ecn_encap(uint8_t inner_ecn)
{
	return inner_ecn & ECN_MASK;
}

/*
 * RFC 6040 section 4.2, Figure 4: the inner ECN field after decapsulation,
 * or ECN_DECAP_DROP (outer CE over a Not-ECT inner: the congestion signal
 * cannot be passed on, so the packet is dropped, as a router would have).
 *
 *   inner \ outer | Not-ECT  ECT(0)   ECT(1)   CE
 *   Not-ECT       | Not-ECT  Not-ECT  Not-ECT  drop
 *   ECT(0)        | ECT(0)   ECT(0)   ECT(1)   CE
 *   ECT(1)        | ECT(1)   ECT(1)   ECT(1)   CE
 *   CE            | CE       CE       CE       CE
 */
static inline int
ecn_decap(uint8_t outer_ecn, uint8_t inner_ecn)
{
	uint8_t outer = outer_ecn & ECN_MASK;
	uint8_t inner = inner_ecn & ECN_MASK;

	if (inner == ECN_NOT_ECT)
		return outer == ECN_CE ? ECN_DECAP_DROP : ECN_NOT_ECT;
	if (outer == ECN_CE || inner == ECN_CE)
		return ECN_CE;
	if (outer == ECN_ECT1)
		return ECN_ECT1;
	return inner;
}

/*
 * True for the combinations RFC 6040 section 4.2 marks "(!!!)": currently
 * unused, so a decapsulator should count them as a possible attack or a
 * misbehaving tunnel endpoint (Not-ECT inner under ECT outer, drop case,
 * CE inner under ECT(1) outer).
 */
static inline bool
ecn_decap_is_unexpected(uint8_t outer_ecn, uint8_t inner_ecn)
{
	uint8_t outer = outer_ecn & ECN_MASK;
	uint8_t inner = inner_ecn & ECN_MASK;

	if (inner == ECN_NOT_ECT)
		return outer != ECN_NOT_ECT;
	return inner == ECN_CE && outer == ECN_ECT1;
}

/*
 * RFC 1624 equation 3: the IPv4 header checksum after the TOS byte changes
 * from old_tos to new_tos, HC' = ~(~HC + ~m + m'). csum is the checksum
 * field as a host-order number (rte_be_to_cpu_16() of the header field);
 * the result is in the same form. TOS is the low byte of the header's
 * first 16-bit word, so m and m' differ only in that byte and the version
 * and IHL byte cancels out. Equal to a full recomputation for every input
 * (tested exhaustively).
 */
static inline uint16_t
ecn_ipv4_csum_update_tos(uint16_t csum, uint8_t old_tos, uint8_t new_tos)
{
	uint32_t sum = (uint16_t)~csum;

	sum += (uint16_t)~(uint16_t)old_tos;
	sum += new_tos;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

#endif /* LONGSPAN_ECN_H */
