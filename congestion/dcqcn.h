/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_DCQCN_H
#define LONGSPAN_DCQCN_H

/*
 * DCQCN host models (Zhu et al., SIGCOMM 2015): the reaction point (RP, the
 * sender NIC's per-QP rate limiter) and the notification point (NP, the
 * receiver NIC's CNP generator). Used by the simulator's hosts and by the
 * lab's RoCE endpoint emulator; the gateway's own reaction point (mechanism
 * C) is in trp.h.
 *
 * The RP is a pure, event-driven state machine. Time is in nanoseconds and
 * always passed in. Inputs: dcqcn_rp_on_cnp() (a CNP arrived),
 * dcqcn_rp_on_tx() (bytes sent, for the byte counter) and
 * dcqcn_rp_advance() (process every timer due up to now).
 * dcqcn_rp_next_event() says when the rate will next change by itself, so
 * a discrete-event simulator schedules exactly one event per rate change;
 * alpha updates in between are applied lazily and give the same result as
 * if each had been an event. Results never depend on how often advance()
 * is called.
 *
 * Three variants share the state machine and differ in documented places:
 *
 * DCQCN_VARIANT_FIRMWARE - NVIDIA ConnectX firmware defaults (DOCA "DCQCN
 *   CC parameters", mlxconfig ROCE_CC_*): alpha EWMA every 1 us
 *   (dce_tcp_rtt) with g = 5/1024 (dce_tcp_g = 1019: alpha keeps 1019/1024),
 *   initial alpha 1023/1024 (initial_alpha_value), at most one cut per 4 us
 *   (rate_reduce_monitor_period): a CNP cuts at once if the last cut is 4 us
 *   old, else at last cut + 4 us; a cut removes rate * alpha / 2 but at most
 *   50% (rpg_min_dec_fac); increase events from a 300 us timer
 *   (rpg_time_reset) and a byte counter of 32767 * 64 B (rpg_byte_reset);
 *   rpg_threshold 1; AI 5 Mb/s, HAI 50 Mb/s; min rate 1 Mb/s;
 *   clamp_tgt_rate 0, clamp_tgt_rate_after_time_inc 1. The rate limiter is
 *   released (QP unthrottled, state reset) when the rate climbs back to
 *   line rate.
 * DCQCN_VARIANT_PAPER - the SIGCOMM paper's algorithm and parameters: every
 *   CNP cuts at once (R_T = R_C, R_C *= 1 - alpha/2) and then updates
 *   alpha = (1 - g) alpha + g; alpha decays by (1 - g) each K = 55 us
 *   without CNPs; g = 1/256; increase timer T = 55 us, byte counter
 *   B = 10 MB, F = 5, R_AI = 40 Mb/s. The paper gives no R_HAI; we use
 *   10 x R_AI (QCN's AI:HAI ratio). Released at line rate like FIRMWARE.
 * DCQCN_VARIANT_HPCC - the HPCC simulator's "Mellanox DCQCN" (ns-3
 *   rdma-hw.cc, CC_MODE 1), which THEMIS's ns-3 runs: alpha = 1 on the first
 *   CNP; from then a periodic alpha update every ALPHA_RESUME_INTERVAL
 *   and a periodic cut check every RATE_DECREASE_INTERVAL, offset by
 *   1 ns so alpha is updated first; a check cuts if a CNP arrived since the
 *   last one; the increase timer RP_TIMER restarts at each cut; no byte
 *   counter; FAST_RECOVERY_TIMES timer events of fast recovery, then one
 *   additive increase (RATE_AI), then hyper increases of RATE_HAI each;
 *   CLAMP_TARGET_RATE; never released. Defaults are THEMIS's config.txt:
 *   1 us, 4 us, 900 us, g = 1/256, F = 1, AI 50 Mb/s, HAI 100 Mb/s,
 *   min rate 100 Mb/s, no clamp. In HPCC the receiver flags a CNP on every
 *   ACK of a CE-marked packet, which DCQCN_VARIANT_HPCC's NP (interval 0)
 *   reproduces.
 *
 * Rate increase (all variants). Counters T (timer events) and BC (byte
 * counter events) count from the last cut. An event from counter X, with X
 * and the other counter Y counted before this event:
 *   fast recovery  if X < F:               R_C = (R_T + R_C) / 2
 *   additive       else if Y < F:          R_T += AI,  R_C = (R_T + R_C) / 2
 *   hyper          else:                   R_T += i * HAI, R_C = (R_T + R_C) / 2
 * with i = min(X, Y) - F + 1 (QCN / paper; FIRMWARE too) or i = 1 (HPCC);
 * without a byte counter Y does not exist, X == F is additive and X > F
 * hyper (the HPCC rule). R_T never exceeds line rate; averages round up so
 * that R_C reaches line rate. At a cut R_T = R_C if clamp_tgt_rate, or if
 * clamp_tgt_rate_after_time_inc and T > 0; else R_T is kept.
 * Not modelled: QCN's halved timer and byte counter in hyper increase, the
 * firmware's rpg_gd (the notes' rate * alpha / 2 is used), and newer
 * NVIDIA algorithms (ZTR-RTTCC) that do not react to CNPs this way.
 */

#include <stdbool.h>
#include <stdint.h>

#include "cc_time.h"

enum dcqcn_variant {
	DCQCN_VARIANT_FIRMWARE = 0,
	DCQCN_VARIANT_PAPER,
	DCQCN_VARIANT_HPCC,
	DCQCN_VARIANT_MAX
};

struct dcqcn_rp_params {
	enum dcqcn_variant variant; /* selects the event logic described above */
	uint64_t line_rate_bps; /* unthrottled rate, cap of R_T; > 0 */
	uint64_t min_rate_bps; /* a cut never goes below; <= line rate */
	uint64_t rate_on_first_cnp_bps; /* 0 = keep the current rate */
	double g; /* alpha gain, 0 < g < 1 */
	double initial_alpha; /* alpha when throttling starts, 0 < a <= 1 */
	uint64_t alpha_interval_ns; /* alpha update period (K); > 0 */
	uint64_t rate_reduce_interval_ns; /* min time between cuts (FIRMWARE, HPCC) */
	uint32_t max_cut_ppm; /* largest fraction of R_C one cut removes, 1..1e6 */
	uint64_t timer_ns; /* increase timer; > 0 */
	uint64_t byte_counter_bytes; /* increase byte counter; 0 = none */
	uint32_t threshold; /* F; >= 1 */
	uint64_t ai_bps; /* additive increase step */
	uint64_t hai_bps; /* hyper increase step */
	bool clamp_tgt_rate;
	bool clamp_tgt_rate_after_time_inc;
};

struct dcqcn_rp_config {
	enum dcqcn_variant variant;
	uint64_t line_rate_bps;
	uint64_t min_rate_bps;
	uint64_t rate_on_first_cnp_bps;
	uint64_t g_q32; /* g as a Q32 fraction */
	uint64_t one_minus_g_q32;
	uint64_t initial_alpha_q32;
	uint64_t alpha_interval_ns;
	uint64_t rate_reduce_interval_ns;
	uint32_t max_cut_ppm;
	uint64_t timer_ns;
	uint64_t byte_counter_bytes;
	uint32_t threshold;
	uint64_t ai_bps;
	uint64_t hai_bps;
	bool clamp_tgt_rate;
	bool clamp_tgt_rate_after_time_inc;
	bool release_at_line_rate; /* FIRMWARE, PAPER */
};

/* Per-QP reaction point state. Written by one thread. */
struct dcqcn_rp {
	uint64_t rate_bps; /* R_C: what the QP may send at */
	uint64_t target_bps; /* R_T */
	uint64_t alpha_q32; /* congestion estimate, Q32, <= 2^32 */
	uint64_t alpha_next_ns; /* next alpha update */
	uint64_t cut_next_ns; /* HPCC: next periodic check */
	uint64_t last_cut_ns; /* time of the last cut */
	uint64_t timer_next_ns; /* next increase timer event */
	uint64_t bytes; /* bytes sent since the last byte counter event */
	uint32_t t_count; /* T: timer events since the last cut */
	uint32_t bc_count; /* BC: byte counter events since the last cut */
	bool active; /* throttled: a CNP came and the rate has not recovered */
	bool alpha_cnp; /* a CNP arrived since the last alpha update */
	bool cut_pending; /* a CNP is waiting for the next cut */
	/* Statistics, for tests and the simulator's reports. */
	uint64_t n_cnp;
	uint64_t n_cut;
	uint64_t n_fast_recovery;
	uint64_t n_additive;
	uint64_t n_hyper;
	uint64_t n_release;
};

struct dcqcn_np_params {
	uint64_t min_interval_ns; /* per QP; 0 = a CNP for every CE packet */
};

struct dcqcn_np_config {
	uint64_t min_interval_ns;
};

/* Per-QP notification point state. */
struct dcqcn_np {
	uint64_t last_cnp_ns;
	bool sent; /* last_cnp_ns is valid */
};

enum dcqcn_np_verdict {
	DCQCN_NP_SEND_CNP = 0,
	DCQCN_NP_SUPPRESS,
};

/*
 * Fill RP and NP with a variant's defaults for a NIC at line_rate_bps
 * (either pointer may be NULL). NP intervals: FIRMWARE 4 us
 * (min_time_between_cnps), PAPER 50 us (N), HPCC 0 (CNP flag on every ACK
 * of a CE packet).
 */
void dcqcn_params_default(enum dcqcn_variant v, uint64_t line_rate_bps,
		struct dcqcn_rp_params *rp, struct dcqcn_np_params *np);

/* "firmware", "paper", "hpcc"; "?" for an invalid value. */
const char *dcqcn_variant_name(enum dcqcn_variant v);

/* Validate P into C. Returns 0 or -EINVAL (C untouched). */
int dcqcn_rp_config_init(struct dcqcn_rp_config *c, const struct dcqcn_rp_params *p);

/* A new QP sending at line rate, unthrottled. */
void dcqcn_rp_init(const struct dcqcn_rp_config *c, struct dcqcn_rp *rp);

/* Process every timer due at or before now. */
void dcqcn_rp_advance(const struct dcqcn_rp_config *c, struct dcqcn_rp *rp, uint64_t now_ns);

/* A CNP for this QP arrived at now (advances to now first). */
void dcqcn_rp_on_cnp(const struct dcqcn_rp_config *c, struct dcqcn_rp *rp, uint64_t now_ns);

/* BYTES were sent at now (advances to now first; may run increase events). */
void dcqcn_rp_on_tx(const struct dcqcn_rp_config *c, struct dcqcn_rp *rp, uint64_t bytes,
		uint64_t now_ns);

/*
 * The earliest time at which the rate changes without a further CNP or
 * transmission (a pending cut or an increase timer), or CC_TIME_NEVER.
 * Call dcqcn_rp_advance() (or any on_*()) at that time to apply it.
 */
uint64_t dcqcn_rp_next_event(const struct dcqcn_rp_config *c, const struct dcqcn_rp *rp);

/* R_C, the rate the QP may send at now (after the last advance). */
static inline uint64_t
dcqcn_rp_rate_bps(const struct dcqcn_rp *rp)
{
	return rp->rate_bps;
}

/* Returns 0 or -EINVAL. */
int dcqcn_np_config_init(struct dcqcn_np_config *c, const struct dcqcn_np_params *p);

void dcqcn_np_init(struct dcqcn_np *np);

/*
 * A CE-marked packet for this QP arrived at now: send a CNP unless one was
 * sent less than min_interval_ns ago.
 */
enum dcqcn_np_verdict dcqcn_np_on_ce(const struct dcqcn_np_config *c, struct dcqcn_np *np,
		uint64_t now_ns);

#endif /* LONGSPAN_DCQCN_H */
