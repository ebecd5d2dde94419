/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_ECN_SOJOURN_H
#define LONGSPAN_ECN_SOJOURN_H

/*
 * Sojourn-time ECN marking: decide at dequeue from how long the packet
 * waited. A delay threshold is independent of the rate the queue drains at,
 * which matters on a shaped WAN queue whose rate may change, and it is what
 * the gateway's per-class sojourn counters already measure.
 *
 * Two modes:
 * - Threshold (interval_ns == 0): mark every packet whose sojourn time is
 *   strictly greater than target_ns. Stateless; a step marking function like
 *   DCTCP's K, in time units.
 * - CoDel-like (interval_ns > 0), after RFC 8289 but marking instead of
 *   dropping: nothing is marked until the sojourn time has stayed above
 *   target for a whole interval (a standing queue, not a burst). Then the
 *   packet is marked and the marker enters the marking state, where it marks
 *   one packet at next_mark and schedules the following one interval /
 *   sqrt(count) later, count being the marks in this episode, so the signal
 *   grows until the queue drains. Any packet with sojourn <= target ends
 *   the episode. An episode that starts within 16 intervals of the end of
 *   the last one resumes at the last episode's mark count rather than at 1
 *   (RFC 8289 section 5.5's hysteresis), so an oscillating queue is not
 *   signalled gently every time.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ecn.h"

struct ecn_sojourn_params {
	uint64_t target_ns; /* > 0 */
	uint64_t interval_ns; /* 0 = threshold mode; else >= target_ns */
};

struct ecn_sojourn_config {
	uint64_t target_ns;
	uint64_t interval_ns;
};

/* Per-queue state (CoDel-like mode only; the threshold mode ignores it). */
struct ecn_sojourn {
	uint64_t first_above_ns; /* when sojourn will have been above target for an interval */
	uint64_t next_mark_ns; /* next mark while marking */
	uint64_t last_episode_end_ns; /* when the last marking episode ended */
	uint32_t count; /* marks in the current (or last) episode */
	uint32_t last_count; /* count when the last episode started */
	bool above; /* first_above_ns is armed */
	bool marking; /* in the marking state */
};

/* Returns 0, or -EINVAL for target 0 or 0 < interval < target. */
int ecn_sojourn_config_init(struct ecn_sojourn_config *c, const struct ecn_sojourn_params *p);

void ecn_sojourn_init(struct ecn_sojourn *s);

/* Decide for one packet leaving the queue at now_ns after sojourn_ns. */
enum ecn_verdict ecn_sojourn_decide(const struct ecn_sojourn_config *c, struct ecn_sojourn *s,
		uint64_t sojourn_ns, uint64_t now_ns);

#endif /* LONGSPAN_ECN_SOJOURN_H */
