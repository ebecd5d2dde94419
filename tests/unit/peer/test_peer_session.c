/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peering over real TLS 1.3 on loopback TCP: two managers (site-a on
 * 127.0.0.1, site-b on 127.0.0.2) in one process, driven by one poll loop,
 * plus hand-made clients for what a gateway never sends. Certificates come
 * from scripts/make-certs.sh, generated into the build directory:
 *
 *   test_peer_session PKI_DIR
 *
 * SIGPIPE keeps its default action except around the raw OpenSSL clients
 * of test_strangers: the peering code itself must never raise it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "congestion/cc_time.h"
#include "control/peer_mgr.h"

#define MS 1000000ull
#define HANDSHAKE_MS 400
#define HOLD_MS 600 /* keepalive every 200 ms */
#define BACKOFF_MIN_MS 40
#define BACKOFF_MAX_MS 320

static const char *pki;
static FILE *test_log; /* PEER_TEST_LOG=1: the sessions' log lines on stderr */

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
pki_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", pki, name);
}

static void copy_file(const char *from, const char *to);

/* --- one gateway's peering --- */

struct side {
	struct peer_mgr mgr;
	const char *site;
	const char *addr;
	bool running; /* the loop drives it */
	bool echo; /* answer every keepalive with one at once */
	unsigned int ups, downs, routes, hints, keepalives;
	enum peer_reason last_down;
	struct peer_msg_hint last_hint;
	/*
	 * A keepalive echoing want_echo_ns (a ping in flight): when it came.
	 * Kept here, not read off the last keepalive, because the session's own
	 * timer keepalives are echoed too and the ping's answer may be followed
	 * by another within one run of the loop.
	 */
	uint64_t want_echo_ns;
	uint64_t want_echo_rx_ns;
};

static void
on_up(void *arg, struct peer_session *s)
{
	(void)s;
	((struct side *)arg)->ups++;
}

static void
on_down(void *arg, struct peer_session *s, enum peer_reason why)
{
	struct side *d = arg;

	(void)s;
	d->downs++;
	d->last_down = why;
}

static void
on_routes(void *arg, struct peer_session *s)
{
	(void)s;
	((struct side *)arg)->routes++;
}

static void
on_hint(void *arg, struct peer_session *s, const struct peer_msg_hint *h)
{
	struct side *d = arg;

	(void)s;
	d->hints++;
	d->last_hint = *h;
}

static void
on_keepalive(void *arg, struct peer_session *s, const struct peer_msg_keepalive *k)
{
	struct side *d = arg;
	uint64_t t = now_ns();

	d->keepalives++;
	if (d->want_echo_ns != 0 && k->echo_ns == d->want_echo_ns)
		d->want_echo_rx_ns = t;
	if (d->echo)
		assert_int_equal(peer_session_send_keepalive(s, t), 0);
}

static const struct peer_session_ops test_ops = {
	.up = on_up,
	.down = on_down,
	.routes = on_routes,
	.hint = on_hint,
	.keepalive = on_keepalive,
};

static void
sockaddr4(struct sockaddr_storage *ss, socklen_t *len, const char *addr, uint16_t port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	assert_int_equal(inet_pton(AF_INET, addr, &sin->sin_addr), 1);
	*len = sizeof(*sin);
}

struct creds {
	const char *ca; /* file names in the PKI dir, or absolute paths */
	const char *cert; /* base name: .crt and .key */
	const char *crl; /* NULL = none */
};

static void
cred_path(char *buf, size_t size, const char *name, const char *ext)
{
	if (name[0] == '/')
		snprintf(buf, size, "%s%s", name, ext);
	else
		snprintf(buf, size, "%s/%s%s", pki, name, ext);
}

/* Start SITE's manager on ADDR, listening on PORT (0 = any). */
static void
side_start(struct side *d, const char *site, const char *addr, uint16_t port,
	   const struct creds *c)
{
	struct peer_mgr_conf conf;
	char err[256];
	int rc;

	memset(d, 0, sizeof(*d));
	d->site = site;
	d->addr = addr;
	d->running = true;
	memset(&conf, 0, sizeof(conf));
	snprintf(conf.local_site, sizeof(conf.local_site), "%s", site);
	sockaddr4(&conf.listen, &conf.listen_len, addr, port);
	cred_path(conf.files.ca, sizeof(conf.files.ca), c->ca, "");
	cred_path(conf.files.cert, sizeof(conf.files.cert), c->cert, ".crt");
	cred_path(conf.files.key, sizeof(conf.files.key), c->cert, ".key");
	if (c->crl != NULL)
		cred_path(conf.files.crl, sizeof(conf.files.crl), c->crl, "");
	conf.handshake_timeout_ns = HANDSHAKE_MS * MS;
	conf.hold_time_ms = HOLD_MS;
	conf.backoff.min_ns = BACKOFF_MIN_MS * MS;
	conf.backoff.max_ns = BACKOFF_MAX_MS * MS;
	conf.route_hold_ns = 1000 * MS;
	conf.max_pending = 8;
	snprintf(conf.software, sizeof(conf.software), "test-1");
	conf.capabilities = PEER_MSG_CAP_ROUTES | PEER_MSG_CAP_HINTS;
	rc = peer_mgr_init(&d->mgr, &conf, &test_ops, d, test_log, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "peer_mgr_init %s: %s\n", site, err);
	assert_int_equal(rc, 0);
	assert_true(peer_mgr_listen_port(&d->mgr) != 0);
}

/* D peers with SITE at ADDR:PORT. */
static void
side_add_peer(struct side *d, const char *site, const char *addr, uint16_t port, bool connect)
{
	struct peer_mgr_peer p;
	char err[256];

	memset(&p, 0, sizeof(p));
	snprintf(p.site, sizeof(p.site), "%s", site);
	sockaddr4(&p.remote, &p.remote_len, addr, port);
	sockaddr4(&p.local, &p.local_len, d->addr, 0);
	p.connect = connect;
	assert_int_equal(peer_mgr_add(&d->mgr, &p, now_ns(), err, sizeof(err)), 0);
}

static void
side_stop(struct side *d)
{
	if (d->running || d->mgr.listen_fd >= 0 || d->mgr.n_sessions > 0)
		peer_mgr_fini(&d->mgr, now_ns());
	d->running = false;
}

static struct peer_session *
sess(struct side *d)
{
	assert_int_equal(d->mgr.n_sessions, 1);
	return d->mgr.sessions[0];
}

static unsigned int
n_conns(const struct peer_session *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < PEER_SESSION_CONNS; i++)
		n += s->conns[i] != NULL;
	return n;
}

/* --- the loop --- */

/* Something else the loop drives (attack clients); called once per turn. */
typedef void (*turn_fn)(void *arg, uint64_t now);
typedef bool (*until_fn)(void *arg);

static bool
drive(struct side *const *sides, unsigned int n_sides, uint64_t max_ms, until_fn until,
      void *arg, turn_fn turn, void *turn_arg)
{
	uint64_t end = now_ns() + max_ms * MS;

	for (;;) {
		struct pollfd fds[2 * PEER_MGR_MAX_FDS];
		unsigned int first[4], count[4], i, n = 0;
		uint64_t t = now_ns(), next = t + 10 * MS;
		int timeout_ms;

		if (until != NULL && until(arg))
			return true;
		if (cc_time_after(t, end))
			return until == NULL;
		for (i = 0; i < n_sides; i++) {
			uint64_t nt;

			first[i] = n;
			count[i] = 0;
			if (!sides[i]->running)
				continue;
			count[i] = peer_mgr_pollfds(&sides[i]->mgr, fds + n, PEER_MGR_MAX_FDS);
			n += count[i];
			nt = peer_mgr_next_timer_ns(&sides[i]->mgr, t);
			if (nt != CC_TIME_NEVER && cc_time_before(nt, next))
				next = nt;
		}
		timeout_ms = cc_time_after(next, t) ? (int)((next - t + MS - 1) / MS) : 0;
		if (turn != NULL && timeout_ms > 5)
			timeout_ms = 5;
		assert_true(poll(fds, n, timeout_ms) >= 0);
		t = now_ns();
		for (i = 0; i < n_sides; i++)
			if (sides[i]->running)
				peer_mgr_run(&sides[i]->mgr, fds + first[i], count[i], t);
		if (turn != NULL)
			turn(turn_arg, t);
	}
}

struct pair {
	struct side a, b;
	struct side *both[2];
};

static bool
both_settled(void *arg)
{
	struct pair *p = arg;

	return sess(&p->a)->up && sess(&p->b)->up && n_conns(sess(&p->a)) == 1 &&
	       n_conns(sess(&p->b)) == 1 && sess(&p->a)->active != NULL &&
	       sess(&p->b)->active != NULL;
}

static const struct creds good_a = { "ca.crt", "site-a", NULL };
static const struct creds good_b = { "ca.crt", "site-b", NULL };

static void
pair_start(struct pair *p, const struct creds *ca, const struct creds *cb)
{
	side_start(&p->a, "site-a", "127.0.0.1", 0, ca);
	side_start(&p->b, "site-b", "127.0.0.2", 0, cb);
	side_add_peer(&p->a, "site-b", "127.0.0.2", peer_mgr_listen_port(&p->b.mgr), true);
	side_add_peer(&p->b, "site-a", "127.0.0.1", peer_mgr_listen_port(&p->a.mgr), true);
	p->both[0] = &p->a;
	p->both[1] = &p->b;
}

static void
pair_up(struct pair *p)
{
	pair_start(p, &good_a, &good_b);
	assert_true(drive(p->both, 2, 3000, both_settled, p, NULL, NULL));
}

static void
pair_stop(struct pair *p)
{
	side_stop(&p->a);
	side_stop(&p->b);
}

static void
set_prefix4(struct conf_prefix *p, const char *a, uint8_t len)
{
	memset(p, 0, sizeof(*p));
	p->addr.family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, a, p->addr.a), 1);
	p->len = len;
}

static uint64_t
sum_refused(const struct peer_mgr *m)
{
	uint64_t n = 0;
	unsigned int r;

	for (r = 0; r < PEER_REASON_MAX; r++)
		n += peer_mgr_refused(m, (enum peer_reason)r);
	return n;
}

static uint64_t
sum_lost(const struct peer_session *s)
{
	uint64_t n = 0;
	unsigned int r;

	for (r = 0; r < PEER_REASON_MAX; r++)
		n += s->stats.lost[r];
	return n;
}

/* --- tests --- */

struct wait_count {
	const unsigned int *counter;
	unsigned int above;
};

static bool
count_above(void *arg)
{
	const struct wait_count *w = arg;

	return *w->counter > w->above;
}

static bool
rtt_sampled(void *arg)
{
	struct pair *p = arg;

	return sess(&p->a)->session_rtt_ns != 0 && sess(&p->b)->peer_measured_rtt_ns == 1234567;
}

/* A software version the hello cannot carry is refused at init, not at every hello. */
static void
test_bad_software(void **state)
{
	struct peer_mgr_conf conf;
	struct peer_mgr m;
	char err[256] = "";

	(void)state;
	memset(&conf, 0, sizeof(conf));
	snprintf(conf.local_site, sizeof(conf.local_site), "site-a");
	conf.max_pending = 1;
	snprintf(conf.software, sizeof(conf.software), "longspan 0.1.0");
	assert_int_equal(peer_mgr_init(&m, &conf, NULL, NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "software version"));
}

static void
test_up_and_exchange(void **state)
{
	static struct pair p;
	struct conf_prefix pa[3], pb[1];
	const struct conf_prefix *got;
	unsigned int n;
	uint32_t gen;
	struct wait_count w;
	static struct peer_msg_hint h;

	(void)state;
	pair_start(&p, &good_a, &good_b);
	set_prefix4(&pa[0], "10.1.0.0", 16);
	set_prefix4(&pa[1], "10.11.0.0", 16);
	set_prefix4(&pb[0], "10.2.0.0", 16);
	assert_int_equal(peer_session_set_prefixes(sess(&p.a), pa, 2), 0);
	assert_int_equal(peer_session_set_prefixes(sess(&p.b), pb, 1), 0);
	/* Both opened at once; exactly one connection per side survives. */
	assert_true(drive(p.both, 2, 3000, both_settled, &p, NULL, NULL));
	assert_int_equal(p.a.ups, 1);
	assert_int_equal(p.b.ups, 1);
	/* The tie-break keeps the connection opened by the smaller site id, site-a. */
	assert_true(sess(&p.a)->active->tls.outbound);
	assert_false(sess(&p.b)->active->tls.outbound);
	assert_true(peer_session_outbound_wins("site-a", "site-b"));
	assert_false(peer_session_outbound_wins("site-b", "site-a"));

	/* The hellos carried the prefixes. */
	assert_true(peer_session_learned(sess(&p.b), now_ns(), &got, &n, &gen));
	assert_int_equal(n, 2);
	assert_int_equal(gen, 1);
	assert_memory_equal(got, pa, 2 * sizeof(pa[0]));
	assert_true(peer_session_learned(sess(&p.a), now_ns(), &got, &n, &gen));
	assert_int_equal(n, 1);
	assert_memory_equal(got, pb, sizeof(pb[0]));
	assert_string_equal(sess(&p.a)->peer_software, "test-1");

	/* A route update: withdraw one, announce one, generation 2. */
	set_prefix4(&pa[1], "10.12.0.0", 16);
	w.counter = &p.b.routes;
	w.above = p.b.routes;
	assert_int_equal(peer_session_set_prefixes(sess(&p.a), pa, 2), 0);
	assert_true(drive(p.both, 2, 1000, count_above, &w, NULL, NULL));
	assert_true(peer_session_learned(sess(&p.b), now_ns(), &got, &n, &gen));
	assert_int_equal(n, 2);
	assert_int_equal(gen, 2);
	assert_memory_equal(&got[0], &pa[0], sizeof(pa[0]));
	assert_memory_equal(&got[1], &pa[1], sizeof(pa[1]));
	/* The same set again sends nothing. */
	assert_int_equal(peer_session_set_prefixes(sess(&p.a), pa, 2), 0);
	assert_int_equal(sess(&p.a)->local_generation, 2);
	/* A set the codec would refuse is refused here. */
	pa[2] = pa[0];
	assert_int_equal(peer_session_set_prefixes(sess(&p.a), pa, 3), -EINVAL);

	/* A congestion hint arrives as sent. */
	memset(&h, 0, sizeof(h));
	h.kind = PEER_HINT_SHAPED_QPS;
	h.valid_ms = 200;
	h.n_qps = 2;
	h.qps[0].dst.family = AF_INET;
	h.qps[0].dst.a[0] = 10;
	h.qps[0].qpn = 0x123;
	h.qps[0].rate_bps = 25000000000ull;
	h.qps[1] = h.qps[0];
	h.qps[1].qpn = 0x124;
	w.counter = &p.b.hints;
	w.above = 0;
	assert_int_equal(peer_session_send_hint(sess(&p.a), &h), 0);
	assert_true(drive(p.both, 2, 1000, count_above, &w, NULL, NULL));
	assert_int_equal(p.b.last_hint.n_qps, 2);
	assert_memory_equal(p.b.last_hint.qps, h.qps, 2 * sizeof(h.qps[0]));

	/* Keepalives: the session RTT is measured, the WAN RTT carried. */
	peer_session_set_measured_rtt(sess(&p.a), 1234567);
	assert_true(drive(p.both, 2, 2000, rtt_sampled, &p, NULL, NULL));
	/* Loopback: anything near a second means a blocked loop, not a slow machine. */
	assert_true(sess(&p.a)->session_rtt_ns > 0 && sess(&p.a)->session_rtt_ns < 1000 * MS);

	/* Nothing was refused or lost on the way. */
	assert_int_equal(sum_refused(&p.a.mgr), 0);
	assert_int_equal(sum_refused(&p.b.mgr), 0);
	assert_int_equal(sum_lost(sess(&p.a)), 0);
	assert_int_equal(sum_lost(sess(&p.b)), 0);
	assert_true(sess(&p.a)->stats.rx_msgs[PEER_MSG_HELLO] >= 1);
	assert_true(sess(&p.a)->stats.tx_msgs[PEER_MSG_KEEPALIVE] >= 1);

	/* A clean stop is a "shutdown" close for the other side. */
	w.counter = &p.b.downs;
	w.above = 0;
	side_stop(&p.a);
	assert_true(drive(p.both, 2, 1000, count_above, &w, NULL, NULL));
	assert_int_equal(p.b.last_down, PEER_REASON_CLOSE_RECEIVED);
	assert_int_equal(sess(&p.b)->stats.lost[PEER_REASON_CLOSE_RECEIVED], 1);
	/* Learned routes outlive the session for route_hold, then expire. */
	assert_true(peer_session_learned(sess(&p.b), now_ns(), &got, &n, &gen));
	assert_false(peer_session_learned(sess(&p.b), now_ns() + 1001 * MS, &got, &n, &gen));
	pair_stop(&p);
}

/* The certificate-related refusal reasons: exactly one of them may count. */
static const enum peer_reason cert_reasons[] = {
	PEER_REASON_UNKNOWN_CA,	   PEER_REASON_CERT_EXPIRED, PEER_REASON_CERT_NOT_YET_VALID,
	PEER_REASON_CERT_REVOKED,  PEER_REASON_CERT_INVALID, PEER_REASON_WRONG_SITE,
	PEER_REASON_NO_CERT,	   PEER_REASON_NOT_TLS,	     PEER_REASON_TLS_VERSION,
	PEER_REASON_TLS_ERROR,	   PEER_REASON_MALFORMED,    PEER_REASON_VERSION_MISMATCH,
	PEER_REASON_SITE_MISMATCH, PEER_REASON_HANDSHAKE_TIMEOUT,
};

static void
expect_only(const struct peer_mgr *m, enum peer_reason want, uint64_t at_least)
{
	unsigned int i;

	for (i = 0; i < sizeof(cert_reasons) / sizeof(cert_reasons[0]); i++) {
		uint64_t n = peer_mgr_refused(m, cert_reasons[i]);

		if (cert_reasons[i] == want) {
			if (n < at_least)
				fprintf(stderr, "%s: %llu refusals, want >= %llu\n",
					peer_reason_name(want), (unsigned long long)n,
					(unsigned long long)at_least);
			assert_true(n >= at_least);
		} else if (n != 0) {
			fprintf(stderr, "unexpected refusals %s: %llu (want only %s)\n",
				peer_reason_name(cert_reasons[i]), (unsigned long long)n,
				peer_reason_name(want));
			fail();
		}
	}
}

/* site-a with good credentials (CRL optional) against a site-b whose certificate is bad. */
struct refusal {
	struct creds a, b;
	enum peer_reason want;
};

static struct refusal refused_other_ca = {
	/* site-b lives in another PKI altogether. */
	{ "ca.crt", "site-a", NULL }, { "other-ca.crt", "site-b-otherca", NULL },
	PEER_REASON_UNKNOWN_CA,
};
static struct refusal refused_expired = {
	{ "ca.crt", "site-a", NULL }, { "ca.crt", "site-b-expired", NULL }, PEER_REASON_CERT_EXPIRED,
};
static struct refusal refused_wrong_site = {
	{ "ca.crt", "site-a", NULL }, { "ca.crt", "site-b-wrongsite", NULL }, PEER_REASON_WRONG_SITE,
};
static struct refusal refused_revoked = {
	{ "ca.crt", "site-a", "crl.pem" }, { "ca.crt", "site-b-revoked", NULL },
	PEER_REASON_CERT_REVOKED,
};

static void
test_refused(void **state)
{
	const struct refusal *c = *state;
	static struct pair p;

	pair_start(&p, &c->a, &c->b);
	/* Long enough for both directions to be tried, a few times each. */
	assert_true(drive(p.both, 2, 800, NULL, NULL, NULL, NULL));
	assert_false(sess(&p.a)->up);
	assert_false(sess(&p.b)->up);
	assert_int_equal(p.a.ups, 0);
	assert_int_equal(p.b.ups, 0);
	/* site-a verified site-b's certificate as client and as server. */
	expect_only(&p.a.mgr, c->want, 2);
	/* The refused side learns it from site-a's alerts. */
	assert_true(peer_mgr_refused(&p.b.mgr, PEER_REASON_REFUSED_BY_PEER) +
			    peer_mgr_refused(&p.b.mgr, PEER_REASON_PEER_CLOSED) +
			    peer_mgr_refused(&p.b.mgr, c->want) >=
		    1);
	pair_stop(&p);
}

/* --- clients a gateway never is --- */

static int
raw_connect(const char *src, uint16_t port)
{
	struct sockaddr_storage a, l;
	socklen_t alen, llen;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	sockaddr4(&l, &llen, src, 0);
	sockaddr4(&a, &alen, "127.0.0.1", port);
	assert_int_equal(bind(fd, (struct sockaddr *)&l, llen), 0);
	assert_true(connect(fd, (struct sockaddr *)&a, alen) == 0 || errno == EINPROGRESS);
	return fd;
}

struct stranger {
	int fd;
	SSL_CTX *ctx;
	SSL *ssl;
	const char *send; /* plaintext to send once connected */
	bool sent;
};

static void
stranger_turn(void *arg, uint64_t now)
{
	struct stranger *x = arg;
	char buf[256];

	(void)now;
	if (x->fd < 0)
		return;
	if (x->ssl != NULL) {
		ERR_clear_error();
		if (SSL_do_handshake(x->ssl) == 1)
			(void)SSL_read(x->ssl, buf, sizeof(buf));
		ERR_clear_error();
		return;
	}
	if (x->send != NULL && !x->sent &&
	    send(x->fd, x->send, strlen(x->send), MSG_NOSIGNAL) == (ssize_t)strlen(x->send))
		x->sent = true;
	(void)recv(x->fd, buf, sizeof(buf), MSG_DONTWAIT);
}

static void
stranger_tls(struct stranger *x, uint16_t port, int max_version, bool with_cert)
{
	char crt[512], key[512];

	memset(x, 0, sizeof(*x));
	x->ctx = SSL_CTX_new(TLS_client_method());
	assert_non_null(x->ctx);
	assert_int_equal(SSL_CTX_set_min_proto_version(x->ctx, TLS1_2_VERSION), 1);
	assert_int_equal(SSL_CTX_set_max_proto_version(x->ctx, max_version), 1);
	SSL_CTX_set_verify(x->ctx, SSL_VERIFY_NONE, NULL);
	if (with_cert) {
		pki_path(crt, sizeof(crt), "site-b.crt");
		pki_path(key, sizeof(key), "site-b.key");
		assert_int_equal(SSL_CTX_use_certificate_file(x->ctx, crt, SSL_FILETYPE_PEM), 1);
		assert_int_equal(SSL_CTX_use_PrivateKey_file(x->ctx, key, SSL_FILETYPE_PEM), 1);
	}
	x->fd = raw_connect("127.0.0.2", port);
	x->ssl = SSL_new(x->ctx);
	assert_non_null(x->ssl);
	SSL_set_fd(x->ssl, x->fd);
	SSL_set_connect_state(x->ssl);
}

static void
stranger_end(struct stranger *x)
{
	SSL_free(x->ssl);
	SSL_CTX_free(x->ctx);
	if (x->fd >= 0)
		close(x->fd);
	memset(x, 0, sizeof(*x));
	x->fd = -1;
}

struct wait_refused {
	const struct peer_mgr *m;
	enum peer_reason r;
	uint64_t above;
};

static bool
refused_above(void *arg)
{
	const struct wait_refused *w = arg;

	return peer_mgr_refused(w->m, w->r) > w->above;
}

static void
stranger_case(struct side *a, struct stranger *x, enum peer_reason want)
{
	struct side *one[1] = { a };
	struct wait_refused w = { &a->mgr, want, peer_mgr_refused(&a->mgr, want) };

	assert_true(drive(one, 1, 2000, refused_above, &w, stranger_turn, x));
	stranger_end(x);
	/* Each refusal closes at once: nothing pending stays behind. */
	assert_int_equal(peer_session_pending_inbound(sess(a)), 0);
}

static void
test_strangers(void **state)
{
	static struct side a;
	struct stranger x;
	uint16_t port;
	FILE *saved = test_log;
	char *logbuf = NULL;
	size_t logsize = 0;

	(void)state;
	test_log = open_memstream(&logbuf, &logsize);
	assert_non_null(test_log);
	side_start(&a, "site-a", "127.0.0.1", 0, &good_a);
	/* A peer that is never reached: only the strangers talk to site-a. */
	side_add_peer(&a, "site-b", "127.0.0.2", 9, false);
	port = peer_mgr_listen_port(&a.mgr);

	memset(&x, 0, sizeof(x));
	x.fd = raw_connect("127.0.0.2", port);
	x.send = "GET / HTTP/1.1\r\nHost: site-a\r\n\r\n";
	stranger_case(&a, &x, PEER_REASON_NOT_TLS);

	x.fd = raw_connect("127.0.0.9", port);
	x.send = "\x16\x03\x01";
	{
		struct side *one[1] = { &a };
		struct wait_refused w = { &a.mgr, PEER_REASON_UNKNOWN_ADDRESS, 0 };

		assert_true(drive(one, 1, 2000, refused_above, &w, stranger_turn, &x));
		assert_int_equal(a.mgr.refused[PEER_REASON_UNKNOWN_ADDRESS], 1);
		stranger_end(&x);
	}

	/* Raw OpenSSL clients write with SIGPIPE; these are the test's, not ours. */
	signal(SIGPIPE, SIG_IGN);
	stranger_tls(&x, port, TLS1_2_VERSION, true);
	stranger_case(&a, &x, PEER_REASON_TLS_VERSION);
	stranger_tls(&x, port, TLS1_3_VERSION, false);
	stranger_case(&a, &x, PEER_REASON_NO_CERT);
	signal(SIGPIPE, SIG_DFL);

	/* One refusal each, each under its own reason. */
	assert_int_equal(peer_mgr_refused(&a.mgr, PEER_REASON_NOT_TLS), 1);
	assert_int_equal(peer_mgr_refused(&a.mgr, PEER_REASON_UNKNOWN_ADDRESS), 1);
	assert_int_equal(peer_mgr_refused(&a.mgr, PEER_REASON_TLS_VERSION), 1);
	assert_int_equal(peer_mgr_refused(&a.mgr, PEER_REASON_NO_CERT), 1);
	assert_int_equal(sum_refused(&a.mgr), 4);
	assert_int_equal(a.ups, 0);
	side_stop(&a);

	/* Each refusal is logged with its reason and what was seen. */
	fclose(test_log);
	test_log = saved;
	if (test_log != NULL)
		fputs(logbuf, test_log);
	assert_non_null(strstr(logbuf, "peer 'site-b': inbound connection refused: not_tls "
				       "(first byte 0x47 is not a TLS handshake record)"));
	assert_non_null(strstr(logbuf, "peering: connection from 127.0.0.9 refused: unknown_address"));
	assert_non_null(strstr(logbuf, "refused: tls_version"));
	assert_non_null(strstr(logbuf, "refused: no_certificate"));
	free(logbuf);
}

/* --- a gateway that speaks TLS but not the protocol --- */

struct talker {
	struct peer_tls_ctx ctx;
	struct peer_tls_conn c;
	uint8_t out[2 * PEER_MSG_MAX_BYTES];
	size_t out_bytes, sent;
	uint8_t in[4 * PEER_MSG_MAX_BYTES];
	size_t in_bytes;
	bool open, failed;
};

static void
talker_turn(void *arg, uint64_t now)
{
	struct talker *t = arg;
	enum peer_tls_io io;
	size_t n;

	(void)now;
	if (t->failed || t->c.fd < 0)
		return;
	if (!t->open) {
		io = peer_tls_handshake(&t->c);
		if (io == PEER_TLS_IO_AGAIN)
			return;
		if (io != PEER_TLS_IO_OK) {
			t->failed = true;
			return;
		}
		t->open = true;
	}
	while (t->sent < t->out_bytes) {
		io = peer_tls_write(&t->c, t->out + t->sent, t->out_bytes - t->sent, &n);
		if (io != PEER_TLS_IO_OK)
			break;
		t->sent += n;
	}
	do {
		io = peer_tls_read(&t->c, t->in + t->in_bytes, sizeof(t->in) - t->in_bytes, &n);
		t->in_bytes += n;
	} while (io == PEER_TLS_IO_OK && n > 0 && t->in_bytes < sizeof(t->in));
	if (io == PEER_TLS_IO_EOF || io == PEER_TLS_IO_FAIL)
		t->failed = true;
}

/* A TLS client holding site-b's credentials, to site-a on PORT, that will send BYTES. */
static void
talker_open(struct talker *t, uint16_t port, const void *bytes, size_t n)
{
	struct peer_tls_files f;
	struct sockaddr_storage r, l;
	socklen_t rlen, llen;
	char err[256];

	memset(t, 0, sizeof(*t));
	memset(&f, 0, sizeof(f));
	pki_path(f.ca, sizeof(f.ca), "ca.crt");
	pki_path(f.cert, sizeof(f.cert), "site-b.crt");
	pki_path(f.key, sizeof(f.key), "site-b.key");
	assert_int_equal(peer_tls_ctx_init(&t->ctx, &f, err, sizeof(err)), 0);
	sockaddr4(&r, &rlen, "127.0.0.1", port);
	sockaddr4(&l, &llen, "127.0.0.2", 0);
	assert_int_equal(peer_tls_connect(&t->c, &t->ctx, (struct sockaddr *)&r, rlen,
					  (struct sockaddr *)&l, llen, "site-a"),
			 0);
	memcpy(t->out, bytes, n);
	t->out_bytes = n;
}

static void
talker_close(struct talker *t)
{
	peer_tls_close(&t->c);
	peer_tls_ctx_free(&t->ctx);
}

/* The close message site-a sent before it hung up (after its hello). */
static enum peer_close_reason
talker_close_reason(struct talker *t)
{
	static struct peer_msg m;
	size_t off = 0, used;

	while (peer_msg_decode(t->in + off, t->in_bytes - off, &m, &used) == PEER_MSG_OK) {
		if (m.type == PEER_MSG_CLOSE)
			return m.u.close.reason;
		off += used;
	}
	return (enum peer_close_reason)0;
}

static size_t
encode_hello(uint8_t *buf, size_t cap, const char *site, uint64_t instance)
{
	static struct peer_msg m;
	int n;

	memset(&m, 0, sizeof(m));
	m.type = PEER_MSG_HELLO;
	snprintf(m.u.hello.site, sizeof(m.u.hello.site), "%s", site);
	snprintf(m.u.hello.software, sizeof(m.u.hello.software), "talker");
	m.u.hello.instance_id = instance;
	m.u.hello.hold_time_ms = 3000;
	n = peer_msg_encode(&m, buf, cap);
	assert_true(n > 0);
	return (size_t)n;
}

static void
talker_case(struct side *a, const void *bytes, size_t n, enum peer_reason want,
	    enum peer_close_reason close_want)
{
	static struct talker t;
	struct side *one[1] = { a };
	struct wait_refused w = { &a->mgr, want, peer_mgr_refused(&a->mgr, want) };

	talker_open(&t, peer_mgr_listen_port(&a->mgr), bytes, n);
	assert_true(drive(one, 1, 2000, refused_above, &w, talker_turn, &t));
	/* Let the close message arrive. */
	drive(one, 1, 50, NULL, NULL, talker_turn, &t);
	assert_true(t.open);
	assert_int_equal(talker_close_reason(&t), close_want);
	talker_close(&t);
}

static void
test_protocol_errors(void **state)
{
	static struct side a;
	static uint8_t buf[2 * PEER_MSG_MAX_BYTES];
	static struct peer_msg m;
	size_t n;
	struct wait_count w;

	(void)state;
	side_start(&a, "site-a", "127.0.0.1", 0, &good_a);
	side_add_peer(&a, "site-b", "127.0.0.2", 9, false);

	/* A version 2 peer: told so in version 1, counted as version_mismatch. */
	memcpy(buf, "\x00\x00\x00\x10\x02\x01\x00\x00" "abcdefgh", 16);
	talker_case(&a, buf, 16, PEER_REASON_VERSION_MISMATCH, PEER_CLOSE_VERSION);
	/* A length below the header. */
	memcpy(buf, "\x00\x00\x00\x03\x01\x01\x00\x00", 8);
	talker_case(&a, buf, 8, PEER_REASON_MALFORMED, PEER_CLOSE_MALFORMED);
	/* A keepalive before the hello. */
	memset(&m, 0, sizeof(m));
	m.type = PEER_MSG_KEEPALIVE;
	n = (size_t)peer_msg_encode(&m, buf, sizeof(buf));
	talker_case(&a, buf, n, PEER_REASON_UNEXPECTED, PEER_CLOSE_UNEXPECTED);
	/* A certificate of site-b, but a hello from another site. */
	n = encode_hello(buf, sizeof(buf), "site-c", 1);
	talker_case(&a, buf, n, PEER_REASON_SITE_MISMATCH, PEER_CLOSE_SITE);
	assert_int_equal(peer_mgr_refused(&a.mgr, PEER_REASON_VERSION_MISMATCH), 1);
	assert_int_equal(peer_mgr_refused(&a.mgr, PEER_REASON_MALFORMED), 1);
	assert_int_equal(peer_mgr_refused(&a.mgr, PEER_REASON_UNEXPECTED), 1);
	assert_int_equal(peer_mgr_refused(&a.mgr, PEER_REASON_SITE_MISMATCH), 1);
	assert_int_equal(sum_refused(&a.mgr), 4);

	/* A proper hello brings the session up; a route generation gap ends it. */
	{
		static struct talker t;
		struct side *one[1] = { &a };

		n = encode_hello(buf, sizeof(buf), "site-b", 77);
		memset(&m, 0, sizeof(m));
		m.type = PEER_MSG_ROUTE;
		m.u.route.generation = 5; /* the hello said 0 */
		n += (size_t)peer_msg_encode(&m, buf + n, sizeof(buf) - n);
		talker_open(&t, peer_mgr_listen_port(&a.mgr), buf, n);
		w.counter = &a.downs;
		w.above = 0;
		assert_true(drive(one, 1, 2000, count_above, &w, talker_turn, &t));
		assert_int_equal(a.ups, 1);
		assert_int_equal(a.last_down, PEER_REASON_UNEXPECTED);
		assert_int_equal(sess(&a)->stats.lost[PEER_REASON_UNEXPECTED], 1);
		drive(one, 1, 50, NULL, NULL, talker_turn, &t);
		assert_int_equal(talker_close_reason(&t), PEER_CLOSE_UNEXPECTED);
		talker_close(&t);
	}
	side_stop(&a);
}

/* --- failures of an up session --- */

struct backoff_watch {
	struct pair *p;
	uint64_t seen_connects;
	unsigned int n;
	uint64_t at[8]; /* times of outbound connection attempts */
	uint64_t delay[8]; /* back-off delay chosen before each */
};

static bool
watch_connects(void *arg)
{
	struct backoff_watch *w = arg;
	struct peer_session *s = sess(&w->p->a);

	if (s->stats.connects != w->seen_connects && w->n < 8) {
		w->at[w->n] = now_ns();
		w->n++;
		w->seen_connects = s->stats.connects;
	}
	if (w->n < 8)
		w->delay[w->n] = s->backoff.last_delay_ns;
	return w->n == 6;
}

static bool
a_down(void *arg)
{
	return !sess(&((struct pair *)arg)->a)->up;
}

static void
test_kill_and_backoff(void **state)
{
	static struct pair p;
	static struct backoff_watch w;
	uint64_t t_kill, t_up;
	struct peer_session *sa;
	unsigned int i;

	(void)state;
	pair_up(&p);
	sa = sess(&p.a);

	/* Cut the connection mid-stream: both ends see it and come back. */
	t_kill = now_ns();
	assert_int_equal(shutdown(sa->active->tls.fd, SHUT_RDWR), 0);
	assert_true(drive(p.both, 2, 1000, a_down, &p, NULL, NULL));
	assert_int_equal(sa->stats.lost[PEER_REASON_PEER_CLOSED], 1);
	assert_true(drive(p.both, 2, 2000, both_settled, &p, NULL, NULL));
	t_up = now_ns();
	assert_int_equal(p.a.ups, 2);
	assert_int_equal(sess(&p.b)->stats.lost[PEER_REASON_PEER_CLOSED], 1);
	/* The first retry waits at least half the minimum back-off. */
	assert_true(t_up - t_kill >= BACKOFF_MIN_MS / 2 * MS);
	assert_true(t_up - t_kill < 1000 * MS);

	/* site-b goes away: site-a retries at doubling intervals, with jitter. */
	side_stop(&p.b);
	assert_true(drive(p.both, 2, 1000, a_down, &p, NULL, NULL));
	assert_int_equal(sa->stats.lost[PEER_REASON_CLOSE_RECEIVED], 1);
	memset(&w, 0, sizeof(w));
	w.p = &p;
	w.seen_connects = sa->stats.connects;
	w.at[0] = 0;
	{
		uint64_t t0 = now_ns();

		assert_true(drive(p.both, 2, 3000, watch_connects, &w, NULL, NULL));
		for (i = 0; i < w.n; i++) {
			uint64_t from = i == 0 ? t0 : w.at[i - 1];
			uint64_t gap = w.at[i] - from;
			uint64_t c = BACKOFF_MIN_MS * MS << (i < 3 ? i : 3);

			if (c > BACKOFF_MAX_MS * MS)
				c = BACKOFF_MAX_MS * MS;
			if (i == 0)
				continue; /* t0 is only near the loss */
			/* Poll wakes at the timer; allow for a loaded machine above. */
			if (gap + 2 * MS < c / 2 || gap > c + 40 * MS)
				fprintf(stderr, "attempt %u: gap %llu ms, ceiling %llu ms\n", i,
					(unsigned long long)(gap / MS),
					(unsigned long long)(c / MS));
			assert_true(gap + 2 * MS >= c / 2);
			assert_true(gap <= c + 40 * MS);
		}
	}
	assert_true(sa->stats.refused[PEER_REASON_CONNECT_FAILED] >= 5);
	assert_true(sa->backoff.failures >= 6);

	/* site-b restarts on its old port: site-a is back within one back-off. */
	side_start(&p.b, "site-b", "127.0.0.2",
		   ntohs(((const struct sockaddr_in *)&sa->conf.remote)->sin_port), &good_b);
	side_add_peer(&p.b, "site-a", "127.0.0.1", peer_mgr_listen_port(&p.a.mgr), true);
	assert_true(drive(p.both, 2, 2 * BACKOFF_MAX_MS + 1000, both_settled, &p, NULL, NULL));
	assert_int_equal(sa->backoff.failures, 0);
	pair_stop(&p);
}

static void
test_hold_timeout(void **state)
{
	static struct pair p;
	uint64_t t_freeze, t_down;
	struct wait_count w;

	(void)state;
	pair_up(&p);
	/* site-b's control loop stops; its kernel still acknowledges TCP. */
	p.b.running = false;
	t_freeze = now_ns();
	w.counter = &p.a.downs;
	w.above = 0;
	assert_true(drive(p.both, 2, 2000, count_above, &w, NULL, NULL));
	t_down = now_ns();
	assert_int_equal(p.a.last_down, PEER_REASON_HOLD_TIMEOUT);
	/* The last keepalive came at most one interval before the freeze. */
	assert_true(t_down - t_freeze >= (HOLD_MS - HOLD_MS / 3) * MS - 5 * MS);
	/* No upper bound but drive()'s: a loaded machine runs the loop late, never early. */
	/* site-b wakes up, reads site-a's close, and they peer again. */
	p.b.running = true;
	assert_true(drive(p.both, 2, 3000, both_settled, &p, NULL, NULL));
	assert_true(sess(&p.b)->stats.lost[PEER_REASON_CLOSE_RECEIVED] +
			    sess(&p.b)->stats.lost[PEER_REASON_PEER_CLOSED] >=
		    1);
	pair_stop(&p);
}

static bool
a_on_new_instance(void *arg)
{
	struct side *const *s = arg; /* a, b2 */
	const struct peer_session *sa = sess(s[0]);

	return sa->active != NULL && sa->active->peer_instance == s[1]->mgr.conf.instance_id &&
	       n_conns(sa) == 1 && sess(s[1])->up;
}

static void
test_peer_restart(void **state)
{
	static struct pair p;
	static struct side b2;
	struct side *three[3], *ab2[2];
	const struct conf_prefix *got;
	struct conf_prefix pb;
	unsigned int n;
	uint32_t gen;
	uint64_t t0;

	(void)state;
	pair_up(&p);
	/*
	 * site-b's host dies without a FIN (its process is frozen here), and
	 * site-b comes back on the same address as a new process, serving
	 * another prefix. site-a takes the new connection at once, without
	 * waiting out the hold time on the old one: the hello's instance id
	 * tells a restart from a duplicate.
	 */
	p.b.running = false;
	side_start(&b2, "site-b", "127.0.0.2", 0, &good_b);
	side_add_peer(&b2, "site-a", "127.0.0.1", peer_mgr_listen_port(&p.a.mgr), true);
	set_prefix4(&pb, "10.22.0.0", 16);
	assert_int_equal(peer_session_set_prefixes(sess(&b2), &pb, 1), 0);
	three[0] = &p.a;
	three[1] = &p.b;
	three[2] = &b2;
	ab2[0] = &p.a;
	ab2[1] = &b2;
	t0 = now_ns();
	assert_true(drive(three, 3, 2000, a_on_new_instance, ab2, NULL, NULL));
	assert_true(now_ns() - t0 < HOLD_MS * MS / 2);
	assert_int_equal(sess(&p.a)->stats.peer_restarts, 1);
	assert_int_equal(p.a.downs, 0);
	assert_int_equal(sum_lost(sess(&p.a)), 0);
	assert_true(sess(&b2)->up);
	/* The routes are the new instance's. */
	assert_true(peer_session_learned(sess(&p.a), now_ns(), &got, &n, &gen));
	assert_int_equal(n, 1);
	assert_memory_equal(got, &pb, sizeof(pb));
	side_stop(&b2);
	pair_stop(&p);
}

/* --- attackers do not slow a good session --- */

#define LORIS 2

struct attack {
	struct pair *p;
	uint16_t port;
	int loris[LORIS];
	uint64_t loris_next[LORIS];
	unsigned int loris_sent[LORIS];
	int garbage;
	uint64_t garbage_next;
	unsigned int garbage_sent, unknown_sent;
	/* Pings: site-a sends a keepalive, site-b echoes it at once. */
	uint64_t ping_tx, next_ping;
	unsigned int pings, answered;
	uint64_t max_rtt_ns;
};

static void
attack_turn(void *arg, uint64_t now)
{
	struct attack *x = arg;
	unsigned int i;
	char junk[64];

	for (i = 0; i < LORIS; i++) {
		/*
		 * One byte every 50 ms of a plausible ClientHello (record
		 * header, handshake header, legacy version), then zeros: the
		 * record never ends.
		 */
		static const uint8_t hello[] = { 0x16, 0x03, 0x01, 0x02, 0x00, 0x01,
						 0x00, 0x01, 0xfc, 0x03, 0x03 };

		if (x->loris[i] < 0) {
			x->loris[i] = raw_connect("127.0.0.2", x->port);
			x->loris_next[i] = now;
			x->loris_sent[i] = 0;
		}
		if (cc_time_after_eq(now, x->loris_next[i])) {
			uint8_t b = x->loris_sent[i] < sizeof(hello) ? hello[x->loris_sent[i]] : 0;

			x->loris_sent[i]++;
			if (send(x->loris[i], &b, 1, MSG_NOSIGNAL) < 0 && errno != EAGAIN &&
			    errno != ENOTCONN) {
				close(x->loris[i]);
				x->loris[i] = -1; /* dropped: come back */
			}
			x->loris_next[i] = now + 50 * MS;
		}
	}
	if (cc_time_after_eq(now, x->garbage_next)) {
		if (x->garbage >= 0)
			close(x->garbage);
		x->garbage = raw_connect(x->garbage_sent % 3 == 2 ? "127.0.0.3" : "127.0.0.2",
					 x->port);
		x->unknown_sent += x->garbage_sent % 3 == 2;
		x->garbage_sent++;
		x->garbage_next = now + 20 * MS;
	}
	if (x->garbage >= 0) {
		for (i = 0; i < sizeof(junk); i++)
			junk[i] = (char)(0x41 + (x->garbage_sent * 7 + i * 13) % 50);
		(void)send(x->garbage, junk, sizeof(junk), MSG_NOSIGNAL);
	}
	/* The answer to the ping in flight? */
	if (x->ping_tx != 0 && x->p->a.want_echo_rx_ns != 0) {
		uint64_t rtt = x->p->a.want_echo_rx_ns - x->ping_tx;

		x->answered++;
		x->max_rtt_ns = rtt > x->max_rtt_ns ? rtt : x->max_rtt_ns;
		x->ping_tx = 0;
		x->next_ping = now + 20 * MS;
	} else if (x->ping_tx != 0 && now - x->ping_tx > 1000 * MS) {
		x->max_rtt_ns = UINT64_MAX; /* no answer within 1 s: the session was blocked */
		x->ping_tx = 0;
	}
	if (x->ping_tx == 0 && cc_time_after_eq(now, x->next_ping)) {
		x->ping_tx = now_ns();
		x->p->a.want_echo_ns = x->ping_tx;
		x->p->a.want_echo_rx_ns = 0;
		assert_int_equal(peer_session_send_keepalive(sess(&x->p->a), x->ping_tx), 0);
		x->pings++;
	}
}

static void
test_loris_and_garbage(void **state)
{
	static struct pair p;
	static struct attack x;
	unsigned int i;

	(void)state;
	pair_up(&p);
	p.b.echo = true;
	memset(&x, 0, sizeof(x));
	x.p = &p;
	x.port = peer_mgr_listen_port(&p.a.mgr);
	for (i = 0; i < LORIS; i++)
		x.loris[i] = -1;
	x.garbage = -1;
	x.next_ping = now_ns() + 50 * MS;
	assert_true(drive(p.both, 2, 2000, NULL, NULL, attack_turn, &x));
	for (i = 0; i < LORIS; i++)
		if (x.loris[i] >= 0)
			close(x.loris[i]);
	if (x.garbage >= 0)
		close(x.garbage);

	fprintf(stderr, "pings %u answered %u, max round trip %.2f ms; garbage %u\n", x.pings,
		x.answered, (double)x.max_rtt_ns / 1e6, x.garbage_sent);
	/*
	 * The good session never noticed: every keepalive answered (the last may
	 * still be in flight). The round trip is printed, not bounded tighter
	 * than "not blocked": on a loaded machine a turn of the loop can take
	 * tens of ms without anything being wrong.
	 */
	assert_true(x.answered >= 20);
	assert_true(x.answered + (x.ping_tx != 0) == x.pings);
	assert_true(x.max_rtt_ns < 1000 * MS);
	assert_int_equal(p.a.downs, 0);
	assert_int_equal(sum_lost(sess(&p.a)), 0);
	/* The attackers were each dropped for their own reason. */
	assert_true(peer_mgr_refused(&p.a.mgr, PEER_REASON_HANDSHAKE_TIMEOUT) >= LORIS);
	assert_true(peer_mgr_refused(&p.a.mgr, PEER_REASON_NOT_TLS) >= 10);
	assert_true(p.a.mgr.refused[PEER_REASON_UNKNOWN_ADDRESS] >= 5);
	pair_stop(&p);
}

/* --- credential reload --- */

static void
copy_file(const char *from, const char *to)
{
	char tmp[600], buf[4096];
	FILE *in = fopen(from, "rb"), *out;
	size_t n;

	assert_non_null(in);
	/* Replace by rename, as a rotation tool would. */
	snprintf(tmp, sizeof(tmp), "%s.new", to);
	out = fopen(tmp, "wb");
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(rename(tmp, to), 0);
}

static void
install(const char *dir, const char *pki_name, const char *as)
{
	char from[512], to[512];

	pki_path(from, sizeof(from), pki_name);
	snprintf(to, sizeof(to), "%s/%s", dir, as);
	copy_file(from, to);
}

/* The serial number of the certificate in FILE, as hex. */
static void
cert_serial(const char *file, char *out, size_t size)
{
	FILE *f = fopen(file, "r");
	X509 *x;
	BIGNUM *bn;
	char *hex;

	assert_non_null(f);
	x = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	assert_non_null(x);
	bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(x), NULL);
	hex = BN_bn2hex(bn);
	snprintf(out, size, "%s", hex);
	OPENSSL_free(hex);
	BN_free(bn);
	X509_free(x);
}

static void
peer_serial(const struct peer_session *s, char *out, size_t size)
{
	X509 *x = SSL_get0_peer_certificate(s->active->tls.ssl);
	BIGNUM *bn;
	char *hex;

	assert_non_null(x);
	bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(x), NULL);
	hex = BN_bn2hex(bn);
	snprintf(out, size, "%s", hex);
	OPENSSL_free(hex);
	BN_free(bn);
}

static void
test_reload(void **state)
{
	static struct pair p;
	char dir_a[] = "/tmp/peer-reload-a-XXXXXX", dir_b[] = "/tmp/peer-reload-b-XXXXXX";
	char crl_a[256], ca_b[256], cert_b[256], path[512], want[128], got[128], err[256];
	struct peer_conn *before;
	struct wait_count w;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir_a));
	assert_non_null(mkdtemp(dir_b));
	/* site-a checks a CRL that revokes nothing yet; site-b runs on the later-revoked cert. */
	install(dir_a, "crl-empty.pem", "crl.pem");
	install(dir_b, "ca.crt", "ca.crt");
	install(dir_b, "site-b-revoked.crt", "site-b.crt");
	install(dir_b, "site-b-revoked.key", "site-b.key");
	snprintf(crl_a, sizeof(crl_a), "%s/crl.pem", dir_a);
	snprintf(ca_b, sizeof(ca_b), "%s/ca.crt", dir_b);
	snprintf(cert_b, sizeof(cert_b), "%s/site-b", dir_b);
	{
		const struct creds ca = { "ca.crt", "site-a", crl_a };
		const struct creds cb = { ca_b, cert_b, NULL };

		pair_start(&p, &ca, &cb);
	}
	assert_true(drive(p.both, 2, 3000, both_settled, &p, NULL, NULL));
	before = sess(&p.a)->active;

	/* Unchanged files: nothing happens, not even a re-verification. */
	assert_int_equal(peer_mgr_reload_tls(&p.a.mgr, now_ns(), err, sizeof(err)), 0);
	assert_int_equal(peer_mgr_reload_tls(&p.b.mgr, now_ns(), err, sizeof(err)), 0);
	assert_int_equal(p.a.mgr.tls.generation, 1);

	/* A broken new certificate is refused; the running one stays. */
	snprintf(path, sizeof(path), "%s/site-b.crt", dir_b);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n", f);
	fclose(f);
	assert_true(peer_mgr_reload_tls(&p.b.mgr, now_ns(), err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "cert"));
	assert_int_equal(p.b.mgr.tls.generation, 1);

	/* Rotation to site-b's other certificate: the session stays as it is... */
	install(dir_b, "site-b.crt", "site-b.crt");
	install(dir_b, "site-b.key", "site-b.key");
	assert_int_equal(peer_mgr_reload_tls(&p.b.mgr, now_ns(), err, sizeof(err)), 1);
	assert_int_equal(p.b.mgr.tls.generation, 2);
	assert_true(drive(p.both, 2, 300, NULL, NULL, NULL, NULL));
	assert_ptr_equal(sess(&p.a)->active, before);
	assert_int_equal(p.a.downs + p.b.downs, 0);
	/* ...and the next connection presents the new certificate. */
	assert_int_equal(shutdown(sess(&p.a)->active->tls.fd, SHUT_RDWR), 0);
	assert_true(drive(p.both, 2, 1000, a_down, &p, NULL, NULL));
	assert_true(drive(p.both, 2, 3000, both_settled, &p, NULL, NULL));
	pki_path(path, sizeof(path), "site-b.crt");
	cert_serial(path, want, sizeof(want));
	peer_serial(sess(&p.a), got, sizeof(got));
	assert_string_equal(got, want);

	/* Back to the old certificate, then its revocation reaches site-a. */
	install(dir_b, "site-b-revoked.crt", "site-b.crt");
	install(dir_b, "site-b-revoked.key", "site-b.key");
	assert_int_equal(peer_mgr_reload_tls(&p.b.mgr, now_ns(), err, sizeof(err)), 1);
	assert_int_equal(shutdown(sess(&p.a)->active->tls.fd, SHUT_RDWR), 0);
	assert_true(drive(p.both, 2, 1000, a_down, &p, NULL, NULL));
	assert_true(drive(p.both, 2, 3000, both_settled, &p, NULL, NULL));
	pki_path(path, sizeof(path), "site-b-revoked.crt");
	cert_serial(path, want, sizeof(want));
	peer_serial(sess(&p.a), got, sizeof(got));
	assert_string_equal(got, want);
	w.counter = &p.a.downs;
	w.above = p.a.downs;
	install(dir_a, "crl.pem", "crl.pem");
	assert_int_equal(peer_mgr_reload_tls(&p.a.mgr, now_ns(), err, sizeof(err)), 1);
	assert_true(drive(p.both, 2, 1000, count_above, &w, NULL, NULL));
	assert_int_equal(p.a.last_down, PEER_REASON_CERT_REVOKED);
	assert_int_equal(sess(&p.a)->stats.lost[PEER_REASON_CERT_REVOKED], 1);
	assert_int_equal(sess(&p.a)->stats.reverify_failed, 1);
	/* Reconnects are refused for the same reason until site-b rotates. */
	{
		struct wait_refused wr = { &p.a.mgr, PEER_REASON_CERT_REVOKED, 0 };

		assert_true(drive(p.both, 2, 2000, refused_above, &wr, NULL, NULL));
	}
	install(dir_b, "site-b.crt", "site-b.crt");
	install(dir_b, "site-b.key", "site-b.key");
	assert_int_equal(peer_mgr_reload_tls(&p.b.mgr, now_ns(), err, sizeof(err)), 1);
	assert_true(drive(p.both, 2, 3000, both_settled, &p, NULL, NULL));
	pair_stop(&p);

	snprintf(path, sizeof(path), "rm -rf %s %s", dir_a, dir_b);
	assert_int_equal(system(path), 0);
}

static void
test_bad_credentials(void **state)
{
	struct peer_mgr m;
	struct peer_mgr_conf conf;
	char err[256];

	(void)state;
	memset(&conf, 0, sizeof(conf));
	snprintf(conf.local_site, sizeof(conf.local_site), "site-a");
	conf.max_pending = 1;
	pki_path(conf.files.ca, sizeof(conf.files.ca), "ca.crt");
	pki_path(conf.files.cert, sizeof(conf.files.cert), "site-a.crt");
	pki_path(conf.files.key, sizeof(conf.files.key), "site-b.key");
	assert_int_equal(peer_mgr_init(&m, &conf, NULL, NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "does not match"));
	pki_path(conf.files.key, sizeof(conf.files.key), "missing.key");
	assert_int_equal(peer_mgr_init(&m, &conf, NULL, NULL, NULL, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "missing.key"));
	pki_path(conf.files.key, sizeof(conf.files.key), "site-a.key");
	pki_path(conf.files.ca, sizeof(conf.files.ca), "site-a.key");
	assert_int_equal(peer_mgr_init(&m, &conf, NULL, NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "ca"));
	pki_path(conf.files.ca, sizeof(conf.files.ca), "ca.crt");
	pki_path(conf.files.crl, sizeof(conf.files.crl), "ca.crt");
	assert_int_equal(peer_mgr_init(&m, &conf, NULL, NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "crl"));
	conf.files.crl[0] = '\0';
	assert_int_equal(peer_mgr_init(&m, &conf, NULL, NULL, NULL, err, sizeof(err)), 0);
	peer_mgr_fini(&m, now_ns());
	/* A good certificate followed by a damaged block is a damaged file. */
	{
		char tmp[] = "/tmp/peer-ca-XXXXXX", from[512];
		int fd = mkstemp(tmp);

		assert_true(fd >= 0);
		close(fd);
		pki_path(from, sizeof(from), "ca.crt");
		copy_file(from, tmp);
		{
			FILE *f = fopen(tmp, "a");

			assert_non_null(f);
			fputs("-----BEGIN CERTIFICATE-----\nMIIB!!!!\n-----END CERTIFICATE-----\n", f);
			fclose(f);
		}
		snprintf(conf.files.ca, sizeof(conf.files.ca), "%s", tmp);
		assert_int_equal(peer_mgr_init(&m, &conf, NULL, NULL, NULL, err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, tmp));
		unlink(tmp);
	}
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_credentials),
		cmocka_unit_test(test_bad_software),
		cmocka_unit_test(test_up_and_exchange),
		{ "test_refused_other_ca", test_refused, NULL, NULL, &refused_other_ca },
		{ "test_refused_expired", test_refused, NULL, NULL, &refused_expired },
		{ "test_refused_wrong_site", test_refused, NULL, NULL, &refused_wrong_site },
		{ "test_refused_revoked", test_refused, NULL, NULL, &refused_revoked },
		cmocka_unit_test(test_strangers),
		cmocka_unit_test(test_protocol_errors),
		cmocka_unit_test(test_kill_and_backoff),
		cmocka_unit_test(test_hold_timeout),
		cmocka_unit_test(test_peer_restart),
		cmocka_unit_test(test_loris_and_garbage),
		cmocka_unit_test(test_reload),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s PKI_DIR\n", argv[0]);
		return 2;
	}
	pki = argv[1];
	if (getenv("PEER_TEST_LOG") != NULL)
		test_log = stderr;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
