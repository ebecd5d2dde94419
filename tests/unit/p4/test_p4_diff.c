/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Differential test: the same frames through the C fast path
 * (dp_pipeline_dc / dp_pipeline_wan on a one-worker runtime) and through
 * dataplane/p4/longspan.spec on DPDK's SWX engine, whose tables
 * control/p4_tables.c fills from the same configuration. A forwarded frame
 * must match byte for byte on the same port, except the listed fields; a
 * dropped one must carry the same drop reason.
 *
 * Listed differences (docs/p4.md, "What p4 mode cannot do"):
 *   - the Longspan option's transmit timestamp (8 bytes): 0 in p4 mode.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_swx_ctl.h>
#include <rte_swx_pipeline.h>

#include "control/config.h"
#include "control/p4_tables.h"
#include "control/runtime.h"
#include "dataplane/martian.h"
#include "dataplane/pipeline.h"
#include "dataplane/worker.h"
#include "../dataplane/ut_eal.h"
#include "../dataplane/ut_pkt.h"
#include "../dataplane/ut_runtime.h"
#include "ut_swx.h"

#ifndef LS_P4_SPEC
#error "LS_P4_SPEC: path of dataplane/p4/longspan.spec"
#endif

static const char conf_text[] =
	"[gateway]\nname = p4diff\n"
	"[port dc]\nrole = dc\ndev = net_null0\nmac = 02:00:00:00:01:fe\n"
	"ipv4 = 10.1.0.254/16\nipv6 = fd00:1::fe/64\n"
	"neighbor = 10.1.0.1 02:00:00:00:01:01\nneighbor = fd00:1::1 02:00:00:00:01:01\n"
	"[port wan]\nrole = wan\ndev = net_null1\nmac = 02:00:00:00:0a:02\n"
	"ipv4 = 192.0.2.1/24\nneighbor = 192.0.2.2 02:00:00:00:0b:02\n"
	"[peer site-b]\nport = wan\nremote = 192.0.2.2\nvni = 100\nrtt = 1ms\n"
	"prefix = 10.2.0.0/16\nprefix = fd00:2::/48\n";

static struct ls_runtime rt;
static struct dp_worker *w;
static struct rte_swx_pipeline *pl;
static struct rte_swx_ctl_pipeline *ctl;
static unsigned int dc_port, wan_port;
static int n_compared;

/* What one pipeline did with a frame. */
struct outcome {
	int port; /* -1: dropped */
	unsigned int reason; /* enum ls_drop_reason when dropped */
	uint32_t len;
	uint8_t b[UT_PKT_MAX];
};

static void
c_path(unsigned int port, const uint8_t *f, uint32_t len, struct outcome *o)
{
	static struct dp_tx tx;
	struct dp_clock clk = { .tsc = 1000, .ns = 1000 };
	struct rte_mbuf *m = rte_pktmbuf_alloc(rt.pool);
	unsigned int p, r, n = 0;

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), f, len);
	memset(&tx, 0, sizeof(tx));
	memset(&w->counters, 0, sizeof(w->counters));
	if (port == dc_port)
		dp_pipeline_dc(w, rt.dp, (uint16_t)port, &m, 1, &clk, &tx);
	else
		dp_pipeline_wan(w, rt.dp, (uint16_t)port, &m, 1, &clk, &tx);
	o->port = -1;
	o->reason = 0;
	for (r = 1; r < LS_DROP_MAX; r++)
		if (w->counters.drops[r] != 0) {
			o->reason = r;
			n++;
		}
	for (p = 0; p < rt.dp->n_ports; p++) {
		struct rte_mbuf *out;

		if (tx.n[p] == 0)
			continue;
		assert_int_equal(tx.n[p], 1);
		out = tx.pkts[p][0];
		o->port = (int)p;
		o->len = rte_pktmbuf_pkt_len(out);
		memcpy(o->b, rte_pktmbuf_mtod(out, uint8_t *), o->len);
		rte_pktmbuf_free(out);
		n++;
	}
	assert_int_equal(n, 1); /* counted exactly once */
}

static void
p4_path(unsigned int port, const uint8_t *f, uint32_t len, struct outcome *o)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rt.pool), *out = NULL;
	const uint8_t *s;
	int i;

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), f, len);
	assert_int_equal(rte_ring_enqueue(ut_swx_ring("diff", (int)port), m), 0);
	for (i = 0; i < 64 && out == NULL; i++) {
		rte_swx_pipeline_run(pl, 8);
		rte_swx_pipeline_flush(pl);
		if (rte_ring_dequeue(ut_swx_ring("diff", -1), (void **)&out) != 0)
			out = NULL;
	}
	assert_non_null(out);
	s = rte_pktmbuf_mtod(out, const uint8_t *);
	o->port = s[0] == 0 ? (int)ut_get16(s + 4) : -1;
	o->reason = s[0] == 1 ? s[1] : 0;
	o->len = rte_pktmbuf_pkt_len(out) - 12;
	memcpy(o->b, s + 12, o->len);
	rte_pktmbuf_free(out);
}

/* Offset of the Longspan option's timestamp in a frame from the WAN port. */
static uint32_t
tx_ns_offset(const struct outcome *o)
{
	uint32_t l2 = ut_get16(o->b + 12) == UT_ET_VLAN ? 18 : 14;

	return l2 + 20 + 8 + 8 + 12;
}

static void
compare(const char *name, unsigned int port, const uint8_t *f, uint32_t len)
{
	struct outcome c, p;

	c_path(port, f, len, &c);
	p4_path(port, f, len, &p);
	if (c.port != p.port || c.reason != p.reason) {
		fprintf(stderr, "%s: C: port %d reason %s; p4: port %d reason %s\n", name, c.port,
			ls_drop_reason_names[c.reason < LS_DROP_MAX ? c.reason : 0], p.port,
			ls_drop_reason_names[p.reason < LS_DROP_MAX ? p.reason : 0]);
		fail();
	}
	if (c.port >= 0) {
		uint32_t i;

		if (c.port == (int)wan_port) {
			memset(c.b + tx_ns_offset(&c), 0, 8);
			memset(p.b + tx_ns_offset(&p), 0, 8);
		}
		if (c.len != p.len) {
			fprintf(stderr, "%s: C sent %u bytes, p4 %u\n", name, c.len, p.len);
			fail();
		}
		for (i = 0; i < c.len; i++)
			if (c.b[i] != p.b[i]) {
				fprintf(stderr, "%s: byte %u: C 0x%02x, p4 0x%02x\n", name, i, c.b[i],
					p.b[i]);
				fail();
			}
	}
	n_compared++;
}

static void
dc_case(const char *name, const struct ut_spec *s, void (*edit)(struct ut_pkt *))
{
	struct ut_pkt p;

	ut_build(&p, s);
	if (edit != NULL)
		edit(&p);
	compare(name, dc_port, p.b, p.len);
}

static void
dst_no_route(struct ut_pkt *p)
{
	p->b[p->l3_off + 17] = 3; /* 10.3.0.2 */
	ut_ip4_fix_csum(p->b + p->l3_off);
}

static void
dst_loopback(struct ut_pkt *p)
{
	static const uint8_t lo[4] = { 127, 0, 0, 1 };

	memcpy(p->b + p->l3_off + 16, lo, 4);
	ut_ip4_fix_csum(p->b + p->l3_off);
}

static void
test_dc_to_wan(void **state)
{
	(void)state;
	if (pl == NULL)
		skip();
	dc_case("roce4 data", &(struct ut_spec){ .roce = true, .opcode = 0x0a, .dqpn = 0x12,
						.tos = 0x02, .sport = 0xc001, .payload = 32 },
		NULL);
	dc_case("roce4 ack", &(struct ut_spec){ .roce = true, .opcode = 0x11, .dqpn = 0x12,
					       .sport = 0xc001 },
		NULL);
	dc_case("roce4 cnp", &(struct ut_spec){ .roce = true, .opcode = 0x81, .dqpn = 0x12,
					       .sport = 0xc001, .payload = 16 },
		NULL);
	dc_case("udp4", &(struct ut_spec){ .sport = 1111, .dport = 2222, .payload = 40 }, NULL);
	dc_case("roce6 data", &(struct ut_spec){ .family = 6, .roce = true, .opcode = 0x0a,
						.dqpn = 0x34, .tos = 0x01, .sport = 0xc002,
						.payload = 64 },
		NULL);
	dc_case("ttl 1", &(struct ut_spec){ .ttl = 1, .sport = 1, .dport = 2 }, NULL);
	dc_case("hop limit 1", &(struct ut_spec){ .family = 6, .ttl = 1, .sport = 1, .dport = 2 },
		NULL);
	dc_case("no route", &(struct ut_spec){ .sport = 1, .dport = 2 }, dst_no_route);
	dc_case("martian destination", &(struct ut_spec){ .sport = 1, .dport = 2 }, dst_loopback);
	dc_case("vlan mismatch", &(struct ut_spec){ .tagged = true, .tci = 7, .sport = 1,
						   .dport = 2 },
		NULL);
}

/* A frame from site B's gateway: Ethernet / IPv4 / UDP / GENEVE / option / ip. */
static uint32_t
wan_frame(uint8_t *f, const uint8_t *ip, uint32_t n, uint8_t otos, uint32_t vni)
{
	uint8_t *o = f + 14, *udp = o + 20, *g = udp + 8, *opt = g + 8;

	memcpy(f, "\x02\x00\x00\x00\x0a\x02\x02\x00\x00\x00\x0b\x02", 12);
	ut_put16(f + 12, UT_ET_IPV4);
	memset(o, 0, 56);
	o[0] = 0x45;
	o[1] = otos;
	ut_put16(o + 2, (uint16_t)(56 + n));
	ut_put16(o + 6, 0x4000);
	o[8] = 64;
	o[9] = UT_PROTO_UDP;
	memcpy(o + 12, "\xc0\x00\x02\x02\xc0\x00\x02\x01", 8);
	ut_ip4_fix_csum(o);
	ut_put16(udp, 0xc123);
	ut_put16(udp + 2, 6081);
	ut_put16(udp + 4, (uint16_t)(36 + n));
	g[0] = 5;
	ut_put16(g + 2, (ip[0] >> 4) == 6 ? UT_ET_IPV6 : UT_ET_IPV4);
	ut_put32(g + 4, vni << 8);
	ut_put16(opt, 0xff4c);
	opt[2] = 1;
	opt[3] = 4;
	opt[4] = 1;
	memcpy(opt + 20, ip, n);
	return 14 + 56 + n;
}

/* site B (10.2.0.2 / fd00:2::2) -> the DC host (10.1.0.1 / fd00:1::1). */
static void
wan_case(const char *name, const struct ut_spec *s, const uint8_t *src4, uint8_t otos,
	 uint32_t vni)
{
	static const uint8_t b4[4] = { 10, 2, 0, 2 };
	uint8_t f[UT_PKT_MAX];
	struct ut_pkt p;
	uint8_t *ip;

	ut_build(&p, s);
	ip = p.b + p.l3_off;
	if (s->family != 6) {
		memcpy(ip + 12, src4 != NULL ? src4 : b4, 4);
		memcpy(ip + 16, ut_ip4_src, 4);
		ut_ip4_fix_csum(ip);
	} else {
		memcpy(ip + 8, ut_ip6_dst, 16);
		memcpy(ip + 24, ut_ip6_src, 16);
	}
	compare(name, wan_port, f, wan_frame(f, ip, p.ip_len, otos, vni));
}

static void
test_wan_to_dc(void **state)
{
	static const uint8_t dc_src[4] = { 10, 1, 0, 5 };

	(void)state;
	if (pl == NULL)
		skip();
	wan_case("roce4", &(struct ut_spec){ .roce = true, .opcode = 0x0a, .dqpn = 0x56,
					    .tos = 0x02, .sport = 0xc003, .payload = 32 },
		 NULL, 0x02, 100);
	wan_case("roce4 outer CE", &(struct ut_spec){ .roce = true, .opcode = 0x0a, .dqpn = 0x56,
						     .tos = 0x02, .sport = 0xc003, .payload = 32 },
		 NULL, 0x03, 100);
	wan_case("roce4 outer ECT(1) over ECT(0)",
		 &(struct ut_spec){ .roce = true, .opcode = 0x0a, .dqpn = 0x56, .tos = 0x02,
				    .sport = 0xc003, .payload = 32 },
		 NULL, 0x01, 100);
	wan_case("CE over Not-ECT", &(struct ut_spec){ .sport = 1, .dport = 2 }, NULL, 0x03, 100);
	wan_case("source in the DC subnet", &(struct ut_spec){ .sport = 1, .dport = 2 }, dc_src,
		 0x00, 100);
	wan_case("roce6", &(struct ut_spec){ .family = 6, .roce = true, .opcode = 0x0a,
					    .dqpn = 0x78, .tos = 0x02, .sport = 0xc004,
					    .payload = 48 },
		 NULL, 0x03, 100);
	wan_case("udp4", &(struct ut_spec){ .sport = 7, .dport = 8, .payload = 20 }, NULL, 0x00,
		 100);
	wan_case("vni mismatch", &(struct ut_spec){ .sport = 7, .dport = 8 }, NULL, 0x00, 101);
}

/* control/p4_tables.c's martian prefixes are dataplane/martian.h's set. */
static void
test_martian_prefixes_match_martian_h(void **state)
{
	static const uint8_t probes[][2] = { { 0, 0 },	   { 0, 255 },	 { 1, 0 },     { 126, 255 },
					     { 127, 0 },   { 128, 0 },	 { 169, 253 }, { 169, 254 },
					     { 169, 255 }, { 223, 255 }, { 224, 0 },   { 239, 255 },
					     { 240, 0 },   { 255, 255 } };
	unsigned int i;

	(void)state;
	if (pl == NULL)
		skip();
	/* Through the pipeline: a DC packet to each probe either is a martian
	 * destination for both, or for neither. */
	for (i = 0; i < RTE_DIM(probes); i++) {
		struct ut_pkt p;
		struct outcome o;
		uint8_t a[4] = { probes[i][0], probes[i][1], 0, 2 };

		ut_build(&p, &(struct ut_spec){ .sport = 1, .dport = 2 });
		memcpy(p.b + p.l3_off + 16, a, 4);
		ut_ip4_fix_csum(p.b + p.l3_off);
		p4_path(dc_port, p.b, p.len, &o);
		assert_int_equal(o.reason == LS_DROP_MARTIAN_DST, martian4(a));
	}
}

/*
 * A table load that fails part way commits nothing: the running tables stay.
 * The second load starts with a changed WAN MAC and fails at a peer with an
 * IPv6 underlay (not supported in p4 mode); frames still leave with the
 * old MAC and still match the C path.
 */
static void
test_failed_load_keeps_running_tables(void **state)
{
	struct dp_conf *bad;
	struct ut_pkt p;
	char err[256] = "";

	(void)state;
	if (pl == NULL)
		skip();
	bad = malloc(sizeof(*bad));
	assert_non_null(bad);
	memcpy(bad, rt.dp, sizeof(*bad));
	bad->ports[wan_port].mac.addr_bytes[5] ^= 0x55;
	bad->peers[0].family = AF_INET6;
	assert_int_equal(p4_tables_load(ctl, rt.cfg, bad, err, sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "IPv6 underlay"));
	free(bad);
	/* What a later reload commits must not include the failed one's entries. */
	assert_int_equal(rte_swx_ctl_pipeline_commit(ctl, 1), 0);
	/* The C path runs on the old snapshot: equal bytes mean the old MAC. */
	ut_build(&p, &(struct ut_spec){ .sport = 1111, .dport = 2222, .payload = 40 });
	compare("after the failed load", dc_port, p.b, p.len);
	/* The failed load had staged the WAN port's new MAC first. */
	wan_case("after the failed load", &(struct ut_spec){ .sport = 7, .dport = 8 }, NULL, 0x00,
		 100);
}

static int
setup(void **state)
{
	char c_path[256], so[256], err[256];
	unsigned int i;

	(void)state;
	w = ut_runtime_init(&rt, "ut_p4diff", conf_text, 255);
	if (w == NULL)
		return -1;
	for (i = 0; i < rt.cfg->n_ports; i++) {
		if (rt.cfg->ports[i].role == LS_PORT_WAN)
			wan_port = i;
		else
			dc_port = i;
	}
	if (ut_runtime_publish(&rt) != 0)
		return -1;
	runtime_resolve_nexthops(&rt);
	if (ut_swx_src_dir() == NULL) {
		fprintf(stderr, "skipped: no DPDK pipeline sources (LS_DPDK_SRC), see docs/p4.md\n");
		return 0;
	}
	ut_swx_tmp(c_path, sizeof(c_path), "diff.c");
	ut_swx_tmp(so, sizeof(so), "diff.so");
	if (ut_swx_codegen(LS_P4_SPEC, c_path) != 0 || ut_swx_compile(c_path, so) != 0 ||
	    ut_swx_load(so, "diff", rt.dp->n_ports, 1, &pl) != 0)
		return -1;
	ctl = rte_swx_ctl_pipeline_create(pl);
	if (ctl == NULL)
		return -1;
	if (p4_tables_load(ctl, rt.cfg, rt.dp, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dc_to_wan),
		cmocka_unit_test(test_wan_to_dc),
		cmocka_unit_test(test_martian_prefixes_match_martian_h),
		cmocka_unit_test(test_failed_load_keeps_running_tables),
	};
	int rc;

	(void)argc;
	if (ut_eal_init(argv[0], "ut_p4diff", 256) != 0)
		return 1;
	rc = cmocka_run_group_tests(tests, setup, NULL);
	fprintf(stderr, "p4 diff: %d frames compared\n", n_compared);
	rte_swx_ctl_pipeline_free(ctl);
	rte_swx_pipeline_free(pl);
	ut_eal_fini();
	ut_swx_cleanup();
	return rc;
}
