/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_ECN_PHANTOM_H
#define LONGSPAN_ECN_PHANTOM_H

/*
 * Phantom (virtual) queue marking, after HULL (NSDI 2012) and Uno (SC 2025):
 * a counter that every arriving packet fills and that drains at a fraction
 * of line rate (for example 95%). The real queue stays near empty while the
 * phantom queue grows as soon as the offered load exceeds the drain rate, so
 * long-haul senders get the signal before a real backlog forms, trading ~5%
 * of capacity for latency.
 *
 * On each arrival at now_ns: drain the phantom queue by elapsed time x
 * line_rate x ratio (never below zero), add the packet's bytes (capped at
 * cap_bytes), and mark when the result is strictly greater than
 * threshold_bytes. The phantom queue is kept in Q32 bytes (1 byte = 2^32)
 * so that slow drains (1 Mb/s is 1/8000 of a byte per nanosecond) are
 * exact to 2^-32 bytes per nanosecond.
 */

#include <stdint.h>

#include "ecn.h"

/* Largest cap accepted: keeps cap_bytes in Q32 below 2^62. */
#define ECN_PHANTOM_MAX_CAP_BYTES (UINT64_C(1) << 30)

struct ecn_phantom_params {
	uint64_t line_rate_bps; /* > 0 */
	uint32_t ratio_ppm; /* drain rate as a fraction of line rate, 1..1000000 */
	uint64_t threshold_bytes; /* mark above this phantom queue size */
	uint64_t cap_bytes; /* phantom queue never exceeds this; 0 = 2 x threshold */
};

struct ecn_phantom_config {
	uint64_t drain_q32_per_ns; /* bytes per ns drained, Q32 */
	uint64_t threshold_q32;
	uint64_t cap_q32;
	uint64_t full_drain_ns; /* elapsed time that empties a full phantom queue */
};

/* Per-queue state. */
struct ecn_phantom {
	uint64_t vq_q32; /* phantom queue size, Q32 bytes */
	uint64_t last_ns; /* time of the last update */
};

/* Returns 0, or -EINVAL (rate 0, ratio 0 or > 1e6, threshold 0 or >= cap,
 * cap > ECN_PHANTOM_MAX_CAP_BYTES, or a drain slower than 2^-33 B/ns). */
int ecn_phantom_config_init(struct ecn_phantom_config *c, const struct ecn_phantom_params *p);

/* Start empty at now_ns. */
void ecn_phantom_init(struct ecn_phantom *v, uint64_t now_ns);

/* Drain to now_ns without an arrival (for telemetry); returns whole bytes. */
uint64_t ecn_phantom_bytes(const struct ecn_phantom_config *c, struct ecn_phantom *v,
		uint64_t now_ns);

/* One arrival of pkt_bytes at now_ns: update and decide. */
enum ecn_verdict ecn_phantom_decide(const struct ecn_phantom_config *c, struct ecn_phantom *v,
		uint32_t pkt_bytes, uint64_t now_ns);

#endif /* LONGSPAN_ECN_PHANTOM_H */
