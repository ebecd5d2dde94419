/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Configuration: our INI through the key table every Longspan tool shares
 * (control/conf_key.h: type, unit, bounds, default, help; control/conf_ini.h:
 * the INI syntax), a line-oriented reader for the HPCC config.txt subset,
 * and numbers with units parsed by control/units.h, exactly as the gateway
 * parses its own. Every error in a file is reported, each as
 * FILE:LINE: [section] key: message, and any error fails the load.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "control/conf_file.h"
#include "control/conf_ini.h"
#include "control/conf_key.h"
#include "control/conf_mech.h"
#include "control/units.h"
#include "sim_config.h"

/* ---------------------------------------------------------------- parsers */

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

/* HPCC's plain decimals (EWMA_GAIN 0.00390625, start times in seconds). */
int
sim_parse_double(const char *s, double *v)
{
	char *end;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	if (errno != 0 || end == s || !isfinite(*v))
		return -EINVAL;
	if (strcmp(end, "%") == 0) {
		*v /= 100.0;
		return 0;
	}
	return *end == '\0' ? 0 : -EINVAL;
}

/*
 * A rate as HPCC's files write it: units.h's spelling (100Gbps, 1.6T), and
 * "Mb/s" for megabits per second, which config.txt uses (RATE_AI 50Mb/s).
 * The gateway's parser does not take "b/s" (its suffixes are
 * case-insensitive, and "MB/s" would read as megabits); only here, where
 * the file format fixes the meaning, is it rewritten to "bps".
 */
int
sim_parse_rate(const char *s, uint64_t *bps, const char **why)
{
	char buf[64];
	size_t n = strlen(s);

	*why = "expected a rate such as 100Gbps";
	if (n >= 3 && n < sizeof(buf) && strcmp(s + n - 3, "b/s") == 0) {
		memcpy(buf, s, n - 3);
		memcpy(buf + n - 3, "bps", 4);
		s = buf;
	}
	return units_parse(UNITS_RATE, s, bps, why);
}

int
sim_parse_time_ns(const char *s, uint64_t *ns, const char **why)
{
	return units_parse(UNITS_TIME, s, ns, why);
}

/* -------------------------------------------------------------- key table */

enum sim_section {
	SIM_SEC_SIM = 0,
	SIM_SEC_GATEWAY,
	SIM_SEC_MARKER,
	SIM_SEC_MECH_A,
	SIM_SEC_MECH_C,
	SIM_SEC_MAX,
};

static const char *const sim_section_names[SIM_SEC_MAX] = {
	[SIM_SEC_SIM] = "sim",
	[SIM_SEC_GATEWAY] = "gateway",
	[SIM_SEC_MARKER] = "marker",
	[SIM_SEC_MECH_A] = "mech_a",
	[SIM_SEC_MECH_C] = "mech_c",
};

/* The simulator's own value types, after conf_key.h's built-ins. */
enum sim_key_type {
	SIM_T_IDS = CONF_T_FIRST_APP, /* node ids "48,49" into gateways[] */
	SIM_T_MECH, /* none or a list of A, B, C */
	SIM_T_MAX,
};

static const struct conf_enum_name sim_host_model_names[] = {
	{ "hpcc", SIM_HOST_HPCC }, { "firmware", SIM_HOST_FIRMWARE }, { "paper", SIM_HOST_PAPER },
	{ NULL, 0 },
};
static const struct conf_enum_name sim_marker_names[] = {
	{ "red-as-switch", SIM_MARKER_SWITCH }, { "red", SIM_MARKER_RED },
	{ "sojourn", SIM_MARKER_SOJOURN }, { "phantom", SIM_MARKER_PHANTOM }, { NULL, 0 },
};
static const struct conf_enum_name sim_window_names[] = {
	{ "auto", SIM_WINDOW_AUTO }, { "on", SIM_WINDOW_ON }, { "off", SIM_WINDOW_OFF },
	{ NULL, 0 },
};
static const struct conf_enum_name sim_tx_time_names[] = {
	{ "exact", SIM_TX_TIME_EXACT }, { "ns3", SIM_TX_TIME_NS3 }, { NULL, 0 },
};
static const struct conf_enum_name sim_lossless_names[] = {
	{ "pfc", SIM_LOSSLESS_PFC }, { "credit", SIM_LOSSLESS_CREDIT }, { NULL, 0 },
};
static const struct conf_enum_name sim_qpn_names[] = {
	{ "cm", SIM_QPN_CM }, { "inband", SIM_QPN_INBAND }, { NULL, 0 },
};

#define F(f) CONF_FIELD(struct sim_config, f)
#define F_SET(f, setf) CONF_FIELD_SET(struct sim_config, f, setf)
#define NS_US UINT64_C(1000)
#define NS_S UINT64_C(1000000000)
/* The longest time a key takes: 1000 s of simulated time. */
#define NS_MAX (1000 * NS_S)

#define SEC(s) .section = SIM_SEC_##s
#define TIME(lo, hi) .type = CONF_T_UINT, .units = UNITS_TIME, .min = (lo), .max = (hi)
#define SIZE(lo, hi) .type = CONF_T_UINT, .units = UNITS_SIZE, .min = (lo), .max = (hi)
#define RATE(lo, hi) .type = CONF_T_UINT, .units = UNITS_RATE, .min = (lo), .max = (hi)
#define FRACTION(lo, hi) .type = CONF_T_UINT, .units = UNITS_FRACTION, .min = (lo), .max = (hi)
#define COUNT(lo, hi) .type = CONF_T_UINT, .units = UNITS_COUNT, .min = (lo), .max = (hi)
#define BOOL .type = CONF_T_BOOL
#define ENUM(n) .type = CONF_T_ENUM, .names = (n)

static const struct conf_key sim_keys[] = {
	{ SEC(SIM), .name = "seed", COUNT(0, UINT64_MAX), .def = "1", F(seed),
	  .help = "RNG seed; the same seed and inputs give the same outputs" },
	{ SEC(SIM), .name = "end", TIME(0, NS_MAX), .def = "0", F(end_ns),
	  .help = "stop time; 0 = SIMULATOR_STOP_TIME, else when every flow has finished" },
	{ SEC(SIM), .name = "ts_interval", TIME(0, NS_MAX), .def = "10us", F(ts_interval_ns),
	  .help = "period of the time-series CSVs (queues.csv, rates.csv); 0 = off" },
	{ SEC(SIM), .name = "stats_interval", TIME(100, NS_MAX), .def = "1us",
	  F(stats_interval_ns),
	  .help = "queue sampling period for the per-role p99 in summary.json" },
	{ SEC(SIM), .name = "retransmit", BOOL, .def = "true", F(retransmit),
	  .help = "go-back-N on a gap, as RC NICs and ns-3 (false: the receiver skips the gap "
		  "and the lost bytes stay lost, as the lab's longspan-hostem; goodput counts "
		  "only what arrived)" },
	{ SEC(SIM), .name = "cnp_log", BOOL, .def = "false", F(cnp_log),
	  .help = "write cnps.csv: every CNP reaching a sender (time, flow, gateway or "
		  "receiver)" },
	{ SEC(SIM), .name = "ts_min_flow_bytes", SIZE(0, UINT64_C(1) << 50), .def = "1MB",
	  F(ts_min_flow_bytes), .help = "flows at least this large appear in rates.csv" },
	{ SEC(SIM), .name = "host_model", ENUM(sim_host_model_names), .def = "firmware",
	  F_SET(host_model, host_model_set),
	  .help = "host DCQCN: hpcc (ns-3 CC_MODE 1, the default with --hpcc-config), "
		  "firmware, paper" },
	{ SEC(SIM), .name = "window", ENUM(sim_window_names), .def = "auto", F(window),
	  .help = "sender window: auto follows HAS_WIN/VAR_WIN, on, off" },
	{ SEC(SIM), .name = "np_cnp_interval", TIME(0, NS_S), .def = "5us",
	  F_SET(np_cnp_interval_ns, np_cnp_interval_set),
	  .help = "receiver NIC minimum CNP spacing per QP (default per host model)" },
	{ SEC(SIM), .name = "np_any_ce", BOOL, .def = "false", F(np_any_ce),
	  .help = "receiver NIC sends a CNP packet for any CE data packet, in order or not, as "
		  "ConnectX does (else HPCC's: a CNP flag on the ACK of an in-order packet)" },
	{ SEC(SIM), .name = "pfc_u32_compat", BOOL, .def = "true", F(pfc_u32_compat),
	  .help = "compute PFC thresholds in 32-bit unsigned arithmetic exactly as HPCC's "
		  "switch-mmu" },
	{ SEC(SIM), .name = "pfc_min_headroom", SIZE(0, UINT64_C(1000000000)), .def = "0",
	  F(pfc_min_headroom_bytes),
	  .help = "PFC headroom per port at least this (third.cc's 3 x rate x delay is below "
		  "one frame on slow, short links; 2 x MTU + 2 x rate x delay is the usual "
		  "rule); 0 = HPCC's" },
	{ SEC(SIM), .name = "tx_time", ENUM(sim_tx_time_names), .def = "exact", F(tx_time),
	  .help = "serialisation and pacing times: exact keeps nominal link rates; ns3 "
		  "truncates them to whole ns as ns-3 does (a 1048-byte packet: 83 ns at 100G, "
		  "i.e. 1% fast)" },

	{ SEC(GATEWAY), .name = "ids", .type = SIM_T_IDS, .max_count = SIM_MAX_GATEWAYS,
	  .help = "gateway node ids (48,49); unset = the two ends of the longest-delay link" },
	{ SEC(GATEWAY), .name = "mechanisms", .type = SIM_T_MECH, .def = "none", F(mechanisms),
	  .help = "none, or a comma-separated list of A, B and C (A,C; A,B,C)" },
	{ SEC(GATEWAY), .name = "marker", ENUM(sim_marker_names), .def = "red-as-switch",
	  F_SET(marker, marker_set),
	  .help = "WAN egress marker: red-as-switch (HPCC map), red, sojourn, phantom" },
	{ SEC(GATEWAY), .name = "wan_rtt", TIME(0, NS_S), .def = "0", F(wan_rtt_ns),
	  .help = "WAN round-trip time for parameter derivation; 0 = from the topology" },
	{ SEC(GATEWAY), .name = "wan_buffer", SIZE(0, UINT64_C(1000000000000)), .def = "0",
	  F(wan_buffer_bytes),
	  .help = "0: the WAN ports are switch ports (shared buffer, PFC, lossless, as HPCC); "
		  "N: the WAN egress is a tail-drop queue of N bytes outside the shared buffer "
		  "and no PFC crosses the WAN, as the dataplane's traffic manager" },
	{ SEC(GATEWAY), .name = "lossless", ENUM(sim_lossless_names), .def = "credit",
	  F(lossless),
	  .help = "mechanism B's mode on every gateway (with B in mechanisms): pfc pauses the "
		  "DC at the WAN queue's XOFF and resumes at XON; credit adds the credit-based "
		  "WAN hop (data leaves only within the peer's grants, whose buffer holds what "
		  "arrives from the WAN outside the shared buffer). With B and wan_buffer 0 the "
		  "WAN queue is the derived buffer" },

	{ SEC(MARKER), .name = "kmin", SIZE(0, UINT64_C(1000000000000)), .def = "0",
	  F(kmin_bytes), .help = "RED Kmin on the WAN egress; 0 = derived" },
	{ SEC(MARKER), .name = "kmax", SIZE(0, UINT64_C(1000000000000)), .def = "0",
	  F(kmax_bytes), .help = "RED Kmax on the WAN egress; 0 = derived" },
	{ SEC(MARKER), .name = "pmax", FRACTION(0, 1000000), .def = "0", F(pmax_ppm),
	  .help = "RED marking probability at Kmax (0.2 or 20%); 0 = derived" },
	{ SEC(MARKER), .name = "sojourn_target", TIME(0, NS_S), .def = "0",
	  F(sojourn_target_ns), .help = "sojourn marker target delay; 0 = derived" },
	{ SEC(MARKER), .name = "phantom_fraction", FRACTION(10000, 1000000), .def = "0.95",
	  F(phantom_ppm),
	  .help = "phantom queue drain rate as a fraction of line rate (0.95 or 95%)" },
	{ SEC(MARKER), .name = "phantom_threshold", SIZE(0, UINT64_C(1000000000)), .def = "0",
	  F(phantom_threshold_bytes),
	  .help = "phantom queue size above which packets are marked; 0 = derived" },
	{ SEC(MARKER), .name = "sojourn_codel", BOOL, .def = "false", F(sojourn_codel),
	  .help = "sojourn marker in CoDel-like mode (else a plain delay threshold)" },

	{ SEC(MECH_A), .name = "cnp_interval", TIME(0, NS_S), .def = "0", F(a_cnp_interval_ns),
	  .help = "minimum gateway CNP spacing per QP; 0 = derived" },
	{ SEC(MECH_A), .name = "cnp_backoff_max", TIME(0, NS_S), .def = "0",
	  F(a_cnp_backoff_max_ns),
	  .help = "a signal that persists doubles the spacing, up to this; 0 = fixed spacing" },
	{ SEC(MECH_A), .name = "cnp_delay", TIME(0, NS_S), .def = "1us", F(a_cnp_delay_ns),
	  .help = "time the gateway takes to build and send a CNP" },
	{ SEC(MECH_A), .name = "ce_clear", BOOL, .def = "true", F(a_ce_clear),
	  .help = "clear CE on packets the gateway answered with a CNP" },
	{ SEC(MECH_A), .name = "qpn_learning", ENUM(sim_qpn_names), .def = "cm",
	  F(a_qpn_learning),
	  .help = "cm: REQ/REP seen before data; inband: only returning ACKs teach the "
		  "learner" },
	{ SEC(MECH_A), .name = "dc_marks", BOOL, .def = "true", F(a_dc_marks),
	  .help = "also answer CE marks set inside the local DC (not only the WAN egress "
		  "marker)" },

	{ SEC(MECH_C), .name = "hold", TIME(0, NS_S), .def = "0", F(c_hold_ns),
	  .help = "how long the temporary reaction point holds a cut; 0 = derived (the cut "
		  "interval + 2 DC RTTs)" },
	{ SEC(MECH_C), .name = "min_rate", RATE(0, UINT64_C(10000000000000)), .def = "0",
	  F(c_min_rate_bps), .help = "floor of the temporary reaction point; 0 = derived" },
	{ SEC(MECH_C), .name = "cut", FRACTION(0, 1000000), .def = "0", F(c_cut_ppm),
	  .help = "fraction of the rate one TRP cut removes (0.5 or 50%); 0 = derived (50%)" },
	{ SEC(MECH_C), .name = "cut_interval", TIME(0, NS_S), .def = "0", F(c_cut_interval_ns),
	  .help = "minimum time between two TRP cuts of one QP; 0 = derived (128 us: a DC "
		  "port drains a queue at the production Kmax)" },
	{ SEC(MECH_C), .name = "ramp_interval", TIME(0, NS_S), .def = "0",
	  F(c_ramp_interval_ns),
	  .help = "TRP ramp step period after the hold; 0 = trp default (hold / 8)" },
	{ SEC(MECH_C), .name = "ramp_steps", COUNT(0, 1000), .def = "0", F(c_ramp_steps),
	  .help = "TRP ramp steps before it hands the QP back; 0 = trp default (5)" },
	{ SEC(MECH_C), .name = "upstream_ce_check", BOOL, .def = "true", F(c_upstream_ce_check),
	  .help = "ignore receiver CNPs of a QP whose data reached this gateway with CE "
		  "already set (congestion before the WAN, which shaping here cannot relieve)" },
	{ SEC(MECH_C), .name = "upstream_ce_window", TIME(0, NS_S), .def = "0",
	  F(c_upstream_ce_window_ns),
	  .help = "how long a CE arrival from the WAN marks a QP's CNPs as upstream; 0 = 2 x "
		  "DC RTT" },
	{ SEC(MECH_C), .name = "forward_cnp", BOOL, .def = "true", F(c_forward_cnp),
	  .help = "forward the receiver's CNPs on to the remote sender" },
	{ SEC(MECH_C), .name = "cnp_gap", TIME(0, NS_S), .def = "0", F(c_cnp_gap_ns),
	  .help = "forward at most one receiver CNP per QP per gap while shaping; 0 = all" },
	{ SEC(MECH_C), .name = "forward_backlog", SIZE(0, UINT64_C(1000000000000)), .def = "0",
	  F(c_forward_backlog),
	  .help = "forward a receiver CNP only while its QP holds at least this much in "
		  "gateway memory; 0 = whatever it holds" },
};

#undef F
#undef F_SET

static int
sim_set_ids(const struct conf_key *k, void *base, const char *v, struct conf_set_ctx *ctx)
{
	struct sim_config *c = base;
	char buf[256];
	char *tok;
	char *save = NULL;

	if (strlen(v) >= sizeof(buf))
		return conf_fail(ctx, "'%.40s...' is too long", v);
	snprintf(buf, sizeof(buf), "%s", v);
	c->ngateways = 0;
	for (tok = strtok_r(buf, ", ", &save); tok != NULL; tok = strtok_r(NULL, ", ", &save)) {
		uint64_t id;

		if (sim_parse_u64(tok, &id) < 0 || id > UINT32_MAX)
			return conf_fail(ctx, "'%s' is not a node id (expected ids such as 48,49)",
					 tok);
		if (c->ngateways == k->max_count)
			return conf_fail(ctx, "more than %u gateways", (unsigned int)k->max_count);
		c->gateways[c->ngateways++] = (uint32_t)id;
	}
	return 0;
}

static void
sim_dump_ids(const struct conf_key *k, const void *base, FILE *f)
{
	const struct sim_config *c = base;

	if (c->ngateways == 0)
		return;
	fprintf(f, "%s = ", k->name);
	for (uint32_t i = 0; i < c->ngateways; i++)
		fprintf(f, "%s%u", i ? "," : "", c->gateways[i]);
	fputc('\n', f);
}

/* One mechanism list parser for the gateway and the simulator (conf_mech.c). */
static_assert(SIM_MECH_A == CONF_MECH_A && SIM_MECH_B == CONF_MECH_B && SIM_MECH_C == CONF_MECH_C,
	      "mechanism bits");

static int
sim_set_mech(const struct conf_key *k, void *base, const char *v, struct conf_set_ctx *ctx)
{
	const char *why = NULL;
	unsigned int m;

	if (conf_mech_parse(v, CONF_MECH_A | CONF_MECH_B | CONF_MECH_C, &m, &why) < 0)
		return conf_fail(ctx, "'%s' %s", v, why);
	*(uint32_t *)((char *)base + k->offset) = m;
	return 0;
}

static void
sim_dump_mech(const struct conf_key *k, const void *base, FILE *f)
{
	fprintf(f, "%s = %s\n", k->name,
		conf_mech_name(*(const uint32_t *)((const char *)base + k->offset)));
}

static const struct conf_type sim_types[SIM_T_MAX] = {
	CONF_TYPE_BUILTINS,
	[SIM_T_IDS] = { "node ids", sim_set_ids, sim_dump_ids },
	[SIM_T_MECH] = { "mechanism list", sim_set_mech, sim_dump_mech },
};

static const struct conf_table sim_table = {
	.keys = sim_keys,
	.n_keys = sizeof(sim_keys) / sizeof(sim_keys[0]),
	.section_names = sim_section_names,
	.n_sections = SIM_SEC_MAX,
	.types = sim_types,
	.n_types = SIM_T_MAX,
};

static const char *
sim_enum_name(const struct conf_enum_name *names, uint32_t v)
{
	for (; names->name != NULL; names++)
		if (names->value == v)
			return names->name;
	return "?";
}

const char *
sim_host_model_name(uint32_t m)
{
	return sim_enum_name(sim_host_model_names, m);
}

const char *
sim_marker_name(uint32_t m)
{
	return sim_enum_name(sim_marker_names, m);
}

static int
sim_section_index(const char *name)
{
	for (int i = 0; i < SIM_SEC_MAX; i++)
		if (strcmp(sim_section_names[i], name) == 0)
			return i;
	return -1;
}

void
sim_config_defaults(struct sim_config *c)
{
	memset(c, 0, sizeof(*c));
	for (unsigned int s = 0; s < SIM_SEC_MAX; s++)
		conf_key_defaults(&sim_table, s, c); /* every default is loaded by test_sim_unit */
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

unsigned int
sim_config_default_errors(void)
{
	struct sim_config c;
	unsigned int failed = 0;

	memset(&c, 0, sizeof(c));
	for (unsigned int s = 0; s < SIM_SEC_MAX; s++)
		failed += conf_key_defaults(&sim_table, s, &c);
	return failed;
}

/* Set KEY of SECTION; WHERE is "FILE:LINE" or "command line" for messages. */
int
sim_config_set(struct sim_config *c, const char *section, const char *key, const char *value,
	       const char *where, FILE *err)
{
	int sec = sim_section_index(section);
	const struct conf_key *k = sec < 0 ? NULL : conf_key_find(&sim_table, (unsigned int)sec, key);
	struct conf_set_ctx ctx = { .line = 1 };

	if (k == NULL) {
		const char *hint = sec < 0 ? NULL : conf_key_suggest(&sim_table, (unsigned int)sec, key);

		if (sec < 0)
			fprintf(err, "%s: [%s] %s: unknown section [%s] (known: [sim], [gateway], "
				"[marker], [mech_a], [mech_c])\n", where, section, key, section);
		else if (hint != NULL)
			fprintf(err, "%s: [%s] %s: unknown key (did you mean %s?)\n", where, section,
				key, hint);
		else
			fprintf(err, "%s: [%s] %s: unknown key\n", where, section, key);
		return -ENOENT;
	}
	if (conf_key_set(&sim_table, k, c, value, &ctx) < 0) {
		fprintf(err, "%s: [%s] %s: %s\n", where, section, key, ctx.msg);
		return -EINVAL;
	}
	return 0;
}

/* The INI file being read. */
struct sim_ini {
	struct sim_config *c;
	const char *path;
	FILE *err;
	char section[64]; /* "" before any header or after a refused one */
	int errors;
};

static int
sim_ini_section(void *ctx, unsigned int line, const char *type, const char *name)
{
	struct sim_ini *r = ctx;

	r->section[0] = '\0';
	if (sim_section_index(type) < 0) {
		fprintf(r->err, "%s:%u: unknown section [%s] (known: [sim], [gateway], [marker], "
			"[mech_a], [mech_c])\n", r->path, line, type);
		r->errors++;
		return -1;
	}
	if (*name != '\0') {
		fprintf(r->err, "%s:%u: [%s %.40s]: [%s] takes no name\n", r->path, line, type,
			name, type);
		r->errors++;
		return -1;
	}
	snprintf(r->section, sizeof(r->section), "%s", type);
	return 0;
}

static void
sim_ini_key(void *ctx, unsigned int line, const char *key, const char *value)
{
	struct sim_ini *r = ctx;
	char where[512];

	snprintf(where, sizeof(where), "%s:%u", r->path, line);
	if (r->section[0] == '\0') {
		fprintf(r->err, "%s: %s: key outside any section (put it under [sim], [gateway], "
			"[marker], [mech_a] or [mech_c])\n", where, key);
		r->errors++;
		return;
	}
	if (key[0] == '\0') {
		fprintf(r->err, "%s: [%s]: missing key name before '='\n", where, r->section);
		r->errors++;
		return;
	}
	if (sim_config_set(r->c, r->section, key, value, where, r->err) < 0)
		r->errors++;
}

static void
sim_ini_error(void *ctx, unsigned int line, enum conf_ini_where w, const char *msg)
{
	struct sim_ini *r = ctx;

	if (w == CONF_INI_SECTION && r->section[0] != '\0')
		fprintf(r->err, "%s:%u: [%s]: %s\n", r->path, line, r->section, msg);
	else
		fprintf(r->err, "%s:%u: %s\n", r->path, line, msg);
	r->errors++;
}

static const struct conf_ini_ops sim_ini_ops = {
	.section = sim_ini_section,
	.key = sim_ini_key,
	.error = sim_ini_error,
};

int
sim_config_load_ini(struct sim_config *c, const char *path, FILE *err)
{
	struct sim_ini r = { .c = c, .path = path, .err = err };
	char *text;
	size_t size;
	int rc;

	rc = conf_file_read(path, CONF_FILE_MAX_BYTES, &text, &size, err);
	if (rc < 0)
		return rc;
	conf_ini_parse(text, size, CONF_INI_LINE_MAX, &sim_ini_ops, &r);
	free(text);
	return r.errors ? -EINVAL : 0;
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

#define OFF(f) offsetof(struct sim_config, f)

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
	char *text;
	size_t size;
	FILE *f;
	int rc0 = conf_file_read(path, CONF_FILE_MAX_BYTES, &text, &size, err);

	if (rc0 < 0)
		return rc0;
	f = fmemopen(text, size, "r");
	if (f == NULL) {
		fprintf(err, "%s: out of memory\n", path);
		free(text);
		return -ENOMEM;
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
				rc = sim_parse_rate(tok[1], &u, &why);
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
	free(text);
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
	/* kmin < kmax: cc_params_resolve(), on the final values (one may be derived). */
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


void
sim_config_dump(const struct sim_config *c, FILE *f)
{
	unsigned int section = SIM_SEC_MAX;

	for (unsigned int i = 0; i < sim_table.n_keys; i++) {
		const struct conf_key *k = &sim_keys[i];

		if (k->section != section) {
			fprintf(f, "%s[%s]\n", i ? "\n" : "", sim_section_names[k->section]);
			section = k->section;
		}
		fprintf(f, "# %s\n", k->help);
		/* Every effective value, given or default: not conf_key_dump(),
		 * which leaves out keys whose "was set" flag is false. */
		sim_types[k->type].dump(k, c, f);
	}
}
