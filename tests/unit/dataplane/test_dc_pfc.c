/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mechanism B at the DC port, through the real pipeline over net_ring
 * ports with a controlled clock (ut_runtime: 1 TSC tick = 1 ns):
 *
 * - A PFC frame received on the DC port stops its priority toward the DC
 *   for exactly the quanta given (1000 quanta at 10 Gb/s = 51.2 us): a
 *   decapsulated DSCP 26 (priority 3) packet waits in gateway memory until
 *   then, a DSCP 0 packet goes at once; zero quanta resume at once.
 * - The same frame on a WAN port is not obeyed (mac_control).
 * - When the WAN RoCE data queue reaches XOFF the gateway sends a pause for
 *   priority 3 to the DC port, and a resume once it drains to XON; both
 *   are well-formed PFC frames.
 * - Every packet is counted once: rx = forwarded + drops + punted + what
 *   waits (WAN queues, DC pause queues); tx = forwarded + own_tx.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "control/ports.h"
#include "dataplane/pfc.h"
#include "dataplane/worker.h"
#include "ut_eal.h"
#include "ut_pkt.h"
#include "ut_ports.h"
#include "ut_runtime.h"
#include "ut_sums.h"

#define T0 UINT64_C(1000000000)

/*
 * The WAN queue's buffer is set small so XOFF is reached with a few dozen
 * packets: buffer 100000 B, headroom 10 Gb/s x 10 us + 3 x 1500 = 17000 B,
 * XOFF 83000 B, XON 66000 B (cc_params). The workers poll (idle = poll), so
 * the headroom has no DC receive ring in it.
 */
static const char conf_text[] =
	"[gateway]\nname = pfc\nburst = 32\nprobe_interval = 0\nidle = poll\n"
	"[port dc]\nrole = dc\ndev = net_ring_pfc_dc\nmac = 02:00:00:00:01:fe\n"
	"ipv4 = 10.1.0.254/16\nneighbor = 10.1.0.1 02:00:00:00:01:01\nlink_rate = 10G\n"
	"[port wan]\nrole = wan\ndev = net_ring_pfc_wan\nmac = 02:00:00:00:0a:02\n"
	"ipv4 = 192.0.2.1/24\nneighbor = 192.0.2.2 02:00:00:00:0b:02\nlink_rate = 10G\n"
	"[peer site-b]\nport = wan\nremote = 192.0.2.2\nvni = 100\nrtt = 1ms\n"
	"prefix = 10.2.0.0/16\nlossless = pfc\n"
	"[congestion]\nmarker = none\nkmin = 8000\nkmax = 16000\nbuffer = 100000\n";

static struct ls_runtime rt;
static struct dp_worker *w;
static struct rte_ring *rx_ring[LS_MAX_PORTS], *tx_ring[LS_MAX_PORTS];
static unsigned int dc_port, wan_port;

/* The accounting of ut_sums.h, after every step. */
static void
check_sums(void)
{
	ut_check_sums(w, dc_port, wan_port);
}

static void
reset(void)
{
	struct rte_mbuf *m;
	unsigned int p;

	for (p = 0; p < rt.cfg->n_ports; p++)
		while (rte_ring_dequeue(tx_ring[p], (void **)&m) == 0)
			rte_pktmbuf_free(m);
}

/* What the WAN wire took. */
static void
drain_wan(void)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(tx_ring[wan_port], (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

static void
poll_at(uint64_t tsc)
{
	const struct dp_clock clk = { .tsc = tsc, .ns = tsc };

	dp_worker_poll(w, &clk);
}

static void
rx(unsigned int port, const uint8_t *frame, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rt.pool);

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
	assert_int_equal(rte_ring_enqueue(rx_ring[port], m), 0);
}

static void
rx_pfc(unsigned int port, uint8_t prio, uint16_t quanta)
{
	static const uint8_t fabric_mac[6] = { 0x02, 0, 0, 0, 0x01, 0x01 };
	uint16_t q[PFC_PRIORITIES] = { 0 };
	uint8_t f[PFC_FRAME_BYTES];

	q[prio] = quanta;
	rx(port, f, pfc_frame_write(f, fabric_mac, (uint8_t)(1u << prio), q));
}

/* A GENEVE packet from the peer carrying an inner UDP packet 10.2.0.2 -> 10.1.0.1 with TOS tos. */
static void
rx_wan(uint8_t tos, uint16_t sport)
{
	uint8_t f[256];
	struct ut_pkt p;
	uint16_t udp_len;

	ut_build(&p, &(struct ut_spec){ .family = 4, .tos = tos, .sport = sport, .dport = 2222,
				       .payload = 16 });
	memcpy(p.b + p.l3_off + 12, ut_ip4_dst, 4);
	memcpy(p.b + p.l3_off + 16, ut_ip4_src, 4);
	ut_ip4_fix_csum(p.b + p.l3_off);
	udp_len = (uint16_t)(8 + 8 + p.ip_len);
	memcpy(f, "\x02\x00\x00\x00\x0a\x02\x02\x00\x00\x00\x0b\x02", 12);
	ut_put16(f + 12, UT_ET_IPV4);
	memset(f + 14, 0, 36);
	f[14] = 0x45;
	ut_put16(f + 16, (uint16_t)(20 + udp_len));
	ut_put16(f + 20, 0x4000); /* DF */
	f[22] = 64;
	f[23] = UT_PROTO_UDP;
	memcpy(f + 26, "\xc0\x00\x02\x02", 4);
	memcpy(f + 30, "\xc0\x00\x02\x01", 4);
	ut_ip4_fix_csum(f + 14);
	ut_put16(f + 34, 0xc000);
	ut_put16(f + 36, 6081);
	ut_put16(f + 38, udp_len);
	ut_put16(f + 44, UT_ET_IPV4);
	f[49] = 0;
	f[48] = 100; /* VNI 100: bytes 46..48 */
	f[46] = 0;
	f[47] = 0;
	memcpy(f + 50, p.b + p.l3_off, p.ip_len);
	rx(wan_port, f, 50u + p.ip_len);
}

/* Inner TOS of the first frame on the DC tx ring, or -1 when empty; frees it. */
static int
tx_dc_tos(void)
{
	struct rte_mbuf *m;
	int tos;

	if (rte_ring_dequeue(tx_ring[dc_port], (void **)&m) != 0)
		return -1;
	tos = rte_pktmbuf_mtod(m, const uint8_t *)[15];
	rte_pktmbuf_free(m);
	return tos;
}

static void
test_pause_exact_quanta(void **state)
{
	const uint64_t pause = 51200; /* 1000 quanta x 51.2 ns at 10 Gb/s */
	const uint8_t data_tos = 26 << 2 | 2, other_tos = 0;

	(void)state;
	reset();
	rx_pfc(dc_port, 3, 1000);
	poll_at(T0);
	assert_int_equal(w->counters.drops[LS_DROP_PFC_CONSUMED], 1);
	assert_int_equal(w->counters.pfc.rx_frames, 1);
	assert_int_equal(w->counters.pfc.rx_pauses[3], 1);
	assert_int_equal(rte_ring_count(tx_ring[dc_port]), 0);

	/* Priority 3 waits; priority 0 does not. */
	rx_wan(data_tos, 1);
	rx_wan(other_tos, 2);
	rx_wan(data_tos, 3);
	poll_at(T0 + 100);
	assert_int_equal(tx_dc_tos(), other_tos);
	assert_int_equal(tx_dc_tos(), -1);
	assert_int_equal(w->counters.pfc.queued, 2);
	assert_int_equal(w->counters.pfc.held, 2);
	check_sums();

	/* One tick before the quanta run out: still held. At the tick: released, in order. */
	poll_at(T0 + pause - 1);
	assert_int_equal(tx_dc_tos(), -1);
	assert_int_equal(w->counters.pfc.queued, 2);
	poll_at(T0 + pause);
	assert_int_equal(tx_dc_tos(), data_tos);
	assert_int_equal(tx_dc_tos(), data_tos);
	assert_int_equal(w->counters.pfc.queued, 0);
	assert_int_equal(w->counters.pfc.released, 2);
	assert_int_equal(w->counters.pfc.rx_paused_ns[3], pause);
	check_sums();

	/* A long pause, ended early by zero quanta. */
	rx_pfc(dc_port, 3, 0xffff);
	poll_at(T0 + 2 * pause);
	rx_wan(data_tos, 4);
	poll_at(T0 + 2 * pause + 10);
	assert_int_equal(tx_dc_tos(), -1);
	rx_pfc(dc_port, 3, 0);
	poll_at(T0 + 2 * pause + 500);
	assert_int_equal(tx_dc_tos(), data_tos);
	assert_int_equal(w->counters.pfc.rx_paused_ns[3], pause + 500);
	assert_int_equal(w->counters.drops[LS_DROP_PFC_CONSUMED], 3);
	check_sums();

	/* The fabric's frame on a WAN port is not for the gateway to obey. */
	rx_pfc(wan_port, 3, 1000);
	rx_wan(data_tos, 5);
	poll_at(T0 + 3 * pause);
	assert_int_equal(w->counters.drops[LS_DROP_MAC_CONTROL], 1);
	assert_int_equal(tx_dc_tos(), data_tos);
	check_sums();
}

/* The first PFC frame on the DC tx ring, parsed; false when there is none. */
static bool
tx_dc_pfc(struct pfc_frame *pf)
{
	struct rte_mbuf *m;
	bool found = false;

	while (!found && rte_ring_dequeue(tx_ring[dc_port], (void **)&m) == 0) {
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

		found = pfc_frame_parse(p, m->data_len, pf) == PFC_FRAME_OK &&
			memcmp(p, pfc_frame_dst, 6) == 0 && memcmp(p + 6, "\x02\x00\x00\x00\x01\xfe", 6) == 0;
		rte_pktmbuf_free(m);
	}
	return found;
}

static void
test_xoff_xon_toward_dc(void **state)
{
	const struct dp_lossless_conf *lc = &rt.dp->lossless;
	struct pfc_frame pf;
	unsigned int i, b, refreshes;
	uint64_t t = T0 * 4;
	uint16_t last = 1;

	(void)state;
	reset();
	assert_true(lc->enabled);
	assert_int_equal(lc->pfc.xoff_bytes, 83000);
	assert_int_equal(lc->pfc.xon_bytes, 66000);
	/* RoCE data from a local sender, at a frozen clock: the WAN queue fills to XOFF. */
	for (b = 0; b < 6 && w->counters.pfc.tx_pauses[3] == 0; b++) {
		for (i = 0; i < 32; i++) {
			struct ut_pkt p;

			ut_build(&p, &(struct ut_spec){ .family = 4, .tos = 26 << 2 | 2, .roce = true,
						       .opcode = 0x0a, .dqpn = 0x11, .psn = b * 32 + i,
						       .sport = 0xe000, .payload = 1024 });
			rx(dc_port, p.b, p.len);
		}
		poll_at(t);
		drain_wan();
	}
	assert_int_equal(w->counters.pfc.tx_pauses[3], 1);
	assert_true(w->tm[wan_port].q[DP_TM_CLASS_ROCE].bytes >= 83000);
	assert_true(tx_dc_pfc(&pf));
	assert_int_equal(pf.class_enable, 1u << 3);
	assert_int_equal(pf.quanta[3], 0xffff);
	assert_int_equal(w->counters.drops[LS_DROP_TM_QUEUE_FULL], 0);
	check_sums();

	/*
	 * Let the WAN queue drain (the shaper lets a burst out per poll, a
	 * second apart): each poll above XON past half the pause refreshes it,
	 * the first at or below XON resumes.
	 */
	for (i = 0; i < 200 && w->counters.pfc.tx_resumes[3] == 0; i++) {
		t += T0;
		poll_at(t);
		drain_wan();
	}
	assert_int_equal(w->counters.pfc.tx_resumes[3], 1);
	assert_true(w->tm[wan_port].q[DP_TM_CLASS_ROCE].bytes <= 66000);
	refreshes = 0;
	while (tx_dc_pfc(&pf)) {
		assert_int_equal(pf.class_enable, 1u << 3);
		last = pf.quanta[3];
		if (last == 0xffff)
			refreshes++;
	}
	assert_int_equal(last, 0);
	assert_int_equal(w->counters.pfc.tx_pauses[3], 1 + refreshes);
	assert_true(w->counters.pfc.tx_paused_ns[3] > 0);
	/* Polls T0 apart, far past a pause: every frame after the first came too late. */
	assert_int_equal(w->counters.pfc.tx_lapses, refreshes + 1);
	assert_true(w->counters.pfc.tx_lapsed_ns > 0);
	check_sums();
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pause_exact_quanta),
		cmocka_unit_test(test_xoff_xon_toward_dc),
	};
	int rc;

	(void)argc;
	if (ut_eal_init(argv[0], "ut_pfc", 256) != 0)
		return 1;
	w = ut_runtime_init(&rt, "ut_pfc", conf_text, 2047);
	if (w == NULL || ut_ports_create(rt.cfg, "ut_pfc", 256, 1024, rx_ring, tx_ring, &dc_port, &wan_port) != 0 ||
	    ports_setup(rt.cfg, rt.pool, rt.port_ids, stderr) != 0 || ut_runtime_publish(&rt) != 0)
		return 1;
	rc = cmocka_run_group_tests_name("dataplane_dc_pfc", tests, NULL, NULL);
	reset();
	ut_eal_fini();
	return rc;
}
