/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_DP_PFC_H
#define LONGSPAN_DP_PFC_H

/*
 * IEEE 802.1Qbb priority-based flow control frames on the wire (the codec;
 * the state machine is congestion/pfc.h).
 *
 *   offset  size  field
 *        0     6  destination 01:80:c2:00:00:01 (MAC control, never forwarded)
 *        6     6  source: the port's MAC
 *       12     2  EtherType 0x8808 (MAC control), never behind a VLAN tag
 *       14     2  opcode 0x0101 (PFC; 0x0001 is 802.3x PAUSE)
 *       16     2  class-enable vector: bit i set = time[i] is valid
 *       18    16  time[0..7]: pause quanta per priority (512 bit times each)
 *       34    26  zero padding to the 60-byte minimum frame (FCS added by the NIC)
 *
 * An 802.3x PAUSE (opcode 0x0001, one time at offset 16) pauses every
 * priority; it is read as a PFC frame with all eight classes enabled and the
 * same time. Every field is big-endian. Pure byte code, no mbuf: the
 * parser is fuzzed (tests/fuzz/fuzz_pfc.c).
 */

#include <stdint.h>

#include "congestion/pfc.h"

#define PFC_FRAME_ETHER_TYPE 0x8808
#define PFC_FRAME_OPCODE_PFC 0x0101
#define PFC_FRAME_OPCODE_PAUSE 0x0001
#define PFC_FRAME_BYTES 60 /* without FCS */
#define PFC_FRAME_MIN_PARSE 34 /* through time[7] */

/* 01:80:c2:00:00:01, the MAC control multicast address (802.3 Annex 31B). */
extern const uint8_t pfc_frame_dst[6];

struct pfc_frame {
	uint8_t class_enable;
	uint16_t quanta[PFC_PRIORITIES];
};

enum pfc_frame_result {
	PFC_FRAME_OK = 0, /* a PFC or PAUSE frame, *out filled */
	PFC_FRAME_NOT_MAC_CONTROL, /* EtherType is not 0x8808 (or frame under 14 bytes) */
	PFC_FRAME_TRUNCATED, /* MAC control, shorter than its fields */
	PFC_FRAME_OPCODE, /* another MAC control opcode (not PFC or PAUSE) */
};

/* Parse LEN bytes at P (a whole frame from its destination MAC). */
enum pfc_frame_result pfc_frame_parse(const uint8_t *p, uint32_t len, struct pfc_frame *out);

/*
 * Write a PFC frame from SRC_MAC into P (PFC_FRAME_BYTES of room): the
 * priorities in CLASS_ENABLE get QUANTA[i], the others 0. Returns
 * PFC_FRAME_BYTES.
 */
uint32_t pfc_frame_write(uint8_t *p, const uint8_t src_mac[6], uint8_t class_enable,
		const uint16_t quanta[PFC_PRIORITIES]);

#endif /* LONGSPAN_DP_PFC_H */
