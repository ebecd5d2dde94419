/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A wan_tx hook added while packets wait in the traffic manager reads the
 * right flow for every one of them (dp_worker_poll() over net_ring ports,
 * the WAN port shaped so that a burst queues at a frozen clock).
 *
 * Without wan_tx hooks the second pass writes nothing into the mbuf for
 * that point (dataplane/hook_pipe.h, dp_hook_carry()), so a queued packet's
 * mbuf still holds whatever it held before: here a poisoned value. When a
 * snapshot brings the first wan_tx hook, the worker marks the queued
 * packets as carrying no flow (dp_worker_sync_carry()), and their contexts
 * take the hash from the packet; packets queued after it carry their flow
 * table slot. Every context has the flow's own hash, never the poison.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "control/ports.h"
#include "dataplane/hook.h"
#include "dataplane/tm.h"
#include "dataplane/worker.h"
#include "ut_eal.h"
#include "ut_pkt.h"
#include "ut_ports.h"
#include "ut_runtime.h"
#include "ut_sums.h"

#define UT_POISON_HASH 0xdeadbeefu
#define UT_POISON_SLOT 5u
#define UT_BEFORE 24 /* packets sent before the hook is added */
#define UT_AFTER 4 /* and after */
#define UT_QPN 0x123

static const char conf_text[] =
	"[gateway]\nname = carry\nburst = 32\nprobe_interval = 0\n"
	"[port dc]\nrole = dc\ndev = net_ring_carry_dc\nmac = 02:00:00:00:01:fe\n"
	"ipv4 = 10.1.0.254/16\nneighbor = 10.1.0.1 02:00:00:00:01:01\n"
	"[port wan]\nrole = wan\ndev = net_ring_carry_wan\nmac = 02:00:00:00:0a:02\n"
	"ipv4 = 192.0.2.1/24\nlink_rate = 10M\nneighbor = 192.0.2.2 02:00:00:00:0b:02\n"
	"[peer site-b]\nport = wan\nremote = 192.0.2.2\nvni = 100\nrtt = 1ms\n"
	"prefix = 10.2.0.0/16\n";

static struct ls_runtime rt;
static struct dp_worker *w;
static struct rte_ring *rx_ring[LS_MAX_PORTS], *tx_ring[LS_MAX_PORTS];
static unsigned int dc_port, wan_port;

/* What the wan_tx hook saw, in order. */
static struct ls_hook_ctx seen[UT_BEFORE + UT_AFTER];
static unsigned int n_seen;

static uint64_t
record(void *ctx)
{
	if (n_seen < UT_BEFORE + UT_AFTER)
		seen[n_seen] = *(const struct ls_hook_ctx *)ctx;
	n_seen++;
	return 0;
}

/* n RoCE packets of one QP, PSNs from psn, their mbufs' rx hash word poisoned. */
static void
send_roce(unsigned int n, uint32_t psn)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(rt.pool);
		struct ut_pkt p;

		assert_non_null(m);
		ut_build(&p, &(struct ut_spec){ .family = 4, .roce = true, .opcode = 0x04,
					       .sport = 49152, .dqpn = UT_QPN, .psn = psn + i,
					       .payload = 600 });
		memcpy(rte_pktmbuf_append(m, (uint16_t)p.len), p.b, p.len);
		m->hash.fdir.lo = UT_POISON_HASH;
		m->hash.fdir.hi = UT_POISON_SLOT;
		assert_int_equal(rte_ring_enqueue(rx_ring[dc_port], m), 0);
	}
}

static void
poll_at(uint64_t tsc)
{
	const struct dp_clock clk = { .tsc = tsc, .ns = 1700000000000000000ull + tsc };

	dp_worker_poll(w, &clk);
}

static unsigned int
queued(void)
{
	unsigned int q, n = 0;

	for (q = 0; q < DP_TM_CLASS_MAX; q++)
		n += tm_fifo_count(&w->tm[wan_port].q[q]);
	return n;
}

/* The flow table slot of the QP's one flow entry (the only one in use). */
static uint32_t
flow_slot(void)
{
	uint32_t i, slot = LS_HOOK_NO_SLOT;

	for (i = 0; i <= w->flows.mask; i++)
		if (w->flows.e[i].hash != 0) {
			assert_int_equal(slot, LS_HOOK_NO_SLOT);
			slot = i;
		}
	assert_int_not_equal(slot, LS_HOOK_NO_SLOT);
	return slot;
}

static void
test_hook_added_under_queue(void **state)
{
	static struct dp_hooks hooks;
	struct dp_conf *c = rt.dp;
	unsigned int before, i, sent;
	uint32_t slot;
	struct rte_mbuf *m;

	(void)state;
	send_roce(UT_BEFORE, 100);
	poll_at(1000);
	before = queued();
	sent = (unsigned int)rte_ring_count(tx_ring[wan_port]);
	assert_true(before >= UT_BEFORE / 2); /* the shaper let a few out at most */
	assert_int_equal(before + sent, UT_BEFORE); /* none dropped */
	slot = flow_slot();

	/* A snapshot with a wan_tx hook (the test's own function, not a BPF program). */
	hooks.n[LS_HOOK_WAN_TX] = 1;
	hooks.at[LS_HOOK_WAN_TX][0] = (struct dp_hook){ .func = record, .id = 0 };
	c->hooks[w->id] = &hooks;
	c->generation++;
	send_roce(UT_AFTER, 100 + UT_BEFORE);
	poll_at(1000); /* the new snapshot's shaper starts full: some leave at once */

	/* Time enough for the shaper to let everything out. */
	for (i = 0; i < 100 && queued() != 0; i++)
		poll_at(1000 + (uint64_t)(i + 1) * rte_get_tsc_hz());
	assert_int_equal(queued(), 0);
	assert_int_equal(n_seen, before + UT_AFTER);
	for (i = 0; i < n_seen; i++) {
		const struct ls_hook_ctx *x = &seen[i];

		assert_int_equal(x->hash, w->flows.e[slot].hash);
		assert_int_equal(x->dest_qp, UT_QPN);
		assert_int_equal(x->psn, 100 + sent + i);
		assert_true(x->verdict & LS_HOOK_V_FORWARDED);
		/* Queued before the hook: no flow carried; after: the flow's slot. */
		assert_int_equal(x->flow_slot, i < before ? LS_HOOK_NO_SLOT : slot);
	}
	ut_check_sums(w, dc_port, wan_port);

	c->hooks[w->id] = NULL;
	c->generation++;
	while (rte_ring_dequeue(tx_ring[wan_port], (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hook_added_under_queue),
	};
	int rc;

	(void)argc;
	if (ut_eal_init(argv[0], "ut_carry", 256) != 0)
		return 1;
	w = ut_runtime_init(&rt, "ut_carry", conf_text, 1023);
	if (w == NULL || ut_ports_create(rt.cfg, "ut_carry", 256, 256, rx_ring, tx_ring, &dc_port,
				      &wan_port) != 0 ||
	    ports_setup(rt.cfg, rt.pool, rt.port_ids, stderr) != 0 || ut_runtime_publish(&rt) != 0)
		return 1;
	rc = cmocka_run_group_tests_name("dataplane_hook_carry", tests, NULL, NULL);
	ut_eal_fini();
	return rc;
}
