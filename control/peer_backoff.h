/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PEER_BACKOFF_H
#define LONGSPAN_PEER_BACKOFF_H

/*
 * Reconnect back-off of a peering session: exponential with jitter, pure
 * logic (clock and seed passed in) so tests check it without sockets.
 *
 * After the k-th consecutive failure (k = 1, 2, ...) the ceiling is
 * c_k = min(max_ns, min_ns * 2^(k-1)) and the next attempt waits a delay
 * drawn uniformly from [c_k / 2, c_k] ("equal jitter"): never less than
 * half the ceiling, so a flapping peer is not hammered, and spread, so two
 * gateways that lost each other at the same instant do not retry in step.
 * A session that comes up resets k to 0.
 *
 * Owner: the peering session, on the control thread.
 */

#include <stdint.h>

#include "congestion/cc_rng.h"

struct peer_backoff_params {
	uint64_t min_ns; /* ceiling after the first failure, > 0 */
	uint64_t max_ns; /* >= min_ns */
};

struct peer_backoff {
	unsigned int failures; /* consecutive, since the last success */
	uint64_t last_delay_ns;
	struct cc_rng rng;
};

void peer_backoff_init(struct peer_backoff *b, uint64_t seed);

/* Ceiling c_k for the current failure count (0 before any failure). */
uint64_t peer_backoff_ceiling_ns(const struct peer_backoff *b, const struct peer_backoff_params *p);

/*
 * Record one more failure at NOW_NS and return when to try again (NOW_NS +
 * a delay in [c_k / 2, c_k]).
 */
uint64_t peer_backoff_fail(struct peer_backoff *b, const struct peer_backoff_params *p,
			   uint64_t now_ns);

/* The session came up: the next failure starts again from min_ns. */
void peer_backoff_reset(struct peer_backoff *b);

#endif /* LONGSPAN_PEER_BACKOFF_H */
