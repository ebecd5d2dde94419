/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the peering message decoder on arbitrary bytes, the way a
 * connection's receive buffer feeds it: messages back to back, decoded
 * until one is cut short or fails.
 *
 * The input is copied into a heap buffer of exactly its size, so ASan
 * reports any read past it. Beyond memory safety, every verdict is checked
 * against peer_msg.h: the error is a named one, a decoded message lies
 * inside the input and within PEER_MSG_MAX_BYTES, the encoding is
 * canonical (encoding the decoded message gives back the same bytes), and
 * a message cut anywhere is "short", never another verdict.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "control/peer_msg.h"
#include "fuzz.h"

static void
check_cuts(const uint8_t *p, size_t len)
{
	static struct peer_msg m;
	const size_t cuts[] = { 0, 3, 4, 5, 7, len / 2, len - 1 };
	size_t i, used;

	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		if (cuts[i] < len)
			FUZZ_CHECK(peer_msg_decode(p, cuts[i], &m, &used) == PEER_MSG_E_SHORT);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct peer_msg m;
	static uint8_t out[PEER_MSG_MAX_BYTES];
	size_t off = 0;
	uint8_t *p = malloc(size ? size : 1);

	if (p == NULL)
		return 0;
	memcpy(p, data, size);
	while (off < size) {
		size_t used = 0;
		enum peer_msg_err e = peer_msg_decode(p + off, size - off, &m, &used);
		int n;

		FUZZ_CHECK((unsigned int)e < PEER_MSG_E_MAX);
		FUZZ_CHECK(strcmp(peer_msg_err_name(e), "?") != 0);
		if (e != PEER_MSG_OK)
			break;
		FUZZ_CHECK(used >= PEER_MSG_HDR_BYTES && used <= size - off);
		FUZZ_CHECK(used <= PEER_MSG_MAX_BYTES);
		n = peer_msg_encode(&m, out, sizeof(out));
		FUZZ_CHECK(n == (int)used);
		FUZZ_CHECK(memcmp(out, p + off, used) == 0);
		check_cuts(p + off, used);
		off += used;
	}
	free(p);
	return 0;
}
