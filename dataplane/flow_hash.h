/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_FLOW_HASH_H
#define LONGSPAN_FLOW_HASH_H

#include <stdint.h>

/*
 * Flow hash of docs/wire-format.md over an inner IP packet's 5-tuple (ports
 * left out for an IPv4 fragment, which ip shows); defined in encap.c. It
 * picks the outer UDP source port and IPv6 flow label.
 */
uint32_t dp_flow_hash(const uint8_t *ip, uint8_t l3, uint8_t proto, uint16_t sport,
		      uint16_t dport);

#endif /* LONGSPAN_FLOW_HASH_H */
