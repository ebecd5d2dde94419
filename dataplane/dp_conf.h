/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_DP_CONF_H
#define LONGSPAN_DP_CONF_H

/*
 * What the workers read: an immutable dataplane snapshot, and per-worker
 * state and counters.
 *
 * Publication: the control thread builds a struct dp_conf from a validated
 * config, stores it in dp_runtime.conf with a release store, waits
 * for an rte_rcu_qsbr grace period (every worker reports quiescent once per
 * loop), then frees the previous snapshot. Workers load the pointer once per
 * burst with an acquire load and never keep it across a quiescent report.
 */

#include <assert.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "dp_limits.h"
#include "drop_reason.h"
#include "congestion/cc_params.h"
#include "congestion/ecn_marker.h"
#include "congestion/gw_mech.h"
#include "congestion/credit.h"
#include "congestion/pfc.h"
#include "congestion/proxy_cnp.h"
#include "congestion/qpn_learn.h"
#include "congestion/token_bucket.h"
#include "congestion/trp.h"

struct rte_lpm;
struct rte_lpm6;
struct rte_ring;
struct rte_mempool;
struct rte_rcu_qsbr;
struct neigh_table;
struct dp_hooks;
struct dp_p4;

#define DP_MAX_WORKERS 16
#define DP_MAX_BURST 64
#define DP_PEER_TMPL_MAX 80 /* 18 (Ethernet + VLAN) + 20 + 8 + 28; the credit option is written apart */
static_assert(DP_MAX_WORKERS == LS_MAX_WORKERS && DP_MAX_BURST == LS_MAX_BURST,
	      "config limits match the dataplane");

struct dp_port {
	uint16_t port_id; /* ethdev port id */
	uint8_t role; /* enum ls_port_role */
	uint8_t has_ip4 : 1, has_ip6 : 1, has_gw4 : 1, has_gw6 : 1;
	/*
	 * Stopped by the control thread to restart its link (a memif peer
	 * went away, control/port_restart.h): workers neither poll nor
	 * transmit on it (port_stopped drops), the WAN queue holds.
	 */
	uint8_t stopped : 1;
	uint16_t vlan; /* 0 = untagged */
	uint32_t mtu; /* L3 MTU, bytes */
	struct rte_ether_addr mac;
	uint32_t ip4; /* network order */
	uint8_t ip4_prefix_len;
	uint8_t ip6_prefix_len;
	uint8_t ip6[16];
	uint8_t ip6_ll[16]; /* fe80::/64 EUI-64 from the MAC, answered by ND */
	uint32_t gw4; /* network order */
	uint8_t gw6[16];
	uint64_t link_rate_bps;
	struct neigh_table *neigh; /* owned by the runtime, outlives snapshots */
};

struct dp_peer {
	uint16_t port; /* index into dp_conf.ports (a WAN port) */
	uint8_t family; /* outer AF_INET / AF_INET6 */
	uint8_t source_strict; /* inner sources only from its prefixes ([peer] source_check) */
	uint8_t csum_verify; /* verify a non-zero outer UDP checksum ([peer] udp_checksum) */
	uint8_t zero_csum6_ok; /* accept a zero one over IPv6 ([peer] ipv6_zero_checksum) */
	uint8_t credit; /* [peer] lossless = credit: every packet carries the credit option */
	uint32_t vni;
	uint8_t src[16]; /* outer source address (IPv4 in the first 4 bytes) */
	uint8_t dst[16]; /* outer destination: the peer gateway */
	uint8_t nexthop[16]; /* resolved through the WAN port's neighbour table */
	uint64_t rtt_ns;
	char name[LS_NAME_MAX];
	/*
	 * Outer headers of an IPv4 underlay prepared at publish time
	 * (dp_peer_template()): Ethernet [/ 802.1Q] / IPv4 / UDP / GENEVE /
	 * Longspan option with every constant field set; per packet the
	 * egress stage writes the next-hop MAC, TOS, lengths, checksum,
	 * UDP source port, inner protocol, worker, sequence and timestamp.
	 */
	alignas(8) uint8_t tmpl[DP_PEER_TMPL_MAX]; /* aligned: headers are written in place */
	uint8_t tmpl_len; /* 0: no template (IPv6 underlay) */
	uint8_t tmpl_l2; /* Ethernet [+ VLAN] bytes */
	uint32_t tmpl_csum; /* one's complement sum of the constant IPv4 words */
	uint64_t tmpl_offload; /* the mbuf's tx_offload word: l2_len tmpl_l2, l3_len 20 */
	/*
	 * Sizes of the encapsulation, either underlay, also set by
	 * dp_peer_template(), so the traffic manager and the egress stage
	 * do not derive them per packet: encap_l2 the Ethernet [+ VLAN]
	 * header on the WAN port, encap_ip the outer IP, UDP, GENEVE and
	 * Longspan option headers with the credit option toward a credit
	 * peer (outer IP bytes = encap_ip + inner IP bytes).
	 */
	uint8_t encap_l2;
	uint8_t encap_ip;
};

/* Fill peer->tmpl for its WAN port (control thread, at snapshot build). */
void dp_peer_template(struct dp_peer *peer, const struct dp_port *wan, uint16_t geneve_port);

/*
 * Traffic manager classes of a WAN egress queue, served in strict priority:
 * congestion feedback and control first, then RoCE data, then the rest.
 */
enum dp_tm_class {
	DP_TM_CLASS_CONTROL = 0, /* CNP, ACK/NAK, gateway control packets */
	DP_TM_CLASS_ROCE, /* RoCE data */
	DP_TM_CLASS_OTHER, /* any other IP */
	DP_TM_CLASS_MAX
};

/* WAN egress traffic manager settings of one WAN port (derived per snapshot). */
struct dp_tm_conf {
	bool enabled; /* a link rate is known: shape and mark */
	struct token_bucket_config shaper; /* link rate, TSC ticks */
	uint64_t buffer_bytes; /* per class queue limit */
	struct ecn_marker_params marker; /* for the RoCE and other classes */
	bool mark_at_dequeue; /* sojourn marking */
	struct cc_derived derived; /* what cc_params_resolve() made of the link */
};

/* Mechanisms A and C (docs/congestion-core.md), shared by all workers. */
struct dp_mech_conf {
	unsigned int mechanisms; /* LS_MECH_* */
	struct proxy_cnp_config cnp; /* mechanism A rate limit and CE policy */
	uint8_t cnp_dscp;
	struct trp_config trp; /* mechanism C */
	struct gw_mech_c_config c_policy; /* mechanism C: upstream-CE window, forwarding */
	struct qpn_learn_params learn;
	uint64_t flow_idle_ns;
};

/* Mechanism B at the DC port (dataplane/dc_pfc.h). */
struct dp_lossless_conf {
	bool enabled; /* some peer has [peer] lossless = pfc or credit */
	struct pfc_params pfc; /* hz 0: each worker sets its TSC rate */
	uint8_t data_priority; /* priority paused when the WAN RoCE class crosses XOFF */
	uint8_t dscp_priority[64]; /* DSCP -> 802.1p priority of packets toward the DC */
	/*
	 * The credit-based WAN hop (dataplane/wan_credit.h), per peer with
	 * lossless = credit (dp_peer.credit): the buffer this gateway grants
	 * that peer and the grant cadence, from cc_params of the peer's WAN
	 * port; refresh_ticks are nanoseconds (the credit clock is dp_clock.ns).
	 */
	bool credit_any;
	struct credit_params credit[LS_MAX_PEERS];
};

struct dp_conf {
	uint64_t generation;
	uint16_t n_ports;
	uint16_t dc_port; /* index into ports */
	uint16_t n_peers;
	uint16_t geneve_port; /* host order */
	uint16_t burst; /* rx burst size, <= DP_MAX_BURST */
	uint64_t probe_interval_ns; /* path probes per worker and peer ([gateway] probe_interval); 0 = none */
	struct dp_port ports[LS_MAX_PORTS];
	struct dp_peer peers[LS_MAX_PEERS];
	struct rte_lpm *lpm4; /* next hop = peer index */
	struct rte_lpm6 *lpm6;
	struct dp_tm_conf tm[LS_MAX_PORTS]; /* WAN ports only */
	struct dp_mech_conf mech;
	struct dp_lossless_conf lossless;
	/*
	 * What each worker runs at the hook points (NULL: nothing). Owned by
	 * the control thread's hook set (control/hook_set.c), not by the
	 * snapshot: it is built with the snapshot, published with it and
	 * unloaded only after the grace period that frees the snapshot.
	 */
	const struct dp_hooks *hooks[DP_MAX_WORKERS];
	/*
	 * [gateway] pipeline = p4: each worker's SWX pipeline (NULL: the C
	 * path). Owned by the control thread's p4 set (control/p4_pipeline.c)
	 * like the hooks: built with the snapshot, published with it, freed
	 * only after the grace period that retires the snapshot. The worker
	 * runs it (rte_swx_pipeline_run() writes the pipeline's state), so
	 * one worker per pipeline.
	 */
	struct dp_p4 *p4[DP_MAX_WORKERS];
};

/*
 * Per-worker counters. Written only by the owning worker with plain
 * increments; the control thread reads them (64-bit loads do not tear on
 * the supported targets) and sums over workers.
 */
enum dp_class {
	DP_CLASS_ROCE_DATA = 0,
	DP_CLASS_ROCE_ACK, /* ACK or NAK (AETH) */
	DP_CLASS_ROCE_CNP,
	DP_CLASS_OTHER_IP,
	DP_CLASS_ARP,
	DP_CLASS_ND,
	DP_CLASS_TUNNEL, /* GENEVE from a peer */
	DP_CLASS_MAX
};

struct dp_port_counters {
	uint64_t rx_pkts, rx_bytes;
	uint64_t tx_pkts, tx_bytes;
};

struct dp_peer_counters {
	/*
	 * Packets and bytes apart, so that gcc does not pair each direction's
	 * two adds into one vector add (8 instructions per packet, not 5).
	 */
	uint64_t tx_pkts; /* encapsulated toward the peer */
	uint64_t rx_pkts; /* decapsulated from the peer */
	uint64_t tx_bytes, rx_bytes;
	uint64_t rx_ce; /* outer CE seen on decap */
	uint64_t rx_seq_gaps; /* GENEVE option sequence went forward by > 1 */
	uint64_t rx_seq_reorder; /* sequence went backwards */
	uint64_t rx_seq_restarts; /* went back by more than DP_SEQ_RESTART_BACK: a new sequence */
	uint64_t rx_seq_pkts; /* packets carrying the sequence (data and probes) */
};

#define DP_HIST_BUCKETS 40 /* log2 buckets: [2^i, 2^(i+1)) */

/* One class queue of a WAN port's traffic manager. */
struct dp_tm_counters {
	uint64_t enq_pkts, enq_bytes;
	uint64_t deq_pkts, deq_bytes;
	uint64_t drops; /* queue full (also counted as wan_queue_full) */
	/*
	 * Congestion signals. mark_decisions: the marker chose the packet
	 * (any ECN). ce_written: CE the gateway wrote (an ECT packet the
	 * marker chose, its mark not replaced by a gateway CNP). With
	 * mechanism A every signalled RoCE data packet (marker's choice, CE
	 * from the DC fabric, or a drop by a full queue) gets one answer:
	 * cnp_sent, cnp_suppressed (per-QP rate), cnp_no_qpn (sender QPN not
	 * learned) or cnp_failed (no neighbour, mbuf or transmit room); and
	 * ce_cleared counts the CE it removed (ce_clear).
	 */
	uint64_t mark_decisions;
	uint64_t ce_written;
	uint64_t ce_cleared;
	uint64_t cnp_sent, cnp_suppressed, cnp_no_qpn, cnp_failed;
	uint64_t depth_bytes, depth_pkts; /* gauges: now */
	uint64_t depth_max_bytes;
	uint64_t sojourn_ns_sum, sojourn_ns_max;
	uint64_t depth_hist[DP_HIST_BUCKETS]; /* bytes queued ahead, sampled per enqueue */
	uint64_t sojourn_hist[DP_HIST_BUCKETS]; /* ns, per dequeue */
};

/* Mechanisms A and C. */
struct dp_mech_counters {
	uint64_t cnp_sent; /* A: gateway CNPs to local senders */
	uint64_t cnp_suppressed; /* A: per-QP rate limit */
	uint64_t cnp_no_qpn; /* A: sender QPN not learned yet */
	uint64_t cnp_no_neigh; /* A: sender's next hop unresolved */
	uint64_t cnp_no_mbuf; /* A: pool empty */
	uint64_t cnp_tx_full; /* A: no room left in this poll's transmit list */
	uint64_t ce_cleared; /* A: CE removed from a forwarded packet */
	uint64_t learn[QPN_LEARN_RESULT_MAX]; /* source-side learner (A) */
	uint64_t learn_dst[QPN_LEARN_RESULT_MAX]; /* destination-side learner (C) */
	uint64_t trp_cnps; /* C: receiver CNPs seen leaving for the WAN */
	uint64_t trp_no_flow; /* C: no learned incoming flow for that CNP */
	uint64_t trp_table_full; /* C: no free shaping slot */
	uint64_t trp_activations; /* C: shaping started */
	uint64_t trp_delayed; /* C: packets held in gateway memory */
	uint64_t trp_released; /* C: held packets sent on */
	uint64_t trp_active; /* C: gauge, QPs being shaped now */
	uint64_t trp_queued; /* C: gauge, packets held now */
	uint64_t trp_upstream_ce; /* C: CNP ignored, its data arrived CE-marked */
};

/* Mechanism B at the DC port, per priority where it says so. */
struct dp_pfc_counters {
	uint64_t rx_frames; /* PFC or PAUSE frames obeyed */
	uint64_t rx_pauses[PFC_PRIORITIES]; /* non-zero times received */
	uint64_t rx_paused_ns[PFC_PRIORITIES]; /* gauge: time the fabric paused us, total */
	uint64_t tx_pauses[PFC_PRIORITIES]; /* pause frames sent, refreshes included */
	uint64_t tx_resumes[PFC_PRIORITIES]; /* zero-quanta frames sent */
	uint64_t tx_paused_ns[PFC_PRIORITIES]; /* gauge: time we paused the fabric, total */
	uint64_t tx_failed; /* a pause or resume not built (no mbuf or transmit room) */
	uint64_t tx_lapses; /* data priority: our pause expired before its refresh or resume */
	uint64_t tx_lapsed_ns; /* gauge: time the fabric ran in those lapses */
	uint64_t held; /* packets that waited for a paused priority */
	uint64_t released; /* held packets sent on */
	uint64_t queued; /* gauge: held now */
};

/*
 * Mechanism B on the WAN hop (wan_credit.h), summed over the credit peers.
 * Sender side: what this gateway may send; receiver side: what it grants.
 */
struct dp_credit_counters {
	uint64_t sent_bytes; /* charged to credit (inner bytes of RoCE data) */
	uint64_t blocked; /* dequeues refused for want of credit */
	uint64_t blocked_ns; /* time a RoCE class waited for credit, ended intervals */
	uint64_t grants_rx; /* grants applied (a larger limit for our epoch) */
	uint64_t grants_stale; /* grants ignored: not larger, or another epoch */
	uint64_t reports_rx; /* reports seen from peers */
	uint64_t grants_tx; /* grants sent, in data packets and control packets */
	uint64_t ctrl_tx; /* control packets sent (also counted in own_tx) */
	uint64_t ctrl_failed; /* a control packet due but not built (neighbour, mbuf, room) */
	uint64_t other_priority; /* options for a priority this gateway does not credit */
	uint64_t arrived_bytes; /* charged bytes received into the buffer */
	uint64_t overrun_bytes; /* gauge: arrived above the buffer (a peer over its limit) */
	uint64_t lost_bytes; /* gauge: reported sent, never arrived */
	uint64_t sender_restarts; /* gauge: peers seen with a new epoch */
	uint64_t occupancy_bytes; /* gauge: buffer held now */
	uint64_t available_bytes; /* gauge: credit left to send now */
};

/*
 * Every received packet is counted exactly once: the ports' rx_pkts add up
 * to forwarded + drops[] + punted + what waits in the traffic managers,
 * mechanism C hold queues and mechanism B's DC pause queues (pfc.queued;
 * a PFC frame received is a drop named pfc_consumed). The ports' tx_pkts
 * add up to forwarded + own_tx: packets the gateway builds itself
 * (mechanism A CNPs, mechanism B PFC frames and credit control
 * packets, path probes, the control thread's injects) are counted apart
 * from forwarded ones and never as drops; cnp_sent + pfc tx_pauses +
 * tx_resumes + credit.ctrl_tx + injected + probes_sent = own_tx +
 * own_tx_failed. A path probe received is a drop named probe_consumed, a
 * credit control packet received one named credit_control.
 */
struct dp_counters {
	struct dp_port_counters port[LS_MAX_PORTS];
	struct dp_peer_counters peer[LS_MAX_PEERS];
	uint64_t cls[DP_CLASS_MAX]; /* received packets by class */
	uint64_t drops[LS_DROP_MAX];
	uint64_t forwarded; /* received packets transmitted */
	uint64_t own_tx; /* packets built by the gateway, transmitted */
	uint64_t own_tx_failed; /* built by the gateway, refused by a full tx queue or bad port */
	uint64_t ecn_marked; /* CE set by the gateway (RFC 6040 decap or TM) */
	uint64_t arp_replies, nd_adverts; /* answered in the fast path */
	uint64_t punted; /* received packets handed to the control thread */
	uint64_t resolve_requests; /* next hops the control thread was asked to resolve */
	uint64_t injected; /* packets the control thread built, taken from the inject ring */
	uint64_t probes_sent; /* path probes built (dataplane/probe.h) */
	uint64_t polls, idle_polls, sleeps;
	uint64_t busy_tsc; /* TSC spent in bursts that carried packets */
	uint64_t flows_created; /* flow entries started (new or reused) */
	uint64_t flows_full; /* no free flow slot in the probe window */
	struct dp_tm_counters tm[LS_MAX_PORTS][DP_TM_CLASS_MAX];
	struct dp_mech_counters mech;
	struct dp_pfc_counters pfc;
	struct dp_credit_counters credit;
} __rte_cache_aligned;

#endif /* LONGSPAN_DP_CONF_H */
