/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_DP_PFC_MBUF_H
#define LONGSPAN_DP_PFC_MBUF_H

/*
 * A PFC frame (pfc.h) for one priority in a new mbuf: what the gateway's
 * DC port sends toward the fabric (dc_pfc.c) and what the lab's congested
 * DC side sends toward the gateway (tests/lab/hostem.c). Kept apart from
 * pfc.c, which is pure byte code built without DPDK for the fuzzer.
 */

#include <stdint.h>

struct rte_mbuf;
struct rte_mempool;

/*
 * A PFC frame from SRC_MAC giving PRIO (mod 8) QUANTA (0: resume) and no
 * other priority, in an mbuf from POOL; NULL when none is free.
 */
struct rte_mbuf *pfc_frame_mbuf(struct rte_mempool *pool, const uint8_t src_mac[6],
		unsigned int prio, uint16_t quanta);

#endif /* LONGSPAN_DP_PFC_MBUF_H */
