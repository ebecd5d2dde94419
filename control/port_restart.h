/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PORT_RESTART_H
#define LONGSPAN_PORT_RESTART_H

/*
 * Bringing back a port whose driver does not reconnect by itself
 * (docs/operations.md, "Link flaps"). A memif client connects only when
 * the port starts: when its server (the peer's switch, the lab's delay
 * line) goes away, its link stays down for good. The control thread then
 * restarts the port:
 *
 *   RUNNING   link down for PORT_RESTART_DEBOUNCE_NS: publish a snapshot
 *             with the port stopped (workers neither poll nor transmit on
 *             it: port_stopped drops, the WAN queue holds), wait for the
 *             grace period, rte_eth_dev_stop()             -> STOPPED
 *   STOPPED   at the retry time, rte_eth_dev_start() (the client
 *             connects): failed -> back-off, STOPPED;       ok -> STARTING
 *   STARTING  link up: publish the port running again     -> RUNNING;
 *             no link within PORT_RESTART_LINK_NS: stop, back-off -> STOPPED
 *
 * Retries back off exponentially with jitter (peer_backoff.h) from 50 ms
 * to 2 s. Ports whose drivers reconnect on their own (memif servers,
 * vhost, NICs: a carrier loss) are only watched, never restarted.
 *
 * Control thread only; the counters are read by show ports under cfg_lock.
 */

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "peer_backoff.h"

#define PORT_RESTART_DEBOUNCE_NS (200u * 1000 * 1000)
#define PORT_RESTART_LINK_NS (1000u * 1000 * 1000)
#define PORT_RESTART_PERIOD_NS (20u * 1000 * 1000) /* how often the control loop looks */

enum port_restart_state {
	PORT_RESTART_RUNNING,
	PORT_RESTART_STOPPED,
	PORT_RESTART_STARTING,
};

struct port_restart {
	bool restartable; /* the driver needs it (port_restart_needed()) */
	enum port_restart_state state;
	uint64_t down_since_ns; /* RUNNING: link seen down since; 0 = up */
	uint64_t next_ns; /* STOPPED: next start; STARTING: give up at */
	uint64_t stopped_at_ns;
	struct peer_backoff backoff;
	/* Counters. */
	uint64_t link_down; /* up -> down transitions seen (any port) */
	uint64_t restarts; /* the link came back after a restart */
	uint64_t start_failed; /* rte_eth_dev_start() refused, or no link in time */
	uint64_t last_down_ns; /* how long the last restart took, stop to link up */
	bool link_up; /* as last seen */
};

struct ls_runtime;

/* Does the port of this device string need restarting when its link drops? */
bool port_restart_needed(const char *dev);

/* At start, after the ports are up. */
void port_restart_init(struct ls_runtime *rt);

/* Every PORT_RESTART_PERIOD_NS of the control loop (now_ns: monotonic). */
void port_restart_tick(struct ls_runtime *rt, uint64_t now_ns);

/* The port is stopped (in any restart state but RUNNING): what snapshots say. */
bool port_restart_stopped(const struct port_restart *r);

static inline const char *
port_restart_state_name(enum port_restart_state s)
{
	return s == PORT_RESTART_RUNNING ? "running" :
	       s == PORT_RESTART_STOPPED ? "stopped" :
	       s == PORT_RESTART_STARTING ? "starting" : "?";
}

#endif /* LONGSPAN_PORT_RESTART_H */
