/* SPDX-License-Identifier: BSD-3-Clause */
#include "ut_runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_net_crc.h>
#include <rte_ring.h>

#include "dataplane/mbuf_meta.h"
#include "dataplane/neigh.h"

/* The config of TEXT, or NULL after printing why. */
static struct ls_config *
ut_config_text(const char *name, const char *text)
{
	struct ls_config *cfg = calloc(1, sizeof(*cfg));
	FILE *in = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
	int rc = cfg == NULL || in == NULL ? -1 : config_load_stream(in, name, cfg, stderr);

	if (in != NULL)
		fclose(in);
	if (rc != 0) {
		fprintf(stderr, "%s: config setup failed\n", name);
		free(cfg);
		return NULL;
	}
	return cfg;
}

struct dp_worker *
ut_runtime_init(struct ls_runtime *rt, const char *name, const char *text, unsigned int mbufs)
{
	struct ls_config *cfg = ut_config_text(name, text);
	char rname[RTE_RING_NAMESIZE];
	struct dp_worker *w;
	unsigned int i;

	rte_net_crc_set_alg(RTE_NET_CRC_SSE42);
	if (cfg == NULL || dp_mbuf_meta_register() != 0) {
		fprintf(stderr, "%s: config or mbuf field setup failed\n", name);
		return NULL;
	}
	pthread_mutex_init(&rt->cfg_lock, NULL);
	rt->cfg = cfg;
	rt->pool = rte_pktmbuf_pool_create(name, mbufs, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					   SOCKET_ID_ANY);
	w = rte_zmalloc("ut_worker", sizeof(*w), 64);
	if (rt->pool == NULL || w == NULL)
		return NULL;
	for (i = 0; i < cfg->n_ports; i++) {
		rt->neigh[i] = rte_zmalloc("ut_neigh", sizeof(struct neigh_table), 64);
		if (rt->neigh[i] == NULL)
			return NULL;
		neigh_init(rt->neigh[i]);
	}
	w->conf = &rt->dp;
	w->pool = rt->pool;
	w->tsc_hz = 1000000000;
	snprintf(rname, sizeof(rname), "%s_punt", name);
	w->punt = rte_ring_create(rname, 64, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(rname, sizeof(rname), "%s_inject", name);
	w->inject = rte_ring_create(rname, 64, 0, RING_F_SC_DEQ);
	if (w->punt == NULL || w->inject == NULL ||
	    runtime_worker_state_alloc(cfg, w, stderr) != 0)
		return NULL;
	rt->workers[0] = w;
	rt->n_workers = 1;
	return w;
}

int
ut_runtime_publish(struct ls_runtime *rt)
{
	struct ls_config *cfg = rt->cfg;
	struct dp_conf *dp;

	if (runtime_dp_build(rt, cfg, &dp, stderr) != 0)
		return -1;
	rt->cfg = NULL;
	runtime_publish(rt, cfg, dp);
	return 0;
}

int
ut_runtime_reload(struct ls_runtime *rt, const char *name, const char *text)
{
	struct ls_config *cfg = ut_config_text(name, text);
	struct dp_conf *dp;

	if (cfg == NULL)
		return -1;
	if (runtime_dp_build(rt, cfg, &dp, stderr) != 0) {
		free(cfg);
		return -1;
	}
	runtime_publish(rt, cfg, dp);
	return 0;
}
