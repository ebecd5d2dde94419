/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The running gateway: turning a validated config into a dataplane
 * snapshot, publishing it to the workers under RCU, live reload, and the
 * control thread's loop (punted packets, neighbour upkeep, API).
 */
#include "runtime.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_random.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "config_cc.h"
#include "hook_set.h"
#include "measure_prom.h"
#include "prom_server.h"
#include "l2.h"
#include "lossless_conf.h"
#include "p4_pipeline.h"
#include "peering.h"
#include "congestion/cc_params.h"
#include "dataplane/neigh.h"
#include "dataplane/tsc.h"

static_assert(LS_MBUF_HEADROOM_BYTES == RTE_PKTMBUF_HEADROOM,
	      "config's mbuf_data_size range assumes DPDK's headroom");
static_assert((int)LS_MARKER_NONE == (int)ECN_MARKER_NONE && (int)LS_MARKER_RED == (int)ECN_MARKER_RED &&
		      (int)LS_MARKER_SOJOURN == (int)ECN_MARKER_SOJOURN &&
		      (int)LS_MARKER_PHANTOM == (int)ECN_MARKER_PHANTOM,
	      "config marker kinds are the congestion core's");

uint64_t
runtime_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* fe80::/64 with the modified EUI-64 interface id of mac (RFC 4291 2.5.1). */
static void
runtime_link_local(const struct rte_ether_addr *mac, uint8_t *ip)
{
	memset(ip, 0, 16);
	ip[0] = 0xfe;
	ip[1] = 0x80;
	ip[8] = mac->addr_bytes[0] ^ 0x02;
	ip[9] = mac->addr_bytes[1];
	ip[10] = mac->addr_bytes[2];
	ip[11] = 0xff;
	ip[12] = 0xfe;
	ip[13] = mac->addr_bytes[3];
	ip[14] = mac->addr_bytes[4];
	ip[15] = mac->addr_bytes[5];
}

static bool
runtime_on_link(const struct conf_prefix *net, const struct conf_addr *a)
{
	unsigned int full = net->len / 8, rem = net->len % 8;

	if (net->addr.family != a->family)
		return false;
	if (memcmp(net->addr.a, a->a, full) != 0)
		return false;
	return rem == 0 || ((net->addr.a[full] ^ a->a[full]) & (uint8_t)(0xff << (8 - rem))) == 0;
}

/* Shaper depth: enough for a few MTU frames and ~10 us at the link rate. */
#define RUNTIME_SHAPER_BURST_NS 10000u
#define RUNTIME_LEARN_PROBE 16u
#define RUNTIME_LEARN_PSN_WINDOW (1u << 20)
/* Mechanism C shapes toward the DC at this rate when the DC port has none. */
#define RUNTIME_DC_DEFAULT_BPS UINT64_C(100000000000)
/* Mechanisms A and C without a WAN traffic manager: any RTT (100 km). */
#define RUNTIME_MECH_RTT_NS UINT64_C(1000000)

/*
 * Traffic manager settings of a WAN port: the congestion/ parameter
 * function turns its link rate and the largest RTT of its peers into
 * buffer size and marking thresholds, unless [congestion] sets them.
 */
static int
runtime_tm_build(const struct ls_runtime *rt, const struct ls_config *cfg, unsigned int port,
		 struct dp_tm_conf *tm, FILE *err)
{
	const struct ls_port_conf *pc = &cfg->ports[port];
	const struct ls_congestion_conf *cg = &cfg->cong;
	struct cc_overrides ov;
	struct cc_link link;
	const char *why = NULL;
	uint64_t burst, rtt_ns = 0;
	unsigned int i;
	int rc;

	memset(tm, 0, sizeof(*tm));
	/* The longest RTT of the port's peers; measured for rtt = auto (measure.h). */
	for (i = 0; i < cfg->n_peers; i++)
		if (cfg->peers[i].port_index == (int)port && measure_rtt_ns(&rt->meas, cfg, i) > rtt_ns)
			rtt_ns = measure_rtt_ns(&rt->meas, cfg, i);
	config_cc_inputs(cfg, port, rtt_ns, &link, &ov);
	if (link.rate_bps == 0 || link.rtt_ns == 0)
		return 0; /* no link rate: no shaping, no marking */
	rc = cc_params_resolve(&link, &ov, &tm->derived, &why);
	if (rc != 0) {
		fprintf(err, "%s: [congestion] port '%s': %s\n", cfg->path, pc->name,
			why != NULL ? why : "parameters rejected");
		return rc;
	}
	burst = RTE_MAX((uint64_t)3 * (pc->mtu + 100), link.rate_bps / 8 * RUNTIME_SHAPER_BURST_NS /
							 1000000000u);
	rc = token_bucket_config_init(&tm->shaper, link.rate_bps, burst, tsc_hz());
	if (rc != 0) {
		fprintf(err, "%s: [port %s] link_rate: cannot shape at %" PRIu64 " b/s\n", cfg->path,
			pc->name, link.rate_bps);
		return rc;
	}
	tm->enabled = true;
	tm->buffer_bytes = tm->derived.buffer_bytes;
	cc_params_marker(&tm->derived, (enum ecn_marker_kind)cg->marker, false, &tm->marker);
	tm->mark_at_dequeue = cg->marker == LS_MARKER_SOJOURN;
	return 0;
}

/*
 * The derived settings mechanisms A and C take: those of the first WAN
 * port with a traffic manager, else a derivation for the DC port's rate,
 * with the same [congestion] overrides. Their values follow the DC side
 * only, so the WAN RTT there is any valid one (1 ms, 100 km).
 */
static int
runtime_mech_params(const struct ls_config *cfg, const struct dp_conf *c,
		    struct cc_derived *out, FILE *err)
{
	struct cc_overrides ov;
	struct cc_link link;
	const char *why = NULL;
	unsigned int i;

	for (i = 0; i < c->n_ports; i++)
		if (c->tm[i].enabled) {
			*out = c->tm[i].derived;
			return 0;
		}
	config_cc_inputs(cfg, cfg->dc_port >= 0 ? (unsigned int)cfg->dc_port : 0,
			 RUNTIME_MECH_RTT_NS, &link, &ov);
	if (link.rate_bps == 0)
		link.rate_bps = RUNTIME_DC_DEFAULT_BPS;
	if (cc_params_resolve(&link, &ov, out, &why) != 0) {
		fprintf(err, "%s: [congestion]: %s\n", cfg->path,
			why != NULL ? why : "parameters rejected");
		return -EINVAL;
	}
	return 0;
}

/* Mechanisms A and C: one setting for every worker. */
static int
runtime_mech_build(const struct ls_config *cfg, const struct dp_conf *c, struct dp_mech_conf *m,
		   FILE *err)
{
	const struct ls_congestion_conf *cg = &cfg->cong;
	uint64_t dc_rate = cfg->ports[cfg->dc_port].link_rate_bps;
	struct proxy_cnp_params cp;
	struct cc_derived d;
	struct trp_params tp;

	memset(m, 0, sizeof(*m));
	if (runtime_mech_params(cfg, c, &d, err) != 0)
		return -EINVAL;
	m->mechanisms = cg->mechanisms;
	m->cnp_dscp = cg->cnp_dscp;
	m->flow_idle_ns = cg->flow_idle_ns;
	m->learn.idle_ns = cg->flow_idle_ns;
	m->learn.max_probe = RUNTIME_LEARN_PROBE;
	m->learn.psn_window = RUNTIME_LEARN_PSN_WINDOW;
	cp = (struct proxy_cnp_params){
		.interval_ns = d.cnp_interval_ns,
		.ce_policy = cg->ce_clear ? PROXY_CNP_CE_CLEAR_COVERED : PROXY_CNP_CE_KEEP,
	};
	if (proxy_cnp_config_init(&m->cnp, &cp) != 0) {
		fprintf(err, "%s: [congestion] cnp_interval: rejected\n", cfg->path);
		return -EINVAL;
	}
	/*
	 * Mechanism C's policy: the upstream-CE window of congestion/gw_mech.h
	 * for the DC RTT the derivation used (the simulator's default too),
	 * and whether the receiver CNPs it acts on go on to the sender.
	 */
	m->c_policy.upstream_ce_window_ns = gw_mech_c_upstream_ce_window_default_ns(d.dc_rtt_ns);
	m->c_policy.forward_cnp = cg->cnp_forward;
	m->c_policy.cnp_gap_ns = cg->cnp_forward_gap_ns;
	m->c_policy.forward_backlog_bytes = cg->cnp_forward_backlog_bytes;
	trp_params_default(&tp, dc_rate != 0 ? dc_rate : RUNTIME_DC_DEFAULT_BPS, d.hold_ns);
	tp.cut_interval_ns = d.cut_interval_ns;
	if (trp_config_init(&m->trp, &tp) != 0) {
		fprintf(err, "%s: [congestion] hold, cut_interval: mechanism C parameters rejected\n",
			cfg->path);
		return -EINVAL;
	}
	return 0;
}

void
runtime_dp_free(struct dp_conf *c)
{
	if (c == NULL)
		return;
	rte_lpm_free(c->lpm4);
	rte_lpm6_free(c->lpm6);
	rte_free(c);
}

static int
runtime_route_add(struct dp_conf *c, const struct conf_prefix *pf, unsigned int peer)
{
	uint32_t a;

	if (pf->addr.family == AF_INET) {
		memcpy(&a, pf->addr.a, 4);
		return rte_lpm_add(c->lpm4, rte_be_to_cpu_32(a), pf->len, peer);
	}
	return rte_lpm6_add(c->lpm6, pf->addr.a, pf->len, peer);
}

int
runtime_dp_build(struct ls_runtime *rt, const struct ls_config *cfg, struct dp_conf **out,
		 FILE *err)
{
	static uint64_t generation;
	const struct runtime_learned_peer *learned;
	unsigned int i, j, n4 = 0, n6 = 0;
	struct dp_conf *c;
	char name[RTE_LPM_NAMESIZE];
	int rc = 0;

	c = rte_zmalloc("ls_dp_conf", sizeof(*c), RTE_CACHE_LINE_SIZE);
	if (c == NULL) {
		fprintf(err, "dataplane: out of memory for the config snapshot\n");
		return -ENOMEM;
	}
	c->generation = ++generation;
	/* The running P4 pipelines stay with a rebuilt snapshot (learned routes);
	 * runtime_p4_prepare() replaces them on a reload. */
	p4_set_attach(rt->p4, c);
	c->n_ports = (uint16_t)cfg->n_ports;
	c->dc_port = (uint16_t)cfg->dc_port;
	c->n_peers = (uint16_t)cfg->n_peers;
	c->geneve_port = cfg->gw.geneve_port;
	c->burst = (uint16_t)RTE_MIN(cfg->gw.burst, (unsigned int)DP_MAX_BURST);
	c->probe_interval_ns = cfg->gw.probe_interval_ns;

	for (i = 0; i < cfg->n_ports; i++) {
		const struct ls_port_conf *pc = &cfg->ports[i];
		struct dp_port *pt = &c->ports[i];

		pt->port_id = rt->port_ids[i];
		pt->role = (uint8_t)pc->role;
		pt->vlan = pc->vlan;
		pt->mtu = pc->mtu;
		pt->link_rate_bps = pc->link_rate_bps;
		pt->neigh = rt->neigh[i];
		pt->stopped = port_restart_stopped(&rt->port_restart[i]);
		/* The configured MAC is the port's identity even when the device keeps its own. */
		if (pc->mac_set)
			memcpy(pt->mac.addr_bytes, pc->mac, 6);
		else if (rte_eth_macaddr_get(pt->port_id, &pt->mac) != 0)
			fprintf(err, "port '%s': cannot read the device MAC\n", pc->name);
		runtime_link_local(&pt->mac, pt->ip6_ll);
		if (pc->ipv4.addr.family == AF_INET) {
			pt->has_ip4 = 1;
			memcpy(&pt->ip4, pc->ipv4.addr.a, 4);
			pt->ip4_prefix_len = pc->ipv4.len;
		}
		if (pc->ipv6.addr.family == AF_INET6) {
			pt->has_ip6 = 1;
			memcpy(pt->ip6, pc->ipv6.addr.a, 16);
			pt->ip6_prefix_len = pc->ipv6.len;
		}
		if (pc->gateway4.family == AF_INET) {
			pt->has_gw4 = 1;
			memcpy(&pt->gw4, pc->gateway4.a, 4);
		}
		if (pc->gateway6.family == AF_INET6) {
			pt->has_gw6 = 1;
			memcpy(pt->gw6, pc->gateway6.a, 16);
		}
	}

	for (i = 0; i < cfg->n_peers; i++) {
		const struct ls_peer_conf *pc = &cfg->peers[i];
		const struct ls_port_conf *wan = &cfg->ports[pc->port_index];
		const struct conf_prefix *net = pc->remote.family == AF_INET ? &wan->ipv4 : &wan->ipv6;
		const struct conf_addr *gw = pc->remote.family == AF_INET ? &wan->gateway4 : &wan->gateway6;
		struct dp_peer *dp = &c->peers[i];

		dp->port = (uint16_t)pc->port_index;
		dp->family = pc->remote.family;
		dp->vni = pc->vni;
		dp->rtt_ns = measure_rtt_ns(&rt->meas, cfg, i);
		dp->source_strict = pc->source_check == LS_SOURCE_STRICT;
		dp->csum_verify = pc->udp_checksum == LS_UDP_CSUM_VERIFY;
		dp->zero_csum6_ok = pc->ipv6_zero_checksum == LS_ZERO_CSUM6_ACCEPT;
		dp->credit = pc->lossless == LS_LOSSLESS_CREDIT;


		snprintf(dp->name, sizeof(dp->name), "%s", pc->name);
		memcpy(dp->dst, pc->remote.a, 16);
		if (pc->local.family != 0)
			memcpy(dp->src, pc->local.a, 16);
		else
			memcpy(dp->src, net->addr.a, 16);
		dp_peer_template(dp, &c->ports[dp->port], c->geneve_port);
		if (runtime_on_link(net, &pc->remote)) {
			memcpy(dp->nexthop, pc->remote.a, 16);
		} else if (gw->family == pc->remote.family) {
			memcpy(dp->nexthop, gw->a, 16);
		} else {
			fprintf(err, "%s:%u: [peer %s] remote: not on port '%s''s subnet and the port has no gateway%s\n",
				cfg->path, pc->line, pc->name, wan->name,
				pc->remote.family == AF_INET ? "4" : "6");
			rc = -EINVAL;
		}
		for (j = 0; j < pc->n_prefixes; j++) {
			if (pc->prefixes[j].addr.family == AF_INET)
				n4++;
			else
				n6++;
		}
		learned = runtime_learned_find(rt->learned, pc->name);
		for (j = 0; learned != NULL && j < learned->n; j++) {
			if (learned->p[j].addr.family == AF_INET)
				n4++;
			else
				n6++;
		}
	}
	if (rc != 0)
		goto fail;
	for (i = 0; i < cfg->n_ports; i++) {
		if (cfg->ports[i].role != LS_PORT_WAN)
			continue;
		rc = runtime_tm_build(rt, cfg, i, &c->tm[i], err);
		if (rc != 0)
			goto fail;
	}
	rc = runtime_mech_build(cfg, c, &c->mech, err);
	if (rc != 0)
		goto fail;
	rc = lossless_conf_build(cfg, c, &c->lossless, err);
	if (rc != 0)
		goto fail;

	if (n4 > 0) {
		struct rte_lpm_config lc = {
			.max_rules = n4 + 16,
			.number_tbl8s = 256 + 4 * n4,
		};

		snprintf(name, sizeof(name), "ls4_%" PRIu64, c->generation);
		c->lpm4 = rte_lpm_create(name, (int)rte_socket_id(), &lc);
		if (c->lpm4 == NULL) {
			fprintf(err, "dataplane: cannot create the IPv4 route table: %s\n",
				rte_strerror(rte_errno));
			rc = -rte_errno;
			goto fail;
		}
	}
	if (n6 > 0) {
		struct rte_lpm6_config lc = {
			.max_rules = n6 + 16,
			.number_tbl8s = 64 + 16 * n6,
		};

		snprintf(name, sizeof(name), "ls6_%" PRIu64, c->generation);
		c->lpm6 = rte_lpm6_create(name, (int)rte_socket_id(), &lc);
		if (c->lpm6 == NULL) {
			fprintf(err, "dataplane: cannot create the IPv6 route table: %s\n",
				rte_strerror(rte_errno));
			rc = -rte_errno;
			goto fail;
		}
	}
	for (i = 0; i < cfg->n_peers; i++) {
		learned = runtime_learned_find(rt->learned, cfg->peers[i].name);
		for (j = 0; learned != NULL && j < learned->n; j++) {
			rc = runtime_route_add(c, &learned->p[j], i);
			if (rc != 0) {
				fprintf(err, "peer '%s': cannot add a learned route: %s\n",
					cfg->peers[i].name, rte_strerror(-rc));
				goto fail;
			}
		}
	}
	for (i = 0; i < cfg->n_peers; i++) {
		const struct ls_peer_conf *pc = &cfg->peers[i];

		for (j = 0; j < pc->n_prefixes; j++) {
			const struct conf_prefix *pf = &pc->prefixes[j];

			if (pf->addr.family == AF_INET) {
				uint32_t a;

				memcpy(&a, pf->addr.a, 4);
				rc = rte_lpm_add(c->lpm4, rte_be_to_cpu_32(a), pf->len, i);
			} else {
				rc = rte_lpm6_add(c->lpm6, pf->addr.a, pf->len, i);
			}
			if (rc != 0) {
				fprintf(err, "%s:%u: [peer %s] prefix: cannot add route: %s\n", cfg->path,
					pc->line, pc->name, rte_strerror(-rc));
				goto fail;
			}
		}
	}
	*out = c;
	return 0;

fail:
	runtime_dp_free(c);
	return rc;
}

/* Install the config's static neighbours; older static ones become learned. */
static void
runtime_static_neigh(struct ls_runtime *rt, const struct ls_config *cfg, uint64_t now_ns)
{
	unsigned int i, j;

	for (i = 0; i < cfg->n_ports; i++) {
		struct neigh_table *nt = rt->neigh[i];

		for (j = 0; j < NEIGH_TABLE_SIZE; j++) {
			struct neigh_entry *e = &nt->e[j];

			if (e->state == NEIGH_STATIC) {
				rte_seqcount_write_begin(&e->sc);
				e->state = NEIGH_VALID;
				rte_seqcount_write_end(&e->sc);
				e->updated_ns = now_ns;
			}
		}
		for (j = 0; j < cfg->ports[i].n_neigh; j++) {
			const struct ls_static_neigh *sn = &cfg->ports[i].neigh[j];
			struct rte_ether_addr mac;

			memcpy(mac.addr_bytes, sn->mac, 6);
			neigh_update(nt, sn->ip.family, sn->ip.a, &mac, true, now_ns);
		}
	}
}

uint64_t
runtime_workers_ns(const struct ls_runtime *rt)
{
	const struct dp_worker *w = rt->n_workers > 0 ? rt->workers[0] : NULL;

	if (w == NULL || w->tsc_hz == 0)
		return runtime_now_ns();
	return w->ns_base + (uint64_t)((unsigned __int128)(rte_rdtsc() - w->tsc_base) *
				       1000000000u / w->tsc_hz);
}

int
runtime_hooks_prepare(struct ls_runtime *rt, const struct ls_config *cfg, struct dp_conf *dp,
		      FILE *err)
{
	struct hook_set_env env = {
		.gateway = cfg->gw.name,
		.n_workers = rt->n_workers,
		.workers = (const struct dp_worker *const *)rt->workers,
		.now_ns = runtime_workers_ns(rt),
		.prom = rt->prom,
	};
	struct hook_set *s;
	int rc;

	rc = hook_set_build(cfg, rt->hooks, &env, &s, err);
	if (rc != 0)
		return rc;
	for (unsigned int w = 0; w < rt->n_workers; w++)
		dp->hooks[w] = hook_set_worker(s, w);
	rt->hooks_next = s;
	return 0;
}

int
runtime_p4_prepare(struct ls_runtime *rt, const struct ls_config *cfg, struct dp_conf *dp,
		   FILE *err)
{
	int numa[DP_MAX_WORKERS];
	struct p4_set *s;
	unsigned int w;
	int rc;

	p4_set_attach(NULL, dp);
	if (cfg->gw.pipeline != LS_PIPELINE_P4)
		return 0;
	for (w = 0; w < rt->n_workers; w++)
		numa[w] = rt->workers[w] != NULL ? (int)rte_lcore_to_socket_id(rt->workers[w]->lcore) :
						   SOCKET_ID_ANY;
	rc = p4_set_build(cfg, dp, rt->learned, rt->n_workers, numa, rt->p4, &s, err);
	if (rc != 0)
		return rc;
	p4_set_attach(s, dp);
	p4_set_free(rt->p4_next);
	rt->p4_next = s;
	return 0;
}

void
runtime_p4_discard(struct ls_runtime *rt)
{
	p4_set_free(rt->p4_next);
	rt->p4_next = NULL;
}

void
runtime_publish(struct ls_runtime *rt, struct ls_config *cfg, struct dp_conf *dp)
{
	struct ls_config *old_cfg = rt->cfg;
	struct dp_conf *old_dp = rt->dp;
	struct hook_set *old_hooks = rt->hooks;
	struct p4_set *old_p4 = rt->p4;

	runtime_static_neigh(rt, cfg, runtime_now_ns());
	pthread_mutex_lock(&rt->cfg_lock);
	rt->cfg = cfg;
	__atomic_store_n(&rt->dp, dp, __ATOMIC_RELEASE);
	rt->hooks = rt->hooks_next;
	rt->hooks_next = NULL;
	rt->p4 = rt->p4_next;
	rt->p4_next = NULL;
	pthread_mutex_unlock(&rt->cfg_lock);
	/*
	 * Wait until no worker can still hold the old snapshot, nor call a
	 * program of the old hooks (they are reached only through it).
	 */
	if (old_dp != NULL && rt->rcu != NULL)
		rte_rcu_qsbr_synchronize(rt->rcu, RTE_QSBR_THRID_INVALID);
	hook_set_retire(old_hooks, rt->hooks, runtime_workers_ns(rt));
	if (rt->hooks == NULL && rt->prom != NULL)
		prom_server_set(rt->prom, PROM_SECTION_HOOKS, NULL, 0); /* no hooks, no hook metrics */
	if (old_p4 != rt->p4)
		p4_set_free(old_p4);
	runtime_dp_free(old_dp);
	free(old_cfg);
}

void
runtime_publish_dp(struct ls_runtime *rt, struct dp_conf *dp)
{
	struct dp_conf *old_dp = rt->dp;
	struct p4_set *old_p4 = rt->p4;

	/* Same config, so the same hooks: runtime_dp_build() leaves them to the caller. */
	if (old_dp != NULL)
		memcpy(dp->hooks, old_dp->hooks, sizeof(dp->hooks));
	pthread_mutex_lock(&rt->cfg_lock);
	__atomic_store_n(&rt->dp, dp, __ATOMIC_RELEASE);
	if (rt->p4_next != NULL) { /* runtime_republish(): new program tables */
		rt->p4 = rt->p4_next;
		rt->p4_next = NULL;
	}
	pthread_mutex_unlock(&rt->cfg_lock);
	if (old_dp != NULL && rt->rcu != NULL)
		rte_rcu_qsbr_synchronize(rt->rcu, RTE_QSBR_THRID_INVALID);
	if (old_p4 != rt->p4)
		p4_set_free(old_p4);
	runtime_dp_free(old_dp);
}

int
runtime_republish(struct ls_runtime *rt, const struct ls_config *cfg, FILE *err)
{
	struct dp_conf *dp = NULL;
	int rc;

	rc = runtime_dp_build(rt, cfg, &dp, err);
	/* The program's route tables hold the learned routes too: new pipelines. */
	if (rc == 0 && cfg->gw.pipeline == LS_PIPELINE_P4)
		rc = runtime_p4_prepare(rt, cfg, dp, err);
	if (rc != 0) {
		runtime_p4_discard(rt);
		runtime_dp_free(dp);
		return rc;
	}
	runtime_publish_dp(rt, dp);
	return 0;
}

int
runtime_prom_start(struct ls_runtime *rt, FILE *err)
{
	const struct ls_telemetry_conf *t = &rt->cfg->tel;
	char host[INET6_ADDRSTRLEN], msg[256];
	struct prom_server_params pp = { host, t->prom_port };

	if (t->prometheus[0] == '\0')
		return 0;
	inet_ntop(t->prom_addr.family, t->prom_addr.a, host, sizeof(host));
	rt->prom = prom_server_start(&pp, msg, sizeof(msg));
	if (rt->prom == NULL) {
		fprintf(err, "%s: [telemetry] prometheus: %s\n", rt->cfg->path, msg);
		return -EINVAL;
	}
	return 0;
}

/* The measurement as the endpoint's peer section (the control thread writes rt->meas). */
static void
runtime_prom_peers(struct ls_runtime *rt)
{
	size_t len;
	char *text;

	if (rt->prom == NULL)
		return;
	text = measure_prom_render(&rt->meas, rt->cfg, rt->workers, rt->n_workers, &len);
	if (text != NULL)
		prom_server_set(rt->prom, PROM_SECTION_PEERS, text, len);
}

void
runtime_measure_tick(struct ls_runtime *rt, uint64_t now_ns)
{
	struct dp_conf *dp = NULL;
	bool changed;

	if (rt->cfg == NULL)
		return;
	if (now_ns >= rt->meas.next_read_ns && now_ns < rt->meas.next_ns) {
		rt->meas.next_read_ns = now_ns + MEASURE_READ_NS;
		pthread_mutex_lock(&rt->cfg_lock);
		measure_read(&rt->meas, rt->cfg, rt->workers, rt->n_workers);
		pthread_mutex_unlock(&rt->cfg_lock);
	}
	if (now_ns < rt->meas.next_ns)
		return;
	rt->meas.next_ns = now_ns + rt->cfg->gw.measure_interval_ns;
	pthread_mutex_lock(&rt->cfg_lock);
	changed = measure_interval(&rt->meas, rt->cfg, rt->workers, rt->n_workers,
				   runtime_now_ns(), stderr);
	pthread_mutex_unlock(&rt->cfg_lock);
	runtime_prom_peers(rt);
	if (!changed)
		return;
	/* Thresholds, buffers, CNP interval and hold from the new RTT; the hooks stay. */
	if (runtime_dp_build(rt, rt->cfg, &dp, stderr) != 0) {
		rt->meas.republish_failed++;
		fprintf(stderr, "rtt auto: the snapshot with the measured RTT was refused; "
				"the running parameters stay\n");
		runtime_dp_free(dp);
		return;
	}
	runtime_publish_dp(rt, dp);
}

/* Keys that need a restart: compare and name the first one that changed. */
static const char *
runtime_restart_key(const struct ls_config *a, const struct ls_config *b, char *buf, size_t size)
{
	unsigned int i;

	if (a->n_ports != b->n_ports)
		return "[port]: ports added or removed";
	for (i = 0; i < a->n_ports; i++) {
		const struct ls_port_conf *x = &a->ports[i], *y = &b->ports[i];
		const char *key = NULL;

		if (strcmp(x->name, y->name) != 0)
			key = "name";
		else if (strcmp(x->dev, y->dev) != 0)
			key = "dev";
		else if (x->role != y->role)
			key = "role";
		else if (x->mac_set != y->mac_set || memcmp(x->mac, y->mac, 6) != 0)
			key = "mac";
		else if (x->rx_desc != y->rx_desc)
			key = "rx_desc";
		else if (x->tx_desc != y->tx_desc)
			key = "tx_desc";
		if (key != NULL) {
			snprintf(buf, size, "[port %s] %s", x->name, key);
			return buf;
		}
	}
	if (a->gw.pipeline != b->gw.pipeline)
		return "[gateway] pipeline";
	if (a->gw.workers != b->gw.workers)
		return "[gateway] workers";
	if (a->gw.mbufs != b->gw.mbufs)
		return "[gateway] mbufs";
	if (a->gw.mbuf_data_size != b->gw.mbuf_data_size)
		return "[gateway] mbuf_data_size";
	if (a->gw.clock_offset_ns != b->gw.clock_offset_ns)
		return "[gateway] clock_offset";
	if (strcmp(a->gw.socket_path, b->gw.socket_path) != 0)
		return "[gateway] socket";
	if (strcmp(a->tel.prometheus, b->tel.prometheus) != 0)
		return "[telemetry] prometheus";
	if (memcmp(&a->eal, &b->eal, sizeof(a->eal)) != 0)
		return "[eal]";
	return NULL;
}

int
runtime_reload(struct ls_runtime *rt, const char *path, FILE *err)
{
	struct ls_config *cfg;
	struct dp_conf *dp = NULL;
	const char *key;
	char buf[96];
	int rc;

	cfg = calloc(1, sizeof(*cfg));
	if (cfg == NULL) {
		fprintf(err, "reload: out of memory\n");
		rt->reloads_failed++;
		return -ENOMEM;
	}
	rc = config_load(path != NULL && path[0] != '\0' ? path : rt->cfg->path, cfg, err);
	if (rc != 0)
		goto fail;
	key = runtime_restart_key(rt->cfg, cfg, buf, sizeof(buf));
	if (key != NULL) {
		fprintf(err, "reload: %s changed: this needs a restart; running config kept\n", key);
		rc = -EINVAL;
		goto fail;
	}
	rc = runtime_dp_build(rt, cfg, &dp, err);
	if (rc != 0)
		goto fail;
	rc = runtime_p4_prepare(rt, cfg, dp, err);
	if (rc != 0) {
		fprintf(err, "reload: running config and P4 pipeline kept\n");
		runtime_dp_free(dp);
		goto fail;
	}
	rc = runtime_hooks_prepare(rt, cfg, dp, err);
	if (rc != 0) {
		fprintf(err, "reload: running config and hooks kept\n");
		runtime_p4_discard(rt);
		runtime_dp_free(dp);
		goto fail;
	}
	runtime_publish(rt, cfg, dp);
	rt->reloads_ok++;
	config_warn(cfg, err);
	/* Peers added or removed, credentials rotated, learned routes checked again. */
	peering_reload(rt, err);
	return 0;

fail:
	free(cfg);
	rt->reloads_failed++;
	return rc;
}

/* Packets a WAN class queue can hold: a BDP of small packets, within reason. */
static uint32_t
runtime_tm_capacity(const struct ls_config *cfg)
{
	uint64_t bdp = 0, pkts;
	unsigned int i;

	for (i = 0; i < cfg->n_peers; i++) {
		const struct ls_port_conf *wan = &cfg->ports[cfg->peers[i].port_index];
		/*
		 * rtt = auto may later derive a larger buffer than its start:
		 * room for a 10 ms RTT (1000 km) at least; a longer measured
		 * path's queue is then bounded by these rings, not the buffer.
		 */
		uint64_t rtt = cfg->peers[i].rtt_auto && cfg->peers[i].rtt_ns < 10000000u ?
				       10000000u : cfg->peers[i].rtt_ns;
		uint64_t b = wan->link_rate_bps / 8 * rtt / 1000000000u;

		if (b > bdp)
			bdp = b;
	}
	if (cfg->cong.buffer_bytes > bdp)
		bdp = cfg->cong.buffer_bytes;
	pkts = bdp / 256 + 1024;
	if (pkts > (1u << 20))
		pkts = 1u << 20;
	return rte_align32pow2((uint32_t)pkts);
}

int
runtime_worker_state_alloc(const struct ls_config *cfg, struct dp_worker *w, FILE *err)
{
	struct qpn_learn_params lp = {
		.idle_ns = cfg->cong.flow_idle_ns,
		.max_probe = RUNTIME_LEARN_PROBE,
		.psn_window = RUNTIME_LEARN_PSN_WINDOW,
	};
	uint32_t flows = rte_align32pow2(cfg->gw.flows);
	uint32_t cap = runtime_tm_capacity(cfg);
	int socket = (int)rte_lcore_to_socket_id(w->lcore);
	unsigned int p, q;
	void *mem;

	mem = rte_zmalloc_socket("ls_flows", flow_table_mem_size(flows), RTE_CACHE_LINE_SIZE, socket);
	if (mem == NULL)
		goto nomem;
	flow_table_init(&w->flows, mem, flows, cfg->cong.flow_idle_ns);
	mem = rte_zmalloc_socket("ls_learn", qpn_learn_mem_size(flows), RTE_CACHE_LINE_SIZE, socket);
	if (mem == NULL || qpn_learn_init(&w->learn_src, mem, flows, &lp) != 0)
		goto nomem;
	mem = rte_zmalloc_socket("ls_learn", qpn_learn_mem_size(flows), RTE_CACHE_LINE_SIZE, socket);
	if (mem == NULL || qpn_learn_init(&w->learn_dst, mem, flows, &lp) != 0)
		goto nomem;
	mem = rte_zmalloc_socket("ls_hold", sizeof(struct rte_mbuf *) * HOLD_SLOTS * HOLD_QUEUE,
				 RTE_CACHE_LINE_SIZE, socket);
	if (mem == NULL)
		goto nomem;
	hold_init(&w->hold, mem);
	mem = rte_zmalloc_socket("ls_dc_pfc", sizeof(struct rte_mbuf *) * PFC_PRIORITIES * DC_PFC_QUEUE,
				 RTE_CACHE_LINE_SIZE, socket);
	if (mem == NULL)
		goto nomem;
	dc_pfc_init(&w->dc_pfc, mem);
	/* The hook contexts' per-worker fields, once (dataplane/hook.h). */
	dp_hook_io_init(&w->hook, (uint16_t)w->lcore);
	/* The sender epoch of the credit hop: new on every start (congestion/credit.h). */
	wan_credit_init(&w->credit, (uint32_t)rte_rand());
	for (p = 0; p < cfg->n_ports; p++) {
		if (cfg->ports[p].role != LS_PORT_WAN)
			continue;
		w->tm[p].tsc_hz = tsc_hz();
		for (q = 0; q < DP_TM_CLASS_MAX; q++) {
			mem = rte_zmalloc_socket("ls_tm", sizeof(struct rte_mbuf *) * cap,
						 RTE_CACHE_LINE_SIZE, socket);
			if (mem == NULL)
				goto nomem;
			w->tm[p].q[q].ring = mem;
			w->tm[p].q[q].mask = cap - 1;
		}
	}
	return 0;
nomem:
	fprintf(err, "worker %u: out of memory for the flow table, learners and queues "
		     "([gateway] flows = %u, %u packets per WAN class queue)\n",
		w->id, flows, cap);
	runtime_worker_state_free(w);
	return -ENOMEM;
}

void
runtime_worker_state_free(struct dp_worker *w)
{
	unsigned int p, q, i;

	for (p = 0; p < LS_MAX_PORTS; p++) {
		for (q = 0; q < DP_TM_CLASS_MAX; q++) {
			struct tm_fifo *f = &w->tm[p].q[q];

			while (f->ring != NULL && tm_fifo_count(f) != 0)
				rte_pktmbuf_free(f->ring[f->head++ & f->mask]);
			rte_free(f->ring);
			f->ring = NULL;
		}
	}
	for (i = 0; i < HOLD_SLOTS && w->hold.e[0].ring != NULL; i++) {
		struct hold_entry *he = &w->hold.e[i];

		while (hold_count(he) != 0)
			rte_pktmbuf_free(he->ring[he->head++ & (HOLD_QUEUE - 1)]);
	}
	rte_free(w->hold.e[0].ring);
	w->hold.e[0].ring = NULL;
	dc_pfc_flush(&w->dc_pfc);
	rte_free(w->dc_pfc.q[0].ring);
	memset(w->dc_pfc.q, 0, sizeof(w->dc_pfc.q));
	rte_free(w->flows.e);
	w->flows.e = NULL;
	rte_free(w->learn_src.slots);
	w->learn_src.slots = NULL;
	rte_free(w->learn_dst.slots);
	w->learn_dst.slots = NULL;
}

/* Resolve every configured next hop ahead of traffic. */
void
runtime_resolve_nexthops(struct ls_runtime *rt)
{
	const struct dp_conf *c = rt->dp;
	uint64_t now = runtime_now_ns();
	unsigned int i;

	for (i = 0; i < c->n_peers; i++)
		l2_resolve(rt, c->peers[i].port, c->peers[i].family, c->peers[i].nexthop, now);
	for (i = 0; i < c->n_ports; i++) {
		const struct dp_port *pt = &c->ports[i];

		if (pt->has_gw4)
			l2_resolve(rt, i, AF_INET, (const uint8_t *)&pt->gw4, now);
		if (pt->has_gw6)
			l2_resolve(rt, i, AF_INET6, pt->gw6, now);
	}
}

unsigned int
runtime_drain_punts(struct ls_runtime *rt)
{
	struct rte_mbuf *pkts[64];
	uint64_t now = runtime_now_ns();
	unsigned int w, i, n, total = 0;

	for (w = 0; w < rt->n_workers; w++) {
		do {
			n = rte_ring_sc_dequeue_burst(rt->workers[w]->punt, (void **)pkts,
						      RTE_DIM(pkts), NULL);
			for (i = 0; i < n; i++)
				l2_punt_input(rt, pkts[i], now);
			total += n;
		} while (n == RTE_DIM(pkts));
	}
	return total;
}
