/* SPDX-License-Identifier: BSD-3-Clause */
#include "p4_tables.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_swx_ctl.h>
#include <rte_swx_pipeline.h>

#include "control/config.h"
#include "control/learned_routes.h"
#include "dataplane/dp_conf.h"

/* The spec's ROLE_* and port count (port_role has 64 entries). */
#define P4_ROLE_DC_ACTION "port_dc"
#define P4_ROLE_WAN_ACTION "port_wan"
/* The per-QP flow learner and the timeout profile its learn action uses. */
#define P4_FLOW_LEARNER "flows"
#define P4_FLOW_TIMEOUT_ID 0
#define P4_NS_PER_S UINT64_C(1000000000)

/*
 * The martian prefixes as table entries: the set dataplane/martian.h tests
 * address by address (tests/unit/p4/test_p4_diff.c checks that the two
 * agree). IPv4 224/3 is multicast and class E together (a[0] >= 224).
 */
static const struct {
	uint32_t addr;
	uint8_t len;
} p4_martian4[] = {
	{ 0x00000000, 8 }, { 0x7f000000, 8 }, { 0xa9fe0000, 16 }, { 0xe0000000, 3 },
};

static const struct {
	uint64_t hi, lo;
	uint8_t len;
} p4_martian6[] = {
	{ 0, 0, 128 },
	{ 0, 1, 128 },
	{ 0xfe80000000000000ull, 0, 10 },
	{ 0xff00000000000000ull, 0, 8 },
};

static uint32_t
get_be32(const uint8_t *a)
{
	return (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
}

static uint64_t
get_be64(const uint8_t *a)
{
	return (uint64_t)get_be32(a) << 32 | get_be32(a + 4);
}

static uint64_t
mac_u64(const uint8_t *m)
{
	return (uint64_t)m[0] << 40 | (uint64_t)m[1] << 32 | (uint64_t)get_be32(m + 2);
}

static uint32_t
mask4(uint8_t len)
{
	return len == 0 ? 0 : ~0u << (32 - len);
}

static uint64_t
mask64(int len)
{
	if (len <= 0)
		return 0;
	return len >= 64 ? ~0ull : ~0ull << (64 - len);
}

/* route4/rpf4 and route6/rpf6 entries: kind is peer, dc_local or martian. */
static int
lookup_entry(p4_tables_entry_fn fn, void *arg, uint8_t family, const uint8_t *a, uint8_t len,
	     const char *kind, int peer)
{
	static const char *const tables[2][2] = { { "route4", "rpf4" }, { "route6", "rpf6" } };
	static const char *const prefixes[2] = { "route", "rpf" };
	char line[256], act[64];
	int t, rc;

	for (t = 0; t < 2; t++) {
		if (peer >= 0)
			snprintf(act, sizeof(act), "action %s_peer peer_id 0x%x", prefixes[t], peer);
		else
			snprintf(act, sizeof(act), "action %s_%s", prefixes[t], kind);
		if (family == AF_INET) {
			uint32_t m = mask4(len);

			snprintf(line, sizeof(line), "match 0x%08" PRIx32 "/0x%08" PRIx32 " %s",
				 get_be32(a) & m, m, act);
		} else {
			uint64_t mh = mask64(len), ml = mask64((int)len - 64);
			/* Longest first: the wildcard table serves the lowest priority
			 * value first; martians (priority 0) before any prefix. */
			unsigned int prio = strcmp(kind, "martian") == 0 ? 0 : 129u - len;

			snprintf(line, sizeof(line),
				 "match 0x%016" PRIx64 "/0x%016" PRIx64 " 0x%016" PRIx64
				 "/0x%016" PRIx64 " priority %u %s",
				 get_be64(a) & mh, mh, get_be64(a + 8) & ml, ml, prio, act);
		}
		rc = fn(arg, tables[family == AF_INET ? 0 : 1][t], line, false);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int
martians(p4_tables_entry_fn fn, void *arg)
{
	uint8_t a[16];
	unsigned int i;
	int rc;

	for (i = 0; i < RTE_DIM(p4_martian4); i++) {
		a[0] = (uint8_t)(p4_martian4[i].addr >> 24);
		a[1] = (uint8_t)(p4_martian4[i].addr >> 16);
		a[2] = (uint8_t)(p4_martian4[i].addr >> 8);
		a[3] = (uint8_t)p4_martian4[i].addr;
		rc = lookup_entry(fn, arg, AF_INET, a, p4_martian4[i].len, "martian", -1);
		if (rc != 0)
			return rc;
	}
	for (i = 0; i < RTE_DIM(p4_martian6); i++) {
		unsigned int b;

		for (b = 0; b < 8; b++) {
			a[b] = (uint8_t)(p4_martian6[i].hi >> (56 - 8 * b));
			a[8 + b] = (uint8_t)(p4_martian6[i].lo >> (56 - 8 * b));
		}
		rc = lookup_entry(fn, arg, AF_INET6, a, p4_martian6[i].len, "martian", -1);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int
neighbours(const struct ls_port_conf *pc, p4_tables_entry_fn fn, void *arg)
{
	char line[160];
	unsigned int i;
	int rc;

	for (i = 0; i < pc->n_neigh; i++) {
		const struct ls_static_neigh *n = &pc->neigh[i];

		if (n->ip.family == AF_INET)
			snprintf(line, sizeof(line), "match 0x%08" PRIx32 " action neigh_mac mac 0x%012" PRIx64,
				 get_be32(n->ip.a), mac_u64(n->mac));
		else
			snprintf(line, sizeof(line),
				 "match 0x%016" PRIx64 " 0x%016" PRIx64 " action neigh_mac mac 0x%012" PRIx64,
				 get_be64(n->ip.a), get_be64(n->ip.a + 8), mac_u64(n->mac));
		rc = fn(arg, n->ip.family == AF_INET ? "neigh4" : "neigh6", line, false);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* A peer's tunnel (peer_tunnel) and its termination (peer_by_remote4 or 6). */
static int
peer_tunnel(const struct dp_conf *dp, unsigned int i, p4_tables_entry_fn fn, void *arg)
{
	const struct dp_peer *peer = &dp->peers[i];
	const struct dp_port *wan = &dp->ports[peer->port];
	char line[512];
	int rc;

	if (peer->family != AF_INET && peer->family != AF_INET6)
		return -EAFNOSUPPORT;
	if (peer->family == AF_INET)
		snprintf(line, sizeof(line),
			 "match 0x%x action tunnel4 src_addr 0x%08" PRIx32 " dst_addr 0x%08" PRIx32
			 " vni 0x%" PRIx32 " wan_port 0x%x vlan 0x%x wan_mac 0x%012" PRIx64
			 " nexthop 0x%08" PRIx32 " mtu 0x%" PRIx32 " geneve_port 0x%x",
			 i, get_be32(peer->src), get_be32(peer->dst), peer->vni, peer->port, wan->vlan,
			 mac_u64(wan->mac.addr_bytes), get_be32(peer->nexthop), wan->mtu,
			 dp->geneve_port);
	else
		snprintf(line, sizeof(line),
			 "match 0x%x action tunnel6 src_addr_hi 0x%016" PRIx64 " src_addr_lo 0x%016" PRIx64
			 " dst_addr_hi 0x%016" PRIx64 " dst_addr_lo 0x%016" PRIx64 " vni 0x%" PRIx32
			 " wan_port 0x%x vlan 0x%x wan_mac 0x%012" PRIx64 " nexthop_hi 0x%016" PRIx64
			 " nexthop_lo 0x%016" PRIx64 " mtu 0x%" PRIx32 " geneve_port 0x%x",
			 i, get_be64(peer->src), get_be64(peer->src + 8), get_be64(peer->dst),
			 get_be64(peer->dst + 8), peer->vni, peer->port, wan->vlan,
			 mac_u64(wan->mac.addr_bytes), get_be64(peer->nexthop),
			 get_be64(peer->nexthop + 8), wan->mtu, dp->geneve_port);
	rc = fn(arg, "peer_tunnel", line, false);
	if (rc != 0)
		return rc;
	if (peer->family == AF_INET)
		snprintf(line, sizeof(line),
			 "match 0x%08" PRIx32 " action decap_peer peer_id 0x%x source_strict 0x%x "
			 "vni 0x%" PRIx32,
			 get_be32(peer->dst), i, peer->source_strict ? 1u : 0u, peer->vni);
	else
		snprintf(line, sizeof(line),
			 "match 0x%016" PRIx64 " 0x%016" PRIx64 " action decap_peer peer_id 0x%x "
			 "source_strict 0x%x vni 0x%" PRIx32,
			 get_be64(peer->dst), get_be64(peer->dst + 8), i, peer->source_strict ? 1u : 0u,
			 peer->vni);
	return fn(arg, peer->family == AF_INET ? "peer_by_remote4" : "peer_by_remote6", line,
		  false);
}

/* Is prefix P configured for any peer of cfg? */
static bool
configured(const struct ls_config *cfg, const struct conf_prefix *p)
{
	unsigned int i, j;

	for (i = 0; i < cfg->n_peers; i++)
		for (j = 0; j < cfg->peers[i].n_prefixes; j++) {
			const struct conf_prefix *c = &cfg->peers[i].prefixes[j];

			if (c->len == p->len && c->addr.family == p->addr.family &&
			    memcmp(c->addr.a, p->addr.a, conf_addr_len(&c->addr)) == 0)
				return true;
		}
	return false;
}

/*
 * The routes learned from peer i's session (lp, or NULL), as the C route
 * tables have them (runtime_dp_build()): a prefix also configured is the
 * config's entry, not a second one.
 */
static int
learned_entries(const struct ls_config *cfg, const struct runtime_learned_peer *lp,
		unsigned int i, p4_tables_entry_fn fn, void *arg)
{
	unsigned int j;
	int rc;

	for (j = 0; lp != NULL && j < lp->n; j++) {
		if (configured(cfg, &lp->p[j]))
			continue;
		rc = lookup_entry(fn, arg, lp->p[j].addr.family, lp->p[j].addr.a, lp->p[j].len,
				  "peer", (int)i);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int
p4_tables_build(const struct ls_config *cfg, const struct dp_conf *dp,
		const struct runtime_learned *learned, p4_tables_entry_fn fn, void *arg)
{
	const struct dp_port *dc = &dp->ports[dp->dc_port];
	char line[384];
	unsigned int i, j;
	int rc;

	for (i = 0; i < dp->n_ports; i++) {
		const struct dp_port *pt = &dp->ports[i];

		if (pt->role == LS_PORT_DC)
			snprintf(line, sizeof(line), "match 0x%x action %s vlan 0x%x mac 0x%012" PRIx64, i,
				 P4_ROLE_DC_ACTION, pt->vlan, mac_u64(pt->mac.addr_bytes));
		else
			snprintf(line, sizeof(line),
				 "match 0x%x action %s vlan 0x%x mac 0x%012" PRIx64 " ip4 0x%08" PRIx32
				 " ip6_hi 0x%016" PRIx64 " ip6_lo 0x%016" PRIx64 " geneve_port 0x%x",
				 i, P4_ROLE_WAN_ACTION, pt->vlan, mac_u64(pt->mac.addr_bytes),
				 pt->has_ip4 ? get_be32((const uint8_t *)&pt->ip4) : 0,
				 pt->has_ip6 ? get_be64(pt->ip6) : 0,
				 pt->has_ip6 ? get_be64(pt->ip6 + 8) : 0, dp->geneve_port);
		rc = fn(arg, "port_role", line, false);
		if (rc != 0)
			return rc;
	}
	rc = martians(fn, arg);
	if (rc != 0)
		return rc;
	if (dc->has_ip4) {
		rc = lookup_entry(fn, arg, AF_INET, (const uint8_t *)&dc->ip4, dc->ip4_prefix_len,
				  "dc_local", -1);
		if (rc != 0)
			return rc;
	}
	if (dc->has_ip6) {
		rc = lookup_entry(fn, arg, AF_INET6, dc->ip6, dc->ip6_prefix_len, "dc_local", -1);
		if (rc != 0)
			return rc;
	}
	for (i = 0; i < dp->n_peers; i++) {
		const struct ls_peer_conf *pc = &cfg->peers[i];

		for (j = 0; j < pc->n_prefixes; j++) {
			rc = lookup_entry(fn, arg, pc->prefixes[j].addr.family, pc->prefixes[j].addr.a,
					  pc->prefixes[j].len, "peer", (int)i);
			if (rc != 0)
				return rc;
		}
		rc = learned_entries(cfg, runtime_learned_find(learned, pc->name), i, fn, arg);
		if (rc != 0)
			return rc;
		rc = peer_tunnel(dp, i, fn, arg);
		if (rc != 0)
			return rc;
	}
	snprintf(line, sizeof(line),
		 "action dc_port port 0x%x vlan 0x%x mac 0x%012" PRIx64 " gateway4 0x%08" PRIx32
		 " gateway6_hi 0x%016" PRIx64 " gateway6_lo 0x%016" PRIx64,
		 dp->dc_port, dc->vlan, mac_u64(dc->mac.addr_bytes),
		 dc->has_gw4 ? get_be32((const uint8_t *)&dc->gw4) : 0,
		 dc->has_gw6 ? get_be64(dc->gw6) : 0, dc->has_gw6 ? get_be64(dc->gw6 + 8) : 0);
	rc = fn(arg, "dc_egress", line, true);
	if (rc != 0)
		return rc;
	for (i = 0; i < cfg->n_ports; i++) {
		rc = neighbours(&cfg->ports[i], fn, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* What -EAFNOSUPPORT from p4_tables_build() means. */
static void
p4_tables_family_error(const struct dp_conf *dp, char *err, size_t err_size)
{
	unsigned int i;

	for (i = 0; i < dp->n_peers; i++)
		if (dp->peers[i].family != AF_INET && dp->peers[i].family != AF_INET6)
			break;
	snprintf(err, err_size, "p4: peer %u: an underlay neither IPv4 nor IPv6", i);
}

struct p4_load {
	struct rte_swx_ctl_pipeline *ctl;
	char *err;
	size_t err_size;
};

static int
p4_load_entry(void *arg, const char *table, const char *line, bool is_default)
{
	struct p4_load *l = arg;
	struct rte_swx_table_entry *e;
	char buf[512];
	int blank = 0, rc;

	snprintf(buf, sizeof(buf), "%s", line);
	e = rte_swx_ctl_pipeline_table_entry_read(l->ctl, table, buf, &blank);
	if (e == NULL) {
		snprintf(l->err, l->err_size, "p4: table %s: entry not understood: %s", table, line);
		return -EINVAL;
	}
	rc = is_default ? rte_swx_ctl_pipeline_table_default_entry_add(l->ctl, table, e)
			: rte_swx_ctl_pipeline_table_entry_add(l->ctl, table, e);
	/* DPDK 22.11 exports no free for what entry_read allocates: its parts
	 * are calloc'd, and the add copied them. */
	free(e->key);
	free(e->key_mask);
	free(e->action_data);
	free(e);
	if (rc != 0)
		snprintf(l->err, l->err_size, "p4: table %s: entry refused (%s): %s", table,
			 strerror(-rc), line);
	return rc;
}

int
p4_tables_load(struct rte_swx_ctl_pipeline *ctl, const struct ls_config *cfg,
	       const struct dp_conf *dp, const struct runtime_learned *learned, char *err,
	       size_t err_size)
{
	struct p4_load l = { .ctl = ctl, .err = err, .err_size = err_size };
	int rc;

	rc = p4_tables_build(cfg, dp, learned, p4_load_entry, &l);
	if (rc == -EAFNOSUPPORT)
		p4_tables_family_error(dp, err, err_size);
	if (rc != 0) {
		rte_swx_ctl_pipeline_abort(ctl);
		return rc;
	}
	rc = rte_swx_ctl_pipeline_commit(ctl, 1);
	if (rc != 0)
		snprintf(err, err_size, "p4: commit failed (%s); the running tables stay",
			 strerror(-rc));
	return rc;
}

struct p4_check {
	struct rte_swx_pipeline *pl;
	char *err;
	size_t err_size;
};

/* Whether table has action name, for regular entries or for its default. */
static int
p4_check_entry(void *arg, const char *table, const char *line, bool is_default)
{
	struct p4_check *k = arg;
	struct rte_swx_ctl_pipeline_info pi;
	const char *at = strstr(line, "action ");
	char name[RTE_SWX_NAME_SIZE];
	uint32_t t, a;
	size_t n;

	if (at == NULL)
		return 0;
	at += strlen("action ");
	n = strcspn(at, " ");
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, at, n);
	name[n] = '\0';
	if (rte_swx_ctl_pipeline_info_get(k->pl, &pi) != 0)
		return -EINVAL;
	for (t = 0; t < pi.n_tables; t++) {
		struct rte_swx_ctl_table_info ti;

		if (rte_swx_ctl_table_info_get(k->pl, t, &ti) != 0 || strcmp(ti.name, table) != 0)
			continue;
		for (a = 0; a < ti.n_actions; a++) {
			struct rte_swx_ctl_table_action_info tai;
			struct rte_swx_ctl_action_info ai;

			if (rte_swx_ctl_table_action_info_get(k->pl, t, a, &tai) == 0 &&
			    rte_swx_ctl_action_info_get(k->pl, tai.action_id, &ai) == 0 &&
			    strcmp(ai.name, name) == 0 &&
			    (is_default ? tai.action_is_for_default_entry :
					  tai.action_is_for_table_entries))
				return 0;
		}
		snprintf(k->err, k->err_size, "p4: table %s has no action %s%s (the spec does not "
			 "fit the configuration): %s", table, name,
			 is_default ? " for its default entry" : "", line);
		return -EINVAL;
	}
	snprintf(k->err, k->err_size, "p4: the spec has no table %s (the configuration fills it)",
		 table);
	return -EINVAL;
}

int
p4_tables_check(struct rte_swx_pipeline *pl, const struct ls_config *cfg,
		const struct dp_conf *dp, const struct runtime_learned *learned, char *err,
		size_t err_size)
{
	struct p4_check k = { .pl = pl, .err = err, .err_size = err_size };
	int rc = p4_tables_build(cfg, dp, learned, p4_check_entry, &k);

	if (rc == -EAFNOSUPPORT)
		p4_tables_family_error(dp, err, err_size);
	return rc;
}

int
p4_tables_flow_timeout(struct rte_swx_pipeline *pl, const struct ls_config *cfg, char *err,
		       size_t err_size)
{
	uint64_t s = cfg->cong.flow_idle_ns / P4_NS_PER_S;
	struct rte_swx_ctl_pipeline_info pi;
	uint32_t l;
	int rc;

	if (rte_swx_ctl_pipeline_info_get(pl, &pi) != 0)
		return -EINVAL;
	for (l = 0; l < pi.n_learners; l++) {
		struct rte_swx_ctl_learner_info li;

		if (rte_swx_ctl_learner_info_get(pl, l, &li) != 0 ||
		    strcmp(li.name, P4_FLOW_LEARNER) != 0)
			continue;
		/* The config check let through only whole seconds of 1 to 3600. */
		rc = rte_swx_ctl_pipeline_learner_timeout_set(pl, l, P4_FLOW_TIMEOUT_ID,
							      (uint32_t)s);
		if (rc != 0)
			snprintf(err, err_size,
				 "p4: learner %s: timeout %" PRIu64 " s refused (%s): [congestion] "
				 "flow_idle",
				 P4_FLOW_LEARNER, s, strerror(-rc));
		return rc;
	}
	snprintf(err, err_size,
		 "p4: the spec has no learner %s ([congestion] flow_idle sets its timeout)",
		 P4_FLOW_LEARNER);
	return -EINVAL;
}
