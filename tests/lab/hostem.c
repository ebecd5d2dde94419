/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspan-hostem's engine (hostem.h): senders, receivers, the ToR queue,
 * the intra-DC delay line and the polling loop.
 */
#include "hostem.h"
#include "dataplane/pfc.h"
#include "dataplane/pfc_mbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "congestion/cc_time.h"
#include "congestion/ecn.h"

#define HOSTEM_BURST 32
#define HOSTEM_SENDER_BURST 8 /* packets one sender may send per poll */
#define HOSTEM_IDLE_MIN_NS 5000
#define HOSTEM_IDLE_SPIN_POLLS 32
#define HOSTEM_DC_SLOTS 4096u
#define HOSTEM_LINGER_NS 2000000 /* after until_done: let the last ACKs and CNPs land */
#define HOSTEM_RETH_VA_BASE UINT64_C(0x100000000)

/* -------- lookup by (local address, local QPN) -------- */

static uint32_t
hostem_qp_hash(const struct conf_addr *a, uint32_t qpn)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325) ^ qpn;
	uint32_t n = a->family == AF_INET ? 4 : 16;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ a->a[i]) * UINT64_C(0x100000001b3);
	return (uint32_t)(h ^ (h >> 29));
}

static bool
hostem_qp_key_eq(const struct hostem_qp_conf *q, const struct conf_addr *a, uint32_t qpn)
{
	return q->local_qpn == qpn && q->local.family == a->family &&
		memcmp(q->local.a, a->a, a->family == AF_INET ? 4 : 16) == 0;
}

static void
hostem_table_add(uint16_t *table, const struct hostem_qp_conf *q, uint16_t index)
{
	uint32_t i = hostem_qp_hash(&q->local, (uint32_t)q->local_qpn);

	while (table[i % HOSTEM_QP_TABLE] != 0)
		i++;
	table[i % HOSTEM_QP_TABLE] = (uint16_t)(index + 1);
}

static struct hostem_sender *
hostem_find_sender(struct hostem *h, const struct conf_addr *a, uint32_t qpn)
{
	uint32_t i = hostem_qp_hash(a, qpn);
	uint16_t e;

	while ((e = h->sender_table[i % HOSTEM_QP_TABLE]) != 0) {
		if (hostem_qp_key_eq(h->senders[e - 1].qc, a, qpn))
			return &h->senders[e - 1];
		i++;
	}
	return NULL;
}

static struct hostem_receiver *
hostem_find_receiver(struct hostem *h, const struct conf_addr *a, uint32_t qpn)
{
	uint32_t i = hostem_qp_hash(a, qpn);
	uint16_t e;

	while ((e = h->receiver_table[i % HOSTEM_QP_TABLE]) != 0) {
		if (hostem_qp_key_eq(h->receivers[e - 1].qc, a, qpn))
			return &h->receivers[e - 1];
		i++;
	}
	return NULL;
}

/* -------- sizing -------- */

uint16_t
hostem_mbuf_data_room(const struct hostem_conf *c)
{
	uint32_t room = hostem_config_max_frame(c) + 64;

	/* Received frames can be larger than ours (a gateway's MTU): keep 4.5 KB at least. */
	if (room < 4608)
		room = 4608;
	return (uint16_t)RTE_ALIGN_CEIL(room, 64);
}

static uint32_t
hostem_min_frame(const struct hostem_conf *c)
{
	uint64_t m = UINT64_MAX;

	for (uint32_t i = 0; i < c->n_qp; i++) {
		const struct hostem_qp_conf *q = &c->qp[i];
		uint64_t p = RTE_MIN(q->mtu, q->message_bytes);

		if (q->role == HOSTEM_ROLE_SEND && p < m)
			m = p;
	}
	if (m == UINT64_MAX)
		m = 64;
	return (uint32_t)m + RTE_ETHER_HDR_LEN + 20 + 8 + HOSTEM_BTH_SIZE + HOSTEM_ICRC_SIZE;
}

static uint32_t
hostem_tor_slots(const struct hostem_conf *c)
{
	uint64_t senders = 0;

	for (uint32_t i = 0; i < c->n_qp; i++)
		senders += c->qp[i].role == HOSTEM_ROLE_SEND;
	/* Up to xoff, plus one burst from every sender that saw room. */
	return lab_pow2(c->tor_xoff_bytes / hostem_min_frame(c) + senders * HOSTEM_SENDER_BURST +
			64);
}

/*
 * Packet slots of the down queue (dc_rate): dc_buffer in frames of 512
 * bytes, so that full-size data fills it by bytes first (smaller frames
 * may fill the slots first; either drop is counted).
 */
static uint32_t
hostem_down_slots(const struct hostem_conf *c)
{
	return lab_pow2(c->dc_buffer_bytes / 512 + 64);
}

uint32_t
hostem_mbufs_needed(const struct hostem_conf *c, uint32_t port_desc)
{
	uint64_t n;

	if (c->mbufs != 0)
		return (uint32_t)c->mbufs;
	n = HOSTEM_DC_SLOTS + HOSTEM_TX_RING + 2 * port_desc + 4 * HOSTEM_BURST + 512;
	if (c->tor_rate_bps != 0)
		n += hostem_tor_slots(c);
	if (c->dc_rate_bps != 0)
		n += hostem_down_slots(c);
	return (uint32_t)RTE_MIN(n, (uint64_t)1 << 24);
}

/* -------- output -------- */

static inline uint32_t
hostem_tx_room(const struct hostem *h)
{
	return HOSTEM_TX_RING - (h->tx_tail - h->tx_head);
}

static inline void
hostem_tx_push(struct hostem *h, struct rte_mbuf *m)
{
	h->tx[h->tx_tail++ % HOSTEM_TX_RING] = m;
}

/* Hand a built packet to the port or to the intra-DC line. Frees it on failure. */
static bool
hostem_route(struct hostem *h, struct rte_mbuf *m, bool intra, uint64_t now_tsc)
{
	if (intra) {
		if (wanem_line_enqueue(&h->dc, m, m->pkt_len, now_tsc) == WANEM_LINE_QUEUED)
			return true;
		h->st.dc_line_full++;
	} else {
		if (hostem_tx_room(h) > 0) {
			hostem_tx_push(h, m);
			return true;
		}
		h->st.tx_ring_full++;
	}
	rte_pktmbuf_free(m);
	return false;
}

static bool
hostem_has_room(const struct hostem *h, bool intra)
{
	if (intra)
		return h->dc.tail - h->dc.head <= h->dc.mask;
	return hostem_tx_room(h) > 0;
}

/* The PFC priority of a frame hostem built: its DSCP's class selector (DSCP >> 3). */
static uint8_t
hostem_frame_prio(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t et = (uint16_t)(p[12] << 8 | p[13]);
	uint8_t tos = et == RTE_ETHER_TYPE_IPV4 ? p[15] :
		      et == RTE_ETHER_TYPE_IPV6 ? (uint8_t)((p[14] << 4) | (p[15] >> 4)) : 0;

	return (uint8_t)(tos >> 5);
}

/*
 * Frames in the uplink queue that the gateway's PFC lets go now (from the
 * head, at most max): a paused priority at the head holds the queue, as
 * the ToR's egress toward the gateway would.
 */
static uint32_t
hostem_tx_ready(struct hostem *h, uint32_t start, uint32_t max, uint64_t now_tsc)
{
	uint32_t n = 0;

	while (n < max && !pfc_rx_paused(&h->pfc, hostem_frame_prio(h->tx[start + n]), now_tsc))
		n++;
	if (n == 0)
		h->tx_pfc_held++;
	return n;
}

/*
 * One burst from the uplink queue per loop: the loop reads the port (a PFC
 * frame from the gateway) before it sends again, so a pause stops the
 * uplink within a burst, as a ToR's egress stops within a frame or so. A
 * flush of the whole queue at once would put up to HOSTEM_TX_RING frames
 * on the link after the gateway's XOFF.
 */
static unsigned int
hostem_tx_flush(struct hostem *h)
{
	uint64_t now_tsc = rte_rdtsc();
	unsigned int sent_total = 0;

	while (h->tx_head != h->tx_tail && sent_total < HOSTEM_BURST) {
		uint32_t start = h->tx_head % HOSTEM_TX_RING;
		uint32_t n = RTE_MIN(h->tx_tail - h->tx_head, HOSTEM_TX_RING - start);
		uint16_t sent;

		if (n > HOSTEM_BURST - sent_total)
			n = HOSTEM_BURST - sent_total;
		n = hostem_tx_ready(h, start, n, now_tsc);
		if (n == 0)
			break;
		for (uint32_t i = 0; i < n; i++)
			h->st.tx_bytes += h->tx[start + i]->pkt_len;
		sent = rte_eth_tx_burst(h->port, 0, &h->tx[start], (uint16_t)n);
		for (uint32_t i = sent; i < n; i++)
			h->st.tx_bytes -= h->tx[start + i]->pkt_len;
		h->st.tx_pkts += sent;
		h->tx_head += sent;
		sent_total += sent;
		if (sent < n)
			break;
	}
	return sent_total;
}

/* -------- the CNP log -------- */

static void
hostem_log_cnp(struct hostem *h, uint16_t qp, bool sent, bool tagged, uint64_t tsc, uint64_t before,
	       uint64_t after)
{
	struct hostem_cnp_event *e;

	if (h->cnp_log_n >= h->conf->cnp_log_max) {
		h->cnp_log_dropped++;
		return;
	}
	e = &h->cnp_log[h->cnp_log_n++];
	e->tsc = tsc;
	e->qp = qp;
	e->sent = sent;
	e->tagged = tagged;
	e->rate_before_bps = before;
	e->rate_after_bps = after;
}

/* -------- senders -------- */

uint64_t
hostem_sender_acked_bytes(const struct hostem_sender *s, uint64_t n)
{
	uint64_t k = s->pkts_per_msg;
	uint64_t b = n / k * s->qc->message_bytes + n % k * s->qc->mtu;

	if (s->qc->total_bytes != 0 && b > s->qc->total_bytes)
		b = s->qc->total_bytes;
	return b;
}

/* Apply what the RP decided: pacing rate, first cut, rate statistics. */
static void
hostem_sender_sync(struct hostem_sender *s, uint64_t now_tsc, uint64_t now_ns)
{
	uint64_t r = dcqcn_rp_rate_bps(&s->rp);

	if (s->rp.n_cut != s->n_cut_seen) {
		if (s->first_cut_ns == HOSTEM_NEVER)
			s->first_cut_ns = s->rp.last_cut_ns;
		s->n_cut_seen = s->rp.n_cut;
	}
	if (r != s->rate_bps) {
		s->rate_area += (double)s->rate_bps * (double)(now_ns - s->rate_since_ns);
		s->rate_since_ns = now_ns;
		token_bucket_set_rate(&s->tbc, &s->tb, r, now_tsc);
		s->rate_bps = r;
		if (r < s->rate_min_bps)
			s->rate_min_bps = r;
	}
	s->rp_next_ns = dcqcn_rp_next_event(&s->rpc, &s->rp);
}

static uint64_t
hostem_sender_msg_bytes(const struct hostem_sender *s)
{
	return s->n_msgs != 0 && s->msg == s->n_msgs - 1 ? s->last_msg_bytes : s->qc->message_bytes;
}

/* The next data packet of S: fills P (and reth) and returns its frame size. */
static uint32_t
hostem_sender_next(const struct hostem_sender *s, struct hostem_pkt *p, uint8_t *reth)
{
	const struct hostem_qp_conf *q = s->qc;
	uint64_t msg_bytes = hostem_sender_msg_bytes(s);
	uint32_t pkts = (uint32_t)((msg_bytes + q->mtu - 1) / q->mtu);
	uint64_t off = (uint64_t)s->pkt_in_msg * q->mtu;
	bool first = s->pkt_in_msg == 0, last = s->pkt_in_msg + 1 == pkts;

	memset(p, 0, sizeof(*p));
	p->payload_len = (uint32_t)RTE_MIN((uint64_t)q->mtu, msg_bytes - off);
	p->psn = (uint32_t)(q->psn + s->sent_pkts) & HOSTEM_PSN_MASK;
	p->ackreq = last;
	if (pkts == 1)
		p->opcode = HOSTEM_OP_WRITE_ONLY;
	else if (first)
		p->opcode = HOSTEM_OP_WRITE_FIRST;
	else if (last)
		p->opcode = HOSTEM_OP_WRITE_LAST;
	else
		p->opcode = HOSTEM_OP_WRITE_MIDDLE;
	if (first) {
		hostem_pkt_reth(reth, HOSTEM_RETH_VA_BASE + s->msg * q->message_bytes,
				(uint32_t)q->local_qpn, (uint32_t)msg_bytes);
		p->ext = reth;
		p->ext_len = HOSTEM_RETH_SIZE;
	}
	return hostem_pkt_frame_size(&s->hdr, p);
}

static void
hostem_sender_advance(struct hostem_sender *s, uint32_t payload)
{
	uint64_t msg_bytes = hostem_sender_msg_bytes(s);
	uint32_t pkts = (uint32_t)((msg_bytes + s->qc->mtu - 1) / s->qc->mtu);

	s->sent_pkts++;
	s->sent_payload += payload;
	if (++s->pkt_in_msg == pkts) {
		s->pkt_in_msg = 0;
		s->msg++;
		if (s->n_msgs != 0 && s->msg == s->n_msgs)
			s->sending_done = true;
	}
}

/*
 * RED on a queue (the ToR uplink, the DC side toward the hosts): judge an
 * arrival against the bytes queued ahead of it (ecn_marker.h) and mark it
 * CE when chosen; counted in *marks, or *not_ect when it cannot carry CE.
 */
static void
hostem_red_mark(const struct ecn_red_config *cfg, struct ecn_red *red, uint64_t backlog,
		struct rte_mbuf *m, uint64_t *marks, uint64_t *not_ect)
{
	if (ecn_red_decide(cfg, red, backlog) != ECN_VERDICT_MARK)
		return;
	if (hostem_pkt_mark_ce(m))
		(*marks)++;
	else
		(*not_ect)++;
}

/* Where data of S goes first: the ToR, or straight to its route. */
static bool
hostem_sender_out(struct hostem *h, struct hostem_sender *s, struct rte_mbuf *m, uint64_t now_tsc)
{
	struct hostem_tor *t = &h->tor;
	uint64_t backlog;

	if (!t->on)
		return hostem_route(h, m, s->qc->intra, now_tsc);
	/* RED judges arrivals against the bytes queued ahead (ecn_marker.h). */
	backlog = wanem_line_backlog_bytes(&t->line, now_tsc);
	if (backlog > t->max_backlog_bytes)
		t->max_backlog_bytes = backlog;
	hostem_red_mark(&t->red_cfg, &t->red, backlog, m, &t->marks, &t->marks_not_ect);
	/* Who sent it (index in h->senders), for the route after the ToR. */
	m->hash.usr = (uint32_t)(s - h->senders);
	if (wanem_line_enqueue(&t->line, m, m->pkt_len, now_tsc) != WANEM_LINE_QUEUED) {
		t->drops++;
		rte_pktmbuf_free(m);
		return false;
	}
	t->enq_pkts++;
	t->enq_bytes += m->pkt_len;
	return true;
}

/*
 * A sender that is blocked or idle earns no pacing credit, as a NIC's rate
 * limiter does not: the bucket's depth is only there to catch up after the
 * process was not scheduled (two cores, five DPDK processes), not to burst
 * after a pause. So the balance is clamped to zero.
 */
static void
hostem_sender_no_credit(struct hostem_sender *s, uint64_t now_tsc)
{
	token_bucket_refill(&s->tbc, &s->tb, now_tsc);
	if (s->tb.tokens_q32 > 0)
		s->tb.tokens_q32 = 0;
}

/* May S send one more packet now (window, ToR xoff, output room)? */
static bool
hostem_sender_may_send(struct hostem *h, struct hostem_sender *s, uint64_t now_tsc)
{
	if (!s->qc->intra && pfc_rx_paused(&h->pfc, s->prio, now_tsc)) {
		s->blocked_pfc++;
		return false;
	}
	if (s->qc->window_pkts != 0 && s->sent_pkts - s->acked_pkts >= s->qc->window_pkts) {
		s->blocked_window++;
		return false;
	}
	if (h->tor.on) {
		if (wanem_line_backlog_bytes(&h->tor.line, now_tsc) >= h->conf->tor_xoff_bytes ||
		    h->tor.line.tail - h->tor.line.head > h->tor.line.mask) {
			s->blocked_xoff++;
			return false;
		}
		return true;
	}
	if (!hostem_has_room(h, s->qc->intra)) {
		s->blocked_out++;
		return false;
	}
	return true;
}

static unsigned int
hostem_sender_poll(struct hostem *h, struct hostem_sender *s, uint64_t now_tsc, uint64_t now_ns)
{
	uint8_t reth[HOSTEM_RETH_SIZE], stamp[HOSTEM_STAMP_SIZE];
	unsigned int n = 0;

	if (s->rp_next_ns != CC_TIME_NEVER && cc_time_after_eq(now_ns, s->rp_next_ns)) {
		dcqcn_rp_advance(&s->rpc, &s->rp, now_ns);
		hostem_sender_sync(s, now_tsc, now_ns);
	}
	if (s->sending_done || now_ns < s->qc->start_ns) {
		hostem_sender_no_credit(s, now_tsc);
		return 0;
	}
	while (n < HOSTEM_SENDER_BURST && !s->sending_done) {
		struct hostem_pkt p;
		struct rte_mbuf *m;
		uint32_t frame;

		if (!hostem_sender_may_send(h, s, now_tsc)) {
			hostem_sender_no_credit(s, now_tsc);
			break;
		}
		frame = hostem_sender_next(s, &p, reth);
		if (!token_bucket_conform(&s->tbc, &s->tb, frame, now_tsc, true))
			break;
		m = rte_pktmbuf_alloc(h->pool);
		if (m == NULL) {
			s->nombuf++;
			break;
		}
		/* Stamped as late as possible: latency is never underestimated. */
		hostem_pkt_stamp(stamp, (uint32_t)s->qc->local_qpn, rte_rdtsc());
		p.stamp = stamp;
		if (hostem_pkt_build(m, &s->hdr, &p) != 0) {
			rte_pktmbuf_free(m);
			s->nombuf++;
			break;
		}
		s->sent_frame_bytes += frame;
		s->iv.frame_bytes += frame;
		hostem_sender_advance(s, p.payload_len);
		dcqcn_rp_on_tx(&s->rpc, &s->rp, frame, now_ns);
		hostem_sender_sync(s, now_tsc, now_ns);
		hostem_sender_out(h, s, m, now_tsc);
		n++;
	}
	return n;
}

static uint64_t
hostem_min(uint64_t a, uint64_t b)
{
	if (a == HOSTEM_NEVER)
		return b;
	if (b == HOSTEM_NEVER)
		return a;
	return (int64_t)(a - b) < 0 ? a : b;
}

/*
 * When the gateway's pause of PRIO ends (TSC), HOSTEM_NEVER when it is not
 * paused; a pause already due to end gives its (past) end: the loop runs at
 * once and pfc_rx_paused() ends it.
 */
static uint64_t
hostem_pfc_until(const struct hostem *h, uint8_t prio)
{
	return h->pfc.rx[prio].paused ? h->pfc.rx[prio].until : HOSTEM_NEVER;
}

/* When S next needs the loop (TSC), HOSTEM_NEVER if only an input can wake it. */
static uint64_t
hostem_sender_due(const struct hostem *h, struct hostem_sender *s, uint64_t now_tsc)
{
	uint64_t due = HOSTEM_NEVER;

	if (s->rp_next_ns != CC_TIME_NEVER)
		due = h->clk.tsc0 + lab_clock_ticks(&h->clk, s->rp_next_ns);
	if (s->sending_done)
		return due;
	if (lab_clock_ns(&h->clk, now_tsc) < s->qc->start_ns) {
		uint64_t start = h->clk.tsc0 + lab_clock_ticks(&h->clk, s->qc->start_ns);

		return due == HOSTEM_NEVER || (int64_t)(start - due) < 0 ? start : due;
	}
	if (s->qc->window_pkts != 0 && s->sent_pkts - s->acked_pkts >= s->qc->window_pkts)
		return due;
	if (!s->qc->intra && hostem_pfc_until(h, s->prio) != HOSTEM_NEVER)
		/* Until the pause ends (a resume frame is an input: it wakes the loop). */
		return hostem_min(due, hostem_pfc_until(h, s->prio));
	{
		struct hostem_pkt p;
		uint8_t reth[HOSTEM_RETH_SIZE];
		uint32_t frame = hostem_sender_next(s, &p, reth);
		uint64_t wait = token_bucket_wait(&s->tbc, &s->tb, frame, now_tsc, true);
		uint64_t t = now_tsc + wait;

		/*
		 * On a grid, senders due in one slot wake together: one wake-up
		 * instead of one per sender's frame. The later start costs no
		 * credit (the bucket holds pacing_burst > 2 grid steps).
		 */
		if (wait != 0 && h->grid_ticks != 0)
			t = h->clk.tsc0 + RTE_ALIGN_MUL_CEIL(t - h->clk.tsc0, h->grid_ticks);

		if (due == HOSTEM_NEVER || (int64_t)(t - due) < 0)
			due = t;
	}
	return due;
}

static void
hostem_sender_ack(struct hostem *h, struct hostem_sender *s, const struct hostem_rx *rx,
		  uint64_t now_ns)
{
	uint32_t base = (uint32_t)(s->qc->psn + s->acked_pkts) & HOSTEM_PSN_MASK;
	uint64_t outstanding = s->sent_pkts - s->acked_pkts, count, before;

	switch (rx->syndrome & HOSTEM_AETH_KIND_MASK) {
	case HOSTEM_AETH_KIND_ACK:
		s->acks++;
		/* Everything through rx->psn. */
		count = (uint64_t)((rx->psn - base) & HOSTEM_PSN_MASK) + 1;
		break;
	case HOSTEM_AETH_KIND_NAK:
		s->naks++;
		/* A sequence-error NAK acknowledges everything before its PSN. */
		count = (rx->psn - base) & HOSTEM_PSN_MASK;
		break;
	case HOSTEM_AETH_KIND_RNR:
		s->rnr_naks++;
		return;
	default:
		h->st.unknown_opcode++;
		return;
	}
	if (count > outstanding) {
		s->acks_stale++;
		return;
	}
	before = hostem_sender_acked_bytes(s, s->acked_pkts);
	s->acked_pkts += count;
	s->iv.goodput_bytes += hostem_sender_acked_bytes(s, s->acked_pkts) - before;
	if (s->sending_done && !s->done && s->acked_pkts == s->sent_pkts) {
		s->done = true;
		s->done_ns = now_ns;
	}
}

static void
hostem_sender_cnp(struct hostem *h, struct hostem_sender *s, const struct hostem_rx *rx,
		  uint64_t now_tsc, uint64_t now_ns)
{
	bool tagged = rx->ip_id_or_flow == HOSTEM_CNP_TAG;
	uint64_t before = s->rate_bps;

	s->cnps++;
	s->iv.cnps++;
	s->cnps_tagged += tagged;
	if (s->first_cnp_ns == HOSTEM_NEVER)
		s->first_cnp_ns = now_ns;
	dcqcn_rp_on_cnp(&s->rpc, &s->rp, now_ns);
	hostem_sender_sync(s, now_tsc, now_ns);
	hostem_log_cnp(h, s->index, false, tagged, now_tsc, before, s->rate_bps);
}

/* -------- receivers -------- */

static void
hostem_receiver_send(struct hostem *h, struct hostem_receiver *r, const struct hostem_hdr *hdr,
		     const struct hostem_pkt *p, uint64_t now_tsc)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(h->pool);

	if (m == NULL || hostem_pkt_build(m, hdr, p) != 0) {
		rte_pktmbuf_free(m);
		r->ctrl_drops++;
		return;
	}
	if (!hostem_route(h, m, r->qc->intra, now_tsc))
		r->ctrl_drops++;
}

static void
hostem_receiver_ack(struct hostem *h, struct hostem_receiver *r, uint8_t syndrome, uint32_t psn,
		    uint64_t now_tsc)
{
	uint8_t aeth[HOSTEM_AETH_SIZE];
	struct hostem_pkt p;

	hostem_pkt_aeth(aeth, syndrome, r->msn);
	memset(&p, 0, sizeof(p));
	p.opcode = HOSTEM_OP_ACK;
	p.psn = psn;
	p.ext = aeth;
	p.ext_len = HOSTEM_AETH_SIZE;
	hostem_receiver_send(h, r, &r->ack_hdr, &p, now_tsc);
}

static void
hostem_receiver_cnp(struct hostem *h, struct hostem_receiver *r, uint64_t now_tsc)
{
	static const uint8_t zeros[HOSTEM_CNP_PAD_SIZE];
	struct hostem_pkt p;

	memset(&p, 0, sizeof(p));
	p.opcode = HOSTEM_OP_CNP;
	p.becn = HOSTEM_BTH_BECN;
	p.ext = zeros;
	p.ext_len = HOSTEM_CNP_PAD_SIZE;
	hostem_receiver_send(h, r, &r->cnp_hdr, &p, now_tsc);
	r->cnps_sent++;
	r->iv.cnps++;
	hostem_log_cnp(h, r->index, true, true, now_tsc, 0, 0);
}

static bool
hostem_op_ends_message(uint8_t op)
{
	switch (op) {
	case 0x02: /* SEND LAST */
	case 0x03:
	case 0x04: /* SEND ONLY */
	case 0x05:
	case HOSTEM_OP_WRITE_LAST:
	case HOSTEM_OP_WRITE_LAST_IMM:
	case HOSTEM_OP_WRITE_ONLY:
	case HOSTEM_OP_WRITE_ONLY_IMM:
		return true;
	default:
		return false;
	}
}

static void
hostem_lat_add(struct hostem_lat *l, uint64_t ns)
{
	uint64_t b = ns / 1000;

	l->n++;
	l->sum_ns += ns;
	if (l->n == 1 || ns < l->min_ns)
		l->min_ns = ns;
	if (ns > l->max_ns)
		l->max_ns = ns;
	l->hist[b < HOSTEM_LAT_BUCKETS ? b : HOSTEM_LAT_BUCKETS]++;
}

static void
hostem_receiver_data(struct hostem *h, struct hostem_receiver *r, const struct hostem_rx *rx,
		     uint64_t now_tsc, uint64_t now_ns)
{
	uint32_t d = (rx->psn - r->epsn) & HOSTEM_PSN_MASK;
	uint64_t stamp_tsc;
	uint32_t stamp_qpn;

	r->pkts++;
	r->frame_bytes += rx->frame_len;
	if (r->first_ns == HOSTEM_NEVER)
		r->first_ns = now_ns;
	r->last_ns = now_ns;
	if (rx->ecn == ECN_CE) {
		r->ce++;
		r->iv.ce++;
		if (dcqcn_np_on_ce(&r->npc, &r->np, now_ns) == DCQCN_NP_SEND_CNP)
			hostem_receiver_cnp(h, r, now_tsc);
		else
			r->cnps_suppressed++;
	}
	if (d != 0) {
		if (d >= (HOSTEM_PSN_MASK + 1) / 2) {
			/* Behind the expected PSN: a duplicate or a late reordered packet. */
			r->dups++;
			return;
		}
		/*
		 * Ahead: packets are missing. A NIC would NAK and drop until the
		 * retransmission; hostem's senders do not retransmit, so NAK once
		 * and resynchronise on this packet.
		 */
		r->gaps++;
		r->missing += d;
		hostem_receiver_ack(h, r, HOSTEM_AETH_NAK_PSN_SEQ, r->epsn, now_tsc);
		r->naks_sent++;
	}
	r->epsn = (rx->psn + 1) & HOSTEM_PSN_MASK;
	r->payload_bytes += rx->payload_len;
	r->iv.goodput_bytes += rx->payload_len;
	r->iv.frame_bytes += rx->frame_len;
	if (hostem_op_ends_message(rx->opcode))
		r->msn = (r->msn + 1) & HOSTEM_PSN_MASK;
	r->msgs += hostem_op_ends_message(rx->opcode);
	if (hostem_pkt_stamp_read(rx, &stamp_qpn, &stamp_tsc) &&
	    (int64_t)(now_tsc - stamp_tsc) >= 0)
		hostem_lat_add(&r->lat, (now_tsc - stamp_tsc) * 1000000000u / h->clk.hz);
	if (rx->ackreq || ++r->unacked >= r->qc->ack_every) {
		hostem_receiver_ack(h, r, HOSTEM_AETH_ACK, rx->psn, now_tsc);
		r->acks_sent++;
		r->unacked = 0;
	}
}

/* -------- the DC side toward the hosts (dc_rate) -------- */

/*
 * Is m RoCE data toward a receiver (BTH opcode up to WRITE ONLY with
 * immediate), by its headers alone? What the down queue holds; ACKs, NAKs
 * and CNPs pass it (a strict-priority class), and what is malformed is left
 * to hostem_pkt_parse() to count.
 */
static bool
hostem_frame_is_data(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), l4;
	uint16_t et;

	if (len < RTE_ETHER_HDR_LEN + 20)
		return false;
	et = (uint16_t)(p[12] << 8 | p[13]);
	if (et == RTE_ETHER_TYPE_IPV4 && p[23] == IPPROTO_UDP)
		l4 = RTE_ETHER_HDR_LEN + (uint32_t)(p[14] & 0xf) * 4;
	else if (et == RTE_ETHER_TYPE_IPV6 && p[20] == IPPROTO_UDP)
		l4 = RTE_ETHER_HDR_LEN + 40;
	else
		return false;
	return len >= l4 + 8 + HOSTEM_BTH_SIZE &&
	       (uint16_t)(p[l4 + 2] << 8 | p[l4 + 3]) == HOSTEM_ROCE_PORT &&
	       p[l4 + 8] <= HOSTEM_OP_WRITE_ONLY_IMM;
}

/* Data toward a local receiver enters the down queue; a drop frees it (the line counts it). */
static void
hostem_down_enqueue(struct hostem *h, struct rte_mbuf *m, uint64_t now_tsc)
{
	struct hostem_down *d = &h->down;
	uint8_t prio = hostem_frame_prio(m);

	m->hash.usr = prio;
	if (d->red_on) {
		m->l2_len = RTE_ETHER_HDR_LEN; /* untagged: hostem_frame_is_data() */
		hostem_red_mark(&d->red_cfg, &d->red, wanem_line_backlog_bytes(&d->line, now_tsc),
				m, &d->marks, &d->marks_not_ect);
	}
	if (wanem_line_enqueue(&d->line, m, m->pkt_len, now_tsc) != WANEM_LINE_QUEUED) {
		rte_pktmbuf_free(m);
		return;
	}
	d->prio_bytes[prio] += m->pkt_len;
	if (d->prio_bytes[prio] > d->max_prio_bytes[prio])
		d->max_prio_bytes[prio] = d->prio_bytes[prio];
}

/* One PFC frame toward the gateway: PAUSE (pause_quanta) or RESUME (0) for prio. */
static bool
hostem_down_pfc_send(struct hostem *h, unsigned int prio, bool pause)
{
	struct rte_mbuf *m = pfc_frame_mbuf(h->pool, h->conf->mac.addr_bytes, prio,
					    pause ? h->pfc_cfg.pause_quanta : 0);

	if (m == NULL)
		return false;
	/* MAC control goes ahead of the queued data, as a NIC sends it. */
	if (rte_eth_tx_burst(h->port, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return false;
	}
	h->st.tx_pkts++;
	h->st.tx_bytes += PFC_FRAME_BYTES;
	return true;
}

/* congestion/pfc.h's verdict for every priority on what the down queue holds. */
static void
hostem_down_pfc(struct hostem *h, uint64_t now_tsc)
{
	for (unsigned int prio = 0; prio < PFC_PRIORITIES; prio++) {
		enum pfc_tx_verdict v =
			pfc_tx_decide(&h->pfc_cfg, &h->pfc, prio, h->down.prio_bytes[prio], now_tsc);

		if (v == PFC_TX_NONE)
			continue;
		if (!hostem_down_pfc_send(h, prio, v == PFC_TX_PAUSE)) {
			pfc_tx_unsent(&h->pfc, prio);
			h->down.pfc_tx_failed++;
		}
	}
}

/* When the down queue next needs the loop (TSC): a packet's serialization end, a PFC refresh. */
static uint64_t
hostem_down_due(const struct hostem *h)
{
	uint64_t due = wanem_line_next_due(&h->down.line);

	for (unsigned int prio = 0; prio < PFC_PRIORITIES; prio++)
		if (h->pfc.tx[prio].xoff)
			due = hostem_min(due, h->pfc.tx[prio].last_sent + h->pfc_cfg.refresh_ticks);
	return due;
}

static void hostem_input(struct hostem *h, struct rte_mbuf *m, uint64_t now_tsc, uint64_t now_ns);

/* What finished its serialization toward the hosts goes to the receivers; then PFC. */
static unsigned int
hostem_down_out(struct hostem *h, uint64_t now_tsc, uint64_t now_ns)
{
	struct hostem_down *d = &h->down;
	void *ready[HOSTEM_BURST];
	unsigned int n = 0;
	uint32_t k;

	if (!d->on)
		return 0;
	wanem_line_release(&d->line, now_tsc);
	while ((k = wanem_line_ready(&d->line, ready, HOSTEM_BURST)) > 0) {
		wanem_line_sent(&d->line, k, now_tsc);
		for (uint32_t i = 0; i < k; i++) {
			struct rte_mbuf *m = ready[i];

			d->prio_bytes[m->hash.usr % PFC_PRIORITIES] -= m->pkt_len;
			hostem_input(h, m, now_tsc, now_ns);
			rte_pktmbuf_free(m);
		}
		n += k;
	}
	hostem_down_pfc(h, now_tsc);
	return n;
}

/* -------- input -------- */

/* A MAC control frame: PFC or PAUSE obeyed (true), other opcodes counted. */
static bool
hostem_input_pfc(struct hostem *h, struct rte_mbuf *m, uint64_t now_tsc)
{
	struct pfc_frame f;

	if (rte_pktmbuf_data_len(m) < 14 ||
	    rte_be_to_cpu_16(rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->ether_type) !=
		    PFC_FRAME_ETHER_TYPE)
		return false;
	if (pfc_frame_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), &f) ==
	    PFC_FRAME_OK) {
		pfc_rx_frame(&h->pfc_cfg, &h->pfc, f.class_enable, f.quanta, now_tsc);
		h->pfc_frames++;
	} else {
		h->pfc_bad++;
	}
	return true;
}

static void
hostem_input(struct hostem *h, struct rte_mbuf *m, uint64_t now_tsc, uint64_t now_ns)
{
	struct hostem_rx rx;

	if (hostem_input_pfc(h, m, now_tsc))
		return;
	switch (hostem_pkt_parse(m, &h->conf->mac, h->conf->icrc_check, &rx)) {
	case HOSTEM_RX_ROCE:
		break;
	case HOSTEM_RX_NOT_FOR_US:
		h->st.not_for_us++;
		return;
	case HOSTEM_RX_NOT_ROCE:
		h->st.not_roce++;
		return;
	case HOSTEM_RX_MALFORMED:
		h->st.malformed++;
		return;
	case HOSTEM_RX_MULTISEG:
		h->st.multiseg++;
		return;
	case HOSTEM_RX_BAD_ICRC:
		h->st.bad_icrc++;
		return;
	}
	if (rx.opcode == HOSTEM_OP_ACK || rx.opcode == HOSTEM_OP_CNP) {
		struct hostem_sender *s = hostem_find_sender(h, &rx.dst, rx.dqpn);

		if (s == NULL)
			h->st.no_sender++;
		else if (rx.opcode == HOSTEM_OP_ACK)
			hostem_sender_ack(h, s, &rx, now_ns);
		else
			hostem_sender_cnp(h, s, &rx, now_tsc, now_ns);
	} else if (rx.opcode <= HOSTEM_OP_WRITE_ONLY_IMM) {
		struct hostem_receiver *r = hostem_find_receiver(h, &rx.dst, rx.dqpn);

		if (r == NULL)
			h->st.no_receiver++;
		else
			hostem_receiver_data(h, r, &rx, now_tsc, now_ns);
	} else {
		h->st.unknown_opcode++;
	}
}

static unsigned int
hostem_poll_input(struct hostem *h, uint64_t now_tsc, uint64_t now_ns)
{
	struct rte_mbuf *pkts[HOSTEM_BURST];
	void *ready[HOSTEM_BURST];
	uint16_t n, i;
	uint32_t k;

	n = rte_eth_rx_burst(h->port, 0, pkts, HOSTEM_BURST);
	h->st.port_pkts += n;
	if (n != 0) {
		/* Arrival time after rx_burst(): never before the packet arrived. */
		now_tsc = rte_rdtsc();
		now_ns = lab_clock_ns(&h->clk, now_tsc);
	}
	for (i = 0; i < n; i++) {
		if (h->down.on && hostem_frame_is_data(pkts[i])) {
			hostem_down_enqueue(h, pkts[i], now_tsc);
			continue;
		}
		hostem_input(h, pkts[i], now_tsc, now_ns);
		rte_pktmbuf_free(pkts[i]);
	}
	wanem_line_release(&h->dc, now_tsc);
	k = wanem_line_ready(&h->dc, ready, HOSTEM_BURST);
	wanem_line_sent(&h->dc, k, now_tsc);
	h->st.dc_pkts += k;
	for (i = 0; i < k; i++) {
		struct rte_mbuf *m = ready[i];

		if (h->down.on && hostem_frame_is_data(m)) {
			hostem_down_enqueue(h, m, now_tsc);
			continue;
		}
		hostem_input(h, m, now_tsc, now_ns);
		rte_pktmbuf_free(m);
	}
	return n + k;
}

/* Packets whose serialization on the ToR uplink ended go to their route. */
static unsigned int
hostem_tor_out(struct hostem *h, uint64_t now_tsc)
{
	struct hostem_tor *t = &h->tor;
	unsigned int n = 0;
	void *p;

	if (!t->on)
		return 0;
	wanem_line_release(&t->line, now_tsc);
	while (wanem_line_ready(&t->line, &p, 1) == 1) {
		struct rte_mbuf *m = p;
		bool intra = h->senders[m->hash.usr].qc->intra;

		if (!hostem_has_room(h, intra)) {
			t->xoff_polls++;
			break;
		}
		t->tx_bytes += m->pkt_len;
		wanem_line_sent(&t->line, 1, now_tsc);
		hostem_route(h, m, intra, now_tsc);
		n++;
	}
	return n;
}

/* -------- setup -------- */

static int
hostem_sender_init(struct hostem *h, struct hostem_sender *s, const struct hostem_qp_conf *q,
		   uint16_t index, uint64_t now_tsc)
{
	const struct hostem_conf *c = h->conf;
	struct dcqcn_rp_params rpp;
	uint64_t burst;
	int rc;

	memset(s, 0, sizeof(*s));
	s->qc = q;
	s->index = index;
	s->prio = (uint8_t)((q->dscp >> 3) & (PFC_PRIORITIES - 1));
	hostem_pkt_hdr_init(&s->hdr, &c->mac, q->intra ? &c->mac : &c->gateway_mac, &q->local,
			    &q->remote, (uint16_t)q->sport, (uint8_t)(q->dscp << 2 | ECN_ECT0),
			    (uint32_t)q->remote_qpn, 0);
	dcqcn_params_default((enum dcqcn_variant)c->variant, q->line_rate_bps, &rpp, NULL);
	rc = dcqcn_rp_config_init(&s->rpc, &rpp);
	if (rc != 0)
		return rc;
	dcqcn_rp_init(&s->rpc, &s->rp);
	s->rate_bps = dcqcn_rp_rate_bps(&s->rp);
	s->rate_min_bps = s->rate_bps;
	s->rp_next_ns = dcqcn_rp_next_event(&s->rpc, &s->rp);
	burst = RTE_MAX(
		(uint64_t)2 * hostem_config_max_frame(c),
		(uint64_t)((unsigned __int128)q->line_rate_bps * c->pacing_burst_ns / 8000000000u));
	rc = token_bucket_config_init(&s->tbc, s->rate_bps, burst, h->clk.hz);
	if (rc != 0)
		return rc;
	token_bucket_init(&s->tbc, &s->tb, now_tsc);
	hostem_sender_no_credit(s, now_tsc);
	s->pkts_per_msg = (uint32_t)((q->message_bytes + q->mtu - 1) / q->mtu);
	if (q->total_bytes != 0) {
		s->n_msgs = (q->total_bytes + q->message_bytes - 1) / q->message_bytes;
		s->last_msg_bytes = q->total_bytes - (s->n_msgs - 1) * q->message_bytes;
	}
	s->first_cnp_ns = s->first_cut_ns = HOSTEM_NEVER;
	return 0;
}

static int
hostem_receiver_init(struct hostem *h, struct hostem_receiver *r, const struct hostem_qp_conf *q,
		     uint16_t index)
{
	const struct hostem_conf *c = h->conf;
	const struct rte_ether_addr *dmac = q->intra ? &c->mac : &c->gateway_mac;
	struct dcqcn_np_params npp;
	int rc;

	memset(r, 0, sizeof(*r));
	r->qc = q;
	r->index = index;
	hostem_pkt_hdr_init(&r->ack_hdr, &c->mac, dmac, &q->local, &q->remote, (uint16_t)q->sport,
			    (uint8_t)(q->dscp << 2 | ECN_NOT_ECT), (uint32_t)q->remote_qpn, 0);
	hostem_pkt_hdr_init(&r->cnp_hdr, &c->mac, dmac, &q->local, &q->remote, (uint16_t)q->sport,
			    (uint8_t)(c->cnp_dscp << 2 | ECN_NOT_ECT), (uint32_t)q->remote_qpn,
			    HOSTEM_CNP_TAG);
	npp.min_interval_ns = q->cnp_interval_ns;
	rc = dcqcn_np_config_init(&r->npc, &npp);
	if (rc != 0)
		return rc;
	dcqcn_np_init(&r->np);
	r->epsn = (uint32_t)q->psn;
	r->first_ns = HOSTEM_NEVER;
	r->lat.hist = calloc(HOSTEM_LAT_BUCKETS + 1, sizeof(*r->lat.hist));
	return r->lat.hist == NULL ? -ENOMEM : 0;
}

int
hostem_init(struct hostem *h, const struct hostem_conf *c, uint16_t port, struct rte_mempool *pool)
{
	struct wanem_line_params lp;
	struct wanem_line_config lc;
	uint64_t now;
	uint16_t ns = 0, nr = 0;
	int rc;

	memset(h, 0, sizeof(*h));
	h->conf = c;
	h->port = port;
	h->pool = pool;
	lab_clock_init(&h->clk);
	idle_init(&h->own_idle, c->idle_mode, HOSTEM_IDLE_SPIN_POLLS, HOSTEM_IDLE_MIN_NS,
		  c->max_sleep_ns);
	h->idle = &h->own_idle;
	h->grid_ticks = lab_clock_ticks(&h->clk, c->pacing_grid_ns);
	now = h->clk.tsc0;
	for (uint32_t i = 0; i < c->n_qp; i++) {
		ns += c->qp[i].role == HOSTEM_ROLE_SEND;
		nr += c->qp[i].role == HOSTEM_ROLE_RECV;
	}
	h->senders = calloc(ns ? ns : 1, sizeof(*h->senders));
	h->receivers = calloc(nr ? nr : 1, sizeof(*h->receivers));
	h->dc_slots = calloc(HOSTEM_DC_SLOTS, sizeof(*h->dc_slots));
	h->cnp_log = calloc(c->cnp_log_max ? c->cnp_log_max : 1, sizeof(*h->cnp_log));
	if (h->senders == NULL || h->receivers == NULL || h->dc_slots == NULL ||
	    h->cnp_log == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	for (uint32_t i = 0; i < c->n_qp; i++) {
		const struct hostem_qp_conf *q = &c->qp[i];

		if (q->role == HOSTEM_ROLE_SEND) {
			rc = hostem_sender_init(h, &h->senders[h->n_senders], q, (uint16_t)i, now);
			hostem_table_add(h->sender_table, q, h->n_senders++);
		} else {
			rc = hostem_receiver_init(h, &h->receivers[h->n_receivers], q, (uint16_t)i);
			hostem_table_add(h->receiver_table, q, h->n_receivers++);
		}
		if (rc != 0)
			goto fail;
	}
	{
		/*
		 * The transmit side runs with a limited DC side only (dc_xoff and
		 * dc_xon, validated with the file); otherwise xoff/xon are
		 * placeholders. Quanta are counted at the port's rate both ways.
		 */
		struct pfc_params pp = {
			.port_rate_bps = c->tor_rate_bps != 0 ? c->tor_rate_bps : c->line_rate_bps,
			.hz = h->clk.hz,
			.xoff_bytes = c->dc_rate_bps != 0 ? c->dc_xoff_bytes : 2,
			.xon_bytes = c->dc_rate_bps != 0 ? c->dc_xon_bytes : 1,
			.pause_quanta = PFC_QUANTA_MAX,
			.priority_mask = 0xff,
		};

		if ((rc = pfc_config_init(&h->pfc_cfg, &pp)) != 0)
			goto fail;
		pfc_init(&h->pfc);
	}
	memset(&lp, 0, sizeof(lp));
	lp.hz = h->clk.hz;
	lp.delay_ns = c->dc_delay_ns;
	if ((rc = wanem_line_config_init(&lc, &lp)) != 0 ||
	    (rc = wanem_line_init(&h->dc, &lc, h->dc_slots, HOSTEM_DC_SLOTS, now)) != 0)
		goto fail;
	if (c->tor_rate_bps != 0) {
		struct ecn_red_params rp = {
			.kmin_bytes = c->tor_kmin_bytes,
			.kmax_bytes = c->tor_kmax_bytes,
			.pmax_ppm = (uint32_t)c->tor_pmax_ppm,
		};
		uint32_t slots = hostem_tor_slots(c);

		h->tor.on = true;
		h->tor.slots = calloc(slots, sizeof(*h->tor.slots));
		if (h->tor.slots == NULL) {
			rc = -ENOMEM;
			goto fail;
		}
		lp.delay_ns = 0;
		lp.rate_bps = c->tor_rate_bps;
		if ((rc = ecn_red_config_init(&h->tor.red_cfg, &rp)) != 0 ||
		    (rc = wanem_line_config_init(&lc, &lp)) != 0 ||
		    (rc = wanem_line_init(&h->tor.line, &lc, h->tor.slots, slots, now)) != 0)
			goto fail;
		ecn_red_init(&h->tor.red, c->seed);
	}
	if (c->dc_rate_bps != 0) {
		uint32_t slots = hostem_down_slots(c);

		h->down.on = true;
		h->down.slots = calloc(slots, sizeof(*h->down.slots));
		if (h->down.slots == NULL) {
			rc = -ENOMEM;
			goto fail;
		}
		memset(&lp, 0, sizeof(lp));
		lp.hz = h->clk.hz;
		lp.rate_bps = c->dc_rate_bps;
		lp.queue_bytes = c->dc_buffer_bytes;
		if ((rc = wanem_line_config_init(&lc, &lp)) != 0 ||
		    (rc = wanem_line_init(&h->down.line, &lc, h->down.slots, slots, now)) != 0)
			goto fail;
		if (c->dc_kmax_bytes != 0) {
			struct ecn_red_params rp = {
				.kmin_bytes = c->dc_kmin_bytes,
				.kmax_bytes = c->dc_kmax_bytes,
				.pmax_ppm = (uint32_t)c->dc_pmax_ppm,
			};

			if ((rc = ecn_red_config_init(&h->down.red_cfg, &rp)) != 0)
				goto fail;
			/* Its own draws: the uplink's marker keeps the seed's sequence. */
			ecn_red_init(&h->down.red, c->seed + 1);
			h->down.red_on = true;
		}
	}
	h->end_ns = c->duration_ns ? c->duration_ns : HOSTEM_NEVER;
	h->linger_end_ns = HOSTEM_NEVER;
	h->stopped_ns = HOSTEM_NEVER;
	h->next_csv_ns = HOSTEM_NEVER;
	h->next_stats_ns = c->stats_interval_ns ? c->stats_interval_ns : HOSTEM_NEVER;
	return 0;

fail:
	hostem_fini(h);
	return rc;
}

/* -------- the loop -------- */

static bool
hostem_all_done(const struct hostem *h)
{
	if (h->n_senders == 0)
		return false;
	for (uint16_t i = 0; i < h->n_senders; i++)
		if (!h->senders[i].done)
			return false;
	return true;
}

static uint64_t
hostem_tsc_of(const struct hostem *h, uint64_t ns)
{
	return ns == HOSTEM_NEVER ? HOSTEM_NEVER : h->clk.tsc0 + lab_clock_ticks(&h->clk, ns);
}

unsigned int
hostem_poll(struct hostem *h, uint64_t now)
{
	const struct hostem_conf *c = h->conf;
	uint64_t now_ns = lab_clock_ns(&h->clk, now);
	unsigned int work = 0;

	if (h->finished)
		return 0;
	if (now_ns >= h->end_ns || now_ns >= h->linger_end_ns) {
		hostem_finish(h);
		return 0;
	}
	work += hostem_poll_input(h, now, now_ns);
	work += hostem_down_out(h, now, now_ns);
	for (uint16_t i = 0; i < h->n_senders; i++) {
		struct hostem_sender *s = &h->senders[(h->rr + i) % h->n_senders];

		work += hostem_sender_poll(h, s, now, now_ns);
	}
	if (h->n_senders != 0)
		h->rr = (h->rr + 1) % h->n_senders;
	work += hostem_tor_out(h, now);
	work += hostem_tx_flush(h);
	h->polls++;
	if (now_ns >= h->next_csv_ns || now_ns >= h->next_stats_ns) {
		bool csv = now_ns >= h->next_csv_ns, stats = now_ns >= h->next_stats_ns;

		hostem_report_interval(h, now_ns, csv, stats);
		if (csv)
			h->next_csv_ns += c->csv_interval_ns;
		if (stats)
			h->next_stats_ns += c->stats_interval_ns;
	}
	if (c->until_done && h->linger_end_ns == HOSTEM_NEVER && hostem_all_done(h))
		h->linger_end_ns = now_ns + HOSTEM_LINGER_NS;
	h->busy_polls += work != 0;
	return work;
}

uint64_t
hostem_due(const struct hostem *h, uint64_t now)
{
	uint64_t due;

	if (h->finished)
		return HOSTEM_NEVER;
	due = hostem_min(hostem_tsc_of(h, h->end_ns), hostem_tsc_of(h, h->linger_end_ns));
	due = hostem_min(due, hostem_tsc_of(h, h->next_csv_ns));
	due = hostem_min(due, hostem_tsc_of(h, h->next_stats_ns));
	due = hostem_min(due, wanem_line_next_due(&h->dc));
	if (h->tor.on)
		due = hostem_min(due, wanem_line_next_due(&h->tor.line));
	if (h->down.on)
		due = hostem_min(due, hostem_down_due(h));
	if (h->tx_head != h->tx_tail) {
		/* The uplink queue's head waits for its priority's pause to end. */
		due = hostem_min(due, hostem_pfc_until(
					      h, hostem_frame_prio(h->tx[h->tx_head % HOSTEM_TX_RING])));
	}
	/* A port that refused everything is retried at the back-off's pace. */
	for (uint16_t i = 0; i < h->n_senders; i++)
		due = hostem_min(due, hostem_sender_due(h, &h->senders[i], now));
	return due;
}

void
hostem_finish(struct hostem *h)
{
	if (h->finished)
		return;
	h->finished = true;
	h->stopped_ns = lab_clock_ns(&h->clk, rte_rdtsc());
	for (uint16_t i = 0; i < h->n_senders; i++) {
		struct hostem_sender *s = &h->senders[i];

		s->rate_area += (double)s->rate_bps * (double)(h->stopped_ns - s->rate_since_ns);
		s->rate_since_ns = h->stopped_ns;
	}
}

void
hostem_run(struct hostem *h, const volatile sig_atomic_t *stop)
{
	idle_start(h->idle);
	if (idle_add_queue(h->idle, h->port, 0) != 0 && h->conf->idle_mode == IDLE_INTERRUPT)
		printf("hostem: port %u has no rx interrupts: idle = sleep\n", h->port);
	while (!*stop && !h->finished) {
		uint64_t now = rte_rdtsc();

		if (hostem_poll(h, now) != 0) {
			idle_work(h->idle);
			continue;
		}
		if (!h->finished)
			idle_wait(h->idle, now, hostem_due(h, now));
	}
	idle_fini(h->idle);
	hostem_finish(h);
}

void
hostem_drain(struct hostem *h)
{
	void *p[HOSTEM_BURST];
	uint32_t n;

	if (h->tor.slots != NULL)
		while ((n = wanem_line_drain(&h->tor.line, p, HOSTEM_BURST)) > 0)
			rte_pktmbuf_free_bulk((struct rte_mbuf **)p, n);
	if (h->dc_slots != NULL)
		while ((n = wanem_line_drain(&h->dc, p, HOSTEM_BURST)) > 0)
			rte_pktmbuf_free_bulk((struct rte_mbuf **)p, n);
	if (h->down.slots != NULL)
		while ((n = wanem_line_drain(&h->down.line, p, HOSTEM_BURST)) > 0)
			rte_pktmbuf_free_bulk((struct rte_mbuf **)p, n);
	while (h->tx_head != h->tx_tail)
		rte_pktmbuf_free(h->tx[h->tx_head++ % HOSTEM_TX_RING]);
}

void
hostem_fini(struct hostem *h)
{
	hostem_drain(h);
	free(h->tor.slots);
	free(h->dc_slots);
	free(h->down.slots);
	h->down.slots = NULL;
	h->tor.slots = NULL;
	h->dc_slots = NULL;
	for (uint16_t i = 0; h->receivers != NULL && i < h->n_receivers; i++) {
		free(h->receivers[i].lat.hist);
		h->receivers[i].lat.hist = NULL;
	}
	free(h->senders);
	free(h->receivers);
	free(h->cnp_log);
	h->senders = NULL;
	h->receivers = NULL;
	h->cnp_log = NULL;
}
