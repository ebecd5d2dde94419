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
#include "congestion/credit.h"
#include "congestion/ecn_marker.h"
#include "congestion/gw_mech.h"
#include "congestion/pfc.h"
#include "congestion/proxy_cnp.h"
#include "congestion/qpn_learn.h"
#include "congestion/rate_meter.h"
#include "congestion/token_bucket.h"
#include "congestion/trp.h"

struct sim;

#define SIM_GW_PRIOS 8 /* = SIM_NQ: mechanism B keeps state per priority */

/*
 * Sender reports of the data in flight on one WAN link, in order: each data
 * packet carries its sender's cumulative count (credit.h); the simulator's
 * packets have no room for it, and the link delivers in order without loss,
 * so the value waits here from transmission to arrival.
 */
struct sim_gw_reports {
	uint64_t *v;
	uint32_t head;	  /* next to pop */
	uint32_t n;
	uint32_t cap;	  /* a power of two */
};

/* Mechanism B on one gateway-to-gateway link, as seen from this end. */
struct sim_gw_b_link {
	struct credit_tx tx[SIM_GW_PRIOS]; /* data leaving on this port */
	struct credit_rx rx[SIM_GW_PRIOS]; /* data arriving on it (this gateway's buffer) */
	uint64_t grant_timer_ns[SIM_GW_PRIOS]; /* pending SIM_EV_GW_CREDIT, or SIM_NEVER */
	uint64_t held_since_ns[SIM_GW_PRIOS];
	uint64_t occupancy_max_bytes[SIM_GW_PRIOS];
	struct sim_gw_reports reports; /* of the data sent on this port */
	/* statistics */
	uint64_t held_ns;	  /* a queue head waited for credit, summed */
	uint64_t holds;		  /* times a queue head had to wait for credit */
	uint64_t overdraft;	  /* data sent beyond credit (0 unless the gating is wrong) */
	uint64_t grants_sent;
	uint64_t reports_sent;	  /* in control packets (data packets carry theirs) */
};

/* One WAN egress queue (the data priority of a WAN port). */
struct sim_gw_port {
	struct sim_gw *gw;
	bool own_marker;	  /* false: red-as-switch, the port's HPCC RED */
	bool at_dequeue;	  /* the marker judges departures (sojourn) */
	struct ecn_marker marker;
	uint64_t marks;
	struct sim_gw_b_link *b;  /* mechanism B on this link, or NULL */
};

/* Per-QP gateway state (a real gateway keeps it in its flow table). */
struct sim_gw_flow {
	struct proxy_cnp_qp a;	  /* mechanism A: gateway CNP rate limit */
	struct trp c;		  /* mechanism C: temporary reaction point */
	struct rate_meter meter;   /* its WAN -> DC data, for the TRP's cut */
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
	/* Mechanism B (sim_gw_b.c): NULL configs' flags false when off. */
	bool b_on;		  /* PFC toward the DC at the WAN queue's XOFF */
	bool b_credit;		  /* and credits on the WAN hop */
	uint8_t b_prio_mask;	  /* lossless (data) priorities: 1..7 */
	struct pfc_config pfc_cfg;
	struct credit_config credit_cfg;
	struct pfc pfc;		  /* what this gateway asked of its DC fabric */
	uint64_t pfc_timer_ns;	  /* pending SIM_EV_GW_PFC, or SIM_NEVER */
	uint64_t pfc_frames_sent; /* PAUSE frames on the DC ports, refreshes included */
	uint64_t pfc_resume_frames_sent;
	uint64_t wan_queue_max_bytes; /* of the lossless priorities, summed over WAN ports */
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
