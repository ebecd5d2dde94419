/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_ECN_MARKER_H
#define LONGSPAN_ECN_MARKER_H

/*
 * One interface over the three markers, so that the gateway's traffic
 * manager and the simulator select a marker from configuration and call one
 * function per packet.
 *
 * A struct ecn_marker holds its kind, its validated config (by value, so a
 * queue's marker is self-contained and a config reload builds a new one) and
 * its per-queue state. One owner thread per marker.
 *
 * Where to call it: RED and phantom judge arrivals, sojourn judges
 * departures. ecn_marker_decide() takes everything any kind needs; call it
 * at enqueue with sojourn_ns 0 for RED and phantom, at dequeue for sojourn
 * (ecn_marker_at_dequeue() says which). The values of enum
 * ecn_marker_kind follow enum ls_marker_kind in control/config.h.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ecn.h"
#include "ecn_phantom.h"
#include "ecn_red.h"
#include "ecn_sojourn.h"

enum ecn_marker_kind {
	ECN_MARKER_NONE = 0, /* never marks */
	ECN_MARKER_RED,
	ECN_MARKER_SOJOURN,
	ECN_MARKER_PHANTOM,
	ECN_MARKER_KIND_MAX
};

struct ecn_marker_params {
	enum ecn_marker_kind kind;
	union {
		struct ecn_red_params red;
		struct ecn_sojourn_params sojourn;
		struct ecn_phantom_params phantom;
	};
};

struct ecn_marker {
	enum ecn_marker_kind kind;
	union {
		struct {
			struct ecn_red_config cfg;
			struct ecn_red vars;
		} red;
		struct {
			struct ecn_sojourn_config cfg;
			struct ecn_sojourn vars;
		} sojourn;
		struct {
			struct ecn_phantom_config cfg;
			struct ecn_phantom vars;
		} phantom;
	};
};

/*
 * Validate P and build M. seed feeds RED's generator (give each queue its
 * own), now_ns starts the phantom queue's clock. Returns 0 or -EINVAL (bad
 * kind or the kind's own validation); M is untouched on error.
 */
int ecn_marker_init(struct ecn_marker *m, const struct ecn_marker_params *p, uint64_t seed,
		uint64_t now_ns);

/* True if the marker judges departures (needs sojourn_ns). */
bool ecn_marker_at_dequeue(const struct ecn_marker *m);

/*
 * Decide for one packet. queue_bytes: real queue size (RED); sojourn_ns:
 * time the packet waited (sojourn); pkt_bytes: its size (phantom); now_ns:
 * the caller's clock (sojourn, phantom).
 */
enum ecn_verdict ecn_marker_decide(struct ecn_marker *m, uint64_t queue_bytes,
		uint64_t sojourn_ns, uint32_t pkt_bytes, uint64_t now_ns);

/* "none", "red", "sojourn", "phantom"; "?" for an invalid kind. */
/*
 * True when a marker built from p cannot mark a packet that finds at most
 * queue_bytes queued ahead of it and no sojourn: RED below or at its Kmin.
 * The markers that judge something else (sojourn time, the phantom queue's
 * own depth) and NONE say true; callers that skip the queue for such a
 * packet must still ask the phantom marker about every arrival.
 */
static inline bool
ecn_marker_depth_quiet(const struct ecn_marker_params *p, uint64_t queue_bytes)
{
	return p->kind != ECN_MARKER_RED || queue_bytes <= p->red.kmin_bytes;
}

const char *ecn_marker_kind_name(enum ecn_marker_kind kind);

#endif /* LONGSPAN_ECN_MARKER_H */
