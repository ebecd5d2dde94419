/* SPDX-License-Identifier: BSD-3-Clause */
/* Refused: keeps state in a global variable (a .bss section rte_bpf does not load). */
#include "dataplane/hook_abi.h"

LS_HOOK_DECLARE(0, 0, 0);

static uint64_t calls;

LS_HOOK_SEC("hook") uint64_t
run(const struct ls_hook_ctx *c)
{
	calls += c->ip_bytes;
	return calls;
}
