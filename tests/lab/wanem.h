/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_WANEM_H
#define LONGSPAN_WANEM_H

/*
 * longspan-wanem: a two-port DPDK delay line (the long-haul WAN link of the
 * lab). Port 0 -> port 1 and port 1 -> port 0 each go through their own
 * wanem_line (wanem_line.h): timestamped with the TSC at rx, released when
 * due. This file is the polling loop around the two lines; wanem_main.c
 * parses the command line. Tests run wanem_run() over net_ring ports.
 *
 * Threading: everything runs on the calling thread; the stats are read by
 * the same thread (or by the caller after wanem_run() returned).
 */

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "dataplane/idle.h"
#include "lab.h"
#include "wanem_line.h"

struct rte_mempool;

struct wanem_opts {
	uint64_t delay_ns; /* one-way */
	uint64_t delay_alt_ns; /* --delay-alt: each SIGUSR1 toggles to it and back; 0 = none */
	uint64_t rate_bps; /* 0 = no bottleneck */
	uint32_t overhead_bytes;
	uint64_t queue_bytes; /* 0 = default: one BDP (rate x 2 x delay) */
	uint32_t queue_pkts; /* slots per direction; 0 = default */
	double loss;
	double reorder;
	uint32_t reorder_gap;
	uint64_t reorder_max_ns; /* 0 = default: the one-way delay, at least 1 ms */
	uint64_t seed;
	uint64_t stats_interval_ns; /* 0 = only at exit */
	enum idle_mode idle_mode; /* --idle, default interrupt */
	uint64_t max_sleep_ns; /* idle back-off cap */
	uint64_t duration_ns; /* 0 = until a signal */
	uint32_t mbufs; /* 0 = default from the slots and bytes held */
	uint16_t mbuf_data_bytes;
	const char *json_path; /* final counters, NULL = none */
};

/*
 * longspan-wanem's options (wanem_args.c) after the EAL's: argv[0] is a
 * name, the rest options. Fills o (defaults first, then wanem_opts_resolve())
 * or prints why not and returns -EINVAL; --help prints the usage and exits.
 */
int wanem_parse_args(int argc, char **argv, struct wanem_opts *o);

/* Defaults for everything (delay 500 us, as 100 km of fibre). */
void wanem_opts_default(struct wanem_opts *o);

/*
 * Fill in the derived defaults (queue bytes, slots, mbufs) for the options
 * given; returns 0 or -EINVAL with a message on stderr.
 */
int wanem_opts_resolve(struct wanem_opts *o);

struct wanem_dir {
	uint16_t rx_port, tx_port;
	struct wanem_line line;
	struct wanem_line_slot *slots;
	uint64_t tx_full; /* polls where the tx port took fewer than offered */
	bool tx_blocked; /* the last transmission made no progress: back off, do not spin */
	uint64_t last_tx_bytes; /* for per-interval rates */
};

struct wanem {
	struct wanem_opts opts;
	struct lab_clock clk;
	/* own_idle under wanem_run(), or the waiting of a thread that runs several engines */
	struct idle *idle;
	struct idle own_idle;
	struct wanem_dir dir[2];
	uint64_t end_tsc, next_stats_tsc; /* UINT64_MAX: never */
	bool finished; /* the duration ended */
	uint64_t polls, busy_polls;
	/* --delay-alt: a count the signal handler raises; each step toggles the delay. */
	const volatile sig_atomic_t *delay_toggle; /* NULL: none */
	sig_atomic_t delay_toggle_seen;
	uint64_t delay_now_ns, delay_changes;
};

/*
 * Build the two lines between ports p0 and p1 (already started). Returns 0
 * or a negative errno. Allocates the slots.
 */
int wanem_init(struct wanem *w, const struct wanem_opts *o, uint16_t p0, uint16_t p1);

/* Poll until *stop or the duration ends. Prints stats lines to out. */
void wanem_run(struct wanem *w, const volatile sig_atomic_t *stop, FILE *out);

/*
 * wanem_run()'s loop in pieces, for a thread that runs several engines
 * (longspan-labtools; the caller registers both ports' rx queues with its
 * idle waiting): wanem_start() starts the duration and stats clocks,
 * wanem_poll() does one pass at TSC now and returns the work done (0 and
 * finished once the duration ended), wanem_due() is the next TSC time it
 * must poll without input (UINT64_MAX: only a packet).
 */
void wanem_start(struct wanem *w);
unsigned int wanem_poll(struct wanem *w, uint64_t now_tsc, FILE *out);
uint64_t wanem_due(const struct wanem *w);

/* Free every held mbuf and the slots. */
void wanem_fini(struct wanem *w);

/* One stats line per direction (t = seconds since start). */
void wanem_print_stats(struct wanem *w, FILE *out, const char *tag);

/* The final counters as JSON. Returns 0 or -errno. */
int wanem_write_json(const struct wanem *w, const char *path, unsigned int mbufs_in_use);

#endif /* LONGSPAN_WANEM_H */
