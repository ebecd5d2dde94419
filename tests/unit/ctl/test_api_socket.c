/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The API socket: created 0600 with its parent directories, stale sockets
 * replaced and everything else refused, requests served through api_poll()
 * without blocking (silent clients, many clients, oversized requests), and
 * the ok/error wire format.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control/api.h"
#include "ctl_check.h"
#include "ctl_fixture.h"

struct sock_test {
	struct ctl_fixture *fx;
	char dir[64];
	char path[128];
	int fd;
};

/* One client connection run on its own thread. */
struct client {
	const char *path;
	const char *request; /* sent as is: include the '\n' */
	size_t request_size; /* 0 = strlen(request) */
	bool half_close; /* shutdown(SHUT_WR) after sending */
	char reply[65536];
	size_t reply_size;
	int connect_errno;
	int done; /* set last, atomically */
	pthread_t thread;
};

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int
client_connect(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	return fd;
}

/* A connection that does not wait for the server: -errno when refused. */
static int
client_connect_nonblock(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

/* Read to EOF (or 10 s) into BUF. */
static size_t
client_read_all(int fd, char *buf, size_t size)
{
	uint64_t deadline = now_ms() + 10000;
	size_t got = 0;

	while (got + 1 < size && now_ms() < deadline) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = recv(fd, buf + got, size - 1 - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	return got;
}

static void *
client_main(void *arg)
{
	struct client *c = arg;
	size_t size = c->request_size != 0 ? c->request_size : strlen(c->request);
	int fd = client_connect(c->path);

	if (fd < 0) {
		c->connect_errno = -fd;
	} else {
		if (send(fd, c->request, size, MSG_NOSIGNAL) != (ssize_t)size)
			c->connect_errno = errno;
		if (c->half_close)
			shutdown(fd, SHUT_WR);
		c->reply_size = client_read_all(fd, c->reply, sizeof(c->reply));
		close(fd);
	}
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* REQUEST_SIZE 0 = strlen(request); HALF_CLOSE ends the request by EOF. */
static void
client_start_ex(struct client *c, const char *path, const char *request, size_t request_size,
		bool half_close)
{
	memset(c, 0, sizeof(*c));
	c->path = path;
	c->request = request;
	c->request_size = request_size;
	c->half_close = half_close;
	assert_int_equal(pthread_create(&c->thread, NULL, client_main, c), 0);
}

static void
client_start(struct client *c, const char *path, const char *request)
{
	client_start_ex(c, path, request, 0, false);
}

/* Poll the server as the control loop would until every client is done. */
static void
serve(struct sock_test *t, struct client *clients, unsigned int n)
{
	uint64_t deadline = now_ms() + 10000;
	unsigned int i, done;

	do {
		api_poll(&t->fx->rt, t->fd);
		usleep(1000);
		for (i = 0, done = 0; i < n; i++)
			done += __atomic_load_n(&clients[i].done, __ATOMIC_ACQUIRE);
	} while (done < n && now_ms() < deadline);
	for (i = 0; i < n; i++)
		pthread_join(clients[i].thread, NULL);
	assert_int_equal(done, n);
}

static int
setup(void **state)
{
	struct sock_test *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->fx = ctl_fixture_new();
	snprintf(t->dir, sizeof(t->dir), "/tmp/ctl-sock-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	/* Two missing levels: api_listen creates them. */
	snprintf(t->path, sizeof(t->path), "%s/run/longspan/api.sock", t->dir);
	t->fd = api_listen(t->path, stderr);
	assert_true(t->fd >= 0);
	*state = t;
	return 0;
}

static int
teardown(void **state)
{
	struct sock_test *t = *state;
	char cmd[256];

	api_close(t->fd, t->path);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	if (system(cmd) != 0)
		return -1;
	ctl_fixture_free(t->fx);
	free(t);
	return 0;
}

static void
test_listen_mode(void **state)
{
	struct sock_test *t = *state;
	struct stat st;

	assert_int_equal(lstat(t->path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_true((fcntl(t->fd, F_GETFL) & O_NONBLOCK) != 0);
	assert_true((fcntl(t->fd, F_GETFD) & FD_CLOEXEC) != 0);

	/* api_close removes the file. */
	api_close(t->fd, t->path);
	assert_int_equal(lstat(t->path, &st), -1);
	t->fd = api_listen(t->path, stderr);
	assert_true(t->fd >= 0);
}

static void
test_roundtrip(void **state)
{
	struct sock_test *t = *state;
	struct client c[4];

	client_start(&c[0], t->path, "show stats --json\n");
	client_start(&c[1], t->path, "frobnicate\n");
	client_start(&c[2], t->path, "reload /tmp/bad.conf\n");
	/* No newline: the half-close ends the request. */
	client_start_ex(&c[3], t->path, "show drops --nonzero", 0, true);
	serve(t, c, 4);

	assert_int_equal(strncmp(c[0].reply, "ok\n", 3), 0);
	ctl_check_json(c[0].reply + 3, c[0].reply_size - 3,
		       "d['rx_pkts'] == 1707 and d['workers']['1']['polls'] == 5000");
	assert_string_equal(c[1].reply, "error: unknown command 'frobnicate' (try 'help')\n");
	assert_int_equal(strncmp(c[2].reply, "error: reload: /tmp/bad.conf: not applied", 41), 0);
	assert_int_equal(ctl_count_lines(c[2].reply), 3);
	assert_int_equal(strncmp(c[3].reply, "ok\n", 3), 0);
	assert_true(CTL_HAS_LINE(c[3].reply, "no_route", "7"));
}

static void
test_oversized(void **state)
{
	struct sock_test *t = *state;
	static char big[4000];
	struct client c[2];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\n';
	client_start_ex(&c[0], t->path, big, sizeof(big), false);
	/* Exactly API_MAX_REQUEST_BYTES before the newline is accepted. */
	client_start_ex(&c[1], t->path, big + sizeof(big) - 1 - API_MAX_REQUEST_BYTES,
			API_MAX_REQUEST_BYTES + 1, false);
	serve(t, c, 2);
	assert_string_equal(c[0].reply,
			    "error: request too long (at most 1024 bytes before the newline)\n");
	assert_int_equal(strncmp(c[1].reply, "error: unknown command 'xxx", 27), 0);
}

static void
test_nul_byte(void **state)
{
	struct sock_test *t = *state;
	struct client c;

	client_start_ex(&c, t->path, "show\0stats\n", 11, false);
	serve(t, &c, 1);
	assert_string_equal(c.reply, "error: request contains a NUL byte\n");
}

static void
test_many_clients(void **state)
{
	struct sock_test *t = *state;
	enum { N = 3 * API_MAX_CLIENTS };
	struct client *c = calloc(N, sizeof(*c));
	unsigned int i;

	assert_non_null(c);
	for (i = 0; i < N; i++)
		client_start(&c[i], t->path, i % 2 ? "show peers --json\n" : "show ports\n");
	serve(t, c, N);
	for (i = 0; i < N; i++) {
		assert_int_equal(c[i].connect_errno, 0);
		assert_int_equal(strncmp(c[i].reply, "ok\n", 3), 0);
	}
	ctl_check_json(c[1].reply + 3, c[1].reply_size - 3, "d['peers']['site-b']['rx_ce'] == 13");
	free(c);
}

/* A client that never sends must not hold up the control thread or others. */
static void
test_silent_client(void **state)
{
	struct sock_test *t = *state;
	struct client c;
	uint64_t start, worst = 0;
	char buf[256];
	int silent;
	unsigned int i;

	silent = client_connect(t->path);
	assert_true(silent >= 0);
	for (i = 0; i < 20; i++) {
		start = now_ms();
		api_poll(&t->fx->rt, t->fd);
		worst = RTE_MAX(worst, now_ms() - start);
	}
	assert_true(worst < 20);
	client_start(&c, t->path, "version\n");
	serve(t, &c, 1);
	assert_int_equal(strncmp(c.reply, "ok\n", 3), 0);

	/* After API_REQUEST_TIMEOUT_NS the server says why and hangs up. */
	start = now_ms();
	while (now_ms() - start < API_REQUEST_TIMEOUT_NS / 1000000 + 500) {
		api_poll(&t->fx->rt, t->fd);
		usleep(5000);
	}
	memset(buf, 0, sizeof(buf));
	assert_true(recv(silent, buf, sizeof(buf) - 1, MSG_DONTWAIT) > 0);
	assert_string_equal(buf, "error: no complete request line within 1000 ms\n");
	assert_int_equal(recv(silent, buf, sizeof(buf), MSG_DONTWAIT), 0);
	close(silent);
}

/*
 * Drain FD without blocking: returns 1 once the server has closed it (EOF
 * or reset), 0 while it is open. *TOLD is set when what came starts with
 * "error: ".
 */
static int
drain_closed(int fd, bool *told, size_t *got)
{
	char buf[65536];

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
			return 1;
		if (n < 0)
			return 0;
		if (*got == 0 && n >= 7 && strncmp(buf, "error: ", 7) == 0)
			*told = true;
		*got += (size_t)n;
	}
}

/*
 * 500 idle connections at once: none is refused, a request behind them is
 * answered within 100 ms, and every idle one is closed with an error line
 * by the request deadline.
 */
static void
test_idle_flood(void **state)
{
	struct sock_test *t = *state;
	enum { N = 500 };
	uint64_t start, took, deadline;
	int *idle = calloc(N, sizeof(*idle));
	bool *told = calloc(N, sizeof(*told));
	size_t *got = calloc(N, sizeof(*got));
	unsigned int i, refused = 0, closed = 0, n_told = 0;
	struct client c;

	assert_true(idle != NULL && told != NULL && got != NULL);
	for (i = 0; i < N; i++) {
		idle[i] = client_connect_nonblock(t->path);
		refused += idle[i] < 0;
	}
	assert_int_equal(refused, 0);
	api_poll(&t->fx->rt, t->fd);

	start = now_ms();
	client_start(&c, t->path, "show stats\n");
	serve(t, &c, 1);
	took = now_ms() - start;
	assert_int_equal(strncmp(c.reply, "ok\n", 3), 0);
	if (took >= 100)
		fail_msg("show stats behind %d idle connections took %" PRIu64 " ms", N, took);

	deadline = now_ms() + API_REQUEST_TIMEOUT_NS / 1000000 + 1000;
	while (closed < N && now_ms() < deadline) {
		api_poll(&t->fx->rt, t->fd);
		usleep(5000);
		for (i = 0, closed = 0; i < N; i++) {
			if (idle[i] >= 0 && drain_closed(idle[i], &told[i], &got[i]) == 1) {
				close(idle[i]);
				idle[i] = -1;
			}
			closed += idle[i] < 0;
		}
	}
	for (i = 0; i < N; i++) {
		n_told += told[i];
		if (idle[i] >= 0)
			close(idle[i]);
	}
	assert_int_equal(closed, N);
	assert_int_equal(n_told, N);
	free(idle);
	free(told);
	free(got);
}

/*
 * More than a socket buffer (264 KB) and less than the reply limit; text,
 * which is cheap to build (under 3 ms here, 64 of them in the test). A
 * whole reply ends with the paging hint.
 */
#define SLOW_REQUEST "show flows --limit 600\n"
#define SLOW_REPLY_END "for the others)\n"

/* A client that sent SLOW_REQUEST and reads nothing until told to. */
static int
slow_reader(const char *path)
{
	int fd = client_connect_nonblock(path);

	if (fd < 0)
		fail_msg("slow reader refused: %s", strerror(-fd));
	assert_int_equal(send(fd, SLOW_REQUEST, strlen(SLOW_REQUEST), MSG_NOSIGNAL),
			 (ssize_t)strlen(SLOW_REQUEST));
	return fd;
}

/* Poll the server until each of the N readers has a reply waiting (10 s at most). */
static void
serve_until_replied(struct sock_test *t, const int *fds, unsigned int n)
{
	uint64_t deadline = now_ms() + 10000;
	unsigned int i, ready;
	char c;

	do {
		api_poll(&t->fx->rt, t->fd);
		usleep(1000);
		for (i = 0, ready = 0; i < n; i++)
			ready += recv(fds[i], &c, 1, MSG_PEEK | MSG_DONTWAIT) == 1;
	} while (ready < n && now_ms() < deadline);
	assert_int_equal(ready, n);
}

/* Time from start to reply of REQUEST, polling the server meanwhile. */
static uint64_t
timed_request(struct sock_test *t, struct client *c, const char *request)
{
	uint64_t start = now_ms();

	client_start(c, t->path, request);
	serve(t, c, 1);
	return now_ms() - start;
}

/*
 * Clients that never read their (large) replies hold nobody up, even when
 * they hold every slot (the one stalled longest makes room); readers slower
 * than API_CLIENT_TIMEOUT_NS are cut off; a reply over API_MAX_REPLY_BYTES
 * becomes an error that says how to ask for less.
 */
static void
test_slow_readers(void **state)
{
	struct sock_test *t = *state;
	enum { N = API_MAX_CLIENTS };
	static char buf[4 << 20];
	int slow[N];
	uint64_t took, deadline;
	struct client c;
	unsigned int i;

	ctl_fixture_big_flows(t->fx, 4096);
	for (i = 0; i < N - 1; i++)
		slow[i] = slow_reader(t->path);
	serve_until_replied(t, slow, N - 1);
	took = timed_request(t, &c, "version\n");
	assert_int_equal(strncmp(c.reply, "ok\n", 3), 0);
	if (took >= 100)
		fail_msg("version behind %d slow readers took %" PRIu64 " ms", N - 1, took);

	/* The last slot too: a new client still gets its answer at once. */
	slow[N - 1] = slow_reader(t->path);
	serve_until_replied(t, slow, N);
	took = timed_request(t, &c, "version\n");
	assert_int_equal(strncmp(c.reply, "ok\n", 3), 0);
	if (took >= 100)
		fail_msg("version with every slot a slow reader took %" PRIu64 " ms", took);

	/* Cut off at their deadline, their replies unfinished. */
	deadline = now_ms() + API_CLIENT_TIMEOUT_NS / 1000000 + 500;
	while (now_ms() < deadline) {
		api_poll(&t->fx->rt, t->fd);
		usleep(5000);
	}
	for (i = 0; i < N; i++) {
		size_t got = 0;
		ssize_t n;

		while ((n = recv(slow[i], buf + got, sizeof(buf) - got, MSG_DONTWAIT)) > 0)
			got += (size_t)n;
		if (n != 0 && !(n < 0 && errno == ECONNRESET))
			fail_msg("slow reader %u: not closed by the server (%s)", i, strerror(errno));
		assert_true(got > 3 && strncmp(buf, "ok\n", 3) == 0);
		if (got >= strlen(SLOW_REPLY_END) &&
		    memcmp(buf + got - strlen(SLOW_REPLY_END), SLOW_REPLY_END,
			   strlen(SLOW_REPLY_END)) == 0)
			fail_msg("slow reader %u: got its whole reply (%zu bytes): not slow", i, got);
		close(slow[i]);
	}

	timed_request(t, &c, "show flows --json --limit 100000\n");
	if (strncmp(c.reply, "error: reply of ", 16) != 0 || strstr(c.reply, "--page") == NULL)
		fail_msg("oversized reply: %.200s", c.reply);
	/* The same request within the limit is answered whole. */
	timed_request(t, &c, "show flows --json --limit 10\n");
	assert_int_equal(strncmp(c.reply, "ok\n", 3), 0);
}

static void
test_stale_and_refusals(void **state)
{
	struct sock_test *t = *state;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char path[160], long_path[200];
	struct stat st;
	FILE *devnull = fopen("/dev/null", "w");
	int fd;

	assert_non_null(devnull);
	/* A live server: refused, and its socket left alone. */
	assert_int_equal(api_listen(t->path, devnull), -EADDRINUSE);
	assert_int_equal(lstat(t->path, &st), 0);

	/* A stale socket (bound, nobody listening) is replaced. */
	snprintf(path, sizeof(path), "%s/stale.sock", t->dir);
	assert_true(strlen(path) < sizeof(sun.sun_path));
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(fd);
	fd = api_listen(path, stderr);
	assert_true(fd >= 0);
	api_close(fd, path);

	/* A regular file is never removed. */
	snprintf(path, sizeof(path), "%s/file", t->dir);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	close(fd);
	assert_int_equal(api_listen(path, devnull), -EEXIST);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));

	/* A parent that is a file. */
	snprintf(path, sizeof(path), "%s/file/api.sock", t->dir);
	assert_true(api_listen(path, devnull) < 0);

	memset(long_path, 'a', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = '\0';
	assert_int_equal(api_listen(long_path, devnull), -ENAMETOOLONG);
	assert_int_equal(api_listen("", devnull), -EINVAL);
	fclose(devnull);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_listen_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oversized, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nul_byte, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_clients, setup, teardown),
		cmocka_unit_test_setup_teardown(test_silent_client, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slow_readers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_and_refusals, setup, teardown),
	};

	return cmocka_run_group_tests_name("ctl_api_socket", tests, NULL, NULL);
}
