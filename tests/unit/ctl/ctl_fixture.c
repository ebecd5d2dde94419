/* SPDX-License-Identifier: BSD-3-Clause */
#include "ctl_fixture.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "congestion/cc_params.h"

static void
ctl_addr(struct conf_addr *a, const char *text)
{
	a->family = strchr(text, ':') != NULL ? AF_INET6 : AF_INET;
	if (inet_pton(a->family, text, a->a) != 1)
		abort();
}

static void
ctl_prefix(struct conf_prefix *p, const char *text, unsigned int len)
{
	ctl_addr(&p->addr, text);
	p->len = (uint8_t)len;
}

static void
ctl_fill_config(struct ls_config *cfg)
{
	struct ls_port_conf *dc = &cfg->ports[0], *wan = &cfg->ports[1];
	struct ls_peer_conf *b = &cfg->peers[0], *c = &cfg->peers[1];

	snprintf(cfg->path, sizeof(cfg->path), "/etc/longspan/site-a.conf");
	snprintf(cfg->gw.name, sizeof(cfg->gw.name), "site-a");
	snprintf(cfg->gw.socket_path, sizeof(cfg->gw.socket_path), "/run/longspan/site-a.sock");
	cfg->gw.workers = 2;
	cfg->gw.burst = 32;
	cfg->gw.geneve_port = 6081;
	cfg->cong.marker = LS_MARKER_RED;
	cfg->cong.mechanisms = LS_MECH_A;

	cfg->n_ports = 2;
	cfg->dc_port = 0;
	snprintf(dc->name, sizeof(dc->name), "dc");
	snprintf(dc->dev, sizeof(dc->dev), "net_null0");
	dc->role = LS_PORT_DC;
	ctl_prefix(&dc->ipv4, "10.1.0.254", 16);
	ctl_prefix(&dc->ipv6, "fd00:1::fe", 64);
	dc->mtu = 4200;
	snprintf(wan->name, sizeof(wan->name), "wan-1");
	snprintf(wan->dev, sizeof(wan->dev), "net_null1");
	wan->role = LS_PORT_WAN;
	ctl_prefix(&wan->ipv4, "192.0.2.1", 24);
	ctl_addr(&wan->gateway4, "192.0.2.254");
	wan->vlan = 100;
	wan->mtu = 9000;
	wan->link_rate_bps = 10000000000ull;
	wan->mac_set = true;
	memcpy(wan->mac, "\x02\x00\x00\x00\x0a\x02", 6);

	cfg->n_peers = 2;
	snprintf(b->name, sizeof(b->name), "site-b");
	snprintf(b->port, sizeof(b->port), "wan-1");
	b->port_index = 1;
	ctl_addr(&b->remote, "192.0.2.2");
	b->vni = 100;
	b->rtt_ns = 1000000;
	b->n_prefixes = 2;
	ctl_prefix(&b->prefixes[0], "10.2.0.0", 16);
	ctl_prefix(&b->prefixes[1], "fd00:2::", 64);
	snprintf(c->name, sizeof(c->name), "site-c");
	snprintf(c->port, sizeof(c->port), "wan-1");
	c->port_index = 1;
	ctl_addr(&c->remote, "2001:db8::3");
	c->vni = 200;
	c->rtt_ns = 4000000;
	c->distance_m = 400000;
	c->n_prefixes = 1;
	ctl_prefix(&c->prefixes[0], "10.3.0.0", 16);
}

static void
ctl_fill_workers(struct ctl_fixture *fx)
{
	struct dp_counters *a = &fx->workers[0].counters, *b = &fx->workers[1].counters;

	fx->workers[0].id = 0;
	fx->workers[0].lcore = 1;
	fx->workers[1].id = 1;
	fx->workers[1].lcore = 2;

	a->port[0].rx_pkts = 1000;
	a->port[0].rx_bytes = 100000;
	a->port[0].tx_pkts = 480;
	a->port[0].tx_bytes = 55000;
	a->port[1].rx_pkts = 500;
	a->port[1].rx_bytes = 60000;
	a->port[1].tx_pkts = 900;
	a->port[1].tx_bytes = 99000;
	b->port[0].rx_pkts = 200;
	b->port[0].rx_bytes = 20000;
	b->port[0].tx_pkts = 6;
	b->port[0].tx_bytes = 600;
	b->port[1].rx_pkts = 7;
	b->port[1].rx_bytes = 700;
	b->port[1].tx_pkts = 190;
	b->port[1].tx_bytes = 21000;

	a->cls[DP_CLASS_ROCE_DATA] = 800;
	a->cls[DP_CLASS_ROCE_ACK] = 150;
	a->cls[DP_CLASS_ROCE_CNP] = 20;
	a->cls[DP_CLASS_OTHER_IP] = 30;
	a->cls[DP_CLASS_ARP] = 4;
	a->cls[DP_CLASS_ND] = 2;
	a->cls[DP_CLASS_TUNNEL] = 500;
	b->cls[DP_CLASS_ROCE_DATA] = 150;
	b->cls[DP_CLASS_ROCE_ACK] = 40;
	b->cls[DP_CLASS_OTHER_IP] = 10;
	b->cls[DP_CLASS_TUNNEL] = 7;

	a->drops[LS_DROP_NO_ROUTE] = 3;
	a->drops[LS_DROP_IP4_CSUM] = 2;
	b->drops[LS_DROP_NO_ROUTE] = 4;
	b->drops[LS_DROP_TX_FULL] = 1;

	a->peer[0] = (struct dp_peer_counters){ .tx_pkts = 850, .tx_bytes = 95000, .rx_pkts = 480, .rx_bytes = 50000, .rx_ce = 12, .rx_seq_gaps = 3, .rx_seq_reorder = 1 };
	b->peer[0] = (struct dp_peer_counters){ .tx_pkts = 190, .tx_bytes = 21000, .rx_pkts = 7, .rx_bytes = 700, .rx_ce = 1 };
	a->peer[1] = (struct dp_peer_counters){ .tx_pkts = 50, .tx_bytes = 4000 };

	a->ecn_marked = 5;
	b->ecn_marked = 1;
	a->arp_replies = 2;
	a->nd_adverts = 1;
	a->punted = 9;
	b->punted = 1;
	a->injected = 8; /* no path probes: own_tx is the injects and CNPs */
	/* tx_pkts = forwarded + own_tx (the injects and gateway CNPs sent). */
	a->forwarded = 1350;
	a->own_tx = 30;
	b->forwarded = 195;
	b->own_tx = 1;
	a->resolve_requests = 2;
	a->polls = 10000;
	a->idle_polls = 4000;
	a->sleeps = 100;
	b->polls = 5000;
	b->idle_polls = 4500;
	b->sleeps = 300;
	/* Half of the CTL_UPTIME_S seconds busy. */
	a->busy_tsc = CTL_UPTIME_S * CTL_TSC_HZ / 2;
	b->busy_tsc = CTL_UPTIME_S * CTL_TSC_HZ / 10;
}

/* ---- flows ---- */

struct ctl_flow {
	unsigned int worker, slot;
	const char *src, *dst;
	uint16_t sport;
	uint32_t dqpn, sender_qpn; /* sender 0 = not learned */
	uint8_t dir, cls;
	uint16_t peer;
	uint64_t pkts, bytes, rate_bps, ce_in, cnp_sent, cnp_no_qpn;
	uint64_t age_ns, idle_ns; /* first and last packet this long before CTL_NOW_NS */
};

/*
 * By bytes: A and F tie at 4 MB (worker 0 first), then D, B, E; C is idle.
 * By packets E, D, A, B, F; by rate B, A, D, E, F; by CE B, A, then the
 * others in worker and slot order; by CNPs E, A, then the others.
 */
static const struct ctl_flow ctl_flows[] = {
	/* A */ { 0, 3, "10.1.0.1", "10.2.0.1", 49152, 17, 33, FLOW_DC_TO_WAN,
		  DP_CLASS_ROCE_DATA, 0, 1000, 4000000, 8000000000, 10, 5, 0,
		  5000000000, 1000000 },
	/* B */ { 0, 5, "10.1.0.2", "10.3.0.1", 49153, 18, 0, FLOW_DC_TO_WAN,
		  DP_CLASS_ROCE_DATA, 1, 500, 2000000, 9000000000, 40, 0, 4,
		  2000000000, 2000000 },
	/* C */ { 0, 9, "10.1.0.9", "10.2.0.9", 49154, 19, 0, FLOW_DC_TO_WAN,
		  DP_CLASS_ROCE_DATA, 0, 99000, 99000000, 1, 0, 0, 0,
		  9000000000000, 7200000000000 },
	/* D */ { 0, 12, "fd00:2::5", "fd00:1::7", 4791, 20, 0, FLOW_WAN_TO_DC,
		  DP_CLASS_ROCE_ACK, 0, 3000, 3000000, 1000000000, 0, 0, 0,
		  60000000000, 500000000 },
	/* E */ { 1, 0, "10.1.0.3", "10.2.0.9", 49155, 21, 77, FLOW_DC_TO_WAN,
		  DP_CLASS_ROCE_DATA, 0, 4000, 1000000, 500000000, 0, 9, 0,
		  1000000000, 1000000 },
	/* F */ { 1, 7, "10.2.0.4", "10.1.0.4", 49156, 22, 0, FLOW_WAN_TO_DC,
		  DP_CLASS_ROCE_DATA, 0, 100, 4000000, 200000000, 0, 0, 0,
		  1000000000, 1000000 },
};

static void
ctl_flow_key_addr(const char *text, uint8_t *family, uint8_t *out)
{
	struct conf_addr a;

	ctl_addr(&a, text);
	*family = (uint8_t)a.family;
	memcpy(out, a.a, a.family == AF_INET ? 4 : 16);
}

static void
ctl_fill_flow(struct flow_entry *e, const struct ctl_flow *c)
{
	memset(e, 0, sizeof(*e));
	ctl_flow_key_addr(c->src, &e->key.family, e->key.src);
	ctl_flow_key_addr(c->dst, &e->key.family, e->key.dst);
	e->key.sport = c->sport;
	e->key.dqpn = c->dqpn;
	e->hash = 0x1000u + c->slot; /* any non-zero value */
	e->dir = c->dir;
	e->cls = c->cls;
	e->qpn_known = c->sender_qpn != 0;
	e->sender_qpn = c->sender_qpn;
	e->peer = c->peer;
	e->first_ns = CTL_NOW_NS - c->age_ns;
	e->last_ns = CTL_NOW_NS - c->idle_ns;
	e->pkts = c->pkts;
	e->bytes = c->bytes;
	e->ect_in = c->pkts - c->ce_in;
	e->ce_in = c->ce_in;
	e->marked = c->ce_in / 2;
	e->psn_ooo = c->pkts / 500;
	e->cnp_sent = c->cnp_sent;
	e->cnp_suppressed = c->cnp_sent / 2;
	e->cnp_no_qpn = c->cnp_no_qpn;
	e->meter.rate_bps = c->rate_bps;
}

static void
ctl_fill_flows(struct ctl_fixture *fx)
{
	size_t size = sizeof(struct flow_entry) * CTL_FLOW_SLOTS;
	unsigned int w, i;

	for (w = 0; w < 2; w++) {
		struct dp_worker *wk = &fx->workers[w];

		fx->flow_mem[w] = aligned_alloc(64, size);
		if (fx->flow_mem[w] == NULL)
			abort();
		memset(fx->flow_mem[w], 0, size);
		wk->flows.e = fx->flow_mem[w];
		wk->flows.mask = CTL_FLOW_SLOTS - 1;
		wk->flows.idle_ns = CTL_FLOW_IDLE_NS;
		/* The worker's clock reads CTL_NOW_NS now (dp_clock_now). */
		wk->tsc_hz = CTL_TSC_HZ;
		wk->tsc_base = rte_rdtsc();
		wk->ns_base = CTL_NOW_NS;
	}
	for (i = 0; i < RTE_DIM(ctl_flows); i++)
		ctl_fill_flow(&fx->flow_mem[ctl_flows[i].worker][ctl_flows[i].slot], &ctl_flows[i]);
	/* A slot never used (hash 0) with leftovers: never shown. */
	fx->flow_mem[1][8].bytes = 1000000000000ull;
	fx->flow_mem[1][8].last_ns = CTL_NOW_NS;
	fx->workers[0].counters.flows_created = 6;
	fx->workers[1].counters.flows_created = 3;
	fx->workers[0].counters.flows_full = CTL_FLOWS_FULL;
}

void
ctl_fixture_worst_flows(struct ctl_fixture *fx)
{
	static const struct ctl_flow worst = {
		0, 0, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe",
		"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		65535, 16777215, 16777214, FLOW_DC_TO_WAN, DP_CLASS_ROCE_DATA, 2,
		UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, 0, 0,
	};
	struct ls_peer_conf *p = &fx->cfg.peers[2];
	unsigned int w, i;

	/* A third peer with the longest name the config allows. */
	memset(p, 0, sizeof(*p));
	memset(p->name, 'p', LS_NAME_MAX - 1);
	snprintf(p->port, sizeof(p->port), "wan-1");
	fx->cfg.n_peers = 3;
	fx->dp.n_peers = 3;
	memcpy(fx->dp.peers[2].name, p->name, sizeof(p->name));
	for (w = 0; w < 2; w++) {
		for (i = 0; i <= fx->workers[w].flows.mask; i++) {
			struct flow_entry *e = &fx->flow_mem[w][i];

			ctl_fill_flow(e, &worst);
			e->hash = 0x2000u + i;
			e->key.sport = (uint16_t)(10000 + i);
			e->key.dqpn = 16777215 - i; /* distinct keys however many slots */
			/* As old as possible: 20-digit ages in ms cannot happen. */
			e->first_ns = 1;
			e->psn_ooo = e->marked = e->ect_in = e->cnp_suppressed = UINT64_MAX;
		}
	}
}

/* ---- traffic manager and mechanisms ---- */

void
ctl_fixture_big_flows(struct ctl_fixture *fx, unsigned int slots)
{
	size_t size = sizeof(struct flow_entry) * slots;
	unsigned int w;

	for (w = 0; w < 2; w++) {
		free(fx->flow_mem[w]);
		fx->flow_mem[w] = aligned_alloc(64, size);
		if (fx->flow_mem[w] == NULL)
			abort();
		memset(fx->flow_mem[w], 0, size);
		fx->workers[w].flows.e = fx->flow_mem[w];
		fx->workers[w].flows.mask = slots - 1;
	}
	ctl_fixture_worst_flows(fx);
}

void
ctl_fixture_wan_link(struct cc_link *link, struct cc_overrides *ov)
{
	memset(link, 0, sizeof(*link));
	memset(ov, 0, sizeof(*ov));
	link->rate_bps = 10000000000ull;
	link->rtt_ns = 4000000; /* site-c, the largest of the port's peers */
	link->mtu_bytes = 9000;
	link->near_source_cnp = true;
	ov->pmax_ppm = 100000;
	ov->flow_idle_ns = 1000000000;
}

static void
ctl_fill_tm(struct ctl_fixture *fx)
{
	struct dp_tm_counters *a = &fx->workers[0].counters.tm[1][DP_TM_CLASS_ROCE];
	struct dp_tm_counters *b = &fx->workers[1].counters.tm[1][DP_TM_CLASS_ROCE];
	struct dp_tm_counters *ctl = &fx->workers[0].counters.tm[1][DP_TM_CLASS_CONTROL];
	struct dp_mech_counters *ma = &fx->workers[0].counters.mech;
	struct dp_mech_counters *mb = &fx->workers[1].counters.mech;
	struct dp_tm_conf *tm = &fx->dp.tm[1];
	struct cc_overrides ov;
	struct cc_link link;

	fx->cfg.cong.pmax_ppm = 100000;
	fx->cfg.cong.flow_idle_ns = 1000000000;
	ctl_fixture_wan_link(&link, &ov);
	if (cc_params_resolve(&link, &ov, &tm->derived, NULL) != 0)
		abort();
	tm->enabled = true;
	tm->buffer_bytes = tm->derived.buffer_bytes;
	cc_params_marker(&tm->derived, ECN_MARKER_RED, false, &tm->marker);

	fx->dp.mech.mechanisms = LS_MECH_A;
	fx->dp.mech.cnp.interval_ns = tm->derived.cnp_interval_ns;
	fx->dp.mech.cnp_dscp = 48;
	fx->dp.mech.trp.hold_ns = tm->derived.hold_ns;
	fx->dp.mech.flow_idle_ns = 1000000000;

	/*
	 * Sojourn: 600 samples in [1024, 2048), 390 in [4096, 8192), 10 in
	 * [2^20, 2^21): p50 <= 2048, p99 <= 8192. Depth: 500 in [2^14, 2^15),
	 * 480 in [2^16, 2^17), 20 in [2^20, 2^21): p99 in the last bucket,
	 * so its bound 2^21 is capped at the max, 1.5 MB.
	 */
	a->enq_pkts = 980;
	a->enq_bytes = 3920000;
	a->deq_pkts = 980;
	a->deq_bytes = 3920000;
	a->drops = 3;
	/* Mechanism A answers: 12 + 3 + 4 + 1 = the 20 decisions; CE kept where no CNP went. */
	a->mark_decisions = 20;
	a->ce_written = 4;
	a->cnp_sent = 12;
	a->cnp_suppressed = 3;
	a->cnp_no_qpn = 4;
	a->cnp_failed = 1;
	a->depth_bytes = 60000;
	a->depth_pkts = 15;
	a->depth_max_bytes = 100000;
	a->sojourn_ns_sum = 980 * 2000;
	a->sojourn_ns_max = 6000;
	a->sojourn_hist[10] = 600;
	a->sojourn_hist[12] = 380;
	a->depth_hist[14] = 500;
	a->depth_hist[16] = 480;
	b->enq_pkts = 20;
	b->enq_bytes = 80000;
	b->deq_pkts = 20;
	b->deq_bytes = 80000;
	b->drops = 1;
	b->mark_decisions = 5;
	b->ce_written = 1;
	b->cnp_sent = 4;
	b->cnp_no_qpn = 1;
	b->depth_bytes = 30000;
	b->depth_pkts = 7;
	b->depth_max_bytes = CTL_TM_ROCE_DEPTH_MAX;
	b->sojourn_ns_sum = 20 * 500000;
	b->sojourn_ns_max = CTL_TM_ROCE_SOJOURN_MAX;
	b->sojourn_hist[12] = 10;
	b->sojourn_hist[20] = 10;
	b->depth_hist[20] = 20;
	/* Control class: 50 packets of ~200 ns, all in [128, 256): p50 <= 256. */
	ctl->enq_pkts = ctl->deq_pkts = 50;
	ctl->enq_bytes = ctl->deq_bytes = 3200;
	ctl->sojourn_ns_sum = 50 * 200;
	ctl->sojourn_ns_max = 300;
	ctl->sojourn_hist[7] = 50;
	ctl->depth_hist[0] = 50;

	ma->cnp_sent = 14;
	ma->cnp_suppressed = 3;
	ma->cnp_no_qpn = 4;
	ma->cnp_no_neigh = 1;
	ma->ce_cleared = 6;
	ma->learn[QPN_LEARN_DATA_KNOWN] = 900;
	ma->learn[QPN_LEARN_ACK_LEARNED] = 5;
	ma->trp_cnps = 2;
	ma->trp_activations = 1;
	ma->trp_active = 1;
	ma->learn_dst[QPN_LEARN_DATA_UNKNOWN] = 7;
	mb->cnp_sent = 9;
}

void
ctl_fixture_many_wan_ports(struct ctl_fixture *fx)
{
	unsigned int i, w, c;

	for (i = 2; i < LS_MAX_PORTS; i++) {
		fx->cfg.ports[i] = fx->cfg.ports[1];
		snprintf(fx->cfg.ports[i].name, sizeof(fx->cfg.ports[i].name), "wan-%u", i);
		fx->dp.tm[i] = fx->dp.tm[1];
	}
	fx->cfg.n_ports = LS_MAX_PORTS;
	fx->dp.n_ports = LS_MAX_PORTS;
	/* 20-digit sums: 9 x 10^18 per worker. */
	for (w = 0; w < 2; w++) {
		for (i = 1; i < LS_MAX_PORTS; i++) {
			for (c = 0; c < DP_TM_CLASS_MAX; c++) {
				uint64_t *v = (uint64_t *)&fx->workers[w].counters.tm[i][c];
				size_t n = sizeof(struct dp_tm_counters) / sizeof(uint64_t), k;

				for (k = 0; k < n; k++)
					v[k] = 9000000000000000000ull;
			}
		}
	}
}

struct ctl_fixture *
ctl_fixture_new(void)
{
	size_t size = RTE_ALIGN_CEIL(sizeof(struct ctl_fixture), RTE_CACHE_LINE_SIZE);
	struct ctl_fixture *fx = aligned_alloc(RTE_CACHE_LINE_SIZE, size);
	unsigned int i;

	if (fx == NULL)
		abort();
	memset(fx, 0, size);
	ctl_fill_config(&fx->cfg);
	ctl_fill_workers(fx);
	ctl_fill_flows(fx);
	ctl_fill_tm(fx);

	fx->dp.generation = CTL_GENERATION;
	fx->dp.n_ports = 2;
	fx->dp.n_peers = 2;
	memcpy(fx->dp.ports[0].mac.addr_bytes, "\x02\x00\x00\x00\x0a\x01", 6);
	memcpy(fx->dp.ports[1].mac.addr_bytes, "\x02\x00\x00\x00\x0a\x02", 6);
	fx->dp.ports[0].role = LS_PORT_DC;
	fx->dp.ports[1].role = LS_PORT_WAN;
	memcpy(fx->dp.peers[0].name, fx->cfg.peers[0].name, LS_NAME_MAX);
	memcpy(fx->dp.peers[1].name, fx->cfg.peers[1].name, LS_NAME_MAX);

	pthread_mutex_init(&fx->rt.cfg_lock, NULL);
	fx->rt.cfg = &fx->cfg;
	fx->rt.dp = &fx->dp;
	fx->rt.n_workers = 2;
	fx->rt.workers[0] = &fx->workers[0];
	fx->rt.workers[1] = &fx->workers[1];
	for (i = 0; i < LS_MAX_PORTS; i++)
		fx->rt.port_ids[i] = RTE_MAX_ETHPORTS; /* not a device */
	fx->rt.tsc_hz = CTL_TSC_HZ;
	fx->rt.start_tsc = rte_rdtsc() - CTL_UPTIME_S * CTL_TSC_HZ;
	fx->rt.l2.learned = 4;
	fx->rt.l2.aged = 1;
	fx->rt.reloads_ok = 3;
	fx->rt.reloads_failed = 1;
	return fx;
}

void
ctl_fixture_free(struct ctl_fixture *fx)
{
	pthread_mutex_destroy(&fx->rt.cfg_lock);
	free(fx->flow_mem[0]);
	free(fx->flow_mem[1]);
	free(fx);
}

void
ctl_fixture_many_peers(struct ctl_fixture *fx, unsigned int n)
{
	unsigned int i, k;

	for (i = fx->cfg.n_peers; i < n && i < LS_MAX_PEERS; i++) {
		struct ls_peer_conf *p = &fx->cfg.peers[i];
		char addr[64];

		snprintf(p->name, sizeof(p->name), "peer-%02u", i);
		snprintf(p->port, sizeof(p->port), "wan-1");
		p->port_index = 1;
		snprintf(addr, sizeof(addr), "2001:db8:ffff:%x::1", i);
		ctl_addr(&p->remote, addr);
		p->vni = 1000 + i;
		p->rtt_ns = 1000000;
		p->n_prefixes = LS_MAX_PREFIXES;
		for (k = 0; k < LS_MAX_PREFIXES; k++) {
			snprintf(addr, sizeof(addr), "fd00:ffff:%x:%x:ffff:ffff::", i, k);
			ctl_prefix(&p->prefixes[k], addr, 96);
		}
	}
	fx->cfg.n_peers = n;
	fx->dp.n_peers = (uint16_t)n;
}
