/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOOK_EXPORT_H
#define LONGSPAN_HOOK_EXPORT_H

/*
 * The hook exporter: the control thread's half of per-flow telemetry
 * (docs/telemetry.md). The workers' hooks only store into their per-lcore
 * flow maps; every interval hook_export_tick() reads all of them and
 *
 *   - takes each slot's change since the previous tick (a shadow copy per
 *     slot: a slot that changed hands starts from zero),
 *   - adds it to the flow's aggregate over all lcores (totals since the
 *     flow appeared, and what is pending for the next IPFIX record), and to
 *     the gateway, per-peer and per-port totals, which only ever grow,
 *   - ends the flows idle for idle_timeout (their last IPFIX record, their
 *     removal from the aggregate and the pinned map) and cuts an IPFIX
 *     record of every flow active for active_timeout since its last one,
 *   - writes the changed aggregates into the pinned HASH map in batches.
 *
 * Records for IPFIX go to a callback (hook_ipfix.c); Prometheus renders from
 * the read-only accessors below (hook_prom.c). Nothing here touches a
 * worker: slots are read while hooks write them, and a slot that changed
 * during the copy (its hash or first_ns differ before and after) is read
 * again at the next tick.
 *
 * Time: first_ns/last_ns are the workers' clock (struct dp_clock.ns, ns
 * since the epoch); now_ns passed to the tick must be the same clock.
 *
 * Ownership: one exporter per hook with flow records; created, ticked and
 * freed by the control thread only.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/hook_abi.h"
#include "hook_maps.h"

#define HOOK_EXPORT_SOURCES_MAX HOOK_MAPS_LCORES_MAX
#define HOOK_EXPORT_NAMES_MAX 64 /* peers or ports with names for labels */
#define HOOK_EXPORT_TOP_MAX 100 /* largest top-K */

/* Why an IPFIX record was cut (values of IANA flowEndReason, RFC 5102 5.11.3). */
enum hook_export_reason {
	HOOK_EXPORT_IDLE = 1, /* idle timeout: the flow ended */
	HOOK_EXPORT_ACTIVE = 2, /* active timeout: the flow goes on */
	HOOK_EXPORT_FORCED = 4, /* forced end: exporter shut down */
};

struct hook_export_params {
	uint64_t idle_timeout_ns; /* no packet for this long: the flow ends */
	uint64_t active_timeout_ns; /* a live flow's record at least this often */
	uint32_t max_flows; /* aggregate capacity: flows over all lcores */
	uint32_t top_k; /* flows in the Prometheus top list (<= HOOK_EXPORT_TOP_MAX) */
	unsigned int n_peers; /* names of peers 0..n_peers-1 (labels), may be 0 */
	const char *const *peer_names;
	unsigned int n_ports;
	const char *const *port_names;
};

/* One lcore's flow map (the values of its flows_lcoreN map). */
struct hook_export_source {
	const struct ls_hook_flow_rec *slots;
	uint32_t n_slots;
	unsigned int lcore;
};

/* One IPFIX flow record: what a flow did between start_ns and end_ns. */
struct hook_export_record {
	struct ls_hook_flow_key key;
	struct hook_flow_total delta; /* counters over the record's span */
	uint64_t start_ns, end_ns; /* first and last packet of the span */
	uint8_t reason; /* enum hook_export_reason */
	uint16_t port, peer;
	uint8_t dscp;
};

typedef void (*hook_export_record_fn)(void *arg, const struct hook_export_record *r);

/* The exporter's own counters (telemetry about telemetry). */
struct hook_export_stats {
	uint64_t ticks;
	uint64_t slots_changed; /* slot reads that found new packets */
	uint64_t slots_torn; /* slot reads that raced a claim, retried next tick */
	uint64_t flows_started, flows_ended; /* aggregate entries made and aged out */
	uint64_t aggregate_full; /* slot changes dropped: no aggregate entry free */
	uint64_t records; /* IPFIX records cut */
	uint64_t map_updates, map_deletes, map_errors; /* pinned HASH map */
	uint64_t last_tick_ns; /* time the last pass took, its steps summed, ns */
};

struct hook_export;

/*
 * An exporter over N sources (per-lcore flow maps), writing its aggregate
 * into maps->totals when maps is not NULL, handing IPFIX records to
 * record(arg, r) when record is not NULL.
 */
struct hook_export *hook_export_create(const struct hook_export_params *p,
				       const struct hook_export_source *src, unsigned int n,
				       struct hook_maps *maps, hook_export_record_fn record,
				       void *arg, char *err, size_t err_size);

/*
 * A pass over every slot at now_ns (the workers' clock), then timeouts and
 * the pinned map: the work of one interval.
 */
void hook_export_tick(struct hook_export *e, uint64_t now_ns);

/*
 * The same pass in pieces, so that the control thread never stalls for a
 * whole one (64k new flows cost hundreds of ms on a loaded VM): read up to
 * max_slots slots from where the last step stopped; when that completes the
 * pass, finish it (timeouts, map) and return true. The control loop calls
 * it every iteration with max_slots = slots * loop period / interval.
 */
bool hook_export_step(struct hook_export *e, uint64_t now_ns, uint32_t max_slots);

/* Cut a last record of every live flow (reason forced end); call before free. */
void hook_export_flush(struct hook_export *e, uint64_t now_ns);

void hook_export_free(struct hook_export *e);

/* Read-only views for the exposition formats (valid until the next tick). */
const struct hook_export_stats *hook_export_stats(const struct hook_export *e);
const struct hook_export_params *hook_export_params(const struct hook_export *e);
uint32_t hook_export_n_flows(const struct hook_export *e);
/* Totals over every flow ever seen: the gateway's, a peer's (peer < n_peers), a port's. */
const struct hook_flow_total *hook_export_gateway(const struct hook_export *e);
const struct hook_flow_total *hook_export_peer(const struct hook_export *e, unsigned int peer);
const struct hook_flow_total *hook_export_port(const struct hook_export *e, unsigned int port);

/* A live flow with its totals. */
struct hook_export_flow_view {
	const struct ls_hook_flow_key *key;
	const struct hook_flow_total *total;
};

/*
 * Live flows first..first+n-1 in the aggregate's order (stable between
 * passes: for pages that cover every flow once); returns how many.
 */
uint32_t hook_export_flows(const struct hook_export *e, uint32_t first, uint32_t n,
			   struct hook_export_flow_view *out);

/* The (up to) k live flows with the most bytes, most first; returns how many. */
unsigned int hook_export_top(const struct hook_export *e, unsigned int k,
			     struct hook_export_flow_view *out);

/*
 * The p-th percentile (0 < p < 100) of a sojourn histogram, as the upper
 * bound of the bucket it falls in, ns (the top bucket has no upper bound:
 * its lower one, 2^24 ns). 0 for an empty histogram.
 */
uint64_t hook_export_sojourn_pct_ns(const uint64_t hist[LS_HOOK_SOJOURN_BUCKETS], unsigned int p);

/* Upper bound of sojourn bucket k, ns (bucket 15: its lower bound). */
uint64_t hook_export_bucket_ns(unsigned int k);

#endif /* LONGSPAN_HOOK_EXPORT_H */
