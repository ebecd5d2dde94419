/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PEER_MSG_H
#define LONGSPAN_PEER_MSG_H

/*
 * The messages two gateways exchange over their peering session
 * (docs/wire-format.md, "Peering messages", is the contract; this is its
 * codec). Every message is length-prefixed and versioned:
 *
 *   u32 length (whole message, header included) | u8 version | u8 type |
 *   u16 reserved (0) | body
 *
 * Input is untrusted: peer_msg_decode() bounds every length before it
 * reads, validates every field (reserved bits zero, names in their
 * character sets, prefixes with their host bits clear, counts within the
 * limits below) and returns a named error. It never reads outside
 * [buf, buf + len) and never allocates. peer_msg_encode() validates the
 * same way, so whatever it writes decodes back to the same message.
 *
 * Pure C, no OpenSSL, no EAL: the fuzz target and the unit tests link it
 * alone.
 */

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define PEER_MSG_VERSION 1
#define PEER_MSG_HDR_BYTES 8
/* Largest message of any type, header included; a larger length is refused
 * before its body is read, so a receive buffer of this size always holds
 * one whole message. */
#define PEER_MSG_MAX_BYTES 4096
#define PEER_MSG_SITE_MAX (LS_NAME_MAX - 1) /* characters; a site id is a config name */
#define PEER_MSG_SOFTWARE_MAX 31 /* characters */
#define PEER_MSG_TEXT_MAX 127 /* characters of a close message's text */
/* A route update may withdraw every prefix and announce a new full set. */
#define PEER_MSG_ROUTE_ENTRIES_MAX (2 * LS_MAX_PREFIXES)
#define PEER_MSG_HINT_QPS_MAX 128
/* Hold time a hello may announce (the session uses the smaller of both). */
#define PEER_MSG_HOLD_MIN_MS 300u
#define PEER_MSG_HOLD_MAX_MS 600000u

enum peer_msg_type {
	PEER_MSG_HELLO = 1,
	PEER_MSG_KEEPALIVE = 2,
	PEER_MSG_ROUTE = 3,
	PEER_MSG_HINT = 4,
	PEER_MSG_CLOSE = 5,
};

/* Capability bits of a hello. Bits not listed are reserved for additions
 * within version 1: a receiver ignores them. */
#define PEER_MSG_CAP_ROUTES (UINT64_C(1) << 0) /* sends route updates */
#define PEER_MSG_CAP_HINTS (UINT64_C(1) << 1) /* sends congestion hints */

/*
 * Decode errors: X(enum suffix, "stable name", "one-line description").
 * PEER_MSG_OK and PEER_MSG_E_SHORT (a message cut short: more bytes may
 * come) are not errors of the peer; every other value is.
 */
#define PEER_MSG_ERRORS(X)                                                                         \
	X(OK, "ok", "a whole, valid message")                                                      \
	X(SHORT, "short", "the buffer ends before the message does")                             \
	X(LENGTH, "bad_length", "length below the header or above the maximum")                   \
	X(VERSION, "version_mismatch", "message version is not 1")                                \
	X(TYPE, "unknown_type", "message type is not defined")                                    \
	X(RESERVED, "reserved_nonzero", "a reserved field or flag bit is set")                    \
	X(BODY_SHORT, "body_truncated", "the body ends inside a field")                           \
	X(TRAILING, "trailing_bytes", "bytes after the last field of the body")                   \
	X(SITE, "bad_site_id", "site id empty, too long or not [A-Za-z0-9._-]")                   \
	X(SOFTWARE, "bad_software_version", "software version empty, too long or not printable") \
	X(HOLD, "bad_hold_time", "hold time outside 300 ms .. 600 s")                             \
	X(COUNT, "bad_count", "entry count above the type's maximum")                             \
	X(FAMILY, "bad_family", "address family is neither 4 nor 6")                              \
	X(PREFIX_LEN, "bad_prefix_length", "prefix length above 32 (IPv4) or 128 (IPv6)")         \
	X(HOST_BITS, "prefix_host_bits", "prefix has bits set past its length")                   \
	X(DUPLICATE, "duplicate_entry", "the same prefix or QP twice in one message")             \
	X(ROUTE_OP, "bad_route_op", "route entry neither add nor withdraw, or withdraw in a full set") \
	X(HINT_KIND, "bad_hint_kind", "congestion hint kind is not defined")                      \
	X(QPN, "bad_qpn", "QPN above 24 bits")                                                    \
	X(VALIDITY, "bad_validity", "hint validity 0 or above 600 s")                             \
	X(ADDR, "bad_address", "IPv4 address with bytes set past its 4")                          \
	X(CLOSE_REASON, "bad_close_reason", "close reason is not defined")                       \
	X(TEXT, "bad_text", "close text too long or not printable")

#define PEER_MSG_X_ENUM(e, name, desc) PEER_MSG_E_##e,
enum peer_msg_err { PEER_MSG_ERRORS(PEER_MSG_X_ENUM) PEER_MSG_E_MAX };
#undef PEER_MSG_X_ENUM
#define PEER_MSG_OK PEER_MSG_E_OK

/*
 * Why a session is closed, sent in a close message so the other side can
 * log it: X(enum suffix, wire code, "stable name", "description"). Wire
 * codes are part of version 1: append, never renumber.
 */
#define PEER_CLOSE_REASONS(X)                                                                      \
	X(SHUTDOWN, 1, "shutdown", "the gateway stops or the peer was removed from its config")   \
	X(VERSION, 2, "version_mismatch", "message version not supported")                        \
	X(MALFORMED, 3, "malformed_message", "a message failed to decode")                        \
	X(UNEXPECTED, 4, "unexpected_message", "a valid message out of order (no hello first, second hello, generation gap)") \
	X(SITE, 5, "site_mismatch", "hello site id is not the configured peer")                   \
	X(DUPLICATE, 6, "duplicate_connection", "the other connection between the pair won the tie-break") \
	X(HOLD, 7, "hold_timeout", "nothing received within the hold time")                       \
	X(ROUTE, 8, "route_limit", "learned prefixes would exceed the limit")                     \
	X(OVERFLOW, 9, "send_overflow", "the peer does not read: the send buffer is full")        \
	X(REVOKED, 10, "certificate_rejected", "the peer certificate failed re-verification after a reload")

#define PEER_CLOSE_X_ENUM(e, code, name, desc) PEER_CLOSE_##e = code,
enum peer_close_reason { PEER_CLOSE_REASONS(PEER_CLOSE_X_ENUM) };
#undef PEER_CLOSE_X_ENUM

/* A hello: who the sender is and what it serves. */
struct peer_msg_hello {
	char site[PEER_MSG_SITE_MAX + 1]; /* the sender's [gateway] name */
	char software[PEER_MSG_SOFTWARE_MAX + 1]; /* e.g. "0.1.0" */
	uint64_t instance_id; /* random per process start: tells a restart from a duplicate */
	uint64_t capabilities; /* PEER_MSG_CAP_* */
	uint32_t hold_time_ms;
	uint32_t route_generation; /* generation of the prefix set below */
	unsigned int n_prefixes;
	struct conf_prefix prefixes[LS_MAX_PREFIXES];
};

/* A keepalive, with an echo of the last one received (session RTT). */
struct peer_msg_keepalive {
	uint64_t tx_ns; /* sender's clock at send */
	uint64_t echo_ns; /* tx_ns of the last keepalive the sender received; 0 = none */
	uint64_t echo_delay_ns; /* time the sender held that echo */
	uint64_t measured_rtt_ns; /* sender's measured WAN RTT; 0 = not measured */
};

enum peer_route_op {
	PEER_ROUTE_ADD = 1,
	PEER_ROUTE_WITHDRAW = 2,
};

struct peer_msg_route_entry {
	uint8_t op; /* enum peer_route_op */
	struct conf_prefix prefix;
};

/* A change of the sender's prefix set, taking it to GENERATION. */
struct peer_msg_route {
	uint32_t generation; /* previous generation + 1 (mod 2^32) */
	bool full; /* the entries (all adds) replace the whole set */
	unsigned int n_entries;
	struct peer_msg_route_entry entries[PEER_MSG_ROUTE_ENTRIES_MAX];
};

enum peer_hint_kind {
	/* The QPs the sender's mechanism C is holding and shaping now. */
	PEER_HINT_SHAPED_QPS = 1,
};

struct peer_msg_hint_qp {
	struct conf_addr dst; /* inner destination address of the QP's data */
	uint32_t qpn; /* destination QPN, 24 bits */
	uint64_t rate_bps; /* current shaping rate; 0 = held, not yet rated */
};

/* A congestion hint: a complete snapshot, valid for VALID_MS. */
struct peer_msg_hint {
	uint8_t kind; /* enum peer_hint_kind */
	uint32_t valid_ms;
	unsigned int n_qps;
	struct peer_msg_hint_qp qps[PEER_MSG_HINT_QPS_MAX];
};

struct peer_msg_close {
	enum peer_close_reason reason;
	char text[PEER_MSG_TEXT_MAX + 1];
};

struct peer_msg {
	enum peer_msg_type type;
	union {
		struct peer_msg_hello hello;
		struct peer_msg_keepalive keepalive;
		struct peer_msg_route route;
		struct peer_msg_hint hint;
		struct peer_msg_close close;
	} u;
};

/* Wire sizes of the fixed parts (docs/wire-format.md). */
#define PEER_MSG_PREFIX6_BYTES 18 /* family, length, 16 address bytes */
#define PEER_MSG_HELLO_MAX_BYTES                                                                   \
	(PEER_MSG_HDR_BYTES + 1 + PEER_MSG_SITE_MAX + 1 + PEER_MSG_SOFTWARE_MAX + 8 + 8 + 4 + 4 + 2 + \
	 LS_MAX_PREFIXES * PEER_MSG_PREFIX6_BYTES)
#define PEER_MSG_ROUTE_MAX_BYTES                                                                   \
	(PEER_MSG_HDR_BYTES + 8 + PEER_MSG_ROUTE_ENTRIES_MAX * (1 + PEER_MSG_PREFIX6_BYTES))
#define PEER_MSG_HINT_QP_BYTES 28 /* family, QPN (3), address (16), rate (8) */
#define PEER_MSG_HINT_MAX_BYTES                                                                    \
	(PEER_MSG_HDR_BYTES + 8 + PEER_MSG_HINT_QPS_MAX * PEER_MSG_HINT_QP_BYTES)
static_assert(PEER_MSG_HELLO_MAX_BYTES <= PEER_MSG_MAX_BYTES, "largest hello must fit");
static_assert(PEER_MSG_ROUTE_MAX_BYTES <= PEER_MSG_MAX_BYTES, "largest route update must fit");
static_assert(PEER_MSG_HINT_MAX_BYTES <= PEER_MSG_MAX_BYTES, "largest hint must fit");

/*
 * Decode the message at the start of BUF (LEN bytes available). Returns
 * PEER_MSG_OK with *out filled and *msg_bytes = its size; PEER_MSG_E_SHORT
 * when BUF holds only part of a message whose header (as far as it is
 * there) is valid: call again with more bytes; any other value is the
 * peer's error, with *out unspecified. A length or version error is found
 * from the first 5 bytes, before the body is waited for.
 */
enum peer_msg_err peer_msg_decode(const uint8_t *buf, size_t len, struct peer_msg *out,
				  size_t *msg_bytes);

/*
 * Encode M into BUF (CAP bytes). Returns the message size, -EINVAL when M
 * would not decode (the same validation as the decoder), or -ENOSPC.
 */
int peer_msg_encode(const struct peer_msg *m, uint8_t *buf, size_t cap);

/* Stable names: "bad_length", ... ("?" for values out of range). */
const char *peer_msg_err_name(enum peer_msg_err e);
const char *peer_msg_err_desc(enum peer_msg_err e);
/* "hello", "keepalive", "route", "hint", "close"; "?" otherwise. */
const char *peer_msg_type_name(enum peer_msg_type t);
/* "shutdown", ...; "?" for a code version 1 does not define. */
const char *peer_close_reason_name(enum peer_close_reason r);

/*
 * PEER_MSG_OK when the N prefixes are a valid announced set: at most
 * LS_MAX_PREFIXES, each with its host bits clear, none twice.
 */
enum peer_msg_err peer_msg_prefixes_check(const struct conf_prefix *p, unsigned int n);

/* True when S is a valid site id (what the decoder accepts). */
bool peer_msg_site_ok(const char *s);

/* Can a hello carry S as its software version (1..31 printable, no blank)? */
bool peer_msg_software_ok(const char *s);

#endif /* LONGSPAN_PEER_MSG_H */
