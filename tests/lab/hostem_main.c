/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspan-hostem: RoCEv2 endpoint emulator on one DPDK port.
 *
 *   longspan-hostem [EAL options, one port] -- --config FILE [--duration T]
 *                   [--csv FILE] [--json FILE] [--cnp-log FILE] [--quiet] [--idle MODE]
 *   longspan-hostem --check-config FILE
 *   longspan-hostem --dump-config FILE
 *
 * docs/lab-tools.md describes the file, the behaviour and every counter.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_net_crc.h>

#include "hostem.h"
#include "hostem_config.h"
#include "lab.h"
#include "dataplane/tsc.h"

#define HOSTEM_TOOL "hostem"
#define HOSTEM_PORT_DESC 1024

static volatile sig_atomic_t hostem_stop;

static void
hostem_usage(FILE *out)
{
	fprintf(out,
		"usage: longspan-hostem [EAL options with one port] -- --config FILE [options]\n"
		"       longspan-hostem --check-config FILE | --dump-config FILE\n"
		"  --config FILE     the endpoints (docs/lab-tools.md)\n"
		"  --duration T      overrides [host] duration\n"
		"  --csv FILE        overrides [host] csv\n"
		"  --json FILE       overrides [host] json\n"
		"  --cnp-log FILE    overrides [host] cnp_log\n"
		"  --quiet           no stats lines ([host] stats_interval = 0)\n"
		"  --idle MODE       interrupt (default; sleep where the port has no rx interrupts),\n"
		"                    sleep or poll\n");
}

/* --check-config / --dump-config run without EAL. Returns -1 if neither was given. */
static int
hostem_config_only(int argc, char **argv)
{
	static struct hostem_conf conf;

	for (int i = 1; i + 1 < argc; i++) {
		bool check = strcmp(argv[i], "--check-config") == 0;
		bool dump = strcmp(argv[i], "--dump-config") == 0;

		if (!check && !dump)
			continue;
		if (hostem_config_load(&conf, argv[i + 1], stderr) != 0)
			return 1;
		if (dump)
			hostem_config_dump(&conf, stdout);
		else
			printf("%s: ok, %u QPs\n", argv[i + 1], conf.n_qp);
		return 0;
	}
	return -1;
}

static int
hostem_set_path(char *dst, const char *src, const char *opt)
{
	if (strlen(src) >= HOSTEM_PATH_MAX) {
		fprintf(stderr, "hostem: %s: path too long\n", opt);
		return -1;
	}
	strcpy(dst, src);
	return 0;
}

static int
hostem_parse(int argc, char **argv, struct hostem_conf *conf)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "csv", required_argument, NULL, 'v' },
		{ "json", required_argument, NULL, 'j' },
		{ "cnp-log", required_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "idle", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL, *csv = NULL, *json = NULL, *log = NULL;
	uint64_t duration = 0;
	bool have_duration = false, quiet = false, have_idle = false;
	enum idle_mode idle = IDLE_INTERRUPT;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			path = optarg;
			break;
		case 'd':
			if (lab_parse_time(HOSTEM_TOOL, "--duration", optarg, &duration) != 0)
				return -1;
			have_duration = true;
			break;
		case 'v':
			csv = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		case 'l':
			log = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'i':
			if (lab_parse_idle(HOSTEM_TOOL, "--idle", optarg, &idle) != 0)
				return -1;
			have_idle = true;
			break;
		case 'h':
			hostem_usage(stdout);
			exit(0);
		default:
			hostem_usage(stderr);
			return -1;
		}
	}
	if (optind < argc || path == NULL) {
		hostem_usage(stderr);
		return -1;
	}
	if (hostem_config_load(conf, path, stderr) != 0)
		return -1;
	if (have_duration)
		conf->duration_ns = duration;
	if (quiet)
		conf->stats_interval_ns = 0;
	if (have_idle)
		conf->idle_mode = idle;
	if ((csv != NULL && hostem_set_path(conf->csv_path, csv, "--csv") != 0) ||
	    (json != NULL && hostem_set_path(conf->json_path, json, "--json") != 0) ||
	    (log != NULL && hostem_set_path(conf->cnp_log_path, log, "--cnp-log") != 0))
		return -1;
	if (conf->csv_path[0] != '\0' && conf->csv_interval_ns == 0) {
		fprintf(stderr, "hostem: a CSV needs csv_interval > 0\n");
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct hostem_conf conf;
	struct rte_mempool *pool = NULL;
	struct hostem *h = NULL;
	uint16_t port = 0, n = 0, p;
	unsigned int in_use = 0;
	bool started = false;
	int rc, ret = 1;

	rc = hostem_config_only(argc, argv);
	if (rc >= 0)
		return rc;
	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		fprintf(stderr, "hostem: EAL init failed\n");
		return 1;
	}
	tsc_calibrate(TSC_CALIBRATE_NS); /* before any clock (dataplane/tsc.h) */
	argc -= rc;
	argv += rc;
	if (hostem_parse(argc, argv, &conf) != 0)
		goto out;
	RTE_ETH_FOREACH_DEV(p)
	{
		if (n == 0)
			port = p;
		n++;
	}
	if (n != 1) {
		fprintf(stderr, "hostem: give exactly one port (--vdev), have %u\n", n);
		goto out;
	}
	rte_net_crc_set_alg(RTE_NET_CRC_SSE42);
	pool = rte_pktmbuf_pool_create(
		"hostem", hostem_mbufs_needed(&conf, HOSTEM_PORT_DESC), 256, 0,
		(uint16_t)(hostem_mbuf_data_room(&conf) + RTE_PKTMBUF_HEADROOM),
		(int)rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "hostem: cannot create a pool of %u mbufs: %s\n",
			hostem_mbufs_needed(&conf, HOSTEM_PORT_DESC), rte_strerror(rte_errno));
		goto out;
	}
	if (lab_port_start(HOSTEM_TOOL, port, pool, HOSTEM_PORT_DESC,
			   conf.idle_mode == IDLE_INTERRUPT) != 0)
		goto out;
	started = true;
	lab_signals(&hostem_stop);
	if (!lab_port_wait_link(port, conf.wait_link_ns, &hostem_stop)) {
		fprintf(stderr, "hostem: port %u: link did not come up in %.1f s\n", port,
			(double)conf.wait_link_ns / 1e9);
		goto out;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL || hostem_init(h, &conf, port, pool) != 0) {
		fprintf(stderr, "hostem: setup failed\n");
		free(h);
		h = NULL;
		goto out;
	}
	if (hostem_report_open(h) != 0) {
		fprintf(stderr, "hostem: cannot write %s\n", conf.csv_path);
		goto out;
	}
	printf("hostem %s: port %u up, %u senders, %u receivers, variant %s, tor %s, tsc0 %" PRIu64
	       " at %" PRIu64 " Hz\n",
	       conf.name, port, h->n_senders, h->n_receivers,
	       dcqcn_variant_name((enum dcqcn_variant)conf.variant),
	       conf.tor_rate_bps ? "on" : "off", h->clk.tsc0, h->clk.hz);
	fflush(stdout);
	hostem_run(h, &hostem_stop);
	hostem_report_final(h, stdout);
	ret = 0;

out:
	if (h != NULL) {
		hostem_report_close(h);
		hostem_drain(h);
	}
	if (started)
		lab_port_close(port);
	if (pool != NULL) {
		in_use = rte_mempool_in_use_count(pool);
		printf("hostem: mbufs in use at exit: %u\n", in_use);
	}
	if (h != NULL && ret == 0) {
		if (conf.json_path[0] != '\0' &&
		    hostem_report_json(h, conf.json_path, in_use) != 0) {
			fprintf(stderr, "hostem: cannot write %s\n", conf.json_path);
			ret = 1;
		}
		if (conf.cnp_log_path[0] != '\0' &&
		    hostem_report_cnp_log(h, conf.cnp_log_path) != 0) {
			fprintf(stderr, "hostem: cannot write %s\n", conf.cnp_log_path);
			ret = 1;
		}
	}
	if (h != NULL)
		hostem_fini(h);
	free(h);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return ret;
}
