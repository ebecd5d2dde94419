/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parse, resolve and validate longspan-hostem's INI file (hostem_config.h).
 * Transaction: defaults -> file -> derived values -> whole-file validation;
 * the caller gets a config only if every check passed.
 */
#include "hostem_config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "congestion/dcqcn.h"
#include "control/conf_file.h"
#include "control/conf_ini.h"
#include "control/conf_addr.h"
#include "control/conf_key.h"
#include "control/units.h"

/* hostem's own value types, after conf_key.h's built-ins. */
enum hostem_key_type {
	HOSTEM_T_MAC = CONF_T_FIRST_APP,
	HOSTEM_T_PREFIX, /* [host] only, repeatable */
	HOSTEM_T_ADDR,
	HOSTEM_T_QPN, /* a QPN or PSN: decimal or 0x hex, printed in hex */
	HOSTEM_T_MAX,
};

static const struct conf_enum_name hostem_variant_names[] = {
	{ "firmware", DCQCN_VARIANT_FIRMWARE },
	{ "paper", DCQCN_VARIANT_PAPER },
	{ "hpcc", DCQCN_VARIANT_HPCC },
	{ NULL, 0 },
};

static const struct conf_enum_name hostem_role_names[] = {
	{ "send", HOSTEM_ROLE_SEND },
	{ "recv", HOSTEM_ROLE_RECV },
	{ NULL, 0 },
};

/*
 * The keys of [host] and of [qp NAME] (conf_key.h). A QP key without a
 * default that [host] also has (mtu, message, ...) takes the host's value.
 */
#define HF(f) CONF_FIELD(struct hostem_conf, f)
#define QF(f) CONF_FIELD(struct hostem_qp_conf, f)
#define U(kind) .type = CONF_T_UINT, .units = UNITS_##kind
#define GIB (UINT64_C(1) << 30)
#define SEC UINT64_C(1000000000)

static const struct conf_key hostem_host_keys[] = {
	{ .name = "name", .type = CONF_T_STRING, .min = 1,
	  .max = CONF_SIZEOF(struct hostem_conf, name) - 1, .def = "hostem", HF(name),
	  .help = "label in reports" },
	{ .name = "mac", .type = HOSTEM_T_MAC, HF(mac),
	  .help = "this endpoint's MAC (the site router's); required" },
	{ .name = "gateway_mac", .type = HOSTEM_T_MAC, HF(gateway_mac),
	  .help = "destination MAC of inter-DC packets (the gateway's DC port); required" },
	{ .name = "local", .type = HOSTEM_T_PREFIX, .flags = CONF_F_REPEAT,
	  CONF_FIELD_LIST(struct hostem_conf, local, n_local),
	  .help = "a prefix of this site (repeat); QPs toward it are intra-DC, looped back inside" },
	{ .name = "variant", .type = CONF_T_ENUM, .names = hostem_variant_names, .def = "firmware",
	  HF(variant),
	  .help = "DCQCN reaction point: firmware, paper or hpcc (congestion/dcqcn.h)" },
	{ .name = "line_rate", U(RATE), .min = 1000000, .max = 400 * SEC, .def = "10G",
	  HF(line_rate_bps),
	  .help = "default QP line rate (the NIC's), the RP's ceiling" },
	{ .name = "mtu", U(COUNT), .min = 256, .max = 4096, .def = "4096", HF(mtu),
	  .help = "default RoCE path MTU: payload bytes per packet, 256..4096, a power of two" },
	{ .name = "message", U(SIZE), .min = 1, .max = GIB, .def = "1MiB", HF(message_bytes),
	  .help = "default RDMA WRITE size" },
	{ .name = "bytes", U(SIZE), .min = 0, .max = UINT64_C(1) << 50, .def = "0", HF(total_bytes),
	  .help = "default bytes per sender, 0 = until the end" },
	{ .name = "window", U(COUNT), .min = 0, .max = 1u << 22, .def = "0", HF(window_pkts),
	  .help = "default unacknowledged packets per sender, 0 = no limit" },
	{ .name = "ack_every", U(COUNT), .min = 1, .max = 65536, .def = "16", HF(ack_every),
	  .help = "default: a receiver ACKs every N packets (and every AckReq)" },
	{ .name = "cnp_interval", U(TIME), .min = 0, .max = SEC, HF(cnp_interval_ns),
	  .help = "default NP minimum time between CNPs per QP (default: the variant's)" },
	{ .name = "dscp", U(COUNT), .min = 0, .max = 63, .def = "26", HF(dscp),
	  .help = "default DSCP of data and ACKs" },
	{ .name = "cnp_dscp", U(COUNT), .min = 0, .max = 63, .def = "48", HF(cnp_dscp),
	  .help = "DSCP of CNPs (Not-ECT)" },
	{ .name = "duration", U(TIME), .min = 0, .max = 86400 * SEC, .def = "10s", HF(duration_ns),
	  .help = "run time after the link is up, 0 = until a signal" },
	{ .name = "until_done", .type = CONF_T_BOOL, .def = "no", HF(until_done),
	  .help = "stop early once every sender has sent its bytes and had them acknowledged" },
	{ .name = "stats_interval", U(TIME), .min = 0, .max = 3600 * SEC, .def = "1s",
	  HF(stats_interval_ns),
	  .help = "print per-QP rates every T, 0 = never" },
	{ .name = "csv_interval", U(TIME), .min = 0, .max = 3600 * SEC, .def = "10ms",
	  HF(csv_interval_ns),
	  .help = "rows of the CSV file every T" },
	{ .name = "csv", .type = CONF_T_STRING, .min = 1,
	  .max = CONF_SIZEOF(struct hostem_conf, csv_path) - 1, HF(csv_path),
	  .help = "CSV file: time_s,qp,role,rate_bps,tx_bps,goodput_bps,cnps,ce,queue_bytes,marks" },
	{ .name = "json", .type = CONF_T_STRING, .min = 1,
	  .max = CONF_SIZEOF(struct hostem_conf, json_path) - 1, HF(json_path),
	  .help = "JSON summary written at exit" },
	{ .name = "cnp_log", .type = CONF_T_STRING, .min = 1,
	  .max = CONF_SIZEOF(struct hostem_conf, cnp_log_path) - 1, HF(cnp_log_path),
	  .help = "CSV of every CNP received and sent (time, TSC, QP, rates)" },
	{ .name = "cnp_log_max", U(COUNT), .min = 0, .max = 1u << 26, .def = "1000000",
	  HF(cnp_log_max),
	  .help = "CNP log entries kept in memory" },
	{ .name = "seed", U(COUNT), .min = 0, .max = UINT64_MAX, .def = "1", HF(seed),
	  .help = "seed of the ToR's RED marker" },
	{ .name = "tor_rate", U(RATE), .min = 0, .max = 400 * SEC, .def = "0", HF(tor_rate_bps),
	  .help = "ToR uplink rate shared by every sender QP; 0 = no ToR" },
	{ .name = "tor_kmin", U(SIZE), .min = 0, .max = GIB, .def = "100kB", HF(tor_kmin_bytes),
	  .help = "ToR RED: marking starts above this queue" },
	{ .name = "tor_kmax", U(SIZE), .min = 1, .max = GIB, .def = "400kB", HF(tor_kmax_bytes),
	  .help = "ToR RED: every packet marked above this queue" },
	{ .name = "tor_pmax", U(FRACTION), .min = 1, .max = 1000000, .def = "0.2", HF(tor_pmax_ppm),
	  .help = "ToR RED: marking probability at kmax" },
	{ .name = "tor_xoff", U(SIZE), .min = 0, .max = GIB, HF(tor_xoff_bytes),
	  .help = "ToR queue at which senders pause, as PFC would (default 2 x tor_kmax)" },
	{ .name = "dc_rate", U(RATE), .min = 0, .max = 400 * SEC, .def = "0", HF(dc_rate_bps),
	  .help = "the site's DC side toward its hosts limited to this rate, as a congested ToR "
		  "port: data from the gateway and intra-DC data queue there, and PFC pauses the "
		  "gateway at dc_xoff; 0 = no limit" },
	{ .name = "dc_buffer", U(SIZE), .min = 1, .max = GIB, .def = "1MB", HF(dc_buffer_bytes),
	  .help = "room of that queue: arrivals beyond it are dropped (and counted)" },
	{ .name = "dc_xoff", U(SIZE), .min = 1, .max = GIB, .def = "64kB", HF(dc_xoff_bytes),
	  .help = "that queue's bytes of a priority at which the gateway is paused (PFC)" },
	{ .name = "dc_kmin", U(SIZE), .min = 0, .max = GIB, .def = "0", HF(dc_kmin_bytes),
	  .help = "that queue's RED, as the ToR port toward the receivers marks: marking "
		  "starts above this many bytes queued ahead of an arrival" },
	{ .name = "dc_kmax", U(SIZE), .min = 0, .max = GIB, .def = "0", HF(dc_kmax_bytes),
	  .help = "... every ECT packet marked above this; 0 = no marking (the queue only "
		  "drops at dc_buffer and pauses at dc_xoff)" },
	{ .name = "dc_pmax", U(FRACTION), .min = 1, .max = 1000000, .def = "0.2", HF(dc_pmax_ppm),
	  .help = "... and the marking probability at dc_kmax" },
	{ .name = "dc_xon", U(SIZE), .min = 0, .max = GIB, HF(dc_xon_bytes),
	  .help = "... and resumed at or below (default dc_xoff / 2)" },
	{ .name = "dc_delay", U(TIME), .min = 0, .max = SEC, .def = "5us", HF(dc_delay_ns),
	  .help = "one-way delay of intra-DC packets looped back inside hostem" },
	{ .name = "icrc_check", .type = CONF_T_BOOL, .def = "yes", HF(icrc_check),
	  .help = "verify the ICRC of received packets (a NIC drops bad ones)" },
	{ .name = "pacing_burst", U(TIME), .min = 0, .max = SEC / 10, .def = "200us",
	  HF(pacing_burst_ns),
	  .help = "pacer depth at line rate (at least 2 frames): a sender catches up after a stall" },
	{ .name = "pacing_grid", U(TIME), .min = 0, .max = SEC / 10, .def = "0", HF(pacing_grid_ns),
	  .help = "senders' wake-ups rounded up to multiples of this, so one wake-up serves "
		  "every sender due in the slot (0: each at its next frame; below pacing_burst / 2)" },
	{ .name = "max_sleep", U(TIME), .min = 1000, .max = SEC, .def = "100us", HF(max_sleep_ns),
	  .help = "idle back-off cap: the longest a packet waits unseen" },
	{ .name = "mbufs", U(COUNT), .min = 0, .max = 1u << 24, .def = "0", HF(mbufs),
	  .help = "mbuf pool size, 0 = from the ToR and delay-line sizes" },
	{ .name = "wait_link", U(TIME), .min = 0, .max = 3600 * SEC, .def = "10s", HF(wait_link_ns),
	  .help = "how long to wait for the port's link before failing" },
};

static const struct conf_key hostem_qp_keys[] = {
	{ .name = "role", .type = CONF_T_ENUM, .names = hostem_role_names, QF(role),
	  .help = "send or recv; required" },
	{ .name = "local", .type = HOSTEM_T_ADDR, QF(local),
	  .help = "this side's IP address; required" },
	{ .name = "remote", .type = HOSTEM_T_ADDR, QF(remote),
	  .help = "the peer's IP address, same family; required" },
	{ .name = "local_qpn", .type = HOSTEM_T_QPN, .min = 1, .max = HOSTEM_PSN_MASK,
	  QF(local_qpn),
	  .help = "this side's QPN; required" },
	{ .name = "remote_qpn", .type = HOSTEM_T_QPN, .min = 1, .max = HOSTEM_PSN_MASK,
	  QF(remote_qpn),
	  .help = "the peer's QPN; required" },
	{ .name = "sport", U(COUNT), .min = 1, .max = 65535, QF(sport),
	  .help = "UDP source port of this QP's packets (default 49152 + QP index)" },
	{ .name = "psn", .type = HOSTEM_T_QPN, .min = 0, .max = HOSTEM_PSN_MASK, .def = "0",
	  QF(psn),
	  .help = "first PSN (sender) or first expected PSN (receiver)" },
	{ .name = "start", U(TIME), .min = 0, .max = 86400 * SEC, .def = "0", QF(start_ns),
	  .help = "sender: start sending this long after the link is up" },
	{ .name = "mtu", U(COUNT), .min = 256, .max = 4096, QF(mtu), .help = "[host] mtu" },
	{ .name = "message", U(SIZE), .min = 1, .max = GIB, QF(message_bytes),
	  .help = "[host] message" },
	{ .name = "bytes", U(SIZE), .min = 0, .max = UINT64_C(1) << 50, QF(total_bytes),
	  .help = "[host] bytes" },
	{ .name = "line_rate", U(RATE), .min = 1000000, .max = 400 * SEC, QF(line_rate_bps),
	  .help = "[host] line_rate" },
	{ .name = "window", U(COUNT), .min = 0, .max = 1u << 22, QF(window_pkts),
	  .help = "[host] window" },
	{ .name = "ack_every", U(COUNT), .min = 1, .max = 65536, QF(ack_every),
	  .help = "[host] ack_every" },
	{ .name = "cnp_interval", U(TIME), .min = 0, .max = SEC, QF(cnp_interval_ns),
	  .help = "[host] cnp_interval" },
	{ .name = "dscp", U(COUNT), .min = 0, .max = 63, QF(dscp), .help = "[host] dscp" },
};

#define N_HOST_KEYS (sizeof(hostem_host_keys) / sizeof(hostem_host_keys[0]))
#define N_QP_KEYS (sizeof(hostem_qp_keys) / sizeof(hostem_qp_keys[0]))
static_assert(N_HOST_KEYS <= 64 && N_QP_KEYS <= 64, "key bitmaps are 64 bits");

struct hostem_parse {
	struct hostem_conf *c;
	const char *path;
	FILE *err;
	int line;
	bool any_section; /* a header was read */
	int errors;
	char section[80];
	struct hostem_qp_conf *qp; /* current [qp] section, NULL in [host] */
	bool in_host;
	bool bad_section; /* skip the keys of a rejected section */
	int host_line[64]; /* line of each [host] key given, for cross-field errors */
};

static int
hostem_key_index(const struct conf_key *keys, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(keys[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *
hostem_config_addr_str(const struct conf_addr *a, char *buf, size_t size)
{
	if (inet_ntop(a->family, a->a, buf, (socklen_t)size) == NULL)
		snprintf(buf, size, "?");
	return buf;
}

/* ---- hostem's value types -------------------------------------------------- */

static int
hostem_set_mac(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx)
{
	if (rte_ether_unformat_addr(value, (struct rte_ether_addr *)((char *)base + k->offset)) != 0)
		return conf_fail(ctx, "'%s' is not a MAC address (xx:xx:xx:xx:xx:xx)", value);
	return 0;
}

static void
hostem_dump_mac(const struct conf_key *k, const void *base, FILE *out)
{
	char buf[RTE_ETHER_ADDR_FMT_SIZE];

	rte_ether_format_addr(buf, sizeof(buf),
			      (const struct rte_ether_addr *)((const char *)base + k->offset));
	fprintf(out, "%s = %s\n", k->name, buf);
}

static int
hostem_set_addr(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx)
{
	if (conf_addr_parse(value, 0, (struct conf_addr *)((char *)base + k->offset)) != 0)
		return conf_fail(ctx, "'%s' is not an IPv4 or IPv6 address", value);
	return 0;
}

static void
hostem_dump_addr(const struct conf_key *k, const void *base, FILE *out)
{
	char buf[64];

	fprintf(out, "%s = %s\n", k->name,
		hostem_config_addr_str((const struct conf_addr *)((const char *)base + k->offset),
				       buf, sizeof(buf)));
}

static int
hostem_set_prefix(const struct conf_key *k, void *base, const char *value,
		  struct conf_set_ctx *ctx)
{
	struct hostem_conf *c = base;
	const char *why;

	if (c->n_local == k->max_count)
		return conf_fail(ctx, "more than %u prefixes", (unsigned int)k->max_count);
	if (conf_prefix_parse(value, 0, &c->local[c->n_local], &why) != 0)
		return conf_fail(ctx, "'%s' %s", value, why);
	c->n_local++;
	return 0;
}

static void
hostem_dump_prefix(const struct conf_key *k, const void *base, FILE *out)
{
	const struct hostem_conf *c = base;
	char buf[64];

	for (uint32_t j = 0; j < c->n_local; j++)
		fprintf(out, "%s = %s/%u\n", k->name,
			hostem_config_addr_str(&c->local[j].addr, buf, sizeof(buf)), c->local[j].len);
}

/* A QPN: decimal or 0x-prefixed hex, as BTH dumps print them. */
static int
hostem_set_qpn(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx)
{
	char *end;
	uint64_t v;

	errno = 0;
	if (!isdigit((unsigned char)value[0]))
		return conf_fail(ctx, "'%s' is not a QPN (decimal or 0x hex)", value);
	v = strtoull(value, &end, strncasecmp(value, "0x", 2) == 0 ? 16 : 10);
	if (errno != 0 || *end != '\0')
		return conf_fail(ctx, "'%s' is not a QPN (decimal or 0x hex)", value);
	if (v < k->min || v > k->max)
		return conf_fail(ctx, "%s out of range (%" PRIu64 " .. 0x%" PRIx64 ")", value, k->min,
				 k->max);
	memcpy((char *)base + k->offset, &v, sizeof(v));
	return 0;
}

static void
hostem_dump_qpn(const struct conf_key *k, const void *base, FILE *out)
{
	uint64_t v;

	memcpy(&v, (const char *)base + k->offset, sizeof(v));
	fprintf(out, "%s = 0x%06" PRIx64 "\n", k->name, v);
}

static const struct conf_type hostem_types[HOSTEM_T_MAX] = {
	CONF_TYPE_BUILTINS,
	[HOSTEM_T_MAC] = { "MAC", hostem_set_mac, hostem_dump_mac },
	[HOSTEM_T_PREFIX] = { "prefix", hostem_set_prefix, hostem_dump_prefix },
	[HOSTEM_T_ADDR] = { "IP address", hostem_set_addr, hostem_dump_addr },
	[HOSTEM_T_QPN] = { "QPN", hostem_set_qpn, hostem_dump_qpn },
};

static const struct conf_table hostem_host_table = {
	.keys = hostem_host_keys,
	.n_keys = N_HOST_KEYS,
	.types = hostem_types,
	.n_types = HOSTEM_T_MAX,
};

static const struct conf_table hostem_qp_table = {
	.keys = hostem_qp_keys,
	.n_keys = N_QP_KEYS,
	.types = hostem_types,
	.n_types = HOSTEM_T_MAX,
};

static void hostem_error(struct hostem_parse *p, int line, const char *section, const char *key,
			 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
hostem_error(struct hostem_parse *p, int line, const char *section, const char *key,
	     const char *fmt, ...)
{
	va_list ap;

	if (line > 0)
		fprintf(p->err, "%s:%d: ", p->path, line);
	else
		fprintf(p->err, "%s: ", p->path);
	if (section != NULL)
		fprintf(p->err, "[%s]%s%s: ", section, key ? " " : "", key ? key : "");
	va_start(ap, fmt);
	vfprintf(p->err, fmt, ap);
	va_end(ap);
	fputc('\n', p->err);
	p->errors++;
}

static int
hostem_section(struct hostem_parse *p, const char *section)
{
	struct hostem_conf *c = p->c;
	const char *name;

	snprintf(p->section, sizeof(p->section), "%s", section);
	p->qp = NULL;
	p->in_host = false;
	p->bad_section = false;
	if (strcmp(section, "host") == 0) {
		p->in_host = true;
		return 0;
	}
	if (strncmp(section, "qp ", 3) != 0) {
		hostem_error(p, p->line, section, NULL,
			     "unknown section (use [host] or [qp NAME])");
		p->bad_section = true;
		return -EINVAL;
	}
	name = section + 3;
	while (*name == ' ')
		name++;
	if (*name == '\0' || strlen(name) >= HOSTEM_NAME_MAX || strchr(name, ',') != NULL ||
	    strchr(name, '"') != NULL) {
		hostem_error(p, p->line, section, NULL,
			     "QP name must be 1..%d characters without ',' or '\"'",
			     HOSTEM_NAME_MAX - 1);
		p->bad_section = true;
		return -EINVAL;
	}
	for (uint32_t i = 0; i < c->n_qp; i++) {
		if (strcmp(c->qp[i].name, name) == 0) {
			hostem_error(p, p->line, section, NULL,
				     "QP '%s' already defined at line %d", name, c->qp[i].line);
			p->bad_section = true;
			return -EINVAL;
		}
	}
	if (c->n_qp == HOSTEM_MAX_QPS) {
		hostem_error(p, p->line, section, NULL, "more than %d QPs", HOSTEM_MAX_QPS);
		p->bad_section = true;
		return -EINVAL;
	}
	p->qp = &c->qp[c->n_qp++];
	memset(p->qp, 0, sizeof(*p->qp));
	strcpy(p->qp->name, name);
	p->qp->line = p->line;
	return 0;
}

/* conf_ini's key(): "NAME = VALUE" at LINE of the current section. */
static void
hostem_ini_key(void *user, unsigned int line, const char *name, const char *value)
{
	struct hostem_parse *p = user;
	const char *section = p->section;
	const struct conf_table *table;
	struct conf_set_ctx ctx = { .line = 0 };
	uint64_t *set;
	int i;

	p->line = (int)line;
	if (!p->any_section) {
		hostem_error(p, p->line, NULL, NULL,
			     "%s: key outside any section (put it under [host] or [qp NAME])", name);
		return;
	}
	if (p->bad_section)
		return;
	table = p->in_host ? &hostem_host_table : &hostem_qp_table;
	i = hostem_key_index(table->keys, table->n_keys, name);
	if (i < 0) {
		const char *hint = conf_key_suggest(table, 0, name);

		if (hint != NULL)
			hostem_error(p, p->line, section, name, "unknown key (did you mean %s?)",
				     hint);
		else
			hostem_error(p, p->line, section, name, "unknown key");
		return;
	}
	set = p->in_host ? &p->c->set : &p->qp->set;
	if (!(table->keys[i].flags & CONF_F_REPEAT) && (*set & (UINT64_C(1) << i))) {
		hostem_error(p, p->line, section, name, "given twice");
		return;
	}
	ctx.line = line;
	if (conf_key_set(table, &table->keys[i], p->in_host ? (void *)p->c : (void *)p->qp, value,
			 &ctx) != 0)
		hostem_error(p, p->line, section, name, "%s", ctx.msg);
	else
		*set |= UINT64_C(1) << i;
	if (p->in_host)
		p->host_line[i] = p->line;
}

/* conf_ini's section(): "[TYPE NAME]" at LINE. */
static int
hostem_ini_section(void *user, unsigned int line, const char *type, const char *name)
{
	struct hostem_parse *p = user;
	char section[sizeof(p->section)];

	p->line = (int)line;
	p->any_section = true;
	snprintf(section, sizeof(section), "%s%s%s", type, *name != '\0' ? " " : "", name);
	hostem_section(p, section);
	return p->bad_section ? -1 : 0;
}

/* conf_ini's error(): a malformed line. */
static void
hostem_ini_error(void *user, unsigned int line, enum conf_ini_where where, const char *msg)
{
	struct hostem_parse *p = user;

	hostem_error(p, (int)line, where == CONF_INI_SECTION && p->any_section ? p->section : NULL,
		     NULL, "%s", msg);
}

static const struct conf_ini_ops hostem_ini_ops = {
	.section = hostem_ini_section,
	.key = hostem_ini_key,
	.error = hostem_ini_error,
};

static void
hostem_defaults(struct hostem_conf *c)
{
	memset(c, 0, sizeof(*c));
	conf_key_defaults(&hostem_host_table, 0, c);
}

bool
hostem_config_is_local(const struct hostem_conf *c, const struct conf_addr *a)
{
	for (uint32_t i = 0; i < c->n_local; i++)
		if (conf_prefix_contains(&c->local[i], a))
			return true;
	return false;
}

static bool
hostem_addr_eq(const struct conf_addr *a, const struct conf_addr *b)
{
	return a->family == b->family && memcmp(a->a, b->a, 16) == 0;
}

uint32_t
hostem_config_max_frame(const struct hostem_conf *c)
{
	uint64_t mtu = c->mtu;

	for (uint32_t i = 0; i < c->n_qp; i++)
		if (c->qp[i].mtu > mtu)
			mtu = c->qp[i].mtu;
	return (uint32_t)mtu + HOSTEM_FRAME_OVERHEAD;
}

/* Derived values: the variant's CNP interval, ToR xoff, QP inheritance. */
static void
hostem_resolve(struct hostem_conf *c)
{
	int i_cnp = hostem_key_index(hostem_host_keys, N_HOST_KEYS, "cnp_interval");
	int i_xoff = hostem_key_index(hostem_host_keys, N_HOST_KEYS, "tor_xoff");
	int i_dc_xon = hostem_key_index(hostem_host_keys, N_HOST_KEYS, "dc_xon");
	int i_sport = hostem_key_index(hostem_qp_keys, N_QP_KEYS, "sport");

	if (!(c->set & (UINT64_C(1) << i_cnp))) {
		struct dcqcn_np_params np;

		dcqcn_params_default((enum dcqcn_variant)c->variant, c->line_rate_bps, NULL, &np);
		c->cnp_interval_ns = np.min_interval_ns;
	}
	if (!(c->set & (UINT64_C(1) << i_xoff)))
		c->tor_xoff_bytes = 2 * c->tor_kmax_bytes;
	if (!(c->set & (UINT64_C(1) << i_dc_xon)))
		c->dc_xon_bytes = c->dc_xoff_bytes / 2;
	for (uint32_t q = 0; q < c->n_qp; q++) {
		struct hostem_qp_conf *qp = &c->qp[q];

		for (size_t k = 0; k < N_QP_KEYS; k++) {
			const struct conf_key *key = &hostem_qp_keys[k];
			int h = hostem_key_index(hostem_host_keys, N_HOST_KEYS, key->name);

			if (qp->set & (UINT64_C(1) << k))
				continue;
			if (key->def == NULL && h >= 0) {
				/* The [host] key of the same name gives the default. */
				memcpy((uint8_t *)qp + key->offset,
				       (const uint8_t *)c + hostem_host_keys[h].offset, key->size);
			} else if (key->def != NULL) {
				struct conf_set_ctx ctx = { .line = 0 };

				conf_key_set(&hostem_qp_table, key, qp, key->def, &ctx);
			}
		}
		if (!(qp->set & (UINT64_C(1) << i_sport)))
			qp->sport = 49152 + q;
		qp->intra = hostem_config_is_local(c, &qp->remote);
	}
}

/* A receiver here that terminates sender S (intra-DC), or a sender for receiver R. */
static const struct hostem_qp_conf *
hostem_find_peer(const struct hostem_conf *c, const struct hostem_qp_conf *q)
{
	for (uint32_t i = 0; i < c->n_qp; i++) {
		const struct hostem_qp_conf *o = &c->qp[i];

		if (o->role != q->role && hostem_addr_eq(&o->local, &q->remote) &&
		    hostem_addr_eq(&o->remote, &q->local) && o->local_qpn == q->remote_qpn &&
		    o->remote_qpn == q->local_qpn)
			return o;
	}
	return NULL;
}

/* Line of [host] key NAME in the file, 0 if it was not given. */
static int
hostem_host_line(const struct hostem_parse *p, const char *name)
{
	int i = hostem_key_index(hostem_host_keys, N_HOST_KEYS, name);

	return i < 0 ? 0 : p->host_line[i];
}

static void
hostem_validate(struct hostem_parse *p)
{
	struct hostem_conf *c = p->c;
	static const char *required_host[] = { "mac", "gateway_mac" };
	static const char *required_qp[] = { "role", "local", "remote", "local_qpn", "remote_qpn" };

	for (size_t i = 0; i < 2; i++)
		if (!(c->set &
		      (UINT64_C(1)
		       << hostem_key_index(hostem_host_keys, N_HOST_KEYS, required_host[i]))))
			hostem_error(p, 0, "host", required_host[i], "required");
	if ((c->mtu & (c->mtu - 1)) != 0)
		hostem_error(p, hostem_host_line(p, "mtu"), "host", "mtu",
			     "%" PRIu64 " is not a power of two", c->mtu);
	if (c->tor_rate_bps != 0 && c->tor_kmin_bytes >= c->tor_kmax_bytes)
		hostem_error(p, hostem_host_line(p, "tor_kmin"), "host", "tor_kmin",
			     "must be below tor_kmax");
	if (c->tor_rate_bps != 0 && c->tor_xoff_bytes == 0)
		hostem_error(p, hostem_host_line(p, "tor_xoff"), "host", "tor_xoff",
			     "must be above 0");
	if (c->dc_rate_bps != 0 && c->dc_xon_bytes >= c->dc_xoff_bytes)
		hostem_error(p, hostem_host_line(p, "dc_xon"), "host", "dc_xon",
			     "must be below dc_xoff");
	if (c->dc_rate_bps != 0 && c->dc_xoff_bytes > c->dc_buffer_bytes)
		hostem_error(p, hostem_host_line(p, "dc_xoff"), "host", "dc_xoff",
			     "must be at most dc_buffer");
	if (c->dc_kmax_bytes != 0 && c->dc_rate_bps == 0)
		hostem_error(p, hostem_host_line(p, "dc_kmax"), "host", "dc_kmax",
			     "needs dc_rate (no queue to mark without it)");
	if (c->dc_kmax_bytes != 0 && c->dc_kmin_bytes >= c->dc_kmax_bytes)
		hostem_error(p, hostem_host_line(p, "dc_kmin"), "host", "dc_kmin",
			     "must be below dc_kmax");
	if (c->pacing_grid_ns != 0 && 2 * c->pacing_grid_ns >= c->pacing_burst_ns)
		hostem_error(p, hostem_host_line(p, "pacing_grid"), "host", "pacing_grid",
			     "must be below pacing_burst / 2 (a later wake-up must not cost credit)");
	if (c->csv_path[0] != '\0' && c->csv_interval_ns == 0)
		hostem_error(p, hostem_host_line(p, "csv"), "host", "csv_interval",
			     "must be above 0 with csv");
	if (c->n_qp == 0)
		hostem_error(p, 0, "host", NULL, "no [qp NAME] section");
	for (uint32_t i = 0; i < c->n_qp; i++) {
		struct hostem_qp_conf *q = &c->qp[i];
		char sec[HOSTEM_NAME_MAX + 4];
		bool complete = true;

		snprintf(sec, sizeof(sec), "qp %s", q->name);
		for (size_t k = 0; k < 5; k++) {
			if (!(q->set &
			      (UINT64_C(1)
			       << hostem_key_index(hostem_qp_keys, N_QP_KEYS, required_qp[k])))) {
				hostem_error(p, q->line, sec, required_qp[k], "required");
				complete = false;
			}
		}
		if (!complete)
			continue;
		if ((q->mtu & (q->mtu - 1)) != 0)
			hostem_error(p, q->line, sec, "mtu", "%" PRIu64 " is not a power of two",
				     q->mtu);
		if (q->local.family != q->remote.family)
			hostem_error(p, q->line, sec, "remote", "not the family of local");
		if (c->n_local > 0 && !hostem_config_is_local(c, &q->local))
			hostem_error(p, q->line, sec, "local",
				     "not in this site's prefixes ([host] local)");
		for (uint32_t j = 0; j < i; j++) {
			const struct hostem_qp_conf *o = &c->qp[j];

			if (o->role == q->role && hostem_addr_eq(&o->local, &q->local) &&
			    o->local_qpn == q->local_qpn)
				hostem_error(p, q->line, sec, "local_qpn",
					     "QP '%s' already has this address and QPN", o->name);
		}
		if (q->intra && hostem_find_peer(c, q) == NULL)
			hostem_error(
				p, q->line, sec, "remote",
				"intra-DC QP without its %s here (a [qp] with role %s, local = "
				"this remote, local_qpn = this remote_qpn and the reverse)",
				q->role == HOSTEM_ROLE_SEND ? "receiver" : "sender",
				q->role == HOSTEM_ROLE_SEND ? "recv" : "send");
	}
}

int
hostem_config_load(struct hostem_conf *c, const char *path, FILE *err)
{
	struct hostem_parse p;
	char *text;
	size_t size;
	int rc;

	memset(&p, 0, sizeof(p));
	hostem_defaults(c);
	p.c = c;
	p.path = path;
	p.err = err;
	p.in_host = true;
	snprintf(p.section, sizeof(p.section), "host");
	rc = conf_file_read(path, CONF_FILE_MAX_BYTES, &text, &size, err);
	if (rc < 0)
		return rc;
	conf_ini_parse(text, size, CONF_INI_LINE_MAX, &hostem_ini_ops, &p);
	free(text);
	if (p.errors == 0) {
		hostem_resolve(c);
		hostem_validate(&p);
	}
	return p.errors == 0 ? 0 : -EINVAL;
}

/* Every effective value, derived ones too, so that a dump loads back the same. */
static void
hostem_dump_key(const struct conf_table *table, const struct conf_key *k, const void *base,
		FILE *out)
{
	if (k->type == CONF_T_UINT) {
		char buf[UNITS_TEXT_MAX];

		units_format(k->units, conf_get_uint((const char *)base + k->offset, k->size), buf,
			     sizeof(buf));
		fprintf(out, "%s = %s\n", k->name, buf);
		return;
	}
	conf_key_dump(table, k, base, out);
}

void
hostem_config_dump(const struct hostem_conf *c, FILE *out)
{
	fprintf(out, "; longspan-hostem effective configuration\n[host]\n");
	for (size_t i = 0; i < N_HOST_KEYS; i++)
		hostem_dump_key(&hostem_host_table, &hostem_host_keys[i], c, out);
	for (uint32_t q = 0; q < c->n_qp; q++) {
		fprintf(out, "\n[qp %s]\n", c->qp[q].name);
		for (size_t i = 0; i < N_QP_KEYS; i++)
			hostem_dump_key(&hostem_qp_table, &hostem_qp_keys[i], &c->qp[q], out);
	}
}
