/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PEER_REASON_H
#define LONGSPAN_PEER_REASON_H

/*
 * Why a peering connection ended. A connection that ends before its
 * session is up (TLS handshake and both hellos done) is counted as
 * refused under its reason; an up session that ends is counted as lost.
 * The names are part of the operator interface (logs, CLI, telemetry,
 * tests): append new reasons, never rename or reorder existing ones.
 * docs/peering.md explains each.
 *
 * X(enum suffix, "stable name", "one-line description")
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PEER_REASONS(X)                                                                            \
	X(NONE, "none", "not ended")                                                               \
	X(UNKNOWN_CA, "unknown_ca", "certificate not issued by the configured CA")                 \
	X(CERT_EXPIRED, "cert_expired", "certificate past its notAfter")                           \
	X(CERT_NOT_YET_VALID, "cert_not_yet_valid", "certificate before its notBefore")            \
	X(CERT_REVOKED, "cert_revoked", "certificate listed in the configured CRL")                \
	X(CERT_INVALID, "cert_invalid", "other certificate verification failure")                  \
	X(WRONG_SITE, "wrong_site", "certificate does not name the configured site in a DNS SAN")  \
	X(NO_CERT, "no_certificate", "the client presented no certificate")                        \
	X(NOT_TLS, "not_tls", "plaintext or other bytes that are not a TLS handshake")             \
	X(TLS_VERSION, "tls_version", "the other side does not speak TLS 1.3")                     \
	X(TLS_ERROR, "tls_error", "other TLS failure")                                             \
	X(REFUSED_BY_PEER, "refused_by_peer", "the peer refused us (TLS alert or close message)")  \
	X(HANDSHAKE_TIMEOUT, "handshake_timeout", "TCP, TLS and hello not done within the deadline") \
	X(MALFORMED, "malformed_message", "a peering message failed to decode")                    \
	X(VERSION_MISMATCH, "version_mismatch", "a peering message of another version")            \
	X(UNEXPECTED, "unexpected_message", "a valid message out of order")                        \
	X(SITE_MISMATCH, "site_mismatch", "hello site id is not the configured peer's")            \
	X(UNKNOWN_ADDRESS, "unknown_address", "connection from an address of no configured peer")  \
	X(TOO_MANY_PENDING, "too_many_pending", "too many inbound handshakes in progress")         \
	X(CONNECT_FAILED, "connect_failed", "the TCP connection could not be opened")              \
	X(PEER_CLOSED, "peer_closed", "the connection was closed or reset by the other side")      \
	X(CLOSE_RECEIVED, "close_received", "the peer closed the session with a close message")    \
	X(HOLD_TIMEOUT, "hold_timeout", "nothing received within the hold time")                   \
	X(ROUTE_LIMIT, "route_limit", "the peer announced more prefixes than allowed")             \
	X(SEND_OVERFLOW, "send_overflow", "the peer does not read: the send buffer is full")       \
	X(DUPLICATE, "duplicate_connection", "another connection of the pair won the tie-break")  \
	X(SHUTDOWN, "shutdown", "closed locally: the gateway stops or the peer was removed")       \
	X(NO_RESOURCES, "no_resources", "a socket, TLS object or buffer could not be allocated")

#define PEER_REASON_X_ENUM(e, name, desc) PEER_REASON_##e,
enum peer_reason { PEER_REASONS(PEER_REASON_X_ENUM) PEER_REASON_MAX };
#undef PEER_REASON_X_ENUM

extern const char *const peer_reason_names[PEER_REASON_MAX];
extern const char *const peer_reason_descs[PEER_REASON_MAX];

/* The stable name of R, or "?" out of range. */
static inline const char *
peer_reason_name(enum peer_reason r)
{
	return (unsigned int)r < PEER_REASON_MAX ? peer_reason_names[r] : "?";
}

/*
 * At most one log line per reason per PEER_LOG_INTERVAL_NS, so a flood of
 * refused connections is counted in full but logged sparsely.
 */
#define PEER_LOG_INTERVAL_NS 1000000000ull

struct peer_log_limit {
	uint64_t next_ns[PEER_REASON_MAX];
	uint32_t suppressed[PEER_REASON_MAX];
};

/*
 * True when a line for R may be written at NOW_NS; then *suppressed is the
 * number of lines for R held back since the last one written.
 */
bool peer_log_limit_ok(struct peer_log_limit *l, enum peer_reason r, uint64_t now_ns,
		       uint32_t *suppressed);

/* printf into ERR (ERR_SIZE bytes) for the callers' error messages; ERR may be NULL. */
void peer_err_printf(char *err, size_t err_size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "" for HELD 0, else "; HELD more not logged", in BUF. */
const char *peer_log_held_text(uint32_t held, char *buf, size_t size);

#endif /* LONGSPAN_PEER_REASON_H */
