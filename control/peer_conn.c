/* SPDX-License-Identifier: BSD-3-Clause */
/* One peering connection: TLS plus message framing (peer_conn.h). */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "congestion/cc_time.h"
#include "peer_conn.h"

static struct peer_conn *
peer_conn_alloc(uint64_t deadline_ns)
{
	struct peer_conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->tls.fd = -1;
	c->state = PEER_CONN_TLS;
	c->deadline_ns = deadline_ns;
	return c;
}

/* Copy the TLS layer's verdict into the connection and mark it dead. */
static void
peer_conn_dead_from_tls(struct peer_conn *c)
{
	c->reason = c->tls.reason != PEER_REASON_NONE ? c->tls.reason : PEER_REASON_TLS_ERROR;
	snprintf(c->detail, sizeof(c->detail), "%s", c->tls.detail);
	c->state = PEER_CONN_DEAD;
	peer_tls_close(&c->tls);
}

struct peer_conn *
peer_conn_connect(const struct peer_tls_ctx *t, const struct sockaddr *remote,
		  socklen_t remote_len, const struct sockaddr *local, socklen_t local_len,
		  const char *site, uint64_t deadline_ns)
{
	struct peer_conn *c = peer_conn_alloc(deadline_ns);

	if (c == NULL)
		return NULL;
	if (peer_tls_connect(&c->tls, t, remote, remote_len, local, local_len, site) != 0)
		peer_conn_dead_from_tls(c);
	return c;
}

struct peer_conn *
peer_conn_accept(const struct peer_tls_ctx *t, int fd, const char *site, uint64_t deadline_ns)
{
	struct peer_conn *c = peer_conn_alloc(deadline_ns);

	if (c == NULL) {
		close(fd);
		return NULL;
	}
	if (peer_tls_accept(&c->tls, t, fd, site) != 0)
		peer_conn_dead_from_tls(c);
	return c;
}

/*
 * Send what is queued, as far as the socket takes it. Returns 0, or -1
 * when the TLS connection failed (c->tls.reason says why).
 */
static int
peer_conn_flush(struct peer_conn *c)
{
	size_t off = 0;
	int rc = 0;

	while (off < c->tx_bytes) {
		size_t n = 0;
		enum peer_tls_io io = peer_tls_write(&c->tls, c->tx + off, c->tx_bytes - off, &n);

		if (io == PEER_TLS_IO_AGAIN)
			break;
		if (io != PEER_TLS_IO_OK) {
			rc = -1;
			break;
		}
		off += n;
	}
	if (off > 0) {
		memmove(c->tx, c->tx + off, c->tx_bytes - off);
		c->tx_bytes -= off;
	}
	return rc;
}

int
peer_conn_send(struct peer_conn *c, const struct peer_msg *m)
{
	int n;

	if (c->state != PEER_CONN_HELLO && c->state != PEER_CONN_UP)
		return -ENOTCONN;
	if (PEER_CONN_TX_BYTES - c->tx_bytes < PEER_MSG_MAX_BYTES) {
		/* Room for any message, or the peer is not reading. */
		if (peer_conn_flush(c) != 0) {
			peer_conn_dead_from_tls(c);
			return -ENOTCONN;
		}
		if (PEER_CONN_TX_BYTES - c->tx_bytes < PEER_MSG_MAX_BYTES)
			return -ENOBUFS;
	}
	n = peer_msg_encode(m, c->tx + c->tx_bytes, PEER_CONN_TX_BYTES - c->tx_bytes);
	if (n < 0)
		return n;
	c->tx_bytes += (size_t)n;
	if (peer_conn_flush(c) != 0) {
		peer_conn_dead_from_tls(c);
		return -ENOTCONN;
	}
	return 0;
}

void
peer_conn_fail(struct peer_conn *c, enum peer_reason r, int close, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->state == PEER_CONN_DEAD)
		return;
	c->reason = r;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
	if (close != 0 && (c->state == PEER_CONN_HELLO || c->state == PEER_CONN_UP)) {
		struct peer_msg m;

		memset(&m, 0, sizeof(m));
		m.type = PEER_MSG_CLOSE;
		m.u.close.reason = (enum peer_close_reason)close;
		snprintf(m.u.close.text, sizeof(m.u.close.text), "%.*s", PEER_MSG_TEXT_MAX, c->detail);
		/* The text is cut to what the message allows, in its character set. */
		for (char *p = m.u.close.text; *p != '\0'; p++)
			if (*p < ' ' || *p > '~')
				*p = '?';
		n = peer_msg_encode(&m, c->tx + c->tx_bytes, PEER_CONN_TX_BYTES - c->tx_bytes);
		if (n > 0) {
			/* One attempt; a socket already gone changes nothing. */
			c->tx_bytes += (size_t)n;
			(void)peer_conn_flush(c);
		}
	}
	c->state = PEER_CONN_DEAD;
	peer_tls_close(&c->tls);
}

/* The next whole message from the receive buffer, or NONE when more bytes are needed. */
static enum peer_conn_event
peer_conn_decode(struct peer_conn *c, uint64_t now_ns, struct peer_msg *msg)
{
	size_t used = 0;
	enum peer_msg_err e = peer_msg_decode(c->rx, c->rx_bytes, msg, &used);

	if (e == PEER_MSG_E_SHORT) {
		/* A message never exceeds the buffer, so a full buffer decodes. */
		if (c->rx_bytes < sizeof(c->rx))
			return PEER_CONN_EV_NONE;
		e = PEER_MSG_E_LENGTH;
	}
	if (e != PEER_MSG_OK) {
		if (e == PEER_MSG_E_VERSION)
			peer_conn_fail(c, PEER_REASON_VERSION_MISMATCH, PEER_CLOSE_VERSION,
				       "message version %u, this gateway speaks %u", c->rx[4],
				       PEER_MSG_VERSION);
		else
			peer_conn_fail(c, PEER_REASON_MALFORMED, PEER_CLOSE_MALFORMED, "%s: %s",
				       peer_msg_err_name(e), peer_msg_err_desc(e));
		return PEER_CONN_EV_DEAD;
	}
	memmove(c->rx, c->rx + used, c->rx_bytes - used);
	c->rx_bytes -= used;
	c->last_rx_ns = now_ns;
	return PEER_CONN_EV_MSG;
}

enum peer_conn_event
peer_conn_poll(struct peer_conn *c, uint64_t now_ns, struct peer_msg *msg)
{
	enum peer_conn_event ev;
	unsigned int reads;

	if (c->state == PEER_CONN_DEAD)
		goto dead;
	if (c->state != PEER_CONN_UP && cc_time_after(now_ns, c->deadline_ns)) {
		peer_conn_fail(c, PEER_REASON_HANDSHAKE_TIMEOUT, PEER_CLOSE_HOLD,
			       "%s not done within the handshake deadline",
			       c->state == PEER_CONN_TLS ? "TLS handshake" : "hello exchange");
		goto dead;
	}
	if (c->state == PEER_CONN_TLS) {
		enum peer_tls_io io = peer_tls_handshake(&c->tls);

		if (io == PEER_TLS_IO_AGAIN)
			return PEER_CONN_EV_NONE;
		if (io != PEER_TLS_IO_OK) {
			peer_conn_dead_from_tls(c);
			goto dead;
		}
		c->state = PEER_CONN_HELLO;
		c->last_rx_ns = now_ns;
		return PEER_CONN_EV_OPEN;
	}
	if (c->tx_bytes > 0 && peer_conn_flush(c) != 0) {
		peer_conn_dead_from_tls(c);
		goto dead;
	}
	for (reads = 0;; reads++) {
		enum peer_tls_io io;
		size_t n = 0;

		ev = peer_conn_decode(c, now_ns, msg);
		if (ev == PEER_CONN_EV_DEAD)
			goto dead;
		if (ev != PEER_CONN_EV_NONE)
			return ev;
		if (reads == PEER_CONN_READS_PER_POLL)
			return PEER_CONN_EV_NONE;
		io = peer_tls_read(&c->tls, c->rx + c->rx_bytes, sizeof(c->rx) - c->rx_bytes, &n);
		if (io == PEER_TLS_IO_AGAIN)
			return PEER_CONN_EV_NONE;
		if (io != PEER_TLS_IO_OK) {
			peer_conn_dead_from_tls(c);
			goto dead;
		}
		c->rx_bytes += n;
	}

dead:
	if (c->dead_reported)
		return PEER_CONN_EV_NONE;
	c->dead_reported = true;
	return PEER_CONN_EV_DEAD;
}

short
peer_conn_events(const struct peer_conn *c)
{
	short ev;

	if (c->state == PEER_CONN_DEAD || c->tls.fd < 0)
		return 0;
	ev = c->state == PEER_CONN_TLS ? c->tls.events : POLLIN;
	if (c->tx_bytes > 0 || (c->state != PEER_CONN_TLS && c->tls.events == POLLOUT))
		ev |= POLLOUT;
	return ev;
}

bool
peer_conn_has_work(const struct peer_conn *c)
{
	if (c->state == PEER_CONN_DEAD)
		return !c->dead_reported;
	if (peer_tls_pending(&c->tls))
		return true;
	/* A whole message is buffered when its length field says so. */
	if (c->rx_bytes >= 4) {
		uint32_t len = (uint32_t)c->rx[0] << 24 | (uint32_t)c->rx[1] << 16 |
			       (uint32_t)c->rx[2] << 8 | c->rx[3];

		return len <= c->rx_bytes || len < PEER_MSG_HDR_BYTES || len > PEER_MSG_MAX_BYTES;
	}
	return false;
}

void
peer_conn_free(struct peer_conn *c)
{
	if (c == NULL)
		return;
	peer_tls_close(&c->tls);
	free(c);
}
