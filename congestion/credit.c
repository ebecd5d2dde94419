/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "cc_time.h"
#include "credit.h"

/* Counters compare like times: by the sign of their difference. */
static inline bool
credit_after(uint64_t a, uint64_t b)
{
	return cc_time_after(a, b);
}

int
credit_config_init(struct credit_config *c, const struct credit_params *p)
{
	if (p->buffer_bytes == 0 || p->update_bytes == 0 || p->refresh_ticks == 0)
		return -EINVAL;
	if (p->update_bytes > p->buffer_bytes || p->buffer_bytes > (UINT64_C(1) << 62))
		return -EINVAL;
	c->buffer_bytes = p->buffer_bytes;
	c->update_bytes = p->update_bytes;
	c->refresh_ticks = p->refresh_ticks;
	return 0;
}

void
credit_tx_init(struct credit_tx *t, uint32_t epoch)
{
	memset(t, 0, sizeof(*t));
	t->epoch = epoch;
}

bool
credit_tx_may_send(const struct credit_tx *t, uint32_t bytes)
{
	return t->granted && !credit_after(t->sent + bytes, t->limit);
}

uint64_t
credit_tx_sent(struct credit_tx *t, uint32_t bytes)
{
	t->sent += bytes;
	t->waiting = false;
	t->wait_reported = false;
	return t->sent;
}

void
credit_tx_wait(struct credit_tx *t)
{
	t->waiting = true;
}

bool
credit_tx_report_due(const struct credit_config *c, const struct credit_tx *t, uint64_t now)
{
	if (!t->ever_reported || (t->waiting && !t->wait_reported))
		return true;
	return cc_time_after_eq(now, credit_tx_report_at(c, t));
}

uint64_t
credit_tx_report_at(const struct credit_config *c, const struct credit_tx *t)
{
	return t->reported_at + c->refresh_ticks;
}

bool
credit_tx_report(struct credit_tx *t, uint64_t now, uint64_t report, bool charged)
{
	bool wait = t->waiting && report == t->sent && !charged;

	t->ever_reported = true;
	t->reported_at = now;
	if (wait)
		t->wait_reported = true;
	return wait;
}

uint64_t
credit_tx_available(const struct credit_tx *t)
{
	if (!t->granted || !credit_after(t->limit, t->sent))
		return 0;
	return t->limit - t->sent;
}

bool
credit_tx_grant(struct credit_tx *t, uint32_t epoch, uint64_t limit)
{
	if (epoch != t->epoch || (t->granted && !credit_after(limit, t->limit))) {
		t->grants_stale++;
		return false;
	}
	t->limit = limit;
	t->granted = true;
	t->grants++;
	return true;
}

void
credit_rx_init(struct credit_rx *r)
{
	memset(r, 0, sizeof(*r));
}

void
credit_rx_arrive(const struct credit_config *c, struct credit_rx *r, uint32_t bytes)
{
	uint64_t before = r->occupancy_bytes;

	r->occupancy_bytes += bytes;
	r->arrived_since_report += bytes;
	if (r->occupancy_bytes > c->buffer_bytes)
		r->overrun_bytes += r->occupancy_bytes -
				    (before > c->buffer_bytes ? before : c->buffer_bytes);
}

void
credit_rx_drain(struct credit_rx *r, uint32_t bytes)
{
	r->occupancy_bytes = bytes < r->occupancy_bytes ? r->occupancy_bytes - bytes : 0;
}

/* The wait flag of a report that is the latest: every such report with it asks anew. */
static void
credit_rx_wait_flag(struct credit_rx *r, bool waiting)
{
	r->sender_waiting = waiting;
	if (waiting)
		r->wait_answered = false;
}

void
credit_rx_report(struct credit_rx *r, uint32_t epoch, uint64_t total, bool waiting)
{
	uint64_t delta;

	if (!r->synced || epoch != r->sender_epoch) {
		if (r->synced)
			r->sender_restarts++;
		r->synced = true;
		r->sender_epoch = epoch;
		r->reported = total;
		r->arrived_since_report = 0;
		credit_rx_wait_flag(r, waiting);
		return;
	}
	if (total == r->reported) {
		credit_rx_wait_flag(r, waiting); /* a repeat: only the flag is news */
		return;
	}
	if (!credit_after(total, r->reported))
		return;
	credit_rx_wait_flag(r, waiting);
	delta = total - r->reported;
	if (delta > r->arrived_since_report)
		r->lost_bytes += delta - r->arrived_since_report;
	r->arrived_since_report = 0;
	r->reported = total;
}

bool
credit_rx_limit(const struct credit_config *c, const struct credit_rx *r, uint64_t *limit,
		uint32_t *epoch)
{
	uint64_t room;

	if (!r->synced)
		return false;
	room = r->occupancy_bytes < c->buffer_bytes ? c->buffer_bytes - r->occupancy_bytes : 0;
	*limit = r->reported + room;
	*epoch = r->sender_epoch;
	return true;
}

bool
credit_rx_update_due(const struct credit_config *c, const struct credit_rx *r, uint64_t now)
{
	uint64_t limit;
	uint32_t epoch;

	if (!credit_rx_limit(c, r, &limit, &epoch))
		return false;
	if (!r->ever_advertised || epoch != r->advertised_epoch)
		return true;
	if (credit_after(limit, r->advertised) && limit - r->advertised >= c->update_bytes)
		return true;
	/* limit - reported is the room left, at most buffer_bytes: no wrap. */
	if (r->sender_waiting && !r->wait_answered && limit - r->reported >= c->update_bytes)
		return true;
	return cc_time_after_eq(now, r->advertised_at + c->refresh_ticks);
}

uint64_t
credit_rx_update_at(const struct credit_config *c, const struct credit_rx *r)
{
	if (!r->ever_advertised)
		return CC_TIME_NEVER;
	return r->advertised_at + c->refresh_ticks;
}

bool
credit_rx_advertise(const struct credit_config *c, struct credit_rx *r, uint64_t now,
		uint64_t *limit, uint32_t *epoch)
{
	if (!credit_rx_limit(c, r, limit, epoch))
		return false;
	r->advertised = *limit;
	r->advertised_at = now;
	r->advertised_epoch = *epoch;
	r->ever_advertised = true;
	r->wait_answered = true;
	r->grants++;
	return true;
}
