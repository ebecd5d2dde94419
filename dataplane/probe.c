/* SPDX-License-Identifier: BSD-3-Clause */
/* Path probes toward the peers (probe.h). */
#include "probe.h"

#include <string.h>
#include <sys/socket.h>

#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "bits.h"
#include "eth.h"
#include "geneve.h"
#include "geneve_ctrl.h"
#include "neigh.h"
#include "own_mbuf.h"

/* Build one probe toward peer idx; NULL when no mbuf. */
static struct rte_mbuf *
dp_probe_build(struct dp_worker *w, const struct dp_conf *c, uint32_t idx,
	       const struct rte_ether_addr *dmac, const struct dp_clock *clk)
{
	const struct dp_peer *peer = &c->peers[idx];
	struct dp_path_meas *pm = &w->meas[idx];
	uint16_t opt_bytes = GENEVE_PROBE_HDR_SIZE - GENEVE_HDR_SIZE;
	struct geneve_ls_opt *opt;
	struct geneve_ls_echo *echo;
	uint32_t len;
	void *data;
	struct rte_mbuf *m = own_mbuf_new(w->pool, GENEVE_CTRL_MAX, &data);
	uint8_t *hdr = data;

	if (m == NULL)
		return NULL;
	/* The worker's source port, as its data packets' order is per worker. */
	len = geneve_ctrl_write(c, idx, dmac, geneve_src_port(w->id), opt_bytes, hdr);
	rte_pktmbuf_trim(m, (uint16_t)(GENEVE_CTRL_MAX - len));
	opt = (struct geneve_ls_opt *)(hdr + len - opt_bytes);
	opt->opt_class = dp_htons(GENEVE_OPT_CLASS_LONGSPAN);
	opt->type = GENEVE_OPT_TYPE_TELEMETRY;
	opt->len = (sizeof(*opt) - 4) / 4;
	opt->version = GENEVE_LS_OPT_VERSION;
	opt->worker = dp_htons((uint16_t)w->id);
	/* The data packets' sequence: a lost probe is a gap like a lost packet. */
	opt->seq = dp_htonl(w->seq[idx].tx_seq++);
	opt->tx_ns = dp_htonll(clk->ns);
	echo = (struct geneve_ls_echo *)(opt + 1);
	echo->opt_class = dp_htons(GENEVE_OPT_CLASS_LONGSPAN);
	echo->type = GENEVE_OPT_TYPE_ECHO;
	echo->len = (sizeof(*echo) - 4) / 4;
	echo->version = GENEVE_LS_OPT_VERSION;
	if (pm->echo_t2_ns != 0) {
		echo->flags = GENEVE_ECHO_VALID;
		echo->t1_ns = dp_htonll(pm->echo_t1_ns);
		echo->t2_ns = dp_htonll(pm->echo_t2_ns);
	}
	geneve_ctrl_finish(c, idx, hdr);
	m->l2_len = eth_hdr_size(c->ports[peer->port].vlan);
	m->l3_len = peer->family == AF_INET ? sizeof(struct rte_ipv4_hdr) :
					      sizeof(struct rte_ipv6_hdr);
	return m;
}

void
dp_probe_poll(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
	      struct dp_tx *tx)
{
	uint16_t i;

	if (c->probe_interval_ns == 0)
		return;
	for (i = 0; i < c->n_peers; i++) {
		const struct dp_peer *peer = &c->peers[i];
		struct dp_path_meas *pm = &w->meas[i];
		struct rte_eth_link link;
		struct rte_ether_addr dmac;
		struct rte_mbuf *m;

		if ((int64_t)(clk->ns - pm->probe_next_ns) < 0)
			continue;
		pm->probe_next_ns = clk->ns + c->probe_interval_ns;
		/*
		 * Not into a link that is down: the probe's sequence number
		 * would count as lost at the peer. Once per interval, so the
		 * driver call costs nothing per packet.
		 */
		if (c->ports[peer->port].stopped ||
		    rte_eth_link_get_nowait(c->ports[peer->port].port_id, &link) != 0 ||
		    link.link_status == RTE_ETH_LINK_DOWN ||
		    neigh_lookup(c->ports[peer->port].neigh, peer->family, peer->nexthop, &dmac) !=
			    NEIGH_HIT ||
		    tx->n[peer->port] >= DP_TX_MAX) {
			pm->probes_failed++;
			continue;
		}
		m = dp_probe_build(w, c, i, &dmac, clk);
		if (m == NULL) {
			pm->probes_failed++;
			continue;
		}
		pm->probes_tx++;
		w->counters.probes_sent++;
		dp_tx_add_own(tx, peer->port, m);
	}
}
