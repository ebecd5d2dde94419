/* SPDX-License-Identifier: BSD-3-Clause */
#include "idle.h"

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_pause.h>

#define IDLE_EVENTS 8

void
idle_init(struct idle *d, enum idle_mode mode, unsigned int spin_polls, uint64_t min_ns,
	  uint64_t max_ns)
{
	memset(d, 0, sizeof(*d));
	d->mode = mode;
	d->spin_polls = spin_polls ? spin_polls : 1;
	d->hz = rte_get_tsc_hz();
	d->min_ns = min_ns;
	d->max_ns = max_ns < min_ns ? min_ns : max_ns;
	d->sleep_ns = d->min_ns;
	d->intr = mode == IDLE_INTERRUPT;
}

void
idle_start(struct idle *d)
{
	if (d->mode != IDLE_POLL)
		prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
}

int
idle_add_queue(struct idle *d, uint16_t port, uint16_t q)
{
	int rc;

	if (d->mode != IDLE_INTERRUPT)
		return 0;
	if (d->n_queues == IDLE_MAX_QUEUES) {
		d->intr = false;
		return -ENOSPC;
	}
	rc = rte_eth_dev_rx_intr_ctl_q(port, q, RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_ADD, NULL);
	if (rc != 0) {
		d->intr = false;
		return rc < 0 ? rc : -ENOTSUP;
	}
	d->port[d->n_queues] = port;
	d->queue[d->n_queues] = q;
	d->n_queues++;
	return 0;
}

void
idle_fini(struct idle *d)
{
	idle_disarm(d);
	for (uint16_t i = 0; i < d->n_queues; i++)
		rte_eth_dev_rx_intr_ctl_q(d->port[i], d->queue[i], RTE_EPOLL_PER_THREAD,
					  RTE_INTR_EVENT_DEL, NULL);
	d->n_queues = 0;
	d->intr = false;
}

void
idle_disarm(struct idle *d)
{
	if (!d->armed)
		return;
	for (uint16_t i = 0; i < d->n_queues; i++)
		rte_eth_dev_rx_intr_disable(d->port[i], d->queue[i]);
	d->armed = false;
}

static void
idle_sleep_ns(struct idle *d, uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	nanosleep(&ts, NULL);
	d->sleeps++;
	d->slept_ns += ns;
}

void
idle_wait(struct idle *d, uint64_t now_tsc, uint64_t due_tsc)
{
	uint64_t wait_ns = UINT64_MAX;

	if (d->mode == IDLE_POLL || ++d->polls < d->spin_polls) {
		rte_pause();
		return;
	}
	if (due_tsc != UINT64_MAX) {
		if ((int64_t)(due_tsc - now_tsc) <= 0) {
			rte_pause();
			return;
		}
		wait_ns = (due_tsc - now_tsc) * 1000000000u / d->hz;
		if (wait_ns < IDLE_SPIN_BELOW_NS) {
			rte_pause();
			return;
		}
	}
	if (d->intr && wait_ns >= IDLE_INTR_MIN_NS) {
		struct rte_epoll_event ev[IDLE_EVENTS];
		uint64_t ms = RTE_MIN(wait_ns, (uint64_t)IDLE_INTR_MAX_WAIT_NS) / 1000000u;
		int n;

		if (!d->armed) {
			/* Enable, then let the caller poll once more before blocking. */
			for (uint16_t i = 0; i < d->n_queues; i++)
				rte_eth_dev_rx_intr_enable(d->port[i], d->queue[i]);
			d->armed = true;
			return;
		}
		n = rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, IDLE_EVENTS, (int)ms);
		d->intr_waits++;
		if (n > 0)
			d->intr_wakeups++;
		idle_disarm(d);
		d->polls = 0;
		return;
	}
	idle_sleep_ns(d, RTE_MIN(wait_ns, d->sleep_ns));
	if (d->sleep_ns < d->max_ns)
		d->sleep_ns = RTE_MIN(d->sleep_ns * 2, d->max_ns);
}
