/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Configuration: one key table for our INI (type, unit, bounds, default,
 * help), a line-oriented reader for the HPCC config.txt subset, and the
 * value parsers with units.  Every error in a file is reported, each as
 * FILE:LINE: [section] key: message, and any error fails the load.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sim_config.h"

/* ---------------------------------------------------------------- parsers */

static int
sim_parse_scaled(const char *s, double *v, const char **suffix)
{
	char *end;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	if (errno != 0 || end == s || !isfinite(*v))
		return -EINVAL;
	*suffix = end;
	return 0;
}

int
sim_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (s == NULL || *s == '\0' || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -EINVAL;
	return 0;
}

int
sim_parse_double(const char *s, double *v)
{
	const char *suffix;

	if (sim_parse_scaled(s, v, &suffix) < 0)
		return -EINVAL;
	if (strcmp(suffix, "%") == 0) {
		*v /= 100.0;
		return 0;
	}
	return *suffix == '\0' ? 0 : -EINVAL;
}

/* 100G, 100Gbps, 50Mb/s, 1.6T, 400000000000: bits per second. */
int
sim_parse_rate(const char *s, uint64_t *bps)
{
	static const struct {
		const char *name;
		double mult;
	} units[] = {
		{ "", 1 }, { "bps", 1 }, { "b/s", 1 },
		{ "K", 1e3 }, { "Kbps", 1e3 }, { "Kb/s", 1e3 }, { "k", 1e3 }, { "kbps", 1e3 },
		{ "kb/s", 1e3 }, { "M", 1e6 }, { "Mbps", 1e6 }, { "Mb/s", 1e6 },
		{ "G", 1e9 }, { "Gbps", 1e9 }, { "Gb/s", 1e9 },
		{ "T", 1e12 }, { "Tbps", 1e12 }, { "Tb/s", 1e12 },
	};
	const char *suffix;
	double v;
	size_t i;

	if (sim_parse_scaled(s, &v, &suffix) < 0 || v < 0)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(suffix, units[i].name) == 0) {
			double r = v * units[i].mult;

			if (r >= 1.8e19)
				return -ERANGE;
			*bps = (uint64_t)llround(r);
			return 0;
		}
	}
	return -EINVAL;
}

/* 500us, 1ms, 2s, 100ns; a bare number is nanoseconds. */
int
sim_parse_time_ns(const char *s, uint64_t *ns)
{
	static const struct {
		const char *name;
		double mult;
	} units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	const char *suffix;
	double v;
	size_t i;

	if (sim_parse_scaled(s, &v, &suffix) < 0 || v < 0)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(suffix, units[i].name) == 0) {
			double r = v * units[i].mult;

			if (r >= 1.8e19)
				return -ERANGE;
			*ns = (uint64_t)llround(r);
			return 0;
		}
	}
	return -EINVAL;
}

/* 12.5MB, 64KiB, 1500; KB/MB/GB are decimal, KiB/MiB/GiB binary. */
int
sim_parse_bytes(const char *s, uint64_t *bytes)
{
	static const struct {
		const char *name;
		double mult;
	} units[] = {
		{ "", 1 }, { "B", 1 }, { "KB", 1e3 }, { "kB", 1e3 }, { "MB", 1e6 },
		{ "GB", 1e9 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 },
		{ "GiB", 1073741824.0 },
	};
	const char *suffix;
	double v;
	size_t i;

	if (sim_parse_scaled(s, &v, &suffix) < 0 || v < 0)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(suffix, units[i].name) == 0) {
			double r = v * units[i].mult;

			if (r >= 1.8e19)
				return -ERANGE;
			*bytes = (uint64_t)llround(r);
			return 0;
		}
	}
	return -EINVAL;
}

/* -------------------------------------------------------------- key table */

enum sim_key_type {
	SIM_KEY_U64,
	SIM_KEY_U32,
	SIM_KEY_BOOL,
	SIM_KEY_DOUBLE,
	SIM_KEY_TIME,
	SIM_KEY_BYTES,
	SIM_KEY_RATE,
	SIM_KEY_ENUM,
	SIM_KEY_IDS,
	SIM_KEY_MECH,
};

static const char *const sim_host_model_names[] = { "hpcc", "firmware", "paper", NULL };
static const char *const sim_marker_names[] = { "red-as-switch", "red", "sojourn", "phantom",
						NULL };
static const char *const sim_window_names[] = { "auto", "on", "off", NULL };
static const char *const sim_tx_time_names[] = { "exact", "ns3", NULL };
static const char *const sim_qpn_names[] = { "cm", "inband", NULL };

struct sim_key {
	const char *section;
	const char *key;
	uint8_t type;
	size_t off;
	size_t set_off;		/* offset of a "was set" bool, or 0 */
	double min;
	double max;
	const char *def;
	const char *const *names;
	const char *help;
};

#define OFF(f) offsetof(struct sim_config, f)

static const struct sim_key sim_keys[] = {
	{ "sim", "seed", SIM_KEY_U64, OFF(seed), 0, 0, 1.8e19, "1", NULL,
	  "RNG seed; the same seed and inputs give the same outputs" },
	{ "sim", "end", SIM_KEY_TIME, OFF(end_ns), 0, 0, 1e15, "0", NULL,
	  "stop time; 0 = SIMULATOR_STOP_TIME, else when every flow has finished" },
	{ "sim", "ts_interval", SIM_KEY_TIME, OFF(ts_interval_ns), 0, 0, 1e12, "10us", NULL,
	  "period of the time-series CSVs (queues.csv, rates.csv); 0 = off" },
	{ "sim", "stats_interval", SIM_KEY_TIME, OFF(stats_interval_ns), 0, 100, 1e12, "1us",
	  NULL, "queue sampling period for the per-role p99 in summary.json" },
	{ "sim", "retransmit", SIM_KEY_BOOL, OFF(retransmit), 0, 0, 1, "true", NULL,
	  "go-back-N on a gap, as RC NICs and ns-3 (false: the receiver skips the gap and the "
	  "lost bytes stay lost, as the lab's longspan-hostem; goodput counts only what arrived)" },
	{ "sim", "cnp_log", SIM_KEY_BOOL, OFF(cnp_log), 0, 0, 1, "false", NULL,
	  "write cnps.csv: every CNP reaching a sender (time, flow, gateway or receiver)" },
	{ "sim", "ts_min_flow_bytes", SIM_KEY_BYTES, OFF(ts_min_flow_bytes), 0, 0, 1e15, "1MB",
	  NULL, "flows at least this large appear in rates.csv" },
	{ "sim", "host_model", SIM_KEY_ENUM, OFF(host_model), OFF(host_model_set), 0, 0,
	  "firmware", sim_host_model_names,
	  "host DCQCN: hpcc (ns-3 CC_MODE 1, the default with --hpcc-config), firmware, paper" },
	{ "sim", "window", SIM_KEY_ENUM, OFF(window), 0, 0, 0, "auto", sim_window_names,
	  "sender window: auto follows HAS_WIN/VAR_WIN, on, off" },
	{ "sim", "np_cnp_interval", SIM_KEY_TIME, OFF(np_cnp_interval_ns),
	  OFF(np_cnp_interval_set), 0, 1e12, "5us", NULL,
	  "receiver NIC minimum CNP spacing per QP (default per host model)" },
	{ "sim", "np_any_ce", SIM_KEY_BOOL, OFF(np_any_ce), 0, 0, 1, "false", NULL,
	  "receiver NIC sends a CNP packet for any CE data packet, in order or not, as "
	  "ConnectX does (else HPCC's: a CNP flag on the ACK of an in-order packet)" },
	{ "sim", "pfc_u32_compat", SIM_KEY_BOOL, OFF(pfc_u32_compat), 0, 0, 1, "true", NULL,
	  "compute PFC thresholds in 32-bit unsigned arithmetic exactly as HPCC's switch-mmu" },
	{ "sim", "pfc_min_headroom", SIM_KEY_BYTES, OFF(pfc_min_headroom_bytes), 0, 0, 1e9, "0",
	  NULL, "PFC headroom per port at least this (third.cc's 3 x rate x delay is below one "
	  "frame on slow, short links; 2 x MTU + 2 x rate x delay is the usual rule); 0 = HPCC's" },
	{ "sim", "tx_time", SIM_KEY_ENUM, OFF(tx_time), 0, 0, 0, "exact", sim_tx_time_names,
	  "serialisation and pacing times: exact keeps nominal link rates; ns3 truncates them "
	  "to whole ns as ns-3 does (a 1048-byte packet: 83 ns at 100G, i.e. 1% fast)" },

	{ "gateway", "ids", SIM_KEY_IDS, 0, 0, 0, 0, "", NULL,
	  "gateway node ids; empty = the two ends of the longest-delay link" },
	{ "gateway", "mechanisms", SIM_KEY_MECH, OFF(mechanisms), 0, 0, 0, "none", NULL,
	  "none, A, C or A,C" },
	{ "gateway", "marker", SIM_KEY_ENUM, OFF(marker), OFF(marker_set), 0, 0,
	  "red-as-switch", sim_marker_names,
	  "WAN egress marker: red-as-switch (HPCC map), red, sojourn, phantom" },
	{ "gateway", "wan_rtt", SIM_KEY_TIME, OFF(wan_rtt_ns), 0, 0, 1e12, "0", NULL,
	  "WAN round-trip time for parameter derivation; 0 = from the topology" },
	{ "gateway", "wan_buffer", SIM_KEY_BYTES, OFF(wan_buffer_bytes), 0, 0, 1e12, "0", NULL,
	  "0: the WAN ports are switch ports (shared buffer, PFC, lossless, as HPCC); N: the "
	  "WAN egress is a tail-drop queue of N bytes outside the shared buffer and no PFC "
	  "crosses the WAN, as the dataplane's traffic manager" },

	{ "marker", "kmin", SIM_KEY_BYTES, OFF(kmin_bytes), 0, 0, 1e12, "0", NULL,
	  "RED Kmin on the WAN egress; 0 = derived" },
	{ "marker", "kmax", SIM_KEY_BYTES, OFF(kmax_bytes), 0, 0, 1e12, "0", NULL,
	  "RED Kmax on the WAN egress; 0 = derived" },
	{ "marker", "pmax", SIM_KEY_DOUBLE, OFF(pmax), 0, 0, 1, "0", NULL,
	  "RED marking probability at Kmax; 0 = derived" },
	{ "marker", "sojourn_target", SIM_KEY_TIME, OFF(sojourn_target_ns), 0, 0, 1e12, "0",
	  NULL, "sojourn marker target delay; 0 = derived" },
	{ "marker", "phantom_fraction", SIM_KEY_DOUBLE, OFF(phantom_fraction), 0, 0.01, 1,
	  "0.95", NULL, "phantom queue drain rate as a fraction of line rate" },
	{ "marker", "phantom_threshold", SIM_KEY_BYTES, OFF(phantom_threshold_bytes), 0, 0,
	  1e9, "0", NULL, "phantom queue size above which packets are marked; 0 = derived" },
	{ "marker", "sojourn_codel", SIM_KEY_BOOL, OFF(sojourn_codel), 0, 0, 1, "false", NULL,
	  "sojourn marker in CoDel-like mode (else a plain delay threshold)" },

	{ "mech_a", "cnp_interval", SIM_KEY_TIME, OFF(a_cnp_interval_ns), 0, 0, 1e12, "0", NULL,
	  "minimum gateway CNP spacing per QP; 0 = derived" },
	{ "mech_a", "cnp_delay", SIM_KEY_TIME, OFF(a_cnp_delay_ns), 0, 0, 1e9, "1us", NULL,
	  "time the gateway takes to build and send a CNP" },
	{ "mech_a", "ce_clear", SIM_KEY_BOOL, OFF(a_ce_clear), 0, 0, 1, "true", NULL,
	  "clear CE on packets the gateway answered with a CNP" },
	{ "mech_a", "qpn_learning", SIM_KEY_ENUM, OFF(a_qpn_learning), 0, 0, 0, "cm",
	  sim_qpn_names,
	  "cm: REQ/REP seen before data; inband: only returning ACKs teach the learner" },
	{ "mech_a", "dc_marks", SIM_KEY_BOOL, OFF(a_dc_marks), 0, 0, 1, "true", NULL,
	  "also answer CE marks set inside the local DC (not only the WAN egress marker)" },

	{ "mech_c", "hold", SIM_KEY_TIME, OFF(c_hold_ns), 0, 0, 1e12, "0", NULL,
	  "how long the temporary reaction point holds a cut; 0 = derived (one WAN RTT)" },
	{ "mech_c", "min_rate", SIM_KEY_RATE, OFF(c_min_rate_bps), 0, 0, 1e13, "0", NULL,
	  "floor of the temporary reaction point; 0 = derived" },
	{ "mech_c", "cut", SIM_KEY_U32, OFF(c_cut_ppm), 0, 0, 1000000, "0", NULL,
	  "fraction of the rate one TRP cut removes, ppm; 0 = derived (50%)" },
	{ "mech_c", "cut_interval", SIM_KEY_TIME, OFF(c_cut_interval_ns), 0, 0, 1e12, "0", NULL,
	  "minimum time between two TRP cuts of one QP; 0 = trp default (4 us, a NIC's)" },
	{ "mech_c", "ramp_interval", SIM_KEY_TIME, OFF(c_ramp_interval_ns), 0, 0, 1e12, "0", NULL,
	  "TRP ramp step period after the hold; 0 = trp default (hold / 8)" },
	{ "mech_c", "ramp_steps", SIM_KEY_U32, OFF(c_ramp_steps), 0, 0, 1000, "0", NULL,
	  "TRP ramp steps before it hands the QP back; 0 = trp default (5)" },
	{ "mech_c", "upstream_ce_check", SIM_KEY_BOOL, OFF(c_upstream_ce_check), 0, 0, 1, "true",
	  NULL, "ignore receiver CNPs of a QP whose data reached this gateway with CE already set "
	  "(congestion before the WAN, which shaping here cannot relieve)" },
	{ "mech_c", "upstream_ce_window", SIM_KEY_TIME, OFF(c_upstream_ce_window_ns), 0, 0, 1e12,
	  "0", NULL, "how long a CE arrival from the WAN marks a QP's CNPs as upstream; "
	  "0 = 2 x DC RTT" },
	{ "mech_c", "forward_cnp", SIM_KEY_BOOL, OFF(c_forward_cnp), 0, 0, 1, "true", NULL,
	  "forward the receiver's CNPs on to the remote sender" },
	{ "mech_c", "cnp_gap", SIM_KEY_TIME, OFF(c_cnp_gap_ns), 0, 0, 1e12, "0", NULL,
	  "forward at most one receiver CNP per QP per gap while shaping; 0 = all" },
};

#define SIM_NKEYS (sizeof(sim_keys) / sizeof(sim_keys[0]))

const char *
sim_host_model_name(uint32_t m)
{
	return m < 3 ? sim_host_model_names[m] : "?";
}

const char *
sim_marker_name(uint32_t m)
{
	return m < 4 ? sim_marker_names[m] : "?";
}

static const struct sim_key *
sim_key_find(const char *section, const char *key)
{
	size_t i;

	for (i = 0; i < SIM_NKEYS; i++)
		if (strcmp(sim_keys[i].section, section) == 0 &&
		    strcmp(sim_keys[i].key, key) == 0)
			return &sim_keys[i];
	return NULL;
}

static int
sim_key_ids(struct sim_config *c, const char *v)
{
	char buf[256];
	char *tok;
	char *save = NULL;

	c->ngateways = 0;
	if (strlen(v) >= sizeof(buf))
		return -E2BIG;
	strcpy(buf, v);
	for (tok = strtok_r(buf, ", ", &save); tok != NULL; tok = strtok_r(NULL, ", ", &save)) {
		uint64_t id;

		if (sim_parse_u64(tok, &id) < 0 || id > UINT32_MAX)
			return -EINVAL;
		if (c->ngateways == SIM_MAX_GATEWAYS)
			return -E2BIG;
		c->gateways[c->ngateways++] = (uint32_t)id;
	}
	return 0;
}

static int
sim_key_mech(uint32_t *mech, const char *v)
{
	if (strcmp(v, "none") == 0)
		*mech = 0;
	else if (strcmp(v, "A") == 0)
		*mech = SIM_MECH_A;
	else if (strcmp(v, "C") == 0)
		*mech = SIM_MECH_C;
	else if (strcmp(v, "A,C") == 0 || strcmp(v, "C,A") == 0)
		*mech = SIM_MECH_A | SIM_MECH_C;
	else
		return -EINVAL;
	return 0;
}

static int
sim_key_apply(struct sim_config *c, const struct sim_key *k, const char *v, const char **why)
{
	char *base = (char *)c;
	uint64_t u = 0;
	double d = 0;
	int rc = 0;

	*why = "malformed value";
	switch (k->type) {
	case SIM_KEY_U64:
	case SIM_KEY_U32:
		rc = sim_parse_u64(v, &u);
		d = (double)u;
		break;
	case SIM_KEY_BOOL:
		if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 ||
		    strcmp(v, "on") == 0)
			u = 1;
		else if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0 ||
			 strcmp(v, "no") == 0 || strcmp(v, "off") == 0)
			u = 0;
		else
			rc = -EINVAL;
		*why = "expected true or false";
		break;
	case SIM_KEY_DOUBLE:
		rc = sim_parse_double(v, &d);
		break;
	case SIM_KEY_TIME:
		rc = sim_parse_time_ns(v, &u);
		d = (double)u;
		*why = "expected a time such as 500us";
		break;
	case SIM_KEY_BYTES:
		rc = sim_parse_bytes(v, &u);
		d = (double)u;
		*why = "expected a size such as 12.5MB";
		break;
	case SIM_KEY_RATE:
		rc = sim_parse_rate(v, &u);
		d = (double)u;
		*why = "expected a rate such as 100G";
		break;
	case SIM_KEY_ENUM: {
		uint32_t i;

		rc = -EINVAL;
		for (i = 0; k->names[i] != NULL; i++)
			if (strcmp(v, k->names[i]) == 0) {
				u = i;
				rc = 0;
			}
		*why = "unknown value";
		break;
	}
	case SIM_KEY_IDS:
		*why = "expected node ids such as 48,49";
		rc = sim_key_ids(c, v);
		return rc;
	case SIM_KEY_MECH: {
		uint32_t m;

		*why = "expected none, A, C or A,C";
		rc = sim_key_mech(&m, v);
		if (rc == 0)
			*(uint32_t *)(base + k->off) = m;
		return rc;
	}
	}
	if (rc < 0)
		return rc;
	if (k->type != SIM_KEY_ENUM && k->type != SIM_KEY_BOOL && (d < k->min || d > k->max)) {
		*why = "out of range";
		return -ERANGE;
	}
	switch (k->type) {
	case SIM_KEY_U64:
	case SIM_KEY_TIME:
	case SIM_KEY_BYTES:
	case SIM_KEY_RATE:
		*(uint64_t *)(base + k->off) = u;
		break;
	case SIM_KEY_U32:
	case SIM_KEY_ENUM:
		*(uint32_t *)(base + k->off) = (uint32_t)u;
		break;
	case SIM_KEY_BOOL:
		*(bool *)(base + k->off) = u != 0;
		break;
	case SIM_KEY_DOUBLE:
		*(double *)(base + k->off) = d;
		break;
	default:
		break;
	}
	if (k->set_off != 0)
		*(bool *)(base + k->set_off) = true;
	return 0;
}

void
sim_config_defaults(struct sim_config *c)
{
	const char *why;
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < SIM_NKEYS; i++) {
		int rc = sim_key_apply(c, &sim_keys[i], sim_keys[i].def, &why);

		(void)rc; /* defaults are checked by the dump round-trip test */
		if (sim_keys[i].set_off != 0)
			*(bool *)((char *)c + sim_keys[i].set_off) = false;
	}
	/* third.cc's defaults for config.txt keys a file may leave out. */
	c->payload_bytes = 1000;
	c->ecn_enabled = true;
	c->pfc_dynamic = true;
	c->alpha_resume_us = 55;
	c->rate_decrease_us = 4;
	c->rp_timer_us = 1500;
	c->ewma_gain = 1.0 / 16;
	c->fast_recovery_times = 5;
	c->rate_ai_bps = 5000000;
	c->rate_hai_bps = 50000000;
	c->min_rate_bps = 100000000;
	c->l2_ack_interval = 1;
	c->l2_chunk_bytes = 0;
	c->has_win = false;
	c->global_t = true;
	c->var_win = false;
	c->ack_high_prio = true;
	c->rate_bound = true;
	c->buffer_mb = 32;
	c->stop_time_s = 0;
	/*
	 * Without an HPCC config: Alibaba's production ECN setting (100 KB /
	 * 400 KB / 0.2 at 25G) scaled linearly with link rate, computed per
	 * rate in sim_net.c when no map entry exists.
	 */
}

int
sim_config_set(struct sim_config *c, const char *section, const char *key, const char *value,
	       const char *where, FILE *err)
{
	const struct sim_key *k = sim_key_find(section, key);
	const char *why;

	if (k == NULL) {
		fprintf(err, "%s: [%s] %s: unknown key\n", where, section, key);
		return -ENOENT;
	}
	if (sim_key_apply(c, k, value, &why) < 0) {
		fprintf(err, "%s: [%s] %s: %s: '%s'\n", where, section, key, why, value);
		return -EINVAL;
	}
	return 0;
}

static char *
sim_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int
sim_config_load_ini(struct sim_config *c, const char *path, FILE *err)
{
	char section[64] = "";
	char line[1024];
	unsigned int lineno = 0;
	int errors = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		fprintf(err, "%s: cannot open: %s\n", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char where[512];
		char *s;
		char *eq;

		lineno++;
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		if (strchr(line, '\n') == NULL && !feof(f)) {
			fprintf(err, "%s: line too long\n", where);
			errors++;
			while (fgets(line, sizeof(line), f) != NULL && strchr(line, '\n') == NULL)
				;
			continue;
		}
		s = strpbrk(line, "#;");
		if (s != NULL)
			*s = '\0';
		s = sim_trim(line);
		if (*s == '\0')
			continue;
		if (*s == '[') {
			char *e = strchr(s, ']');

			if (e == NULL || e[1] != '\0' || e - s - 1 >= (long)sizeof(section)) {
				fprintf(err, "%s: malformed section header\n", where);
				errors++;
				continue;
			}
			*e = '\0';
			strcpy(section, sim_trim(s + 1));
			if (sim_key_find(section, "") == NULL) {
				size_t i;
				bool known = false;

				for (i = 0; i < SIM_NKEYS; i++)
					known |= strcmp(sim_keys[i].section, section) == 0;
				if (!known) {
					fprintf(err, "%s: [%s]: unknown section\n", where, section);
					errors++;
				}
			}
			continue;
		}
		eq = strchr(s, '=');
		if (eq == NULL) {
			fprintf(err, "%s: [%s]: expected key = value\n", where, section);
			errors++;
			continue;
		}
		*eq = '\0';
		if (section[0] == '\0') {
			fprintf(err, "%s: %s: key outside any section\n", where, sim_trim(s));
			errors++;
			continue;
		}
		if (sim_config_set(c, section, sim_trim(s), sim_trim(eq + 1), where, err) < 0)
			errors++;
	}
	fclose(f);
	return errors ? -EINVAL : 0;
}

/* ----------------------------------------------------------- HPCC config */

enum sim_hkey_kind {
	SIM_HK_U32,
	SIM_HK_BOOL,
	SIM_HK_DOUBLE,
	SIM_HK_RATE,
	SIM_HK_IGNORE, /* accepted, irrelevant to this model (paths, HPCC/TIMELY knobs) */
	SIM_HK_MAP,
	SIM_HK_SPECIAL,
};

struct sim_hkey {
	const char *name;
	uint8_t kind;
	size_t off;
};

static const struct sim_hkey sim_hkeys[] = {
	{ "ENABLE_QCN", SIM_HK_BOOL, OFF(ecn_enabled) },
	{ "USE_DYNAMIC_PFC_THRESHOLD", SIM_HK_BOOL, OFF(pfc_dynamic) },
	{ "PACKET_PAYLOAD_SIZE", SIM_HK_U32, OFF(payload_bytes) },
	{ "CC_MODE", SIM_HK_SPECIAL, 0 },
	{ "ALPHA_RESUME_INTERVAL", SIM_HK_DOUBLE, OFF(alpha_resume_us) },
	{ "RATE_DECREASE_INTERVAL", SIM_HK_DOUBLE, OFF(rate_decrease_us) },
	{ "CLAMP_TARGET_RATE", SIM_HK_BOOL, OFF(clamp_target_rate) },
	{ "RP_TIMER", SIM_HK_DOUBLE, OFF(rp_timer_us) },
	{ "EWMA_GAIN", SIM_HK_DOUBLE, OFF(ewma_gain) },
	{ "FAST_RECOVERY_TIMES", SIM_HK_U32, OFF(fast_recovery_times) },
	{ "RATE_AI", SIM_HK_RATE, OFF(rate_ai_bps) },
	{ "RATE_HAI", SIM_HK_RATE, OFF(rate_hai_bps) },
	{ "MIN_RATE", SIM_HK_RATE, OFF(min_rate_bps) },
	{ "L2_CHUNK_SIZE", SIM_HK_U32, OFF(l2_chunk_bytes) },
	{ "L2_ACK_INTERVAL", SIM_HK_U32, OFF(l2_ack_interval) },
	{ "L2_BACK_TO_ZERO", SIM_HK_BOOL, OFF(l2_back_to_zero) },
	{ "HAS_WIN", SIM_HK_BOOL, OFF(has_win) },
	{ "GLOBAL_T", SIM_HK_BOOL, OFF(global_t) },
	{ "VAR_WIN", SIM_HK_BOOL, OFF(var_win) },
	{ "ACK_HIGH_PRIO", SIM_HK_BOOL, OFF(ack_high_prio) },
	{ "RATE_BOUND", SIM_HK_BOOL, OFF(rate_bound) },
	{ "BUFFER_SIZE", SIM_HK_U32, OFF(buffer_mb) },
	{ "SIMULATOR_STOP_TIME", SIM_HK_DOUBLE, OFF(stop_time_s) },
	{ "KMAX_MAP", SIM_HK_MAP, 1 },
	{ "KMIN_MAP", SIM_HK_MAP, 0 },
	{ "PMAX_MAP", SIM_HK_MAP, 2 },
	{ "ERROR_RATE_PER_LINK", SIM_HK_SPECIAL, 0 },
	{ "LINK_DOWN", SIM_HK_SPECIAL, 0 },
	{ "TOPOLOGY_FILE", SIM_HK_IGNORE, 0 },
	{ "FLOW_FILE", SIM_HK_IGNORE, 0 },
	{ "TRACE_FILE", SIM_HK_IGNORE, 0 },
	{ "TRACE_OUTPUT_FILE", SIM_HK_IGNORE, 0 },
	{ "FCT_OUTPUT_FILE", SIM_HK_IGNORE, 0 },
	{ "PFC_OUTPUT_FILE", SIM_HK_IGNORE, 0 },
	{ "QLEN_MON_FILE", SIM_HK_IGNORE, 0 },
	{ "QLEN_MON_START", SIM_HK_IGNORE, 0 },
	{ "QLEN_MON_END", SIM_HK_IGNORE, 0 },
	{ "ENABLE_TRACE", SIM_HK_IGNORE, 0 },
	{ "DCTCP_RATE_AI", SIM_HK_IGNORE, 0 },
	{ "FAST_REACT", SIM_HK_IGNORE, 0 },
	{ "U_TARGET", SIM_HK_IGNORE, 0 },
	{ "MI_THRESH", SIM_HK_IGNORE, 0 },
	{ "INT_MULTI", SIM_HK_IGNORE, 0 },
	{ "MULTI_RATE", SIM_HK_IGNORE, 0 },
	{ "SAMPLE_FEEDBACK", SIM_HK_IGNORE, 0 },
	{ "PINT_LOG_BASE", SIM_HK_IGNORE, 0 },
	{ "PINT_PROB", SIM_HK_IGNORE, 0 },
	{ "PAUSE_TIME", SIM_HK_IGNORE, 0 },
	{ "DATA_RATE", SIM_HK_IGNORE, 0 },
	{ "LINK_DELAY", SIM_HK_IGNORE, 0 },
};

#undef OFF

static struct sim_rate_map *
sim_config_map_entry(struct sim_config *c, uint64_t rate)
{
	uint32_t i;

	for (i = 0; i < c->nmap; i++)
		if (c->map[i].rate_bps == rate)
			return &c->map[i];
	if (c->nmap == SIM_MAX_RATE_MAP)
		return NULL;
	memset(&c->map[c->nmap], 0, sizeof(c->map[0]));
	c->map[c->nmap].rate_bps = rate;
	return &c->map[c->nmap++];
}

static int
sim_config_hpcc_map(struct sim_config *c, int which, char **tok, int ntok, const char **why)
{
	uint64_t n;
	int i;

	*why = "expected N followed by N pairs of <rate bps> <value>";
	if (ntok < 1 || sim_parse_u64(tok[0], &n) < 0 || (int)n * 2 + 1 != ntok)
		return -EINVAL;
	for (i = 0; i < (int)n; i++) {
		struct sim_rate_map *m;
		uint64_t rate;
		uint64_t kb;
		double p;

		if (sim_parse_u64(tok[1 + 2 * i], &rate) < 0)
			return -EINVAL;
		m = sim_config_map_entry(c, rate);
		if (m == NULL) {
			*why = "too many link rates";
			return -E2BIG;
		}
		if (which == 2) {
			if (sim_parse_double(tok[2 + 2 * i], &p) < 0 || p < 0 || p > 1)
				return -EINVAL;
			m->pmax = p;
		} else {
			if (sim_parse_u64(tok[2 + 2 * i], &kb) < 0 || kb > 4000000)
				return -EINVAL;
			if (which == 0)
				m->kmin_kb = (uint32_t)kb;
			else
				m->kmax_kb = (uint32_t)kb;
		}
		m->have |= (uint8_t)(1u << which);
	}
	return 0;
}

int
sim_config_load_hpcc(struct sim_config *c, const char *path, FILE *err)
{
	char line[4096];
	unsigned int lineno = 0;
	int errors = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		fprintf(err, "%s: cannot open: %s\n", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *tok[80];
		char *save = NULL;
		char *t;
		int ntok = 0;
		const struct sim_hkey *k = NULL;
		const char *why = "malformed value";
		char *base = (char *)c;
		size_t i;
		int rc = 0;

		lineno++;
		for (t = strtok_r(line, " \t\r\n", &save); t != NULL;
		     t = strtok_r(NULL, " \t\r\n", &save)) {
			if (ntok == (int)(sizeof(tok) / sizeof(tok[0]))) {
				rc = -E2BIG;
				break;
			}
			tok[ntok++] = t;
		}
		if (ntok == 0)
			continue;
		for (i = 0; i < sizeof(sim_hkeys) / sizeof(sim_hkeys[0]); i++)
			if (strcmp(sim_hkeys[i].name, tok[0]) == 0)
				k = &sim_hkeys[i];
		if (k == NULL) {
			fprintf(err, "%s:%u: %s: unknown key\n", path, lineno, tok[0]);
			errors++;
			continue;
		}
		if (rc == 0 && k->kind != SIM_HK_MAP && k->kind != SIM_HK_SPECIAL &&
		    k->kind != SIM_HK_IGNORE && ntok != 2) {
			why = "expected exactly one value";
			rc = -EINVAL;
		}
		if (rc == 0) {
			uint64_t u;
			double d;

			switch (k->kind) {
			case SIM_HK_U32:
				rc = sim_parse_u64(tok[1], &u);
				if (rc == 0 && u > UINT32_MAX)
					rc = -ERANGE;
				if (rc == 0)
					*(uint32_t *)(base + k->off) = (uint32_t)u;
				break;
			case SIM_HK_BOOL:
				rc = sim_parse_u64(tok[1], &u);
				if (rc == 0 && u > 1)
					rc = -ERANGE;
				why = "expected 0 or 1";
				if (rc == 0)
					*(bool *)(base + k->off) = u != 0;
				break;
			case SIM_HK_DOUBLE:
				rc = sim_parse_double(tok[1], &d);
				if (rc == 0 && d < 0)
					rc = -ERANGE;
				if (rc == 0)
					*(double *)(base + k->off) = d;
				break;
			case SIM_HK_RATE:
				rc = sim_parse_rate(tok[1], &u);
				why = "expected a rate such as 50Mb/s";
				if (rc == 0)
					*(uint64_t *)(base + k->off) = u;
				break;
			case SIM_HK_MAP:
				rc = sim_config_hpcc_map(c, (int)k->off, tok + 1, ntok - 1, &why);
				break;
			case SIM_HK_SPECIAL:
				if (strcmp(k->name, "CC_MODE") == 0) {
					rc = ntok == 2 ? sim_parse_u64(tok[1], &u) : -EINVAL;
					if (rc == 0 && u != 1) {
						why = "only CC_MODE 1 (DCQCN) is modelled";
						rc = -ENOTSUP;
					}
				} else if (strcmp(k->name, "ERROR_RATE_PER_LINK") == 0) {
					rc = ntok == 2 ? sim_parse_double(tok[1], &d) : -EINVAL;
					if (rc == 0 && d != 0) {
						why = "random link errors are not modelled";
						rc = -ENOTSUP;
					}
				} else if (strcmp(k->name, "LINK_DOWN") == 0) {
					why = "link failures are not modelled (use 0 0 0)";
					if (ntok != 4 || strcmp(tok[1], "0") != 0)
						rc = -ENOTSUP;
				}
				break;
			default:
				break;
			}
		}
		if (rc < 0) {
			fprintf(err, "%s:%u: %s: %s\n", path, lineno, k->name, why);
			errors++;
		}
	}
	fclose(f);
	if (errors == 0) {
		uint32_t i;

		for (i = 0; i < c->nmap; i++)
			if (c->map[i].have != 7) {
				fprintf(err, "%s: rate %llu: KMIN_MAP, KMAX_MAP and PMAX_MAP must all "
					"name it\n", path, (unsigned long long)c->map[i].rate_bps);
				errors++;
			}
	}
	c->hpcc_loaded = errors == 0;
	return errors ? -EINVAL : 0;
}

int
sim_config_validate(const struct sim_config *c, FILE *err)
{
	int errors = 0;

	if (c->payload_bytes < 64 || c->payload_bytes > 9000) {
		fprintf(err, "config: PACKET_PAYLOAD_SIZE: must be 64..9000 bytes\n");
		errors++;
	}
	if (c->kmin_bytes != 0 && c->kmax_bytes != 0 && c->kmin_bytes > c->kmax_bytes) {
		fprintf(err, "config: [marker] kmin: must not exceed kmax\n");
		errors++;
	}
	if (c->alpha_resume_us <= 0 || c->rate_decrease_us <= 0 || c->rp_timer_us <= 0) {
		fprintf(err, "config: DCQCN timers must be positive\n");
		errors++;
	}
	if (c->ewma_gain <= 0 || c->ewma_gain > 1) {
		fprintf(err, "config: EWMA_GAIN: must be in (0, 1]\n");
		errors++;
	}
	if (c->buffer_mb == 0 || c->buffer_mb > 4095) {
		fprintf(err, "config: BUFFER_SIZE: must be 1..4095 MB\n");
		errors++;
	}
	if (c->l2_ack_interval == 0) {
		fprintf(err, "config: L2_ACK_INTERVAL: 0 (no ACKs) is not modelled\n");
		errors++;
	}
	return errors ? -EINVAL : 0;
}

static void
sim_config_print_value(const struct sim_config *c, const struct sim_key *k, FILE *f)
{
	const char *base = (const char *)c;

	switch (k->type) {
	case SIM_KEY_U64:
	case SIM_KEY_BYTES:
		fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)(base + k->off));
		break;
	case SIM_KEY_TIME:
		fprintf(f, "%lluns", (unsigned long long)*(const uint64_t *)(base + k->off));
		break;
	case SIM_KEY_RATE:
		fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)(base + k->off));
		break;
	case SIM_KEY_U32:
		fprintf(f, "%u", *(const uint32_t *)(base + k->off));
		break;
	case SIM_KEY_ENUM:
		fprintf(f, "%s", k->names[*(const uint32_t *)(base + k->off)]);
		break;
	case SIM_KEY_BOOL:
		fprintf(f, "%s", *(const bool *)(base + k->off) ? "true" : "false");
		break;
	case SIM_KEY_DOUBLE:
		fprintf(f, "%.17g", *(const double *)(base + k->off));
		break;
	case SIM_KEY_IDS: {
		uint32_t i;

		for (i = 0; i < c->ngateways; i++)
			fprintf(f, "%s%u", i ? "," : "", c->gateways[i]);
		break;
	}
	case SIM_KEY_MECH: {
		uint32_t m = *(const uint32_t *)(base + k->off);

		fprintf(f, "%s", m == 0 ? "none" : m == SIM_MECH_A ? "A" : m == SIM_MECH_C ? "C" :
			"A,C");
		break;
	}
	}
}

void
sim_config_dump(const struct sim_config *c, FILE *f)
{
	const char *section = "";
	size_t i;

	for (i = 0; i < SIM_NKEYS; i++) {
		const struct sim_key *k = &sim_keys[i];

		if (strcmp(section, k->section) != 0) {
			fprintf(f, "%s[%s]\n", i ? "\n" : "", k->section);
			section = k->section;
		}
		fprintf(f, "# %s\n%s = ", k->help, k->key);
		sim_config_print_value(c, k, f);
		fputc('\n', f);
	}
}
