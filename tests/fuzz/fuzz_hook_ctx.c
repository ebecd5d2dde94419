/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: dp_hook_ctx_ip() (dataplane/hook.c), the hook context's
 * parser of the IP packet a hook point sees, on arbitrary bytes taken as an
 * IP packet and, past an Ethernet header's worth, as a frame's IP part (the
 * parse corpus holds frames). The bytes are copied into a heap buffer of
 * exactly their size, so ASan reports any read past them. A context that
 * says RoCE has the headers for it within the bytes; one that holds an IP
 * packet has a hash, never 0.
 */
#include <stdlib.h>
#include <string.h>

#include "dataplane/hook.h"
#include "fuzz.h"

static void
one(const uint8_t *data, size_t size)
{
	uint8_t *b = malloc(size > 0 ? size : 1);
	struct ls_hook_ctx c;
	bool roce;

	FUZZ_CHECK(b != NULL);
	memcpy(b, data, size);
	dp_hook_ctx_init(&c, LS_HOOK_DC_RX, 1, 2, 3);
	roce = dp_hook_ctx_ip(&c, b, (uint32_t)size, 0);
	FUZZ_CHECK(c.family == 0 || c.hash != 0);
	FUZZ_CHECK(c.family == 0 || c.family == LS_HOOK_FAMILY_IP4 || c.family == LS_HOOK_FAMILY_IP6);
	FUZZ_CHECK(roce == ((c.flags & LS_HOOK_F_ROCE) != 0));
	FUZZ_CHECK(c.ip_bytes <= size);
	if (roce) {
		uint32_t hlen = c.family == LS_HOOK_FAMILY_IP4 ? (b[0] & 0x0fu) * 4 : 40;

		FUZZ_CHECK(c.proto == 17 && c.dport == 4791);
		FUZZ_CHECK(size >= hlen + 8 + 12);
		FUZZ_CHECK(c.dest_qp <= 0xffffff && c.psn <= 0xffffff);
		if (c.flags & LS_HOOK_F_AETH)
			FUZZ_CHECK(size >= hlen + 8 + 12 + 4);
	} else {
		FUZZ_CHECK(c.flags == 0);
	}
	FUZZ_CHECK(c.abi_version == LS_HOOK_ABI_VERSION && c.hook_point == LS_HOOK_DC_RX);
	free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(data, size);
	if (size > 14)
		one(data + 14, size - 14);
	return 0;
}
