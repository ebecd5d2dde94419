/* SPDX-License-Identifier: BSD-3-Clause */
#include "port_restart.h"

#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_errno.h>

#include "runtime.h"

static const struct peer_backoff_params port_restart_backoff = {
	.min_ns = 50u * 1000 * 1000,
	.max_ns = 2000u * 1000 * 1000,
};

bool
port_restart_needed(const char *dev)
{
	/* A memif client connects in dev_start only (a server takes a new client by itself). */
	return strncmp(dev, "net_memif", 9) == 0 && strstr(dev, "role=client") != NULL;
}

bool
port_restart_stopped(const struct port_restart *r)
{
	return r->state != PORT_RESTART_RUNNING;
}

static bool
port_restart_link(uint16_t port_id)
{
	struct rte_eth_link link;

	memset(&link, 0, sizeof(link));
	return rte_eth_link_get_nowait(port_id, &link) == 0 && link.link_status == RTE_ETH_LINK_UP;
}

void
port_restart_init(struct ls_runtime *rt)
{
	for (unsigned int i = 0; i < rt->cfg->n_ports; i++) {
		struct port_restart *r = &rt->port_restart[i];

		memset(r, 0, sizeof(*r));
		r->restartable = port_restart_needed(rt->cfg->ports[i].dev);
		r->link_up = port_restart_link(rt->port_ids[i]);
		peer_backoff_init(&r->backoff, (uint64_t)rt->port_ids[i] * 0x9e3779b97f4a7c15u + 1);
	}
}

/* Publish a snapshot saying what the restart states are (waits for the grace period). */
static bool
port_restart_publish(struct ls_runtime *rt)
{
	struct dp_conf *dp = NULL;

	if (runtime_dp_build(rt, rt->cfg, &dp, stderr) != 0) {
		runtime_dp_free(dp);
		return false;
	}
	runtime_publish_dp(rt, dp);
	return true;
}

/* Give up on this attempt: the port stays stopped until the back-off says. */
static void
port_restart_fail(struct port_restart *r, uint64_t now_ns)
{
	r->start_failed++;
	r->state = PORT_RESTART_STOPPED;
	r->next_ns = peer_backoff_fail(&r->backoff, &port_restart_backoff, now_ns);
}

static void
port_restart_one(struct ls_runtime *rt, unsigned int i, uint64_t now_ns)
{
	struct port_restart *r = &rt->port_restart[i];
	const char *name = rt->cfg->ports[i].name;
	uint16_t id = rt->port_ids[i];
	bool up;
	int rc;

	switch (r->state) {
	case PORT_RESTART_RUNNING:
		up = port_restart_link(id);
		if (up != r->link_up) {
			r->link_down += !up;
			fprintf(stderr, "port '%s': link %s\n", name, up ? "up" : "down");
			r->link_up = up;
		}
		if (up || !r->restartable) {
			r->down_since_ns = 0;
			return;
		}
		if (r->down_since_ns == 0)
			r->down_since_ns = now_ns;
		if (now_ns - r->down_since_ns < PORT_RESTART_DEBOUNCE_NS)
			return;
		/* Workers off the port first, then its queues go. */
		r->state = PORT_RESTART_STOPPED;
		if (!port_restart_publish(rt)) {
			r->state = PORT_RESTART_RUNNING;
			return;
		}
		rc = rte_eth_dev_stop(id);
		fprintf(stderr, "port '%s': link down for %u ms: restarting it%s%s\n", name,
			PORT_RESTART_DEBOUNCE_NS / 1000000, rc != 0 ? "; stop: " : "",
			rc != 0 ? rte_strerror(-rc) : "");
		r->stopped_at_ns = now_ns;
		r->next_ns = now_ns;
		r->down_since_ns = 0;
		return;
	case PORT_RESTART_STOPPED:
		if (now_ns < r->next_ns)
			return;
		rc = rte_eth_dev_start(id);
		if (rc != 0) {
			port_restart_fail(r, now_ns);
			return;
		}
		r->state = PORT_RESTART_STARTING;
		r->next_ns = now_ns + PORT_RESTART_LINK_NS;
		return;
	case PORT_RESTART_STARTING:
		if (port_restart_link(id)) {
			r->state = PORT_RESTART_RUNNING;
			if (!port_restart_publish(rt)) {
				/* Try again next tick: the port is up, the snapshot says stopped. */
				r->state = PORT_RESTART_STARTING;
				return;
			}
			r->restarts++;
			r->link_up = true;
			r->last_down_ns = now_ns - r->stopped_at_ns;
			peer_backoff_reset(&r->backoff);
			fprintf(stderr, "port '%s': link back %.1f ms after the restart began\n", name,
				(double)r->last_down_ns / 1e6);
			return;
		}
		if (now_ns >= r->next_ns) {
			rte_eth_dev_stop(id);
			port_restart_fail(r, now_ns);
		}
		return;
	default:
		return;
	}
}

void
port_restart_tick(struct ls_runtime *rt, uint64_t now_ns)
{
	for (unsigned int i = 0; rt->cfg != NULL && i < rt->cfg->n_ports; i++)
		port_restart_one(rt, i, now_ns);
}
