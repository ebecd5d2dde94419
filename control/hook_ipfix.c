/* SPDX-License-Identifier: BSD-3-Clause */
#include "hook_ipfix.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fixbuf/public.h>

#define HOOK_IPFIX_TID_V4 256
#define HOOK_IPFIX_TID_V6 257
#define HOOK_IPFIX_TID_TYPES 258 /* RFC 5610 type records */
#define HOOK_IPFIX_TYPES_PER_MSG 4 /* type records (~150 bytes each) per message */
#define HOOK_IPFIX_HDR_BYTES 16 /* message header, RFC 7011 3.1 */
#define HOOK_IPFIX_SET_BYTES 4 /* set header, RFC 7011 3.3.2 */
#define HOOK_IPFIX_REFRESH_DEFAULT_NS (600ull * 1000000000u)
#define HOOK_IPFIX_RECONNECT_NS 1000000000ull

/* Template flags (fbInfoElementSpec_t.flags): which external template has a field. */
#define HOOK_IPFIX_V4 1u
#define HOOK_IPFIX_V6 2u

/*
 * The internal record: the memory layout the internal template describes,
 * field by field, with no padding (libfixbuf packs internal records).
 */
struct hook_ipfix_rec {
	uint64_t start_ms, end_ms;
	uint64_t octets, packets, dropped;
	uint64_t ect, ce, cnp_seen, cnp_generated, psn_gaps, psn_skipped, psn_ooo, retrans;
	uint64_t naks, rnr_naks, marked, held, tx_packets, sojourn_p50_ns, sojourn_p99_ns;
	uint8_t src6[16], dst6[16];
	uint32_t src4, dst4; /* host order: libfixbuf converts */
	uint32_t dest_qp, ingress;
	uint16_t sport, dport;
	uint8_t proto, tos, end_reason, direction;
};
static_assert(sizeof(struct hook_ipfix_rec) == 20 * 8 + 32 + 16 + 4 + 4, "no padding");

/* The enterprise elements (numbers under the PEN). */
#define HOOK_IPFIX_ENTERPRISE(X)                                                                  \
	X("lsRoceDestQueuePair", 1, 4, FB_UINT_32, FB_IE_IDENTIFIER, "RoCEv2 BTH destination QP") \
	X("lsEctPacketDeltaCount", 2, 8, FB_UINT_64, FB_IE_DELTACOUNTER | FB_UNITS_PACKETS,       \
	  "Packets received with ECT(0) or ECT(1)")                                               \
	X("lsCePacketDeltaCount", 3, 8, FB_UINT_64, FB_IE_DELTACOUNTER | FB_UNITS_PACKETS,        \
	  "Packets received with CE")                                                             \
	X("lsCnpSeenDeltaCount", 4, 8, FB_UINT_64, FB_IE_DELTACOUNTER | FB_UNITS_PACKETS,         \
	  "RoCEv2 CNPs received from hosts")                                                      \
	X("lsCnpGeneratedDeltaCount", 5, 8, FB_UINT_64, FB_IE_DELTACOUNTER | FB_UNITS_PACKETS,    \
	  "CNPs the gateway generated for the flow")                                              \
	X("lsPsnGapDeltaCount", 6, 8, FB_UINT_64, FB_IE_DELTACOUNTER,                             \
	  "Data PSNs ahead of the expected one")                                                  \
	X("lsPsnSkippedDeltaCount", 7, 8, FB_UINT_64, FB_IE_DELTACOUNTER,                         \
	  "PSNs missing in the gaps")                                                             \
	X("lsPsnOutOfSequenceDeltaCount", 8, 8, FB_UINT_64, FB_IE_DELTACOUNTER,                   \
	  "Data PSNs other than the expected one")                                                \
	X("lsRetransmissionDeltaCount", 9, 8, FB_UINT_64, FB_IE_DELTACOUNTER,                     \
	  "Data PSNs behind the expected one")                                                    \
	X("lsNakDeltaCount", 10, 8, FB_UINT_64, FB_IE_DELTACOUNTER | FB_UNITS_PACKETS, "NAKs")    \
	X("lsRnrNakDeltaCount", 11, 8, FB_UINT_64, FB_IE_DELTACOUNTER | FB_UNITS_PACKETS,         \
	  "RNR NAKs")                                                                             \
	X("lsMarkedPacketDeltaCount", 12, 8, FB_UINT_64, FB_IE_DELTACOUNTER | FB_UNITS_PACKETS,   \
	  "Packets the gateway marked CE")                                                        \
	X("lsHeldPacketDeltaCount", 13, 8, FB_UINT_64, FB_IE_DELTACOUNTER | FB_UNITS_PACKETS,     \
	  "Packets held by mechanism C")                                                          \
	X("lsTxPacketDeltaCount", 14, 8, FB_UINT_64, FB_IE_DELTACOUNTER | FB_UNITS_PACKETS,       \
	  "Packets transmitted")                                                                  \
	X("lsSojournP50Nanoseconds", 15, 8, FB_UINT_64, FB_IE_QUANTITY | FB_UNITS_NANOSECONDS,    \
	  "Median sojourn in the gateway over the record (log2 bucket upper bound)")              \
	X("lsSojournP99Nanoseconds", 16, 8, FB_UINT_64, FB_IE_QUANTITY | FB_UNITS_NANOSECONDS,    \
	  "99th percentile sojourn in the gateway over the record (log2 bucket upper bound)")     \
	X("lsFlowDirection", 17, 1, FB_UINT_8, FB_IE_IDENTIFIER, "0 DC to WAN, 1 WAN to DC")

/* The record's fields in struct order: element name, size, template flags. */
static const struct {
	const char *name;
	uint16_t len;
	uint32_t flags;
} hook_ipfix_fields[] = {
	{ "flowStartMilliseconds", 8, 0 },
	{ "flowEndMilliseconds", 8, 0 },
	{ "octetDeltaCount", 8, 0 },
	{ "packetDeltaCount", 8, 0 },
	{ "droppedPacketDeltaCount", 8, 0 },
	{ "lsEctPacketDeltaCount", 8, 0 },
	{ "lsCePacketDeltaCount", 8, 0 },
	{ "lsCnpSeenDeltaCount", 8, 0 },
	{ "lsCnpGeneratedDeltaCount", 8, 0 },
	{ "lsPsnGapDeltaCount", 8, 0 },
	{ "lsPsnSkippedDeltaCount", 8, 0 },
	{ "lsPsnOutOfSequenceDeltaCount", 8, 0 },
	{ "lsRetransmissionDeltaCount", 8, 0 },
	{ "lsNakDeltaCount", 8, 0 },
	{ "lsRnrNakDeltaCount", 8, 0 },
	{ "lsMarkedPacketDeltaCount", 8, 0 },
	{ "lsHeldPacketDeltaCount", 8, 0 },
	{ "lsTxPacketDeltaCount", 8, 0 },
	{ "lsSojournP50Nanoseconds", 8, 0 },
	{ "lsSojournP99Nanoseconds", 8, 0 },
	{ "sourceIPv6Address", 16, HOOK_IPFIX_V6 },
	{ "destinationIPv6Address", 16, HOOK_IPFIX_V6 },
	{ "sourceIPv4Address", 4, HOOK_IPFIX_V4 },
	{ "destinationIPv4Address", 4, HOOK_IPFIX_V4 },
	{ "lsRoceDestQueuePair", 4, 0 },
	{ "ingressInterface", 4, 0 },
	{ "sourceTransportPort", 2, 0 },
	{ "destinationTransportPort", 2, 0 },
	{ "protocolIdentifier", 1, 0 },
	{ "ipClassOfService", 1, 0 },
	{ "flowEndReason", 1, 0 },
	{ "lsFlowDirection", 1, 0 },
};

struct hook_ipfix {
	struct hook_ipfix_params p;
	struct hook_ipfix_stats st;
	fbInfoModel_t *model;
	fbSession_t *session;
	fBuf_t *fbuf; /* owns session and exporter */
	FILE *fp; /* the cookie stream libfixbuf writes to */
	uint16_t tid_int, tid_types_int;
	int current_tid; /* external template of the open set, -1 none */
	uint32_t per_msg; /* udp: records per message */
	uint32_t in_msg; /* records in the open message */
	/* Bytes libfixbuf wrote and not yet split into messages. */
	uint8_t *in;
	size_t in_len, in_cap;
	/* Transport. */
	int fd;
	bool connected; /* tcp */
	bool drop_until_templates; /* tcp: messages before the connection's templates */
	struct sockaddr_storage peer;
	socklen_t peer_len;
	uint64_t next_connect_ns, next_refresh_ns;
	uint8_t *q; /* tcp queue */
	size_t q_len;
};

static int
hook_ipfix_fail(char *err, size_t err_size, const char *what, GError *gerr)
{
	snprintf(err, err_size, "ipfix: %s%s%s", what, gerr != NULL ? ": " : "",
		 gerr != NULL ? gerr->message : "");
	if (gerr != NULL)
		g_clear_error(&gerr);
	return -EINVAL;
}

/* --- the cookie: libfixbuf's output --- */

static ssize_t
hook_ipfix_cookie_write(void *cookie, const char *buf, size_t size)
{
	struct hook_ipfix *x = cookie;

	if (x->in_len + size > x->in_cap) {
		size_t cap = x->in_cap > 0 ? x->in_cap : 65536;
		uint8_t *n;

		while (cap < x->in_len + size)
			cap *= 2;
		n = realloc(x->in, cap);
		if (n == NULL)
			return -1;
		x->in = n;
		x->in_cap = cap;
	}
	memcpy(x->in + x->in_len, buf, size);
	x->in_len += size;
	return (ssize_t)size;
}

static void
hook_ipfix_tcp_close(struct hook_ipfix *x)
{
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	x->connected = false;
	x->st.lost_bytes += x->q_len;
	x->q_len = 0;
}

/* Write what the tcp queue holds, as far as the socket takes it. */
static void
hook_ipfix_tcp_send(struct hook_ipfix *x)
{
	while (x->connected && x->q_len > 0) {
		ssize_t n = send(x->fd, x->q, x->q_len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				x->st.errors++;
				hook_ipfix_tcp_close(x); /* a cut message breaks the stream */
			}
			return;
		}
		memmove(x->q, x->q + n, x->q_len - (size_t)n);
		x->q_len -= (size_t)n;
	}
}

static bool
hook_ipfix_is_template_msg(const uint8_t *m, size_t len)
{
	/* The first set's id: 2 templates, 3 options templates (RFC 7011 3.3.2). */
	return len >= HOOK_IPFIX_HDR_BYTES + 2 && m[16] == 0 && (m[17] == 2 || m[17] == 3);
}

/* One complete message: send it, queue it or write it. */
static void
hook_ipfix_out(struct hook_ipfix *x, const uint8_t *m, size_t len)
{
	switch (x->p.transport) {
	case HOOK_IPFIX_UDP:
		if (send(x->fd, m, len, MSG_DONTWAIT) != (ssize_t)len) {
			x->st.dropped_messages++;
			return;
		}
		break;
	case HOOK_IPFIX_TCP:
		if (x->drop_until_templates && hook_ipfix_is_template_msg(m, len))
			x->drop_until_templates = false;
		if (!x->connected || x->drop_until_templates ||
		    x->q_len + len > HOOK_IPFIX_TCP_QUEUE_MAX) {
			x->st.dropped_messages++;
			return;
		}
		memcpy(x->q + x->q_len, m, len);
		x->q_len += len;
		break;
	case HOOK_IPFIX_FILE:
		if (write(x->fd, m, len) != (ssize_t)len) {
			x->st.errors++;
			return;
		}
		break;
	}
	x->st.messages++;
	x->st.bytes += len;
}

/* Split what libfixbuf wrote into messages by their length fields. */
static void
hook_ipfix_drain(struct hook_ipfix *x)
{
	size_t off = 0;

	while (x->in_len - off >= HOOK_IPFIX_HDR_BYTES) {
		const uint8_t *m = x->in + off;
		size_t len = (size_t)m[2] << 8 | m[3];

		if (len < HOOK_IPFIX_HDR_BYTES || m[0] != 0 || m[1] != 10) {
			x->st.errors++; /* not a message start: drop the rest */
			off = x->in_len;
			break;
		}
		if (x->in_len - off < len)
			break;
		hook_ipfix_out(x, m, len);
		off += len;
	}
	if (off > 0) { /* x->in is still NULL before libfixbuf first wrote */
		memmove(x->in, x->in + off, x->in_len - off);
		x->in_len -= off;
	}
	if (x->p.transport == HOOK_IPFIX_TCP)
		hook_ipfix_tcp_send(x);
}

static void
hook_ipfix_emit(struct hook_ipfix *x)
{
	GError *gerr = NULL;

	if (!fBufEmit(x->fbuf, &gerr)) {
		x->st.errors++;
		g_clear_error(&gerr);
	}
	fflush(x->fp);
	x->in_msg = 0;
	x->current_tid = -1;
	hook_ipfix_drain(x);
}

static void
hook_ipfix_export_template(struct hook_ipfix *x, uint16_t tid)
{
	GError *gerr = NULL;

	if (!fbSessionExportTemplate(x->session, tid, &gerr)) {
		x->st.errors++;
		g_clear_error(&gerr);
	}
}

/*
 * The RFC 5610 type records of the enterprise elements first (a collector
 * names the elements of a template only if it knows them when the template
 * arrives), a few per message (libfixbuf's automatic type records would go
 * into one message larger than a UDP MTU), then the data templates.
 */
static void
hook_ipfix_templates(struct hook_ipfix *x, uint64_t now_ns)
{
	static const char *const names[] = {
#define HOOK_IPFIX_NAME(name, num, len, type, flags, desc) name,
		HOOK_IPFIX_ENTERPRISE(HOOK_IPFIX_NAME)
#undef HOOK_IPFIX_NAME
	};
	GError *gerr = NULL;
	unsigned int i;

	hook_ipfix_emit(x);
	hook_ipfix_export_template(x, HOOK_IPFIX_TID_TYPES);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const fbInfoElement_t *ie = fbInfoModelGetElementByName(x->model, names[i]);

		if (ie == NULL || !fbInfoElementWriteOptionsRecord(x->fbuf, ie, x->tid_types_int,
								     HOOK_IPFIX_TID_TYPES, &gerr)) {
			x->st.errors++;
			g_clear_error(&gerr);
		}
		if ((i + 1) % HOOK_IPFIX_TYPES_PER_MSG == 0)
			hook_ipfix_emit(x);
	}
	hook_ipfix_emit(x);
	hook_ipfix_export_template(x, HOOK_IPFIX_TID_V4);
	hook_ipfix_export_template(x, HOOK_IPFIX_TID_V6);
	hook_ipfix_emit(x);
	if (!fBufSetInternalTemplate(x->fbuf, x->tid_int, &gerr)) {
		x->st.errors++;
		g_clear_error(&gerr);
	}
	x->st.template_sends++;
	x->next_refresh_ns = now_ns + x->p.template_refresh_ns;
}

/* --- setup --- */

static int
hook_ipfix_add_elements(struct hook_ipfix *x)
{
#define HOOK_IPFIX_IE(name, num, len, type, flags, desc)                                          \
	{                                                                                         \
		fbInfoElement_t ie = FB_IE_INIT_FULL(name, x->p.pen, num, len,                    \
						     FB_IE_F_ENDIAN | (flags), 0, 0, type, desc); \
		fbInfoModelAddElement(x->model, &ie);                                             \
	}
	HOOK_IPFIX_ENTERPRISE(HOOK_IPFIX_IE)
#undef HOOK_IPFIX_IE
	return 0;
}

static fbTemplate_t *
hook_ipfix_template(struct hook_ipfix *x, uint32_t flags, GError **gerr)
{
	fbTemplate_t *t = fbTemplateAlloc(x->model);
	unsigned int i;

	for (i = 0; i < sizeof(hook_ipfix_fields) / sizeof(hook_ipfix_fields[0]); i++) {
		char name[64];
		fbInfoElementSpec_t spec;

		snprintf(name, sizeof(name), "%s", hook_ipfix_fields[i].name);
		spec.name = name;
		spec.len_override = hook_ipfix_fields[i].len;
		spec.flags = hook_ipfix_fields[i].flags;
		if (!fbTemplateAppendSpec(t, &spec, flags, gerr)) {
			fbTemplateFreeUnused(t);
			return NULL;
		}
	}
	return t;
}

static int
hook_ipfix_transport(struct hook_ipfix *x, char *err, size_t err_size)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)&x->peer;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&x->peer;

	if (x->p.transport == HOOK_IPFIX_FILE) {
		x->fd = open(x->p.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (x->fd < 0) {
			snprintf(err, err_size, "ipfix: %s: %s", x->p.path, strerror(errno));
			return -errno;
		}
		return 0;
	}
	memset(&x->peer, 0, sizeof(x->peer));
	if (x->p.host != NULL && inet_pton(AF_INET, x->p.host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(x->p.port);
		x->peer_len = sizeof(*a4);
	} else if (x->p.host != NULL && inet_pton(AF_INET6, x->p.host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(x->p.port);
		x->peer_len = sizeof(*a6);
	} else {
		snprintf(err, err_size, "ipfix: collector '%s' is not a numeric IPv4 or IPv6 address",
			 x->p.host != NULL ? x->p.host : "");
		return -EINVAL;
	}
	if (x->p.transport == HOOK_IPFIX_UDP) {
		x->fd = socket(x->peer.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (x->fd < 0 || connect(x->fd, (struct sockaddr *)&x->peer, x->peer_len) != 0) {
			snprintf(err, err_size, "ipfix: udp to %s port %u: %s", x->p.host, x->p.port,
				 strerror(errno));
			return -errno;
		}
	} else {
		x->q = malloc(HOOK_IPFIX_TCP_QUEUE_MAX);
		if (x->q == NULL) {
			snprintf(err, err_size, "ipfix: out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

/* tcp: start a connection, or see whether the one started is up. */
static void
hook_ipfix_tcp_poll(struct hook_ipfix *x, uint64_t now_ns)
{
	struct pollfd pfd;
	int soerr = 0;
	socklen_t sl = sizeof(soerr);

	if (x->connected)
		return;
	if (x->fd < 0) {
		if (now_ns < x->next_connect_ns)
			return;
		x->next_connect_ns = now_ns + HOOK_IPFIX_RECONNECT_NS;
		x->fd = socket(x->peer.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (x->fd < 0)
			return;
		if (connect(x->fd, (struct sockaddr *)&x->peer, x->peer_len) != 0 &&
		    errno != EINPROGRESS) {
			hook_ipfix_tcp_close(x);
			return;
		}
	}
	pfd.fd = x->fd;
	pfd.events = POLLOUT;
	pfd.revents = 0;
	if (poll(&pfd, 1, 0) != 1)
		return; /* still connecting */
	if (getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 || soerr != 0) {
		hook_ipfix_tcp_close(x);
		return;
	}
	x->connected = true;
	x->st.connects++;
	/* A new transport session: templates before any data (RFC 7011 8). */
	x->drop_until_templates = true;
	hook_ipfix_templates(x, now_ns);
}

struct hook_ipfix *
hook_ipfix_open(const struct hook_ipfix_params *p, uint64_t now_ns, char *err, size_t err_size)
{
	static const cookie_io_functions_t io = { .write = hook_ipfix_cookie_write };
	struct hook_ipfix *x = calloc(1, sizeof(*x));
	fbTemplate_t *t_int = NULL, *t4 = NULL, *t6 = NULL;
	fbExporter_t *exp;
	GError *gerr = NULL;
	uint32_t rec4, rec6;

	if (x == NULL) {
		snprintf(err, err_size, "ipfix: out of memory");
		return NULL;
	}
	x->p = *p;
	x->fd = -1;
	x->current_tid = -1;
	if (x->p.pen == 0)
		x->p.pen = HOOK_IPFIX_PEN_DEFAULT;
	if (x->p.mtu == 0)
		x->p.mtu = HOOK_IPFIX_MTU_DEFAULT;
	if (x->p.template_refresh_ns == 0)
		x->p.template_refresh_ns = HOOK_IPFIX_REFRESH_DEFAULT_NS;
	rec4 = sizeof(struct hook_ipfix_rec) - 32;
	rec6 = sizeof(struct hook_ipfix_rec) - 8;
	if (x->p.mtu < HOOK_IPFIX_HDR_BYTES + HOOK_IPFIX_SET_BYTES + rec6 || x->p.mtu > 65535) {
		snprintf(err, err_size, "ipfix: mtu %u: from %u to 65535 bytes", x->p.mtu,
			 HOOK_IPFIX_HDR_BYTES + HOOK_IPFIX_SET_BYTES + rec6);
		goto fail;
	}
	/* Worst case: each record in a set of its own (v4 and v6 alternating). */
	x->per_msg = (x->p.mtu - HOOK_IPFIX_HDR_BYTES) / (rec6 + HOOK_IPFIX_SET_BYTES);
	(void)rec4;
	if (hook_ipfix_transport(x, err, err_size) < 0)
		goto fail;

	x->model = fbInfoModelAlloc();
	hook_ipfix_add_elements(x);
	x->session = fbSessionAlloc(x->model);
	fbSessionSetDomain(x->session, x->p.observation_domain);
	t_int = hook_ipfix_template(x, UINT32_MAX, &gerr);
	if (t_int == NULL ||
	    (x->tid_int = fbSessionAddTemplate(x->session, TRUE, FB_TID_AUTO, t_int, &gerr)) == 0) {
		hook_ipfix_fail(err, err_size, "internal template", gerr);
		goto fail;
	}
	t4 = hook_ipfix_template(x, HOOK_IPFIX_V4, &gerr);
	if (t4 == NULL || fbSessionAddTemplate(x->session, FALSE, HOOK_IPFIX_TID_V4, t4, &gerr) == 0) {
		hook_ipfix_fail(err, err_size, "IPv4 template", gerr);
		goto fail;
	}
	t6 = hook_ipfix_template(x, HOOK_IPFIX_V6, &gerr);
	if (t6 == NULL || fbSessionAddTemplate(x->session, FALSE, HOOK_IPFIX_TID_V6, t6, &gerr) == 0) {
		hook_ipfix_fail(err, err_size, "IPv6 template", gerr);
		goto fail;
	}
	t_int = fbInfoElementAllocTypeTemplate(x->model, &gerr);
	if (t_int == NULL || (x->tid_types_int = fbSessionAddTemplate(x->session, TRUE, FB_TID_AUTO,
								       t_int, &gerr)) == 0) {
		hook_ipfix_fail(err, err_size, "RFC 5610 type template", gerr);
		goto fail;
	}
	t4 = fbInfoElementAllocTypeTemplate(x->model, &gerr);
	if (t4 == NULL ||
	    fbSessionAddTemplate(x->session, FALSE, HOOK_IPFIX_TID_TYPES, t4, &gerr) == 0) {
		hook_ipfix_fail(err, err_size, "RFC 5610 type template", gerr);
		goto fail;
	}
	x->fp = fopencookie(x, "w", io);
	if (x->fp == NULL) {
		snprintf(err, err_size, "ipfix: fopencookie: %s", strerror(errno));
		goto fail;
	}
	setvbuf(x->fp, NULL, _IONBF, 0);
	exp = fbExporterAllocFP(x->fp);
	x->fbuf = fBufAllocForExport(x->session, exp);
	if (!fBufSetInternalTemplate(x->fbuf, x->tid_int, &gerr)) {
		hook_ipfix_fail(err, err_size, "internal template", gerr);
		goto fail;
	}
	if (x->p.transport == HOOK_IPFIX_TCP)
		hook_ipfix_tcp_poll(x, now_ns);
	else
		hook_ipfix_templates(x, now_ns);
	return x;
fail:
	hook_ipfix_close(x);
	return NULL;
}

static void
hook_ipfix_addr(uint8_t *a6, uint32_t *a4, const struct ls_hook_flow_key *k, const uint8_t *a)
{
	uint32_t v;

	if (k->family == LS_HOOK_FAMILY_IP6) {
		memcpy(a6, a, 16);
		return;
	}
	memcpy(&v, a, 4);
	*a4 = ntohl(v);
}

void
hook_ipfix_record(void *ipfix, const struct hook_export_record *r)
{
	struct hook_ipfix *x = ipfix;
	struct hook_ipfix_rec rec;
	GError *gerr = NULL;
	int tid = r->key.family == LS_HOOK_FAMILY_IP6 ? HOOK_IPFIX_TID_V6 : HOOK_IPFIX_TID_V4;

	if (x->fbuf == NULL)
		return;
	memset(&rec, 0, sizeof(rec));
	rec.start_ms = r->start_ns / 1000000u;
	rec.end_ms = r->end_ns / 1000000u;
	rec.octets = r->delta.bytes;
	rec.packets = r->delta.pkts;
	rec.dropped = r->delta.tx_drops;
	rec.ect = r->delta.ect_pkts;
	rec.ce = r->delta.ce_pkts;
	rec.cnp_seen = r->delta.cnp_seen;
	rec.cnp_generated = r->delta.cnp_generated;
	rec.psn_gaps = r->delta.psn_gaps;
	rec.psn_skipped = r->delta.psn_skipped;
	rec.psn_ooo = r->delta.psn_ooo;
	rec.retrans = r->delta.retrans;
	rec.naks = r->delta.naks;
	rec.rnr_naks = r->delta.rnr_naks;
	rec.marked = r->delta.marked;
	rec.held = r->delta.held;
	rec.tx_packets = r->delta.tx_pkts;
	rec.sojourn_p50_ns = hook_export_sojourn_pct_ns(r->delta.sojourn_hist, 50);
	rec.sojourn_p99_ns = hook_export_sojourn_pct_ns(r->delta.sojourn_hist, 99);
	hook_ipfix_addr(rec.src6, &rec.src4, &r->key, r->key.src);
	hook_ipfix_addr(rec.dst6, &rec.dst4, &r->key, r->key.dst);
	rec.dest_qp = r->key.dest_qp;
	rec.ingress = r->port;
	rec.sport = r->key.sport;
	rec.dport = r->key.dport;
	rec.proto = r->key.proto;
	rec.tos = (uint8_t)(r->dscp << 2);
	rec.end_reason = r->reason;
	rec.direction = r->key.direction;

	if (x->p.transport == HOOK_IPFIX_UDP && x->in_msg >= x->per_msg)
		hook_ipfix_emit(x);
	if (tid != x->current_tid) {
		if (!fBufSetExportTemplate(x->fbuf, (uint16_t)tid, &gerr)) {
			x->st.errors++;
			g_clear_error(&gerr);
			return;
		}
		x->current_tid = tid;
	}
	if (!fBufAppend(x->fbuf, (uint8_t *)&rec, sizeof(rec), &gerr)) {
		x->st.errors++;
		g_clear_error(&gerr);
		return;
	}
	x->in_msg++;
	x->st.records++;
}

void
hook_ipfix_flush(struct hook_ipfix *x, uint64_t now_ns)
{
	if (x->fbuf == NULL)
		return;
	if (x->in_msg > 0)
		hook_ipfix_emit(x);
	if (x->p.transport == HOOK_IPFIX_TCP) {
		hook_ipfix_tcp_poll(x, now_ns);
		hook_ipfix_tcp_send(x);
	} else if (x->p.transport == HOOK_IPFIX_UDP && now_ns >= x->next_refresh_ns) {
		hook_ipfix_templates(x, now_ns);
	}
}

const char *
hook_ipfix_element(unsigned int i)
{
	return i < sizeof(hook_ipfix_fields) / sizeof(hook_ipfix_fields[0]) ?
		       hook_ipfix_fields[i].name :
		       NULL;
}

const struct hook_ipfix_stats *
hook_ipfix_stats(const struct hook_ipfix *x)
{
	return &x->st;
}

void
hook_ipfix_close(struct hook_ipfix *x)
{
	if (x == NULL)
		return;
	if (x->fbuf != NULL) {
		if (x->in_msg > 0)
			hook_ipfix_emit(x);
		if (x->p.transport == HOOK_IPFIX_TCP)
			hook_ipfix_tcp_send(x); /* best effort, without waiting */
		fBufFree(x->fbuf); /* frees the session and the exporter */
	} else if (x->session != NULL) {
		fbSessionFree(x->session);
	}
	if (x->fp != NULL)
		fclose(x->fp);
	if (x->model != NULL)
		fbInfoModelFree(x->model);
	if (x->fd >= 0)
		close(x->fd);
	free(x->q);
	free(x->in);
	free(x);
}
