/* SPDX-License-Identifier: BSD-3-Clause */
/* Reconnect back-off with equal jitter (peer_backoff.h). */
#include "peer_backoff.h"

void
peer_backoff_init(struct peer_backoff *b, uint64_t seed)
{
	b->failures = 0;
	b->last_delay_ns = 0;
	cc_rng_seed(&b->rng, seed);
}

uint64_t
peer_backoff_ceiling_ns(const struct peer_backoff *b, const struct peer_backoff_params *p)
{
	uint64_t c = p->min_ns;
	unsigned int k;

	if (b->failures == 0)
		return 0;
	/* Doubling stops at max_ns, so c never overflows. */
	for (k = 1; k < b->failures && c < p->max_ns; k++)
		c = c > p->max_ns / 2 ? p->max_ns : 2 * c;
	return c < p->max_ns ? c : p->max_ns;
}

uint64_t
peer_backoff_fail(struct peer_backoff *b, const struct peer_backoff_params *p, uint64_t now_ns)
{
	uint64_t c, lo;

	if (b->failures < UINT32_MAX)
		b->failures++;
	c = peer_backoff_ceiling_ns(b, p);
	lo = c / 2;
	/* Uniform in [lo, c]; the modulo bias, (c - lo) / 2^64, is negligible. */
	b->last_delay_ns = lo + cc_rng_next_u64(&b->rng) % (c - lo + 1);
	return now_ns + b->last_delay_ns;
}

void
peer_backoff_reset(struct peer_backoff *b)
{
	b->failures = 0;
	b->last_delay_ns = 0;
}
