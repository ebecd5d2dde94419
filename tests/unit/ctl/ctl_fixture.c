/* SPDX-License-Identifier: BSD-3-Clause */
#include "ctl_fixture.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

static void
ctl_addr(struct ls_addr *a, const char *text)
{
	a->family = strchr(text, ':') != NULL ? AF_INET6 : AF_INET;
	if (inet_pton(a->family, text, a->a) != 1)
		abort();
}

static void
ctl_prefix(struct ls_prefix *p, const char *text, unsigned int len)
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

	a->peer[0] = (struct dp_peer_counters){ 850, 95000, 480, 50000, 12, 3, 1 };
	b->peer[0] = (struct dp_peer_counters){ 190, 21000, 7, 700, 1, 0, 0 };
	a->peer[1] = (struct dp_peer_counters){ 50, 4000, 0, 0, 0, 0, 0 };

	a->ecn_marked = 5;
	b->ecn_marked = 1;
	a->arp_replies = 2;
	a->nd_adverts = 1;
	a->punted = 9;
	b->punted = 1;
	a->injected = 8;
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

	fx->dp.generation = CTL_GENERATION;
	fx->dp.n_ports = 2;
	fx->dp.n_peers = 2;
	memcpy(fx->dp.ports[0].mac.addr_bytes, "\x02\x00\x00\x00\x0a\x01", 6);
	memcpy(fx->dp.ports[1].mac.addr_bytes, "\x02\x00\x00\x00\x0a\x02", 6);

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
