/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CC_PARAMS_H
#define LONGSPAN_CC_PARAMS_H

/*
 * Distance-aware parameter derivation: one function turns a WAN link (rate,
 * RTT or fibre length, MTU) into every congestion setting the gateway needs.
 * The gateway (config value 0 = derive), the simulator and `longspanctl
 * tune` all call it, so the three always agree.
 *
 * Formulas (C = rate in bytes/s, RTT = WAN round trip, loop = the RTT of the
 * control loop the WAN queue's marks drive: the WAN RTT for end-to-end
 * DCQCN, the intra-DC RTT when mechanism A answers marks with near-source
 * CNPs). Numbers in brackets are at 100 Gb/s and 1 ms.
 *
 *   RTT        = rtt_ns, or 2 x 4.9 us/km x distance        (light in fibre)
 *   BDP        = C x RTT                                     [12.5 MB]
 *   Kmin       = max(4 KB per Gb/s, C x loop / 7)            [1.79 MB; 400 KB with A]
 *   Kmax       = 4 x Kmin                                    [7.14 MB; 1.6 MB]
 *   Pmax       = 20%
 *   target     = Kmin / C (sojourn marker; the same operating point in time)
 *                                                            [143 us; 32 us]
 *   interval   = max(loop, 4 x target) (CoDel-like sojourn mode)
 *   phantom    = drain at 95% of C; mark above
 *                max(16 MTU, loop BDP x 5%)                  [625 KB; 64 KB]
 *   buffer     = max(BDP, 2 x Kmax), rounded up to an MTU    [14.3 MB; 12.5 MB]
 *   CNP int.   = max(4 us, 2 x DC RTT)                       [20 us]
 *   cut int.   = DC Kmax / D, DC Kmax = 16 KB per Gb/s of D,
 *                the DC port's rate: the same at any D       [128 us]
 *   hold       = cut int. + 2 x DC RTT                       [148 us]
 *   flow idle  = max(100 ms, 64 x RTT)                       [100 ms]
 *
 * Mechanism B (PFC at the DC port, credits on the WAN hop), with D = the DC
 * port's rate (the WAN rate unless given) and MTU the L3 MTU:
 *
 *   headroom   = D x DC RTT + 3 MTU + R                      [137 KB]
 *   XOFF       = buffer - headroom (buffer / 2 when the buffer
 *                is under 2 headrooms: then not lossless)    [14.1 MB]
 *   XON        = XOFF - min(headroom, XOFF / 2)              [14.0 MB]
 *   pause      = 65535 quanta of 512 bit times at D          [336 us]
 *   credit buf = BDP + C x pause, in MTUs                    [16.7 MB]
 *   credit upd = max(MTU, credit buf / 16), refreshed every
 *                max(10 ms, 2 x RTT)                         [1.05 MB; 10 ms]
 *
 * - Headroom: what still arrives after the gateway decides to pause: one
 *   DC round trip at the DC rate (the pause travels to the sender, the
 *   sender's last bytes travel back), one MTU the sender had started when
 *   the pause reached it, one MTU ahead of the pause on the gateway's own
 *   transmit side and one for the sender's reaction time (802.1Qbb allows
 *   a PFC response delay of a few thousand bit times, under one 4 KB MTU
 *   at any rate). The PFC frame itself is 64 bytes and is neglected.
 *   R is the DC port's full receive ring (dc_rx_ring_bytes) when the
 *   worker that reads it sleeps while idle: the gateway decides to pause
 *   only once it reads the ring, and a late wake-up finds it full (0 for
 *   a worker that busy-polls its own core, the [137 KB] example).
 * - XON a headroom below XOFF: after a resume the queue must not run dry
 *   before new data arrives one DC round trip later, which needs more than
 *   C x DC RTT queued; a headroom of hysteresis covers that whenever
 *   D >= C, and keeps the pause rate to about one per DC round trip.
 * - The longest pause (65535 quanta) is sent and refreshed at half its
 *   length, so a lost pause frame never releases the senders.
 * - Credit buffer: at least one WAN BDP keeps the WAN busy (credit returns
 *   one RTT after the bytes it frees were sent), plus what the WAN keeps
 *   delivering while the DC port is paused for one full pause.
 * - Credit updates: often enough that the sender never waits for credit
 *   the receiver already has (16 per buffer; a waiting sender says so and
 *   is answered at once), and otherwise only on a slow refresh that
 *   repairs a lost update (the counters are cumulative). The refresh is
 *   what an idle hop costs, one control packet each way: at 10 ms that is
 *   200 frames/s, 1% of a 17 Mb/s link, where a quarter RTT at 10 km
 *   (25 us) was 80,000/s. Two RTTs at least, so that a refresh never
 *   overtakes the answer to the previous one.
 *
 * Why (numbers from docs/congestion-notes.md):
 * - Kmin: DCTCP's analysis gives full throughput when the marking threshold
 *   K exceeds C x RTT / 7, where RTT is the delay of the feedback loop;
 *   DCQCN reuses DCTCP's marking and has the same blind window. Production
 *   settings are not scaled by RTT: Alibaba 100 KB/400 KB at 25G scaled
 *   linearly with bandwidth to 400 KB/1.6 MB at 100G (4 and 16 KB per
 *   Gb/s), NVIDIA 150 KB/1500 KB. We keep the production values as a
 *   floor (they are right for the short intra-DC loop) and raise Kmin with
 *   the loop's BDP: at 1 ms a 400 KB Kmin is 1/31 of the 12.5 MB blind
 *   window, so marking would start long before any sender could react and
 *   keep cutting on stale feedback.
 * - Kmax = 4 Kmin and Pmax = 20% are the production ratio and probability
 *   (Alibaba; THEMIS's KMIN/KMAX/PMAX maps), a gentle ramp that spreads
 *   marks across flows instead of the paper's 1% that assumed 40G and a
 *   tens-of-us loop.
 * - Sojourn target: Kmin drained at line rate, so sojourn and RED mark at
 *   the same standing queue; in time units it stays right when the shaper
 *   rate changes. The CoDel-like interval is the loop RTT (RFC 8289: the
 *   interval is the RTT the queue serves), but at least 4 targets so that
 *   a burst of one target's worth is not taken for a standing queue.
 * - Phantom queue at 95% (Uno, HULL): the threshold is the excess that
 *   builds in one loop when the offered load is at line rate, so a
 *   transient burst shorter than a loop passes and a persistent overload is
 *   signalled within about one loop.
 * - Buffer: at least one BDP (the in-flight data when all senders are
 *   blind), and twice Kmax so that the marking ramp has as much room above
 *   it as below before tail drop.
 * - CNP interval (mechanism A): a sender's cut needs one DC RTT to reach
 *   the marking queue and about as long again to drain what it had
 *   queued; CNPs in between cut again for the same congestion. Never
 *   below a ConnectX RP's 4 us cut period (rate_reduce_monitor_period).
 * - Cut interval (mechanism C): the time the receiver's DC port needs to
 *   drain a queue at the top of its marking ramp (the production Kmax,
 *   16 KB per Gb/s, the same 128 us at any rate), so a cut is not followed
 *   by another for marks that were queued before it took effect; CNPs in
 *   between only restart the hold.
 * - Hold: a cut must outlast one cut interval, or it could lapse between
 *   the CNPs of the episode it answers, plus two DC RTTs for the last
 *   marks of the drained queue to come back as CNPs. Not the WAN RTT: the
 *   sender's own reaction to a forwarded CNP arrives a WAN RTT later, but
 *   holding that long keeps the receiver's link idle once its queue has
 *   drained (mix_50%: inter-DC slowdown 1.84 with a WAN-RTT hold, 1.36
 *   with this one; docs/congestion.md, "Defaults").
 * - Flow idle: an idle RDMA QP keeps its QPN for its lifetime; 64 RTTs and
 *   at least 100 ms keep learned QPNs across application pauses while dead
 *   entries still clear in well under a second at 100 km.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ecn_marker.h"

#define CC_FIBRE_NS_PER_KM 4900 /* one way */
#define CC_DEFAULT_MTU_BYTES 4096
#define CC_DEFAULT_DC_RTT_NS UINT64_C(10000)

struct cc_link {
	uint64_t rate_bps; /* WAN link rate; > 0 */
	uint64_t rtt_ns; /* WAN RTT; 0 = from distance_m */
	uint64_t distance_m; /* fibre length, used when rtt_ns is 0 */
	uint32_t mtu_bytes; /* L3 MTU; 0 = CC_DEFAULT_MTU_BYTES */
	uint64_t dc_rtt_ns; /* base RTT inside a DC; 0 = CC_DEFAULT_DC_RTT_NS */
	bool near_source_cnp; /* mechanism A answers this queue's marks */
	uint64_t dc_rate_bps; /* the DC port's rate (PFC); 0 = rate_bps */
	/*
	 * What the DC port's receive queue holds when full (descriptors x the
	 * largest frame), if the worker may read it late (it sleeps while
	 * idle); 0 when it busy-polls. Part of the PFC headroom.
	 */
	uint64_t dc_rx_ring_bytes;
};

/* Explicit settings; 0 = derive. Fields match struct ls_congestion_conf. */
struct cc_overrides {
	uint64_t kmin_bytes;
	uint64_t kmax_bytes;
	uint32_t pmax_ppm;
	uint64_t target_delay_ns;
	uint32_t phantom_ratio_ppm;
	uint64_t buffer_bytes;
	uint64_t cnp_interval_ns;
	uint64_t cut_interval_ns;
	uint64_t hold_ns;
	uint64_t flow_idle_ns;
	uint64_t pfc_xoff_bytes;
	uint64_t pfc_xon_bytes;
	uint64_t credit_buffer_bytes;
};

struct cc_derived {
	uint64_t rate_bps;
	uint64_t rtt_ns; /* WAN RTT used */
	uint64_t loop_rtt_ns; /* marking feedback loop */
	uint64_t dc_rtt_ns;
	uint32_t mtu_bytes;
	uint64_t bdp_bytes;
	uint64_t kmin_bytes;
	uint64_t kmax_bytes;
	uint32_t pmax_ppm;
	uint64_t target_delay_ns;
	uint64_t sojourn_interval_ns;
	uint32_t phantom_ratio_ppm;
	uint64_t phantom_threshold_bytes;
	uint64_t buffer_bytes;
	uint64_t cnp_interval_ns; /* mechanism A, per QP */
	uint64_t cut_interval_ns; /* mechanism C: least time between two cuts */
	uint64_t hold_ns; /* mechanism C: a cut lasts this long after a CNP */
	uint64_t flow_idle_ns;
	bool near_source_cnp; /* as in the link: loop_rtt_ns is the DC RTT */
	/* Mechanism B. */
	uint64_t dc_rate_bps;
	uint64_t dc_rx_ring_bytes; /* as in the link, inside pfc_headroom_bytes */
	uint64_t pfc_headroom_bytes;
	uint64_t pfc_xoff_bytes; /* of the WAN queue (buffer_bytes) */
	uint64_t pfc_xon_bytes;
	uint16_t pfc_quanta; /* in each pause sent */
	uint64_t pfc_pause_ns; /* pfc_quanta at dc_rate_bps */
	bool pfc_lossless; /* pfc_xoff_bytes + pfc_headroom_bytes <= buffer_bytes */
	uint64_t credit_buffer_bytes; /* receiver buffer per peer and priority */
	uint64_t credit_update_bytes;
	uint64_t credit_refresh_ns; /* an update without news at most this often */
};

/* One-way fibre delay x 2 for distance_m metres of fibre. */
uint64_t cc_params_distance_to_rtt_ns(uint64_t distance_m);

/*
 * Derive everything for LINK into OUT. Returns 0, or -EINVAL when the rate
 * is 0, neither RTT nor distance is given, or the result would overflow
 * (rates above 2^44 b/s or RTTs above 10 s).
 */
int cc_params_derive(const struct cc_link *link, struct cc_derived *out);

/*
 * Like cc_params_derive(), with each non-zero field of OV (may be NULL)
 * replacing the derived value; values derived from an overridden one follow
 * it (Kmax from Kmin, target from Kmin, buffer from Kmax, hold from the cut
 * interval). Then validates
 * the whole set: Kmin < Kmax, Kmax - Kmin <= 2^32, Pmax and ratio <= 100%,
 * buffer >= Kmax, PFC XON < XOFF <= buffer, credit buffer >= MTU. On
 * error returns -EINVAL, sets *why (if not NULL) to a message naming the
 * key ("kmin must be below kmax") and leaves
 * OUT untouched.
 */
int cc_params_resolve(const struct cc_link *link, const struct cc_overrides *ov,
		struct cc_derived *out, const char **why);

/*
 * Fill a marker's parameters from D for the WAN queue at D's rate: RED
 * (Kmin, Kmax, Pmax), sojourn (target; interval 0 unless codel_like) or
 * phantom (ratio, threshold).
 */
void cc_params_marker(const struct cc_derived *d, enum ecn_marker_kind kind, bool codel_like,
		struct ecn_marker_params *out);

/*
 * The derivation as text for `longspanctl tune` and the docs: one
 * "name = value unit  (formula)" line per quantity, '\n'-terminated, in
 * BUF (always NUL-terminated when size > 0). Returns the length the full
 * text needs, like snprintf, so a caller can size BUF; 4096 bytes suffice.
 */
size_t cc_params_explain(const struct cc_derived *d, char *buf, size_t size);

#endif /* LONGSPAN_CC_PARAMS_H */
