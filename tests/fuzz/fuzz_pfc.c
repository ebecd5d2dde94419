/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the PFC frame codec (dataplane/pfc.c) and the pause state
 * machine it feeds (congestion/pfc.c), as the DC port's receive path
 * chains them.
 *
 * Input: 8 bytes of clock (little-endian ticks when the frame arrives), one
 * byte selecting the port rate, then the frame. The frame is copied into a
 * heap buffer of exactly its size, so ASan reports any read past it.
 * Invariants: a parsed PFC frame writes back to the same fields; a priority
 * with a zero time is not paused; a paused priority ends exactly when its
 * quanta say, never before.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "congestion/pfc.h"
#include "dataplane/pfc.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t rates[] = { 10000000000ull, 25000000000ull, 100000000000ull,
		400000000000ull };
	struct pfc_params pp = { .hz = 1000000000ull, .xoff_bytes = 2, .xon_bytes = 1,
		.pause_quanta = PFC_QUANTA_MAX, .priority_mask = 0xff };
	struct pfc_frame f, g;
	struct pfc_config c;
	struct pfc s;
	uint64_t now = 0;
	uint8_t *frame, out[PFC_FRAME_BYTES];
	size_t len;
	unsigned int i;

	if (size < 9)
		return 0;
	for (i = 0; i < 8; i++)
		now |= (uint64_t)data[i] << (8 * i);
	pp.port_rate_bps = rates[data[8] % 4];
	FUZZ_CHECK(pfc_config_init(&c, &pp) == 0);
	len = size - 9;
	frame = malloc(len ? len : 1);
	if (frame == NULL)
		return 0;
	memcpy(frame, data + 9, len);

	if (pfc_frame_parse(frame, (uint32_t)len, &f) == PFC_FRAME_OK) {
		FUZZ_CHECK(len >= 18);
		if (frame[14] == 0x01 && frame[15] == 0x01) {
			pfc_frame_write(out, frame + 6, f.class_enable, f.quanta);
			FUZZ_CHECK(pfc_frame_parse(out, sizeof(out), &g) == PFC_FRAME_OK);
			FUZZ_CHECK(g.class_enable == f.class_enable);
			for (i = 0; i < PFC_PRIORITIES; i++)
				FUZZ_CHECK(g.quanta[i] == ((f.class_enable >> i & 1) ? f.quanta[i] : 0));
		} else {
			FUZZ_CHECK(f.class_enable == 0xff);
		}
		pfc_init(&s);
		pfc_rx_frame(&c, &s, f.class_enable, f.quanta, now);
		for (i = 0; i < PFC_PRIORITIES; i++) {
			bool on = (f.class_enable >> i & 1) && f.quanta[i] != 0;
			uint64_t d = pfc_quanta_to_ticks(&c, f.quanta[i]);

			FUZZ_CHECK(pfc_rx_paused(&s, i, now) == on);
			if (!on)
				continue;
			FUZZ_CHECK(d * pp.port_rate_bps >= (uint64_t)f.quanta[i] * 512 * pp.hz);
			FUZZ_CHECK(pfc_rx_paused(&s, i, now + d - 1));
			FUZZ_CHECK(!pfc_rx_paused(&s, i, now + d));
			FUZZ_CHECK(pfc_rx_paused_ticks(&s, i, now + d + 1) == d);
		}
	}
	free(frame);
	return 0;
}
