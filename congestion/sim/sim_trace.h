/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where packets wait, by flow class: optional analysis outputs of a run,
 * off by default (--waits, --trace-flows), that observe and never change
 * what is simulated.
 *
 * - ports.csv: per switch egress port, its data packets by class (intra-
 *   or inter-DC flow), their total and longest wait (enqueue to dequeue),
 *   the bytes queued ahead of them at enqueue split by the class of those
 *   bytes ("behind whose packets"), CE marks set there, the mean queue by
 *   class (sampled every [sim] stats_interval) and the time the port was
 *   paused.
 * - hops.csv: per flow and switch on its data path, the same for that flow
 *   alone, and the time its data spent held at the node before being
 *   queued (gateway DRAM, mechanism C); with when its sender sent its
 *   last new byte.
 * - queue_class.csv (with --ts-interval): every switch port's queue split
 *   by class, each sample.
 * - trace.csv (--trace-flows ID,...): every enqueue and dequeue of the
 *   listed flows' data packets.
 *
 * A data packet's arrival time at a node is kept in its t_ns until it is
 * queued (the simulator does not need it there), so the hold time and the
 * wait are exact.  Single-threaded, owned by the event loop.
 */
#ifndef LONGSPAN_SIM_TRACE_H
#define LONGSPAN_SIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"

#define SIM_TRACE_HOPS 8	/* switches on one flow's data path (THEMIS: 1, 3 or 6) */

enum sim_trace_class {
	SIM_TRACE_INTRA,
	SIM_TRACE_INTER,
	SIM_TRACE_CLASSES,
};

/* One flow's data packets at one switch of its path. */
struct sim_trace_hop {
	uint32_t node;
	uint32_t to;		/* the next node */
	uint64_t pkts;
	uint64_t held_ns;	/* arrival at the node to enqueue: gateway DRAM */
	uint64_t wait_ns;	/* enqueue to dequeue at the egress port */
	uint64_t wait_max_ns;
	uint64_t ahead_bytes[SIM_TRACE_CLASSES]; /* queued ahead at enqueue, summed */
	uint64_t marks;		/* CE set at this hop */
};

struct sim_trace_flow {
	struct sim_trace_hop hop[SIM_TRACE_HOPS];
	uint64_t tx_done_ns;	/* the sender sent its last new byte; SIM_NEVER before */
	uint8_t nhops;
	uint8_t traced;		/* in --trace-flows */
};

struct sim_trace_port {
	uint32_t qcls[SIM_NQ][SIM_TRACE_CLASSES]; /* bytes queued now */
	uint64_t pkts[SIM_TRACE_CLASSES];	   /* data packets dequeued */
	uint64_t wait_ns[SIM_TRACE_CLASSES];
	uint64_t wait_max_ns[SIM_TRACE_CLASSES];
	/* [class of the data packet][class of the bytes ahead of it], summed */
	uint64_t ahead[SIM_TRACE_CLASSES][SIM_TRACE_CLASSES];
	uint64_t marks[SIM_TRACE_CLASSES];
	uint64_t qsum[SIM_TRACE_CLASSES];	   /* bytes queued, summed over samples */
};

struct sim_trace {
	struct sim_trace_flow *flows;	/* [flow index] */
	struct sim_trace_port *ports;	/* [port] */
	uint32_t *sw_ports;		/* switch ports, in index order */
	uint32_t nsw_ports;
	uint64_t samples;
	FILE *trace;			/* trace.csv */
	FILE *qclass;			/* queue_class.csv */
	bool waits;			/* ports.csv, hops.csv */
	char dir[1024];
};

/*
 * Starts the outputs in dir: waits (ports.csv, hops.csv, queue_class.csv)
 * and/or the per-packet trace of the flows in the comma-separated flow.txt
 * ids of trace_flows (NULL: none).  Returns 0 or a negative errno, with
 * the reason on stderr.
 */
int sim_trace_open(struct sim *s, const char *dir, bool waits, const char *trace_flows);

void sim_trace_enqueue(struct sim *s, uint32_t port, uint32_t q, struct sim_pkt *pkt);
void sim_trace_dequeue(struct sim *s, uint32_t port, uint32_t q, const struct sim_pkt *pkt,
		       bool marked);
void sim_trace_tx_done(struct sim *s, const struct sim_flow *f);
/* Every stats_interval; row: a time-series row is due too. */
void sim_trace_sample(struct sim *s, bool row);
/* Writes ports.csv and hops.csv. */
int sim_trace_finish(struct sim *s);
void sim_trace_close(struct sim *s);

#endif /* LONGSPAN_SIM_TRACE_H */
