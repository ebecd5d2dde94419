/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOOK_PROM_H
#define LONGSPAN_HOOK_PROM_H

/*
 * The hook section of the Prometheus exposition (prom_server.h): the
 * hook exporter's aggregate (docs/telemetry.md lists every metric):
 *
 *   longspan_hook_*       gateway totals (counters, the sojourn histogram,
 *                         live flows) and the exporter's own counters
 *   longspan_hook_peer_*  the same counters per peer     {peer="NAME"}
 *   longspan_hook_port_*  the same counters per port     {port="NAME"}
 *   longspan_hook_flow_*  the counters of the top-K flows by bytes
 *                         {src, dst, sport, dest_qp, direction}: at most K
 *                         label sets, however many flows there are
 *
 * The control thread renders it after each exporter pass and hands it to
 * the server (hook_set.c).
 */

#include <stddef.h>
#include <stdint.h>

struct hook_export;

/*
 * The exposition of E as a NUL-terminated string the caller frees, or NULL
 * when out of memory; *len its length.
 */
char *hook_prom_render(const struct hook_export *e, size_t *len);

#endif /* LONGSPAN_HOOK_PROM_H */
