/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_QPN_LEARN_H
#define LONGSPAN_QPN_LEARN_H

/*
 * The in-band QPN-pair learner for mechanism A (near-source CNP).
 *
 * A CNP must carry the *sender's* QPN, but data packets carry only the
 * receiver's (BTH DestQP). Returning ACK/NAK packets carry the sender's QPN
 * as their DestQP, so the learner pairs them up:
 *
 *   data flow key   = (family, src IP, dst IP, data DestQP = receiver QPN)
 *   an ACK/NAK with (src IP, dst IP) = the data flow's (dst IP, src IP)
 *   teaches sender QPN = ACK DestQP, provided its PSN lies in the data
 *   flow's PSN window.
 *
 * The ACK does not carry the receiver's QPN, so the IP pair alone cannot
 * tell two QPs between the same hosts apart; the PSN does. Rule: for each
 * data flow the learner keeps the window [first_psn, last_psn] of PSNs
 * forwarded, in 24-bit serial arithmetic (RFC 1982 style, modulo 2^24):
 * a data PSN less than 2^23 ahead of last_psn becomes last_psn (first_psn
 * then moves up so that the window never spans more than psn_window PSNs);
 * one behind first_psn but within psn_window of last_psn extends the
 * window down (a retransmission); one further behind is a new connection
 * reusing the key and restarts the window at that PSN. An ACK (or NAK)
 * whose PSN p satisfies (p - first_psn) mod 2^24 <= (last_psn - first_psn)
 * mod 2^24 matches that flow. If exactly one live data flow of the reversed
 * IP pair matches, its sender QPN is learned (or replaced: QPs get
 * reused); none matching -> QPN_LEARN_ACK_NO_FLOW or _PSN_OUTSIDE; more than
 * one -> _AMBIGUOUS and nothing is learned, since a CNP to the wrong QP
 * would throttle an innocent flow.
 *
 * Storage: a fixed-capacity open-addressing table in caller memory; no
 * allocation. Entries are placed by a hash of the IP pair only, so that all
 * QPs of one IP pair sit in one probe sequence, which the ACK search walks
 * (at most max_probe slots). An entry is live while it saw a data packet or
 * ACK within idle_ns; dead entries are reused in place (aging is lazy, no
 * sweeper is needed). Lookups and updates cost at most max_probe slot
 * visits, usable per packet. One writer (the owning lcore); not thread-safe.
 */

#include <stddef.h>
#include <stdint.h>

#define QPN_LEARN_PSN_MASK 0xffffffu /* PSNs and QPNs are 24 bits */

struct qpn_learn_key {
	uint8_t family; /* AF_INET or AF_INET6 */
	uint16_t sport; /* data UDP source port: stored, not part of the key */
	uint8_t src[16]; /* data source IP (IPv4 in src[0..3], rest zero) */
	uint8_t dst[16]; /* data destination IP */
	uint32_t dest_qpn; /* data packets' BTH DestQP = receiver QPN */
};

struct qpn_learn_entry {
	struct qpn_learn_key key;
	uint32_t pair_hash; /* hash of (family, src, dst); 0 = never used */
	uint32_t first_psn;
	uint32_t last_psn;
	uint32_t sender_qpn; /* valid when learned */
	uint8_t learned;
	uint64_t last_seen_ns; /* last data packet or matching ACK */
};

struct qpn_learn_params {
	uint64_t idle_ns; /* entry lifetime without traffic; > 0 */
	uint32_t max_probe; /* slots visited per operation, 1..entries */
	uint32_t psn_window; /* largest window span in PSNs, 1..2^23 */
};

struct qpn_learn {
	struct qpn_learn_entry *slots;
	uint32_t mask; /* entries - 1 */
	uint32_t max_probe;
	uint32_t psn_window;
	uint64_t idle_ns;
};

/* Result of one data packet or ACK. Stable names for counters. */
#define QPN_LEARN_RESULTS(X) \
	X(DATA_KNOWN, "data_known") /* flow tracked, sender QPN known */ \
	X(DATA_UNKNOWN, "data_unknown") /* flow tracked, no QPN learned yet */ \
	X(DATA_FULL, "data_full") /* no usable slot in the probe window */ \
	X(ACK_LEARNED, "ack_learned") /* a new pairing */ \
	X(ACK_CONFIRMED, "ack_confirmed") /* same pairing seen again */ \
	X(ACK_CHANGED, "ack_changed") /* the flow's sender QPN was replaced */ \
	X(ACK_NO_FLOW, "ack_no_flow") /* no live data flow for the IP pair */ \
	X(ACK_PSN_OUTSIDE, "ack_psn_outside") /* flows exist, none has the PSN */ \
	X(ACK_AMBIGUOUS, "ack_ambiguous") /* several flows have the PSN */

enum qpn_learn_result {
#define QPN_LEARN_ENUM(e, s) QPN_LEARN_##e,
	QPN_LEARN_RESULTS(QPN_LEARN_ENUM)
#undef QPN_LEARN_ENUM
	QPN_LEARN_RESULT_MAX
};

const char *qpn_learn_result_name(enum qpn_learn_result r);

/* Bytes of MEM needed for ENTRIES slots. */
size_t qpn_learn_mem_size(size_t entries);

/*
 * Set up T over MEM (qpn_learn_mem_size(entries) bytes, aligned for
 * uint64_t), all slots empty. ENTRIES must be a power of two between 1 and
 * 2^31. Returns 0 or -EINVAL.
 */
int qpn_learn_init(struct qpn_learn *t, void *mem, size_t entries,
		const struct qpn_learn_params *p);

/*
 * The table's hash of an address pair (never 0), and a hint to bring the
 * first slot of its probe into the cache: a caller that knows a burst's
 * keys early hashes them, prefetches, and hands the hash to
 * qpn_learn_on_data_hashed() later, when the slot has arrived.
 */
uint32_t qpn_learn_pair_hash(uint8_t family, const uint8_t src[16], const uint8_t dst[16]);

static inline void
qpn_learn_prefetch(const struct qpn_learn *t, uint32_t pair_hash)
{
	__builtin_prefetch(&t->slots[pair_hash & t->mask]);
}

/* qpn_learn_on_data() for a key whose qpn_learn_pair_hash() is pair_hash. */
enum qpn_learn_result qpn_learn_on_data_hashed(struct qpn_learn *t,
		const struct qpn_learn_key *key, uint32_t pair_hash, uint32_t psn,
		uint64_t now_ns, uint32_t *sender_qpn);

/*
 * A data packet of flow KEY with PSN psn was forwarded at now: track it,
 * extend its PSN window, and report whether the sender QPN is known (then
 * stored in *sender_qpn when not NULL).
 */
enum qpn_learn_result qpn_learn_on_data(struct qpn_learn *t, const struct qpn_learn_key *key,
		uint32_t psn, uint64_t now_ns, uint32_t *sender_qpn);

/*
 * An ACK or NAK from ack_src to ack_dst (so the data went ack_dst ->
 * ack_src) with BTH DestQP ack_dest_qpn (the data sender's QPN) and PSN psn
 * arrived at now: try to learn.
 */
enum qpn_learn_result qpn_learn_on_ack(struct qpn_learn *t, uint8_t family,
		const uint8_t ack_src[16], const uint8_t ack_dst[16], uint32_t ack_dest_qpn,
		uint32_t psn, uint64_t now_ns);

/* Read-only lookup: the live entry for KEY, or NULL. */
const struct qpn_learn_entry *qpn_learn_lookup(const struct qpn_learn *t,
		const struct qpn_learn_key *key, uint64_t now_ns);

/*
 * The live data flow from src to dst whose learned sender QPN is
 * sender_qpn, or NULL. Mechanism C maps a receiver's CNP (which names only
 * the data sender's QPN) to the incoming data flow it is about.
 */
const struct qpn_learn_entry *qpn_learn_find_sender(const struct qpn_learn *t, uint8_t family,
		const uint8_t src[16], const uint8_t dst[16], uint32_t sender_qpn,
		uint64_t now_ns);

/* Live entries at now (walks the whole table: control path only). */
size_t qpn_learn_count(const struct qpn_learn *t, uint64_t now_ns);

#endif /* LONGSPAN_QPN_LEARN_H */
