/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CC_TIME_H
#define LONGSPAN_CC_TIME_H

/*
 * Wrap-safe comparisons of 64-bit timestamps.
 *
 * Every congestion/ algorithm takes the clock as an argument (nanoseconds
 * unless the function says ticks) and never reads a clock itself. Callers may
 * pass a monotonic counter that starts anywhere, including near
 * UINT64_MAX, so times are compared by the sign of their difference, as the
 * kernel's time_after() does: two times compare correctly as long as they are
 * less than 2^63 units apart (292 years of nanoseconds).
 */

#include <stdbool.h>
#include <stdint.h>

/* Sentinel for "no event scheduled" in the *_next_event() functions. */
#define CC_TIME_NEVER UINT64_MAX

/* True if a is strictly later than b. */
static inline bool
cc_time_after(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) > 0;
}

/* True if a is later than or equal to b. */
static inline bool
cc_time_after_eq(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) >= 0;
}

/* True if a is strictly earlier than b. */
static inline bool
cc_time_before(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0;
}

/* Time from then to now, or 0 when now is not after then (clock went back). */
static inline uint64_t
cc_time_elapsed(uint64_t now, uint64_t then)
{
	return cc_time_after(now, then) ? now - then : 0;
}

#endif /* LONGSPAN_CC_TIME_H */
