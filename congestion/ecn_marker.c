/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include "ecn_marker.h"

int
ecn_marker_init(struct ecn_marker *m, const struct ecn_marker_params *p, uint64_t seed,
		uint64_t now_ns)
{
	struct ecn_marker n = { .kind = p->kind };
	int rc = 0;

	switch (p->kind) {
	case ECN_MARKER_NONE:
		break;
	case ECN_MARKER_RED:
		rc = ecn_red_config_init(&n.red.cfg, &p->red);
		ecn_red_init(&n.red.vars, seed);
		break;
	case ECN_MARKER_SOJOURN:
		rc = ecn_sojourn_config_init(&n.sojourn.cfg, &p->sojourn);
		ecn_sojourn_init(&n.sojourn.vars);
		break;
	case ECN_MARKER_PHANTOM:
		rc = ecn_phantom_config_init(&n.phantom.cfg, &p->phantom);
		ecn_phantom_init(&n.phantom.vars, now_ns);
		break;
	default:
		rc = -EINVAL;
		break;
	}
	if (rc == 0)
		*m = n;
	return rc;
}

bool
ecn_marker_at_dequeue(const struct ecn_marker *m)
{
	return m->kind == ECN_MARKER_SOJOURN;
}

enum ecn_verdict
ecn_marker_decide(struct ecn_marker *m, uint64_t queue_bytes, uint64_t sojourn_ns,
		uint32_t pkt_bytes, uint64_t now_ns)
{
	switch (m->kind) {
	case ECN_MARKER_RED:
		return ecn_red_decide(&m->red.cfg, &m->red.vars, queue_bytes);
	case ECN_MARKER_SOJOURN:
		return ecn_sojourn_decide(&m->sojourn.cfg, &m->sojourn.vars, sojourn_ns, now_ns);
	case ECN_MARKER_PHANTOM:
		return ecn_phantom_decide(&m->phantom.cfg, &m->phantom.vars, pkt_bytes, now_ns);
	default:
		return ECN_VERDICT_PASS;
	}
}

const char *
ecn_marker_kind_name(enum ecn_marker_kind kind)
{
	static const char *const names[ECN_MARKER_KIND_MAX] = {
		[ECN_MARKER_NONE] = "none",
		[ECN_MARKER_RED] = "red",
		[ECN_MARKER_SOJOURN] = "sojourn",
		[ECN_MARKER_PHANTOM] = "phantom",
	};

	if ((unsigned int)kind >= ECN_MARKER_KIND_MAX)
		return "?";
	return names[kind];
}
