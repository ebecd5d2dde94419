/* SPDX-License-Identifier: BSD-3-Clause */
#include "ut_ports.h"

#include <stdio.h>

#include <rte_eth_ring.h>

int
ut_ports_create(const struct ls_config *cfg, const char *prefix, unsigned int rx_size,
		unsigned int tx_size, struct rte_ring **rx, struct rte_ring **tx,
		unsigned int *dc, unsigned int *wan)
{
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		char name[RTE_RING_NAMESIZE];

		snprintf(name, sizeof(name), "%s_rx%u", prefix, i);
		rx[i] = rte_ring_create(name, rx_size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "%s_tx%u", prefix, i);
		tx[i] = rte_ring_create(name, tx_size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (rx[i] == NULL || tx[i] == NULL)
			return -1;
		/* "net_ring_" + the name, as the config's dev strings say. */
		if (rte_eth_from_rings(cfg->ports[i].dev + 9, &rx[i], 1, &tx[i], 1, 0) < 0)
			return -1;
		if (cfg->ports[i].role == LS_PORT_WAN)
			*wan = i;
		else
			*dc = i;
	}
	return 0;
}
