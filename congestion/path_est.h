/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PATH_EST_H
#define LONGSPAN_PATH_EST_H

/*
 * Measured distance to a peer gateway (docs/wire-format.md, "Path
 * measurement"): RTT and clock offset from NTP-style four-timestamp
 * exchanges, one-way delays with the offset cancelled, RFC 3550 jitter,
 * loss and reordering from sequence counters, and the hysteresis that
 * decides when a measured RTT replaces the one the parameters were
 * derived from.
 *
 * Pure (style.md rule 4): no clock is read, times are arguments in ns.
 * The per-packet part (path_jitter_update()) is what a worker runs; the
 * rest runs on the control thread once per measurement interval.
 */

#include <stdbool.h>
#include <stdint.h>

/*
 * One exchange as seen by gateway A: t1 = A sent a packet (A's clock),
 * t2 = B received it (B's clock), t3 = B sent the probe echoing t1 and t2
 * (B's clock), t4 = A received that probe (A's clock).
 */
struct path_ntp_sample {
	uint64_t t1_ns, t2_ns, t3_ns, t4_ns;
};

/*
 * RTT = (t4 - t1) - (t3 - t2) and offset (B's clock minus A's) =
 * ((t2 - t1) + (t3 - t4)) / 2 (RFC 5905 section 8). Returns false for an
 * impossible sample (t4 before t1, t3 before t2, negative RTT), whatever
 * the offset between the clocks.
 */
bool path_ntp(const struct path_ntp_sample *s, int64_t *rtt_ns, int64_t *offset_ns);

/*
 * RFC 3550 section 6.4.1 interarrival jitter over a stream's transit times
 * (receive time minus the sender's timestamp, any constant clock offset
 * included): J += (|D| - J) / 16, kept scaled by 16 as in RFC 3550
 * appendix A.8 so the update is integer adds and a shift.
 */
struct path_jitter {
	uint64_t j16; /* jitter x 16, ns */
	int64_t last_transit_ns;
	uint8_t have; /* last_transit_ns is valid */
};

static inline void
path_jitter_update(struct path_jitter *j, int64_t transit_ns)
{
	if (j->have) {
		int64_t d = transit_ns - j->last_transit_ns;
		uint64_t ad = d < 0 ? (uint64_t)-d : (uint64_t)d;

		/* (j16 + 8) >> 4 <= j16, so this never goes below zero. */
		j->j16 = j->j16 + ad - ((j->j16 + 8) >> 4);
	}
	j->last_transit_ns = transit_ns;
	j->have = 1;
}

static inline uint64_t
path_jitter_ns(const struct path_jitter *j)
{
	return j->j16 >> 4;
}

/* Cumulative sequence counters of one direction (dataplane/decap.c). */
struct path_seq_counts {
	uint64_t received; /* packets carrying a sequence number */
	uint64_t gaps; /* sequence numbers skipped when the sequence jumped forward */
	uint64_t reorder; /* packets older than the highest seen */
};

/*
 * Loss and reordering between two readings: a reordered packet fills a gap
 * counted before, so lost = gaps - reorder (never below 0) out of
 * expected = received + lost. Both ratios in parts per million; false when
 * nothing was expected.
 */
bool path_loss(const struct path_seq_counts *prev, const struct path_seq_counts *now,
	       uint32_t *loss_ppm, uint32_t *reorder_ppm, uint64_t *expected);

/* Hysteresis over the RTT the parameters are derived from. */
struct path_hyst_params {
	uint32_t band_ppm; /* a measurement this far from the applied RTT is outside */
	uint32_t intervals; /* consecutive intervals outside before the change */
	/*
	 * ... and at least noise_mult times the path's own noise (its jitter):
	 * on a short path the measurement's noise is wider than band_ppm of
	 * the RTT, and a relative band alone republishes on noise.
	 */
	uint32_t noise_mult;
};

#define PATH_HYST_BAND_PPM 100000u /* 10% */
#define PATH_HYST_INTERVALS 3u
#define PATH_HYST_NOISE_MULT 1u

struct path_hyst {
	uint64_t applied_ns; /* 0: none yet (the first measurement applies at once) */
	uint32_t outside; /* consecutive intervals outside the band, agreeing */
	uint64_t last_ns; /* the run's last measurement */
	uint64_t changes; /* times applied_ns changed */
};

enum path_hyst_verdict {
	PATH_HYST_KEEP = 0, /* inside the band, or not outside long enough */
	PATH_HYST_FIRST, /* first measurement: applied */
	PATH_HYST_CHANGE, /* outside the band for the required intervals: applied */
};

/*
 * Feed one interval's measured RTT and the path's noise (its jitter, 0 =
 * unknown); on PATH_HYST_FIRST or _CHANGE, h->applied_ns is the new value.
 * Outside means farther from applied_ns than max(band_ppm of it,
 * noise_mult x noise_ns); the intervals outside count as a run while each
 * is on the same side as the one before and within twice that band (of
 * the one before) of it, else the run starts over at this one.
 */
enum path_hyst_verdict path_hyst_update(struct path_hyst *h, const struct path_hyst_params *p,
					uint64_t measured_ns, uint64_t noise_ns);

#endif /* LONGSPAN_PATH_EST_H */
