/* SPDX-License-Identifier: BSD-3-Clause */
/* Refused: calls kernel helper 5 (bpf_ktime_get_ns), an unrelocated `call 5`. */
#include "dataplane/hook_abi.h"

LS_HOOK_DECLARE(0, 0, 0);

static uint64_t (*const ktime_get_ns)(void) = (void *)5;

LS_HOOK_SEC("hook") uint64_t
run(const struct ls_hook_ctx *c)
{
	return ktime_get_ns() + c->psn;
}
