/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CTL_FIXTURE_H
#define LONGSPAN_CTL_FIXTURE_H

/*
 * A hand-built runtime for the API tests: config "site-a" with ports "dc"
 * and "wan-1" (a '-' to exercise telemetry key rules), peers "site-b" and
 * "site-c", a published snapshot (generation 7) and two workers whose
 * counters sum to the CTL_* totals below. No EAL, no devices: port ids are
 * invalid unless a test maps them.
 */

#include <stdint.h>

#include "control/runtime.h"

struct ctl_fixture {
	struct ls_runtime rt;
	struct ls_config cfg;
	struct dp_conf dp;
	struct dp_worker workers[2];
	struct flow_entry *flow_mem[2]; /* each worker's flow table */
};

/* Fake TSC rate; start_tsc is set CTL_UPTIME_S of these ticks ago. */
#define CTL_TSC_HZ 1000000000ull
#define CTL_UPTIME_S 5
#define CTL_GENERATION 7

/* Sums over both workers. */
#define CTL_RX_PKTS 1707
#define CTL_RX_BYTES 180700
#define CTL_TX_PKTS 1576
#define CTL_TX_BYTES 175600
#define CTL_DC_RX_PKTS 1200
#define CTL_DC_TX_BYTES 55600
#define CTL_WAN_RX_PKTS 507
#define CTL_WAN_TX_PKTS 1090
#define CTL_ROCE_DATA 950
#define CTL_ROCE_ACK 190
#define CTL_TUNNEL 507
#define CTL_DROPS 10
#define CTL_DROPS_NO_ROUTE 7
#define CTL_POLLS 15000
#define CTL_IDLE_POLLS 8500
#define CTL_PUNTED 10
#define CTL_SITE_B_TX_PKTS 1040
#define CTL_SITE_B_RX_BYTES 50700
#define CTL_SITE_B_CE 13
#define CTL_SITE_C_TX_PKTS 50

/*
 * Flow tables: CTL_FLOW_SLOTS entries per worker, idle time one hour, the
 * workers' clocks at CTL_NOW_NS when the fixture is made. Five live flows
 * (see ctl_fixture.c), one idle one and one never-used slot with garbage.
 */
#define CTL_FLOW_SLOTS 64
#define CTL_NOW_NS (1000000ull * 1000000000ull) /* 10^6 s */
#define CTL_FLOW_IDLE_NS (3600ull * 1000000000ull)
#define CTL_FLOWS_LIVE 5
#define CTL_FLOWS_CREATED 9
#define CTL_FLOWS_FULL 2

/*
 * WAN port 1 ("wan-1"): 10 Gb/s, the largest peer RTT 4 ms, MTU 9000,
 * mechanism A, [congestion] pmax set to 10% and flow_idle to 1 s, the rest
 * derived; marker RED. Class roce over both workers: */
#define CTL_TM_ROCE_ENQ_PKTS 1000
#define CTL_TM_ROCE_DEQ_PKTS 1000
#define CTL_TM_ROCE_DROPS 4
#define CTL_TM_ROCE_MARK_DECISIONS 25
#define CTL_TM_ROCE_CE_WRITTEN 5
#define CTL_TM_ROCE_CNP_SENT 16
#define CTL_TM_ROCE_DEPTH_BYTES 90000
#define CTL_TM_ROCE_DEPTH_MAX 1500000 /* worker 1's; worker 0 saw 100000 */
#define CTL_TM_ROCE_SOJOURN_MAX 1500000
#define CTL_TM_ROCE_SOJOURN_MEAN 11960
#define CTL_CNP_SENT 23

/* The link and overrides the fixture's WAN port was derived from. */
void ctl_fixture_wan_link(struct cc_link *link, struct cc_overrides *ov);

/* Allocate (cache aligned) and fill; free with ctl_fixture_free(). */
struct ctl_fixture *ctl_fixture_new(void);
void ctl_fixture_free(struct ctl_fixture *fx);

/*
 * Make every slot of both flow tables a live IPv6 flow with the longest
 * addresses and 20-digit counters (the telemetry size worst case), toward
 * a peer whose name has LS_NAME_MAX - 1 characters.
 */
void ctl_fixture_worst_flows(struct ctl_fixture *fx);

/* Worst-case flows (as above) in two tables of SLOTS (a power of two) each. */
void ctl_fixture_big_flows(struct ctl_fixture *fx, unsigned int slots);

/* Make every port a WAN port with the counters of the fixture's wan-1. */
void ctl_fixture_many_wan_ports(struct ctl_fixture *fx);

/* Add peers until there are N, each with LS_MAX_PREFIXES IPv6 prefixes. */
void ctl_fixture_many_peers(struct ctl_fixture *fx, unsigned int n);

/* The test doubles' record of the last runtime_reload() call. */
extern char ctl_reload_last_path[256];
extern unsigned int ctl_reload_calls;

#endif /* LONGSPAN_CTL_FIXTURE_H */
