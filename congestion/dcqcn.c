/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "cc_math.h"
#include "cc_time.h"
#include "dcqcn.h"

#define MBPS UINT64_C(1000000)
#define US UINT64_C(1000)

void
dcqcn_params_default(enum dcqcn_variant v, uint64_t line_rate_bps,
		struct dcqcn_rp_params *rp, struct dcqcn_np_params *np)
{
	struct dcqcn_rp_params r = {
		.variant = v,
		.line_rate_bps = line_rate_bps,
		.max_cut_ppm = CC_PPM_ONE / 2,
	};
	uint64_t np_interval_ns = 0;

	switch (v) {
	case DCQCN_VARIANT_FIRMWARE:
	default:
		r.variant = DCQCN_VARIANT_FIRMWARE;
		r.min_rate_bps = 1 * MBPS; /* rpg_min_rate */
		r.g = 5.0 / 1024; /* dce_tcp_g = 1019: alpha keeps 1019/1024 */
		r.initial_alpha = 1023.0 / 1024; /* initial_alpha_value = 1023 */
		r.alpha_interval_ns = 1 * US; /* dce_tcp_rtt */
		r.rate_reduce_interval_ns = 4 * US; /* rate_reduce_monitor_period */
		r.max_cut_ppm = 500000; /* rpg_min_dec_fac = 50 */
		r.timer_ns = 300 * US; /* rpg_time_reset */
		r.byte_counter_bytes = 32767 * 64; /* rpg_byte_reset, 64 B units */
		r.threshold = 1; /* rpg_threshold */
		r.ai_bps = 5 * MBPS; /* rpg_ai_rate */
		r.hai_bps = 50 * MBPS; /* rpg_hai_rate */
		r.clamp_tgt_rate = false;
		r.clamp_tgt_rate_after_time_inc = true;
		np_interval_ns = 4 * US; /* min_time_between_cnps */
		break;
	case DCQCN_VARIANT_PAPER:
		r.min_rate_bps = 100 * MBPS; /* the authors' ns-3 MinRate */
		r.g = 1.0 / 256;
		r.initial_alpha = 1.0;
		r.alpha_interval_ns = 55 * US; /* K */
		r.rate_reduce_interval_ns = 0; /* every CNP cuts */
		r.timer_ns = 55 * US; /* T */
		r.byte_counter_bytes = 10 * UINT64_C(1000000); /* B = 10 MB */
		r.threshold = 5; /* F */
		r.ai_bps = 40 * MBPS; /* R_AI */
		r.hai_bps = 400 * MBPS; /* not in the paper: 10 x R_AI */
		r.clamp_tgt_rate = true; /* R_T = R_C at every cut */
		r.clamp_tgt_rate_after_time_inc = false;
		np_interval_ns = 50 * US; /* N */
		break;
	case DCQCN_VARIANT_HPCC:
		/* THEMIS's config.txt for the HPCC simulator, CC_MODE 1. */
		r.min_rate_bps = 100 * MBPS; /* MIN_RATE */
		r.g = 1.0 / 256; /* EWMA_GAIN 0.00390625 */
		r.initial_alpha = 1.0; /* set on the first CNP */
		r.alpha_interval_ns = 1 * US; /* ALPHA_RESUME_INTERVAL */
		r.rate_reduce_interval_ns = 4 * US; /* RATE_DECREASE_INTERVAL */
		r.timer_ns = 900 * US; /* RP_TIMER */
		r.byte_counter_bytes = 0; /* none */
		r.threshold = 1; /* FAST_RECOVERY_TIMES */
		r.ai_bps = 50 * MBPS; /* RATE_AI */
		r.hai_bps = 100 * MBPS; /* RATE_HAI */
		r.clamp_tgt_rate = false; /* CLAMP_TARGET_RATE 0 */
		r.clamp_tgt_rate_after_time_inc = true; /* built into rdma-hw.cc */
		np_interval_ns = 0; /* CNP flag on every ACK of a CE packet */
		break;
	}
	if (rp != NULL)
		*rp = r;
	if (np != NULL)
		np->min_interval_ns = np_interval_ns;
}

const char *
dcqcn_variant_name(enum dcqcn_variant v)
{
	switch (v) {
	case DCQCN_VARIANT_FIRMWARE:
		return "firmware";
	case DCQCN_VARIANT_PAPER:
		return "paper";
	case DCQCN_VARIANT_HPCC:
		return "hpcc";
	default:
		return "?";
	}
}

/* A fraction in (0, 1] as Q32, rounded to nearest; 0 if out of range. */
static uint64_t
fraction_to_q32(double f)
{
	if (!(f > 0.0) || f > 1.0)
		return 0;
	return (uint64_t)(f * (double)CC_Q32_ONE + 0.5);
}

int
dcqcn_rp_config_init(struct dcqcn_rp_config *c, const struct dcqcn_rp_params *p)
{
	struct dcqcn_rp_config n;

	if ((unsigned int)p->variant >= DCQCN_VARIANT_MAX)
		return -EINVAL;
	if (p->line_rate_bps == 0 || p->min_rate_bps == 0 || p->min_rate_bps > p->line_rate_bps)
		return -EINVAL;
	if (p->rate_on_first_cnp_bps > p->line_rate_bps)
		return -EINVAL;
	if (p->alpha_interval_ns == 0 || p->timer_ns == 0 || p->threshold == 0)
		return -EINVAL;
	if (p->variant != DCQCN_VARIANT_PAPER && p->rate_reduce_interval_ns == 0)
		return -EINVAL;
	if (p->max_cut_ppm == 0 || p->max_cut_ppm > CC_PPM_ONE)
		return -EINVAL;

	memset(&n, 0, sizeof(n));
	n.variant = p->variant;
	n.g_q32 = fraction_to_q32(p->g);
	if (n.g_q32 == 0 || n.g_q32 >= CC_Q32_ONE)
		return -EINVAL;
	n.one_minus_g_q32 = CC_Q32_ONE - n.g_q32;
	n.initial_alpha_q32 = fraction_to_q32(p->initial_alpha);
	if (n.initial_alpha_q32 == 0)
		return -EINVAL;
	n.line_rate_bps = p->line_rate_bps;
	n.min_rate_bps = p->min_rate_bps;
	n.rate_on_first_cnp_bps = p->rate_on_first_cnp_bps;
	n.alpha_interval_ns = p->alpha_interval_ns;
	n.rate_reduce_interval_ns = p->rate_reduce_interval_ns;
	n.max_cut_ppm = p->max_cut_ppm;
	n.timer_ns = p->timer_ns;
	n.byte_counter_bytes = p->byte_counter_bytes;
	n.threshold = p->threshold;
	n.ai_bps = p->ai_bps;
	n.hai_bps = p->hai_bps;
	n.clamp_tgt_rate = p->clamp_tgt_rate;
	n.clamp_tgt_rate_after_time_inc = p->clamp_tgt_rate_after_time_inc;
	n.release_at_line_rate = p->variant != DCQCN_VARIANT_HPCC;
	*c = n;
	return 0;
}

static void
rp_reset(const struct dcqcn_rp_config *c, struct dcqcn_rp *rp)
{
	rp->rate_bps = c->line_rate_bps;
	rp->target_bps = c->line_rate_bps;
	rp->alpha_q32 = c->initial_alpha_q32;
	rp->alpha_next_ns = CC_TIME_NEVER;
	rp->cut_next_ns = CC_TIME_NEVER;
	rp->last_cut_ns = 0;
	rp->timer_next_ns = CC_TIME_NEVER;
	rp->bytes = 0;
	rp->t_count = 0;
	rp->bc_count = 0;
	rp->active = false;
	rp->alpha_cnp = false;
	rp->cut_pending = false;
}

void
dcqcn_rp_init(const struct dcqcn_rp_config *c, struct dcqcn_rp *rp)
{
	memset(rp, 0, sizeof(*rp));
	rp_reset(c, rp);
}

/* alpha = (1 - g) alpha + g * cnp, in Q32 (floored, so it reaches 0). */
static uint64_t
rp_alpha_step(const struct dcqcn_rp_config *c, uint64_t alpha, bool cnp)
{
	return cc_mul_q32(alpha, c->one_minus_g_q32) + (cnp ? c->g_q32 : 0);
}

static void
rp_cut(const struct dcqcn_rp_config *c, struct dcqcn_rp *rp, uint64_t now)
{
	uint64_t cut, max_cut;

	if (c->clamp_tgt_rate || (c->clamp_tgt_rate_after_time_inc && rp->t_count > 0))
		rp->target_bps = rp->rate_bps;
	/* rate * alpha / 2, with alpha in Q32: one shift of 33. */
	cut = (uint64_t)(((cc_u128)rp->rate_bps * rp->alpha_q32) >> (CC_Q32_SHIFT + 1));
	max_cut = cc_mul_div(rp->rate_bps, c->max_cut_ppm, CC_PPM_ONE);
	if (cut > max_cut)
		cut = max_cut;
	rp->rate_bps -= cut;
	if (rp->rate_bps < c->min_rate_bps)
		rp->rate_bps = c->min_rate_bps;
	rp->t_count = 0;
	rp->bc_count = 0;
	rp->bytes = 0;
	rp->timer_next_ns = now + c->timer_ns;
	rp->last_cut_ns = now;
	rp->cut_pending = false;
	rp->n_cut++;
}

static uint32_t
sat_inc(uint32_t x)
{
	return x == UINT32_MAX ? x : x + 1;
}

/* One rate increase event from the timer (from_timer) or the byte counter. */
static void
rp_increase(const struct dcqcn_rp_config *c, struct dcqcn_rp *rp, bool from_timer)
{
	uint32_t x = from_timer ? rp->t_count : rp->bc_count;
	uint32_t y = from_timer ? rp->bc_count : rp->t_count;
	uint32_t f = c->threshold;
	bool has_bc = c->byte_counter_bytes != 0;
	uint64_t step = 0;

	if (x < f) {
		rp->n_fast_recovery++;
	} else if (has_bc ? y < f : x == f) {
		step = c->ai_bps;
		rp->n_additive++;
	} else {
		uint64_t i;

		if (c->variant == DCQCN_VARIANT_HPCC)
			i = 1;
		else if (has_bc)
			i = (uint64_t)(x < y ? x : y) - f + 1;
		else
			i = (uint64_t)x - f;
		step = cc_mul_div(c->hai_bps, i, 1);
		rp->n_hyper++;
	}
	if (step >= c->line_rate_bps - rp->target_bps)
		rp->target_bps = c->line_rate_bps;
	else
		rp->target_bps += step;
	/* Average rounded up, so that R_C reaches R_T instead of creeping. */
	rp->rate_bps = rp->rate_bps + (rp->target_bps - rp->rate_bps + 1) / 2;

	if (from_timer)
		rp->t_count = sat_inc(rp->t_count);
	else
		rp->bc_count = sat_inc(rp->bc_count);

	if (c->release_at_line_rate && rp->rate_bps >= c->line_rate_bps && !rp->cut_pending) {
		rp_reset(c, rp);
		rp->n_release++;
	}
}

/* When the pending cut, if any, happens. */
static uint64_t
rp_cut_time(const struct dcqcn_rp_config *c, const struct dcqcn_rp *rp)
{
	if (!rp->cut_pending)
		return CC_TIME_NEVER;
	if (c->variant == DCQCN_VARIANT_HPCC)
		return rp->cut_next_ns;
	return rp->last_cut_ns + c->rate_reduce_interval_ns;
}

/* True when timer events can no longer change the rate (HPCC at line rate). */
static bool
rp_timer_idle(const struct dcqcn_rp_config *c, const struct dcqcn_rp *rp)
{
	return rp->rate_bps == c->line_rate_bps && rp->target_bps == c->line_rate_bps;
}

/* Number of period-spaced events at t, t + period, ... that are <= now. */
static uint64_t
events_due(uint64_t t, uint64_t period, uint64_t now)
{
	return (now - t) / period + 1;
}

void
dcqcn_rp_advance(const struct dcqcn_rp_config *c, struct dcqcn_rp *rp, uint64_t now)
{
	while (rp->active) {
		uint64_t ta = rp->alpha_next_ns;
		uint64_t tt = rp->timer_next_ns;
		uint64_t tc = rp_cut_time(c, rp);

		/* Earliest due event; at equal times alpha, then timer, then cut. */
		if (ta != CC_TIME_NEVER && cc_time_after_eq(now, ta) &&
				(tt == CC_TIME_NEVER || !cc_time_after(ta, tt)) &&
				(tc == CC_TIME_NEVER || !cc_time_after(ta, tc))) {
			if (rp->alpha_q32 == 0 && !rp->alpha_cnp) {
				/* Decayed to zero: the remaining updates change nothing. */
				rp->alpha_next_ns = ta + events_due(ta, c->alpha_interval_ns, now) *
						c->alpha_interval_ns;
				continue;
			}
			rp->alpha_q32 = rp_alpha_step(c, rp->alpha_q32, rp->alpha_cnp);
			rp->alpha_cnp = false;
			rp->alpha_next_ns = ta + c->alpha_interval_ns;
		} else if (tt != CC_TIME_NEVER && cc_time_after_eq(now, tt) &&
				(tc == CC_TIME_NEVER || !cc_time_after(tt, tc))) {
			if (rp_timer_idle(c, rp)) {
				uint64_t k = events_due(tt, c->timer_ns, now);

				rp->t_count = k >= UINT32_MAX - rp->t_count ? UINT32_MAX :
						rp->t_count + (uint32_t)k;
				rp->timer_next_ns = tt + k * c->timer_ns;
				continue;
			}
			rp->timer_next_ns = tt + c->timer_ns;
			rp_increase(c, rp, true);
		} else if (tc != CC_TIME_NEVER && cc_time_after_eq(now, tc)) {
			if (c->variant == DCQCN_VARIANT_HPCC)
				rp->cut_next_ns = tc + c->rate_reduce_interval_ns;
			rp_cut(c, rp, tc);
		} else {
			break;
		}
	}
}

static void
rp_activate(const struct dcqcn_rp_config *c, struct dcqcn_rp *rp, uint64_t now)
{
	rp->active = true;
	rp->alpha_q32 = c->initial_alpha_q32;
	rp->alpha_cnp = false; /* the first CNP starts alpha, it is not a sample */
	rp->alpha_next_ns = now + c->alpha_interval_ns;
	if (c->rate_on_first_cnp_bps != 0)
		rp->rate_bps = c->rate_on_first_cnp_bps;
	rp->target_bps = rp->rate_bps;
	rp->t_count = 0;
	rp->bc_count = 0;
	rp->bytes = 0;
	rp->timer_next_ns = CC_TIME_NEVER;
}

void
dcqcn_rp_on_cnp(const struct dcqcn_rp_config *c, struct dcqcn_rp *rp, uint64_t now)
{
	bool first = !rp->active;

	dcqcn_rp_advance(c, rp, now);
	rp->n_cnp++;
	if (first)
		rp_activate(c, rp, now);

	switch (c->variant) {
	case DCQCN_VARIANT_PAPER:
		/* Cut at once, then fold this CNP into alpha; K restarts. */
		rp_cut(c, rp, now);
		rp->alpha_q32 = rp_alpha_step(c, rp->alpha_q32, true);
		rp->alpha_next_ns = now + c->alpha_interval_ns;
		break;
	case DCQCN_VARIANT_FIRMWARE:
		if (!first)
			rp->alpha_cnp = true;
		if (first || cc_time_after_eq(now, rp->last_cut_ns + c->rate_reduce_interval_ns))
			rp_cut(c, rp, now);
		else
			rp->cut_pending = true;
		break;
	case DCQCN_VARIANT_HPCC:
	default:
		if (first) {
			/* rdma-hw.cc: first check 1 ns after the alpha update. */
			rp->cut_next_ns = now + c->rate_reduce_interval_ns + 1;
		} else {
			rp->alpha_cnp = true;
			if (!cc_time_after(rp->cut_next_ns, now))
				rp->cut_next_ns += events_due(rp->cut_next_ns,
						c->rate_reduce_interval_ns, now) *
						c->rate_reduce_interval_ns;
		}
		rp->cut_pending = true;
		break;
	}
}

void
dcqcn_rp_on_tx(const struct dcqcn_rp_config *c, struct dcqcn_rp *rp, uint64_t bytes,
		uint64_t now)
{
	dcqcn_rp_advance(c, rp, now);
	if (!rp->active || c->byte_counter_bytes == 0)
		return;
	rp->bytes += bytes;
	while (rp->active && rp->bytes >= c->byte_counter_bytes) {
		rp->bytes -= c->byte_counter_bytes;
		rp_increase(c, rp, false);
	}
}

uint64_t
dcqcn_rp_next_event(const struct dcqcn_rp_config *c, const struct dcqcn_rp *rp)
{
	uint64_t t = CC_TIME_NEVER;
	uint64_t tc;

	if (!rp->active)
		return CC_TIME_NEVER;
	tc = rp_cut_time(c, rp);
	if (tc != CC_TIME_NEVER)
		t = tc;
	if (rp->timer_next_ns != CC_TIME_NEVER && !rp_timer_idle(c, rp) &&
			(t == CC_TIME_NEVER || cc_time_before(rp->timer_next_ns, t)))
		t = rp->timer_next_ns;
	return t;
}

int
dcqcn_np_config_init(struct dcqcn_np_config *c, const struct dcqcn_np_params *p)
{
	c->min_interval_ns = p->min_interval_ns;
	return 0;
}

void
dcqcn_np_init(struct dcqcn_np *np)
{
	np->last_cnp_ns = 0;
	np->sent = false;
}

enum dcqcn_np_verdict
dcqcn_np_on_ce(const struct dcqcn_np_config *c, struct dcqcn_np *np, uint64_t now)
{
	if (np->sent && c->min_interval_ns != 0 &&
			cc_time_before(now, np->last_cnp_ns + c->min_interval_ns))
		return DCQCN_NP_SUPPRESS;
	np->sent = true;
	np->last_cnp_ns = now;
	return DCQCN_NP_SEND_CNP;
}
