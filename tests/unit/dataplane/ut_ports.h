/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_UT_PORTS_H
#define LONGSPAN_UT_PORTS_H

/*
 * net_ring ports for the dataplane unit tests that run the real pipeline:
 * one device per port of the config (its dev string is "net_ring_" + the
 * device name), with one rx and one tx ring the test fills and drains.
 * Link rte_net_ring (ut_net_ring_dep in meson.build).
 */

#include <rte_ring.h>

#include "control/config.h"

/*
 * For every port i of cfg create rx[i] (rx_size entries) and tx[i] (tx_size)
 * named prefix_rxI / prefix_txI and the net_ring device over them; *dc and
 * *wan get the DC port's and a WAN port's index. 0, or -1 on any failure.
 */
int ut_ports_create(const struct ls_config *cfg, const char *prefix, unsigned int rx_size,
		    unsigned int tx_size, struct rte_ring **rx, struct rte_ring **tx,
		    unsigned int *dc, unsigned int *wan);

#endif /* LONGSPAN_UT_PORTS_H */
