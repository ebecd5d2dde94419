/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PEER_MGR_H
#define LONGSPAN_PEER_MGR_H

/*
 * The gateway's peering: the TLS credentials, the listening socket, and
 * one session (peer_session.h) per configured peer. This is what the
 * control loop drives (docs/peering.md, "Integration").
 *
 * An inbound connection belongs to the session whose peer's address is
 * the connection's source address (the same rule that admits a GENEVE
 * packet: its outer source must be a configured peer's); any other source
 * is closed at once and counted as unknown_address. At most max_pending
 * inbound connections are in their handshake at a time, across all peers,
 * so a flood of half-open clients costs a bounded number of fds and never
 * delays an up session: each poll gives every connection one bounded,
 * non-blocking turn.
 *
 * Driving it: either
 *   n = peer_mgr_pollfds(m, fds, max); poll(fds, n, timeout);
 *   peer_mgr_run(m, fds, n, now_ns);
 * with timeout from peer_mgr_next_timer_ns(), when the caller owns a poll
 * loop, or peer_mgr_service(m, now_ns) (a zero-timeout poll inside) from a
 * loop that polls other things on its own schedule.
 *
 * Threads: the control thread only.
 */

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "config.h"
#include "peer_session.h"
#include "peer_tls.h"

#define PEER_MGR_ACCEPTS_PER_RUN 8
/* Every fd the manager may ask to poll: the listener and each session's connections. */
#define PEER_MGR_MAX_FDS (1 + LS_MAX_PEERS * PEER_SESSION_CONNS)

struct peer_mgr_conf {
	char local_site[LS_NAME_MAX];
	struct sockaddr_storage listen; /* listen_len 0 = accept nothing */
	socklen_t listen_len;
	struct peer_tls_files files;
	uint64_t handshake_timeout_ns;
	uint32_t hold_time_ms;
	struct peer_backoff_params backoff;
	uint64_t route_hold_ns;
	unsigned int max_pending; /* inbound handshakes at a time, all peers; >= 1 */
	char software[PEER_MSG_SOFTWARE_MAX + 1];
	uint64_t capabilities;
	uint64_t instance_id; /* 0 = draw one from getrandom() */
};

/* One peer as the manager needs it; the rest comes from the manager's conf. */
struct peer_mgr_peer {
	char site[LS_NAME_MAX];
	struct sockaddr_storage remote; /* address and peering port */
	socklen_t remote_len;
	struct sockaddr_storage local; /* local_len 0 = any */
	socklen_t local_len;
	bool connect;
};

struct peer_mgr {
	struct peer_mgr_conf conf;
	struct peer_tls_ctx tls;
	int listen_fd;
	unsigned int n_sessions;
	struct peer_session *sessions[LS_MAX_PEERS];
	const struct peer_session_ops *ops;
	void *arg;
	FILE *log;
	/* Inbound connections refused before a session took them. */
	uint64_t refused[PEER_REASON_MAX];
	uint64_t tls_reloads;
	struct peer_log_limit log_limit;
};

/*
 * Load the credentials and listen. Returns 0, or a negative errno with a
 * message in err; nothing is left open on failure.
 */
int peer_mgr_init(struct peer_mgr *m, const struct peer_mgr_conf *conf,
		  const struct peer_session_ops *ops, void *arg, FILE *log, char *err,
		  size_t err_size);

/* Close every session (close message "shutdown") and the listener. */
void peer_mgr_fini(struct peer_mgr *m, uint64_t now_ns);

/* Add a session for P. Returns 0, -EEXIST, -ENOSPC, or -EINVAL (message in err). */
int peer_mgr_add(struct peer_mgr *m, const struct peer_mgr_peer *p, uint64_t now_ns, char *err,
		 size_t err_size);

/* End and remove the session with SITE. 0 or -ENOENT. */
int peer_mgr_remove(struct peer_mgr *m, const char *site, uint64_t now_ns);

struct peer_session *peer_mgr_find(struct peer_mgr *m, const char *site);

/* The port the listener is bound to (host order), 0 when not listening. */
uint16_t peer_mgr_listen_port(const struct peer_mgr *m);

unsigned int peer_mgr_pollfds(const struct peer_mgr *m, struct pollfd *fds, unsigned int max);

/* Accept, then run every session that has an fd event in FDS or a timer due. */
void peer_mgr_run(struct peer_mgr *m, const struct pollfd *fds, unsigned int n, uint64_t now_ns);

/* peer_mgr_pollfds(), a poll() that does not wait, peer_mgr_run(). */
void peer_mgr_service(struct peer_mgr *m, uint64_t now_ns);

/* Earliest timer of any session (CC_TIME_NEVER when none). */
uint64_t peer_mgr_next_timer_ns(const struct peer_mgr *m, uint64_t now_ns);

/*
 * Re-read the credential files (peer_tls_ctx_reload()). Unchanged files:
 * 0, nothing touched. Changed: 1, new connections use them and every up
 * session is verified again, ending those that no longer pass. Negative
 * errno with a message in err: the old credentials stay in use.
 */
int peer_mgr_reload_tls(struct peer_mgr *m, uint64_t now_ns, char *err, size_t err_size);

/* Refusals under R: the manager's own plus every session's. */
uint64_t peer_mgr_refused(const struct peer_mgr *m, enum peer_reason r);

#endif /* LONGSPAN_PEER_MGR_H */
