/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_ECN_RED_H
#define LONGSPAN_ECN_RED_H

/*
 * RED-style ECN marking on the instantaneous queue size, as DCQCN's
 * congestion point (switch) does it:
 *
 *   p(q) = 0                                  q <= Kmin
 *          Pmax * (q - Kmin) / (Kmax - Kmin)  Kmin < q <= Kmax
 *          1                                  q > Kmax
 *
 * No queue averaging: DCQCN and DCTCP react to the instantaneous queue, and
 * averaging would only add delay to a loop that is already one RTT long.
 * The probability is a Q32 fraction computed in integers; the Bernoulli
 * trial draws 32 bits from the queue's own generator (struct cc_rng), so
 * each queue is written by exactly one thread and results are reproducible
 * from the seed.
 *
 * Split: params (user units) -> ecn_red_config_init() -> config (validated,
 * fixed point) shared read-only; struct ecn_red (vars) per queue.
 */

#include <stdint.h>

#include "ecn.h"
#include "cc_rng.h"

/* Largest Kmax - Kmin accepted, so that the fixed-point slope stays exact. */
#define ECN_RED_MAX_RANGE_BYTES (UINT64_C(1) << 32)

struct ecn_red_params {
	uint64_t kmin_bytes; /* marking starts above this queue size */
	uint64_t kmax_bytes; /* > kmin; every packet is marked above it */
	uint32_t pmax_ppm; /* probability at Kmax, 1..1000000 parts per million */
};

struct ecn_red_config {
	uint64_t kmin_bytes;
	uint64_t kmax_bytes;
	uint64_t pmax_q32; /* Pmax as a Q32 fraction, <= 2^32 */
	uint64_t slope_q48; /* Pmax_q32 * 2^16 / (Kmax - Kmin): Q32 per byte, scaled 2^16 */
};

/* Per-queue state: the owning thread's generator. */
struct ecn_red {
	struct cc_rng rng;
};

/*
 * The one statement of RED's invariants: kmin < kmax, Kmax - Kmin at most
 * ECN_RED_MAX_RANGE_BYTES, pmax_ppm in 1..1000000. Returns 0, or -EINVAL
 * with *why (if WHY is not NULL) set to a static message that names the
 * fields. Whoever reads the user's values calls it there and prefixes the
 * message with the place (the gateway's config with FILE:LINE, the
 * simulator's topology/config.txt, cc_params_resolve() for values that mix
 * overrides with derived ones), so every copy of the check is this one.
 */
int ecn_red_params_check(const struct ecn_red_params *p, const char **why);

/*
 * Validate P (ecn_red_params_check()) and precompute C. Returns 0 or
 * -EINVAL; C is untouched on error.
 */
int ecn_red_config_init(struct ecn_red_config *c, const struct ecn_red_params *p);

/* Start a queue's state; queues with different seeds draw independently. */
void ecn_red_init(struct ecn_red *r, uint64_t seed);

/* p(q) as a Q32 fraction: 0, up to Pmax_q32 on the ramp, 2^32 above Kmax. */
uint64_t ecn_red_prob_q32(const struct ecn_red_config *c, uint64_t queue_bytes);

/*
 * Decide for one packet given the queue size it sees (bytes already queued
 * ahead of it, at enqueue, or the queue left behind it, at dequeue: the
 * caller picks one point and documents it). Draws from the generator only on
 * the ramp, so a queue below Kmin or above Kmax consumes no random numbers.
 */
enum ecn_verdict ecn_red_decide(const struct ecn_red_config *c, struct ecn_red *r,
		uint64_t queue_bytes);

#endif /* LONGSPAN_ECN_RED_H */
