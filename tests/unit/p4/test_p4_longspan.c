/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dataplane/p4/longspan.spec through DPDK 22.11's own loader: codegen, the
 * generated C compiled and loaded with rte_swx_pipeline_build_from_lib(),
 * tables filled through rte_swx_ctl with a commit, and packets run through
 * it on ring ports. The expected bytes come from docs/wire-format.md, not
 * from the C path (the differential test is docs/p4.md's next step).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_hash_crc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_swx_ctl.h>
#include <rte_swx_pipeline.h>

#include "../dataplane/ut_eal.h"
#include "ut_swx.h"

#ifndef LS_P4_SPEC
#error "LS_P4_SPEC: path of dataplane/p4/longspan.spec"
#endif

/* 22.11's limit: INSTR_CUSTOM_0 + groups <= 256 instruction table slots. */
#define SWX_2211_GROUPS_MAX 85

static struct rte_mempool *mp;
static struct rte_swx_pipeline *pl;
static struct rte_swx_ctl_pipeline *ctl;
static char so_path[256];

static const uint8_t dc_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t wan_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t gw_mac[6] = { 0x02, 0, 0, 0, 0xaa, 0xaa }; /* WAN next hop */
static const uint8_t host_mac[6] = { 0x02, 0, 0, 0, 0xbb, 0xbb }; /* 10.1.0.9 */

/* Tables as the control plane would write them from a two-site config. */
static const char *const entries[][2] = {
	{ "port_role", "match 0x0 action port_dc vlan 0x0 mac 0x020000000001" },
	{ "port_role", "match 0x1 action port_wan vlan 0x0 mac 0x020000000002 ip4 0xc0a80001 "
		       "ip6_hi 0x0 ip6_lo 0x0 geneve_port 0x17c1" },
	{ "route4", "match 0x7f000000/0xff000000 action route_martian" },
	{ "route4", "match 0x0a010000/0xffff0000 action route_dc_local" },
	{ "route4", "match 0x0a020000/0xffff0000 action route_peer peer_id 0x1" },
	{ "rpf4", "match 0x7f000000/0xff000000 action rpf_martian" },
	{ "rpf4", "match 0x0a010000/0xffff0000 action rpf_dc_local" },
	{ "rpf4", "match 0x0a020000/0xffff0000 action rpf_peer peer_id 0x1" },
	{ "peer_tunnel", "match 0x1 action tunnel4 src_addr 0xc0a80001 dst_addr 0xc0a80002 "
			 "vni 0x64 wan_port 0x1 vlan 0x0 wan_mac 0x020000000002 "
			 "nexthop 0xc0a80002 mtu 0x5dc geneve_port 0x17c1" },
	{ "peer_by_remote4", "match 0xc0a80002 action decap_peer peer_id 0x1 "
			     "source_strict 0x1 vni 0x64" },
	{ "neigh4", "match 0xc0a80002 action neigh_mac mac 0x02000000aaaa" },
	{ "neigh4", "match 0x0a010009 action neigh_mac mac 0x02000000bbbb" },
};

/* The committed spec, or LS_P4_SPEC_FILE (a p4c-generated one, docs/p4.md). */
static const char *
spec_path(void)
{
	const char *env = getenv("LS_P4_SPEC_FILE");

	return env != NULL && env[0] != '\0' ? env : LS_P4_SPEC;
}

static int
table_add(const char *table, const char *line, int is_default)
{
	struct rte_swx_table_entry *e;
	int blank = 0, rc;
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", line);
	e = rte_swx_ctl_pipeline_table_entry_read(ctl, table, buf, &blank);
	if (e == NULL) {
		fprintf(stderr, "%s: cannot read entry '%s'\n", table, line);
		return -1;
	}
	rc = is_default ? rte_swx_ctl_pipeline_table_default_entry_add(ctl, table, e)
			: rte_swx_ctl_pipeline_table_entry_add(ctl, table, e);
	/* 22.11 has no public free for what entry_read allocates (calloc'd
	 * parts; the add copied them). */
	free(e->key);
	free(e->key_mask);
	free(e->action_data);
	free(e);
	return rc;
}

static int
setup(void **state)
{
	char c_path[256];
	size_t i;

	(void)state;
	if (ut_swx_src_dir() == NULL)
		return 0;
	ut_swx_tmp(c_path, sizeof(c_path), "longspan.c");
	ut_swx_tmp(so_path, sizeof(so_path), "longspan.so");
	if (ut_swx_codegen(spec_path(), c_path) != 0 || ut_swx_compile(c_path, so_path) != 0)
		return -1;
	if (ut_swx_load(so_path, "ls", 2, 1, &pl) != 0)
		return -1;
	ctl = rte_swx_ctl_pipeline_create(pl);
	if (ctl == NULL)
		return -1;
	for (i = 0; i < RTE_DIM(entries); i++)
		if (table_add(entries[i][0], entries[i][1], 0) != 0)
			return -1;
	if (table_add("dc_egress",
		      "action dc_port port 0x0 vlan 0x0 mac 0x020000000001 gateway4 0x0a0100fe "
		      "gateway6_hi 0x0 gateway6_lo 0x0",
		      1) != 0)
		return -1;
	if (rte_swx_ctl_pipeline_commit(ctl, 1) != 0)
		return -1;
	return 0;
}

static void
need_lib(void)
{
	if (pl == NULL) {
		fprintf(stderr, "skipped: no DPDK pipeline sources (LS_DPDK_SRC), "
				"see docs/p4.md\n");
		skip();
	}
}

/* RFC 1071 sum over n bytes (even n). */
static uint16_t
csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/*
 * IPv4 / UDP to 4791 / BTH (RDMA WRITE ONLY to dqpn) / 16 payload bytes /
 * ICRC at ip. Returns the IP packet's size.
 */
static size_t
roce4(uint8_t *ip, uint32_t src, uint32_t dst, uint8_t tos, uint8_t ttl, uint32_t dqpn)
{
	const size_t n = 20 + 8 + 12 + 16 + 4;
	uint8_t *udp = ip + 20, *bth = udp + 8;
	size_t i;

	memset(ip, 0, n);
	ip[0] = 0x45;
	ip[1] = tos;
	put16(ip + 2, (uint16_t)n);
	put16(ip + 4, 0x1234);
	put16(ip + 6, 0x4000);
	ip[8] = ttl;
	ip[9] = 17;
	put32(ip + 12, src);
	put32(ip + 16, dst);
	put16(ip + 10, csum(ip, 20));
	put16(udp, 0xc123);
	put16(udp + 2, 4791);
	put16(udp + 4, (uint16_t)(n - 20));
	bth[0] = 0x0a;
	put16(bth + 2, 0xffff);
	put32(bth + 4, dqpn & 0xffffff);
	put32(bth + 8, 0x000042);
	for (i = 0; i < 20; i++)
		bth[12 + i] = (uint8_t)i;
	return n;
}

/* Run one frame in on port in_port; returns the frame out (caller frees). */
static struct rte_mbuf *
run(int in_port, const uint8_t *frame, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp), *out = NULL;
	int i;

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
	assert_int_equal(rte_ring_enqueue(ut_swx_ring("ls", in_port), m), 0);
	for (i = 0; i < 64 && out == NULL; i++) {
		rte_swx_pipeline_run(pl, 8);
		rte_swx_pipeline_flush(pl);
		if (rte_ring_dequeue(ut_swx_ring("ls", -1), (void **)&out) != 0)
			out = NULL;
	}
	assert_non_null(out);
	return out;
}

/* The ls_meta shim in front of every packet out (12 bytes). */
struct shim {
	uint8_t verdict, reason, cls, ecn;
	uint16_t out_port, peer;
	uint32_t slot;
};

static const uint8_t *
shim_read(const struct rte_mbuf *m, struct shim *s)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	s->verdict = p[0];
	s->reason = p[1];
	s->cls = p[2];
	s->ecn = p[3];
	s->out_port = get16(p + 4);
	s->peer = get16(p + 6);
	s->slot = get32(p + 8);
	return p + 12;
}

static void
test_codegen(void **state)
{
	char c_path[256];
	int groups;

	(void)state;
	ut_swx_tmp(c_path, sizeof(c_path), "longspan_cg.c");
	assert_int_equal(ut_swx_codegen(spec_path(), c_path), 0);
	/* Trap: build_from_lib refuses more than 85 groups (-ENOSPC). */
	groups = ut_swx_count_groups(c_path);
	assert_true(groups > 0);
	assert_true(groups <= SWX_2211_GROUPS_MAX);
}

/* DC -> WAN, IPv4 in IPv4: docs/wire-format.md, "DC -> WAN". */
static void
test_dc_encap4(void **state)
{
	uint8_t f[256], ip_in[128], key[13];
	const uint8_t *o, *ip, *udp, *gen, *opt, *inner;
	struct rte_mbuf *m;
	struct shim s;
	size_t n;
	uint32_t h;

	(void)state;
	need_lib();
	memcpy(f, dc_mac, 6);
	memcpy(f + 6, host_mac, 6);
	put16(f + 12, 0x0800);
	n = roce4(f + 14, 0x0a010009, 0x0a020007, 0x02 /* ECT(0) */, 64, 0x123);
	memcpy(ip_in, f + 14, n);
	m = run(0, f, 14 + n);
	o = shim_read(m, &s);
	assert_int_equal(s.verdict, 0);
	assert_int_equal(s.reason, 0);
	assert_int_equal(s.cls, 0); /* RoCE data */
	assert_int_equal(s.ecn, 2);
	assert_int_equal(s.out_port, 1);
	assert_int_equal(s.peer, 1);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 12 + 14 + 20 + 8 + 8 + 20 + n);
	assert_memory_equal(o, gw_mac, 6);
	assert_memory_equal(o + 6, wan_mac, 6);
	assert_int_equal(get16(o + 12), 0x0800);
	ip = o + 14;
	assert_int_equal(ip[0], 0x45);
	assert_int_equal(ip[1], 0x02); /* RFC 6040: DSCP+ECN copied */
	assert_int_equal(get16(ip + 2), 56 + n);
	assert_int_equal(get16(ip + 4), 0);
	assert_int_equal(get16(ip + 6), 0x4000);
	assert_int_equal(ip[8], 64);
	assert_int_equal(ip[9], 17);
	assert_int_equal(csum(ip, 20), 0);
	assert_int_equal(get32(ip + 12), 0xc0a80001);
	assert_int_equal(get32(ip + 16), 0xc0a80002);
	udp = ip + 20;
	/* Flow hash: CRC-32C of src || dst || proto || sport || dport. */
	memcpy(key, ip_in + 12, 8);
	key[8] = 17;
	memcpy(key + 9, ip_in + 20, 4);
	h = rte_hash_crc(key, sizeof(key), 0);
	assert_int_equal(get16(udp), 0xc000 | (h & 0x3fff));
	assert_int_equal(get16(udp + 2), 6081);
	assert_int_equal(get16(udp + 4), 36 + n);
	assert_int_equal(get16(udp + 6), 0);
	gen = udp + 8;
	assert_int_equal(gen[0], 5);
	assert_int_equal(gen[1], 0);
	assert_int_equal(get16(gen + 2), 0x0800);
	assert_int_equal(get32(gen + 4), 0x64 << 8);
	opt = gen + 8;
	assert_int_equal(get16(opt), 0xff4c);
	assert_int_equal(opt[2], 1);
	assert_int_equal(opt[3], 4);
	assert_int_equal(opt[4], 1);
	inner = opt + 20;
	/* Inner: TTL - 1, checksum right, all else as sent. */
	assert_int_equal(inner[8], 63);
	assert_int_equal(csum(inner, 20), 0);
	assert_memory_equal(inner + 12, ip_in + 12, n - 12);
	rte_pktmbuf_free(m);
}

static void
test_dc_drops(void **state)
{
	uint8_t f[256];
	struct rte_mbuf *m;
	struct shim s;
	size_t n;

	(void)state;
	need_lib();
	memcpy(f, dc_mac, 6);
	memcpy(f + 6, host_mac, 6);
	put16(f + 12, 0x0800);
	/* TTL 1: ttl_expired (20). */
	n = roce4(f + 14, 0x0a010009, 0x0a020007, 0, 1, 0x123);
	m = run(0, f, 14 + n);
	shim_read(m, &s);
	assert_int_equal(s.verdict, 1);
	assert_int_equal(s.reason, 20);
	rte_pktmbuf_free(m);
	/* No peer prefix: no_route (21). */
	n = roce4(f + 14, 0x0a010009, 0x0a030007, 0, 64, 0x123);
	m = run(0, f, 14 + n);
	shim_read(m, &s);
	assert_int_equal(s.reason, 21);
	rte_pktmbuf_free(m);
	/* Loopback destination: martian_destination (45). */
	n = roce4(f + 14, 0x0a010009, 0x7f000001, 0, 64, 0x123);
	m = run(0, f, 14 + n);
	shim_read(m, &s);
	assert_int_equal(s.reason, 45);
	rte_pktmbuf_free(m);
}

/* A WAN frame from the peer carrying ip (n bytes) with outer TOS otos. */
static size_t
wan_frame(uint8_t *f, const uint8_t *ip, size_t n, uint8_t otos)
{
	uint8_t *o = f + 14, *udp = o + 20, *g = udp + 8, *opt = g + 8;

	memcpy(f, wan_mac, 6);
	memcpy(f + 6, gw_mac, 6);
	put16(f + 12, 0x0800);
	memset(o, 0, 20 + 8 + 8 + 20);
	o[0] = 0x45;
	o[1] = otos;
	put16(o + 2, (uint16_t)(56 + n));
	put16(o + 6, 0x4000);
	o[8] = 64;
	o[9] = 17;
	put32(o + 12, 0xc0a80002);
	put32(o + 16, 0xc0a80001);
	put16(o + 10, csum(o, 20));
	put16(udp, 0xc555);
	put16(udp + 2, 6081);
	put16(udp + 4, (uint16_t)(36 + n));
	g[0] = 5;
	put16(g + 2, 0x0800);
	put32(g + 4, 0x64 << 8);
	put16(opt, 0xff4c);
	opt[2] = 1;
	opt[3] = 4;
	opt[4] = 1;
	memcpy(opt + 20, ip, n);
	return 14 + 56 + n;
}

/* WAN -> DC with outer CE over inner ECT(0): inner becomes CE (RFC 6040 4.2). */
static void
test_wan_decap_ce(void **state)
{
	uint8_t f[256], ip[128];
	const uint8_t *o;
	struct rte_mbuf *m;
	struct shim s;
	size_t n, len;

	(void)state;
	need_lib();
	n = roce4(ip, 0x0a020007, 0x0a010009, 0x02, 63, 0x456);
	len = wan_frame(f, ip, n, 0x03);
	m = run(1, f, len);
	o = shim_read(m, &s);
	assert_int_equal(s.verdict, 0);
	assert_int_equal(s.out_port, 0);
	assert_int_equal(s.ecn, 3);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 12 + 14 + n);
	assert_memory_equal(o, host_mac, 6);
	assert_memory_equal(o + 6, dc_mac, 6);
	assert_int_equal(get16(o + 12), 0x0800);
	assert_int_equal(o[14 + 1], 0x03);
	assert_int_equal(o[14 + 8], 63); /* decapsulation leaves TTL */
	assert_int_equal(csum(o + 14, 20), 0);
	rte_pktmbuf_free(m);

	/* CE over Not-ECT: ecn_ce_over_not_ect (35). */
	n = roce4(ip, 0x0a020007, 0x0a010009, 0x00, 63, 0x456);
	len = wan_frame(f, ip, n, 0x03);
	m = run(1, f, len);
	shim_read(m, &s);
	assert_int_equal(s.verdict, 1);
	assert_int_equal(s.reason, 35);
	rte_pktmbuf_free(m);

	/* Source inside the DC subnet: inner_source_spoofed (46). */
	n = roce4(ip, 0x0a010003, 0x0a010009, 0x00, 63, 0x456);
	len = wan_frame(f, ip, n, 0x00);
	m = run(1, f, len);
	shim_read(m, &s);
	assert_int_equal(s.reason, 46);
	rte_pktmbuf_free(m);
}

/*
 * Trap: the control plane cannot read learner entries in 22.11, so the
 * flows learner keeps each flow's key and counters in register arrays by
 * slot, which rte_swx_ctl reads: what `show flows` lists in p4 mode.
 */
static void
test_flows_listed_from_registers(void **state)
{
	uint8_t f[256];
	struct rte_mbuf *m;
	struct shim s1, s2;
	uint64_t pkts = 0, qp = 0, dst = 0, bytes = 0;
	size_t n;

	(void)state;
	need_lib();
	memcpy(f, dc_mac, 6);
	memcpy(f + 6, host_mac, 6);
	put16(f + 12, 0x0800);
	n = roce4(f + 14, 0x0a010009, 0x0a020008, 0, 64, 0x777);
	m = run(0, f, 14 + n);
	shim_read(m, &s1);
	rte_pktmbuf_free(m);
	n = roce4(f + 14, 0x0a010009, 0x0a020008, 0, 64, 0x777);
	m = run(0, f, 14 + n);
	shim_read(m, &s2);
	rte_pktmbuf_free(m);
	assert_int_equal(s1.verdict, 0);
	assert_int_not_equal(s1.slot, 0xffffffff);
	assert_int_equal(s1.slot, s2.slot); /* the second packet hit the entry */
	assert_int_equal(rte_swx_ctl_pipeline_regarray_read(pl, "flow_pkts", s1.slot, &pkts), 0);
	assert_int_equal(rte_swx_ctl_pipeline_regarray_read(pl, "flow_bytes", s1.slot, &bytes),
			 0);
	assert_int_equal(rte_swx_ctl_pipeline_regarray_read(pl, "flow_qp", s1.slot, &qp), 0);
	assert_int_equal(rte_swx_ctl_pipeline_regarray_read(pl, "flow_dst_lo", s1.slot, &dst), 0);
	assert_int_equal(pkts, 2);
	assert_int_equal(bytes, 2 * n);
	assert_int_equal(qp, 0x777);
	assert_int_equal(dst, 0x0a020008);
}

/*
 * Each new QP takes the next slot: flow_learn advances flow_next. DPDK 22.11
 * translates `regadd REGARRAY IMM IMM` without its register array (the
 * instruction keeps array id 0, flow_pkts here), so a counter advanced that
 * way never moved and every flow shared slot 0.
 */
static void
test_flows_take_new_slots(void **state)
{
	uint64_t next0 = 0, next1 = 0;
	uint8_t f[256];
	struct rte_mbuf *m;
	struct shim s1, s2;
	size_t n;

	(void)state;
	need_lib();
	assert_int_equal(rte_swx_ctl_pipeline_regarray_read(pl, "flow_next", 0, &next0), 0);
	memcpy(f, dc_mac, 6);
	memcpy(f + 6, host_mac, 6);
	put16(f + 12, 0x0800);
	n = roce4(f + 14, 0x0a010009, 0x0a020008, 0, 64, 0x778);
	m = run(0, f, 14 + n);
	shim_read(m, &s1);
	rte_pktmbuf_free(m);
	n = roce4(f + 14, 0x0a010009, 0x0a020008, 0, 64, 0x779);
	m = run(0, f, 14 + n);
	shim_read(m, &s2);
	rte_pktmbuf_free(m);
	assert_int_equal(rte_swx_ctl_pipeline_regarray_read(pl, "flow_next", 0, &next1), 0);
	assert_int_equal(next1, next0 + 2);
	assert_int_equal(s1.slot, next0 & 0xffff);
	assert_int_equal(s2.slot, (next0 + 1) & 0xffff);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codegen),
		cmocka_unit_test(test_dc_encap4),
		cmocka_unit_test(test_dc_drops),
		cmocka_unit_test(test_wan_decap_ce),
		cmocka_unit_test(test_flows_listed_from_registers),
		cmocka_unit_test(test_flows_take_new_slots),
	};
	int rc;

	(void)argc;
	if (ut_eal_init(argv[0], "test_p4_longspan", 256) != 0)
		return 1;
	mp = rte_pktmbuf_pool_create("p4_mp", 512, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (mp == NULL)
		return 1;
	rc = cmocka_run_group_tests(tests, setup, NULL);
	rte_swx_ctl_pipeline_free(ctl);
	rte_swx_pipeline_free(pl);
	rte_mempool_free(mp);
	ut_eal_fini();
	ut_swx_cleanup();
	return rc;
}
