/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_DC_PFC_H
#define LONGSPAN_DC_PFC_H

/*
 * Mechanism B at the DC port: PFC terminates at the gateway.
 *
 * - Received: a PFC frame from the DC fabric stops that priority's packets
 *   toward the DC for the quanta it gives (congestion/pfc.c decides, in TSC
 *   ticks). Decapsulated packets of a paused priority, and those behind
 *   them, wait in a FIFO per priority in gateway memory and leave in order
 *   when it resumes; a packet is dropped (dc_pause_queue_full) only when its
 *   FIFO is out of room.
 * - Sent: when the RoCE data class of the WAN queues crosses XOFF, the
 *   gateway pauses that priority on the DC fabric, refreshes the pause at
 *   half its length and resumes it at XON (cc_params derives both).
 *
 * The priority of a packet is the DSCP -> priority map of the snapshot
 * (RoCE default: DSCP 26 -> 3, data; 48 -> 6, CNP).
 *
 * Ownership: struct dc_pfc is per worker, written only by it; the FIFO
 * memory is allocated once by the control thread. A PFC frame acts on the
 * worker whose receive queue it arrives on.
 */

#include <stdbool.h>
#include <stdint.h>

#include "congestion/pfc.h"
#include "dp_conf.h"

struct rte_mbuf;
struct rte_mempool;
struct dp_tx;
struct wan_credit;

#define DC_PFC_QUEUE 4096 /* packets held per priority, power of two */

struct dc_pfc_fifo {
	struct rte_mbuf **ring;
	uint32_t head, tail; /* free-running */
	uint64_t bytes;
};

struct dc_pfc {
	struct pfc st;
	struct pfc_config cfg; /* from the snapshot's params at this worker's TSC rate */
	bool enabled;
	uint64_t generation;
	uint64_t now_tsc; /* the clock of the poll in progress (frames arrive within it) */
	struct dc_pfc_fifo q[PFC_PRIORITIES];
};

static inline uint32_t
dc_pfc_count(const struct dc_pfc_fifo *f)
{
	return f->tail - f->head;
}

/* Set up over ring memory for PFC_PRIORITIES x DC_PFC_QUEUE mbuf pointers. */
void dc_pfc_init(struct dc_pfc *d, struct rte_mbuf **mem);

/* Rebuild the config when the snapshot changed (state and queues stay). */
void dc_pfc_sync(struct dc_pfc *d, const struct dp_lossless_conf *lc, uint64_t generation,
		 uint64_t tsc_hz);

/*
 * A MAC control frame (EtherType 0x8808) arrived on the DC port at tsc.
 * Returns LS_DROP_PFC_CONSUMED when it was PFC or PAUSE and was obeyed, or
 * the reason it was not (LS_DROP_MAC_CONTROL: lossless off, another
 * opcode, or cut short). The caller counts the frame under that reason:
 * a MAC control frame is never forwarded.
 */
enum ls_drop_reason dc_pfc_rx(struct dc_pfc *d, struct dp_pfc_counters *ctr,
			      const uint8_t *frame, uint32_t len, uint64_t tsc);

/* Priority of the IP packet at l3 (IPv4 or IPv6, from its version nibble). */
uint8_t dc_pfc_priority(const struct dp_lossless_conf *lc, const uint8_t *l3);

/*
 * A packet of priority prio is ready for the DC port at tsc. Returns false
 * when it may go now (nothing paused or queued ahead of it); true when it
 * was queued. *r is set to LS_DROP_DC_PAUSE_FULL (and false returned) when it
 * must wait and its FIFO is full; the caller drops it.
 */
bool dc_pfc_hold(struct dc_pfc *d, struct dp_pfc_counters *ctr, struct rte_mbuf *m, uint8_t prio,
		 uint64_t tsc, enum ls_drop_reason *r);

/*
 * Once per poll: release what unpaused priorities may send into tx (room
 * permitting), and send pauses and resumes for the RoCE data priority
 * given the bytes its WAN class holds (wan_roce_bytes). Frames the
 * gateway builds come from pool and are added as its own. Lowers
 * *next_due_tsc to the next pause expiry or refresh. A released packet
 * leaves its peer's credit buffer (cr, wan_credit.h).
 */
void dc_pfc_poll(struct dc_pfc *d, const struct dp_lossless_conf *lc, struct dp_pfc_counters *ctr,
		 const struct dp_port *dc, uint16_t dc_port, struct rte_mempool *pool,
		 uint64_t wan_roce_bytes, uint64_t tsc, struct dp_tx *tx, uint64_t *next_due_tsc,
		 struct wan_credit *cr);

/* Free what is queued (worker teardown). */
void dc_pfc_flush(struct dc_pfc *d);

#endif /* LONGSPAN_DC_PFC_H */
