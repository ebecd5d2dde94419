/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_TRP_H
#define LONGSPAN_TRP_H

/*
 * Mechanism C: the destination-side temporary reaction point.
 *
 * When a local receiver's CNP for QP q leaves toward the WAN, the real
 * sender will only slow down after the CNP crossed the WAN and its reduced
 * traffic came back: about one WAN RTT, during which one BDP at the old
 * rate is still on its way into the congested DC. The destination gateway
 * bridges that gap: it shapes q's incoming data at once, as the sender's
 * DCQCN RP will, holding the excess in gateway DRAM instead of the
 * receiver's ToR, then hands control back to the sender.
 *
 * Per-QP timeline (all times in ns, passed in):
 *   inactive  -> trp_allow() always SEND.
 *   CNP       -> base = the QP's measured arrival rate (or line rate if the
 *                caller has none), target = base, rate = base * (1 - cut);
 *                phase HOLD until now + hold_ns. A further CNP at least
 *                cut_interval_ns after the last cut cuts again (a ConnectX
 *                RP cuts at most once per 4 us) and restarts the hold; one
 *                closer than that only restarts the hold.
 *   HOLD ends -> phase RAMP: every ramp_interval_ns (the first step at the
 *                end of the hold) rate = ceil((rate + target) / 2), DCQCN's
 *                fast recovery toward the pre-cut rate. A CNP during RAMP
 *                sets target = the rate before its cut and returns to HOLD.
 *   release   -> after ramp_steps steps or once rate >= target: inactive,
 *                the sender's own RP governs again.
 * While active, trp_allow() shapes q with a token bucket at the current
 * rate: SEND (tokens taken) or DELAY(until_ns) when the caller should try
 * again (nothing taken).
 *
 * When the caller passes a measured arrival rate below the current shaping
 * rate, a cut starts from the measurement (shaping above what arrives would
 * not slow anything down).
 *
 * cut, hold and ramp defaults (trp_params_default): cut 50% (what a
 * ConnectX RP with alpha ~ 1 removes), hold as given, cut interval
 * 4 us, ramp interval hold / 8, 5 ramp steps (DCQCN's F), min rate
 * line / 1000, burst 2 x 4 KB. The gateway and the simulator set hold and
 * cut interval from cc_params (cc_params.h: 148 us and 128 us with a
 * 10 us DC RTT; holding one WAN RTT kept the receiver's link idle).
 */

#include <stdbool.h>
#include <stdint.h>

#include "cc_time.h"
#include "token_bucket.h"

struct trp_params {
	uint64_t line_rate_bps; /* rate when no measurement is given; cap; > 0 */
	uint64_t min_rate_bps; /* never shape below; > 0, <= line rate */
	uint32_t cut_ppm; /* fraction of the rate one cut removes, 1..1e6 */
	uint64_t cut_interval_ns; /* min time between cuts */
	uint64_t hold_ns; /* > 0 */
	uint64_t ramp_interval_ns; /* > 0 */
	uint32_t ramp_steps; /* >= 1 */
	uint64_t burst_bytes; /* token bucket depth, >= 1 */
};

struct trp_config {
	uint64_t line_rate_bps;
	uint64_t min_rate_bps;
	uint64_t keep_q32; /* 1 - cut, Q32 */
	uint64_t cut_interval_ns;
	uint64_t hold_ns;
	uint64_t ramp_interval_ns;
	uint32_t ramp_steps;
	uint64_t burst_bytes;
};

enum trp_phase {
	TRP_INACTIVE = 0,
	TRP_HOLD,
	TRP_RAMP,
};

/* Per-QP state, kept in the WAN->DC flow entry. One writer. */
struct trp {
	enum trp_phase phase;
	uint64_t rate_bps;
	uint64_t target_bps;
	uint64_t last_cut_ns;
	uint64_t next_ns; /* HOLD: end of hold; RAMP: next step */
	uint32_t steps; /* ramp steps done */
	struct token_bucket_config tb_cfg;
	struct token_bucket tb;
	uint64_t n_cut;
	uint64_t n_release;
};

enum trp_action {
	TRP_SEND = 0,
	TRP_DELAY,
};

struct trp_verdict {
	enum trp_action action;
	uint64_t until_ns; /* DELAY: earliest time the packet may go */
};

/*
 * Defaults for a QP behind a DC link at line_rate_bps, holding for hold_ns
 * (cc_params' hold_ns: its cut interval plus two DC RTTs).
 */
void trp_params_default(struct trp_params *p, uint64_t line_rate_bps, uint64_t hold_ns);

/* Returns 0 or -EINVAL (C untouched). */
int trp_config_init(struct trp_config *c, const struct trp_params *p);

void trp_init(struct trp *t);

/*
 * A CNP for this QP left toward the WAN at now. measured_rate_bps is the
 * QP's recent arrival rate from the WAN (0 = unknown: line rate is assumed
 * when inactive, the current shaping rate when active).
 */
void trp_on_cnp(const struct trp_config *c, struct trp *t, uint64_t now_ns,
		uint64_t measured_rate_bps);

/* May a data packet of BYTES for this QP go to the DC now? */
struct trp_verdict trp_allow(const struct trp_config *c, struct trp *t, uint32_t bytes,
		uint64_t now_ns);

/* Apply phase changes due by now; true while the QP is being shaped. */
bool trp_active(const struct trp_config *c, struct trp *t, uint64_t now_ns);

/* Apply phase changes due by now. */
void trp_advance(const struct trp_config *c, struct trp *t, uint64_t now_ns);

/* Next phase change (end of hold or next ramp step), or CC_TIME_NEVER. */
uint64_t trp_next_event(const struct trp *t);

/* Current shaping rate; line rate (no shaping) when inactive. */
uint64_t trp_rate_bps(const struct trp_config *c, const struct trp *t);

#endif /* LONGSPAN_TRP_H */
