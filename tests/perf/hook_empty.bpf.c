/* SPDX-License-Identifier: BSD-3-Clause */
/* The empty hook: hook_cycles measures the cost of a call itself with it. */
#include "dataplane/hook_abi.h"

LS_HOOK_DECLARE(0, 0, 0);

LS_HOOK_SEC("hook") uint64_t
empty_run(const struct ls_hook_ctx *c)
{
	(void)c;
	return 0;
}
