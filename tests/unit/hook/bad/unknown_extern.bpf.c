/* SPDX-License-Identifier: BSD-3-Clause */
/* Refused: writes an external variable the hook ABI does not offer. */
#include "dataplane/hook_abi.h"

LS_HOOK_DECLARE(0, 0, 0);

extern uint64_t ls_hook_secret[4];

LS_HOOK_SEC("hook") uint64_t
run(const struct ls_hook_ctx *c)
{
	ls_hook_secret[0] += c->ip_bytes;
	return 0;
}
