/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CSUM_H
#define LONGSPAN_CSUM_H

/* Incremental Internet checksum updates (RFC 1624). */

#include <stdint.h>

#include <rte_byteorder.h>

/*
 * New checksum after one 16-bit word of the header changes from old_w to
 * new_w (all values in network order): HC' = ~(~HC + ~m + m'), eqn. 3.
 */
static inline rte_be16_t
csum_update16(rte_be16_t csum, rte_be16_t old_w, rte_be16_t new_w)
{
	/*
	 * Ones' complement sums do not depend on byte order (RFC 1071 2(B)):
	 * add the words as stored, no swaps.
	 */
	uint32_t s = (uint16_t)~csum;

	s += (uint16_t)~old_w;
	s += new_w;
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (rte_be16_t)~s;
}

#endif /* LONGSPAN_CSUM_H */
