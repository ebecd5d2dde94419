/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The short reports of the control API: show ports, stats, drops, peers
 * and config. show flows and show tm, which scan the workers' tables, have
 * files of their own.
 */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "api.h"
#include "api_cmds.h"
#include "config.h"
#include "peering.h"
#include "hook_api.h"
#include "runtime.h"
#include "congestion/ecn_marker.h"
#include "dataplane/drop_reason.h"

static double
api_pct(uint64_t part, uint64_t whole)
{
	return whole == 0 ? NAN : 100.0 * (double)part / (double)whole;
}

const char *const api_class_names[DP_CLASS_MAX] = {
	[DP_CLASS_ROCE_DATA] = "roce_data",
	[DP_CLASS_ROCE_ACK] = "roce_ack",
	[DP_CLASS_ROCE_CNP] = "roce_cnp",
	[DP_CLASS_OTHER_IP] = "other_ip",
	[DP_CLASS_ARP] = "arp",
	[DP_CLASS_ND] = "nd",
	[DP_CLASS_TUNNEL] = "tunnel",
};
static_assert(DP_CLASS_MAX == 7, "name the new enum dp_class value in api_class_names");

static uint64_t
api_drops_total(const struct dp_counters *c)
{
	uint64_t total = 0;
	unsigned int i;

	/* LS_DROP_NONE means "forwarded" and is not a drop. */
	for (i = LS_DROP_NONE + 1; i < LS_DROP_MAX; i++)
		total += c->drops[i];
	return total;
}

/* ---- paging over the config's ports or peers ---- */

/*
 * What show ports and show peers list: the config's items of one kind, one
 * by name or a page of all, each written by emit() inside an object named
 * ITEMS. index() is an item's position by name (-1: none); after(), when
 * set, writes what follows the items and precedes the page.
 */
struct api_listing {
	const char *item;  /* "port": in "no port named 'NAME'" */
	const char *items; /* "ports": the object's key and the pager's noun */
	unsigned int (*count)(const struct ls_config *cfg);
	int (*index)(const struct ls_config *cfg, const char *name);
	void (*emit)(struct api_ctx *ctx, const struct ls_config *cfg, unsigned int i,
		     const struct dp_counters *sum, const void *arg);
	void (*after)(struct api_ctx *ctx);
};

/*
 * Run listing L: OPTS (API_PAGE_OPTS(PG) among them) and at most one NAME
 * from argv, then the item or the page, counters summed once over the
 * workers; ARG goes to every emit(). The page is described only without a
 * NAME.
 */
static int
api_listing_show(struct api_ctx *ctx, int argc, char **argv, const struct api_opt *opts,
		 unsigned int n_opts, struct api_page *pg, const struct api_listing *l,
		 const void *arg)
{
	const struct ls_config *cfg;
	struct dp_counters sum;
	unsigned int i, first, end;
	int n_pos, rc;

	rc = api_opts_parse(ctx, argc, argv, opts, n_opts, 1, &n_pos);
	if (rc < 0)
		return rc;
	cfg = api_need_cfg(ctx);
	if (cfg == NULL)
		return -ENOENT;
	rc = api_page_select(ctx, n_pos == 1 ? argv[0] : NULL,
			     n_pos == 1 ? l->index(cfg, argv[0]) : -1, l->item, pg, l->count(cfg),
			     &first, &end);
	if (rc < 0)
		return rc;
	runtime_counters_sum(ctx->rt, &sum);
	fmt_open(ctx->fmt, l->items, FMT_OBJ);
	for (i = first; i < end; i++)
		l->emit(ctx, cfg, i, &sum, arg);
	fmt_close(ctx->fmt);
	if (l->after != NULL)
		l->after(ctx);
	if (n_pos == 0)
		api_page_emit(ctx, pg, l->count(cfg), l->items);
	return 0;
}

/* ---- show ports ---- */

static void
api_port_link(struct fmt *f, uint16_t port_id, bool valid)
{
	struct rte_eth_link link;

	/* _nowait: a link query must not stall the control thread. */
	memset(&link, 0, sizeof(link));
	if (!valid || rte_eth_link_get_nowait(port_id, &link) != 0) {
		fmt_null(f, "link");
		return;
	}
	fmt_open(f, "link", FMT_OBJ);
	fmt_str(f, "status", link.link_status == RTE_ETH_LINK_UP ? "up" : "down");
	if (link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN)
		fmt_null(f, "speed_mbps");
	else
		fmt_u64(f, "speed_mbps", link.link_speed);
	fmt_str(f, "duplex", link.link_duplex == RTE_ETH_LINK_FULL_DUPLEX ? "full" : "half");
	fmt_bool(f, "autoneg", link.link_autoneg == RTE_ETH_LINK_AUTONEG);
	fmt_close(f);
}

/* The control thread's watch of the link (port_restart.h). */
static void
api_port_restart(struct fmt *f, const struct port_restart *r)
{
	fmt_open(f, "restart", FMT_OBJ);
	fmt_bool(f, "restartable", r->restartable);
	fmt_str(f, "state", port_restart_state_name(r->state));
	fmt_u64(f, "link_down", r->link_down);
	fmt_u64(f, "restarts", r->restarts);
	fmt_u64(f, "start_failed", r->start_failed);
	if (r->restarts != 0)
		fmt_u64(f, "last_restart_ns", r->last_down_ns);
	else
		fmt_none(f, "last_restart_ns");
	fmt_close(f);
}

static void
api_port_ethdev(struct fmt *f, uint16_t port_id, bool valid)
{
	struct rte_eth_stats st;

	memset(&st, 0, sizeof(st));
	if (!valid || rte_eth_stats_get(port_id, &st) != 0) {
		fmt_null(f, "ethdev");
		return;
	}
	fmt_open(f, "ethdev", FMT_OBJ);
	fmt_u64(f, "rx_pkts", st.ipackets);
	fmt_u64(f, "rx_bytes", st.ibytes);
	fmt_u64(f, "rx_errors", st.ierrors);
	fmt_u64(f, "rx_missed", st.imissed);
	fmt_u64(f, "rx_nombuf", st.rx_nombuf);
	fmt_u64(f, "tx_pkts", st.opackets);
	fmt_u64(f, "tx_bytes", st.obytes);
	fmt_u64(f, "tx_errors", st.oerrors);
	fmt_close(f);
}

/* Non-zero extended stats of a port (driver-specific names). */
static void
api_port_xstats(struct fmt *f, uint16_t port_id, bool valid)
{
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *values = NULL;
	int n, got, i;

	n = valid ? rte_eth_xstats_get_names(port_id, NULL, 0) : -ENODEV;
	if (n <= 0)
		goto unavailable;
	names = calloc(n, sizeof(*names));
	values = calloc(n, sizeof(*values));
	if (names == NULL || values == NULL)
		goto unavailable;
	if (rte_eth_xstats_get_names(port_id, names, n) != n)
		goto unavailable;
	got = rte_eth_xstats_get(port_id, values, n);
	if (got < 0 || got > n)
		goto unavailable;
	fmt_open(f, "xstats", FMT_OBJ);
	for (i = 0; i < got; i++)
		if (values[i].value != 0 && values[i].id < (uint64_t)n)
			fmt_u64(f, names[values[i].id].name, values[i].value);
	fmt_close(f);
	goto out;
unavailable:
	fmt_null(f, "xstats");
out:
	free(values);
	free(names);
}

/* Port i; ARG points to the bool of --xstats. */
static void
api_port_emit(struct api_ctx *ctx, const struct ls_config *cfg, unsigned int i,
	      const struct dp_counters *sum, const void *arg)
{
	bool xstats = *(const bool *)arg;
	const struct ls_port_conf *pc = &cfg->ports[i];
	const struct ls_runtime *rt = ctx->rt;
	uint16_t port_id = rt->port_ids[i];
	bool valid = rte_eth_dev_is_valid_port(port_id) != 0;
	struct fmt *f = ctx->fmt;
	struct rte_ether_addr mac;

	fmt_open(f, pc->name, FMT_OBJ);
	fmt_str(f, "role", pc->role == LS_PORT_WAN ? "wan" : "dc");
	fmt_str(f, "device", pc->dev);
	if (valid)
		fmt_u64(f, "port_id", port_id);
	else
		fmt_null(f, "port_id");
	/* The MAC the dataplane uses, else the device's, else the configured one. */
	if (rt->dp != NULL && i < rt->dp->n_ports)
		fmt_mac(f, "mac", rt->dp->ports[i].mac.addr_bytes);
	else if (valid && rte_eth_macaddr_get(port_id, &mac) == 0)
		fmt_mac(f, "mac", mac.addr_bytes);
	else if (pc->mac_set)
		fmt_mac(f, "mac", pc->mac);
	else
		fmt_null(f, "mac");
	fmt_prefix(f, "ipv4", &pc->ipv4);
	fmt_prefix(f, "ipv6", &pc->ipv6);
	fmt_addr(f, "gateway4", &pc->gateway4);
	fmt_addr(f, "gateway6", &pc->gateway6);
	fmt_u64(f, "vlan", pc->vlan);
	fmt_u64(f, "mtu", pc->mtu);
	fmt_u64(f, "link_rate_bps", pc->link_rate_bps);
	api_port_link(f, port_id, valid);
	api_port_restart(f, &rt->port_restart[i]);
	api_port_ethdev(f, port_id, valid);
	fmt_open(f, "workers", FMT_OBJ);
	fmt_u64(f, "rx_pkts", sum->port[i].rx_pkts);
	fmt_u64(f, "rx_bytes", sum->port[i].rx_bytes);
	fmt_u64(f, "tx_pkts", sum->port[i].tx_pkts);
	fmt_u64(f, "tx_bytes", sum->port[i].tx_bytes);
	fmt_close(f);
	if (xstats)
		api_port_xstats(f, port_id, valid);
	fmt_close(f);
}

static unsigned int
api_port_count(const struct ls_config *cfg)
{
	return cfg->n_ports;
}

int
api_show_ports(struct api_ctx *ctx, int argc, char **argv)
{
	static const struct api_listing ports = {
		.item = "port",
		.items = "ports",
		.count = api_port_count,
		.index = config_port_index,
		.emit = api_port_emit,
	};
	struct api_page pg = { 0, 0 };
	bool xstats = false;
	const struct api_opt opts[] = {
		API_PAGE_OPTS(&pg),
		{ "--xstats", API_OPT_FLAG, 0, 0, &xstats },
	};

	return api_listing_show(ctx, argc, argv, opts, RTE_DIM(opts), &pg, &ports, &xstats);
}

/* ---- show stats ---- */

/*
 * The WAN traffic manager and mechanisms in a few totals (every WAN port
 * and class); `show tm` has the detail.
 */
static void
api_stats_wan_emit(struct fmt *f, const struct dp_counters *sum)
{
	uint64_t enq = 0, drops = 0, decisions = 0, written = 0, depth = 0;
	unsigned int p, c;

	for (p = 0; p < LS_MAX_PORTS; p++) {
		for (c = 0; c < DP_TM_CLASS_MAX; c++) {
			enq += sum->tm[p][c].enq_pkts;
			drops += sum->tm[p][c].drops;
			decisions += sum->tm[p][c].mark_decisions;
			written += sum->tm[p][c].ce_written;
			depth += sum->tm[p][c].depth_bytes;
		}
	}
	fmt_u64(f, "wan_enq_pkts", enq);
	fmt_u64(f, "wan_drops", drops);
	fmt_u64(f, "wan_mark_decisions", decisions);
	fmt_u64(f, "wan_ce_written", written);
	fmt_u64(f, "wan_depth_bytes", depth);
	fmt_u64(f, "cnp_sent", sum->mech.cnp_sent);
	fmt_u64(f, "cnp_suppressed", sum->mech.cnp_suppressed);
	fmt_u64(f, "cnp_no_qpn", sum->mech.cnp_no_qpn);
	fmt_u64(f, "cnp_no_neigh", sum->mech.cnp_no_neigh);
	fmt_u64(f, "cnp_no_mbuf", sum->mech.cnp_no_mbuf);
	fmt_u64(f, "cnp_tx_full", sum->mech.cnp_tx_full);
	fmt_u64(f, "ce_cleared", sum->mech.ce_cleared);
	fmt_u64(f, "trp_activations", sum->mech.trp_activations);
	fmt_u64(f, "trp_active", sum->mech.trp_active);
	fmt_u64(f, "trp_delayed", sum->mech.trp_delayed);
	fmt_u64(f, "flows_created", sum->flows_created);
	fmt_u64(f, "flows_full", sum->flows_full);
}

static void
api_worker_emit(struct api_ctx *ctx, const struct dp_worker *w, uint64_t elapsed_tsc)
{
	const struct dp_counters *c = &w->counters;
	struct fmt *f = ctx->fmt;
	uint64_t rx = 0, tx = 0;
	char key[16];
	unsigned int p;

	for (p = 0; p < LS_MAX_PORTS; p++) {
		rx += c->port[p].rx_pkts;
		tx += c->port[p].tx_pkts;
	}
	snprintf(key, sizeof(key), "%u", w->id);
	fmt_open(f, key, FMT_ROW);
	fmt_u64(f, "lcore", w->lcore);
	fmt_f64(f, "busy_pct", api_pct(c->busy_tsc, elapsed_tsc));
	fmt_f64(f, "idle_pct", api_pct(c->idle_polls, c->polls));
	fmt_u64(f, "polls", c->polls);
	fmt_u64(f, "sleeps", c->sleeps);
	fmt_u64(f, "rx_pkts", rx);
	fmt_u64(f, "tx_pkts", tx);
	fmt_u64(f, "drops", api_drops_total(c));
	fmt_close(f);
}

int
api_show_stats(struct api_ctx *ctx, int argc, char **argv)
{
	const struct ls_runtime *rt = ctx->rt;
	struct fmt *f = ctx->fmt;
	struct dp_counters sum;
	uint64_t rx_pkts = 0, rx_bytes = 0, tx_pkts = 0, tx_bytes = 0;
	uint64_t elapsed_tsc;
	unsigned int i;
	int n_pos, rc;

	rc = api_opts_parse(ctx, argc, argv, NULL, 0, 0, &n_pos);
	if (rc < 0)
		return rc;
	runtime_counters_sum(rt, &sum);
	for (i = 0; i < LS_MAX_PORTS; i++) {
		rx_pkts += sum.port[i].rx_pkts;
		rx_bytes += sum.port[i].rx_bytes;
		tx_pkts += sum.port[i].tx_pkts;
		tx_bytes += sum.port[i].tx_bytes;
	}
	elapsed_tsc = rte_rdtsc() - rt->start_tsc;

	fmt_str(f, "name", rt->cfg != NULL ? rt->cfg->gw.name : "");
	if (rt->tsc_hz != 0)
		fmt_u64(f, "uptime_s", elapsed_tsc / rt->tsc_hz);
	else
		fmt_null(f, "uptime_s");
	fmt_u64(f, "generation", rt->dp != NULL ? rt->dp->generation : 0);
	fmt_u64(f, "reloads_ok", rt->reloads_ok);
	fmt_u64(f, "reloads_failed", rt->reloads_failed);
	fmt_u64(f, "n_workers", rt->n_workers);
	/*
	 * Worker 0's clock, in which flow times are: ns = clock_ns_base +
	 * (tsc - clock_tsc_base) / clock_tsc_hz. DPDK's TSC rate can be off
	 * (2100 MHz assumed where a VM's TSC counts 2096), so these times drift
	 * from the wall clock with uptime; this lets a reader get the TSC back.
	 */
	if (rt->n_workers > 0 && rt->workers[0] != NULL) {
		fmt_u64(f, "clock_tsc_hz", rt->workers[0]->tsc_hz);
		fmt_u64(f, "clock_tsc_base", rt->workers[0]->tsc_base);
		fmt_u64(f, "clock_ns_base", rt->workers[0]->ns_base);
	}
	fmt_u64(f, "rx_pkts", rx_pkts);
	fmt_u64(f, "rx_bytes", rx_bytes);
	fmt_u64(f, "tx_pkts", tx_pkts);
	fmt_u64(f, "tx_bytes", tx_bytes);
	fmt_u64(f, "drops", api_drops_total(&sum));
	/* rx_pkts = forwarded + drops + punted + queued; tx_pkts = forwarded + own_tx. */
	fmt_u64(f, "forwarded", sum.forwarded);
	fmt_u64(f, "own_tx", sum.own_tx);
	fmt_u64(f, "own_tx_failed", sum.own_tx_failed);
	fmt_u64(f, "ecn_marked", sum.ecn_marked);
	fmt_u64(f, "arp_replies", sum.arp_replies);
	fmt_u64(f, "nd_adverts", sum.nd_adverts);
	fmt_u64(f, "punted", sum.punted);
	fmt_u64(f, "resolve_requests", sum.resolve_requests);
	fmt_u64(f, "injected", sum.injected);
	fmt_u64(f, "probes_sent", sum.probes_sent);
	fmt_u64(f, "polls", sum.polls);
	fmt_u64(f, "idle_polls", sum.idle_polls);
	fmt_f64(f, "idle_pct", api_pct(sum.idle_polls, sum.polls));
	fmt_u64(f, "sleeps", sum.sleeps);
	api_stats_wan_emit(f, &sum);
	if (rt->dp != NULL)
		api_credit_emit(f, &rt->dp->lossless, &sum.credit);

	fmt_open(f, "classes", FMT_OBJ);
	for (i = 0; i < DP_CLASS_MAX; i++)
		fmt_u64(f, api_class_names[i], sum.cls[i]);
	fmt_close(f);

	/* ARP/ND handled by the control thread (the fast path counts its own above). */
	fmt_open(f, "l2", FMT_OBJ);
	fmt_u64(f, "arp_replies", rt->l2.arp_replies);
	fmt_u64(f, "nd_adverts", rt->l2.nd_adverts);
	fmt_u64(f, "echo_replies", rt->l2.echo_replies);
	fmt_u64(f, "requests", rt->l2.requests);
	fmt_u64(f, "learned", rt->l2.learned);
	fmt_u64(f, "aged", rt->l2.aged);
	fmt_u64(f, "invalid", rt->l2.invalid);
	fmt_u64(f, "tx", rt->l2.tx);
	fmt_u64(f, "tx_failed", rt->l2.tx_failed);
	fmt_u64(f, "alloc_failed", rt->l2.alloc_failed);
	fmt_u64(f, "table_full", rt->l2.table_full);
	fmt_close(f);

	hook_api_stats(ctx);

	fmt_open(f, "workers", FMT_OBJ);
	fmt_notef(f, "%-*s%*s%*s%*s%*s%*s%*s%*s%*s", FMT_KEY_WIDTH - 2, "worker",
		  FMT_NUM_WIDTH + 1, "lcore", FMT_NUM_WIDTH + 1, "busy%", FMT_NUM_WIDTH + 1,
		  "idle%", FMT_NUM_WIDTH + 1, "polls", FMT_NUM_WIDTH + 1, "sleeps",
		  FMT_NUM_WIDTH + 1, "rx_pkts", FMT_NUM_WIDTH + 1, "tx_pkts", FMT_NUM_WIDTH + 1,
		  "drops");
	for (i = 0; i < rt->n_workers && i < DP_MAX_WORKERS; i++)
		if (rt->workers[i] != NULL)
			api_worker_emit(ctx, rt->workers[i], elapsed_tsc);
	fmt_close(f);
	return 0;
}

/* ---- show drops ---- */

int
api_show_drops(struct api_ctx *ctx, int argc, char **argv)
{
	bool nonzero = false;
	const struct api_opt opts[] = {
		{ "--nonzero", API_OPT_FLAG, 0, 0, &nonzero },
	};
	struct fmt *f = ctx->fmt;
	struct dp_counters sum;
	unsigned int i;
	int n_pos, rc;

	rc = api_opts_parse(ctx, argc, argv, opts, RTE_DIM(opts), 0, &n_pos);
	if (rc < 0)
		return rc;
	runtime_counters_sum(ctx->rt, &sum);
	fmt_u64(f, "total", api_drops_total(&sum));
	fmt_open(f, "drops", FMT_OBJ);
	fmt_notef(f, "%-*s%*s  %s", FMT_KEY_WIDTH - 2, "reason", FMT_NUM_WIDTH + 1, "count",
		  "description");
	for (i = LS_DROP_NONE + 1; i < LS_DROP_MAX; i++) {
		if (nonzero && sum.drops[i] == 0)
			continue;
		fmt_open(f, ls_drop_reason_names[i], FMT_ROW);
		fmt_u64(f, "count", sum.drops[i]);
		fmt_str(f, "description", ls_drop_reason_descs[i]);
		fmt_close(f);
	}
	fmt_close(f);
	return 0;
}

/* ---- show peers ---- */

/* CLOCK_REALTIME, the measurement's "updated" clock (measure.h). */
static uint64_t
api_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
api_peer_emit(struct api_ctx *ctx, const struct ls_config *cfg, unsigned int i,
	      const struct dp_counters *sum, const void *arg)
{
	const struct ls_peer_conf *pc = &cfg->peers[i];
	/* Dataplane peer i is config peer i: the snapshot keeps config order. */
	const struct dp_peer_counters *c = &sum->peer[i];
	struct fmt *f = ctx->fmt;
	unsigned int k;

	(void)arg;
	fmt_open(f, pc->name, FMT_OBJ);
	fmt_str(f, "port", pc->port);
	fmt_addr(f, "remote", &pc->remote);
	fmt_addr(f, "local", &pc->local);
	fmt_u64(f, "vni", pc->vni);
	fmt_u64(f, "rtt_ns", pc->rtt_ns);
	fmt_u64(f, "distance_m", pc->distance_m);
	fmt_open(f, "prefixes", FMT_LIST);
	for (k = 0; k < pc->n_prefixes && k < LS_MAX_PREFIXES; k++)
		fmt_prefix(f, NULL, &pc->prefixes[k]);
	fmt_close(f);
	fmt_u64(f, "tx_pkts", c->tx_pkts);
	fmt_u64(f, "tx_bytes", c->tx_bytes);
	fmt_u64(f, "rx_pkts", c->rx_pkts);
	fmt_u64(f, "rx_bytes", c->rx_bytes);
	fmt_u64(f, "rx_ce", c->rx_ce);
	fmt_u64(f, "rx_seq_gaps", c->rx_seq_gaps);
	fmt_u64(f, "rx_seq_reorder", c->rx_seq_reorder);
	fmt_u64(f, "rx_seq_restarts", c->rx_seq_restarts);
	fmt_u64(f, "rx_seq_pkts", c->rx_seq_pkts);
	measure_show_peer(f, &ctx->rt->meas, cfg, i, ctx->rt->workers, ctx->rt->n_workers,
			  api_realtime_ns());
	peering_show_peer(f, ctx->rt, pc->name);
	fmt_close(f);
}

/* The index of the peer named NAME, or -1. */
static int
api_peer_index(const struct ls_config *cfg, const char *name)
{
	unsigned int i;

	for (i = 0; i < cfg->n_peers; i++)
		if (strcmp(cfg->peers[i].name, name) == 0)
			return (int)i;
	return -1;
}

static unsigned int
api_peer_count(const struct ls_config *cfg)
{
	return cfg->n_peers;
}

/* The sessions' view (peering.h), after the peers and before the page. */
static void
api_peers_sessions(struct api_ctx *ctx)
{
	peering_show(ctx->fmt, ctx->rt);
}

int
api_show_peers(struct api_ctx *ctx, int argc, char **argv)
{
	static const struct api_listing peers = {
		.item = "peer",
		.items = "peers",
		.count = api_peer_count,
		.index = api_peer_index,
		.emit = api_peer_emit,
		.after = api_peers_sessions,
	};
	struct api_page pg = { 0, 0 };
	const struct api_opt opts[] = { API_PAGE_OPTS(&pg) };

	return api_listing_show(ctx, argc, argv, opts, RTE_DIM(opts), &pg, &peers, NULL);
}

/* ---- show config ---- */

static void
api_config_summary(struct api_ctx *ctx, const struct ls_config *cfg)
{
	const struct ls_runtime *rt = ctx->rt;
	struct fmt *f = ctx->fmt;
	unsigned int i;

	fmt_str(f, "name", cfg->gw.name);
	fmt_str(f, "path", cfg->path);
	fmt_str(f, "socket", cfg->gw.socket_path);
	fmt_u64(f, "workers", cfg->gw.workers);
	fmt_str(f, "dc_port",
		cfg->dc_port >= 0 && (unsigned int)cfg->dc_port < cfg->n_ports ?
			cfg->ports[cfg->dc_port].name : "");
	fmt_open(f, "ports", FMT_LIST);
	for (i = 0; i < cfg->n_ports && i < LS_MAX_PORTS; i++)
		fmt_str(f, NULL, cfg->ports[i].name);
	fmt_close(f);
	fmt_open(f, "peers", FMT_LIST);
	for (i = 0; i < cfg->n_peers && i < LS_MAX_PEERS; i++)
		fmt_str(f, NULL, cfg->peers[i].name);
	fmt_close(f);
	fmt_str(f, "marker", ecn_marker_kind_name((enum ecn_marker_kind)cfg->cong.marker));
	fmt_str(f, "mechanisms", conf_mech_name(cfg->cong.mechanisms));
	fmt_u64(f, "generation", rt->dp != NULL ? rt->dp->generation : 0);
	fmt_u64(f, "reloads_ok", rt->reloads_ok);
	fmt_u64(f, "reloads_failed", rt->reloads_failed);
}

int
api_show_config(struct api_ctx *ctx, int argc, char **argv)
{
	bool summary = false;
	const struct api_opt opts[] = {
		{ "--summary", API_OPT_FLAG, 0, 0, &summary },
	};
	const struct ls_config *cfg;
	char *ini = NULL;
	size_t ini_size = 0;
	FILE *s;
	int n_pos, rc;

	rc = api_opts_parse(ctx, argc, argv, opts, RTE_DIM(opts), 0, &n_pos);
	if (rc < 0)
		return rc;
	cfg = api_need_cfg(ctx);
	if (cfg == NULL)
		return -ENOENT;
	if (summary || ctx->out == NULL) {
		api_config_summary(ctx, cfg);
		return 0;
	}
	if (ctx->format == API_FORMAT_TEXT) {
		config_dump(cfg, ctx->out);
		return 0;
	}
	/* JSON: the summary plus the INI text as one string. */
	s = open_memstream(&ini, &ini_size);
	if (s == NULL) {
		api_error(ctx, "out of memory");
		return -ENOMEM;
	}
	config_dump(cfg, s);
	fclose(s);
	api_config_summary(ctx, cfg);
	fmt_str(ctx->fmt, "ini", ini);
	free(ini);
	return 0;
}
