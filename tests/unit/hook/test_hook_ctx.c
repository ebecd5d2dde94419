/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The workers' side of hooks (dataplane/hook.c): contexts filled from
 * packets agree with the dataplane's own parser and with the flow table's
 * hash of the flow key built as the pipeline builds it; truncated packets
 * are never read past; dp_hooks_run() calls every hook of a point once per
 * packet and counts calls, errors and cycles. No EAL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "dataplane/hook.h"
#include "dataplane/parse.h"
#include "../dataplane/ut_pkt.h"

/* The flow table key of a packet, as dataplane/pipeline.c builds it. */
static void
pipeline_key(const uint8_t *ip, bool v4, uint16_t sport, uint32_t dqpn, struct flow_key *k)
{
	memset(k, 0, sizeof(*k));
	k->family = v4 ? AF_INET : AF_INET6;
	memcpy(k->src, ip + (v4 ? 12 : 8), v4 ? 4 : 16);
	memcpy(k->dst, ip + (v4 ? 16 : 24), v4 ? 4 : 16);
	k->sport = sport;
	k->dqpn = dqpn;
}

static uint32_t
pipeline_hash(const uint8_t *ip, bool v4, uint16_t sport, uint32_t dqpn)
{
	struct flow_key k;

	pipeline_key(ip, v4, sport, dqpn, &k);
	return flow_table_hash(&k);
}

static struct dp_hook_io io; /* large: not on the stack */

/* io as a worker on lcore 3 holds it at the start of a poll at TSC 1000, 2000 ns. */
static void
io_start(void)
{
	dp_hook_io_init(&io, 3);
	io.tsc = 1000;
	io.now_ns = 2000;
}

/* The context of point p once flushed (the clock written), without hooks to run. */
static const struct ls_hook_ctx *
flushed(enum ls_hook_point p)
{
	static const struct dp_hooks none; /* no hooks at any point */

	assert_int_equal(io.n[p], 1);
	dp_hook_flush(&io, &none, p);
	assert_int_equal(io.n[p], 0);
	return &io.ctx[p][0];
}

/*
 * The context the pipeline fills from the parser's metadata and the flow
 * key (dp_hook_ctx_roce()) is the one dp_hook_rx() builds from the bytes,
 * byte for byte, at both rx points; at the tx point of the same direction,
 * the context copied from the rx one (dp_hook_tx_from_rx()) is the one
 * dp_hook_tx() parses from the packet, as sent and when the gateway marked
 * it CE.
 */
static void
check_roce_fill(const struct ut_pkt *p, const struct pkt_meta *m, bool v4)
{
	static const enum ls_hook_point rx[] = { LS_HOOK_DC_RX, LS_HOOK_WAN_RX };
	static const enum ls_hook_point tx[] = { LS_HOOK_WAN_TX, LS_HOOK_DC_TX };
	struct dp_hook_at at = { .port = 1, .peer = 2, .frame_bytes = 70000 };
	struct dp_hook_at at_tx = { .port = 0, .peer = 2, .frame_bytes = 90 };
	uint8_t ip[256];
	struct ls_hook_ctx c, parsed;
	const struct ls_hook_ctx *rc;
	struct flow_key k;
	unsigned int i, mark;
	uint32_t h;

	assert_true(m->ip_len <= sizeof(ip));
	memcpy(ip, p->b + p->l3_off, m->ip_len);
	pipeline_key(ip, v4, m->sport, m->dqpn, &k);
	h = flow_table_hash(&k);
	for (i = 0; i < 2; i++) {
		io_start();
		dp_hook_rx(&io, NULL, rx[i], &at, ip, m->ip_len, h, 17);
		memcpy(&c, flushed(rx[i]), sizeof(c));
		io_start();
		rc = dp_hook_rx_roce(&io, NULL, rx[i], &at, m, p->b + m->bth_off, &k, h, 17);
		assert_ptr_equal(rc, &io.ctx[rx[i]][0]);
		assert_memory_equal(&c, flushed(rx[i]), sizeof(c));
		assert_int_equal(c.abi_version, LS_HOOK_ABI_VERSION);
		assert_int_equal(c.hook_point, rx[i]);
		assert_int_equal(c.lcore, 3);
		assert_int_equal(c.tsc, 1000);
		assert_int_equal(c.now_ns, 2000);
		assert_int_equal(c.direction, i == 0 ? LS_HOOK_DIR_DC_TO_WAN : LS_HOOK_DIR_WAN_TO_DC);
		assert_int_equal(c.flow_slot, 17);

		for (mark = 0; mark < 2; mark++) {
			if (mark) /* CE written by the gateway between the points */
				ip[1] = v4 ? (uint8_t)(ip[1] | 3) : (uint8_t)(ip[1] | 0x30);
			io_start();
			dp_hook_tx(&io, NULL, tx[i], &at_tx, ip, m->ip_len, LS_HOOK_V_FORWARDED, 9,
				   5, h, 17);
			memcpy(&parsed, flushed(tx[i]), sizeof(parsed));
			assert_int_equal(parsed.ecn, mark ? 3 : m->tos & 3);
			assert_int_equal(parsed.hook_point, tx[i]);
			assert_int_equal(parsed.sojourn_ns, 5);
			/* The rx context of the same burst, then the tx one from it. */
			io_start();
			rc = dp_hook_rx_roce(&io, NULL, rx[i], &at, m, p->b + m->bth_off, &k, h, 17);
			dp_hook_tx_from_rx(&io, NULL, tx[i], rc, &at_tx, ip, LS_HOOK_V_FORWARDED, 9,
					   5);
			assert_memory_equal(&parsed, flushed(tx[i]), sizeof(parsed));
		}
		memcpy(ip, p->b + p->l3_off, m->ip_len);
	}
}

static void
check_against_parser(const struct ut_spec *s)
{
	struct ut_pkt p;
	struct pkt_meta m;
	struct ls_hook_ctx c;
	uint16_t et;
	const uint8_t *ip;

	ut_build(&p, s);
	memset(&m, 0, sizeof(m));
	assert_int_equal(parse_l2(p.b, p.len, 0, &m, &et), LS_DROP_NONE);
	assert_int_equal(parse_ip(p.b, p.len, m.l3_off, et, &m), LS_DROP_NONE);
	ip = p.b + p.l3_off;
	dp_hook_ctx_init(&c, LS_HOOK_DC_RX, 3, 1000, 2000);
	assert_true(dp_hook_ctx_ip(&c, ip, p.ip_len, 0));
	assert_int_equal(c.abi_version, LS_HOOK_ABI_VERSION);
	assert_int_equal(c.lcore, 3);
	assert_int_equal(c.now_ns, 2000);
	assert_int_equal(c.peer, LS_HOOK_NO_PEER);
	assert_int_equal(c.flags & LS_HOOK_F_ROCE, LS_HOOK_F_ROCE);
	assert_int_equal(c.family, s->family == 6 ? LS_HOOK_FAMILY_IP6 : LS_HOOK_FAMILY_IP4);
	assert_int_equal(c.proto, m.proto);
	assert_int_equal(c.dscp, m.tos >> 2);
	assert_int_equal(c.ecn, m.tos & 3);
	assert_int_equal(c.sport, m.sport);
	assert_int_equal(c.dport, 4791);
	assert_int_equal(c.bth_opcode, m.opcode);
	assert_int_equal(c.dest_qp, m.dqpn);
	assert_int_equal(c.psn, m.psn);
	assert_int_equal(c.ip_bytes, m.ip_len);
	assert_memory_equal(c.src, ip + (s->family == 6 ? 8 : 12), s->family == 6 ? 16 : 4);
	assert_int_equal(c.hash, pipeline_hash(ip, s->family != 6, m.sport, m.dqpn));
	assert_int_equal(c.hash, dp_hook_ctx_hash(&c));
	check_roce_fill(&p, &m, s->family != 6);
}

static void
test_ctx_matches_parser(void **state)
{
	struct ut_spec s = {
		.tos = 26 << 2 | 2,
		.sport = 49153,
		.roce = true,
		.opcode = 0x0a,
		.dqpn = 0x123456,
		.psn = 0x654321,
		.payload = 64,
	};

	(void)state;
	check_against_parser(&s);
	s.family = 6;
	s.tos = 46 << 2 | 3;
	check_against_parser(&s);
	s.opcode = 0x11; /* ACK: AETH */
	s.syndrome = 0x60;
	check_against_parser(&s);
}

static void
test_ctx_aeth_and_hash_given(void **state)
{
	struct ut_spec s = { .family = 6, .sport = 7, .roce = true, .opcode = 0x11,
			     .syndrome = 0x61, .dqpn = 9 };
	struct ut_pkt p;
	struct ls_hook_ctx c;

	(void)state;
	ut_build(&p, &s);
	p.b[p.bth_off + 13] = 0x01; /* MSN 0x010203 */
	p.b[p.bth_off + 14] = 0x02;
	p.b[p.bth_off + 15] = 0x03;
	dp_hook_ctx_init(&c, LS_HOOK_WAN_RX, 0, 0, 0);
	assert_true(dp_hook_ctx_ip(&c, p.b + p.l3_off, p.ip_len, 77));
	assert_int_equal(c.flags, LS_HOOK_F_ROCE | LS_HOOK_F_AETH);
	assert_int_equal(c.aeth_syndrome, 0x61);
	assert_int_equal(c.aeth_msn, 0x010203);
	assert_int_equal(c.hash, 77); /* the caller's hash is kept */
}

static void
test_ctx_not_roce(void **state)
{
	struct ut_spec s = { .sport = 1000, .dport = 53, .payload = 20 };
	struct ut_pkt p;
	struct ls_hook_ctx c;

	(void)state;
	ut_build(&p, &s);
	dp_hook_ctx_init(&c, LS_HOOK_DC_RX, 0, 0, 0);
	assert_false(dp_hook_ctx_ip(&c, p.b + p.l3_off, p.ip_len, 0));
	assert_int_equal(c.flags, 0);
	assert_int_equal(c.dport, 53);
	assert_int_equal(c.family, LS_HOOK_FAMILY_IP4);
	assert_true(c.hash != 0);
	/* A non-first fragment: no UDP header to read. */
	s.roce = true;
	s.dport = 0;
	s.frag = 100;
	ut_build(&p, &s);
	assert_false(dp_hook_ctx_ip(&c, p.b + p.l3_off, p.ip_len, 0));
	assert_int_equal(c.sport, 0);
	/* Not IP. */
	memset(p.b, 0, 64);
	assert_false(dp_hook_ctx_ip(&c, p.b, 64, 0));
}

/* Every cut of a RoCE ACK packet: nothing read past the cut (ASan), RoCE only when whole. */
static void
test_ctx_truncated(void **state)
{
	struct ut_spec s = { .sport = 5, .roce = true, .opcode = 0x11, .dqpn = 3 };
	struct ut_pkt p;
	struct ls_hook_ctx c;
	uint32_t len;

	(void)state;
	ut_build(&p, &s);
	for (len = 0; len <= p.ip_len; len++) {
		uint8_t *b = ut_exact_copy(p.b + p.l3_off, len);
		bool roce;

		assert_non_null(b);
		dp_hook_ctx_init(&c, LS_HOOK_DC_RX, 0, 0, 0);
		roce = dp_hook_ctx_ip(&c, b, len, 0);
		assert_int_equal(roce, len >= 20 + 8 + 12);
		assert_int_equal((c.flags & LS_HOOK_F_AETH) != 0, len >= 20 + 8 + 12 + 4);
		assert_true(c.ip_bytes <= len);
		free(b);
	}
}

static unsigned int calls_a, calls_b;

static uint64_t
prog_a(void *ctx)
{
	calls_a++;
	return ((struct ls_hook_ctx *)ctx)->psn == 3; /* an error for PSN 3 */
}

static uint64_t
prog_b(void *ctx)
{
	(void)ctx;
	calls_b++;
	return 0;
}

static void
test_hooks_run(void **state)
{
	struct dp_hooks h;
	struct dp_hook_stats st[DP_HOOKS_MAX];
	struct ls_hook_ctx c[8];
	unsigned int i;

	(void)state;
	memset(&h, 0, sizeof(h));
	memset(st, 0, sizeof(st));
	h.n[LS_HOOK_DC_RX] = 2;
	h.at[LS_HOOK_DC_RX][0] = (struct dp_hook){ .func = prog_a, .id = 5 };
	static struct ls_hook_flow_rec slots[16];

	h.at[LS_HOOK_DC_RX][1] = (struct dp_hook){ .func = prog_b, .id = 1,
						  .flows = (const uint8_t *)slots, .flow_mask = 15 };
	assert_false(dp_hooks_at(NULL, LS_HOOK_DC_RX));
	assert_false(dp_hooks_at(&h, LS_HOOK_WAN_TX));
	assert_true(dp_hooks_at(&h, LS_HOOK_DC_RX));
	for (i = 0; i < 8; i++) {
		dp_hook_ctx_init(&c[i], LS_HOOK_DC_RX, 0, 0, 0);
		c[i].psn = i;
	}
	dp_hooks_run(&h, LS_HOOK_DC_RX, c, 8, st);
	dp_hooks_run(&h, LS_HOOK_DC_RX, c, 3, st);
	assert_int_equal(calls_a, 11);
	assert_int_equal(calls_b, 11);
	assert_int_equal(st[5].calls, 11);
	assert_int_equal(st[5].errors, 1);
	assert_int_equal(st[1].calls, 11);
	assert_int_equal(st[1].errors, 0);
	assert_true(st[5].cycles > 0 && st[1].cycles > 0);
	assert_int_equal(st[0].calls, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctx_matches_parser),
		cmocka_unit_test(test_ctx_aeth_and_hash_given),
		cmocka_unit_test(test_ctx_not_roce),
		cmocka_unit_test(test_ctx_truncated),
		cmocka_unit_test(test_hooks_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
