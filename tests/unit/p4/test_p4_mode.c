/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [gateway] pipeline = p4 at run time (docs/p4.md, "p4 mode"): the runtime
 * builds the SWX pipeline of each worker from the spec and fills its tables
 * from the config (runtime_p4_prepare(), control/p4_pipeline.c); a worker
 * runs its rx burst through it and the C stages after it
 * (dp_p4_burst(), dataplane/p4_stage.c).
 *
 *   - the same frames through dp_p4_burst() and through the C drivers on
 *     the same snapshot leave byte for byte the same (the C stage
 *     encapsulates at dequeue in both), or are dropped for the same reason;
 *     each frame is counted once;
 *   - ARP from the DC is punted to the control thread;
 *   - a spec that does not build and a table that refuses an entry are
 *     refused with the spec's line or the table's name;
 *   - a reload publishes new tables (a new prefix routes); a failed reload
 *     keeps the running pipeline and its tables.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_swx_ctl.h>

#include "control/config.h"
#include "control/p4_pipeline.h"
#include "control/runtime.h"
#include "dataplane/p4_stage.h"
#include "dataplane/pipeline.h"
#include "dataplane/worker.h"
#include "../dataplane/ut_eal.h"
#include "../dataplane/ut_pkt.h"
#include "../dataplane/ut_probe.h"
#include "../dataplane/ut_runtime.h"
#include "ut_p4.h"
#include "ut_swx.h"

#ifndef LS_P4_SPEC
#error "LS_P4_SPEC: path of dataplane/p4/longspan.spec"
#endif

#define CONF_HEAD "[gateway]\nname = p4mode\npipeline = p4\n" UT_P4_CONF_SITES

static const char conf_text[] = CONF_HEAD;

static struct ut_p4 t;
static bool have_src;
static int n_compared;

static void
compare(const char *name, unsigned int port, const uint8_t *f, uint32_t len)
{
	static __typeof__(t.w->seq) seq;
	struct ut_p4_outcome c, p;

	/* The same GENEVE sequence number for both runs. */
	memcpy(seq, t.w->seq, sizeof(seq));
	ut_p4_run(&t, false, port, f, len, &c);
	memcpy(t.w->seq, seq, sizeof(seq));
	ut_p4_run(&t, true, port, f, len, &p);
	ut_p4_same(name, &c, &p);
	n_compared++;
}

static void
test_started_in_p4_mode(void **state)
{
	(void)state;
	if (!have_src)
		skip();
	assert_non_null(t.rt.p4);
	assert_non_null(t.rt.dp->p4[0]);
	assert_null(t.rt.dp->p4[1]);
}

static void
test_same_as_c(void **state)
{
	static const uint8_t me[4] = { 10, 1, 0, 254 };
	static const struct ut_p4_dc_case more[] = {
		{ "udp4 padded", { .sport = 1, .dport = 2, .pad_to = 60 } },
		{ "to the gateway", { .sport = 1, .dport = 2 }, me },
	};
	static const uint8_t dc_src[4] = { 10, 1, 0, 5 };
	static const struct ut_p4_wan_case wan[] = {
		{ "wan roce4", { .roce = true, .opcode = 0x0a, .dqpn = 0x56, .tos = 0x02,
				 .sport = 0xc003, .payload = 32 }, NULL, 0x03, 100 },
		{ "wan CE over Not-ECT", { .sport = 1, .dport = 2 }, NULL, 0x03, 100 },
		{ "wan spoofed source", { .sport = 1, .dport = 2 }, dc_src, 0x00, 100 },
		{ "wan roce6", { .family = 6, .roce = true, .opcode = 0x0a, .dqpn = 0x78,
				 .tos = 0x02, .sport = 0xc004, .payload = 48 }, NULL, 0x00, 100 },
		{ "wan vni mismatch", { .sport = 7, .dport = 8 }, NULL, 0x00, 101 },
	};

	(void)state;
	if (!have_src)
		skip();
	ut_p4_dc_run(&t, ut_p4_dc_common, ut_p4_n_dc_common, compare);
	ut_p4_dc_run(&t, more, RTE_DIM(more), compare);
	ut_p4_wan_run(&t, wan, RTE_DIM(wan), compare);
	ut_p4_dc_run(&t, ut_p4_dc6_common, ut_p4_n_dc6_common, compare);
	ut_p4_wan_run(&t, ut_p4_wan6_common, ut_p4_n_wan6_common, compare);
}

/* ARP for the gateway's DC address reaches the control thread in both modes. */
static void
test_arp_punted(void **state)
{
	uint8_t f[60] = { 0 };

	(void)state;
	if (!have_src)
		skip();
	memset(f, 0xff, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x01\x01", 6);
	ut_put16(f + 12, 0x0806);
	ut_put16(f + 14, 1);
	ut_put16(f + 16, 0x0800);
	f[18] = 6;
	f[19] = 4;
	ut_put16(f + 20, 1);
	memcpy(f + 22, "\x02\x00\x00\x00\x01\x01\x0a\x01\x00\x01", 10);
	memcpy(f + 38, "\x0a\x01\x00\xfe", 4);
	compare("arp request", t.dc_port, f, sizeof(f));
}

/*
 * Three WAN frames from site B (sequence numbers 10, 11, 12) in one burst
 * through the C path (mode 0) or the p4 burst (mode 1): frame 1 is a path
 * probe when PROBE, else a data packet to DST1 (NULL: the port MAC). Two
 * frames must reach the DC port; the worker's counters are left to check.
 */
static const struct dp_counters *
wan_burst3(unsigned int mode, bool probe, const uint8_t *dst1)
{
	static const uint8_t b4[4] = { 10, 2, 0, 2 };
	struct dp_clock clk = { .tsc = 1000, .ns = 1000 };
	static struct dp_tx tx;
	struct rte_mbuf *m[3];
	struct dp_counters *ctr = &t.w->counters;
	unsigned int k;

	memset(&tx, 0, sizeof(tx));
	memset(ctr, 0, sizeof(*ctr));
	memset(t.w->seq, 0, sizeof(t.w->seq));
	for (k = 0; k < 3; k++) {
		uint8_t f[UT_PKT_MAX];
		struct ut_pkt p;
		uint32_t len;

		if (k == 1 && probe) {
			len = ut_peer_probe(f, 10 + k, 0, false, 0, 0);
		} else {
			ut_build(&p, &(struct ut_spec){ .sport = 1, .dport = 2 });
			memcpy(p.b + p.l3_off + 12, b4, 4);
			memcpy(p.b + p.l3_off + 16, ut_ip4_src, 4);
			ut_ip4_fix_csum(p.b + p.l3_off);
			len = ut_p4_wan_frame(f, p.b + p.l3_off, p.ip_len, 0x00, 100);
			ut_put32(f + 14 + 28 + 8 + 8, 10 + k); /* the option's sequence */
			if (k == 1 && dst1 != NULL)
				memcpy(f, dst1, 6);
		}
		m[k] = rte_pktmbuf_alloc(t.rt.pool);
		assert_non_null(m[k]);
		memcpy(rte_pktmbuf_append(m[k], (uint16_t)len), f, len);
	}
	if (mode == 1)
		dp_p4_burst(t.w, t.rt.dp, t.rt.dp->p4[0], (uint16_t)t.wan_port, m, 3, &clk, &tx);
	else
		dp_pipeline_wan(t.w, t.rt.dp, (uint16_t)t.wan_port, m, 3, &clk, &tx);
	assert_int_equal(tx.n[t.dc_port], 2);
	for (k = 0; k < t.rt.dp->n_ports; k++)
		while (tx.n[k] > 0)
			rte_pktmbuf_free(tx.pkts[k][--tx.n[k]]);
	fprintf(stderr, "%s: seq pkts %" PRIu64 " gaps %" PRIu64 " reorder %" PRIu64 "\n",
		mode ? "p4" : "c", ctr->peer[0].rx_seq_pkts, ctr->peer[0].rx_seq_gaps,
		ctr->peer[0].rx_seq_reorder);
	assert_int_equal(ctr->port[t.wan_port].rx_pkts, 3);
	return ctr;
}

/*
 * A probe between two data packets in one burst: the sequence is counted in
 * wire order (no gap, no reorder) in both modes, the probe consumed and the
 * data forwarded. The p4 path accounts data in front of the program and
 * sends the probe to the C path; a probe accounted after the burst's data
 * showed as a gap and a reorder on a lossless link.
 */
static void
test_probe_in_burst(void **state)
{
	(void)state;
	if (!have_src)
		skip();
	for (unsigned int mode = 0; mode < 2; mode++) {
		const struct dp_counters *ctr = wan_burst3(mode, true, NULL);

		assert_int_equal(ctr->peer[0].rx_seq_pkts, 3);
		assert_int_equal(ctr->peer[0].rx_seq_gaps, 0);
		assert_int_equal(ctr->peer[0].rx_seq_reorder, 0);
		assert_int_equal(ctr->drops[LS_DROP_PROBE_CONSUMED], 1);
	}
}

/*
 * A GENEVE data packet to a multicast destination MAC between two to the
 * port MAC, in one burst: the p4 front hands it to the C path, whose parser
 * drops it (only unicast to the port MAC is routed) before the peer is
 * known, so in both modes its sequence number is not counted and the
 * packet after it shows one gap, no reorder; the other two are forwarded.
 */
static void
test_multicast_geneve_in_burst(void **state)
{
	(void)state;
	if (!have_src)
		skip();
	for (unsigned int mode = 0; mode < 2; mode++) {
		const struct dp_counters *ctr =
			wan_burst3(mode, false, (const uint8_t *)"\x01\x00\x5e\x00\x00\x01");

		assert_int_equal(ctr->drops[LS_DROP_L2_NOT_FOR_US], 1);
		assert_int_equal(ctr->peer[0].rx_seq_pkts, 2);
		assert_int_equal(ctr->peer[0].rx_seq_gaps, 1);
		assert_int_equal(ctr->peer[0].rx_seq_reorder, 0);
	}
}

/* A copy of the spec with one edit: the first `from` replaced by `to`. */
static void
spec_variant(const char *path, const char *from, const char *to)
{
	FILE *in = fopen(LS_P4_SPEC, "r"), *out = fopen(path, "w");
	static char text[256 * 1024];
	size_t n;
	char *at;

	assert_non_null(in);
	assert_non_null(out);
	n = fread(text, 1, sizeof(text) - 1, in);
	text[n] = '\0';
	fclose(in);
	at = strstr(text, from);
	assert_non_null(at);
	fwrite(text, 1, (size_t)(at - text), out);
	fputs(to, out);
	fputs(at + strlen(from), out);
	fclose(out);
}

/* runtime_p4_prepare() with cfg's p4_spec = spec; its messages in msg. */
static int
prepare_with(const char *spec, char *msg, size_t size)
{
	struct ls_config *cfg = malloc(sizeof(*cfg));
	struct dp_conf *dp;
	FILE *err = fmemopen(msg, size, "w");
	int rc;

	assert_non_null(cfg);
	assert_non_null(err);
	memcpy(cfg, t.rt.cfg, sizeof(*cfg));
	snprintf(cfg->gw.p4_spec, sizeof(cfg->gw.p4_spec), "%s", spec);
	assert_int_equal(runtime_dp_build(&t.rt, cfg, &dp, err), 0);
	rc = runtime_p4_prepare(&t.rt, cfg, dp, err);
	fclose(err);
	if (rc == 0)
		runtime_p4_discard(&t.rt);
	runtime_dp_free(dp);
	free(cfg);
	return rc;
}

static void
test_bad_spec_refused(void **state)
{
	struct p4_set *running = t.rt.p4;
	char path[256], msg[2048] = "";

	(void)state;
	if (!have_src)
		skip();
	ut_swx_tmp(path, sizeof(path), "bad.spec");
	spec_variant(path, "size 0x100\n}", "size banana\n}");
	assert_int_not_equal(prepare_with(path, msg, sizeof(msg)), 0);
	fprintf(stderr, "bad spec: %s", msg);
	assert_non_null(strstr(msg, path));
	assert_non_null(strstr(msg, "the spec does not build"));
	assert_ptr_equal(t.rt.p4, running);
	assert_null(t.rt.p4_next);
}

static void
test_bad_table_refused(void **state)
{
	struct p4_set *running = t.rt.p4;
	char path[256], msg[2048] = "";

	(void)state;
	if (!have_src)
		skip();
	/* peer_tunnel without the action the config's peers need. */
	ut_swx_tmp(path, sizeof(path), "notunnel.spec");
	spec_variant(path, "\t\ttunnel4\n\t\ttunnel6\n", "\t\ttunnel6\n");
	assert_int_not_equal(prepare_with(path, msg, sizeof(msg)), 0);
	fprintf(stderr, "bad table: %s", msg);
	assert_non_null(strstr(msg, "table peer_tunnel"));
	assert_non_null(strstr(msg, "pipeline = p4"));
	assert_ptr_equal(t.rt.p4, running);
}

static void
write_conf(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The verdict of the p4 path for a DC frame to 10.N.0.2. */
static struct ut_p4_outcome *
to_10_n(uint8_t n)
{
	const uint8_t d[4] = { 10, n, 0, 2 };
	static struct ut_p4_outcome o;
	struct ut_pkt p;

	ut_build(&p, &(struct ut_spec){ .sport = 1, .dport = 2 });
	memcpy(p.b + p.l3_off + 16, d, 4);
	ut_ip4_fix_csum(p.b + p.l3_off);
	ut_p4_run(&t, true, t.dc_port, p.b, p.len, &o);
	return &o;
}

static char msg_last[4096];

/* runtime_reload() of path must fail saying want. */
static void
reload_fails(const char *path, const char *want)
{
	FILE *err;

	memset(msg_last, 0, sizeof(msg_last));
	err = fmemopen(msg_last, sizeof(msg_last) - 1, "w");
	assert_non_null(err);
	assert_int_not_equal(runtime_reload(&t.rt, path, err), 0);
	fclose(err);
	fprintf(stderr, "failed reload: %s", msg_last);
	assert_non_null(strstr(msg_last, want));
}

static void
test_reload(void **state)
{
	char path[256], spec[256], conf[2048], msg[4096] = "";
	struct dp_p4 *before_w;
	struct p4_set *before;
	FILE *err;
	int rc;

	(void)state;
	if (!have_src)
		skip();
	assert_int_equal(to_10_n(3)->reason, LS_DROP_NO_ROUTE);

	/* A new prefix: new tables, published with the snapshot. */
	ut_swx_tmp(path, sizeof(path), "reload.conf");
	write_conf(path, CONF_HEAD "prefix = 10.3.0.0/16\n");
	err = fmemopen(msg, sizeof(msg) - 1, "w");
	rc = runtime_reload(&t.rt, path, err);
	fclose(err);
	if (rc != 0)
		fprintf(stderr, "reload: %s", msg);
	assert_int_equal(rc, 0);
	assert_non_null(t.rt.dp->p4[0]);
	assert_int_equal(to_10_n(3)->port, (int)t.wan_port);
	assert_null(t.rt.p4_next);

	/* A reload whose spec does not build: the running pipeline and tables stay. */
	before = t.rt.p4;
	before_w = t.rt.dp->p4[0];
	ut_swx_tmp(spec, sizeof(spec), "bad2.spec");
	spec_variant(spec, "size 0x100\n}", "size banana\n}");
	snprintf(conf, sizeof(conf), "[gateway]\nname = p4mode\npipeline = p4\np4_spec = %s\n%s",
		 spec, UT_P4_CONF_SITES);
	write_conf(path, conf);
	reload_fails(path, "the spec does not build");
	assert_non_null(strstr(msg_last, "running config and P4 pipeline kept"));
	assert_ptr_equal(t.rt.p4, before);
	assert_ptr_equal(t.rt.dp->p4[0], before_w);
	/* The tables the good reload committed still route 10.3/16. */
	assert_int_equal(to_10_n(3)->port, (int)t.wan_port);

	/* Leaving p4 mode needs a restart. */
	snprintf(conf, sizeof(conf), "[gateway]\nname = p4mode\npipeline = c\n%s",
		 UT_P4_CONF_SITES);
	write_conf(path, conf);
	reload_fails(path, "[gateway] pipeline changed: this needs a restart");
	assert_ptr_equal(t.rt.dp->p4[0], before_w);
}

/*
 * A route learned over peering reaches the program's route table, as it
 * reaches the C one: runtime_republish() builds new pipelines with it, and
 * without it again once it is gone. A learned prefix that is also
 * configured stays the config's (one entry, no refusal).
 */
static void
test_learned_route(void **state)
{
	static struct runtime_learned learned;
	const struct runtime_learned *before = t.rt.learned;
	struct p4_set *running;

	(void)state;
	if (!have_src)
		skip();
	assert_int_equal(to_10_n(5)->reason, LS_DROP_NO_ROUTE);
	memset(&learned, 0, sizeof(learned));
	learned.n_peers = 1;
	snprintf(learned.peers[0].name, sizeof(learned.peers[0].name), "site-c");
	learned.peers[0].n = 2;
	learned.peers[0].p[0] = (struct conf_prefix){ { AF_INET, { 10, 5, 0, 0 } }, 16 };
	learned.peers[0].p[1] = (struct conf_prefix){ { AF_INET, { 10, 4, 0, 0 } }, 16 };
	running = t.rt.p4;
	t.rt.learned = &learned;
	assert_int_equal(runtime_republish(&t.rt, t.rt.cfg, stderr), 0);
	assert_ptr_not_equal(t.rt.p4, running);
	assert_null(t.rt.p4_next);
	assert_non_null(t.rt.dp->p4[0]);
	assert_int_equal(to_10_n(5)->port, (int)t.wan_port);
	assert_int_equal(to_10_n(5)->reason, 0);

	/* The session's routes expired: no route again. */
	t.rt.learned = before;
	assert_int_equal(runtime_republish(&t.rt, t.rt.cfg, stderr), 0);
	assert_int_equal(to_10_n(5)->reason, LS_DROP_NO_ROUTE);
}

/*
 * Another geneve_port is refused in p4 mode, on reload as at start: the
 * program's parser takes GENEVE on 6081 only, so on 6082 it dropped every
 * tunnel packet as not_tunnel and the C path after the burst terminated it,
 * its sequence number counted a second time (3 packets in a burst: 6
 * counted, 3 reordered).
 */
static void
test_geneve_port_refused(void **state)
{
	char path[256], conf[2048];
	struct dp_p4 *before_w;

	(void)state;
	if (!have_src)
		skip();
	before_w = t.rt.dp->p4[0];
	ut_swx_tmp(path, sizeof(path), "port.conf");
	snprintf(conf, sizeof(conf),
		 "[gateway]\nname = p4mode\npipeline = p4\ngeneve_port = 6082\n%s",
		 strstr(CONF_HEAD, "[port dc]"));
	write_conf(path, conf);
	reload_fails(path, "[gateway] geneve_port: 6082 needs [gateway] pipeline = c");
	assert_ptr_equal(t.rt.dp->p4[0], before_w);
	assert_int_equal(t.rt.dp->geneve_port, 6081);
}

/* The timeout of the flows learner of worker 0's pipeline, in seconds. */
static uint32_t
flow_timeout_s(void)
{
	struct rte_swx_pipeline *pl = t.rt.dp->p4[0]->pl;
	struct rte_swx_ctl_pipeline_info pi;
	uint32_t l, t = 0;

	assert_int_equal(rte_swx_ctl_pipeline_info_get(pl, &pi), 0);
	for (l = 0; l < pi.n_learners; l++) {
		struct rte_swx_ctl_learner_info li;

		assert_int_equal(rte_swx_ctl_learner_info_get(pl, l, &li), 0);
		if (strcmp(li.name, "flows") == 0) {
			assert_int_equal(rte_swx_ctl_pipeline_learner_timeout_get(pl, l, 0, &t), 0);
			return t;
		}
	}
	fail();
	return 0;
}

/* Flows the program learned so far (its slot counter). */
static uint64_t
flows_learned(void)
{
	uint64_t v = 0;

	assert_int_equal(rte_swx_ctl_pipeline_regarray_read(t.rt.dp->p4[0]->pl, "flow_next", 0, &v),
			 0);
	return v;
}

/* One RoCE data packet of one QP from the DC through the p4 path. */
static void
flow_packet(void)
{
	struct ut_p4_outcome o;
	struct ut_pkt p;

	ut_build(&p, &(struct ut_spec){ .roce = true, .opcode = 0x0a, .dqpn = 0x9a,
					.sport = 0xc0a0, .payload = 16 });
	ut_p4_run(&t, true, t.dc_port, p.b, p.len, &o);
	assert_int_equal(o.port, (int)t.wan_port);
}

/*
 * [congestion] flow_idle is the learner's timeout: 1 s by default (the
 * spec says 120 s), and a flow idle for longer is learned again; a reload
 * sets the new value; p4 mode refuses a flow_idle that is not whole
 * seconds. DPDK 22.11 keeps learner time in units of 2^32 TSC cycles and
 * raises a shorter timeout to one unit, so the wait is the longer of the
 * two, plus a margin.
 */
static void
test_flow_idle_to_learner(void **state)
{
	uint64_t unit_ns = (UINT64_C(1) << 32) * 1000000000u / rte_get_tsc_hz();
	uint64_t wait_ns = (unit_ns > 1000000000u ? unit_ns : 1000000000u) + 300000000u;
	struct dp_p4 *before_w;
	char path[256];
	uint64_t n;

	(void)state;
	if (!have_src)
		skip();
	assert_int_equal(flow_timeout_s(), 1);
	n = flows_learned();
	flow_packet();
	flow_packet();
	assert_int_equal(flows_learned(), n + 1); /* learned once, then a hit */
	fprintf(stderr, "flow idle: waiting %" PRIu64 " ms (TSC %" PRIu64 " Hz)\n",
		wait_ns / 1000000, rte_get_tsc_hz());
	usleep((useconds_t)(wait_ns / 1000));
	flow_packet();
	assert_int_equal(flows_learned(), n + 2); /* aged out: learned again */

	ut_swx_tmp(path, sizeof(path), "idle.conf");
	write_conf(path, CONF_HEAD "[congestion]\nflow_idle = 7s\n");
	assert_int_equal(runtime_reload(&t.rt, path, stderr), 0);
	assert_int_equal(flow_timeout_s(), 7);

	before_w = t.rt.dp->p4[0];
	write_conf(path, CONF_HEAD "[congestion]\nflow_idle = 1500ms\n");
	reload_fails(path, "[congestion] flow_idle: ");
	assert_non_null(strstr(msg_last, "needs whole seconds with [gateway] pipeline = p4"));
	assert_ptr_equal(t.rt.dp->p4[0], before_w);
	assert_int_equal(flow_timeout_s(), 7);
}

static int
setup(void **state)
{
	struct ls_config *cfg;
	struct dp_conf *dp;

	(void)state;
	if (ut_p4_init(&t, "ut_p4mode", conf_text, 511) != 0)
		return -1;
	if (ut_swx_src_dir() == NULL) {
		fprintf(stderr, "skipped: no DPDK pipeline sources (LS_DPDK_SRC), see docs/p4.md\n");
		return ut_runtime_publish(&t.rt);
	}
	have_src = true;
	/* As longspand starts: snapshot, pipelines, publish (control/main.c). */
	cfg = t.rt.cfg;
	if (runtime_dp_build(&t.rt, cfg, &dp, stderr) != 0 ||
	    runtime_p4_prepare(&t.rt, cfg, dp, stderr) != 0)
		return -1;
	t.rt.cfg = NULL;
	runtime_publish(&t.rt, cfg, dp);
	return 0;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_started_in_p4_mode),
		cmocka_unit_test(test_same_as_c),
		cmocka_unit_test(test_arp_punted),
		cmocka_unit_test(test_probe_in_burst),
		cmocka_unit_test(test_multicast_geneve_in_burst),
		cmocka_unit_test(test_bad_spec_refused),
		cmocka_unit_test(test_bad_table_refused),
		cmocka_unit_test(test_reload),
		cmocka_unit_test(test_learned_route),
		cmocka_unit_test(test_geneve_port_refused),
		cmocka_unit_test(test_flow_idle_to_learner),
	};
	int rc;

	(void)argc;
	if (ut_eal_init(argv[0], "ut_p4mode", 512) != 0)
		return 1;
	rc = cmocka_run_group_tests(tests, setup, NULL);
	fprintf(stderr, "p4 mode: %d frames compared\n", n_compared);
	p4_set_free(t.rt.p4);
	p4_cleanup();
	ut_eal_fini();
	ut_swx_cleanup();
	return rc;
}
