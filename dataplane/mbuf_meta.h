/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_MBUF_META_H
#define LONGSPAN_MBUF_META_H

/*
 * Per-mbuf metadata that travels with a packet between a worker and the
 * control thread (punt and inject rings), stored in an mbuf dynamic field.
 * The offset is registered once by the control thread before any worker
 * starts and is read-only afterwards.
 */

#include <assert.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

enum dp_punt_reason {
	DP_PUNT_ARP = 1, /* ARP request or reply on a port */
	DP_PUNT_ND, /* ICMPv6 neighbour solicitation / advertisement */
	DP_PUNT_ICMP_ECHO, /* echo request to a gateway address (v4 or v6) */
	DP_PUNT_RESOLVE, /* next hop unknown: resolve addr on port */
};

/*
 * Two uses that never overlap in time: a packet on a punt/inject ring, or
 * a packet waiting in a WAN traffic manager queue.
 */
struct dp_mbuf_meta {
	union {
		struct {
			uint8_t port; /* index into dp_conf.ports: rx (punt) or tx (inject) */
			uint8_t reason; /* enum dp_punt_reason (punt only) */
			uint8_t family; /* DP_PUNT_RESOLVE: AF_INET / AF_INET6 */
			uint8_t pad;
			uint8_t addr[16]; /* DP_PUNT_RESOLVE: next hop address */
		};
		struct {
			union {
				uint64_t enq_tsc; /* when it entered the queue */
				/* Once dequeued toward a credit peer: its report (wan_credit.h). */
				uint64_t credit_report;
			};
			uint32_t hash; /* inner flow hash (outer UDP port, flow label) */
			uint8_t peer; /* index into dp_conf.peers */
			uint8_t flags; /* DP_TM_F_* */
			uint8_t dmac[6]; /* next hop toward the peer */
			/*
			 * Ethernet frame once encapsulated; for a packet from the
			 * WAN tagged DP_TM_F_CREDIT_RX, the bytes it holds of its
			 * peer's credit buffer.
			 */
			uint16_t frame_bytes;
		} tm;
	};
};
static_assert(sizeof(struct dp_mbuf_meta) <= 24, "fits the mbuf dynamic field area");

/* MARKED and CNP are the hook verdict's bits (dp_hook_tm_verdict(), hook_pipe.h asserts it). */
#define DP_TM_F_ROCE_DATA 0x01 /* inner RoCE data: mechanism A applies */
#define DP_TM_F_MARKED 0x02 /* the gateway wrote CE (for the wan_tx hook point) */
#define DP_TM_F_CNP 0x04 /* the gateway sent a CNP for it (for the wan_tx hook point) */
#define DP_TM_F_CE_IN 0x08 /* arrived with CE (marked upstream) */
#define DP_TM_F_CREDIT_TX 0x10 /* toward a credit peer, charged to its credit */
#define DP_TM_F_CREDIT_RX 0x20 /* from a credit peer, held in its credit buffer */

extern int dp_mbuf_meta_offset;

static inline struct dp_mbuf_meta *
dp_mbuf_meta(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, dp_mbuf_meta_offset, struct dp_mbuf_meta *);
}

/* Register the dynamic field; call once before creating workers. */
int dp_mbuf_meta_register(void);

#endif /* LONGSPAN_MBUF_META_H */
