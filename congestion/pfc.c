/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "cc_math.h"
#include "cc_time.h"
#include "pfc.h"

/* Longest pause accepted, so that now + pause never wraps past 2^63 apart. */
#define PFC_MAX_PAUSE_TICKS (UINT64_C(1) << 62)

static uint64_t
pfc_ticks(uint64_t rate_bps, uint64_t hz, uint16_t quanta)
{
	return cc_mul_div_ceil((uint64_t)quanta * PFC_QUANTUM_BITS, hz, rate_bps);
}

int
pfc_config_init(struct pfc_config *c, const struct pfc_params *p)
{
	uint64_t pause;

	if (p->port_rate_bps == 0 || p->hz == 0 || p->xoff_bytes == 0 || p->pause_quanta == 0)
		return -EINVAL;
	if (p->xon_bytes >= p->xoff_bytes)
		return -EINVAL;
	pause = pfc_ticks(p->port_rate_bps, p->hz, PFC_QUANTA_MAX);
	if (pause > PFC_MAX_PAUSE_TICKS)
		return -EINVAL;
	c->port_rate_bps = p->port_rate_bps;
	c->hz = p->hz;
	c->xoff_bytes = p->xoff_bytes;
	c->xon_bytes = p->xon_bytes;
	c->pause_quanta = p->pause_quanta;
	c->pause_ticks = pfc_ticks(p->port_rate_bps, p->hz, p->pause_quanta);
	c->refresh_ticks = c->pause_ticks / 2 != 0 ? c->pause_ticks / 2 : 1;
	c->priority_mask = p->priority_mask;
	return 0;
}

void
pfc_init(struct pfc *s)
{
	memset(s, 0, sizeof(*s));
}

uint64_t
pfc_quanta_to_ticks(const struct pfc_config *c, uint16_t quanta)
{
	return pfc_ticks(c->port_rate_bps, c->hz, quanta);
}

/* Close the pause in force at END (its expiry, or a resume before it). */
static void
pfc_rx_close(struct pfc_rx_prio *r, uint64_t end)
{
	r->paused_ticks += cc_time_elapsed(end, r->since);
	r->paused = false;
}

void
pfc_rx_frame(const struct pfc_config *c, struct pfc *s, uint8_t class_enable,
		const uint16_t quanta[PFC_PRIORITIES], uint64_t now)
{
	unsigned int i;

	for (i = 0; i < PFC_PRIORITIES; i++) {
		struct pfc_rx_prio *r = &s->rx[i];

		if ((class_enable >> i & 1) == 0)
			continue;
		/* A pause that has run out ended at its expiry, not now. */
		if (r->paused && cc_time_after_eq(now, r->until))
			pfc_rx_close(r, r->until);
		if (quanta[i] == 0) {
			if (r->paused) {
				r->resumes++;
				pfc_rx_close(r, now);
			}
			continue;
		}
		r->frames++;
		if (!r->paused) {
			r->paused = true;
			r->since = now;
		}
		r->until = now + pfc_quanta_to_ticks(c, quanta[i]);
	}
}

bool
pfc_rx_paused(struct pfc *s, unsigned int prio, uint64_t now)
{
	struct pfc_rx_prio *r = &s->rx[prio % PFC_PRIORITIES];

	if (!r->paused)
		return false;
	if (cc_time_after_eq(now, r->until)) {
		pfc_rx_close(r, r->until);
		return false;
	}
	return true;
}

uint64_t
pfc_rx_paused_ticks(const struct pfc *s, unsigned int prio, uint64_t now)
{
	const struct pfc_rx_prio *r = &s->rx[prio % PFC_PRIORITIES];

	if (!r->paused)
		return r->paused_ticks;
	return r->paused_ticks +
	       cc_time_elapsed(cc_time_before(now, r->until) ? now : r->until, r->since);
}

static uint64_t
pfc_tx_expiry(const struct pfc_config *c, const struct pfc_tx_prio *t, uint64_t now)
{
	uint64_t expiry = t->last_sent + c->pause_ticks;

	return cc_time_before(now, expiry) ? now : expiry;
}

/* A frame of an episode goes out at NOW: a lapse if the last one expired first. */
static void
pfc_tx_gap(const struct pfc_config *c, struct pfc_tx_prio *t, uint64_t now)
{
	uint64_t gap = cc_time_elapsed(now, t->last_sent);

	if (gap >= c->pause_ticks) {
		t->lapses++;
		t->lapsed_ticks += gap - c->pause_ticks;
	}
}

enum pfc_tx_verdict
pfc_tx_decide(const struct pfc_config *c, struct pfc *s, unsigned int prio, uint64_t queue_bytes,
		uint64_t now)
{
	struct pfc_tx_prio *t = &s->tx[prio % PFC_PRIORITIES];

	if ((c->priority_mask >> (prio % PFC_PRIORITIES) & 1) == 0)
		return PFC_TX_NONE;
	if (!t->xoff) {
		if (queue_bytes < c->xoff_bytes)
			return PFC_TX_NONE;
		s->tx_undo[prio % PFC_PRIORITIES] = *t;
		t->xoff = true;
		t->since = now;
		t->last_sent = now;
		t->pauses++;
		return PFC_TX_PAUSE;
	}
	if (queue_bytes <= c->xon_bytes) {
		/* The fabric resumed at the earlier of this XON and its own expiry. */
		s->tx_undo[prio % PFC_PRIORITIES] = *t;
		pfc_tx_gap(c, t, now);
		t->paused_ticks += cc_time_elapsed(pfc_tx_expiry(c, t, now), t->since);
		t->xoff = false;
		t->resumes++;
		return PFC_TX_RESUME;
	}
	if (cc_time_before(now, t->last_sent + c->refresh_ticks))
		return PFC_TX_NONE;
	s->tx_undo[prio % PFC_PRIORITIES] = *t;
	pfc_tx_gap(c, t, now);
	/* A refresh after expiry starts a new episode: the fabric ran meanwhile. */
	if (cc_time_after_eq(now, t->last_sent + c->pause_ticks)) {
		t->paused_ticks += cc_time_elapsed(pfc_tx_expiry(c, t, now), t->since);
		t->since = now;
	}
	t->last_sent = now;
	t->pauses++;
	return PFC_TX_PAUSE;
}

void
pfc_tx_unsent(struct pfc *s, unsigned int prio)
{
	s->tx[prio % PFC_PRIORITIES] = s->tx_undo[prio % PFC_PRIORITIES];
}

uint64_t
pfc_tx_paused_ticks(const struct pfc_config *c, const struct pfc *s, unsigned int prio,
		uint64_t now)
{
	const struct pfc_tx_prio *t = &s->tx[prio % PFC_PRIORITIES];

	if (!t->xoff)
		return t->paused_ticks;
	return t->paused_ticks + cc_time_elapsed(pfc_tx_expiry(c, t, now), t->since);
}

uint64_t
pfc_next_event(const struct pfc_config *c, const struct pfc *s)
{
	uint64_t next = CC_TIME_NEVER;
	unsigned int i;

	for (i = 0; i < PFC_PRIORITIES; i++) {
		const struct pfc_rx_prio *r = &s->rx[i];
		const struct pfc_tx_prio *t = &s->tx[i];

		if (r->paused && (next == CC_TIME_NEVER || cc_time_before(r->until, next)))
			next = r->until;
		if (t->xoff && (next == CC_TIME_NEVER ||
				cc_time_before(t->last_sent + c->refresh_ticks, next)))
			next = t->last_sent + c->refresh_ticks;
	}
	return next;
}
