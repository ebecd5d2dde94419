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
 *   - the Longspan option's transmit timestamp (8 bytes): 0 in p4 mode;
 *   - over an IPv6 underlay, the outer UDP checksum: 0 from the program,
 *     which cannot sum the payload (p4 mode's C stage writes it).
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
#include "dataplane/worker.h"
#include "../dataplane/ut_eal.h"
#include "../dataplane/ut_pkt.h"
#include "../dataplane/ut_runtime.h"
#include "ut_p4.h"
#include "ut_swx.h"

#ifndef LS_P4_SPEC
#error "LS_P4_SPEC: path of dataplane/p4/longspan.spec"
#endif

static const char conf_text[] = "[gateway]\nname = p4diff\n" UT_P4_CONF_SITES;

static struct ut_p4 t;
static struct rte_swx_pipeline *pl;
static struct rte_swx_ctl_pipeline *ctl;
static int n_compared;

/* The spec alone on the SWX engine: its verdict is in front of the frame. */
static void
p4_path(unsigned int port, const uint8_t *f, uint32_t len, struct ut_p4_outcome *o)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(t.rt.pool), *out = NULL;
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
	o->punts = 0;
	o->len = rte_pktmbuf_pkt_len(out) - 12;
	memcpy(o->b, s + 12, o->len);
	rte_pktmbuf_free(out);
}

/*
 * The bytes of a frame to the WAN port that the paths may write differently:
 * the Longspan option's timestamp and, over IPv6, the outer UDP checksum.
 */
static void
wan_mask(struct ut_p4_outcome *o)
{
	uint32_t l2 = ut_get16(o->b + 12) == UT_ET_VLAN ? 18 : 14;
	bool v6 = ut_get16(o->b + l2 - 2) == UT_ET_IPV6;
	uint32_t udp = l2 + (v6 ? 40 : 20);

	memset(o->b + udp + 8 + 8 + 12, 0, 8);
	if (v6)
		memset(o->b + udp + 6, 0, 2);
}

/* The frame through both paths, but for wan_mask()'s bytes. */
static void
compare(const char *name, unsigned int port, const uint8_t *f, uint32_t len)
{
	struct ut_p4_outcome c, p;

	ut_p4_run(&t, false, port, f, len, &c);
	p4_path(port, f, len, &p);
	if (c.port == (int)t.wan_port && p.port == c.port) {
		wan_mask(&c);
		wan_mask(&p);
	}
	ut_p4_same(name, &c, &p);
	n_compared++;
}

static void
test_dc_to_wan(void **state)
{
	static const struct ut_p4_dc_case more[] = {
		{ "hop limit 1", { .family = 6, .ttl = 1, .sport = 1, .dport = 2 } },
	};

	(void)state;
	if (pl == NULL)
		skip();
	ut_p4_dc_run(&t, ut_p4_dc_common, ut_p4_n_dc_common, compare);
	ut_p4_dc_run(&t, more, RTE_DIM(more), compare);
	ut_p4_dc_run(&t, ut_p4_dc6_common, ut_p4_n_dc6_common, compare);
}

static void
test_wan_to_dc(void **state)
{
	static const uint8_t dc_src[4] = { 10, 1, 0, 5 };
	static const struct ut_p4_wan_case cases[] = {
		{ "roce4", { .roce = true, .opcode = 0x0a, .dqpn = 0x56, .tos = 0x02,
			     .sport = 0xc003, .payload = 32 }, NULL, 0x02, 100 },
		{ "roce4 outer CE", { .roce = true, .opcode = 0x0a, .dqpn = 0x56, .tos = 0x02,
				      .sport = 0xc003, .payload = 32 }, NULL, 0x03, 100 },
		{ "roce4 outer ECT(1) over ECT(0)", { .roce = true, .opcode = 0x0a, .dqpn = 0x56,
						      .tos = 0x02, .sport = 0xc003,
						      .payload = 32 }, NULL, 0x01, 100 },
		{ "CE over Not-ECT", { .sport = 1, .dport = 2 }, NULL, 0x03, 100 },
		{ "source in the DC subnet", { .sport = 1, .dport = 2 }, dc_src, 0x00, 100 },
		{ "roce6", { .family = 6, .roce = true, .opcode = 0x0a, .dqpn = 0x78, .tos = 0x02,
			     .sport = 0xc004, .payload = 48 }, NULL, 0x03, 100 },
		{ "udp4", { .sport = 7, .dport = 8, .payload = 20 }, NULL, 0x00, 100 },
		{ "vni mismatch", { .sport = 7, .dport = 8 }, NULL, 0x00, 101 },
	};

	(void)state;
	if (pl == NULL)
		skip();
	ut_p4_wan_run(&t, cases, RTE_DIM(cases), compare);
	ut_p4_wan_run(&t, ut_p4_wan6_common, ut_p4_n_wan6_common, compare);
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
		struct ut_p4_outcome o;
		uint8_t a[4] = { probes[i][0], probes[i][1], 0, 2 };

		ut_build(&p, &(struct ut_spec){ .sport = 1, .dport = 2 });
		memcpy(p.b + p.l3_off + 16, a, 4);
		ut_ip4_fix_csum(p.b + p.l3_off);
		p4_path(t.dc_port, p.b, p.len, &o);
		assert_int_equal(o.reason == LS_DROP_MARTIAN_DST, martian4(a));
	}
}

/*
 * A table load that fails part way commits nothing: the running tables stay.
 * The second load starts with a changed WAN MAC and fails at a peer with
 * neither an IPv4 nor an IPv6 underlay; frames still leave with the old MAC
 * and still match the C path.
 */
static void
test_failed_load_keeps_running_tables(void **state)
{
	static const struct ut_p4_wan_case after[] = {
		{ "after the failed load", { .sport = 7, .dport = 8 }, NULL, 0x00, 100 },
	};
	struct dp_conf *bad;
	struct ut_pkt p;
	char err[256] = "";

	(void)state;
	if (pl == NULL)
		skip();
	bad = malloc(sizeof(*bad));
	assert_non_null(bad);
	memcpy(bad, t.rt.dp, sizeof(*bad));
	bad->ports[t.wan_port].mac.addr_bytes[5] ^= 0x55;
	bad->peers[1].family = AF_UNSPEC;
	assert_int_equal(p4_tables_load(ctl, t.rt.cfg, bad, NULL, err, sizeof(err)), -EAFNOSUPPORT);
	assert_non_null(strstr(err, "peer 1"));
	free(bad);
	/* What a later reload commits must not include the failed one's entries. */
	assert_int_equal(rte_swx_ctl_pipeline_commit(ctl, 1), 0);
	/* The C path runs on the old snapshot: equal bytes mean the old MAC. */
	ut_build(&p, &(struct ut_spec){ .sport = 1111, .dport = 2222, .payload = 40 });
	compare("after the failed load", t.dc_port, p.b, p.len);
	/* The failed load had staged the WAN port's new MAC first. */
	ut_p4_wan_run(&t, after, RTE_DIM(after), compare);
}

static int
setup(void **state)
{
	char c_path[256], so[256], err[256];

	(void)state;
	if (ut_p4_init(&t, "ut_p4diff", conf_text, 255) != 0 || ut_runtime_publish(&t.rt) != 0)
		return -1;
	runtime_resolve_nexthops(&t.rt);
	if (ut_swx_src_dir() == NULL) {
		fprintf(stderr, "skipped: no DPDK pipeline sources (LS_DPDK_SRC), see docs/p4.md\n");
		return 0;
	}
	ut_swx_tmp(c_path, sizeof(c_path), "diff.c");
	ut_swx_tmp(so, sizeof(so), "diff.so");
	if (ut_swx_codegen(LS_P4_SPEC, c_path) != 0 || ut_swx_compile(c_path, so) != 0 ||
	    ut_swx_load(so, "diff", t.rt.dp->n_ports, 1, &pl) != 0)
		return -1;
	ctl = rte_swx_ctl_pipeline_create(pl);
	if (ctl == NULL)
		return -1;
	if (p4_tables_load(ctl, t.rt.cfg, t.rt.dp, NULL, err, sizeof(err)) != 0) {
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
