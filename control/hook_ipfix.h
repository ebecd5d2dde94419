/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOOK_IPFIX_H
#define LONGSPAN_HOOK_IPFIX_H

/*
 * IPFIX (RFC 7011) export of the hook exporter's flow records, encoded by
 * libfixbuf (docs/telemetry.md lists the information elements).
 *
 * Two data templates, IPv4 (256) and IPv6 (257): standard elements where
 * IANA has them (flowStart/EndMilliseconds, octet/packetDeltaCount,
 * addresses, ports, protocolIdentifier, ipClassOfService, ingressInterface,
 * droppedPacketDeltaCount, flowEndReason) and enterprise elements (PEN from
 * the parameters) for the RoCE fields. The enterprise elements' definitions
 * go out as RFC 5610 type records with the templates, so a collector
 * (`ipfixDump --rfc5610`) can name them.
 *
 * Transport: libfixbuf writes complete messages into a stdio cookie; this
 * module sends them itself, never blocking the control thread:
 *   udp   one message per datagram on a non-blocking socket, messages kept
 *         under mtu bytes, templates resent every template_refresh
 *         (RFC 7011 8.4); a datagram the socket refuses is dropped, counted
 *   tcp   a non-blocking connection (RFC 7011 10.4) with a bounded queue;
 *         templates first on every new connection; messages made while it
 *         is down or while the queue is full are dropped, counted
 *   file  an IPFIX file (RFC 5655): the messages back to back
 * Collector addresses are numeric: no name lookup may stall the thread.
 *
 * Ownership: control thread only.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "hook_export.h"

/* RFC 5612's documentation PEN until the project has its own. */
#define HOOK_IPFIX_PEN_DEFAULT 32473u
#define HOOK_IPFIX_MTU_DEFAULT 1400u
#define HOOK_IPFIX_TCP_QUEUE_MAX (1u << 20) /* bytes waiting for a slow collector */

enum hook_ipfix_transport {
	HOOK_IPFIX_UDP,
	HOOK_IPFIX_TCP,
	HOOK_IPFIX_FILE,
};

struct hook_ipfix_params {
	enum hook_ipfix_transport transport;
	const char *host; /* udp, tcp: numeric IPv4 or IPv6 address */
	uint16_t port; /* udp, tcp */
	const char *path; /* file */
	uint32_t observation_domain;
	uint32_t pen; /* enterprise number of the RoCE elements; 0 = the default */
	uint32_t mtu; /* udp: largest message, bytes; 0 = the default */
	uint64_t template_refresh_ns; /* udp: resend templates this often; 0 = 600 s */
};

struct hook_ipfix_stats {
	uint64_t records; /* flow records encoded */
	uint64_t messages; /* messages sent or written */
	uint64_t bytes;
	uint64_t dropped_messages; /* refused by the socket, or made while tcp was down */
	uint64_t lost_bytes; /* tcp: queued when the connection broke */
	uint64_t template_sends; /* template (and type record) exports */
	uint64_t connects; /* tcp connections established */
	uint64_t errors; /* libfixbuf errors */
};

struct hook_ipfix;

struct hook_ipfix *hook_ipfix_open(const struct hook_ipfix_params *p, uint64_t now_ns, char *err,
				   size_t err_size);

/* Encode one record (a hook_export_record_fn: pass hook_ipfix as its arg). */
void hook_ipfix_record(void *ipfix, const struct hook_export_record *r);

/* End the current message and send what is queued; connect, refresh templates. */
void hook_ipfix_flush(struct hook_ipfix *x, uint64_t now_ns);

const struct hook_ipfix_stats *hook_ipfix_stats(const struct hook_ipfix *x);

/* Name of the i-th information element of the data templates, NULL past the last (docs). */
const char *hook_ipfix_element(unsigned int i);

/* Flush and free. */
void hook_ipfix_close(struct hook_ipfix *x);

#endif /* LONGSPAN_HOOK_IPFIX_H */
