/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_UT_P4_H
#define LONGSPAN_UT_P4_H

/*
 * The C path and a P4 path side by side on one runtime, for the tests that
 * hold them to the same verdicts: test_p4_diff.c (the spec alone on DPDK's
 * SWX engine) and test_p4_mode.c (pipeline = p4 as a worker runs it). Here
 * are what both need: the sites of their configuration, the runtime and
 * its ports, one frame through the C drivers or dp_p4_burst(), frames from
 * site B's gateway, and the comparison of two outcomes.
 */

#include <stdbool.h>
#include <stdint.h>

#include "control/runtime.h"
#include "dataplane/worker.h"
#include "../dataplane/ut_pkt.h"

/*
 * The ports and the peers of both tests' config, after a [gateway] section:
 * DC host 10.1.0.1 / fd00:1::1 behind port dc, site B's gateway 192.0.2.2
 * behind port wan, site B's prefixes 10.2/16 and fd00:2::/48 on VNI 100;
 * over an IPv6 underlay, site C's gateway 2001:db8:ff::3 behind port wan,
 * site C's prefixes 10.4/16 and fd00:4::/48 on VNI 300.
 */
#define UT_P4_CONF_SITES                                                                   \
	"[port dc]\nrole = dc\ndev = net_null0\nmac = 02:00:00:00:01:fe\n"                 \
	"ipv4 = 10.1.0.254/16\nipv6 = fd00:1::fe/64\n"                                     \
	"neighbor = 10.1.0.1 02:00:00:00:01:01\nneighbor = fd00:1::1 02:00:00:00:01:01\n" \
	"[port wan]\nrole = wan\ndev = net_null1\nmac = 02:00:00:00:0a:02\n"               \
	"ipv4 = 192.0.2.1/24\nneighbor = 192.0.2.2 02:00:00:00:0b:02\n"                    \
	"ipv6 = 2001:db8:ff::1/64\nneighbor = 2001:db8:ff::3 02:00:00:00:0c:02\n"          \
	"[peer site-b]\nport = wan\nremote = 192.0.2.2\nvni = 100\nrtt = 1ms\n"            \
	"prefix = 10.2.0.0/16\nprefix = fd00:2::/48\n"                                     \
	"[peer site-c]\nport = wan\nremote = 2001:db8:ff::3\nvni = 300\nrtt = 1ms\n"       \
	"prefix = 10.4.0.0/16\nprefix = fd00:4::/48\n"

/* A test's runtime with one worker, and which port is which. */
struct ut_p4 {
	struct ls_runtime rt;
	struct dp_worker *w;
	unsigned int dc_port, wan_port;
};

/*
 * ut_runtime_init() of the config TEXT with MBUFS mbufs (messages name it
 * NAME), and the ports' roles. rt.cfg is the config until it is published.
 * 0, or -1 after printing why.
 */
int ut_p4_init(struct ut_p4 *t, const char *name, const char *text, unsigned int mbufs);

/* What a path did with one frame. */
struct ut_p4_outcome {
	int port;	     /* the port it left by; -1: dropped or punted */
	unsigned int reason; /* enum ls_drop_reason when dropped, else 0 */
	uint64_t punts;	     /* frames handed to the control thread */
	uint32_t len;
	uint8_t b[UT_PKT_MAX];
};

/*
 * One frame of LEN bytes in by PORT on t->rt.dp, through the C drivers
 * (dp_pipeline_dc or dp_pipeline_wan by the port's role) or, with p4,
 * dp_p4_burst() on the snapshot's first pipeline; what became of it in *o.
 * The worker's counters are cleared first. Fails the test unless the frame
 * is counted received once and then exactly once as sent, dropped or
 * punted.
 */
void ut_p4_run(struct ut_p4 *t, bool p4, unsigned int port, const uint8_t *f, uint32_t len,
	       struct ut_p4_outcome *o);

/*
 * Fails the test NAME, saying how, unless the C path's outcome C and the P4
 * path's P agree: the same port, drop reason and punts, and a sent frame
 * the same byte for byte.
 */
void ut_p4_same(const char *name, const struct ut_p4_outcome *c, const struct ut_p4_outcome *p);

/* How a test runs one frame in by PORT through both of its paths and compares them. */
typedef void ut_p4_compare_fn(const char *name, unsigned int port, const uint8_t *f,
			      uint32_t len);

/* A frame from the DC host (10.1.0.1 / fd00:1::1): SPEC, to DST4 or DST6 when set. */
struct ut_p4_dc_case {
	const char *name;
	struct ut_spec spec;
	const uint8_t *dst4; /* the IPv4 destination instead of site B's host */
	const uint8_t *dst6; /* the IPv6 destination instead of site B's host */
};

/*
 * The DC frames both tests hold the paths to: RoCE data, ACK and CNP and
 * UDP over IPv4, RoCE data over IPv6, TTL 1, no route, a martian
 * destination, a VLAN mismatch.
 */
extern const struct ut_p4_dc_case ut_p4_dc_common[];
extern const unsigned int ut_p4_n_dc_common;

/*
 * The same toward site C (an IPv6 underlay): RoCE data over IPv4 and IPv6,
 * UDP, hop limit 1, and a packet that fits the WAN MTU behind an outer
 * IPv4 header but not behind an outer IPv6 one.
 */
extern const struct ut_p4_dc_case ut_p4_dc6_common[];
extern const unsigned int ut_p4_n_dc6_common;

/* Each of the N CASES in by t's DC port through COMPARE. */
void ut_p4_dc_run(const struct ut_p4 *t, const struct ut_p4_dc_case *cases, unsigned int n,
		  ut_p4_compare_fn *compare);

/*
 * Into F, the inner IP packet IP of N bytes as site B's gateway sends it:
 * Ethernet / IPv4 (outer TOS OTOS) / UDP / GENEVE (VNI) / the Longspan
 * option (sequence 0, no timestamp) / IP. Returns the frame's length.
 */
uint32_t ut_p4_wan_frame(uint8_t *f, const uint8_t *ip, uint32_t n, uint8_t otos, uint32_t vni);

/*
 * The same from site C's gateway over IPv6: Ethernet / IPv6 from
 * 2001:db8:ff::3 (traffic class OTOS) / UDP (its checksum computed) /
 * GENEVE / the option / IP.
 */
uint32_t ut_p4_wan6_frame(uint8_t *f, const uint8_t *ip, uint32_t n, uint8_t otos, uint32_t vni);

/*
 * A frame from site B's gateway (ut_p4_wan_frame()) with outer TOS OTOS on
 * VNI: SPEC as from site B's host (10.2.0.2, or SRC4 when set; fd00:2::2)
 * to the DC host (10.1.0.1 / fd00:1::1). With underlay6, from site C's
 * gateway (ut_p4_wan6_frame()) and its host (10.4.0.2, or SRC4; fd00:4::2).
 */
struct ut_p4_wan_case {
	const char *name;
	struct ut_spec spec;
	const uint8_t *src4;
	uint8_t otos;
	uint32_t vni;
	bool underlay6;
};

/*
 * The WAN frames from site C (an IPv6 underlay) both tests hold the paths
 * to: RoCE data over IPv4 and IPv6 inner, RFC 6040 from the outer traffic
 * class, CE over Not-ECT, a source in the DC subnet, site B's source from
 * site C, a VNI mismatch.
 */
extern const struct ut_p4_wan_case ut_p4_wan6_common[];
extern const unsigned int ut_p4_n_wan6_common;

/* Each of the N CASES in by t's WAN port through COMPARE. */
void ut_p4_wan_run(const struct ut_p4 *t, const struct ut_p4_wan_case *cases, unsigned int n,
		   ut_p4_compare_fn *compare);

#endif /* LONGSPAN_UT_P4_H */
