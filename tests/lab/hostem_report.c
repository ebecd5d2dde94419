/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspan-hostem's reports: CSV rows and stats lines between polls, and at
 * exit the text summary, the JSON summary and the CNP log. None of this
 * runs per packet.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>

#include "congestion/dcqcn.h"
#include "hostem.h"

#define HOSTEM_JSON_CNPS 1000 /* CNP times listed per QP in the JSON */

static double
hostem_bps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8e9 / (double)ns : 0.0;
}

/* "4.123G" style, for the stats lines. */
static const char *
hostem_fmt_rate(double bps, char *buf, size_t size)
{
	if (bps >= 1e9)
		snprintf(buf, size, "%.3fG", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, size, "%.3fM", bps / 1e6);
	else
		snprintf(buf, size, "%.0fK", bps / 1e3);
	return buf;
}

int
hostem_report_open(struct hostem *h)
{
	const char *path = h->conf->csv_path;

	if (path[0] == '\0')
		return 0;
	h->csv = fopen(path, "w");
	if (h->csv == NULL)
		return -errno;
	fprintf(h->csv, "time_s,qp,role,rate_bps,tx_bps,goodput_bps,cnps,ce,queue_bytes,marks\n");
	h->next_csv_ns = h->conf->csv_interval_ns;
	return 0;
}

void
hostem_report_close(struct hostem *h)
{
	if (h->csv != NULL)
		fclose(h->csv);
	h->csv = NULL;
}

static void
hostem_csv_rows(struct hostem *h, uint64_t now_ns)
{
	uint64_t dt = now_ns - h->last_csv_ns;
	double t = (double)now_ns / 1e9;

	for (uint16_t i = 0; i < h->n_senders; i++) {
		struct hostem_sender *s = &h->senders[i];

		fprintf(h->csv, "%.6f,%s,send,%" PRIu64 ",%.0f,%.0f,%" PRIu64 ",0,0,0\n", t,
			s->qc->name, s->rate_bps,
			hostem_bps(s->iv.frame_bytes - s->snap_csv.frame_bytes, dt),
			hostem_bps(s->iv.goodput_bytes - s->snap_csv.goodput_bytes, dt),
			s->iv.cnps - s->snap_csv.cnps);
		s->snap_csv = s->iv;
	}
	for (uint16_t i = 0; i < h->n_receivers; i++) {
		struct hostem_receiver *r = &h->receivers[i];

		fprintf(h->csv, "%.6f,%s,recv,0,%.0f,%.0f,%" PRIu64 ",%" PRIu64 ",0,0\n", t,
			r->qc->name, hostem_bps(r->iv.frame_bytes - r->snap_csv.frame_bytes, dt),
			hostem_bps(r->iv.goodput_bytes - r->snap_csv.goodput_bytes, dt),
			r->iv.cnps - r->snap_csv.cnps, r->iv.ce - r->snap_csv.ce);
		r->snap_csv = r->iv;
	}
	if (h->tor.on) {
		struct hostem_tor *tor = &h->tor;
		uint64_t now_tsc = h->clk.tsc0 + lab_clock_ticks(&h->clk, now_ns);

		fprintf(h->csv, "%.6f,tor,tor,%" PRIu64 ",%.0f,0,0,0,%" PRIu64 ",%" PRIu64 "\n", t,
			h->conf->tor_rate_bps, hostem_bps(tor->tx_bytes - tor->snap_csv[0], dt),
			wanem_line_backlog_bytes(&tor->line, now_tsc),
			tor->marks - tor->snap_csv[1]);
		tor->snap_csv[0] = tor->tx_bytes;
		tor->snap_csv[1] = tor->marks;
	}
	h->last_csv_ns = now_ns;
}

static void
hostem_stats_lines(struct hostem *h, uint64_t now_ns, FILE *out)
{
	uint64_t dt = now_ns - h->last_stats_ns;
	double t = (double)now_ns / 1e9;
	char a[32], b[32], c[32];

	for (uint16_t i = 0; i < h->n_senders; i++) {
		struct hostem_sender *s = &h->senders[i];

		fprintf(out,
			"hostem %s t=%.3fs %s send%s rate %s tx %s acked %s cnps %" PRIu64
			" (total %" PRIu64 ")\n",
			h->conf->name, t, s->qc->name, s->qc->intra ? " intra" : "",
			hostem_fmt_rate((double)s->rate_bps, a, 32),
			hostem_fmt_rate(
				hostem_bps(s->iv.frame_bytes - s->snap_stats.frame_bytes, dt), b,
				32),
			hostem_fmt_rate(
				hostem_bps(s->iv.goodput_bytes - s->snap_stats.goodput_bytes, dt),
				c, 32),
			s->iv.cnps - s->snap_stats.cnps, s->cnps);
		s->snap_stats = s->iv;
	}
	for (uint16_t i = 0; i < h->n_receivers; i++) {
		struct hostem_receiver *r = &h->receivers[i];

		fprintf(out,
			"hostem %s t=%.3fs %s recv%s goodput %s ce %" PRIu64 " cnps %" PRIu64
			" gaps %" PRIu64 " latency avg %.1fus\n",
			h->conf->name, t, r->qc->name, r->qc->intra ? " intra" : "",
			hostem_fmt_rate(
				hostem_bps(r->iv.goodput_bytes - r->snap_stats.goodput_bytes, dt),
				a, 32),
			r->iv.ce - r->snap_stats.ce, r->iv.cnps - r->snap_stats.cnps, r->gaps,
			r->lat.n ? (double)r->lat.sum_ns / (double)r->lat.n / 1e3 : 0.0);
		r->snap_stats = r->iv;
	}
	if (h->tor.on) {
		struct hostem_tor *tor = &h->tor;
		uint64_t now_tsc = h->clk.tsc0 + lab_clock_ticks(&h->clk, now_ns);

		fprintf(out,
			"hostem %s t=%.3fs tor tx %s queue %" PRIu64 "B max %" PRIu64
			"B marks %" PRIu64 "\n",
			h->conf->name, t,
			hostem_fmt_rate(hostem_bps(tor->tx_bytes - tor->snap_stats[0], dt), a, 32),
			wanem_line_backlog_bytes(&tor->line, now_tsc), tor->max_backlog_bytes,
			tor->marks - tor->snap_stats[1]);
		tor->snap_stats[0] = tor->tx_bytes;
		tor->snap_stats[1] = tor->marks;
	}
	fflush(out);
	h->last_stats_ns = now_ns;
}

void
hostem_report_interval(struct hostem *h, uint64_t now_ns, bool csv, bool stats)
{
	if (csv && h->csv != NULL)
		hostem_csv_rows(h, now_ns);
	if (stats)
		hostem_stats_lines(h, now_ns, stdout);
}

/* The p-quantile of a latency histogram, in ns (bucket upper bound). */
static uint64_t
hostem_lat_quantile(const struct hostem_lat *l, double p)
{
	uint64_t want = (uint64_t)(p * (double)l->n + 0.999999), seen = 0;

	if (l->n == 0)
		return 0;
	for (uint32_t b = 0; b <= HOSTEM_LAT_BUCKETS; b++) {
		seen += l->hist[b];
		if (seen < want)
			continue;
		if (b == HOSTEM_LAT_BUCKETS)
			return l->max_ns;
		return RTE_MIN((uint64_t)(b + 1) * 1000, l->max_ns);
	}
	return l->max_ns;
}

static uint64_t
hostem_sender_active_ns(const struct hostem *h, const struct hostem_sender *s)
{
	uint64_t end = s->done ? s->done_ns : h->stopped_ns;

	return end > s->qc->start_ns ? end - s->qc->start_ns : 0;
}

static uint64_t
hostem_receiver_active_ns(const struct hostem_receiver *r)
{
	return r->first_ns == HOSTEM_NEVER ? 0 : r->last_ns - r->first_ns;
}

/* The feedback loop: first CNP any sender got, and the first cut after it. */
static void
hostem_feedback(const struct hostem *h, uint64_t *cnp_ns, uint64_t *cut_ns)
{
	*cnp_ns = *cut_ns = HOSTEM_NEVER;
	for (uint16_t i = 0; i < h->n_senders; i++) {
		const struct hostem_sender *s = &h->senders[i];

		if (s->first_cnp_ns < *cnp_ns) {
			*cnp_ns = s->first_cnp_ns;
			*cut_ns = s->first_cut_ns;
		}
	}
}

void
hostem_report_final(struct hostem *h, FILE *out)
{
	const struct hostem_rx_stats *st = &h->st;
	uint64_t cnp_ns, cut_ns;
	char a[32], b[32], c[32], d[32], e[32];

	fprintf(out, "hostem %s: summary after %.3f s (variant %s)\n", h->conf->name,
		(double)h->stopped_ns / 1e9,
		dcqcn_variant_name((enum dcqcn_variant)h->conf->variant));
	for (uint16_t i = 0; i < h->n_senders; i++) {
		const struct hostem_sender *s = &h->senders[i];
		uint64_t act = hostem_sender_active_ns(h, s);

		fprintf(out,
			"  %s send%s: sent %" PRIu64 " pkts %" PRIu64 " B, acked %" PRIu64
			" B (%s), tx %s, rate now %s min %s avg %s, cnps %" PRIu64 " (%" PRIu64
			" from hostem NPs), cuts %" PRIu64 ", naks %" PRIu64 "%s\n",
			s->qc->name, s->qc->intra ? " intra" : "", s->sent_pkts, s->sent_payload,
			hostem_sender_acked_bytes(s, s->acked_pkts),
			hostem_fmt_rate(
				hostem_bps(hostem_sender_acked_bytes(s, s->acked_pkts), act), a,
				32),
			hostem_fmt_rate(hostem_bps(s->sent_frame_bytes, act), b, 32),
			hostem_fmt_rate((double)s->rate_bps, c, 32),
			hostem_fmt_rate((double)s->rate_min_bps, d, 32),
			hostem_fmt_rate(h->stopped_ns ? s->rate_area / (double)h->stopped_ns : 0, e,
					32),
			s->cnps, s->cnps_tagged, s->rp.n_cut, s->naks, s->done ? ", done" : "");
		if (s->first_cnp_ns != HOSTEM_NEVER)
			fprintf(out, "    first CNP at %.6f s, first cut at %.6f s (%+.3f us)\n",
				(double)s->first_cnp_ns / 1e9,
				s->first_cut_ns == HOSTEM_NEVER ? -1.0
								: (double)s->first_cut_ns / 1e9,
				s->first_cut_ns == HOSTEM_NEVER
					? 0.0
					: ((double)s->first_cut_ns - (double)s->first_cnp_ns) /
						1e3);
	}
	for (uint16_t i = 0; i < h->n_receivers; i++) {
		const struct hostem_receiver *r = &h->receivers[i];

		fprintf(out,
			"  %s recv%s: %" PRIu64 " pkts %" PRIu64 " B (%s), msgs %" PRIu64
			", ce %" PRIu64 ", cnps sent %" PRIu64 " suppressed %" PRIu64
			", acks %" PRIu64 ", naks %" PRIu64 ", gaps %" PRIu64 " (%" PRIu64
			" missing), dups %" PRIu64
			", latency min/p50/p99/max %.1f/%.1f/%.1f/%.1f us\n",
			r->qc->name, r->qc->intra ? " intra" : "", r->pkts, r->payload_bytes,
			hostem_fmt_rate(hostem_bps(r->payload_bytes, hostem_receiver_active_ns(r)),
					a, 32),
			r->msgs, r->ce, r->cnps_sent, r->cnps_suppressed, r->acks_sent,
			r->naks_sent, r->gaps, r->missing, r->dups, (double)r->lat.min_ns / 1e3,
			(double)hostem_lat_quantile(&r->lat, 0.5) / 1e3,
			(double)hostem_lat_quantile(&r->lat, 0.99) / 1e3,
			(double)r->lat.max_ns / 1e3);
	}
	if (h->tor.on)
		fprintf(out,
			"  tor: %" PRIu64 " pkts in, marks %" PRIu64 ", max queue %" PRIu64
			" B, xoff polls %" PRIu64 "\n",
			h->tor.enq_pkts, h->tor.marks, h->tor.max_backlog_bytes, h->tor.xoff_polls);
	fprintf(out,
		"  port: rx %" PRIu64 " tx %" PRIu64 ", not for us %" PRIu64 ", not RoCE %" PRIu64
		", malformed %" PRIu64 ", bad ICRC %" PRIu64 ", no QP %" PRIu64
		", tx ring full %" PRIu64 "\n",
		st->port_pkts, st->tx_pkts, st->not_for_us, st->not_roce, st->malformed,
		st->bad_icrc, st->no_receiver + st->no_sender, st->tx_ring_full);
	hostem_feedback(h, &cnp_ns, &cut_ns);
	if (cnp_ns != HOSTEM_NEVER && cut_ns != HOSTEM_NEVER)
		fprintf(out,
			"  feedback: first CNP at %.6f s, its QP's first rate cut %.3f us later\n",
			(double)cnp_ns / 1e9, ((double)cut_ns - (double)cnp_ns) / 1e3);
	fflush(out);
}

static void
hostem_json_u64_or_null(FILE *f, const char *key, uint64_t v, const char *sep)
{
	if (v == HOSTEM_NEVER)
		fprintf(f, "\"%s\": null%s", key, sep);
	else
		fprintf(f, "\"%s\": %" PRIu64 "%s", key, v, sep);
}

/* The CNP times of QP index qp (sent or received) from the log, in ns since start. */
static void
hostem_json_cnp_times(const struct hostem *h, FILE *f, uint16_t qp, bool sent)
{
	uint64_t n = 0, total = 0;

	fprintf(f, "[");
	for (uint64_t i = 0; i < h->cnp_log_n; i++) {
		const struct hostem_cnp_event *e = &h->cnp_log[i];

		if (e->qp != qp || e->sent != sent)
			continue;
		total++;
		if (n < HOSTEM_JSON_CNPS)
			fprintf(f, "%s%" PRIu64, n++ ? ", " : "", lab_clock_ns(&h->clk, e->tsc));
	}
	fprintf(f, "], \"cnp_times_truncated\": %s",
		total > n || h->cnp_log_dropped ? "true" : "false");
}

static void
hostem_json_qp_common(FILE *f, const struct hostem_qp_conf *q)
{
	char l[64], r[64];

	fprintf(f,
		"\"qp\": \"%s\", \"intra\": %s, \"local\": \"%s\", \"remote\": \"%s\", "
		"\"local_qpn\": %" PRIu64 ", \"remote_qpn\": %" PRIu64 ", \"sport\": %" PRIu64 ", ",
		q->name, q->intra ? "true" : "false",
		hostem_config_addr_str(&q->local, l, sizeof(l)),
		hostem_config_addr_str(&q->remote, r, sizeof(r)), q->local_qpn, q->remote_qpn,
		q->sport);
}

/*
 * The DC side toward the hosts (dc_rate): its queue and the PFC it sent the
 * gateway, per priority (pauses include the refreshes); null without it.
 */
static void
hostem_report_down(const struct hostem *h, FILE *f)
{
	const struct hostem_down *d = &h->down;
	const struct wanem_line_stats *st = &d->line.st;
	uint64_t now = rte_rdtsc();

	if (!d->on) {
		fprintf(f, "\"downlink\": null,\n");
		return;
	}
	fprintf(f,
		"\"downlink\": {\"rate_bps\": %" PRIu64 ", \"buffer_bytes\": %" PRIu64
		", \"xoff_bytes\": %" PRIu64 ", \"xon_bytes\": %" PRIu64 ", \"pkts\": %" PRIu64
		", \"bytes\": %" PRIu64 ", \"delivered_pkts\": %" PRIu64 ", \"drops\": %" PRIu64
		", \"max_queue_bytes\": %" PRIu64 ", \"pfc_tx_failed\": %" PRIu64
		", \"kmin_bytes\": %" PRIu64 ", \"kmax_bytes\": %" PRIu64 ", \"marks\": %" PRIu64
		", \"marks_not_ect\": %" PRIu64 ", \"priorities\": [",
		h->conf->dc_rate_bps, h->conf->dc_buffer_bytes, h->conf->dc_xoff_bytes,
		h->conf->dc_xon_bytes, st->rx_pkts, st->rx_bytes, st->tx_pkts,
		st->drop_queue + st->drop_slots, st->max_held_bytes, d->pfc_tx_failed,
		h->conf->dc_kmin_bytes, h->conf->dc_kmax_bytes, d->marks, d->marks_not_ect);
	for (unsigned int p = 0; p < PFC_PRIORITIES; p++)
		fprintf(f, "%s{\"pauses\": %" PRIu64 ", \"resumes\": %" PRIu64
			   ", \"paused_ns\": %" PRIu64 ", \"max_bytes\": %" PRIu64 "}",
			p ? ", " : "", h->pfc.tx[p].pauses, h->pfc.tx[p].resumes,
			lab_clock_ns(&h->clk, h->clk.tsc0 + pfc_tx_paused_ticks(&h->pfc_cfg, &h->pfc,
										 p, now)),
			d->max_prio_bytes[p]);
	fprintf(f, "]},\n");
}

int
hostem_report_json(const struct hostem *h, const char *path, unsigned int mbufs_in_use)
{
	const struct hostem_rx_stats *st = &h->st;
	FILE *f = fopen(path, "w");
	uint64_t cnp_ns, cut_ns;

	if (f == NULL)
		return -errno;
	fprintf(f, "{\n\"tool\": \"longspan-hostem\", \"name\": \"%s\", \"variant\": \"%s\",\n",
		h->conf->name, dcqcn_variant_name((enum dcqcn_variant)h->conf->variant));
	fprintf(f,
		"\"tsc_hz\": %" PRIu64 ", \"tsc0\": %" PRIu64 ", \"monotonic_ns0\": %" PRIu64
		", \"realtime_ns0\": %" PRIu64 ", \"run_ns\": %" PRIu64 ", \"mbufs_in_use\": %u,\n",
		h->clk.hz, h->clk.tsc0, h->clk.mono_ns0, h->clk.real_ns0, h->stopped_ns,
		mbufs_in_use);
	fprintf(f,
		"\"polls\": %" PRIu64 ", \"busy_polls\": %" PRIu64 ", \"sleeps\": %" PRIu64
		", \"slept_ns\": %" PRIu64 ",\n",
		h->polls, h->busy_polls, h->idle->sleeps, h->idle->slept_ns);
	fprintf(f,
		"\"rx_interrupts\": %s, \"intr_waits\": %" PRIu64 ", \"intr_wakeups\": %" PRIu64
		", \"timer_wakeups\": %" PRIu64 ", \"timer_arms\": %" PRIu64 ",\n",
		h->idle->intr_used ? "true" : "false", h->idle->intr_waits, h->idle->intr_wakeups,
		h->idle->timer_wakeups, h->idle->timer_arms);
	fprintf(f,
		"\"port\": {\"rx_pkts\": %" PRIu64 ", \"dc_pkts\": %" PRIu64
		", \"tx_pkts\": %" PRIu64 ", \"tx_bytes\": %" PRIu64 ", \"not_for_us\": %" PRIu64
		", \"not_roce\": %" PRIu64 ", \"malformed\": %" PRIu64 ", \"multiseg\": %" PRIu64
		", \"bad_icrc\": %" PRIu64 ", \"no_receiver\": %" PRIu64 ", \"no_sender\": %" PRIu64
		", \"unknown_opcode\": %" PRIu64 ", \"tx_ring_full\": %" PRIu64
		", \"dc_line_full\": %" PRIu64 ", \"cnp_log_dropped\": %" PRIu64 "},\n",
		st->port_pkts, st->dc_pkts, st->tx_pkts, st->tx_bytes, st->not_for_us, st->not_roce,
		st->malformed, st->multiseg, st->bad_icrc, st->no_receiver, st->no_sender,
		st->unknown_opcode, st->tx_ring_full, st->dc_line_full, h->cnp_log_dropped);
	/* PFC from the gateway: frames obeyed, and per priority pauses and paused time. */
	fprintf(f,
		"\"pfc\": {\"frames\": %" PRIu64 ", \"bad\": %" PRIu64 ", \"tx_held\": %" PRIu64
		", \"priorities\": [",
		h->pfc_frames, h->pfc_bad, h->tx_pfc_held);
	for (unsigned int p = 0; p < PFC_PRIORITIES; p++)
		fprintf(f, "%s{\"pauses\": %" PRIu64 ", \"resumes\": %" PRIu64
			   ", \"paused_ns\": %" PRIu64 "}",
			p ? ", " : "", h->pfc.rx[p].frames, h->pfc.rx[p].resumes,
			lab_clock_ns(&h->clk, h->clk.tsc0 +
						      pfc_rx_paused_ticks(&h->pfc, p, rte_rdtsc())));
	fprintf(f, "]},\n");
	if (h->tor.on)
		fprintf(f,
			"\"tor\": {\"rate_bps\": %" PRIu64 ", \"kmin_bytes\": %" PRIu64
			", \"kmax_bytes\": %" PRIu64 ", \"pmax_ppm\": %" PRIu64
			", \"xoff_bytes\": %" PRIu64 ", \"pkts\": %" PRIu64 ", \"bytes\": %" PRIu64
			", \"marks\": %" PRIu64 ", \"marks_not_ect\": %" PRIu64
			", \"drops\": %" PRIu64 ", \"max_queue_bytes\": %" PRIu64
			", \"xoff_polls\": %" PRIu64 "},\n",
			h->conf->tor_rate_bps, h->conf->tor_kmin_bytes, h->conf->tor_kmax_bytes,
			h->conf->tor_pmax_ppm, h->conf->tor_xoff_bytes, h->tor.enq_pkts,
			h->tor.enq_bytes, h->tor.marks, h->tor.marks_not_ect, h->tor.drops,
			h->tor.max_backlog_bytes, h->tor.xoff_polls);
	else
		fprintf(f, "\"tor\": null,\n");
	hostem_report_down(h, f);
	hostem_feedback(h, &cnp_ns, &cut_ns);
	fprintf(f, "\"feedback\": {");
	hostem_json_u64_or_null(f, "first_cnp_ns", cnp_ns, ", ");
	hostem_json_u64_or_null(f, "first_cut_ns", cut_ns, ", ");
	hostem_json_u64_or_null(f, "cnp_to_cut_ns",
				cnp_ns != HOSTEM_NEVER && cut_ns != HOSTEM_NEVER ? cut_ns - cnp_ns
										 : HOSTEM_NEVER,
				"},\n");
	fprintf(f, "\"senders\": [\n");
	for (uint16_t i = 0; i < h->n_senders; i++) {
		const struct hostem_sender *s = &h->senders[i];
		uint64_t act = hostem_sender_active_ns(h, s);
		uint64_t acked = hostem_sender_acked_bytes(s, s->acked_pkts);

		fprintf(f, "  {");
		hostem_json_qp_common(f, s->qc);
		fprintf(f,
			"\"line_rate_bps\": %" PRIu64 ", \"sent_pkts\": %" PRIu64
			", \"sent_payload_bytes\": %" PRIu64 ", \"sent_frame_bytes\": %" PRIu64
			", \"acked_pkts\": %" PRIu64 ", \"acked_bytes\": %" PRIu64
			", \"active_ns\": %" PRIu64 ", \"goodput_bps\": %.0f, \"tx_bps\": %.0f"
			", \"rate_bps\": %" PRIu64 ", \"rate_min_bps\": %" PRIu64
			", \"rate_avg_bps\": %.0f, \"done\": %s, ",
			s->qc->line_rate_bps, s->sent_pkts, s->sent_payload, s->sent_frame_bytes,
			s->acked_pkts, acked, act, hostem_bps(acked, act),
			hostem_bps(s->sent_frame_bytes, act), s->rate_bps, s->rate_min_bps,
			h->stopped_ns ? s->rate_area / (double)h->stopped_ns : 0.0,
			s->done ? "true" : "false");
		hostem_json_u64_or_null(f, "done_ns", s->done ? s->done_ns : HOSTEM_NEVER, ", ");
		fprintf(f,
			"\"acks\": %" PRIu64 ", \"naks\": %" PRIu64 ", \"rnr_naks\": %" PRIu64
			", \"acks_stale\": %" PRIu64 ", \"cnps\": %" PRIu64
			", \"cnps_tagged\": %" PRIu64 ", \"cnps_other\": %" PRIu64 ", ",
			s->acks, s->naks, s->rnr_naks, s->acks_stale, s->cnps, s->cnps_tagged,
			s->cnps - s->cnps_tagged);
		hostem_json_u64_or_null(f, "first_cnp_ns", s->first_cnp_ns, ", ");
		hostem_json_u64_or_null(f, "first_cut_ns", s->first_cut_ns, ", ");
		hostem_json_u64_or_null(f, "cnp_to_cut_ns",
					s->first_cnp_ns != HOSTEM_NEVER &&
							s->first_cut_ns != HOSTEM_NEVER
						? s->first_cut_ns - s->first_cnp_ns
						: HOSTEM_NEVER,
					", ");
		fprintf(f,
			"\"rp\": {\"cnps\": %" PRIu64 ", \"cuts\": %" PRIu64
			", \"fast_recovery\": %" PRIu64 ", \"additive\": %" PRIu64
			", \"hyper\": %" PRIu64 ", \"release\": %" PRIu64
			"}, \"blocked_window\": %" PRIu64 ", \"blocked_xoff\": %" PRIu64
			", \"blocked_pfc\": %" PRIu64 ", \"pfc_priority\": %u"
			", \"blocked_out\": %" PRIu64 ", \"nombuf\": %" PRIu64 ", \"cnp_rx_ns\": ",
			s->rp.n_cnp, s->rp.n_cut, s->rp.n_fast_recovery, s->rp.n_additive,
			s->rp.n_hyper, s->rp.n_release, s->blocked_window, s->blocked_xoff,
			s->blocked_pfc, (unsigned int)s->prio, s->blocked_out, s->nombuf);
		hostem_json_cnp_times(h, f, s->index, false);
		fprintf(f, "}%s\n", i + 1 < h->n_senders ? "," : "");
	}
	fprintf(f, "],\n\"receivers\": [\n");
	for (uint16_t i = 0; i < h->n_receivers; i++) {
		const struct hostem_receiver *r = &h->receivers[i];
		const struct hostem_lat *l = &r->lat;

		fprintf(f, "  {");
		hostem_json_qp_common(f, r->qc);
		fprintf(f,
			"\"pkts\": %" PRIu64 ", \"payload_bytes\": %" PRIu64
			", \"frame_bytes\": %" PRIu64 ", \"msgs\": %" PRIu64
			", \"goodput_bps\": %.0f, \"ce\": %" PRIu64 ", \"cnps_sent\": %" PRIu64
			", \"cnps_suppressed\": %" PRIu64 ", \"acks_sent\": %" PRIu64
			", \"naks_sent\": %" PRIu64 ", \"gaps\": %" PRIu64 ", \"missing\": %" PRIu64
			", \"dups\": %" PRIu64 ", \"ctrl_drops\": %" PRIu64
			", \"cnp_interval_ns\": %" PRIu64 ", \"latency_ns\": {\"n\": %" PRIu64
			", \"min\": %" PRIu64 ", \"avg\": %.0f, \"p50\": %" PRIu64
			", \"p99\": %" PRIu64 ", \"max\": %" PRIu64 "}, \"cnp_tx_ns\": ",
			r->pkts, r->payload_bytes, r->frame_bytes, r->msgs,
			hostem_bps(r->payload_bytes, hostem_receiver_active_ns(r)), r->ce,
			r->cnps_sent, r->cnps_suppressed, r->acks_sent, r->naks_sent, r->gaps,
			r->missing, r->dups, r->ctrl_drops, r->qc->cnp_interval_ns, l->n, l->min_ns,
			l->n ? (double)l->sum_ns / (double)l->n : 0.0, hostem_lat_quantile(l, 0.5),
			hostem_lat_quantile(l, 0.99), l->max_ns);
		hostem_json_cnp_times(h, f, r->index, true);
		fprintf(f, "}%s\n", i + 1 < h->n_receivers ? "," : "");
	}
	fprintf(f, "]\n}\n");
	return fclose(f) == 0 ? 0 : -errno;
}

int
hostem_report_cnp_log(const struct hostem *h, const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -errno;
	fprintf(f, "t_ns,tsc,qp,event,tagged,rate_before_bps,rate_after_bps\n");
	for (uint64_t i = 0; i < h->cnp_log_n; i++) {
		const struct hostem_cnp_event *e = &h->cnp_log[i];

		fprintf(f, "%" PRIu64 ",%" PRIu64 ",%s,%s,%u,%" PRIu64 ",%" PRIu64 "\n",
			lab_clock_ns(&h->clk, e->tsc), e->tsc, h->conf->qp[e->qp].name,
			e->sent ? "tx" : "rx", e->tagged, e->rate_before_bps, e->rate_after_bps);
	}
	return fclose(f) == 0 ? 0 : -errno;
}
