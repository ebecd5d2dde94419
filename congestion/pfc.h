/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PFC_H
#define LONGSPAN_PFC_H

/*
 * Priority flow control (IEEE 802.1Qbb) at the gateway's DC port, both
 * directions, as a pure state machine (mechanism B in docs/congestion.md).
 *
 * Receive side (the DC fabric pauses the gateway): a PFC frame carries a
 * class-enable vector and one pause time per priority in quanta of 512 bit
 * times at the port's rate. For every enabled priority a non-zero time
 * pauses the priority for exactly that long from the frame's arrival,
 * replacing any pause in force (a frame extends or shortens it, as the
 * standard's timer is reloaded); a zero time resumes it at once. The
 * caller holds that priority's packets in its own buffer while
 * pfc_rx_paused() says so.
 *
 * Transmit side (the gateway pauses the DC fabric): the caller reports the
 * occupancy of the buffer a priority fills (the WAN queue, or the hold
 * queues) and gets a verdict: send a pause when it reaches XOFF, send it
 * again before the last one expires while the occupancy stays above XON
 * (every refresh_ticks, half the pause time, so one lost frame does not
 * let the senders go), send a resume (zero quanta) when it falls to XON.
 * A pause that expired before its refresh or the resume is a lapse: the
 * fabric ran while the gateway still wanted it paused (the caller was late,
 * e.g. its thread was not scheduled), so the headroom above XOFF may not
 * hold what arrives. Lapses and the time the fabric ran in them are counted
 * to tell that apart from a headroom set too small.
 *
 * Times are in caller-chosen ticks, hz per second (TSC cycles in the
 * dataplane, nanoseconds in the simulator and the tests), compared
 * wrap-safely (cc_time.h). A quantum at rate R and hz is 512 * hz / R
 * ticks; pause times are rounded up to a whole tick so that a pause is
 * never shorter than the sender asked for.
 *
 * Split: params (user units) -> pfc_config_init() -> config (validated,
 * precomputed) shared read-only; struct pfc (vars: both directions, all
 * priorities of one port) written by one thread.
 */

#include <stdbool.h>
#include <stdint.h>

#define PFC_PRIORITIES 8
#define PFC_QUANTUM_BITS 512
#define PFC_QUANTA_MAX UINT16_C(0xffff)

struct pfc_params {
	uint64_t port_rate_bps; /* DC port rate, > 0 */
	uint64_t hz; /* clock ticks per second, > 0 */
	uint64_t xoff_bytes; /* pause the senders at this occupancy, > 0 */
	uint64_t xon_bytes; /* resume them at or below this one, < xoff_bytes */
	uint16_t pause_quanta; /* time in each pause sent, > 0 (0xffff usual) */
	uint8_t priority_mask; /* priorities that are lossless (bit i = priority i) */
};

struct pfc_config {
	uint64_t port_rate_bps;
	uint64_t hz;
	uint64_t xoff_bytes;
	uint64_t xon_bytes;
	uint64_t pause_ticks; /* pause_quanta at the port rate */
	uint64_t refresh_ticks; /* pause_ticks / 2, at least 1 */
	uint16_t pause_quanta;
	uint8_t priority_mask;
};

/* What the fabric asked of one priority. */
struct pfc_rx_prio {
	uint64_t since; /* start of the pause in force */
	uint64_t until; /* its end: transmit again from this tick */
	uint64_t paused_ticks; /* closed pauses, summed */
	uint64_t frames; /* pauses received (non-zero quanta) */
	uint64_t resumes; /* zero-quanta frames received while paused */
	bool paused;
};

/* What the gateway asked of the fabric for one priority. */
struct pfc_tx_prio {
	uint64_t last_sent; /* when the last pause left */
	uint64_t since; /* start of the current pause episode */
	uint64_t paused_ticks; /* closed episodes, summed */
	uint64_t pauses; /* pause frames sent, refreshes included */
	uint64_t resumes; /* zero-quanta frames sent */
	uint64_t lapses; /* pauses that expired before the next refresh or the resume */
	uint64_t lapsed_ticks; /* summed over lapses: from the expiry to the late frame */
	bool xoff; /* the fabric is (asked to be) paused */
};

struct pfc {
	struct pfc_rx_prio rx[PFC_PRIORITIES];
	struct pfc_tx_prio tx[PFC_PRIORITIES];
	struct pfc_tx_prio tx_undo[PFC_PRIORITIES]; /* before the last verdict, for pfc_tx_unsent() */
};

enum pfc_tx_verdict {
	PFC_TX_NONE = 0, /* nothing to send */
	PFC_TX_PAUSE, /* send a pause of pause_quanta for this priority */
	PFC_TX_RESUME, /* send zero quanta for this priority */
};

/*
 * Validate P and precompute C. Returns 0, or -EINVAL when the rate, hz,
 * xoff or quanta is 0, xon >= xoff, or a pause would be longer than 2^62
 * ticks. C is untouched on error.
 */
int pfc_config_init(struct pfc_config *c, const struct pfc_params *p);

/* Nothing paused in either direction. */
void pfc_init(struct pfc *s);

/* QUANTA pause quanta in ticks at C's rate, rounded up. */
uint64_t pfc_quanta_to_ticks(const struct pfc_config *c, uint16_t quanta);

/*
 * A PFC frame arrived at NOW: for every priority whose bit is set in
 * CLASS_ENABLE, QUANTA[prio] pauses it for that many quanta from now, or
 * resumes it when 0. Bits of priorities outside priority_mask are obeyed
 * too: the fabric decides what it pauses.
 */
void pfc_rx_frame(const struct pfc_config *c, struct pfc *s, uint8_t class_enable,
		const uint16_t quanta[PFC_PRIORITIES], uint64_t now);

/* True while PRIO may not be transmitted at NOW. Ends an expired pause. */
bool pfc_rx_paused(struct pfc *s, unsigned int prio, uint64_t now);

/* Ticks PRIO has been paused by the fabric up to NOW, the pause in force included. */
uint64_t pfc_rx_paused_ticks(const struct pfc *s, unsigned int prio, uint64_t now);

/*
 * Decide for PRIO whose buffer holds QUEUE_BYTES at NOW (see the top of
 * this file). PFC_TX_PAUSE and PFC_TX_RESUME assume the caller sends the
 * frame; a caller that could not send one calls pfc_tx_unsent() so the next
 * call tries again. Priorities outside priority_mask always get NONE.
 */
enum pfc_tx_verdict pfc_tx_decide(const struct pfc_config *c, struct pfc *s, unsigned int prio,
		uint64_t queue_bytes, uint64_t now);

/*
 * The frame of the last PAUSE or RESUME verdict for PRIO could not be sent:
 * forget that verdict, so the next pfc_tx_decide() gives it again.
 */
void pfc_tx_unsent(struct pfc *s, unsigned int prio);

/*
 * Ticks the fabric has been paused by the gateway's frames for PRIO up to
 * NOW: each episode from its first pause to the resume, or to the expiry of
 * the last pause when no refresh followed in time.
 */
uint64_t pfc_tx_paused_ticks(const struct pfc_config *c, const struct pfc *s, unsigned int prio,
		uint64_t now);

/*
 * The earliest tick after which a call may change something: a refresh due
 * or a received pause ending, CC_TIME_NEVER when nothing is pending.
 */
uint64_t pfc_next_event(const struct pfc_config *c, const struct pfc *s);

#endif /* LONGSPAN_PFC_H */
