/* SPDX-License-Identifier: BSD-3-Clause */
#include "ut_p4.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dataplane/drop_reason.h"
#include "dataplane/p4_stage.h"
#include "dataplane/pipeline.h"
#include "../dataplane/ut_runtime.h"

int
ut_p4_init(struct ut_p4 *t, const char *name, const char *text, unsigned int mbufs)
{
	unsigned int i;

	t->w = ut_runtime_init(&t->rt, name, text, mbufs);
	if (t->w == NULL)
		return -1;
	for (i = 0; i < t->rt.cfg->n_ports; i++) {
		if (t->rt.cfg->ports[i].role == LS_PORT_WAN)
			t->wan_port = i;
		else
			t->dc_port = i;
	}
	return 0;
}

void
ut_p4_run(struct ut_p4 *t, bool p4, unsigned int port, const uint8_t *f, uint32_t len,
	  struct ut_p4_outcome *o)
{
	static struct dp_tx tx;
	struct dp_clock clk = { .tsc = 1000, .ns = 1000 };
	const struct dp_conf *dp = t->rt.dp;
	struct dp_worker *w = t->w;
	struct rte_mbuf *m = rte_pktmbuf_alloc(t->rt.pool), *pm;
	unsigned int p, r, n = 0;

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), f, len);
	memset(&tx, 0, sizeof(tx));
	memset(&w->counters, 0, sizeof(w->counters));
	if (p4)
		dp_p4_burst(w, dp, dp->p4[0], (uint16_t)port, &m, 1, &clk, &tx);
	else if (port == t->dc_port)
		dp_pipeline_dc(w, dp, (uint16_t)port, &m, 1, &clk, &tx);
	else
		dp_pipeline_wan(w, dp, (uint16_t)port, &m, 1, &clk, &tx);
	assert_int_equal(w->counters.port[port].rx_pkts, 1);
	assert_int_equal(w->counters.port[port].rx_bytes, len);
	o->port = -1;
	o->reason = 0;
	for (r = 1; r < LS_DROP_MAX; r++)
		if (w->counters.drops[r] != 0) {
			o->reason = r;
			n++;
		}
	o->punts = 0;
	while (rte_ring_dequeue(w->punt, (void **)&pm) == 0) {
		o->punts++;
		rte_pktmbuf_free(pm);
	}
	if (o->reason == 0)
		n += (unsigned int)o->punts;
	for (p = 0; p < dp->n_ports; p++) {
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

/* A drop reason's name; the P4 path's reason is a byte of its metadata. */
static const char *
ut_p4_reason_name(unsigned int reason)
{
	return ls_drop_reason_names[reason < LS_DROP_MAX ? reason : 0];
}

void
ut_p4_same(const char *name, const struct ut_p4_outcome *c, const struct ut_p4_outcome *p)
{
	uint32_t i;

	if (c->port != p->port || c->reason != p->reason || c->punts != p->punts) {
		fprintf(stderr, "%s: C: port %d reason %s punts %u; p4: port %d reason %s punts %u\n",
			name, c->port, ut_p4_reason_name(c->reason), (unsigned int)c->punts,
			p->port, ut_p4_reason_name(p->reason), (unsigned int)p->punts);
		fail();
	}
	if (c->port < 0)
		return;
	if (c->len != p->len) {
		fprintf(stderr, "%s: C sent %u bytes, p4 %u\n", name, c->len, p->len);
		fail();
	}
	for (i = 0; i < c->len; i++)
		if (c->b[i] != p->b[i]) {
			fprintf(stderr, "%s: byte %u: C 0x%02x, p4 0x%02x\n", name, i, c->b[i],
				p->b[i]);
			fail();
		}
}

static const uint8_t ut_p4_no_route[4] = { 10, 3, 0, 2 };
static const uint8_t ut_p4_loopback[4] = { 127, 0, 0, 1 };

const struct ut_p4_dc_case ut_p4_dc_common[] = {
	{ "roce4 data", { .roce = true, .opcode = 0x0a, .dqpn = 0x12, .tos = 0x02,
			  .sport = 0xc001, .payload = 32 } },
	{ "roce4 ack", { .roce = true, .opcode = 0x11, .dqpn = 0x12, .sport = 0xc001 } },
	{ "roce4 cnp", { .roce = true, .opcode = 0x81, .dqpn = 0x12, .sport = 0xc001,
			 .payload = 16 } },
	{ "udp4", { .sport = 1111, .dport = 2222, .payload = 40 } },
	{ "roce6 data", { .family = 6, .roce = true, .opcode = 0x0a, .dqpn = 0x34, .tos = 0x01,
			  .sport = 0xc002, .payload = 64 } },
	{ "ttl 1", { .ttl = 1, .sport = 1, .dport = 2 } },
	{ "no route", { .sport = 1, .dport = 2 }, ut_p4_no_route },
	{ "martian destination", { .sport = 1, .dport = 2 }, ut_p4_loopback },
	{ "vlan mismatch", { .tagged = true, .tci = 7, .sport = 1, .dport = 2 } },
};
const unsigned int ut_p4_n_dc_common = sizeof(ut_p4_dc_common) / sizeof(ut_p4_dc_common[0]);

static const uint8_t ut_p4_site_c4[4] = { 10, 4, 0, 2 };
static const uint8_t ut_p4_site_c6[16] = { 0xfd, 0x00, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };

/* The WAN port's MTU is 1500: 1440 bytes of IP fit behind 56, not behind 76. */
const struct ut_p4_dc_case ut_p4_dc6_common[] = {
	{ "underlay6 roce4 data", { .roce = true, .opcode = 0x0a, .dqpn = 0x13, .tos = 0x02,
				    .sport = 0xc005, .payload = 32 }, ut_p4_site_c4, NULL },
	{ "underlay6 roce6 data", { .family = 6, .roce = true, .opcode = 0x0a, .dqpn = 0x35,
				    .tos = 0x01, .sport = 0xc006, .payload = 64 }, NULL,
	  ut_p4_site_c6 },
	{ "underlay6 udp4 ECT(0)", { .tos = 0xb8 | 0x02, .sport = 1111, .dport = 2222,
				     .payload = 40 }, ut_p4_site_c4, NULL },
	{ "underlay6 hop limit 1", { .family = 6, .ttl = 1, .sport = 1, .dport = 2 }, NULL,
	  ut_p4_site_c6 },
	{ "underlay6 mtu", { .sport = 1, .dport = 2, .payload = 1440 - 28 }, ut_p4_site_c4, NULL },
};
const unsigned int ut_p4_n_dc6_common = sizeof(ut_p4_dc6_common) / sizeof(ut_p4_dc6_common[0]);

void
ut_p4_dc_run(const struct ut_p4 *t, const struct ut_p4_dc_case *cases, unsigned int n,
	     ut_p4_compare_fn *compare)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct ut_pkt p;

		ut_build(&p, &cases[i].spec);
		if (cases[i].dst4 != NULL) {
			memcpy(p.b + p.l3_off + 16, cases[i].dst4, 4);
			ut_ip4_fix_csum(p.b + p.l3_off);
		}
		if (cases[i].dst6 != NULL)
			memcpy(p.b + p.l3_off + 24, cases[i].dst6, 16);
		compare(cases[i].name, t->dc_port, p.b, p.len);
	}
}

/* From UDP's destination port on: GENEVE, the Longspan option (sequence 1), the inner IP. */
static void
ut_p4_geneve(uint8_t *udp, const uint8_t *ip, uint32_t n, uint32_t vni)
{
	uint8_t *g = udp + 8, *opt = g + 8;

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
}

uint32_t
ut_p4_wan_frame(uint8_t *f, const uint8_t *ip, uint32_t n, uint8_t otos, uint32_t vni)
{
	uint8_t *o = f + 14, *udp = o + 20;

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
	ut_p4_geneve(udp, ip, n, vni);
	return 14 + 56 + n;
}

static const uint8_t ut_p4_dc_host5[4] = { 10, 1, 0, 5 };
static const uint8_t ut_p4_site_b4[4] = { 10, 2, 0, 2 };

const struct ut_p4_wan_case ut_p4_wan6_common[] = {
	{ "underlay6 wan roce4", { .roce = true, .opcode = 0x0a, .dqpn = 0x57, .tos = 0x02,
				   .sport = 0xc007, .payload = 32 }, NULL, 0x02, 300, true },
	{ "underlay6 wan roce4 outer CE", { .roce = true, .opcode = 0x0a, .dqpn = 0x57,
					    .tos = 0x02, .sport = 0xc007, .payload = 32 },
	  NULL, 0x03, 300, true },
	{ "underlay6 wan roce6 ECT(1) over ECT(0)", { .family = 6, .roce = true,
						      .opcode = 0x0a, .dqpn = 0x79, .tos = 0x02,
						      .sport = 0xc008, .payload = 48 },
	  NULL, 0x01, 300, true },
	{ "underlay6 wan CE over Not-ECT", { .sport = 1, .dport = 2 }, NULL, 0x03, 300, true },
	{ "underlay6 wan source in the DC subnet", { .sport = 1, .dport = 2 }, ut_p4_dc_host5,
	  0x00, 300, true },
	{ "underlay6 wan site B's source", { .sport = 1, .dport = 2 }, ut_p4_site_b4, 0x00, 300,
	  true },
	{ "underlay6 wan vni mismatch", { .sport = 7, .dport = 8 }, NULL, 0x00, 301, true },
};
const unsigned int ut_p4_n_wan6_common = sizeof(ut_p4_wan6_common) / sizeof(ut_p4_wan6_common[0]);

uint32_t
ut_p4_wan6_frame(uint8_t *f, const uint8_t *ip, uint32_t n, uint8_t otos, uint32_t vni)
{
	static const uint8_t src[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3 };
	static const uint8_t dst[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	uint8_t *o = f + 14, *udp = o + 40;

	memcpy(f, "\x02\x00\x00\x00\x0a\x02\x02\x00\x00\x00\x0c\x02", 12);
	ut_put16(f + 12, UT_ET_IPV6);
	memset(o, 0, 76);
	ut_put32(o, 6u << 28 | (uint32_t)otos << 20 | 0x12345);
	ut_put16(o + 4, (uint16_t)(36 + n));
	o[6] = UT_PROTO_UDP;
	o[7] = 64;
	memcpy(o + 8, src, 16);
	memcpy(o + 24, dst, 16);
	ut_put16(udp, 0xc321);
	ut_p4_geneve(udp, ip, n, vni);
	/* A zero UDP checksum over IPv6 is dropped (RFC 6935): a real one. */
	((struct rte_udp_hdr *)udp)->dgram_cksum =
		rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)o, udp);
	return 14 + 76 + n;
}

void
ut_p4_wan_run(const struct ut_p4 *t, const struct ut_p4_wan_case *cases, unsigned int n,
	      ut_p4_compare_fn *compare)
{
	static const uint8_t b4[4] = { 10, 2, 0, 2 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct ut_p4_wan_case *c = &cases[i];
		uint8_t f[UT_PKT_MAX];
		struct ut_pkt p;
		uint8_t *ip;

		ut_build(&p, &c->spec);
		ip = p.b + p.l3_off;
		if (c->spec.family != 6) {
			memcpy(ip + 12,
			       c->src4 != NULL ? c->src4 : c->underlay6 ? ut_p4_site_c4 : b4, 4);
			memcpy(ip + 16, ut_ip4_src, 4);
			ut_ip4_fix_csum(ip);
		} else {
			memcpy(ip + 8, c->underlay6 ? ut_p4_site_c6 : ut_ip6_dst, 16);
			memcpy(ip + 24, ut_ip6_src, 16);
		}
		compare(c->name, t->wan_port, f,
			c->underlay6 ? ut_p4_wan6_frame(f, ip, p.ip_len, c->otos, c->vni) :
				       ut_p4_wan_frame(f, ip, p.ip_len, c->otos, c->vni));
	}
}
