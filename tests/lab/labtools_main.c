/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspan-labtools: the lab's tools in one process, on one thread: any
 * number of longspan-hostem engines (one port each) and optionally the
 * longspan-wanem delay line (two ports).
 *
 *   longspan-labtools [EAL options, the ports] -- [--hostem PORT:FILE]...
 *       [--duration T] [--idle MODE] [--wanem P0,P1 [longspan-wanem options]]
 *
 * PORT is a port number or a device name (net_virtio_user0); FILE a hostem
 * config, whose [host] csv, json and cnp_log keys name each engine's outputs.
 * Everything after --wanem P0,P1 is longspan-wanem's options.
 *
 * Why one process: on a 2-vCPU lab machine five DPDK processes (two
 * gateways, two hostems, a delay line) queue for the CPUs, and each of them
 * wakes up on its own for every packet and every due time. One thread that
 * serves every tool wakes once for whatever is due first and handles all of
 * it, and the gateways (the system under test) have fewer processes to wait
 * behind (docs/lab.md, "Self-check").
 *
 * Each engine keeps its own clock (t = 0 when every port's link is up), its
 * own mbuf pool and its own reports; they share one idle waiting (every
 * port's rx interrupt and one due-time timer), so the tools' JSON all report
 * that thread's waits. The run ends at --duration or at SIGINT/SIGTERM; a
 * hostem whose own duration ended stops polling its port.
 */
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
#include "wanem.h"
#include "dataplane/tsc.h"

#define LABTOOLS_TOOL "labtools"
#define LABTOOLS_MAX_HOSTEMS 4
#define LABTOOLS_PORT_DESC 1024
#define LABTOOLS_IDLE_SPIN_POLLS 32
#define LABTOOLS_IDLE_MIN_NS 5000
#define LABTOOLS_IDLE_MAX_NS 100000
#define LABTOOLS_LINK_WAIT_NS UINT64_C(10000000000)

struct labtools_hostem {
	const char *port_arg, *path;
	uint16_t port;
	struct hostem_conf *conf;
	struct rte_mempool *pool;
	struct hostem *h;
	bool started; /* its port was started (closed at the end) */
};

struct labtools {
	struct labtools_hostem hostem[LABTOOLS_MAX_HOSTEMS];
	unsigned int n_hostems;
	uint64_t duration_ns; /* 0: until a signal */
	enum idle_mode idle_mode;
	bool wanem_on;
	const char *wanem_ports;
	uint16_t wanem_port[2];
	struct wanem_opts wo;
	struct rte_mempool *wanem_pool;
	struct wanem *w;
	bool wanem_started[2];
	struct idle idle;
};

static volatile sig_atomic_t labtools_stop;

static void
labtools_usage(FILE *out)
{
	fprintf(out,
		"usage: longspan-labtools [EAL options with the ports] -- [--hostem PORT:FILE]...\n"
		"           [--duration T] [--idle MODE] [--wanem P0,P1 [longspan-wanem options]]\n"
		"  --hostem PORT:FILE  a longspan-hostem engine on PORT (number or device name)\n"
		"                      with config FILE (its [host] csv, json, cnp_log: outputs)\n"
		"  --duration T        stop after T (default: at SIGINT/SIGTERM)\n"
		"  --idle MODE         interrupt (default; sleep where a port has no rx\n"
		"                      interrupts), sleep or poll\n"
		"  --wanem P0,P1 ...   the delay line between ports P0 and P1; the rest of the\n"
		"                      command line is longspan-wanem's options\n");
}

/* A port number or a device name; -EINVAL with a message if there is none. */
static int
labtools_port(const char *text, uint16_t *port)
{
	uint64_t v;
	char *end = NULL;

	if (rte_eth_dev_get_port_by_name(text, port) == 0)
		return 0;
	v = strtoull(text, &end, 10);
	if (end != text && *end == '\0' && v < RTE_MAX_ETHPORTS &&
	    rte_eth_dev_is_valid_port((uint16_t)v)) {
		*port = (uint16_t)v;
		return 0;
	}
	fprintf(stderr, "labtools: port '%s': no such port (give --vdev)\n", text);
	return -EINVAL;
}

static int
labtools_parse(struct labtools *t, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *opt = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
			labtools_usage(stdout);
			exit(0);
		}
		if (val == NULL) {
			fprintf(stderr, "labtools: %s: needs a value\n", opt);
			return -EINVAL;
		}
		if (strcmp(opt, "--hostem") == 0) {
			struct labtools_hostem *e = &t->hostem[t->n_hostems];
			char *colon = strchr(argv[i + 1], ':');

			if (t->n_hostems == LABTOOLS_MAX_HOSTEMS) {
				fprintf(stderr, "labtools: at most %u --hostem\n",
					LABTOOLS_MAX_HOSTEMS);
				return -EINVAL;
			}
			if (colon == NULL || colon == argv[i + 1] || colon[1] == '\0') {
				fprintf(stderr, "labtools: --hostem '%s': not PORT:FILE\n", val);
				return -EINVAL;
			}
			*colon = '\0';
			e->port_arg = argv[i + 1];
			e->path = colon + 1;
			t->n_hostems++;
		} else if (strcmp(opt, "--duration") == 0) {
			if (lab_parse_time(LABTOOLS_TOOL, opt, val, &t->duration_ns) != 0)
				return -EINVAL;
		} else if (strcmp(opt, "--idle") == 0) {
			if (lab_parse_idle(LABTOOLS_TOOL, opt, val, &t->idle_mode) != 0)
				return -EINVAL;
		} else if (strcmp(opt, "--wanem") == 0) {
			/* The rest is wanem's: argv[i + 1] stands in for its argv[0]. */
			t->wanem_on = true;
			t->wanem_ports = val;
			return wanem_parse_args(argc - (i + 1), argv + i + 1, &t->wo);
		} else {
			fprintf(stderr, "labtools: unknown option '%s'\n", opt);
			labtools_usage(stderr);
			return -EINVAL;
		}
		i++;
	}
	if (t->n_hostems == 0 && !t->wanem_on) {
		labtools_usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/* Ports, configs and pools; every port used once. */
static int
labtools_setup(struct labtools *t)
{
	bool used[RTE_MAX_ETHPORTS] = { false };
	char name[RTE_MEMPOOL_NAMESIZE];

	for (unsigned int i = 0; i < t->n_hostems; i++) {
		struct labtools_hostem *e = &t->hostem[i];

		if (labtools_port(e->port_arg, &e->port) != 0)
			return -EINVAL;
		if (used[e->port]) {
			fprintf(stderr, "labtools: port %u used twice\n", e->port);
			return -EINVAL;
		}
		used[e->port] = true;
		e->conf = calloc(1, sizeof(*e->conf));
		if (e->conf == NULL || hostem_config_load(e->conf, e->path, stderr) != 0)
			return -EINVAL;
		if (e->conf->csv_path[0] != '\0' && e->conf->csv_interval_ns == 0) {
			fprintf(stderr, "labtools: %s: a CSV needs csv_interval > 0\n", e->path);
			return -EINVAL;
		}
		e->conf->idle_mode = t->idle_mode;
		snprintf(name, sizeof(name), "hostem%u", i);
		e->pool = rte_pktmbuf_pool_create(
			name, hostem_mbufs_needed(e->conf, LABTOOLS_PORT_DESC), 256, 0,
			(uint16_t)(hostem_mbuf_data_room(e->conf) + RTE_PKTMBUF_HEADROOM),
			(int)rte_socket_id());
		if (e->pool == NULL) {
			fprintf(stderr, "labtools: %s: cannot create a pool: %s\n", e->path,
				rte_strerror(rte_errno));
			return -ENOMEM;
		}
		if (lab_port_start(LABTOOLS_TOOL, e->port, e->pool, LABTOOLS_PORT_DESC,
				   t->idle_mode == IDLE_INTERRUPT) != 0)
			return -EIO;
		e->started = true;
	}
	if (t->wanem_on) {
		char ports[64], *comma;

		if (strlen(t->wanem_ports) >= sizeof(ports) ||
		    (comma = strchr(strcpy(ports, t->wanem_ports), ',')) == NULL) {
			fprintf(stderr, "labtools: --wanem '%s': not P0,P1\n", t->wanem_ports);
			return -EINVAL;
		}
		*comma = '\0';
		if (labtools_port(ports, &t->wanem_port[0]) != 0 ||
		    labtools_port(comma + 1, &t->wanem_port[1]) != 0)
			return -EINVAL;
		t->wo.idle_mode = t->idle_mode;
		t->wanem_pool = rte_pktmbuf_pool_create(
			"wanem", t->wo.mbufs, 256, 0,
			(uint16_t)(t->wo.mbuf_data_bytes + RTE_PKTMBUF_HEADROOM),
			(int)rte_socket_id());
		if (t->wanem_pool == NULL) {
			fprintf(stderr, "labtools: wanem: cannot create a pool of %u mbufs: %s\n",
				t->wo.mbufs, rte_strerror(rte_errno));
			return -ENOMEM;
		}
		for (int d = 0; d < 2; d++) {
			uint16_t p = t->wanem_port[d];

			if (used[p]) {
				fprintf(stderr, "labtools: port %u used twice\n", p);
				return -EINVAL;
			}
			used[p] = true;
			if (lab_port_start(LABTOOLS_TOOL, p, t->wanem_pool, LABTOOLS_PORT_DESC,
					   t->idle_mode == IDLE_INTERRUPT) != 0)
				return -EIO;
			t->wanem_started[d] = true;
		}
	}
	return 0;
}

/* Every link up, then every engine's clock starts (t = 0 for all alike). */
static int
labtools_start(struct labtools *t)
{
	for (unsigned int i = 0; i < t->n_hostems; i++)
		if (!lab_port_wait_link(t->hostem[i].port, t->hostem[i].conf->wait_link_ns,
					&labtools_stop)) {
			fprintf(stderr, "labtools: port %u: link did not come up\n",
				t->hostem[i].port);
			return -EIO;
		}
	for (int d = 0; t->wanem_on && d < 2; d++)
		if (!lab_port_wait_link(t->wanem_port[d], LABTOOLS_LINK_WAIT_NS, &labtools_stop)) {
			fprintf(stderr, "labtools: port %u: link did not come up\n",
				t->wanem_port[d]);
			return -EIO;
		}
	idle_init(&t->idle, t->idle_mode, LABTOOLS_IDLE_SPIN_POLLS, LABTOOLS_IDLE_MIN_NS,
		  LABTOOLS_IDLE_MAX_NS);

	if (t->wanem_on) {
		t->w = calloc(1, sizeof(*t->w));
		if (t->w == NULL ||
		    wanem_init(t->w, &t->wo, t->wanem_port[0], t->wanem_port[1]) != 0) {
			fprintf(stderr, "labtools: wanem: setup failed\n");
			free(t->w);
			t->w = NULL;
			return -EIO;
		}
		t->w->idle = &t->idle;
		printf("labtools: wanem on ports %u <-> %u, delay %" PRIu64
		       " ns one way, rate %" PRIu64 " b/s, %u pkts per direction, %u mbufs\n",
		       t->wanem_port[0], t->wanem_port[1], t->wo.delay_ns, t->wo.rate_bps,
		       t->wo.queue_pkts, t->wo.mbufs);
	}
	for (unsigned int i = 0; i < t->n_hostems; i++) {
		struct labtools_hostem *e = &t->hostem[i];

		e->h = calloc(1, sizeof(*e->h));
		if (e->h == NULL || hostem_init(e->h, e->conf, e->port, e->pool) != 0) {
			fprintf(stderr, "labtools: %s: setup failed\n", e->path);
			free(e->h);
			e->h = NULL;
			return -EIO;
		}
		if (hostem_report_open(e->h) != 0) {
			fprintf(stderr, "labtools: cannot write %s\n", e->conf->csv_path);
			return -EIO;
		}
		e->h->idle = &t->idle;
		printf("labtools: hostem %s on port %u, %u senders, %u receivers, tsc0 %" PRIu64
		       " at %" PRIu64 " Hz\n",
		       e->conf->name, e->port, e->h->n_senders, e->h->n_receivers, e->h->clk.tsc0,
		       e->h->clk.hz);
	}
	fflush(stdout);
	return 0;
}

static uint64_t
labtools_min(uint64_t a, uint64_t b)
{
	if (a == UINT64_MAX)
		return b;
	if (b == UINT64_MAX)
		return a;
	return (int64_t)(a - b) < 0 ? a : b;
}

static void
labtools_run(struct labtools *t)
{
	uint64_t end = UINT64_MAX;

	idle_start(&t->idle);
	for (unsigned int i = 0; i < t->n_hostems; i++)
		if (idle_add_queue(&t->idle, t->hostem[i].port, 0) != 0)
			break;
	for (int d = 0; t->w != NULL && d < 2 && idle_intr(&t->idle); d++)
		idle_add_queue(&t->idle, t->wanem_port[d], 0);
	if (t->idle_mode == IDLE_INTERRUPT && !idle_intr(&t->idle))
		printf("labtools: a port has no rx interrupts: idle = sleep\n");
	if (t->w != NULL)
		wanem_start(t->w);
	if (t->duration_ns != 0) {
		struct lab_clock clk;

		lab_clock_init(&clk);
		end = clk.tsc0 + lab_clock_ticks(&clk, t->duration_ns);
	}
	while (!labtools_stop) {
		uint64_t now = rte_rdtsc(), due = end;
		unsigned int work = 0;

		if ((int64_t)(now - end) >= 0 && end != UINT64_MAX)
			break;
		for (unsigned int i = 0; i < t->n_hostems; i++)
			work += hostem_poll(t->hostem[i].h, now);
		if (t->w != NULL)
			work += wanem_poll(t->w, now, stdout);
		if (work != 0) {
			idle_work(&t->idle);
			continue;
		}
		for (unsigned int i = 0; i < t->n_hostems; i++)
			due = labtools_min(due, hostem_due(t->hostem[i].h, now));
		if (t->w != NULL)
			due = labtools_min(due, wanem_due(t->w));
		idle_wait(&t->idle, now, due);
	}
	idle_fini(&t->idle);
}

/* Reports, then every mbuf back (counted per pool) and everything freed. */
static int
labtools_finish(struct labtools *t, bool ran)
{
	int ret = 0;

	for (unsigned int i = 0; i < t->n_hostems; i++) {
		struct labtools_hostem *e = &t->hostem[i];
		unsigned int in_use;

		if (e->h != NULL) {
			hostem_finish(e->h);
			if (ran)
				hostem_report_final(e->h, stdout);
			hostem_report_close(e->h);
			hostem_drain(e->h);
		}
		if (e->started)
			lab_port_close(e->port);
		if (e->pool == NULL)
			continue;
		in_use = rte_mempool_in_use_count(e->pool);
		printf("labtools: hostem %s: mbufs in use at exit: %u\n", e->path, in_use);
		if (e->h != NULL && ran && e->conf->json_path[0] != '\0' &&
		    hostem_report_json(e->h, e->conf->json_path, in_use) != 0) {
			fprintf(stderr, "labtools: cannot write %s\n", e->conf->json_path);
			ret = -EIO;
		}
		if (e->h != NULL && ran && e->conf->cnp_log_path[0] != '\0' &&
		    hostem_report_cnp_log(e->h, e->conf->cnp_log_path) != 0) {
			fprintf(stderr, "labtools: cannot write %s\n", e->conf->cnp_log_path);
			ret = -EIO;
		}
		if (e->h != NULL)
			hostem_fini(e->h);
		free(e->h);
		rte_mempool_free(e->pool);
		free(e->conf);
	}
	if (t->w != NULL && ran)
		wanem_print_stats(t->w, stdout, " final");
	for (int d = 0; d < 2; d++)
		if (t->wanem_started[d])
			lab_port_close(t->wanem_port[d]);
	if (t->w != NULL)
		wanem_fini(t->w);
	if (t->wanem_pool != NULL) {
		unsigned int in_use = rte_mempool_in_use_count(t->wanem_pool);

		printf("labtools: wanem: mbufs in use at exit: %u\n", in_use);
		if (t->w != NULL && ran && t->wo.json_path != NULL &&
		    wanem_write_json(t->w, t->wo.json_path, in_use) != 0) {
			fprintf(stderr, "labtools: cannot write %s\n", t->wo.json_path);
			ret = -EIO;
		}
		rte_mempool_free(t->wanem_pool);
	}
	free(t->w);
	return ret;
}

int
main(int argc, char **argv)
{
	static struct labtools t;
	bool ran = false;
	int rc;

	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		fprintf(stderr, "labtools: EAL init failed\n");
		return 1;
	}
	tsc_calibrate(TSC_CALIBRATE_NS); /* before any clock (dataplane/tsc.h) */
	argc -= rc;
	argv += rc;
	t.idle_mode = IDLE_INTERRUPT;
	rte_net_crc_set_alg(RTE_NET_CRC_SSE42);
	lab_signals(&labtools_stop);
	if (labtools_parse(&t, argc, argv) == 0 && labtools_setup(&t) == 0 &&
	    labtools_start(&t) == 0) {
		labtools_run(&t);
		ran = true;
	}
	rc = labtools_finish(&t, ran);
	rte_eal_cleanup();
	return ran && rc == 0 ? 0 : 1;
}
