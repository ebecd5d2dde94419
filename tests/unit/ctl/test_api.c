/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control API without EAL: every command's numbers against the fixture
 * (sums over workers), JSON that python's json module accepts, one-line
 * errors, the request size limit, the extension table, and the formatters.
 * show flows, show tm and tune read fake workers' flow tables, traffic
 * manager counters and a snapshot derived by congestion/cc_params.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "congestion/cc_params.h"
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
	assert_true(CTL_HAS_LINE(o.text, "probes_sent", "0"));
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
		 " and d['forwarded'] == 1545 and d['own_tx'] == 31 and d['own_tx_failed'] == 0"
		 " and d['resolve_requests'] == 2"
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
	/* Unset addresses: '-' in text, null in JSON. */
	assert_true(CTL_HAS_LINE(o.text, "gateway6", "-"));
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
		 " and d['ports']['wan-1']['ipv6'] is None and d['ports']['wan-1']['gateway6'] is None"
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
	assert_true(CTL_HAS_LINE(o.text, "local", "-"));
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
		 " and d['peers']['site-b']['local'] is None"
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
	assert_non_null(strstr(o.text, "/etc/longspan/site-a.conf: warning: [congestion] "
				       "mechanisms = A with [gateway] workers = 2"));
	free(o.text);

	/* A quoted path with a blank reaches runtime_reload intact. */
	ctl_json(fx, "reload \"/tmp/new site.conf\" --json",
		 "d['path'] == '/tmp/new site.conf' and d['generation'] == 9"
		 " and len(d['messages']) == 1 and 'warning: [congestion]' in d['messages'][0]");
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
		 " and d['commands']['reload']['telemetry'] is None"
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
		{ "show", -ENOENT, "'show' needs one of: ports stats drops peers flows tm queues config" },
		{ "show bogus", -ENOENT,
		  "unknown command 'show bogus'; 'show' takes one of: ports stats drops peers flows tm"
		  " queues config" },
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
	ctl_json(fx, "show stats --json", "d['name'] is None and d['rx_pkts'] == 1707");
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

/* ---- show flows ---- */

static void
test_flows_text(void **state)
{
	struct ctl_out o = ctl_run(*state, "show flows");

	assert_int_equal(o.rc, 0);
	assert_true(CTL_HAS_LINE(o.text, "live", "5"));
	assert_true(CTL_HAS_LINE(o.text, "created", "9"));
	assert_true(CTL_HAS_LINE(o.text, "table_full", "2"));
	assert_true(CTL_HAS_LINE(o.text, "#", "w", "dir", "class", "src", "dst", "sport", "dqpn",
				 "sqpn", "peer", "pkts", "bytes", "rate_bps"));
	/* rank worker dir class src dst sport dqpn sqpn peer pkts bytes rate ect ce marked ooo ... */
	assert_true(CTL_HAS_LINE(o.text, "1", "0", "dc->wan", "roce_data", "10.1.0.1", "10.2.0.1",
				 "49152", "17", "33", "site-b", "1000", "4000000", "8000000000",
				 "990", "10", "5", "2", "5", "2", "0"));
	/* Not learned: '-'. */
	assert_true(CTL_HAS_LINE(o.text, "2", "1", "wan->dc", "roce_data", "10.2.0.4", "10.1.0.4",
				 "49156", "22", "-", "site-b", "100", "4000000"));
	assert_true(CTL_HAS_LINE(o.text, "3", "0", "wan->dc", "roce_ack", "fd00:2::5", "fd00:1::7"));
	assert_true(CTL_HAS_LINE(o.text, "4", "0", "dc->wan", "roce_data", "10.1.0.2", "10.3.0.1",
				 "49153", "18", "-", "site-c"));
	assert_true(CTL_HAS_LINE(o.text, "5", "1"));
	/* The idle flow and the never-used slot are not shown; one page: no hint. */
	assert_null(strstr(o.text, "10.1.0.9"));
	assert_false(CTL_HAS_LINE(o.text, "6"));
	assert_null(strstr(o.text, "--page"));
	free(o.text);
}

static void
test_flows_json(void **state)
{
	ctl_json(*state, "show flows --json",
		 "d['live'] == 5 and d['matching'] == 5 and d['created'] == 9"
		 " and d['table_full'] == 2 and d['capacity'] == 128 and d['sort'] == 'bytes'"
		 " and d['total'] == 5 and d['page'] == 1 and d['pages'] == 1 and d['limit'] == 16"
		 " and list(d['flows']) == ['1', '2', '3', '4', '5']"
		 " and [f['bytes'] for f in d['flows'].values()] == [4000000, 4000000, 3000000,"
		 " 2000000, 1000000]"
		 " and [f['worker'] for f in d['flows'].values()] == [0, 1, 0, 0, 1]"
		 " and {k: v for k, v in d['flows']['1'].items() if k not in ('age_ms', 'idle_ms')}"
		 " == {'worker': 0, 'dir': 'dc->wan', 'class': 'roce_data', 'src': '10.1.0.1',"
		 " 'dst': '10.2.0.1', 'sport': 49152, 'dest_qpn': 17, 'sender_qpn': 33,"
		 " 'peer': 'site-b', 'pkts': 1000, 'bytes': 4000000, 'rate_bps': 8000000000,"
		 " 'ect_in': 990, 'ce_in': 10, 'marked': 5, 'psn_ooo': 2, 'cnp_sent': 5,"
		 " 'cnp_suppressed': 2, 'cnp_no_qpn': 0,"
		 " 'first_mark_ns': None, 'first_cnp_ns': None}"
		 " and 5000 <= d['flows']['1']['age_ms'] < 5000 + 60000"
		 " and 1 <= d['flows']['1']['idle_ms'] < 60000"
		 " and 60000 <= d['flows']['3']['age_ms'] and 500 <= d['flows']['3']['idle_ms']"
		 " and d['flows']['2']['sender_qpn'] is None and d['flows']['2']['dir'] == 'wan->dc'"
		 " and d['flows']['3']['src'] == 'fd00:2::5' and d['flows']['3']['class'] == 'roce_ack'"
		 " and d['flows']['4']['peer'] == 'site-c' and d['flows']['4']['cnp_no_qpn'] == 4");
}

static void
test_flows_sort(void **state)
{
	static const struct {
		const char *sort;
		const char *order; /* the flows' dest_qpn in rank order */
	} cases[] = {
		/* A=17 B=18 D=20 E=21 F=22 */
		{ "bytes", "[17, 22, 20, 18, 21]" },
		{ "pkts", "[21, 20, 17, 18, 22]" },
		{ "rate", "[18, 17, 20, 21, 22]" },
		{ "ce", "[18, 17, 20, 21, 22]" },
		{ "cnp", "[21, 17, 18, 20, 22]" },
	};
	char request[128], expr[256];
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++) {
		snprintf(request, sizeof(request), "show flows --sort %s --json", cases[i].sort);
		snprintf(expr, sizeof(expr),
			 "[f['dest_qpn'] for f in d['flows'].values()] == %s and d['sort'] == '%s'",
			 cases[i].order, cases[i].sort);
		ctl_json(*state, request, expr);
	}
	ctl_error(*state, "show flows --sort size", -EINVAL,
		  "show flows: --sort: expected bytes, pkts, rate, ce or cnp, got 'size'");
}

static void
test_flows_filters(void **state)
{
	ctl_json(*state, "show flows --dir dc --json",
		 "[f['dest_qpn'] for f in d['flows'].values()] == [17, 18, 21]"
		 " and d['live'] == 5 and d['matching'] == 3 and d['total'] == 3");
	ctl_json(*state, "show flows --dir wan --json",
		 "[f['dest_qpn'] for f in d['flows'].values()] == [22, 20]"
		 " and all(f['dir'] == 'wan->dc' for f in d['flows'].values())");
	ctl_json(*state, "show flows --peer site-c --json",
		 "[f['dest_qpn'] for f in d['flows'].values()] == [18] and d['matching'] == 1");
	ctl_json(*state, "show flows --peer site-b --dir dc --sort pkts --json",
		 "[f['dest_qpn'] for f in d['flows'].values()] == [21, 17]");
	/* Nothing matches: an empty page, not an error. */
	ctl_json(*state, "show flows --peer site-c --dir wan --json",
		 "d['flows'] == {} and d['matching'] == 0 and d['pages'] == 1");
	ctl_error(*state, "show flows --dir up", -EINVAL,
		  "show flows: --dir: expected dc or wan, got 'up'");
	ctl_error(*state, "show flows --peer nobody", -ENOENT, "show flows: no peer named 'nobody'");
	ctl_error(*state, "show flows 10.1.0.1", -EINVAL, "show flows: unexpected argument");
}

static void
test_flows_paging(void **state)
{
	struct ctl_out o;

	/* Ranks count across pages. */
	ctl_json(*state, "show flows --limit 2 --page 2 --json",
		 "list(d['flows']) == ['3', '4'] and d['flows']['3']['dest_qpn'] == 20"
		 " and d['flows']['4']['dest_qpn'] == 18 and d['pages'] == 3 and d['total'] == 5");
	ctl_json(*state, "show flows --limit 2 --page 3 --json",
		 "list(d['flows']) == ['5'] and d['flows']['5']['dest_qpn'] == 21");
	ctl_json(*state, "show flows --limit 2 --page 2 --sort pkts --json",
		 "[f['dest_qpn'] for f in d['flows'].values()] == [17, 18]");
	ctl_json(*state, "show flows --page 1 --json", "d['limit'] == 16 and len(d['flows']) == 5");
	ctl_error(*state, "show flows --limit 2 --page 4", -EINVAL,
		  "show flows: page 4 is past the end (3 pages of 2 for 5 items)");
	o = ctl_run(*state, "show flows --limit 2");
	assert_int_equal(o.rc, 0);
	assert_non_null(strstr(o.text, "(flows 1-2 of 5, page 1 of 3: --page N for the others)"));
	free(o.text);
}

static void
test_flows_live_idle(void **state)
{
	struct ctl_fixture *fx = *state;

	/* The idle flow C sent a packet: live again, and the largest. */
	fx->flow_mem[0][9].last_ns = CTL_NOW_NS;
	ctl_json(fx, "show flows --json",
		 "d['live'] == 6 and d['flows']['1']['dest_qpn'] == 19"
		 " and d['flows']['1']['bytes'] == 99000000");
	/* A worker's clock slightly ahead of ours: live, idle 0. */
	fx->flow_mem[0][9].last_ns = CTL_NOW_NS + 3600ull * 1000000000ull;
	ctl_json(fx, "show flows --limit 1 --json",
		 "d['live'] == 6 and d['flows']['1']['idle_ms'] == 0");
	/* Just past the idle time: gone. */
	fx->flow_mem[0][9].last_ns = CTL_NOW_NS - CTL_FLOW_IDLE_NS - 1000000000ull;
	ctl_json(fx, "show flows --json", "d['live'] == 5");
	/* A worker that never started (no clock) or has no table shows nothing. */
	fx->workers[1].tsc_hz = 0;
	ctl_json(fx, "show flows --json",
		 "d['live'] == 3 and d['capacity'] == 128"
		 " and [f['worker'] for f in d['flows'].values()] == [0, 0, 0]");
	fx->workers[1].flows.e = NULL;
	ctl_json(fx, "show flows --json", "d['live'] == 3 and d['capacity'] == 64");
	fx->workers[0].flows.e = NULL;
	ctl_json(fx, "show flows --json",
		 "d['live'] == 0 and d['flows'] == {} and d['capacity'] == 0 and d['total'] == 0");
}

/* ---- show tm, show stats totals ---- */

/*
 * "PATH['key'] == value and ..." for every member of D, and PATH has
 * MEMBERS members in all.
 */
static void
ctl_derived_expr(const char *path, const struct cc_derived *d, unsigned int members, char *buf,
		 size_t size)
{
	snprintf(buf, size,
		 "%1$s['rate_bps'] == %2$" PRIu64 " and %1$s['rtt_ns'] == %3$" PRIu64
		 " and %1$s['dc_rtt_ns'] == %4$" PRIu64 " and %1$s['loop_rtt_ns'] == %5$" PRIu64
		 " and %1$s['near_source_cnp'] == %6$s and %1$s['mtu_bytes'] == %7$" PRIu32
		 " and %1$s['bdp_bytes'] == %8$" PRIu64 " and %1$s['kmin_bytes'] == %9$" PRIu64
		 " and %1$s['kmax_bytes'] == %10$" PRIu64 " and %1$s['pmax_ppm'] == %11$" PRIu32
		 " and %1$s['target_delay_ns'] == %12$" PRIu64
		 " and %1$s['sojourn_interval_ns'] == %13$" PRIu64
		 " and %1$s['phantom_ratio_ppm'] == %14$" PRIu32
		 " and %1$s['phantom_threshold_bytes'] == %15$" PRIu64
		 " and %1$s['buffer_bytes'] == %16$" PRIu64 " and %1$s['cnp_interval_ns'] == %17$" PRIu64
		 " and %1$s['hold_ns'] == %18$" PRIu64 " and %1$s['flow_idle_ns'] == %19$" PRIu64
		 " and %1$s['cut_interval_ns'] == %21$" PRIu64
		 " and len(%1$s) == %20$u",
		 path, d->rate_bps, d->rtt_ns, d->dc_rtt_ns, d->loop_rtt_ns,
		 d->near_source_cnp ? "True" : "False", d->mtu_bytes, d->bdp_bytes, d->kmin_bytes,
		 d->kmax_bytes, d->pmax_ppm, d->target_delay_ns, d->sojourn_interval_ns,
		 d->phantom_ratio_ppm, d->phantom_threshold_bytes, d->buffer_bytes,
		 d->cnp_interval_ns, d->hold_ns, d->flow_idle_ns, members, d->cut_interval_ns);
	/* Mechanism B's. */
	snprintf(buf + strlen(buf), size - strlen(buf),
		 " and %1$s['dc_rate_bps'] == %2$" PRIu64
		 " and %1$s['dc_rx_ring_bytes'] == %12$" PRIu64
		 " and %1$s['pfc_headroom_bytes'] == %3$" PRIu64
		 " and %1$s['pfc_xoff_bytes'] == %4$" PRIu64 " and %1$s['pfc_xon_bytes'] == %5$" PRIu64
		 " and %1$s['pfc_quanta'] == %6$u and %1$s['pfc_pause_ns'] == %7$" PRIu64
		 " and %1$s['pfc_lossless'] == %8$s"
		 " and %1$s['credit_buffer_bytes'] == %9$" PRIu64
		 " and %1$s['credit_update_bytes'] == %10$" PRIu64
		 " and %1$s['credit_refresh_ns'] == %11$" PRIu64,
		 path, d->dc_rate_bps, d->pfc_headroom_bytes, d->pfc_xoff_bytes, d->pfc_xon_bytes,
		 (unsigned int)d->pfc_quanta, d->pfc_pause_ns, d->pfc_lossless ? "True" : "False",
		 d->credit_buffer_bytes, d->credit_update_bytes, d->credit_refresh_ns,
		 d->dc_rx_ring_bytes);
}

#define CTL_DERIVED_MEMBERS 30 /* fmt_cc_derived() */

static void
test_tm_text(void **state)
{
	struct ctl_out o = ctl_run(*state, "show tm");

	assert_int_equal(o.rc, 0);
	assert_true(CTL_HAS_LINE(o.text, "wan-1"));
	assert_false(CTL_HAS_LINE(o.text, "dc"));
	assert_true(CTL_HAS_LINE(o.text, "marker", "red"));
	assert_true(CTL_HAS_LINE(o.text, "pmax_ppm", "100000", "config"));
	assert_true(CTL_HAS_LINE(o.text, "kmin_bytes", "*", "derived"));
	assert_true(CTL_HAS_LINE(o.text, "flow_idle_ns", "1000000000", "config"));
	assert_true(CTL_HAS_LINE(o.text, "sojourn_p99_ns", "8192"));
	assert_true(CTL_HAS_LINE(o.text, "sojourn_p50_ns", "-"));
	assert_non_null(strstr(o.text, "upper end of the log2 histogram bucket"));
	assert_true(CTL_HAS_LINE(o.text, "cnp_sent", "23"));
	/* show queues is the same command. */
	free(o.text);
	o = ctl_run(*state, "show queues wan-1");
	assert_int_equal(o.rc, 0);
	assert_true(CTL_HAS_LINE(o.text, "sojourn_mean_ns", "11960"));
	free(o.text);
}

static void
test_tm_json(void **state)
{
	struct cc_overrides ov;
	struct cc_link link;
	struct cc_derived d;
	char params[1024], expr[3072];

	/* The derived numbers are cc_params' own, not copied here. */
	ctl_fixture_wan_link(&link, &ov);
	assert_int_equal(cc_params_resolve(&link, &ov, &d, NULL), 0);
	snprintf(params, sizeof(params),
		 "{'rate_bps': %" PRIu64 ", 'rtt_ns': %" PRIu64 ", 'mtu_bytes': %" PRIu32
		 ", 'dc_rtt_ns': %" PRIu64 ", 'loop_rtt_ns': %" PRIu64 ", 'bdp_bytes': %" PRIu64
		 ", 'kmin_bytes': %" PRIu64 ", 'kmax_bytes': %" PRIu64 ", 'pmax_ppm': %" PRIu32
		 ", 'target_delay_ns': %" PRIu64 ", 'sojourn_interval_ns': %" PRIu64
		 ", 'phantom_ratio_ppm': %" PRIu32 ", 'phantom_threshold_bytes': %" PRIu64
		 ", 'buffer_bytes': %" PRIu64 ", 'cnp_interval_ns': %" PRIu64
		 ", 'cut_interval_ns': %" PRIu64 ", 'hold_ns': %" PRIu64 ", 'flow_idle_ns': %" PRIu64
		 "}",
		 d.rate_bps, d.rtt_ns, d.mtu_bytes, d.dc_rtt_ns, d.loop_rtt_ns, d.bdp_bytes,
		 d.kmin_bytes, d.kmax_bytes, d.pmax_ppm, d.target_delay_ns, d.sojourn_interval_ns,
		 d.phantom_ratio_ppm, d.phantom_threshold_bytes, d.buffer_bytes, d.cnp_interval_ns,
		 d.cut_interval_ns, d.hold_ns, d.flow_idle_ns);
	/* P: every parameter with its value. */
	snprintf(expr, sizeof(expr),
		 "(lambda P, w: list(d['ports']) == ['wan-1'] and d['total'] == 1"
		 " and d['mechanisms'] == 'A' and w['enabled'] is True"
		 " and w['rate_bps'] == 10000000000 and w['buffer_bytes'] == %" PRIu64
		 " and w['marker'] == 'red' and w['mark_at'] == 'enqueue'"
		 " and w['thresholds'] == {'kmin_bytes': %" PRIu64 ", 'kmax_bytes': %" PRIu64
		 ", 'pmax_ppm': 100000}"
		 " and {k: v['value'] for k, v in w['parameters'].items()} == P"
		 " and [k for k, v in w['parameters'].items() if v['source'] == 'config']"
		 " == ['pmax_ppm', 'flow_idle_ns']"
		 " and w['parameters']['rtt_ns']['source'] == 'input'"
		 " and w['parameters']['kmin_bytes']['source'] == 'derived')"
		 "(%s, d['ports']['wan-1'])",
		 d.buffer_bytes, d.kmin_bytes, d.kmax_bytes, params);
	ctl_json(*state, "show tm --json", expr);
}

static void
test_tm_counters(void **state)
{
	char expr[2048];

	/*
	 * Sums over both workers; maxima are maxima. Percentiles are bucket
	 * upper ends: sojourn p50 in [1024, 2048), p99 in [4096, 8192); depth
	 * p99 falls in [2^20, 2^21), whose end is above the max, so the max.
	 */
	snprintf(expr, sizeof(expr),
		 "(lambda c: c['enq_pkts'] == %d and c['enq_bytes'] == 4000000"
		 " and c['deq_pkts'] == %d and c['deq_bytes'] == 4000000 and c['drops'] == %d"
		 " and c['mark_decisions'] == %d and c['ce_written'] == %d and c['cnp_sent'] == %d"
		 " and c['cnp_suppressed'] == 3 and c['cnp_no_qpn'] == 5 and c['cnp_failed'] == 1"
		 " and c['ce_cleared'] == 0 and c['depth_bytes'] == %d and c['depth_pkts'] == 22"
		 " and c['depth_max_bytes'] == %d and c['depth_p99_bytes'] == %d"
		 " and c['sojourn_mean_ns'] == %d and c['sojourn_p50_ns'] == 2048"
		 " and c['sojourn_p99_ns'] == 8192 and c['sojourn_max_ns'] == %d)"
		 "(d['ports']['wan-1']['classes']['roce'])"
		 " and (lambda c: c['sojourn_p50_ns'] == 256 and c['sojourn_p99_ns'] == 256"
		 " and c['sojourn_mean_ns'] == 200 and c['depth_p99_bytes'] == 0)"
		 "(d['ports']['wan-1']['classes']['control'])"
		 " and (lambda c: c['enq_pkts'] == 0 and c['sojourn_mean_ns'] is None"
		 " and c['sojourn_p50_ns'] is None and c['depth_p99_bytes'] is None)"
		 "(d['ports']['wan-1']['classes']['other'])"
		 " and d['mechanism_a']['cnp_sent'] == %d and d['mechanism_a']['cnp_suppressed'] == 3"
		 " and d['mechanism_a']['cnp_no_qpn'] == 4 and d['mechanism_a']['cnp_no_neigh'] == 1"
		 " and d['mechanism_a']['cnp_no_mbuf'] == 0 and d['mechanism_a']['ce_cleared'] == 6"
		 " and d['mechanism_a']['enabled'] is True and d['mechanism_a']['cnp_dscp'] == 48"
		 " and d['mechanism_a']['learner']['data_known'] == 900"
		 " and d['mechanism_a']['learner']['ack_learned'] == 5"
		 " and len(d['mechanism_a']['learner']) == %d"
		 " and d['mechanism_c']['enabled'] is False and d['mechanism_c']['trp_cnps'] == 2"
		 " and d['mechanism_c']['trp_activations'] == 1 and d['mechanism_c']['trp_active'] == 1"
		 " and d['mechanism_c']['learner']['data_unknown'] == 7",
		 CTL_TM_ROCE_ENQ_PKTS, CTL_TM_ROCE_DEQ_PKTS, CTL_TM_ROCE_DROPS,
		 CTL_TM_ROCE_MARK_DECISIONS, CTL_TM_ROCE_CE_WRITTEN, CTL_TM_ROCE_CNP_SENT,
		 CTL_TM_ROCE_DEPTH_BYTES, CTL_TM_ROCE_DEPTH_MAX, CTL_TM_ROCE_DEPTH_MAX,
		 CTL_TM_ROCE_SOJOURN_MEAN, CTL_TM_ROCE_SOJOURN_MAX, CTL_CNP_SENT,
		 QPN_LEARN_RESULT_MAX);
	ctl_json(*state, "show tm --json", expr);
}

static void
test_tm_select(void **state)
{
	struct ctl_fixture *fx = *state;

	ctl_json(fx, "show tm wan-1 --json", "list(d['ports']) == ['wan-1'] and 'total' not in d");
	ctl_error(fx, "show tm dc", -ENOENT, "show tm: no WAN port named 'dc'");
	ctl_error(fx, "show tm --page 2", -EINVAL, "show tm: page 2 is past the end");
	/* A WAN port without a link rate: counters, no parameters. */
	fx->dp.tm[1].enabled = false;
	ctl_json(fx, "show tm --json",
		 "d['ports']['wan-1']['enabled'] is False and 'parameters' not in d['ports']['wan-1']"
		 " and d['ports']['wan-1']['classes']['roce']['mark_decisions'] == 25");
	fx->rt.dp = NULL;
	ctl_error(fx, "show tm", -ENOENT, "show tm: no dataplane configuration published");
	fx->rt.cfg = NULL;
	ctl_error(fx, "show tm", -ENOENT, "show tm: no configuration loaded");
}

static void
test_stats_wan(void **state)
{
	ctl_json(*state, "show stats --json",
		 "d['wan_enq_pkts'] == 1050 and d['wan_drops'] == 4"
		 " and d['wan_mark_decisions'] == 25 and d['wan_ce_written'] == 5"
		 " and d['wan_depth_bytes'] == 90000 and d['cnp_sent'] == 23"
		 " and d['cnp_suppressed'] == 3 and d['cnp_no_qpn'] == 4 and d['cnp_no_neigh'] == 1"
		 " and d['cnp_no_mbuf'] == 0 and d['ce_cleared'] == 6 and d['trp_activations'] == 1"
		 " and d['trp_active'] == 1 and d['trp_delayed'] == 0 and d['flows_created'] == 9"
		 " and d['flows_full'] == 2");
}

/* ---- tune ---- */

static void
ctl_explain(const struct cc_derived *d, char *buf, size_t size)
{
	assert_true(cc_params_explain(d, buf, size) < size);
}

static void
test_tune_running(void **state)
{
	struct ctl_fixture *fx = *state;
	char explain[4096], expr[2048];
	struct ctl_out o = ctl_run(fx, "tune");
	char *line, *save = NULL;
	unsigned int lines;

	assert_int_equal(o.rc, 0);
	/* "port wan-1", then cc_params_explain() of its snapshot, indented. */
	ctl_explain(&fx->dp.tm[1].derived, explain, sizeof(explain));
	lines = ctl_count_lines(explain);
	assert_int_equal(ctl_count_lines(o.text), 1 + lines);
	assert_int_equal(strncmp(o.text, "port wan-1\n  rate_bps = 10000000000  ", 37), 0);
	for (line = strtok_r(explain, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		assert_non_null(strstr(o.text, line));
	free(o.text);

	/* JSON: the same set, and whether the port is shaped at all. */
	ctl_derived_expr("d['ports']['wan-1']", &fx->dp.tm[1].derived, CTL_DERIVED_MEMBERS + 1,
			 expr, sizeof(expr));
	ctl_json(fx, "tune --json", expr);
	ctl_json(fx, "tune --json",
		 "list(d['ports']) == ['wan-1'] and d['ports']['wan-1']['enabled'] is True");

	fx->dp.tm[1].enabled = false;
	o = ctl_run(fx, "tune");
	assert_int_equal(o.rc, 0);
	assert_non_null(strstr(o.text, "port wan-1\n  not shaped"));
	free(o.text);
	ctl_json(fx, "tune --json", "d['ports'] == {'wan-1': {'enabled': False}}");
	fx->rt.dp = NULL;
	ctl_error(fx, "tune", -ENOENT, "tune: no dataplane configuration published");
	/* A given link needs no running gateway. */
	ctl_json(fx, "tune --rate 10G --rtt 1ms --json", "d['bdp_bytes'] == 1250000");
}

static void
test_tune_link(void **state)
{
	struct ctl_fixture *fx = *state;
	struct cc_link link = { 0 };
	struct cc_derived d, before = fx->dp.tm[1].derived;
	char explain[4096], expr[2048], bdp[64];
	struct ctl_out o;

	/* 100 Gb/s over 100 km of fibre: the derivation's numbers, not ours. */
	link.rate_bps = 100000000000ull;
	link.distance_m = 100000;
	assert_int_equal(cc_params_derive(&link, &d), 0);
	o = ctl_run(fx, "tune --rate 100G --distance 100km");
	assert_int_equal(o.rc, 0);
	ctl_explain(&d, explain, sizeof(explain));
	assert_string_equal(o.text, explain);
	snprintf(bdp, sizeof(bdp), "bdp_bytes = %" PRIu64 "  (rate x rtt / 8 = %.2f MB)",
		 d.bdp_bytes, d.bdp_bytes / 1e6);
	assert_non_null(strstr(o.text, bdp));
	free(o.text);
	ctl_derived_expr("d", &d, CTL_DERIVED_MEMBERS, expr, sizeof(expr));
	ctl_json(fx, "tune --rate 100G --distance 100km --json", expr);

	/* The 1 ms round trip of the docs' table: BDP 12.5 MB. */
	memset(&link, 0, sizeof(link));
	link.rate_bps = 100000000000ull;
	link.rtt_ns = 1000000;
	assert_int_equal(cc_params_derive(&link, &d), 0);
	assert_int_equal(d.bdp_bytes, 12500000);
	o = ctl_run(fx, "tune --rate=100G --rtt=1ms --offline");
	assert_int_equal(o.rc, 0);
	assert_non_null(strstr(o.text, "bdp_bytes = 12500000  (rate x rtt / 8 = 12.50 MB)"));
	free(o.text);

	/* Mechanism A and an MTU: the loop is the DC RTT. */
	memset(&link, 0, sizeof(link));
	link.rate_bps = 400000000000ull;
	link.distance_m = 640000;
	link.mtu_bytes = 9000;
	link.near_source_cnp = true;
	assert_int_equal(cc_params_derive(&link, &d), 0);
	ctl_derived_expr("d", &d, CTL_DERIVED_MEMBERS, expr, sizeof(expr));
	ctl_json(fx, "tune --rate 400G --distance 640km --mtu 9000 --mechanisms A,C --json", expr);

	/* The gateway is not touched. */
	assert_memory_equal(&fx->dp.tm[1].derived, &before, sizeof(before));
}

static void
test_tune_errors(void **state)
{
	static const struct {
		const char *request;
		const char *message;
	} cases[] = {
		{ "tune --rate 100G", "tune: give --rate and one of --rtt or --distance" },
		{ "tune --rtt 1ms", "tune: give --rate and one of --rtt or --distance" },
		{ "tune --offline", "tune: give --rate and one of --rtt or --distance" },
		{ "tune --rate 100G --rtt 1ms --distance 10km",
		  "tune: give --rate and one of --rtt or --distance" },
		{ "tune --rate 100Q --rtt 1ms", "tune: --rate: unknown unit" },
		{ "tune --rate 100G --rtt 1", "tune: --rtt:" },
		{ "tune --rate 0 --rtt 1ms", "tune: --rate: must be above 0" },
		{ "tune --rate 100G --rtt 1ms --mtu 100000", "tune: --mtu: at most 65535 bytes" },
		{ "tune --rate 100G --rtt 1ms --mechanisms B",
		  "tune: --mechanisms: expected none, A, C or A,C, got 'B'" },
		{ "tune --rate 100G --rtt 20s", "tune: rtt_ns must be at most 10 s" },
		{ "tune --rate 100G --rtt 1ms --mtu", "tune: --mtu needs a value" },
		{ "tune wan-1", "tune: unexpected argument 'wan-1'" },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++)
		ctl_error(*state, cases[i].request, -EINVAL, cases[i].message);
}

/* ---- extensions: how other modules plug in ---- */

static int
test_widgets_handler(struct api_ctx *ctx, int argc, char **argv)
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
	fmt_open(ctx->fmt, "widgets", FMT_OBJ);
	for (i = first; i < end; i++) {
		char key[24];

		snprintf(key, sizeof(key), "widget%u", i);
		fmt_open(ctx->fmt, key, FMT_ROW);
		fmt_u64(ctx->fmt, "pkts", i * 100);
		fmt_close(ctx->fmt);
	}
	fmt_close(ctx->fmt);
	api_page_emit(ctx, &pg, total, "widgets");
	return 0;
}

static const struct api_cmd test_widgets_cmd = {
	.name = "show widgets",
	.args = "[--page N] [--limit N] [--verbose]",
	.help = "widgets (test extension)",
	.telemetry = "/longspan/widgets",
	.telemetry_page_max = 4,
	.handler = test_widgets_handler,
};

static const struct api_cmd test_dup_telemetry_cmd = {
	.name = "show gadgets",
	.args = "",
	.help = "telemetry path taken",
	.telemetry = "/longspan/flows",
	.handler = test_widgets_handler,
};

static const struct api_cmd test_dup_cmd = {
	.name = "show stats",
	.args = "",
	.help = "duplicate",
	.handler = test_widgets_handler,
};

static void
test_register(void **state)
{
	struct ctl_out o;

	assert_int_equal(api_register(&test_widgets_cmd), 0);
	assert_int_equal(api_register(&test_widgets_cmd), -EEXIST);
	assert_int_equal(api_register(&test_dup_cmd), -EEXIST);
	assert_int_equal(api_register(&test_dup_telemetry_cmd), -EEXIST);
	assert_ptr_equal(api_cmd_by_telemetry("/longspan/widgets"), &test_widgets_cmd);

	ctl_json(*state, "show widgets --page 2 --limit 3 --json",
		 "list(d['widgets']) == ['widget3', 'widget4', 'widget5']"
		 " and d['widgets']['widget4'] == {'pkts': 400} and d['pages'] == 4 and d['total'] == 10");
	o = ctl_run(*state, "show widgets --limit 4");
	assert_int_equal(o.rc, 0);
	assert_true(CTL_HAS_LINE(o.text, "widget3", "300"));
	assert_non_null(strstr(o.text, "(widgets 1-4 of 10, page 1 of 3: --page N for the others)"));
	free(o.text);
	/* The extension shows up in help and in the 'show' hint. */
	o = ctl_run(*state, "help");
	assert_non_null(strstr(o.text, "show widgets [--page N] [--limit N] [--verbose]"));
	free(o.text);
	ctl_error(*state, "show", -ENOENT,
		  "'show' needs one of: ports stats drops peers flows tm queues config widgets");
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

/* Column widths, row key widths and absent values in text; JSON ignores widths. */
static void
test_fmt_columns(void **state)
{
	char *text = NULL;
	size_t size = 0;
	FILE *s = open_memstream(&text, &size);
	struct fmt f;

	(void)state;
	fmt_text_init(&f, s);
	fmt_open(&f, "t", FMT_OBJ);
	fmt_key_width(&f, 3);
	fmt_open(&f, "1", FMT_ROW);
	fmt_width(&f, 4);
	fmt_str(&f, "s", "ab");
	fmt_width(&f, 3);
	fmt_u64(&f, "n", 7);
	fmt_none(&f, "q"); /* the width applied to one scalar only */
	fmt_close(&f);
	fmt_close(&f);
	fmt_open(&f, "u", FMT_OBJ);
	fmt_open(&f, "2", FMT_ROW); /* key widths are per level */
	fmt_u64(&f, "n", 1);
	fmt_close(&f);
	assert_int_equal(fmt_finish(&f), 0);
	fclose(s);
	assert_string_equal(text, "t\n"
				  "  1    ab     7            -\n"
				  "\n"
				  "u\n"
				  "  2                                 1\n");
	free(text);

	text = NULL;
	s = open_memstream(&text, &size);
	fmt_json_init(&f, s);
	fmt_width(&f, 9);
	fmt_none(&f, "q");
	fmt_u64(&f, "n", 7);
	assert_int_equal(fmt_finish(&f), 0);
	fclose(s);
	ctl_check_json(text, size, "d == {'q': None, 'n': 7}");
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
		cmocka_unit_test_setup_teardown(test_flows_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flows_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flows_sort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flows_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flows_paging, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flows_live_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tm_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tm_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tm_counters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tm_select, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stats_wan, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tune_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tune_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tune_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_register, setup, teardown),
		cmocka_unit_test(test_fmt_json_escape),
		cmocka_unit_test(test_fmt_misuse),
		cmocka_unit_test(test_fmt_text_layout),
		cmocka_unit_test(test_fmt_columns),
	};

	return cmocka_run_group_tests_name("ctl_api", tests, NULL, NULL);
}
