/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Path probes through the real worker and the control thread's
 * aggregation (docs/wire-format.md, "Path measurement"):
 *
 * - a worker sends each peer a probe every probe_interval, whose bytes are
 *   the documented ones (checked here from the text, not from probe.c);
 * - a probe from the peer (built here as the peer would, with its clock
 *   offset by an injected amount) is measured and consumed
 *   (probe_consumed), and measure_interval() makes RTT, offset and both
 *   one-way delays of it, for 100 us, 1 ms and 5 ms one-way and offsets
 *   either way;
 * - loss and reordering from the sequence numbers;
 * - rtt = auto: the measured RTT reaches the snapshot's derived parameters;
 * - malformed control packets are geneve_oam drops, never measured.
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

#include <rte_eth_ring.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "control/measure.h"
#include "control/measure_prom.h"
#include "control/ports.h"
#include "dataplane/worker.h"
#include "ut_eal.h"
#include "ut_probe.h"
#include "ut_runtime.h"
#include "../hook/prom_parse.h"

static const char conf_text[] =
	"[gateway]\nname = probe\nburst = 32\nprobe_interval = 10ms\n"
	"[port dc]\nrole = dc\ndev = net_ring_probe_dc\nmac = 02:00:00:00:01:fe\n"
	"ipv4 = 10.1.0.254/16\nneighbor = 10.1.0.1 02:00:00:00:01:01\nlink_rate = 10G\n"
	"[port wan]\nrole = wan\ndev = net_ring_probe_wan\nmac = 02:00:00:00:0a:02\n"
	"ipv4 = 192.0.2.1/24\nneighbor = 192.0.2.2 02:00:00:00:0b:02\nlink_rate = 10G\n"
	"[peer site-b]\nport = wan\nremote = 192.0.2.2\nvni = 100\nrtt = auto\n"
	"prefix = 10.2.0.0/16\n";

#define T0 UINT64_C(1700000000000000000)

static struct ls_runtime rt;
static struct dp_worker *w;
static struct rte_ring *rx_ring[LS_MAX_PORTS], *tx_ring[LS_MAX_PORTS];
static unsigned int dc_port, wan_port;

static uint64_t
get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void
feed(const uint8_t *f, unsigned int len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rt.pool);

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), f, len);
	assert_int_equal(rte_ring_enqueue(rx_ring[wan_port], m), 0);
}

static void
poll_at(uint64_t ns)
{
	const struct dp_clock clk = { .tsc = ns, .ns = ns };

	dp_worker_poll(w, &clk);
}

/* Take what the WAN port sent: at most one frame, copied to f; its length or 0. */
static unsigned int
take_wan(uint8_t *f)
{
	struct rte_mbuf *m;
	unsigned int len = 0;

	while (rte_ring_dequeue(tx_ring[wan_port], (void **)&m) == 0) {
		assert_int_equal(len, 0);
		len = rte_pktmbuf_pkt_len(m);
		assert_true(len <= 256);
		memcpy(f, rte_pktmbuf_mtod(m, const uint8_t *), len);
		rte_pktmbuf_free(m);
	}
	return len;
}

static void
reset(void)
{
	dp_worker_reset(w);
	memset(&rt.meas, 0, sizeof(rt.meas));
	while (take_wan((uint8_t[256]){ 0 }) != 0)
		;
}

/* Our probe: the documented bytes, the echo of what we received last. */
static void
test_probe_sent(void **state)
{
	uint8_t f[256];
	unsigned int len;

	(void)state;
	reset();
	poll_at(T0);
	len = take_wan(f);
	assert_int_equal(len, UT_PROBE_BYTES);
	assert_int_equal(f[14 + 1] >> 2, 48); /* DSCP of the high-priority class */
	assert_int_equal(f[14 + 9], 17);
	assert_int_equal(f[34 + 2] << 8 | f[34 + 3], 6081);
	assert_int_equal(f[42] & 0x3f, 11);
	assert_int_equal(f[43], 0x80);
	assert_int_equal(f[44] << 8 | f[45], 0); /* protocol: no inner packet */
	assert_int_equal(f[50] << 8 | f[51], 0xff4c);
	assert_int_equal(f[52], 0x01);
	assert_int_equal(get64(f + 50 + 12), T0);
	assert_int_equal(f[70] << 8 | f[71], 0xff4c);
	assert_int_equal(f[72], 0x03);
	assert_int_equal(f[75], 0); /* nothing received yet: no echo */
	/* Not again before the interval... */
	poll_at(T0 + 9999999);
	assert_int_equal(take_wan(f), 0);
	/* ...then with the echo of the peer's packet received meanwhile. */
	ut_peer_probe(f, 0, T0 + 777, false, 0, 0);
	feed(f, UT_PROBE_BYTES);
	poll_at(T0 + 10000000);
	assert_int_equal(w->counters.drops[LS_DROP_PROBE_CONSUMED], 1);
	assert_int_equal(w->meas[0].probes_rx_noecho, 1);
	len = take_wan(f);
	assert_int_equal(len, UT_PROBE_BYTES);
	assert_int_equal(f[75], 1);
	assert_int_equal(get64(f + 70 + 8), T0 + 777);
	assert_int_equal(get64(f + 70 + 16), T0 + 10000000);
	assert_int_equal(w->counters.probes_sent, 2);
	assert_int_equal(w->counters.own_tx, 2);
}

/*
 * One exchange per interval over a path of one-way delay d, the peer's
 * clock offset by off: what our probe carried (t1) comes back echoed.
 */
static void
exchange(uint64_t *now, uint32_t seq, uint64_t d, int64_t off, uint64_t hold)
{
	uint8_t f[256];
	uint64_t t1, t2, t3;

	poll_at(*now);
	assert_int_equal(take_wan(f), UT_PROBE_BYTES);
	t1 = get64(f + 50 + 12);
	t2 = (uint64_t)((int64_t)(t1 + d) + off);
	t3 = t2 + hold;
	ut_peer_probe(f, seq, t3, true, t1, t2);
	feed(f, UT_PROBE_BYTES);
	*now = t1 + d + hold + d; /* t4 */
	poll_at(*now);
	(void)take_wan(f);
	*now += 10000000;
}

static void
test_rtt_offset(void **state)
{
	static const uint64_t delays[] = { 100000, 1000000, 5000000 };
	static const int64_t offsets[] = { 0, 250000000, -3000000000 };

	(void)state;
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 3; j++) {
			const struct measure_peer *mp = &rt.meas.peers[0];
			uint64_t now = T0;

			reset();
			exchange(&now, 0, delays[i], offsets[j], 1234567);
			measure_interval(&rt.meas, rt.cfg, rt.workers, 1, now, NULL);
			assert_int_equal(mp->rtt_ns, 2 * (int64_t)delays[i]);
			assert_int_equal(mp->offset_ns, offsets[j]);
			assert_int_equal(mp->owd_tx_ns, (int64_t)delays[i]);
			exchange(&now, 1, delays[i], offsets[j], 7654);
			measure_interval(&rt.meas, rt.cfg, rt.workers, 1, now, NULL);
			assert_int_equal(mp->rtt_ns, 2 * (int64_t)delays[i]);
			/* The peer's probe took d - offset by the clocks: d once cancelled. */
			assert_int_equal(mp->owd_rx_ns, (int64_t)delays[i]);
			assert_int_equal(mp->samples_rejected, 0);
			assert_int_equal(mp->loss_ppm, 0);
		}
}

/*
 * An interval whose later exchange was held on the way (a stall, on either
 * path): the one-way delays are the smallest samples, like the RTT; only the
 * means show the stall.
 */
static void
test_owd_stall(void **state)
{
	const struct measure_peer *mp = &rt.meas.peers[0];
	const int64_t off = 40000000;
	uint64_t now = T0, d = 1000000;

	(void)state;
	reset();
	exchange(&now, 0, d, off, 5000);
	measure_interval(&rt.meas, rt.cfg, rt.workers, 1, now, NULL); /* primes the transit counts */
	exchange(&now, 1, d, off, 5000);
	exchange(&now, 2, 3 * d, off, 5000);
	exchange(&now, 3, d, off, 5000);
	measure_interval(&rt.meas, rt.cfg, rt.workers, 1, now, NULL);
	assert_int_equal(mp->samples, 3);
	assert_int_equal(mp->rtt_ns, 2 * (int64_t)d);
	assert_true(llabs(mp->rtt_mean_ns - 2 * (int64_t)(d + 3 * d + d) / 3) <= 1);
	assert_int_equal(mp->owd_tx_ns, (int64_t)d);
	assert_int_equal(mp->owd_rx_ns, (int64_t)d);
	/* Every packet from the peer (its three probes): the stall is in the mean. */
	assert_true(llabs(mp->owd_rx_mean_ns - (int64_t)(d + 3 * d + d) / 3) <= 1); /* rounding */
}

/* The parsed peer section of the Prometheus endpoint, as of now. */
static void
prom_now(struct prom_doc *doc)
{
	char err[256], *text;
	size_t len;

	text = measure_prom_render(&rt.meas, rt.cfg, rt.workers, 1, &len);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	if (prom_parse(text, len, true, doc, err, sizeof(err)) != 0)
		fail_msg("%s\n%s", err, text);
	free(text);
}

/* The measurement in Prometheus: what show peers says, nothing before it was measured. */
static void
test_prometheus(void **state)
{
	const struct measure_peer *mp = &rt.meas.peers[0];
	struct prom_doc doc;
	uint64_t now = T0;
	double v;

	(void)state;
	reset();
	prom_now(&doc);
	assert_int_equal(prom_count(&doc, "longspan_peer_rtt_seconds"), 0);
	assert_int_equal(prom_count(&doc, "longspan_peer_clock_offset_seconds"), 0);
	assert_int_equal(prom_count(&doc, "longspan_peer_loss_ratio"), 0);
	assert_true(prom_value(&doc, "longspan_peer_rtt_auto", "peer=\"site-b\"", &v) && v == 1);
	assert_true(prom_value(&doc, "longspan_peer_rtt_in_use_seconds", "peer=\"site-b\"", &v));
	assert_true(prom_value(&doc, "longspan_measure_intervals_total", "", &v) && v == 0);
	prom_free(&doc);

	exchange(&now, 0, 1000000, -3000000000, 5000);
	measure_interval(&rt.meas, rt.cfg, rt.workers, 1, now, NULL);
	exchange(&now, 1, 1000000, -3000000000, 5000);
	measure_interval(&rt.meas, rt.cfg, rt.workers, 1, now, NULL);
	prom_now(&doc);
	assert_true(prom_value(&doc, "longspan_peer_rtt_seconds", "peer=\"site-b\"", &v));
	assert_true(v == 0.002 && mp->rtt_ns == 2000000);
	assert_true(prom_value(&doc, "longspan_peer_clock_offset_seconds", "peer=\"site-b\"", &v));
	assert_true(v == -3.0);
	assert_true(prom_value(&doc, "longspan_peer_one_way_delay_seconds",
			       "direction=\"to_peer\",peer=\"site-b\"", &v) && v == 0.001);
	assert_true(prom_value(&doc, "longspan_peer_one_way_delay_seconds",
			       "direction=\"from_peer\",peer=\"site-b\"", &v) && v == 0.001);
	assert_true(prom_value(&doc, "longspan_peer_loss_ratio", "peer=\"site-b\"", &v) && v == 0);
	assert_true(prom_value(&doc, "longspan_peer_last_update_timestamp_seconds",
			       "measure=\"rtt\",peer=\"site-b\"", &v));
	assert_true(v == (double)mp->rtt_updated_ns / 1e9);
	assert_true(prom_value(&doc, "longspan_peer_rtt_in_use_seconds", "peer=\"site-b\"", &v));
	assert_true(v == (double)measure_rtt_ns(&rt.meas, rt.cfg, 0) / 1e9);
	assert_true(prom_value(&doc, "longspan_peer_probes_sent_total", "peer=\"site-b\"", &v));
	assert_true(v == (double)w->meas[0].probes_tx && v >= 2);
	assert_true(prom_value(&doc, "longspan_peer_rtt_changes_total", "peer=\"site-b\"", &v));
	assert_true(v == (double)mp->rtt_changes);
	assert_true(prom_value(&doc, "longspan_measure_intervals_total", "", &v) && v == 2);
	prom_free(&doc);
}

static const char *docs_path; /* docs/telemetry.md (argv[1]) */

/* docs/telemetry.md names every metric of the peer section. */
static void
test_prometheus_docs(void **state)
{
	static char doc[1 << 18];
	char *text, *line, name[128], want[160];
	unsigned int n = 0;
	size_t len, got;
	FILE *f;

	(void)state;
	f = fopen(docs_path, "r");
	assert_non_null(f);
	got = fread(doc, 1, sizeof(doc) - 1, f);
	fclose(f);
	doc[got] = '\0';
	text = measure_prom_render(&rt.meas, rt.cfg, rt.workers, 1, &len);
	assert_non_null(text);
	for (line = strstr(text, "# TYPE "); line != NULL; line = strstr(line + 1, "# TYPE ")) {
		assert_int_equal(sscanf(line, "# TYPE %127s", name), 1);
		if (strncmp(name, "longspan_peer_", 14) == 0)
			snprintf(want, sizeof(want), "| `%s` |", name + 14);
		else
			snprintf(want, sizeof(want), "`%s`", name);
		if (strstr(doc, want) == NULL)
			fail_msg("%s does not name the metric %s", docs_path, name);
		n++;
	}
	assert_true(n >= 20);
	free(text);
}

/* 1 in 100 sequence numbers never arrives, 4 arrive late. */
static void
test_loss_reorder(void **state)
{
	const struct measure_peer *mp = &rt.meas.peers[0];
	uint8_t f[256];
	uint32_t seq;

	(void)state;
	reset();
	ut_peer_probe(f, 0, T0, false, 0, 0);
	feed(f, UT_PROBE_BYTES);
	poll_at(T0);
	measure_interval(&rt.meas, rt.cfg, rt.workers, 1, T0, NULL);
	for (seq = 1; seq <= 1000; seq++) {
		if (seq % 100 == 50 || seq % 300 == 7)
			continue; /* lost (10), or late (4, sent below) */
		ut_peer_probe(f, seq, T0 + seq, false, 0, 0);
		feed(f, UT_PROBE_BYTES);
		if (seq % 300 == 8) {
			ut_peer_probe(f, seq - 1, T0 + seq - 1, false, 0, 0);
			feed(f, UT_PROBE_BYTES);
		}
		poll_at(T0 + seq * 1000);
	}
	measure_interval(&rt.meas, rt.cfg, rt.workers, 1, T0 + 2000000, NULL);
	assert_int_equal(mp->loss_ppm, 10000);
	assert_int_equal(mp->reorder_ppm, 4000);
	assert_int_equal(w->counters.peer[0].rx_seq_pkts, 991);
}

/*
 * The peer restarts: its sequence starts again far behind the expected one.
 * That is one restart, followed from then on; not every later packet late.
 */
static void
test_peer_restart(void **state)
{
	const struct dp_peer_counters *pc = &w->counters.peer[0];
	uint8_t f[256];
	uint32_t seq;

	(void)state;
	reset();
	for (seq = 3000000; seq < 3000010; seq++) {
		ut_peer_probe(f, seq, T0 + seq, false, 0, 0);
		feed(f, UT_PROBE_BYTES);
	}
	poll_at(T0);
	/* Its new life: 0, 1, ... with one late packet of the new sequence. */
	for (seq = 0; seq < 20; seq++) {
		if (seq == 5)
			continue;
		ut_peer_probe(f, seq, T0 + seq, false, 0, 0);
		feed(f, UT_PROBE_BYTES);
		if (seq == 7) {
			ut_peer_probe(f, 5, T0 + 5, false, 0, 0);
			feed(f, UT_PROBE_BYTES);
		}
	}
	poll_at(T0 + 1000);
	assert_int_equal(pc->rx_seq_pkts, 30);
	assert_int_equal(pc->rx_seq_restarts, 1);
	assert_int_equal(pc->rx_seq_reorder, 1); /* 5, after 6 and 7 */
	assert_int_equal(pc->rx_seq_gaps, 1); /* 5 missing when 6 came */
}

/* rtt = auto: the first measurement sets the parameters; a small change does not. */
static void
test_rtt_auto(void **state)
{
	uint64_t now = T0;

	(void)state;
	reset();
	assert_int_equal(rt.dp->tm[wan_port].enabled, false); /* no RTT yet */
	exchange(&now, 0, 1000000, 42000, 100);
	rt.meas.next_ns = 0;
	runtime_measure_tick(&rt, 1);
	assert_int_equal(rt.meas.rtt_changes, 1);
	assert_int_equal(rt.dp->peers[0].rtt_ns, 2000000);
	assert_true(rt.dp->tm[wan_port].enabled);
	assert_int_equal(rt.dp->tm[wan_port].derived.rtt_ns, 2000000);
	/* 5% longer for many intervals: inside the band, nothing is republished. */
	for (int i = 0; i < 5; i++) {
		exchange(&now, (uint32_t)(i + 1), 1050000, 42000, 100);
		rt.meas.next_ns = 0;
		runtime_measure_tick(&rt, 1);
	}
	assert_int_equal(rt.meas.rtt_changes, 1);
	assert_int_equal(rt.dp->tm[wan_port].derived.rtt_ns, 2000000);
	/* 10 times the distance: after three intervals. */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(rt.dp->tm[wan_port].derived.rtt_ns, 2000000);
		exchange(&now, (uint32_t)(i + 6), 10000000, 42000, 100);
		rt.meas.next_ns = 0;
		runtime_measure_tick(&rt, 1);
	}
	assert_int_equal(rt.meas.rtt_changes, 2);
	assert_int_equal(rt.dp->tm[wan_port].derived.rtt_ns, 20000000);
}

/*
 * A snapshot republished from the running config (a measured RTT here,
 * learned routes in peering.c: both through runtime_publish_dp()) keeps the
 * running eBPF hooks. The hooks pointer is only compared, never called: no
 * packet runs while it is set.
 */
static void
test_republish_keeps_hooks(void **state)
{
	static const char sentinel;
	const struct dp_hooks *h = (const struct dp_hooks *)(const void *)&sentinel;
	struct dp_conf *dp = NULL;

	(void)state;
	reset();
	assert_int_equal(runtime_dp_build(&rt, rt.cfg, &dp, stderr), 0);
	assert_null(dp->hooks[0]);
	rt.dp->hooks[0] = h;
	runtime_publish_dp(&rt, dp);
	assert_ptr_equal(rt.dp, dp);
	assert_ptr_equal(rt.dp->hooks[0], h);
	rt.dp->hooks[0] = NULL;
}

/* Control packets that are not well-formed probes: geneve_oam, nothing measured. */
static void
test_bad_probes(void **state)
{
	uint8_t f[256];
	unsigned int n = 0;

	(void)state;
	reset();
	ut_peer_probe(f, 0, T0, true, T0, T0);
	f[44 + 1] = 0x08; /* protocol IPv4 on a control packet */
	feed(f, UT_PROBE_BYTES), n++;
	ut_peer_probe(f, 0, T0, true, T0, T0);
	f[70 + 3] = 4; /* echo option one word short */
	feed(f, UT_PROBE_BYTES), n++;
	ut_peer_probe(f, 0, T0, true, T0, T0);
	f[70 + 4] = 2; /* unknown echo version */
	feed(f, UT_PROBE_BYTES), n++;
	ut_peer_probe(f, 0, T0, true, T0, T0);
	f[42] = 6; /* no room for the echo option */
	feed(f, UT_PROBE_BYTES), n++;
	poll_at(T0);
	assert_int_equal(w->counters.drops[LS_DROP_GENEVE_OAM], n);
	assert_int_equal(w->meas[0].probes_rx + w->meas[0].ntp_n, 0);
	/* An echo that cannot be (the peer answered before we sent): rejected, not averaged. */
	ut_peer_probe(f, 1, T0 + 5, true, T0 + 1000000000, T0);
	feed(f, UT_PROBE_BYTES);
	poll_at(T0 + 1000);
	measure_interval(&rt.meas, rt.cfg, rt.workers, 1, T0, NULL);
	assert_int_equal(rt.meas.peers[0].samples_rejected, 1);
	assert_int_equal(rt.meas.peers[0].rtt_updated_ns, 0);
}

static int
setup_ports(const struct ls_config *cfg)
{
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		char name[RTE_RING_NAMESIZE];

		snprintf(name, sizeof(name), "ut_probe_rx%u", i);
		rx_ring[i] = rte_ring_create(name, 2048, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "ut_probe_tx%u", i);
		tx_ring[i] = rte_ring_create(name, 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (rx_ring[i] == NULL || tx_ring[i] == NULL)
			return -1;
		if (rte_eth_from_rings(cfg->ports[i].dev + 9, &rx_ring[i], 1, &tx_ring[i], 1, 0) < 0)
			return -1;
		if (cfg->ports[i].role == LS_PORT_WAN)
			wan_port = i;
		else
			dc_port = i;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_sent), cmocka_unit_test(test_rtt_offset),
		cmocka_unit_test(test_owd_stall),
		cmocka_unit_test(test_prometheus), cmocka_unit_test(test_prometheus_docs),
		cmocka_unit_test(test_loss_reorder), cmocka_unit_test(test_peer_restart),
		cmocka_unit_test(test_rtt_auto),
		cmocka_unit_test(test_bad_probes), cmocka_unit_test(test_republish_keeps_hooks),
	};
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DOCS/telemetry.md\n", argv[0]);
		return 1;
	}
	docs_path = argv[1];
	if (ut_eal_init(argv[0], "ut_probe", 256) != 0)
		return 1;
	w = ut_runtime_init(&rt, "ut_probe", conf_text, 4095);
	if (w == NULL || setup_ports(rt.cfg) != 0 ||
	    ports_setup(rt.cfg, rt.pool, rt.port_ids, stderr) != 0 || ut_runtime_publish(&rt) != 0)
		return 1;
	rc = cmocka_run_group_tests_name("dataplane_probe", tests, NULL, NULL);
	reset();
	ut_eal_fini();
	return rc;
}
