/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_RUNTIME_H
#define LONGSPAN_RUNTIME_H

/*
 * The running gateway as the control thread sees it.
 *
 * Ownership: created by main() after EAL init, written only by the control
 * thread (main lcore). Workers see only their struct dp_worker and the
 * published struct dp_conf. API handlers and telemetry callbacks run on the
 * control thread (API) or on DPDK's telemetry thread (read-only, counters and
 * the immutable cfg pointer, loaded with acquire).
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "learned_routes.h"
#include "dataplane/dp_conf.h"
#include "dataplane/worker.h"
#include "measure.h"
#include "port_restart.h"

struct rte_mempool;
struct peering;

struct hook_set;
struct prom_server;

/* Control-thread layer 2 counters (written by the control thread only). */
struct l2_stats {
	uint64_t arp_replies, nd_adverts, echo_replies;
	uint64_t requests; /* ARP requests and neighbour solicitations sent */
	uint64_t learned, aged;
	uint64_t invalid; /* malformed or unsupported ARP / ND / echo */
	uint64_t tx, tx_failed, alloc_failed, table_full;
};

struct ls_runtime {
	/*
	 * cfg_lock serialises the control thread's swap of cfg/dp (reload)
	 * against readers on other control-plane threads (DPDK's telemetry
	 * thread). Workers never take it.
	 */
	pthread_mutex_t cfg_lock;
	struct ls_config *cfg; /* current validated config (immutable) */
	struct dp_conf *dp; /* published snapshot; workers load it (acquire) */
	struct rte_rcu_qsbr *rcu;
	struct rte_mempool *pool;
	unsigned int n_workers;
	struct dp_worker *workers[DP_MAX_WORKERS];
	uint16_t port_ids[LS_MAX_PORTS]; /* ethdev id of cfg->ports[i] */
	struct neigh_table *neigh[LS_MAX_PORTS];
	uint64_t tsc_hz;
	uint64_t start_tsc;
	uint64_t reloads_ok, reloads_failed;
	struct l2_stats l2;
	struct peering *peering; /* NULL = no [peering] (control/peering.h) */
	const struct runtime_learned *learned; /* NULL = none */
	/*
	 * The running hooks (control/hook_set.h), swapped with dp under
	 * cfg_lock; hooks_next is what the next runtime_publish() installs.
	 */
	struct hook_set *hooks, *hooks_next;
	/*
	 * [gateway] pipeline = p4: the running SWX pipelines
	 * (control/p4_pipeline.h), swapped with dp like the hooks; p4_next is
	 * what the next runtime_publish() installs. NULL in the C mode.
	 */
	struct p4_set *p4, *p4_next;
	struct measure meas; /* path measurement; control thread, under cfg_lock (measure.h) */
	/* Ports whose links the control thread restarts (port_restart.h). */
	struct port_restart port_restart[LS_MAX_PORTS];
	/* [telemetry] prometheus: the endpoint, for the gateway's life (prom_server.h). */
	struct prom_server *prom;
	bool stop; /* set by signal handler (relaxed), read by control loop */
};

/*
 * Start the Prometheus endpoint of rt->cfg (none when [telemetry]
 * prometheus is unset), before the hooks are prepared; an error on err
 * when it cannot listen.
 */
int runtime_prom_start(struct ls_runtime *rt, FILE *err);

/*
 * Once per [gateway] measure_interval (now_ns: monotonic): aggregate the
 * path measurement and, when an rtt = auto peer's RTT moved, rebuild and
 * publish the snapshot with the parameters derived from it.
 */
void runtime_measure_tick(struct ls_runtime *rt, uint64_t now_ns);

/* CLOCK_REALTIME in ns (control plane time base; workers use the TSC). */
uint64_t runtime_now_ns(void);

/*
 * Build a dataplane snapshot for cfg: port addresses and MACs, peers with
 * their outer addresses and next hops, LPM tables (rt->learned's routes
 * first, then the config's, so a configured prefix always wins). Does not
 * publish.
 */
int runtime_dp_build(struct ls_runtime *rt, const struct ls_config *cfg, struct dp_conf **out,
		     FILE *err);
void runtime_dp_free(struct dp_conf *c);

/*
 * Check and load the hooks of cfg for every worker and point dp->hooks[]
 * at their tables; runtime_publish() then installs them with dp. On
 * failure (every error on err) the running hooks are untouched.
 */
/*
 * pipeline = p4: build the SWX pipelines of cfg for every worker, fill
 * their tables from cfg and dp and point dp->p4[] at them, to be installed
 * by the next runtime_publish(). Nothing to do in the C mode. On failure
 * (every error on err) the running pipelines are untouched.
 */
int runtime_p4_prepare(struct ls_runtime *rt, const struct ls_config *cfg, struct dp_conf *dp,
		       FILE *err);
/* Drop what runtime_p4_prepare() built when the snapshot is not published. */
void runtime_p4_discard(struct ls_runtime *rt);

int runtime_hooks_prepare(struct ls_runtime *rt, const struct ls_config *cfg, struct dp_conf *dp,
			  FILE *err);

/* The workers' clock (struct dp_clock.ns) now, for the hook exporter. */
uint64_t runtime_workers_ns(const struct ls_runtime *rt);

/*
 * Make cfg/dp the running config: install static neighbours, swap the
 * pointers, wait for an RCU grace period, free the previous ones. Takes
 * ownership of cfg (malloc'ed) and dp.
 */
void runtime_publish(struct ls_runtime *rt, struct ls_config *cfg, struct dp_conf *dp);

/*
 * Publish DP, built from the running config (learned routes or a measured
 * RTT changed): give it the running snapshot's hooks, swap (with the P4
 * pipelines runtime_p4_prepare() left in rt->p4_next, if any), wait for a
 * grace period, free the previous snapshot (and pipelines).
 */
void runtime_publish_dp(struct ls_runtime *rt, struct dp_conf *dp);

/*
 * Build and publish a snapshot of the running config cfg with rt->learned's
 * routes; with pipeline = p4 also new pipelines whose route tables hold
 * them (their flow learners start empty, as after a reload). On failure
 * (errors on err) the running snapshot and pipelines stay. 0 or a negative
 * errno.
 */
int runtime_republish(struct ls_runtime *rt, const struct ls_config *cfg, FILE *err);

/*
 * Per-worker flow table, QPN learners, mechanism C hold queues and WAN
 * traffic manager queues, sized from cfg. Free returns queued mbufs.
 */
int runtime_worker_state_alloc(const struct ls_config *cfg, struct dp_worker *w, FILE *err);
void runtime_worker_state_free(struct dp_worker *w);

/* Send ARP / ND for every peer next hop and port gateway. */
void runtime_resolve_nexthops(struct ls_runtime *rt);

/* Handle every packet the workers punted; returns how many. */
unsigned int runtime_drain_punts(struct ls_runtime *rt);

/* Sum of every worker's counters (control thread or telemetry thread). */
void runtime_counters_sum(const struct ls_runtime *rt, struct dp_counters *out);

/*
 * Load, validate and publish a new config from PATH (NULL = the current
 * file). On any failure the running config is untouched, every error is
 * written to err and a negative errno is returned. Changes that need a
 * restart (ports, devices, EAL, workers, mempool) are rejected with a
 * message naming the key.
 */
int runtime_reload(struct ls_runtime *rt, const char *path, FILE *err);

#endif /* LONGSPAN_RUNTIME_H */
