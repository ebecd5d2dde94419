/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Outputs of a run, all in the --out directory:
 *   fct.txt      HPCC format, one line per finished flow in completion order:
 *                sip dip sport dport size start_ns fct_ns standalone_fct_ns
 *   summary.json FCT and slowdown (avg, p50, p99) for intra-DC, inter-DC and
 *                all flows and by size bin ("partial": true when a signal
 *                stopped the run early); PFC; drops; WAN utilisation;
 *                queue p99 per node role; CNPs; gateway counters; events
 *                and wall time
 *   queues.csv   egress queue bytes of every gateway and ToR port (and the
 *                gateway shaper DRAM) every ts_interval
 *   rates.csv    DCQCN rate and goodput of flows >= ts_min_flow_bytes
 *   cnps.csv     with [sim] cnp_log: every CNP a sender acts on
 *   flows.csv    one row per flow in flow.txt order: endpoints, class, size,
 *                FCT, slowdown and what congestion control did to it (CNPs
 *                by source, rate cuts; first cut, gateway mark, CE at the
 *                receiver and CNP at the sender; bytes acked and lost)
 * Percentiles use linear interpolation between order statistics (numpy's
 * default), as THEMIS's analysis scripts do.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim.h"
#include "control/conf_mech.h"
#include "sim_gw.h"
#include "sim_trace.h"

struct sim_out {
	char dir[1024];
	FILE *fct;
	FILE *queues;
	FILE *rates;
	FILE *cnps;		/* [sim] cnp_log */
	char *fct_buf;
	uint32_t *qports;	/* ports in queues.csv */
	uint32_t nqports;
	uint32_t *sports;	/* switch ports whose queue depth is sampled */
	uint8_t *sport_role;	/* their node's role */
	uint8_t *sport_busy;	/* the port has carried traffic (then it stays sampled): 1, 2 for a WAN port */
	uint32_t nsports;
	char *row;		/* one time-series row, formatted by hand */
	uint32_t *ts_flows;	/* active flows in rates.csv, in index (start) order */
	uint32_t nts_flows;
	uint64_t next_ts_ns;
	uint64_t last_ts_ns;
	bool sampling;
};

static int sim_out_flows_csv(struct sim *s);

/* Creates DIR/NAME for writing; NULL (with the reason on stderr) if it cannot. */
FILE *
sim_out_create(const char *dir, const char *name)
{
	char path[1200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		fprintf(stderr, "%s: cannot create: %s\n", path, strerror(errno));
	return f;
}

static FILE *
sim_out_file(struct sim_out *o, const char *name)
{
	return sim_out_create(o->dir, name);
}

int
sim_out_open(struct sim *s, const char *dir)
{
	struct sim_out *o = calloc(1, sizeof(*o));
	uint32_t i;

	if (o == NULL)
		return -ENOMEM;
	s->out = o;
	snprintf(o->dir, sizeof(o->dir), "%s", dir);
	o->sports = malloc(sizeof(uint32_t) * (s->nports + 1));
	o->sport_role = malloc(s->nports + 1);
	o->sport_busy = calloc(s->nports + 1, 1);
	/* The widest row: rates.csv's or queues.csv's, 21 characters a number. */
	o->row = malloc(21 * ((size_t)s->nports + s->ngws + 8));
	o->ts_flows = malloc(sizeof(uint32_t) * (s->nflows + 1));
	if (o->sports == NULL || o->sport_role == NULL || o->sport_busy == NULL || o->row == NULL ||
	    o->ts_flows == NULL)
		return -ENOMEM;
	for (i = 0; i < s->nports; i++) {
		uint8_t role = s->nodes[s->ports[i].node].role;

		if (role == SIM_ROLE_HOST)
			continue;
		o->sport_role[o->nsports] = role;
		o->sports[o->nsports++] = i;
	}
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "%s: cannot create directory: %s\n", dir, strerror(errno));
		return -errno;
	}
	o->fct = sim_out_file(o, "fct.txt");
	if (o->fct == NULL)
		return -EIO;
	o->fct_buf = malloc(1 << 20);
	if (o->fct_buf != NULL)
		setvbuf(o->fct, o->fct_buf, _IOFBF, 1 << 20);
	if (s->cfg.cnp_log) {
		o->cnps = sim_out_file(o, "cnps.csv");
		if (o->cnps == NULL)
			return -EIO;
		fprintf(o->cnps, "t_ns,flow,source\n");
	}
	if (s->cfg.ts_interval_ns == 0)
		return 0;
	o->queues = sim_out_file(o, "queues.csv");
	o->rates = sim_out_file(o, "rates.csv");
	if (o->queues == NULL || o->rates == NULL)
		return -EIO;
	o->qports = malloc(sizeof(uint32_t) * (s->nports + 1));
	if (o->qports == NULL)
		return -ENOMEM;
	fprintf(o->queues, "t_ns");
	for (i = 0; i < s->nports; i++) {
		const struct sim_port *p = &s->ports[i];
		uint8_t role = s->nodes[p->node].role;

		if (role != SIM_ROLE_TOR && role != SIM_ROLE_GATEWAY)
			continue;
		o->qports[o->nqports++] = i;
		fprintf(o->queues, ",%s%u->%u", role == SIM_ROLE_GATEWAY ? (p->wan ? "wan" : "gw") :
			"tor", p->node, s->ports[p->peer].node);
	}
	for (i = 0; i < s->ngws; i++)
		fprintf(o->queues, ",dram%u", s->gws[i]->node);
	fputc('\n', o->queues);
	fprintf(o->rates, "t_ns,flow,src,dst,inter,rate_bps,goodput_bps\n");
	return 0;
}

/*
 * rates.csv lists the active flows of at least ts_min_flow_bytes in index
 * order.  Flows start in index order, so appending at the start keeps the
 * list sorted, and a sample walks it instead of every flow of the run.
 */
void
sim_out_flow_start(struct sim *s, const struct sim_flow *f)
{
	struct sim_out *o = s->out;

	if (o != NULL && f->size >= s->cfg.ts_min_flow_bytes)
		o->ts_flows[o->nts_flows++] = (uint32_t)(f - s->flows);
}

void
sim_out_flow_done(struct sim *s, struct sim_flow *f)
{
	struct sim_out *o = s->out;
	uint32_t fi = (uint32_t)(f - s->flows), i;

	for (i = 0; i < o->nts_flows; i++) {
		if (o->ts_flows[i] == fi) {
			memmove(&o->ts_flows[i], &o->ts_flows[i + 1],
				sizeof(uint32_t) * (o->nts_flows - i - 1));
			o->nts_flows--;
			break;
		}
	}
	fprintf(s->out->fct, "%08x %08x %u %u %u %llu %llu %llu\n", sim_topo_ip(f->src),
		sim_topo_ip(f->dst), f->sport, f->dport, f->size,
		(unsigned long long)f->start_ns, (unsigned long long)(f->finish_ns - f->start_ns),
		(unsigned long long)f->standalone_ns);
}

static void
sim_hist_add(struct sim_hist *h, uint32_t bytes)
{
	uint32_t kb = bytes / 1000;

	if (kb >= h->n) {
		uint32_t n = h->n ? h->n : 64;
		uint64_t *c;

		while (n <= kb)
			n *= 2;
		c = realloc(h->cnt, sizeof(uint64_t) * n);
		if (c == NULL)
			return;
		memset(c + h->n, 0, sizeof(uint64_t) * (n - h->n));
		h->cnt = c;
		h->n = n;
	}
	h->cnt[kb]++;
}

/*
 * Payload delivered: acknowledged in-order bytes (go-back-N), or with
 * [sim] retransmit = false what the receiver took, gaps left out.
 */
static uint64_t
sim_out_delivered(const struct sim *s, const struct sim_flow *f)
{
	return s->cfg.retransmit ? f->snd_una : f->rcv_bytes;
}

/* One CNP reaching its sender (cnps.csv, flow.txt ids). */
void
sim_out_cnp(struct sim *s, uint32_t fi, bool from_gw)
{
	if (s->out != NULL && s->out->cnps != NULL)
		fprintf(s->out->cnps, "%llu,%u,%s\n", (unsigned long long)s->now_ns,
			s->flows[fi].id, from_gw ? "gateway" : "receiver");
}

/*
 * Appends ",v" (or "v" with sep 0) in decimal, exactly what printf's %u and
 * %llu write: the time series are most of a run's output and printf's
 * format parsing was most of their cost.
 */
static inline char *
sim_out_num(char *p, char sep, uint64_t v)
{
	char tmp[20];
	int n = 0;

	if (sep)
		*p++ = sep;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n > 0)
		*p++ = tmp[--n];
	return p;
}

/* Queue sampling for the p99s, and the time-series rows. */
void
sim_out_sample(struct sim *s)
{
	struct sim_out *o = s->out;
	uint32_t i;

	for (i = 0; i < o->nsports; i++) {
		uint32_t pi = o->sports[i];

		if (!o->sport_busy[i]) {
			if (s->ports[pi].tx_bytes == 0)
				continue; /* only ports that carried traffic */
			o->sport_busy[i] = s->ports[pi].wan ? 2 : 1;
		}
		sim_hist_add(&s->st.qhist[o->sport_role[i]], s->qdepth[pi]);
		if (o->sport_busy[i] == 2)
			sim_hist_add(&s->ports[pi].wan_qhist, s->qdepth[pi]);
	}
	if (s->trace != NULL)
		sim_trace_sample(s, o->queues != NULL && s->now_ns >= o->next_ts_ns);
	if (o->queues == NULL || s->now_ns < o->next_ts_ns)
		return;
	{
		uint64_t dt = s->now_ns - o->last_ts_ns;
		char *r = sim_out_num(o->row, 0, s->now_ns);

		for (i = 0; i < o->nqports; i++)
			r = sim_out_num(r, ',', s->qdepth[o->qports[i]]);
		for (i = 0; i < s->ngws; i++)
			r = sim_out_num(r, ',', s->gws[i]->dram_bytes);
		*r++ = '\n';
		fwrite(o->row, 1, (size_t)(r - o->row), o->queues);
		for (i = 0; i < o->nts_flows; i++) {
			struct sim_flow *f = &s->flows[o->ts_flows[i]];
			uint64_t done;

			done = sim_out_delivered(s, f);
			r = sim_out_num(o->row, 0, s->now_ns);
			r = sim_out_num(r, ',', f->id);
			r = sim_out_num(r, ',', f->src);
			r = sim_out_num(r, ',', f->dst);
			r = sim_out_num(r, ',', f->inter);
			r = sim_out_num(r, ',', f->rate_bps);
			r = sim_out_num(r, ',', dt && f->acked_sample <= done ?
					(done - f->acked_sample) * 8000000000ull / dt : 0);
			*r++ = '\n';
			fwrite(o->row, 1, (size_t)(r - o->row), o->rates);
			f->acked_sample = done;
		}
		o->last_ts_ns = s->now_ns;
		o->next_ts_ns = s->now_ns + s->cfg.ts_interval_ns;
	}
}

/* ---------------------------------------------------------- summary.json */

struct sim_fct_stats {
	uint64_t n;
	double avg_ns;
	double p50_ns;
	double p99_ns;
	double sd_avg;
	double sd_p50;
	double sd_p99;
	double sd_max;
};

static int
sim_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
sim_pct(const double *v, uint64_t n, double pct)
{
	double pos, frac;
	uint64_t lo;

	if (n == 0)
		return 0;
	pos = pct / 100.0 * (double)(n - 1);
	lo = (uint64_t)floor(pos);
	frac = pos - (double)lo;
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (v[lo + 1] - v[lo]) * frac;
}

/* Statistics over the finished flows that pass the filter. */
static void
sim_fct_compute(const struct sim *s, int which, uint64_t lo, uint64_t hi,
		struct sim_fct_stats *st, double *fct, double *sd)
{
	uint64_t n = 0;
	double sum_f = 0, sum_s = 0;
	uint32_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < s->nflows; i++) {
		const struct sim_flow *f = &s->flows[i];

		if (f->state != SIM_FLOW_DONE || f->size <= lo || f->size > hi)
			continue;
		if ((which == 0 && f->inter) || (which == 1 && !f->inter))
			continue;
		fct[n] = (double)(f->finish_ns - f->start_ns);
		sd[n] = fct[n] / (double)f->standalone_ns;
		sum_f += fct[n];
		sum_s += sd[n];
		n++;
	}
	st->n = n;
	if (n == 0)
		return;
	st->avg_ns = sum_f / (double)n;
	st->sd_avg = sum_s / (double)n;
	qsort(fct, n, sizeof(double), sim_cmp_double);
	qsort(sd, n, sizeof(double), sim_cmp_double);
	st->p50_ns = sim_pct(fct, n, 50);
	st->p99_ns = sim_pct(fct, n, 99);
	st->sd_p50 = sim_pct(sd, n, 50);
	st->sd_p99 = sim_pct(sd, n, 99);
	st->sd_max = sd[n - 1];
}

static void
sim_json_fct(FILE *j, const char *name, const struct sim_fct_stats *st, const char *tail)
{
	fprintf(j, "\"%s\": {\"count\": %llu, \"avg_ns\": %.1f, \"p50_ns\": %.1f, "
		"\"p99_ns\": %.1f, \"slowdown_avg\": %.4f, \"slowdown_p50\": %.4f, "
		"\"slowdown_p99\": %.4f, \"slowdown_max\": %.4f}%s",
		name, (unsigned long long)st->n, st->avg_ns, st->p50_ns, st->p99_ns, st->sd_avg,
		st->sd_p50, st->sd_p99, st->sd_max, tail);
}

static uint64_t
sim_hist_pct(const struct sim_hist *h, double pct)
{
	uint64_t total = 0, acc = 0, rank;
	uint32_t i;

	for (i = 0; i < h->n; i++)
		total += h->cnt[i];
	if (total == 0)
		return 0;
	rank = (uint64_t)ceil(pct / 100.0 * (double)total);
	if (rank == 0)
		rank = 1;
	for (i = 0; i < h->n; i++) {
		acc += h->cnt[i];
		if (acc >= rank)
			return (uint64_t)i * 1000;
	}
	return (uint64_t)(h->n - 1) * 1000;
}

static const char *const sim_role_names[SIM_ROLE_COUNT] = { "host", "tor", "core", "gateway" };

/* Mechanism B's counters (only with B: outputs without it stay as they were). */
static void
sim_json_gw_b(const struct sim *s, FILE *j, const struct sim_gw *gw)
{
	const struct cc_derived *d = &gw->d;
	const struct sim_node *n = &s->nodes[gw->node];
	uint64_t paused_ns = 0, pauses = 0, resumes = 0;
	uint64_t grants_sent = 0, reports_sent = 0, grants = 0, stale = 0, holds = 0, held_ns = 0;
	uint64_t overdraft = 0, occ_max = 0, overrun = 0, lost = 0, sent = 0;
	uint32_t k, q;

	for (q = 0; q < SIM_GW_PRIOS; q++) {
		paused_ns += pfc_tx_paused_ticks(&gw->pfc_cfg, &gw->pfc, q, s->now_ns);
		pauses += gw->pfc.tx[q].pauses;
		resumes += gw->pfc.tx[q].resumes;
	}
	for (k = 0; k < n->nports; k++) {
		const struct sim_gw_b_link *b = gw->ports[k].b;

		if (b == NULL)
			continue;
		grants_sent += b->grants_sent;
		reports_sent += b->reports_sent;
		holds += b->holds;
		held_ns += b->held_ns;
		overdraft += b->overdraft;
		for (q = 0; q < SIM_GW_PRIOS; q++) {
			grants += b->tx[q].grants;
			stale += b->tx[q].grants_stale;
			sent += b->tx[q].sent;
			overrun += b->rx[q].overrun_bytes;
			lost += b->rx[q].lost_bytes;
			if (b->occupancy_max_bytes[q] > occ_max)
				occ_max = b->occupancy_max_bytes[q];
		}
	}
	fprintf(j, "     \"mech_b\": {\"lossless\": \"%s\", \"wan_queue_bytes\": %llu, "
		"\"pfc_headroom_bytes\": %llu, \"pfc_xoff_bytes\": %llu, \"pfc_xon_bytes\": %llu, "
		"\"pfc_pause_ns\": %llu, \"wan_queue_max_bytes\": %llu, \"pfc_pauses\": %llu, "
		"\"pfc_resumes\": %llu, \"pfc_pause_frames_sent\": %llu, "
		"\"pfc_resume_frames_sent\": %llu, \"pfc_paused_ns\": %llu,\n",
		gw->b_credit ? "credit" : "pfc", (unsigned long long)s->wan_fifo_bytes,
		(unsigned long long)d->pfc_headroom_bytes, (unsigned long long)d->pfc_xoff_bytes,
		(unsigned long long)d->pfc_xon_bytes, (unsigned long long)d->pfc_pause_ns,
		(unsigned long long)gw->wan_queue_max_bytes, (unsigned long long)pauses,
		(unsigned long long)resumes, (unsigned long long)gw->pfc_frames_sent,
		(unsigned long long)gw->pfc_resume_frames_sent, (unsigned long long)paused_ns);
	fprintf(j, "      \"credit_buffer_bytes\": %llu, \"credit_update_bytes\": %llu, "
		"\"credit_refresh_ns\": %llu, \"credit_sent_bytes\": %llu, \"grants_sent\": %llu, "
		"\"reports_sent\": %llu, \"grants_applied\": %llu, \"grants_stale\": %llu, "
		"\"credit_holds\": %llu, \"credit_held_ns\": %llu, \"credit_overdraft\": %llu, "
		"\"credit_occupancy_max_bytes\": %llu, \"credit_overrun_bytes\": %llu, "
		"\"credit_lost_bytes\": %llu},\n",
		(unsigned long long)gw->credit_cfg.buffer_bytes,
		(unsigned long long)gw->credit_cfg.update_bytes,
		(unsigned long long)gw->credit_cfg.refresh_ticks, (unsigned long long)sent,
		(unsigned long long)grants_sent, (unsigned long long)reports_sent,
		(unsigned long long)grants, (unsigned long long)stale, (unsigned long long)holds,
		(unsigned long long)held_ns, (unsigned long long)overdraft,
		(unsigned long long)occ_max, (unsigned long long)overrun, (unsigned long long)lost);
}

static void
sim_json_gw(const struct sim *s, FILE *j, const struct sim_gw *gw, bool last)
{
	const struct cc_derived *d = &gw->d;
	const struct sim_node *n = &s->nodes[gw->node];
	uint64_t marks = 0;
	uint32_t k, r;

	for (k = 0; k < n->nports; k++)
		if (s->ports[n->port_base + k].wan)
			marks += gw->ports[k].marks;
	fprintf(j, "    {\"node\": %u, \"site\": %u, \"wan_marks\": %llu, \"cnp_sent\": %llu, "
		"\"cnp_suppressed\": %llu, \"cnp_no_qpn\": %llu, \"ce_cleared\": %llu, "
		"\"trp_cnps\": %llu, \"trp_skipped_upstream\": %llu, \"trp_delayed_pkts\": %llu, "
		"\"dram_max_bytes\": %llu, "
		"\"receiver_cnps_thinned\": %llu,\n",
		gw->node, gw->site, (unsigned long long)marks, (unsigned long long)gw->cnp_sent,
		(unsigned long long)gw->cnp_suppressed, (unsigned long long)gw->cnp_no_qpn,
		(unsigned long long)gw->ce_cleared, (unsigned long long)gw->trp_cnps,
		(unsigned long long)gw->trp_skipped_upstream, (unsigned long long)gw->trp_delayed_pkts,
		(unsigned long long)gw->dram_max_bytes,
		(unsigned long long)gw->fwd_cnp_dropped);
	fprintf(j, "     \"learner\": {");
	for (r = 0; r < QPN_LEARN_RESULT_MAX; r++)
		fprintf(j, "%s\"%s\": %llu", r ? ", " : "",
			qpn_learn_result_name((enum qpn_learn_result)r),
			(unsigned long long)gw->learn_results[r]);
	fprintf(j, "},\n");
	if (gw->b_on)
		sim_json_gw_b(s, j, gw);
	fprintf(j, "     \"derived\": {\"rate_bps\": %llu, \"rtt_ns\": %llu, \"loop_rtt_ns\": %llu, "
		"\"dc_rtt_ns\": %llu, \"bdp_bytes\": %llu, \"kmin_bytes\": %llu, "
		"\"kmax_bytes\": %llu, \"pmax_ppm\": %u, \"target_delay_ns\": %llu, "
		"\"phantom_ratio_ppm\": %u, \"phantom_threshold_bytes\": %llu, "
		"\"cnp_interval_ns\": %llu, \"hold_ns\": %llu}}%s\n",
		(unsigned long long)d->rate_bps, (unsigned long long)d->rtt_ns,
		(unsigned long long)d->loop_rtt_ns, (unsigned long long)d->dc_rtt_ns,
		(unsigned long long)d->bdp_bytes, (unsigned long long)d->kmin_bytes,
		(unsigned long long)d->kmax_bytes, d->pmax_ppm,
		(unsigned long long)d->target_delay_ns, d->phantom_ratio_ppm,
		(unsigned long long)d->phantom_threshold_bytes,
		(unsigned long long)d->cnp_interval_ns, (unsigned long long)d->hold_ns,
		last ? "" : ",");
}

int
sim_out_finish(struct sim *s, double wall_s, double cpu_s)
{
	static const struct {
		const char *name;
		uint64_t lo, hi;
	} bins[] = {
		{ "0-10KiB", 0, 10240 },
		{ "10KiB-100KiB", 10240, 102400 },
		{ "100KiB-1MiB", 102400, 1048576 },
		{ "1MiB-10MiB", 1048576, 10485760 },
		{ "10MiB+", 10485760, UINT64_MAX },
	};
	static const char *const cls[3] = { "intra", "inter", "all" };
	struct sim_out *o = s->out;
	struct sim_fct_stats st[3];
	double *fct = malloc(sizeof(double) * (s->nflows + 1));
	double *sd = malloc(sizeof(double) * (s->nflows + 1));
	/* From the first start to the last finish, or to the end if flows are left. */
	uint64_t end = s->flows_done < s->nflows ? s->now_ns : s->st.last_finish_ns;
	uint64_t span = s->st.started && end > s->st.first_start_ns ?
			end - s->st.first_start_ns : 0;
	double wan_util = 0;
	uint32_t nwan = 0;
	uint32_t i, b, c;
	FILE *j;

	if (fct == NULL || sd == NULL) {
		free(fct);
		free(sd);
		return -ENOMEM;
	}
	fflush(o->fct);
	j = sim_out_file(o, "summary.json");
	if (j == NULL) {
		free(fct);
		free(sd);
		return -EIO;
	}
	for (c = 0; c < 3; c++)
		sim_fct_compute(s, (int)c, 0, UINT64_MAX, &st[c], fct, sd);
	fprintf(j, "{\n  \"scenario\": {\"topology\": \"%s\", \"flows\": \"%s\", "
		"\"hpcc_config\": \"%s\", \"config\": \"%s\", \"host_model\": \"%s\", "
		"\"mechanisms\": \"%s\", \"marker\": \"%s\", \"seed\": %llu, \"window\": %s, "
		"\"gateways\": [",
		s->cfg.topology, s->cfg.flows, s->cfg.hpcc_config ? s->cfg.hpcc_config : "",
		s->cfg.ini ? s->cfg.ini : "", sim_host_model_name(s->cfg.host_model),
		conf_mech_name(s->cfg.mechanisms), sim_marker_name(s->cfg.marker),
		(unsigned long long)s->cfg.seed, s->window_on ? "true" : "false");
	for (i = 0; i < s->ngws; i++)
		fprintf(j, "%s%u", i ? ", " : "", s->gws[i]->node);
	fprintf(j, "]},\n  \"host_site\": [");
	for (i = 0; i < s->nhosts; i++)
		fprintf(j, "%s[%u, %u]", i ? ", " : "", s->hosts[i].node,
			s->nodes[s->hosts[i].node].site);
	fprintf(j, "],\n");
	fprintf(j, "  \"flows\": %u,\n  \"flows_finished\": %u,\n", s->nflows, s->flows_done);
	/* Stopped by a signal: what was simulated up to sim_end_ns, not the run's end. */
	fprintf(j, "  \"partial\": %s,\n", s->stop_signal != 0 ? "true" : "false");
	fprintf(j, "  \"fct\": {\n");
	for (c = 0; c < 3; c++) {
		fprintf(j, "    ");
		sim_json_fct(j, cls[c], &st[c], c < 2 ? ",\n" : "\n");
	}
	fprintf(j, "  },\n  \"fct_by_size\": [\n");
	for (b = 0; b < sizeof(bins) / sizeof(bins[0]); b++) {
		fprintf(j, "    {\"bin\": \"%s\", \"lo_bytes\": %llu, ", bins[b].name,
			(unsigned long long)bins[b].lo);
		for (c = 0; c < 3; c++) {
			struct sim_fct_stats bs;

			sim_fct_compute(s, (int)c, bins[b].lo, bins[b].hi, &bs, fct, sd);
			sim_json_fct(j, cls[c], &bs, c < 2 ? ", " : "");
		}
		fprintf(j, "}%s\n", b + 1 < sizeof(bins) / sizeof(bins[0]) ? "," : "");
	}
	fprintf(j, "  ],\n");
	fprintf(j, "  \"pfc\": {\"pause_count\": %llu, \"pause_ns_total\": %llu, "
		"\"pause_count_by_paused_role\": {", (unsigned long long)s->st.pause_frames,
		(unsigned long long)s->st.pause_ns);
	for (i = 0; i < SIM_ROLE_COUNT; i++)
		fprintf(j, "%s\"%s\": %llu", i ? ", " : "", sim_role_names[i],
			(unsigned long long)s->st.pause_rx_role[i]);
	fprintf(j, "}},\n");
	fprintf(j, "  \"drops\": %llu,\n  \"nacks\": %llu,\n", (unsigned long long)s->st.drops,
		(unsigned long long)s->st.nacks);
	fprintf(j, "  \"wan\": [");
	for (i = 0; i < s->nports; i++) {
		const struct sim_port *p = &s->ports[i];
		double u;

		if (!p->wan)
			continue;
		u = span ? (double)p->tx_bytes * 8e9 / ((double)p->rate_bps * (double)span) : 0;
		fprintf(j, "%s{\"from\": %u, \"to\": %u, \"rate_bps\": %llu, \"tx_bytes\": %llu, "
			"\"utilization\": %.6f, \"queue_p99_bytes\": %llu, \"queue_max_bytes\": %u, "
			"\"drops\": %llu}", nwan ? ", " : "", p->node, s->ports[p->peer].node,
			(unsigned long long)p->rate_bps, (unsigned long long)p->tx_bytes, u,
			(unsigned long long)sim_hist_pct(&p->wan_qhist, 99), p->qmax_bytes,
			(unsigned long long)p->drops);
		wan_util += u;
		nwan++;
	}
	fprintf(j, "],\n  \"wan_utilization\": %.6f,\n", nwan ? wan_util / nwan : 0.0);
	fprintf(j, "  \"queue_p99_bytes\": {");
	for (i = SIM_ROLE_TOR; i < SIM_ROLE_COUNT; i++)
		fprintf(j, "%s\"%s\": %llu", i > SIM_ROLE_TOR ? ", " : "", sim_role_names[i],
			(unsigned long long)sim_hist_pct(&s->st.qhist[i], 99));
	fprintf(j, "},\n  \"queue_max_bytes\": {");
	for (i = SIM_ROLE_TOR; i < SIM_ROLE_COUNT; i++) {
		uint32_t mx = 0, k;

		for (k = 0; k < s->nports; k++)
			if (s->nodes[s->ports[k].node].role == i && s->ports[k].qmax_bytes > mx)
				mx = s->ports[k].qmax_bytes;
		fprintf(j, "%s\"%s\": %u", i > SIM_ROLE_TOR ? ", " : "", sim_role_names[i], mx);
	}
	fprintf(j, "},\n");
	fprintf(j, "  \"cnp\": {\"host\": %llu, \"gateway\": %llu, \"gateway_suppressed\": %llu, "
		"\"gateway_no_qpn\": %llu, \"ce_cleared\": %llu},\n",
		(unsigned long long)s->st.cnp_host, (unsigned long long)s->st.cnp_gw,
		(unsigned long long)s->st.cnp_gw_suppressed,
		(unsigned long long)s->st.cnp_gw_no_qpn, (unsigned long long)s->st.ce_cleared);
	fprintf(j, "  \"marks\": {\"switch\": %llu, \"gateway_marker\": %llu},\n",
		(unsigned long long)s->st.marks, (unsigned long long)s->st.marks_gw);
	fprintf(j, "  \"gateways\": [\n");
	for (i = 0; i < s->ngws; i++)
		sim_json_gw(s, j, s->gws[i], i + 1 == s->ngws);
	fprintf(j, "  ],\n");
	fprintf(j, "  \"sim_end_ns\": %llu,\n  \"active_span_ns\": %llu,\n  \"pkts_peak\": %llu,\n"
		"  \"heap_peak\": [%u, %u],\n", (unsigned long long)s->now_ns,
		(unsigned long long)span, (unsigned long long)s->st.pkts_alloc_peak, s->heap.peak,
		s->slow.peak);
	/* events_per_s is per CPU second: wall time also counts other load. */
	fprintf(j, "  \"events\": %llu,\n  \"events_per_s\": %.0f,\n  \"wall_s\": %.3f,\n"
		"  \"cpu_s\": %.3f\n}\n", (unsigned long long)s->st.events,
		cpu_s > 0 ? (double)s->st.events / cpu_s : 0.0, wall_s, cpu_s);
	fclose(j);
	free(fct);
	free(sd);
	return sim_out_flows_csv(s);
}

/* Per-flow detail, for analysis and plots; unfinished flows have fct_ns 0. */
/* A flow event's time after the flow's start, -1 if it never happened. */
static long long
sim_out_since(const struct sim_flow *fl, uint64_t t_ns)
{
	return t_ns == SIM_NEVER ? -1LL : (long long)(t_ns - fl->start_ns);
}

static int
sim_out_flows_csv(struct sim *s)
{
	uint32_t *pos = malloc(sizeof(uint32_t) * (s->nflows + 1));
	FILE *f;
	uint32_t i;

	if (pos == NULL)
		return -ENOMEM;
	f = sim_out_file(s->out, "flows.csv");
	if (f == NULL) {
		free(pos);
		return -EIO;
	}
	/* s->flows is in start order; print in flow.txt order. */
	for (i = 0; i < s->nflows; i++)
		pos[s->flows[i].id] = i;
	fprintf(f, "id,src,dst,inter,size,start_ns,fct_ns,standalone_ns,slowdown,cnp_host,"
		"cnp_gw,rp_cnps,rp_cuts,first_cut_ns,first_gw_mark_ns,first_ce_rx_ns,"
		"first_cnp_ns,acked_bytes,lost_bytes\n");
	for (i = 0; i < s->nflows; i++) {
		const struct sim_flow *fl = &s->flows[pos[i]];
		uint64_t fct = fl->state == SIM_FLOW_DONE ? fl->finish_ns - fl->start_ns : 0;

		fprintf(f, "%u,%u,%u,%u,%u,%llu,%llu,%llu,%.4f,%u,%u,%llu,%llu,%lld,%lld,%lld,%lld,"
			"%u,%u\n", fl->id, fl->src, fl->dst, fl->inter, fl->size,
			(unsigned long long)fl->start_ns, (unsigned long long)fct,
			(unsigned long long)fl->standalone_ns,
			fct ? (double)fct / (double)fl->standalone_ns : 0.0, fl->cnp_host, fl->cnp_gw,
			(unsigned long long)fl->rp.n_cnp, (unsigned long long)fl->rp.n_cut,
			sim_out_since(fl, fl->first_cut_ns), sim_out_since(fl, fl->first_gw_mark_ns),
			sim_out_since(fl, fl->first_ce_rx_ns), sim_out_since(fl, fl->first_cnp_ns),
			fl->state == SIM_FLOW_DONE ? fl->size : fl->snd_una, fl->lost_bytes);
	}
	fclose(f);
	free(pos);
	return 0;
}

void
sim_out_close(struct sim *s)
{
	struct sim_out *o = s->out;
	uint32_t i;

	if (o == NULL)
		return;
	if (o->fct != NULL)
		fclose(o->fct);
	if (o->queues != NULL)
		fclose(o->queues);
	if (o->rates != NULL)
		fclose(o->rates);
	if (o->cnps != NULL)
		fclose(o->cnps);
	free(o->fct_buf);
	free(o->qports);
	free(o->sports);
	free(o->sport_role);
	free(o->sport_busy);
	free(o->row);
	free(o->ts_flows);
	free(o);
	s->out = NULL;
	for (i = 0; i < SIM_ROLE_COUNT; i++)
		free(s->st.qhist[i].cnt);
	for (i = 0; i < s->nports; i++)
		free(s->ports[i].wan_qhist.cnt);
}
