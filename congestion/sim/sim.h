/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspan-sim: a deterministic packet-level simulator of two RoCEv2 data
 * centres joined by Longspan gateways.
 *
 * The model follows the HPCC ns-3 simulator family (HPCC, ConWeave, THEMIS)
 * closely enough that its published scenarios run unmodified and the
 * baseline can be set beside ns-3's numbers: output-queued switches with a
 * shared buffer, per-port per-priority queues, RED marking on dequeue, PFC
 * with dynamic thresholds and headroom; hosts with one NIC, per-QP rate
 * limiting, an ACK per packet and DCQCN.  Gateway nodes additionally run the
 * congestion/ code on their WAN egress.
 *
 * Single-threaded: every structure here is owned by the one simulation loop.
 * Time is an integer number of nanoseconds since the start of the run.
 */
#ifndef LONGSPAN_SIM_H
#define LONGSPAN_SIM_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "congestion/dcqcn.h"
#include "congestion/ecn_red.h"

#include "sim_config.h"

#define SIM_NQ 8		 /* priorities per port, as HPCC's qCnt */
#define SIM_NONE UINT32_MAX	 /* "no index" for packet and queue links */
#define SIM_NEVER UINT64_MAX	 /* "no time" for timers */
#define SIM_HDR_BYTES 48	 /* PPP 14 + IPv4 20 + UDP 8 + SeqTs 6, HPCC's data header */
#define SIM_CTRL_BYTES 60	 /* ACK, NACK and CNP: padded to a 60-byte frame */
#define SIM_PFC_BYTES 43	 /* PPP 14 + IPv4 20 + pause header 9 */

enum sim_pkt_type {
	SIM_PKT_DATA,
	SIM_PKT_ACK,
	SIM_PKT_NACK,
	SIM_PKT_CNP,
	SIM_PKT_PFC,
	SIM_PKT_CREDIT, /* mechanism B between gateways: a grant or a sender report */
};

/* ECN codepoints (RFC 3168). */
enum sim_ecn {
	SIM_ECN_NOT_ECT = 0,
	SIM_ECN_ECT1 = 1,
	SIM_ECN_ECT0 = 2,
	SIM_ECN_CE = 3,
};

#define SIM_PKTF_CNP 0x01	  /* ACK carries a congestion notification */
#define SIM_PKTF_PAUSE 0x02	  /* PFC: pause (else resume) */
#define SIM_PKTF_GW 0x04	  /* CNP made by a gateway (mechanism A) */
#define SIM_PKTF_SHAPED 0x08	  /* DATA already passed a gateway shaper */
#define SIM_PKTF_GWDONE 0x10	  /* a gateway handled its signal at enqueue */
#define SIM_PKTF_LOSSY 0x20	  /* queued at a lossy WAN egress, outside the MMU */
#define SIM_PKTF_CREDIT 0x40	  /* DATA sent within WAN credit: on the WAN, then in the
				   * receiving gateway's credit buffer (outside the MMU) */
#define SIM_PKTF_GRANT 0x02	  /* CREDIT: a grant (else a sender report) */
#define SIM_PKTF_WAIT 0x04	  /* CREDIT: a sender report with the wait flag */

/*
 * A packet.  32 bytes, two to a cache line, allocated from a free list,
 * linked through `next` into exactly one of: the free list, a port queue, a
 * link's in-flight list, a host's ACK queue or a gateway shaper queue.
 */
struct sim_pkt {
	uint64_t t_ns;	  /* queued: enqueue time; in flight: arrival time of the
			   * packet behind it on the link (sim_net_send()) */
	uint32_t next;
	uint32_t flow;	  /* flow (QP) index; SIM_NONE for PFC */
	uint32_t seq;	  /* DATA: payload offset; ACK/NACK: next expected byte */
	uint32_t dst;	  /* destination node */
	uint16_t in_local; /* switch ingress port, as an index within the switch */
	uint16_t size;	  /* bytes on the wire */
	uint8_t type;	  /* enum sim_pkt_type */
	uint8_t ecn;	  /* enum sim_ecn */
	uint8_t prio;	  /* priority group (PFC class) */
	uint8_t flags;	  /* SIM_PKTF_* */
};

static_assert(sizeof(struct sim_pkt) == 32, "two packets per cache line");

/* A switch's ports are indexed within it by a uint16_t (sim_pkt.in_local). */
#define SIM_MAX_NODE_PORTS 65535u

enum sim_node_kind {
	SIM_NODE_HOST,
	SIM_NODE_SWITCH,
};

/* Where a switch sits, for per-role statistics. */
enum sim_role {
	SIM_ROLE_HOST,
	SIM_ROLE_TOR,	  /* a switch with hosts attached */
	SIM_ROLE_CORE,	  /* any other plain switch (aggregation, spine) */
	SIM_ROLE_GATEWAY, /* a Longspan gateway node */
	SIM_ROLE_COUNT,
};

struct sim_gw;
struct sim_gw_port;

/* Queue-depth histogram in 1 KB buckets, like ns-3's QlenDistribution. */
struct sim_hist {
	uint64_t *cnt;
	uint32_t n;
};

/*
 * One end of a point-to-point link: a transmitter and its queues.  Laid out
 * by use, one 64-byte line each: what every packet sent or received on the
 * port touches, then the queue lists, then queue bytes with the RED
 * thresholds (read per dequeue), then statistics.  The simulation's working
 * set is mostly ports, flows and packets, so a hop costs a few lines of
 * each instead of a scattering of them.
 */
struct sim_port {
	/* Line 0: transmit and arrival. */
	uint64_t busy_until_ns;
	uint64_t delay_ns;     /* propagation delay to the peer */
	uint64_t tx_bytes;
	uint32_t ps_per_byte;  /* serialisation time */
	uint32_t qbytes_total;
	uint32_t fly_head;     /* packets on the wire, in arrival order */
	uint32_t fly_tail;
	uint32_t peer;	       /* port at the other end of the link */
	uint32_t peer_node;    /* node at the other end of the link */
	uint32_t qmax_bytes;
	uint32_t node;
	uint16_t carry_ps;     /* sub-ns remainder (< 1000) so long-run rates are exact */
	uint8_t tx_pending;    /* a SIM_EV_PORT_TX event is scheduled */
	uint8_t rr_last;       /* round robin among priorities 1..7 */
	uint8_t wan;	       /* gateway port facing the WAN */
	uint8_t qmask;	       /* bit q: queue q holds packets */
	uint8_t paused;	       /* bit q: the peer paused priority q */
	uint8_t held;	       /* bit q: a gateway holds priority q (no WAN credit) */
	/* Line 1: the queues (packet lists per priority). */
	uint32_t qhead[SIM_NQ];
	uint32_t qtail[SIM_NQ];
	/* Line 2: bytes per queue; RED marking on this egress queue (switch
	 * ports): HPCC's map for the port's rate, run by congestion/ecn_red.c. */
	uint32_t qbytes[SIM_NQ];
	struct ecn_red_config red_cfg;
	/* Line 3 and on: less often. */
	struct ecn_red red;
	struct sim_gw_port *gwp; /* gateway WAN egress state, or NULL */
	uint64_t rate_bps;
	uint32_t local;	       /* index within the node (ns-3 ifIndex - 1) */
	uint64_t drops;	       /* WAN ports: tail drops at this egress */
	struct sim_hist wan_qhist; /* WAN ports: queue depth samples for their p99 */
	uint64_t pause_since_ns[SIM_NQ];
	uint64_t pause_ns;	/* time this transmitter spent paused */
	uint64_t pause_rx;	/* pause frames received */
} __attribute__((aligned(64)));

static_assert(offsetof(struct sim_port, qhead) == 64 && offsetof(struct sim_port, qbytes) == 128,
	      "struct sim_port: the hot fields fill line 0, the queue lists line 1");

/* Bytes one ingress port holds, per priority: one cache line per port. */
struct sim_mmu_port {
	uint32_t ingress[SIM_NQ];
	uint32_t hdrm[SIM_NQ];
} __attribute__((aligned(64)));

/*
 * Shared-buffer MMU of one switch, after HPCC's switch-mmu: per ingress
 * (port, priority) accounting against a reserve, a dynamic threshold
 * alpha * (free buffer) with alpha = 2^-pfc_shift, and per-port headroom.
 * The arithmetic is 32-bit unsigned on purpose; see sim_net.c.
 */
struct sim_mmu {
	uint32_t buffer_bytes;
	uint32_t reserve_bytes;
	uint32_t resume_offset_bytes;
	uint32_t total_hdrm;
	uint32_t total_rsrv;
	uint32_t shared_used;
	uint32_t nports;
	uint32_t *headroom;	/* [port] */
	uint8_t *pfc_shift;	/* [port] */
	struct sim_mmu_port *in; /* [port]: what each ingress port holds */
	uint8_t *paused;	/* [port * SIM_NQ + q]: we sent PAUSE upstream */
	bool dynamic;		/* USE_DYNAMIC_PFC_THRESHOLD */
};

struct sim_node {
	uint8_t kind;	     /* enum sim_node_kind */
	uint8_t role;	     /* enum sim_role */
	uint32_t id;
	uint32_t port_base;  /* first port in sim.ports */
	uint32_t nports;
	uint32_t host;	     /* index in sim.hosts, hosts only */
	uint32_t ecmp_seed;
	struct sim_mmu *mmu; /* switches only */
	struct sim_gw *gw;   /* gateways only */
	uint32_t site;	     /* data centre number, from gateway partition */
};

/*
 * One active send queue of a host, in round-robin order: the fields of its
 * flow that the NIC's scheduler reads for every QP on every decision, kept
 * equal to them by sim_host.c, so a scan reads 16 bytes per QP rather than
 * a flow's cache line.
 */
struct sim_host_qp {
	uint64_t next_avail_ns;	/* flows[flow].next_avail_ns */
	uint32_t flow;
	uint8_t pg;		/* flows[flow].pg */
	uint8_t has_data;	/* flows[flow].snd_nxt < flows[flow].size */
};

struct sim_host {
	uint32_t node;
	uint32_t port;
	struct sim_host_qp *qps; /* active sender QPs in round-robin order */
	uint32_t nqps;
	uint32_t cap;
	uint32_t rr_last;
	uint32_t ackq_head;  /* ACK/NACK/CNP queue, strict priority */
	uint32_t ackq_tail;
	uint64_t wake_ns;    /* pending SIM_EV_HOST_WAKE time, or SIM_NEVER */
	uint32_t ip;
};

/*
 * Sender and receiver state of one RC flow (one QP pair).  Line 0 holds
 * what the sending NIC reads for every QP on every send decision (hosts
 * scan all their active QPs), line 1 what the receiving NIC touches per
 * data packet; the rest is per-event or statistics.
 */
struct sim_flow {
	/* Line 0: sender, per send decision. */
	uint64_t next_avail_ns;
	uint64_t rate_bps;
	uint64_t max_rate_bps;
	uint32_t snd_nxt;
	uint32_t snd_una;
	uint32_t size;
	uint32_t win_bytes;	/* 0: no window */
	uint32_t src;	     /* host nodes */
	uint32_t dst;
	uint32_t id;	     /* line order in flow.txt */
	uint16_t sport;
	uint16_t dport;
	uint16_t last_pkt_size;
	uint8_t pg;
	uint8_t state;	     /* SIM_FLOW_* */
	uint8_t inter;	     /* crosses the WAN */
	uint8_t byte_counter; /* the RP counts bytes (rp_cfg->byte_counter_bytes != 0) */
	/* Line 1: receiver, per data packet. */
	uint32_t rcv_nxt;
	uint32_t milestone;
	uint32_t rcv_bytes;	/* payload the receiver took in order */
	uint32_t last_nack;
	uint64_t nack_timer_ns;
	struct dcqcn_np np;	/* receiver NIC notification point */
	uint64_t first_ce_rx_ns;  /* first data packet with CE at the receiver */
	uint32_t cnp_host;	/* CNPs the receiver NIC generated */
	uint32_t lost_bytes;	/* [sim] retransmit = false: gaps the receiver skipped */
	/* The rest. */
	const struct dcqcn_rp_config *rp_cfg;
	struct dcqcn_rp rp;	/* sender NIC reaction point (congestion/dcqcn.h) */
	uint64_t rp_event_ns;	/* pending SIM_EV_RP time, or SIM_NEVER */
	uint64_t start_ns;
	uint64_t finish_ns;
	uint64_t standalone_ns;
	uint32_t sqpn;		/* sender and receiver QP numbers */
	uint32_t dqpn;
	uint32_t ipsn;		/* initial PSN, random per QP as NICs choose it */
	uint32_t qp_slot;	/* active: index of its entry in its host's qps */
	/* statistics */
	uint32_t cnp_gw;	/* CNPs gateways generated for this QP */
	uint32_t cuts;
	uint64_t first_cut_ns;
	uint64_t first_gw_mark_ns; /* first CE a gateway's WAN egress set */
	uint64_t first_cnp_ns;	  /* first CNP (gateway's or receiver's) at the sender */
	uint64_t acked_sample;	/* delivered bytes at the last time-series sample */
} __attribute__((aligned(64)));

static_assert(offsetof(struct sim_flow, rcv_nxt) == 64 &&
	      offsetof(struct sim_flow, lost_bytes) < 128,
	      "struct sim_flow: sender fields fill line 0, receiver fields line 1");

enum sim_flow_state {
	SIM_FLOW_PENDING,
	SIM_FLOW_ACTIVE,
	SIM_FLOW_DONE,
};

enum sim_ev_type {
	SIM_EV_ARRIVE,	   /* head of port's in-flight list reaches the peer */
	SIM_EV_PORT_TX,	   /* port's transmitter is free */
	SIM_EV_HOST_WAKE,  /* a QP's rate limiter allows the next packet */
	SIM_EV_FLOW_START,
	SIM_EV_RP,	   /* reaction point timer of a flow */
	SIM_EV_CNP_RX,	   /* deferred CNP delivery to the RP (ns-3 Schedule(0)) */
	SIM_EV_GW_CNP,	   /* a gateway CNP is ready to leave (mechanism A) */
	SIM_EV_GW_SHAPE,   /* a gateway shaper may release a packet (mechanism C) */
	SIM_EV_SAMPLE,	   /* statistics and time series */
	SIM_EV_GW_CREDIT,  /* mechanism B: a grant timer or a sender's first report */
	SIM_EV_GW_PFC,	   /* mechanism B: a gateway's PFC refresh */
	SIM_EV_TYPES,
};

/*
 * Heap entry: 16 bytes so a cache line holds four siblings of a 4-ary heap.
 * The key packs the time above a 20-bit insertion counter, so one 64-bit
 * compare orders events by time and, at equal times, FIFO like ns-3 (the
 * counter wraps after 2^20 insertions; two events at the very same
 * nanosecond that far apart would swap, which keeps runs deterministic).
 * Times are limited to 2^44 ns (4.8 hours of simulated time).
 */
struct sim_ev {
	uint64_t key;	/* t_ns << SIM_EV_SEQ_BITS | sequence */
	uint32_t arg;	/* type << 28 | index */
	uint32_t pad;
};

#define SIM_EV_SEQ_BITS 20
#define SIM_EV_MAX_NS ((UINT64_C(1) << (64 - SIM_EV_SEQ_BITS)) - 1)

#define SIM_EV_IDX_BITS 28
#define SIM_EV_IDX_MASK ((1u << SIM_EV_IDX_BITS) - 1)

struct sim_heap {
	struct sim_ev *ev;
	void *mem;
	uint32_t n;
	uint32_t cap;
	uint32_t peak;
};

/*
 * Timing wheel for link events due within SIM_WHEEL_SLOTS ns: one FIFO list
 * per nanosecond, so the events of one instant leave in insertion order
 * exactly as the heap orders them (time, then sequence), and push and pop
 * are O(1).  An occupancy bitmap finds the next busy slot.  Every event in
 * the wheel is due in [cursor, cursor + SIM_WHEEL_SLOTS), so a slot never
 * mixes two instants.  Link arrivals and port transmissions are ~98% of
 * all events and almost all of them are due within a few microseconds; the
 * rest (the WAN's 500 us) go to the heap.
 */
#define SIM_WHEEL_BITS 12
#define SIM_WHEEL_SLOTS (1u << SIM_WHEEL_BITS)
#define SIM_WHEEL_MASK (SIM_WHEEL_SLOTS - 1)

struct sim_wheel_node {
	uint64_t key;	/* as struct sim_ev */
	uint32_t arg;
	uint32_t next;
};

/*
 * One nanosecond's FIFO: head and tail side by side, so a push that finds
 * the slot busy touches one line of the slot table, not one in each of two
 * arrays 16 KB apart.
 */
struct sim_wheel_slot {
	uint32_t head;
	uint32_t tail;
};

struct sim_wheel {
	struct sim_wheel_slot slot[SIM_WHEEL_SLOTS];
	uint64_t bits[SIM_WHEEL_SLOTS / 64];
	struct sim_wheel_node *node;
	uint32_t nnode;
	uint32_t cap;
	uint32_t free;
	uint32_t n;	    /* events in the wheel */
	uint64_t cursor_ns; /* no event in the wheel is due before this */
};

/* Pair attributes, computed by a BFS from every host as ns-3's third.cc does. */
struct sim_pair {
	uint64_t rtt_ns;
	uint64_t bw_bps;
};

struct sim_stats {
	uint64_t events;
	uint64_t drops;
	uint64_t pause_frames;
	uint64_t pause_ns;
	uint64_t pause_rx_role[SIM_ROLE_COUNT]; /* by the role of the paused node */
	uint64_t cnp_host;
	uint64_t cnp_gw;
	uint64_t cnp_gw_suppressed;
	uint64_t cnp_gw_no_qpn;
	uint64_t marks;		/* CE marks set by switches */
	uint64_t marks_gw;	/* CE marks set by gateway WAN markers */
	uint64_t ce_cleared;	/* CE marks a gateway removed */
	uint64_t nacks;
	uint64_t pkts_alloc_peak;
	uint64_t acked_bytes;	/* payload acknowledged so far (progress lines) */
	uint64_t first_start_ns;   /* valid once a flow has started */
	uint64_t last_finish_ns;
	bool started;
	struct sim_hist qhist[SIM_ROLE_COUNT];
};

struct sim_out;
struct sim_trace;

struct sim {
	struct sim_config cfg;
	/* topology */
	struct sim_node *nodes;
	uint32_t nnodes;
	struct sim_port *ports;
	uint32_t nports;
	/*
	 * [port] = ports[port].qbytes_total, kept beside it by sim_net.c: the
	 * sampler reads every switch port's depth each stats_interval, and
	 * reading one array does not pull a line of every port into the cache.
	 */
	uint32_t *qdepth;
	struct sim_host *hosts;
	uint32_t nhosts;
	uint32_t *host_of_node;	/* node -> host index or SIM_NONE */
	/*
	 * routing: for switch n and host h, rt[n*H+h] packs the number of
	 * next hops in its low 8 bits and above them the one port when there
	 * is one, else the index of the first of them in rt_port (one load
	 * per hop on a single path).
	 */
	uint32_t *rt;
	uint32_t *rt_port;
	uint32_t nrt_port;
	struct sim_pair *pair;	/* [src_host * H + dst_host] */
	uint64_t max_rtt_ns;
	uint64_t max_bdp_bytes;
	/* flows, in start-time order */
	struct sim_flow *flows;
	uint32_t nflows;
	uint32_t next_flow;
	uint32_t flows_done;
	uint64_t total_bytes;	/* payload of all flows */
	/* packets */
	struct sim_pkt *pkts;
	uint32_t npkts;
	uint32_t cap_pkts;
	uint32_t free_pkts;
	uint64_t live_pkts;
	/*
	 * engine: link arrivals and port transmissions (almost every event,
	 * at most two per port pending) live in a small hot heap; timers
	 * (reaction points, rate limiters, gateways, sampling) in a second
	 * one, so the hot heap stays a few levels deep.  One sequence counter
	 * keeps equal-time events FIFO across both.
	 */
	struct sim_wheel wheel;
	struct sim_heap heap;
	struct sim_heap slow;
	/*
	 * The least key of heap and slow (UINT64_MAX: both empty), kept by
	 * sim_schedule() and sim_next_event(): ~97% of events come from the
	 * wheel, and comparing with one cached key costs less than reading
	 * both heaps' roots for each of them.
	 */
	uint64_t far_key;
	uint32_t seq;
	uint64_t now_ns;
	uint64_t end_ns;
	int stop_signal;	/* signal that stopped the run early (partial outputs), or 0 */
	uint64_t rng;
	/* gateways */
	uint64_t wan_fifo_bytes; /* WAN egress outside the MMU of this size; 0 = switch port */
	struct sim_gw **gws;
	uint32_t ngws;
	struct sim_stats st;
	struct sim_out *out;
	struct sim_trace *trace; /* --waits, --trace-flows (sim_trace.h); NULL: off */
	/* host DCQCN configs, one per NIC rate */
	struct dcqcn_rp_config rp_cfg[8];
	uint64_t rp_cfg_rate[8];
	uint32_t nrp_cfg;
	struct dcqcn_np_config np_cfg;
	uint16_t *next_sport;	/* [src_host * H + dst_host], from 10000 like ns-3 */
	bool window_on;
};

/* sim_heap.c */
/* The wheel and both heaps of s, empty, with room for heap_cap and slow_cap events. */
int sim_events_init(struct sim *s, uint32_t heap_cap, uint32_t slow_cap);
int sim_heap_init(struct sim_heap *h, uint32_t cap);
void sim_heap_free(struct sim_heap *h);
void sim_heap_push(struct sim_heap *h, uint64_t key, uint32_t arg);
bool sim_heap_pop(struct sim_heap *h, struct sim_ev *ev);

/* The least key, UINT64_MAX when empty (the pop that empties a heap stores it). */
static inline uint64_t
sim_heap_min_key(const struct sim_heap *h)
{
	return h->ev[0].key;
}

int sim_wheel_init(struct sim_wheel *w);
void sim_wheel_free(struct sim_wheel *w);
void sim_wheel_grow(struct sim_wheel *w);
/* sim_wheel_seek() past the bitmap word of the cursor's slot, wrapping around. */
uint32_t sim_wheel_seek_far(struct sim_wheel *w);

/*
 * The first busy slot at or after the cursor's (the wheel must not be
 * empty); advances the cursor to it.  Inline for the common case, a busy
 * slot within the cursor's 64-slot word (93% of calls on mix400).
 */
static inline uint32_t
sim_wheel_seek(struct sim_wheel *w)
{
	uint32_t slot = (uint32_t)w->cursor_ns & SIM_WHEEL_MASK;
	uint64_t m = w->bits[slot / 64] & (~UINT64_C(0) << (slot % 64));
	uint32_t next;

	if (m == 0)
		return sim_wheel_seek_far(w);
	next = (slot & ~63u) + (uint32_t)__builtin_ctzll(m);
	w->cursor_ns += next - slot;
	return next;
}

static inline void
sim_wheel_push(struct sim_wheel *w, uint64_t t_ns, uint64_t key, uint32_t arg)
{
	uint32_t slot = (uint32_t)t_ns & SIM_WHEEL_MASK;
	uint32_t i;

	if (w->free == SIM_NONE)
		sim_wheel_grow(w);
	i = w->free;
	w->free = w->node[i].next;
	w->node[i].key = key;
	w->node[i].arg = arg;
	w->node[i].next = SIM_NONE;
	if (w->slot[slot].head == SIM_NONE) {
		w->slot[slot].head = i;
		w->bits[slot / 64] |= UINT64_C(1) << (slot % 64);
	} else {
		w->node[w->slot[slot].tail].next = i;
	}
	w->slot[slot].tail = i;
	w->n++;
}

/*
 * Pops the run's next event: the least (time, sequence) key of the wheel,
 * the far heap and the timer heap.  Returns false when all three are empty.
 * Inline: the event loop runs it ~100 M times per mix_50% run.
 */
static inline bool
sim_next_event(struct sim *s, struct sim_ev *ev)
{
	struct sim_wheel *w = &s->wheel;
	uint64_t kw = UINT64_MAX;
	uint32_t slot = 0, i = SIM_NONE;
	uint64_t t_ns;

	if (w->n != 0) {
		slot = (uint32_t)w->cursor_ns & SIM_WHEEL_MASK;
		i = w->slot[slot].head;
		if (i == SIM_NONE) {
			slot = sim_wheel_seek(w);
			i = w->slot[slot].head;
		}
		kw = w->node[i].key;
	}
	if (kw < s->far_key) {
		ev->key = kw;
		ev->arg = w->node[i].arg;
		w->slot[slot].head = w->node[i].next;
		if (w->slot[slot].head == SIM_NONE)
			w->bits[slot / 64] &= ~(UINT64_C(1) << (slot % 64));
		w->node[i].next = w->free;
		w->free = i;
		w->n--;
	} else {
		uint64_t kh = sim_heap_min_key(&s->heap);
		uint64_t ks = sim_heap_min_key(&s->slow);

		if (kh < ks)
			sim_heap_pop(&s->heap, ev);
		else if (!sim_heap_pop(&s->slow, ev))
			return false;
		kh = sim_heap_min_key(&s->heap);
		ks = sim_heap_min_key(&s->slow);
		s->far_key = kh < ks ? kh : ks;
	}
	/* Every pending event is due at or after this one: the wheel may start here. */
	t_ns = ev->key >> SIM_EV_SEQ_BITS;
	if (w->cursor_ns < t_ns)
		w->cursor_ns = t_ns;
	return true;
}

static inline void
sim_schedule(struct sim *s, uint64_t t_ns, uint32_t type, uint32_t idx)
{
	uint64_t key = t_ns << SIM_EV_SEQ_BITS | (s->seq++ & ((1u << SIM_EV_SEQ_BITS) - 1));
	uint32_t arg = type << SIM_EV_IDX_BITS | (idx & SIM_EV_IDX_MASK);

	if (type <= SIM_EV_PORT_TX && t_ns - s->wheel.cursor_ns < SIM_WHEEL_SLOTS) {
		sim_wheel_push(&s->wheel, t_ns, key, arg);
		return;
	}
	sim_heap_push(type > SIM_EV_PORT_TX ? &s->slow : &s->heap, key, arg);
	if (key < s->far_key)
		s->far_key = key;
}

/*
 * Packets, and putting one on a link: inline, since hosts and switches both
 * do it for every packet (sim_host.c and sim_net.c).
 */
__attribute__((noreturn)) void sim_pkt_pool_exhausted(const struct sim *s);

static inline uint32_t
sim_pkt_alloc(struct sim *s)
{
	uint32_t p = s->free_pkts;

	if (p != SIM_NONE) {
		s->free_pkts = s->pkts[p].next;
	} else {
		if (s->npkts == s->cap_pkts)
			sim_pkt_pool_exhausted(s);
		p = s->npkts++;
	}
	s->live_pkts++;
	if (s->live_pkts > s->st.pkts_alloc_peak)
		s->st.pkts_alloc_peak = s->live_pkts;
	return p;
}

static inline void
sim_pkt_free(struct sim *s, uint32_t p)
{
	s->pkts[p].next = s->free_pkts;
	s->free_pkts = p;
	s->live_pkts--;
}

/*
 * Append packet p to the FIFO linked through sim_pkt.next from *head to
 * *tail (SIM_NONE when empty): port queues, a host's ACK queue, a
 * gateway's shaping queue.
 */
static inline void
sim_pkt_append(struct sim *s, uint32_t *head, uint32_t *tail, uint32_t p)
{
	s->pkts[p].next = SIM_NONE;
	if (*tail == SIM_NONE)
		*head = p;
	else
		s->pkts[*tail].next = p;
	*tail = p;
}

/*
 * A control packet of flow fi (ACK, NAK, CNP) back toward the flow's
 * sender: a padded 60-byte frame, not ECT, in the flow's priority group.
 * Leaves next and t_ns to the queue it goes on.
 */
static inline void
sim_pkt_ctrl_init(struct sim *s, struct sim_pkt *pkt, uint32_t fi, uint8_t type, uint32_t seq,
		  uint8_t flags)
{
	const struct sim_flow *f = &s->flows[fi];

	pkt->flow = fi;
	pkt->seq = seq;
	pkt->in_local = 0;
	pkt->dst = f->src;
	pkt->size = SIM_CTRL_BYTES;
	pkt->type = type;
	pkt->ecn = SIM_ECN_NOT_ECT;
	pkt->prio = f->pg;
	pkt->flags = flags;
}

uint64_t sim_net_tx_ns(enum sim_tx_time mode, uint64_t bytes, uint64_t rate_bps);

static inline void
sim_net_send(struct sim *s, uint32_t pi, uint32_t p)
{
	struct sim_port *port = &s->ports[pi];
	struct sim_pkt *pkt = &s->pkts[p];
	uint64_t arrive_ns;
	uint64_t ps;

	if (s->cfg.tx_time == SIM_TX_TIME_NS3) {
		/*
		 * QbbNetDevice::TransmitStart: Seconds(CalculateTxTime()),
		 * truncated to whole ns, so a 1048-byte packet takes 83 ns at
		 * 100 Gb/s (101.0 Gb/s in effect) and 20 ns at 400 Gb/s.
		 */
		port->busy_until_ns = s->now_ns + sim_net_tx_ns(SIM_TX_TIME_NS3, pkt->size,
								port->rate_bps);
	} else {
		ps = (uint64_t)pkt->size * port->ps_per_byte + port->carry_ps;
		port->carry_ps = (uint16_t)(ps % 1000);
		port->busy_until_ns = s->now_ns + ps / 1000;
	}
	port->tx_bytes += pkt->size;
	arrive_ns = port->busy_until_ns + port->delay_ns;
	pkt->next = SIM_NONE;
	if (port->fly_tail == SIM_NONE) {
		port->fly_head = port->fly_tail = p;
		sim_schedule(s, arrive_ns, SIM_EV_ARRIVE, pi);
	} else {
		/*
		 * The packet ahead keeps this one's arrival time: its own arrival
		 * schedules this one's, and reads no other packet to do it.
		 */
		s->pkts[port->fly_tail].next = p;
		s->pkts[port->fly_tail].t_ns = arrive_ns;
		port->fly_tail = p;
	}
}

static inline struct sim_pkt *
sim_pkt(struct sim *s, uint32_t p)
{
	return &s->pkts[p];
}

/* Deterministic RNG (splitmix64), one state per user. */
static inline uint64_t
sim_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform double in [0, 1). */
static inline double
sim_rng_unit(uint64_t *state)
{
	return (double)(sim_rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* sim_topo.c */
int sim_topo_load(struct sim *s, const char *path);
/* Free what sim_topo_load() ... sim_host_setup() allocated; s itself is the caller's. */
void sim_free(struct sim *s);
int sim_flows_load(struct sim *s, const char *path);
int sim_topo_routes(struct sim *s);

/*
 * The two helpers below are inline: switches route every packet of a
 * multi-path hop through them, and as calls into sim_topo.c they cost a
 * call, its register spills and the reloads after it on each such hop.
 */
static inline uint32_t
sim_topo_ip(uint32_t node)
{
	/* third.cc's node_id_to_ip(): 11.0.x.1 with x = id. */
	return 0x0b000001u + ((node / 256) * 0x00010000u) + ((node % 256) * 0x00000100u);
}

static inline uint32_t
sim_rotl32(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

/*
 * ECMP hash: MurmurHash3 (x86_32) of the 12-byte key sip, dip, sport |
 * dport << 16 with the switch id as seed, which is what HPCC's switch
 * uses; reproducing it keeps ECMP collisions the same as in ns-3.
 */
static inline uint32_t
sim_topo_hash(uint32_t sip, uint32_t dip, uint16_t sport, uint16_t dport, uint32_t seed)
{
	const uint32_t c1 = 0xcc9e2d51u;
	const uint32_t c2 = 0x1b873593u;
	uint32_t key[3] = { sip, dip, (uint32_t)sport | (uint32_t)dport << 16 };
	uint32_t h = seed;
	int i;

	for (i = 0; i < 3; i++) {
		uint32_t k = key[i] * c1;

		k = sim_rotl32(k, 15) * c2;
		h ^= k;
		h = sim_rotl32(h, 13);
		h = h * 5 + 0xe6546b64u;
	}
	h ^= 12;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* sim_net.c: links, switches, PFC */
void sim_net_arrive(struct sim *s, uint32_t port);
void sim_net_port_tx(struct sim *s, uint32_t port);
void sim_net_kick(struct sim *s, uint32_t port);
/* A PFC PAUSE (or resume) for priority prio leaves port pi (strict priority). */
void sim_net_pfc(struct sim *s, uint32_t pi, uint8_t prio, bool pause);
void sim_net_enqueue(struct sim *s, uint32_t port, uint32_t q, uint32_t p);
uint32_t sim_net_route(struct sim *s, const struct sim_node *n, const struct sim_pkt *pkt);
int sim_net_setup(struct sim *s);
void sim_net_forward(struct sim *s, struct sim_node *n, uint32_t in_port, uint32_t out_port,
		     uint32_t p);
bool sim_net_red(struct sim_port *port, uint32_t qbytes);
int sim_net_pool_init(struct sim *s);
void sim_net_pool_free(struct sim *s);
void sim_net_free(struct sim *s);

/* sim_host.c: NICs, flows, DCQCN glue */
int sim_host_setup(struct sim *s);
void sim_host_receive(struct sim *s, uint32_t node, uint32_t port, uint32_t p);
void sim_host_kick(struct sim *s, uint32_t host);
void sim_host_flow_start(struct sim *s, uint32_t flow);
void sim_host_rp_event(struct sim *s, uint32_t flow);
void sim_host_cnp_rx(struct sim *s, uint32_t flow, bool from_gw);
void sim_out_cnp(struct sim *s, uint32_t flow, bool from_gw);
void sim_host_wake(struct sim *s, uint32_t host);
void sim_host_free(struct sim *s);

/* sim_gw.c: gateway nodes running congestion/ code */
int sim_gw_setup(struct sim *s);
void sim_gw_free(struct sim *s);
/* Returns true when the gateway took the packet (shaper queue). */
bool sim_gw_ingress(struct sim *s, struct sim_node *n, uint32_t in_port, uint32_t out_port,
		    uint32_t p);
/* Called on dequeue from a gateway WAN port's data queue; may mark or clear CE. */
void sim_gw_egress(struct sim *s, struct sim_node *n, struct sim_port *port, uint32_t p);
void sim_gw_cnp_event(struct sim *s, uint32_t idx);
void sim_gw_shape_event(struct sim *s, uint32_t idx);
void sim_gw_on_enqueue(struct sim *s, struct sim_port *port, struct sim_pkt *pkt);
void sim_gw_on_drop(struct sim *s, struct sim_port *port, struct sim_pkt *pkt);
/*
 * Mechanism A for one data packet at a gateway WAN egress: the marker said
 * marked, or the queue dropped it (the hooks above call it; so does the
 * test that drives both hosts of congestion/gw_mech.h with one trace).
 */
void sim_gw_signal(struct sim *s, struct sim_gw_port *gp, struct sim_pkt *pkt, bool marked,
		   bool drop);

/* sim_gw_b.c: mechanism B (congestion/pfc.h and congestion/credit.h) */
int sim_gw_b_setup(struct sim *s, struct sim_gw *gw);
void sim_gw_b_free(struct sim *s, struct sim_gw *gw);
/* A packet joined WAN egress queue q (after sim_net_enqueue() linked it). */
void sim_gw_b_wan_enqueue(struct sim *s, struct sim_port *port, uint32_t q);
/* A data packet leaves WAN port port now (from sim_gw_egress()). */
void sim_gw_b_wan_dequeue(struct sim *s, struct sim_port *port, struct sim_pkt *pkt);
/* A credited data packet arrived from the WAN on in_port. */
void sim_gw_b_wan_arrive(struct sim *s, uint32_t in_port, struct sim_pkt *pkt);
/* A credited data packet leaves the gateway toward its DC on port. */
void sim_gw_b_dc_dequeue(struct sim *s, struct sim_node *n, struct sim_pkt *pkt);
/* A SIM_PKT_CREDIT arrived on port pi. */
void sim_gw_b_ctrl_rx(struct sim *s, uint32_t pi, const struct sim_pkt *pkt);
void sim_gw_b_credit_event(struct sim *s, uint32_t idx);
void sim_gw_b_pfc_event(struct sim *s, uint32_t idx);

/* sim_out.c */
FILE *sim_out_create(const char *dir, const char *name);
int sim_out_open(struct sim *s, const char *dir);
void sim_out_flow_start(struct sim *s, const struct sim_flow *f);
void sim_out_flow_done(struct sim *s, struct sim_flow *f);
void sim_out_sample(struct sim *s);
int sim_out_finish(struct sim *s, double wall_s, double cpu_s);
void sim_out_close(struct sim *s);

#endif /* LONGSPAN_SIM_H */
