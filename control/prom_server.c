/* SPDX-License-Identifier: BSD-3-Clause */
#include "prom_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

struct prom_server {
	struct MHD_Daemon *d;
	uint16_t port;
	/* The sections: control thread only. */
	char *sec[PROM_SECTIONS];
	size_t sec_len[PROM_SECTIONS];
	pthread_mutex_t lock; /* body, len: written by the control thread, read by MHD's */
	char *body;
	size_t len;
	uint64_t requests; /* MHD thread writes, anyone reads (relaxed) */
};

static enum MHD_Result
prom_server_answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
		   const char *version, const char *upload_data, size_t *upload_data_size,
		   void **req_cls)
{
	static const char not_found[] = "not found: the metrics are at /metrics\n";
	static const char not_allowed[] = "only GET and HEAD\n";
	static char none[1];
	struct prom_server *s = cls;
	struct MHD_Response *r;
	unsigned int status = MHD_HTTP_OK;
	enum MHD_Result rc;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)req_cls;
	__atomic_fetch_add(&s->requests, 1, __ATOMIC_RELAXED);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
		r = MHD_create_response_from_buffer(sizeof(not_allowed) - 1,
						    (void *)(uintptr_t)not_allowed,
						    MHD_RESPMEM_PERSISTENT);
	} else if (strcmp(url, "/metrics") != 0) {
		status = MHD_HTTP_NOT_FOUND;
		r = MHD_create_response_from_buffer(sizeof(not_found) - 1,
						    (void *)(uintptr_t)not_found,
						    MHD_RESPMEM_PERSISTENT);
	} else {
		pthread_mutex_lock(&s->lock);
		r = MHD_create_response_from_buffer(s->len, s->body != NULL ? s->body : none,
						    MHD_RESPMEM_MUST_COPY);
		pthread_mutex_unlock(&s->lock);
	}
	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				status == MHD_HTTP_OK ? PROM_CONTENT_TYPE : "text/plain; charset=utf-8");
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static void
prom_server_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	(void)fmt;
	(void)ap; /* MHD's complaints about clients are not the gateway's errors */
}

struct prom_server *
prom_server_start(const struct prom_server_params *p, char *err, size_t err_size)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	unsigned int flags = MHD_USE_AUTO_INTERNAL_THREAD;
	const union MHD_DaemonInfo *info;
	struct prom_server *s;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, p->addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(p->port);
	} else if (inet_pton(AF_INET6, p->addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(p->port);
		flags |= MHD_USE_IPv6;
	} else {
		snprintf(err, err_size, "prometheus: '%s' is not a numeric IPv4 or IPv6 address",
			 p->addr);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		snprintf(err, err_size, "prometheus: out of memory");
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	/* Few, short requests: a small connection limit and a timeout for idle clients. */
	s->d = MHD_start_daemon(flags, p->port, NULL, NULL, prom_server_answer, s,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT, 16u,
				MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				MHD_OPTION_EXTERNAL_LOGGER, prom_server_log, NULL,
				MHD_OPTION_END);
	if (s->d == NULL) {
		snprintf(err, err_size, "prometheus: cannot listen on %s port %u: %s", p->addr,
			 p->port, errno != 0 ? strerror(errno) : "libmicrohttpd refused");
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info != NULL ? info->port : p->port;
	return s;
}

uint16_t
prom_server_port(const struct prom_server *s)
{
	return s->port;
}

int
prom_server_set(struct prom_server *s, enum prom_section sec, char *text, size_t len)
{
	size_t total = 0, at = 0;
	char *body, *old;
	unsigned int i;

	if (sec >= PROM_SECTIONS) {
		free(text);
		return -EINVAL;
	}
	free(s->sec[sec]);
	s->sec[sec] = text;
	s->sec_len[sec] = text != NULL ? len : 0;
	for (i = 0; i < PROM_SECTIONS; i++)
		total += s->sec_len[i];
	body = malloc(total + 1);
	if (body == NULL)
		return -ENOMEM;
	for (i = 0; i < PROM_SECTIONS; i++) {
		if (s->sec_len[i] != 0)
			memcpy(body + at, s->sec[i], s->sec_len[i]);
		at += s->sec_len[i];
	}
	body[at] = '\0';
	pthread_mutex_lock(&s->lock);
	old = s->body;
	s->body = body;
	s->len = total;
	pthread_mutex_unlock(&s->lock);
	free(old);
	return 0;
}

uint64_t
prom_server_requests(const struct prom_server *s)
{
	return __atomic_load_n(&s->requests, __ATOMIC_RELAXED);
}

void
prom_server_stop(struct prom_server *s)
{
	if (s == NULL)
		return;
	MHD_stop_daemon(s->d);
	pthread_mutex_destroy(&s->lock);
	for (unsigned int i = 0; i < PROM_SECTIONS; i++)
		free(s->sec[i]);
	free(s->body);
	free(s);
}
