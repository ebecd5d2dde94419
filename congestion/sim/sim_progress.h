/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Progress lines on stderr and an early stop on SIGINT/SIGTERM for the
 * event loop (sim_main.c).  Wall time only: nothing here changes what the
 * simulation computes.
 */
#ifndef LONGSPAN_SIM_PROGRESS_H
#define LONGSPAN_SIM_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

struct sim;

/* The loop polls every this many events (a power of two). */
#define SIM_PROGRESS_POLL_EVENTS 16384u

struct sim_progress {
	uint64_t interval_ns;	/* wall time between lines; 0 = no lines */
	uint64_t start_wall_ns;
	uint64_t last_wall_ns;	/* wall time of the previous line */
	uint64_t next_wall_ns;
	uint64_t last_events;	/* events at the previous line */
	FILE *out;
};

/* SIGINT and SIGTERM set the stop flag; returns -1 if sigaction() failed. */
int sim_progress_catch_signals(void);
const char *sim_progress_signal_name(int sig);

void sim_progress_init(struct sim_progress *p, uint64_t interval_ns, FILE *out);

/*
 * Prints a status line when its interval has passed.  Returns the signal
 * that asks the run to stop, or 0 to go on.
 */
int sim_progress_poll(const struct sim *s, struct sim_progress *p, uint64_t events);

#endif /* LONGSPAN_SIM_PROGRESS_H */
