/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gateway nodes.  A gateway forwards like any switch (same MMU, PFC and
 * priorities) and adds, on its WAN side, the congestion/ code the Longspan
 * dataplane runs:
 *
 * - WAN egress marking (ecn_marker: RED with derived thresholds, sojourn
 *   or phantom), or the HPCC map like every switch (red-as-switch);
 * - mechanism A on the sending side: a data packet leaving for the WAN
 *   with CE (marked here, or upstream in the local DC) is answered with a
 *   gateway CNP to the local sender when proxy_cnp_decide() says so, after
 *   the QPN learner (or RDMA-CM) supplied the sender's QPN, and its CE is
 *   cleared per the CE policy;
 * - mechanism C on the receiving side: a receiver's CNP (or CNP-flagged
 *   ACK) leaving for the WAN starts the QP's temporary reaction point
 *   (trp), which shapes the QP's incoming data at once; packets that must
 *   wait sit in gateway DRAM, outside the switch buffer, until trp_allow()
 *   lets them go.
 *
 * All parameters come from cc_params_resolve() for the gateway's WAN link,
 * overridden by the INI's non-zero values.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sim.h"
#include "sim_gw.h"

static bool
sim_gw_is(const struct sim *s, uint32_t node)
{
	return s->nodes[node].gw != NULL;
}

/* Default gateways: the ends of the one link strictly longer than all others. */
static int
sim_gw_default_ids(struct sim *s, uint32_t *ids, uint32_t *n)
{
	uint64_t best = 0;
	uint32_t bp = SIM_NONE;
	bool tie = false;
	uint32_t i;

	for (i = 0; i < s->nports; i++) {
		const struct sim_port *p = &s->ports[i];

		if (p->delay_ns > best) {
			best = p->delay_ns;
			bp = i;
			tie = false;
		} else if (p->delay_ns == best && bp != SIM_NONE && p->peer != bp &&
			   s->ports[bp].peer != i) {
			tie = true;
		}
	}
	*n = 0;
	if (bp == SIM_NONE || tie)
		return 0;
	if (s->nodes[s->ports[bp].node].kind != SIM_NODE_SWITCH ||
	    s->nodes[s->ports[s->ports[bp].peer].node].kind != SIM_NODE_SWITCH)
		return 0;
	ids[0] = s->ports[bp].node;
	ids[1] = s->ports[s->ports[bp].peer].node;
	*n = 2;
	return 0;
}

/* Sites: connected components once the gateway-to-gateway links are cut. */
static int
sim_gw_sites(struct sim *s)
{
	uint32_t *stack = malloc(sizeof(uint32_t) * (s->nnodes + 1));
	uint8_t *seen = calloc(s->nnodes, 1);
	uint32_t site = 0;
	uint32_t i;

	if (stack == NULL || seen == NULL) {
		free(stack);
		free(seen);
		return -ENOMEM;
	}
	for (i = 0; i < s->nnodes; i++) {
		uint32_t sp = 0;

		if (seen[i])
			continue;
		seen[i] = 1;
		stack[sp++] = i;
		while (sp > 0) {
			uint32_t v = stack[--sp];
			const struct sim_node *n = &s->nodes[v];
			uint32_t k;

			s->nodes[v].site = site;
			for (k = 0; k < n->nports; k++) {
				const struct sim_port *p = &s->ports[n->port_base + k];
				uint32_t w = s->ports[p->peer].node;

				if (seen[w] || (sim_gw_is(s, v) && sim_gw_is(s, w)))
					continue;
				seen[w] = 1;
				stack[sp++] = w;
			}
		}
		site++;
	}
	free(stack);
	free(seen);
	return 0;
}

/* The BTH PSN of the packet carrying byte seq (NICs start QPs at a random PSN). */
static uint32_t
sim_gw_psn(const struct sim *s, const struct sim_flow *f, uint32_t seq)
{
	return (f->ipsn + seq / s->cfg.payload_bytes) & QPN_LEARN_PSN_MASK;
}

static void
sim_gw_key(const struct sim *s, const struct sim_flow *f, struct qpn_learn_key *k)
{
	uint32_t sip = sim_topo_ip(f->src);
	uint32_t dip = sim_topo_ip(f->dst);

	memset(k, 0, sizeof(*k));
	k->family = AF_INET;
	memcpy(k->src, &sip, 4);
	memcpy(k->dst, &dip, 4);
	k->dest_qpn = f->dqpn;
	(void)s;
}

static int
sim_gw_init_one(struct sim *s, struct sim_gw *gw, uint64_t wan_rtt, uint64_t dc_rtt,
		uint64_t nic_rate)
{
	const struct sim_config *c = &s->cfg;
	const struct sim_node *n = &s->nodes[gw->node];
	struct cc_link link = { 0 };
	struct cc_overrides ov = { 0 };
	struct proxy_cnp_params ap;
	struct trp_params tp;
	struct qpn_learn_params lp;
	const char *why = NULL;
	uint64_t wan_rate = 0;
	size_t entries = 1024;
	uint32_t k;

	gw->ports = calloc(n->nports, sizeof(*gw->ports));
	gw->fs = calloc(s->nflows ? s->nflows : 1, sizeof(*gw->fs));
	if (gw->ports == NULL || gw->fs == NULL)
		return -ENOMEM;
	for (k = 0; k < n->nports; k++) {
		struct sim_port *p = &s->ports[n->port_base + k];

		if (sim_gw_is(s, s->ports[p->peer].node)) {
			p->wan = 1;
			if (p->rate_bps > wan_rate)
				wan_rate = p->rate_bps;
			if (c->wan_buffer_bytes != 0 || (c->mechanisms & SIM_MECH_B)) {
				/* No PFC over the WAN: no headroom kept for it either. */
				n->mmu->total_hdrm -= n->mmu->headroom[k];
				n->mmu->headroom[k] = 0;
			}
		}
	}
	if (wan_rate == 0) {
		fprintf(stderr, "longspan-sim: gateway %u has no link to another gateway\n",
			gw->node);
		return -EINVAL;
	}
	link.rate_bps = wan_rate;
	link.rtt_ns = c->wan_rtt_ns ? c->wan_rtt_ns : wan_rtt;
	link.mtu_bytes = c->payload_bytes + SIM_HDR_BYTES;
	link.dc_rtt_ns = dc_rtt;
	/* What arrives at the WAN queue, and must be paused: every DC-facing port. */
	for (k = 0; k < n->nports; k++)
		if (!s->ports[n->port_base + k].wan)
			link.dc_rate_bps += s->ports[n->port_base + k].rate_bps;
	link.near_source_cnp = (c->mechanisms & SIM_MECH_A) != 0;
	ov.kmin_bytes = c->kmin_bytes;
	ov.kmax_bytes = c->kmax_bytes;
	ov.pmax_ppm = c->pmax_ppm;
	ov.target_delay_ns = c->sojourn_target_ns;
	ov.phantom_ratio_ppm = c->phantom_ppm;
	ov.cnp_interval_ns = c->a_cnp_interval_ns;
	ov.cut_interval_ns = c->c_cut_interval_ns;
	ov.hold_ns = c->c_hold_ns;
	/* Mechanism B's XOFF/XON are the WAN queue's: derive them for its size. */
	if ((c->mechanisms & SIM_MECH_B) && c->wan_buffer_bytes != 0)
		ov.buffer_bytes = c->wan_buffer_bytes;
	if (cc_params_resolve(&link, &ov, &gw->d, &why) < 0) {
		fprintf(stderr, "longspan-sim: gateway %u: parameter derivation: %s\n", gw->node,
			why ? why : "invalid");
		return -EINVAL;
	}
	if (c->phantom_threshold_bytes != 0)
		gw->d.phantom_threshold_bytes = c->phantom_threshold_bytes;
	if (c->mechanisms & SIM_MECH_B) {
		int rc = sim_gw_b_setup(s, gw);

		if (rc < 0)
			return rc;
	}

	for (k = 0; k < n->nports; k++) {
		struct sim_port *p = &s->ports[n->port_base + k];
		struct sim_gw_port *gp = &gw->ports[k];
		struct ecn_marker_params mp;
		enum ecn_marker_kind kind;

		if (!p->wan)
			continue;
		gp->gw = gw;
		p->gwp = gp;
		if (c->marker == SIM_MARKER_SWITCH)
			continue;
		kind = c->marker == SIM_MARKER_RED ? ECN_MARKER_RED :
		       c->marker == SIM_MARKER_SOJOURN ? ECN_MARKER_SOJOURN : ECN_MARKER_PHANTOM;
		cc_params_marker(&gw->d, kind, c->sojourn_codel, &mp);
		if (kind == ECN_MARKER_PHANTOM)
			mp.phantom.line_rate_bps = p->rate_bps;
		if (ecn_marker_init(&gp->marker, &mp, c->seed * 7919 + n->port_base + k, 0) < 0) {
			fprintf(stderr, "longspan-sim: gateway %u: %s marker parameters rejected\n",
				gw->node, ecn_marker_kind_name(kind));
			return -EINVAL;
		}
		gp->own_marker = true;
		gp->at_dequeue = ecn_marker_at_dequeue(&gp->marker);
	}

	ap.interval_ns = gw->d.cnp_interval_ns;
	ap.backoff_max_ns = c->a_cnp_backoff_max_ns;
	ap.ce_policy = c->a_ce_clear ? PROXY_CNP_CE_CLEAR_COVERED : PROXY_CNP_CE_KEEP;
	if (proxy_cnp_config_init(&gw->a_cfg.cnp, &ap) < 0)
		return -EINVAL;
	gw->a_cfg.enabled = (c->mechanisms & SIM_MECH_A) != 0;
	gw->a_cfg.dc_marks = c->a_dc_marks;
	trp_params_default(&tp, nic_rate, gw->d.hold_ns);
	if (c->c_min_rate_bps != 0)
		tp.min_rate_bps = c->c_min_rate_bps;
	if (c->c_cut_ppm != 0)
		tp.cut_ppm = c->c_cut_ppm;
	tp.cut_interval_ns = gw->d.cut_interval_ns;
	if (c->c_ramp_interval_ns != 0)
		tp.ramp_interval_ns = c->c_ramp_interval_ns;
	if (c->c_ramp_steps != 0)
		tp.ramp_steps = c->c_ramp_steps;
	gw->c_policy.upstream_ce_window_ns =
		!c->c_upstream_ce_check ? 0 :
		c->c_upstream_ce_window_ns ? c->c_upstream_ce_window_ns :
		gw_mech_c_upstream_ce_window_default_ns(gw->d.dc_rtt_ns);
	gw->c_policy.forward_cnp = c->c_forward_cnp;
	gw->c_policy.cnp_gap_ns = c->c_cnp_gap_ns;
	gw->c_policy.forward_backlog_bytes = c->c_forward_backlog;
	if (trp_config_init(&gw->c_cfg, &tp) < 0) {
		fprintf(stderr, "longspan-sim: gateway %u: TRP parameters rejected\n", gw->node);
		return -EINVAL;
	}
	while (entries < 2 * (size_t)s->nflows)
		entries *= 2;
	lp.idle_ns = gw->d.flow_idle_ns;
	lp.max_probe = 32;
	lp.psn_window = 1u << 22;
	gw->learn_mem = aligned_alloc(64, (qpn_learn_mem_size(entries) + 63) & ~(size_t)63);
	if (gw->learn_mem == NULL)
		return -ENOMEM;
	if (qpn_learn_init(&gw->learn, gw->learn_mem, entries, &lp) < 0)
		return -EINVAL;
	for (k = 0; k < s->nflows; k++) {
		struct sim_gw_flow *fs = &gw->fs[k];

		proxy_cnp_qp_init(&fs->a);
		trp_init(&fs->c);
		fs->shape_head = fs->shape_tail = SIM_NONE;
		fs->shape_event_ns = SIM_NEVER;
		/* RDMA-CM's REQ/REP cross the gateway before any data. */
		fs->qpn_cm = c->a_qpn_learning == SIM_QPN_CM;
	}
	return 0;
}

int
sim_gw_setup(struct sim *s)
{
	uint32_t ids[SIM_MAX_GATEWAYS];
	uint32_t nid = 0;
	uint64_t wan_rtt = 0, dc_rtt = 0, nic_rate = 0;
	uint32_t H = s->nhosts;
	uint32_t i, j;
	int rc;

	s->wan_fifo_bytes = s->cfg.wan_buffer_bytes;
	if (s->cfg.ngateways != 0) {
		nid = s->cfg.ngateways;
		memcpy(ids, s->cfg.gateways, sizeof(uint32_t) * nid);
	} else {
		sim_gw_default_ids(s, ids, &nid);
	}
	s->gws = calloc(nid ? nid : 1, sizeof(*s->gws));
	if (s->gws == NULL)
		return -ENOMEM;
	for (i = 0; i < nid; i++) {
		struct sim_gw *gw;

		if (ids[i] >= s->nnodes || s->nodes[ids[i]].kind != SIM_NODE_SWITCH) {
			fprintf(stderr, "longspan-sim: --gateways: node %u is not a switch\n",
				ids[i]);
			return -EINVAL;
		}
		if (s->nodes[ids[i]].gw != NULL) {
			fprintf(stderr, "longspan-sim: --gateways: node %u listed twice\n", ids[i]);
			return -EINVAL;
		}
		gw = calloc(1, sizeof(*gw));
		if (gw == NULL)
			return -ENOMEM;
		gw->index = i;
		gw->node = ids[i];
		s->nodes[ids[i]].gw = gw;
		s->nodes[ids[i]].role = SIM_ROLE_GATEWAY;
		s->gws[s->ngws++] = gw;
	}
	rc = sim_gw_sites(s);
	if (rc < 0)
		return rc;
	if (s->ngws == 0)
		return 0;
	for (i = 0; i < H; i++) {
		if (s->hosts[i].port != SIM_NONE && nic_rate == 0)
			nic_rate = s->ports[s->hosts[i].port].rate_bps;
		for (j = 0; j < H; j++) {
			const struct sim_pair *pr = &s->pair[(size_t)i * H + j];
			bool inter = s->nodes[s->hosts[i].node].site != s->nodes[s->hosts[j].node].site;

			if (inter && pr->rtt_ns > wan_rtt)
				wan_rtt = pr->rtt_ns;
			if (!inter && pr->rtt_ns > dc_rtt)
				dc_rtt = pr->rtt_ns;
		}
	}
	for (i = 0; i < s->ngws; i++) {
		struct sim_gw *gw = s->gws[i];

		gw->site = s->nodes[gw->node].site;
		rc = sim_gw_init_one(s, gw, wan_rtt ? wan_rtt : 1000000, dc_rtt ? dc_rtt : 10000,
				     nic_rate);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void
sim_gw_free(struct sim *s)
{
	uint32_t i;

	for (i = 0; i < s->ngws; i++) {
		sim_gw_b_free(s, s->gws[i]);
		free(s->gws[i]->ports);
		free(s->gws[i]->fs);
		free(s->gws[i]->learn_mem);
		free(s->gws[i]);
	}
	free(s->gws);
}

/* ------------------------------------------------------------ mechanism C */

static void
sim_gw_shape_arm(struct sim *s, struct sim_gw *gw, uint32_t fi)
{
	struct sim_gw_flow *fs = &gw->fs[fi];
	struct sim_node *n = &s->nodes[gw->node];

	while (fs->shape_head != SIM_NONE) {
		uint32_t p = fs->shape_head;
		struct sim_pkt *pkt = &s->pkts[p];
		struct trp_verdict v = trp_allow(&gw->c_cfg, &fs->c, pkt->size, s->now_ns);
		uint64_t t;

		if (fs->c.phase != TRP_INACTIVE) {
			fs->draining = 0;
		} else if (v.action == TRP_SEND) {
			/*
			 * The TRP handed the QP back with packets still in DRAM.
			 * Releasing them all at once would put a burst of up to
			 * a WAN BDP at the gateway's 400G into the DC; drain
			 * them at the QP's NIC line rate instead, the most its
			 * receiver can take (slower would never catch up with a
			 * sender that is not cut any more).
			 */
			if (!fs->draining) {
				(void)token_bucket_config_init(&fs->drain_cfg, gw->c_cfg.line_rate_bps,
							       gw->c_cfg.burst_bytes, CC_NS_PER_SEC);
				token_bucket_init(&fs->drain_cfg, &fs->drain, s->now_ns);
				fs->draining = 1;
			}
			if (!token_bucket_conform(&fs->drain_cfg, &fs->drain, pkt->size, s->now_ns,
						  true)) {
				v.action = TRP_DELAY;
				v.until_ns = s->now_ns + token_bucket_wait(&fs->drain_cfg, &fs->drain,
									   pkt->size, s->now_ns,
									   true);
			}
		}
		if (v.action == TRP_SEND) {
			fs->shape_head = pkt->next;
			if (fs->shape_head == SIM_NONE)
				fs->shape_tail = SIM_NONE;
			fs->shape_bytes -= pkt->size;
			gw->dram_bytes -= pkt->size;
			pkt->flags |= SIM_PKTF_SHAPED;
			sim_net_forward(s, n, fs->shape_in, fs->shape_out, p);
			if (fs->shape_head == SIM_NONE)
				fs->draining = 0;
			continue;
		}
		t = v.until_ns;
		{
			uint64_t tn = trp_next_event(&fs->c);

			if (tn != CC_TIME_NEVER && tn < t)
				t = tn;
		}
		if (t <= s->now_ns)
			t = s->now_ns + 1;
		if (t != fs->shape_event_ns) {
			fs->shape_event_ns = t;
			sim_schedule(s, t, SIM_EV_GW_SHAPE, gw->index * s->nflows + fi);
		}
		return;
	}
}

void
sim_gw_shape_event(struct sim *s, uint32_t idx)
{
	struct sim_gw *gw = s->gws[idx / s->nflows];
	uint32_t fi = idx % s->nflows;
	struct sim_gw_flow *fs = &gw->fs[fi];

	if (fs->shape_event_ns != s->now_ns)
		return;
	fs->shape_event_ns = SIM_NEVER;
	sim_gw_shape_arm(s, gw, fi);
}

/* A data packet from the WAN for the local DC: meter, then shape if needed. */
static bool
sim_gw_data_from_wan(struct sim *s, struct sim_gw *gw, uint32_t in_port, uint32_t out_port,
		     uint32_t p)
{
	struct sim_pkt *pkt = &s->pkts[p];
	struct sim_gw_flow *fs = &gw->fs[pkt->flow];
	struct trp_verdict v;

	rate_meter_add(&fs->meter, pkt->size, s->now_ns);
	/* CE already set when it reaches the destination side: marked before the WAN. */
	if (pkt->ecn == SIM_ECN_CE) {
		fs->wan_ce_ns = s->now_ns;
		fs->wan_ce_seen = 1;
	}
	if (!(s->cfg.mechanisms & SIM_MECH_C))
		return false;
	if (fs->c.phase == TRP_INACTIVE && fs->shape_head == SIM_NONE)
		return false;
	if (fs->shape_head == SIM_NONE) {
		v = trp_allow(&gw->c_cfg, &fs->c, pkt->size, s->now_ns);
		if (v.action == TRP_SEND)
			return false;
	}
	/* Hold it in gateway DRAM behind the QP's earlier packets. */
	sim_pkt_append(s, &fs->shape_head, &fs->shape_tail, p);
	fs->shape_in = in_port;
	fs->shape_out = out_port;
	fs->shape_bytes += pkt->size;
	gw->dram_bytes += pkt->size;
	if (gw->dram_bytes > gw->dram_max_bytes)
		gw->dram_max_bytes = gw->dram_bytes;
	gw->trp_delayed_pkts++;
	if (fs->shape_event_ns == SIM_NEVER)
		sim_gw_shape_arm(s, gw, pkt->flow);
	return true;
}

/* A receiver's CNP (or CNP-flagged ACK) leaving for the WAN. */
static bool
sim_gw_cnp_to_wan(struct sim *s, struct sim_gw *gw, uint32_t p)
{
	struct sim_pkt *pkt = &s->pkts[p];
	struct sim_gw_flow *fs = &gw->fs[pkt->flow];
	struct gw_mech_c_in cin;
	struct gw_mech_c_actions ca;

	if (!(s->cfg.mechanisms & SIM_MECH_C))
		return false;
	/*
	 * gw_mech_c_cnp() (congestion/gw_mech.h): a CNP whose QP's data arrived
	 * from the WAN CE-marked within upstream_ce_window does not start the
	 * TRP (the TRP would cut on every CNP down to its floor while the real
	 * queue, upstream, stays); forward_cnp and cnp_gap say whether it goes
	 * on to the sender. (With mechanism A and a known QPN the sending
	 * gateway clears those marks, so the upstream case rarely triggers.)
	 */
	cin.wan_ce_seen = fs->wan_ce_seen;
	cin.wan_ce_ns = fs->wan_ce_ns;
	cin.fwd_cnp_sent = fs->fwd_cnp_sent;
	cin.last_fwd_cnp_ns = fs->last_fwd_cnp_ns;
	cin.backlog_bytes = fs->shape_bytes;
	gw_mech_c_cnp(&gw->c_policy, &cin, s->now_ns, &ca);
	if (ca.skip_upstream) {
		gw->trp_skipped_upstream++;
	} else {
		trp_on_cnp(&gw->c_cfg, &fs->c, s->now_ns, fs->meter.rate_bps);
		gw->trp_cnps++;
		if (fs->shape_head != SIM_NONE) {
			fs->shape_event_ns = SIM_NEVER;
			sim_gw_shape_arm(s, gw, pkt->flow);
		}
	}
	/* Thin the stale end-to-end feedback while the gateway reacts for the sender. */
	if (!ca.forward) {
		gw->fwd_cnp_dropped++;
		if (pkt->type == SIM_PKT_CNP) {
			sim_pkt_free(s, p);
			return true;
		}
		pkt->flags &= (uint8_t)~SIM_PKTF_CNP;
		return false;
	}
	fs->fwd_cnp_sent = 1;
	fs->last_fwd_cnp_ns = s->now_ns;
	return false;
}

bool
sim_gw_ingress(struct sim *s, struct sim_node *n, uint32_t in_port, uint32_t out_port,
	       uint32_t p)
{
	struct sim_gw *gw = n->gw;
	struct sim_pkt *pkt = &s->pkts[p];
	bool in_wan = s->ports[in_port].wan;
	bool out_wan = s->ports[out_port].wan;

	if (pkt->flags & SIM_PKTF_CREDIT)
		sim_gw_b_wan_arrive(s, in_port, pkt);
	if (in_wan == out_wan)
		return false;
	if (pkt->type == SIM_PKT_DATA)
		return in_wan ? sim_gw_data_from_wan(s, gw, in_port, out_port, p) : false;
	if (in_wan) {
		/* ACK/NAK toward a local sender: teach the learner the sender QPN. */
		if (pkt->type == SIM_PKT_ACK || pkt->type == SIM_PKT_NACK) {
			const struct sim_flow *f = &s->flows[pkt->flow];
			uint32_t a = sim_topo_ip(f->dst), b = sim_topo_ip(f->src);
			uint8_t src[16] = { 0 }, dst[16] = { 0 };
			uint32_t seq = pkt->type == SIM_PKT_ACK && pkt->seq > 0 ? pkt->seq - 1 :
										  pkt->seq;
			enum qpn_learn_result r;

			memcpy(src, &a, 4);
			memcpy(dst, &b, 4);
			r = qpn_learn_on_ack(&gw->learn, AF_INET, src, dst, f->sqpn,
					     sim_gw_psn(s, f, seq), s->now_ns);
			gw->learn_results[r]++;
		}
		return false;
	}
	if (pkt->type == SIM_PKT_CNP ||
	    ((pkt->type == SIM_PKT_ACK || pkt->type == SIM_PKT_NACK) &&
	     (pkt->flags & SIM_PKTF_CNP)))
		return sim_gw_cnp_to_wan(s, gw, p);
	return false;
}

/* ------------------------------------------------------------ mechanism A */

/*
 * The congestion signal of one data packet leaving for the WAN: the
 * gateway's marker said mark, and/or the packet carries CE from the DC, or
 * the WAN egress dropped it (drop: nothing is written then). Feeds the QPN
 * learner, then carries out what gw_mech_a() (congestion/gw_mech.h, the code
 * the dataplane's dp_signal() runs too) decides: a CNP to the local sender,
 * the mark, a cleared CE.
 */
void
sim_gw_signal(struct sim *s, struct sim_gw_port *gp, struct sim_pkt *pkt, bool marked,
	      bool drop)
{
	struct sim_gw *gw = gp->gw;
	struct sim_flow *f = &s->flows[pkt->flow];
	struct sim_gw_flow *fs = &gw->fs[pkt->flow];
	struct gw_mech_a_actions a;
	struct gw_mech_a_in in;
	struct qpn_learn_key key;
	enum qpn_learn_result r;

	/* The simulator counts every mark its marker decided, covered or not. */
	if (marked && !drop && ecn_mark_action(pkt->ecn, false) == ECN_ACTION_SET_CE) {
		if (f->first_gw_mark_ns == SIM_NEVER)
			f->first_gw_mark_ns = s->now_ns;
		gp->marks++;
		if (gp->own_marker)
			s->st.marks_gw++;
		else
			s->st.marks++;
	}

	sim_gw_key(s, f, &key);
	r = qpn_learn_on_data(&gw->learn, &key, sim_gw_psn(s, f, pkt->seq), s->now_ns, NULL);
	gw->learn_results[r]++;

	in.mark = marked;
	in.drop = drop;
	in.ecn = pkt->ecn; /* enum sim_ecn spells the RFC 3168 codepoints */
	in.qp_tracked = true;
	in.qpn_known = fs->qpn_cm || r == QPN_LEARN_DATA_KNOWN;
	gw_mech_a(&gw->a_cfg, &fs->a, &in, s->now_ns, &a);
	if (a.answered) {
		switch (a.reason) {
		case PROXY_CNP_SENT:
			/* Scheduled, never refused here: gw_mech_a_cnp_failed() has no case. */
			gw->cnp_sent++;
			fs->cnp_pending++;
			sim_schedule(s, s->now_ns + s->cfg.a_cnp_delay_ns, SIM_EV_GW_CNP,
				     gw->index * s->nflows + pkt->flow);
			break;
		case PROXY_CNP_SUPPRESSED_RATE:
			gw->cnp_suppressed++;
			s->st.cnp_gw_suppressed++;
			break;
		default:
			gw->cnp_no_qpn++;
			s->st.cnp_gw_no_qpn++;
			break;
		}
	}
	if (drop)
		return;
	if (a.set_ce)
		pkt->ecn = SIM_ECN_CE;
	if (a.clear_ce) {
		pkt->ecn = a.ecn_out;
		gw->ce_cleared++;
		s->st.ce_cleared++;
	}
}

/*
 * Enqueue-time markers (RED, phantom) judge arrivals, and the signal is
 * handled there, as the dataplane's traffic manager does: mechanism A's CNP
 * does not wait for the marked packet's sojourn.
 */
void
sim_gw_on_enqueue(struct sim *s, struct sim_port *port, struct sim_pkt *pkt)
{
	struct sim_gw_port *gp = port->gwp;
	bool marked;

	if (gp->gw->b_on)
		sim_gw_b_wan_enqueue(s, port, pkt->prio);
	if (!gp->own_marker || gp->at_dequeue || pkt->type != SIM_PKT_DATA)
		return;
	/* RED on the queue ahead of the packet. */
	marked = ecn_marker_decide(&gp->marker, port->qbytes[pkt->prio] - pkt->size, 0,
				   pkt->size, s->now_ns) == ECN_VERDICT_MARK;
	sim_gw_signal(s, gp, pkt, marked, false);
	pkt->flags |= SIM_PKTF_GWDONE;
}

/* A data packet the WAN egress could not take: the strongest signal. */
void
sim_gw_on_drop(struct sim *s, struct sim_port *port, struct sim_pkt *pkt)
{
	if (pkt->type == SIM_PKT_DATA)
		sim_gw_signal(s, port->gwp, pkt, false, true);
}

/*
 * Dequeue: the HPCC-map RED of a switch (red-as-switch, as ns-3 marks at
 * dequeue) or the sojourn marker, then the signal.
 */
void
sim_gw_egress(struct sim *s, struct sim_node *n, struct sim_port *port, uint32_t p)
{
	struct sim_gw_port *gp = port->gwp;
	struct sim_pkt *pkt = &s->pkts[p];
	bool marked;

	(void)n;
	if (gp->gw->b_on)
		sim_gw_b_wan_dequeue(s, port, pkt);
	if (pkt->type != SIM_PKT_DATA)
		return;
	if (pkt->flags & SIM_PKTF_GWDONE) {
		pkt->flags &= (uint8_t)~SIM_PKTF_GWDONE;
		return;
	}
	if (!gp->own_marker)
		marked = s->cfg.ecn_enabled && sim_net_red(port, port->qbytes[pkt->prio]);
	else
		marked = ecn_marker_decide(&gp->marker, port->qbytes[pkt->prio],
					   s->now_ns - pkt->t_ns, pkt->size,
					   s->now_ns) == ECN_VERDICT_MARK;
	sim_gw_signal(s, gp, pkt, marked, false);
}

void
sim_gw_cnp_event(struct sim *s, uint32_t idx)
{
	struct sim_gw *gw = s->gws[idx / s->nflows];
	uint32_t fi = idx % s->nflows;
	struct sim_gw_flow *fs = &gw->fs[fi];
	struct sim_flow *f = &s->flows[fi];
	struct sim_node *n = &s->nodes[gw->node];
	struct sim_pkt *pkt;
	uint32_t out;
	uint32_t p;

	if (fs->cnp_pending > 0)
		fs->cnp_pending--;
	if (f->state != SIM_FLOW_ACTIVE)
		return;
	p = sim_pkt_alloc(s);
	pkt = &s->pkts[p];
	memset(pkt, 0, sizeof(*pkt));
	sim_pkt_ctrl_init(s, pkt, fi, SIM_PKT_CNP, 0, SIM_PKTF_GW);
	out = sim_net_route(s, n, pkt);
	if (out == SIM_NONE) {
		sim_pkt_free(s, p);
		return;
	}
	f->cnp_gw++;
	s->st.cnp_gw++;
	/* CNPs ride the strict-priority queue (DSCP 48 / PCP 6 on real NICs). */
	sim_net_enqueue(s, out, 0, p);
}
