/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PORTS_H
#define LONGSPAN_PORTS_H

/* Ethernet device and mempool setup from the config (control thread). */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"

struct rte_mempool;

/* Largest link rate x RTT over the peers, bytes. */
uint64_t ports_wan_bdp_bytes(const struct ls_config *cfg);

/*
 * mbufs the pool needs: every descriptor ring full, per-lcore caches, one
 * WAN BDP of queued packets (at 1 KB per packet) and control traffic; or
 * [gateway] mbufs when set.
 */
uint32_t ports_mbufs_needed(const struct ls_config *cfg);

struct rte_mempool *ports_pool_create(const struct ls_config *cfg, FILE *err);

/* Configure and start every port; port_ids[i] receives cfg->ports[i]'s id. */
int ports_setup(const struct ls_config *cfg, struct rte_mempool *mp, uint16_t *port_ids,
		FILE *err);

void ports_close(const uint16_t *port_ids, unsigned int n);

#endif /* LONGSPAN_PORTS_H */
