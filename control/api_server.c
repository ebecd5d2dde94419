/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The non-blocking UNIX-socket server of the control API, polled by the
 * control loop (protocol in api.h; requests run through api_exec()).
 *
 * The server never blocks the control thread: the listening socket and
 * every accepted connection are non-blocking, a connection lives in a slot
 * of api_clients[] across polls until its reply is written or its deadline
 * passes, and each poll accepts and executes a bounded number of requests.
 */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include "api.h"

/* Connections the kernel queues before accept (capped by net.core.somaxconn). */
#define API_BACKLOG 1024

/*
 * A connection: reading its request, then writing its reply. Slots are
 * owned by the control thread; used = false marks a free slot.
 */
struct api_client {
	bool used;
	bool request_done; /* a full line, or EOF after some bytes */
	bool too_long; /* API_MAX_REQUEST_BYTES passed without a newline */
	bool stalled; /* the last write found the client's socket full */
	int fd;
	uint64_t accepted_ns; /* CLOCK_MONOTONIC */
	uint64_t active_ns; /* accept, or the last bytes received or sent */
	uint64_t ready_seq; /* order of complete requests: executed oldest first */
	size_t in_length;
	char in[API_MAX_REQUEST_BYTES + 2]; /* request, its '\n', a NUL */
	char *reply; /* status line and body, malloc'd by open_memstream */
	size_t reply_size, reply_off;
};

static struct api_client api_clients[API_MAX_CLIENTS];
static uint64_t api_ready_seq;

enum api_io {
	API_IO_WAIT, /* would block: try again next poll */
	API_IO_READY, /* request complete */
	API_IO_DONE, /* finished or failed: close */
};

static uint64_t
api_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Best effort, never blocking: the connection is closed either way. */
static void
api_send_line(int fd, const char *line)
{
	if (send(fd, line, strlen(line), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* Nothing more to do for a client that cannot take one line. */
	}
}

static void
api_client_close(struct api_client *c)
{
	char scratch[4096];
	unsigned int i;

	/*
	 * Drain what the client sent beyond the request (bounded): closing
	 * with unread data would reset the connection and could cost the
	 * client its reply.
	 */
	shutdown(c->fd, SHUT_WR);
	for (i = 0; i < 16; i++)
		if (recv(c->fd, scratch, sizeof(scratch), MSG_DONTWAIT) <= 0)
			break;
	close(c->fd);
	free(c->reply);
	memset(c, 0, sizeof(*c));
}

/* Close a client that has not sent its request, telling it why. */
static void
api_client_drop(struct api_client *c, const char *why)
{
	api_send_line(c->fd, why);
	api_client_close(c);
}

static enum api_io
api_client_read(struct api_client *c, uint64_t now_ns)
{
	const size_t cap = API_MAX_REQUEST_BYTES + 1; /* the request and its '\n' */
	enum api_io io = API_IO_WAIT;

	while (c->in_length < cap) {
		ssize_t n = recv(c->fd, c->in + c->in_length, cap - c->in_length, MSG_DONTWAIT);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return API_IO_DONE;
			return io;
		}
		if (n == 0) {
			if (c->in_length == 0)
				return API_IO_DONE;
			c->request_done = true;
			break;
		}
		c->active_ns = now_ns;
		nl = memchr(c->in + c->in_length, '\n', (size_t)n);
		if (nl != NULL) {
			c->in_length = (size_t)(nl - c->in);
			c->request_done = true;
			break;
		}
		c->in_length += (size_t)n;
	}
	if (!c->request_done) {
		c->too_long = true;
		c->request_done = true;
	}
	c->ready_seq = ++api_ready_seq;
	return API_IO_READY;
}

/* Build the reply of a complete request; false if out of memory. */
static bool
api_client_execute(struct ls_runtime *rt, struct api_client *c)
{
	char *body = NULL;
	size_t body_size = 0;
	FILE *s, *b;
	int rc;

	s = open_memstream(&c->reply, &c->reply_size);
	if (s == NULL)
		return false;
	if (c->too_long) {
		fprintf(s, "error: request too long (at most %d bytes before the newline)\n",
			API_MAX_REQUEST_BYTES);
	} else if (memchr(c->in, '\0', c->in_length) != NULL) {
		fputs("error: request contains a NUL byte\n", s);
	} else {
		c->in[c->in_length] = '\0';
		b = open_memstream(&body, &body_size);
		if (b == NULL) {
			fputs("error: out of memory\n", s);
		} else {
			rc = api_exec(rt, c->in, b);
			fclose(b);
			if (body_size > API_MAX_REPLY_BYTES) {
				/* A client may pin at most this much of the daemon's memory. */
				fprintf(s,
					"error: reply of %zu bytes is over the API limit of %u bytes; "
					"ask for less (--page N, --limit N)\n",
					body_size, API_MAX_REPLY_BYTES);
			} else {
				fputs(rc == 0 ? "ok\n" : "error: ", s);
				if (rc != 0 && body_size == 0)
					fprintf(s, "%s\n", strerror(-rc));
				fwrite(body, 1, body_size, s);
				if (body_size > 0 && body[body_size - 1] != '\n')
					fputc('\n', s);
			}
			free(body);
		}
	}
	fclose(s);
	c->reply_off = 0;
	return c->reply != NULL;
}

static enum api_io
api_client_write(struct api_client *c, uint64_t now_ns)
{
	while (c->reply_off < c->reply_size) {
		ssize_t n = send(c->fd, c->reply + c->reply_off, c->reply_size - c->reply_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			c->stalled = errno == EAGAIN || errno == EWOULDBLOCK;
			return c->stalled ? API_IO_WAIT : API_IO_DONE;
		}
		c->reply_off += (size_t)n;
		c->active_ns = now_ns;
		c->stalled = false;
	}
	return API_IO_DONE;
}

/* Only root and the daemon's own user may talk to it (besides mode 0600). */
static bool
api_peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t size = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) != 0)
		return false;
	return cred.uid == 0 || cred.uid == geteuid();
}

static struct api_client *
api_client_free_slot(void)
{
	unsigned int i;

	for (i = 0; i < API_MAX_CLIENTS; i++)
		if (!api_clients[i].used)
			return &api_clients[i];
	return NULL;
}

/*
 * Make room in a full table: close the client idle longest among those
 * that keep a slot without using it, the ones that have not sent a
 * complete request (told why with an error line) and the ones that do not
 * read their reply (their socket is full: just closed). NULL when every
 * slot holds a request that is being answered.
 */
static struct api_client *
api_client_evict(void)
{
	static const char evicted[] = "error: closed: the API serves at most "
				      RTE_STR(API_MAX_CLIENTS) " connections and this one had sent "
				      "no complete request\n";
	struct api_client *idle = NULL;
	unsigned int i;

	for (i = 0; i < API_MAX_CLIENTS; i++) {
		struct api_client *c = &api_clients[i];

		if ((!c->request_done || c->stalled) &&
		    (idle == NULL || c->active_ns < idle->active_ns))
			idle = c;
	}
	if (idle != NULL && !idle->request_done)
		api_client_drop(idle, evicted);
	else if (idle != NULL)
		api_client_close(idle);
	return idle;
}

/* Is a connection waiting to be accepted? */
static bool
api_listen_pending(int listen_fd)
{
	struct pollfd pfd = { .fd = listen_fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN) != 0;
}

/*
 * Accept what is waiting, up to API_ACCEPT_PER_POLL, so that connections
 * do not pile up in the listen backlog behind idle ones; read each new
 * client's request at once. When every slot holds a request being
 * answered, the rest wait in the backlog for the next poll.
 */
static void
api_accept(int listen_fd, uint64_t now_ns)
{
	unsigned int i;

	for (i = 0; i < API_ACCEPT_PER_POLL; i++) {
		struct api_client *c = api_client_free_slot();
		int fd;

		if (c == NULL && api_listen_pending(listen_fd))
			c = api_client_evict();
		if (c == NULL)
			return;
		fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return; /* EAGAIN: nobody waiting; anything else: next poll */
		if (!api_peer_allowed(fd)) {
			api_send_line(fd, "error: permission denied\n");
			close(fd);
			continue;
		}
		memset(c, 0, sizeof(*c));
		c->used = true;
		c->fd = fd;
		c->accepted_ns = now_ns;
		c->active_ns = now_ns;
		if (api_client_read(c, now_ns) == API_IO_DONE)
			api_client_close(c);
	}
}

/* The complete request waiting longest for its reply, or NULL. */
static struct api_client *
api_client_next_ready(void)
{
	struct api_client *next = NULL;
	unsigned int i;

	for (i = 0; i < API_MAX_CLIENTS; i++) {
		struct api_client *c = &api_clients[i];

		if (c->used && c->request_done && c->reply == NULL &&
		    (next == NULL || c->ready_seq < next->ready_seq))
			next = c;
	}
	return next;
}

void
api_poll(struct ls_runtime *rt, int listen_fd)
{
	static const char late[] = "error: no complete request line within "
				   RTE_STR(API_REQUEST_TIMEOUT_MS) " ms\n";
	uint64_t now_ns = api_now_ns();
	struct api_client *c;
	unsigned int i;

	/* Deadlines and reads first: a request already sent is never evicted. */
	for (i = 0; i < API_MAX_CLIENTS; i++) {
		c = &api_clients[i];
		if (!c->used)
			continue;
		if (now_ns - c->accepted_ns > API_CLIENT_TIMEOUT_NS) {
			api_client_close(c);
			continue;
		}
		if (c->request_done)
			continue;
		if (api_client_read(c, now_ns) == API_IO_DONE)
			api_client_close(c);
		else if (!c->request_done && now_ns - c->accepted_ns > API_REQUEST_TIMEOUT_NS)
			api_client_drop(c, late);
	}
	if (listen_fd >= 0)
		api_accept(listen_fd, now_ns);
	/* Bound the control thread's time; the rest wait a poll, oldest first. */
	for (i = 0; i < API_EXEC_PER_POLL; i++) {
		c = api_client_next_ready();
		if (c == NULL)
			break;
		if (!api_client_execute(rt, c))
			api_client_close(c);
	}
	for (i = 0; i < API_MAX_CLIENTS; i++) {
		c = &api_clients[i];
		if (c->used && c->reply != NULL && api_client_write(c, now_ns) == API_IO_DONE)
			api_client_close(c);
	}
}

/* mkdir -p of PATH's directory; 0 or -errno with a message. */
static int
api_make_parent(const char *path, FILE *err)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash, *p;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return 0;
	*slash = '\0';
	for (p = dir + 1;; p++) {
		bool last = *p == '\0';

		if (*p != '/' && !last)
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
			int rc = -errno;

			fprintf(err, "api: socket %s: cannot create directory %s: %s\n", path, dir,
				strerror(-rc));
			return rc;
		}
		if (last)
			break;
		*p = '/';
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(err, "api: socket %s: %s is not a directory\n", path, dir);
		return -ENOTDIR;
	}
	return 0;
}

/* Remove PATH if it is a socket nobody listens on; refuse anything else. */
static int
api_remove_stale(const struct sockaddr_un *sun, FILE *err)
{
	const char *path = sun->sun_path;
	struct stat st;
	int fd, rc;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		fprintf(err, "api: socket %s: exists and is not a socket; not removing it\n", path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = connect(fd, (const struct sockaddr *)sun, sizeof(*sun)) == 0 ? 0 : -errno;
	close(fd);
	if (rc == -ECONNREFUSED || rc == -ENOENT) {
		if (unlink(path) != 0 && errno != ENOENT) {
			rc = -errno;
			fprintf(err, "api: socket %s: cannot remove stale socket: %s\n", path,
				strerror(-rc));
			return rc;
		}
		return 0;
	}
	if (rc == 0 || rc == -EAGAIN || rc == -EINPROGRESS) {
		fprintf(err, "api: socket %s: another process is serving it (a running longspand?)\n",
			path);
		return -EADDRINUSE;
	}
	fprintf(err, "api: socket %s: cannot probe existing socket: %s\n", path, strerror(-rc));
	return rc;
}

int
api_listen(const char *path, FILE *err)
{
	struct sockaddr_un sun;
	mode_t old_mask;
	int fd, rc;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (path == NULL || path[0] == '\0') {
		fprintf(err, "api: socket path is empty\n");
		return -EINVAL;
	}
	if (strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(err, "api: socket %s: path longer than %zu bytes\n", path,
			sizeof(sun.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	rc = api_make_parent(path, err);
	if (rc < 0)
		return rc;
	rc = api_remove_stale(&sun, err);
	if (rc < 0)
		return rc;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		fprintf(err, "api: socket %s: %s\n", path, strerror(-rc));
		return rc;
	}
	/*
	 * The umask makes the file 0600 from the moment it exists; the chmod
	 * below keeps that true whatever the umask did. Both are needed: the
	 * API can reload the config and must not be reachable by others.
	 */
	old_mask = umask(0177);
	rc = bind(fd, (const struct sockaddr *)&sun, sizeof(sun)) == 0 ? 0 : -errno;
	umask(old_mask);
	if (rc < 0) {
		fprintf(err, "api: socket %s: bind: %s\n", path, strerror(-rc));
		goto close_fd;
	}
	if (chmod(path, 0600) != 0 || listen(fd, API_BACKLOG) != 0) {
		rc = -errno;
		fprintf(err, "api: socket %s: %s\n", path, strerror(-rc));
		goto unlink_path;
	}
	return fd;

unlink_path:
	unlink(path);
close_fd:
	close(fd);
	return rc;
}

void
api_close(int listen_fd, const char *path)
{
	struct stat st;
	unsigned int i;

	for (i = 0; i < API_MAX_CLIENTS; i++)
		if (api_clients[i].used)
			api_client_close(&api_clients[i]);
	if (listen_fd >= 0)
		close(listen_fd);
	if (path != NULL && lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
}
