/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include "cc_time.h"
#include "proxy_cnp.h"

static const char *const proxy_cnp_names[PROXY_CNP_REASON_MAX] = {
#define PROXY_CNP_NAME(e, s) [PROXY_CNP_##e] = s,
	PROXY_CNP_REASONS(PROXY_CNP_NAME)
#undef PROXY_CNP_NAME
};

const char *
proxy_cnp_reason_name(enum proxy_cnp_reason r)
{
	if ((unsigned int)r >= PROXY_CNP_REASON_MAX)
		return "?";
	return proxy_cnp_names[r];
}

int
proxy_cnp_config_init(struct proxy_cnp_config *c, const struct proxy_cnp_params *p)
{
	switch (p->ce_policy) {
	case PROXY_CNP_CE_KEEP:
	case PROXY_CNP_CE_CLEAR_SENT:
	case PROXY_CNP_CE_CLEAR_COVERED:
		break;
	default:
		return -EINVAL;
	}
	if (p->backoff_max_ns != 0 &&
			(p->interval_ns == 0 || p->backoff_max_ns < p->interval_ns ||
			 p->backoff_max_ns > UINT32_MAX))
		return -EINVAL;
	c->interval_ns = p->interval_ns;
	c->backoff_max_ns = p->backoff_max_ns;
	c->ce_policy = p->ce_policy;
	return 0;
}

void
proxy_cnp_qp_init(struct proxy_cnp_qp *q)
{
	q->last_cnp_ns = 0;
	q->sent = false;
	q->spacing_ns = 0;
}

/* The spacing after a CNP sent at now_ns (backoff on). */
static uint32_t
proxy_cnp_next_spacing(const struct proxy_cnp_config *c, const struct proxy_cnp_qp *q,
		uint64_t now_ns)
{
	uint64_t spacing = q->spacing_ns;

	if (!q->sent || spacing < c->interval_ns || now_ns - q->last_cnp_ns >= 2 * spacing)
		return (uint32_t)c->interval_ns;
	spacing *= 2;
	return (uint32_t)(spacing < c->backoff_max_ns ? spacing : c->backoff_max_ns);
}

struct proxy_cnp_verdict
proxy_cnp_decide(const struct proxy_cnp_config *c, struct proxy_cnp_qp *q, bool qpn_known,
		uint64_t now_ns)
{
	struct proxy_cnp_verdict v = { .reason = PROXY_CNP_NO_QPN, .clear_ce = false };
	uint64_t spacing;

	if (!qpn_known)
		return v; /* keep CE: the receiver's own CNP is the only feedback */
	spacing = c->backoff_max_ns != 0 && q->spacing_ns != 0 ? q->spacing_ns : c->interval_ns;
	if (q->sent && spacing != 0 && cc_time_before(now_ns, q->last_cnp_ns + spacing)) {
		v.reason = PROXY_CNP_SUPPRESSED_RATE;
		v.clear_ce = c->ce_policy == PROXY_CNP_CE_CLEAR_COVERED;
		return v;
	}
	if (c->backoff_max_ns != 0)
		q->spacing_ns = proxy_cnp_next_spacing(c, q, now_ns);
	q->sent = true;
	q->last_cnp_ns = now_ns;
	v.reason = PROXY_CNP_SENT;
	v.clear_ce = c->ce_policy != PROXY_CNP_CE_KEEP;
	return v;
}
