/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspan-sim configuration: the HPCC-family config.txt subset, our own INI
 * file, and the command line, resolved in that order (later wins) into one
 * struct.  One key table (sim_config.c, in control/conf_key.h's form, the
 * gateway's) drives parsing, defaults, bounds, --dump-config and the
 * documentation.
 */
#ifndef LONGSPAN_SIM_CONFIG_H
#define LONGSPAN_SIM_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SIM_MAX_RATE_MAP 16
#define SIM_MAX_GATEWAYS 16

enum sim_host_model {
	SIM_HOST_HPCC,	   /* HPCC ns-3 CC_MODE 1 (Mellanox-style, timers only) */
	SIM_HOST_FIRMWARE, /* ConnectX firmware defaults */
	SIM_HOST_PAPER,	   /* DCQCN paper parameters */
};

enum sim_marker {
	SIM_MARKER_SWITCH,  /* red-as-switch: the HPCC map, as every other switch */
	SIM_MARKER_RED,	    /* RED with distance-derived thresholds */
	SIM_MARKER_SOJOURN, /* sojourn time above a target */
	SIM_MARKER_PHANTOM, /* phantom queue draining at a fraction of line rate */
};

enum sim_window {
	SIM_WINDOW_AUTO, /* as HAS_WIN / VAR_WIN say */
	SIM_WINDOW_ON,
	SIM_WINDOW_OFF,
};

/* Serialisation time of a packet on a link and of a QP's pacing gap. */
enum sim_tx_time {
	SIM_TX_TIME_EXACT, /* links exact to the picosecond, pacing rounded */
	SIM_TX_TIME_NS3,   /* whole ns, truncated, as ns-3's Time(double) */
};

enum sim_qpn_learning {
	SIM_QPN_CM,	/* RDMA-CM REQ/REP crosses the gateway before data */
	SIM_QPN_INBAND, /* only returning ACK/NAKs teach the learner */
};

#define SIM_MECH_A 0x1u
#define SIM_MECH_B 0x2u /* PFC at the DC port and the credit-based WAN hop */
#define SIM_MECH_C 0x4u

/* Mechanism B's mode ([gateway] lossless), as the gateway's [peer] lossless. */
enum sim_lossless {
	SIM_LOSSLESS_PFC,    /* PFC toward the DC at the WAN queue's XOFF only */
	SIM_LOSSLESS_CREDIT, /* PFC plus credits on the WAN hop */
};

struct sim_rate_map {
	uint64_t rate_bps;
	uint32_t kmin_kb;
	uint32_t kmax_kb;
	double pmax;
	uint8_t have; /* bit 0 kmin, bit 1 kmax, bit 2 pmax */
};

struct sim_config {
	/* Files (command line). */
	const char *topology;
	const char *flows;
	const char *hpcc_config;
	const char *ini;
	const char *out_dir;

	/* HPCC config.txt subset (defaults are third.cc's). */
	uint32_t payload_bytes;
	bool ecn_enabled;
	bool pfc_dynamic;
	double alpha_resume_us;
	double rate_decrease_us;
	double rp_timer_us;
	double ewma_gain;
	uint32_t fast_recovery_times;
	uint64_t rate_ai_bps;
	uint64_t rate_hai_bps;
	uint64_t min_rate_bps;
	bool clamp_target_rate;
	uint32_t l2_ack_interval;
	uint32_t l2_chunk_bytes;
	bool l2_back_to_zero;
	bool has_win;
	bool global_t;
	bool var_win;
	bool ack_high_prio;
	bool rate_bound;
	uint32_t buffer_mb;
	double stop_time_s;
	struct sim_rate_map map[SIM_MAX_RATE_MAP];
	uint32_t nmap;
	bool hpcc_loaded;

	/* [sim] */
	uint64_t seed;
	uint64_t end_ns;	    /* 0: SIMULATOR_STOP_TIME or until all flows end */
	uint64_t ts_interval_ns;    /* time series CSV period, 0 = off */
	uint64_t stats_interval_ns; /* queue sampling for p99 */
	uint64_t ts_min_flow_bytes; /* flows in rates.csv */
	uint32_t host_model;	    /* enum sim_host_model */
	bool host_model_set;
	uint32_t window;	    /* enum sim_window */
	uint64_t np_cnp_interval_ns; /* receiver NIC min CNP spacing per QP */
	bool np_cnp_interval_set;
	bool np_any_ce;		    /* CNP packet for any CE data packet (ConnectX NP) */
	bool cnp_log;		    /* write cnps.csv */
	bool retransmit;	    /* go-back-N (else skip gaps, as hostem) */
	bool pfc_u32_compat;	    /* keep HPCC's 32-bit threshold arithmetic */
	uint32_t tx_time;	    /* enum sim_tx_time */
	uint64_t pfc_min_headroom_bytes; /* floor of every port's PFC headroom; 0 = none */

	/* [gateway] */
	uint32_t gateways[SIM_MAX_GATEWAYS];
	uint32_t ngateways;	    /* 0: the two ends of the longest-delay link */
	uint32_t mechanisms;	    /* SIM_MECH_* */
	uint32_t marker;	    /* enum sim_marker */
	bool marker_set;
	uint64_t wan_rtt_ns;	    /* 0: measured from the topology */
	uint64_t wan_buffer_bytes;  /* 0: lossless switch port; else tail-drop WAN egress */
	uint32_t lossless;	    /* enum sim_lossless, with SIM_MECH_B */

	/* [marker] (0 = derive from rate and RTT) */
	uint64_t kmin_bytes;
	uint64_t kmax_bytes;
	uint32_t pmax_ppm;
	uint64_t sojourn_target_ns;
	uint32_t phantom_ppm;	    /* phantom queue drain, ppm of line rate */
	uint64_t phantom_threshold_bytes;
	bool sojourn_codel;

	/* [mech_a] */
	uint64_t a_cnp_interval_ns;
	uint64_t a_cnp_backoff_max_ns; /* 0: fixed spacing */
	uint64_t a_cnp_delay_ns;
	bool a_ce_clear;
	uint32_t a_qpn_learning;    /* enum sim_qpn_learning */
	bool a_dc_marks;	    /* also react to CE set inside the local DC */

	/* [mech_c] */
	uint64_t c_hold_ns;	    /* 0: derived (cc_params) */
	uint64_t c_min_rate_bps;
	uint32_t c_cut_ppm;	    /* 0: trp default (50%) */
	uint64_t c_cut_interval_ns; /* 0: derived (cc_params) */
	uint64_t c_ramp_interval_ns; /* 0: trp default (hold / 8) */
	uint32_t c_ramp_steps;	    /* 0: trp default (5) */
	bool c_upstream_ce_check;   /* no TRP reaction to CNPs for CE set before the WAN */
	uint64_t c_upstream_ce_window_ns; /* 0: 2 x DC RTT */
	bool c_forward_cnp;	    /* forward the receiver's CNPs to the sender */
	uint64_t c_cnp_gap_ns;	    /* forward at most one CNP per QP per gap */
	uint64_t c_forward_backlog; /* forward only while the QP holds this many bytes */
};

/* Fills in the defaults of every key. */
void sim_config_defaults(struct sim_config *c);

/* Parses HPCC config.txt; reports every error as FILE:LINE: KEY: message. */
int sim_config_load_hpcc(struct sim_config *c, const char *path, FILE *err);

/* Parses our INI; errors read FILE:LINE: [section] key: message. */
int sim_config_load_ini(struct sim_config *c, const char *path, FILE *err);

/* Applies one "section.key=value" (command line -o and tests). */
int sim_config_set(struct sim_config *c, const char *section, const char *key,
		   const char *value, const char *where, FILE *err);

/* Cross-field checks after everything is loaded. */
int sim_config_validate(const struct sim_config *c, FILE *err);

/* Prints the effective INI keys with their values. */
void sim_config_dump(const struct sim_config *c, FILE *f);

/* How many defaults of the key table fail to load (0; a test checks). */
unsigned int sim_config_default_errors(void);

/*
 * Value parsers of the HPCC-format files (topology, flows, config.txt).
 * Rates and times go through control/units.h as every Longspan config
 * does (exact, a unit required for a non-zero time); *why says what was
 * wrong. Rates also take config.txt's "Mb/s".
 */
int sim_parse_rate(const char *s, uint64_t *bps, const char **why);
int sim_parse_time_ns(const char *s, uint64_t *ns, const char **why);
int sim_parse_u64(const char *s, uint64_t *v);
int sim_parse_double(const char *s, double *v);

const char *sim_host_model_name(uint32_t m);
const char *sim_marker_name(uint32_t m);

#endif /* LONGSPAN_SIM_CONFIG_H */
