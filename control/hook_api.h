/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOOK_API_H
#define LONGSPAN_HOOK_API_H

/*
 * The hooks' API commands and telemetry paths (control/hook_api.c):
 * `show hooks` (/longspan/hooks) and `show flows --source hook`
 * (/longspan/hook_flows,PAGE). Register at init, before api_listen() and
 * telemetry_register().
 */

struct api_ctx;

int hook_api_register(void);

/* The "hooks" member of show stats: calls, errors, cycles per hook. */
void hook_api_stats(struct api_ctx *ctx);

#endif /* LONGSPAN_HOOK_API_H */
