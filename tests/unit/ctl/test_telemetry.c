/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * With EAL (--no-huge --no-shconf, two net_null ports): ethdev stats, link
 * and xstats in `show ports`, and the /longspan/ telemetry commands read
 * through DPDK's own telemetry socket the way dpdk-telemetry.py does
 * (SOCK_SEQPACKET, one JSON reply per command), including paging, the
 * 16 KB limit (at the worst case of /longspan/flows and /longspan/tm),
 * key rules and errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "control/api.h"
#include "control/telemetry.h"
#include "ctl_check.h"
#include "ctl_fixture.h"

#define TEL_REPLY_MAX 65536
#define TEL_LIMIT 16384 /* DPDK 22.11 MAX_OUTPUT_LEN */

static struct rte_mempool *test_pool;

static int
setup(void **state)
{
	struct ctl_fixture *fx = ctl_fixture_new();

	fx->rt.port_ids[0] = 0; /* net_null0 */
	fx->rt.port_ids[1] = 1; /* net_null1 */
	assert_int_equal(telemetry_register(&fx->rt), 0);
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	telemetry_unregister();
	ctl_fixture_free(*state);
	return 0;
}

/* ---- ethdev through the API ---- */

static char *
api_run(struct ctl_fixture *fx, const char *request, size_t *size)
{
	char *text = NULL;
	FILE *s = open_memstream(&text, size);

	assert_non_null(s);
	if (api_exec(&fx->rt, request, s) != 0)
		fail_msg("%s: %s", request, text);
	fclose(s);
	return text;
}

static void
test_ethdev(void **state)
{
	struct ctl_fixture *fx = *state;
	struct rte_eth_conf conf;
	struct rte_mbuf *pkts[32];
	uint16_t n;
	size_t size;
	char *text;

	/* Port 0: started, 32 packets in and out. Port 1: probed only. */
	memset(&conf, 0, sizeof(conf));
	assert_int_equal(rte_eth_dev_configure(0, 1, 1, &conf), 0);
	assert_int_equal(rte_eth_rx_queue_setup(0, 0, 64, SOCKET_ID_ANY, NULL, test_pool), 0);
	assert_int_equal(rte_eth_tx_queue_setup(0, 0, 64, SOCKET_ID_ANY, NULL), 0);
	assert_int_equal(rte_eth_dev_start(0), 0);
	n = rte_eth_rx_burst(0, 0, pkts, 32);
	assert_int_equal(n, 32);
	assert_int_equal(rte_eth_tx_burst(0, 0, pkts, n), n);

	text = api_run(fx, "show ports --json", &size);
	ctl_check_json(text, size,
		       "d['ports']['dc']['port_id'] == 0 and d['ports']['wan-1']['port_id'] == 1"
		       " and d['ports']['dc']['ethdev']['rx_pkts'] == 32"
		       " and d['ports']['dc']['ethdev']['tx_pkts'] == 32"
		       " and d['ports']['dc']['ethdev']['rx_errors'] == 0"
		       " and d['ports']['dc']['link']['status'] == 'up'"
		       " and d['ports']['wan-1']['ethdev']['rx_pkts'] == 0"
		       " and d['ports']['dc']['workers']['rx_pkts'] == 1200");
	free(text);
	text = api_run(fx, "show ports dc", &size);
	assert_true(CTL_HAS_LINE(text, "port_id", "0"));
	assert_true(CTL_HAS_LINE(text, "status", "up"));
	free(text);
	text = api_run(fx, "show ports dc --xstats --json", &size);
	ctl_check_json(text, size,
		       "d['ports']['dc']['xstats']['rx_good_packets'] == 32"
		       " and all(v != 0 for v in d['ports']['dc']['xstats'].values())");
	free(text);

	assert_int_equal(rte_eth_dev_stop(0), 0);
}

/* ---- telemetry ---- */

static int
tel_connect(char *reply, size_t size)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	ssize_t n;

	assert_true(fd >= 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0)
		fail_msg("connect %s: %s", sun.sun_path, strerror(errno));
	/* The server greets with its version and max_output_len. */
	n = recv(fd, reply, size - 1, 0);
	assert_true(n > 0);
	return fd;
}

/* Send COMMAND on DPDK's telemetry socket, check the reply with EXPR. */
static void
tel_check(const char *command, const char *expr)
{
	static char reply[TEL_REPLY_MAX];
	char wrapped[1024];
	int fd = tel_connect(reply, sizeof(reply));
	ssize_t n;

	assert_int_equal(send(fd, command, strlen(command), 0), (ssize_t)strlen(command));
	n = recv(fd, reply, sizeof(reply) - 1, 0);
	close(fd);
	assert_true(n > 0);
	if (n >= TEL_LIMIT)
		fail_msg("%s: reply of %zd bytes reaches the telemetry limit", command, n);
	/* CTL_TEL_SIZES=1 prints every reply's size, for sizing the page limits. */
	if (getenv("CTL_TEL_SIZES") != NULL)
		fprintf(stderr, "%s: %zd bytes\n", command, n);
	/* d is the reply's value, r the whole reply. */
	snprintf(wrapped, sizeof(wrapped), "(lambda r: (lambda d: %s)(r[list(r)[0]]))(d)", expr);
	ctl_check_json(reply, (size_t)n, wrapped);
}

static void
test_tel_stats(void **state)
{
	char expr[512];

	(void)state;
	tel_check("/longspan/stats",
		  "d['rx_pkts'] == 1707 and d['drops'] == 10 and d['classes']['roce_data'] == 950"
		  " and d['workers']['0']['polls'] == 10000 and d['workers']['1']['lcore'] == 2"
		  " and float(d['workers']['1']['idle_pct']) == 90 and d['name'] == 'site-a'"
		  " and 'truncated' not in d");
	snprintf(expr, sizeof(expr),
		 "d['total'] == 10 and len(d['drops']) == %d and d['drops']['no_route']['count'] == 7"
		 " and d['drops']['no_route']['description'].startswith('no peer site prefix')",
		 LS_DROP_MAX - 1);
	tel_check("/longspan/drops", expr);
}

static void
test_tel_ports_peers_config(void **state)
{
	(void)state;
	/* '-' is not allowed in telemetry keys: wan-1 becomes wan_1 + name. */
	tel_check("/longspan/ports",
		  "sorted(d['ports']) == ['dc', 'wan_1'] and d['ports']['wan_1']['name'] == 'wan-1'"
		  " and 'name' not in d['ports']['dc'] and d['ports']['wan_1']['workers']['tx_pkts'] == 1090"
		  " and d['ports']['dc']['ethdev']['rx_pkts'] >= 0 and d['ports']['dc']['port_id'] == 0"
		  " and d['total'] == 2 and d['limit'] == 8"
		  /* Unset addresses: telemetry has no null. */
		  " and d['ports']['wan_1']['ipv6'] == 'n/a' and d['ports']['wan_1']['gateway6'] == 'n/a'");
	tel_check("/longspan/peers",
		  "sorted(d['peers']) == ['site_b', 'site_c'] and d['peers']['site_b']['name'] == 'site-b'"
		  " and d['peers']['site_b']['prefixes'] == ['10.2.0.0/16', 'fd00:2::/64']"
		  " and d['peers']['site_b']['rx_ce'] == 13 and d['peers']['site_c']['vni'] == 200");
	tel_check("/longspan/peers,2,1",
		  "list(d['peers']) == ['site_c'] and d['page'] == 2 and d['pages'] == 2");
	tel_check("/longspan/config",
		  "d['name'] == 'site-a' and d['peers'] == ['site-b', 'site-c'] and 'ini' not in d"
		  " and d['generation'] == 7 and d['mechanisms'] == 'A'");
}

static void
test_tel_errors(void **state)
{
	(void)state;
	tel_check("/longspan/stats,1", "d == {'error': 'this command takes no parameter'}");
	tel_check("/longspan/peers,x",
		  "d == {'error': \"show peers: --page: expected an integer from 1 to 4294967295,"
		  " got 'x'\"}");
	tel_check("/longspan/peers,1,2,3", "d == {'error': 'parameter: PAGE[,LIMIT]'}");
	tel_check("/longspan/peers,5", "d['error'].startswith('show peers: page 5 is past the end')");
	tel_check("/", "'/longspan/stats' in d and '/longspan/peers' in d and '/longspan/big' in d");
	tel_check("/help,/longspan/peers", "d['/longspan/peers'].startswith('peer sites')");
}

/* 32 peers with 64 IPv6 prefixes each: pages of 4 keep every reply legal. */
static void
test_tel_size(void **state)
{
	struct ctl_fixture *fx = *state;

	ctl_fixture_many_peers(fx, LS_MAX_PEERS);
	tel_check("/longspan/peers",
		  "len(d['peers']) == 4 and d['pages'] == 8 and d['total'] == 32"
		  " and 'truncated' not in d and len(d['peers']['peer_03']['prefixes']) == 64");
	tel_check("/longspan/peers,8,100",
		  "list(d['peers']) == ['peer_28', 'peer_29', 'peer_30', 'peer_31'] and d['limit'] == 4");
	/* A command whose output cannot fit is cut short and says so. */
	tel_check("/longspan/big", "d['truncated'] == 1 and 100 < len(d['rows']) < 2000");
}

static void
test_tel_flows(void **state)
{
	char expr[512];

	(void)state;
	snprintf(expr, sizeof(expr),
		 "list(d['flows']) == ['1', '2', '3', '4', '5'] and d['live'] == 5"
		 " and d['limit'] == %d and d['total'] == 5 and d['flows']['1']['src'] == '10.1.0.1'"
		 " and d['flows']['1']['bytes'] == 4000000 and d['flows']['2']['sender_qpn'] == 'n/a'"
		 " and d['flows']['3']['dst'] == 'fd00:1::7' and 'truncated' not in d",
		 API_FLOWS_LIMIT_DEFAULT);
	tel_check("/longspan/flows", expr);
	tel_check("/longspan/flows,2,2",
		  "list(d['flows']) == ['3', '4'] and d['page'] == 2 and d['pages'] == 3");
	tel_check("/longspan/flows,4,2", "d['error'].startswith('show flows: page 4 is past the end')");
}

static void
test_tel_tm(void **state)
{
	(void)state;
	tel_check("/longspan/tm",
		  "list(d['ports']) == ['wan_1'] and d['ports']['wan_1']['name'] == 'wan-1'"
		  " and d['ports']['wan_1']['classes']['roce']['sojourn_p99_ns'] == 8192"
		  " and d['ports']['wan_1']['classes']['roce']['mark_decisions'] == 25"
		  " and d['ports']['wan_1']['classes']['roce']['ce_written'] == 5"
		  " and d['ports']['wan_1']['parameters']['pmax_ppm']['source'] == 'config'"
		  " and d['mechanism_a']['cnp_sent'] == 23 and d['mechanisms'] == 'A'"
		  " and 'truncated' not in d");
}

/*
 * The largest pages telemetry serves stay whole: every slot an IPv6 flow
 * with 20-digit counters, every port a WAN port with 20-digit counters.
 */
static void
test_tel_page_sizes(void **state)
{
	struct ctl_fixture *fx = *state;
	char expr[512];

	ctl_fixture_worst_flows(fx);
	/* A larger limit is capped at the largest page that fits. */
	snprintf(expr, sizeof(expr),
		 "len(d['flows']) == %d and d['limit'] == %d and d['total'] == %d"
		 " and 'truncated' not in d and d['flows']['1']['bytes'] == 18446744073709551615"
		 " and len(d['flows']['1']['peer']) == %d and len(d['flows']['1']['src']) == 39",
		 API_FLOWS_TELEMETRY_MAX, API_FLOWS_TELEMETRY_MAX, 2 * CTL_FLOW_SLOTS,
		 LS_NAME_MAX - 1);
	tel_check("/longspan/flows,1,100", expr);
	/* Ranks go on across pages. */
	snprintf(expr, sizeof(expr),
		 "len(d['flows']) == %d and list(d['flows'])[0] == '%d' and 'truncated' not in d",
		 API_FLOWS_TELEMETRY_MAX, API_FLOWS_TELEMETRY_MAX + 1);
	tel_check("/longspan/flows,2,100", expr);

	ctl_fixture_many_wan_ports(fx);
	snprintf(expr, sizeof(expr),
		 "len(d['ports']) == %d and d['total'] == %d and 'truncated' not in d"
		 " and d['ports']['wan_1']['classes']['roce']['enq_pkts'] == 18000000000000000000",
		 API_TM_TELEMETRY_MAX, LS_MAX_PORTS - 1);
	tel_check("/longspan/tm", expr);
	tel_check("/longspan/tm,2,100",
		  "list(d['ports']) == ['wan_3', 'wan_4'] and 'truncated' not in d");
}

static void
test_tel_unregistered(void **state)
{
	(void)state;
	telemetry_unregister();
	tel_check("/longspan/stats", "d == {'error': 'gateway is shutting down'}");
}

/* An extension with far too much output for one telemetry reply. */
static int
big_handler(struct api_ctx *ctx, int argc, char **argv)
{
	unsigned int i;
	int n_pos, rc;

	rc = api_opts_parse(ctx, argc, argv, NULL, 0, 0, &n_pos);
	if (rc < 0)
		return rc;
	fmt_open(ctx->fmt, "rows", FMT_OBJ);
	for (i = 0; i < 2000; i++) {
		char key[32];

		snprintf(key, sizeof(key), "row_%u", i);
		fmt_u64(ctx->fmt, key, UINT64_MAX - i);
	}
	fmt_close(ctx->fmt);
	return 0;
}

static const struct api_cmd big_cmd = {
	.name = "show big",
	.args = "",
	.help = "2000 rows (test)",
	.telemetry = "/longspan/big",
	.handler = big_handler,
};

int
main(int argc, char **argv)
{
	char prefix[64], runtime_dir[PATH_MAX], socket_path[PATH_MAX + 32];
	char *eal_argv[] = {
		argv[0], (char *)(uintptr_t)"-l", (char *)(uintptr_t)"0",
		(char *)(uintptr_t)"--no-huge", (char *)(uintptr_t)"-m", (char *)(uintptr_t)"64",
		(char *)(uintptr_t)"--no-shconf", (char *)(uintptr_t)"--no-pci",
		(char *)(uintptr_t)"--vdev", (char *)(uintptr_t)"net_null0",
		(char *)(uintptr_t)"--vdev", (char *)(uintptr_t)"net_null1",
		(char *)(uintptr_t)"--file-prefix", prefix,
		(char *)(uintptr_t)"--log-level", (char *)(uintptr_t)"*:warning",
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ethdev, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tel_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tel_ports_peers_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tel_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tel_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tel_flows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tel_tm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tel_page_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tel_unregistered, setup, teardown),
	};
	int rc;

	(void)argc;
	snprintf(prefix, sizeof(prefix), "ctl_tel_%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal_argv), eal_argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	test_pool = rte_pktmbuf_pool_create("ctl_test", 511, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					    SOCKET_ID_ANY);
	if (test_pool == NULL || api_register(&big_cmd) != 0) {
		fprintf(stderr, "test setup failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests_name("ctl_telemetry", tests, NULL, NULL);
	rte_mempool_free(test_pool);
	/* Leave no per-pid runtime directory behind (--no-shconf puts only
	 * the telemetry socket there; unlinking it first is harmless). */
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	snprintf(socket_path, sizeof(socket_path), "%s/dpdk_telemetry.v2", runtime_dir);
	unlink(socket_path);
	rmdir(runtime_dir);
	return rc;
}
