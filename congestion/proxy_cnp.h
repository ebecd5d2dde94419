/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PROXY_CNP_H
#define LONGSPAN_PROXY_CNP_H

/*
 * Mechanism A, near-source CNP: the decision part.
 *
 * When the sending-side gateway's WAN queue marks (or sees CE on) a packet
 * of an inter-DC RoCE flow, it can send a CNP straight back to the local
 * sender, closing the loop in ~10-20 us instead of one WAN RTT (~1 ms at
 * 100 km). proxy_cnp_decide() says whether to send one now, and whether to
 * clear CE on the forwarded packet:
 *
 *   no sender QPN learned (qpn_learn.h)  -> NO_QPN: no CNP; CE kept, so the
 *                                           receiver's end-to-end CNP still
 *                                           reaches the sender
 *   a gateway CNP for this QP less than
 *   interval_ns ago                      -> SUPPRESSED_RATE
 *   otherwise                            -> SENT (the caller builds the CNP)
 *
 * CE clearing (ce_policy): a CE that the gateway has already answered with
 * a CNP would make the receiver send a second, one-RTT-stale CNP for the
 * same congestion (the "stale feedback" problem), so the gateway may clear
 * it. PROXY_CNP_CE_KEEP never clears; PROXY_CNP_CE_CLEAR_SENT clears only
 * on the packet that triggered a CNP; PROXY_CNP_CE_CLEAR_COVERED (THEMIS's
 * behaviour, the recommended one) clears on every packet covered by a
 * gateway CNP, i.e. SENT and SUPPRESSED_RATE, and never on NO_QPN.
 *
 * Rate limit: the NIC acts on CNPs at most once per rate_reduce_monitor_period
 * (4 us on ConnectX), so CNPs closer than that only repeat themselves;
 * THEMIS uses ~5-7 us, EdgeCNP >= 4 us (cc_params derives the default).
 *
 * Backoff (backoff_max_ns): a signal that persists is not news. Each CNP
 * cuts the sender by alpha/2 and raises alpha, but the marking queue
 * drains only after the cut has reached it, so a CNP every interval while
 * it drains drives the sender to its floor for one episode of congestion.
 * With backoff, a CNP that follows the previous one within twice the
 * spacing (the signal never stopped) doubles the spacing, up to
 * backoff_max_ns; a longer quiet gap starts again at interval_ns.
 */

#include <stdbool.h>
#include <stdint.h>

enum proxy_cnp_ce_policy {
	PROXY_CNP_CE_KEEP = 0,
	PROXY_CNP_CE_CLEAR_SENT,
	PROXY_CNP_CE_CLEAR_COVERED,
};

struct proxy_cnp_params {
	uint64_t interval_ns; /* per-QP minimum spacing of gateway CNPs */
	uint64_t backoff_max_ns; /* 0, or the longest spacing a persisting signal backs off to */
	enum proxy_cnp_ce_policy ce_policy;
};

struct proxy_cnp_config {
	uint64_t interval_ns;
	uint64_t backoff_max_ns;
	enum proxy_cnp_ce_policy ce_policy;
};

/* Per-QP state, kept in the flow entry. */
struct proxy_cnp_qp {
	uint64_t last_cnp_ns;
	bool sent; /* last_cnp_ns is valid */
	uint32_t spacing_ns; /* with backoff: the spacing now (interval .. backoff_max) */
};

/* Reasons, with stable names for counters. */
#define PROXY_CNP_REASONS(X) \
	X(SENT, "sent") \
	X(SUPPRESSED_RATE, "suppressed_rate") \
	X(NO_QPN, "no_qpn")

enum proxy_cnp_reason {
#define PROXY_CNP_ENUM(e, s) PROXY_CNP_##e,
	PROXY_CNP_REASONS(PROXY_CNP_ENUM)
#undef PROXY_CNP_ENUM
	PROXY_CNP_REASON_MAX
};

struct proxy_cnp_verdict {
	enum proxy_cnp_reason reason;
	/*
	 * Forward the packet without CE: do not write the gateway's own mark,
	 * and rewrite a CE that arrived from upstream to ECT(0), the codepoint
	 * RoCE NICs send.
	 */
	bool clear_ce;
};

/*
 * Returns 0 or -EINVAL (unknown policy; backoff without an interval, or
 * shorter than it, or over 4 s). interval 0 = no rate limit.
 */
int proxy_cnp_config_init(struct proxy_cnp_config *c, const struct proxy_cnp_params *p);

void proxy_cnp_qp_init(struct proxy_cnp_qp *q);

/*
 * Decide for one congestion-marked packet of an inter-DC RoCE flow at now.
 * qpn_known: the sender QPN is learned (q may then be updated).
 */
struct proxy_cnp_verdict proxy_cnp_decide(const struct proxy_cnp_config *c,
		struct proxy_cnp_qp *q, bool qpn_known, uint64_t now_ns);

const char *proxy_cnp_reason_name(enum proxy_cnp_reason r);

#endif /* LONGSPAN_PROXY_CNP_H */
