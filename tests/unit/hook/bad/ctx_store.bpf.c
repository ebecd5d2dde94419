/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Refused: stores to its context, which is read-only to hooks (hook ABI
 * version 3). Section "hook" stores through a copy of the context pointer
 * kept in another register (the loader follows it), "direct" through r1.
 */
#include "dataplane/hook_abi.h"

LS_HOOK_DECLARE(0, 0, 0);

LS_HOOK_SEC("hook") uint64_t
run(struct ls_hook_ctx *c)
{
	struct ls_hook_ctx *q;

	__asm__("%0 = %1" : "=&r"(q) : "r"(c)); /* a copy in another register */
	q->reserved[0] = q->psn;
	return 0;
}

LS_HOOK_SEC("direct") uint64_t
run_direct(struct ls_hook_ctx *c)
{
	c->verdict = 1;
	return 0;
}
