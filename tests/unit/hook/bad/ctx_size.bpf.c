/* SPDX-License-Identifier: BSD-3-Clause */
/* Refused: built against a hook context of another size. */
#include "dataplane/hook_abi.h"

__attribute__((section(LS_HOOK_ABI_SECTION), used)) const struct ls_hook_abi_note ls_hook_abi = {
	.magic = LS_HOOK_ABI_MAGIC,
	.abi_version = LS_HOOK_ABI_VERSION,
	.ctx_size = 64,
};

LS_HOOK_SEC("hook") uint64_t
run(const struct ls_hook_ctx *c)
{
	return c->psn;
}
