/* SPDX-License-Identifier: BSD-3-Clause */
/* The peering session with one remote site (peer_session.h). */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "congestion/cc_time.h"
#include "peer_session.h"

#define PEER_NS_PER_MS 1000000ull

static void __attribute__((format(printf, 2, 3)))
peer_session_log(const struct peer_session *s, const char *fmt, ...)
{
	va_list ap;

	if (s->log == NULL)
		return;
	fprintf(s->log, "peer '%s': ", s->conf.peer_site);
	va_start(ap, fmt);
	vfprintf(s->log, fmt, ap);
	va_end(ap);
	fputc('\n', s->log);
	fflush(s->log);
}

bool
peer_session_outbound_wins(const char *local_site, const char *peer_site)
{
	return strcmp(local_site, peer_site) < 0;
}

int
peer_session_init(struct peer_session *s, const struct peer_session_conf *conf,
		  const struct peer_tls_ctx *tls, const struct peer_session_ops *ops, void *arg,
		  FILE *log, uint64_t now_ns)
{
	static const struct peer_session_ops no_ops;

	if (!peer_msg_site_ok(conf->local_site) || !peer_msg_site_ok(conf->peer_site) ||
	    strcmp(conf->local_site, conf->peer_site) == 0 ||
	    conf->hold_time_ms < PEER_MSG_HOLD_MIN_MS || conf->hold_time_ms > PEER_MSG_HOLD_MAX_MS ||
	    conf->backoff.min_ns == 0 || conf->backoff.max_ns < conf->backoff.min_ns ||
	    conf->handshake_timeout_ns == 0 || conf->remote_len == 0 ||
	    conf->remote_len > sizeof(conf->remote) || conf->local_len > sizeof(conf->local))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->conf = *conf;
	if (s->conf.software[0] == '\0')
		snprintf(s->conf.software, sizeof(s->conf.software), "unknown");
	s->tls = tls;
	s->ops = ops != NULL ? ops : &no_ops;
	s->arg = arg;
	s->log = log;
	s->down_since_ns = now_ns;
	s->next_connect_ns = now_ns; /* the first attempt at once */
	peer_backoff_init(&s->backoff, conf->seed);
	return 0;
}

static int
peer_session_send(struct peer_session *s, struct peer_conn *c, const struct peer_msg *m)
{
	int rc = peer_conn_send(c, m);

	if (rc == 0)
		s->stats.tx_msgs[m->type]++;
	else if (rc == -ENOBUFS)
		peer_conn_fail(c, PEER_REASON_SEND_OVERFLOW, 0, "%u bytes unsent",
			       (unsigned int)c->tx_bytes);
	return rc;
}

static void
peer_session_send_hello(struct peer_session *s, struct peer_conn *c)
{
	struct peer_msg m;
	struct peer_msg_hello *h = &m.u.hello;

	memset(&m, 0, sizeof(m));
	m.type = PEER_MSG_HELLO;
	snprintf(h->site, sizeof(h->site), "%s", s->conf.local_site);
	snprintf(h->software, sizeof(h->software), "%s", s->conf.software);
	h->instance_id = s->conf.instance_id;
	h->capabilities = s->conf.capabilities;
	h->hold_time_ms = s->conf.hold_time_ms;
	h->route_generation = s->local_generation;
	h->n_prefixes = s->n_local;
	memcpy(h->prefixes, s->local, sizeof(s->local[0]) * s->n_local);
	(void)peer_session_send(s, c, &m);
}

static int
peer_session_keepalive_on(struct peer_session *s, struct peer_conn *c, uint64_t now_ns)
{
	struct peer_msg m;

	memset(&m, 0, sizeof(m));
	m.type = PEER_MSG_KEEPALIVE;
	m.u.keepalive.tx_ns = now_ns;
	m.u.keepalive.echo_ns = c->echo_tx_ns;
	if (c->echo_tx_ns != 0)
		m.u.keepalive.echo_delay_ns = cc_time_elapsed(now_ns, c->echo_rx_ns);
	m.u.keepalive.measured_rtt_ns = s->measured_rtt_ns;
	return peer_session_send(s, c, &m);
}

int
peer_session_send_keepalive(struct peer_session *s, uint64_t now_ns)
{
	if (s->active == NULL)
		return -ENOTCONN;
	return peer_session_keepalive_on(s, s->active, now_ns);
}

void
peer_session_set_measured_rtt(struct peer_session *s, uint64_t rtt_ns)
{
	s->measured_rtt_ns = rtt_ns;
}

int
peer_session_send_hint(struct peer_session *s, const struct peer_msg_hint *h)
{
	struct peer_msg m;

	if (s->active == NULL)
		return -ENOTCONN;
	m.type = PEER_MSG_HINT;
	m.u.hint = *h;
	return peer_session_send(s, s->active, &m);
}

static void
peer_session_learn(struct peer_session *s, const struct peer_msg_hello *h)
{
	s->learned_valid = true;
	s->n_learned = h->n_prefixes;
	memcpy(s->learned, h->prefixes, sizeof(h->prefixes[0]) * h->n_prefixes);
	s->learned_generation = h->route_generation;
	snprintf(s->peer_software, sizeof(s->peer_software), "%s", h->software);
	s->peer_capabilities = h->capabilities;
	if (s->ops->routes != NULL)
		s->ops->routes(s->arg, s);
}

static void
peer_session_down(struct peer_session *s, struct peer_conn *c, uint64_t now_ns)
{
	s->up = false;
	s->active = NULL;
	s->down_since_ns = now_ns;
	s->session_rtt_ns = 0;
	s->stats.lost[c->reason]++;
	/* The first retry waits min/2..min: the peer may be restarting. */
	s->next_connect_ns = peer_backoff_fail(&s->backoff, &s->conf.backoff, now_ns);
	peer_session_log(s, "session down: %s (%s); retry in %llu ms", peer_reason_name(c->reason),
			 c->detail, (unsigned long long)(s->backoff.last_delay_ns / PEER_NS_PER_MS));
	if (s->ops->down != NULL)
		s->ops->down(s->arg, s, c->reason);
}

/* C's peer hello was accepted: make it the session's connection, or tie-break. */
static void
peer_session_conn_up(struct peer_session *s, struct peer_conn *c, const struct peer_msg_hello *h,
		     uint64_t now_ns)
{
	struct peer_conn *old = s->active;
	uint32_t hold_ms = h->hold_time_ms < s->conf.hold_time_ms ? h->hold_time_ms
								   : s->conf.hold_time_ms;

	c->state = PEER_CONN_UP;
	c->ever_up = true;
	c->peer_instance = h->instance_id;
	c->hold_ns = (uint64_t)hold_ms * PEER_NS_PER_MS;
	c->next_keepalive_ns = now_ns;
	if (old != NULL) {
		struct peer_conn *loser;

		if (old->peer_instance != c->peer_instance) {
			s->stats.peer_restarts++;
			peer_conn_fail(old, PEER_REASON_DUPLICATE, PEER_CLOSE_DUPLICATE,
				       "replaced by a connection from a new instance of the peer");
			peer_session_log(s, "peer restarted: connection replaced");
			loser = old;
		} else if (old->tls.outbound != c->tls.outbound) {
			bool keep_out = peer_session_outbound_wins(s->conf.local_site,
								   s->conf.peer_site);

			loser = c->tls.outbound == keep_out ? old : c;
		} else {
			loser = old; /* the same direction twice: the newer one is live */
		}
		if (loser->state != PEER_CONN_DEAD)
			peer_conn_fail(loser, PEER_REASON_DUPLICATE, PEER_CLOSE_DUPLICATE,
				       "the %s connection won the tie-break",
				       loser == c ? "other" : "new");
		if (loser == c)
			return;
	}
	s->active = c;
	s->hold_ns = c->hold_ns;
	if (!s->up) {
		s->up = true;
		s->up_since_ns = now_ns;
		s->stats.ups++;
		peer_backoff_reset(&s->backoff);
		peer_session_log(s, "session up (%s, peer %s, hold %u ms)",
				 c->tls.outbound ? "outbound" : "inbound", h->software, hold_ms);
		if (s->ops->up != NULL)
			s->ops->up(s->arg, s);
	}
	peer_session_learn(s, h);
}

/* Apply a route update from the peer; false when it ended the connection. */
static bool
peer_session_route(struct peer_session *s, struct peer_conn *c, const struct peer_msg_route *r)
{
	struct conf_prefix next[LS_MAX_PREFIXES];
	unsigned int n = 0, i, j;

	if (r->generation != s->learned_generation + 1u) {
		peer_conn_fail(c, PEER_REASON_UNEXPECTED, PEER_CLOSE_UNEXPECTED,
			       "route generation %u after %u", r->generation,
			       s->learned_generation);
		return false;
	}
	if (!r->full) {
		n = s->n_learned;
		memcpy(next, s->learned, sizeof(next[0]) * n);
	}
	/* As in BGP: announcing a known prefix and withdrawing an unknown one are no-ops. */
	for (i = 0; i < r->n_entries; i++) {
		const struct conf_prefix *p = &r->entries[i].prefix;

		for (j = 0; j < n; j++)
			if (next[j].len == p->len && next[j].addr.family == p->addr.family &&
			    memcmp(next[j].addr.a, p->addr.a, sizeof(p->addr.a)) == 0)
				break;
		if (r->entries[i].op == PEER_ROUTE_WITHDRAW) {
			if (j < n)
				next[j] = next[--n];
			continue;
		}
		if (j < n)
			continue;
		if (n == LS_MAX_PREFIXES) {
			peer_conn_fail(c, PEER_REASON_ROUTE_LIMIT, PEER_CLOSE_ROUTE,
				       "more than %u prefixes", LS_MAX_PREFIXES);
			return false;
		}
		next[n++] = *p;
	}
	memcpy(s->learned, next, sizeof(next[0]) * n);
	s->n_learned = n;
	s->learned_generation = r->generation;
	if (s->ops->routes != NULL)
		s->ops->routes(s->arg, s);
	return true;
}

static void
peer_session_keepalive_rx(struct peer_session *s, struct peer_conn *c,
			  const struct peer_msg_keepalive *k, uint64_t now_ns)
{
	c->echo_tx_ns = k->tx_ns;
	c->echo_rx_ns = now_ns;
	if (c != s->active)
		return;
	s->peer_measured_rtt_ns = k->measured_rtt_ns;
	/*
	 * echo_ns is a time of ours, echo_delay_ns a duration of the peer's:
	 * RTT = now - echo_ns - echo_delay_ns. A sample longer than the hold
	 * time, or negative, is stale or forged and ignored.
	 */
	if (k->echo_ns != 0 && cc_time_after_eq(now_ns, k->echo_ns)) {
		uint64_t elapsed = now_ns - k->echo_ns;

		if (k->echo_delay_ns <= elapsed && elapsed - k->echo_delay_ns <= s->hold_ns)
			s->session_rtt_ns = elapsed - k->echo_delay_ns;
	}
	if (s->ops->keepalive != NULL)
		s->ops->keepalive(s->arg, s, k);
}

static void
peer_session_msg(struct peer_session *s, struct peer_conn *c, const struct peer_msg *m,
		 uint64_t now_ns)
{
	s->stats.rx_msgs[m->type]++;
	if (m->type == PEER_MSG_CLOSE) {
		peer_conn_fail(c,
			       c->state == PEER_CONN_UP ? PEER_REASON_CLOSE_RECEIVED
							: PEER_REASON_REFUSED_BY_PEER,
			       0, "close from the peer: %s%s%s",
			       peer_close_reason_name(m->u.close.reason),
			       m->u.close.text[0] != '\0' ? ": " : "", m->u.close.text);
		/* Remember a lost tie-break: the session moves to the other connection. */
		if (m->u.close.reason == PEER_CLOSE_DUPLICATE)
			c->reason = PEER_REASON_DUPLICATE;
		return;
	}
	if (c->state == PEER_CONN_HELLO) {
		if (m->type != PEER_MSG_HELLO) {
			peer_conn_fail(c, PEER_REASON_UNEXPECTED, PEER_CLOSE_UNEXPECTED,
				       "%s before hello", peer_msg_type_name(m->type));
			return;
		}
		if (strcmp(m->u.hello.site, s->conf.peer_site) != 0) {
			peer_conn_fail(c, PEER_REASON_SITE_MISMATCH, PEER_CLOSE_SITE,
				       "hello from site '%s'", m->u.hello.site);
			return;
		}
		peer_session_conn_up(s, c, &m->u.hello, now_ns);
		return;
	}
	switch (m->type) {
	case PEER_MSG_HELLO:
		peer_conn_fail(c, PEER_REASON_UNEXPECTED, PEER_CLOSE_UNEXPECTED, "second hello");
		break;
	case PEER_MSG_KEEPALIVE:
		peer_session_keepalive_rx(s, c, &m->u.keepalive, now_ns);
		break;
	case PEER_MSG_ROUTE:
		if (c == s->active)
			(void)peer_session_route(s, c, &m->u.route);
		break;
	case PEER_MSG_HINT:
		if (c == s->active && s->ops->hint != NULL)
			s->ops->hint(s->arg, s, &m->u.hint);
		break;
	case PEER_MSG_CLOSE:
		break;
	}
}

static bool
peer_session_has_live_conn(const struct peer_session *s)
{
	unsigned int i;

	for (i = 0; i < PEER_SESSION_CONNS; i++)
		if (s->conns[i] != NULL && s->conns[i]->state != PEER_CONN_DEAD)
			return true;
	return false;
}

/* C is dead: count it, move the session, schedule the next attempt. */
static void
peer_session_conn_ended(struct peer_session *s, struct peer_conn *c, uint64_t now_ns)
{
	char hbuf[48];
	uint32_t held;

	/* Tie-break losers, ours or the peer's, are not refusals. */
	if (c->reason == PEER_REASON_DUPLICATE)
		s->stats.duplicates++;
	if (c == s->active) {
		s->active = NULL;
		/*
		 * The peer closed this one for the tie-break: it keeps the
		 * other connection, which is on its way up here too. The session
		 * stays up meanwhile; it goes down if that connection fails.
		 */
		if (c->reason == PEER_REASON_DUPLICATE && peer_session_has_live_conn(s)) {
			peer_session_log(s, "moving to the other connection (tie-break)");
			return;
		}
		peer_session_down(s, c, now_ns);
		return;
	}
	if (c->ever_up || c->reason == PEER_REASON_DUPLICATE)
		return;
	s->stats.refused[c->reason]++;
	if (peer_log_limit_ok(&s->log_limit, c->reason, now_ns, &held))
		peer_session_log(s, "%s connection refused: %s (%s)%s",
				 c->tls.outbound ? "outbound" : "inbound",
				 peer_reason_name(c->reason), c->detail,
				 peer_log_held_text(held, hbuf, sizeof(hbuf)));
	if (c->tls.outbound && !s->up)
		s->next_connect_ns = peer_backoff_fail(&s->backoff, &s->conf.backoff, now_ns);
	if (s->up && s->active == NULL && !peer_session_has_live_conn(s))
		peer_session_down(s, c, now_ns);
}

static struct peer_conn **
peer_session_free_slot(struct peer_session *s)
{
	unsigned int i;

	for (i = 0; i < PEER_SESSION_CONNS; i++)
		if (s->conns[i] == NULL)
			return &s->conns[i];
	return NULL;
}

static bool
peer_session_connecting(const struct peer_session *s)
{
	unsigned int i;

	for (i = 0; i < PEER_SESSION_CONNS; i++)
		if (s->conns[i] != NULL && s->conns[i]->tls.outbound &&
		    s->conns[i]->state != PEER_CONN_DEAD)
			return true;
	return false;
}

int
peer_session_adopt(struct peer_session *s, int fd, uint64_t now_ns)
{
	struct peer_conn **slot = peer_session_free_slot(s);

	if (slot == NULL) {
		close(fd);
		return -EBUSY;
	}
	*slot = peer_conn_accept(s->tls, fd, s->conf.peer_site,
				 now_ns + s->conf.handshake_timeout_ns);
	if (*slot == NULL)
		return -ENOMEM;
	s->stats.accepts++;
	return 0;
}

static struct peer_conn **
peer_session_connect(struct peer_session *s, uint64_t now_ns)
{
	struct peer_conn **slot = peer_session_free_slot(s);

	if (slot == NULL)
		return NULL;
	*slot = peer_conn_connect(s->tls, (const struct sockaddr *)&s->conf.remote,
				  s->conf.remote_len, (const struct sockaddr *)&s->conf.local,
				  s->conf.local_len, s->conf.peer_site,
				  now_ns + s->conf.handshake_timeout_ns);
	if (*slot == NULL) {
		s->next_connect_ns = peer_backoff_fail(&s->backoff, &s->conf.backoff, now_ns);
		return NULL;
	}
	s->stats.connects++;
	return slot;
}

/* Messages and state changes of one connection, within the run's budget. */
static void
peer_session_run_conn(struct peer_session *s, unsigned int i, uint64_t now_ns)
{
	struct peer_conn *c = s->conns[i];
	unsigned int budget = PEER_SESSION_MSGS_PER_RUN;
	struct peer_msg m;

	for (;;) {
		enum peer_conn_event ev = peer_conn_poll(c, now_ns, &m);

		if (ev == PEER_CONN_EV_NONE)
			return;
		if (ev == PEER_CONN_EV_OPEN) {
			peer_session_send_hello(s, c);
			continue;
		}
		if (ev == PEER_CONN_EV_DEAD) {
			peer_session_conn_ended(s, c, now_ns);
			peer_conn_free(c);
			s->conns[i] = NULL;
			return;
		}
		peer_session_msg(s, c, &m, now_ns);
		/* A connection the handler ended is reported by the next poll. */
		if (--budget == 0 && c->state != PEER_CONN_DEAD) {
			s->busy = true;
			return;
		}
	}
}

/* Keepalive and hold timers of the active connection. */
static void
peer_session_timers(struct peer_session *s, uint64_t now_ns)
{
	struct peer_conn *c = s->active;

	if (c == NULL || c->state != PEER_CONN_UP)
		return;
	if (cc_time_after(now_ns, c->last_rx_ns + c->hold_ns)) {
		peer_conn_fail(c, PEER_REASON_HOLD_TIMEOUT, PEER_CLOSE_HOLD,
			       "nothing received for %llu ms",
			       (unsigned long long)(c->hold_ns / PEER_NS_PER_MS));
		return;
	}
	if (cc_time_after_eq(now_ns, c->next_keepalive_ns)) {
		c->next_keepalive_ns = now_ns + c->hold_ns / 3;
		(void)peer_session_keepalive_on(s, c, now_ns);
	}
}

void
peer_session_run(struct peer_session *s, uint64_t now_ns)
{
	unsigned int i;

	s->busy = false;
	for (i = 0; i < PEER_SESSION_CONNS; i++)
		if (s->conns[i] != NULL)
			peer_session_run_conn(s, i, now_ns);
	peer_session_timers(s, now_ns);
	/* A connection the timers ended is reported in this run, not the next. */
	for (i = 0; i < PEER_SESSION_CONNS; i++)
		if (s->conns[i] != NULL && s->conns[i]->state == PEER_CONN_DEAD)
			peer_session_run_conn(s, i, now_ns);
	if (!s->up && s->conf.connect && !peer_session_connecting(s) &&
	    cc_time_after_eq(now_ns, s->next_connect_ns)) {
		struct peer_conn **slot = peer_session_connect(s, now_ns);

		/* Start the handshake now; a connect refused at once is reported now. */
		if (slot != NULL)
			peer_session_run_conn(s, (unsigned int)(slot - s->conns), now_ns);
	}
}

/* The earlier of T and X, where T may be CC_TIME_NEVER. */
static uint64_t
peer_session_earlier(uint64_t t, uint64_t x)
{
	return t == CC_TIME_NEVER || cc_time_before(x, t) ? x : t;
}

uint64_t
peer_session_next_timer_ns(const struct peer_session *s, uint64_t now_ns)
{
	uint64_t t = CC_TIME_NEVER;
	unsigned int i;

	if (s->busy)
		return now_ns;
	for (i = 0; i < PEER_SESSION_CONNS; i++) {
		const struct peer_conn *c = s->conns[i];

		if (c == NULL)
			continue;
		if (peer_conn_has_work(c))
			return now_ns;
		if (c->state != PEER_CONN_UP)
			t = peer_session_earlier(t, c->deadline_ns + 1);
		else if (c == s->active)
			t = peer_session_earlier(peer_session_earlier(t, c->next_keepalive_ns),
						 c->last_rx_ns + c->hold_ns + 1);
	}
	if (!s->up && s->conf.connect && !peer_session_connecting(s))
		t = peer_session_earlier(t, s->next_connect_ns);
	return t;
}

unsigned int
peer_session_pollfds(const struct peer_session *s, struct pollfd *fds, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < PEER_SESSION_CONNS && n < max; i++) {
		const struct peer_conn *c = s->conns[i];
		short ev;

		if (c == NULL || (ev = peer_conn_events(c)) == 0)
			continue;
		fds[n].fd = c->tls.fd;
		fds[n].events = ev;
		fds[n].revents = 0;
		n++;
	}
	return n;
}

unsigned int
peer_session_pending_inbound(const struct peer_session *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < PEER_SESSION_CONNS; i++)
		if (s->conns[i] != NULL && !s->conns[i]->tls.outbound &&
		    s->conns[i]->state != PEER_CONN_UP && s->conns[i]->state != PEER_CONN_DEAD)
			n++;
	return n;
}

static bool
peer_session_prefix_in(const struct conf_prefix *p, const struct conf_prefix *set, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (set[i].len == p->len && set[i].addr.family == p->addr.family &&
		    memcmp(set[i].addr.a, p->addr.a, sizeof(p->addr.a)) == 0)
			return true;
	return false;
}

int
peer_session_set_prefixes(struct peer_session *s, const struct conf_prefix *prefixes,
			  unsigned int n)
{
	struct peer_msg m;
	struct peer_msg_route *r = &m.u.route;
	unsigned int i;

	if (peer_msg_prefixes_check(prefixes, n) != PEER_MSG_OK)
		return -EINVAL;
	memset(&m, 0, sizeof(m));
	m.type = PEER_MSG_ROUTE;
	for (i = 0; i < s->n_local; i++)
		if (!peer_session_prefix_in(&s->local[i], prefixes, n)) {
			r->entries[r->n_entries].op = PEER_ROUTE_WITHDRAW;
			r->entries[r->n_entries++].prefix = s->local[i];
		}
	for (i = 0; i < n; i++)
		if (!peer_session_prefix_in(&prefixes[i], s->local, s->n_local)) {
			r->entries[r->n_entries].op = PEER_ROUTE_ADD;
			r->entries[r->n_entries++].prefix = prefixes[i];
		}
	/* Both sets hold distinct prefixes: no difference means equal sets. */
	if (r->n_entries == 0)
		return 0;
	r->generation = s->local_generation + 1u;
	memcpy(s->local, prefixes, sizeof(prefixes[0]) * n);
	s->n_local = n;
	s->local_generation = r->generation;
	if (s->active != NULL)
		(void)peer_session_send(s, s->active, &m);
	return 0;
}

bool
peer_session_learned(const struct peer_session *s, uint64_t now_ns,
		     const struct conf_prefix **prefixes, unsigned int *n, uint32_t *generation)
{
	if (!s->learned_valid)
		return false;
	if (!s->up && cc_time_after_eq(now_ns, s->down_since_ns + s->conf.route_hold_ns))
		return false;
	*prefixes = s->learned;
	*n = s->n_learned;
	*generation = s->learned_generation;
	return true;
}

enum peer_reason
peer_session_reverify(struct peer_session *s, uint64_t now_ns)
{
	struct peer_conn *c = s->active;
	enum peer_reason r;
	unsigned int i;

	if (c == NULL)
		return PEER_REASON_NONE;
	r = peer_tls_reverify(&c->tls, s->tls);
	if (r == PEER_REASON_NONE)
		return r;
	s->stats.reverify_failed++;
	peer_conn_fail(c, r, PEER_CLOSE_REVOKED, "%s", c->tls.detail);
	for (i = 0; i < PEER_SESSION_CONNS; i++)
		if (s->conns[i] == c)
			peer_session_run_conn(s, i, now_ns);
	return r;
}

void
peer_session_fini(struct peer_session *s, uint64_t now_ns)
{
	unsigned int i;

	for (i = 0; i < PEER_SESSION_CONNS; i++) {
		struct peer_conn *c = s->conns[i];

		if (c == NULL)
			continue;
		peer_conn_fail(c, PEER_REASON_SHUTDOWN, PEER_CLOSE_SHUTDOWN, "local shutdown");
		if (c == s->active) {
			s->up = false;
			s->active = NULL;
			s->down_since_ns = now_ns;
			s->stats.lost[PEER_REASON_SHUTDOWN]++;
			if (s->ops->down != NULL)
				s->ops->down(s->arg, s, PEER_REASON_SHUTDOWN);
		}
		peer_conn_free(c);
		s->conns[i] = NULL;
	}
}
