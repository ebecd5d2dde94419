/* SPDX-License-Identifier: BSD-3-Clause */
#include "pfc_mbuf.h"

#include <rte_mbuf.h>

#include "pfc.h"

struct rte_mbuf *
pfc_frame_mbuf(struct rte_mempool *pool, const uint8_t src_mac[6], unsigned int prio,
	       uint16_t quanta)
{
	uint16_t q[PFC_PRIORITIES] = { 0 };
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, PFC_FRAME_BYTES);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	q[prio % PFC_PRIORITIES] = quanta;
	pfc_frame_write(p, src_mac, (uint8_t)(1u << (prio % PFC_PRIORITIES)), q);
	return m;
}
