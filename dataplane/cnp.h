/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CNP_H
#define LONGSPAN_CNP_H

/*
 * RoCEv2 Congestion Notification Packets the gateway sends itself
 * (mechanism A, docs/roce-wire.md): Eth [/ 802.1Q PCP 6] /
 * IPv4 or IPv6 (DSCP from config, Not-ECT) / UDP 4791 / BTH opcode 0x81,
 * P_Key 0xFFFF, BECN, DestQP = the sender's QPN, PSN 0 / 16 reserved bytes /
 * ICRC. NICs drop a CNP whose ICRC is wrong.
 */

#include <stdint.h>

#include <rte_ether.h>

#include "dp_conf.h"

struct rte_mbuf;
struct rte_mempool;

/*
 * ICRC of an IP packet carrying UDP/BTH, len bytes from the IP header up to
 * (not including) the ICRC: CRC-32 over 8 bytes of ones and the packet with
 * its variant fields set to ones. The caller must have selected an
 * rte_net_crc algorithm (rte_net_crc_set_alg()) once.
 */
uint32_t cnp_icrc(const uint8_t *ip, uint32_t len);

/*
 * Build a CNP from src_ip (the remote receiver, as a NIC's CNP would come)
 * to dst_ip (the local sender) for QP dqpn, to leave the DC port dc toward
 * dmac. Allocates one mbuf from mp; NULL when the pool is empty.
 */
struct rte_mbuf *cnp_build(struct rte_mempool *mp, const struct dp_port *dc,
			   const struct rte_ether_addr *dmac, uint8_t family,
			   const uint8_t *src_ip, const uint8_t *dst_ip, uint16_t sport,
			   uint32_t dqpn, uint8_t dscp);

#endif /* LONGSPAN_CNP_H */
