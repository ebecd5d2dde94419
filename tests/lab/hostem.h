/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOSTEM_H
#define LONGSPAN_HOSTEM_H

/*
 * longspan-hostem's engine: RoCEv2 RC endpoints on one DPDK port (the site
 * router side of a gateway's DC port).
 *
 * Senders stream RDMA WRITEs, paced by a token bucket (TSC units) whose
 * rate follows the QP's DCQCN reaction point (congestion/dcqcn.h), which
 * reacts to CNPs and runs its own timers. Receivers check PSNs, ACK, NAK
 * gaps, and run the notification point on CE. With a ToR (tor_rate > 0)
 * every data packet first crosses one shared egress queue (serialization
 * at tor_rate, RED marking at enqueue, senders paused above tor_xoff as PFC
 * would); then intra-DC packets (remote in this site) go through an
 * internal delay line (dc_delay) to the local receivers, and inter-DC
 * packets leave through the port toward gateway_mac. ACKs and CNPs bypass
 * the ToR (a strict-priority class in a real switch). With a limited DC
 * side (dc_rate > 0) every data packet toward a local receiver, from the
 * port or the DC line, first crosses one more shared queue, the ToR's port
 * toward the hosts, serialized at dc_rate; its bytes per priority drive
 * congestion/pfc.h's transmit side, whose PAUSE and RESUME frames go to the
 * gateway (near-destination congestion).
 *
 *   senders --> [ToR: RED, tor_rate] --+--> port (inter-DC)
 *                                      +--> DC line (dc_delay) --+
 *   port --------------------------------------------------------+
 *        --> data -> [down: dc_rate, PFC to the gateway] -> receivers
 *   receivers -> ACK/NAK/CNP -> port or DC line
 *   port / DC line --> ACK/NAK/CNP -> senders (RP, window)
 *
 * Everything runs on one thread (the caller's): no locks, state written
 * by that thread only. Reports are written between polls (hostem_report.c).
 */

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "congestion/dcqcn.h"
#include "congestion/ecn_red.h"
#include "congestion/pfc.h"
#include "congestion/token_bucket.h"
#include "dataplane/idle.h"
#include "hostem_config.h"
#include "hostem_pkt.h"
#include "lab.h"
#include "wanem_line.h"

struct rte_mbuf;
struct rte_mempool;

#define HOSTEM_NEVER UINT64_MAX
#define HOSTEM_LAT_BUCKETS 20000 /* 1 us buckets: 0..20 ms, then overflow */

/* One CNP received by a sender or sent by a receiver (the CNP log). */
struct hostem_cnp_event {
	uint64_t tsc;
	uint64_t rate_before_bps; /* received: the sender's rate before and after */
	uint64_t rate_after_bps;
	uint16_t qp; /* index in the config */
	uint8_t sent; /* 1: sent by a receiver, 0: received by a sender */
	uint8_t tagged; /* received: carried HOSTEM_CNP_TAG (a hostem NP made it) */
};

/* One-way latency from the payload stamp, 1 us buckets. */
struct hostem_lat {
	uint64_t n, sum_ns, min_ns, max_ns;
	uint32_t *hist; /* HOSTEM_LAT_BUCKETS + 1 */
};

/*
 * Cumulative counters the CSV rows and stats lines take differences of
 * (each keeps its own snapshot, since their intervals differ).
 */
struct hostem_iv {
	uint64_t frame_bytes; /* sender: sent; receiver: received */
	uint64_t goodput_bytes; /* sender: acknowledged payload; receiver: delivered */
	uint64_t cnps; /* sender: received; receiver: sent */
	uint64_t ce;
};

struct hostem_sender {
	const struct hostem_qp_conf *qc;
	uint16_t index;
	struct hostem_hdr hdr; /* data: local -> remote, DestQP remote_qpn, ECT(0) */
	struct dcqcn_rp_config rpc;
	struct dcqcn_rp rp;
	uint64_t rp_next_ns;
	struct token_bucket_config tbc;
	struct token_bucket tb;
	uint64_t rate_bps; /* pacing rate = the RP's R_C */
	uint32_t pkts_per_msg;
	uint64_t n_msgs; /* 0 = unlimited */
	uint64_t last_msg_bytes;
	/* Stream position. */
	uint64_t msg;
	uint32_t pkt_in_msg;
	uint64_t sent_pkts, sent_payload, sent_frame_bytes;
	uint64_t acked_pkts;
	bool sending_done; /* every byte sent */
	bool done; /* ... and acknowledged */
	uint64_t done_ns;
	/* Counters. */
	uint64_t acks, naks, rnr_naks, acks_stale;
	uint64_t cnps, cnps_tagged;
	uint64_t first_cnp_ns, first_cut_ns; /* HOSTEM_NEVER until they happen */
	uint64_t n_cut_seen;
	uint64_t rate_min_bps;
	double rate_area; /* integral of rate_bps over ns */
	uint64_t rate_since_ns;
	uint64_t blocked_window, blocked_xoff, blocked_out, nombuf;
	uint64_t blocked_pfc; /* polls its priority was paused by the gateway */
	uint8_t prio; /* PFC priority: DSCP >> 3 */
	struct hostem_iv iv, snap_csv, snap_stats;
};

struct hostem_receiver {
	const struct hostem_qp_conf *qc;
	uint16_t index;
	struct hostem_hdr ack_hdr; /* local -> remote, DestQP remote_qpn, Not-ECT */
	struct hostem_hdr cnp_hdr; /* the same with cnp_dscp and the CNP tag */
	struct dcqcn_np_config npc;
	struct dcqcn_np np;
	uint32_t epsn, msn, unacked;
	uint64_t pkts, payload_bytes, frame_bytes, msgs;
	uint64_t ce, cnps_sent, cnps_suppressed, acks_sent, naks_sent;
	uint64_t gaps, missing, dups, ctrl_drops;
	uint64_t first_ns, last_ns; /* first and last data packet, HOSTEM_NEVER before */
	struct hostem_lat lat;
	struct hostem_iv iv, snap_csv, snap_stats;
};

/* Counters of packets that reached no QP. Names in hostem_report.c. */
struct hostem_rx_stats {
	uint64_t port_pkts, dc_pkts;
	uint64_t not_for_us, not_roce, malformed, multiseg, bad_icrc;
	uint64_t no_receiver, no_sender, unknown_opcode;
	uint64_t tx_pkts, tx_bytes, tx_ring_full, dc_line_full;
};

struct hostem_tor {
	bool on;
	struct wanem_line line; /* FIFO + serialization at tor_rate, no delay */
	struct wanem_line_slot *slots;
	struct ecn_red_config red_cfg;
	struct ecn_red red;
	uint64_t enq_pkts, enq_bytes, marks, marks_not_ect, drops;
	uint64_t max_backlog_bytes, xoff_polls;
	uint64_t tx_bytes; /* left the ToR */
	uint64_t snap_csv[2], snap_stats[2]; /* tx_bytes, marks at the last row */
};

/*
 * The site's DC side toward its hosts when it is the bottleneck (dc_rate):
 * a FIFO serialized at dc_rate (delay 0, queue_bytes = dc_buffer) holding
 * data toward local receivers, and the bytes it holds per priority, which
 * pfc_tx_decide() turns into PFC toward the gateway (struct hostem's pfc).
 */
struct hostem_down {
	bool on;
	struct wanem_line line;
	struct wanem_line_slot *slots;
	uint64_t prio_bytes[PFC_PRIORITIES]; /* queued now, per priority */
	uint64_t max_prio_bytes[PFC_PRIORITIES];
	uint64_t pfc_tx_failed; /* a pause or resume not sent (no mbuf, port full) */
	bool red_on; /* dc_kmax: RED marks arrivals, as the ToR's port would */
	struct ecn_red_config red_cfg;
	struct ecn_red red;
	uint64_t marks, marks_not_ect;
};

#define HOSTEM_TX_RING 1024u
#define HOSTEM_QP_TABLE 1024u

struct hostem {
	const struct hostem_conf *conf;
	struct lab_clock clk;
	/*
	 * How the loop waits: own_idle when hostem_run() drives it, or the
	 * waiting of a process that runs several engines on one thread
	 * (longspan-labtools); the JSON reports what this points to.
	 */
	struct idle *idle;
	struct idle own_idle;
	uint16_t port;
	struct rte_mempool *pool;
	struct hostem_sender *senders;
	uint16_t n_senders;
	struct hostem_receiver *receivers;
	uint16_t n_receivers;
	/* Lookup by (local address, local QPN): index + 1, 0 = empty. */
	uint16_t sender_table[HOSTEM_QP_TABLE];
	uint16_t receiver_table[HOSTEM_QP_TABLE];
	struct hostem_tor tor;
	struct wanem_line dc; /* intra-DC delay line */
	struct wanem_line_slot *dc_slots;
	struct rte_mbuf *tx[HOSTEM_TX_RING];
	uint32_t tx_head, tx_tail;
	struct hostem_rx_stats st;
	struct hostem_cnp_event *cnp_log;
	uint64_t cnp_log_n, cnp_log_dropped;
	uint64_t end_ns; /* HOSTEM_NEVER: until a signal */
	uint64_t linger_end_ns; /* until_done: the end after every sender finished */
	uint64_t stopped_ns;
	bool finished; /* the duration or linger ended (hostem_finish() ran) */
	uint64_t polls, busy_polls;
	uint64_t next_csv_ns, next_stats_ns, last_csv_ns, last_stats_ns;
	FILE *csv;
	uint32_t rr; /* round-robin start among senders */
	uint64_t grid_ticks; /* pacing_grid in TSC ticks, 0 = none */
	/*
	 * PFC from the gateway (IEEE 802.1Qbb, congestion/pfc.h's receive
	 * side): a paused priority's inter-DC senders stop and the uplink
	 * queue (tx[]) holds at a head of that priority, as the ToR's egress
	 * toward the gateway would; TSC ticks. A sender's priority is
	 * its DSCP's class selector (DSCP >> 3: 26 -> 3, 48 -> 6), the RoCE
	 * default map the gateway uses too.
	 */
	struct pfc_config pfc_cfg;
	struct pfc pfc; /* rx: the gateway pauses us; tx: the down queue pauses the gateway */
	struct hostem_down down;
	uint64_t pfc_frames, pfc_bad; /* PFC/PAUSE frames obeyed; other MAC control */
	uint64_t tx_pfc_held; /* flushes the uplink queue's paused head held up */
};

/* Sizes the pool needs for this config (ToR, DC line, ring, port). */
uint32_t hostem_mbufs_needed(const struct hostem_conf *c, uint32_t port_desc);
uint16_t hostem_mbuf_data_room(const struct hostem_conf *c);

/*
 * Build the endpoints for conf on PORT (started), allocating from pool.
 * Starts the clock (t = 0) now. Returns 0 or a negative errno.
 */
int hostem_init(struct hostem *h, const struct hostem_conf *conf, uint16_t port,
		struct rte_mempool *pool);

/* Poll until *stop, the duration, or (until_done) every sender finished. */
void hostem_run(struct hostem *h, const volatile sig_atomic_t *stop);

/*
 * The loop of hostem_run() in pieces, for a thread that runs several
 * engines (longspan-labtools): hostem_poll() does one pass at TSC now
 * (input, senders, ToR, output, reports) and returns the work done (0 once
 * finished: it calls hostem_finish() when the duration or linger ends);
 * hostem_due() is the next TSC time it must poll without input
 * (HOSTEM_NEVER: only a packet); hostem_finish() records the stop time.
 * The caller registers h->port's rx queue with its own idle waiting.
 */
unsigned int hostem_poll(struct hostem *h, uint64_t now_tsc);
uint64_t hostem_due(const struct hostem *h, uint64_t now_tsc);
void hostem_finish(struct hostem *h);

/* Free every mbuf hostem holds (ToR, DC line, tx ring); counters stay. */
void hostem_drain(struct hostem *h);

/* hostem_drain() and free what hostem_init() allocated. */
void hostem_fini(struct hostem *h);

/* Reports (hostem_report.c). */
int hostem_report_open(struct hostem *h);
void hostem_report_interval(struct hostem *h, uint64_t now_ns, bool csv, bool stats);
void hostem_report_final(struct hostem *h, FILE *out);
int hostem_report_json(const struct hostem *h, const char *path, unsigned int mbufs_in_use);
int hostem_report_cnp_log(const struct hostem *h, const char *path);
void hostem_report_close(struct hostem *h);

/* Acknowledged payload bytes after n acknowledged packets. */
uint64_t hostem_sender_acked_bytes(const struct hostem_sender *s, uint64_t n);

#endif /* LONGSPAN_HOSTEM_H */
