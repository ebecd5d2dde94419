/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "cc_math.h"
#include "cc_time.h"
#include "ecn_sojourn.h"

/* An episode starting this many intervals after the last one resumes it. */
#define ECN_SOJOURN_RESUME_INTERVALS 16

int
ecn_sojourn_config_init(struct ecn_sojourn_config *c, const struct ecn_sojourn_params *p)
{
	if (p->target_ns == 0)
		return -EINVAL;
	if (p->interval_ns != 0 && p->interval_ns < p->target_ns)
		return -EINVAL;
	c->target_ns = p->target_ns;
	c->interval_ns = p->interval_ns;
	return 0;
}

void
ecn_sojourn_init(struct ecn_sojourn *s)
{
	memset(s, 0, sizeof(*s));
}

/*
 * interval / sqrt(count): the control law's spacing between marks. Runs
 * once per mark in a standing-queue episode, so an exact integer square
 * root and one division are affordable. sqrt(count) is taken in Q16.
 */
static uint64_t
sojourn_spacing_ns(uint64_t interval_ns, uint32_t count)
{
	uint64_t root_q16 = cc_isqrt64((uint64_t)count << 32);

	return cc_mul_div(interval_ns, UINT64_C(1) << 16, root_q16);
}

enum ecn_verdict
ecn_sojourn_decide(const struct ecn_sojourn_config *c, struct ecn_sojourn *s,
		uint64_t sojourn_ns, uint64_t now_ns)
{
	if (c->interval_ns == 0)
		return sojourn_ns > c->target_ns ? ECN_VERDICT_MARK : ECN_VERDICT_PASS;

	if (sojourn_ns <= c->target_ns) {
		/* The standing queue is gone: end the episode. */
		if (s->marking)
			s->last_episode_end_ns = now_ns;
		s->above = false;
		s->marking = false;
		return ECN_VERDICT_PASS;
	}

	if (s->marking) {
		if (cc_time_before(now_ns, s->next_mark_ns))
			return ECN_VERDICT_PASS;
		s->count++;
		s->next_mark_ns += sojourn_spacing_ns(c->interval_ns, s->count);
		/* A long pause between packets must not leave a backlog of marks. */
		if (cc_time_before(s->next_mark_ns, now_ns))
			s->next_mark_ns = now_ns + sojourn_spacing_ns(c->interval_ns, s->count);
		return ECN_VERDICT_MARK;
	}

	if (!s->above) {
		s->above = true;
		s->first_above_ns = now_ns + c->interval_ns;
		return ECN_VERDICT_PASS;
	}
	if (cc_time_before(now_ns, s->first_above_ns))
		return ECN_VERDICT_PASS;

	/* Above target for a whole interval: start marking. */
	s->marking = true;
	{
		/* Marks in the previous episode; resume at that rate if it was recent. */
		uint32_t delta = s->count - s->last_count;

		if (delta > 1 && cc_time_before(now_ns, s->last_episode_end_ns +
				ECN_SOJOURN_RESUME_INTERVALS * c->interval_ns))
			s->count = delta;
		else
			s->count = 1;
	}
	s->last_count = s->count;
	s->next_mark_ns = now_ns + sojourn_spacing_ns(c->interval_ns, s->count);
	return ECN_VERDICT_MARK;
}
