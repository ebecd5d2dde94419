/* SPDX-License-Identifier: BSD-3-Clause */
/* The accounting check of the packet tests (ut_sums.h). */
#include "ut_sums.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dataplane/tm.h"

void
ut_check_sums(const struct dp_worker *w, unsigned int dc_port, unsigned int wan_port)
{
	const struct dp_counters *c = &w->counters;
	uint64_t rx = c->port[dc_port].rx_pkts + c->port[wan_port].rx_pkts;
	uint64_t tx = c->port[dc_port].tx_pkts + c->port[wan_port].tx_pkts;
	uint64_t drops = 0, queued = 0, pfc_own = 0;
	unsigned int i;

	for (i = 1; i < LS_DROP_MAX; i++)
		drops += c->drops[i];
	for (i = 0; i < DP_TM_CLASS_MAX; i++)
		queued += tm_fifo_count(&w->tm[wan_port].q[i]);
	for (i = 0; i < PFC_PRIORITIES; i++)
		pfc_own += c->pfc.tx_pauses[i] + c->pfc.tx_resumes[i];
	assert_int_equal(rx, c->forwarded + drops + c->punted + queued + c->pfc.queued);
	assert_int_equal(tx, c->forwarded + c->own_tx);
	assert_int_equal(c->mech.cnp_sent + pfc_own + c->credit.ctrl_tx + c->injected +
				 c->probes_sent,
			 c->own_tx + c->own_tx_failed);
}
