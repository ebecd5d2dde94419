/* SPDX-License-Identifier: BSD-3-Clause */
/* Passes the object checks, refused by rte_bpf's verifier: reads past the context. */
#include "dataplane/hook_abi.h"

LS_HOOK_DECLARE(0, 0, 0);

LS_HOOK_SEC("hook") uint64_t
run(const struct ls_hook_ctx *c)
{
	const uint64_t *p = (const uint64_t *)c;

	return p[sizeof(*c) / sizeof(*p) + 1];
}
