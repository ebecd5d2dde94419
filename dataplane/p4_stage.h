/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_P4_STAGE_H
#define LONGSPAN_P4_STAGE_H

/*
 * [gateway] pipeline = p4, the worker's side: the burst a worker received
 * on a port runs through its SWX pipeline (dataplane/p4/longspan.spec,
 * built by control/p4_pipeline.c), then through the same C stages as the
 * C path after its ingress match-action (docs/p4.md, "p4 mode"):
 *
 *   rx burst -> input ring of the port -> rte_swx_pipeline_run() until the
 *   burst is back on the output ring -> per packet, the ls_meta shim:
 *     forward, DC port   strip the shim and the outer headers the program
 *                        wrote; next hop, flow table, mechanisms A and C,
 *                        hooks, traffic manager and the encapsulation at
 *                        dequeue (dp_dc_nexthop_key(), dp_dc_egress())
 *     forward, WAN port  strip the shim and the DC Ethernet header; MTU,
 *                        next hop, flow table, mechanism C, hooks, rewrite,
 *                        hold and PFC queues (dp_wan_inner())
 *     drop               counted under the program's drop reason
 *     punt               the C path's parser (ARP, ND: the control thread)
 *
 * Ownership: struct dp_p4 is built by the control thread, published in the
 * snapshot (dp_conf.p4[worker]) and run by that one worker only; rings are
 * single producer, single consumer, both ends on the worker.
 */

#include <stdint.h>

#include "dp_conf.h"

struct rte_mbuf;
struct rte_ring;
struct rte_swx_pipeline;
struct dp_worker;
struct dp_clock;
struct dp_tx;

/* Input ports of the pipeline: the gateway's ports, rounded up to a power of 2 (22.11). */
#define DP_P4_PORTS_IN 8
static_assert(DP_P4_PORTS_IN >= LS_MAX_PORTS, "one pipeline input port per gateway port");

/* ls_meta_t of longspan.spec, in front of every packet the pipeline returns. */
#define DP_P4_SHIM_SIZE 12
#define DP_P4_VERDICT_FORWARD 0
#define DP_P4_VERDICT_DROP 1
#define DP_P4_VERDICT_PUNT 2

/*
 * Instructions per rte_swx_pipeline_run() call, and calls per burst at
 * most. Short calls: a long one polls the empty input ring after the
 * burst (tests/perf/p4_cycles measured 4096 per call 2x slower than 32).
 */
#define DP_P4_RUN_INSTR 32
#define DP_P4_RUN_MAX 16384

struct dp_p4 {
	struct rte_swx_pipeline *pl;
	struct rte_ring *in[DP_P4_PORTS_IN]; /* port i's packets into the pipeline */
	struct rte_ring *out; /* everything the pipeline returns */
};

/* One received burst of port through the worker's SWX pipeline and the C stages after it. */
void dp_p4_burst(struct dp_worker *w, const struct dp_conf *c, struct dp_p4 *p4, uint16_t port,
		 struct rte_mbuf **pkts, uint16_t n, const struct dp_clock *clk, struct dp_tx *tx);

#endif /* LONGSPAN_P4_STAGE_H */
