/* SPDX-License-Identifier: BSD-3-Clause */
/* Path measurement between gateways (path_est.h). */
#include "path_est.h"

bool
path_ntp(const struct path_ntp_sample *s, int64_t *rtt_ns, int64_t *offset_ns)
{
	/* Differences of one clock's times are small; across clocks they carry the offset. */
	int64_t round = (int64_t)(s->t4_ns - s->t1_ns);
	int64_t hold = (int64_t)(s->t3_ns - s->t2_ns);
	int64_t fwd = (int64_t)(s->t2_ns - s->t1_ns);
	int64_t back = (int64_t)(s->t3_ns - s->t4_ns);

	if (round < 0 || hold < 0 || round < hold)
		return false;
	*rtt_ns = round - hold;
	/* fwd + back = 2 x offset + (forward delay - backward delay); halve without overflow. */
	*offset_ns = fwd / 2 + back / 2 + (fwd % 2 + back % 2) / 2;
	return true;
}

bool
path_loss(const struct path_seq_counts *prev, const struct path_seq_counts *now,
	  uint32_t *loss_ppm, uint32_t *reorder_ppm, uint64_t *expected)
{
	uint64_t rx = now->received - prev->received;
	uint64_t gaps = now->gaps - prev->gaps;
	uint64_t reorder = now->reorder - prev->reorder;
	uint64_t lost = gaps > reorder ? gaps - reorder : 0;
	uint64_t exp = rx + lost;

	*expected = exp;
	if (exp == 0) {
		*loss_ppm = *reorder_ppm = 0;
		return false;
	}
	*loss_ppm = (uint32_t)((unsigned __int128)lost * 1000000u / exp);
	*reorder_ppm = (uint32_t)((unsigned __int128)(reorder < exp ? reorder : exp) * 1000000u / exp);
	return true;
}

/* max(band_ppm of ref, noise_mult x noise): how far from ref is noise. */
static uint64_t
path_hyst_band(const struct path_hyst_params *p, uint64_t ref_ns, uint64_t noise_ns)
{
	uint64_t band = (uint64_t)((unsigned __int128)ref_ns * p->band_ppm / 1000000u);
	uint64_t floor = noise_ns > UINT64_MAX / 16 ? UINT64_MAX / 16 : noise_ns * p->noise_mult;

	return band < floor ? floor : band;
}

static uint64_t
path_hyst_diff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

enum path_hyst_verdict
path_hyst_update(struct path_hyst *h, const struct path_hyst_params *p, uint64_t measured_ns,
		 uint64_t noise_ns)
{
	bool above;

	if (measured_ns == 0)
		return PATH_HYST_KEEP;
	if (h->applied_ns == 0) {
		h->applied_ns = measured_ns;
		h->outside = 0;
		h->changes++;
		return PATH_HYST_FIRST;
	}
	if (path_hyst_diff(measured_ns, h->applied_ns) <=
	    path_hyst_band(p, h->applied_ns, noise_ns)) {
		h->outside = 0;
		return PATH_HYST_KEEP;
	}
	/*
	 * Outside. The run counts only while its measurements agree: on the
	 * same side, each within twice the band of the one before. A run of
	 * noise just before a step, or the interval of the step itself (its
	 * samples half on the old path), starts over instead of applying a
	 * value no path had.
	 */
	above = measured_ns > h->applied_ns;
	if (h->outside > 0 &&
	    (above != (h->last_ns > h->applied_ns) ||
	     path_hyst_diff(measured_ns, h->last_ns) > 2 * path_hyst_band(p, h->last_ns, noise_ns)))
		h->outside = 0;
	h->last_ns = measured_ns;
	if (++h->outside < p->intervals)
		return PATH_HYST_KEEP;
	h->applied_ns = measured_ns;
	h->outside = 0;
	h->changes++;
	return PATH_HYST_CHANGE;
}
