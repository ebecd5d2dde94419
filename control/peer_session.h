/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PEER_SESSION_H
#define LONGSPAN_PEER_SESSION_H

/*
 * The peering session with one remote site (docs/peering.md).
 *
 * A session is up while one connection (peer_conn.h) to the site has
 * exchanged hellos. Both gateways open connections while their session is
 * down; when two are up at once the tie-break keeps one:
 *
 *   - the two carry different peer instance ids (the hello's random
 *     per-process id): the peer restarted, the newer connection is the
 *     live one and the older is closed;
 *   - the same instance: the connection opened by the site with the
 *     smaller site id (byte-wise strcmp of the gateway names) survives,
 *     the other is closed with a close message "duplicate_connection".
 *     Both sides compute the same answer from the same two names.
 *
 * An up session sends a keepalive every hold/3 (hold = the smaller of both
 * hellos' hold times), carrying this gateway's measured WAN RTT and an echo
 * of the peer's last keepalive, from which each side measures the session
 * RTT; nothing received for a hold time ends it as hold_timeout. While down
 * it reconnects with the back-off of peer_backoff.h; a session that comes
 * up resets it.
 *
 * Routes: the hello carries this gateway's prefix set and its generation;
 * peer_session_set_prefixes() sends the difference as a route update with
 * the next generation. Learned prefixes stay valid while the session is up
 * and for route_hold_ns after it went down (the dataplane keeps forwarding
 * on them), then expire.
 *
 * Every connection that ends before its session is up is counted in
 * stats.refused[reason]; an up session that ends, in stats.lost[reason].
 *
 * Threads: the control thread only. Callbacks run inside
 * peer_session_run() and may call peer_session_set_prefixes(),
 * peer_session_send_hint() and peer_session_send_keepalive().
 */

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "config.h"
#include "peer_backoff.h"
#include "peer_conn.h"
#include "peer_msg.h"
#include "peer_reason.h"
#include "peer_tls.h"

/* Connections a session holds at once: one outbound, the rest inbound. */
#define PEER_SESSION_CONNS 4
/* Messages handled per connection per peer_session_run(), so one busy
 * peer cannot hold the control thread. */
#define PEER_SESSION_MSGS_PER_RUN 64

struct peer_session_conf {
	char local_site[LS_NAME_MAX]; /* this gateway's [gateway] name */
	char peer_site[LS_NAME_MAX]; /* the peer's site id, and the DNS SAN its certificate needs */
	struct sockaddr_storage remote; /* the peer's peering address and port */
	socklen_t remote_len;
	struct sockaddr_storage local; /* source of outbound connections; local_len 0 = any */
	socklen_t local_len;
	bool connect; /* open outbound connections (else only accept) */
	uint64_t handshake_timeout_ns; /* TCP + TLS + hello */
	uint32_t hold_time_ms; /* announced; PEER_MSG_HOLD_MIN_MS..PEER_MSG_HOLD_MAX_MS */
	struct peer_backoff_params backoff;
	uint64_t route_hold_ns; /* learned prefixes outlive the session by this */
	uint64_t capabilities; /* PEER_MSG_CAP_* announced */
	char software[PEER_MSG_SOFTWARE_MAX + 1];
	uint64_t instance_id; /* this process's; random, the same for every session */
	uint64_t seed; /* back-off jitter */
};

struct peer_session;

/* Events; every pointer may be NULL. */
struct peer_session_ops {
	void (*up)(void *arg, struct peer_session *s);
	void (*down)(void *arg, struct peer_session *s, enum peer_reason why);
	/* The learned prefix set changed (hello, update, or a new connection's hello). */
	void (*routes)(void *arg, struct peer_session *s);
	void (*hint)(void *arg, struct peer_session *s, const struct peer_msg_hint *h);
	void (*keepalive)(void *arg, struct peer_session *s, const struct peer_msg_keepalive *k);
};

struct peer_session_stats {
	uint64_t refused[PEER_REASON_MAX]; /* connections ended before the session was up */
	uint64_t lost[PEER_REASON_MAX]; /* up sessions ended */
	uint64_t connects; /* outbound connections started */
	uint64_t accepts; /* inbound connections taken */
	uint64_t ups; /* down -> up */
	uint64_t duplicates; /* connections closed by the tie-break */
	uint64_t peer_restarts; /* connections replaced by one from a new peer instance */
	uint64_t rx_msgs[PEER_MSG_CLOSE + 1]; /* by enum peer_msg_type */
	uint64_t tx_msgs[PEER_MSG_CLOSE + 1];
	uint64_t reverify_failed; /* sessions ended after a credential reload */
};

/*
 * Owner: the peering manager (peer_mgr.h), control thread. Read the fields
 * below for reports; change them only through the functions.
 */
struct peer_session {
	struct peer_session_conf conf;
	const struct peer_tls_ctx *tls;
	const struct peer_session_ops *ops;
	void *arg;
	FILE *log; /* one line per event; NULL = silent */

	struct peer_conn *conns[PEER_SESSION_CONNS];
	struct peer_conn *active; /* the connection the session runs on, or NULL */
	bool up;
	bool busy; /* a run stopped at its message budget: run again at once */
	uint64_t up_since_ns, down_since_ns;
	struct peer_backoff backoff;
	uint64_t next_connect_ns;

	/* What this gateway announces. */
	unsigned int n_local;
	uint32_t local_generation;
	struct conf_prefix local[LS_MAX_PREFIXES];

	/* What the peer announced (kept through a down, for route_hold_ns). */
	bool learned_valid; /* ever learned */
	unsigned int n_learned;
	uint32_t learned_generation;
	struct conf_prefix learned[LS_MAX_PREFIXES];

	/* The peer, from its last hello. */
	char peer_software[PEER_MSG_SOFTWARE_MAX + 1];
	uint64_t peer_capabilities;
	uint64_t hold_ns; /* negotiated */

	uint64_t measured_rtt_ns; /* ours, sent in keepalives; 0 = not measured */
	uint64_t peer_measured_rtt_ns; /* the peer's, from its keepalives */
	uint64_t session_rtt_ns; /* keepalive round trip; 0 = no sample yet */

	struct peer_session_stats stats;
	struct peer_log_limit log_limit; /* refusal lines */
};

/*
 * Set up S for CONF. TLS is the manager's context (read at every new
 * connection, so a reload takes effect for the next one). Returns 0 or
 * -EINVAL for a conf that cannot work (names, hold time, back-off).
 */
int peer_session_init(struct peer_session *s, const struct peer_session_conf *conf,
		      const struct peer_tls_ctx *tls, const struct peer_session_ops *ops, void *arg,
		      FILE *log, uint64_t now_ns);

/* Close every connection (close message "shutdown"), reporting down if up. */
void peer_session_fini(struct peer_session *s, uint64_t now_ns);

/*
 * Take an inbound connection the manager accepted from this peer's
 * address. Returns 0, or -EBUSY when every slot is taken (FD is closed
 * and the refusal is the caller's to count).
 */
int peer_session_adopt(struct peer_session *s, int fd, uint64_t now_ns);

/* Do everything due at NOW_NS: I/O on every connection, timers, reconnect. */
void peer_session_run(struct peer_session *s, uint64_t now_ns);

/* Earliest time peer_session_run() has something to do without an fd event. */
uint64_t peer_session_next_timer_ns(const struct peer_session *s, uint64_t now_ns);

/* Fill FDS (at most MAX) with the connections' fds and events; returns how many. */
unsigned int peer_session_pollfds(const struct peer_session *s, struct pollfd *fds,
				  unsigned int max);

/* Inbound connections not yet up. */
unsigned int peer_session_pending_inbound(const struct peer_session *s);

/*
 * Announce PREFIXES (N of them, valid per peer_msg.h) from now on: sent
 * as a route update with the next generation when up and the set changed,
 * in the next hello otherwise. Returns 0 or -EINVAL.
 */
int peer_session_set_prefixes(struct peer_session *s, const struct conf_prefix *prefixes,
			      unsigned int n);

/*
 * The learned prefixes, if still valid at NOW_NS (up, or down for less
 * than route_hold_ns): *prefixes, *n, *generation set and true returned.
 */
bool peer_session_learned(const struct peer_session *s, uint64_t now_ns,
			  const struct conf_prefix **prefixes, unsigned int *n, uint32_t *generation);

/* Send a congestion hint now. 0, -ENOTCONN when down, -EINVAL, or -ENOBUFS. */
int peer_session_send_hint(struct peer_session *s, const struct peer_msg_hint *h);

/* Send a keepalive now (the periodic ones continue). 0 or -ENOTCONN. */
int peer_session_send_keepalive(struct peer_session *s, uint64_t now_ns);

/* This gateway's measured WAN RTT, carried by the next keepalives. */
void peer_session_set_measured_rtt(struct peer_session *s, uint64_t rtt_ns);

/*
 * Verify the up connection's certificate against TLS again (after a
 * credential reload); a failure ends the session with the verification's
 * reason. Returns that reason or PEER_REASON_NONE.
 */
enum peer_reason peer_session_reverify(struct peer_session *s, uint64_t now_ns);

/*
 * The tie-break: true when the connection opened by LOCAL_SITE survives a
 * duplicate between LOCAL_SITE and PEER_SITE (LOCAL_SITE sorts first).
 */
bool peer_session_outbound_wins(const char *local_site, const char *peer_site);

#endif /* LONGSPAN_PEER_SESSION_H */
