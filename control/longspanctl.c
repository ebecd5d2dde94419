/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspanctl: send one request to a running longspand over its UNIX API
 * socket and print the reply (protocol in control/api.h).
 *
 * `tune --offline ...` needs no gateway: it runs the congestion core's
 * parameter derivation here (the gateway's `tune` runs the same one).
 *
 * Exit status: 0 the gateway answered "ok"; 1 it answered "error:" (the
 * message goes to stderr) or the reply was missing or malformed, or tune
 * --offline rejected the link; 2 usage; 3 cannot connect to the socket.
 */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "config.h"
#include "fmt.h"
#include "congestion/cc_params.h"

#define CTL_EXIT_OK 0
#define CTL_EXIT_ERROR 1
#define CTL_EXIT_USAGE 2
#define CTL_EXIT_CONNECT 3

#define CTL_TIMEOUT_S_DEFAULT 30 /* a reload builds tables and waits for RCU */
#define CTL_REPLY_MAX_BYTES (64u << 20) /* refuse to buffer more than this */

static void
ctl_usage(FILE *out)
{
	fprintf(out,
		"usage: longspanctl [-s SOCKET | -c CONFIG] [-j] [-t SECONDS] COMMAND [ARGS...]\n"
		"\n"
		"commands (the gateway's 'help' lists every one):\n"
		"  show ports [NAME] [--page N] [--limit N] [--xstats]\n"
		"  show stats\n"
		"  show drops [--nonzero]\n"
		"  show peers [NAME] [--page N] [--limit N]\n"
		"  show flows [--page N] [--limit N] [--sort bytes|pkts|rate|ce|cnp]\n"
		"             [--dir dc|wan] [--peer NAME]\n"
		"  show flows --source hook [--page N] [--limit N]   (the hook exporter's flows)\n"
		"  show hooks\n"
		"  show tm [PORT] [--page N] [--limit N]   (also: show queues)\n"
		"  show config [--summary]\n"
		"  tune [--rate R (--rtt T | --distance D) [--mtu M] [--mechanisms none|A|C|A,C]]\n"
		"  tune --offline --rate R (--rtt T | --distance D) [...]   (no gateway needed)\n"
		"  reload [FILE]\n"
		"  help\n"
		"  version\n"
		"\n"
		"options:\n"
		"  -s, --socket SOCKET   API socket (default: $%s, else %s)\n"
		"  -c, --config CONFIG   use the socket of gateway config CONFIG\n"
		"  -j, --json            JSON output\n"
		"  -t, --timeout SECONDS wait at most this long for the reply (default %d)\n"
		"  --watch[=SECONDS]     after the command: repeat it every SECONDS (1), redrawn\n"
		"                        in place like top (show flows --watch)\n"
		"  -h, --help            this text\n"
		"\n"
		"exit status: 0 ok, 1 the gateway (or tune --offline) reported an error, 2 usage,\n"
		"3 cannot connect\n",
		API_SOCKET_ENV, API_SOCKET_DEFAULT, CTL_TIMEOUT_S_DEFAULT);
}

/* ---- -c CONFIG: [gateway] socket ---- */

/*
 * Fill SOCKET with CONFIG's effective [gateway] socket, defaults included
 * (config_load is the daemon's own parser and needs no EAL); 0 or an exit
 * status after a message.
 */
static int
ctl_socket_from_config(const char *config, char *socket, size_t size)
{
	struct ls_config *cfg = calloc(1, sizeof(*cfg));
	int rc;

	if (cfg == NULL) {
		fprintf(stderr, "longspanctl: out of memory\n");
		return CTL_EXIT_ERROR;
	}
	rc = config_load(config, cfg, stderr);
	if (rc < 0) {
		fprintf(stderr, "longspanctl: %s: %s; give the socket with -s instead\n", config,
			rc == -EINVAL ? "invalid configuration" : strerror(-rc));
		free(cfg);
		return CTL_EXIT_USAGE;
	}
	snprintf(socket, size, "%s", cfg->gw.socket_path);
	free(cfg);
	return 0;
}

/* ---- tune --offline ---- */

/*
 * tune --offline [--json] --rate R (--rtt T | --distance D) [--mtu M]
 * [--mechanisms M]: the gateway's `tune` for a given link, computed here
 * with the same parser (api_tune_link_parse), derivation and output, so
 * that a link can be planned without a running gateway. ARGV starts with
 * "tune"; options take "--name VALUE" or "--name=VALUE" as in the API.
 */
static int
ctl_tune_offline(int argc, char **argv, bool json)
{
	const char *text[API_TUNE_OPTS] = { NULL };
	const char *why = NULL;
	char msg[128], buf[4096];
	struct cc_derived d;
	struct cc_link link;
	size_t length;
	struct fmt f;
	int i;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq = strchr(arg, '=');
		size_t name_length = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
		unsigned int k;

		if (strcmp(arg, "--offline") == 0)
			continue;
		if (strcmp(arg, "--json") == 0 || strcmp(arg, "-j") == 0) {
			json = true;
			continue;
		}
		for (k = 0; k < API_TUNE_OPTS; k++)
			if (strlen(api_tune_opt_names[k]) == name_length &&
			    strncmp(api_tune_opt_names[k], arg, name_length) == 0)
				break;
		if (k == API_TUNE_OPTS) {
			fprintf(stderr, "longspanctl: tune: %s '%.*s'\n",
				arg[0] == '-' ? "unknown option" : "unexpected argument",
				(int)name_length, arg);
			return CTL_EXIT_USAGE;
		}
		text[k] = eq != NULL ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (text[k] == NULL) {
			fprintf(stderr, "longspanctl: tune: %s needs a value\n",
				api_tune_opt_names[k]);
			return CTL_EXIT_USAGE;
		}
	}
	if (api_tune_link_parse(text, &link, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "longspanctl: tune: %s\n", msg);
		return CTL_EXIT_USAGE;
	}
	/* cc_params_derive() with its reason on failure. */
	if (cc_params_resolve(&link, NULL, &d, &why) < 0) {
		fprintf(stderr, "longspanctl: tune: %s\n",
			why != NULL ? why : "parameters rejected");
		return CTL_EXIT_ERROR;
	}
	if (json) {
		fmt_json_init(&f, stdout);
		fmt_cc_derived(&f, &d);
		fmt_finish(&f);
	} else {
		length = cc_params_explain(&d, buf, sizeof(buf));
		/* 4096 bytes suffice (cc_params.h); say so rather than cut. */
		if (length >= sizeof(buf)) {
			fprintf(stderr, "longspanctl: tune: explanation longer than %zu bytes\n",
				sizeof(buf));
			return CTL_EXIT_ERROR;
		}
		fputs(buf, stdout);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "longspanctl: writing the output failed: %s\n", strerror(errno));
		return CTL_EXIT_ERROR;
	}
	return CTL_EXIT_OK;
}

static bool
ctl_is_offline_tune(int argc, char **argv)
{
	int i;

	if (strcmp(argv[0], "tune") != 0)
		return false;
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--offline") == 0)
			return true;
	return false;
}

/* ---- the request line ---- */

static bool
ctl_needs_quotes(const char *word)
{
	return word[0] == '\0' || strpbrk(word, " \t\"\\") != NULL;
}

/* Append WORD, quoted if needed; false if the line would be too long. */
static bool
ctl_append(char *line, size_t size, size_t *length, const char *word)
{
	bool quote = ctl_needs_quotes(word);
	const char *p;

	if (*length > 0) {
		if (*length + 1 >= size)
			return false;
		line[(*length)++] = ' ';
	}
	if (quote) {
		if (*length + 1 >= size)
			return false;
		line[(*length)++] = '"';
	}
	for (p = word; *p != '\0'; p++) {
		bool escape = quote && (*p == '"' || *p == '\\');

		if (*length + 1 + escape >= size)
			return false;
		if (escape)
			line[(*length)++] = '\\';
		line[(*length)++] = *p;
	}
	if (quote) {
		if (*length + 1 >= size)
			return false;
		line[(*length)++] = '"';
	}
	line[*length] = '\0';
	return true;
}

/*
 * The daemon resolves a relative reload path against its own working
 * directory; send an absolute one.
 */
static const char *
ctl_absolute(const char *path, char *buf, size_t size)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return path;
	if (realpath(path, buf) != NULL)
		return buf;
	/* Missing file: let the gateway report it, under the name the user meant. */
	if (getcwd(cwd, sizeof(cwd)) == NULL || (size_t)snprintf(buf, size, "%s/%s", cwd, path) >= size)
		return path;
	return buf;
}

static int
ctl_build_request(int argc, char **argv, bool json, char *line, size_t size)
{
	char abs_path[PATH_MAX];
	size_t length = 0;
	int i;

	line[0] = '\0';
	for (i = 0; i < argc; i++) {
		const char *word = argv[i];

		if (strpbrk(word, "\n\r") != NULL) {
			fprintf(stderr, "longspanctl: arguments cannot contain line breaks\n");
			return CTL_EXIT_USAGE;
		}
		if (i > 0 && strcmp(argv[0], "reload") == 0 && word[0] != '-')
			word = ctl_absolute(word, abs_path, sizeof(abs_path));
		if (!ctl_append(line, size, &length, word))
			goto too_long;
	}
	if (json && !ctl_append(line, size, &length, "--json"))
		goto too_long;
	return 0;
too_long:
	fprintf(stderr, "longspanctl: request longer than %d bytes\n", API_MAX_REQUEST_BYTES);
	return CTL_EXIT_USAGE;
}

/* ---- talking to the gateway ---- */

static int
ctl_connect(const char *path)
{
	struct sockaddr_un sun;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "longspanctl: socket path %s is too long\n", path);
		return -ENAMETOOLONG;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		int rc = -errno;

		fprintf(stderr, "longspanctl: cannot connect to %s: %s\n", path, strerror(errno));
		if (rc == -ENOENT || rc == -ECONNREFUSED)
			fprintf(stderr, "longspanctl: is longspand running? (socket from -s, -c "
					"CONFIG, $%s, or %s)\n",
				API_SOCKET_ENV, API_SOCKET_DEFAULT);
		if (fd >= 0)
			close(fd);
		return rc;
	}
	return fd;
}

static bool
ctl_send_all(int fd, const char *buf, size_t size)
{
	while (size > 0) {
		ssize_t n = send(fd, buf, size, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		size -= (size_t)n;
	}
	return true;
}

static int64_t
ctl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read until EOF or the deadline into *reply; 0, -ETIMEDOUT or -errno. */
static int
ctl_read_reply(int fd, int timeout_s, char **reply, size_t *size)
{
	int64_t deadline = ctl_now_ms() + (int64_t)timeout_s * 1000;
	size_t capacity = 4096;
	char *buf = malloc(capacity);

	*size = 0;
	if (buf == NULL)
		return -ENOMEM;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - ctl_now_ms();
		ssize_t n;

		if (left <= 0) {
			free(buf);
			return -ETIMEDOUT;
		}
		if (poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left) < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -errno;
		}
		if (*size + 1 >= capacity) {
			char *bigger;

			if (capacity >= CTL_REPLY_MAX_BYTES) {
				free(buf);
				return -EFBIG;
			}
			bigger = realloc(buf, capacity * 2);
			if (bigger == NULL) {
				free(buf);
				return -ENOMEM;
			}
			buf = bigger;
			capacity *= 2;
		}
		n = recv(fd, buf + *size, capacity - 1 - *size, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			int rc = -errno;

			free(buf);
			return rc;
		}
		if (n == 0)
			break;
		*size += (size_t)n;
	}
	buf[*size] = '\0';
	*reply = buf;
	return 0;
}

static int
ctl_run(const char *socket_path, const char *request, int timeout_s)
{
	static const char ok[] = "ok\n", error[] = "error: ";
	char *reply = NULL;
	size_t size;
	int fd, rc, status;

	fd = ctl_connect(socket_path);
	if (fd < 0)
		return CTL_EXIT_CONNECT;
	if (!ctl_send_all(fd, request, strlen(request)) || !ctl_send_all(fd, "\n", 1)) {
		fprintf(stderr, "longspanctl: %s: sending the request failed: %s\n", socket_path,
			strerror(errno));
		close(fd);
		return CTL_EXIT_ERROR;
	}
	shutdown(fd, SHUT_WR);
	rc = ctl_read_reply(fd, timeout_s, &reply, &size);
	close(fd);
	if (rc == -ETIMEDOUT) {
		fprintf(stderr, "longspanctl: %s: no reply within %d s\n", socket_path, timeout_s);
		return CTL_EXIT_ERROR;
	}
	if (rc < 0) {
		fprintf(stderr, "longspanctl: %s: reading the reply failed: %s\n", socket_path,
			strerror(-rc));
		return CTL_EXIT_ERROR;
	}
	if (size >= sizeof(ok) - 1 && memcmp(reply, ok, sizeof(ok) - 1) == 0) {
		fwrite(reply + sizeof(ok) - 1, 1, size - (sizeof(ok) - 1), stdout);
		status = CTL_EXIT_OK;
	} else if (size >= sizeof(error) - 1 && memcmp(reply, error, sizeof(error) - 1) == 0) {
		fwrite(reply, 1, size, stderr);
		if (reply[size - 1] != '\n')
			fputc('\n', stderr);
		status = CTL_EXIT_ERROR;
	} else if (size == 0) {
		fprintf(stderr, "longspanctl: %s: the gateway closed the connection without a reply\n",
			socket_path);
		status = CTL_EXIT_ERROR;
	} else {
		fprintf(stderr, "longspanctl: %s: malformed reply (no 'ok' or 'error:' status)\n",
			socket_path);
		status = CTL_EXIT_ERROR;
	}
	free(reply);
	if (fflush(stdout) != 0 && status == CTL_EXIT_OK) {
		fprintf(stderr, "longspanctl: writing the output failed: %s\n", strerror(errno));
		status = CTL_EXIT_ERROR;
	}
	return status;
}

/*
 * "--watch" or "--watch=SECONDS" among the command's words: removed from
 * argv, the interval returned (0 when absent, -1 when malformed).
 */
static int
ctl_watch_opt(int *argc, char **argv)
{
	int interval = 0;

	for (int i = 0; i < *argc; i++) {
		char *end;
		long v = 1;

		if (strcmp(argv[i], "--watch") != 0 && strncmp(argv[i], "--watch=", 8) != 0)
			continue;
		if (argv[i][7] == '=') {
			errno = 0;
			v = strtol(argv[i] + 8, &end, 10);
			if (errno != 0 || *end != '\0' || end == argv[i] + 8 || v < 1 || v > 3600)
				return -1;
		}
		interval = (int)v;
		memmove(&argv[i], &argv[i + 1], (size_t)(*argc - i - 1) * sizeof(*argv));
		(*argc)--;
		i--;
	}
	return interval;
}

/* Re-run the request every interval seconds, redrawn in place like top(1). */
static int
ctl_watch(const char *socket_path, const char *request, int timeout_s, int interval)
{
	for (;;) {
		struct timespec ts = { .tv_sec = interval, .tv_nsec = 0 };
		time_t now = time(NULL);
		char when[32];
		int rc;

		strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
		printf("\033[H\033[2J%s  every %d s: %s\n\n", when, interval, request);
		rc = ctl_run(socket_path, request, timeout_s);
		if (rc != CTL_EXIT_OK)
			return rc;
		nanosleep(&ts, NULL);
	}
}

int
main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char request[API_MAX_REQUEST_BYTES + 1];
	const char *socket_opt = NULL, *config = NULL, *env;
	int timeout_s = CTL_TIMEOUT_S_DEFAULT;
	bool json = false;
	int opt, rc, watch;

	/* '+': stop at the command, so its own options reach the gateway. */
	while ((opt = getopt_long(argc, argv, "+s:c:jt:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			socket_opt = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 't': {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || end == optarg || v < 1 || v > 3600) {
				fprintf(stderr, "longspanctl: -t: expected seconds from 1 to 3600, got '%s'\n",
					optarg);
				return CTL_EXIT_USAGE;
			}
			timeout_s = (int)v;
			break;
		}
		case 'h':
			ctl_usage(stdout);
			return CTL_EXIT_OK;
		default:
			ctl_usage(stderr);
			return CTL_EXIT_USAGE;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "longspanctl: no command given\n");
		ctl_usage(stderr);
		return CTL_EXIT_USAGE;
	}
	if (socket_opt != NULL && config != NULL) {
		fprintf(stderr, "longspanctl: give -s or -c, not both\n");
		return CTL_EXIT_USAGE;
	}
	if (ctl_is_offline_tune(argc - optind, argv + optind))
		return ctl_tune_offline(argc - optind, argv + optind, json);

	if (socket_opt != NULL) {
		snprintf(socket_path, sizeof(socket_path), "%s", socket_opt);
		if (strlen(socket_opt) >= sizeof(socket_path)) {
			fprintf(stderr, "longspanctl: socket path %s is too long\n", socket_opt);
			return CTL_EXIT_USAGE;
		}
	} else if (config != NULL) {
		rc = ctl_socket_from_config(config, socket_path, sizeof(socket_path));
		if (rc != 0)
			return rc;
	} else {
		env = getenv(API_SOCKET_ENV);
		snprintf(socket_path, sizeof(socket_path), "%s",
			 env != NULL && env[0] != '\0' ? env : API_SOCKET_DEFAULT);
	}

	watch = ctl_watch_opt(&argc, argv);
	if (watch < 0) {
		fprintf(stderr, "longspanctl: --watch=SECONDS: expected 1 to 3600\n");
		return CTL_EXIT_USAGE;
	}
	rc = ctl_build_request(argc - optind, argv + optind, json, request, sizeof(request));
	if (rc != 0)
		return rc;
	if (watch > 0)
		return ctl_watch(socket_path, request, timeout_s, watch);
	rc = ctl_run(socket_path, request, timeout_s);
	if (rc == CTL_EXIT_CONNECT && strcmp(argv[optind], "help") == 0)
		ctl_usage(stderr);
	return rc;
}
