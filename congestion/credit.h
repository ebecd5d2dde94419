/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CREDIT_H
#define LONGSPAN_CREDIT_H

/*
 * Credit-based flow control for the WAN hop between two gateways, per peer
 * and priority (mechanism B in docs/congestion.md): the receiving gateway
 * owns a buffer for what the WAN delivers toward its DC and grants credit in
 * bytes; the sending gateway transmits only within its credit and keeps the
 * rest queued, where PFC toward its own DC holds the local senders.
 *
 * Every value exchanged is cumulative, never a delta, as InfiniBand's
 * FCTBS/FCCL and UEC's credit-based flow control do it, so a lost message
 * costs nothing but time:
 *
 * - The sender counts every byte it puts on the WAN: sent (the "total
 *   blocks sent"). It reports that counter in each data packet and in idle
 *   control packets.
 * - The receiver keeps the largest report seen (reported) and the bytes
 *   that arrived and have not yet left its buffer (occupancy), and grants
 *   the credit limit, in the sender's own counter space:
 *
 *       limit = reported + buffer_bytes - occupancy
 *
 *   A lost grant is superseded by the next one, which carries the whole
 *   limit. A data packet lost on the WAN never enters the buffer, and the
 *   next report covers its bytes, so its credit comes back too.
 * - The sender may transmit a packet of L bytes while sent + L <= limit,
 *   and keeps the largest limit seen: a late or duplicated grant is ignored.
 *
 * The receiver's buffer therefore never holds more than buffer_bytes from a
 * sender that obeys its grants (a report counts only bytes sent before it,
 * and the WAN delivers in order). A reordered report (a packet overtaking an
 * earlier one) makes the overtaken packet look lost until it arrives, at
 * most one packet of excess; arrivals above buffer_bytes are counted as
 * overrun so a misbehaving or reordering path is visible.
 *
 * When updates go (each one a small control packet when no packet toward
 * the peer can carry it, so this is what an idle hop costs). An update is
 * sent when it says something new, and on a slow refresh otherwise:
 *
 * - The receiver grants when the limit moved update_bytes since the last
 *   grant, when the sender says it waits and the limit leaves it at least
 *   update_bytes (>= one MTU: room for its head packet) beyond its report
 *   (a waiting report is answered once, at once: this also repairs a lost
 *   grant within one round trip), and refresh_ticks after the last grant.
 * - The sender reports in every packet toward the peer; on its own (a
 *   control packet) only for its first report, when its head packet starts
 *   to wait for credit (once per wait, with the wait flag), and
 *   refresh_ticks after the last report.
 *
 * An idle hop therefore costs one update per refresh_ticks each way, and a
 * lost update is repaired by the next refresh at the latest (the counters
 * are cumulative); only a sender that waits needs it sooner, and it says
 * so. Neither side sends on a clock faster than the refresh.
 *
 * Counters are 64-bit bytes (2^64 bytes is 580 years at 1 Tb/s) but compared
 * wrap-safely anyway. Each side has an epoch (random per start): a report
 * carries the sender's, a grant echoes it, so that a restarted sender,
 * whose counter starts again at 0, is recognised, and a grant computed for
 * its previous life is ignored.
 *
 * Times are caller-chosen ticks (TSC cycles or nanoseconds), compared with
 * cc_time.h. Split: params -> credit_config_init() -> config; struct
 * credit_tx and struct credit_rx (vars) per peer and priority, one writer.
 */

#include <stdbool.h>
#include <stdint.h>

struct credit_params {
	uint64_t buffer_bytes; /* receiver buffer per peer and priority, > 0 */
	uint64_t update_bytes; /* grant again once the limit moved this much, 1..buffer */
	uint64_t refresh_ticks; /* and once this long passed without one (repairs a loss), > 0 */
};

struct credit_config {
	uint64_t buffer_bytes;
	uint64_t update_bytes;
	uint64_t refresh_ticks;
};

/* Sending side: what this gateway may put on the WAN for one peer and priority. */
struct credit_tx {
	uint64_t sent; /* bytes sent, cumulative: the report */
	uint64_t limit; /* largest limit granted for this epoch */
	uint32_t epoch; /* this sender's */
	bool granted; /* a grant for this epoch arrived */
	bool waiting; /* the head packet waits for credit (credit_tx_wait()) */
	bool wait_reported; /* a report with the wait flag went out in this wait */
	bool ever_reported;
	uint64_t reported_at; /* when a report last went out */
	uint64_t grants; /* grants applied */
	uint64_t grants_stale; /* older than the limit in force, or for another epoch */
};

/* Receiving side: the buffer this gateway grants for one peer and priority. */
struct credit_rx {
	uint64_t reported; /* largest sender report (its sent counter) */
	uint64_t occupancy_bytes; /* arrived, not yet drained */
	uint64_t arrived_since_report; /* bytes arrived since the last report moved */
	uint64_t advertised; /* last limit granted */
	uint64_t advertised_at; /* when */
	uint32_t advertised_epoch; /* the epoch that grant echoed */
	uint32_t sender_epoch; /* of the reports in .reported */
	bool synced; /* a report arrived: limits can be computed */
	bool ever_advertised;
	bool sender_waiting; /* the latest report said the sender waits for credit */
	bool wait_answered; /* a grant went out since that report */
	uint64_t lost_bytes; /* reported as sent, never arrived */
	uint64_t overrun_bytes; /* arrived above buffer_bytes */
	uint64_t sender_restarts; /* reports with a new epoch */
	uint64_t grants; /* limits advertised */
};

/* Returns 0, or -EINVAL when a field is 0 or update_bytes > buffer_bytes. */
int credit_config_init(struct credit_config *c, const struct credit_params *p);

/* A sender with no credit until the first grant for EPOCH. */
void credit_tx_init(struct credit_tx *t, uint32_t epoch);

/* True if BYTES may be sent now. */
bool credit_tx_may_send(const struct credit_tx *t, uint32_t bytes);

/* BYTES went on the WAN (the wait, if any, is over); returns the new report (sent). */
uint64_t credit_tx_sent(struct credit_tx *t, uint32_t bytes);

/* The head packet does not fit the credit: the sender waits (until credit_tx_sent()). */
void credit_tx_wait(struct credit_tx *t);

/*
 * True when the sender owes the peer a report of its own at NOW (a control
 * packet, when nothing else goes to the peer): its first, the start of a
 * wait, or refresh_ticks after the last report.
 */
bool credit_tx_report_due(const struct credit_config *c, const struct credit_tx *t, uint64_t now);

/* When credit_tx_report_due() turns true with nothing else changing (the refresh). */
uint64_t credit_tx_report_at(const struct credit_config *c, const struct credit_tx *t);

/*
 * A packet toward the peer carries the report REPORT (sent at its dequeue)
 * at NOW; CHARGED when its own bytes are in it. Returns true when it is to
 * carry the wait flag: the sender waits, REPORT is its current count and
 * the packet is not charged (a charged packet was sent, so the sender did
 * not wait at its report).
 */
bool credit_tx_report(struct credit_tx *t, uint64_t now, uint64_t report, bool charged);

/* Credit left in bytes (0 when none). */
uint64_t credit_tx_available(const struct credit_tx *t);

/*
 * A grant arrived: LIMIT for reports of EPOCH. Applied (returns true) when
 * EPOCH is this sender's and LIMIT is later than the limit in force;
 * anything else is counted stale and ignored.
 */
bool credit_tx_grant(struct credit_tx *t, uint32_t epoch, uint64_t limit);

/* Empty buffer, no report seen; the first grant is due at once. */
void credit_rx_init(struct credit_rx *r);

/* BYTES of data arrived into the buffer (call before that packet's report). */
void credit_rx_arrive(const struct credit_config *c, struct credit_rx *r, uint32_t bytes);

/* BYTES left the buffer (transmitted toward the DC or dropped there). */
void credit_rx_drain(struct credit_rx *r, uint32_t bytes);

/*
 * The sender reported TOTAL (its sent counter) under EPOCH, in a data packet
 * or a control packet, WAITING when it carried the wait flag. A new epoch
 * restarts the count; an older report is ignored.
 */
void credit_rx_report(struct credit_rx *r, uint32_t epoch, uint64_t total, bool waiting);

/*
 * The limit to grant now into *LIMIT and the epoch to echo into *EPOCH;
 * false while no report has arrived (nothing to grant against).
 */
bool credit_rx_limit(const struct credit_config *c, const struct credit_rx *r,
		uint64_t *limit, uint32_t *epoch);

/*
 * True when a grant should be sent at NOW: the first for this epoch, the
 * limit moved update_bytes since the last one, a waiting sender's report
 * not yet answered and the limit at least update_bytes beyond it, or
 * refresh_ticks passed (the refresh that repairs a lost grant).
 */
bool credit_rx_update_due(const struct credit_config *c, const struct credit_rx *r,
		uint64_t now);

/*
 * When credit_rx_update_due() turns true with nothing else changing (the
 * refresh); CC_TIME_NEVER before the first grant, which a report makes due.
 */
uint64_t credit_rx_update_at(const struct credit_config *c, const struct credit_rx *r);

/* A grant of *LIMIT for *EPOCH is being sent at NOW; false as credit_rx_limit(). */
bool credit_rx_advertise(const struct credit_config *c, struct credit_rx *r, uint64_t now,
		uint64_t *limit, uint32_t *epoch);

#endif /* LONGSPAN_CREDIT_H */
