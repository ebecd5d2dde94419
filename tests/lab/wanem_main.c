/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspan-wanem: the lab's long-haul link, a two-port DPDK delay line.
 *
 *   longspan-wanem [EAL options, two ports] -- [--delay T | --distance-km K]
 *       [--rate R] [--overhead B] [--queue-bytes S] [--queue-pkts N]
 *       [--loss P] [--reorder P --reorder-gap N --reorder-max T] [--seed N]
 *       [--stats-interval T] [--idle MODE] [--max-sleep T] [--duration T] [--mbufs N]
 *       [--mbuf-size B] [--json FILE]
 *
 * docs/lab-tools.md describes every option and counter.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lab.h"
#include "wanem.h"
#include "dataplane/tsc.h"

#define WANEM_TOOL "wanem"
#define WANEM_PORT_DESC 1024

static volatile sig_atomic_t wanem_stop, wanem_delay_toggle;

static void
wanem_sigusr1(int sig)
{
	(void)sig;
	wanem_delay_toggle++;
}

int
main(int argc, char **argv)
{
	struct wanem_opts o;
	struct rte_mempool *pool = NULL;
	struct wanem *w = NULL;
	uint16_t ports[2], port, n = 0;
	unsigned int in_use = 0;
	int rc, ret = 1;
	bool started[2] = { false, false };

	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		fprintf(stderr, "wanem: EAL init failed\n");
		return 1;
	}
	tsc_calibrate(TSC_CALIBRATE_NS); /* before any clock (dataplane/tsc.h) */
	argc -= rc;
	argv += rc;
	if (wanem_parse_args(argc, argv, &o) != 0)
		goto out;
	RTE_ETH_FOREACH_DEV(port)
	{
		if (n < 2)
			ports[n] = port;
		n++;
	}
	if (n != 2) {
		fprintf(stderr, "wanem: give exactly two ports (--vdev), have %u\n", n);
		goto out;
	}
	pool = rte_pktmbuf_pool_create("wanem", o.mbufs, 256, 0,
				       (uint16_t)(o.mbuf_data_bytes + RTE_PKTMBUF_HEADROOM),
				       (int)rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "wanem: cannot create a pool of %u mbufs (%u B): %s\n", o.mbufs,
			o.mbuf_data_bytes, rte_strerror(rte_errno));
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		if (lab_port_start(WANEM_TOOL, ports[i], pool, WANEM_PORT_DESC,
				   o.idle_mode == IDLE_INTERRUPT) != 0)
			goto out;
		started[i] = true;
	}
	w = calloc(1, sizeof(*w));
	if (w == NULL || wanem_init(w, &o, ports[0], ports[1]) != 0) {
		fprintf(stderr, "wanem: setup failed\n");
		free(w);
		w = NULL;
		goto out;
	}
	lab_signals(&wanem_stop);
	if (o.delay_alt_ns != 0) {
		w->delay_toggle = &wanem_delay_toggle;
		signal(SIGUSR1, wanem_sigusr1);
	}
	printf("wanem: ports %u <-> %u, delay %" PRIu64 " ns one way, rate %" PRIu64
	       " b/s%s, queue %" PRIu64 " B / %u pkts per direction, loss %g, reorder %g"
	       " (gap %u), seed %" PRIu64 ", %u mbufs\n",
	       ports[0], ports[1], o.delay_ns, o.rate_bps, o.rate_bps ? "" : " (none)",
	       o.queue_bytes, o.queue_pkts, o.loss, o.reorder, o.reorder_gap, o.seed, o.mbufs);
	fflush(stdout);
	wanem_run(w, &wanem_stop, stdout);
	wanem_print_stats(w, stdout, " final");
	ret = 0;

out:
	for (int i = 0; i < 2; i++)
		if (started[i])
			lab_port_close(ports[i]);
	if (w != NULL)
		wanem_fini(w);
	if (pool != NULL) {
		in_use = rte_mempool_in_use_count(pool);
		printf("wanem: mbufs in use at exit: %u\n", in_use);
	}
	if (w != NULL && o.json_path != NULL && wanem_write_json(w, o.json_path, in_use) != 0) {
		fprintf(stderr, "wanem: cannot write %s\n", o.json_path);
		ret = 1;
	}
	free(w);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return ret;
}
