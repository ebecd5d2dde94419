/* SPDX-License-Identifier: BSD-3-Clause */
#include <assert.h>
#include <errno.h>

#include "cc_math.h"
#include "cc_time.h"
#include "token_bucket.h"

__extension__ typedef __int128 tb_i128;

/* The deepest debt a bucket may run into, in bytes (Q32: 2^62). */
#define TOKEN_BUCKET_MAX_DEBT_BYTES TOKEN_BUCKET_MAX_BURST_BYTES

/* Burst and deepest debt together stay within int64_t in Q32. */
static_assert((TOKEN_BUCKET_MAX_BURST_BYTES << CC_Q32_SHIFT) +
		(TOKEN_BUCKET_MAX_DEBT_BYTES << CC_Q32_SHIFT) <= (UINT64_C(1) << 63),
		"token bucket range must fit in int64_t Q32");

static const int64_t tb_max_debt_q32 = (int64_t)(TOKEN_BUCKET_MAX_DEBT_BYTES << CC_Q32_SHIFT);

int
token_bucket_config_init(struct token_bucket_config *c, uint64_t rate_bps,
		uint64_t burst_bytes, uint64_t hz)
{
	cc_u128 rate;

	if (rate_bps == 0 || hz == 0 || burst_bytes == 0 ||
			burst_bytes > TOKEN_BUCKET_MAX_BURST_BYTES)
		return -EINVAL;
	/* bytes per tick = bps / (8 hz); Q32, rounded to nearest. */
	rate = (((cc_u128)rate_bps << CC_Q32_SHIFT) + 4 * (cc_u128)hz) / (8 * (cc_u128)hz);
	if (rate == 0 || rate > ((cc_u128)1 << 62))
		return -EINVAL;

	c->rate_q32 = (uint64_t)rate;
	c->burst_q32 = (int64_t)(burst_bytes << CC_Q32_SHIFT);
	c->fill_ticks = (uint64_t)(((cc_u128)c->burst_q32 + (cc_u128)tb_max_debt_q32 +
			c->rate_q32 - 1) / c->rate_q32);
	c->hz = hz;
	c->rate_bps = rate_bps;
	return 0;
}

void
token_bucket_init(const struct token_bucket_config *c, struct token_bucket *tb, uint64_t now)
{
	tb->tokens_q32 = c->burst_q32;
	tb->last_tick = now;
}

void
token_bucket_refill(const struct token_bucket_config *c, struct token_bucket *tb, uint64_t now)
{
	uint64_t dt = cc_time_elapsed(now, tb->last_tick);
	tb_i128 t;

	if (dt == 0)
		return;
	tb->last_tick = now;
	if (dt >= c->fill_ticks) {
		tb->tokens_q32 = c->burst_q32;
		return;
	}
	t = (tb_i128)tb->tokens_q32 + (tb_i128)((cc_u128)dt * c->rate_q32);
	tb->tokens_q32 = t > c->burst_q32 ? c->burst_q32 : (int64_t)t;
}

/* BYTES in Q32: up to 2^64 - 2^32, so kept in 128 bits. */
static tb_i128
tb_bytes_q32(uint32_t bytes)
{
	return (tb_i128)bytes << CC_Q32_SHIFT;
}

static void
tb_take(struct token_bucket *tb, uint32_t bytes)
{
	tb_i128 t = (tb_i128)tb->tokens_q32 - tb_bytes_q32(bytes);

	tb->tokens_q32 = t < -tb_max_debt_q32 ? -tb_max_debt_q32 : (int64_t)t;
}

bool
token_bucket_conform(const struct token_bucket_config *c, struct token_bucket *tb,
		uint32_t bytes, uint64_t now, bool allow_debt)
{
	token_bucket_refill(c, tb, now);
	if (allow_debt ? tb->tokens_q32 > 0 : tb->tokens_q32 >= tb_bytes_q32(bytes)) {
		tb_take(tb, bytes);
		return true;
	}
	return false;
}

uint64_t
token_bucket_wait(const struct token_bucket_config *c, struct token_bucket *tb,
		uint32_t bytes, uint64_t now, bool allow_debt)
{
	tb_i128 need_q32 = tb_bytes_q32(bytes);
	tb_i128 missing;

	token_bucket_refill(c, tb, now);
	if (allow_debt) {
		/* Conformant once the balance is positive: one unit above zero. */
		missing = (tb_i128)1 - tb->tokens_q32;
	} else {
		if (need_q32 > c->burst_q32)
			return UINT64_MAX;
		missing = need_q32 - tb->tokens_q32;
	}
	if (missing <= 0)
		return 0;
	return (uint64_t)(((cc_u128)missing + c->rate_q32 - 1) / c->rate_q32);
}

void
token_bucket_charge(const struct token_bucket_config *c, struct token_bucket *tb,
		uint32_t bytes, uint64_t now)
{
	token_bucket_refill(c, tb, now);
	tb_take(tb, bytes);
}

int64_t
token_bucket_tokens(const struct token_bucket_config *c, struct token_bucket *tb, uint64_t now)
{
	token_bucket_refill(c, tb, now);
	/* Arithmetic shift would round debts towards minus infinity; be explicit. */
	if (tb->tokens_q32 >= 0)
		return tb->tokens_q32 >> CC_Q32_SHIFT;
	return -(int64_t)((uint64_t)(-tb->tokens_q32) >> CC_Q32_SHIFT);
}

int
token_bucket_set_rate(struct token_bucket_config *c, struct token_bucket *tb,
		uint64_t rate_bps, uint64_t now)
{
	struct token_bucket_config n;
	int rc;

	rc = token_bucket_config_init(&n, rate_bps, (uint64_t)c->burst_q32 >> CC_Q32_SHIFT, c->hz);
	if (rc != 0)
		return rc;
	token_bucket_refill(c, tb, now);
	*c = n;
	return 0;
}
