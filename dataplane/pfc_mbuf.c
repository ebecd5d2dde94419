/* SPDX-License-Identifier: BSD-3-Clause */
#include "pfc_mbuf.h"

#include <rte_mbuf.h>

#include "own_mbuf.h"
#include "pfc.h"

struct rte_mbuf *
pfc_frame_mbuf(struct rte_mempool *pool, const uint8_t src_mac[6], unsigned int prio,
	       uint16_t quanta)
{
	uint16_t q[PFC_PRIORITIES] = { 0 };
	void *p;
	struct rte_mbuf *m = own_mbuf_new(pool, PFC_FRAME_BYTES, &p);

	if (m == NULL)
		return NULL;
	q[prio % PFC_PRIORITIES] = quanta;
	pfc_frame_write(p, src_mac, (uint8_t)(1u << (prio % PFC_PRIORITIES)), q);
	return m;
}
