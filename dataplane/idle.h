/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_IDLE_H
#define LONGSPAN_IDLE_H

/*
 * What a polling thread does when a poll found no work: longspand's workers
 * and the lab tools (longspan-wanem, longspan-hostem) share it.
 *
 * - poll: pause and poll again.
 * - sleep: after spin_polls empty polls, sleep min_ns, doubling up to max_ns
 *   while nothing happens, never past the next due time (a shaper or hold
 *   deadline, a packet to release): a wait shorter than IDLE_SPIN_BELOW_NS is
 *   spun. Timed sleeps are coarse on shared VMs (a 10 us nanosleep takes
 *   50-110 us and costs ~20 us of CPU: docs/lab-tools.md).
 * - interrupt: the ports' rx queues are registered with this thread's epoll
 *   (rte_eth_dev_rx_intr_ctl_q); after the spin, the first idle_wait()
 *   enables the interrupts and returns so that the caller polls once more
 *   (a packet that came before the enable raises no interrupt), the next one
 *   blocks in rte_epoll_wait() until a packet, the next due time or
 *   IDLE_INTR_MAX_WAIT_NS. A due time is a timerfd in the same epoll set
 *   (epoll's own timeout counts milliseconds, the tools' due times are
 *   microseconds apart), armed again only when the due time changes. If any
 *   queue has no rx interrupt (net_memif, net_ring, net_pcap, af_packet in
 *   DPDK 22.11), the thread sleeps as in sleep mode (idle_intr() says which);
 *   net_vhost and net_virtio_user have them.
 *
 * All state belongs to the one thread that polls; idle_add_queue() must run
 * on it (the epoll instance is per thread).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_epoll.h>

#include "idle_mode.h"

#define IDLE_MAX_QUEUES 16
#define IDLE_SPIN_BELOW_NS 2000u /* shorter waits are spun, not slept */
/*
 * Empty polls before an interrupt wait, whatever spin_polls says: enabling
 * and disabling a virtual queue's notifications is a flag in shared memory
 * and the wait costs one epoll_wait(), while every spin poll is CPU that the
 * other processes on a shared core do not get (a lab gateway spinning 256
 * polls per idle moment used a third of a core on nothing).
 */
#define IDLE_INTR_SPIN_POLLS 4u
/* An interrupt wait ends after this even without packets or due times. */
#define IDLE_INTR_MAX_WAIT_NS 10000000u

struct idle {
	enum idle_mode mode; /* as configured */
	bool intr; /* interrupt mode and every queue registered */
	bool armed; /* interrupts enabled, waiting for the re-poll */
	int timer_fd; /* due times of interrupt waits; -1 when not registered */
	uint64_t timer_tsc; /* what timer_fd is armed for (0: not armed) */
	struct rte_epoll_event timer_ev; /* timer_fd's registration (epoll points here) */
	uint16_t n_queues;
	uint16_t port[IDLE_MAX_QUEUES], queue[IDLE_MAX_QUEUES];
	unsigned int spin_polls;
	uint64_t hz;
	uint64_t min_ns, max_ns, sleep_ns; /* back-off */
	unsigned int polls; /* idle polls since the last work */
	/* statistics */
	uint64_t sleeps, slept_ns; /* timed sleeps and their requested length */
	uint64_t intr_waits, intr_wakeups; /* epoll waits; of those, ended by a packet */
	uint64_t timer_wakeups, timer_arms; /* waits ended by the due time; timerfd settings */
	bool intr_used; /* rx interrupts were registered (kept after idle_fini()) */
};

void idle_init(struct idle *d, enum idle_mode mode, unsigned int spin_polls, uint64_t min_ns,
	       uint64_t max_ns);

/*
 * On the polling thread, before it waits: lower its timer slack to 1 us
 * (the default 50 us is added to every sleep).
 */
void idle_start(struct idle *d);

/*
 * Register rx queue q of port with this thread (interrupt mode). Returns 0,
 * or a negative errno when the port has no rx interrupts: the thread then
 * sleeps instead (idle_intr() false). The first queue also registers the
 * thread's due-time timer.
 */
int idle_add_queue(struct idle *d, uint16_t port, uint16_t q);

/* True when idle waits block on rx interrupts. */
static inline bool
idle_intr(const struct idle *d)
{
	return d->intr;
}

void idle_disarm(struct idle *d);

/* The last poll did work. */
static inline void
idle_work(struct idle *d)
{
	d->polls = 0;
	d->sleep_ns = d->min_ns;
	if (unlikely(d->armed))
		idle_disarm(d);
}

/* True if the next idle_wait() may block (the caller goes RCU-offline). */
static inline bool
idle_may_block(const struct idle *d)
{
	return d->mode != IDLE_POLL &&
	       d->polls + 1 >= (d->intr ? RTE_MIN(d->spin_polls, IDLE_INTR_SPIN_POLLS) : d->spin_polls);
}

/*
 * The last poll did nothing. due_tsc: the next time something must happen
 * (UINT64_MAX: nothing scheduled). Pauses, sleeps or waits as described.
 */
void idle_wait(struct idle *d, uint64_t now_tsc, uint64_t due_tsc);

/* Deregister the queues and the timer (before the ports stop). */
void idle_fini(struct idle *d);

#endif /* LONGSPAN_IDLE_H */
