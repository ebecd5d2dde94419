/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_API_CMDS_H
#define LONGSPAN_API_CMDS_H

/*
 * Inside the control API: the built-in command handlers that the command
 * table (api_cmd.c) lists, and the helpers they share. Each handler has the
 * contract of struct api_cmd's handler (api.h).
 *
 *   api_cmd.c         table, dispatch, options, pages, help, version
 *   api_server.c      the UNIX-socket server
 *   api_show.c        show ports, stats, drops, peers, config
 *   api_show_flows.c  show flows
 *   api_show_tm.c     show tm (show queues)
 *   api_tune.c        tune
 *   api_reload.c      reload
 */

#include "api.h"
#include "dataplane/dp_conf.h"

struct ls_config;

int api_show_ports(struct api_ctx *ctx, int argc, char **argv);
int api_show_stats(struct api_ctx *ctx, int argc, char **argv);
int api_show_drops(struct api_ctx *ctx, int argc, char **argv);
int api_show_peers(struct api_ctx *ctx, int argc, char **argv);
int api_show_config(struct api_ctx *ctx, int argc, char **argv);
int api_show_flows(struct api_ctx *ctx, int argc, char **argv);
int api_show_tm(struct api_ctx *ctx, int argc, char **argv);
/* Mechanism B's credit counters ("credit" object), for show tm and show stats. */
struct fmt;
struct dp_lossless_conf;
struct dp_credit_counters;
void api_credit_emit(struct fmt *f, const struct dp_lossless_conf *l,
		     const struct dp_credit_counters *c);
int api_tune(struct api_ctx *ctx, int argc, char **argv);
int api_reload(struct api_ctx *ctx, int argc, char **argv);

/* Stable names of the traffic classes (operator interface, like drop names). */
extern const char *const api_class_names[DP_CLASS_MAX];

/* The running config, or NULL after api_error() when none is loaded. */
const struct ls_config *api_need_cfg(struct api_ctx *ctx);

/*
 * What a command showing one item by NAME or else a page of all of them
 * shows: with NAME, the item at INDEX (its position, -1 when no item has
 * that name: -ENOENT after "no WHAT named 'NAME'"); without, the page PG of
 * TOTAL items as api_page_resolve() gives it.
 */
int api_page_select(struct api_ctx *ctx, const char *name, int index, const char *what,
		    struct api_page *pg, unsigned int total, unsigned int *first,
		    unsigned int *end);

/*
 * The two halves of api_page_resolve(), for a handler that needs the page
 * size before it knows the total (show flows): fill in PG's defaults and
 * apply ctx->max_items, once per request; then the index range of PG over
 * TOTAL items, or -EINVAL after api_error() for a page past the end.
 */
void api_page_defaults(struct api_ctx *ctx, struct api_page *pg);
int api_page_range(struct api_ctx *ctx, const struct api_page *pg, unsigned int total,
		   unsigned int *first, unsigned int *end);

#endif /* LONGSPAN_API_CMDS_H */
