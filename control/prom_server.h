/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PROM_SERVER_H
#define LONGSPAN_PROM_SERVER_H

/*
 * The gateway's Prometheus endpoint ([telemetry] prometheus): GET /metrics
 * over HTTP (libmicrohttpd) answers with the text exposition (format 0.0.4)
 * made of sections, each rendered and published by its owner on the
 * control thread (docs/telemetry.md lists every metric):
 *
 *   PROM_SECTION_HOOKS  the hook exporter's aggregate (hook_prom.c), after
 *                       each exporter pass; empty without hooks
 *   PROM_SECTION_PEERS  the measured distance to each peer (measure_prom.c),
 *                       after each measurement interval
 *
 * The runtime owns the server for the gateway's life: a reload cannot
 * change its address (that needs a restart), and a reload that adds or
 * removes hooks only changes what the hook section holds.
 *
 * libmicrohttpd's own thread answers with a copy of the last published
 * body. The two threads share only that body, under a mutex held for a
 * copy, so a slow or stuck HTTP client never holds up the control thread.
 */

#include <stddef.h>
#include <stdint.h>

struct prom_server;

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

enum prom_section {
	PROM_SECTION_HOOKS,
	PROM_SECTION_PEERS,
	PROM_SECTIONS
};

struct prom_server_params {
	const char *addr; /* numeric IPv4 or IPv6 address to listen on */
	uint16_t port; /* 0: any free port (tests; see prom_server_port()) */
};

/* Start the HTTP server; NULL with err set on failure (bad address, port in use). */
struct prom_server *prom_server_start(const struct prom_server_params *p, char *err,
				      size_t err_size);

/* The port it listens on. */
uint16_t prom_server_port(const struct prom_server *s);

/*
 * Make TEXT (LEN bytes, malloc'd; NULL: the section is empty) what section
 * SEC says from now on. The server takes TEXT over in every case. -ENOMEM
 * when the new body cannot be made: the last one is still served.
 */
int prom_server_set(struct prom_server *s, enum prom_section sec, char *text, size_t len);

/* Requests answered so far (any status). */
uint64_t prom_server_requests(const struct prom_server *s);

/* NULL is fine. */
void prom_server_stop(struct prom_server *s);

#endif /* LONGSPAN_PROM_SERVER_H */
