/* SPDX-License-Identifier: BSD-3-Clause */
/* Refused when built with -mcpu=v3: the 32-bit compare becomes a JMP32 instruction. */
#include "dataplane/hook_abi.h"

LS_HOOK_DECLARE(0, 0, 0);

LS_HOOK_SEC("hook") uint64_t
run(const struct ls_hook_ctx *c)
{
	if (c->psn > 5 && c->dest_qp != 7)
		return 1;
	return 0;
}
