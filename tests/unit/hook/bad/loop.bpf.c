/* SPDX-License-Identifier: BSD-3-Clause */
/* Refused: a loop with no bound clang could unroll (the Collatz walk of the PSN). */
#include "dataplane/hook_abi.h"

LS_HOOK_DECLARE(0, 0, 0);

LS_HOOK_SEC("hook") uint64_t
run(const struct ls_hook_ctx *c)
{
	uint64_t x = c->psn, n = 0;

	while (x > 1) {
		x = (x & 1) ? 3 * x + 1 : x / 2;
		n++;
	}
	return n;
}
