/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every packet is counted exactly once when a transmit queue is full
 * (the fixtures' rings never are): dp_worker_poll() over net_ring ports
 * whose tx rings hold 7 packets.
 *
 * - Received packets the WAN queue refuses are tx_ring_full drops, and
 *   rx = forwarded + drops + punted + queued.
 * - Packets the gateway built (control-thread injects here; mechanism A
 *   CNPs take the same path) that a full queue refuses are own_tx_failed,
 *   never a drop of a received packet: no packet was received.
 * - Whatever was sent is forwarded + own_tx.
 * - A port the control thread stopped to restart its link
 *   (control/port_restart.h) is neither polled nor sent to: what would
 *   go out is a port_stopped drop (own packets own_tx_failed), or waits
 *   in the WAN queue; once it runs again its rx ring is read and the
 *   queue drains.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "control/ports.h"
#include "dataplane/mbuf_meta.h"
#include "dataplane/tm.h"
#include "dataplane/worker.h"
#include "ut_eal.h"
#include "ut_pkt.h"
#include "ut_ports.h"
#include "ut_runtime.h"
#include "ut_sums.h"

/* A tx ring of 8 slots holds 7 packets. */
#define UT_TX_RING 8
#define UT_TX_ROOM (UT_TX_RING - 1)

static const char conf_text[] =
	"[gateway]\nname = acct\nburst = 32\nprobe_interval = 0\n"
	"[port dc]\nrole = dc\ndev = net_ring_acct_dc\nmac = 02:00:00:00:01:fe\n"
	"ipv4 = 10.1.0.254/16\nneighbor = 10.1.0.1 02:00:00:00:01:01\n"
	"[port wan]\nrole = wan\ndev = net_ring_acct_wan\nmac = 02:00:00:00:0a:02\n"
	"ipv4 = 192.0.2.1/24\nneighbor = 192.0.2.2 02:00:00:00:0b:02\n"
	"[peer site-b]\nport = wan\nremote = 192.0.2.2\nvni = 100\nrtt = 1ms\n"
	"prefix = 10.2.0.0/16\n";

static struct ls_runtime rt;
static struct dp_worker *w;
static struct rte_ring *rx_ring[LS_MAX_PORTS], *tx_ring[LS_MAX_PORTS];
static unsigned int dc_port, wan_port;

/* Empty every tx ring (what the wire took) and zero the counters. */
static void
reset(void)
{
	struct rte_mbuf *m;
	unsigned int p;

	for (p = 0; p < rt.cfg->n_ports; p++)
		while (rte_ring_dequeue(tx_ring[p], (void **)&m) == 0)
			rte_pktmbuf_free(m);
	memset(&w->counters, 0, sizeof(w->counters));
}

static uint64_t
sum_rx(void)
{
	return w->counters.port[dc_port].rx_pkts + w->counters.port[wan_port].rx_pkts;
}

static uint64_t
sum_tx(void)
{
	return w->counters.port[dc_port].tx_pkts + w->counters.port[wan_port].tx_pkts;
}

static uint64_t
sum_drops(void)
{
	uint64_t n = 0;
	unsigned int r;

	for (r = 1; r < LS_DROP_MAX; r++)
		n += w->counters.drops[r];
	return n;
}

static void
poll_once(void)
{
	const struct dp_clock clk = { .tsc = 1000, .ns = 1700000000000000000ull };

	dp_worker_poll(w, &clk);
}

/* The sums every test checks, and what was transmitted is on the tx rings. */
static void
check_sums(void)
{
	ut_check_sums(w, dc_port, wan_port);
	assert_int_equal(sum_tx(), rte_ring_count(tx_ring[dc_port]) +
					   rte_ring_count(tx_ring[wan_port]));
}

static void
test_forwarded_tx_full(void **state)
{
	unsigned int i, n = 20;

	(void)state;
	reset();
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(rt.pool);
		struct ut_pkt p;

		assert_non_null(m);
		ut_build(&p, &(struct ut_spec){ .family = 4, .sport = (uint16_t)(1000 + i),
					       .dport = 2000, .payload = 32 });
		memcpy(rte_pktmbuf_append(m, (uint16_t)p.len), p.b, p.len);
		assert_int_equal(rte_ring_enqueue(rx_ring[dc_port], m), 0);
	}
	poll_once();
	assert_int_equal(sum_rx(), n);
	assert_int_equal(w->counters.forwarded, UT_TX_ROOM);
	assert_int_equal(w->counters.drops[LS_DROP_TX_FULL], n - UT_TX_ROOM);
	assert_int_equal(w->counters.own_tx + w->counters.own_tx_failed, 0);
	check_sums();
}

/* Control-thread packets: two to a port the snapshot lacks, the rest to the DC port. */
static void
test_own_tx_full(void **state)
{
	unsigned int i, n = 12, bad = 2;

	(void)state;
	reset();
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(rt.pool);

		assert_non_null(m);
		memset(rte_pktmbuf_append(m, 60), 0xab, 60);
		dp_mbuf_meta(m)->port = (uint8_t)(i < bad ? LS_MAX_PORTS : dc_port);
		assert_int_equal(rte_ring_enqueue(w->inject, m), 0);
	}
	poll_once();
	assert_int_equal(sum_rx(), 0);
	assert_int_equal(w->counters.injected, n);
	assert_int_equal(w->counters.own_tx, UT_TX_ROOM);
	assert_int_equal(w->counters.own_tx_failed, n - UT_TX_ROOM);
	/* Nothing was received, so nothing received was dropped. */
	assert_int_equal(sum_drops(), 0);
	assert_int_equal(w->counters.forwarded, 0);
	check_sums();
}

static uint64_t
wan_queued(void)
{
	uint64_t n = 0;

	for (unsigned int c = 0; c < DP_TM_CLASS_MAX; c++)
		n += tm_fifo_count(&w->tm[wan_port].q[c]);
	return n;
}

/* Publish a snapshot with the WAN port stopped or running, as port_restart.c does. */
static void
wan_stopped(bool stopped)
{
	struct dp_conf *dp = NULL;

	rt.port_restart[wan_port].state = stopped ? PORT_RESTART_STOPPED : PORT_RESTART_RUNNING;
	assert_int_equal(runtime_dp_build(&rt, rt.cfg, &dp, stderr), 0);
	runtime_publish_dp(&rt, dp);
	assert_int_equal(rt.dp->ports[wan_port].stopped, stopped);
}

static void
test_port_stopped(void **state)
{
	unsigned int i, n = 5, wan_in = 3, own = 2;
	uint64_t queued;

	(void)state;
	reset();
	wan_stopped(true);
	for (i = 0; i < n + wan_in + own; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(rt.pool);
		struct ut_pkt p;

		assert_non_null(m);
		ut_build(&p, &(struct ut_spec){ .family = 4, .sport = (uint16_t)(3000 + i),
					       .dport = 2000, .payload = 32 });
		memcpy(rte_pktmbuf_append(m, (uint16_t)p.len), p.b, p.len);
		if (i < n) {
			assert_int_equal(rte_ring_enqueue(rx_ring[dc_port], m), 0);
		} else if (i < n + wan_in) {
			/* Anything on the stopped port's rx ring: left there. */
			assert_int_equal(rte_ring_enqueue(rx_ring[wan_port], m), 0);
		} else {
			dp_mbuf_meta(m)->port = (uint8_t)wan_port;
			assert_int_equal(rte_ring_enqueue(w->inject, m), 0);
		}
	}
	poll_once();
	poll_once();
	assert_int_equal(sum_rx(), n);
	assert_int_equal(rte_ring_count(rx_ring[wan_port]), wan_in);
	assert_int_equal(rte_ring_count(tx_ring[wan_port]), 0);
	assert_int_equal(w->counters.forwarded, 0);
	assert_int_equal(w->counters.own_tx_failed, own);
	queued = wan_queued();
	assert_int_equal(w->counters.drops[LS_DROP_PORT_STOPPED] + queued, n);
	check_sums();

	/* Running again: its rx ring is read, the queue drains. */
	wan_stopped(false);
	for (i = 0; i < 4; i++)
		poll_once();
	assert_int_equal(sum_rx(), n + wan_in);
	assert_int_equal(rte_ring_count(rx_ring[wan_port]), 0);
	assert_int_equal(wan_queued(), 0);
	assert_true(w->counters.forwarded >= queued);
	check_sums();
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forwarded_tx_full),
		cmocka_unit_test(test_own_tx_full),
		cmocka_unit_test(test_port_stopped),
	};
	int rc;

	(void)argc;
	if (ut_eal_init(argv[0], "ut_acct", 256) != 0)
		return 1;
	w = ut_runtime_init(&rt, "ut_acct", conf_text, 1023);
	if (w == NULL || ut_ports_create(rt.cfg, "ut_acct", 256, UT_TX_RING, rx_ring, tx_ring, &dc_port,
				      &wan_port) != 0 ||
	    ports_setup(rt.cfg, rt.pool, rt.port_ids, stderr) != 0 || ut_runtime_publish(&rt) != 0)
		return 1;
	rc = cmocka_run_group_tests_name("dataplane_accounting", tests, NULL, NULL);
	reset();
	ut_eal_fini();
	return rc;
}
