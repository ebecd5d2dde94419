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

/* Allocate (cache aligned) and fill; free with ctl_fixture_free(). */
struct ctl_fixture *ctl_fixture_new(void);
void ctl_fixture_free(struct ctl_fixture *fx);

/* Add peers until there are N, each with LS_MAX_PREFIXES IPv6 prefixes. */
void ctl_fixture_many_peers(struct ctl_fixture *fx, unsigned int n);

/* The test doubles' record of the last runtime_reload() call. */
extern char ctl_reload_last_path[256];
extern unsigned int ctl_reload_calls;

#endif /* LONGSPAN_CTL_FIXTURE_H */
