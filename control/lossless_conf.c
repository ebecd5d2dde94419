/* SPDX-License-Identifier: BSD-3-Clause */
#include "lossless_conf.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>

#include "dataplane/tsc.h"

/* Pause against this DC rate when the DC port has no link_rate (as mechanism C does). */
#define LOSSLESS_DC_DEFAULT_BPS UINT64_C(100000000000)

int
lossless_conf_build(const struct ls_config *cfg, const struct dp_conf *c,
		    struct dp_lossless_conf *out, FILE *err)
{
	const struct cc_derived *d = NULL;
	struct pfc_config check;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->data_priority = LOSSLESS_DATA_PRIORITY;
	out->dscp_priority[cfg->cong.data_dscp & 0x3f] = LOSSLESS_DATA_PRIORITY;
	out->dscp_priority[cfg->cong.cnp_dscp & 0x3f] = LOSSLESS_CNP_PRIORITY;
	for (i = 0; i < cfg->n_peers; i++) {
		const struct ls_peer_conf *pc = &cfg->peers[i];
		const struct dp_tm_conf *tm = &c->tm[pc->port_index];

		if (pc->lossless == LS_LOSSLESS_OFF)
			continue;
		if (!tm->enabled) {
			fprintf(err, "%s:%u: [peer %s] lossless: needs link_rate on port '%s' (the "
				"WAN queue PFC pauses against)\n", cfg->path, pc->line, pc->name,
				pc->port);
			return -EINVAL;
		}
		if (pc->lossless == LS_LOSSLESS_CREDIT) {
			struct credit_config cc;

			/* [gateway] workers = 1 was checked with the file (config_check.c). */
			out->credit[i].buffer_bytes = tm->derived.credit_buffer_bytes;
			out->credit[i].update_bytes = tm->derived.credit_update_bytes;
			out->credit[i].refresh_ticks = tm->derived.credit_refresh_ns;
			if (credit_config_init(&cc, &out->credit[i]) != 0) {
				fprintf(err, "%s:%u: [peer %s] lossless: credit parameters rejected "
					"(buffer %" PRIu64 ", update %" PRIu64 " bytes, %" PRIu64
					" ns)\n", cfg->path, pc->line, pc->name,
					out->credit[i].buffer_bytes, out->credit[i].update_bytes,
					out->credit[i].refresh_ticks);
				return -EINVAL;
			}
			out->credit_any = true;
		}
		/* Several WAN ports: pause at the smallest XOFF (the first queue to fill). */
		if (d == NULL || tm->derived.pfc_xoff_bytes < d->pfc_xoff_bytes)
			d = &tm->derived;
		out->enabled = true;
	}
	if (!out->enabled)
		return 0;
	out->pfc.port_rate_bps = cfg->ports[cfg->dc_port].link_rate_bps != 0 ?
		cfg->ports[cfg->dc_port].link_rate_bps : LOSSLESS_DC_DEFAULT_BPS;
	out->pfc.xoff_bytes = d->pfc_xoff_bytes;
	out->pfc.xon_bytes = d->pfc_xon_bytes;
	out->pfc.pause_quanta = d->pfc_quanta;
	out->pfc.priority_mask = (uint8_t)(1u << LOSSLESS_DATA_PRIORITY);
	out->pfc.hz = tsc_hz();
	if (pfc_config_init(&check, &out->pfc) != 0) {
		fprintf(err, "%s: [peer] lossless: PFC parameters rejected (xoff %" PRIu64
			", xon %" PRIu64 " bytes)\n", cfg->path, out->pfc.xoff_bytes,
			out->pfc.xon_bytes);
		return -EINVAL;
	}
	out->pfc.hz = 0; /* each worker uses its own TSC rate */
	return 0;
}
