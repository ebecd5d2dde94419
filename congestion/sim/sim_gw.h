/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gateway nodes: a switch whose WAN egress runs the congestion/ markers,
 * mechanism A (near-source CNP with the QPN learner) and mechanism C (the
 * destination-side temporary reaction point), exactly the state machines
 * the dataplane links.
 */
#ifndef LONGSPAN_SIM_GW_H
#define LONGSPAN_SIM_GW_H

#include <stdbool.h>
#include <stdint.h>

#include "congestion/cc_math.h"
#include "congestion/cc_params.h"
#include "congestion/ecn_marker.h"
#include "congestion/gw_mech.h"
#include "congestion/proxy_cnp.h"
#include "congestion/qpn_learn.h"
#include "congestion/token_bucket.h"
#include "congestion/trp.h"

struct sim;

/* One WAN egress queue (the data priority of a WAN port). */
struct sim_gw_port {
	struct sim_gw *gw;
	bool own_marker;	  /* false: red-as-switch, the port's HPCC RED */
	bool at_dequeue;	  /* the marker judges departures (sojourn) */
	struct ecn_marker marker;
	uint64_t marks;
};

/* Arrival-rate meter of one QP's WAN -> DC data, for the TRP's cut. */
struct sim_gw_meter {
	uint64_t win_start_ns;
	uint64_t win_bytes;
	uint64_t rate_bps;	  /* last complete window, 0 = unknown */
};

/* Per-QP gateway state (a real gateway keeps it in its flow table). */
struct sim_gw_flow {
	struct proxy_cnp_qp a;	  /* mechanism A: gateway CNP rate limit */
	struct trp c;		  /* mechanism C: temporary reaction point */
	struct sim_gw_meter meter;
	uint32_t shape_head;	  /* packets held by the TRP (gateway DRAM) */
	uint32_t shape_tail;
	uint32_t shape_out;	  /* output port of the held packets */
	uint32_t shape_in;	  /* ingress (WAN) port they arrived on */
	uint64_t shape_bytes;
	uint64_t shape_event_ns;  /* pending SIM_EV_GW_SHAPE, or SIM_NEVER */
	uint64_t last_fwd_cnp_ns; /* last receiver CNP forwarded while shaping */
	struct token_bucket_config drain_cfg; /* backlog left when the TRP released */
	struct token_bucket drain;
	uint8_t draining;
	uint32_t cnp_pending;	  /* gateway CNPs waiting for their send time */
	uint64_t wan_ce_ns;	  /* last data arrival from the WAN already carrying CE */
	uint8_t wan_ce_seen;
	uint8_t qpn_cm;		  /* sender QPN known from RDMA-CM */
	uint8_t fwd_cnp_sent;
};

struct sim_gw {
	uint32_t index;
	uint32_t node;
	uint32_t site;
	struct cc_derived d;	  /* the derivation for this gateway's WAN link */
	struct gw_mech_a_config a_cfg; /* mechanism A policy (congestion/gw_mech.h) */
	struct gw_mech_c_config c_policy; /* mechanism C policy: upstream CE, forwarding */
	struct trp_config c_cfg;
	struct qpn_learn learn;
	void *learn_mem;
	struct sim_gw_flow *fs;	  /* [flow] */
	struct sim_gw_port *ports; /* WAN ports, [local port] (NULL entries for DC ports) */
	uint64_t dram_bytes;
	uint64_t dram_max_bytes;
	/* statistics */
	uint64_t cnp_sent;
	uint64_t cnp_suppressed;
	uint64_t cnp_no_qpn;
	uint64_t ce_cleared;
	uint64_t trp_cnps;
	uint64_t trp_skipped_upstream; /* receiver CNPs left to the sender (CE from upstream) */
	uint64_t trp_delayed_pkts;
	uint64_t fwd_cnp_dropped;
	uint64_t learn_results[QPN_LEARN_RESULT_MAX];
};

#endif /* LONGSPAN_SIM_GW_H */
