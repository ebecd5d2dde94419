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
	if (p->buffer_bytes == 0 || p->update_bytes == 0 || p->update_ticks == 0)
		return -EINVAL;
	if (p->update_bytes > p->buffer_bytes || p->buffer_bytes > (UINT64_C(1) << 62))
		return -EINVAL;
	c->buffer_bytes = p->buffer_bytes;
	c->update_bytes = p->update_bytes;
	c->update_ticks = p->update_ticks;
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
	return t->sent;
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

void
credit_rx_report(struct credit_rx *r, uint32_t epoch, uint64_t total)
{
	uint64_t delta;

	if (!r->synced || epoch != r->sender_epoch) {
		if (r->synced)
			r->sender_restarts++;
		r->synced = true;
		r->sender_epoch = epoch;
		r->reported = total;
		r->arrived_since_report = 0;
		return;
	}
	if (!credit_after(total, r->reported))
		return;
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
	return cc_time_after_eq(now, r->advertised_at + c->update_ticks);
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
	r->grants++;
	return true;
}
