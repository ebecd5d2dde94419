/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOOK_SET_H
#define LONGSPAN_HOOK_SET_H

/*
 * The running hooks of a gateway (docs/telemetry.md): for every [hook NAME]
 * its checked object, one JIT'd instance per worker bound to that worker's
 * pinned maps, its exporter; the per-worker struct dp_hooks tables the
 * snapshot points at; the IPFIX exporter. The Prometheus server is the
 * runtime's (prom_server.h): the set publishes its hook section.
 *
 * Life cycle, control thread only:
 *   hook_set_build()   at start and at each reload, before the snapshot is
 *                      published: every object checked, verified and JIT'd
 *                      for every worker; maps created (or taken over from
 *                      the running set when the hook, its declaration and
 *                      its pin directory are unchanged, so its counters and
 *                      exporter continue). Any refusal fails the whole build
 *                      and leaves the running set untouched.
 *   (publish the snapshot pointing at the new tables, RCU grace period)
 *   hook_set_retire()  the old set after the grace period: its programs
 *                      unloaded, the maps and exporters it did not hand
 *                      over flushed and destroyed.
 *   hook_set_step()    every control loop iteration: a share of an
 *                      exporter pass; after a pass, Prometheus, the
 *                      telemetry pages and IPFIX.
 *   hook_set_free()    at exit, after the workers stopped (pins removed).
 *
 * Readers on other threads (API handlers under rt->cfg_lock, DPDK's
 * telemetry thread) use hook_set_view(), a copy taken after the last pass.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "dataplane/hook.h"
#include "hook_export.h"
#include "hook_ipfix.h"

struct hook_set;
struct dp_worker;
struct prom_server;

/* What a build needs of the running gateway. */
struct hook_set_env {
	const char *gateway; /* [gateway] name */
	unsigned int n_workers;
	const struct dp_worker *const *workers; /* lcore ids, clock */
	uint64_t now_ns; /* the workers' clock */
	struct prom_server *prom; /* the gateway's Prometheus endpoint, or NULL */
};

/*
 * Build the hooks of cfg (NULL set when cfg has none: *out = NULL, 0).
 * OLD is the running set (or NULL), from which unchanged hooks take over
 * maps and exporters; it keeps running until hook_set_retire(). On failure
 * every error is on err, nothing of OLD changed.
 */
int hook_set_build(const struct ls_config *cfg, struct hook_set *old,
		   const struct hook_set_env *env, struct hook_set **out, FILE *err);

/* Worker w's table (NULL when no hooks). */
const struct dp_hooks *hook_set_worker(const struct hook_set *s, unsigned int w);

/* Undo a build that was not published (the old set keeps what it had). */
void hook_set_abandon(struct hook_set *s, struct hook_set *old);

/*
 * After the grace period that retired OLD's tables: free what CUR (the set
 * now running, or NULL) did not take over.
 */
void hook_set_retire(struct hook_set *old, const struct hook_set *cur, uint64_t now_ns);

/* One control loop iteration (call every ~10 ms) at the workers' clock. */
void hook_set_step(struct hook_set *s, uint64_t now_ns, uint64_t elapsed_ns);

/* At exit, workers stopped: flush, close, unpin. NULL is fine. */
void hook_set_free(struct hook_set *s, uint64_t now_ns);

/* ---- read-only views (any thread, under rt->cfg_lock) ---- */

struct hook_set_hook_stats {
	char name[LS_NAME_MAX];
	char object[LS_HOOK_PATH_MAX];
	char section[64];
	char pin_dir[HOOK_MAPS_PATH_MAX];
	unsigned int points; /* bits of enum ls_hook_point */
	uint32_t n_insns;
	uint64_t jit_bytes; /* of one instance */
	uint64_t calls, errors, cycles; /* over every worker */
	uint32_t flow_slots, counters; /* declared */
	bool exporter;
};

/* Per-hook counters summed over workers; returns how many hooks (<= max). */
unsigned int hook_set_stats(const struct hook_set *s, const struct dp_worker *const *workers,
			    unsigned int n_workers, struct hook_set_hook_stats *out,
			    unsigned int max);

/* One flow of the telemetry pages. */
struct hook_set_flow {
	struct ls_hook_flow_key key;
	struct hook_flow_total total;
};

/*
 * The flows of the exporter's last completed pass (the first hook with flow
 * records), copied into BUF: flows first..first+max-1 of *total, in a
 * stable order, so pages of one pass cover every flow once; with the pass
 * number, the exporter's and IPFIX's counters. Returns how many it copied.
 */
struct hook_set_export_view {
	uint64_t pass; /* completed passes; pages of one pass have one number */
	uint32_t total; /* flows in that pass */
	char hook[LS_NAME_MAX];
	struct hook_export_stats exp;
	struct hook_ipfix_stats ipfix;
	bool has_ipfix;
	uint64_t prom_requests;
	uint16_t prom_port; /* 0: no Prometheus */
};
unsigned int hook_set_flows(struct hook_set *s, uint32_t first, uint32_t max,
			    struct hook_set_flow *buf, struct hook_set_export_view *view);

#endif /* LONGSPAN_HOOK_SET_H */
