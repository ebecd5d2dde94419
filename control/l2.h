/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_L2_H
#define LONGSPAN_L2_H

/* ARP, IPv6 ND and echo on the control thread (see l2.c). */

#include <stdint.h>

#include "runtime.h"

struct rte_mbuf;

/* Handle one punted packet; takes ownership of m. */
void l2_punt_input(struct ls_runtime *rt, struct rte_mbuf *m, uint64_t now_ns);

/* Send an ARP request / neighbour solicitation for addr unless one is pending. */
void l2_resolve(struct ls_runtime *rt, unsigned int port, uint8_t family, const uint8_t *addr,
		uint64_t now_ns);

/* Periodic: age entries, retry unresolved ones, re-probe ones about to expire. */
void l2_maintain(struct ls_runtime *rt, uint64_t now_ns);

#endif /* LONGSPAN_L2_H */
