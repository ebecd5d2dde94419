/* SPDX-License-Identifier: BSD-3-Clause */
#include "idle.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_pause.h>

#include "tsc.h"

#define IDLE_EVENTS 8

void
idle_init(struct idle *d, enum idle_mode mode, unsigned int spin_polls, uint64_t min_ns,
	  uint64_t max_ns)
{
	memset(d, 0, sizeof(*d));
	d->mode = mode;
	d->spin_polls = spin_polls ? spin_polls : 1;
	d->hz = tsc_hz();
	d->min_ns = min_ns;
	d->max_ns = max_ns < min_ns ? min_ns : max_ns;
	d->sleep_ns = d->min_ns;
	d->intr = mode == IDLE_INTERRUPT;
	d->timer_fd = -1;
}

void
idle_start(struct idle *d)
{
	if (d->mode != IDLE_POLL)
		prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
}

/* Clear the timer's expiry count (epoll calls this on the waiting thread). */
static void
idle_timer_read(int fd, void *arg __rte_unused)
{
	uint64_t n;

	if (read(fd, &n, sizeof(n)) < 0)
		return; /* EAGAIN: nothing expired */
}

/* The due-time timer, in this thread's epoll set next to the rx queues. */
static int
idle_timer_open(struct idle *d)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	if (fd < 0)
		return -errno;
	memset(&d->timer_ev, 0, sizeof(d->timer_ev));
	d->timer_ev.epdata.event = EPOLLIN;
	d->timer_ev.epdata.cb_fun = idle_timer_read;
	if (rte_epoll_ctl(RTE_EPOLL_PER_THREAD, EPOLL_CTL_ADD, fd, &d->timer_ev) != 0) {
		close(fd);
		return -EIO;
	}
	d->timer_fd = fd;
	d->timer_tsc = 0;
	return 0;
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
	if (d->timer_fd < 0) {
		rc = idle_timer_open(d);
		if (rc != 0) {
			d->intr = false;
			return rc;
		}
	}
	rc = rte_eth_dev_rx_intr_ctl_q(port, q, RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_ADD, NULL);
	if (rc != 0) {
		d->intr = false;
		return rc < 0 ? rc : -ENOTSUP;
	}
	d->port[d->n_queues] = port;
	d->queue[d->n_queues] = q;
	d->n_queues++;
	d->intr_used = d->intr;
	return 0;
}

void
idle_fini(struct idle *d)
{
	idle_disarm(d);
	for (uint16_t i = 0; i < d->n_queues; i++)
		rte_eth_dev_rx_intr_ctl_q(d->port[i], d->queue[i], RTE_EPOLL_PER_THREAD,
					  RTE_INTR_EVENT_DEL, NULL);
	if (d->timer_fd >= 0) {
		rte_epoll_ctl(RTE_EPOLL_PER_THREAD, EPOLL_CTL_DEL, d->timer_fd, &d->timer_ev);
		close(d->timer_fd);
		d->timer_fd = -1;
	}
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

/*
 * Block until a packet or the due time. The timer is armed only when the due
 * time changed: arming traps to the hypervisor on a VM (~20 us of CPU), and a
 * timer that fires for a due time already past costs one more empty poll.
 */
static void
idle_intr_wait(struct idle *d, uint64_t due_tsc, uint64_t wait_ns)
{
	struct rte_epoll_event ev[IDLE_EVENTS];
	int timeout_ms = IDLE_INTR_MAX_WAIT_NS / 1000000u;
	bool packet = false, timer = false;
	int n;

	if (!d->armed) {
		/* Enable, then let the caller poll once more before blocking. */
		for (uint16_t i = 0; i < d->n_queues; i++)
			rte_eth_dev_rx_intr_enable(d->port[i], d->queue[i]);
		d->armed = true;
		return;
	}
	if (wait_ns < IDLE_INTR_MAX_WAIT_NS) {
		if (d->timer_tsc != due_tsc) {
			struct itimerspec its = {
				.it_value = { .tv_sec = (time_t)(wait_ns / 1000000000u),
					      .tv_nsec = (long)(wait_ns % 1000000000u) },
			};

			timerfd_settime(d->timer_fd, 0, &its, NULL);
			d->timer_tsc = due_tsc;
			d->timer_arms++;
		}
		timeout_ms = -1; /* the timer ends the wait */
	}
	n = rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, IDLE_EVENTS, timeout_ms);
	for (int i = 0; i < n; i++) {
		if (ev[i].fd == d->timer_fd)
			timer = true;
		else
			packet = true;
	}
	if (timer || (int64_t)(rte_rdtsc() - d->timer_tsc) >= 0)
		d->timer_tsc = 0; /* fired, or about to: arm again next time */
	d->intr_waits++;
	d->intr_wakeups += packet;
	d->timer_wakeups += timer && !packet;
	idle_disarm(d);
	d->polls = 0;
}

void
idle_wait(struct idle *d, uint64_t now_tsc, uint64_t due_tsc)
{
	uint64_t wait_ns = UINT64_MAX;

	if (d->mode == IDLE_POLL ||
	    ++d->polls < (d->intr ? RTE_MIN(d->spin_polls, IDLE_INTR_SPIN_POLLS) : d->spin_polls)) {
		rte_pause();
		return;
	}
	if (due_tsc != UINT64_MAX) {
		if ((int64_t)(due_tsc - now_tsc) <= 0) {
			rte_pause();
			return;
		}
		/* Past a second the exact value does not matter (and would overflow). */
		wait_ns = due_tsc - now_tsc >= d->hz ? 1000000000u
						     : (due_tsc - now_tsc) * 1000000000u / d->hz;
		if (wait_ns < IDLE_SPIN_BELOW_NS) {
			rte_pause();
			return;
		}
	}
	if (d->intr) {
		idle_intr_wait(d, due_tsc, wait_ns);
		return;
	}
	idle_sleep_ns(d, RTE_MIN(wait_ns, d->sleep_ns));
	if (d->sleep_ns < d->max_ns)
		d->sleep_ns = RTE_MIN(d->sleep_ns * 2, d->max_ns);
}
