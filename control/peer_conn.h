/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PEER_CONN_H
#define LONGSPAN_PEER_CONN_H

/*
 * One peering connection: a TLS connection (peer_tls.h) carrying framed
 * peering messages (peer_msg.h), with its own receive and send buffers and
 * handshake deadline. The session (peer_session.h) decides what to send and
 * what a message means; this file moves bytes and never blocks.
 *
 *   TLS  --TLS open-->  HELLO  --peer's hello accepted-->  UP
 *    \___________________\____________________________\___> DEAD (reason)
 *
 * The deadline covers TCP connect, TLS handshake and the peer's hello: a
 * client that trickles bytes (slow loris) or never speaks is ended as
 * handshake_timeout, and the time spent on it per poll is one
 * non-blocking read.
 *
 * Owner: its session, control thread.
 */

#include <stdbool.h>
#include <stdint.h>

#include "peer_msg.h"
#include "peer_reason.h"
#include "peer_tls.h"

/* Bytes waiting to be sent; a peer that lets more pile up is ended as send_overflow. */
#define PEER_CONN_TX_BYTES (64 * 1024)
/* Reads of up to PEER_MSG_MAX_BYTES per peer_conn_poll() call. */
#define PEER_CONN_READS_PER_POLL 4

enum peer_conn_state {
	PEER_CONN_TLS = 0, /* TCP connect, TLS handshake */
	PEER_CONN_HELLO, /* TLS open; our hello sent, the peer's awaited */
	PEER_CONN_UP, /* both hellos exchanged */
	PEER_CONN_DEAD, /* ended: reason, detail; free it */
};

enum peer_conn_event {
	PEER_CONN_EV_NONE = 0, /* nothing more until the fd is ready or a timer fires */
	PEER_CONN_EV_OPEN, /* TLS just opened: send the hello */
	PEER_CONN_EV_MSG, /* *msg holds the next message */
	PEER_CONN_EV_DEAD, /* the connection ended (returned once) */
};

struct peer_conn {
	struct peer_tls_conn tls;
	enum peer_conn_state state;
	bool dead_reported;
	bool ever_up; /* reached UP: its end is a loss or a tie-break, not a refusal */
	uint64_t deadline_ns; /* TLS and hello done by then */
	uint64_t last_rx_ns; /* last whole message received */
	uint64_t next_keepalive_ns;
	uint64_t hold_ns; /* negotiated when UP */
	uint64_t peer_instance; /* from the peer's hello */
	/* The peer's last keepalive: its tx_ns (peer clock) and when it arrived (ours). */
	uint64_t echo_tx_ns, echo_rx_ns;
	enum peer_reason reason;
	char detail[PEER_TLS_DETAIL_MAX];
	size_t rx_bytes;
	size_t tx_bytes;
	uint8_t rx[PEER_MSG_MAX_BYTES];
	uint8_t tx[PEER_CONN_TX_BYTES];
};

/*
 * A connection to REMOTE (from LOCAL when local_len > 0) expecting SITE's
 * certificate, or around an accepted FD (owned by the connection from
 * here). Returns NULL only when out of memory (an inbound FD is closed
 * then); a connection that fails at once is returned DEAD with its reason.
 */
struct peer_conn *peer_conn_connect(const struct peer_tls_ctx *t, const struct sockaddr *remote,
				    socklen_t remote_len, const struct sockaddr *local,
				    socklen_t local_len, const char *site, uint64_t deadline_ns);
struct peer_conn *peer_conn_accept(const struct peer_tls_ctx *t, int fd, const char *site,
				   uint64_t deadline_ns);

/*
 * Make progress at NOW_NS: connect, handshake, send, receive. Returns the
 * next event; call again until PEER_CONN_EV_NONE or PEER_CONN_EV_DEAD.
 * A message that fails to decode ends the connection (malformed_message or
 * version_mismatch) after a close message telling the peer why.
 */
enum peer_conn_event peer_conn_poll(struct peer_conn *c, uint64_t now_ns, struct peer_msg *msg);

/*
 * Queue M and try to send. Returns 0, or -ENOBUFS when the send buffer is
 * full (the caller ends the connection as send_overflow), -EINVAL for a
 * message that does not encode, -ENOTCONN before TLS is open or after the
 * end.
 */
int peer_conn_send(struct peer_conn *c, const struct peer_msg *m);

/*
 * End C with reason R (detail printf-style). With close != 0 and TLS open,
 * a close message with that reason is queued and one send attempted first.
 * The next peer_conn_poll() reports PEER_CONN_EV_DEAD.
 */
void peer_conn_fail(struct peer_conn *c, enum peer_reason r, int close, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The events to poll the fd for: what TLS waits for, POLLOUT while bytes are queued. */
short peer_conn_events(const struct peer_conn *c);

/* Work is left that no fd event will announce (a whole message buffered). */
bool peer_conn_has_work(const struct peer_conn *c);

void peer_conn_free(struct peer_conn *c);

#endif /* LONGSPAN_PEER_CONN_H */
