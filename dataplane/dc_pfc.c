/* SPDX-License-Identifier: BSD-3-Clause */
#include "dc_pfc.h"

#include <string.h>

#include <rte_mbuf.h>

#include "congestion/cc_math.h"
#include "congestion/cc_time.h"
#include "parse.h"
#include "pfc.h"
#include "pfc_mbuf.h"
#include "pipeline.h"
#include "wan_credit.h"

void
dc_pfc_init(struct dc_pfc *d, struct rte_mbuf **mem)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	pfc_init(&d->st);
	for (i = 0; i < PFC_PRIORITIES; i++)
		d->q[i].ring = mem + (size_t)i * DC_PFC_QUEUE;
}

void
dc_pfc_sync(struct dc_pfc *d, const struct dp_lossless_conf *lc, uint64_t generation,
	    uint64_t tsc_hz)
{
	struct pfc_params p;

	if (d->generation == generation)
		return;
	d->generation = generation;
	p = lc->pfc;
	p.hz = tsc_hz;
	/* Validated when the snapshot was built (with the same rate); keep it off otherwise. */
	d->enabled = lc->enabled && pfc_config_init(&d->cfg, &p) == 0;
}

enum ls_drop_reason
dc_pfc_rx(struct dc_pfc *d, struct dp_pfc_counters *ctr, const uint8_t *frame, uint32_t len,
	  uint64_t tsc)
{
	struct pfc_frame f;
	unsigned int i;

	if (!d->enabled || pfc_frame_parse(frame, len, &f) != PFC_FRAME_OK)
		return LS_DROP_MAC_CONTROL;
	pfc_rx_frame(&d->cfg, &d->st, f.class_enable, f.quanta, tsc);
	ctr->rx_frames++;
	for (i = 0; i < PFC_PRIORITIES; i++)
		if ((f.class_enable >> i & 1) && f.quanta[i] != 0)
			ctr->rx_pauses[i]++;
	return LS_DROP_PFC_CONSUMED;
}

uint8_t
dc_pfc_priority(const struct dp_lossless_conf *lc, const uint8_t *l3)
{
	uint8_t tc = (l3[0] >> 4) == 4 ? l3[1] : (uint8_t)((l3[0] & 0x0f) << 4 | l3[1] >> 4);

	return lc->dscp_priority[tc >> 2];
}

bool
dc_pfc_hold(struct dc_pfc *d, struct dp_pfc_counters *ctr, struct rte_mbuf *m, uint8_t prio,
	    uint64_t tsc, enum ls_drop_reason *r)
{
	struct dc_pfc_fifo *f = &d->q[prio % PFC_PRIORITIES];

	*r = LS_DROP_NONE;
	if (!d->enabled)
		return false;
	/* Behind held packets a packet waits too: order within a priority is kept. */
	if (dc_pfc_count(f) == 0 && !pfc_rx_paused(&d->st, prio, tsc))
		return false;
	if (dc_pfc_count(f) >= DC_PFC_QUEUE) {
		*r = LS_DROP_DC_PAUSE_FULL;
		return false;
	}
	f->ring[f->tail++ & (DC_PFC_QUEUE - 1)] = m;
	f->bytes += m->pkt_len;
	ctr->held++;
	ctr->queued++;
	return true;
}

/* Build and queue one PFC frame for priority prio; false when it could not be. */
static bool
dc_pfc_send(const struct dp_port *dc, uint16_t dc_port, struct rte_mempool *pool, uint8_t prio,
	    uint16_t quanta, struct dp_tx *tx)
{
	struct rte_mbuf *m;

	if (tx->n[dc_port] >= DP_TX_MAX)
		return false;
	m = pfc_frame_mbuf(pool, dc->mac.addr_bytes, prio, quanta);
	if (m == NULL)
		return false;
	dp_tx_add_own(tx, dc_port, m);
	return true;
}

static uint64_t
dc_pfc_ticks_to_ns(uint64_t ticks, uint64_t hz)
{
	return cc_mul_div(ticks, CC_NS_PER_SEC, hz);
}

void
dc_pfc_poll(struct dc_pfc *d, const struct dp_lossless_conf *lc, struct dp_pfc_counters *ctr,
	    const struct dp_port *dc, uint16_t dc_port, struct rte_mempool *pool,
	    uint64_t wan_roce_bytes, uint64_t tsc, struct dp_tx *tx, uint64_t *next_due_tsc,
	    struct wan_credit *cr)
{
	uint8_t dp = lc->data_priority % PFC_PRIORITIES;
	enum pfc_tx_verdict v;
	uint64_t next;
	unsigned int i;

	if (!d->enabled)
		return;
	for (i = 0; i < PFC_PRIORITIES; i++) {
		struct dc_pfc_fifo *f = &d->q[i];

		while (dc_pfc_count(f) != 0 && tx->n[dc_port] < DP_TX_MAX &&
		       !pfc_rx_paused(&d->st, i, tsc)) {
			struct rte_mbuf *m = f->ring[f->head++ & (DC_PFC_QUEUE - 1)];

			f->bytes -= m->pkt_len;
			ctr->released++;
			ctr->queued--;
			wan_credit_left(cr, m);
			dp_tx_add(tx, dc_port, m);
		}
		ctr->rx_paused_ns[i] = dc_pfc_ticks_to_ns(pfc_rx_paused_ticks(&d->st, i, tsc),
							  d->cfg.hz);
	}

	v = pfc_tx_decide(&d->cfg, &d->st, dp, wan_roce_bytes, tsc);
	if (v != PFC_TX_NONE) {
		if (!dc_pfc_send(dc, dc_port, pool, dp, v == PFC_TX_PAUSE ? d->cfg.pause_quanta : 0,
				 tx)) {
			pfc_tx_unsent(&d->st, dp);
			ctr->tx_failed++;
		} else if (v == PFC_TX_PAUSE) {
			ctr->tx_pauses[dp]++;
		} else {
			ctr->tx_resumes[dp]++;
		}
	}
	ctr->tx_paused_ns[dp] = dc_pfc_ticks_to_ns(pfc_tx_paused_ticks(&d->cfg, &d->st, dp, tsc),
						   d->cfg.hz);
	ctr->tx_lapses = d->st.tx[dp].lapses;
	ctr->tx_lapsed_ns = dc_pfc_ticks_to_ns(d->st.tx[dp].lapsed_ticks, d->cfg.hz);

	next = pfc_next_event(&d->cfg, &d->st);
	if (next != CC_TIME_NEVER && next < *next_due_tsc)
		*next_due_tsc = next;
}

void
dc_pfc_flush(struct dc_pfc *d)
{
	unsigned int i;

	for (i = 0; i < PFC_PRIORITIES; i++) {
		struct dc_pfc_fifo *f = &d->q[i];

		while (f->ring != NULL && dc_pfc_count(f) != 0)
			rte_pktmbuf_free(f->ring[f->head++ & (DC_PFC_QUEUE - 1)]);
		f->bytes = 0;
	}
}
