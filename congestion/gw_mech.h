/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_GW_MECH_H
#define LONGSPAN_GW_MECH_H

/*
 * Mechanisms A and C as the gateway applies them: which packet is a
 * congestion signal, what mechanism A answers it with, what happens to its
 * ECN field, and whether a local receiver's CNP starts shaping its QP
 * (mechanism C) and goes on to the sender. Written once here and hosted by
 * the dataplane (dataplane/mech.c) and the simulator (congestion/sim/
 * sim_gw.c), as Linux's codel_impl.h is hosted by several qdiscs: the
 * hosts keep their own state, counters and packet formats and only carry
 * out the actions returned here. Pure: no clock but the one passed in, no
 * allocation, no I/O; static inline, because the dataplane asks it for
 * every packet its traffic manager queues.
 *
 * Mechanism A, one RoCE data packet leaving for the WAN (gw_mech_a()):
 *
 *   signal   the gateway's marker chose it (whatever its ECN), or it
 *            carries CE from the local DC fabric (when dc_marks), or the
 *            WAN queue could not take it (drop);
 *   answer   proxy_cnp_decide(): a CNP to the local sender (SENT), none
 *            because one went out less than cnp_interval ago
 *            (SUPPRESSED_RATE), or none because the sender QPN is not
 *            learned (NO_QPN);
 *   ECN      a dropped packet leaves no trace; otherwise, when the CE
 *            policy says the answer covers the QP, the packet leaves as
 *            ECT(0) (an arrived CE is cleared, the marker's CE is not
 *            written), else the marker's CE is written on an ECT packet.
 *
 * A CNP the host could not build (gw_mech_a_cnp_failed()) does not cover
 * the QP: the packet keeps its signal, so the far receiver's CNP still
 * comes. The dataplane builds its CNP at once and can fail (no neighbour,
 * no mbuf, no transmit room); the simulator schedules it and never fails
 * at decision time.
 *
 * Mechanism C, a local receiver's CNP leaving for the WAN (gw_mech_c_cnp()):
 * the CNP does not say where the mark was set. When this QP's data arrived
 * from the WAN already carrying CE within the last upstream_ce_window_ns,
 * the congestion was in the sending DC or on the WAN, where shaping here
 * relieves nothing: the CNP does not start the reaction point, and it always
 * goes on to the sender, the one reaction point that can help. Whether any
 * other CNP goes on to the sender: always with forward_cnp and no cnp_gap_ns;
 * without forward_cnp never; with a gap, at most one per gap per QP. With
 * forward_backlog_bytes, only while the QP holds at least that much in
 * gateway memory: the reaction point here absorbs the rest, and the sender
 * hears only of what it cannot.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ecn.h"
#include "proxy_cnp.h"

struct gw_mech_a_config {
	bool enabled; /* mechanism A runs */
	bool dc_marks; /* a CE from the local DC fabric is a signal too */
	struct proxy_cnp_config cnp; /* rate limit and CE policy */
};

/* One RoCE data packet at the gateway's WAN egress. */
struct gw_mech_a_in {
	bool mark; /* the gateway's marker chose it */
	bool drop; /* the WAN queue could not take it */
	uint8_t ecn; /* its ECN codepoint as it arrived (enum ecn_codepoint) */
	bool qp_tracked; /* the host keeps per-QP state for it (a flow entry) */
	bool qpn_known; /* the sender QPN is learned (or given by RDMA-CM) */
};

struct gw_mech_a_actions {
	bool signal; /* it was a congestion signal */
	bool answered; /* mechanism A decided; reason is valid */
	enum proxy_cnp_reason reason;
	bool send_cnp; /* build and send a CNP to the local sender */
	bool set_ce; /* write CE (an ECT packet the marker chose, not covered) */
	bool clear_ce; /* leave as ECT(0): covered by a gateway CNP */
	uint8_t ecn_out; /* the codepoint it leaves with (undefined after a drop) */
};

struct gw_mech_c_config {
	uint64_t upstream_ce_window_ns; /* 0: every CNP starts the reaction point */
	bool forward_cnp; /* receiver CNPs go on to the sender */
	uint64_t cnp_gap_ns; /* with forward_cnp: at most one per QP per gap; 0 = all */
	uint64_t forward_backlog_bytes; /* with forward_cnp: only from this backlog; 0 = any */
};

/*
 * The default upstream-CE window for a DC round trip of dc_rtt_ns: two DC
 * RTTs. A receiver's CNP about a CE-marked packet comes back to the
 * gateway about one DC RTT after that packet went through (the packet's
 * way to the receiver, the CNP's way back); the second RTT is margin for
 * the receiver's CNP pacing and queueing in the DC. Longer (the gateway
 * used the TRP hold time, about one WAN RTT) would also leave to the
 * sender the CNPs of local DC congestion that follows an upstream mark.
 */
static inline uint64_t
gw_mech_c_upstream_ce_window_default_ns(uint64_t dc_rtt_ns)
{
	return 2 * dc_rtt_ns;
}

/* What the gateway knows of the QP a receiver's CNP is about. */
struct gw_mech_c_in {
	bool wan_ce_seen; /* its data arrived from the WAN with CE at wan_ce_ns */
	uint64_t wan_ce_ns;
	bool fwd_cnp_sent; /* a CNP of this QP was forwarded at last_fwd_cnp_ns */
	uint64_t last_fwd_cnp_ns;
	uint64_t backlog_bytes; /* its data held in gateway memory now */
};

struct gw_mech_c_actions {
	bool start_trp; /* trp_on_cnp(): shape the QP's incoming data */
	bool skip_upstream; /* not started: its data arrived CE-marked */
	bool forward; /* the CNP goes on to the sender */
};

static inline bool
gw_mech_ect(uint8_t ecn)
{
	return ecn == ECN_ECT0 || ecn == ECN_ECT1;
}

/*
 * Decide for one packet at now_ns; q is the QP's mechanism A state (unused,
 * and may be NULL, when !in->qp_tracked).
 */
static inline void
gw_mech_a(const struct gw_mech_a_config *cfg, struct proxy_cnp_qp *q,
	  const struct gw_mech_a_in *in, uint64_t now_ns, struct gw_mech_a_actions *out)
{
	bool covered = false;

	memset(out, 0, sizeof(*out));
	out->ecn_out = in->ecn;
	out->signal = in->drop || in->mark || (in->ecn == ECN_CE && cfg->dc_marks);
	if (!out->signal)
		return;
	if (cfg->enabled && in->qp_tracked) {
		struct proxy_cnp_verdict v = proxy_cnp_decide(&cfg->cnp, q, in->qpn_known, now_ns);

		out->answered = true;
		out->reason = v.reason;
		out->send_cnp = v.reason == PROXY_CNP_SENT;
		covered = v.clear_ce;
	}
	if (in->drop)
		return; /* nothing is written into a packet that does not leave */
	if (covered) {
		/* RoCE NICs send ECT(0). */
		out->clear_ce = true;
		if (in->ecn == ECN_CE)
			out->ecn_out = ECN_ECT0;
	} else if (in->mark && gw_mech_ect(in->ecn)) {
		out->set_ce = true;
		out->ecn_out = ECN_CE;
	}
}

/* The CNP that out asked for could not be built: the packet keeps its signal. */
static inline void
gw_mech_a_cnp_failed(const struct gw_mech_a_in *in, struct gw_mech_a_actions *out)
{
	out->send_cnp = false;
	if (!out->clear_ce)
		return;
	out->clear_ce = false;
	out->ecn_out = in->ecn;
	if (in->mark && gw_mech_ect(in->ecn)) {
		out->set_ce = true;
		out->ecn_out = ECN_CE;
	}
}

/* Decide for one receiver CNP of a QP leaving for the WAN at now_ns. */
static inline void
gw_mech_c_cnp(const struct gw_mech_c_config *cfg, const struct gw_mech_c_in *in,
	      uint64_t now_ns, struct gw_mech_c_actions *out)
{
	out->skip_upstream = cfg->upstream_ce_window_ns != 0 && in->wan_ce_seen &&
			     now_ns - in->wan_ce_ns < cfg->upstream_ce_window_ns;
	out->start_trp = !out->skip_upstream;
	out->forward = out->skip_upstream ||
		       (cfg->forward_cnp &&
			!(cfg->cnp_gap_ns != 0 && in->fwd_cnp_sent &&
			  now_ns - in->last_fwd_cnp_ns < cfg->cnp_gap_ns) &&
			in->backlog_bytes >= cfg->forward_backlog_bytes);
}

#endif /* LONGSPAN_GW_MECH_H */
