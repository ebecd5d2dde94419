/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOOK_PROM_H
#define LONGSPAN_HOOK_PROM_H

/*
 * Prometheus text exposition (format 0.0.4) of the hook exporter's
 * aggregate, served over HTTP by libmicrohttpd (docs/telemetry.md lists
 * every metric):
 *
 *   longspan_hook_*       gateway totals (counters, the sojourn histogram,
 *                         live flows) and the exporter's own counters
 *   longspan_hook_peer_*  the same counters per peer     {peer="NAME"}
 *   longspan_hook_port_*  the same counters per port     {port="NAME"}
 *   longspan_hook_flow_*  the counters of the top-K flows by bytes
 *                         {src, dst, sport, dest_qp, direction}: at most K
 *                         label sets, however many flows there are
 *
 * The control thread renders the text after each exporter tick and
 * publishes it; libmicrohttpd's own thread answers GET /metrics with a copy
 * of the last published text. The two share only that text, under a mutex
 * held for a copy, so a slow or stuck HTTP client never holds up the
 * control thread.
 */

#include <stddef.h>
#include <stdint.h>

struct hook_export;
struct hook_prom;

#define HOOK_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct hook_prom_params {
	const char *addr; /* numeric IPv4 or IPv6 address to listen on */
	uint16_t port; /* 0: any free port (tests; see hook_prom_port()) */
};

/*
 * The exposition of E as a NUL-terminated string the caller frees, or NULL
 * when out of memory; *len its length.
 */
char *hook_prom_render(const struct hook_export *e, size_t *len);

/* Start the HTTP server; NULL with err set on failure (bad address, port in use). */
struct hook_prom *hook_prom_start(const struct hook_prom_params *p, char *err, size_t err_size);

/* The port it listens on. */
uint16_t hook_prom_port(const struct hook_prom *s);

/* Render E and make it what GET /metrics returns from now on. */
int hook_prom_publish(struct hook_prom *s, const struct hook_export *e);

/* Requests answered so far (any status). */
uint64_t hook_prom_requests(const struct hook_prom *s);

void hook_prom_stop(struct hook_prom *s);

#endif /* LONGSPAN_HOOK_PROM_H */
