/* SPDX-License-Identifier: BSD-3-Clause */
#include "pfc.h"

#include <string.h>

const uint8_t pfc_frame_dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

static inline uint16_t
pfc_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
pfc_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

enum pfc_frame_result
pfc_frame_parse(const uint8_t *p, uint32_t len, struct pfc_frame *out)
{
	uint16_t opcode;
	unsigned int i;

	if (len < 14 || pfc_get16(p + 12) != PFC_FRAME_ETHER_TYPE)
		return PFC_FRAME_NOT_MAC_CONTROL;
	if (len < 16)
		return PFC_FRAME_TRUNCATED;
	opcode = pfc_get16(p + 14);
	if (opcode == PFC_FRAME_OPCODE_PAUSE) {
		uint16_t t;

		if (len < 18)
			return PFC_FRAME_TRUNCATED;
		t = pfc_get16(p + 16);
		out->class_enable = 0xff;
		for (i = 0; i < PFC_PRIORITIES; i++)
			out->quanta[i] = t;
		return PFC_FRAME_OK;
	}
	if (opcode != PFC_FRAME_OPCODE_PFC)
		return PFC_FRAME_OPCODE;
	if (len < PFC_FRAME_MIN_PARSE)
		return PFC_FRAME_TRUNCATED;
	/* The vector's high octet is reserved (802.1Qbb 36.1.3.1): ignored. */
	out->class_enable = p[17];
	for (i = 0; i < PFC_PRIORITIES; i++)
		out->quanta[i] = pfc_get16(p + 18 + 2 * i);
	return PFC_FRAME_OK;
}

uint32_t
pfc_frame_write(uint8_t *p, const uint8_t src_mac[6], uint8_t class_enable,
		const uint16_t quanta[PFC_PRIORITIES])
{
	unsigned int i;

	memset(p, 0, PFC_FRAME_BYTES);
	memcpy(p, pfc_frame_dst, 6);
	memcpy(p + 6, src_mac, 6);
	pfc_put16(p + 12, PFC_FRAME_ETHER_TYPE);
	pfc_put16(p + 14, PFC_FRAME_OPCODE_PFC);
	p[17] = class_enable;
	for (i = 0; i < PFC_PRIORITIES; i++)
		pfc_put16(p + 18 + 2 * i, (class_enable >> i & 1) ? quanta[i] : 0);
	return PFC_FRAME_BYTES;
}
