/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hooks in the API and DPDK telemetry (docs/telemetry.md, docs/cli.md):
 *
 *   show hooks                  /longspan/hooks         each hook's calls,
 *                                                       errors, cycles, the
 *                                                       exporter's counters
 *   show flows --source hook    /longspan/hook_flows,PAGE  the exporter's
 *                                                       flows of its last pass
 *
 * and the "hooks" member of show stats (hook_api_stats()). The commands read
 * the hook set under rt->cfg_lock (reload swaps it) and the flows from the
 * copy the control thread made after the last pass, so pages of one pass
 * (the same "pass" number) cover every flow exactly once.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_common.h>

#include "api.h"
#include "hook_api.h"
#include "hook_export.h"
#include "hook_set.h"
#include "runtime.h"

#define HOOK_API_FLOWS_TELEMETRY_MAX 8 /* flows per telemetry page (16 KB replies) */
#define HOOK_API_FLOWS_MAX 4096 /* flows per page over the socket */

static const char *const hook_api_point_names[LS_HOOK_POINT_MAX] = {
	"dc_rx", "wan_rx", "wan_tx", "dc_tx"
};

static void
hook_api_hook(struct fmt *f, const struct hook_set_hook_stats *h)
{
	fmt_open(f, h->name, FMT_OBJ);
	fmt_u64(f, "calls", h->calls);
	fmt_u64(f, "errors", h->errors);
	fmt_u64(f, "cycles", h->cycles);
	fmt_f64(f, "cycles_per_call", h->calls != 0 ? (double)h->cycles / (double)h->calls : 0.0);
	fmt_close(f);
}

void
hook_api_stats(struct api_ctx *ctx)
{
	struct hook_set_hook_stats st[LS_MAX_HOOKS];
	const struct ls_runtime *rt = ctx->rt;
	unsigned int n = hook_set_stats(rt->hooks, (const struct dp_worker *const *)rt->workers,
					rt->n_workers, st, LS_MAX_HOOKS);

	fmt_open(ctx->fmt, "hooks", FMT_OBJ);
	for (unsigned int i = 0; i < n; i++)
		hook_api_hook(ctx->fmt, &st[i]);
	fmt_close(ctx->fmt);
}

static int
hook_api_show_hooks(struct api_ctx *ctx, int argc, char **argv)
{
	struct hook_set_hook_stats st[LS_MAX_HOOKS];
	struct ls_runtime *rt = ctx->rt;
	struct hook_set_export_view v;
	struct hook_set_flow dummy;
	struct fmt *f = ctx->fmt;
	unsigned int n, i, p;
	int n_pos, rc;

	rc = api_opts_parse(ctx, argc, argv, NULL, 0, 0, &n_pos);
	if (rc < 0)
		return rc;
	n = hook_set_stats(rt->hooks, (const struct dp_worker *const *)rt->workers, rt->n_workers,
			   st, LS_MAX_HOOKS);
	fmt_open(f, "hooks", FMT_OBJ);
	for (i = 0; i < n; i++) {
		char points[64] = "";

		for (p = 0; p < LS_HOOK_POINT_MAX; p++)
			if (st[i].points & (1u << p))
				snprintf(points + strlen(points), sizeof(points) - strlen(points),
					 "%s%s", points[0] != '\0' ? "," : "", hook_api_point_names[p]);
		fmt_open(f, st[i].name, FMT_OBJ);
		fmt_str(f, "object", st[i].object);
		fmt_str(f, "section", st[i].section);
		fmt_str(f, "points", points);
		fmt_str(f, "pin_dir", st[i].pin_dir);
		fmt_u64(f, "instructions", st[i].n_insns);
		fmt_u64(f, "jit_bytes", st[i].jit_bytes);
		fmt_u64(f, "flow_slots", st[i].flow_slots);
		fmt_u64(f, "counters", st[i].counters);
		fmt_u64(f, "calls", st[i].calls);
		fmt_u64(f, "errors", st[i].errors);
		fmt_u64(f, "cycles", st[i].cycles);
		fmt_f64(f, "cycles_per_call",
			st[i].calls != 0 ? (double)st[i].cycles / (double)st[i].calls : 0.0);
		fmt_close(f);
	}
	fmt_close(f);
	hook_set_flows(rt->hooks, 0, 0, &dummy, &v);
	fmt_open(f, "exporter", FMT_OBJ);
	if (v.hook[0] != '\0')
		fmt_str(f, "hook", v.hook);
	else
		fmt_none(f, "hook");
	fmt_u64(f, "passes", v.pass);
	fmt_u64(f, "flows", v.total);
	fmt_u64(f, "slots_changed", v.exp.slots_changed);
	fmt_u64(f, "slot_races", v.exp.slots_torn);
	fmt_u64(f, "flows_started", v.exp.flows_started);
	fmt_u64(f, "flows_ended", v.exp.flows_ended);
	fmt_u64(f, "aggregate_full", v.exp.aggregate_full);
	fmt_u64(f, "map_updates", v.exp.map_updates);
	fmt_u64(f, "map_deletes", v.exp.map_deletes);
	fmt_u64(f, "map_errors", v.exp.map_errors);
	fmt_u64(f, "last_pass_us", v.exp.last_tick_ns / 1000);
	fmt_u64(f, "prometheus_port", v.prom_port);
	fmt_u64(f, "prometheus_requests", v.prom_requests);
	if (v.has_ipfix) {
		fmt_u64(f, "ipfix_records", v.ipfix.records);
		fmt_u64(f, "ipfix_messages", v.ipfix.messages);
		fmt_u64(f, "ipfix_dropped_messages", v.ipfix.dropped_messages);
		fmt_u64(f, "ipfix_errors", v.ipfix.errors);
	}
	fmt_close(f);
	return 0;
}

static void
hook_api_addr(const struct ls_hook_flow_key *k, const uint8_t *a, char *buf, size_t size)
{
	inet_ntop(k->family == LS_HOOK_FAMILY_IP6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)size);
}

static void
hook_api_flow(struct api_ctx *ctx, unsigned int index, const struct hook_set_flow *fl)
{
	const struct dp_conf *dp = ctx->rt->dp;
	const struct ls_hook_flow_key *k = &fl->key;
	const struct hook_flow_total *t = &fl->total;
	struct fmt *f = ctx->fmt;
	char key[16], src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];

	hook_api_addr(k, k->src, src, sizeof(src));
	hook_api_addr(k, k->dst, dst, sizeof(dst));
	snprintf(key, sizeof(key), "%u", index);
	fmt_open(f, key, FMT_ROW);
	fmt_width(f, 7);
	fmt_str(f, "direction", k->direction == LS_HOOK_DIR_WAN_TO_DC ? "wan->dc" : "dc->wan");
	fmt_width(f, 15);
	fmt_str(f, "src", src);
	fmt_width(f, 15);
	fmt_str(f, "dst", dst);
	fmt_width(f, 5);
	fmt_u64(f, "sport", k->sport);
	fmt_width(f, 8);
	fmt_u64(f, "dest_qp", k->dest_qp);
	fmt_width(f, 8);
	fmt_str(f, "peer", dp != NULL && t->peer < dp->n_peers ? dp->peers[t->peer].name : "");
	fmt_width(f, 9);
	fmt_u64(f, "pkts", t->pkts);
	fmt_width(f, 11);
	fmt_u64(f, "bytes", t->bytes);
	fmt_width(f, 6);
	fmt_u64(f, "ce", t->ce_pkts);
	fmt_width(f, 5);
	fmt_u64(f, "cnp_seen", t->cnp_seen);
	fmt_width(f, 5);
	fmt_u64(f, "cnp_generated", t->cnp_generated);
	fmt_width(f, 5);
	fmt_u64(f, "psn_gaps", t->psn_gaps);
	fmt_width(f, 5);
	fmt_u64(f, "retrans", t->retrans);
	fmt_width(f, 5);
	fmt_u64(f, "naks", t->naks);
	fmt_width(f, 6);
	fmt_u64(f, "marked", t->marked);
	fmt_width(f, 9);
	fmt_u64(f, "tx_pkts", t->tx_pkts);
	fmt_width(f, 5);
	fmt_u64(f, "tx_drops", t->tx_drops);
	fmt_width(f, 8);
	fmt_u64(f, "sojourn_p99_ns", hook_export_sojourn_pct_ns(t->sojourn_hist, 99));
	if (ctx->format != API_FORMAT_TEXT) {
		fmt_u64(f, "dport", k->dport);
		fmt_u64(f, "ect", t->ect_pkts);
		fmt_u64(f, "psn_skipped", t->psn_skipped);
		fmt_u64(f, "psn_ooo", t->psn_ooo);
		fmt_u64(f, "rnr_naks", t->rnr_naks);
		fmt_u64(f, "held", t->held);
		fmt_u64(f, "tx_bytes", t->tx_bytes);
		fmt_u64(f, "sojourn_sum_ns", t->sojourn_sum_ns);
		fmt_u64(f, "first_ns", t->first_ns);
		fmt_u64(f, "last_ns", t->last_ns);
		fmt_u64(f, "lcores", t->lcores);
	}
	fmt_close(f);
}

static int
hook_api_show_flows(struct api_ctx *ctx, int argc, char **argv)
{
	struct api_page pg = { 0, 0 };
	const struct api_opt opts[] = { API_PAGE_OPTS(&pg) };
	struct hook_set_export_view v;
	struct hook_set_flow *buf;
	struct fmt *f = ctx->fmt;
	unsigned int first, end, n, i;
	struct hook_set_flow dummy;
	int n_pos, rc;

	rc = api_opts_parse(ctx, argc, argv, opts, RTE_DIM(opts), 0, &n_pos);
	if (rc < 0)
		return rc;
	if (pg.page == 0 && pg.limit == 0)
		pg.limit = API_FLOWS_LIMIT_DEFAULT;
	if (pg.limit > HOOK_API_FLOWS_MAX)
		pg.limit = HOOK_API_FLOWS_MAX;
	if (ctx->rt->hooks == NULL) {
		api_error(ctx, "no hook keeps flow records (configure [hook NAME])");
		return -ENOENT;
	}
	hook_set_flows(ctx->rt->hooks, 0, 0, &dummy, &v);
	rc = api_page_resolve(ctx, &pg, v.total, &first, &end);
	if (rc < 0)
		return rc;
	buf = calloc(end - first + 1, sizeof(*buf));
	if (buf == NULL) {
		api_error(ctx, "out of memory");
		return -ENOMEM;
	}
	/* Copy the page and the pass it belongs to in one go. */
	n = hook_set_flows(ctx->rt->hooks, first, end - first, buf, &v);
	fmt_str(f, "source", "hook");
	fmt_str(f, "hook", v.hook);
	fmt_u64(f, "pass", v.pass);
	fmt_u64(f, "flows", v.total);
	fmt_open(f, "flows", FMT_OBJ);
	fmt_key_width(f, 6);
	fmt_notef(f, "%-6s %-7s  %-15s  %-15s %5s %8s  %-8s %9s %11s %6s %5s %5s %5s %5s %5s %6s "
		     "%9s %5s %8s",
		  "#", "dir", "src", "dst", "sport", "dest_qp", "peer", "pkts", "bytes", "ce",
		  "cnp_s", "cnp_g", "gaps", "retx", "naks", "marked", "tx_pkts", "drops", "p99_ns");
	for (i = 0; i < n; i++)
		hook_api_flow(ctx, first + i + 1, &buf[i]);
	fmt_close(f);
	api_page_emit(ctx, &pg, v.total, "flows");
	free(buf);
	return 0;
}

static const struct api_cmd hook_api_cmds[] = {
	{
		.name = "show hooks",
		.args = "",
		.help = "eBPF hooks: object, points, calls, errors, cycles; the flow exporter",
		.flags = API_CMD_CFG_LOCK,
		.telemetry = "/longspan/hooks",
		.handler = hook_api_show_hooks,
	},
	{
		.name = "show flows --source hook",
		.args = "[--page N] [--limit N]",
		.help = "per-QP flows of the hook exporter's last pass (every worker summed)",
		.flags = API_CMD_CFG_LOCK,
		.telemetry = "/longspan/hook_flows",
		.telemetry_page_max = HOOK_API_FLOWS_TELEMETRY_MAX,
		.handler = hook_api_show_flows,
	},
};

int
hook_api_register(void)
{
	for (unsigned int i = 0; i < RTE_DIM(hook_api_cmds); i++) {
		int rc = api_register(&hook_api_cmds[i]);

		if (rc != 0 && rc != -EEXIST)
			return rc;
	}
	return 0;
}
