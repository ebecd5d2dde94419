/* SPDX-License-Identifier: BSD-3-Clause */
/* The gateway's peering: listener, credentials, sessions (peer_mgr.h). */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "congestion/cc_time.h"
#include "peer_mgr.h"

int
peer_mgr_init(struct peer_mgr *m, const struct peer_mgr_conf *conf,
	      const struct peer_session_ops *ops, void *arg, FILE *log, char *err,
	      size_t err_size)
{
	int rc;

	memset(m, 0, sizeof(*m));
	m->listen_fd = -1;
	if (!peer_msg_site_ok(conf->local_site) || conf->max_pending == 0) {
		peer_err_printf(err, err_size, "peering: bad site name '%s' or max_pending 0",
			     conf->local_site);
		return -EINVAL;
	}
	/* Checked here: a hello that cannot be encoded would time out every connection. */
	if (conf->software[0] != '\0' && !peer_msg_software_ok(conf->software)) {
		peer_err_printf(err, err_size,
				"peering: software version '%s' is not 1 to %u printable characters "
				"without blanks",
				conf->software, PEER_MSG_SOFTWARE_MAX);
		return -EINVAL;
	}
	m->conf = *conf;
	m->ops = ops;
	m->arg = arg;
	m->log = log;
	while (m->conf.instance_id == 0)
		if (getrandom(&m->conf.instance_id, sizeof(m->conf.instance_id), 0) !=
		    (ssize_t)sizeof(m->conf.instance_id)) {
			peer_err_printf(err, err_size, "peering: getrandom: %s", strerror(errno));
			return -EIO;
		}
	rc = peer_tls_ctx_init(&m->tls, &conf->files, err, err_size);
	if (rc != 0)
		return rc;
	if (conf->listen_len > 0) {
		m->listen_fd = peer_tls_listen((const struct sockaddr *)&conf->listen,
					       conf->listen_len, err, err_size);
		if (m->listen_fd < 0) {
			rc = m->listen_fd;
			m->listen_fd = -1;
			peer_tls_ctx_free(&m->tls);
			return rc;
		}
	}
	return 0;
}

void
peer_mgr_fini(struct peer_mgr *m, uint64_t now_ns)
{
	unsigned int i;

	for (i = 0; i < m->n_sessions; i++) {
		peer_session_fini(m->sessions[i], now_ns);
		free(m->sessions[i]);
		m->sessions[i] = NULL;
	}
	m->n_sessions = 0;
	if (m->listen_fd >= 0)
		close(m->listen_fd);
	m->listen_fd = -1;
	peer_tls_ctx_free(&m->tls);
}

struct peer_session *
peer_mgr_find(struct peer_mgr *m, const char *site)
{
	unsigned int i;

	for (i = 0; i < m->n_sessions; i++)
		if (strcmp(m->sessions[i]->conf.peer_site, site) == 0)
			return m->sessions[i];
	return NULL;
}

int
peer_mgr_add(struct peer_mgr *m, const struct peer_mgr_peer *p, uint64_t now_ns, char *err,
	     size_t err_size)
{
	struct peer_session_conf sc;
	struct peer_session *s;
	uint64_t seed = m->conf.instance_id;
	const char *c;
	int rc;

	if (peer_mgr_find(m, p->site) != NULL) {
		peer_err_printf(err, err_size, "peer '%s': already peering", p->site);
		return -EEXIST;
	}
	if (m->n_sessions == LS_MAX_PEERS) {
		peer_err_printf(err, err_size, "peer '%s': more than %u peers", p->site, LS_MAX_PEERS);
		return -ENOSPC;
	}
	memset(&sc, 0, sizeof(sc));
	snprintf(sc.local_site, sizeof(sc.local_site), "%s", m->conf.local_site);
	snprintf(sc.peer_site, sizeof(sc.peer_site), "%s", p->site);
	sc.remote = p->remote;
	sc.remote_len = p->remote_len;
	sc.local = p->local;
	sc.local_len = p->local_len;
	sc.connect = p->connect;
	sc.handshake_timeout_ns = m->conf.handshake_timeout_ns;
	sc.hold_time_ms = m->conf.hold_time_ms;
	sc.backoff = m->conf.backoff;
	sc.route_hold_ns = m->conf.route_hold_ns;
	sc.capabilities = m->conf.capabilities;
	snprintf(sc.software, sizeof(sc.software), "%s", m->conf.software);
	sc.instance_id = m->conf.instance_id;
	/* Each session's jitter stream differs (FNV-1a over the site name). */
	for (c = p->site; *c != '\0'; c++)
		seed = (seed ^ (uint8_t)*c) * UINT64_C(0x100000001b3);
	sc.seed = seed;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	rc = peer_session_init(s, &sc, &m->tls, m->ops, m->arg, m->log, now_ns);
	if (rc != 0) {
		peer_err_printf(err, err_size,
			     "peer '%s': invalid peering settings (site names, hold time, back-off, "
			     "address)",
			     p->site);
		free(s);
		return rc;
	}
	m->sessions[m->n_sessions++] = s;
	return 0;
}

int
peer_mgr_remove(struct peer_mgr *m, const char *site, uint64_t now_ns)
{
	unsigned int i;

	for (i = 0; i < m->n_sessions; i++) {
		if (strcmp(m->sessions[i]->conf.peer_site, site) != 0)
			continue;
		peer_session_fini(m->sessions[i], now_ns);
		free(m->sessions[i]);
		m->sessions[i] = m->sessions[--m->n_sessions];
		m->sessions[m->n_sessions] = NULL;
		return 0;
	}
	return -ENOENT;
}

uint16_t
peer_mgr_listen_port(const struct peer_mgr *m)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (m->listen_fd < 0 || getsockname(m->listen_fd, (struct sockaddr *)&ss, &len) != 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

/* The IP address of SA as family + bytes, IPv4-mapped IPv6 as IPv4. */
static bool
peer_mgr_addr(const struct sockaddr_storage *sa, int *family, uint8_t addr[16])
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	memset(addr, 0, 16);
	if (sa->ss_family == AF_INET) {
		*family = AF_INET;
		memcpy(addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return true;
	}
	if (sa->ss_family == AF_INET6) {
		const uint8_t *a6 = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;

		if (memcmp(a6, mapped, sizeof(mapped)) == 0) {
			*family = AF_INET;
			memcpy(addr, a6 + 12, 4);
		} else {
			*family = AF_INET6;
			memcpy(addr, a6, 16);
		}
		return true;
	}
	return false;
}

static struct peer_session *
peer_mgr_by_source(struct peer_mgr *m, const struct sockaddr_storage *src)
{
	uint8_t a[16], b[16];
	int fa, fb;
	unsigned int i;

	if (!peer_mgr_addr(src, &fa, a))
		return NULL;
	for (i = 0; i < m->n_sessions; i++)
		if (peer_mgr_addr(&m->sessions[i]->conf.remote, &fb, b) && fa == fb &&
		    memcmp(a, b, 16) == 0)
			return m->sessions[i];
	return NULL;
}

static unsigned int
peer_mgr_pending(const struct peer_mgr *m)
{
	unsigned int i, n = 0;

	for (i = 0; i < m->n_sessions; i++)
		n += peer_session_pending_inbound(m->sessions[i]);
	return n;
}

/* An accepted connection closed before a session took it: count, log sparsely. */
static void
peer_mgr_refuse(struct peer_mgr *m, struct peer_session *s, enum peer_reason r,
		const struct sockaddr_storage *src, uint64_t now_ns)
{
	char addr[INET6_ADDRSTRLEN] = "?", hbuf[48];
	uint8_t a[16];
	uint32_t held;
	int family;

	if (s != NULL)
		s->stats.refused[r]++;
	else
		m->refused[r]++;
	if (m->log == NULL || !peer_log_limit_ok(&m->log_limit, r, now_ns, &held))
		return;
	if (peer_mgr_addr(src, &family, a))
		inet_ntop(family, a, addr, sizeof(addr));
	fprintf(m->log, "peering: connection from %s refused: %s%s\n", addr, peer_reason_name(r),
		peer_log_held_text(held, hbuf, sizeof(hbuf)));
	fflush(m->log);
}

static void
peer_mgr_accept(struct peer_mgr *m, uint64_t now_ns)
{
	unsigned int k;

	for (k = 0; k < PEER_MGR_ACCEPTS_PER_RUN; k++) {
		struct sockaddr_storage src;
		socklen_t len = sizeof(src);
		struct peer_session *s;
		int fd = accept4(m->listen_fd, (struct sockaddr *)&src, &len,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return; /* EAGAIN, or an error the next poll retries */
		s = peer_mgr_by_source(m, &src);
		if (s == NULL) {
			close(fd);
			peer_mgr_refuse(m, NULL, PEER_REASON_UNKNOWN_ADDRESS, &src, now_ns);
			continue;
		}
		if (peer_mgr_pending(m) >= m->conf.max_pending) {
			close(fd);
			peer_mgr_refuse(m, s, PEER_REASON_TOO_MANY_PENDING, &src, now_ns);
			continue;
		}
		if (peer_session_adopt(s, fd, now_ns) == -EBUSY)
			peer_mgr_refuse(m, s, PEER_REASON_TOO_MANY_PENDING, &src, now_ns);
	}
}

unsigned int
peer_mgr_pollfds(const struct peer_mgr *m, struct pollfd *fds, unsigned int max)
{
	unsigned int i, n = 0;

	if (m->listen_fd >= 0 && n < max) {
		fds[n].fd = m->listen_fd;
		fds[n].events = POLLIN;
		fds[n].revents = 0;
		n++;
	}
	for (i = 0; i < m->n_sessions && n < max; i++)
		n += peer_session_pollfds(m->sessions[i], fds + n, max - n);
	return n;
}

static short
peer_mgr_revents(const struct pollfd *fds, unsigned int n, int fd)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (fds[i].fd == fd)
			return fds[i].revents;
	return 0;
}

static bool
peer_mgr_session_ready(const struct peer_session *s, const struct pollfd *fds, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < PEER_SESSION_CONNS; i++)
		if (s->conns[i] != NULL && s->conns[i]->tls.fd >= 0 &&
		    peer_mgr_revents(fds, n, s->conns[i]->tls.fd) != 0)
			return true;
	return false;
}

void
peer_mgr_run(struct peer_mgr *m, const struct pollfd *fds, unsigned int n, uint64_t now_ns)
{
	unsigned int i;

	if (m->listen_fd >= 0 && peer_mgr_revents(fds, n, m->listen_fd) != 0)
		peer_mgr_accept(m, now_ns);
	for (i = 0; i < m->n_sessions; i++) {
		struct peer_session *s = m->sessions[i];
		uint64_t t = peer_session_next_timer_ns(s, now_ns);

		if (peer_mgr_session_ready(s, fds, n) ||
		    (t != CC_TIME_NEVER && cc_time_after_eq(now_ns, t)))
			peer_session_run(s, now_ns);
	}
}

void
peer_mgr_service(struct peer_mgr *m, uint64_t now_ns)
{
	struct pollfd fds[PEER_MGR_MAX_FDS];
	unsigned int n = peer_mgr_pollfds(m, fds, PEER_MGR_MAX_FDS);

	if (n > 0 && poll(fds, n, 0) < 0)
		n = 0;
	peer_mgr_run(m, fds, n, now_ns);
}

uint64_t
peer_mgr_next_timer_ns(const struct peer_mgr *m, uint64_t now_ns)
{
	uint64_t t = CC_TIME_NEVER;
	unsigned int i;

	for (i = 0; i < m->n_sessions; i++) {
		uint64_t s = peer_session_next_timer_ns(m->sessions[i], now_ns);

		if (t == CC_TIME_NEVER || (s != CC_TIME_NEVER && cc_time_before(s, t)))
			t = s;
	}
	return t;
}

int
peer_mgr_reload_tls(struct peer_mgr *m, uint64_t now_ns, char *err, size_t err_size)
{
	int rc = peer_tls_ctx_reload(&m->tls, err, err_size);
	unsigned int i;

	if (rc != 1)
		return rc;
	m->tls_reloads++;
	for (i = 0; i < m->n_sessions; i++)
		(void)peer_session_reverify(m->sessions[i], now_ns);
	return 1;
}

uint64_t
peer_mgr_refused(const struct peer_mgr *m, enum peer_reason r)
{
	uint64_t n = m->refused[r];
	unsigned int i;

	for (i = 0; i < m->n_sessions; i++)
		n += m->sessions[i]->stats.refused[r];
	return n;
}
