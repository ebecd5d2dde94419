/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cross-field rules of longspand's config, run over the whole file once
 * every line is parsed (style.md rule 2): roles, devices, addresses against
 * subnets, peers against ports, congestion thresholds. Each names the key
 * to blame at the line it was given.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "config_int.h"
#include "eal_args.h"
#include "congestion/ecn_red.h"
#include "congestion/cc_math.h"

/* The UDP port dataplane/p4/longspan.p4's parser selects GENEVE on. */
#define CONFIG_P4_GENEVE_PORT 6081
#define CONFIG_NS_PER_S UINT64_C(1000000000)

/*
 * The rules below name keys by string. An unknown name is a bug in this
 * file; it reads as "not given" (config_index() returns CONFIG_KEYS_MAX,
 * whose slots are never set) rather than as an out-of-bounds access.
 */
static unsigned int
config_index(const struct config_inst *in, const char *name)
{
	const struct conf_key *k = config_key_find(in->section, name);

	return k != NULL ? config_key_index(k) : CONFIG_KEYS_MAX;
}

/* Was key NAME given in IN with a good value? */
static bool
config_given(const struct config_inst *in, const char *name)
{
	unsigned int ki = config_index(in, name);

	return ki < CONFIG_KEYS_MAX && in->key_line[ki] != 0 && !in->key_bad[ki];
}

/* Does IN hold a usable value for NAME (given, or its default)? */
static bool
config_valid(const struct config_inst *in, const char *name)
{
	unsigned int ki = config_index(in, name);

	return ki < CONFIG_KEYS_MAX && !in->key_bad[ki];
}

/* Line to blame for NAME in IN: where it was given, else the header. */
static unsigned int
config_line(const struct config_inst *in, const char *name)
{
	unsigned int ki = config_index(in, name);

	return ki < CONFIG_KEYS_MAX && in->key_line[ki] != 0 ? in->key_line[ki] : in->line;
}

static const struct conf_prefix *
config_port_addr(const struct ls_port_conf *pc, int family)
{
	const struct conf_prefix *a = family == AF_INET ? &pc->ipv4 : &pc->ipv6;

	return a->addr.family == family ? a : NULL;
}

/* Count the lcores of a plain list ("0,2-5"): -1 for EAL's richer forms
 * ('@', '()'), which are left to EAL, -2 if malformed. MAIN_IN reports
 * whether lcore MAIN is in the list. */
static int
config_lcores_count(const char *s, unsigned int main, bool *main_in)
{
	uint8_t seen[1024 / 8];
	int count = 0;

	memset(seen, 0, sizeof(seen));
	*main_in = false;
	if (strpbrk(s, "@()") != NULL)
		return -1;
	while (*s != '\0') {
		unsigned long lo, hi;
		char *end;

		if (!isdigit((unsigned char)*s))
			return -2;
		lo = strtoul(s, &end, 10);
		hi = lo;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -2;
			hi = strtoul(end + 1, &end, 10);
		}
		if (lo > hi || hi >= 1024)
			return -2;
		for (unsigned long c = lo; c <= hi; c++) {
			if (!(seen[c / 8] & (1u << (c % 8))))
				count++;
			seen[c / 8] |= (uint8_t)(1u << (c % 8));
			if (c == main)
				*main_in = true;
		}
		s = end;
		if (*s == ',') {
			s++;
			if (*s == '\0')
				return -2;
		} else if (*s != '\0') {
			return -2;
		}
	}
	return count;
}

static void
config_check_eal(struct config_parser *p)
{
	const struct config_inst *gw = &p->inst[CONFIG_INST_GATEWAY];
	const struct config_inst *in = &p->inst[CONFIG_INST_EAL];
	const struct ls_eal_conf *eal = &p->cfg->eal;
	const char *x = eal->extra;

	if (config_given(in, "lcores")) {
		bool main_in;
		int n = config_lcores_count(eal->lcores, eal->main_lcore, &main_in);

		if (n == -2)
			config_error(p, config_line(in, "lcores"), in, "lcores",
				     "'%s' is not an lcore list (like 0,1 or 2-5, lcores below 1024)",
				     eal->lcores);
		if (n >= 0 && config_valid(gw, "workers") &&
		    (unsigned int)n < p->cfg->gw.workers + 1)
			config_error(p, config_line(in, "lcores"), in, "lcores",
				     "'%s' names %d lcore%s but workers = %u needs %u (one per "
				     "worker plus the main lcore)",
				     eal->lcores, n, n == 1 ? "" : "s", p->cfg->gw.workers,
				     p->cfg->gw.workers + 1);
		if (n >= 0 && config_given(in, "main_lcore") && !main_in)
			config_error(p, config_line(in, "main_lcore"), in, "main_lcore",
				     "%u is not in lcores '%s'", eal->main_lcore, eal->lcores);
	}

	while (config_given(in, "extra") && *(x += strspn(x, " \t")) != '\0') {
		char opt[64];
		size_t n = strcspn(x, " \t");
		const char *key;

		snprintf(opt, sizeof(opt), "%.*s", (int)(n < sizeof(opt) ? n : sizeof(opt) - 1), x);
		key = eal_args_option_key(opt);
		if (key != NULL && config_given(in, key))
			config_error(p, config_line(in, "extra"), in, "extra",
				     "option %s repeats key %s; set only one of them", opt, key);
		x += n;
	}
}

static void
config_check_gateway(struct config_parser *p)
{
	struct config_inst *in = &p->inst[CONFIG_INST_GATEWAY];
	struct ls_gateway_conf *gw = &p->cfg->gw;

	/* The socket default depends on the name. */
	if (gw->socket_path[0] == '\0')
		snprintf(gw->socket_path, sizeof(gw->socket_path), "/run/longspan/%s.sock",
			 gw->name);
	/*
	 * The P4 program's parser selects GENEVE on a constant (it runs
	 * before any table could give it the configured port): on another
	 * port the program drops every tunnel packet as not_tunnel and the C
	 * path behind it terminates them, their GENEVE sequence numbers
	 * counted twice, the second time after the burst (docs/p4.md).
	 */
	if (gw->pipeline == LS_PIPELINE_P4 && gw->geneve_port != CONFIG_P4_GENEVE_PORT &&
	    config_valid(in, "geneve_port"))
		config_error(p, config_line(in, "geneve_port"), in, "geneve_port",
			     "%u needs [gateway] pipeline = c (the P4 program's parser takes "
			     "GENEVE on UDP port %u only)",
			     gw->geneve_port, CONFIG_P4_GENEVE_PORT);
}

/* Check a router or neighbor address A against the port's subnet. */
static const char *
config_onlink_problem(const struct ls_port_conf *pc, const struct conf_addr *a, char *buf,
		      size_t size)
{
	const struct conf_prefix *own = config_port_addr(pc, a->family);
	char net[INET6_ADDRSTRLEN + 8];

	if (own == NULL) {
		snprintf(buf, size, "is IPv%d but the port has no ipv%d address",
			 config_family_version(a->family), config_family_version(a->family));
		return buf;
	}
	if (memcmp(own->addr.a, a->a, conf_addr_len(a)) == 0) {
		snprintf(buf, size, "is the port's own address");
		return buf;
	}
	if (!conf_prefix_contains(own, a)) {
		struct conf_prefix n = *own;

		conf_clear_host_bits(&n.addr, n.len);
		conf_prefix_text(&n, net, sizeof(net));
		snprintf(buf, size, "is outside the port's subnet %s", net);
		return buf;
	}
	return NULL;
}

static void
config_check_ports(struct config_parser *p)
{
	struct ls_config *cfg = p->cfg;
	bool roles_known = true;
	unsigned int n_wan = 0, eof_line = p->line > 0 ? p->line : 1;
	char msg[160], text[INET6_ADDRSTRLEN + 8];
	int dc = -1;

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		struct config_inst *in = &p->inst[CONFIG_INST_PORT0 + i];
		struct ls_port_conf *pc = &cfg->ports[i];

		if (!config_given(in, "role")) {
			roles_known = false;
		} else if (pc->role == LS_PORT_WAN) {
			n_wan++;
		} else if (dc >= 0) {
			config_error(p, config_line(in, "role"), in, "role",
				     "a second dc port: [port %s] (line %u) is the dc port, and "
				     "exactly one is allowed",
				     cfg->ports[dc].name, cfg->ports[dc].line);
		} else {
			dc = (int)i;
		}

		if (config_given(in, "dev")) {
			enum eal_args_dev_kind kind = eal_args_dev_kind(pc->dev);
			char name[LS_DEVARGS_MAX], other[LS_DEVARGS_MAX];

			if (kind == EAL_ARGS_DEV_INVALID)
				config_error(p, config_line(in, "dev"), in, "dev",
					     "'%.60s' is neither a PCI address (0000:03:00.0) nor a "
					     "virtual device (net_NAME[,args])",
					     pc->dev);
			if (kind == EAL_ARGS_DEV_PCI && cfg->eal.no_pci)
				config_error(p, config_line(in, "dev"), in, "dev",
					     "%.60s is a PCI device but [eal] no_pci = yes", pc->dev);
			for (unsigned int j = 0; kind != EAL_ARGS_DEV_INVALID && j < i; j++) {
				if (!config_given(&p->inst[CONFIG_INST_PORT0 + j], "dev") ||
				    eal_args_dev_name(pc->dev, name, sizeof(name)) < 0 ||
				    eal_args_dev_name(cfg->ports[j].dev, other, sizeof(other)) < 0 ||
				    strcmp(name, other) != 0)
					continue;
				config_error(p, config_line(in, "dev"), in, "dev",
					     "device %s is already used by [port %s] (line %u)", name,
					     cfg->ports[j].name, cfg->ports[j].line);
				break;
			}
		}

		if (pc->ipv4.addr.family == 0 && pc->ipv6.addr.family == 0 &&
		    config_valid(in, "ipv4") && config_valid(in, "ipv6"))
			config_error(p, in->line, in, NULL, "needs an address: set ipv4, ipv6 or both");
		if (pc->ipv6.addr.family != 0 && config_valid(in, "mtu") && pc->mtu < 1280)
			config_error(p, config_line(in, "mtu"), in, "mtu",
				     "%u is below 1280, the IPv6 minimum MTU (RFC 8200)", pc->mtu);

		for (unsigned int j = 0; j < i; j++) {
			const struct ls_port_conf *o = &cfg->ports[j];

			if (pc->ipv4.addr.family != 0 && o->ipv4.addr.family != 0 &&
			    memcmp(pc->ipv4.addr.a, o->ipv4.addr.a, 4) == 0) {
				conf_addr_text(&pc->ipv4.addr, text, sizeof(text));
				config_error(p, config_line(in, "ipv4"), in, "ipv4",
					     "%s is also the address of [port %s]", text, o->name);
			}
			if (pc->ipv6.addr.family != 0 && o->ipv6.addr.family != 0 &&
			    memcmp(pc->ipv6.addr.a, o->ipv6.addr.a, 16) == 0) {
				conf_addr_text(&pc->ipv6.addr, text, sizeof(text));
				config_error(p, config_line(in, "ipv6"), in, "ipv6",
					     "%s is also the address of [port %s]", text, o->name);
			}
		}

		if (config_given(in, "gateway4") && config_valid(in, "ipv4") &&
		    config_onlink_problem(pc, &pc->gateway4, msg, sizeof(msg)) != NULL) {
			conf_addr_text(&pc->gateway4, text, sizeof(text));
			config_error(p, config_line(in, "gateway4"), in, "gateway4", "%s %s", text,
				     msg);
		}
		if (config_given(in, "gateway6") && config_valid(in, "ipv6") &&
		    !(pc->gateway6.a[0] == 0xfe && (pc->gateway6.a[1] & 0xc0) == 0x80) &&
		    config_onlink_problem(pc, &pc->gateway6, msg, sizeof(msg)) != NULL) {
			conf_addr_text(&pc->gateway6, text, sizeof(text));
			config_error(p, config_line(in, "gateway6"), in, "gateway6", "%s %s", text,
				     msg);
		}
		for (unsigned int k = 0; k < pc->n_neigh; k++) {
			if (!config_valid(in, pc->neigh[k].ip.family == AF_INET ? "ipv4" : "ipv6") ||
			    config_onlink_problem(pc, &pc->neigh[k].ip, msg, sizeof(msg)) == NULL)
				continue;
			conf_addr_text(&pc->neigh[k].ip, text, sizeof(text));
			config_error(p, in->elem_line[k], in, "neighbor", "%s %s", text, msg);
		}
	}

	cfg->dc_port = dc;
	if (!roles_known)
		return;
	if (dc < 0)
		config_error(p, eof_line, NULL, NULL,
			     "no [port] has role = dc; exactly one is required");
	if (n_wan == 0)
		config_error(p, eof_line, NULL, NULL,
			     "no [port] has role = wan; at least one is required");
}

static void
config_check_peer(struct config_parser *p, unsigned int i)
{
	struct ls_config *cfg = p->cfg;
	struct config_inst *in = &p->inst[CONFIG_INST_PEER0 + i];
	struct ls_peer_conf *pc = &cfg->peers[i];
	const struct ls_port_conf *wan = NULL, *dc = cfg->dc_port >= 0 ? &cfg->ports[cfg->dc_port] : NULL;
	char text[INET6_ADDRSTRLEN + 8], net[INET6_ADDRSTRLEN + 8];
	bool rtt = config_given(in, "rtt"), dist = config_given(in, "distance");

	/* Without config prefixes a peer's routes come from its session alone. */
	if (in->key_line[config_index(in, "prefix")] == 0 &&
	    !(p->inst[CONFIG_INST_PEERING].line != 0 && pc->peering))
		config_error(p, in->line, in, "prefix",
			     "missing required key (or learn it: a [peering] section)");

	/* One credit channel per peer and direction, and the state is per worker. */
	if (pc->lossless == LS_LOSSLESS_CREDIT && cfg->gw.workers > 1)
		config_error(p, config_line(in, "lossless"), in, "lossless",
			     "credit needs [gateway] workers = 1 (credit state is per worker; %u "
			     "configured)", cfg->gw.workers);

	if (config_given(in, "port")) {
		int idx = config_port_index(cfg, pc->port);

		if (idx < 0) {
			config_error(p, config_line(in, "port"), in, "port",
				     "no [port %s] in this file", pc->port);
		} else if (config_given(&p->inst[CONFIG_INST_PORT0 + idx], "role") &&
			   cfg->ports[idx].role != LS_PORT_WAN) {
			config_error(p, config_line(in, "port"), in, "port",
				     "[port %s] is a dc port; a peer needs a wan port", pc->port);
		} else {
			pc->port_index = idx;
			wan = &cfg->ports[idx];
		}
	}

	if (rtt && dist && !pc->rtt_auto) {
		bool rtt_last = config_line(in, "rtt") > config_line(in, "distance");

		config_error(p, config_line(in, rtt_last ? "rtt" : "distance"), in,
			     rtt_last ? "rtt" : "distance", "set rtt or distance, not both");
	} else if (!rtt && !dist && config_valid(in, "rtt") && config_valid(in, "distance")) {
		/* Neither: the measured RTT, as `rtt = auto` without a start. */
		pc->rtt_auto = true;
	} else if (dist) {
		pc->rtt_ns = pc->distance_m * 2 * LS_FIBRE_NS_PER_KM / 1000;
	}
	/* Measured with nothing to measure: the WAN port would never shape or mark. */
	if (pc->rtt_auto && !dist && cfg->gw.probe_interval_ns == 0)
		config_error(p, rtt ? config_line(in, "rtt") : in->line, in, rtt ? "rtt" : NULL,
			     "the RTT is measured (rtt = auto%s) but [gateway] probe_interval = 0 "
			     "sends no probes: set rtt or distance, or a probe_interval",
			     rtt ? "" : ", as without rtt or distance");

	/* Nor a credit hop: the program takes one Longspan option only (docs/p4.md). */
	if (cfg->gw.pipeline == LS_PIPELINE_P4 && pc->lossless == LS_LOSSLESS_CREDIT)
		config_error(p, config_line(in, "lossless"), in, "lossless",
			     "credit needs [gateway] pipeline = c (the P4 program has no credit "
			     "hop)");

	if (config_given(in, "remote") && wan != NULL) {
		int fam = pc->remote.family;
		const struct conf_prefix *own = config_port_addr(wan, fam);

		conf_addr_text(&pc->remote, text, sizeof(text));
		if (config_given(in, "local")) {
			if (pc->local.family != fam)
				config_error(p, config_line(in, "local"), in, "local",
					     "is IPv%d but remote %s is IPv%d",
					     config_family_version(pc->local.family), text,
					     config_family_version(fam));
		} else if (own == NULL &&
			   config_valid(&p->inst[CONFIG_INST_PORT0 + pc->port_index],
					fam == AF_INET ? "ipv4" : "ipv6")) {
			config_error(p, config_line(in, "remote"), in, "remote",
				     "%s is IPv%d but [port %s] has no ipv%d address (set one "
				     "there, or set local)",
				     text, config_family_version(fam), wan->name,
				     config_family_version(fam));
		}
		if (own != NULL && memcmp(own->addr.a, pc->remote.a, conf_addr_len(&own->addr)) == 0)
			config_error(p, config_line(in, "remote"), in, "remote",
				     "%s is this gateway's own address on [port %s]", text,
				     wan->name);
		for (unsigned int j = 0; j < i; j++) {
			const struct ls_peer_conf *o = &cfg->peers[j];

			if (o->port_index == pc->port_index &&
			    memcmp(&o->remote, &pc->remote, sizeof(o->remote)) == 0) {
				config_error(p, config_line(in, "remote"), in, "remote",
					     "%s is already the remote of [peer %s] (line %u)", text,
					     o->name, o->line);
				break;
			}
		}
	}

	for (unsigned int k = 0; k < pc->n_prefixes; k++) {
		const struct conf_prefix *pfx = &pc->prefixes[k];
		const struct conf_prefix *own = dc != NULL ? config_port_addr(dc, pfx->addr.family) : NULL;
		unsigned int line = in->elem_line[k];

		conf_prefix_text(pfx, text, sizeof(text));
		/* A dc port without any address is reported once, at the port. */
		if (dc != NULL && own == NULL &&
		    (dc->ipv4.addr.family != 0 || dc->ipv6.addr.family != 0) &&
		    config_valid(&p->inst[CONFIG_INST_PORT0 + cfg->dc_port],
				 pfx->addr.family == AF_INET ? "ipv4" : "ipv6"))
			config_error(p, line, in, "prefix",
				     "%s is IPv%d but the dc port [port %s] has no ipv%d address",
				     text, config_family_version(pfx->addr.family), dc->name,
				     config_family_version(pfx->addr.family));
		if (own != NULL && pfx->len >= own->len && conf_prefix_contains(own, &pfx->addr)) {
			struct conf_prefix n = *own;

			conf_clear_host_bits(&n.addr, n.len);
			conf_prefix_text(&n, net, sizeof(net));
			config_error(p, line, in, "prefix",
				     "%s is inside the dc port's subnet %s: local destinations "
				     "cannot belong to a peer",
				     text, net);
		}
		for (unsigned int j = 0; j < i; j++) {
			const struct ls_peer_conf *o = &cfg->peers[j];
			bool dup = false;

			for (unsigned int m = 0; m < o->n_prefixes && !dup; m++)
				dup = memcmp(&o->prefixes[m], pfx, sizeof(*pfx)) == 0;
			if (dup) {
				config_error(p, line, in, "prefix",
					     "%s is also a prefix of [peer %s] (line %u); nested "
					     "prefixes are allowed, equal ones are not",
					     text, o->name, o->line);
				break;
			}
		}
	}
}

static void
config_check_congestion(struct config_parser *p)
{
	struct config_inst *in = &p->inst[CONFIG_INST_CONGESTION];
	const struct ls_congestion_conf *c = &p->cfg->cong;
	char a[UNITS_TEXT_MAX], b[UNITS_TEXT_MAX];

	/*
	 * In p4 mode the program's flow learner ages by flow_idle too, and
	 * an SWX learner timeout is a whole number of seconds
	 * (rte_swx_ctl_pipeline_learner_timeout_set()).
	 */
	if (p->cfg->gw.pipeline == LS_PIPELINE_P4 && c->flow_idle_ns % CONFIG_NS_PER_S != 0 &&
	    config_valid(in, "flow_idle")) {
		units_format(UNITS_TIME, c->flow_idle_ns, a, sizeof(a));
		config_error(p, config_line(in, "flow_idle"), in, "flow_idle",
			     "%s needs whole seconds with [gateway] pipeline = p4 (the P4 "
			     "program's flow learner times out in seconds)",
			     a);
	}
	if (c->pfc_xon_bytes != 0 && c->pfc_xoff_bytes != 0 && c->pfc_xon_bytes >= c->pfc_xoff_bytes &&
	    config_valid(in, "pfc_xon") && config_valid(in, "pfc_xoff")) {
		units_format(UNITS_SIZE, c->pfc_xon_bytes, a, sizeof(a));
		units_format(UNITS_SIZE, c->pfc_xoff_bytes, b, sizeof(b));
		config_error(p, config_line(in, "pfc_xon"), in, "pfc_xon",
			     "%s must be below pfc_xoff (%s)", a, b);
	}
	if (!config_valid(in, "kmin") || !config_valid(in, "kmax"))
		return;
	units_format(UNITS_SIZE, c->kmin_bytes, a, sizeof(a));
	units_format(UNITS_SIZE, c->kmax_bytes, b, sizeof(b));
	if ((c->kmin_bytes == 0) != (c->kmax_bytes == 0)) {
		const char *set = c->kmin_bytes != 0 ? "kmin" : "kmax";

		config_error(p, config_line(in, set), in, set,
			     "is set but %s is 0 (derived); set both or neither",
			     c->kmin_bytes != 0 ? "kmax" : "kmin");
	} else if (c->kmin_bytes != 0) {
		/* RED's own statement of its invariants; pmax is checked by its key. */
		const struct ecn_red_params red = { .kmin_bytes = c->kmin_bytes,
						    .kmax_bytes = c->kmax_bytes,
						    .pmax_ppm = CC_PPM_ONE };
		const char *why;

		if (ecn_red_params_check(&red, &why) < 0)
			config_error(p, config_line(in, "kmin"), in, "kmin", "%s, kmax %s: %s", a, b,
				     why);
	}
	if (c->buffer_bytes != 0 && c->kmax_bytes > c->buffer_bytes && config_valid(in, "buffer")) {
		units_format(UNITS_SIZE, c->buffer_bytes, a, sizeof(a));
		config_error(p, config_line(in, "kmax"), in, "kmax", "%s exceeds buffer (%s)", b, a);
	}
}

/* A peering site id is a DNS label (it is matched against a certificate's SAN). */
static bool
config_dns_label_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-')
			return false;
	return true;
}

/* [peering] and the peering keys of each [peer]: cross-field rules. */
static void
config_check_peering(struct config_parser *p)
{
	struct ls_config *cfg = p->cfg;
	struct ls_peering_conf *pg = &cfg->peering;
	struct config_inst *in = &p->inst[CONFIG_INST_PEERING];
	unsigned int i, j;

	pg->enabled = in->line != 0;
	if (!pg->enabled)
		return;
	if (!config_dns_label_ok(cfg->gw.name))
		config_error(p, config_line(&p->inst[CONFIG_INST_GATEWAY], "name"),
			     &p->inst[CONFIG_INST_GATEWAY], "name",
			     "'%s' must be a DNS label (letters, digits, '-') to peer: "
			     "certificates name it",
			     cfg->gw.name);
	if (pg->hold_time_ns % 1000000u != 0 && config_valid(in, "hold_time"))
		config_error(p, config_line(in, "hold_time"), in, "hold_time",
			     "must be whole milliseconds");
	if (pg->backoff_min_ns > pg->backoff_max_ns && config_valid(in, "backoff_min") &&
	    config_valid(in, "backoff_max"))
		config_error(p, config_line(in, "backoff_min"), in, "backoff_min",
			     "exceeds backoff_max");
	if (pg->n_prefixes == 0 && cfg->dc_port >= 0) {
		const struct ls_port_conf *dc = &cfg->ports[cfg->dc_port];

		if (dc->ipv4.addr.family == AF_INET) {
			pg->prefixes[pg->n_prefixes] = dc->ipv4;
			conf_clear_host_bits(&pg->prefixes[pg->n_prefixes].addr, dc->ipv4.len);
			pg->n_prefixes++;
		}
		if (dc->ipv6.addr.family == AF_INET6) {
			pg->prefixes[pg->n_prefixes] = dc->ipv6;
			conf_clear_host_bits(&pg->prefixes[pg->n_prefixes].addr, dc->ipv6.len);
			pg->n_prefixes++;
		}
	}
	for (i = 0; i < cfg->n_peers; i++) {
		struct config_inst *pin = &p->inst[CONFIG_INST_PEER0 + i];
		struct ls_peer_conf *pc = &cfg->peers[i];

		if (!pc->peering)
			continue;
		if (!config_dns_label_ok(pc->name))
			config_error(p, pin->line, pin, NULL,
				     "peering: the name must be a DNS label (letters, digits, "
				     "'-'): the peer's certificate names it");
		if (pc->peering_address.family == 0)
			pc->peering_address = pc->remote;
		if (pc->peering_port == 0)
			pc->peering_port = pg->port;
		for (j = 0; j < i; j++) {
			const struct ls_peer_conf *o = &cfg->peers[j];

			if (o->peering && o->peering_address.family == pc->peering_address.family &&
			    memcmp(o->peering_address.a, pc->peering_address.a, 16) == 0)
				config_error(p, config_line(pin, "peering_address"), pin,
					     "peering_address",
					     "the same as [peer %s]'s: inbound connections are "
					     "matched on it",
					     o->name);
		}
	}
}

static void
config_check_required(struct config_parser *p)
{
	for (unsigned int i = CONFIG_INST_PEERING; i < CONFIG_INST_MAX; i++) {
		struct config_inst *in = &p->inst[i];

		if (in->line == 0)
			continue;
		for (unsigned int k = 0; k < config_n_keys; k++) {
			const struct conf_key *key = &config_keys[k];

			if (key->section == in->section && (key->flags & CONF_F_REQUIRED) &&
			    in->key_line[k] == 0)
				config_error(p, in->line, in, key->name, "missing required key");
		}
	}
}

/* config_hooks_check()'s errors, at the key's line of its section. */
static void
config_hooks_error(void *arg, unsigned int hook, const char *key, const char *msg)
{
	struct config_parser *p = arg;
	struct config_inst *in =
		&p->inst[hook == UINT32_MAX ? CONFIG_INST_TELEMETRY : CONFIG_INST_HOOK0 + hook];

	config_error(p, key != NULL ? config_line(in, key) : in->line, in, key, "%s", msg);
}

void
config_check(struct config_parser *p)
{
	config_check_required(p);
	config_check_gateway(p);
	config_check_eal(p);
	config_check_ports(p);
	for (unsigned int i = 0; i < p->cfg->n_peers; i++)
		config_check_peer(p, i);
	config_check_congestion(p);
	config_hooks_check(p->cfg, config_hooks_error, p);
	config_check_peering(p);
}
