/* SPDX-License-Identifier: BSD-3-Clause */
#include "hook_prom.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook_export.h"
#include "prom_text.h"

/*
 * The counter families, per scope: X(metric suffix, struct hook_flow_total
 * field, help text). Names carry their unit (_bytes, _packets) and end in
 * _total, as Prometheus counters do.
 */
#define HOOK_PROM_COUNTERS(X)                                                                     \
	X(packets_total, pkts, "RoCE packets received (rx hook points)")                          \
	X(bytes_total, bytes, "Inner IP bytes of the RoCE packets received")                      \
	X(ect_packets_total, ect_pkts, "Packets received with ECT(0) or ECT(1)")                  \
	X(ce_packets_total, ce_pkts, "Packets received with CE")                                  \
	X(cnps_seen_total, cnp_seen, "CNPs received from hosts")                                  \
	X(cnps_generated_total, cnp_generated, "CNPs the gateway generated (mechanism A)")       \
	X(psn_gaps_total, psn_gaps, "Data PSNs ahead of the expected one (loss upstream)")       \
	X(psn_skipped_total, psn_skipped, "PSNs missing in those gaps")                           \
	X(psn_out_of_sequence_total, psn_ooo, "Data PSNs other than the expected one")            \
	X(retransmissions_total, retrans, "Data PSNs behind the expected one (retransmission)")  \
	X(naks_total, naks, "NAKs (AETH syndrome 011xxxxx)")                                      \
	X(rnr_naks_total, rnr_naks, "RNR NAKs (AETH syndrome 001xxxxx)")                          \
	X(marked_packets_total, marked, "Packets the gateway marked CE")                          \
	X(held_packets_total, held, "Packets held by mechanism C")                                \
	X(tx_packets_total, tx_pkts, "RoCE packets transmitted (tx hook points)")                 \
	X(tx_bytes_total, tx_bytes, "Inner IP bytes of the RoCE packets transmitted")             \
	X(tx_drops_total, tx_drops, "RoCE packets dropped between the rx and tx hook points")

enum hook_prom_scope {
	HOOK_PROM_GATEWAY,
	HOOK_PROM_PEER,
	HOOK_PROM_PORT,
	HOOK_PROM_FLOW,
	HOOK_PROM_SCOPES
};

static const char *const hook_prom_prefix[HOOK_PROM_SCOPES] = {
	"longspan_hook_", "longspan_hook_peer_", "longspan_hook_port_", "longspan_hook_flow_"
};

static const char *const hook_prom_scope_help[HOOK_PROM_SCOPES] = {
	"", " (per peer)", " (per port)", " (top flows by bytes)"
};

/* One labelled series: the labels (already escaped) and its totals. */
struct hook_prom_series {
	char labels[160];
	const struct hook_flow_total *t;
};

static void
hook_prom_addr(char *out, size_t size, const struct ls_hook_flow_key *k, const uint8_t *a)
{
	if (inet_ntop(k->family == LS_HOOK_FAMILY_IP6 ? AF_INET6 : AF_INET, a, out,
		      (socklen_t)size) == NULL)
		snprintf(out, size, "?");
}

/* The series of one scope (at most HOOK_EXPORT_TOP_MAX + names). */
static unsigned int
hook_prom_series(const struct hook_export *e, enum hook_prom_scope scope,
		 struct hook_prom_series *out, unsigned int max)
{
	const struct hook_export_params *p = hook_export_params(e);
	struct hook_export_flow_view top[HOOK_EXPORT_TOP_MAX];
	char esc[128], src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	unsigned int n = 0, i, k;

	switch (scope) {
	case HOOK_PROM_GATEWAY:
		out[n].labels[0] = '\0';
		out[n++].t = hook_export_gateway(e);
		break;
	case HOOK_PROM_PEER:
		for (i = 0; i < p->n_peers && n < max; i++) {
			prom_escape(esc, sizeof(esc), p->peer_names[i]);
			snprintf(out[n].labels, sizeof(out[n].labels), "peer=\"%s\"", esc);
			out[n++].t = hook_export_peer(e, i);
		}
		break;
	case HOOK_PROM_PORT:
		for (i = 0; i < p->n_ports && n < max; i++) {
			prom_escape(esc, sizeof(esc), p->port_names[i]);
			snprintf(out[n].labels, sizeof(out[n].labels), "port=\"%s\"", esc);
			out[n++].t = hook_export_port(e, i);
		}
		break;
	case HOOK_PROM_FLOW:
		k = hook_export_top(e, p->top_k < max ? p->top_k : max, top);
		for (i = 0; i < k; i++) {
			hook_prom_addr(src, sizeof(src), top[i].key, top[i].key->src);
			hook_prom_addr(dst, sizeof(dst), top[i].key, top[i].key->dst);
			snprintf(out[n].labels, sizeof(out[n].labels),
				 "src=\"%s\",dst=\"%s\",sport=\"%u\",dest_qp=\"%u\",direction=\"%s\"",
				 src, dst, top[i].key->sport, top[i].key->dest_qp,
				 top[i].key->direction == LS_HOOK_DIR_WAN_TO_DC ? "wan_to_dc" :
										  "dc_to_wan");
			out[n++].t = top[i].total;
		}
		break;
	default:
		break;
	}
	return n;
}

static void
hook_prom_histogram(FILE *f, const char *prefix, const char *scope_help,
		    const struct hook_prom_series *s, unsigned int n)
{
	unsigned int i, k;

	prom_family(f, prefix, "sojourn_seconds", "histogram",
			 "Time RoCE packets spent queued in the gateway (traffic manager or "
			 "mechanism C hold queue)",
			 scope_help);
	for (i = 0; i < n; i++) {
		const char *sep = s[i].labels[0] != '\0' ? "," : "";
		uint64_t cum = 0;

		for (k = 0; k < LS_HOOK_SOJOURN_BUCKETS - 1; k++) {
			cum += s[i].t->sojourn_hist[k];
			fprintf(f, "%ssojourn_seconds_bucket{%s%sle=\"", prefix, s[i].labels, sep);
			prom_seconds(f, hook_export_bucket_ns(k));
			fprintf(f, "\"} %" PRIu64 "\n", cum);
		}
		cum += s[i].t->sojourn_hist[LS_HOOK_SOJOURN_BUCKETS - 1];
		fprintf(f, "%ssojourn_seconds_bucket{%s%sle=\"+Inf\"} %" PRIu64 "\n", prefix,
			s[i].labels, sep, cum);
		fprintf(f, "%ssojourn_seconds_sum%s%s%s ", prefix, s[i].labels[0] ? "{" : "",
			s[i].labels, s[i].labels[0] ? "}" : "");
		prom_seconds(f, s[i].t->sojourn_sum_ns);
		fprintf(f, "\n%ssojourn_seconds_count%s%s%s %" PRIu64 "\n", prefix,
			s[i].labels[0] ? "{" : "", s[i].labels, s[i].labels[0] ? "}" : "", cum);
	}
}

static void
hook_prom_exporter(FILE *f, const struct hook_export *e)
{
	const struct hook_export_stats *st = hook_export_stats(e);

	prom_family(f, "longspan_hook_", "flows", "gauge",
			 "Flows in the exporter's aggregate (seen within the idle timeout)", "");
	fprintf(f, "longspan_hook_flows %" PRIu32 "\n", hook_export_n_flows(e));
#define HOOK_PROM_STAT(name, field, help)                                                         \
	prom_family(f, "longspan_hook_exporter_", #name, "counter", help, "");               \
	fprintf(f, "longspan_hook_exporter_" #name " %" PRIu64 "\n", st->field);
	HOOK_PROM_STAT(ticks_total, ticks, "Exporter intervals run")
	HOOK_PROM_STAT(slot_races_total, slots_torn,
		       "Slot reads that raced a hook claiming the slot (read again next interval)")
	HOOK_PROM_STAT(flows_started_total, flows_started, "Flows added to the aggregate")
	HOOK_PROM_STAT(flows_ended_total, flows_ended, "Flows aged out of the aggregate")
	HOOK_PROM_STAT(aggregate_full_total, aggregate_full,
		       "Slot changes postponed because the aggregate was full")
	HOOK_PROM_STAT(records_total, records, "IPFIX flow records cut")
	HOOK_PROM_STAT(map_errors_total, map_errors, "Failed writes of the pinned flow map")
#undef HOOK_PROM_STAT
	prom_family(f, "longspan_hook_exporter_", "last_interval_seconds", "gauge",
			 "Time the last exporter interval took", "");
	fprintf(f, "longspan_hook_exporter_last_interval_seconds ");
	prom_seconds(f, st->last_tick_ns);
	fprintf(f, "\n");
}

char *
hook_prom_render(const struct hook_export *e, size_t *len)
{
	enum { PER_SCOPE = HOOK_EXPORT_TOP_MAX + HOOK_EXPORT_NAMES_MAX };
	struct hook_prom_series(*series)[PER_SCOPE];
	unsigned int n[HOOK_PROM_SCOPES], sc, i;
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	series = calloc(HOOK_PROM_SCOPES, sizeof(*series));
	if (series == NULL)
		return NULL;
	f = open_memstream(&text, &size);
	if (f == NULL) {
		free(series);
		return NULL;
	}
	for (sc = 0; sc < HOOK_PROM_SCOPES; sc++)
		n[sc] = hook_prom_series(e, sc, series[sc], PER_SCOPE);
	for (sc = 0; sc < HOOK_PROM_SCOPES; sc++) {
		if (n[sc] == 0)
			continue; /* a family without samples says nothing */
#define HOOK_PROM_COUNTER(name, field, help)                                                      \
	prom_family(f, hook_prom_prefix[sc], #name, "counter", help, hook_prom_scope_help[sc]); \
	for (i = 0; i < n[sc]; i++)                                                               \
		fprintf(f, "%s" #name "%s%s%s %" PRIu64 "\n", hook_prom_prefix[sc],               \
			series[sc][i].labels[0] ? "{" : "", series[sc][i].labels,                  \
			series[sc][i].labels[0] ? "}" : "", series[sc][i].t->field);
		HOOK_PROM_COUNTERS(HOOK_PROM_COUNTER)
#undef HOOK_PROM_COUNTER
		if (sc == HOOK_PROM_GATEWAY || sc == HOOK_PROM_PEER)
			hook_prom_histogram(f, hook_prom_prefix[sc], hook_prom_scope_help[sc],
					    series[sc], n[sc]);
	}
	hook_prom_exporter(f, e);
	free(series);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	*len = size;
	return text;
}
