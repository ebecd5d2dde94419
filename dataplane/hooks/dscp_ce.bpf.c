/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small example hook (docs/telemetry.md, "Writing a hook"): counts the
 * packets that arrive CE-marked, per inner DSCP, in the lcore's counters
 * (counter i = DSCP i). Attach it to the rx points.
 */
#include "dataplane/hook_abi.h"

#define DSCP_CE_COUNTERS 64 /* one per DSCP value */

LS_HOOK_DECLARE(0, DSCP_CE_COUNTERS, 0);

extern uint64_t ls_hook_counters[DSCP_CE_COUNTERS];

LS_HOOK_SEC("dscp_ce") uint64_t
dscp_ce_run(const struct ls_hook_ctx *c)
{
	uint64_t *n = ls_hook_counters;
	uint64_t dscp = c->dscp;

	if (c->hook_point != LS_HOOK_DC_RX && c->hook_point != LS_HOOK_WAN_RX)
		return 0;
	if ((c->ecn & 3) != 3)
		return 0; /* not CE */
	ls_hook_index(dscp, DSCP_CE_COUNTERS - 1);
	ls_hook_ptr_add(n, dscp * sizeof(*n));
	(*n)++;
	return 0;
}
