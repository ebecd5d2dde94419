/* SPDX-License-Identifier: BSD-3-Clause */
#include <assert.h>
#include <errno.h>
#include <stddef.h>

#include "cc_math.h"
#include "ecn_red.h"

/*
 * The slope carries 16 extra fraction bits so that a wide ramp with a small
 * Pmax (1% over 12.5 MB is 3.4 Q32 units per byte) keeps five significant
 * digits. (q - Kmin) <= 2^32 and slope_q48 <= 2^48 keep the product below
 * 2^64 only because the product is bounded by Pmax_q32 << 16 <= 2^48 on the
 * ramp.
 */
#define ECN_RED_SLOPE_SHIFT 16

/* Pmax_q32 << 16 (at most 2^48) must not overflow; the product on the ramp
 * is bounded by it. */
static_assert(CC_Q32_SHIFT + ECN_RED_SLOPE_SHIFT <= 63, "RED slope overflows");

static int
ecn_red_fail(const char **why, const char *msg)
{
	if (why != NULL)
		*why = msg;
	return -EINVAL;
}

int
ecn_red_params_check(const struct ecn_red_params *p, const char **why)
{
	if (p->kmax_bytes <= p->kmin_bytes)
		return ecn_red_fail(why, "kmin must be below kmax");
	if (p->kmax_bytes - p->kmin_bytes > ECN_RED_MAX_RANGE_BYTES)
		return ecn_red_fail(why, "kmax - kmin must be at most 4 GiB");
	if (p->pmax_ppm == 0 || p->pmax_ppm > CC_PPM_ONE)
		return ecn_red_fail(why, "pmax must be above 0 and at most 100%");
	return 0;
}

int
ecn_red_config_init(struct ecn_red_config *c, const struct ecn_red_params *p)
{
	uint64_t range;

	if (ecn_red_params_check(p, NULL) < 0)
		return -EINVAL;
	range = p->kmax_bytes - p->kmin_bytes;

	c->kmin_bytes = p->kmin_bytes;
	c->kmax_bytes = p->kmax_bytes;
	c->pmax_q32 = cc_ppm_to_q32(p->pmax_ppm);
	c->slope_q48 = (c->pmax_q32 << ECN_RED_SLOPE_SHIFT) / range;
	return 0;
}

void
ecn_red_init(struct ecn_red *r, uint64_t seed)
{
	cc_rng_seed(&r->rng, seed);
}

uint64_t
ecn_red_prob_q32(const struct ecn_red_config *c, uint64_t queue_bytes)
{
	if (queue_bytes <= c->kmin_bytes)
		return 0;
	if (queue_bytes > c->kmax_bytes)
		return CC_Q32_ONE;
	return ((queue_bytes - c->kmin_bytes) * c->slope_q48) >> ECN_RED_SLOPE_SHIFT;
}

enum ecn_verdict
ecn_red_decide(const struct ecn_red_config *c, struct ecn_red *r, uint64_t queue_bytes)
{
	uint64_t p;

	if (queue_bytes <= c->kmin_bytes)
		return ECN_VERDICT_PASS;
	if (queue_bytes > c->kmax_bytes)
		return ECN_VERDICT_MARK;
	p = ecn_red_prob_q32(c, queue_bytes);
	/* A uniform 32-bit draw u marks with probability p / 2^32 when u < p. */
	return (uint64_t)cc_rng_next_u32(&r->rng) < p ? ECN_VERDICT_MARK : ECN_VERDICT_PASS;
}
