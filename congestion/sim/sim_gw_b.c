/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mechanism B in the simulator's gateways: PFC terminated at the gateway's
 * DC side and the credit-based WAN hop, with the congestion/ state machines
 * the dataplane links (pfc.h, credit.h); this file only moves their
 * decisions onto simulated packets.
 *
 * Sending side (data leaving for the WAN). The WAN egress is the gateway's
 * own queue outside the shared buffer (as with [gateway] wan_buffer; with
 * wan_buffer 0 it is cc_params' derived buffer). With lossless = credit a
 * data packet leaves only while credit_tx_may_send() allows its bytes: a
 * priority whose head packet has no credit is held (sim_port.held, which the
 * transmitter skips like a paused priority) until a grant covers it. The
 * queue's occupancy per priority (summed over the gateway's WAN links) goes
 * to pfc_tx_decide() after every enqueue and dequeue and at every refresh
 * the module asks for: PAUSE and RESUME go out of every DC-facing port as
 * the simulator's PFC frames. The DC switches already obey them
 * (sim_net.c, HPCC's model: a pause lasts until the resume); the refreshes
 * pfc.h sends at half the pause time are sent too and counted, though an
 * HPCC receiver does not need them.
 *
 * Receiving side (data arriving from the WAN). Credited data enters the
 * gateway's credit buffer, outside the shared buffer (it can neither be
 * dropped nor pause the WAN), on its arrival: credit_rx_arrive() and the
 * sender's report, credit_rx_report(); it leaves it when it is transmitted
 * toward the DC (credit_rx_drain()), so a DC port paused by its switch, or
 * mechanism C's shaper, keeps it in the buffer and the credit from coming
 * back. Grants go back over the WAN as small control packets
 * (SIM_PKT_CREDIT, 60 bytes, strict priority) whenever
 * credit_rx_update_due() says so (the byte threshold, or a waiting
 * sender's report: a priority that starts to be held sends one at once,
 * credit_tx_report_due()), and at the refresh for what they leave unsaid.
 * The simulated WAN loses nothing, so the refresh runs only while the
 * limit moved since the last grant, and no sender refreshes its report.
 *
 * What a real gateway carries in the packet (the report in the GENEVE
 * option of each data packet, the 64-bit limit and the epoch in a grant)
 * rides here in fields the simulator does not read for these packets: a
 * grant's or control report's value in dst (high 32 bits) and seq, its
 * epoch in in_local; a data packet's report waits in the sending link's
 * FIFO (struct sim_gw_reports) until the packet arrives.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "sim_gw.h"

#define SIM_GW_B_REPORTS_MIN 4096u
#define SIM_GW_B_REPORT_EV 0x8000000u /* SIM_EV_GW_CREDIT: a sender's report, not a timer */

/* The peer gateway's end of WAN port pi, when pi joins two distinct gateways. */
static bool
sim_gw_b_link_port(const struct sim *s, const struct sim_port *p)
{
	return p->wan && p->peer_node != p->node && s->nodes[p->peer_node].gw != NULL;
}

static void
sim_gw_b_report_push(struct sim_gw_reports *r, uint64_t v)
{
	if (r->n == r->cap) {
		uint32_t cap = r->cap ? 2 * r->cap : SIM_GW_B_REPORTS_MIN;
		uint64_t *nv = malloc(sizeof(*nv) * cap);
		uint32_t i;

		if (nv == NULL) {
			fprintf(stderr, "longspan-sim: out of memory for credit reports\n");
			abort();
		}
		for (i = 0; i < r->n; i++)
			nv[i] = r->v[(r->head + i) & (r->cap - 1)];
		free(r->v);
		r->v = nv;
		r->head = 0;
		r->cap = cap;
	}
	r->v[(r->head + r->n) & (r->cap - 1)] = v;
	r->n++;
}

static bool
sim_gw_b_report_pop(struct sim_gw_reports *r, uint64_t *v)
{
	if (r->n == 0)
		return false;
	*v = r->v[r->head];
	r->head = (r->head + 1) & (r->cap - 1);
	r->n--;
	return true;
}

/*
 * A grant or a report (flags SIM_PKTF_GRANT, SIM_PKTF_WAIT) toward the
 * peer, on WAN port pi's strict-priority queue.
 */
static void
sim_gw_b_ctrl_send(struct sim *s, uint32_t pi, uint8_t prio, uint8_t flags, uint32_t epoch,
		   uint64_t value)
{
	uint32_t p = sim_pkt_alloc(s);
	struct sim_pkt *pkt = &s->pkts[p];

	memset(pkt, 0, sizeof(*pkt));
	pkt->type = SIM_PKT_CREDIT;
	pkt->size = SIM_CTRL_BYTES;
	pkt->prio = prio;
	pkt->flags = flags;
	pkt->flow = SIM_NONE;
	pkt->dst = (uint32_t)(value >> 32);
	pkt->seq = (uint32_t)value;
	pkt->in_local = (uint16_t)epoch;
	sim_net_enqueue(s, pi, 0, p);
}

int
sim_gw_b_setup(struct sim *s, struct sim_gw *gw)
{
	const struct sim_config *c = &s->cfg;
	const struct sim_node *n = &s->nodes[gw->node];
	struct pfc_params pp = { 0 };
	struct credit_params cp;
	uint64_t dc_port_rate = 0;
	uint32_t k, q;

	gw->b_on = true;
	gw->b_credit = c->lossless == SIM_LOSSLESS_CREDIT;
	gw->b_prio_mask = 0xfe; /* every data priority; 0 carries PFC, CNPs and ACKs */
	gw->pfc_timer_ns = SIM_NEVER;
	pfc_init(&gw->pfc);
	for (k = 0; k < n->nports; k++) {
		const struct sim_port *p = &s->ports[n->port_base + k];

		if (!p->wan && p->rate_bps > dc_port_rate)
			dc_port_rate = p->rate_bps;
	}
	if (dc_port_rate == 0) {
		fprintf(stderr, "longspan-sim: gateway %u: mechanism B needs a DC-facing port\n",
			gw->node);
		return -EINVAL;
	}
	/*
	 * The WAN queue: [gateway] wan_buffer, else the derived buffer. Its
	 * XOFF/XON come from the derivation for that size (cc_params_resolve()
	 * was given it as buffer_bytes when wan_buffer is set).
	 */
	if (c->wan_buffer_bytes == 0 && gw->d.buffer_bytes > s->wan_fifo_bytes)
		s->wan_fifo_bytes = gw->d.buffer_bytes;
	if (!gw->d.pfc_lossless)
		fprintf(stderr, "longspan-sim: gateway %u: WAN buffer %llu B is under two PFC "
			"headrooms (%llu B): mechanism B is not lossless here\n", gw->node,
			(unsigned long long)gw->d.buffer_bytes,
			(unsigned long long)gw->d.pfc_headroom_bytes);
	pp.port_rate_bps = dc_port_rate;
	pp.hz = CC_NS_PER_SEC;
	pp.xoff_bytes = gw->d.pfc_xoff_bytes;
	pp.xon_bytes = gw->d.pfc_xon_bytes;
	pp.pause_quanta = gw->d.pfc_quanta;
	pp.priority_mask = gw->b_prio_mask;
	if (pfc_config_init(&gw->pfc_cfg, &pp) < 0) {
		fprintf(stderr, "longspan-sim: gateway %u: PFC parameters rejected\n", gw->node);
		return -EINVAL;
	}
	cp.buffer_bytes = gw->d.credit_buffer_bytes;
	cp.update_bytes = gw->d.credit_update_bytes;
	cp.refresh_ticks = gw->d.credit_refresh_ns;
	if (credit_config_init(&gw->credit_cfg, &cp) < 0) {
		fprintf(stderr, "longspan-sim: gateway %u: credit parameters rejected\n",
			gw->node);
		return -EINVAL;
	}
	for (k = 0; k < n->nports; k++) {
		uint32_t pi = n->port_base + k;
		struct sim_port *p = &s->ports[pi];
		struct sim_gw_b_link *b;

		if (!sim_gw_b_link_port(s, p))
			continue;
		b = calloc(1, sizeof(*b));
		if (b == NULL)
			return -ENOMEM;
		gw->ports[k].b = b;
		for (q = 0; q < SIM_GW_PRIOS; q++) {
			/* One epoch per sender life; runs are deterministic, so a fixed one. */
			credit_tx_init(&b->tx[q], (uint32_t)((pi * SIM_GW_PRIOS + q) & 0xffff) + 1);
			credit_rx_init(&b->rx[q]);
			b->grant_timer_ns[q] = SIM_NEVER;
			/* Credits are set up with the peering, before any traffic. */
			if (gw->b_credit && (gw->b_prio_mask >> q & 1))
				sim_schedule(s, 0, SIM_EV_GW_CREDIT,
					     SIM_GW_B_REPORT_EV | (pi * SIM_GW_PRIOS + q));
		}
	}
	return 0;
}

void
sim_gw_b_free(struct sim *s, struct sim_gw *gw)
{
	uint32_t k;

	if (gw->ports == NULL)
		return;
	for (k = 0; k < s->nodes[gw->node].nports; k++) {
		struct sim_gw_b_link *b = gw->ports[k].b;

		if (b == NULL)
			continue;
		free(b->reports.v);
		free(b);
		gw->ports[k].b = NULL;
	}
}

/* ---------------------------------------------------------- sending side */

/* The sender's own report on WAN port pi for priority q, with the wait flag when it waits. */
static void
sim_gw_b_report(struct sim *s, uint32_t pi, uint32_t q)
{
	struct sim_gw_b_link *b = s->ports[pi].gwp->b;
	struct credit_tx *t = &b->tx[q];
	bool wait = credit_tx_report(t, s->now_ns, t->sent, false);

	sim_gw_b_ctrl_send(s, pi, (uint8_t)q, wait ? SIM_PKTF_WAIT : 0, t->epoch, t->sent);
	b->reports_sent++;
}

/*
 * Hold or release priority q of WAN port pi by the credit for its head
 * packet; a release kicks the transmitter unless the caller is about to.
 * A new hold is a wait the peer hears of at once (credit_tx_report_due()).
 */
static void
sim_gw_b_gate(struct sim *s, uint32_t pi, uint32_t q, bool kick)
{
	struct sim_port *port = &s->ports[pi];
	struct sim_gw_b_link *b = port->gwp->b;
	uint32_t h = port->qhead[q];
	uint8_t bit = (uint8_t)(1u << q);
	bool hold;

	hold = h != SIM_NONE && s->pkts[h].type == SIM_PKT_DATA &&
	       !credit_tx_may_send(&b->tx[q], s->pkts[h].size);
	if (hold && !(port->held & bit)) {
		port->held |= bit;
		b->held_since_ns[q] = s->now_ns;
		b->holds++;
		/*
		 * The wait's report, as an event at this instant: when the hold
		 * comes from a dequeue, the packet that was dequeued must be on the
		 * wire first, or the report (which counts it) overtakes it.
		 */
		credit_tx_wait(&b->tx[q]);
		sim_schedule(s, s->now_ns, SIM_EV_GW_CREDIT,
			     SIM_GW_B_REPORT_EV | (pi * SIM_GW_PRIOS + q));
	} else if (!hold && (port->held & bit)) {
		port->held &= (uint8_t)~bit;
		b->held_ns += s->now_ns - b->held_since_ns[q];
		if (kick)
			sim_net_kick(s, pi);
	}
}

static void
sim_gw_b_pfc_arm(struct sim *s, struct sim_gw *gw)
{
	uint64_t t = pfc_next_event(&gw->pfc_cfg, &gw->pfc);

	if (t == CC_TIME_NEVER || t == gw->pfc_timer_ns)
		return;
	if (t <= s->now_ns)
		t = s->now_ns + 1;
	gw->pfc_timer_ns = t;
	sim_schedule(s, t, SIM_EV_GW_PFC, gw->index);
}

/* pfc_tx_decide() on the WAN queue of priority q; frames out of every DC port. */
static void
sim_gw_b_pfc(struct sim *s, struct sim_gw *gw, uint32_t q)
{
	const struct sim_node *n = &s->nodes[gw->node];
	enum pfc_tx_verdict v;
	uint64_t occ = 0;
	uint32_t k;

	for (k = 0; k < n->nports; k++)
		if (gw->ports[k].b != NULL)
			occ += s->ports[n->port_base + k].qbytes[q];
	if (occ > gw->wan_queue_max_bytes)
		gw->wan_queue_max_bytes = occ;
	v = pfc_tx_decide(&gw->pfc_cfg, &gw->pfc, q, occ, s->now_ns);
	if (v == PFC_TX_NONE)
		return;
	for (k = 0; k < n->nports; k++) {
		if (s->ports[n->port_base + k].wan)
			continue;
		sim_net_pfc(s, n->port_base + k, (uint8_t)q, v == PFC_TX_PAUSE);
		if (v == PFC_TX_PAUSE)
			gw->pfc_frames_sent++;
		else
			gw->pfc_resume_frames_sent++;
	}
	sim_gw_b_pfc_arm(s, gw);
}

void
sim_gw_b_wan_enqueue(struct sim *s, struct sim_port *port, uint32_t q)
{
	struct sim_gw *gw = port->gwp->gw;
	uint32_t pi = (uint32_t)(port - s->ports);

	if (port->gwp->b == NULL || !(gw->b_prio_mask >> q & 1))
		return;
	/* sim_net_enqueue() kicks the port next: the marker must judge the packet first. */
	if (gw->b_credit)
		sim_gw_b_gate(s, pi, q, false);
	sim_gw_b_pfc(s, gw, q);
}

void
sim_gw_b_wan_dequeue(struct sim *s, struct sim_port *port, struct sim_pkt *pkt)
{
	struct sim_gw *gw = port->gwp->gw;
	struct sim_gw_b_link *b = port->gwp->b;
	uint32_t pi = (uint32_t)(port - s->ports);
	uint32_t q = pkt->prio;

	if (b == NULL || !(gw->b_prio_mask >> q & 1))
		return;
	if (gw->b_credit && pkt->type == SIM_PKT_DATA) {
		if (!credit_tx_may_send(&b->tx[q], pkt->size))
			b->overdraft++;
		sim_gw_b_report_push(&b->reports, credit_tx_sent(&b->tx[q], pkt->size));
		pkt->flags |= SIM_PKTF_CREDIT;
	}
	if (gw->b_credit)
		sim_gw_b_gate(s, pi, q, false); /* the transmitter is running */
	sim_gw_b_pfc(s, gw, q);
}

void
sim_gw_b_pfc_event(struct sim *s, uint32_t idx)
{
	struct sim_gw *gw = s->gws[idx];
	uint32_t q;

	if (gw->pfc_timer_ns != s->now_ns)
		return;
	gw->pfc_timer_ns = SIM_NEVER;
	for (q = 0; q < SIM_GW_PRIOS; q++)
		if (gw->b_prio_mask >> q & 1)
			sim_gw_b_pfc(s, gw, q);
	sim_gw_b_pfc_arm(s, gw);
}

/* -------------------------------------------------------- receiving side */

static void
sim_gw_b_grant(struct sim *s, uint32_t pi, uint32_t q)
{
	struct sim_gw *gw = s->ports[pi].gwp->gw;
	struct sim_gw_b_link *b = s->ports[pi].gwp->b;
	struct credit_rx *r = &b->rx[q];
	uint64_t limit;
	uint32_t epoch;

	if (credit_rx_update_due(&gw->credit_cfg, r, s->now_ns) &&
	    credit_rx_advertise(&gw->credit_cfg, r, s->now_ns, &limit, &epoch)) {
		sim_gw_b_ctrl_send(s, pi, (uint8_t)q, SIM_PKTF_GRANT, epoch, limit);
		b->grants_sent++;
		return;
	}
	/* What moved by less than update_bytes goes out with the refresh. */
	if (b->grant_timer_ns[q] == SIM_NEVER &&
	    credit_rx_limit(&gw->credit_cfg, r, &limit, &epoch) && limit != r->advertised) {
		uint64_t t = credit_rx_update_at(&gw->credit_cfg, r);

		if (t <= s->now_ns)
			t = s->now_ns + 1;
		b->grant_timer_ns[q] = t;
		sim_schedule(s, t, SIM_EV_GW_CREDIT, pi * SIM_GW_PRIOS + q);
	}
}

void
sim_gw_b_wan_arrive(struct sim *s, uint32_t in_port, struct sim_pkt *pkt)
{
	struct sim_port *port = &s->ports[in_port];
	struct sim_gw_b_link *b = port->gwp != NULL ? port->gwp->b : NULL;
	struct sim_gw_b_link *tx = s->ports[port->peer].gwp->b;
	uint32_t q = pkt->prio;
	uint64_t report;

	if (b == NULL || tx == NULL || !sim_gw_b_report_pop(&tx->reports, &report)) {
		/* A credited packet where no credit is kept: cannot happen. */
		fprintf(stderr, "longspan-sim: credited packet on port %u without credit state\n",
			in_port);
		abort();
	}
	credit_rx_arrive(&port->gwp->gw->credit_cfg, &b->rx[q], pkt->size);
	credit_rx_report(&b->rx[q], s->ports[port->peer].gwp->b->tx[q].epoch, report, false);
	if (b->rx[q].occupancy_bytes > b->occupancy_max_bytes[q])
		b->occupancy_max_bytes[q] = b->rx[q].occupancy_bytes;
	sim_gw_b_grant(s, in_port, q);
}

void
sim_gw_b_dc_dequeue(struct sim *s, struct sim_node *n, struct sim_pkt *pkt)
{
	uint32_t in_port = n->port_base + pkt->in_local;
	struct sim_gw_b_link *b = s->ports[in_port].gwp->b;

	pkt->flags &= (uint8_t)~SIM_PKTF_CREDIT;
	credit_rx_drain(&b->rx[pkt->prio], pkt->size);
	sim_gw_b_grant(s, in_port, pkt->prio);
}

void
sim_gw_b_ctrl_rx(struct sim *s, uint32_t pi, const struct sim_pkt *pkt)
{
	struct sim_port *port = &s->ports[pi];
	struct sim_gw_b_link *b = port->gwp != NULL ? port->gwp->b : NULL;
	uint64_t value = (uint64_t)pkt->dst << 32 | pkt->seq;
	uint32_t q = pkt->prio % SIM_GW_PRIOS;

	if (b == NULL)
		return; /* not a mechanism B link here: nothing to apply it to */
	if (pkt->flags & SIM_PKTF_GRANT) {
		(void)credit_tx_grant(&b->tx[q], pkt->in_local, value);
		if (port->qhead[q] != SIM_NONE)
			sim_gw_b_gate(s, pi, q, true);
		return;
	}
	credit_rx_report(&b->rx[q], pkt->in_local, value, (pkt->flags & SIM_PKTF_WAIT) != 0);
	sim_gw_b_grant(s, pi, q);
}

void
sim_gw_b_credit_event(struct sim *s, uint32_t idx)
{
	uint32_t pi = (idx & ~SIM_GW_B_REPORT_EV) / SIM_GW_PRIOS;
	uint32_t q = (idx & ~SIM_GW_B_REPORT_EV) % SIM_GW_PRIOS;
	struct sim_gw_b_link *b = s->ports[pi].gwp->b;

	if (idx & SIM_GW_B_REPORT_EV) {
		/* The first (so that the peer can grant before any data), or a wait's. */
		if (credit_tx_report_due(&s->ports[pi].gwp->gw->credit_cfg, &b->tx[q], s->now_ns))
			sim_gw_b_report(s, pi, q);
		return;
	}
	if (b->grant_timer_ns[q] != s->now_ns)
		return;
	b->grant_timer_ns[q] = SIM_NEVER;
	sim_gw_b_grant(s, pi, q);
}
