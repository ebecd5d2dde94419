/* SPDX-License-Identifier: BSD-3-Clause */
/* Measured distance to each peer (measure.h). */
#include "measure.h"

#include <inttypes.h>
#include <string.h>

#include "dataplane/worker.h"
#include "fmt.h"

static const struct path_hyst_params measure_hyst = {
	.band_ppm = PATH_HYST_BAND_PPM,
	.intervals = PATH_HYST_INTERVALS,
	.noise_mult = PATH_HYST_NOISE_MULT,
};

/* Copy worker w's NTP samples that mp has not seen; sequence-count read (path_meas.h). */
static void
measure_read_ntp(struct measure_peer *mp, unsigned int w, const struct dp_path_meas *pm,
		 struct measure_acc *acc)
{
	struct path_ntp_sample s[DP_MEAS_RING];
	uint64_t n = __atomic_load_n(&pm->ntp_n, __ATOMIC_ACQUIRE);
	uint64_t from = mp->ntp_seen[w], after, k;

	if (n - from > DP_MEAS_RING) {
		mp->samples_overrun += n - from - DP_MEAS_RING;
		from = n - DP_MEAS_RING;
	}
	for (k = from; k < n; k++)
		s[k - from] = pm->ring[k % DP_MEAS_RING];
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	after = __atomic_load_n(&pm->ntp_n, __ATOMIC_RELAXED);
	mp->ntp_seen[w] = n;
	for (k = from; k < n; k++) {
		const struct path_ntp_sample *x = &s[k - from];
		int64_t rtt, off, fwd, rev;

		if (after - k > DP_MEAS_RING) { /* rewritten while we copied it */
			mp->samples_overrun++;
			continue;
		}
		if (!path_ntp(x, &rtt, &off)) {
			mp->samples_rejected++;
			continue;
		}
		fwd = (int64_t)(x->t2_ns - x->t1_ns);
		rev = (int64_t)(x->t4_ns - x->t3_ns);
		if (acc->n == 0 || rtt < acc->best_rtt) {
			acc->best_rtt = rtt;
			acc->best_off = off;
		}
		if (acc->n == 0 || fwd < acc->fwd_min)
			acc->fwd_min = fwd;
		if (acc->n == 0 || rev < acc->rev_min)
			acc->rev_min = rev;
		acc->n++;
		acc->rtt_sum += rtt;
	}
}

static void
measure_collect(struct measure_peer *mp, unsigned int i, struct dp_worker *const *workers,
		unsigned int n_workers, struct measure_acc *acc)
{
	*acc = mp->ntp;
	memset(&mp->ntp, 0, sizeof(mp->ntp));
	for (unsigned int w = 0; w < n_workers && w < LS_MAX_WORKERS; w++) {
		const struct dp_path_meas *pm = &workers[w]->meas[i];
		const struct dp_peer_counters *pc = &workers[w]->counters.peer[i];
		uint64_t tn = __atomic_load_n(&pm->transit_n, __ATOMIC_ACQUIRE);
		uint64_t ts = pm->transit_sum_ns;

		measure_read_ntp(mp, w, pm, acc);
		if (mp->primed) {
			acc->transit_n += tn - mp->transit_n_prev[w];
			acc->transit_sum += (int64_t)(ts - mp->transit_sum_prev[w]);
		}
		mp->transit_n_prev[w] = tn;
		mp->transit_sum_prev[w] = ts;
		if (tn != 0 && path_jitter_ns(&pm->jitter) > acc->jitter)
			acc->jitter = path_jitter_ns(&pm->jitter);
		acc->seq.received += pc->rx_seq_pkts;
		acc->seq.gaps += pc->rx_seq_gaps;
		acc->seq.reorder += pc->rx_seq_reorder;
	}
}

uint64_t
measure_rtt_ns(const struct measure *m, const struct ls_config *cfg, unsigned int i)
{
	const struct ls_peer_conf *pc = &cfg->peers[i];
	const struct measure_peer *mp = &m->peers[i];

	if (pc->rtt_auto && mp->rtt_applied_ns != 0 && strcmp(mp->name, pc->name) == 0)
		return mp->rtt_applied_ns;
	return pc->rtt_ns;
}

/* rtt = auto: does the measurement move the parameters? */
static bool
measure_auto(struct measure_peer *mp, const struct ls_config *cfg, unsigned int i, FILE *log)
{
	const struct ls_peer_conf *pc = &cfg->peers[i];
	uint64_t measured = mp->rtt_ns < 1000 ? 1000 : (uint64_t)mp->rtt_ns; /* [peer] rtt's minimum */
	uint64_t old = mp->rtt_applied_ns != 0 ? mp->rtt_applied_ns : pc->rtt_ns;
	enum path_hyst_verdict v;

	if (mp->hyst.applied_ns == 0 && pc->rtt_ns != 0)
		mp->hyst.applied_ns = pc->rtt_ns; /* the start: from distance */
	v = path_hyst_update(&mp->hyst, &measure_hyst, measured,
			     mp->jitter_updated_ns != 0 ? mp->jitter_ns : 0);
	if (v == PATH_HYST_KEEP)
		return false;
	mp->rtt_applied_ns = mp->hyst.applied_ns;
	mp->rtt_changes++;
	if (log != NULL)
		fprintf(log,
			"peer '%s': rtt auto: %" PRIu64 " ns -> %" PRIu64 " ns (%s), parameters "
			"derived anew\n",
			pc->name, old, mp->rtt_applied_ns,
			v == PATH_HYST_FIRST ? "first measurement" :
					       "measured outside max(10%, jitter) of the RTT in use "
					       "for 3 intervals");
	return true;
}

/* Make mp the numbers of cfg's peer i. */
static void
measure_peer_sync(struct measure_peer *mp, const struct ls_config *cfg, unsigned int i,
		  struct dp_worker *const *workers, unsigned int n_workers)
{
	bool other = mp->name[0] != '\0';

	if (strcmp(mp->name, cfg->peers[i].name) == 0)
		return;
	/* A reload put another peer at this index: start over, past the previous peer's samples. */
	memset(mp, 0, sizeof(*mp));
	snprintf(mp->name, sizeof(mp->name), "%s", cfg->peers[i].name);
	for (unsigned int w = 0; other && w < n_workers && w < LS_MAX_WORKERS; w++)
		mp->ntp_seen[w] = __atomic_load_n(&workers[w]->meas[i].ntp_n, __ATOMIC_ACQUIRE);
}

void
measure_read(struct measure *m, const struct ls_config *cfg, struct dp_worker *const *workers,
	     unsigned int n_workers)
{
	for (unsigned int i = 0; i < cfg->n_peers && i < LS_MAX_PEERS; i++) {
		struct measure_peer *mp = &m->peers[i];

		measure_peer_sync(mp, cfg, i, workers, n_workers);
		for (unsigned int w = 0; w < n_workers && w < LS_MAX_WORKERS; w++)
			measure_read_ntp(mp, w, &workers[w]->meas[i], &mp->ntp);
	}
}

bool
measure_interval(struct measure *m, const struct ls_config *cfg,
		 struct dp_worker *const *workers, unsigned int n_workers, uint64_t now_ns,
		 FILE *log)
{
	bool changed = false;

	m->intervals++;
	for (unsigned int i = 0; i < cfg->n_peers && i < LS_MAX_PEERS; i++) {
		struct measure_peer *mp = &m->peers[i];
		struct measure_acc acc;
		uint64_t expected;
		uint32_t loss, reorder;

		measure_peer_sync(mp, cfg, i, workers, n_workers);
		measure_collect(mp, i, workers, n_workers, &acc);
		if (acc.n > 0) {
			mp->samples = acc.n;
			mp->rtt_ns = acc.best_rtt;
			mp->rtt_mean_ns = acc.rtt_sum / (int64_t)acc.n;
			mp->offset_ns = acc.best_off;
			mp->owd_tx_ns = acc.fwd_min - acc.best_off;
			mp->owd_rx_ns = acc.rev_min + acc.best_off;
			mp->rtt_updated_ns = now_ns;
		}
		/* The mean over data packets needs an offset: none before the first RTT. */
		if (acc.transit_n > 0 && mp->rtt_updated_ns != 0) {
			mp->owd_rx_mean_ns = acc.transit_sum / (int64_t)acc.transit_n + mp->offset_ns;
			mp->owd_rx_mean_updated_ns = now_ns;
		}
		if (acc.transit_n > 0) {
			mp->jitter_ns = acc.jitter;
			mp->jitter_updated_ns = now_ns;
		}
		if (mp->primed && path_loss(&mp->seq_prev, &acc.seq, &loss, &reorder, &expected)) {
			mp->loss_ppm = loss;
			mp->reorder_ppm = reorder;
			mp->loss_updated_ns = now_ns;
		}
		mp->seq_prev = acc.seq;
		mp->primed = true;
		if (acc.n > 0 && cfg->peers[i].rtt_auto && measure_auto(mp, cfg, i, log)) {
			mp->rtt_changed_interval = m->intervals;
			m->rtt_changes++;
			changed = true;
		}
	}
	return changed;
}

/* Age of an update in ms, or "-" when there was none. */
static void
measure_age(struct fmt *f, const char *key, uint64_t updated_ns, uint64_t now_ns)
{
	if (updated_ns == 0)
		fmt_none(f, key);
	else
		fmt_f64(f, key, (double)(int64_t)(now_ns - updated_ns) / 1e6);
}

void
measure_show_peer(struct fmt *f, const struct measure *m, const struct ls_config *cfg,
		  unsigned int i, struct dp_worker *const *workers, unsigned int n_workers,
		  uint64_t now_ns)
{
	uint64_t ptx = 0, pfail = 0, prx = 0, pnoecho = 0;
	const struct ls_peer_conf *pc = &cfg->peers[i];
	const struct measure_peer *mp = &m->peers[i];
	bool ours = strcmp(mp->name, pc->name) == 0;
	bool rtt = ours && mp->rtt_updated_ns != 0;

	fmt_open(f, "measured", FMT_OBJ);
	fmt_str(f, "rtt_mode", pc->rtt_auto ? "auto" : "fixed");
	if (pc->rtt_ns != 0)
		fmt_u64(f, "rtt_config_ns", pc->rtt_ns);
	else
		fmt_none(f, "rtt_config_ns");
	fmt_u64(f, "rtt_in_use_ns", measure_rtt_ns(m, cfg, i));
	if (rtt) {
		fmt_u64(f, "rtt_ns", (uint64_t)(mp->rtt_ns < 0 ? 0 : mp->rtt_ns));
		fmt_u64(f, "rtt_mean_ns", (uint64_t)(mp->rtt_mean_ns < 0 ? 0 : mp->rtt_mean_ns));
		fmt_i64(f, "offset_ns", mp->offset_ns);
		fmt_i64(f, "owd_tx_ns", mp->owd_tx_ns);
		fmt_i64(f, "owd_rx_ns", mp->owd_rx_ns);
	} else {
		fmt_none(f, "rtt_ns");
		fmt_none(f, "rtt_mean_ns");
		fmt_none(f, "offset_ns");
		fmt_none(f, "owd_tx_ns");
		fmt_none(f, "owd_rx_ns");
	}
	if (ours && mp->owd_rx_mean_updated_ns != 0)
		fmt_i64(f, "owd_rx_mean_ns", mp->owd_rx_mean_ns);
	else
		fmt_none(f, "owd_rx_mean_ns");
	fmt_u64(f, "samples", ours ? mp->samples : 0);
	measure_age(f, "rtt_age_ms", ours ? mp->rtt_updated_ns : 0, now_ns);
	measure_age(f, "owd_rx_mean_age_ms", ours ? mp->owd_rx_mean_updated_ns : 0, now_ns);
	if (ours && mp->jitter_updated_ns != 0)
		fmt_u64(f, "jitter_ns", mp->jitter_ns);
	else
		fmt_none(f, "jitter_ns");
	measure_age(f, "jitter_age_ms", ours ? mp->jitter_updated_ns : 0, now_ns);
	if (ours && mp->loss_updated_ns != 0) {
		fmt_f64(f, "loss_pct", mp->loss_ppm / 1e4);
		fmt_f64(f, "reorder_pct", mp->reorder_ppm / 1e4);
	} else {
		fmt_none(f, "loss_pct");
		fmt_none(f, "reorder_pct");
	}
	measure_age(f, "loss_age_ms", ours ? mp->loss_updated_ns : 0, now_ns);
	for (unsigned int w = 0; w < n_workers && w < LS_MAX_WORKERS; w++) {
		const struct dp_path_meas *pm = &workers[w]->meas[i];

		ptx += pm->probes_tx;
		pfail += pm->probes_failed;
		prx += pm->probes_rx;
		pnoecho += pm->probes_rx_noecho;
	}
	fmt_u64(f, "probes_tx", ptx);
	fmt_u64(f, "probes_failed", pfail);
	fmt_u64(f, "probes_rx", prx);
	fmt_u64(f, "probes_rx_noecho", pnoecho);
	fmt_u64(f, "samples_rejected", ours ? mp->samples_rejected : 0);
	fmt_u64(f, "samples_overrun", ours ? mp->samples_overrun : 0);
	fmt_u64(f, "rtt_changes", ours ? mp->rtt_changes : 0);
	fmt_u64(f, "rtt_changed_interval", ours ? mp->rtt_changed_interval : 0);
	fmt_close(f);
}
