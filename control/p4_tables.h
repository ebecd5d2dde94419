/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_P4_TABLES_H
#define LONGSPAN_P4_TABLES_H

/*
 * The tables of dataplane/p4/longspan.spec from the configuration, the
 * same configuration the C path's snapshot is built from (docs/p4.md, "What
 * the program does"): port roles, route and source lookups (peer prefixes,
 * the DC subnet, the martian prefixes), peer tunnels and their termination,
 * the DC port, the static neighbours. Control thread only.
 */

#include <stdbool.h>
#include <stddef.h>

struct ls_config;
struct dp_conf;
struct rte_swx_ctl_pipeline;

/* One entry in rte_swx_ctl's text form; is_default: the table's default. */
typedef int (*p4_tables_entry_fn)(void *arg, const char *table, const char *line,
				  bool is_default);

/*
 * Call fn for every entry the configuration and the routes learned over
 * peering (learned, NULL: none; control/learned_routes.h) give, in table
 * order. The pipeline's input port i is dp->ports[i], and peer i is
 * dp->peers[i].
 * Returns 0, fn's first non-zero return, or -EAFNOSUPPORT for a peer whose
 * underlay is neither IPv4 nor IPv6.
 */
struct runtime_learned;
int p4_tables_build(const struct ls_config *cfg, const struct dp_conf *dp,
		    const struct runtime_learned *learned, p4_tables_entry_fn fn, void *arg);

/*
 * Add every entry through ctl and commit them as one transaction; on any
 * failure nothing is committed (the running tables stay), and err names the
 * table and the entry. Returns 0 or a negative errno.
 */
int p4_tables_load(struct rte_swx_ctl_pipeline *ctl, const struct ls_config *cfg,
		   const struct dp_conf *dp, const struct runtime_learned *learned, char *err,
		   size_t err_size);

/*
 * Check that every entry's table exists in pl and has the entry's action
 * (DPDK 22.11's rte_swx_ctl_pipeline_table_entry_read() reads past the
 * action data of an action the table does not have: a crash, not an
 * error). Returns 0, or -EINVAL with err naming the table and action.
 */
struct rte_swx_pipeline;
int p4_tables_check(struct rte_swx_pipeline *pl, const struct ls_config *cfg,
		    const struct dp_conf *dp, const struct runtime_learned *learned, char *err,
		    size_t err_size);

/*
 * Set the timeout of pl's flow learner (`flows`, the timeout profile its
 * learn action uses) to [congestion] flow_idle, a whole number of seconds
 * in p4 mode (config check), so that the program ages flows as the C flow
 * table does. pl is not running yet: the setter acts at once, outside
 * rte_swx_ctl's transactions. Returns 0, or a negative errno with err
 * naming the learner (absent from the spec, or the timeout refused).
 */
int p4_tables_flow_timeout(struct rte_swx_pipeline *pl, const struct ls_config *cfg, char *err,
			   size_t err_size);

#endif /* LONGSPAN_P4_TABLES_H */
