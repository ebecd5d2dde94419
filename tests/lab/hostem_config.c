/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parse, resolve and validate longspan-hostem's INI file (hostem_config.h).
 * Transaction: defaults -> file -> derived values -> whole-file validation;
 * the caller gets a config only if every check passed.
 */
#include "hostem_config.h"

#include <arpa/inet.h>
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
#include "control/units.h"

enum hostem_key_type {
	HK_STR,
	HK_MAC,
	HK_PREFIX, /* host only, repeatable */
	HK_ADDR,
	HK_VARIANT,
	HK_ROLE,
	HK_RATE,
	HK_SIZE,
	HK_TIME,
	HK_FRACTION,
	HK_COUNT,
	HK_QPN, /* a count printed in hex */
	HK_BOOL,
};

#define HK_NO_INHERIT SIZE_MAX

struct hostem_key {
	const char *name;
	enum hostem_key_type type;
	size_t off; /* in struct hostem_conf or struct hostem_qp_conf */
	uint64_t min, max; /* numeric types */
	const char *def; /* default text; NULL: required (QP) or derived (see resolve) */
	size_t inherit; /* QP keys: offset of the [host] key giving the default */
	const char *doc;
};

#define HOFF(f) offsetof(struct hostem_conf, f)
#define QOFF(f) offsetof(struct hostem_qp_conf, f)
#define GIB (UINT64_C(1) << 30)
#define SEC UINT64_C(1000000000)

static const struct hostem_key hostem_host_keys[] = {
	{ "name", HK_STR, HOFF(name), 0, 0, "hostem", HK_NO_INHERIT, "label in reports" },
	{ "mac", HK_MAC, HOFF(mac), 0, 0, NULL, HK_NO_INHERIT,
	  "this endpoint's MAC (the site router's); required" },
	{ "gateway_mac", HK_MAC, HOFF(gateway_mac), 0, 0, NULL, HK_NO_INHERIT,
	  "destination MAC of inter-DC packets (the gateway's DC port); required" },
	{ "local", HK_PREFIX, 0, 0, 0, NULL, HK_NO_INHERIT,
	  "a prefix of this site (repeat); QPs toward it are intra-DC, looped back inside" },
	{ "variant", HK_VARIANT, HOFF(variant), 0, 0, "firmware", HK_NO_INHERIT,
	  "DCQCN reaction point: firmware, paper or hpcc (congestion/dcqcn.h)" },
	{ "line_rate", HK_RATE, HOFF(line_rate_bps), 1000000, 400 * SEC, "10G", HK_NO_INHERIT,
	  "default QP line rate (the NIC's), the RP's ceiling" },
	{ "mtu", HK_COUNT, HOFF(mtu), 256, 4096, "4096", HK_NO_INHERIT,
	  "default RoCE path MTU: payload bytes per packet, 256..4096, a power of two" },
	{ "message", HK_SIZE, HOFF(message_bytes), 1, GIB, "1MiB", HK_NO_INHERIT,
	  "default RDMA WRITE size" },
	{ "bytes", HK_SIZE, HOFF(total_bytes), 0, UINT64_C(1) << 50, "0", HK_NO_INHERIT,
	  "default bytes per sender, 0 = until the end" },
	{ "window", HK_COUNT, HOFF(window_pkts), 0, 1u << 22, "0", HK_NO_INHERIT,
	  "default unacknowledged packets per sender, 0 = no limit" },
	{ "ack_every", HK_COUNT, HOFF(ack_every), 1, 65536, "16", HK_NO_INHERIT,
	  "default: a receiver ACKs every N packets (and every AckReq)" },
	{ "cnp_interval", HK_TIME, HOFF(cnp_interval_ns), 0, SEC, NULL, HK_NO_INHERIT,
	  "default NP minimum time between CNPs per QP (default: the variant's)" },
	{ "dscp", HK_COUNT, HOFF(dscp), 0, 63, "26", HK_NO_INHERIT,
	  "default DSCP of data and ACKs" },
	{ "cnp_dscp", HK_COUNT, HOFF(cnp_dscp), 0, 63, "48", HK_NO_INHERIT,
	  "DSCP of CNPs (Not-ECT)" },
	{ "duration", HK_TIME, HOFF(duration_ns), 0, 86400 * SEC, "10s", HK_NO_INHERIT,
	  "run time after the link is up, 0 = until a signal" },
	{ "until_done", HK_BOOL, HOFF(until_done), 0, 0, "no", HK_NO_INHERIT,
	  "stop early once every sender has sent its bytes and had them acknowledged" },
	{ "stats_interval", HK_TIME, HOFF(stats_interval_ns), 0, 3600 * SEC, "1s", HK_NO_INHERIT,
	  "print per-QP rates every T, 0 = never" },
	{ "csv_interval", HK_TIME, HOFF(csv_interval_ns), 0, 3600 * SEC, "10ms", HK_NO_INHERIT,
	  "rows of the CSV file every T" },
	{ "csv", HK_STR, HOFF(csv_path), 0, 0, "", HK_NO_INHERIT,
	  "CSV file: time_s,qp,role,rate_bps,tx_bps,goodput_bps,cnps,ce,queue_bytes,marks" },
	{ "json", HK_STR, HOFF(json_path), 0, 0, "", HK_NO_INHERIT,
	  "JSON summary written at exit" },
	{ "cnp_log", HK_STR, HOFF(cnp_log_path), 0, 0, "", HK_NO_INHERIT,
	  "CSV of every CNP received and sent (time, TSC, QP, rates)" },
	{ "cnp_log_max", HK_COUNT, HOFF(cnp_log_max), 0, 1u << 26, "1000000", HK_NO_INHERIT,
	  "CNP log entries kept in memory" },
	{ "seed", HK_COUNT, HOFF(seed), 0, UINT64_MAX, "1", HK_NO_INHERIT,
	  "seed of the ToR's RED marker" },
	{ "tor_rate", HK_RATE, HOFF(tor_rate_bps), 0, 400 * SEC, "0", HK_NO_INHERIT,
	  "ToR uplink rate shared by every sender QP; 0 = no ToR" },
	{ "tor_kmin", HK_SIZE, HOFF(tor_kmin_bytes), 0, GIB, "100kB", HK_NO_INHERIT,
	  "ToR RED: marking starts above this queue" },
	{ "tor_kmax", HK_SIZE, HOFF(tor_kmax_bytes), 1, GIB, "400kB", HK_NO_INHERIT,
	  "ToR RED: every packet marked above this queue" },
	{ "tor_pmax", HK_FRACTION, HOFF(tor_pmax_ppm), 1, 1000000, "0.2", HK_NO_INHERIT,
	  "ToR RED: marking probability at kmax" },
	{ "tor_xoff", HK_SIZE, HOFF(tor_xoff_bytes), 0, GIB, NULL, HK_NO_INHERIT,
	  "ToR queue at which senders pause, as PFC would (default 2 x tor_kmax)" },
	{ "dc_delay", HK_TIME, HOFF(dc_delay_ns), 0, SEC, "5us", HK_NO_INHERIT,
	  "one-way delay of intra-DC packets looped back inside hostem" },
	{ "icrc_check", HK_BOOL, HOFF(icrc_check), 0, 0, "yes", HK_NO_INHERIT,
	  "verify the ICRC of received packets (a NIC drops bad ones)" },
	{ "pacing_burst", HK_TIME, HOFF(pacing_burst_ns), 0, SEC / 10, "200us", HK_NO_INHERIT,
	  "pacer depth at line rate (at least 2 frames): a sender catches up after a stall" },
	{ "max_sleep", HK_TIME, HOFF(max_sleep_ns), 1000, SEC, "100us", HK_NO_INHERIT,
	  "idle back-off cap: the longest a packet waits unseen" },
	{ "mbufs", HK_COUNT, HOFF(mbufs), 0, 1u << 24, "0", HK_NO_INHERIT,
	  "mbuf pool size, 0 = from the ToR and delay-line sizes" },
	{ "wait_link", HK_TIME, HOFF(wait_link_ns), 0, 3600 * SEC, "10s", HK_NO_INHERIT,
	  "how long to wait for the port's link before failing" },
};

static const struct hostem_key hostem_qp_keys[] = {
	{ "role", HK_ROLE, QOFF(role), 0, 0, NULL, HK_NO_INHERIT, "send or recv; required" },
	{ "local", HK_ADDR, QOFF(local), 0, 0, NULL, HK_NO_INHERIT,
	  "this side's IP address; required" },
	{ "remote", HK_ADDR, QOFF(remote), 0, 0, NULL, HK_NO_INHERIT,
	  "the peer's IP address, same family; required" },
	{ "local_qpn", HK_QPN, QOFF(local_qpn), 1, HOSTEM_PSN_MASK, NULL, HK_NO_INHERIT,
	  "this side's QPN; required" },
	{ "remote_qpn", HK_QPN, QOFF(remote_qpn), 1, HOSTEM_PSN_MASK, NULL, HK_NO_INHERIT,
	  "the peer's QPN; required" },
	{ "sport", HK_COUNT, QOFF(sport), 1, 65535, NULL, HK_NO_INHERIT,
	  "UDP source port of this QP's packets (default 49152 + QP index)" },
	{ "psn", HK_COUNT, QOFF(psn), 0, HOSTEM_PSN_MASK, "0", HK_NO_INHERIT,
	  "first PSN (sender) or first expected PSN (receiver)" },
	{ "start", HK_TIME, QOFF(start_ns), 0, 86400 * SEC, "0", HK_NO_INHERIT,
	  "sender: start sending this long after the link is up" },
	{ "mtu", HK_COUNT, QOFF(mtu), 256, 4096, NULL, HOFF(mtu), "[host] mtu" },
	{ "message", HK_SIZE, QOFF(message_bytes), 1, GIB, NULL, HOFF(message_bytes),
	  "[host] message" },
	{ "bytes", HK_SIZE, QOFF(total_bytes), 0, UINT64_C(1) << 50, NULL, HOFF(total_bytes),
	  "[host] bytes" },
	{ "line_rate", HK_RATE, QOFF(line_rate_bps), 1000000, 400 * SEC, NULL, HOFF(line_rate_bps),
	  "[host] line_rate" },
	{ "window", HK_COUNT, QOFF(window_pkts), 0, 1u << 22, NULL, HOFF(window_pkts),
	  "[host] window" },
	{ "ack_every", HK_COUNT, QOFF(ack_every), 1, 65536, NULL, HOFF(ack_every),
	  "[host] ack_every" },
	{ "cnp_interval", HK_TIME, QOFF(cnp_interval_ns), 0, SEC, NULL, HOFF(cnp_interval_ns),
	  "[host] cnp_interval" },
	{ "dscp", HK_COUNT, QOFF(dscp), 0, 63, NULL, HOFF(dscp), "[host] dscp" },
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

/* The units.h kind of a numeric key type. */
static enum units_kind
hostem_units_kind(enum hostem_key_type t)
{
	switch (t) {
	case HK_RATE:
		return UNITS_RATE;
	case HK_SIZE:
		return UNITS_SIZE;
	case HK_TIME:
		return UNITS_TIME;
	case HK_FRACTION:
		return UNITS_FRACTION;
	default:
		return UNITS_COUNT;
	}
}

static int
hostem_key_index(const struct hostem_key *keys, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(keys[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *
hostem_config_addr_str(const struct hostem_addr *a, char *buf, size_t size)
{
	if (inet_ntop(a->family, a->a, buf, (socklen_t)size) == NULL)
		snprintf(buf, size, "?");
	return buf;
}

static int
hostem_parse_addr(const char *text, struct hostem_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, text, a->a) == 1) {
		a->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, text, a->a) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

static int
hostem_parse_prefix(const char *text, struct hostem_prefix *p, const char **why)
{
	char buf[64];
	const char *slash = strchr(text, '/');
	char *end;
	unsigned long len;

	if (slash == NULL || (size_t)(slash - text) >= sizeof(buf)) {
		*why = "expected ADDRESS/LENGTH";
		return -EINVAL;
	}
	memcpy(buf, text, (size_t)(slash - text));
	buf[slash - text] = '\0';
	if (hostem_parse_addr(buf, &p->addr) != 0) {
		*why = "not an IPv4 or IPv6 address";
		return -EINVAL;
	}
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (errno != 0 || end == slash + 1 || *end != '\0' ||
	    len > (p->addr.family == AF_INET ? 32u : 128u)) {
		*why = "bad prefix length";
		return -EINVAL;
	}
	p->len = (uint8_t)len;
	return 0;
}

/* Parse VALUE for key K into the struct at base. Returns 0 or -EINVAL with *why. */
static int
hostem_key_set(const struct hostem_key *k, void *base, const char *value, const char **why)
{
	uint8_t *field = (uint8_t *)base + k->off;
	uint64_t v = 0;
	char *end;
	int rc;

	*why = "invalid value";
	switch (k->type) {
	case HK_STR:
		if (strlen(value) >= (k->off == HOFF(name) ? HOSTEM_NAME_MAX : HOSTEM_PATH_MAX)) {
			*why = "too long";
			return -EINVAL;
		}
		strcpy((char *)field, value);
		return 0;
	case HK_MAC:
		if (rte_ether_unformat_addr(value, (struct rte_ether_addr *)field) != 0) {
			*why = "not a MAC address (xx:xx:xx:xx:xx:xx)";
			return -EINVAL;
		}
		return 0;
	case HK_ADDR:
		if (hostem_parse_addr(value, (struct hostem_addr *)field) != 0) {
			*why = "not an IPv4 or IPv6 address";
			return -EINVAL;
		}
		return 0;
	case HK_PREFIX:
		return -EINVAL; /* handled by the caller */
	case HK_VARIANT:
		for (v = 0; v < DCQCN_VARIANT_MAX; v++)
			if (strcmp(value, dcqcn_variant_name((enum dcqcn_variant)v)) == 0)
				break;
		if (v == DCQCN_VARIANT_MAX) {
			*why = "expected firmware, paper or hpcc";
			return -EINVAL;
		}
		break;
	case HK_ROLE:
		if (strcmp(value, "send") == 0) {
			v = HOSTEM_ROLE_SEND;
		} else if (strcmp(value, "recv") == 0) {
			v = HOSTEM_ROLE_RECV;
		} else {
			*why = "expected send or recv";
			return -EINVAL;
		}
		break;
	case HK_BOOL:
		if (units_parse_bool(value, (bool *)field) != 0) {
			*why = "expected yes or no";
			return -EINVAL;
		}
		return 0;
	case HK_RATE:
	case HK_SIZE:
	case HK_TIME:
	case HK_FRACTION:
		rc = units_parse(hostem_units_kind(k->type), value, &v, why);
		if (rc != 0)
			return -EINVAL;
		break;
	case HK_COUNT:
	case HK_QPN:
		errno = 0;
		if (value[0] == '-' || value[0] == '\0') {
			*why = "not an unsigned integer";
			return -EINVAL;
		}
		v = strtoull(value, &end, 0);
		if (errno != 0 || *end != '\0') {
			*why = "not an unsigned integer";
			return -EINVAL;
		}
		break;
	}
	if (k->type != HK_VARIANT && k->type != HK_ROLE && (v < k->min || v > k->max)) {
		*why = "out of range";
		return -ERANGE;
	}
	memcpy(field, &v, sizeof(v));
	return 0;
}

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

static void
hostem_range_error(struct hostem_parse *p, const struct hostem_key *k, const char *value)
{
	char lo[UNITS_TEXT_MAX], hi[UNITS_TEXT_MAX];
	enum units_kind kind = hostem_units_kind(k->type);

	if (units_format(kind, k->min, lo, sizeof(lo)) < 0 ||
	    units_format(kind, k->max, hi, sizeof(hi)) < 0)
		snprintf(lo, sizeof(lo), "?");
	hostem_error(p, p->line, p->section, k->name, "%s is out of range %s..%s", value, lo, hi);
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
	const struct hostem_key *keys;
	uint64_t *set;
	const char *why;
	size_t n;
	int i, rc;

	p->line = (int)line;
	if (!p->any_section) {
		hostem_error(p, p->line, NULL, NULL,
			     "%s: key outside any section (put it under [host] or [qp NAME])", name);
		return;
	}
	if (p->bad_section)
		return;
	keys = p->in_host ? hostem_host_keys : hostem_qp_keys;
	n = p->in_host ? N_HOST_KEYS : N_QP_KEYS;
	i = hostem_key_index(keys, n, name);
	if (i < 0) {
		hostem_error(p, p->line, section, name, "unknown key");
		return;
	}
	set = p->in_host ? &p->c->set : &p->qp->set;
	if (keys[i].type == HK_PREFIX) {
		struct hostem_conf *c = p->c;

		if (c->n_local == HOSTEM_MAX_PREFIXES) {
			hostem_error(p, p->line, section, name, "more than %d prefixes",
				     HOSTEM_MAX_PREFIXES);
			return;
		}
		if (hostem_parse_prefix(value, &c->local[c->n_local], &why) != 0) {
			hostem_error(p, p->line, section, name, "'%s': %s", value, why);
			return;
		}
		c->n_local++;
		*set |= UINT64_C(1) << i;
		return;
	}
	if (*set & (UINT64_C(1) << i)) {
		hostem_error(p, p->line, section, name, "given twice");
		return;
	}
	rc = hostem_key_set(&keys[i], p->in_host ? (void *)p->c : (void *)p->qp, value, &why);
	if (rc == -ERANGE)
		hostem_range_error(p, &keys[i], value);
	else if (rc != 0)
		hostem_error(p, p->line, section, name, "'%s': %s", value, why);
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
	const char *why;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < N_HOST_KEYS; i++)
		if (hostem_host_keys[i].def != NULL)
			hostem_key_set(&hostem_host_keys[i], c, hostem_host_keys[i].def, &why);
}

static bool
hostem_prefix_match(const struct hostem_prefix *p, const struct hostem_addr *a)
{
	uint32_t full = p->len / 8, rest = p->len % 8;

	if (p->addr.family != a->family)
		return false;
	if (memcmp(p->addr.a, a->a, full) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((p->addr.a[full] ^ a->a[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

bool
hostem_config_is_local(const struct hostem_conf *c, const struct hostem_addr *a)
{
	for (uint32_t i = 0; i < c->n_local; i++)
		if (hostem_prefix_match(&c->local[i], a))
			return true;
	return false;
}

static bool
hostem_addr_eq(const struct hostem_addr *a, const struct hostem_addr *b)
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
	int i_sport = hostem_key_index(hostem_qp_keys, N_QP_KEYS, "sport");

	if (!(c->set & (UINT64_C(1) << i_cnp))) {
		struct dcqcn_np_params np;

		dcqcn_params_default((enum dcqcn_variant)c->variant, c->line_rate_bps, NULL, &np);
		c->cnp_interval_ns = np.min_interval_ns;
	}
	if (!(c->set & (UINT64_C(1) << i_xoff)))
		c->tor_xoff_bytes = 2 * c->tor_kmax_bytes;
	for (uint32_t q = 0; q < c->n_qp; q++) {
		struct hostem_qp_conf *qp = &c->qp[q];

		for (size_t k = 0; k < N_QP_KEYS; k++) {
			const struct hostem_key *key = &hostem_qp_keys[k];

			if (qp->set & (UINT64_C(1) << k))
				continue;
			if (key->inherit != HK_NO_INHERIT) {
				memcpy((uint8_t *)qp + key->off, (const uint8_t *)c + key->inherit,
				       sizeof(uint64_t));
			} else if (key->def != NULL) {
				const char *why;

				hostem_key_set(key, qp, key->def, &why);
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

static void
hostem_dump_value(const struct hostem_key *k, const void *base, FILE *out)
{
	const uint8_t *field = (const uint8_t *)base + k->off;
	char buf[64];
	uint64_t v;

	switch (k->type) {
	case HK_STR:
		fprintf(out, "%s =%s%s\n", k->name, *(const char *)field ? " " : "",
			(const char *)field);
		return;
	case HK_MAC:
		rte_ether_format_addr(buf, sizeof(buf), (const struct rte_ether_addr *)field);
		fprintf(out, "%s = %s\n", k->name, buf);
		return;
	case HK_ADDR:
		fprintf(out, "%s = %s\n", k->name,
			hostem_config_addr_str((const struct hostem_addr *)field, buf,
					       sizeof(buf)));
		return;
	case HK_BOOL:
		fprintf(out, "%s = %s\n", k->name, *(const bool *)field ? "yes" : "no");
		return;
	case HK_PREFIX:
		return;
	default:
		break;
	}
	memcpy(&v, field, sizeof(v));
	switch (k->type) {
	case HK_VARIANT:
		fprintf(out, "%s = %s\n", k->name, dcqcn_variant_name((enum dcqcn_variant)v));
		break;
	case HK_ROLE:
		fprintf(out, "%s = %s\n", k->name, v == HOSTEM_ROLE_SEND ? "send" : "recv");
		break;
	case HK_RATE:
	case HK_SIZE:
	case HK_TIME:
	case HK_FRACTION:
		units_format(hostem_units_kind(k->type), v, buf, sizeof(buf));
		fprintf(out, "%s = %s\n", k->name, buf);
		break;
	case HK_QPN:
		fprintf(out, "%s = 0x%06" PRIx64 "\n", k->name, v);
		break;
	default:
		fprintf(out, "%s = %" PRIu64 "\n", k->name, v);
		break;
	}
}

void
hostem_config_dump(const struct hostem_conf *c, FILE *out)
{
	char buf[64];

	fprintf(out, "; longspan-hostem effective configuration\n[host]\n");
	for (size_t i = 0; i < N_HOST_KEYS; i++) {
		const struct hostem_key *k = &hostem_host_keys[i];

		if (k->type == HK_PREFIX) {
			for (uint32_t j = 0; j < c->n_local; j++)
				fprintf(out, "%s = %s/%u\n", k->name,
					hostem_config_addr_str(&c->local[j].addr, buf, sizeof(buf)),
					c->local[j].len);
			continue;
		}
		hostem_dump_value(k, c, out);
	}
	for (uint32_t q = 0; q < c->n_qp; q++) {
		fprintf(out, "\n[qp %s]\n", c->qp[q].name);
		for (size_t i = 0; i < N_QP_KEYS; i++)
			hostem_dump_value(&hostem_qp_keys[i], &c->qp[q], out);
	}
}
