/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * show tm (and its alias show queues): the WAN traffic manager's queues,
 * the marker and parameters they use, and mechanisms A, B and C.
 */

#include <assert.h>
#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "api.h"
#include "api_cmds.h"
#include "config.h"
#include "runtime.h"
#include "congestion/ecn_marker.h"
#include "congestion/qpn_learn.h"

static const char *const api_tm_class_names[DP_TM_CLASS_MAX] = {
	[DP_TM_CLASS_CONTROL] = "control",
	[DP_TM_CLASS_ROCE] = "roce",
	[DP_TM_CLASS_OTHER] = "other",
};
static_assert(DP_TM_CLASS_MAX == 3, "name the new enum dp_tm_class value in api_tm_class_names");

/*
 * An upper bound of the PERMILLE quantile of a log2 histogram (bucket i
 * holds [2^i, 2^(i+1)), bucket 0 also 0): the upper end of the bucket the
 * quantile falls in, capped at the largest value seen (the last bucket is
 * open-ended). The true quantile lies in the bucket, so it is at most
 * this and more than half of it. False when the histogram is empty.
 */
static bool
api_hist_quantile(const uint64_t hist[DP_HIST_BUCKETS], unsigned int permille, uint64_t max,
		  uint64_t *out)
{
	unsigned __int128 rank;
	uint64_t total = 0, seen = 0;
	unsigned int b;

	for (b = 0; b < DP_HIST_BUCKETS; b++)
		total += hist[b];
	if (total == 0)
		return false;
	/* The smallest count of samples that is at least PERMILLE of them. */
	rank = ((unsigned __int128)total * permille + 999) / 1000;
	for (b = 0; b < DP_HIST_BUCKETS; b++) {
		seen += hist[b];
		if (seen >= rank)
			break;
	}
	*out = b + 1 < DP_HIST_BUCKETS ? RTE_MIN(UINT64_C(1) << (b + 1), max) : max;
	return true;
}

static void
api_fmt_quantile(struct fmt *f, const char *key, const uint64_t hist[DP_HIST_BUCKETS],
		 unsigned int permille, uint64_t max)
{
	uint64_t v;

	if (api_hist_quantile(hist, permille, max, &v))
		fmt_u64(f, key, v);
	else
		fmt_none(f, key);
}

static void
api_tm_class_emit(struct fmt *f, const char *name, const struct dp_tm_counters *c)
{
	fmt_open(f, name, FMT_OBJ);
	fmt_u64(f, "enq_pkts", c->enq_pkts);
	fmt_u64(f, "enq_bytes", c->enq_bytes);
	fmt_u64(f, "deq_pkts", c->deq_pkts);
	fmt_u64(f, "deq_bytes", c->deq_bytes);
	fmt_u64(f, "drops", c->drops);
	/* Congestion signals: the marker's choices, CE written, mechanism A's answers. */
	fmt_u64(f, "mark_decisions", c->mark_decisions);
	fmt_u64(f, "ce_written", c->ce_written);
	fmt_u64(f, "ce_cleared", c->ce_cleared);
	fmt_u64(f, "cnp_sent", c->cnp_sent);
	fmt_u64(f, "cnp_suppressed", c->cnp_suppressed);
	fmt_u64(f, "cnp_no_qpn", c->cnp_no_qpn);
	fmt_u64(f, "cnp_failed", c->cnp_failed);
	fmt_u64(f, "depth_bytes", c->depth_bytes);
	fmt_u64(f, "depth_pkts", c->depth_pkts);
	fmt_u64(f, "depth_max_bytes", c->depth_max_bytes);
	api_fmt_quantile(f, "depth_p99_bytes", c->depth_hist, 990, c->depth_max_bytes);
	if (c->deq_pkts != 0)
		fmt_u64(f, "sojourn_mean_ns", c->sojourn_ns_sum / c->deq_pkts);
	else
		fmt_none(f, "sojourn_mean_ns");
	api_fmt_quantile(f, "sojourn_p50_ns", c->sojourn_hist, 500, c->sojourn_ns_max);
	api_fmt_quantile(f, "sojourn_p99_ns", c->sojourn_hist, 990, c->sojourn_ns_max);
	fmt_u64(f, "sojourn_max_ns", c->sojourn_ns_max);
	fmt_close(f);
}

/* One parameter of the set in use and whether [congestion] set it. */
static void
api_tm_param(struct fmt *f, const char *key, uint64_t value, const char *source)
{
	fmt_open(f, key, FMT_ROW);
	fmt_u64(f, "value", value);
	fmt_str(f, "source", source);
	fmt_close(f);
}

static const char *
api_tm_source(uint64_t configured)
{
	return configured != 0 ? "config" : "derived";
}

/*
 * What the WAN queue works with: the inputs (port link rate and MTU, the
 * largest RTT of its peers), and for every derivable value whether the
 * config set it (non-zero [congestion] key) or cc_params_resolve()
 * derived it.
 */
static void
api_tm_params_emit(struct fmt *f, const struct cc_derived *d, const struct ls_congestion_conf *cg)
{
	fmt_open(f, "parameters", FMT_OBJ);
	fmt_key_width(f, FMT_KEY_WIDTH);
	fmt_notef(f, "%-*s%*s  %s", FMT_KEY_WIDTH, "parameter", FMT_NUM_WIDTH + 1, "value",
		  "source");
	api_tm_param(f, "rate_bps", d->rate_bps, "input");
	api_tm_param(f, "rtt_ns", d->rtt_ns, "input");
	api_tm_param(f, "mtu_bytes", d->mtu_bytes, "input");
	api_tm_param(f, "dc_rtt_ns", d->dc_rtt_ns, "default");
	api_tm_param(f, "loop_rtt_ns", d->loop_rtt_ns, "derived");
	api_tm_param(f, "bdp_bytes", d->bdp_bytes, "derived");
	api_tm_param(f, "kmin_bytes", d->kmin_bytes, api_tm_source(cg->kmin_bytes));
	api_tm_param(f, "kmax_bytes", d->kmax_bytes, api_tm_source(cg->kmax_bytes));
	api_tm_param(f, "pmax_ppm", d->pmax_ppm, api_tm_source(cg->pmax_ppm));
	api_tm_param(f, "target_delay_ns", d->target_delay_ns, api_tm_source(cg->target_delay_ns));
	api_tm_param(f, "sojourn_interval_ns", d->sojourn_interval_ns, "derived");
	api_tm_param(f, "phantom_ratio_ppm", d->phantom_ratio_ppm,
		     api_tm_source(cg->phantom_ratio_ppm));
	api_tm_param(f, "phantom_threshold_bytes", d->phantom_threshold_bytes, "derived");
	api_tm_param(f, "buffer_bytes", d->buffer_bytes, api_tm_source(cg->buffer_bytes));
	api_tm_param(f, "cnp_interval_ns", d->cnp_interval_ns, api_tm_source(cg->cnp_interval_ns));
	api_tm_param(f, "cut_interval_ns", d->cut_interval_ns, api_tm_source(cg->cut_interval_ns));
	api_tm_param(f, "hold_ns", d->hold_ns, api_tm_source(cg->hold_ns));
	api_tm_param(f, "flow_idle_ns", d->flow_idle_ns, api_tm_source(cg->flow_idle_ns));
	fmt_close(f);
}

/* The marker's own parameters, as tm_sync() gives them to the queues. */
static void
api_tm_marker_emit(struct fmt *f, const struct dp_tm_conf *tm)
{
	const struct ecn_marker_params *m = &tm->marker;

	fmt_str(f, "marker", ecn_marker_kind_name(m->kind));
	fmt_str(f, "mark_at", tm->mark_at_dequeue ? "dequeue" : "enqueue");
	fmt_open(f, "thresholds", FMT_OBJ);
	switch (m->kind) {
	case ECN_MARKER_RED:
		fmt_u64(f, "kmin_bytes", m->red.kmin_bytes);
		fmt_u64(f, "kmax_bytes", m->red.kmax_bytes);
		fmt_u64(f, "pmax_ppm", m->red.pmax_ppm);
		break;
	case ECN_MARKER_SOJOURN:
		fmt_u64(f, "target_ns", m->sojourn.target_ns);
		fmt_u64(f, "interval_ns", m->sojourn.interval_ns);
		break;
	case ECN_MARKER_PHANTOM:
		fmt_u64(f, "line_rate_bps", m->phantom.line_rate_bps);
		fmt_u64(f, "ratio_ppm", m->phantom.ratio_ppm);
		fmt_u64(f, "threshold_bytes", m->phantom.threshold_bytes);
		break;
	case ECN_MARKER_NONE:
	case ECN_MARKER_KIND_MAX:
		break;
	}
	fmt_close(f);
}

/*
 * WAN port PORT: its queue settings, and each class queue's counters over
 * every worker from SUM (runtime_counters_sum: counters and gauges add up,
 * as each worker has its own queues; the maxima are maxima).
 */
static void
api_tm_port_emit(struct api_ctx *ctx, const struct ls_config *cfg, unsigned int port,
		 const struct dp_counters *sum)
{
	const struct dp_tm_conf *tm = &ctx->rt->dp->tm[port];
	struct fmt *f = ctx->fmt;
	unsigned int cls;

	fmt_open(f, cfg->ports[port].name, FMT_OBJ);
	fmt_bool(f, "enabled", tm->enabled);
	if (tm->enabled) {
		fmt_u64(f, "rate_bps", tm->derived.rate_bps);
		fmt_u64(f, "buffer_bytes", tm->buffer_bytes);
		api_tm_marker_emit(f, tm);
		api_tm_params_emit(f, &tm->derived, &cfg->cong);
	}
	fmt_open(f, "classes", FMT_OBJ);
	for (cls = 0; cls < DP_TM_CLASS_MAX; cls++)
		api_tm_class_emit(f, api_tm_class_names[cls], &sum->tm[port][cls]);
	fmt_close(f);
	fmt_close(f);
}

static void
api_learn_emit(struct fmt *f, const char *key, const uint64_t counts[QPN_LEARN_RESULT_MAX])
{
	unsigned int r;

	fmt_open(f, key, FMT_OBJ);
	for (r = 0; r < QPN_LEARN_RESULT_MAX; r++)
		fmt_u64(f, qpn_learn_result_name((enum qpn_learn_result)r), counts[r]);
	fmt_close(f);
}

static const char *
api_ce_policy_name(enum proxy_cnp_ce_policy policy)
{
	switch (policy) {
	case PROXY_CNP_CE_KEEP:
		return "keep";
	case PROXY_CNP_CE_CLEAR_SENT:
		return "clear_sent";
	case PROXY_CNP_CE_CLEAR_COVERED:
		return "clear_covered";
	}
	return "?";
}

/* Mechanisms A and C: settings in use and counters over every worker. */
static void
api_mech_emit(struct fmt *f, const struct dp_mech_conf *m, const struct dp_mech_counters *c)
{
	fmt_open(f, "mechanism_a", FMT_OBJ);
	fmt_bool(f, "enabled", (m->mechanisms & LS_MECH_A) != 0);
	fmt_u64(f, "cnp_interval_ns", m->cnp.interval_ns);
	fmt_u64(f, "cnp_dscp", m->cnp_dscp);
	fmt_str(f, "ce_policy", api_ce_policy_name(m->cnp.ce_policy));
	fmt_u64(f, "cnp_sent", c->cnp_sent);
	fmt_u64(f, "cnp_suppressed", c->cnp_suppressed);
	fmt_u64(f, "cnp_no_qpn", c->cnp_no_qpn);
	fmt_u64(f, "cnp_no_neigh", c->cnp_no_neigh);
	fmt_u64(f, "cnp_no_mbuf", c->cnp_no_mbuf);
	fmt_u64(f, "cnp_tx_full", c->cnp_tx_full);
	fmt_u64(f, "ce_cleared", c->ce_cleared);
	api_learn_emit(f, "learner", c->learn);
	fmt_close(f);
	fmt_open(f, "mechanism_c", FMT_OBJ);
	fmt_bool(f, "enabled", (m->mechanisms & LS_MECH_C) != 0);
	fmt_u64(f, "hold_ns", m->trp.hold_ns);
	fmt_u64(f, "cut_interval_ns", m->trp.cut_interval_ns);
	fmt_bool(f, "cnp_forward", m->c_policy.forward_cnp);
	fmt_u64(f, "cnp_forward_gap_ns", m->c_policy.cnp_gap_ns);
	fmt_u64(f, "cnp_forward_backlog_bytes", m->c_policy.forward_backlog_bytes);
	fmt_u64(f, "trp_cnps", c->trp_cnps);
	fmt_u64(f, "trp_no_flow", c->trp_no_flow);
	fmt_u64(f, "trp_table_full", c->trp_table_full);
	fmt_u64(f, "trp_upstream_ce", c->trp_upstream_ce);
	fmt_u64(f, "trp_activations", c->trp_activations);
	fmt_u64(f, "trp_delayed", c->trp_delayed);
	fmt_u64(f, "trp_released", c->trp_released);
	fmt_u64(f, "trp_active", c->trp_active);
	fmt_u64(f, "trp_queued", c->trp_queued);
	api_learn_emit(f, "learner", c->learn_dst);
	fmt_close(f);
}

void
api_credit_emit(struct fmt *f, const struct dp_lossless_conf *l, const struct dp_credit_counters *c)
{
	fmt_open(f, "credit", FMT_OBJ);
	fmt_bool(f, "enabled", l->credit_any);
	fmt_u64(f, "sent_bytes", c->sent_bytes);
	fmt_u64(f, "available_bytes", c->available_bytes);
	fmt_u64(f, "blocked", c->blocked);
	fmt_u64(f, "blocked_ns", c->blocked_ns);
	fmt_u64(f, "grants_rx", c->grants_rx);
	fmt_u64(f, "grants_stale", c->grants_stale);
	fmt_u64(f, "reports_rx", c->reports_rx);
	fmt_u64(f, "grants_tx", c->grants_tx);
	fmt_u64(f, "ctrl_tx", c->ctrl_tx);
	fmt_u64(f, "ctrl_failed", c->ctrl_failed);
	fmt_u64(f, "other_priority", c->other_priority);
	fmt_u64(f, "arrived_bytes", c->arrived_bytes);
	fmt_u64(f, "occupancy_bytes", c->occupancy_bytes);
	fmt_u64(f, "overrun_bytes", c->overrun_bytes);
	fmt_u64(f, "lost_bytes", c->lost_bytes);
	fmt_u64(f, "sender_restarts", c->sender_restarts);
	fmt_close(f);
}

/* Mechanism B at the DC port and on the WAN hop: settings in use and counters over every worker. */
static void
api_lossless_emit(struct fmt *f, const struct dp_lossless_conf *l, const struct dp_pfc_counters *c,
		  const struct dp_credit_counters *cr)
{
	unsigned int i;

	fmt_open(f, "mechanism_b", FMT_OBJ);
	fmt_bool(f, "enabled", l->enabled);
	fmt_u64(f, "data_priority", l->data_priority);
	fmt_u64(f, "xoff_bytes", l->pfc.xoff_bytes);
	fmt_u64(f, "xon_bytes", l->pfc.xon_bytes);
	fmt_u64(f, "pause_quanta", l->pfc.pause_quanta);
	fmt_u64(f, "rx_frames", c->rx_frames);
	fmt_u64(f, "held", c->held);
	fmt_u64(f, "released", c->released);
	fmt_u64(f, "queued", c->queued);
	fmt_u64(f, "tx_failed", c->tx_failed);
	fmt_u64(f, "tx_lapses", c->tx_lapses);
	fmt_u64(f, "tx_lapsed_ns", c->tx_lapsed_ns);
	for (i = 0; i < PFC_PRIORITIES; i++) {
		static const char *const names[PFC_PRIORITIES] = { "priority_0", "priority_1",
			"priority_2", "priority_3", "priority_4", "priority_5", "priority_6",
			"priority_7" };

		fmt_open(f, names[i], FMT_OBJ);
		fmt_u64(f, "rx_pauses", c->rx_pauses[i]);
		fmt_u64(f, "rx_paused_ns", c->rx_paused_ns[i]);
		fmt_u64(f, "tx_pauses", c->tx_pauses[i]);
		fmt_u64(f, "tx_resumes", c->tx_resumes[i]);
		fmt_u64(f, "tx_paused_ns", c->tx_paused_ns[i]);
		fmt_close(f);
	}
	api_credit_emit(f, l, cr);
	fmt_close(f);
}

int
api_show_tm(struct api_ctx *ctx, int argc, char **argv)
{
	struct api_page pg = { 0, 0 };
	const struct api_opt opts[] = { API_PAGE_OPTS(&pg) };
	const struct ls_config *cfg;
	unsigned int wan[LS_MAX_PORTS];
	unsigned int n_wan = 0, i, first, end;
	struct dp_counters sum;
	int n_pos, index, rc;

	rc = api_opts_parse(ctx, argc, argv, opts, RTE_DIM(opts), 1, &n_pos);
	if (rc < 0)
		return rc;
	cfg = api_need_cfg(ctx);
	if (cfg == NULL)
		return -ENOENT;
	if (ctx->rt->dp == NULL) {
		api_error(ctx, "no dataplane configuration published");
		return -ENOENT;
	}
	for (i = 0; i < cfg->n_ports && i < ctx->rt->dp->n_ports; i++)
		if (cfg->ports[i].role == LS_PORT_WAN)
			wan[n_wan++] = i;
	index = -1;
	for (i = 0; n_pos == 1 && index < 0 && i < n_wan; i++)
		if (strcmp(cfg->ports[wan[i]].name, argv[0]) == 0)
			index = (int)i;
	rc = api_page_select(ctx, n_pos == 1 ? argv[0] : NULL, index, "WAN port", &pg, n_wan,
			     &first, &end);
	if (rc < 0)
		return rc;
	runtime_counters_sum(ctx->rt, &sum);
	fmt_str(ctx->fmt, "mechanisms", conf_mech_name(ctx->rt->dp->mech.mechanisms));
	fmt_notef(ctx->fmt, "(p50, p99: upper end of the log2 histogram bucket, at most the max)");
	fmt_open(ctx->fmt, "ports", FMT_OBJ);
	for (i = first; i < end; i++)
		api_tm_port_emit(ctx, cfg, wan[i], &sum);
	fmt_close(ctx->fmt);
	if (n_pos == 0)
		api_page_emit(ctx, &pg, n_wan, "WAN ports");
	api_mech_emit(ctx->fmt, &ctx->rt->dp->mech, &sum.mech);
	api_lossless_emit(ctx->fmt, &ctx->rt->dp->lossless, &sum.pfc, &sum.credit);
	return 0;
}
