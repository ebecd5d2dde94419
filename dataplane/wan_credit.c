/* SPDX-License-Identifier: BSD-3-Clause */
/* Mechanism B on the WAN hop (wan_credit.h): state, received options, control packets. */
#include "wan_credit.h"

#include <string.h>
#include <sys/socket.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "congestion/cc_time.h"
#include "eth.h"
#include "geneve.h"
#include "geneve_ctrl.h"
#include "neigh.h"
#include "own_mbuf.h"
#include "pipeline.h"

/*
 * A control packet that could not be built (no neighbour yet, no mbuf, a
 * full transmit list) is tried again after this, not on every poll: the
 * neighbour lookup is the cost, and a peer whose address does not resolve
 * would otherwise be looked up in a busy loop.
 */
#define WAN_CREDIT_RETRY_NS UINT64_C(100000) /* 100 us */

void
wan_credit_init(struct wan_credit *cr, uint32_t epoch)
{
	memset(cr, 0, sizeof(*cr));
	cr->epoch = epoch;
}

void
wan_credit_sync(struct wan_credit *cr, const struct dp_conf *c, uint64_t generation)
{
	const struct dp_lossless_conf *lc = &c->lossless;
	unsigned int i;

	if (cr->generation == generation)
		return;
	cr->generation = generation;
	cr->enabled = false;
	cr->priority = lc->data_priority;
	memset(cr->port_on, 0, sizeof(cr->port_on));
	for (i = 0; i < LS_MAX_PEERS; i++) {
		struct wan_credit_peer *cp = &cr->p[i];
		struct credit_config cfg;
		bool on = i < c->n_peers && c->peers[i].credit && lc->credit_any &&
			  credit_config_init(&cfg, &lc->credit[i]) == 0;

		if (!on) {
			cp->on = false;
			continue;
		}
		if (!cp->on) {
			memset(cp, 0, sizeof(*cp));
			credit_tx_init(&cp->tx, cr->epoch);
			credit_rx_init(&cp->rx);
			cp->on = true;
		}
		cp->cfg = cfg; /* validated when the snapshot was built */
		cr->port_on[c->peers[i].port % LS_MAX_PORTS] = true;
		cr->enabled = true;
	}
}

bool
wan_credit_rx(struct wan_credit *cr, struct dp_credit_counters *ctr, uint32_t peer,
	      const struct credit_opt *o, uint32_t inner_bytes)
{
	struct wan_credit_peer *cp = &cr->p[peer % LS_MAX_PEERS];
	bool charged = false;

	if (!cp->on)
		return false;
	if (o->priority != cr->priority) {
		ctr->other_priority++;
		return false;
	}
	if (o->flags & CREDIT_OPT_F_GRANT) {
		if (credit_tx_grant(&cp->tx, o->grant_epoch, o->grant_limit))
			ctr->grants_rx++;
		else
			ctr->grants_stale++;
	}
	/* The packet's bytes enter the buffer before the report that counts them. */
	if ((o->flags & CREDIT_OPT_F_CHARGED) && inner_bytes != 0) {
		credit_rx_arrive(&cp->cfg, &cp->rx, inner_bytes);
		ctr->arrived_bytes += inner_bytes;
		charged = true;
	}
	if (o->flags & CREDIT_OPT_F_REPORT) {
		credit_rx_report(&cp->rx, o->report_epoch, o->report,
				 (o->flags & CREDIT_OPT_F_WAIT) != 0);
		ctr->reports_rx++;
	}
	return charged;
}

uint32_t
wan_credit_ctrl_write(const struct dp_conf *c, uint32_t peer_idx, const uint8_t *dmac,
		      const struct credit_opt *o, uint8_t *buf)
{
	uint32_t len;

	/* One source port per peer: control packets keep their order on the WAN. */
	len = geneve_ctrl_write(c, peer_idx, (const struct rte_ether_addr *)dmac,
				geneve_src_port(peer_idx), CREDIT_OPT_BYTES, buf);
	credit_opt_write(buf + len - CREDIT_OPT_BYTES, o);
	geneve_ctrl_finish(c, peer_idx, buf);
	return len;
}

/* Build and queue one control packet toward peer i; false when it could not be. */
static bool
wan_credit_ctrl_send(struct wan_credit *cr, const struct dp_conf *c,
		     struct dp_credit_counters *ctr, uint32_t i, struct rte_mempool *pool,
		     struct dp_tx *tx)
{
	struct wan_credit_peer *cp = &cr->p[i];
	const struct dp_peer *peer = &c->peers[i];
	struct rte_ether_addr dmac;
	struct credit_opt o;
	struct rte_mbuf *m;
	void *data;
	uint8_t *p;

	if (tx->n[peer->port] >= DP_TX_MAX ||
	    neigh_lookup(c->ports[peer->port].neigh, peer->family, peer->nexthop, &dmac) !=
		    NEIGH_HIT)
		return false;
	m = own_mbuf_new(pool, WAN_CREDIT_CTRL_MAX, &data);
	if (m == NULL)
		return false;
	p = data;
	wan_credit_opt(cr, ctr, i, cp->tx.sent, false, &o);
	rte_pktmbuf_trim(m, (uint16_t)(WAN_CREDIT_CTRL_MAX -
				       wan_credit_ctrl_write(c, i, dmac.addr_bytes, &o, p)));
	dp_tx_add_own(tx, peer->port, m);
	return true;
}

void
wan_credit_poll(struct wan_credit *cr, const struct dp_conf *c, struct dp_credit_counters *ctr,
		struct rte_mempool *pool, uint64_t tsc, uint64_t tsc_hz, struct dp_tx *tx,
		uint64_t *next_due_tsc)
{
	uint64_t now = cr->now_ns, occ = 0, avail = 0, over = 0, lost = 0, restarts = 0;
	uint64_t next_ns = CC_TIME_NEVER;
	unsigned int i;

	if (!cr->enabled)
		return;
	for (i = 0; i < c->n_peers && i < LS_MAX_PEERS; i++) {
		struct wan_credit_peer *cp = &cr->p[i];
		uint64_t t, u;

		if (!cp->on)
			continue;
		/* Due: a grant or a report that no packet toward the peer carried. */
		if (cc_time_after_eq(now, cp->retry_ns) &&
		    (credit_rx_update_due(&cp->cfg, &cp->rx, now) ||
		     credit_tx_report_due(&cp->cfg, &cp->tx, now))) {
			if (wan_credit_ctrl_send(cr, c, ctr, i, pool, tx)) {
				ctr->ctrl_tx++;
			} else {
				/* No neighbour, mbuf or room: try again a little later. */
				ctr->ctrl_failed++;
				cp->retry_ns = now + WAN_CREDIT_RETRY_NS;
			}
		}
		/* The refreshes; what else makes a packet due comes with a packet. */
		t = credit_tx_report_at(&cp->cfg, &cp->tx);
		u = credit_rx_update_at(&cp->cfg, &cp->rx);
		if (u != CC_TIME_NEVER && cc_time_after(t, u))
			t = u;
		if (cc_time_after(cp->retry_ns, t))
			t = cp->retry_ns;
		if (next_ns == CC_TIME_NEVER || cc_time_after(next_ns, t))
			next_ns = t;
		occ += cp->rx.occupancy_bytes;
		avail += credit_tx_available(&cp->tx);
		over += cp->rx.overrun_bytes;
		lost += cp->rx.lost_bytes;
		restarts += cp->rx.sender_restarts;
	}
	ctr->occupancy_bytes = occ;
	ctr->available_bytes = avail;
	ctr->overrun_bytes = over;
	ctr->lost_bytes = lost;
	ctr->sender_restarts = restarts;
	if (next_ns != CC_TIME_NEVER) {
		uint64_t due = cc_time_after(next_ns, now) ?
				       tsc + (next_ns - now) * tsc_hz / UINT64_C(1000000000) :
				       tsc;

		if (due < *next_due_tsc)
			*next_due_tsc = due;
	}
}
