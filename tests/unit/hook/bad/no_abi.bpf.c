/* SPDX-License-Identifier: BSD-3-Clause */
/* Refused: no LS_HOOK_DECLARE(), so nothing says which ABI it was built for. */
#include "dataplane/hook_abi.h"

LS_HOOK_SEC("hook") uint64_t
run(const struct ls_hook_ctx *c)
{
	return c->psn;
}
