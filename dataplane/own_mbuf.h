/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_OWN_MBUF_H
#define LONGSPAN_OWN_MBUF_H

/*
 * The mbuf of a packet the gateway builds itself (a CNP, a PFC frame, a
 * path probe, a credit update): one segment from POOL with LEN bytes of
 * data, its start in *DATA. NULL, with nothing taken from the pool, when
 * the pool is empty or LEN does not fit one buffer; the caller counts it.
 */

#include <stdint.h>

#include <rte_mbuf.h>

static inline struct rte_mbuf *
own_mbuf_new(struct rte_mempool *pool, uint16_t len, void **data)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	*data = NULL;
	if (m == NULL)
		return NULL;
	*data = rte_pktmbuf_append(m, len);
	if (*data == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

#endif /* LONGSPAN_OWN_MBUF_H */
