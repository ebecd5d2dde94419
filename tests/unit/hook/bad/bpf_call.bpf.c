/* SPDX-License-Identifier: BSD-3-Clause */
/* Refused: calls a function of its own that is not inlined (a BPF-to-BPF call). */
#include "dataplane/hook_abi.h"

LS_HOOK_DECLARE(0, 0, 0);

static __attribute__((noinline)) uint64_t
twice(uint64_t v)
{
	return v * 2;
}

LS_HOOK_SEC("hook") uint64_t
run(const struct ls_hook_ctx *c)
{
	return twice(c->psn);
}
