/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_ETH_H
#define LONGSPAN_ETH_H

/* Writing an Ethernet header, with an 802.1Q tag when the port has a VLAN. */

#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ether.h>

/* Bytes of Ethernet header a port with this VLAN (0 = untagged) needs. */
static inline uint16_t
eth_hdr_size(uint16_t vlan)
{
	return (uint16_t)(sizeof(struct rte_ether_hdr) + (vlan ? sizeof(struct rte_vlan_hdr) : 0));
}

/*
 * Fill eth (eth_hdr_size(vlan) bytes): destination dst (NULL leaves it as
 * is), source src, the tag (VID vlan, priority pcp) when vlan is non-zero,
 * and ether_type (host order).
 */
static inline void
eth_hdr_write(struct rte_ether_hdr *eth, const struct rte_ether_addr *dst,
	      const struct rte_ether_addr *src, uint16_t vlan, uint8_t pcp, uint16_t ether_type)
{
	if (dst != NULL)
		rte_ether_addr_copy(dst, &eth->dst_addr);
	rte_ether_addr_copy(src, &eth->src_addr);
	if (vlan) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16((uint16_t)((uint16_t)pcp << 13 | vlan));
		vh->eth_proto = rte_cpu_to_be_16(ether_type);
	} else {
		eth->ether_type = rte_cpu_to_be_16(ether_type);
	}
}

#endif /* LONGSPAN_ETH_H */
