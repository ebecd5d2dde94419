/* SPDX-License-Identifier: BSD-3-Clause */
#include "config_cc.h"

#include <inttypes.h>
#include <string.h>


void
config_cc_inputs(const struct ls_config *cfg, unsigned int port, uint64_t rtt_ns,
		 struct cc_link *link, struct cc_overrides *ov)
{
	const struct ls_port_conf *pc = &cfg->ports[port];
	const struct ls_congestion_conf *cg = &cfg->cong;

	memset(link, 0, sizeof(*link));
	link->rate_bps = pc->link_rate_bps;
	link->rtt_ns = rtt_ns;
	link->mtu_bytes = pc->mtu;
	link->near_source_cnp = (cg->mechanisms & LS_MECH_A) != 0;
	if (cfg->dc_port >= 0) {
		const struct ls_port_conf *dc = &cfg->ports[cfg->dc_port];

		link->dc_rate_bps = dc->link_rate_bps;
		/*
		 * A worker that sleeps while idle reads its DC queue only once
		 * it wakes: PFC must leave room for the full ring
		 * (docs/operations.md).
		 */
		if (cfg->gw.idle_mode != IDLE_POLL)
			link->dc_rx_ring_bytes = (uint64_t)dc->rx_desc *
						 config_port_frame_bytes(dc);
	}
	memset(ov, 0, sizeof(*ov));
	ov->kmin_bytes = cg->kmin_bytes;
	ov->kmax_bytes = cg->kmax_bytes;
	ov->pmax_ppm = cg->pmax_ppm;
	ov->target_delay_ns = cg->target_delay_ns;
	ov->phantom_ratio_ppm = cg->phantom_ratio_ppm;
	ov->buffer_bytes = cg->buffer_bytes;
	ov->cnp_interval_ns = cg->cnp_interval_ns;
	ov->cut_interval_ns = cg->cut_interval_ns;
	ov->hold_ns = cg->hold_ns;
	ov->flow_idle_ns = cg->flow_idle_ns;
	ov->pfc_xoff_bytes = cg->pfc_xoff_bytes;
	ov->pfc_xon_bytes = cg->pfc_xon_bytes;
}

static void
config_cc_warn_port(const struct ls_config *cfg, const struct ls_peer_conf *peer,
		    const struct cc_derived *d, FILE *out)
{
	fprintf(out, "%s:%u: warning: [peer %s] lossless: the WAN queue of port '%s' (buffer "
		"%.1f kB) leaves %.1f kB above XOFF, less than its PFC headroom of %.1f kB, so it "
		"can overflow", cfg->path, peer->line, peer->name, peer->port,
		d->buffer_bytes / 1e3, (d->buffer_bytes - d->pfc_xoff_bytes) / 1e3,
		d->pfc_headroom_bytes / 1e3);
	if (d->dc_rx_ring_bytes != 0) {
		const struct ls_port_conf *dc = &cfg->ports[cfg->dc_port];

		fprintf(out, ": the headroom holds the DC port '%s''s full receive ring (%.1f kB: "
			"rx_desc %u x %u-byte frames), which workers that sleep when idle read late; "
			"raise [congestion] buffer, lower pfc_xoff or rx_desc, or run the workers with "
			"idle = poll on cores of their own (docs/operations.md)\n",
			dc->name, d->dc_rx_ring_bytes / 1e3, (unsigned int)dc->rx_desc,
			config_port_frame_bytes(dc));
	} else {
		fprintf(out, ": raise [congestion] buffer or lower pfc_xoff (docs/operations.md)\n");
	}
}

unsigned int
config_cc_warn_lossless(const struct ls_config *cfg, FILE *out)
{
	unsigned int n = 0;

	for (unsigned int port = 0; port < cfg->n_ports; port++) {
		const struct ls_peer_conf *first = NULL;
		struct cc_overrides ov;
		struct cc_link link;
		struct cc_derived d;
		uint64_t rtt_ns = 0;
		const char *why = NULL;

		if (cfg->ports[port].role != LS_PORT_WAN || cfg->ports[port].link_rate_bps == 0)
			continue;
		for (unsigned int i = 0; i < cfg->n_peers; i++) {
			const struct ls_peer_conf *pc = &cfg->peers[i];

			if (pc->port_index != (int)port)
				continue;
			if (pc->rtt_ns > rtt_ns)
				rtt_ns = pc->rtt_ns;
			if (pc->lossless != LS_LOSSLESS_OFF && first == NULL)
				first = pc;
		}
		if (first == NULL || rtt_ns == 0)
			continue;
		config_cc_inputs(cfg, port, rtt_ns, &link, &ov);
		/* A derivation that fails is the gateway's error at start or reload. */
		if (cc_params_resolve(&link, &ov, &d, &why) != 0 || d.pfc_lossless)
			continue;
		config_cc_warn_port(cfg, first, &d, out);
		n++;
	}
	return n;
}
