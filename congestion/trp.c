/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "cc_math.h"
#include "trp.h"

#define TRP_DEFAULT_BURST_BYTES 8192 /* two 4 KB RoCE packets */

void
trp_params_default(struct trp_params *p, uint64_t line_rate_bps, uint64_t hold_ns)
{
	memset(p, 0, sizeof(*p));
	p->line_rate_bps = line_rate_bps;
	p->min_rate_bps = line_rate_bps / 1000 != 0 ? line_rate_bps / 1000 : 1;
	p->cut_ppm = CC_PPM_ONE / 2;
	p->cut_interval_ns = 4000;
	p->hold_ns = hold_ns;
	p->ramp_interval_ns = hold_ns / 8 != 0 ? hold_ns / 8 : 1;
	p->ramp_steps = 5;
	p->burst_bytes = TRP_DEFAULT_BURST_BYTES;
}

int
trp_config_init(struct trp_config *c, const struct trp_params *p)
{
	struct token_bucket_config probe;

	if (p->line_rate_bps == 0 || p->min_rate_bps == 0 || p->min_rate_bps > p->line_rate_bps)
		return -EINVAL;
	if (p->cut_ppm == 0 || p->cut_ppm > CC_PPM_ONE)
		return -EINVAL;
	if (p->hold_ns == 0 || p->ramp_interval_ns == 0 || p->ramp_steps == 0)
		return -EINVAL;
	/* Both ends of the rate range must make a valid bucket. */
	if (token_bucket_config_init(&probe, p->min_rate_bps, p->burst_bytes, CC_NS_PER_SEC) ||
			token_bucket_config_init(&probe, p->line_rate_bps, p->burst_bytes,
					CC_NS_PER_SEC))
		return -EINVAL;

	c->line_rate_bps = p->line_rate_bps;
	c->min_rate_bps = p->min_rate_bps;
	c->keep_q32 = CC_Q32_ONE - cc_ppm_to_q32(p->cut_ppm);
	c->cut_interval_ns = p->cut_interval_ns;
	c->hold_ns = p->hold_ns;
	c->ramp_interval_ns = p->ramp_interval_ns;
	c->ramp_steps = p->ramp_steps;
	c->burst_bytes = p->burst_bytes;
	return 0;
}

void
trp_init(struct trp *t)
{
	memset(t, 0, sizeof(*t));
	t->phase = TRP_INACTIVE;
	t->next_ns = CC_TIME_NEVER;
}

/* Set the shaping rate at time now; valid by trp_config_init()'s checks. */
static void
trp_set_rate(const struct trp_config *c, struct trp *t, uint64_t rate_bps, uint64_t now)
{
	if (rate_bps < c->min_rate_bps)
		rate_bps = c->min_rate_bps;
	if (rate_bps > c->line_rate_bps)
		rate_bps = c->line_rate_bps;
	t->rate_bps = rate_bps;
	(void)token_bucket_set_rate(&t->tb_cfg, &t->tb, rate_bps, now);
}

static void
trp_release(struct trp *t)
{
	t->phase = TRP_INACTIVE;
	t->next_ns = CC_TIME_NEVER;
	t->n_release++;
}

void
trp_advance(const struct trp_config *c, struct trp *t, uint64_t now_ns)
{
	while (t->phase != TRP_INACTIVE && cc_time_after_eq(now_ns, t->next_ns)) {
		uint64_t at = t->next_ns;

		if (t->phase == TRP_HOLD) {
			t->phase = TRP_RAMP;
			t->steps = 0;
		}
		if (t->rate_bps >= t->target_bps) {
			trp_release(t);
			break;
		}
		/* One fast recovery step toward the pre-cut rate, rounded up. */
		trp_set_rate(c, t, t->rate_bps + (t->target_bps - t->rate_bps + 1) / 2, at);
		t->steps++;
		if (t->steps >= c->ramp_steps || t->rate_bps >= t->target_bps)
			trp_release(t);
		else
			t->next_ns = at + c->ramp_interval_ns;
	}
}

void
trp_on_cnp(const struct trp_config *c, struct trp *t, uint64_t now_ns, uint64_t measured_rate_bps)
{
	uint64_t base;

	trp_advance(c, t, now_ns);
	if (t->phase == TRP_INACTIVE) {
		base = measured_rate_bps != 0 && measured_rate_bps < c->line_rate_bps ?
				measured_rate_bps : c->line_rate_bps;
		/* A fresh bucket at the base rate; trp_set_rate() then cuts it. */
		(void)token_bucket_config_init(&t->tb_cfg, base, c->burst_bytes, CC_NS_PER_SEC);
		token_bucket_init(&t->tb_cfg, &t->tb, now_ns);
		t->rate_bps = base;
		t->target_bps = base;
	} else {
		base = t->rate_bps;
		if (measured_rate_bps != 0 && measured_rate_bps < base)
			base = measured_rate_bps;
		if (t->phase == TRP_RAMP)
			t->target_bps = base; /* the ramp overshot: aim at the rate before this cut */
		if (t->n_cut != 0 && cc_time_before(now_ns, t->last_cut_ns + c->cut_interval_ns)) {
			/* Too soon for another cut: only extend the hold. */
			t->phase = TRP_HOLD;
			t->next_ns = now_ns + c->hold_ns;
			return;
		}
	}
	trp_set_rate(c, t, cc_mul_q32(base, c->keep_q32), now_ns);
	t->last_cut_ns = now_ns;
	t->n_cut++;
	t->phase = TRP_HOLD;
	t->steps = 0;
	t->next_ns = now_ns + c->hold_ns;
}

struct trp_verdict
trp_allow(const struct trp_config *c, struct trp *t, uint32_t bytes, uint64_t now_ns)
{
	struct trp_verdict v = { .action = TRP_SEND, .until_ns = now_ns };
	uint64_t wait;

	trp_advance(c, t, now_ns);
	if (t->phase == TRP_INACTIVE)
		return v;
	if (token_bucket_conform(&t->tb_cfg, &t->tb, bytes, now_ns, true))
		return v;
	wait = token_bucket_wait(&t->tb_cfg, &t->tb, bytes, now_ns, true);
	v.action = TRP_DELAY;
	v.until_ns = now_ns + wait;
	/* The rate rises (or shaping ends) at next_ns: retry no later. */
	if (cc_time_before(t->next_ns, v.until_ns))
		v.until_ns = t->next_ns;
	return v;
}

bool
trp_active(const struct trp_config *c, struct trp *t, uint64_t now_ns)
{
	trp_advance(c, t, now_ns);
	return t->phase != TRP_INACTIVE;
}

uint64_t
trp_next_event(const struct trp *t)
{
	return t->phase == TRP_INACTIVE ? CC_TIME_NEVER : t->next_ns;
}

uint64_t
trp_rate_bps(const struct trp_config *c, const struct trp *t)
{
	return t->phase == TRP_INACTIVE ? c->line_rate_bps : t->rate_bps;
}
