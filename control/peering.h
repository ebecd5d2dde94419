/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PEERING_H
#define LONGSPAN_PEERING_H

/*
 * longspand's peering: the peer manager (peer_mgr.h) built from the
 * config's [peering] section and the peers' peering keys, driven by the
 * control loop, and the routes its sessions learn turned into dataplane
 * snapshots (docs/peering.md).
 *
 * A learned prefix is accepted unless it equals or overlaps a prefix
 * configured for another peer, one this gateway announces (its own site),
 * or one already accepted from another peer: config always wins, and each
 * refusal is logged and counted per peer. One equal to a prefix configured
 * for the same peer adds nothing. The accepted set is published through the
 * usual RCU snapshot when it changes; while a session is down its routes
 * stay for [peering] route_hold, then expire (counted) and a snapshot
 * without them is published. Workers never see a session: they forward on
 * the last snapshot.
 *
 * Threads: the control thread runs everything but peering_show*(), which
 * API handlers run on the control thread or DPDK's telemetry thread under
 * rt->cfg_lock; the control thread changes sessions, the accepted routes
 * and rt->peering under that lock too (peering_poll() holds it for its
 * non-blocking turn).
 */

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "peering_files.h"
#include "peer_mgr.h"
#include "runtime.h"

struct fmt;

/* What longspand keeps about one session besides the session itself. */
struct peering_peer {
	char name[LS_NAME_MAX];
	uint64_t routes_refused; /* learned prefixes refused for a conflict, counted per announcement */
	unsigned int n_refused; /* refused in the current learned set */
	uint64_t routes_expired; /* learned sets dropped after route_hold */
	bool had_routes; /* the last recompute found a valid learned set */
	uint32_t last_generation; /* of the learned set last reported */
	uint64_t hints; /* congestion hints received */
	unsigned int hint_qps; /* queue pairs in the last hint */
	uint64_t hints_sent; /* congestion hints sent (peering_hints.h) */
	unsigned int hint_qps_sent; /* queue pairs in the last one sent */
	uint64_t hint_qps_left_out; /* shaped QPs beyond one hint's room, summed */
	enum peer_reason last_down;
};

/* Owner: the control thread; rt->peering points here while peering runs. */
struct peering {
	struct ls_runtime *rt;
	struct peer_mgr mgr;
	struct ls_peering_conf conf; /* what mgr was started from */
	struct peering_peer peers[LS_MAX_PEERS]; /* by session name */
	unsigned int n_peers;
	bool routes_dirty; /* a session's learned set changed: recompute and report */
	struct runtime_learned learned; /* accepted, what the snapshot holds */
	uint64_t republishes, republish_failed;
	struct peer_msg_hint hint; /* the one being sent (peering_send_hints()) */
};

/* The longspand state of session NAME, or NULL. */
struct peering_peer *peering_peer_of(struct peering *pg, const char *name);

/* "10.2.0.0/16" */
void peering_prefix_text(const struct conf_prefix *p, char *buf, size_t size);

/* Start peering for rt->cfg (nothing when it has no [peering]). 0 or negative errno. */
int peering_start(struct ls_runtime *rt, FILE *err);

/* Close every session (peers see "shutdown"); rt->peering is NULL after. */
void peering_stop(struct ls_runtime *rt);

/* One non-blocking turn: I/O, timers, and a republish when learned routes changed. */
void peering_poll(struct ls_runtime *rt, uint64_t now_ns);

/* Once a second: expire learned routes whose hold ran out. */
void peering_tick(struct ls_runtime *rt, uint64_t now_ns);

/*
 * After a reload published a new config: start or stop peering, restart it
 * when [peering] itself changed, else re-read the credentials (unchanged
 * files: nothing), add and remove peers and check the learned routes
 * against the new config. Problems are written to err; the new config stays.
 */
void peering_reload(struct ls_runtime *rt, FILE *err);

/* `show peers`: the session members of peer NAME. */
void peering_show_peer(struct fmt *f, const struct ls_runtime *rt, const char *name);

/* `show peers`: the manager's own counters (refusals no session took). */
void peering_show(struct fmt *f, const struct ls_runtime *rt);

/* The monotonic clock the sessions run on, ns. */
uint64_t peering_now_ns(void);

#endif /* LONGSPAN_PEERING_H */
