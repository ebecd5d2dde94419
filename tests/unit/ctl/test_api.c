/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control API without EAL: every command's numbers against the fixture
 * (sums over workers), JSON that python's json module accepts, one-line
 * errors, the request size limit, the extension table, and the formatters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/api.h"
#include "control/fmt.h"
#include "ctl_check.h"
#include "ctl_fixture.h"

struct ctl_out {
	char *text;
	size_t size;
	int rc;
};

static struct ctl_out
ctl_run(struct ctl_fixture *fx, const char *request)
{
	struct ctl_out o = { NULL, 0, 0 };
	FILE *s = open_memstream(&o.text, &o.size);

	assert_non_null(s);
	o.rc = api_exec(&fx->rt, request, s);
	fclose(s);
	return o;
}

/* Run REQUEST expecting success, check its JSON with EXPR. */
static void
ctl_json(struct ctl_fixture *fx, const char *request, const char *expr)
{
	struct ctl_out o = ctl_run(fx, request);

	if (o.rc != 0)
		fail_msg("'%s' failed (%d): %s", request, o.rc, o.text);
	ctl_check_json(o.text, o.size, expr);
	free(o.text);
}

/* Run REQUEST expecting RC and exactly one line containing MESSAGE. */
static void
ctl_error(struct ctl_fixture *fx, const char *request, int rc, const char *message)
{
	struct ctl_out o = ctl_run(fx, request);

	if (o.rc != rc || strstr(o.text, message) == NULL || ctl_count_lines(o.text) != 1 ||
	    o.text[o.size - 1] != '\n')
		fail_msg("'%s': expected %d and one line with \"%s\", got %d: \"%s\"", request, rc,
			 message, o.rc, o.text);
	free(o.text);
}

static int
setup(void **state)
{
	*state = ctl_fixture_new();
	return 0;
}

static int
teardown(void **state)
{
	ctl_fixture_free(*state);
	return 0;
}

/* ---- show stats ---- */

static void
test_stats_text(void **state)
{
	struct ctl_out o = ctl_run(*state, "show stats");

	assert_int_equal(o.rc, 0);
	assert_true(CTL_HAS_LINE(o.text, "name", "site-a"));
	assert_true(CTL_HAS_LINE(o.text, "rx_pkts", "1707"));
	assert_true(CTL_HAS_LINE(o.text, "tx_bytes", "175600"));
	assert_true(CTL_HAS_LINE(o.text, "drops", "10"));
	assert_true(CTL_HAS_LINE(o.text, "punted", "10"));
	assert_true(CTL_HAS_LINE(o.text, "injected", "8"));
	assert_true(CTL_HAS_LINE(o.text, "generation", "7"));
	assert_true(CTL_HAS_LINE(o.text, "idle_pct", "56.67"));
	assert_true(CTL_HAS_LINE(o.text, "roce_data", "950"));
	assert_true(CTL_HAS_LINE(o.text, "tunnel", "507"));
	/* Worker rows: id lcore busy% idle% polls sleeps rx tx drops. */
	assert_true(CTL_HAS_LINE(o.text, "worker", "lcore", "busy%"));
	assert_true(CTL_HAS_LINE(o.text, "0", "1", "*", "40.00", "10000", "100", "1500", "1380", "5"));
	assert_true(CTL_HAS_LINE(o.text, "1", "2", "*", "90.00", "5000", "300", "207", "196", "5"));
	free(o.text);
}

static void
test_stats_json(void **state)
{
	ctl_json(*state, "show stats --json",
		 "d['rx_pkts'] == 1707 and d['rx_bytes'] == 180700 and d['tx_pkts'] == 1576"
		 " and d['tx_bytes'] == 175600 and d['drops'] == 10 and d['punted'] == 10"
		 " and d['injected'] == 8 and d['ecn_marked'] == 6 and d['polls'] == 15000"
		 " and d['idle_polls'] == 8500 and abs(d['idle_pct'] - 56.6667) < 0.01"
		 " and d['classes'] == {'roce_data': 950, 'roce_ack': 190, 'roce_cnp': 20,"
		 " 'other_ip': 40, 'arp': 4, 'nd': 2, 'tunnel': 507}"
		 " and d['generation'] == 7 and d['reloads_ok'] == 3 and d['reloads_failed'] == 1"
		 " and 5 <= d['uptime_s'] < 100 and d['workers']['0']['polls'] == 10000"
		 " and 40 < d['workers']['0']['busy_pct'] <= 50"
		 " and 8 < d['workers']['1']['busy_pct'] <= 10"
		 " and d['workers']['1']['rx_pkts'] == 207 and d['workers']['1']['lcore'] == 2"
		 " and d['n_workers'] == 2 and d['l2']['learned'] == 4 and d['l2']['aged'] == 1");
}

static void
test_json_switches(void **state)
{
	/* The three spellings select the same output. */
	ctl_json(*state, "json show stats", "d['rx_pkts'] == 1707");
	ctl_json(*state, "-j show stats", "d['rx_pkts'] == 1707");
	ctl_json(*state, "show --json stats", "d['rx_pkts'] == 1707");
}

static void
test_stats_no_tsc(void **state)
{
	struct ctl_fixture *fx = *state;

	fx->rt.tsc_hz = 0;
	ctl_json(fx, "show stats --json", "d['uptime_s'] is None");
}

/* ---- show drops ---- */

static void
test_drops(void **state)
{
	struct ctl_out o = ctl_run(*state, "show drops");
	char expr[512];

	assert_int_equal(o.rc, 0);
	assert_true(CTL_HAS_LINE(o.text, "total", "10"));
	assert_true(CTL_HAS_LINE(o.text, "no_route", "7", "no", "peer", "site"));
	assert_true(CTL_HAS_LINE(o.text, "ipv4_bad_checksum", "2", "IPv4", "header"));
	assert_true(CTL_HAS_LINE(o.text, "tx_ring_full", "1"));
	assert_true(CTL_HAS_LINE(o.text, "no_config", "0"));
	/* "none" is not a drop. */
	assert_false(CTL_HAS_LINE(o.text, "none"));
	free(o.text);

	snprintf(expr, sizeof(expr),
		 "d['total'] == 10 and len(d['drops']) == %d and 'none' not in d['drops']"
		 " and d['drops']['no_route'] == {'count': 7, 'description':"
		 " 'no peer site prefix matches the destination'}"
		 " and d['drops']['ipv4_truncated']['count'] == 0", LS_DROP_MAX - 1);
	ctl_json(*state, "show drops --json", expr);
}

static void
test_drops_nonzero(void **state)
{
	struct ctl_out o = ctl_run(*state, "show drops --nonzero");

	assert_int_equal(o.rc, 0);
	/* total, a blank line, the heading, the column header, three reasons. */
	assert_int_equal(ctl_count_lines(o.text), 7);
	assert_false(CTL_HAS_LINE(o.text, "no_config"));
	free(o.text);
	ctl_json(*state, "show drops --nonzero --json",
		 "sorted(d['drops']) == ['ipv4_bad_checksum', 'no_route', 'tx_ring_full']");
}

/* ---- show ports ---- */

static void
test_ports(void **state)
{
	struct ctl_out o = ctl_run(*state, "show ports");

	assert_int_equal(o.rc, 0);
	assert_true(CTL_HAS_LINE(o.text, "dc"));
	assert_true(CTL_HAS_LINE(o.text, "wan-1"));
	assert_true(CTL_HAS_LINE(o.text, "device", "net_null0"));
	assert_true(CTL_HAS_LINE(o.text, "ipv4", "10.1.0.254/16"));
	assert_true(CTL_HAS_LINE(o.text, "ipv6", "fd00:1::fe/64"));
	assert_true(CTL_HAS_LINE(o.text, "mac", "02:00:00:00:0a:01"));
	assert_true(CTL_HAS_LINE(o.text, "vlan", "100"));
	/* No device behind the port ids: ethdev fields degrade to n/a. */
	assert_true(CTL_HAS_LINE(o.text, "ethdev", "n/a"));
	assert_true(CTL_HAS_LINE(o.text, "link", "n/a"));
	assert_true(CTL_HAS_LINE(o.text, "rx_pkts", "1200"));
	assert_true(CTL_HAS_LINE(o.text, "tx_pkts", "1090"));
	free(o.text);

	ctl_json(*state, "show ports --json",
		 "list(d['ports']) == ['dc', 'wan-1'] and d['total'] == 2 and d['pages'] == 1"
		 " and d['ports']['dc']['role'] == 'dc' and d['ports']['wan-1']['role'] == 'wan'"
		 " and d['ports']['dc']['workers'] == {'rx_pkts': 1200, 'rx_bytes': 120000,"
		 " 'tx_pkts': 486, 'tx_bytes': 55600}"
		 " and d['ports']['wan-1']['workers']['rx_pkts'] == 507"
		 " and d['ports']['wan-1']['workers']['tx_pkts'] == 1090"
		 " and d['ports']['dc']['ethdev'] is None and d['ports']['dc']['link'] is None"
		 " and d['ports']['dc']['port_id'] is None"
		 " and d['ports']['wan-1']['gateway4'] == '192.0.2.254'"
		 " and d['ports']['wan-1']['ipv6'] == ''"
		 " and d['ports']['wan-1']['link_rate_bps'] == 10000000000"
		 " and d['ports']['wan-1']['mtu'] == 9000");
}

static void
test_ports_mac_fallback(void **state)
{
	struct ctl_fixture *fx = *state;

	/* Without a snapshot: the configured MAC, else nothing known. */
	fx->rt.dp = NULL;
	ctl_json(fx, "show ports --json",
		 "d['ports']['wan-1']['mac'] == '02:00:00:00:0a:02'"
		 " and d['ports']['dc']['mac'] is None");
}

static void
test_ports_select(void **state)
{
	ctl_json(*state, "show ports wan-1 --json",
		 "list(d['ports']) == ['wan-1'] and 'total' not in d");
	ctl_json(*state, "show ports --limit 1 --page 2 --json",
		 "list(d['ports']) == ['wan-1'] and d['pages'] == 2 and d['page'] == 2");
	ctl_error(*state, "show ports nope", -ENOENT, "show ports: no port named 'nope'");
}

static void
test_ports_xstats_unavailable(void **state)
{
	ctl_json(*state, "show ports --xstats --json", "d['ports']['dc']['xstats'] is None");
}

/* ---- show peers ---- */

static void
test_peers(void **state)
{
	struct ctl_out o = ctl_run(*state, "show peers");

	assert_int_equal(o.rc, 0);
	assert_true(CTL_HAS_LINE(o.text, "site-b"));
	assert_true(CTL_HAS_LINE(o.text, "remote", "192.0.2.2"));
	assert_true(CTL_HAS_LINE(o.text, "remote", "2001:db8::3"));
	assert_true(CTL_HAS_LINE(o.text, "prefixes", "10.2.0.0/16", "fd00:2::/64"));
	assert_true(CTL_HAS_LINE(o.text, "tx_pkts", "1040"));
	assert_true(CTL_HAS_LINE(o.text, "rx_ce", "13"));
	/* One page only: no paging hint. */
	assert_null(strstr(o.text, "--page"));
	free(o.text);

	ctl_json(*state, "show peers --json",
		 "list(d['peers']) == ['site-b', 'site-c'] and d['total'] == 2"
		 " and d['peers']['site-b']['vni'] == 100 and d['peers']['site-b']['port'] == 'wan-1'"
		 " and d['peers']['site-b']['rtt_ns'] == 1000000"
		 " and d['peers']['site-b']['prefixes'] == ['10.2.0.0/16', 'fd00:2::/64']"
		 " and d['peers']['site-b']['tx_pkts'] == 1040 and d['peers']['site-b']['tx_bytes'] == 116000"
		 " and d['peers']['site-b']['rx_pkts'] == 487 and d['peers']['site-b']['rx_bytes'] == 50700"
		 " and d['peers']['site-b']['rx_ce'] == 13 and d['peers']['site-b']['rx_seq_gaps'] == 3"
		 " and d['peers']['site-b']['rx_seq_reorder'] == 1"
		 " and d['peers']['site-c']['remote'] == '2001:db8::3'"
		 " and d['peers']['site-c']['distance_m'] == 400000"
		 " and d['peers']['site-c']['tx_pkts'] == 50 and d['peers']['site-c']['rx_pkts'] == 0");
}

static void
test_peers_paging(void **state)
{
	struct ctl_fixture *fx = *state;
	struct ctl_out o;

	ctl_json(fx, "show peers --limit 1 --page 2 --json",
		 "list(d['peers']) == ['site-c'] and d['page'] == 2 and d['pages'] == 2"
		 " and d['limit'] == 1 and d['total'] == 2");
	ctl_json(fx, "show peers --limit=1 --json", "list(d['peers']) == ['site-b']");
	ctl_json(fx, "show peers site-c --json", "list(d['peers']) == ['site-c']");
	ctl_error(fx, "show peers --limit 1 --page 3", -EINVAL,
		  "show peers: page 3 is past the end (2 pages of 1 for 2 items)");

	/* --page alone pages by API_PAGE_LIMIT_DEFAULT. */
	ctl_fixture_many_peers(fx, 20);
	ctl_json(fx, "show peers --page 2 --json",
		 "len(d['peers']) == 4 and d['limit'] == 16 and d['pages'] == 2"
		 " and list(d['peers'])[0] == 'peer-16' and len(d['peers']['peer-16']['prefixes']) == 64");
	o = ctl_run(fx, "show peers --page 1");
	assert_int_equal(o.rc, 0);
	assert_non_null(strstr(o.text, "(peers 1-16 of 20, page 1 of 2: --page N for the others)"));
	free(o.text);
}

/* ---- show config, reload ---- */

static void
test_config(void **state)
{
	struct ctl_out o = ctl_run(*state, "show config");

	assert_int_equal(o.rc, 0);
	assert_non_null(strstr(o.text, "[gateway]"));
	assert_non_null(strstr(o.text, "site-a"));
	assert_non_null(strstr(o.text, "[port wan-1]"));
	free(o.text);

	ctl_json(*state, "show config --json",
		 "'[gateway]' in d['ini'] and '[port wan-1]' in d['ini'] and d['name'] == 'site-a'");
	ctl_json(*state, "show config --summary --json",
		 "'ini' not in d and d['name'] == 'site-a' and d['path'] == '/etc/longspan/site-a.conf'"
		 " and d['ports'] == ['dc', 'wan-1'] and d['peers'] == ['site-b', 'site-c']"
		 " and d['dc_port'] == 'dc' and d['marker'] == 'red' and d['mechanisms'] == 'A'"
		 " and d['generation'] == 7 and d['workers'] == 2");
	o = ctl_run(*state, "show config --summary");
	assert_int_equal(o.rc, 0);
	assert_true(CTL_HAS_LINE(o.text, "ports", "dc", "wan-1"));
	free(o.text);
}

static void
test_reload(void **state)
{
	struct ctl_fixture *fx = *state;
	struct ctl_out o;

	o = ctl_run(fx, "reload");
	assert_int_equal(o.rc, 0);
	assert_string_equal(ctl_reload_last_path, "(null)");
	assert_true(CTL_HAS_LINE(o.text, "reloaded", "/etc/longspan/site-a.conf", "(generation",
				 "8)"));
	assert_non_null(strstr(o.text, "change needs a restart"));
	free(o.text);

	/* A quoted path with a blank reaches runtime_reload intact. */
	ctl_json(fx, "reload \"/tmp/new site.conf\" --json",
		 "d['path'] == '/tmp/new site.conf' and d['generation'] == 9"
		 " and len(d['messages']) == 1 and 'restart' in d['messages'][0]");
	assert_string_equal(ctl_reload_last_path, "/tmp/new site.conf");
	assert_int_equal(fx->rt.reloads_ok, 5);
}

static void
test_reload_failure(void **state)
{
	struct ctl_fixture *fx = *state;
	struct ctl_out o = ctl_run(fx, "reload /tmp/bad.conf");
	const char *second;

	assert_int_equal(o.rc, -EINVAL);
	/* The message first, then every error the reload reported. */
	assert_int_equal(strncmp(o.text,
				 "reload: /tmp/bad.conf: not applied, the running config is unchanged",
				 strlen("reload: /tmp/bad.conf: not applied")),
			 0);
	second = strchr(o.text, '\n') + 1;
	assert_int_equal(strncmp(second, "/tmp/bad.conf:12: [peer site-b] vni:", 36), 0);
	assert_non_null(strstr(second, "/tmp/bad.conf:20: [congestion] marker:"));
	assert_int_equal(ctl_count_lines(o.text), 3);
	assert_int_equal(fx->dp.generation, CTL_GENERATION);
	free(o.text);
}

/* ---- help, version, errors ---- */

static void
test_help_version(void **state)
{
	struct ctl_out o = ctl_run(*state, "help");
	unsigned int i;

	assert_int_equal(o.rc, 0);
	for (i = 0; i < api_cmd_count(); i++)
		assert_non_null(strstr(o.text, api_cmd_at(i)->name));
	assert_non_null(strstr(o.text, "show peers [NAME] [--page N] [--limit N]"));
	free(o.text);
	ctl_json(*state, "help --json",
		 "d['commands']['show drops']['telemetry'] == '/longspan/drops'"
		 " and d['commands']['reload']['args'] == '[FILE]'");
	ctl_json(*state, "version --json",
		 "d['longspan'].count('.') == 2 and d['dpdk'].startswith('DPDK 22.11')");
}

static void
test_errors(void **state)
{
	static const struct {
		const char *request;
		int rc;
		const char *message;
	} cases[] = {
		{ "", -EINVAL, "empty request (try 'help')" },
		{ "   --json ", -EINVAL, "empty request (try 'help')" },
		{ "frobnicate", -ENOENT, "unknown command 'frobnicate' (try 'help')" },
		{ "show", -ENOENT, "'show' needs one of: ports stats drops peers config" },
		{ "show bogus", -ENOENT,
		  "unknown command 'show bogus'; 'show' takes one of: ports stats drops peers config" },
		{ "show drops --bogus", -EINVAL, "show drops: unknown option '--bogus' (see 'help')" },
		{ "show drops --nonzero=yes", -EINVAL, "show drops: --nonzero takes no value" },
		{ "show stats extra", -EINVAL, "show stats: unexpected argument 'extra'" },
		{ "show peers a b", -EINVAL, "show peers: unexpected argument 'b'" },
		{ "show peers --limit", -EINVAL, "show peers: --limit needs a value" },
		{ "show peers --limit x", -EINVAL,
		  "show peers: --limit: expected an integer from 1 to 4294967295, got 'x'" },
		{ "show peers --limit 0", -EINVAL, "got '0'" },
		{ "show peers --limit -3", -EINVAL, "got '-3'" },
		{ "show peers --page 99999999999", -EINVAL, "got '99999999999'" },
		{ "show peers --limit 1 --page 9", -EINVAL, "page 9 is past the end" },
		{ "show peers nobody", -ENOENT, "show peers: no peer named 'nobody'" },
		{ "reload a b", -EINVAL, "reload: unexpected argument 'b'" },
		{ "show \"unterminated", -EINVAL, "unterminated quote in request" },
		{ "a b c d e f g h i j k l m n o p q r s t u v w x y z 1 2 3 4 5 6 7", -E2BIG,
		  "too many words in request (at most 32)" },
		{ "version --verbose", -EINVAL, "version: unknown option '--verbose'" },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++)
		ctl_error(*state, cases[i].request, cases[i].rc, cases[i].message);
}

static void
test_no_config(void **state)
{
	struct ctl_fixture *fx = *state;

	fx->rt.cfg = NULL;
	ctl_error(fx, "show ports", -ENOENT, "show ports: no configuration loaded");
	ctl_error(fx, "show peers", -ENOENT, "show peers: no configuration loaded");
	ctl_error(fx, "show config", -ENOENT, "show config: no configuration loaded");
	/* Counters need no config. */
	ctl_json(fx, "show drops --json", "d['total'] == 10");
	ctl_json(fx, "show stats --json", "d['name'] == '' and d['rx_pkts'] == 1707");
}

static void
test_oversized(void **state)
{
	char request[API_MAX_REQUEST_BYTES + 2];

	memset(request, 'x', sizeof(request) - 1);
	request[sizeof(request) - 1] = '\0';
	ctl_error(*state, request, -E2BIG, "request too long: 1025 bytes (at most 1024)");
	/* Exactly the limit is fine (and then an unknown command). */
	request[API_MAX_REQUEST_BYTES] = '\0';
	ctl_error(*state, request, -ENOENT, "unknown command");
	/* The trailing newline does not count. */
	request[API_MAX_REQUEST_BYTES] = '\n';
	ctl_error(*state, request, -ENOENT, "unknown command");
}

static void
test_split(void **state)
{
	char line[] = "  a \"b c\" \"d\\\"e\" f\"g h\"i \"\" \"\\\\\" ";
	char *argv[8];
	char many[] = "1 2 3";
	char open[] = "a \"b";

	(void)state;
	assert_int_equal(api_split(line, argv, 8), 6);
	assert_string_equal(argv[0], "a");
	assert_string_equal(argv[1], "b c");
	assert_string_equal(argv[2], "d\"e");
	assert_string_equal(argv[3], "fg hi");
	assert_string_equal(argv[4], "");
	assert_string_equal(argv[5], "\\");
	assert_int_equal(api_split(many, argv, 2), -E2BIG);
	assert_int_equal(api_split(open, argv, 8), -EINVAL);
}

/* ---- extensions: how "show flows" and "tune" plug in ---- */

static int
test_flows_handler(struct api_ctx *ctx, int argc, char **argv)
{
	struct api_page pg = { 0, 0 };
	bool verbose = false;
	const struct api_opt opts[] = {
		API_PAGE_OPTS(&pg),
		{ "--verbose", API_OPT_FLAG, 0, 0, &verbose },
	};
	unsigned int i, first, end, total = 10;
	int n_pos, rc;

	rc = api_opts_parse(ctx, argc, argv, opts, RTE_DIM(opts), 0, &n_pos);
	if (rc < 0)
		return rc;
	rc = api_page_resolve(ctx, &pg, total, &first, &end);
	if (rc < 0)
		return rc;
	fmt_open(ctx->fmt, "flows", FMT_OBJ);
	for (i = first; i < end; i++) {
		char key[16];

		snprintf(key, sizeof(key), "flow%u", i);
		fmt_open(ctx->fmt, key, FMT_ROW);
		fmt_u64(ctx->fmt, "pkts", i * 100);
		fmt_close(ctx->fmt);
	}
	fmt_close(ctx->fmt);
	api_page_emit(ctx, &pg, total, "flows");
	return 0;
}

static const struct api_cmd test_flows_cmd = {
	.name = "show flows",
	.args = "[--page N] [--limit N] [--verbose]",
	.help = "per-QP flows (test extension)",
	.telemetry = "/longspan/flows",
	.telemetry_page_max = 4,
	.handler = test_flows_handler,
};

static const struct api_cmd test_dup_cmd = {
	.name = "show stats",
	.args = "",
	.help = "duplicate",
	.handler = test_flows_handler,
};

static void
test_register(void **state)
{
	struct ctl_out o;

	assert_int_equal(api_register(&test_flows_cmd), 0);
	assert_int_equal(api_register(&test_flows_cmd), -EEXIST);
	assert_int_equal(api_register(&test_dup_cmd), -EEXIST);
	assert_ptr_equal(api_cmd_by_telemetry("/longspan/flows"), &test_flows_cmd);

	ctl_json(*state, "show flows --page 2 --limit 3 --json",
		 "list(d['flows']) == ['flow3', 'flow4', 'flow5'] and d['flows']['flow4'] == {'pkts': 400}"
		 " and d['pages'] == 4 and d['total'] == 10");
	o = ctl_run(*state, "show flows --limit 4");
	assert_int_equal(o.rc, 0);
	assert_true(CTL_HAS_LINE(o.text, "flow3", "300"));
	assert_non_null(strstr(o.text, "(flows 1-4 of 10, page 1 of 3: --page N for the others)"));
	free(o.text);
	/* The extension shows up in help and in the 'show' hint. */
	o = ctl_run(*state, "help");
	assert_non_null(strstr(o.text, "show flows [--page N] [--limit N] [--verbose]"));
	free(o.text);
	ctl_error(*state, "show", -ENOENT, "'show' needs one of: ports stats drops peers config flows");
}

/* ---- formatters ---- */

static void
test_fmt_json_escape(void **state)
{
	char *text = NULL;
	size_t size = 0;
	FILE *s = open_memstream(&text, &size);
	struct fmt f;

	(void)state;
	fmt_json_init(&f, s);
	fmt_str(&f, "quote\"key", "a\"b\\c\nd\te\x01" "f\x7f");
	fmt_f64(&f, "nan", NAN);
	fmt_f64(&f, "third", 1.0 / 3.0);
	fmt_bool(&f, "yes", true);
	fmt_null(&f, "nothing");
	fmt_open(&f, "empty", FMT_OBJ);
	fmt_close(&f);
	fmt_open(&f, "list", FMT_LIST);
	fmt_str(&f, NULL, "x");
	fmt_str(&f, NULL, "y");
	fmt_close(&f);
	fmt_open(&f, "open", FMT_OBJ); /* left open: fmt_finish closes it */
	fmt_u64(&f, "max", UINT64_MAX);
	assert_int_equal(fmt_finish(&f), 0);
	fclose(s);
	ctl_check_json(text, size,
		       "d == {'quote\"key': 'a\"b\\\\c\\nd\\te\\x01f\\x7f', 'nan': None,"
		       " 'third': 0.333333, 'yes': True, 'nothing': None, 'empty': {},"
		       " 'list': ['x', 'y'], 'open': {'max': 18446744073709551615}}");
	free(text);
}

static void
test_fmt_misuse(void **state)
{
	char *text = NULL;
	size_t size = 0;
	FILE *s = open_memstream(&text, &size);
	struct fmt f;
	unsigned int i;

	(void)state;
	fmt_text_init(&f, s);
	fmt_open(&f, "list", FMT_LIST);
	fmt_u64(&f, NULL, 1); /* lists hold strings only */
	assert_int_equal(fmt_finish(&f), -EINVAL);

	fmt_text_init(&f, s);
	fmt_open(&f, "row", FMT_ROW);
	fmt_open(&f, "nested", FMT_OBJ); /* nothing nests in a row */
	assert_int_equal(fmt_finish(&f), -EINVAL);

	fmt_text_init(&f, s);
	fmt_u64(&f, NULL, 1); /* objects need keys */
	assert_int_equal(fmt_finish(&f), -EINVAL);

	fmt_text_init(&f, s);
	fmt_close(&f); /* nothing open */
	assert_int_equal(fmt_finish(&f), -EINVAL);

	fmt_text_init(&f, s);
	for (i = 0; i < FMT_MAX_DEPTH; i++)
		fmt_open(&f, "deep", FMT_OBJ);
	assert_int_equal(fmt_finish(&f), -EINVAL);
	fclose(s);
	free(text);
}

static void
test_fmt_text_layout(void **state)
{
	char *text = NULL;
	size_t size = 0;
	FILE *s = open_memstream(&text, &size);
	struct fmt f;

	(void)state;
	fmt_text_init(&f, s);
	fmt_u64(&f, "top", 1);
	fmt_open(&f, "section", FMT_OBJ);
	fmt_str(&f, "key", "value");
	fmt_str(&f, "empty", "");
	fmt_open(&f, "row", FMT_ROW);
	fmt_u64(&f, "a", 42);
	fmt_str(&f, "b", "text");
	fmt_close(&f);
	fmt_open(&f, "nothing", FMT_LIST);
	fmt_close(&f);
	assert_int_equal(fmt_finish(&f), 0);
	fclose(s);
	assert_string_equal(text, "top                      1\n"
				  "\n"
				  "section\n"
				  "  key                    value\n"
				  "  empty                  -\n"
				  "  row                              42  text\n"
				  "  nothing                -\n");
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stats_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stats_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_switches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stats_no_tsc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drops_nonzero, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ports, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ports_mac_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ports_select, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ports_xstats_unavailable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peers_paging, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reload_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oversized, setup, teardown),
		cmocka_unit_test(test_split),
		cmocka_unit_test_setup_teardown(test_register, setup, teardown),
		cmocka_unit_test(test_fmt_json_escape),
		cmocka_unit_test(test_fmt_misuse),
		cmocka_unit_test(test_fmt_text_layout),
	};

	return cmocka_run_group_tests_name("ctl_api", tests, NULL, NULL);
}
