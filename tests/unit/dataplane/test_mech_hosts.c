/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Both hosts of the mechanism A/C policy (congestion/gw_mech.h), driven by
 * one event trace, must carry out the same actions:
 *
 * - the dataplane host: dataplane/mech.c's dp_roce_dc(), dp_signal(),
 *   dp_roce_wan() and dp_mech_c_cnp() on a worker of the real runtime
 *   (config text -> runtime_dp_build() -> published snapshot, net_ring
 *   ports, static neighbours, the worker's flow table and QPN learners),
 *   1 TSC tick = 1 ns, the clock set by the trace;
 * - the simulator host: congestion/sim/sim_gw.c's sim_gw_signal() and
 *   sim_gw_ingress() on gateway node 2 of a real longspan-sim set-up
 *   (host 0 - gateway 2 == gateway 3 - host 1), s->now_ns set by the trace.
 *
 * Both run with the same policy settings: mechanisms A,C, cnp_interval
 * 4 us, CE cleared on covered packets, the QPN learned in band from
 * returning ACKs, and the upstream-CE window the gateway derives (2 x its
 * default 10 us DC RTT), pinned in the simulator as the lab INIs pin it.
 * Each trace runs with its own forwarding policy for receiver CNPs: the
 * gateway's from [congestion] cnp_forward, cnp_forward_gap and
 * cnp_forward_backlog in config text it loads and publishes as a reload
 * does, the simulator's from mech_c.forward_cnp, cnp_gap and
 * forward_backlog.
 *
 * The trace (one event a line, "#" comments; times in ns, non-decreasing):
 *
 *   T a_data ECN [mark] [drop] [nocnp]
 *       a data packet of the local sender (host 0, 10.1.0.1) leaving for
 *       the WAN; ECN = not|ect0|ect1|ce as it arrived from the DC; mark: the
 *       gateway's marker chose it; drop: the WAN queue could not take it;
 *       nocnp: a CNP it asks for cannot be built (dataplane: no transmit
 *       room toward the DC)
 *   T a_ack     the remote receiver's ACK of the last a_data: the sender's
 *               QPN becomes known (until then it is unknown)
 *   T c_data ECN  a data packet of the remote sender arriving from the WAN
 *               (1048 bytes in both hosts); while the QP is shaped it is
 *               held in gateway memory (the dataplane's traffic manager
 *               step, dp_hold_waits() and hold_push(); nothing releases
 *               held packets during a trace in either host)
 *   T c_ack     the local receiver's ACK of the last c_data, leaving
 *   T c_cnp     the local receiver's CNP about that QP, leaving
 *
 * Compared per event: for a_data whether a CNP goes to the sender and why
 * not (rate limit, unknown QPN), whether CE is cleared or written, the
 * ECN the packet leaves with; for c_data the bytes the QP holds in gateway
 * memory; for c_cnp whether shaping starts or is skipped because the QP's
 * data arrived CE-marked, and whether it goes on to the sender. The simulator schedules
 * its CNPs and cannot fail to build one (gw_mech.h), so on a nocnp event
 * the dataplane must show the simulator's actions as gw_mech_a_cnp_failed()
 * turns them (no CNP, the signal kept in the packet).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "congestion/gw_mech.h"
#include "congestion/sim/sim.h"
#include "congestion/sim/sim_gw.h"
#include "control/ports.h"
#include "dataplane/mech.h"
#include "dataplane/worker.h"
#include "ut_eal.h"
#include "ut_pkt.h"
#include "ut_ports.h"
#include "ut_runtime.h"

#define T0 UINT64_C(1000000000)
#define SENDER_QPN 0x1234u /* the local sender's QPN (dataplane side) */
#define RECEIVER_QPN 0x99u /* the remote receiver's */
#define RSENDER_QPN 0x4321u /* the remote sender's (mechanism C) */
#define LRECEIVER_QPN 0x77u /* the local receiver's */

static const char conf_text[] =
	"[gateway]\nname = hosts\nburst = 32\n"
	"[port dc]\nrole = dc\ndev = net_ring_mh_dc\nmac = 02:00:00:00:01:fe\n"
	"ipv4 = 10.1.0.254/16\nneighbor = 10.1.0.1 02:00:00:00:01:01\nlink_rate = 10G\n"
	"[port wan]\nrole = wan\ndev = net_ring_mh_wan\nmac = 02:00:00:00:0a:02\n"
	"ipv4 = 192.0.2.1/24\nneighbor = 192.0.2.2 02:00:00:00:0b:02\nlink_rate = 10G\n"
	"[peer site-b]\nport = wan\nremote = 192.0.2.2\nvni = 100\nrtt = 1ms\n"
	"prefix = 10.2.0.0/16\n"
	"[congestion]\nmechanisms = A,C\nmarker = none\ncnp_interval = 4us\n";

/* What a host did for one event. */
struct mh_actions {
	bool cnp; /* a_data: a CNP goes to the local sender */
	int reason; /* a_data: enum proxy_cnp_reason, -1 = not answered */
	bool ce_cleared, ce_set;
	uint8_t ecn_out; /* not compared after a drop */
	bool trp_start, trp_skip; /* c_cnp */
	bool cnp_forward; /* c_cnp: the CNP goes on to the sender */
	uint64_t held; /* c_data: the QP's bytes in gateway memory */
};

/* Receiver CNPs' way on to the sender (gw_mech_c_config), set in both hosts. */
struct mh_policy {
	bool forward; /* cnp_forward */
	uint64_t gap_ns; /* cnp_forward_gap */
	uint64_t backlog; /* cnp_forward_backlog, bytes */
};

#define MH_DATA_BYTES 1048 /* a c_data packet: the simulator's 1000-byte payload + 48 */

enum mh_kind { MH_A_DATA, MH_A_ACK, MH_C_DATA, MH_C_ACK, MH_C_CNP };

struct mh_event {
	uint64_t t_ns;
	enum mh_kind kind;
	uint8_t ecn;
	bool mark, drop, nocnp;
};

/* ------------------------------------------------------------ the trace */

static int
mh_ecn(const char *w, uint8_t *ecn)
{
	static const char *const names[] = { "not", "ect1", "ect0", "ce" };

	for (uint8_t i = 0; i < 4; i++)
		if (strcmp(w, names[i]) == 0) {
			*ecn = i; /* RFC 3168 codepoints: not 0, ect1 1, ect0 2, ce 3 */
			return 0;
		}
	return -1;
}

/* Parse one trace line into *e; 1 = event, 0 = blank or comment. Fails the test on bad lines. */
static int
mh_parse_line(char *line, struct mh_event *e)
{
	char *save = NULL, *w;
	unsigned long long t;
	char *end;

	memset(e, 0, sizeof(*e));
	w = strtok_r(line, " \t\n", &save);
	if (w == NULL || w[0] == '#')
		return 0;
	t = strtoull(w, &end, 10);
	assert_true(*end == '\0');
	e->t_ns = t;
	w = strtok_r(NULL, " \t\n", &save);
	assert_non_null(w);
	if (strcmp(w, "a_data") == 0 || strcmp(w, "c_data") == 0) {
		e->kind = w[0] == 'a' ? MH_A_DATA : MH_C_DATA;
		w = strtok_r(NULL, " \t\n", &save);
		assert_non_null(w);
		assert_int_equal(mh_ecn(w, &e->ecn), 0);
		while ((w = strtok_r(NULL, " \t\n", &save)) != NULL) {
			assert_true(e->kind == MH_A_DATA);
			if (strcmp(w, "mark") == 0)
				e->mark = true;
			else if (strcmp(w, "drop") == 0)
				e->drop = true;
			else if (strcmp(w, "nocnp") == 0)
				e->nocnp = true;
			else
				fail_msg("trace: unknown flag '%s'", w);
		}
		return 1;
	}
	if (strcmp(w, "a_ack") == 0)
		e->kind = MH_A_ACK;
	else if (strcmp(w, "c_ack") == 0)
		e->kind = MH_C_ACK;
	else if (strcmp(w, "c_cnp") == 0)
		e->kind = MH_C_CNP;
	else
		fail_msg("trace: unknown event '%s'", w);
	assert_null(strtok_r(NULL, " \t\n", &save));
	return 1;
}

/* ------------------------------------------------------------ the dataplane host */

static struct ls_runtime rt;
static struct dp_worker *w;
static struct rte_ring *rx_ring[LS_MAX_PORTS], *tx_ring[LS_MAX_PORTS];
static unsigned int dc_port, wan_port;

struct mh_dp {
	uint32_t a_psn, c_psn; /* next data PSN of each QP */
};

/* An mbuf holding the IP packet of a RoCE frame, its meta and flow key. */
static struct rte_mbuf *
mh_dp_packet(const uint8_t src[4], const uint8_t dst[4], uint8_t opcode, uint32_t dqpn,
	     uint32_t psn, uint8_t ecn, enum dp_class cls, uint16_t payload,
	     struct pkt_meta *meta, struct flow_key *k)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rt.pool);
	struct ut_pkt p;

	assert_non_null(m);
	ut_build(&p, &(struct ut_spec){ .family = 4, .tos = (uint8_t)(26 << 2 | ecn),
				       .sport = 49152, .roce = true, .opcode = opcode,
				       .dqpn = dqpn, .psn = psn, .payload = payload });
	memcpy(p.b + p.l3_off + 12, src, 4);
	memcpy(p.b + p.l3_off + 16, dst, 4);
	ut_ip4_fix_csum(p.b + p.l3_off);
	memcpy(rte_pktmbuf_append(m, p.ip_len), p.b + p.l3_off, p.ip_len);
	memset(meta, 0, sizeof(*meta));
	meta->l3 = PKT_L3_IP4;
	meta->ip_len = p.ip_len;
	meta->tos = (uint8_t)(26 << 2 | ecn);
	meta->cls = (uint8_t)cls;
	meta->opcode = opcode;
	meta->sport = 49152;
	meta->dport = 4791;
	meta->dqpn = dqpn;
	meta->psn = psn;
	dp_flow_key(rte_pktmbuf_mtod(m, const uint8_t *), PKT_L3_IP4, meta->sport, dqpn, k);
	return m;
}

static void
mh_dp_flush(struct dp_tx *tx)
{
	for (unsigned int p = 0; p < LS_MAX_PORTS; p++)
		for (unsigned int i = 0; i < tx->n[p]; i++)
			rte_pktmbuf_free(tx->pkts[p][i]);
}

static void
mh_dp_run(struct mh_dp *h, const struct mh_event *e, struct mh_actions *out)
{
	static const uint8_t local[4] = { 10, 1, 0, 1 }, remote[4] = { 10, 2, 0, 2 };
	const struct dp_conf *c = rt.dp;
	const struct dp_clock clk = { .tsc = T0 + e->t_ns, .ns = T0 + e->t_ns };
	struct dp_mech_counters *mc = &w->counters.mech;
	struct dp_mech_counters before = *mc;
	struct dp_tm_counters tmc = { 0 };
	static struct dp_tx tx;
	struct dp_roce_flow rf;
	struct pkt_meta meta;
	struct flow_key k;
	struct rte_mbuf *m;
	bool absorb = false;

	memset(out, 0, sizeof(*out));
	out->reason = -1;
	memset(tx.n, 0, sizeof(tx.n));
	memset(tx.own, 0, sizeof(tx.own));
	switch (e->kind) {
	case MH_A_DATA: {
		struct flow_entry *fe;

		m = mh_dp_packet(local, remote, 0x0a /* RDMA WRITE only */, RECEIVER_QPN,
				 h->a_psn++, e->ecn, DP_CLASS_ROCE_DATA, 64, &meta, &k);
		fe = dp_roce_dc(w, c, &meta, 0, &clk, &k, flow_table_hash(&k),
				qpn_learn_pair_hash(k.family, k.src, k.dst), &absorb);
		if (e->nocnp) {
			/* Not a packet of room toward the DC: the CNP is never built. */
			tx.n[c->dc_port] = DP_TX_MAX;
		}
		dp_signal(w, c, m, e->mark, e->drop, fe, &tmc, &clk, &tx);
		if (e->nocnp)
			tx.n[c->dc_port] = 0;
		out->cnp = mc->cnp_sent != before.cnp_sent;
		if (out->cnp || tmc.cnp_failed != 0)
			out->reason = PROXY_CNP_SENT;
		else if (mc->cnp_suppressed != before.cnp_suppressed)
			out->reason = PROXY_CNP_SUPPRESSED_RATE;
		else if (mc->cnp_no_qpn != before.cnp_no_qpn)
			out->reason = PROXY_CNP_NO_QPN;
		out->ce_cleared = mc->ce_cleared != before.ce_cleared;
		out->ce_set = tmc.ce_written != 0;
		out->ecn_out = dp_ip_ecn(rte_pktmbuf_mtod(m, const uint8_t *));
		rte_pktmbuf_free(m);
		break;
	}
	case MH_A_ACK:
		/* The remote receiver acknowledges the last data packet. */
		m = mh_dp_packet(remote, local, 0x11 /* ACK */, SENDER_QPN, h->a_psn - 1, ECN_ECT0,
				 DP_CLASS_ROCE_ACK, 64, &meta, &k);
		(void)dp_roce_wan(w, c, m, &meta, 0, &clk, &rf);
		rte_pktmbuf_free(m);
		break;
	case MH_C_DATA: {
		struct hold_entry *he;

		/* 44 bytes of IPv4, UDP, BTH and ICRC around the payload. */
		m = mh_dp_packet(remote, local, 0x0a, LRECEIVER_QPN, h->c_psn++, e->ecn,
				 DP_CLASS_ROCE_DATA, MH_DATA_BYTES - 44, &meta, &k);
		assert_int_equal(m->pkt_len, MH_DATA_BYTES);
		he = dp_roce_wan(w, c, m, &meta, 0, &clk, &rf);
		/* The traffic manager's step of dataplane/pipeline.c. */
		if (he != NULL && dp_hold_waits(c, he, m->pkt_len, &clk))
			assert_true(hold_push(he, m, m->pkt_len));
		else
			rte_pktmbuf_free(m);
		out->held = he != NULL ? he->bytes : 0;
		break;
	}
	case MH_C_ACK:
		m = mh_dp_packet(local, remote, 0x11, RSENDER_QPN, h->c_psn - 1, ECN_ECT0,
				 DP_CLASS_ROCE_ACK, 64, &meta, &k);
		(void)dp_roce_dc(w, c, &meta, 0, &clk, &k, flow_table_hash(&k), 0, &absorb);
		rte_pktmbuf_free(m);
		break;
	case MH_C_CNP:
		m = mh_dp_packet(local, remote, 0x81 /* CNP */, RSENDER_QPN, 0, ECN_NOT_ECT,
				 DP_CLASS_ROCE_CNP, 64, &meta, &k);
		(void)dp_roce_dc(w, c, &meta, 0, &clk, &k, flow_table_hash(&k), 0, &absorb);
		rte_pktmbuf_free(m);
		out->cnp_forward = !absorb;
		/* Every CNP must reach the policy: the QP is known to the host. */
		assert_int_equal(mc->trp_no_flow, before.trp_no_flow);
		assert_int_equal(mc->trp_table_full, before.trp_table_full);
		out->trp_skip = mc->trp_upstream_ce != before.trp_upstream_ce;
		out->trp_start = mc->trp_cnps != before.trp_cnps && !out->trp_skip;
		break;
	}
	mh_dp_flush(&tx);
}

/* A fresh worker state for each trace (flow table, learners, hold slots, counters). */
static void
mh_dp_reset(void)
{
	for (unsigned int i = 0; i < HOLD_SLOTS; i++) {
		struct hold_entry *he = &w->hold.e[i];

		while (hold_count(he) != 0)
			rte_pktmbuf_free(hold_pop(he, hold_head(he)->pkt_len));
	}
	memset(w->flows.e, 0, sizeof(*w->flows.e) * (w->flows.mask + 1));
	flow_table_init(&w->flows, w->flows.e, w->flows.mask + 1, w->flows.idle_ns);
	memset(w->learn_src.slots, 0, qpn_learn_mem_size(w->learn_src.mask + 1));
	memset(w->learn_dst.slots, 0, qpn_learn_mem_size(w->learn_dst.mask + 1));
	for (unsigned int i = 0; i < HOLD_SLOTS; i++) {
		w->hold.e[i].used = false;
		trp_init(&w->hold.e[i].trp);
	}
	w->hold.used = 0;
	memset(&w->counters, 0, sizeof(w->counters));
}

/* ------------------------------------------------------------ the simulator host */

struct mh_sim {
	struct sim *s;
	struct sim_gw *gw;
	struct sim_gw_port *gp; /* gateway 2's WAN egress */
	uint32_t wan, dc; /* gateway 2's WAN and DC ports (global indexes) */
	uint32_t fa, fc; /* flow host 0 -> 1 (mechanism A), 1 -> 0 (mechanism C) */
	uint32_t a_seq, c_seq; /* next data byte of each flow */
	struct mh_policy pol; /* mech_c.forward_cnp, cnp_gap, forward_backlog */
	char dir[64];
};

static void
mh_write(const char *dir, const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
mh_sim_init(struct mh_sim *h)
{
	struct sim *s = calloc(1, sizeof(*s));
	const struct sim_node *n;
	char topo[128], flows[128];

	assert_non_null(s);
	snprintf(h->dir, sizeof(h->dir), "/tmp/ut_mech_hosts_%d", (int)getpid());
	assert_true(mkdtemp(strcat(h->dir, "_XXXXXX")) != NULL);
	/* host 0 - switch 2 == switch 3 - host 1: both switches gateways. */
	mh_write(h->dir, "topo.txt",
		 "4 2 3\n2 3\n0 2 10Gbps 1us 0\n2 3 10Gbps 1ms 0\n3 1 10Gbps 1us 0\n");
	mh_write(h->dir, "flow.txt", "2\n0 1 3 100 1000000 2.0\n1 0 3 100 1000000 2.0\n");
	snprintf(topo, sizeof(topo), "%s/topo.txt", h->dir);
	snprintf(flows, sizeof(flows), "%s/flow.txt", h->dir);
	sim_config_defaults(&s->cfg);
	s->cfg.mechanisms = SIM_MECH_A | SIM_MECH_C;
	s->cfg.a_qpn_learning = SIM_QPN_INBAND;
	s->cfg.a_cnp_interval_ns = 4000;
	s->cfg.c_forward_cnp = h->pol.forward;
	s->cfg.c_cnp_gap_ns = h->pol.gap_ns;
	s->cfg.c_forward_backlog = h->pol.backlog;
	assert_int_equal(s->cfg.payload_bytes + SIM_HDR_BYTES, MH_DATA_BYTES);
	s->cfg.c_upstream_ce_window_ns = gw_mech_c_upstream_ce_window_default_ns(
		CC_DEFAULT_DC_RTT_NS);
	assert_int_equal(sim_config_validate(&s->cfg, stderr), 0);
	assert_int_equal(sim_topo_load(s, topo), 0);
	assert_int_equal(sim_flows_load(s, flows), 0);
	assert_int_equal(sim_topo_routes(s), 0);
	assert_int_equal(sim_net_pool_init(s), 0);
	assert_int_equal(sim_events_init(s, 1024, 4096), 0);
	assert_int_equal(sim_net_setup(s), 0);
	assert_int_equal(sim_gw_setup(s), 0);
	assert_int_equal(sim_host_setup(s), 0);
	h->s = s;
	n = &s->nodes[2];
	h->gw = n->gw;
	assert_non_null(h->gw);
	h->wan = h->dc = SIM_NONE;
	for (uint32_t k = 0; k < n->nports; k++) {
		uint32_t p = n->port_base + k;

		if (s->ports[p].wan) {
			h->wan = p;
			h->gp = s->ports[p].gwp;
		} else {
			h->dc = p;
		}
	}
	assert_true(h->wan != SIM_NONE && h->dc != SIM_NONE && h->gp != NULL);
	h->fa = s->flows[0].src == 0 ? 0 : 1;
	h->fc = 1 - h->fa;
	assert_int_equal(s->flows[h->fa].src, 0);
	assert_int_equal(s->flows[h->fc].src, 1);
	/* The simulator's own upstream-CE window and reaction point are the gateway's. */
	assert_int_equal(h->gw->c_policy.upstream_ce_window_ns,
			 rt.dp->mech.c_policy.upstream_ce_window_ns);
	assert_memory_equal(&h->gw->c_cfg, &rt.dp->mech.trp, sizeof(h->gw->c_cfg));
}

static void
mh_sim_fini(struct mh_sim *h)
{
	struct sim *s = h->s;
	char path[128];

	sim_free(s);
	free(s);
	snprintf(path, sizeof(path), "%s/topo.txt", h->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/flow.txt", h->dir);
	unlink(path);
	rmdir(h->dir);
}

static uint32_t
mh_sim_pkt(struct mh_sim *h, uint32_t flow, enum sim_pkt_type type, uint32_t seq, uint8_t ecn)
{
	uint32_t p = sim_pkt_alloc(h->s);
	struct sim_pkt *pkt = &h->s->pkts[p];

	memset(pkt, 0, sizeof(*pkt));
	pkt->flow = flow;
	pkt->type = (uint8_t)type;
	pkt->seq = seq;
	pkt->ecn = ecn;
	pkt->size = type == SIM_PKT_DATA ? (uint16_t)(h->s->cfg.payload_bytes + SIM_HDR_BYTES) :
					   SIM_CTRL_BYTES;
	pkt->dst = h->s->flows[flow].dst;
	return p;
}

static void
mh_sim_run(struct mh_sim *h, const struct mh_event *e, struct mh_actions *out)
{
	struct sim *s = h->s;
	struct sim_gw *gw = h->gw;
	const struct sim_gw before = *gw; /* its counters */
	struct sim_node *n = &s->nodes[gw->node];
	uint32_t payload = s->cfg.payload_bytes;
	uint32_t p;

	memset(out, 0, sizeof(*out));
	out->reason = -1;
	s->now_ns = T0 + e->t_ns;
	switch (e->kind) {
	case MH_A_DATA: {
		struct sim_pkt *pkt;

		p = mh_sim_pkt(h, h->fa, SIM_PKT_DATA, h->a_seq, e->ecn);
		h->a_seq += payload;
		pkt = &s->pkts[p];
		sim_gw_signal(s, h->gp, pkt, e->mark, e->drop);
		out->cnp = gw->cnp_sent != before.cnp_sent;
		if (out->cnp)
			out->reason = PROXY_CNP_SENT;
		else if (gw->cnp_suppressed != before.cnp_suppressed)
			out->reason = PROXY_CNP_SUPPRESSED_RATE;
		else if (gw->cnp_no_qpn != before.cnp_no_qpn)
			out->reason = PROXY_CNP_NO_QPN;
		/*
		 * Read off the packet: the simulator's ce_cleared statistic also
		 * counts a covered mark that was never written (the packet
		 * leaves ECT(0) either way); the dataplane's counts CE removed.
		 */
		out->ce_cleared = !e->drop && e->ecn == SIM_ECN_CE && pkt->ecn != SIM_ECN_CE;
		out->ce_set = !e->drop && e->ecn != SIM_ECN_CE && pkt->ecn == SIM_ECN_CE;
		out->ecn_out = pkt->ecn;
		sim_pkt_free(s, p);
		break;
	}
	case MH_A_ACK:
		p = mh_sim_pkt(h, h->fa, SIM_PKT_ACK, h->a_seq, SIM_ECN_NOT_ECT);
		if (!sim_gw_ingress(s, n, h->wan, h->dc, p))
			sim_pkt_free(s, p);
		break;
	case MH_C_DATA:
		p = mh_sim_pkt(h, h->fc, SIM_PKT_DATA, h->c_seq, e->ecn);
		h->c_seq += payload;
		/* Held by the TRP (gateway DRAM) or on its way: either way the host's. */
		if (!sim_gw_ingress(s, n, h->wan, h->dc, p))
			sim_pkt_free(s, p);
		out->held = gw->fs[h->fc].shape_bytes;
		break;
	case MH_C_ACK:
		p = mh_sim_pkt(h, h->fc, SIM_PKT_ACK, h->c_seq, SIM_ECN_NOT_ECT);
		if (!sim_gw_ingress(s, n, h->dc, h->wan, p))
			sim_pkt_free(s, p);
		break;
	case MH_C_CNP:
		p = mh_sim_pkt(h, h->fc, SIM_PKT_CNP, 0, SIM_ECN_NOT_ECT);
		if (!sim_gw_ingress(s, n, h->dc, h->wan, p))
			sim_pkt_free(s, p);
		out->trp_skip = gw->trp_skipped_upstream != before.trp_skipped_upstream;
		out->trp_start = gw->trp_cnps != before.trp_cnps;
		out->cnp_forward = gw->fwd_cnp_dropped == before.fwd_cnp_dropped;
		break;
	}
}

/* ------------------------------------------------------------ the comparison */

/* The simulator's actions a, as a host whose CNP could not be built carries them out. */
static void
mh_cnp_failed(const struct mh_event *e, struct mh_actions *a)
{
	struct gw_mech_a_in in = { .mark = e->mark, .drop = e->drop, .ecn = e->ecn };
	struct gw_mech_a_actions ga = { .send_cnp = a->cnp, .set_ce = a->ce_set,
					.ecn_out = a->ecn_out };

	if (!a->cnp)
		return;
	/* Covered by the CNP: an arrived CE was cleared, or the marker's CE not written. */
	ga.clear_ce = a->ce_cleared || (e->mark && gw_mech_ect(e->ecn) && !a->ce_set);
	gw_mech_a_cnp_failed(&in, &ga);
	a->cnp = ga.send_cnp;
	a->ce_set = ga.set_ce;
	a->ce_cleared = ga.clear_ce;
	a->ecn_out = ga.ecn_out;
}

/* What a trace did, counted on the dataplane host (the simulator's agrees). */
struct mh_counts {
	unsigned int cnps; /* gateway CNPs sent (mechanism A) */
	unsigned int skips; /* receiver CNPs of upstream congestion */
	unsigned int absorbed; /* receiver CNPs that went no further */
	uint64_t held_max; /* most bytes one QP held */
};

/* The gateway's policy as config: the test's text with the [congestion] keys of pol. */
static void
mh_dp_policy(const struct mh_policy *pol)
{
	char text[sizeof(conf_text) + 160];

	snprintf(text, sizeof(text),
		 "%scnp_forward = %s\ncnp_forward_gap = %" PRIu64 "ns\n"
		 "cnp_forward_backlog = %" PRIu64 "\n",
		 conf_text, pol->forward ? "yes" : "no", pol->gap_ns, pol->backlog);
	assert_int_equal(ut_runtime_reload(&rt, "ut_mh", text), 0);
	assert_int_equal(rt.dp->mech.c_policy.forward_cnp, pol->forward);
	assert_int_equal(rt.dp->mech.c_policy.cnp_gap_ns, pol->gap_ns);
	assert_int_equal(rt.dp->mech.c_policy.forward_backlog_bytes, pol->backlog);
}

/* Run trace through both hosts under pol; returns the number of events. */
static unsigned int
mh_run_trace(const char *trace, const struct mh_policy *pol, struct mh_counts *cnt)
{
	char *text = strdup(trace), *save = NULL, *line;
	struct mh_dp dh = { .a_psn = 100, .c_psn = 500 };
	struct mh_sim sh = { .pol = *pol };
	unsigned int n = 0, lineno = 0;
	uint64_t last_t = 0;

	assert_non_null(text);
	memset(cnt, 0, sizeof(*cnt));
	mh_dp_reset();
	mh_dp_policy(pol);
	mh_sim_init(&sh);
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		struct mh_actions da, sa;
		struct mh_event e;

		lineno++;
		if (mh_parse_line(line, &e) == 0)
			continue;
		assert_true(e.t_ns >= last_t);
		last_t = e.t_ns;
		mh_dp_run(&dh, &e, &da);
		mh_sim_run(&sh, &e, &sa);
		if (e.nocnp)
			mh_cnp_failed(&e, &sa);
		if (da.cnp != sa.cnp || da.reason != sa.reason || da.ce_cleared != sa.ce_cleared ||
		    da.ce_set != sa.ce_set || (!e.drop && e.kind == MH_A_DATA &&
					       da.ecn_out != sa.ecn_out) ||
		    da.trp_start != sa.trp_start || da.trp_skip != sa.trp_skip ||
		    da.cnp_forward != sa.cnp_forward || da.held != sa.held)
			fail_msg("trace line %u (t %" PRIu64 " ns): dataplane cnp %d reason %d "
				 "cleared %d set %d ecn %u trp %d skip %d fwd %d held %" PRIu64
				 "; simulator cnp %d reason %d cleared %d set %d ecn %u trp %d "
				 "skip %d fwd %d held %" PRIu64,
				 lineno, e.t_ns, da.cnp, da.reason, da.ce_cleared, da.ce_set,
				 da.ecn_out, da.trp_start, da.trp_skip, da.cnp_forward, da.held,
				 sa.cnp, sa.reason, sa.ce_cleared, sa.ce_set, sa.ecn_out,
				 sa.trp_start, sa.trp_skip, sa.cnp_forward, sa.held);
		cnt->cnps += da.cnp;
		cnt->skips += da.trp_skip;
		cnt->absorbed += e.kind == MH_C_CNP && !da.cnp_forward;
		if (da.held > cnt->held_max)
			cnt->held_max = da.held;
		n++;
	}
	mh_sim_fini(&sh);
	free(text);
	return n;
}

/*
 * Mechanism A: no QPN yet, then learned; marks, CE from the DC, drops, the
 * CNP rate limit (4 us), a CNP that cannot be built, unmarked traffic.
 */
static const char trace_a[] =
	"# t_ns event\n"
	"0      a_data ect0\n"
	"100    a_data ect0 mark\n" /* signal, QPN unknown: the mark is written */
	"200    a_data ce\n" /* CE from the DC, QPN unknown: kept */
	"300    a_data ect0 drop\n"
	"400    a_ack\n" /* the sender QPN is known from here */
	"500    a_data ect0 mark\n" /* CNP, covered: leaves ECT(0) */
	"600    a_data ce\n" /* within 4 us: suppressed, CE kept */
	"700    a_data ect0 mark\n"
	"5000   a_data ce\n" /* CNP again, CE cleared */
	"5100   a_data ect1\n"
	"10000  a_data ect0 mark nocnp\n" /* no room for the CNP: the mark stays */
	"10100  a_data ect0 mark\n" /* the failed CNP still counts for the limit */
	"20000  a_data ect0 drop\n" /* a drop is answered, nothing written */
	"20100  a_data not mark\n" /* marked not-ECT: answered only by the limit */
	"30000  a_data not mark\n"
	"40000  a_data ce nocnp\n"
	"40100  a_data ect0\n";

/*
 * Mechanism C: CNPs of a QP whose data came clean start shaping; after a
 * CE arrival from the WAN they are skipped for the window (20 us) and
 * start shaping again once it has passed.
 */
static const char trace_c[] =
	"0      c_data ect0\n"
	"100    c_data ect0\n"
	"200    c_ack\n"
	"1000   c_cnp\n" /* clean data: shaping starts */
	"2000   c_data ce\n" /* marked before the WAN */
	"3000   c_cnp\n" /* 1 us later: skipped */
	"21000  c_cnp\n" /* 19 us later: still skipped */
	"22001  c_cnp\n" /* 20.001 us later: past the window, shaping */
	"30000  c_data ect0\n"
	"31000  c_cnp\n";

/* Both mechanisms interleaved, times crossing the CNP interval and the window. */
static const char trace_ac[] =
	"0      a_data ect0\n"
	"10     c_data ect0\n"
	"20     c_ack\n"
	"30     a_ack\n"
	"1000   a_data ce\n"
	"1010   c_data ce\n"
	"1020   c_cnp\n"
	"2000   a_data ect0 mark\n"
	"4999   a_data ect0 mark\n"
	"5000   a_data ect0 mark\n"
	"21010  c_cnp\n"
	"21011  c_cnp\n"
	"22000  a_data ce nocnp\n"
	"22100  a_data ce\n"
	"26000  a_data ce\n"
	"26001  c_data ect1\n"
	"26002  c_cnp\n";

/* Every receiver CNP goes on (the default), and none does (cnp_forward = no). */
static const struct mh_policy pol_forward = { .forward = true };
static const struct mh_policy pol_absorb = { .forward = false };

static void
test_trace_mech_a(void **state)
{
	struct mh_counts cnt;

	(void)state;
	assert_int_equal(mh_run_trace(trace_a, &pol_forward, &cnt), 17);
	/* The trace exercises what it says: CNPs were sent (and refused). */
	assert_true(cnt.cnps >= 3);
}

static void
test_trace_mech_c(void **state)
{
	struct mh_counts cnt;

	(void)state;
	assert_int_equal(mh_run_trace(trace_c, &pol_forward, &cnt), 10);
	assert_int_equal(cnt.skips, 2);
	assert_int_equal(cnt.absorbed, 0);
}

/*
 * cnp_forward = no: the CNPs that start shaping go no further, the two of
 * upstream congestion still go on to the sender.
 */
static void
test_trace_mech_c_absorb(void **state)
{
	struct mh_counts cnt;

	(void)state;
	assert_int_equal(mh_run_trace(trace_c, &pol_absorb, &cnt), 10);
	assert_int_equal(cnt.skips, 2);
	assert_int_equal(cnt.absorbed, 3);
}

/*
 * cnp_forward_gap = 10us: one receiver CNP per QP per 10 us goes on; a CNP
 * of upstream congestion always goes on, and the gap runs from it too.
 */
static const char trace_c_gap[] =
	"0      c_data ect0\n"
	"100    c_data ect0\n"
	"200    c_ack\n"
	"1000   c_cnp\n" /* the first: on to the sender */
	"3000   c_cnp\n" /* 2 us later: absorbed */
	"10999  c_cnp\n" /* 9.999 us: absorbed */
	"11000  c_cnp\n" /* 10 us: on */
	"12000  c_data ce\n" /* marked before the WAN */
	"13000  c_cnp\n" /* upstream, 2 us after the last: on all the same */
	"22999  c_cnp\n" /* still upstream (within 20 us of the CE): on */
	"32998  c_cnp\n" /* past the window, 9.999 us after the last forwarded: absorbed */
	"32999  c_cnp\n"; /* 10 us: on */

static void
test_trace_mech_c_gap(void **state)
{
	const struct mh_policy pol = { .forward = true, .gap_ns = 10000 };
	struct mh_counts cnt;

	(void)state;
	assert_int_equal(mh_run_trace(trace_c_gap, &pol, &cnt), 12);
	assert_int_equal(cnt.skips, 2);
	assert_int_equal(cnt.absorbed, 3);
}

/*
 * cnp_forward_backlog = 3000 bytes: a receiver CNP goes on only while its
 * QP holds at least that much in gateway memory (three 1048-byte packets).
 */
static const char trace_c_backlog[] =
	"0      c_data ect0\n"
	"100    c_data ect0\n"
	"200    c_ack\n"
	"1000   c_cnp\n" /* shaping starts, nothing held: absorbed */
	"1100   c_data ect0\n"
	"1200   c_data ect0\n"
	"1300   c_data ect0\n"
	"1400   c_data ect0\n"
	"1500   c_data ect0\n"
	"1600   c_data ect0\n"
	"1700   c_data ect0\n"
	"1800   c_data ect0\n"
	"1900   c_data ect0\n"
	"2000   c_data ect0\n"
	"2100   c_data ect0\n"
	"2200   c_data ect0\n"
	"2300   c_data ect0\n"
	"2400   c_data ect0\n"
	"2500   c_cnp\n";

static void
test_trace_mech_c_backlog(void **state)
{
	const struct mh_policy pol = { .forward = true, .backlog = 3000 };
	struct mh_counts cnt;

	(void)state;
	assert_int_equal(mh_run_trace(trace_c_backlog, &pol, &cnt), 19);
	/* Both sides of the threshold were reached. */
	assert_true(cnt.held_max >= 3000);
	assert_int_equal(cnt.absorbed, 1);
}

static void
test_trace_mech_ac(void **state)
{
	struct mh_counts cnt;

	(void)state;
	assert_int_equal(mh_run_trace(trace_ac, &pol_forward, &cnt), 17);
	assert_true(cnt.cnps >= 2);
	assert_true(cnt.skips >= 1);
}

/*
 * The dataplane keeps a QP's hold slot, where the time of its last
 * forwarded CNP is, until the gap has run out, even once shaping is over
 * (the simulator keeps that time for every flow).
 */
static void
test_gap_keeps_slot(void **state)
{
	const struct mh_policy pol = { .forward = true, .gap_ns = 1000000 };
	static const char trace[] = "0 c_data ect0\n100 c_data ect0\n200 c_ack\n1000 c_cnp\n";
	struct mh_counts cnt;
	static struct dp_tx tx;
	struct dp_clock clk;
	struct hold_entry *he = NULL;

	(void)state;
	assert_int_equal(mh_run_trace(trace, &pol, &cnt), 4);
	assert_int_equal(cnt.absorbed, 0);
	assert_int_equal(w->hold.used, 1);
	for (unsigned int i = 0; i < HOLD_SLOTS; i++)
		if (w->hold.e[i].used)
			he = &w->hold.e[i];
	assert_non_null(he);
	assert_true(he->cnp_fwd);
	/* 500 us on, shaping is over; 1 ms after the forwarded CNP the slot goes. */
	clk = (struct dp_clock){ .tsc = T0 + 500000, .ns = T0 + 500000 };
	assert_false(trp_active(&rt.dp->mech.trp, &he->trp, clk.ns));
	memset(tx.n, 0, sizeof(tx.n));
	dp_hold_out(w, rt.dp, &clk, &tx);
	assert_int_equal(w->hold.used, 1);
	clk.tsc = clk.ns = T0 + 1000 + 1000000;
	dp_hold_out(w, rt.dp, &clk, &tx);
	assert_int_equal(w->hold.used, 0);
	assert_int_equal(tx.n[dc_port], 0);
}

/* The comparison can fail: a host that kept CE on a covered packet is caught. */
static void
test_trace_catches_difference(void **state)
{
	struct mh_dp dh = { .a_psn = 100, .c_psn = 500 };
	struct mh_sim sh = { .pol = { .forward = true } };
	struct mh_actions da, sa;
	struct mh_event e = { .t_ns = 0, .kind = MH_A_DATA, .ecn = ECN_ECT0 };

	(void)state;
	mh_dp_reset();
	mh_sim_init(&sh);
	mh_dp_run(&dh, &e, &da);
	mh_sim_run(&sh, &e, &sa);
	e.t_ns = 100;
	e.kind = MH_A_ACK;
	mh_dp_run(&dh, &e, &da);
	mh_sim_run(&sh, &e, &sa);
	/* The simulator alone is told the CNP fails: the answers must differ. */
	e.t_ns = 200;
	e.kind = MH_A_DATA;
	e.ecn = ECN_CE;
	mh_dp_run(&dh, &e, &da);
	mh_sim_run(&sh, &e, &sa);
	assert_true(da.cnp && sa.cnp);
	e.nocnp = true;
	mh_cnp_failed(&e, &sa);
	assert_true(da.cnp != sa.cnp && da.ecn_out != sa.ecn_out);
	mh_sim_fini(&sh);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_mech_a),
		cmocka_unit_test(test_trace_mech_c),
		cmocka_unit_test(test_trace_mech_c_absorb),
		cmocka_unit_test(test_trace_mech_c_gap),
		cmocka_unit_test(test_trace_mech_c_backlog),
		cmocka_unit_test(test_trace_mech_ac),
		cmocka_unit_test(test_gap_keeps_slot),
		cmocka_unit_test(test_trace_catches_difference),
	};
	int rc;

	(void)argc;
	if (ut_eal_init(argv[0], "ut_mh", 256) != 0)
		return 1;
	w = ut_runtime_init(&rt, "ut_mh", conf_text, 2047);
	if (w == NULL || ut_ports_create(rt.cfg, "ut_mh", 256, 1024, rx_ring, tx_ring, &dc_port, &wan_port) != 0 ||
	    ports_setup(rt.cfg, rt.pool, rt.port_ids, stderr) != 0 || ut_runtime_publish(&rt) != 0)
		return 1;
	rc = cmocka_run_group_tests_name("dataplane_mech_hosts", tests, NULL, NULL);
	ut_eal_fini();
	return rc;
}
