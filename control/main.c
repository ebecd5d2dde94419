/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspand: the Longspan gateway daemon.
 *
 *   longspand -c FILE [EAL options]     run the gateway
 *   longspand --check-config FILE       validate, touch no device
 *   longspand --dump-config FILE        print the effective config
 *   longspand --config-doc              print the key reference (Markdown)
 *
 * EAL options come from the config's [eal] section and the ports' device
 * strings; EAL options on the command line take precedence.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_version.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_net_crc.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "api.h"
#include "config.h"
#include "eal_args.h"
#include "l2.h"
#include "ports.h"
#include "runtime.h"
#include "hook_api.h"
#include "hook_set.h"
#include "telemetry.h"
#include "dataplane/mbuf_meta.h"
#include "dataplane/neigh.h"

#define LONGSPAN_VERSION "0.1.0"
#define MAIN_RING_SIZE 1024
#define MAIN_IDLE_SLEEP_NS (1000 * 1000) /* control loop sleeps 1 ms when idle */
#define MAIN_API_PERIOD_NS (10 * 1000 * 1000)
#define MAIN_EAL_ARGS_MAX 128

static volatile sig_atomic_t main_stop;

static void
main_signal(int sig)
{
	(void)sig;
	main_stop = 1;
}

/*
 * SIGTERM and SIGINT only set main_stop, which the control loop reads on
 * every pass (1 ms apart when idle). Installed before EAL starts, so that a
 * signal during start-up ends the gateway cleanly once it is up. No
 * SA_RESTART: a system call that could block returns EINTR instead.
 */
static void
main_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = main_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

static void
main_usage(FILE *out)
{
	fprintf(out,
		"usage: longspand -c FILE [--stats] [EAL options]\n"
		"       longspand --check-config FILE\n"
		"       longspand --dump-config FILE\n"
		"       longspand --config-doc\n"
		"       longspand --version\n"
		"\n"
		"EAL options default to the config's [eal] section and port devices;\n"
		"options given here take precedence.\n");
}

static int
main_workers_create(struct ls_runtime *rt, FILE *err)
{
	unsigned int n = rt->cfg->gw.workers, i, lcore;
	size_t sz;
	int rc;

	if (rte_lcore_count() < n + 1) {
		fprintf(err,
			"[gateway] workers = %u needs %u lcores (one control + %u workers); EAL has %u: "
			"set [eal] lcores\n",
			n, n + 1, n, rte_lcore_count());
		return -EINVAL;
	}
	sz = rte_rcu_qsbr_get_memsize(n);
	rt->rcu = rte_zmalloc("ls_rcu", sz, RTE_CACHE_LINE_SIZE);
	if (rt->rcu == NULL || rte_rcu_qsbr_init(rt->rcu, n) != 0) {
		fprintf(err, "cannot create the RCU state for %u workers\n", n);
		return -ENOMEM;
	}
	i = 0;
	RTE_LCORE_FOREACH_WORKER(lcore) {
		struct dp_worker *w;
		char name[RTE_RING_NAMESIZE];

		if (i == n)
			break;
		w = rte_zmalloc_socket("ls_worker", sizeof(*w), RTE_CACHE_LINE_SIZE,
				       (int)rte_lcore_to_socket_id(lcore));
		if (w == NULL)
			return -ENOMEM;
		rt->workers[i] = w;
		rt->n_workers = i + 1;
		w->id = i;
		w->lcore = lcore;
		w->rcu = rt->rcu;
		w->rcu_id = i;
		w->conf = &rt->dp;
		w->idle_mode = (uint8_t)rt->cfg->gw.idle_mode;
		w->idle_sleep_ns = rt->cfg->gw.idle_sleep_ns;
		w->tsc_hz = rte_get_tsc_hz();
		w->tsc_base = rte_rdtsc();
		w->ns_base = runtime_now_ns();
		w->pool = rt->pool;
		rc = runtime_worker_state_alloc(rt->cfg, w, err);
		if (rc != 0)
			return rc;
		snprintf(name, sizeof(name), "ls_punt_%u", i);
		w->punt = rte_ring_create(name, MAIN_RING_SIZE, (int)rte_lcore_to_socket_id(lcore),
					  RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "ls_inject_%u", i);
		w->inject = rte_ring_create(name, MAIN_RING_SIZE, (int)rte_lcore_to_socket_id(lcore),
					    RING_F_SC_DEQ);
		if (w->punt == NULL || w->inject == NULL) {
			fprintf(err, "cannot create worker %u rings: %s\n", i, rte_strerror(rte_errno));
			return -ENOMEM;
		}
		rte_rcu_qsbr_thread_register(rt->rcu, i);
		i++;
	}
	return 0;
}

static void
main_workers_free(struct ls_runtime *rt)
{
	struct rte_mbuf *m = NULL;
	unsigned int i;

	for (i = 0; i < rt->n_workers; i++) {
		struct dp_worker *w = rt->workers[i];

		while (w->punt && rte_ring_dequeue(w->punt, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		while (w->inject && rte_ring_dequeue(w->inject, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(w->punt);
		rte_ring_free(w->inject);
		runtime_worker_state_free(w);
		rte_free(w);
	}
	rt->n_workers = 0;
	rte_free(rt->rcu);
}

/* One line of totals, for --stats (the lab prints these). */
static void
main_stats_line(const struct ls_runtime *rt, FILE *out)
{
	struct dp_counters c;
	uint64_t drops = 0;
	unsigned int i;

	runtime_counters_sum(rt, &c);
	for (i = 1; i < LS_DROP_MAX; i++)
		drops += c.drops[i];
	fprintf(out, "[%s]", rt->cfg->gw.name);
	for (i = 0; i < rt->cfg->n_ports; i++)
		fprintf(out, " %s rx %" PRIu64 " tx %" PRIu64 ";", rt->cfg->ports[i].name,
			c.port[i].rx_pkts, c.port[i].tx_pkts);
	for (i = 0; i < rt->cfg->n_peers; i++)
		fprintf(out, " peer %s enc %" PRIu64 " dec %" PRIu64 ";", rt->cfg->peers[i].name,
			c.peer[i].tx_pkts, c.peer[i].rx_pkts);
	fprintf(out, " roce data %" PRIu64 " ack %" PRIu64 " cnp %" PRIu64 "; drops %" PRIu64 "\n",
		c.cls[DP_CLASS_ROCE_DATA], c.cls[DP_CLASS_ROCE_ACK], c.cls[DP_CLASS_ROCE_CNP], drops);
	fflush(out);
}

static uint64_t
main_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
main_control_loop(struct ls_runtime *rt, int api_fd, bool stats)
{
	uint64_t next_api = 0, next_sec = 0, next_stats = 0, last = main_mono_ns();

	while (!main_stop) {
		uint64_t now = main_mono_ns();
		unsigned int n = runtime_drain_punts(rt);

		hook_set_step(rt->hooks, runtime_workers_ns(rt), now - last);
		last = now;

		if (now >= next_api) {
			if (api_fd >= 0)
				api_poll(rt, api_fd);
			next_api = now + MAIN_API_PERIOD_NS;
		}
		if (now >= next_sec) {
			l2_maintain(rt, runtime_now_ns());
			next_sec = now + 1000000000u;
		}
		if (stats && now >= next_stats) {
			main_stats_line(rt, stdout);
			next_stats = now + rt->cfg->gw.stats_interval_ns;
		}
		if (n == 0) {
			struct timespec ts = { .tv_sec = 0, .tv_nsec = MAIN_IDLE_SLEEP_NS };

			nanosleep(&ts, NULL);
		}
	}
}

static int
main_load(const char *path, struct ls_config **out)
{
	struct ls_config *cfg = calloc(1, sizeof(*cfg));
	int rc;

	if (cfg == NULL) {
		fprintf(stderr, "out of memory\n");
		return -ENOMEM;
	}
	rc = config_load(path, cfg, stderr);
	if (rc != 0) {
		free(cfg);
		return rc;
	}
	*out = cfg;
	return 0;
}

static int
main_run(struct ls_config *cfg, int eal_argc, char **eal_argv, bool stats)
{
	struct ls_runtime rt;
	struct dp_conf *dp = NULL;
	static struct eal_args ea;
	unsigned int i, lcore;
	int rc, api_fd = -1;
	bool ports_up = false;

	memset(&rt, 0, sizeof(rt));
	pthread_mutex_init(&rt.cfg_lock, NULL);
	main_signals_install();
	if (eal_args_build(&ea, "longspand", cfg, eal_argc, eal_argv, stderr) != 0) {
		free(cfg);
		return 1;
	}
	rc = rte_eal_init(ea.argc, ea.argv);
	if (rc < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		free(cfg);
		return 1;
	}
	rt.cfg = cfg; /* the runtime owns it from here */
	cfg = NULL;
	rt.tsc_hz = rte_get_tsc_hz();
	rt.start_tsc = rte_rdtsc();

	/* ICRC of gateway CNPs (mechanism A). */
	rte_net_crc_set_alg(RTE_NET_CRC_SSE42);
	rc = dp_mbuf_meta_register();
	if (rc != 0) {
		fprintf(stderr, "cannot register the mbuf metadata field: %s\n", rte_strerror(-rc));
		goto out;
	}
	rt.pool = ports_pool_create(rt.cfg, stderr);
	if (rt.pool == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < rt.cfg->n_ports; i++) {
		rt.neigh[i] = rte_zmalloc("ls_neigh", sizeof(struct neigh_table), RTE_CACHE_LINE_SIZE);
		if (rt.neigh[i] == NULL) {
			rc = -ENOMEM;
			goto out;
		}
		neigh_init(rt.neigh[i]);
	}
	rc = main_workers_create(&rt, stderr);
	if (rc != 0)
		goto out;
	rc = ports_setup(rt.cfg, rt.pool, rt.port_ids, stderr);
	if (rc != 0)
		goto out;
	ports_up = true;
	rc = runtime_dp_build(&rt, rt.cfg, &dp, stderr);
	if (rc != 0)
		goto out;
	rc = runtime_hooks_prepare(&rt, rt.cfg, dp, stderr);
	if (rc != 0) {
		runtime_dp_free(dp);
		goto out;
	}
	/* runtime_publish frees the previous config: hand it over, not keep it twice. */
	cfg = rt.cfg;
	rt.cfg = NULL;
	runtime_publish(&rt, cfg, dp);
	cfg = NULL;

	rc = hook_api_register();
	if (rc != 0) {
		fprintf(stderr, "api: cannot register the hook commands: %s\n", strerror(-rc));
		goto out;
	}
	api_fd = api_listen(rt.cfg->gw.socket_path, stderr);
	if (api_fd < 0) {
		rc = api_fd;
		goto out;
	}
	rc = telemetry_register(&rt);
	if (rc != 0) {
		fprintf(stderr, "telemetry: cannot register /longspan/ commands: %s\n", strerror(-rc));
		goto out;
	}

	i = 0;
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (i == rt.n_workers)
			break;
		rte_eal_remote_launch(dp_worker_main, rt.workers[i], lcore);
		i++;
	}
	runtime_resolve_nexthops(&rt);
	printf("longspand %s: gateway '%s' running, %u worker(s), %u port(s), %u peer(s), API %s\n",
	       LONGSPAN_VERSION, rt.cfg->gw.name, rt.n_workers, rt.cfg->n_ports, rt.cfg->n_peers,
	       rt.cfg->gw.socket_path);
	fflush(stdout);
	config_warn(rt.cfg, stderr);

	main_control_loop(&rt, api_fd, stats);
	/* No telemetry callback may run once workers and snapshots are freed. */
	telemetry_unregister();

	printf("longspand: stopping\n");
	for (i = 0; i < rt.n_workers; i++)
		__atomic_store_n(&rt.workers[i]->stop, true, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	if (stats)
		main_stats_line(&rt, stdout);
	rc = 0;

out:
	if (api_fd >= 0)
		api_close(api_fd, rt.cfg->gw.socket_path);
	if (ports_up)
		ports_close(rt.port_ids, rt.cfg->n_ports);
	/* Workers stopped: the last IPFIX records, then the pins go. */
	hook_set_free(rt.hooks, runtime_workers_ns(&rt));
	rt.hooks = NULL;
	main_workers_free(&rt);
	if (rt.pool != NULL) {
		unsigned int in_use = rte_mempool_in_use_count(rt.pool);

		/* Tests grep this line: every mbuf must be back in the pool. */
		printf("longspand: mbufs in use at exit: %u\n", in_use);
		rte_mempool_free(rt.pool);
	}
	runtime_dp_free(rt.dp);
	for (i = 0; i < LS_MAX_PORTS; i++)
		rte_free(rt.neigh[i]);
	free(rt.cfg);
	rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", required_argument, NULL, 'C' },
		{ "dump-config", required_argument, NULL, 'D' },
		{ "config-doc", no_argument, NULL, 'M' },
		{ "stats", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char *eal_argv[MAIN_EAL_ARGS_MAX];
	const char *path = NULL;
	struct ls_config *cfg;
	int eal_argc = 0, i;
	bool stats = false;

	/*
	 * Our options are taken out; everything else is handed to EAL. getopt
	 * cannot do that without knowing EAL's options, so scan by hand.
	 */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct option *o;
		const char *val = NULL;
		int id = 0;

		if (strcmp(a, "--") == 0)
			continue;
		if (strcmp(a, "-c") == 0) {
			id = 'c';
		} else if (strncmp(a, "--", 2) == 0) {
			for (o = longopts; o->name != NULL; o++) {
				size_t n = strlen(o->name);

				if (strncmp(a + 2, o->name, n) == 0 &&
				    (a[2 + n] == '\0' || a[2 + n] == '=')) {
					id = o->val;
					if (a[2 + n] == '=')
						val = a + 3 + n;
					break;
				}
			}
		} else if (strcmp(a, "-h") == 0) {
			id = 'h';
		}
		if (id == 'c' || id == 'C' || id == 'D') {
			if (val == NULL) {
				if (i + 1 >= argc) {
					fprintf(stderr, "longspand: %s needs a FILE\n", a);
					return 2;
				}
				val = argv[++i];
			}
		}
		switch (id) {
		case 'c':
			path = val;
			break;
		case 'C':
			if (main_load(val, &cfg) != 0)
				return 1;
			config_warn(cfg, stderr);
			printf("%s: OK\n", val);
			free(cfg);
			return 0;
		case 'D':
			if (main_load(val, &cfg) != 0)
				return 1;
			config_dump(cfg, stdout);
			free(cfg);
			return 0;
		case 'M':
			config_doc_markdown(stdout);
			return 0;
		case 'S':
			stats = true;
			break;
		case 'h':
			main_usage(stdout);
			return 0;
		case 'V':
			printf("longspand %s (DPDK %s)\n", LONGSPAN_VERSION, rte_version());
			return 0;
		default:
			if (eal_argc >= MAIN_EAL_ARGS_MAX - 1) {
				fprintf(stderr, "longspand: too many EAL arguments\n");
				return 2;
			}
			eal_argv[eal_argc++] = argv[i];
			break;
		}
	}
	if (path == NULL) {
		main_usage(stderr);
		return 2;
	}
	if (main_load(path, &cfg) != 0)
		return 1;
	return main_run(cfg, eal_argc, eal_argv, stats);
}
