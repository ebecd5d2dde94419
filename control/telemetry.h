/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_TELEMETRY_H
#define LONGSPAN_TELEMETRY_H

/*
 * rte_telemetry commands under /longspan/, read with dpdk-telemetry.py:
 * every API command that names a telemetry path (control/api.h), e.g.
 * /longspan/stats, /longspan/drops, /longspan/ports, /longspan/peers,
 * /longspan/flows (per-QP flows, largest first), /longspan/tm (WAN queues
 * and mechanisms) and /longspan/config (a summary). Each reply is a dict;
 * paged commands take "PAGE[,LIMIT]" (pages count from 1), e.g.
 * "/longspan/peers,2" or "/longspan/flows,1,20".
 *
 * Replies stay under DPDK 22.11's 16 KB: page sizes are capped per command,
 * and a reply that would still grow past TELEMETRY_REPLY_BUDGET is cut
 * short with "truncated": 1 rather than silently losing whole sections.
 * Dict keys may only hold [A-Za-z0-9_/]: other characters of port and peer
 * names become '_' and the real name is added as "name".
 *
 * Threads: callbacks run on DPDK's telemetry thread; they take rt->cfg_lock
 * for commands that read rt->cfg/rt->dp and read counters without locks.
 */

#include <stdint.h>

struct ls_runtime;
struct rte_tel_data;
struct fmt;

#define TELEMETRY_REPLY_BUDGET 15000 /* bytes of JSON; DPDK's limit is 16384 */

/*
 * Register the /longspan/ commands (once per process; a second call only
 * switches the runtime). Call after EAL init and after any api_register().
 * Returns 0 or a negative errno.
 */
int telemetry_register(struct ls_runtime *rt);

/*
 * Detach the runtime before freeing it: waits for a callback in flight,
 * later calls reply {"error": "gateway is shutting down"}.
 */
void telemetry_unregister(void);

/*
 * Run the command exported as PATH with PARAMS (may be NULL) into D, as
 * the telemetry thread does. Exposed for tests.
 */
int telemetry_handle(const char *path, const char *params, struct rte_tel_data *d);

#endif /* LONGSPAN_TELEMETRY_H */
