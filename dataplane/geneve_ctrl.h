/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_GENEVE_CTRL_H
#define LONGSPAN_GENEVE_CTRL_H

/*
 * GENEVE control packets toward a peer gateway (RFC 8926 section 3.4: O = 1,
 * protocol type 0, options only): the path probes (probe.c) and the credit
 * control packets (wan_credit.c) share their outer headers, written here
 * once. Both go in the high-priority class: the CNP DSCP, Not-ECT, DF over
 * IPv4, VLAN priority 6 on a tagged WAN port.
 */

#include <stdint.h>

#include <rte_ether.h>

struct dp_conf;

/* VLAN priority of control packets on a tagged WAN port. */
#define GENEVE_CTRL_PCP 6

/* The largest control frame: tagged Ethernet, IPv6, UDP, GENEVE, 252 B of options. */
#define GENEVE_CTRL_MAX (18 + 40 + 8 + 8 + 252)

/*
 * Write Ethernet (to dmac), IP (the peer's addresses), UDP (from src_port to
 * the GENEVE port) and the GENEVE header with opt_bytes (a multiple of 4, at
 * most 252) of options toward peer idx into buf, options zeroed. Returns the
 * frame length; the options start at buf + length - opt_bytes. Write them,
 * then call geneve_ctrl_finish().
 */
uint32_t geneve_ctrl_write(const struct dp_conf *c, uint32_t idx, const struct rte_ether_addr *dmac,
			   uint16_t src_port, uint16_t opt_bytes, uint8_t *buf);

/* The UDP checksum over IPv6 (RFC 8200 section 8.1), once the options are in. */
void geneve_ctrl_finish(const struct dp_conf *c, uint32_t idx, uint8_t *buf);

#endif /* LONGSPAN_GENEVE_CTRL_H */
