/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hook exporter (control/hook_export.c) and its outputs:
 *   - aggregation of per-lcore slots (deltas, totals over lcores, slot
 *     reuse, active and idle timeouts, a full aggregate, top-K), on slots
 *     written by hand;
 *   - end to end: known traffic through the JIT'd roce_flow hook on two
 *     lcores, then the pinned aggregate map read by bpftool by field name
 *     (root only), IPFIX decoded by ipfixDump and the Prometheus text read
 *     by a strict parser, all with the numbers the test sent;
 *   - the Prometheus HTTP endpoint, IPFIX over UDP (MTU, template refresh)
 *     and over TCP (templates first on every connection, reconnection, a
 *     collector that is down);
 *   - the strict Prometheus parser itself refusing bad texts.
 *
 *   test_hook_export NAME=PATH... (roce_flow, python, bpftool_check, ipfix_check)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "control/hook_export.h"
#include "control/hook_ipfix.h"
#include "control/hook_load.h"
#include "control/hook_maps.h"
#include "control/hook_prom.h"
#include "control/prom_server.h"
#include "hook_ut.h"
#include "prom_parse.h"

#define S_NS 1000000000ull
#define T0_NS (1700000000ull * S_NS) /* a wall-clock-like start time */
#define SLOTS 64u
#define ROCE_SLOTS 131072u

static char tmpdir[] = "/tmp/ls-hook-export-XXXXXX";

/* --- helpers --- */

static const char *
tmp_path(const char *name)
{
	static char path[4][256];
	static unsigned int next;
	char *p = path[next++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", tmpdir, name);
	return p;
}

/* Run a checker script (bpftool_check or ipfix_check) on TARGET with EXPECT. */
static bool
run_check(const char *checker, const char *target, const char *expect)
{
	const char *path = tmp_path("expect.json");
	char cmd[1024];
	FILE *f = fopen(path, "w");
	int rc;

	assert_non_null(f);
	fputs(expect, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' '%s'", hook_ut_obj("python"),
		 hook_ut_obj(checker), target, path);
	rc = system(cmd);
	unlink(path);
	return rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
}

/* A slot as a hook leaves it: flow f (hook_ut.h's addressing) with these counters. */
static void
slot_set(struct ls_hook_flow_rec *r, unsigned int n, uint8_t dir, uint64_t pkts, uint64_t bytes,
	 uint64_t first_ns, uint64_t last_ns)
{
	struct ls_hook_ctx c;
	const struct hook_ut_flow f = { .n = n, .direction = dir };

	hook_ut_ctx(&c, &f, LS_HOOK_DC_RX, 0, 0, 0, 0, 0);
	memset(r, 0, sizeof(*r));
	memcpy(r, &c.hash, LS_HOOK_KEY_BYTES);
	r->pkts = pkts;
	r->bytes = bytes;
	r->first_ns = first_ns;
	r->last_ns = last_ns;
	r->port = 0;
	r->peer = 0;
	r->dscp = 26;
}

struct captured {
	struct hook_export_record r[64];
	unsigned int n;
};

static void
capture(void *arg, const struct hook_export_record *r)
{
	struct captured *c = arg;

	assert_true(c->n < 64);
	c->r[c->n++] = *r;
}

static const char *const peers[] = { "west", "east" };
static const char *const ports[] = { "dc0", "wan0" };

static void
params(struct hook_export_params *p)
{
	memset(p, 0, sizeof(*p));
	p->idle_timeout_ns = 100 * S_NS;
	p->active_timeout_ns = 5 * S_NS;
	p->max_flows = 16;
	p->top_k = 3;
	p->n_peers = 2;
	p->peer_names = peers;
	p->n_ports = 2;
	p->port_names = ports;
}

/* --- aggregation on hand-written slots --- */

static void
test_aggregate(void **state)
{
	static struct ls_hook_flow_rec a[SLOTS], b[SLOTS];
	const struct hook_export_source src[2] = { { a, SLOTS, 1 }, { b, SLOTS, 3 } };
	struct hook_export_params p;
	struct captured cap = { .n = 0 };
	struct hook_export_flow_view top[3];
	const struct hook_flow_total *g;
	struct hook_export *e;
	char err[256];

	(void)state;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	params(&p);
	e = hook_export_create(&p, src, 2, NULL, capture, &cap, err, sizeof(err));
	assert_non_null(e);

	/* Flow 1: received on lcore 1, transmitted on lcore 3 (same key, two slots). */
	slot_set(&a[3], 1, 0, 10, 10000, T0_NS + 1 * S_NS, T0_NS + 2 * S_NS);
	a[3].ce_pkts = 2;
	a[3].psn_gaps = 1;
	slot_set(&b[9], 1, 0, 0, 0, T0_NS + 1 * S_NS, T0_NS + 2 * S_NS);
	b[9].tx_pkts = 10;
	b[9].tx_bytes = 10000;
	b[9].sojourn_hist[3] = 10;
	b[9].sojourn_sum_ns = 50000;
	hook_export_tick(e, T0_NS + 3 * S_NS);
	assert_int_equal(hook_export_n_flows(e), 1);
	assert_int_equal(hook_export_top(e, 3, top), 1);
	assert_int_equal(top[0].total->pkts, 10);
	assert_int_equal(top[0].total->tx_pkts, 10);
	assert_int_equal(top[0].total->ce_pkts, 2);
	assert_int_equal(top[0].total->psn_gaps, 1);
	assert_int_equal(top[0].total->sojourn_hist[3], 10);
	assert_int_equal(top[0].total->lcores, 2);
	assert_int_equal(top[0].total->first_ns, T0_NS + 1 * S_NS);
	assert_int_equal(cap.n, 0); /* no timeout yet */
	g = hook_export_gateway(e);
	assert_int_equal(g->pkts, 10);
	assert_int_equal(hook_export_peer(e, 0)->pkts, 10);
	assert_int_equal(hook_export_peer(e, 1)->pkts, 0);
	assert_int_equal(hook_export_port(e, 0)->tx_pkts, 10);
	assert_null(hook_export_peer(e, 2));

	/* 5 more packets; an unchanged tick adds nothing. */
	a[3].pkts = 15;
	a[3].bytes = 15000;
	a[3].last_ns = T0_NS + 4 * S_NS;
	hook_export_tick(e, T0_NS + 5 * S_NS);
	hook_export_tick(e, T0_NS + 6 * S_NS);
	assert_int_equal(g->pkts, 15);
	assert_int_equal(cap.n, 0);
	/* Active timeout (5 s after it appeared at 3 s): one record of everything so far. */
	hook_export_tick(e, T0_NS + 8 * S_NS);
	assert_int_equal(cap.n, 1);
	assert_int_equal(cap.r[0].reason, HOOK_EXPORT_ACTIVE);
	assert_int_equal(cap.r[0].delta.pkts, 15);
	assert_int_equal(cap.r[0].delta.bytes, 15000);
	assert_int_equal(cap.r[0].delta.tx_pkts, 10);
	assert_int_equal(cap.r[0].delta.ce_pkts, 2);
	assert_int_equal(cap.r[0].start_ns, T0_NS + 1 * S_NS);
	assert_int_equal(cap.r[0].end_ns, T0_NS + 4 * S_NS);
	assert_int_equal(cap.r[0].key.dest_qp, 0x101);
	assert_int_equal(cap.r[0].dscp, 26);
	/* Nothing new: no record at the next timeout. Then 3 packets: a record of 3. */
	hook_export_tick(e, T0_NS + 14 * S_NS);
	assert_int_equal(cap.n, 1);
	a[3].pkts = 18;
	a[3].last_ns = T0_NS + 15 * S_NS;
	hook_export_tick(e, T0_NS + 16 * S_NS);
	hook_export_tick(e, T0_NS + 20 * S_NS);
	assert_int_equal(cap.n, 2);
	assert_int_equal(cap.r[1].delta.pkts, 3);
	assert_int_equal(cap.r[1].delta.tx_pkts, 0);
	assert_int_equal(cap.r[1].start_ns, T0_NS + 4 * S_NS); /* where the last one ended */
	assert_int_equal(cap.r[1].end_ns, T0_NS + 15 * S_NS);

	/* One more packet, then silence past the idle timeout: a last record, flow gone. */
	a[3].pkts = 19;
	a[3].last_ns = T0_NS + 21 * S_NS;
	hook_export_tick(e, T0_NS + 122 * S_NS);
	assert_int_equal(cap.n, 3);
	assert_int_equal(cap.r[2].reason, HOOK_EXPORT_IDLE);
	assert_int_equal(cap.r[2].delta.pkts, 1);
	assert_int_equal(hook_export_n_flows(e), 0);
	assert_int_equal(hook_export_stats(e)->flows_ended, 1);
	assert_int_equal(g->pkts, 19); /* gateway totals never go down */

	/* The slot changes hands: the new flow starts from zero, not from 19. */
	slot_set(&a[3], 2, 1, 4, 400, T0_NS + 130 * S_NS, T0_NS + 130 * S_NS);
	a[3].peer = 1;
	a[3].port = 1;
	hook_export_tick(e, T0_NS + 131 * S_NS);
	assert_int_equal(hook_export_n_flows(e), 1);
	assert_int_equal(hook_export_top(e, 3, top), 1);
	assert_int_equal(top[0].key->dest_qp, 0x102);
	assert_int_equal(top[0].key->direction, 1);
	assert_int_equal(top[0].total->pkts, 4);
	assert_int_equal(top[0].total->lcores, 1);
	assert_int_equal(g->pkts, 23);
	assert_int_equal(hook_export_peer(e, 1)->pkts, 4);
	assert_int_equal(hook_export_port(e, 1)->pkts, 4);

	/* Forced end at shutdown: a record of what is pending. */
	hook_export_flush(e, T0_NS + 132 * S_NS);
	assert_int_equal(cap.n, 4);
	assert_int_equal(cap.r[3].reason, HOOK_EXPORT_FORCED);
	assert_int_equal(cap.r[3].delta.pkts, 4);
	assert_int_equal(cap.r[3].peer, 1);
	hook_export_free(e);
}

/* A full aggregate postpones a slot's change; top-K order. */
static void
test_aggregate_full_and_top(void **state)
{
	static struct ls_hook_flow_rec a[SLOTS];
	const struct hook_export_source src[1] = { { a, SLOTS, 1 } };
	struct hook_export_params p;
	struct hook_export_flow_view top[HOOK_EXPORT_TOP_MAX];
	struct hook_export *e;
	char err[256];
	unsigned int i;

	(void)state;
	memset(a, 0, sizeof(a));
	params(&p);
	p.max_flows = 4;
	e = hook_export_create(&p, src, 1, NULL, NULL, NULL, err, sizeof(err));
	assert_non_null(e);
	for (i = 0; i < 5; i++)
		slot_set(&a[i], 10 + i, 0, 1, 100 * (i == 2 ? 9 : i + 1), T0_NS, T0_NS + i);
	hook_export_tick(e, T0_NS + S_NS);
	assert_int_equal(hook_export_n_flows(e), 4);
	assert_int_equal(hook_export_stats(e)->aggregate_full, 1);
	/* Bytes: 100, 200, 900, 400 (the fifth, 500, did not fit). */
	assert_int_equal(hook_export_top(e, 3, top), 3);
	assert_int_equal(top[0].total->bytes, 900);
	assert_int_equal(top[1].total->bytes, 400);
	assert_int_equal(top[2].total->bytes, 200);
	assert_int_equal(hook_export_top(e, 10, top), 4);
	assert_int_equal(top[3].total->bytes, 100);
	/* Pages of 3: every flow once. */
	{
		uint64_t bytes = 0;
		uint32_t got = 0, page;

		for (page = 0; page < 3; page++) {
			uint32_t k, n = hook_export_flows(e, page * 3, 3, top);

			for (k = 0; k < n; k++)
				bytes += top[k].total->bytes;
			got += n;
		}
		assert_int_equal(got, 4);
		assert_int_equal(bytes, 100 + 200 + 900 + 400);
	}
	/* All but the postponed one go idle; it is taken, whole, when room frees. */
	a[4].pkts = 2;
	a[4].last_ns = T0_NS + 199 * S_NS;
	hook_export_tick(e, T0_NS + 200 * S_NS);
	assert_int_equal(hook_export_n_flows(e), 0);
	hook_export_tick(e, T0_NS + 201 * S_NS);
	assert_int_equal(hook_export_n_flows(e), 1);
	assert_int_equal(hook_export_top(e, 1, top), 1);
	assert_int_equal(top[0].total->bytes, 500);
	assert_int_equal(hook_export_gateway(e)->bytes, 100 + 200 + 900 + 400 + 500);
	hook_export_free(e);

	/* Bad parameters are refused with a reason. */
	p.top_k = HOOK_EXPORT_TOP_MAX + 1;
	assert_null(hook_export_create(&p, src, 1, NULL, NULL, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "top_k"));
}

/* A pass in steps sees what a whole tick sees, and finishes only at its end. */
static void
test_steps(void **state)
{
	static struct ls_hook_flow_rec a[SLOTS], b[SLOTS];
	const struct hook_export_source src[2] = { { a, SLOTS, 1 }, { b, SLOTS, 3 } };
	struct hook_export_params p;
	struct captured cap = { .n = 0 };
	struct hook_export *e;
	char err[256];
	unsigned int steps = 0;

	(void)state;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	params(&p);
	e = hook_export_create(&p, src, 2, NULL, capture, &cap, err, sizeof(err));
	assert_non_null(e);
	slot_set(&a[60], 1, 0, 3, 300, T0_NS, T0_NS);
	slot_set(&b[1], 2, 0, 4, 400, T0_NS, T0_NS);
	slot_set(&b[63], 3, 0, 5, 500, T0_NS, T0_NS);
	while (!hook_export_step(e, T0_NS + S_NS, 10))
		steps++;
	assert_int_equal(steps, 12); /* 128 slots, 10 a step: the 13th finishes */
	assert_int_equal(hook_export_stats(e)->ticks, 1);
	assert_int_equal(hook_export_n_flows(e), 3);
	assert_int_equal(hook_export_gateway(e)->pkts, 12);
	/* The next pass starts over; past the idle timeout its end removes them all. */
	assert_false(hook_export_step(e, T0_NS + 200 * S_NS, 100));
	assert_int_equal(hook_export_n_flows(e), 3);
	assert_true(hook_export_step(e, T0_NS + 200 * S_NS, 100));
	assert_int_equal(hook_export_n_flows(e), 0);
	assert_int_equal(cap.n, 3);
	hook_export_free(e);
}

static void
test_sojourn_percentiles(void **state)
{
	uint64_t h[LS_HOOK_SOJOURN_BUCKETS] = { 0 };

	(void)state;
	assert_int_equal(hook_export_sojourn_pct_ns(h, 50), 0);
	h[0] = 50; /* < 1024 ns */
	h[3] = 49; /* [4096, 8192) */
	h[15] = 1; /* >= 2^24 */
	assert_int_equal(hook_export_sojourn_pct_ns(h, 50), 1024);
	assert_int_equal(hook_export_sojourn_pct_ns(h, 51), 8192);
	assert_int_equal(hook_export_sojourn_pct_ns(h, 99), 8192);
	assert_int_equal(hook_export_sojourn_pct_ns(h, 100), 1u << 24);
	assert_int_equal(hook_export_bucket_ns(0), 1024);
	assert_int_equal(hook_export_bucket_ns(14), 1u << 24);
	assert_int_equal(hook_export_bucket_ns(15), 1u << 24);
}

/* --- end to end --- */

struct e2e {
	struct hook_maps maps;
	bool have_maps;
	struct ls_hook_flow_rec *mem[2]; /* without maps */
	struct hook_object *o;
	struct hook_prog prog[2];
};

static void
e2e_setup(struct e2e *t)
{
	struct hook_maps_params mp = {
		.n_lcores = 2,
		.lcores = { 1, 3 },
		.flow_slots = ROCE_SLOTS,
		.totals_max = 1024,
	};
	char err[HOOK_LOAD_ERR_MAX], dir[HOOK_MAPS_PATH_MAX], gw[64];
	unsigned int i;

	memset(t, 0, sizeof(*t));
	snprintf(gw, sizeof(gw), "ut-export-%d", (int)getpid());
	assert_int_equal(hook_maps_default_dir(dir, sizeof(dir), gw, "roce_flow"), 0);
	mp.dir = dir;
	t->have_maps = geteuid() == 0 && hook_maps_create(&t->maps, &mp, err, sizeof(err)) == 0;
	if (!t->have_maps)
		print_message("no BPF maps (%s): plain memory, no bpftool check\n",
			      geteuid() == 0 ? err : "not root");
	assert_int_equal(hook_object_open(hook_ut_obj("roce_flow"), "roce_flow", NULL, &t->o, err,
					  sizeof(err)),
			 0);
	for (i = 0; i < 2; i++) {
		struct hook_bind b;

		if (t->have_maps) {
			b.flows = t->maps.flows[i].mem;
		} else {
			t->mem[i] = calloc(ROCE_SLOTS, sizeof(struct ls_hook_flow_rec));
			b.flows = t->mem[i];
		}
		b.flows_bytes = ROCE_SLOTS * sizeof(struct ls_hook_flow_rec);
		b.counters = NULL;
		b.counters_bytes = 0;
		assert_non_null(b.flows);
		if (hook_prog_load(t->o, &b, &t->prog[i], err, sizeof(err)) != 0)
			fail_msg("%s", err);
	}
}

static void
e2e_teardown(struct e2e *t)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		hook_prog_unload(&t->prog[i]);
		free(t->mem[i]);
	}
	hook_object_free(t->o);
	if (t->have_maps)
		hook_maps_destroy(&t->maps);
}

static const struct ls_hook_flow_rec *
e2e_slots(const struct e2e *t, unsigned int i)
{
	return t->have_maps ? t->maps.flows[i].mem : t->mem[i];
}

static void
hook_run(const struct hook_prog *p, struct ls_hook_ctx *c)
{
	assert_int_equal(p->func(c), 0);
}

/*
 * Known traffic, as the pipeline would hand it to the hooks:
 *   flow 1 (IPv4, DC to WAN, QP 0x101): 10 data packets received on lcore 1
 *     (PSN 100..110 without 105: one gap; the last two CE), leaving on
 *     lcore 3: 9 transmitted (one marked with a CNP generated), 1 dropped;
 *   flow 2 (IPv4, WAN to DC, QP 0x102): an ACK, a NAK and another ACK;
 *   flow 3 (IPv6, DC to WAN, QP 0x103): 2 CNPs from a host, received on lcore 3.
 */
static void
e2e_traffic(const struct e2e *t, uint64_t now)
{
	static const uint32_t psn[] = { 100, 101, 102, 103, 104, 106, 107, 108, 109, 110 };
	const struct hook_ut_flow f1 = { .n = 1 }, f2 = { .n = 2, .direction = 1 },
				  f3 = { .n = 3 };
	struct ls_hook_ctx c;
	unsigned int i;

	for (i = 0; i < 10; i++) {
		hook_ut_ctx(&c, &f1, LS_HOOK_DC_RX, 0x0a, psn[i], i >= 8 ? 3 : 2, 1024, now + i);
		hook_run(&t->prog[0], &c);
	}
	for (i = 0; i < 10; i++) {
		hook_ut_ctx(&c, &f1, LS_HOOK_WAN_TX, 0x0a, psn[i], 2, 1024, now + 100 + i);
		c.verdict = i == 9 ? 0 : LS_HOOK_V_FORWARDED;
		c.verdict |= i == 4 ? LS_HOOK_V_MARKED | LS_HOOK_V_CNP_GENERATED : 0;
		c.sojourn_ns = i < 5 ? 2000 : 20000; /* buckets 1 and 5 */
		c.port = 1;
		hook_run(&t->prog[1], &c);
	}
	for (i = 0; i < 3; i++) {
		hook_ut_ctx(&c, &f2, LS_HOOK_WAN_RX, LS_HOOK_OP_RC_ACK, 500 + i, 0, 60, now + 200 + i);
		c.flags |= LS_HOOK_F_AETH;
		c.aeth_syndrome = i == 1 ? 0x60 : 0x1f;
		c.port = 1;
		c.peer = 1;
		hook_run(&t->prog[0], &c);
	}
	for (i = 0; i < 2; i++) {
		hook_ut_ctx(&c, &f3, LS_HOOK_DC_RX, LS_HOOK_OP_CNP, 0, 1, 80, now + 300 + i);
		c.family = LS_HOOK_FAMILY_IP6;
		memset(c.src, 0, 16);
		memset(c.dst, 0, 16);
		c.src[0] = 0xfd;
		c.src[15] = 3;
		c.dst[0] = 0xfd;
		c.dst[1] = 1;
		c.dst[15] = 3;
		hook_run(&t->prog[1], &c);
	}
}

/* cmocka runs the teardown even when the test fails: no maps stay pinned. */
static struct e2e e2e_state;

static int
e2e_group_setup(void **state)
{
	(void)state;
	e2e_setup(&e2e_state);
	return 0;
}

static int
e2e_group_teardown(void **state)
{
	(void)state;
	e2e_teardown(&e2e_state);
	return 0;
}

static void
test_end_to_end(void **state)
{
	struct e2e *tp = &e2e_state;
	struct hook_export_source src[2];
	struct hook_export_params p;
	struct hook_ipfix_params ip = { .transport = HOOK_IPFIX_FILE, .observation_domain = 42 };
	struct hook_ipfix *x;
	struct hook_export *e;
	struct prom_doc doc;
	double v;
	char err[512], pin[HOOK_MAPS_PATH_MAX + 16];
	const uint64_t now = T0_NS + 5 * S_NS;
	size_t len;
	char *text;
	unsigned int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		src[i].slots = e2e_slots(tp, i);
		src[i].n_slots = ROCE_SLOTS;
		src[i].lcore = i == 0 ? 1 : 3;
	}
	ip.path = tmp_path("e2e.ipfix");
	x = hook_ipfix_open(&ip, now, err, sizeof(err));
	assert_non_null(x);
	params(&p);
	p.max_flows = 1024;
	e = hook_export_create(&p, src, 2, tp->have_maps ? &tp->maps : NULL, hook_ipfix_record, x,
			       err, sizeof(err));
	assert_non_null(e);

	e2e_traffic(tp, now);
	hook_export_tick(e, now + S_NS);
	assert_int_equal(hook_export_n_flows(e), 3);
	assert_int_equal(hook_export_stats(e)->slots_torn, 0);

	/* bpftool: the pinned aggregate, per QP, by field name. */
	if (tp->have_maps) {
		snprintf(pin, sizeof(pin), "%.*s/flows", HOOK_MAPS_PATH_MAX, tp->maps.dir);
		assert_true(run_check(
			"bpftool_check", pin,
			"{\"entries\": 3, \"match\": ["
			"{\"key\": {\"dest_qp\": 257, \"sport\": 49153, \"dport\": 4791, \"family\": 4,"
			" \"direction\": 0, \"src\": [10,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0]},"
			" \"value\": {\"pkts\": 10, \"bytes\": 10240, \"ect_pkts\": 8, \"ce_pkts\": 2,"
			" \"psn_gaps\": 1, \"psn_skipped\": 1, \"psn_ooo\": 1, \"retrans\": 0,"
			" \"tx_pkts\": 9, \"tx_bytes\": 9216, \"tx_drops\": 1, \"marked\": 1,"
			" \"cnp_generated\": 1, \"cnp_seen\": 0, \"naks\": 0, \"lcores\": 2,"
			" \"sojourn_hist\": [0,5,0,0,0,4,0,0,0,0,0,0,0,0,0,0],"
			" \"sojourn_sum_ns\": 90000, \"dscp\": 26, \"port\": 0}},"
			"{\"key\": {\"dest_qp\": 258, \"direction\": 1},"
			" \"value\": {\"pkts\": 3, \"naks\": 1, \"rnr_naks\": 0, \"peer\": 1,"
			" \"port\": 1, \"lcores\": 1}},"
			"{\"key\": {\"dest_qp\": 259, \"family\": 6,"
			" \"src\": [253,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3]},"
			" \"value\": {\"pkts\": 2, \"cnp_seen\": 2, \"ect_pkts\": 2}}]}"));
	}

	/* Prometheus: strict parse, then the numbers. */
	text = hook_prom_render(e, &len);
	assert_non_null(text);
	if (prom_parse(text, len, true, &doc, err, sizeof(err)) != 0)
		fail_msg("%s\n%s", err, text);
	assert_true(prom_value(&doc, "longspan_hook_packets_total", "", &v));
	assert_true(v == 15);
	assert_true(prom_value(&doc, "longspan_hook_ce_packets_total", "", &v) && v == 2);
	assert_true(prom_value(&doc, "longspan_hook_cnps_seen_total", "", &v) && v == 2);
	assert_true(prom_value(&doc, "longspan_hook_cnps_generated_total", "", &v) && v == 1);
	assert_true(prom_value(&doc, "longspan_hook_psn_gaps_total", "", &v) && v == 1);
	assert_true(prom_value(&doc, "longspan_hook_naks_total", "", &v) && v == 1);
	assert_true(prom_value(&doc, "longspan_hook_tx_drops_total", "", &v) && v == 1);
	assert_true(prom_value(&doc, "longspan_hook_flows", "", &v) && v == 3);
	assert_true(prom_value(&doc, "longspan_hook_peer_packets_total", "peer=\"west\"", &v) &&
		    v == 12);
	assert_true(prom_value(&doc, "longspan_hook_peer_packets_total", "peer=\"east\"", &v) &&
		    v == 3);
	assert_true(prom_value(&doc, "longspan_hook_port_tx_packets_total", "port=\"wan0\"", &v));
	assert_true(v == 0); /* tx is attributed to the flow's rx port, dc0 */
	assert_true(prom_value(&doc, "longspan_hook_port_tx_packets_total", "port=\"dc0\"", &v) &&
		    v == 9);
	assert_true(prom_value(&doc, "longspan_hook_sojourn_seconds_count", "", &v) && v == 9);
	assert_true(prom_value(&doc, "longspan_hook_sojourn_seconds_sum", "", &v) &&
		    v > 0.0000899 && v < 0.0000901);
	assert_true(prom_value(&doc, "longspan_hook_sojourn_seconds_bucket", "le=\"0.000002048\"",
			       &v) &&
		    v == 5);
	assert_true(prom_value(&doc, "longspan_hook_flow_bytes_total",
			       "dest_qp=\"257\",direction=\"dc_to_wan\",dst=\"10.1.0.1\","
			       "sport=\"49153\",src=\"10.0.0.1\"",
			       &v) &&
		    v == 10240);
	assert_true(prom_value(&doc, "longspan_hook_flow_packets_total",
			       "dest_qp=\"259\",direction=\"dc_to_wan\",dst=\"fd01::3\","
			       "sport=\"49155\",src=\"fd00::3\"",
			       &v) &&
		    v == 2);
	assert_true(prom_count(&doc, "longspan_hook_flow_bytes_total") == 3); /* top_k */
	prom_free(&doc);
	free(text);

	/* IPFIX: the forced end of every flow, decoded by ipfixDump. */
	hook_export_flush(e, now + 2 * S_NS);
	hook_ipfix_flush(x, now + 2 * S_NS);
	assert_int_equal(hook_ipfix_stats(x)->records, 3);
	hook_export_free(e);
	hook_ipfix_close(x);
	assert_true(run_check(
		"ipfix_check", ip.path,
		"{\"records\": 3, \"templates_min\": 3, \"match\": ["
		"{\"where\": {\"lsRoceDestQueuePair\": 257},"
		" \"fields\": {\"packetDeltaCount\": 10, \"octetDeltaCount\": 10240,"
		" \"sourceIPv4Address\": \"10.0.0.1\", \"destinationIPv4Address\": \"10.1.0.1\","
		" \"sourceTransportPort\": 49153, \"destinationTransportPort\": 4791,"
		" \"protocolIdentifier\": 17, \"ipClassOfService\": 104,"
		" \"droppedPacketDeltaCount\": 1, \"lsCePacketDeltaCount\": 2,"
		" \"lsEctPacketDeltaCount\": 8, \"lsPsnGapDeltaCount\": 1,"
		" \"lsMarkedPacketDeltaCount\": 1, \"lsCnpGeneratedDeltaCount\": 1,"
		" \"lsTxPacketDeltaCount\": 9, \"lsSojournP50Nanoseconds\": 2048,"
		" \"lsSojournP99Nanoseconds\": 32768, \"flowEndReason\": 4, \"lsFlowDirection\": 0,"
		" \"flowStartMilliseconds\": {\"ms\": 1700000005000},"
		" \"flowEndMilliseconds\": {\"ms\": 1700000005000}}},"
		"{\"where\": {\"lsRoceDestQueuePair\": 258},"
		" \"fields\": {\"packetDeltaCount\": 3, \"lsNakDeltaCount\": 1, \"ingressInterface\": 1,"
		" \"lsFlowDirection\": 1}},"
		"{\"where\": {\"lsRoceDestQueuePair\": 259},"
		" \"fields\": {\"sourceIPv6Address\": \"fd00::0003\", \"lsCnpSeenDeltaCount\": 2,"
		" \"packetDeltaCount\": 2}}]}"));
}

/* --- the Prometheus endpoint --- */

/* One HTTP/1.0 request to 127.0.0.1:port; the whole response in a malloc'd string. */
static char *
http(uint16_t port, const char *request)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = 5 };
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_non_null(buf);
	assert_true(fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(write(fd, request, strlen(request)), (ssize_t)strlen(request));
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * S_NS + (uint64_t)ts.tv_nsec;
}

static void
test_prom_http(void **state)
{
	static struct ls_hook_flow_rec a[SLOTS];
	const struct hook_export_source src[1] = { { a, SLOTS, 1 } };
	const struct prom_server_params pp = { .addr = "127.0.0.1", .port = 0 };
	struct hook_export_params p;
	struct prom_doc doc;
	struct hook_export *e;
	struct prom_server *s;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char err[256], *resp, *body, *text;
	uint64_t t0;
	size_t len;
	double v;
	int idle;

	(void)state;
	memset(a, 0, sizeof(a));
	params(&p);
	e = hook_export_create(&p, src, 1, NULL, NULL, NULL, err, sizeof(err));
	assert_non_null(e);
	slot_set(&a[0], 1, 0, 7, 7000, T0_NS, T0_NS);
	hook_export_tick(e, T0_NS + S_NS);
	s = prom_server_start(&pp, err, sizeof(err));
	if (s == NULL)
		fail_msg("%s", err);
	assert_true(prom_server_port(s) != 0);

	/* Nothing published yet: an empty exposition, still 200. */
	resp = http(prom_server_port(s), "GET /metrics HTTP/1.0\r\n\r\n");
	assert_true(strncmp(resp, "HTTP/1.", 7) == 0 && strncmp(resp + 9, "200", 3) == 0);
	free(resp);

	/* A client that connects and says nothing does not hold up a publish. */
	idle = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_port = htons(prom_server_port(s));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(idle, (struct sockaddr *)&sa, sizeof(sa)), 0);
	t0 = mono_ns();
	text = hook_prom_render(e, &len);
	assert_non_null(text);
	assert_int_equal(prom_server_set(s, PROM_SECTION_HOOKS, text, len), 0);
	assert_true(mono_ns() - t0 < S_NS / 10);

	resp = http(prom_server_port(s), "GET /metrics HTTP/1.0\r\n\r\n");
	assert_true(strncmp(resp, "HTTP/1.", 7) == 0 && strncmp(resp + 9, "200", 3) == 0);
	assert_non_null(strstr(resp, "Content-Type: " PROM_CONTENT_TYPE "\r\n"));
	body = strstr(resp, "\r\n\r\n");
	assert_non_null(body);
	body += 4;
	text = hook_prom_render(e, &len);
	assert_string_equal(body, text); /* what was published */
	if (prom_parse(body, strlen(body), true, &doc, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_true(prom_value(&doc, "longspan_hook_packets_total", "", &v) && v == 7);
	assert_true(prom_value(&doc, "longspan_hook_bytes_total", "", &v) && v == 7000);
	prom_free(&doc);
	free(text);
	free(resp);

	/* The sections: hooks then peers, each replaced or emptied alone. */
	text = strdup("longspan_peer_rtt_seconds{peer=\"b\"} 0.001000000\n");
	assert_int_equal(prom_server_set(s, PROM_SECTION_PEERS, text, strlen(text)), 0);
	resp = http(prom_server_port(s), "GET /metrics HTTP/1.0\r\n\r\n");
	body = strstr(resp, "\r\n\r\n") + 4;
	text = hook_prom_render(e, &len);
	assert_int_equal(strncmp(body, text, len), 0);
	assert_string_equal(body + len, "longspan_peer_rtt_seconds{peer=\"b\"} 0.001000000\n");
	free(text);
	free(resp);
	assert_int_equal(prom_server_set(s, PROM_SECTION_HOOKS, NULL, 0), 0);
	resp = http(prom_server_port(s), "GET /metrics HTTP/1.0\r\n\r\n");
	assert_string_equal(strstr(resp, "\r\n\r\n") + 4,
			    "longspan_peer_rtt_seconds{peer=\"b\"} 0.001000000\n");
	free(resp);
	assert_int_equal(prom_server_set(s, PROM_SECTIONS, strdup("x"), 1), -EINVAL);

	resp = http(prom_server_port(s), "GET /other HTTP/1.0\r\n\r\n");
	assert_non_null(strstr(resp, " 404 "));
	free(resp);
	resp = http(prom_server_port(s), "POST /metrics HTTP/1.0\r\nContent-Length: 0\r\n\r\n");
	assert_non_null(strstr(resp, " 405 "));
	free(resp);
	assert_true(prom_server_requests(s) >= 6);
	close(idle);
	prom_server_stop(s);
	hook_export_free(e);

	/* A bad address is refused. */
	assert_null(prom_server_start(&(struct prom_server_params){ .addr = "localhost" }, err,
				      sizeof(err)));
	assert_non_null(strstr(err, "not a numeric"));
}

/* --- IPFIX transports --- */

static void
record_n(struct hook_export_record *r, unsigned int n)
{
	memset(r, 0, sizeof(*r));
	r->key.hash = 1 + n;
	r->key.dest_qp = 0x1000 + n;
	r->key.sport = (uint16_t)(50000 + n);
	r->key.dport = 4791;
	r->key.family = n % 2 ? LS_HOOK_FAMILY_IP6 : LS_HOOK_FAMILY_IP4;
	r->key.proto = 17;
	r->key.src[0] = 10;
	r->key.src[3] = (uint8_t)n;
	r->key.dst[0] = 10;
	r->key.dst[3] = 1;
	r->delta.pkts = 100 + n;
	r->delta.bytes = 1000 * (100 + n);
	r->start_ns = T0_NS;
	r->end_ns = T0_NS + S_NS;
	r->reason = HOOK_EXPORT_ACTIVE;
}

/* Append every datagram/stream byte waiting on fd to the file (within wait_ms). */
static size_t
collect(int fd, FILE *out, int wait_ms, bool stream, size_t *max_dgram)
{
	uint8_t buf[65536];
	size_t total = 0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (poll(&pfd, 1, wait_ms) == 1) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n <= 0)
			break;
		if (!stream && max_dgram != NULL && (size_t)n > *max_dgram)
			*max_dgram = (size_t)n;
		fwrite(buf, 1, (size_t)n, out);
		total += (size_t)n;
		wait_ms = 50;
	}
	return total;
}

/* What arrives on fd within wait_ms, written to the file at path. */
static void
collect_file(int fd, const char *path, bool stream, size_t *max_dgram)
{
	FILE *out = fopen(path, "wb");

	assert_non_null(out);
	collect(fd, out, 1000, stream, max_dgram);
	fclose(out);
}

static void
test_ipfix_udp(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	struct hook_ipfix_params ip = {
		.transport = HOOK_IPFIX_UDP,
		.host = "127.0.0.1",
		.mtu = 1400,
		.template_refresh_ns = 10 * S_NS,
	};
	struct hook_export_record r;
	struct hook_ipfix *x;
	const char *path = tmp_path("udp.ipfix");
	size_t max_data = 0;
	char err[256];
	unsigned int i;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	(void)state;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	ip.port = ntohs(a.sin_port);
	x = hook_ipfix_open(&ip, T0_NS, err, sizeof(err));
	if (x == NULL)
		fail_msg("%s", err);
	for (i = 0; i < 20; i++) {
		record_n(&r, i);
		hook_ipfix_record(x, &r);
	}
	hook_ipfix_flush(x, T0_NS + S_NS);
	assert_int_equal(hook_ipfix_stats(x)->template_sends, 1);
	/* Past the refresh interval: templates again. */
	hook_ipfix_flush(x, T0_NS + 11 * S_NS);
	assert_int_equal(hook_ipfix_stats(x)->template_sends, 2);
	collect_file(fd, path, false, &max_data);
	if (!(max_data > 0 && max_data <= 1400))
		fail_msg("largest datagram %zu bytes", max_data);
	assert_int_equal(hook_ipfix_stats(x)->dropped_messages, 0);
	assert_true(hook_ipfix_stats(x)->messages >= 4 + 2); /* 20 records of <= 6 per message */
	assert_true(run_check("ipfix_check", path,
			      "{\"records\": 20, \"templates_min\": 6, \"match\": ["
			      "{\"where\": {\"lsRoceDestQueuePair\": 4096},"
			      " \"fields\": {\"packetDeltaCount\": 100, \"octetDeltaCount\": 100000,"
			      " \"sourceIPv4Address\": \"10.0.0.0\", \"flowEndReason\": 2}},"
			      "{\"where\": {\"lsRoceDestQueuePair\": 4115},"
			      " \"fields\": {\"packetDeltaCount\": 119,"
			      " \"sourceIPv6Address\": \"0a00:0013::\"}}]}"));
	hook_ipfix_close(x);
	close(fd);
}

static void
test_ipfix_tcp(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	struct hook_ipfix_params ip = { .transport = HOOK_IPFIX_TCP, .host = "127.0.0.1" };
	struct hook_export_record r;
	struct pollfd pfd;
	struct hook_ipfix *x;
	const char *path = tmp_path("tcp.ipfix");
	uint64_t now = T0_NS;
	char err[256];
	unsigned int i;
	int ls = socket(AF_INET, SOCK_STREAM, 0), c;

	(void)state;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(ls, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(ls, (struct sockaddr *)&a, &al), 0);
	assert_int_equal(listen(ls, 4), 0);
	ip.port = ntohs(a.sin_port);
	x = hook_ipfix_open(&ip, now, err, sizeof(err));
	if (x == NULL)
		fail_msg("%s", err);
	c = accept(ls, NULL, NULL);
	assert_true(c >= 0);
	for (i = 0; i < 3 && hook_ipfix_stats(x)->connects == 0; i++)
		hook_ipfix_flush(x, now += S_NS);
	assert_int_equal(hook_ipfix_stats(x)->connects, 1);
	for (i = 0; i < 5; i++) {
		record_n(&r, i);
		hook_ipfix_record(x, &r);
	}
	hook_ipfix_flush(x, now += S_NS);
	collect_file(c, path, true, NULL);
	assert_true(run_check("ipfix_check", path,
			      "{\"records\": 5, \"templates_min\": 3, \"match\": ["
			      "{\"where\": {\"lsRoceDestQueuePair\": 4100},"
			      " \"fields\": {\"packetDeltaCount\": 104}}]}"));

	/* The collector goes away: the stream breaks, the exporter reconnects, templates first. */
	close(c);
	for (i = 0; i < 20 && hook_ipfix_stats(x)->connects < 2; i++) {
		record_n(&r, 10 + i);
		hook_ipfix_record(x, &r);
		hook_ipfix_flush(x, now += S_NS);
		pfd.fd = ls;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 10) == 1) {
			c = accept(ls, NULL, NULL);
			assert_true(c >= 0);
			hook_ipfix_flush(x, now += S_NS);
		}
	}
	assert_int_equal(hook_ipfix_stats(x)->connects, 2);
	record_n(&r, 99);
	hook_ipfix_record(x, &r);
	hook_ipfix_flush(x, now += S_NS);
	collect_file(c, path, true, NULL);
	/* A file that starts with the new connection's templates and holds the last record. */
	assert_true(run_check("ipfix_check", path,
			      "{\"templates_min\": 3, \"match\": [{\"where\": "
			      "{\"lsRoceDestQueuePair\": 4195}, \"fields\": {\"packetDeltaCount\": 199}}]}"));
	close(c);
	hook_ipfix_close(x);
	close(ls);

	/* Nobody listening: records are dropped and counted, nothing blocks. */
	ip.port = ntohs(a.sin_port);
	x = hook_ipfix_open(&ip, now, err, sizeof(err));
	assert_non_null(x);
	for (i = 0; i < 3; i++) {
		record_n(&r, i);
		hook_ipfix_record(x, &r);
		hook_ipfix_flush(x, now += 2 * S_NS);
	}
	assert_int_equal(hook_ipfix_stats(x)->connects, 0);
	assert_true(hook_ipfix_stats(x)->dropped_messages >= 3);
	hook_ipfix_close(x);

	/* A collector name is refused: no name lookups on the control thread. */
	ip.host = "collector.example";
	assert_null(hook_ipfix_open(&ip, now, err, sizeof(err)));
	assert_non_null(strstr(err, "not a numeric"));
}

/* --- the strict parser can fail --- */

static void
test_prom_parser_rejects(void **state)
{
	static const struct {
		const char *text, *why;
		bool lax; /* parse without require_meta */
	} bad[] = {
		{ "# HELP a x\n# TYPE a counter\na 1", "newline" },
		{ "# HELP a x\n# TYPE a counter\na 1\na 2\n", "twice" },
		{ "# HELP a x\na 1\n# TYPE a counter\n", "after its samples", true },
		{ "# HELP a x\n# TYPE a gauge\na 1\n# HELP b x\n# TYPE b gauge\nb 1\na{x=\"1\"} 2\n",
		  "continues after" },
		{ "# HELP a x\n# TYPE a gauge\na{x=\"\\q\"} 1\n", "bad escape" },
		{ "# HELP a x\n# TYPE a gauge\na{x=\"1\",x=\"2\"} 1\n", "twice" },
		{ "# HELP a x\n# TYPE a gauge\na{__x=\"1\"} 1\n", "reserved" },
		{ "# HELP a x\n# TYPE a counter\na -1\n", "counter value" },
		{ "# HELP a x\n# TYPE a gauge\na 0x10\n", "bad value" },
		{ "# HELP a x\n# TYPE a gauge\n9a 1\n", "bad metric name" },
		{ "a 1\n", "no HELP and TYPE" },
		{ "# HELP a x\n# TYPE a wibble\na 1\n", "unknown type" },
		{ "# HELP h x\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\n"
		  "h_sum 1\nh_count 1\n",
		  "decrease" },
		{ "# HELP h x\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",
		  "+Inf" },
		{ "# HELP h x\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 1\n",
		  "the +Inf bucket" },
		{ "# HELP h x\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n", "no _sum" },
		{ "# HELP h x\n# TYPE h histogram\nh 1\n", "no plain samples" },
	};
	static const char good[] =
		"# HELP a a \\\\ help\n# TYPE a counter\na 1\na{x=\"a\\\"b\\n\",y=\"\"} 2 123\n"
		"# a comment\n\n# HELP h x\n# TYPE h histogram\nh_bucket{le=\"0.5\"} 1\n"
		"h_bucket{le=\"+Inf\"} 3\nh_sum 4.5\nh_count 3\n";
	struct prom_doc doc;
	char err[256];
	unsigned int i;
	double v;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (prom_parse(bad[i].text, strlen(bad[i].text), !bad[i].lax, &doc, err,
			       sizeof(err)) == 0)
			fail_msg("accepted case %u", i);
		if (strstr(err, bad[i].why) == NULL)
			fail_msg("case %u: \"%s\", expected \"%s\"", i, err, bad[i].why);
	}
	if (prom_parse(good, strlen(good), true, &doc, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_true(prom_value(&doc, "a", "x=\"a\"b\n\",y=\"\"", &v) && v == 2);
	assert_true(prom_value(&doc, "h_sum", "", &v) && v == 4.5);
	prom_free(&doc);
}

/* --- docs/telemetry.md names every field, element and metric --- */

static bool
doc_has(const char *doc, const char *name)
{
	char quoted[160];

	snprintf(quoted, sizeof(quoted), "`%s`", name);
	return strstr(doc, quoted) != NULL;
}

static void
test_docs_in_sync(void **state)
{
#define HOOK_DOC_NAME(type, name, dim, desc) #name,
	static const char *const fields[] = { LS_HOOK_FLOW_FIELDS(HOOK_DOC_NAME)
						      HOOK_FLOW_TOTAL_FIELDS(HOOK_DOC_NAME) };
#undef HOOK_DOC_NAME
	static const char *const scopes[] = { "longspan_hook_peer_", "longspan_hook_port_",
					      "longspan_hook_flow_", "longspan_hook_" };
	static struct ls_hook_flow_rec a[SLOTS];
	const struct hook_export_source src[1] = { { a, SLOTS, 1 } };
	struct hook_export_params p;
	struct hook_export *e;
	size_t doc_size;
	char *doc = (char *)hook_ut_read(hook_ut_obj("docs"), &doc_size), *text, *line, err[256];
	const char *name;
	unsigned int i, n = 0;
	size_t len;

	(void)state;
	assert_non_null(doc);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!doc_has(doc, fields[i]))
			fail_msg("docs/telemetry.md does not name the field %s", fields[i]);
	for (i = 0; (name = hook_ipfix_element(i)) != NULL; i++)
		if (!doc_has(doc, name))
			fail_msg("docs/telemetry.md does not name the IPFIX element %s", name);
	assert_true(i > 20);

	/* Every family the exposition has, with a peer, a port and a flow. */
	memset(a, 0, sizeof(a));
	params(&p);
	e = hook_export_create(&p, src, 1, NULL, NULL, NULL, err, sizeof(err));
	assert_non_null(e);
	slot_set(&a[0], 1, 0, 1, 100, T0_NS, T0_NS);
	hook_export_tick(e, T0_NS + S_NS);
	text = hook_prom_render(e, &len);
	assert_non_null(text);
	for (line = strstr(text, "# TYPE "); line != NULL; line = strstr(line + 1, "# TYPE ")) {
		char fam[128], rest[128];
		bool ok;

		assert_int_equal(sscanf(line, "# TYPE %127s", fam), 1);
		ok = doc_has(doc, fam);
		for (i = 0; !ok && i < sizeof(scopes) / sizeof(scopes[0]); i++)
			ok = strncmp(fam, scopes[i], strlen(scopes[i])) == 0 &&
			     doc_has(doc, fam + strlen(scopes[i]));
		if (!ok && strncmp(fam, "longspan_hook_exporter", 22) == 0) {
			snprintf(rest, sizeof(rest), "%s", fam + 22);
			ok = doc_has(doc, rest);
		}
		if (!ok)
			fail_msg("docs/telemetry.md does not name the metric %s", fam);
		n++;
	}
	assert_true(n > 4 * 17);
	free(text);
	hook_export_free(e);
	free(doc);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prom_parser_rejects),
		cmocka_unit_test(test_aggregate),
		cmocka_unit_test(test_aggregate_full_and_top),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_sojourn_percentiles),
		cmocka_unit_test_setup_teardown(test_end_to_end, e2e_group_setup, e2e_group_teardown),
		cmocka_unit_test(test_prom_http),
		cmocka_unit_test(test_ipfix_udp),
		cmocka_unit_test(test_ipfix_tcp),
		cmocka_unit_test(test_docs_in_sync),
	};
	int rc;

	if (hook_ut_args(argc, argv) != 0 || mkdtemp(tmpdir) == NULL)
		return 2;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(tmp_path("e2e.ipfix"));
	unlink(tmp_path("udp.ipfix"));
	unlink(tmp_path("tcp.ipfix"));
	rmdir(tmpdir);
	return rc;
}
