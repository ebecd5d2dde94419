/* SPDX-License-Identifier: BSD-3-Clause */
#include "measure_prom.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/worker.h"
#include "prom_text.h"

/* How a value is written. */
enum measure_prom_kind {
	MP_SECONDS, /* ns, >= 0 */
	MP_SECONDS_SIGNED, /* ns, either sign */
	MP_RATIO, /* parts per million, as a ratio */
	MP_COUNT,
	MP_TIMESTAMP, /* CLOCK_REALTIME ns, as Unix seconds */
};

/*
 * The series of one peer, in the order they are written: X(id, metric,
 * extra labels, type, kind, help). Series of one metric are adjacent, so
 * each family is written in one block.
 */
#define MEASURE_PROM_SERIES(X)                                                                    \
	X(RTT, "rtt_seconds", "", "gauge", MP_SECONDS,                                            \
	  "Smallest round-trip time of the last measurement interval with samples")               \
	X(RTT_MEAN, "rtt_mean_seconds", "", "gauge", MP_SECONDS,                                  \
	  "Mean round-trip time of that interval")                                                \
	X(RTT_CONF, "rtt_configured_seconds", "", "gauge", MP_SECONDS,                            \
	  "Round-trip time from [peer] rtt or distance")                                          \
	X(RTT_USE, "rtt_in_use_seconds", "", "gauge", MP_SECONDS,                                 \
	  "Round-trip time the published congestion parameters are derived from")                 \
	X(RTT_AUTO, "rtt_auto", "", "gauge", MP_COUNT,                                            \
	  "1 when [peer] rtt = auto (parameters follow the measurement), else 0")                 \
	X(OFFSET, "clock_offset_seconds", "", "gauge", MP_SECONDS_SIGNED,                         \
	  "The peer's timestamp clock minus ours")                                                \
	X(OWD_TX, "one_way_delay_seconds", "direction=\"to_peer\"", "gauge", MP_SECONDS_SIGNED,   \
	  "One-way delay, the clock offset cancelled")                                            \
	X(OWD_RX, "one_way_delay_seconds", "direction=\"from_peer\"", "gauge", MP_SECONDS_SIGNED, \
	  "One-way delay, the clock offset cancelled")                                            \
	X(OWD_RX_MEAN, "one_way_delay_mean_seconds", "direction=\"from_peer\"", "gauge",          \
	  MP_SECONDS_SIGNED, "Mean one-way delay of every packet from the peer, offset cancelled") \
	X(JITTER, "jitter_seconds", "", "gauge", MP_SECONDS,                                      \
	  "Interarrival jitter of the packets from the peer (RFC 3550)")                          \
	X(LOSS, "loss_ratio", "", "gauge", MP_RATIO,                                              \
	  "Packets from the peer lost, over the last interval with any")                          \
	X(REORDER, "reorder_ratio", "", "gauge", MP_RATIO,                                        \
	  "Packets from the peer out of order, over the last interval with any")                  \
	X(SAMPLES, "rtt_samples", "", "gauge", MP_COUNT,                                          \
	  "Round-trip samples of the last interval with samples")                                 \
	X(UPD_RTT, "last_update_timestamp_seconds", "measure=\"rtt\"", "gauge", MP_TIMESTAMP,     \
	  "When each measurement last changed (Unix time)")                                       \
	X(UPD_OWD, "last_update_timestamp_seconds", "measure=\"one_way_delay\"", "gauge",         \
	  MP_TIMESTAMP, "When each measurement last changed (Unix time)")                         \
	X(UPD_JIT, "last_update_timestamp_seconds", "measure=\"jitter\"", "gauge", MP_TIMESTAMP,  \
	  "When each measurement last changed (Unix time)")                                       \
	X(UPD_LOSS, "last_update_timestamp_seconds", "measure=\"loss\"", "gauge", MP_TIMESTAMP,   \
	  "When each measurement last changed (Unix time)")                                       \
	X(PROBES_TX, "probes_sent_total", "", "counter", MP_COUNT,                                \
	  "Path probes sent to the peer")                                                         \
	X(PROBES_FAIL, "probes_failed_total", "", "counter", MP_COUNT,                            \
	  "Path probes not sent (no buffer, next hop unresolved, no transmit room)")              \
	X(PROBES_RX, "probes_received_total", "", "counter", MP_COUNT,                            \
	  "Path probes received from the peer")                                                   \
	X(PROBES_NOECHO, "probes_received_noecho_total", "", "counter", MP_COUNT,                 \
	  "Path probes received without an echo (the peer had heard nothing yet)")                \
	X(REJECTED, "samples_rejected_total", "", "counter", MP_COUNT,                            \
	  "Round-trip samples refused as impossible")                                             \
	X(OVERRUN, "samples_overrun_total", "", "counter", MP_COUNT,                              \
	  "Round-trip samples overwritten before they were read")                                 \
	X(RTT_CHANGES, "rtt_changes_total", "", "counter", MP_COUNT,                              \
	  "Republishes of the congestion parameters this peer's measured RTT caused")

enum measure_prom_id {
#define MP_ID(id, name, labels, type, kind, help) MP_##id,
	MEASURE_PROM_SERIES(MP_ID)
#undef MP_ID
	MP_N
};

struct measure_prom_spec {
	const char *name, *labels, *type, *help;
	enum measure_prom_kind kind;
};

static const struct measure_prom_spec measure_prom_spec[MP_N] = {
#define MP_SPEC(id, n, l, t, k, h) [MP_##id] = { .name = n, .labels = l, .type = t, .help = h, .kind = k },
	MEASURE_PROM_SERIES(MP_SPEC)
#undef MP_SPEC
};

/* One peer's values; has[k] false: no sample. */
struct measure_prom_row {
	char label[160]; /* peer="NAME", escaped */
	bool has[MP_N];
	int64_t v[MP_N];
};

static void
measure_prom_put(struct measure_prom_row *r, enum measure_prom_id id, bool has, int64_t v)
{
	r->has[id] = has;
	r->v[id] = v;
}

static void
measure_prom_row(struct measure_prom_row *r, const struct measure *m, const struct ls_config *cfg,
		 unsigned int i, struct dp_worker *const *workers, unsigned int n_workers)
{
	const struct ls_peer_conf *pc = &cfg->peers[i];
	const struct measure_peer *mp = &m->peers[i];
	bool ours = strcmp(mp->name, pc->name) == 0; /* not a slot of a removed peer */
	bool rtt = ours && mp->rtt_updated_ns != 0;
	bool owd_mean = ours && mp->owd_rx_mean_updated_ns != 0;
	bool jitter = ours && mp->jitter_updated_ns != 0;
	bool loss = ours && mp->loss_updated_ns != 0;
	int64_t probes[4] = { 0 };
	char esc[128];

	memset(r, 0, sizeof(*r));
	prom_escape(esc, sizeof(esc), pc->name);
	snprintf(r->label, sizeof(r->label), "peer=\"%s\"", esc);
	measure_prom_put(r, MP_RTT, rtt, mp->rtt_ns < 0 ? 0 : mp->rtt_ns);
	measure_prom_put(r, MP_RTT_MEAN, rtt, mp->rtt_mean_ns < 0 ? 0 : mp->rtt_mean_ns);
	measure_prom_put(r, MP_RTT_CONF, pc->rtt_ns != 0, (int64_t)pc->rtt_ns);
	measure_prom_put(r, MP_RTT_USE, true, (int64_t)measure_rtt_ns(m, cfg, i));
	measure_prom_put(r, MP_RTT_AUTO, true, pc->rtt_auto ? 1 : 0);
	measure_prom_put(r, MP_OFFSET, rtt, mp->offset_ns);
	measure_prom_put(r, MP_OWD_TX, rtt, mp->owd_tx_ns);
	measure_prom_put(r, MP_OWD_RX, rtt, mp->owd_rx_ns);
	measure_prom_put(r, MP_OWD_RX_MEAN, owd_mean, mp->owd_rx_mean_ns);
	measure_prom_put(r, MP_JITTER, jitter, (int64_t)mp->jitter_ns);
	measure_prom_put(r, MP_LOSS, loss, mp->loss_ppm);
	measure_prom_put(r, MP_REORDER, loss, mp->reorder_ppm);
	measure_prom_put(r, MP_SAMPLES, true, ours ? (int64_t)mp->samples : 0);
	measure_prom_put(r, MP_UPD_RTT, rtt, (int64_t)mp->rtt_updated_ns);
	measure_prom_put(r, MP_UPD_OWD, rtt, (int64_t)mp->rtt_updated_ns);
	measure_prom_put(r, MP_UPD_JIT, jitter, (int64_t)mp->jitter_updated_ns);
	measure_prom_put(r, MP_UPD_LOSS, loss, (int64_t)mp->loss_updated_ns);
	for (unsigned int w = 0; w < n_workers && w < LS_MAX_WORKERS; w++) {
		const struct dp_path_meas *pm = &workers[w]->meas[i];

		probes[0] += (int64_t)pm->probes_tx;
		probes[1] += (int64_t)pm->probes_failed;
		probes[2] += (int64_t)pm->probes_rx;
		probes[3] += (int64_t)pm->probes_rx_noecho;
	}
	measure_prom_put(r, MP_PROBES_TX, true, probes[0]);
	measure_prom_put(r, MP_PROBES_FAIL, true, probes[1]);
	measure_prom_put(r, MP_PROBES_RX, true, probes[2]);
	measure_prom_put(r, MP_PROBES_NOECHO, true, probes[3]);
	measure_prom_put(r, MP_REJECTED, true, ours ? (int64_t)mp->samples_rejected : 0);
	measure_prom_put(r, MP_OVERRUN, true, ours ? (int64_t)mp->samples_overrun : 0);
	measure_prom_put(r, MP_RTT_CHANGES, true, ours ? (int64_t)mp->rtt_changes : 0);
}

static void
measure_prom_value(FILE *f, enum measure_prom_kind kind, int64_t v)
{
	switch (kind) {
	case MP_SECONDS:
	case MP_TIMESTAMP:
		prom_seconds(f, (uint64_t)v);
		break;
	case MP_SECONDS_SIGNED:
		prom_seconds_signed(f, v);
		break;
	case MP_RATIO:
		fprintf(f, "%" PRId64 ".%06" PRId64, v / 1000000, v % 1000000);
		break;
	case MP_COUNT:
	default:
		fprintf(f, "%" PRId64, v);
		break;
	}
}

static void
measure_prom_gateway(FILE *f, const struct measure *m)
{
#define MP_GW(name, field, help)                                                                  \
	prom_family(f, "longspan_measure_", name, "counter", help, "");                           \
	fprintf(f, "longspan_measure_%s %" PRIu64 "\n", name, m->field);
	MP_GW("intervals_total", intervals, "Measurement intervals run")
	MP_GW("rtt_changes_total", rtt_changes,
	      "Republishes of the congestion parameters caused by a measured RTT (all peers)")
	MP_GW("republish_failed_total", republish_failed,
	      "Republishes with a measured RTT refused (the running parameters stayed)")
#undef MP_GW
}

char *
measure_prom_render(const struct measure *m, const struct ls_config *cfg,
		    struct dp_worker *const *workers, unsigned int n_workers, size_t *len)
{
	struct measure_prom_row *rows;
	const char *family = NULL; /* the family whose HELP and TYPE were written last */
	unsigned int n = cfg->n_peers, i, k;
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	rows = calloc(n > 0 ? n : 1, sizeof(*rows));
	if (rows == NULL)
		return NULL;
	f = open_memstream(&text, &size);
	if (f == NULL) {
		free(rows);
		return NULL;
	}
	for (i = 0; i < n; i++)
		measure_prom_row(&rows[i], m, cfg, i, workers, n_workers);
	for (k = 0; k < MP_N; k++) {
		const struct measure_prom_spec *s = &measure_prom_spec[k];
		bool any = false;

		for (i = 0; i < n; i++)
			any |= rows[i].has[k];
		if (!any)
			continue; /* a series without samples says nothing */
		if (family == NULL || strcmp(family, s->name) != 0) {
			prom_family(f, "longspan_peer_", s->name, s->type, s->help, " (per peer)");
			family = s->name;
		}
		for (i = 0; i < n; i++) {
			if (!rows[i].has[k])
				continue;
			fprintf(f, "longspan_peer_%s{%s%s%s} ", s->name, rows[i].label,
				s->labels[0] != '\0' ? "," : "", s->labels);
			measure_prom_value(f, s->kind, rows[i].v[k]);
			fputc('\n', f);
		}
	}
	measure_prom_gateway(f, m);
	free(rows);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	*len = size;
	return text;
}
