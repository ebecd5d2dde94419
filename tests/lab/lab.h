/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_LAB_H
#define LONGSPAN_LAB_H

/*
 * What the lab tools (longspan-wanem, longspan-hostem) share: the TSC clock
 * and its conversion to nanoseconds, the idle back-off that lets five DPDK
 * processes share two cores, and port setup.
 *
 * All state here belongs to the tool's single polling thread.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

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
 * Idle back-off. A tool polls; after LAB_IDLE_SPIN_POLLS polls without work
 * it sleeps, first min_ns, doubling up to max_ns while nothing happens, but
 * never past its next due time (a packet to release or send, a timer): it
 * wakes LAB_IDLE_WAKE_EARLY_NS before it and spins the rest, since sleeps
 * overshoot by a few microseconds even with a 1 us timer slack. Work resets
 * the back-off. Cost of the cap: a packet that arrives while the tool sleeps
 * is seen up to one sleep later (the tools document this as timestamp error).
 */
#define LAB_IDLE_SPIN_POLLS 32
#define LAB_IDLE_WAKE_EARLY_NS 10000 /* measured sleep overshoot ~5 us, slack 1 us */
#define LAB_IDLE_MIN_SLEEP_NS 20000 /* shorter waits are spun */

struct lab_idle {
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t sleep_ns; /* current back-off step */
	unsigned int polls; /* idle polls since the last work */
	uint64_t sleeps; /* statistics */
	uint64_t slept_ns;
};

void lab_idle_init(struct lab_idle *d, uint64_t min_ns, uint64_t max_ns);

/* The last poll did work. */
static inline void
lab_idle_work(struct lab_idle *d)
{
	d->polls = 0;
	d->sleep_ns = d->min_ns;
}

/*
 * The last poll did nothing. due_tsc: the next time something must happen
 * (UINT64_MAX if nothing is scheduled). Spins, or sleeps as described above.
 */
void lab_idle_wait(struct lab_idle *d, const struct lab_clock *c, uint64_t now_tsc,
		   uint64_t due_tsc);

/*
 * Lower this thread's timer slack to 1 us: the default 50 us would add
 * ~55 us to every sleep and make the delay line and pacing inaccurate.
 */
void lab_timer_slack(void);

/*
 * Configure PORT with one rx and one tx queue of nb_desc descriptors each,
 * receiving into pool, and start it. Returns 0 or a negative errno (the
 * message is printed with the tool's name).
 */
int lab_port_start(const char *tool, uint16_t port, struct rte_mempool *pool, uint16_t nb_desc);

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
