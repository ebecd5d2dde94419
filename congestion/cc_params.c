/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cc_math.h"
#include "cc_params.h"

/* Production ECN thresholds per Gb/s of link (Alibaba, HPCC issue #21). */
#define KMIN_BYTES_PER_GBPS 4000
#define KMAX_OVER_KMIN 4
#define PMAX_PPM 200000 /* 20% */
#define DCTCP_K_DIVISOR 7 /* K > C x RTT / 7 */
#define PHANTOM_RATIO_PPM 950000 /* 95% */
#define PHANTOM_MIN_MTUS 16
#define SOJOURN_MIN_TARGETS 4
#define NIC_CUT_PERIOD_NS UINT64_C(4000) /* ConnectX rate_reduce_monitor_period */
#define CNP_INTERVAL_DC_RTTS 2
#define HOLD_DC_RTTS 2
/* A DC queue at the production Kmax drains in 16 KB x 8 bits per Gb/s: 128 us at any rate. */
#define DC_KMAX_DRAIN_NS ((uint64_t)KMAX_OVER_KMIN * KMIN_BYTES_PER_GBPS * 8)
#define FLOW_IDLE_MIN_NS UINT64_C(100000000) /* 100 ms */
#define FLOW_IDLE_RTTS 64
#define PFC_HEADROOM_MTUS 3
#define PFC_QUANTA 0xffff
#define PFC_QUANTUM_BITS 512
#define CREDIT_UPDATES_PER_BUFFER 16
#define CREDIT_REFRESH_MIN_NS UINT64_C(10000000) /* 10 ms */
#define CREDIT_REFRESH_RTTS 2

#define MAX_RATE_BPS (UINT64_C(1) << 44) /* 17.6 Tb/s */
#define MAX_RING_BYTES (UINT64_C(1) << 40) /* no overflow in the headroom sums */
#define MAX_RTT_NS (10 * CC_NS_PER_SEC)
#define BITS_NS_PER_BYTE_S (8 * CC_NS_PER_SEC) /* bytes = bps * ns / 8e9 */

uint64_t
cc_params_distance_to_rtt_ns(uint64_t distance_m)
{
	/* 4.9 us/km one way is 4.9 ns/m; twice that for the round trip. */
	return cc_mul_div(distance_m, 2 * CC_FIBRE_NS_PER_KM, 1000);
}

static uint64_t
max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t
round_up(uint64_t x, uint64_t unit)
{
	return (x + unit - 1) / unit * unit;
}

static int
fail(const char **why, const char *msg)
{
	if (why != NULL)
		*why = msg;
	return -EINVAL;
}

int
cc_params_resolve(const struct cc_link *link, const struct cc_overrides *ov,
		struct cc_derived *out, const char **why)
{
	static const struct cc_overrides none;
	struct cc_derived d;
	struct ecn_red_params red;
	uint64_t loop_bdp;

	if (ov == NULL)
		ov = &none;
	memset(&d, 0, sizeof(d));

	if (link->rate_bps == 0 || link->rate_bps > MAX_RATE_BPS)
		return fail(why, "rate_bps must be between 1 and 2^44");
	d.rate_bps = link->rate_bps;
	if (link->rtt_ns != 0)
		d.rtt_ns = link->rtt_ns;
	else if (link->distance_m != 0)
		d.rtt_ns = cc_params_distance_to_rtt_ns(link->distance_m);
	else
		return fail(why, "rtt_ns or distance_m is required");
	if (d.rtt_ns > MAX_RTT_NS)
		return fail(why, "rtt_ns must be at most 10 s");
	d.mtu_bytes = link->mtu_bytes != 0 ? link->mtu_bytes : CC_DEFAULT_MTU_BYTES;
	d.dc_rtt_ns = link->dc_rtt_ns != 0 ? link->dc_rtt_ns : CC_DEFAULT_DC_RTT_NS;
	if (d.dc_rtt_ns > MAX_RTT_NS)
		return fail(why, "dc_rtt_ns must be at most 10 s");
	d.near_source_cnp = link->near_source_cnp;
	d.loop_rtt_ns = link->near_source_cnp ? d.dc_rtt_ns : d.rtt_ns;

	d.bdp_bytes = cc_mul_div_ceil(d.rate_bps, d.rtt_ns, BITS_NS_PER_BYTE_S);
	loop_bdp = cc_mul_div_ceil(d.rate_bps, d.loop_rtt_ns, BITS_NS_PER_BYTE_S);

	d.kmin_bytes = ov->kmin_bytes;
	if (d.kmin_bytes == 0) {
		d.kmin_bytes = max_u64(cc_mul_div_ceil(d.rate_bps, KMIN_BYTES_PER_GBPS,
				CC_NS_PER_SEC), cc_mul_div_ceil(d.rate_bps, d.loop_rtt_ns,
				BITS_NS_PER_BYTE_S * DCTCP_K_DIVISOR));
		d.kmin_bytes = max_u64(d.kmin_bytes, 2 * (uint64_t)d.mtu_bytes);
	}
	d.kmax_bytes = ov->kmax_bytes != 0 ? ov->kmax_bytes : KMAX_OVER_KMIN * d.kmin_bytes;
	d.pmax_ppm = ov->pmax_ppm != 0 ? ov->pmax_ppm : PMAX_PPM;
	d.target_delay_ns = ov->target_delay_ns != 0 ? ov->target_delay_ns :
			cc_mul_div_ceil(d.kmin_bytes, BITS_NS_PER_BYTE_S, d.rate_bps);
	d.sojourn_interval_ns = max_u64(d.loop_rtt_ns, SOJOURN_MIN_TARGETS * d.target_delay_ns);
	d.phantom_ratio_ppm = ov->phantom_ratio_ppm != 0 ? ov->phantom_ratio_ppm :
			PHANTOM_RATIO_PPM;
	if (d.phantom_ratio_ppm > CC_PPM_ONE)
		return fail(why, "phantom_ratio_ppm must be at most 1000000");
	d.phantom_threshold_bytes = max_u64((uint64_t)PHANTOM_MIN_MTUS * d.mtu_bytes,
			cc_mul_div_ceil(loop_bdp, CC_PPM_ONE - d.phantom_ratio_ppm, CC_PPM_ONE));
	d.buffer_bytes = ov->buffer_bytes != 0 ? ov->buffer_bytes :
			round_up(max_u64(d.bdp_bytes, 2 * d.kmax_bytes), d.mtu_bytes);
	/* Mechanisms A and C: the DC side's loop, not the WAN's. */
	d.cnp_interval_ns = ov->cnp_interval_ns != 0 ? ov->cnp_interval_ns :
			max_u64(NIC_CUT_PERIOD_NS, CNP_INTERVAL_DC_RTTS * d.dc_rtt_ns);
	d.cut_interval_ns = ov->cut_interval_ns != 0 ? ov->cut_interval_ns : DC_KMAX_DRAIN_NS;
	d.hold_ns = ov->hold_ns != 0 ? ov->hold_ns :
			d.cut_interval_ns + HOLD_DC_RTTS * d.dc_rtt_ns;
	d.flow_idle_ns = ov->flow_idle_ns != 0 ? ov->flow_idle_ns :
			max_u64(FLOW_IDLE_MIN_NS, FLOW_IDLE_RTTS * d.rtt_ns);

	/* Mechanism B: PFC watermarks of the WAN queue, the credit buffer. */
	d.dc_rate_bps = link->dc_rate_bps != 0 ? link->dc_rate_bps : d.rate_bps;
	if (d.dc_rate_bps > MAX_RATE_BPS)
		return fail(why, "dc_rate_bps must be at most 2^44");
	if (link->dc_rx_ring_bytes > MAX_RING_BYTES)
		return fail(why, "dc_rx_ring_bytes must be at most 2^40");
	d.dc_rx_ring_bytes = link->dc_rx_ring_bytes;
	d.pfc_headroom_bytes = cc_mul_div_ceil(d.dc_rate_bps, d.dc_rtt_ns, BITS_NS_PER_BYTE_S) +
			PFC_HEADROOM_MTUS * (uint64_t)d.mtu_bytes + d.dc_rx_ring_bytes;
	d.pfc_xoff_bytes = ov->pfc_xoff_bytes;
	if (d.pfc_xoff_bytes == 0)
		d.pfc_xoff_bytes = d.buffer_bytes >= 2 * d.pfc_headroom_bytes ?
				d.buffer_bytes - d.pfc_headroom_bytes : d.buffer_bytes / 2;
	d.pfc_xon_bytes = ov->pfc_xon_bytes != 0 ? ov->pfc_xon_bytes :
			d.pfc_xoff_bytes - (d.pfc_headroom_bytes < d.pfc_xoff_bytes / 2 ?
			d.pfc_headroom_bytes : d.pfc_xoff_bytes / 2);
	d.pfc_lossless = d.pfc_xoff_bytes <= d.buffer_bytes &&
			d.buffer_bytes - d.pfc_xoff_bytes >= d.pfc_headroom_bytes;
	d.pfc_quanta = PFC_QUANTA;
	d.pfc_pause_ns = cc_mul_div_ceil((uint64_t)PFC_QUANTA * PFC_QUANTUM_BITS, CC_NS_PER_SEC,
			d.dc_rate_bps);
	d.credit_buffer_bytes = ov->credit_buffer_bytes != 0 ? ov->credit_buffer_bytes :
			round_up(d.bdp_bytes + cc_mul_div_ceil(d.rate_bps, d.pfc_pause_ns,
			BITS_NS_PER_BYTE_S), d.mtu_bytes);
	d.credit_update_bytes = max_u64(d.mtu_bytes,
			d.credit_buffer_bytes / CREDIT_UPDATES_PER_BUFFER);
	if (d.credit_update_bytes > d.credit_buffer_bytes)
		d.credit_update_bytes = d.credit_buffer_bytes;
	d.credit_refresh_ns = max_u64(CREDIT_REFRESH_MIN_NS, CREDIT_REFRESH_RTTS * d.rtt_ns);

	/* Cross-field checks, on the final values. */
	/* An override may meet a derived value here (kmax set, kmin derived). */
	red = (struct ecn_red_params){ .kmin_bytes = d.kmin_bytes, .kmax_bytes = d.kmax_bytes,
				       .pmax_ppm = d.pmax_ppm };
	if (ecn_red_params_check(&red, why) < 0)
		return -EINVAL;
	if (d.buffer_bytes < d.kmax_bytes)
		return fail(why, "buffer_bytes must be at least kmax_bytes");
	if (d.pfc_xoff_bytes > d.buffer_bytes)
		return fail(why, "pfc_xoff_bytes must be at most buffer_bytes");
	if (d.pfc_xon_bytes >= d.pfc_xoff_bytes)
		return fail(why, "pfc_xon_bytes must be below pfc_xoff_bytes");
	if (d.credit_buffer_bytes < d.mtu_bytes)
		return fail(why, "credit_buffer_bytes must be at least one MTU");
	if (2 * d.phantom_threshold_bytes > ECN_PHANTOM_MAX_CAP_BYTES)
		return fail(why, "phantom threshold above 512 MiB: lower the RTT or rate");

	*out = d;
	return 0;
}

int
cc_params_derive(const struct cc_link *link, struct cc_derived *out)
{
	return cc_params_resolve(link, NULL, out, NULL);
}

void
cc_params_marker(const struct cc_derived *d, enum ecn_marker_kind kind, bool codel_like,
		struct ecn_marker_params *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = kind;
	switch (kind) {
	case ECN_MARKER_RED:
		out->red.kmin_bytes = d->kmin_bytes;
		out->red.kmax_bytes = d->kmax_bytes;
		out->red.pmax_ppm = d->pmax_ppm;
		break;
	case ECN_MARKER_SOJOURN:
		out->sojourn.target_ns = d->target_delay_ns;
		out->sojourn.interval_ns = codel_like ? d->sojourn_interval_ns : 0;
		break;
	case ECN_MARKER_PHANTOM:
		out->phantom.line_rate_bps = d->rate_bps;
		out->phantom.ratio_ppm = d->phantom_ratio_ppm;
		out->phantom.threshold_bytes = d->phantom_threshold_bytes;
		out->phantom.cap_bytes = 0;
		break;
	default:
		break;
	}
}

/* Append to a bounded buffer, tracking the length the full text needs. */
struct text {
	char *buf;
	size_t size;
	size_t len;
};

static void text_line(struct text *t, const char *fmt, ...) __attribute__((format(__printf__, 2, 3)));

static void
text_line(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t->len < t->size ? t->buf + t->len : NULL,
			t->len < t->size ? t->size - t->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len += (size_t)n;
}

size_t
cc_params_explain(const struct cc_derived *d, char *buf, size_t size)
{
	struct text t = { .buf = buf, .size = size, .len = 0 };

	if (size > 0)
		buf[0] = '\0';
	text_line(&t, "rate_bps = %" PRIu64 "  (%.1f Gb/s)\n", d->rate_bps, d->rate_bps / 1e9);
	text_line(&t, "rtt_ns = %" PRIu64 "  (WAN round trip; 2 x 4.9 us/km of fibre)\n",
			d->rtt_ns);
	text_line(&t, "dc_rtt_ns = %" PRIu64 "  (round trip inside a DC)\n", d->dc_rtt_ns);
	text_line(&t, "loop_rtt_ns = %" PRIu64 "  (%s)\n", d->loop_rtt_ns,
			d->near_source_cnp ? "near-source CNPs close the loop inside the DC: DC RTT" :
			"marks reach senders end to end: WAN RTT");
	text_line(&t, "mtu_bytes = %" PRIu32 "\n", d->mtu_bytes);
	text_line(&t, "bdp_bytes = %" PRIu64 "  (rate x rtt / 8 = %.2f MB)\n", d->bdp_bytes,
			d->bdp_bytes / 1e6);
	text_line(&t, "kmin_bytes = %" PRIu64 "  (max(4 KB per Gb/s, rate x loop / 8 / 7) = "
			"%.3f MB)\n", d->kmin_bytes, d->kmin_bytes / 1e6);
	text_line(&t, "kmax_bytes = %" PRIu64 "  (4 x kmin = %.3f MB)\n", d->kmax_bytes,
			d->kmax_bytes / 1e6);
	text_line(&t, "pmax_ppm = %" PRIu32 "  (%.1f%% at kmax)\n", d->pmax_ppm,
			d->pmax_ppm / 1e4);
	text_line(&t, "target_delay_ns = %" PRIu64 "  (kmin drained at line rate)\n",
			d->target_delay_ns);
	text_line(&t, "sojourn_interval_ns = %" PRIu64 "  (max(loop, 4 x target), CoDel-like "
			"mode)\n", d->sojourn_interval_ns);
	text_line(&t, "phantom_ratio_ppm = %" PRIu32 "  (phantom queue drains at %.1f%% of "
			"rate)\n", d->phantom_ratio_ppm, d->phantom_ratio_ppm / 1e4);
	text_line(&t, "phantom_threshold_bytes = %" PRIu64 "  (max(16 MTU, loop BDP x "
			"(1 - ratio)))\n", d->phantom_threshold_bytes);
	text_line(&t, "buffer_bytes = %" PRIu64 "  (max(BDP, 2 x kmax) in MTUs = %.2f MB)\n",
			d->buffer_bytes, d->buffer_bytes / 1e6);
	text_line(&t, "cnp_interval_ns = %" PRIu64 "  (max(4 us NIC cut period, 2 x DC RTT))\n",
			d->cnp_interval_ns);
	text_line(&t, "cut_interval_ns = %" PRIu64 "  (a DC queue at the production Kmax, "
			"16 KB per Gb/s, drains: the same at any rate)\n", d->cut_interval_ns);
	text_line(&t, "hold_ns = %" PRIu64 "  (cut_interval + 2 x dc_rtt)\n", d->hold_ns);
	text_line(&t, "flow_idle_ns = %" PRIu64 "  (max(100 ms, 64 x rtt))\n", d->flow_idle_ns);
	text_line(&t, "dc_rate_bps = %" PRIu64 "  (DC port rate, PFC)\n", d->dc_rate_bps);
	text_line(&t, "pfc_headroom_bytes = %" PRIu64 "  (dc_rate x dc_rtt / 8 + 3 MTU + "
			"dc_rx_ring %" PRIu64 "%s)\n", d->pfc_headroom_bytes, d->dc_rx_ring_bytes,
			d->dc_rx_ring_bytes != 0 ? ": the DC ring a sleeping worker reads late" : "");
	text_line(&t, "pfc_xoff_bytes = %" PRIu64 "  (buffer - headroom%s)\n", d->pfc_xoff_bytes,
			d->pfc_lossless ? "" : "; buffer under 2 headrooms: NOT lossless");
	text_line(&t, "pfc_xon_bytes = %" PRIu64 "  (xoff - min(headroom, xoff / 2))\n",
			d->pfc_xon_bytes);
	text_line(&t, "pfc_pause_ns = %" PRIu64 "  (%u quanta of 512 bit times, refreshed at "
			"half)\n", d->pfc_pause_ns, (unsigned int)d->pfc_quanta);
	text_line(&t, "credit_buffer_bytes = %" PRIu64 "  (BDP + rate x pause, in MTUs = "
			"%.2f MB)\n", d->credit_buffer_bytes, d->credit_buffer_bytes / 1e6);
	text_line(&t, "credit_update_bytes = %" PRIu64 "  (max(MTU, credit buffer / 16))\n",
			d->credit_update_bytes);
	text_line(&t, "credit_refresh_ns = %" PRIu64 "  (max(10 ms, 2 x rtt))\n",
			d->credit_refresh_ns);
	return t.len;
}
