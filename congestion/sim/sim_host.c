/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hosts: one NIC per host with a strict-priority ACK/CNP queue and
 * round-robin among RC send queues, each paced by its own rate limiter
 * (HPCC's RdmaEgressQueue and RdmaHw), receivers that ACK per
 * L2_ACK_INTERVAL and NACK on a gap (go-back-N), and DCQCN from
 * congestion/dcqcn.h: the reaction point on the sender, the notification
 * point on the receiver.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "sim_trace.h"

static const struct dcqcn_rp_config *
sim_host_rp_config(struct sim *s, uint64_t line_rate_bps)
{
	enum dcqcn_variant v = s->cfg.host_model == SIM_HOST_HPCC ? DCQCN_VARIANT_HPCC :
			       s->cfg.host_model == SIM_HOST_PAPER ? DCQCN_VARIANT_PAPER :
								     DCQCN_VARIANT_FIRMWARE;
	struct dcqcn_rp_params p;
	uint32_t i;

	for (i = 0; i < s->nrp_cfg; i++)
		if (s->rp_cfg_rate[i] == line_rate_bps)
			return &s->rp_cfg[i];
	if (s->nrp_cfg == sizeof(s->rp_cfg) / sizeof(s->rp_cfg[0]))
		return NULL;
	dcqcn_params_default(v, line_rate_bps, &p, NULL);
	if (v == DCQCN_VARIANT_HPCC && s->cfg.hpcc_loaded) {
		/* The config.txt's CC_MODE 1 parameters, as ns-3's RdmaHw takes them. */
		p.g = s->cfg.ewma_gain;
		p.alpha_interval_ns = (uint64_t)(s->cfg.alpha_resume_us * 1000.0 + 0.5);
		p.rate_reduce_interval_ns = (uint64_t)(s->cfg.rate_decrease_us * 1000.0 + 0.5);
		p.timer_ns = (uint64_t)(s->cfg.rp_timer_us * 1000.0 + 0.5);
		p.threshold = s->cfg.fast_recovery_times;
		p.ai_bps = s->cfg.rate_ai_bps;
		p.hai_bps = s->cfg.rate_hai_bps;
		p.min_rate_bps = s->cfg.min_rate_bps;
		p.clamp_tgt_rate = s->cfg.clamp_target_rate;
		p.byte_counter_bytes = 0;
	}
	if (dcqcn_rp_config_init(&s->rp_cfg[s->nrp_cfg], &p) < 0) {
		fprintf(stderr, "longspan-sim: %s DCQCN parameters rejected by "
			"dcqcn_rp_config_init() for a %llu b/s NIC\n", dcqcn_variant_name(v),
			(unsigned long long)line_rate_bps);
		return NULL;
	}
	s->rp_cfg_rate[s->nrp_cfg] = line_rate_bps;
	return &s->rp_cfg[s->nrp_cfg++];
}

int
sim_host_setup(struct sim *s)
{
	enum dcqcn_variant v = s->cfg.host_model == SIM_HOST_HPCC ? DCQCN_VARIANT_HPCC :
			       s->cfg.host_model == SIM_HOST_PAPER ? DCQCN_VARIANT_PAPER :
								     DCQCN_VARIANT_FIRMWARE;
	struct dcqcn_np_params np;
	uint32_t H = s->nhosts;
	uint32_t i;

	dcqcn_params_default(v, 100000000000ull, NULL, &np);
	if (s->cfg.np_cnp_interval_set)
		np.min_interval_ns = s->cfg.np_cnp_interval_ns;
	else if (v == DCQCN_VARIANT_HPCC)
		/*
		 * THEMIS's RdmaHw::ReceiveUdp sets the CNP flag at most once per
		 * 5 us per QP (HPCC's original sets it on every ACK of a CE
		 * packet); the reference numbers come from THEMIS.
		 */
		np.min_interval_ns = 5000;
	if (dcqcn_np_config_init(&s->np_cfg, &np) < 0) {
		fprintf(stderr, "longspan-sim: notification point parameters rejected\n");
		return -EINVAL;
	}
	s->window_on = s->cfg.window == SIM_WINDOW_ON ||
		       (s->cfg.window == SIM_WINDOW_AUTO && s->cfg.has_win);
	s->next_sport = malloc(sizeof(uint16_t) * ((size_t)H * H + 1));
	if (s->next_sport == NULL)
		return -ENOMEM;
	for (i = 0; i < H * H; i++)
		s->next_sport[i] = 10000;
	for (i = 0; i < s->nflows; i++) {
		struct sim_flow *f = &s->flows[i];
		uint32_t hs = s->host_of_node[f->src];
		uint32_t hd = s->host_of_node[f->dst];
		const struct sim_pair *pr = &s->pair[(size_t)hs * H + hd];
		uint64_t line = s->ports[s->hosts[hs].port].rate_bps;
		uint64_t total;

		if (s->hosts[hs].port == SIM_NONE || pr->bw_bps == 0) {
			fprintf(stderr, "%s: flow %u: no path from host %u to host %u\n",
				s->cfg.flows, f->id, f->src, f->dst);
			return -EINVAL;
		}
		f->rp_cfg = sim_host_rp_config(s, line);
		if (f->rp_cfg == NULL)
			return -EINVAL;
		f->byte_counter = f->rp_cfg->byte_counter_bytes != 0;
		f->max_rate_bps = line;
		f->rate_bps = line;
		f->rp_event_ns = SIM_NEVER;
		f->first_cut_ns = SIM_NEVER;
		f->first_ce_rx_ns = SIM_NEVER;
		f->first_gw_mark_ns = SIM_NEVER;
		f->first_cnp_ns = SIM_NEVER;
		f->state = SIM_FLOW_PENDING;
		/* Same QPN space as a NIC: 24 bits, never 0 or 1. */
		f->sqpn = 0x100 + 2 * i;
		f->dqpn = 0x101 + 2 * i;
		{
			/* Seeded per flow, so it does not depend on event order. */
			uint64_t st = s->cfg.seed * 0x9e3779b97f4a7c15ull + f->id;

			f->ipsn = (uint32_t)sim_rng_next(&st) & 0xffffff;
		}
		/* third.cc's qp_finish(): base RTT + bytes with headers at the bottleneck. */
		total = f->size + (uint64_t)((f->size - 1) / s->cfg.payload_bytes + 1) *
					  SIM_HDR_BYTES;
		f->standalone_ns = pr->rtt_ns + total * 8000000000ull / pr->bw_bps;
		if (s->window_on)
			f->win_bytes = (uint32_t)(s->cfg.global_t ? s->max_bdp_bytes :
					(uint64_t)((unsigned __int128)pr->rtt_ns * pr->bw_bps /
						   8000000000ull));
		f->inter = s->nodes[f->src].site != s->nodes[f->dst].site;
		s->total_bytes += f->size;
		dcqcn_rp_init(f->rp_cfg, &f->rp);
		dcqcn_np_init(&f->np);
	}
	return 0;
}

void
sim_host_free(struct sim *s)
{
	uint32_t i;

	for (i = 0; i < s->nhosts; i++)
		free(s->hosts[i].qps);
	free(s->next_sport);
}

/* Arm the host's wake-up for a rate limiter, keeping only the earliest. */
static void
sim_host_wake_at(struct sim *s, struct sim_host *h, uint64_t t)
{
	if (t >= h->wake_ns && h->wake_ns >= s->now_ns)
		return;
	h->wake_ns = t;
	sim_schedule(s, t, SIM_EV_HOST_WAKE, (uint32_t)(h - s->hosts));
}

/* After the flow's next_avail_ns or snd_nxt changed: its scheduler entry. */
static inline void
sim_host_qp_sync(struct sim_host *h, const struct sim_flow *f)
{
	struct sim_host_qp *q = &h->qps[f->qp_slot];

	q->next_avail_ns = f->next_avail_ns;
	q->has_data = f->snd_nxt < f->size;
}

/* ns-3 RdmaHw::ChangeRate: shift the next send by the new packet time. */
static void
sim_host_set_rate(struct sim *s, struct sim_flow *f, uint64_t rate)
{
	struct sim_host *h;
	uint64_t old_t, new_t;

	if (rate == f->rate_bps)
		return;
	if (rate < f->rate_bps) {
		f->cuts++;
		if (f->first_cut_ns == SIM_NEVER)
			f->first_cut_ns = s->now_ns;
	}
	if (f->last_pkt_size != 0) {
		old_t = sim_net_tx_ns(s->cfg.tx_time, f->last_pkt_size, f->rate_bps);
		new_t = sim_net_tx_ns(s->cfg.tx_time, f->last_pkt_size, rate);
		f->next_avail_ns = f->next_avail_ns + new_t - old_t;
		if ((int64_t)f->next_avail_ns < 0)
			f->next_avail_ns = 0;
	}
	f->rate_bps = rate;
	h = &s->hosts[s->host_of_node[f->src]];
	if (f->state == SIM_FLOW_ACTIVE)
		sim_host_qp_sync(h, f);
	if (h->wake_ns != SIM_NEVER && h->wake_ns >= s->now_ns &&
	    f->next_avail_ns < h->wake_ns)
		sim_host_wake_at(s, h, f->next_avail_ns > s->now_ns ? f->next_avail_ns :
								      s->now_ns);
}

/* After any RP input: apply the rate and arm the RP's next own event. */
static void
sim_host_rp_sync(struct sim *s, struct sim_flow *f)
{
	uint64_t next;

	sim_host_set_rate(s, f, dcqcn_rp_rate_bps(&f->rp));
	next = dcqcn_rp_next_event(f->rp_cfg, &f->rp);
	if (next == CC_TIME_NEVER) {
		f->rp_event_ns = SIM_NEVER;
		return;
	}
	if (next < s->now_ns)
		next = s->now_ns;
	if (next != f->rp_event_ns) {
		f->rp_event_ns = next;
		sim_schedule(s, next, SIM_EV_RP, (uint32_t)(f - s->flows));
	}
}

void
sim_host_rp_event(struct sim *s, uint32_t fi)
{
	struct sim_flow *f = &s->flows[fi];

	if (f->state != SIM_FLOW_ACTIVE || f->rp_event_ns != s->now_ns)
		return; /* stale */
	f->rp_event_ns = SIM_NEVER;
	dcqcn_rp_advance(f->rp_cfg, &f->rp, s->now_ns);
	sim_host_rp_sync(s, f);
}

void
sim_host_cnp_rx(struct sim *s, uint32_t fi, bool from_gw)
{
	struct sim_flow *f = &s->flows[fi];

	if (f->state != SIM_FLOW_ACTIVE)
		return;
	if (f->first_cnp_ns == SIM_NEVER)
		f->first_cnp_ns = s->now_ns;
	if (s->cfg.cnp_log)
		sim_out_cnp(s, fi, from_gw);
	dcqcn_rp_on_cnp(f->rp_cfg, &f->rp, s->now_ns);
	sim_host_rp_sync(s, f);
}

void
sim_host_flow_start(struct sim *s, uint32_t fi)
{
	struct sim_flow *f = &s->flows[fi];
	struct sim_host *h = &s->hosts[s->host_of_node[f->src]];
	uint32_t H = s->nhosts;
	size_t pair = (size_t)s->host_of_node[f->src] * H + s->host_of_node[f->dst];

	f->sport = s->next_sport[pair]++;
	f->state = SIM_FLOW_ACTIVE;
	f->next_avail_ns = s->now_ns;
	f->milestone = 0;
	if (!s->st.started || s->now_ns < s->st.first_start_ns) {
		s->st.first_start_ns = s->now_ns;
		s->st.started = true;
	}
	if (h->nqps == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 8;
		struct sim_host_qp *q = realloc(h->qps, sizeof(*q) * cap);

		if (q == NULL)
			abort();
		h->qps = q;
		h->cap = cap;
	}
	sim_out_flow_start(s, f);
	f->qp_slot = h->nqps++;
	h->qps[f->qp_slot].flow = fi;
	h->qps[f->qp_slot].pg = f->pg;
	sim_host_qp_sync(h, f);
	sim_host_kick(s, (uint32_t)(h - s->hosts));
}

static void
sim_host_flow_done(struct sim *s, struct sim_flow *f)
{
	struct sim_host *h = &s->hosts[s->host_of_node[f->src]];
	uint32_t i = f->qp_slot, k;

	f->state = SIM_FLOW_DONE;
	f->finish_ns = s->now_ns;
	f->rp_event_ns = SIM_NEVER;
	s->flows_done++;
	if (s->now_ns > s->st.last_finish_ns)
		s->st.last_finish_ns = s->now_ns;
	if (i < h->nqps) {
		memmove(&h->qps[i], &h->qps[i + 1], sizeof(h->qps[0]) * (h->nqps - i - 1));
		h->nqps--;
		for (k = i; k < h->nqps; k++)
			s->flows[h->qps[k].flow].qp_slot = k;
		if (h->rr_last > i && h->rr_last > 0)
			h->rr_last--;
		if (h->nqps == 0 || h->rr_last >= h->nqps)
			h->rr_last = 0;
	}
	sim_out_flow_done(s, f);
}

static bool
sim_host_win_bound(const struct sim *s, const struct sim_flow *f)
{
	uint64_t w;

	if (f->win_bytes == 0)
		return false;
	w = f->win_bytes;
	if (s->cfg.var_win) {
		w = (uint64_t)((unsigned __int128)w * f->rate_bps / f->max_rate_bps);
		if (w == 0)
			w = 1;
	}
	return (uint64_t)(f->snd_nxt - f->snd_una) >= w;
}

static void
sim_host_send_data(struct sim *s, struct sim_host *h, struct sim_flow *f)
{
	uint32_t p = sim_pkt_alloc(s);
	struct sim_pkt *pkt = &s->pkts[p];
	uint32_t payload = f->size - f->snd_nxt;

	if (payload > s->cfg.payload_bytes)
		payload = s->cfg.payload_bytes;
	pkt->flow = (uint32_t)(f - s->flows);
	pkt->seq = f->snd_nxt;
	pkt->in_local = 0;
	pkt->dst = f->dst;
	pkt->size = (uint16_t)(payload + SIM_HDR_BYTES);
	pkt->type = SIM_PKT_DATA;
	pkt->ecn = SIM_ECN_ECT0;
	pkt->prio = f->pg;
	pkt->flags = 0;
	f->snd_nxt += payload;
	f->last_pkt_size = pkt->size;
	/* RdmaHw::UpdateNextAvail: the QP's next packet after one packet time at its rate. */
	f->next_avail_ns = s->now_ns +
			   sim_net_tx_ns(s->cfg.tx_time, pkt->size,
					 s->cfg.rate_bound ? f->rate_bps : f->max_rate_bps);
	sim_host_qp_sync(h, f);
	if (s->trace != NULL && f->snd_nxt >= f->size)
		sim_trace_tx_done(s, f);
	sim_net_send(s, h->port, p);
	if (f->byte_counter) {
		dcqcn_rp_on_tx(f->rp_cfg, &f->rp, pkt->size, s->now_ns);
		sim_host_rp_sync(s, f);
	}
}

/* Flattened, as sim_net.c's event handlers: one send decision per call. */
__attribute__((flatten)) void
sim_host_kick(struct sim *s, uint32_t hi)
{
	struct sim_host *h = &s->hosts[hi];
	struct sim_port *port;
	uint64_t t = SIM_NEVER;
	uint32_t i, idx;

	if (h->port == SIM_NONE)
		return;
	port = &s->ports[h->port];
	if (port->tx_pending)
		return;
	if (s->now_ns < port->busy_until_ns) {
		port->tx_pending = 1;
		sim_schedule(s, port->busy_until_ns, SIM_EV_PORT_TX, h->port);
		return;
	}
	/* ACKs, NACKs and CNPs first (ACK_HIGH_PRIO's queue 0, never paused). */
	if (h->ackq_head != SIM_NONE && !(port->paused & 1u)) {
		uint32_t p = h->ackq_head;

		h->ackq_head = s->pkts[p].next;
		if (h->ackq_head == SIM_NONE)
			h->ackq_tail = SIM_NONE;
		sim_net_send(s, h->port, p);
		goto sent;
	}
	/* Round robin from the QP after the last one served. */
	for (i = 0, idx = h->nqps ? (h->rr_last + 1) % h->nqps : 0; i < h->nqps;
	     i++, idx = idx + 1 == h->nqps ? 0 : idx + 1) {
		const struct sim_host_qp *q = &h->qps[idx];

		if ((port->paused >> q->pg & 1u) || !q->has_data ||
		    (s->window_on && sim_host_win_bound(s, &s->flows[q->flow])))
			continue;
		if (q->next_avail_ns > s->now_ns) {
			if (q->next_avail_ns < t)
				t = q->next_avail_ns;
			continue;
		}
		h->rr_last = idx;
		sim_host_send_data(s, h, &s->flows[q->flow]);
		goto sent;
	}
	/* Nothing may go now: wake at the earliest rate limiter. */
	if (t != SIM_NEVER)
		sim_host_wake_at(s, h, t);
	return;
sent:
	/* Come back when the wire is free, unless nothing could be sent then. */
	if (h->ackq_head != SIM_NONE || h->nqps > 0) {
		port->tx_pending = 1;
		sim_schedule(s, port->busy_until_ns, SIM_EV_PORT_TX, h->port);
	}
}

void
sim_host_wake(struct sim *s, uint32_t hi)
{
	struct sim_host *h = &s->hosts[hi];

	if (h->wake_ns != s->now_ns)
		return; /* superseded */
	h->wake_ns = SIM_NEVER;
	sim_host_kick(s, hi);
}

static void
sim_host_ctrl(struct sim *s, struct sim_host *h, uint32_t fi, uint8_t type, uint32_t seq,
	      uint8_t flags)
{
	uint32_t p = sim_pkt_alloc(s);
	struct sim_pkt *pkt = &s->pkts[p];

	sim_pkt_ctrl_init(s, pkt, fi, type, seq, flags);
	sim_pkt_append(s, &h->ackq_head, &h->ackq_tail, p);
	sim_host_kick(s, (uint32_t)(h - s->hosts));
}

/* The NP's verdict on a CE data packet; counts the CNP it asks for. */
static bool
sim_host_np_cnp(struct sim *s, struct sim_flow *f)
{
	if (dcqcn_np_on_ce(&s->np_cfg, &f->np, s->now_ns) != DCQCN_NP_SEND_CNP)
		return false;
	f->cnp_host++;
	s->st.cnp_host++;
	return true;
}

/* RdmaHw::ReceiveUdp and ReceiverCheckSeq. */
static void
sim_host_rx_data(struct sim *s, struct sim_host *h, struct sim_pkt *pkt)
{
	struct sim_flow *f = &s->flows[pkt->flow];
	uint32_t payload = pkt->size - SIM_HDR_BYTES;
	uint8_t type;
	uint8_t flags = 0;

	if (pkt->ecn == SIM_ECN_CE && f->first_ce_rx_ns == SIM_NEVER)
		f->first_ce_rx_ns = s->now_ns;
	/* ConnectX: a CNP of its own for any CE packet, in order or not. */
	if (s->cfg.np_any_ce && pkt->ecn == SIM_ECN_CE && sim_host_np_cnp(s, f))
		sim_host_ctrl(s, h, pkt->flow, SIM_PKT_CNP, 0, 0);
	if (f->milestone == 0)
		f->milestone = s->cfg.l2_ack_interval;
	if (!s->cfg.retransmit && pkt->seq > f->rcv_nxt) {
		/* As hostem: resynchronise on the gap; what it lost stays lost. */
		f->lost_bytes += pkt->seq - f->rcv_nxt;
		f->rcv_nxt = pkt->seq;
		if (f->milestone <= f->rcv_nxt)
			f->milestone = f->rcv_nxt + 1;
	}
	if (pkt->seq == f->rcv_nxt) {
		f->rcv_nxt += payload;
		f->rcv_bytes += payload;
		if (f->rcv_nxt >= f->milestone) {
			f->milestone += s->cfg.l2_ack_interval;
			type = SIM_PKT_ACK;
		} else if (s->cfg.l2_chunk_bytes != 0 && f->rcv_nxt % s->cfg.l2_chunk_bytes == 0) {
			type = SIM_PKT_ACK;
		} else {
			return;
		}
	} else if (pkt->seq > f->rcv_nxt) {
		if (s->now_ns >= f->nack_timer_ns || f->last_nack != f->rcv_nxt) {
			f->nack_timer_ns = s->now_ns + 500000;
			f->last_nack = f->rcv_nxt;
			type = SIM_PKT_NACK;
			s->st.nacks++;
		} else {
			return;
		}
	} else {
		return; /* duplicate */
	}
	if (!s->cfg.np_any_ce && pkt->ecn == SIM_ECN_CE && sim_host_np_cnp(s, f))
		flags = SIM_PKTF_CNP;
	sim_host_ctrl(s, h, pkt->flow, type, f->rcv_nxt, flags);
}

static void
sim_host_rx_ack(struct sim *s, struct sim_host *h, struct sim_pkt *pkt)
{
	struct sim_flow *f = &s->flows[pkt->flow];

	if (f->state != SIM_FLOW_ACTIVE)
		return;
	if (pkt->seq > f->snd_una) {
		s->st.acked_bytes += pkt->seq - f->snd_una;
		f->snd_una = pkt->seq;
	}
	if (f->snd_una >= f->size) {
		sim_host_flow_done(s, f);
		return;
	}
	if (pkt->type == SIM_PKT_NACK) {
		f->snd_nxt = f->snd_una; /* go-back-N */
		sim_host_qp_sync(h, f);
	}
	if (pkt->flags & SIM_PKTF_CNP)
		sim_host_cnp_rx(s, pkt->flow, false);
	sim_host_kick(s, (uint32_t)(h - s->hosts));
}

__attribute__((flatten)) void
sim_host_receive(struct sim *s, uint32_t node, uint32_t port, uint32_t p)
{
	struct sim_host *h = &s->hosts[s->nodes[node].host];
	struct sim_pkt *pkt = &s->pkts[p];

	(void)port;
	switch (pkt->type) {
	case SIM_PKT_DATA:
		sim_host_rx_data(s, h, pkt);
		break;
	case SIM_PKT_ACK:
	case SIM_PKT_NACK:
		sim_host_rx_ack(s, h, pkt);
		break;
	case SIM_PKT_CNP:
		sim_host_cnp_rx(s, pkt->flow, (pkt->flags & SIM_PKTF_GW) != 0);
		break;
	default:
		break;
	}
	sim_pkt_free(s, p);
}
