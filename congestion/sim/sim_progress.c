/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Progress of a run, and stopping it early.
 *
 * The event loop calls sim_progress_poll() every SIM_PROGRESS_POLL_EVENTS
 * events (a few hundred microseconds of wall time), so neither the clock
 * nor the stop flag is read per event.  Every `interval_ns` of wall time
 * the poll prints one status line on stderr: simulated time, flows
 * finished, events per wall second since the previous line, and an
 * estimate of the wall time left.
 *
 * SIGINT and SIGTERM only set a flag (the handler does nothing else, as a
 * handler must); the loop stops at its next poll and main() writes every
 * output as at a normal end, with summary.json marked partial.  The
 * handlers are installed with SA_RESETHAND, so a second signal kills the
 * process at once (for a run stuck writing to a full disk, say).
 */
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "sim.h"
#include "sim_progress.h"

/* Written by the signal handler, read by the event loop (C11 7.14.1.1). */
static atomic_int sim_progress_signal;

static void
sim_progress_on_signal(int sig)
{
	atomic_store_explicit(&sim_progress_signal, sig, memory_order_relaxed);
}

int
sim_progress_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sim_progress_on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0)
		return -1;
	return 0;
}

const char *
sim_progress_signal_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	default:
		return "signal";
	}
}

static uint64_t
sim_progress_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void
sim_progress_init(struct sim_progress *p, uint64_t interval_ns, FILE *out)
{
	memset(p, 0, sizeof(*p));
	p->interval_ns = interval_ns;
	p->out = out;
	p->start_wall_ns = sim_progress_wall_ns();
	p->last_wall_ns = p->start_wall_ns;
	p->next_wall_ns = p->start_wall_ns + interval_ns;
}

/*
 * The fraction of the run done: the larger of the simulated time covered
 * toward a known end (--end, SIMULATOR_STOP_TIME) and the payload bytes
 * acknowledged.  A run that ends when its flows end is mostly measured by
 * bytes (its stop time is usually far beyond the last flow); a run with
 * flows that never finish (the lab scenario) by time.
 */
static double
sim_progress_fraction(const struct sim *s)
{
	double by_time = 0, by_bytes = 0;

	if (s->st.started && s->end_ns != SIM_EV_MAX_NS && s->end_ns > s->st.first_start_ns &&
	    s->now_ns > s->st.first_start_ns)
		by_time = (double)(s->now_ns - s->st.first_start_ns) /
			  (double)(s->end_ns - s->st.first_start_ns);
	if (s->total_bytes != 0)
		by_bytes = (double)s->st.acked_bytes / (double)s->total_bytes;
	by_time = by_time > by_bytes ? by_time : by_bytes;
	return by_time > 1 ? 1 : by_time;
}

static void
sim_progress_line(const struct sim *s, struct sim_progress *p, uint64_t events,
		  uint64_t wall_ns)
{
	double dt_s = (double)(wall_ns - p->last_wall_ns) * 1e-9;
	double elapsed_s = (double)(wall_ns - p->start_wall_ns) * 1e-9;
	double done = sim_progress_fraction(s);
	char left[32];

	if (done > 0)
		snprintf(left, sizeof(left), "%.0f s", elapsed_s * (1 - done) / done);
	else
		snprintf(left, sizeof(left), "?");
	fprintf(p->out, "longspan-sim: t = %.6f s, %u/%u flows finished, %.2f M events/s, "
		"%.1f%% done, ~%s left\n", (double)s->now_ns * 1e-9, s->flows_done, s->nflows,
		dt_s > 0 ? (double)(events - p->last_events) / dt_s / 1e6 : 0.0, done * 100, left);
	fflush(p->out);
	p->last_wall_ns = wall_ns;
	p->last_events = events;
}

int
sim_progress_poll(const struct sim *s, struct sim_progress *p, uint64_t events)
{
	int sig = atomic_load_explicit(&sim_progress_signal, memory_order_relaxed);
	uint64_t now;

	if (sig != 0)
		return sig;
	if (p->interval_ns == 0)
		return 0;
	now = sim_progress_wall_ns();
	if (now < p->next_wall_ns)
		return 0;
	sim_progress_line(s, p, events, now);
	p->next_wall_ns = now + p->interval_ns;
	return 0;
}
