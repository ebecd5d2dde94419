/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Links, switch ports and the shared-buffer switch: routing, admission,
 * PFC, RED marking on dequeue and round-robin among priorities, following
 * HPCC's switch-node, switch-mmu and qbb-net-device so that a plain switch
 * behaves as in ns-3.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim.h"
#include "sim_gw.h"
#include "sim_trace.h"

/* Packet pool: one large lazily-backed mapping so addresses never move. */
#define SIM_PKT_MAX (1u << 25)

int
sim_net_pool_init(struct sim *s)
{
	void *m = mmap(NULL, sizeof(struct sim_pkt) * (size_t)SIM_PKT_MAX,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);

	if (m == MAP_FAILED)
		return -ENOMEM;
	/* A peak of ~200,000 live packets spans ~6 MB: 3 huge pages instead of 1,500. */
	(void)madvise(m, sizeof(struct sim_pkt) * (size_t)SIM_PKT_MAX, MADV_HUGEPAGE);
	s->pkts = m;
	s->cap_pkts = SIM_PKT_MAX;
	s->npkts = 0;
	s->free_pkts = SIM_NONE;
	return 0;
}

/* The pool is 2^25 packets; a run that needs more is out of control. */
void
sim_pkt_pool_exhausted(const struct sim *s)
{
	fprintf(stderr, "longspan-sim: more than %u packets alive; aborting\n", s->cap_pkts);
	abort();
}

void
sim_net_pool_free(struct sim *s)
{
	if (s->pkts != NULL)
		munmap(s->pkts, sizeof(struct sim_pkt) * (size_t)SIM_PKT_MAX);
	s->pkts = NULL;
}

/*
 * Time to send bytes at rate_bps in whole ns. ns-3 computes every
 * serialisation time and pacing gap (QbbNetDevice::TransmitStart,
 * RdmaHw::UpdateNextAvail, ChangeRate) as Seconds(bytes * 8 / rate): a
 * double turned into its 1 ns Time by int64x64_t::GetHigh(), which
 * truncates (83.84 ns -> 83 ns). SIM_TX_TIME_EXACT rounds to the nearest ns
 * (links then keep a picosecond remainder, see sim_net_send()).
 */
uint64_t
sim_net_tx_ns(enum sim_tx_time mode, uint64_t bytes, uint64_t rate_bps)
{
	if (mode == SIM_TX_TIME_NS3)
		return bytes * 8000000000ull / rate_bps;
	return (bytes * 8000000000ull + rate_bps / 2) / rate_bps;
}

/* ------------------------------------------------------------------ MMU */

static inline uint32_t
sim_mmu_threshold(const struct sim *s, const struct sim_mmu *m, uint32_t port)
{
	if (s->cfg.pfc_u32_compat) {
		/*
		 * HPCC computes (buffer - headroom - reserve - used) >> shift in
		 * uint32_t.  When a port's headroom exceeds the buffer (the
		 * 500 us WAN port asks for 300 MB at 1.6 Tb/s) this wraps to a
		 * huge threshold and that switch never pauses: THEMIS's
		 * published numbers include this, so validation keeps it.
		 */
		uint32_t v = m->buffer_bytes - m->total_hdrm - m->total_rsrv - m->shared_used;

		return v >> m->pfc_shift[port];
	}
	{
		int64_t v = (int64_t)m->buffer_bytes - m->total_hdrm - m->total_rsrv -
			    m->shared_used;

		return v <= 0 ? 0 : (uint32_t)((uint64_t)v >> m->pfc_shift[port]);
	}
}

static inline uint32_t
sim_mmu_shared_used(const struct sim_mmu *m, uint32_t port, uint32_t q)
{
	uint32_t used = m->in[port].ingress[q];

	return used > m->reserve_bytes ? used - m->reserve_bytes : 0;
}

static bool
sim_mmu_admit(const struct sim *s, const struct sim_mmu *m, uint32_t port, uint32_t q,
	      uint32_t size)
{
	return !(size + m->in[port].hdrm[q] > m->headroom[port] &&
		 size + sim_mmu_shared_used(m, port, q) > sim_mmu_threshold(s, m, port));
}

static void
sim_mmu_add(const struct sim *s, struct sim_mmu *m, uint32_t port, uint32_t q, uint32_t size)
{
	struct sim_mmu_port *in = &m->in[port];
	uint32_t nb = in->ingress[q] + size;

	if (nb <= m->reserve_bytes) {
		in->ingress[q] += size;
	} else if (nb - m->reserve_bytes > sim_mmu_threshold(s, m, port)) {
		in->hdrm[q] += size;
	} else {
		in->ingress[q] += size;
		m->shared_used += size < nb - m->reserve_bytes ? size : nb - m->reserve_bytes;
	}
}

static void
sim_mmu_remove(struct sim_mmu *m, uint32_t port, uint32_t q, uint32_t size)
{
	struct sim_mmu_port *in = &m->in[port];
	uint32_t from_hdrm = in->hdrm[q] < size ? in->hdrm[q] : size;
	uint32_t above = in->ingress[q] > m->reserve_bytes ? in->ingress[q] - m->reserve_bytes : 0;
	uint32_t from_shared = size - from_hdrm < above ? size - from_hdrm : above;

	in->hdrm[q] -= from_hdrm;
	in->ingress[q] -= size - from_hdrm;
	m->shared_used -= from_shared;
}

/* ------------------------------------------------------------- transmit */

void
sim_net_pfc(struct sim *s, uint32_t pi, uint8_t prio, bool pause)
{
	uint32_t p = sim_pkt_alloc(s);
	struct sim_pkt *pkt = &s->pkts[p];

	memset(pkt, 0, sizeof(*pkt));
	pkt->type = SIM_PKT_PFC;
	pkt->size = SIM_PFC_BYTES;
	pkt->prio = prio;
	pkt->flags = pause ? SIM_PKTF_PAUSE : 0;
	pkt->flow = SIM_NONE;
	pkt->dst = s->ports[pi].peer_node;
	/* PFC frames use the highest-priority queue of the ingress port. */
	sim_net_enqueue(s, pi, 0, p);
}

void
sim_net_kick(struct sim *s, uint32_t pi)
{
	struct sim_port *port = &s->ports[pi];

	if (port->tx_pending)
		return;
	if (s->now_ns < port->busy_until_ns) {
		port->tx_pending = 1;
		sim_schedule(s, port->busy_until_ns, SIM_EV_PORT_TX, pi);
		return;
	}
	sim_net_port_tx(s, pi);
}

void
sim_net_enqueue(struct sim *s, uint32_t pi, uint32_t q, uint32_t p)
{
	struct sim_port *port = &s->ports[pi];
	struct sim_pkt *pkt = &s->pkts[p];

	if (s->trace != NULL)
		sim_trace_enqueue(s, pi, q, pkt);
	pkt->t_ns = s->now_ns;
	sim_pkt_append(s, &port->qhead[q], &port->qtail[q], p);
	port->qmask |= (uint8_t)(1u << q);
	port->qbytes[q] += pkt->size;
	port->qbytes_total += pkt->size;
	s->qdepth[pi] = port->qbytes_total;
	if (port->qbytes_total > port->qmax_bytes)
		port->qmax_bytes = port->qbytes_total;
	/* Only WAN ports have gateway egress state (wan is in the hot line, gwp not). */
	if (port->wan && port->gwp != NULL && q != 0)
		sim_gw_on_enqueue(s, port, pkt);
	sim_net_kick(s, pi);
}

bool
sim_net_red(struct sim_port *port, uint32_t qbytes)
{
	/* ns-3 judges the queue left behind the departing packet. */
	return ecn_red_decide(&port->red_cfg, &port->red, qbytes) == ECN_VERDICT_MARK;
}

/*
 * The two event handlers below are flattened: every call into this file
 * (route, admission, enqueue, transmit) is inlined into them.  With
 * -fno-semantic-interposition (meson.build) that took the per-hop call
 * overhead, 13% of a mix_50% run's instructions, away.
 */
__attribute__((flatten)) void
sim_net_port_tx(struct sim *s, uint32_t pi)
{
	struct sim_port *port = &s->ports[pi];
	struct sim_node *n = &s->nodes[port->node];
	struct sim_pkt *pkt;
	uint32_t q;
	uint32_t p;
	uint8_t ecn;

	if (s->now_ns < port->busy_until_ns) {
		if (!port->tx_pending) {
			port->tx_pending = 1;
			sim_schedule(s, port->busy_until_ns, SIM_EV_PORT_TX, pi);
		}
		return;
	}
	if (port->qbytes_total == 0)
		return;
	/* Priority 0 (PFC, CNP, ACK) is strict and never paused; then RR. */
	if (port->qmask & 1u) {
		q = 0;
	} else {
		/*
		 * Round robin: the first of rr_last + 1, rr_last + 2, ... (mod
		 * SIM_NQ) that holds packets and is not paused (by the peer, or
		 * held by a gateway without WAN credit).  Rotating the ready mask
		 * right by rr_last + 1 puts that order at bit 0 up.
		 */
		uint32_t ready = (uint32_t)(port->qmask & ~(port->paused | port->held));
		uint32_t r = (port->rr_last + 1u) % SIM_NQ;
		uint32_t rot = ((ready >> r) | (ready << (SIM_NQ - r))) & ((1u << SIM_NQ) - 1);

		if (rot == 0)
			return; /* everything queued is paused */
		q = (r + (uint32_t)__builtin_ctz(rot)) % SIM_NQ;
		port->rr_last = (uint8_t)q;
	}
	p = port->qhead[q];
	pkt = &s->pkts[p];
	port->qhead[q] = pkt->next;
	if (port->qhead[q] == SIM_NONE) {
		port->qtail[q] = SIM_NONE;
		port->qmask &= (uint8_t)~(1u << q);
	} else {
		/* The next head leaves one packet time from now, at the earliest. */
		__builtin_prefetch(&s->pkts[port->qhead[q]]);
	}
	port->qbytes[q] -= pkt->size;
	port->qbytes_total -= pkt->size;
	s->qdepth[pi] = port->qbytes_total;
	ecn = pkt->ecn;

	if (q != 0 && (pkt->flags & SIM_PKTF_LOSSY)) {
		pkt->flags &= (uint8_t)~SIM_PKTF_LOSSY;
		sim_gw_egress(s, n, port, p);
	} else if (q != 0 && (pkt->flags & SIM_PKTF_CREDIT)) {
		/* Leaves the receiving gateway's credit buffer (mechanism B), not the MMU. */
		sim_gw_b_dc_dequeue(s, n, pkt);
	} else if (q != 0) {
		struct sim_mmu *m = n->mmu;
		uint32_t in_local = pkt->in_local;

		sim_mmu_remove(m, in_local, q, pkt->size);
		if (port->wan && port->gwp != NULL) {
			/* Gateway WAN egress: congestion/ marker and mechanism A. */
			sim_gw_egress(s, n, port, p);
		} else if (s->cfg.ecn_enabled && pkt->ecn != SIM_ECN_NOT_ECT &&
			   sim_net_red(port, port->qbytes[q])) {
			if (pkt->ecn != SIM_ECN_CE)
				s->st.marks++;
			pkt->ecn = SIM_ECN_CE;
		}
		/* Resume the upstream port if this freed enough (CheckAndSendResume). */
		{
			uint32_t idx = in_local * SIM_NQ + q;

			if (m->paused[idx] && m->in[in_local].hdrm[q] == 0) {
				uint32_t used = sim_mmu_shared_used(m, in_local, q);

				if (used == 0 || used + m->resume_offset_bytes <=
							 sim_mmu_threshold(s, m, in_local)) {
					m->paused[idx] = 0;
					sim_net_pfc(s, n->port_base + in_local, (uint8_t)q, false);
				}
			}
		}
	}
	if (s->trace != NULL)
		sim_trace_dequeue(s, pi, q, pkt, ecn != SIM_ECN_CE && pkt->ecn == SIM_ECN_CE);
	sim_net_send(s, pi, p);
	if (port->qbytes_total != 0 && !port->tx_pending) {
		port->tx_pending = 1;
		sim_schedule(s, port->busy_until_ns, SIM_EV_PORT_TX, pi);
	}
}

/* ---------------------------------------------------------------- switch */

/*
 * A gateway WAN port made lossy by [gateway] wan_buffer, or by mechanism B
 * (which terminates PFC at the gateway): no MMU, no PFC across the WAN.
 */
static inline bool
sim_net_lossy_wan(const struct sim *s, const struct sim_port *port)
{
	return s->wan_fifo_bytes != 0 && port->wan;
}

uint32_t
sim_net_route(struct sim *s, const struct sim_node *n, const struct sim_pkt *pkt)
{
	uint32_t h = s->host_of_node[pkt->dst];
	uint32_t rt = s->rt[(size_t)n->id * s->nhosts + h];
	uint32_t cnt = rt & 0xff;
	const struct sim_flow *f;
	uint32_t hash;

	if (cnt <= 1)
		return cnt ? rt >> 8 : SIM_NONE;
	f = &s->flows[pkt->flow];
	switch (pkt->type) {
	case SIM_PKT_DATA:
		hash = sim_topo_hash(sim_topo_ip(f->src), sim_topo_ip(f->dst), f->sport, f->dport,
				     n->ecmp_seed);
		break;
	case SIM_PKT_ACK:
	case SIM_PKT_NACK:
		hash = sim_topo_hash(sim_topo_ip(f->dst), sim_topo_ip(f->src), f->dport, f->sport,
				     n->ecmp_seed);
		break;
	default:
		/* CNPs: HPCC hashes an unset port word here; we use zero. */
		hash = sim_topo_hash(sim_topo_ip(f->dst), sim_topo_ip(f->src), 0, 0,
				     n->ecmp_seed);
		break;
	}
	return s->rt_port[(rt >> 8) + hash % cnt];
}

/* Admission, PFC and enqueue of a packet already routed to out_port. */
void
sim_net_forward(struct sim *s, struct sim_node *n, uint32_t in_port, uint32_t out_port,
		uint32_t p)
{
	struct sim_pkt *pkt = &s->pkts[p];
	uint32_t q;

	if (pkt->type == SIM_PKT_CNP ||
	    (s->cfg.ack_high_prio && (pkt->type == SIM_PKT_ACK || pkt->type == SIM_PKT_NACK)))
		q = 0;
	else
		q = pkt->prio;
	pkt->in_local = (uint16_t)(in_port - n->port_base);
	if (q != 0 && (pkt->flags & SIM_PKTF_CREDIT)) {
		/*
		 * Arrived from the WAN within credit (mechanism B): it waits in
		 * the receiving gateway's credit buffer, outside the shared
		 * buffer, so it is never dropped and never pauses the WAN.
		 */
		sim_net_enqueue(s, out_port, q, p);
		return;
	}
	if (q != 0 && sim_net_lossy_wan(s, &s->ports[out_port])) {
		/*
		 * A lossy WAN egress, as the dataplane's traffic manager: a
		 * tail-drop FIFO of wan_buffer bytes outside the shared buffer,
		 * so WAN-bound traffic never pauses the DC.
		 */
		struct sim_port *op = &s->ports[out_port];

		if (op->qbytes_total + pkt->size > s->wan_fifo_bytes) {
			s->st.drops++;
			op->drops++;
			sim_gw_on_drop(s, op, pkt);
			sim_pkt_free(s, p);
			return;
		}
		pkt->flags |= SIM_PKTF_LOSSY;
		sim_net_enqueue(s, out_port, q, p);
		return;
	}
	if (q != 0) {
		struct sim_mmu *m = n->mmu;
		uint32_t in_local = pkt->in_local;
		uint32_t idx = in_local * SIM_NQ + q;

		if (!sim_mmu_admit(s, m, in_local, q, pkt->size)) {
			s->st.drops++;
			if (s->ports[out_port].gwp != NULL)
				sim_gw_on_drop(s, &s->ports[out_port], pkt);
			sim_pkt_free(s, p);
			return;
		}
		sim_mmu_add(s, m, in_local, q, pkt->size);
		if (!m->paused[idx] && !sim_net_lossy_wan(s, &s->ports[in_port]) &&
		    (m->in[in_local].hdrm[q] > 0 ||
		     sim_mmu_shared_used(m, in_local, q) >= sim_mmu_threshold(s, m, in_local))) {
			m->paused[idx] = 1;
			sim_net_pfc(s, in_port, (uint8_t)q, true);
		}
	}
	sim_net_enqueue(s, out_port, q, p);
}

static void
sim_net_switch_receive(struct sim *s, struct sim_node *n, uint32_t in_port, uint32_t p)
{
	uint32_t out = sim_net_route(s, n, &s->pkts[p]);

	if (out == SIM_NONE) {
		s->st.drops++;
		sim_pkt_free(s, p);
		return;
	}
	if (n->gw != NULL && sim_gw_ingress(s, n, in_port, out, p))
		return;
	sim_net_forward(s, n, in_port, out, p);
}

static void
sim_net_pfc_rx(struct sim *s, uint32_t pi, const struct sim_pkt *pkt)
{
	struct sim_port *port = &s->ports[pi];
	uint8_t q = pkt->prio;

	if (pkt->flags & SIM_PKTF_PAUSE) {
		port->pause_rx++;
		s->st.pause_frames++;
		s->st.pause_rx_role[s->nodes[port->node].role]++;
		if (!(port->paused >> q & 1u)) {
			port->paused |= (uint8_t)(1u << q);
			port->pause_since_ns[q] = s->now_ns;
		}
		return;
	}
	if (port->paused >> q & 1u) {
		port->paused &= (uint8_t)~(1u << q);
		port->pause_ns += s->now_ns - port->pause_since_ns[q];
		s->st.pause_ns += s->now_ns - port->pause_since_ns[q];
	}
	if (s->nodes[port->node].kind == SIM_NODE_HOST)
		sim_host_kick(s, s->nodes[port->node].host);
	else
		sim_net_kick(s, pi);
}

__attribute__((flatten)) void
sim_net_arrive(struct sim *s, uint32_t pi)
{
	struct sim_port *port = &s->ports[pi];
	uint32_t p = port->fly_head;
	struct sim_pkt *pkt = &s->pkts[p];
	uint32_t rx = port->peer;
	struct sim_node *n = &s->nodes[port->peer_node];

	port->fly_head = pkt->next;
	if (port->fly_head == SIM_NONE) {
		port->fly_tail = SIM_NONE;
	} else {
		/* In flight, t_ns is the arrival time of the packet behind. */
		sim_schedule(s, pkt->t_ns, SIM_EV_ARRIVE, pi);
		/* It arrives one packet time from now, at the earliest. */
		__builtin_prefetch(&s->pkts[port->fly_head]);
	}
	if (s->trace != NULL)
		pkt->t_ns = s->now_ns; /* arrival at this node, until it is queued */

	if (pkt->type == SIM_PKT_PFC) {
		sim_net_pfc_rx(s, rx, pkt);
		sim_pkt_free(s, p);
		return;
	}
	if (pkt->type == SIM_PKT_CREDIT) {
		sim_gw_b_ctrl_rx(s, rx, pkt);
		sim_pkt_free(s, p);
		return;
	}
	if (n->kind == SIM_NODE_HOST)
		sim_host_receive(s, n->id, rx, p);
	else
		sim_net_switch_receive(s, n, rx, p);
}

/* --------------------------------------------------------------- set-up */

static int
sim_net_ecn_of(struct sim *s, uint64_t rate, struct ecn_red_params *p)
{
	uint32_t i;

	for (i = 0; i < s->cfg.nmap; i++) {
		if (s->cfg.map[i].rate_bps == rate) {
			p->kmin_bytes = (uint64_t)s->cfg.map[i].kmin_kb * 1000;
			p->kmax_bytes = (uint64_t)s->cfg.map[i].kmax_kb * 1000;
			p->pmax_ppm = (uint32_t)(s->cfg.map[i].pmax * 1e6 + 0.5);
			return 0;
		}
	}
	if (s->cfg.hpcc_loaded) {
		fprintf(stderr, "%s: no KMIN_MAP/KMAX_MAP/PMAX_MAP entry for link rate %llu "
			"(ns-3 requires one per link speed)\n", s->cfg.hpcc_config,
			(unsigned long long)rate);
		return -EINVAL;
	}
	/* Alibaba's 100 KB / 400 KB / 0.2 at 25G, scaled with rate. */
	p->kmin_bytes = rate / 250000;
	p->kmax_bytes = rate / 62500;
	p->pmax_ppm = 200000;
	return 0;
}

int
sim_net_setup(struct sim *s)
{
	uint64_t nic_rate = 0;
	const char *why;
	uint32_t i;

	s->qdepth = calloc(s->nports + 1, sizeof(uint32_t));
	if (s->qdepth == NULL)
		return -ENOMEM;
	for (i = 0; i < s->nhosts; i++)
		if (s->hosts[i].port != SIM_NONE) {
			nic_rate = s->ports[s->hosts[i].port].rate_bps;
			break;
		}
	for (i = 0; i < s->nports; i++) {
		struct sim_port *port = &s->ports[i];

		struct ecn_red_params rp;

		if (s->nodes[port->node].kind != SIM_NODE_SWITCH)
			continue;
		if (sim_net_ecn_of(s, port->rate_bps, &rp) < 0)
			return -EINVAL;
		if (ecn_red_params_check(&rp, &why) < 0) {
			fprintf(stderr, "longspan-sim: ECN map for %llu b/s: Kmin %llu, Kmax %llu, "
				"Pmax %u ppm: %s\n", (unsigned long long)port->rate_bps,
				(unsigned long long)rp.kmin_bytes,
				(unsigned long long)rp.kmax_bytes, rp.pmax_ppm, why);
			return -EINVAL;
		}
		/* Checked above: it cannot fail. */
		(void)ecn_red_config_init(&port->red_cfg, &rp);
		/* Each queue draws from its own stream, reproducible from the seed. */
		ecn_red_init(&port->red, s->cfg.seed * 1000003ull + i);
	}
	for (i = 0; i < s->nnodes; i++) {
		struct sim_node *n = &s->nodes[i];
		struct sim_mmu *m;
		uint32_t k;

		if (n->kind != SIM_NODE_SWITCH)
			continue;
		m = calloc(1, sizeof(*m));
		if (m == NULL)
			return -ENOMEM;
		n->mmu = m;
		m->nports = n->nports;
		m->headroom = calloc(n->nports + 1, sizeof(uint32_t));
		m->pfc_shift = calloc(n->nports + 1, 1);
		m->in = aligned_alloc(64, sizeof(*m->in) * (n->nports + 1));
		if (m->in != NULL)
			memset(m->in, 0, sizeof(*m->in) * (n->nports + 1));
		m->paused = calloc((size_t)(n->nports + 1) * SIM_NQ, 1);
		if (!m->headroom || !m->pfc_shift || !m->in || !m->paused)
			return -ENOMEM;
		m->buffer_bytes = s->cfg.buffer_mb * 1024u * 1024u;
		m->reserve_bytes = 4 * 1024;
		m->resume_offset_bytes = 3 * 1024;
		m->dynamic = s->cfg.pfc_dynamic;
		for (k = 0; k < n->nports; k++) {
			const struct sim_port *port = &s->ports[n->port_base + k];
			uint64_t rate = port->rate_bps;
			uint8_t shift = 3; /* alpha = 1/8 at the NIC rate */

			/* third.cc: headroom = 3 x rate x delay, truncated to 32 bits. */
			m->headroom[k] = (uint32_t)(port->rate_bps * port->delay_ns / 8 /
						    1000000000ull * 3);
			if (m->headroom[k] < s->cfg.pfc_min_headroom_bytes)
				m->headroom[k] = (uint32_t)s->cfg.pfc_min_headroom_bytes;
			while (rate > nic_rate && shift > 0) {
				shift--;
				rate /= 2;
			}
			m->pfc_shift[k] = shift;
			m->total_hdrm += m->headroom[k];
			m->total_rsrv += m->reserve_bytes;
		}
	}
	return 0;
}

void
sim_net_free(struct sim *s)
{
	uint32_t i;

	free(s->qdepth);
	for (i = 0; i < s->nnodes; i++) {
		struct sim_mmu *m = s->nodes[i].mmu;

		if (m == NULL)
			continue;
		free(m->headroom);
		free(m->pfc_shift);
		free(m->in);
		free(m->paused);
		free(m);
	}
}
