/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CC_RNG_H
#define LONGSPAN_CC_RNG_H

/*
 * A small per-queue pseudo-random generator for marking decisions.
 *
 * Each marker owns one struct cc_rng, written only by the thread that owns
 * the queue: no global generator is shared between lcores (the data race
 * and false sharing that DPDK's rte_red has). The generator is xorshift64*
 * (Vigna 2016): 64 bits of state, period 2^64 - 1, good enough for
 * Bernoulli trials at the probabilities RED uses; it is not cryptographic.
 * Seeds pass through the splitmix64 finaliser so that nearby seeds (queue
 * 0, 1, 2...) give unrelated streams, and a zero state cannot occur.
 */

#include <stdint.h>

struct cc_rng {
	uint64_t s; /* never 0 */
};

/* Seed R from any 64-bit value; equal seeds give equal streams. */
static inline void
cc_rng_seed(struct cc_rng *r, uint64_t seed)
{
	uint64_t z = seed + UINT64_C(0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	z ^= z >> 31;
	r->s = z != 0 ? z : UINT64_C(0x2545f4914f6cdd1d);
}

/* Next 64 pseudo-random bits. */
static inline uint64_t
cc_rng_next_u64(struct cc_rng *r)
{
	uint64_t x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * UINT64_C(0x2545f4914f6cdd1d);
}

/* Next 32 pseudo-random bits (the high half, the better-mixed one). */
static inline uint32_t
cc_rng_next_u32(struct cc_rng *r)
{
	return (uint32_t)(cc_rng_next_u64(r) >> 32);
}

#endif /* LONGSPAN_CC_RNG_H */
