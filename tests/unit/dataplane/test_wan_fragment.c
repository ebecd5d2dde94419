/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Regression test (was a bug): WAN -> DC decapsulation of an outer IPv4 *first fragment* (MF set,
 * offset 0) of a UDP datagram to geneve_port. parse_l4() keeps the ports
 * of a first fragment and, by design, does not check its UDP length (it
 * covers fragments still to come). dp_pipeline_wan() then only requires
 * proto UDP, first_frag and dport == geneve_port, and dp_decap() takes
 * udp_end = l4_off + UDP length from the header, unchecked: geneve_parse()
 * and parse_ip() of the inner packet read up to that end, past the frame's
 * data_len, and the packet is forwarded to the DC built from whatever the
 * mbuf buffer held there (and the RFC 6040 rewrite can write there). A
 * peer's source address is all it takes (spoofable on the WAN).
 *
 * The test puts a complete inner packet in the mbuf's tailroom, beyond
 * data_len, as a previous packet in the same buffer would leave it, and
 * sends a 50-byte first fragment that only holds the outer headers and the
 * GENEVE base header: it must be dropped, nothing sent.
 *
 * A control case shows the harness forwards a normal tunnel packet.
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

#include "control/config.h"
#include "control/runtime.h"
#include "dataplane/pipeline.h"
#include "dataplane/worker.h"
#include "ut_eal.h"
#include "ut_pkt.h"
#include "ut_runtime.h"

static const char conf_text[] =
	"[gateway]\nname = frag\n"
	"[port dc]\nrole = dc\ndev = net_null0\nmac = 02:00:00:00:01:fe\n"
	"ipv4 = 10.1.0.254/16\nneighbor = 10.1.0.1 02:00:00:00:01:01\n"
	"[port wan]\nrole = wan\ndev = net_null1\nmac = 02:00:00:00:0a:02\n"
	"ipv4 = 192.0.2.1/24\nneighbor = 192.0.2.2 02:00:00:00:0b:02\n"
	"[peer site-b]\nport = wan\nremote = 192.0.2.2\nvni = 100\nrtt = 1ms\n"
	"prefix = 10.2.0.0/16\n";

static struct ls_runtime rt;
static struct dp_worker *w;
static struct rte_mempool *pool;
static unsigned int wan_port;

/* Inner IPv4/UDP packet from site B (10.2.0.2) to a DC host (10.1.0.1). */
static uint32_t
inner_packet(uint8_t *out)
{
	struct ut_pkt p;

	ut_build(&p, &(struct ut_spec){ .family = 4, .sport = 1111, .dport = 2222,
				       .payload = 16 });
	memcpy(p.b + p.l3_off + 12, ut_ip4_dst, 4);
	memcpy(p.b + p.l3_off + 16, ut_ip4_src, 4);
	ut_ip4_fix_csum(p.b + p.l3_off);
	memcpy(out, p.b + p.l3_off, p.ip_len);
	return p.ip_len;
}

/* Ethernet / IPv4 (frag) / UDP (udp_len) / GENEVE base header toward the WAN port. */
static uint32_t
outer_headers(uint8_t *f, uint16_t ip_payload, uint16_t frag, uint16_t udp_len)
{
	memcpy(f, "\x02\x00\x00\x00\x0a\x02\x02\x00\x00\x00\x0b\x02", 12);
	ut_put16(f + 12, UT_ET_IPV4);
	memset(f + 14, 0, 20);
	f[14] = 0x45;
	ut_put16(f + 16, (uint16_t)(20 + ip_payload));
	ut_put16(f + 20, frag);
	f[22] = 64;
	f[23] = UT_PROTO_UDP;
	memcpy(f + 26, "\xc0\x00\x02\x02", 4);
	memcpy(f + 30, "\xc0\x00\x02\x01", 4);
	ut_ip4_fix_csum(f + 14);
	ut_put16(f + 34, 0xc000);
	ut_put16(f + 36, 6081);
	ut_put16(f + 38, udp_len);
	ut_put16(f + 40, 0);
	memset(f + 42, 0, 8);
	ut_put16(f + 44, UT_ET_IPV4);
	f[48] = 100; /* VNI 100 in the low byte */
	f[46] = 0;
	f[47] = 0;
	return 50;
}

static unsigned int
run(struct rte_mbuf *m, struct dp_tx *tx, uint64_t *drops)
{
	struct dp_clock clk = { .tsc = 1000, .ns = 1000 };
	unsigned int r;

	memset(tx, 0, sizeof(*tx));
	memset(&w->counters, 0, sizeof(w->counters));
	dp_pipeline_wan(w, rt.dp, (uint16_t)wan_port, &m, 1, &clk, tx);
	*drops = 0;
	for (r = 1; r < LS_DROP_MAX; r++)
		*drops += w->counters.drops[r];
	return tx->n[rt.dp->dc_port];
}

static void
test_control_whole_packet(void **state)
{
	static struct dp_tx tx;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t inner[256];
	uint32_t ilen = inner_packet(inner);
	uint8_t *f;
	uint64_t drops;

	(void)state;
	f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(50 + ilen));
	outer_headers(f, (uint16_t)(8 + 8 + ilen), 0x4000, (uint16_t)(8 + 8 + ilen));
	memcpy(f + 50, inner, ilen);
	assert_int_equal(run(m, &tx, &drops), 1);
	assert_int_equal(drops, 0);
	m = tx.pkts[rt.dp->dc_port][0];
	assert_int_equal(rte_pktmbuf_pkt_len(m), 14 + ilen);
	assert_memory_equal(rte_pktmbuf_mtod_offset(m, uint8_t *, 14), inner, ilen);
	rte_pktmbuf_free(m);
}

static void
test_first_fragment_reads_past_frame(void **state)
{
	static struct dp_tx tx;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t inner[256];
	uint32_t ilen = inner_packet(inner);
	uint8_t *f;
	uint64_t drops;
	unsigned int sent;

	(void)state;
	/* The frame: outer headers and the GENEVE base header only, MF set. */
	f = (uint8_t *)rte_pktmbuf_append(m, 50);
	outer_headers(f, 8 + 8, 0x2000, (uint16_t)(8 + 8 + ilen));
	/* Beyond data_len: an inner packet left in the buffer. */
	assert_true(rte_pktmbuf_tailroom(m) >= ilen);
	memcpy(f + 50, inner, ilen);
	sent = run(m, &tx, &drops);
	if (sent != 0) {
		struct rte_mbuf *o = tx.pkts[rt.dp->dc_port][0];

		fprintf(stderr,
			"BUG: a 50-byte first fragment was decapsulated and a %u-byte frame sent "
			"to the DC; the inner header was read from beyond the frame "
			"(tunnel class %llu, peer rx bytes %llu)\n",
			rte_pktmbuf_pkt_len(o),
			(unsigned long long)w->counters.cls[DP_CLASS_TUNNEL],
			(unsigned long long)w->counters.peer[0].rx_bytes);
		rte_pktmbuf_free(o);
	}
	assert_int_equal(sent, 0);
	assert_int_equal(drops, 1);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_control_whole_packet),
		cmocka_unit_test(test_first_fragment_reads_past_frame),
	};
	unsigned int i;
	int rc;

	(void)argc;
	if (ut_eal_init(argv[0], "ut_wanfrag", 256) != 0)
		return 1;
	w = ut_runtime_init(&rt, "ut_wanfrag", conf_text, 255);
	if (w == NULL)
		return 1;
	pool = rt.pool;
	for (i = 0; i < rt.cfg->n_ports; i++)
		if (rt.cfg->ports[i].role == LS_PORT_WAN)
			wan_port = i;
	if (ut_runtime_publish(&rt) != 0) /* installs the static neighbours */
		return 1;
	rc = cmocka_run_group_tests_name("known_bug_wan_fragment", tests, NULL, NULL);
	ut_eal_fini();
	return rc;
}
