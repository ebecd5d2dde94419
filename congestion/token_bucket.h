/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_TOKEN_BUCKET_H
#define LONGSPAN_TOKEN_BUCKET_H

/*
 * A token-bucket shaper in caller-chosen clock ticks: nanoseconds (the
 * simulator, hz = 1e9) or TSC cycles (the dataplane, hz = rte_get_tsc_hz()).
 * Used per WAN link by the traffic manager and per QP by mechanism C.
 *
 * Tokens are bytes in Q32 fixed point (1 byte = 2^32) and the fill rate is
 * bytes per tick in Q32, rounded to nearest: at 3 GHz a 1 Mb/s rate is
 * 4.2e-5 bytes per tick, still 179,000 units of 2^-32, so the rate error is
 * below 1e-5. The bucket may go into debt: a packet may be sent whenever
 * the balance is positive (token_bucket_conform() with allow_debt) so that
 * a shaper never stalls on a packet larger than its burst; the debt is
 * repaid before the next one. Elapsed time is clamped before the multiply,
 * so long idle periods cannot overflow.
 *
 * Split: token_bucket_config (rate, burst; precomputed; rebuilt by
 * token_bucket_config_init() when the rate changes) and struct token_bucket
 * (balance and time), owned by one thread.
 */

#include <stdbool.h>
#include <stdint.h>

/* Largest burst accepted (keeps Q32 balances below 2^62). */
#define TOKEN_BUCKET_MAX_BURST_BYTES (UINT64_C(1) << 30)

struct token_bucket_config {
	uint64_t rate_q32; /* bytes per tick, Q32, > 0 */
	int64_t burst_q32; /* bucket depth, Q32 */
	uint64_t fill_ticks; /* ticks that refill from the deepest debt to full */
	uint64_t hz; /* ticks per second */
	uint64_t rate_bps; /* as configured, for reports */
};

struct token_bucket {
	int64_t tokens_q32; /* balance, Q32 bytes; negative = debt */
	uint64_t last_tick;
};

/*
 * Build C for rate_bps (> 0) and burst_bytes (1..TOKEN_BUCKET_MAX_BURST_BYTES)
 * in a clock of hz ticks per second (> 0). Returns 0 or -EINVAL (also when
 * the rate is below 2^-32 bytes per tick or above 2^30 bytes per tick).
 */
int token_bucket_config_init(struct token_bucket_config *c, uint64_t rate_bps,
		uint64_t burst_bytes, uint64_t hz);

/* Start full at now. */
void token_bucket_init(const struct token_bucket_config *c, struct token_bucket *tb, uint64_t now);

/* Add the tokens earned up to now (capped at the burst). */
void token_bucket_refill(const struct token_bucket_config *c, struct token_bucket *tb,
		uint64_t now);

/*
 * Try to send BYTES at now. Without allow_debt: succeeds, taking the
 * tokens, only if the balance covers the packet. With allow_debt: succeeds
 * whenever the balance is positive, possibly leaving a debt. Returns true
 * if the packet may go now.
 */
bool token_bucket_conform(const struct token_bucket_config *c, struct token_bucket *tb,
		uint32_t bytes, uint64_t now, bool allow_debt);

/*
 * Ticks from now until token_bucket_conform(c, tb, bytes, ., allow_debt)
 * would succeed, 0 if it would succeed now. Does not take tokens. A packet
 * larger than the burst without allow_debt never conforms: the result is
 * then UINT64_MAX.
 */
uint64_t token_bucket_wait(const struct token_bucket_config *c, struct token_bucket *tb,
		uint32_t bytes, uint64_t now, bool allow_debt);

/* Take BYTES unconditionally (a packet that had to go anyway). */
void token_bucket_charge(const struct token_bucket_config *c, struct token_bucket *tb,
		uint32_t bytes, uint64_t now);

/* Whole bytes in the bucket at now (negative in debt). */
int64_t token_bucket_tokens(const struct token_bucket_config *c, struct token_bucket *tb,
		uint64_t now);

/*
 * Change the rate at now, keeping the balance: tokens earned so far are
 * counted at the old rate first. Returns 0 or -EINVAL (C unchanged).
 */
int token_bucket_set_rate(struct token_bucket_config *c, struct token_bucket *tb,
		uint64_t rate_bps, uint64_t now);

#endif /* LONGSPAN_TOKEN_BUCKET_H */
