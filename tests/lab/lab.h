/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_LAB_H
#define LONGSPAN_LAB_H

/*
 * What the lab tools (longspan-wanem, longspan-hostem) share: the TSC clock
 * and its conversion to nanoseconds, port setup and option parsing. Idle
 * waiting is dataplane/idle.h's, as in longspand.
 *
 * All state here belongs to the tool's single polling thread.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "dataplane/idle_mode.h"

struct rte_mempool;

/*
 * The TSC and nanoseconds since the tool started. Every process on the
 * machine reads the same TSC, so tools and gateways can correlate events
 * through raw TSC values; the summaries print tsc0 and hz for that.
 */
struct lab_clock {
	uint64_t tsc0; /* TSC at start */
	uint64_t hz; /* TSC ticks per second */
	uint64_t ns_per_tick_q32; /* 1e9 / hz in Q32 */
	uint64_t mono_ns0; /* CLOCK_MONOTONIC at tsc0 */
	uint64_t real_ns0; /* CLOCK_REALTIME at tsc0 */
};

void lab_clock_init(struct lab_clock *c);

/* Nanoseconds from tsc0 to tsc (0 if tsc is earlier). */
uint64_t lab_clock_ns(const struct lab_clock *c, uint64_t tsc);

/* Ticks in ns nanoseconds (rounded up, so a wait is never too short). */
uint64_t lab_clock_ticks(const struct lab_clock *c, uint64_t ns);

/*
 * --idle MODE: interrupt, sleep or poll (dataplane/idle.h, the same waiting
 * as longspand's workers).
 */
int lab_parse_idle(const char *tool, const char *opt, const char *text, enum idle_mode *mode);

/*
 * Configure PORT with one rx and one tx queue of nb_desc descriptors each,
 * receiving into pool, and start it; with rx_intr, ask for rx interrupts
 * (a driver without them starts anyway). Returns 0 or a negative errno (the
 * message is printed with the tool's name).
 */
int lab_port_start(const char *tool, uint16_t port, struct rte_mempool *pool, uint16_t nb_desc,
		   bool rx_intr);

/* Wait up to timeout_ns for PORT's link (memif connects asynchronously). */
bool lab_port_wait_link(uint16_t port, uint64_t timeout_ns, const volatile sig_atomic_t *stop);

/* Stop and close PORT; the mbufs its queues held go back to their pools. */
void lab_port_close(uint16_t port);

/* SIGINT and SIGTERM set *flag (a sig_atomic_t the loop polls). */
void lab_signals(volatile sig_atomic_t *flag);

/*
 * Command-line values. Each parses all of TEXT or prints
 * "TOOL: OPT: why" and returns -EINVAL. Units are control/units.h's
 * (the gateway config's): "500us", "1G", "64KiB".
 */
int lab_parse_time(const char *tool, const char *opt, const char *text, uint64_t *ns);
int lab_parse_rate(const char *tool, const char *opt, const char *text, uint64_t *bps);
int lab_parse_size(const char *tool, const char *opt, const char *text, uint64_t *bytes);
int lab_parse_u64(const char *tool, const char *opt, const char *text, uint64_t min, uint64_t max,
		  uint64_t *v);
/* A real number in [min, max] ("0.001", "1e-4"). */
int lab_parse_double(const char *tool, const char *opt, const char *text, double min, double max,
		     double *v);

/* Round up to a power of two (1 for 0). */
uint32_t lab_pow2(uint64_t v);

#endif /* LONGSPAN_LAB_H */
