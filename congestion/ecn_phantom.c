/* SPDX-License-Identifier: BSD-3-Clause */
#include <assert.h>
#include <errno.h>

#include "cc_math.h"
#include "cc_time.h"
#include "ecn_phantom.h"

/* A full phantom queue plus one more packet stays far from 2^64 in Q32. */
static_assert((ECN_PHANTOM_MAX_CAP_BYTES << CC_Q32_SHIFT) < (UINT64_C(1) << 63),
		"phantom cap must fit in Q32 with headroom");

int
ecn_phantom_config_init(struct ecn_phantom_config *c, const struct ecn_phantom_params *p)
{
	uint64_t cap = p->cap_bytes != 0 ? p->cap_bytes : 2 * p->threshold_bytes;
	uint64_t drain;

	if (p->line_rate_bps == 0 || p->ratio_ppm == 0 || p->ratio_ppm > CC_PPM_ONE)
		return -EINVAL;
	if (p->threshold_bytes == 0 || p->threshold_bytes >= cap ||
			cap > ECN_PHANTOM_MAX_CAP_BYTES)
		return -EINVAL;
	/* bytes/ns = bps * ratio / (8 * 1e9 * 1e6), in Q32, rounded to nearest. */
	{
		cc_u128 den = (cc_u128)8 * CC_NS_PER_SEC * CC_PPM_ONE;

		drain = (uint64_t)((((cc_u128)p->line_rate_bps * p->ratio_ppm << CC_Q32_SHIFT) +
				den / 2) / den);
	}
	if (drain == 0)
		return -EINVAL;

	c->drain_q32_per_ns = drain;
	c->threshold_q32 = p->threshold_bytes << CC_Q32_SHIFT;
	c->cap_q32 = cap << CC_Q32_SHIFT;
	c->full_drain_ns = c->cap_q32 / drain + 1;
	return 0;
}

void
ecn_phantom_init(struct ecn_phantom *v, uint64_t now_ns)
{
	v->vq_q32 = 0;
	v->last_ns = now_ns;
}

/* Drain by the time elapsed since the last update; never below zero. */
static void
phantom_drain(const struct ecn_phantom_config *c, struct ecn_phantom *v, uint64_t now_ns)
{
	uint64_t dt = cc_time_elapsed(now_ns, v->last_ns);
	uint64_t out;

	if (dt == 0)
		return; /* also when the clock went back: keep last_ns */
	v->last_ns = now_ns;
	/* Clamp first: dt * drain could overflow after a long idle period. */
	if (dt >= c->full_drain_ns) {
		v->vq_q32 = 0;
		return;
	}
	out = dt * c->drain_q32_per_ns;
	v->vq_q32 = out >= v->vq_q32 ? 0 : v->vq_q32 - out;
}

uint64_t
ecn_phantom_bytes(const struct ecn_phantom_config *c, struct ecn_phantom *v, uint64_t now_ns)
{
	phantom_drain(c, v, now_ns);
	return v->vq_q32 >> CC_Q32_SHIFT;
}

enum ecn_verdict
ecn_phantom_decide(const struct ecn_phantom_config *c, struct ecn_phantom *v,
		uint32_t pkt_bytes, uint64_t now_ns)
{
	uint64_t add = (uint64_t)pkt_bytes << CC_Q32_SHIFT;

	phantom_drain(c, v, now_ns);
	v->vq_q32 = add >= c->cap_q32 - v->vq_q32 ? c->cap_q32 : v->vq_q32 + add;
	return v->vq_q32 > c->threshold_q32 ? ECN_VERDICT_MARK : ECN_VERDICT_PASS;
}
