/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_FLOW_HASH_H
#define LONGSPAN_FLOW_HASH_H

#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#include "bits.h"
#include "parse.h"

/*
 * Flow hash of docs/wire-format.md over an inner IP packet's 5-tuple (ports
 * left out for an IPv4 fragment, which ip shows). It picks the outer UDP
 * source port and IPv6 flow label; static inline, as the traffic manager's
 * enqueue side computes it for every packet.
 */
static inline uint32_t
dp_flow_hash(const uint8_t *ip, uint8_t l3, uint8_t proto, uint16_t sport, uint16_t dport)
{
	/*
	 * CRC-32C over src || dst || proto || sport || dport (docs/wire-format.md),
	 * fed to the CRC instruction in whole words: the same bytes in the same
	 * order give the same CRC as a byte-wise loop.
	 */
	const uint8_t *src = ip + (l3 == PKT_L3_IP4 ? 12 : 8);
	uint64_t w;
	uint32_t ports, h = 0;

	if (l3 == PKT_L3_IP4) {
		/*
		 * A fragment (MF or an offset) hashes without ports: only the
		 * first fragment has them, and all fragments of a datagram must
		 * take one WAN path. (An IPv6 fragment's protocol is 44, the
		 * Fragment header, so it has no ports either.)
		 */
		uint16_t frag;

		memcpy(&frag, ip + 6, 2); /* flags and offset, as on the wire: one load, one test */
		if ((frag & dp_htons(0x3fff)) != 0)
			sport = dport = 0;
		memcpy(&w, src, 8); /* source and destination, adjacent */
		h = dp_crc32c_u64(w, h);

	} else {
		unsigned int i;

		for (i = 0; i < 32; i += 8) {
			memcpy(&w, src + i, 8);
			h = dp_crc32c_u64(w, h);
		}
	}
	h = dp_crc32c_u8(proto, h);
	if (proto != IPPROTO_UDP && proto != IPPROTO_TCP)
		sport = dport = 0;
	/* Network order on the wire: sport high, sport low, dport high, dport low. */
	ports = (uint32_t)(sport >> 8) | (uint32_t)(sport & 0xff) << 8 |
		(uint32_t)(dport >> 8) << 16 | (uint32_t)(dport & 0xff) << 24;
	return dp_crc32c_u32(ports, h);
}

#endif /* LONGSPAN_FLOW_HASH_H */
