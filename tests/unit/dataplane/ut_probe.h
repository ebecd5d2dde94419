/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_UT_PROBE_H
#define LONGSPAN_UT_PROBE_H

/*
 * A path probe from the peer as docs/wire-format.md ("Path measurement")
 * describes it, built from the text rather than from probe.c: site B's
 * gateway (192.0.2.2, 02:00:00:00:0b:02) to ours (192.0.2.1,
 * 02:00:00:00:0a:02), VNI 100, as the tests' configs name them.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ut_pkt.h"

#define UT_PROBE_BYTES 94 /* 14 + 20 + 8 + 8 + 20 + 24 */

static inline void
ut_put64(uint8_t *p, uint64_t v)
{
	ut_put32(p, (uint32_t)(v >> 32));
	ut_put32(p + 4, (uint32_t)v);
}

/* The probe with sequence seq, transmit time t3 and, if echo, t1/t2; returns its length. */
static inline unsigned int
ut_peer_probe(uint8_t *f, uint32_t seq, uint64_t t3, bool echo, uint64_t t1, uint64_t t2)
{
	static const uint8_t our_mac[6] = { 2, 0, 0, 0, 0x0a, 2 }, peer_mac[6] = { 2, 0, 0, 0, 0x0b, 2 };
	uint8_t *ip = f + 14, *udp = ip + 20, *g = udp + 8, *o = g + 8, *e = o + 20;

	memset(f, 0, UT_PROBE_BYTES);
	memcpy(f, our_mac, 6);
	memcpy(f + 6, peer_mac, 6);
	ut_put16(f + 12, 0x0800);
	ip[0] = 0x45;
	ip[1] = 48 << 2; /* the CNP DSCP */
	ut_put16(ip + 2, 80);
	ut_put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, (const uint8_t[]){ 192, 0, 2, 2 }, 4);
	memcpy(ip + 16, (const uint8_t[]){ 192, 0, 2, 1 }, 4);
	ut_ip4_fix_csum(ip);
	ut_put16(udp, 0xc000);
	ut_put16(udp + 2, 6081);
	ut_put16(udp + 4, 60);
	g[0] = 11; /* 44 bytes of options */
	g[1] = 0x80; /* O */
	g[6] = 100; /* VNI */
	ut_put16(o, 0xff4c);
	o[2] = 0x01;
	o[3] = 4;
	o[4] = 1;
	ut_put32(o + 8, seq);
	ut_put64(o + 12, t3);
	ut_put16(e, 0xff4c);
	e[2] = 0x03;
	e[3] = 5;
	e[4] = 1;
	e[5] = echo ? 1 : 0;
	if (echo) {
		ut_put64(e + 8, t1);
		ut_put64(e + 16, t2);
	}
	return UT_PROBE_BYTES;
}

#endif /* LONGSPAN_UT_PROBE_H */
