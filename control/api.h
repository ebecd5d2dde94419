/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_API_H
#define LONGSPAN_API_H

/*
 * The control API: one command table served on a UNIX stream socket (used
 * by longspanctl) and, for the commands that name a telemetry path, on
 * DPDK's telemetry socket (control/telemetry.c).
 *
 * Wire protocol (one request per connection):
 *   client: one request line, at most API_MAX_REQUEST_BYTES bytes before
 *           the '\n', e.g. "show peers --page 2 --limit 4 --json\n".
 *           Words are separated by blanks; "..." quotes a word containing
 *           blanks (backslash escapes '"' and '\' inside quotes).
 *           "--json" or "-j" anywhere, or a leading "json" word, selects
 *           JSON output.
 *   server: "ok\n" followed by the body, or "error: MESSAGE\n" optionally
 *           followed by detail lines (every config error of a failed
 *           reload); then it closes the connection. A client that has
 *           not sent its line within API_REQUEST_TIMEOUT_NS is told so
 *           and closed (the other limits below).
 *
 * Threads: api_listen/api_poll/api_close/api_exec run on the control thread
 * only (the socket server, api_server.c, keeps its client table in a static
 * array: one server per process). api_register is for init time, before api_listen and
 * telemetry_register. Command handlers that read rt->cfg or rt->dp set
 * API_CMD_CFG_LOCK and then run with rt->cfg_lock held, whichever thread
 * calls them.
 *
 * Files: api_cmd.c (command table, dispatch, option and page parsing),
 * api_server.c (the socket), and the handlers listed in api_cmds.h.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

struct ls_runtime;

/* Default of [gateway] socket; longspanctl uses it when given no -s/-c. */
#define API_SOCKET_DEFAULT "/run/longspan/longspan.sock"
/* Environment variable overriding longspanctl's default socket. */
#define API_SOCKET_ENV "LONGSPAN_SOCKET"

#define API_MAX_REQUEST_BYTES 1024 /* request line without its '\n' */
#define API_MAX_ARGS 32 /* words in a request */
/*
 * Limits of the socket server (docs/cli.md "Limits of the API socket"). A
 * connection that finds every slot taken closes the one idle longest among
 * clients without a complete request (told with an "error: ..." line) and
 * clients that do not read their reply; when every slot holds a request
 * being answered it waits in the listen backlog. API_MAX_CLIENTS and
 * API_REQUEST_TIMEOUT_MS stay plain numbers: messages spell them (RTE_STR).
 */
#define API_MAX_CLIENTS 64 /* connections served at the same time */
#define API_ACCEPT_PER_POLL 128 /* new connections accepted per api_poll */
#define API_EXEC_PER_POLL 2 /* requests executed per api_poll */
#define API_REQUEST_TIMEOUT_MS 1000 /* accept to a complete request line */
#define API_REQUEST_TIMEOUT_NS ((uint64_t)API_REQUEST_TIMEOUT_MS * 1000 * 1000)
#define API_CLIENT_TIMEOUT_NS (5ull * 1000 * 1000 * 1000) /* accept to close */
#define API_MAX_REPLY_BYTES (1u << 20) /* a longer body is replaced by an error */
#define API_PAGE_LIMIT_DEFAULT 16 /* items per page when only --page is given */
#define API_FLOWS_LIMIT_DEFAULT 16 /* show flows without --page or --limit: the top 16 */
#define API_MAX_EXTRA_CMDS 16 /* commands added with api_register */
/*
 * Telemetry page sizes that keep a reply under the 16 KB limit, checked by
 * the ctl_telemetry test at the worst case (CTL_TEL_SIZES=1 prints the
 * sizes): 20 IPv6 flows with 20-digit counters and the longest peer name
 * take 12 KB; 2 WAN ports with 20-digit counters (each class with its
 * congestion signal counters) and the mechanisms' settings and counters
 * 8 KB (3 no longer fit the budget with room to spare).
 */
#define API_FLOWS_TELEMETRY_MAX 20
#define API_TM_TELEMETRY_MAX 2

enum api_format {
	API_FORMAT_TEXT = 0,
	API_FORMAT_JSON,
	API_FORMAT_TELEMETRY,
};

struct api_cmd;

/* What a handler gets: where to write and who asked. */
struct api_ctx {
	struct ls_runtime *rt;
	const struct api_cmd *cmd;
	struct fmt *fmt; /* structured output (text, JSON or telemetry) */
	/*
	 * Raw body stream, the same one fmt writes to in text and JSON mode,
	 * for output that is already text (config_dump). NULL in telemetry.
	 */
	FILE *out;
	FILE *err; /* api_error() writes here; first line = the message */
	enum api_format format;
	unsigned int max_items; /* page size cap (telemetry reply size); 0 = none */
};

/*
 * One command. ARGV holds the words after NAME with the JSON switch
 * removed; the handler validates them (api_opts_parse) before emitting
 * anything, writes its output through ctx->fmt and returns 0, or calls
 * api_error() and returns a negative errno.
 */
struct api_cmd {
	const char *name; /* words, e.g. "show peers" */
	const char *args; /* argument synopsis for help, e.g. "[--nonzero]" */
	const char *help; /* one line */
	unsigned int flags; /* API_CMD_* */
	const char *telemetry; /* "/longspan/peers", or NULL: not exported */
	const char *telemetry_args; /* words prepended under telemetry, or NULL */
	/*
	 * Paged under telemetry: the parameter "PAGE[,LIMIT]" becomes
	 * "--page PAGE --limit LIMIT" and LIMIT is capped here so a reply
	 * stays under the 16 KB telemetry limit. 0 = takes no parameter.
	 */
	unsigned int telemetry_page_max;
	int (*handler)(struct api_ctx *ctx, int argc, char **argv);
};

#define API_CMD_CFG_LOCK (1u << 0) /* run with rt->cfg_lock held */

/*
 * Create the API socket at PATH: create missing parent directories (0755),
 * replace a stale socket file (a socket nothing answers on), refuse to
 * touch anything else, bind with mode 0600, listen, non-blocking.
 * Returns the listening fd or a negative errno with a message on err.
 */
int api_listen(const char *path, FILE *err);

/*
 * Serve the API socket; call every ~10 ms from the control loop. Accepts at
 * most API_ACCEPT_PER_POLL connections (evicting or refusing when all
 * API_MAX_CLIENTS slots are taken), reads and writes without blocking,
 * executes at most API_EXEC_PER_POLL requests (the longest waiting first),
 * and closes connections without a request line after
 * API_REQUEST_TIMEOUT_NS and any after API_CLIENT_TIMEOUT_NS.
 */
void api_poll(struct ls_runtime *rt, int listen_fd);

/* Close every client, the listening socket, and remove the socket file. */
void api_close(int listen_fd, const char *path);

/*
 * Execute one request line. On success writes the body to OUT and returns
 * 0; on failure writes the message (one line, then optional detail lines)
 * and returns a negative errno: -ENOENT unknown command, -EINVAL bad
 * arguments, -E2BIG request too long, or the handler's error.
 */
int api_exec(struct ls_runtime *rt, const char *request_line, FILE *out);

/*
 * Add a command (e.g. "show flows", "tune") from another module. CMD must
 * stay valid for the life of the process. Returns 0, -EEXIST (name taken),
 * -ENOSPC or -EINVAL.
 */
int api_register(const struct api_cmd *cmd);

/* Commands in help order: the built-ins, then registered ones. */
unsigned int api_cmd_count(void);
const struct api_cmd *api_cmd_at(unsigned int index);
/* The command exported as telemetry path PATH, or NULL. */
const struct api_cmd *api_cmd_by_telemetry(const char *path);

/* Run ctx->cmd's handler, taking rt->cfg_lock if the command asks for it. */
int api_cmd_run(struct api_ctx *ctx, int argc, char **argv);

/* Report an error: "CMD: MESSAGE" as one line on ctx->err. */
void api_error(struct api_ctx *ctx, const char *format, ...) __attribute__((format(printf, 2, 3)));

/*
 * Split LINE in place into at most MAX words (quoting as in the protocol).
 * Returns the number of words, -EINVAL on an unterminated quote, -E2BIG
 * on too many words.
 */
int api_split(char *line, char **argv, int max);

/* ---- helpers for handlers ---- */

enum api_opt_type {
	API_OPT_FLAG, /* value: bool * */
	API_OPT_U64, /* value: uint64_t *, in [min, max] */
	API_OPT_STR, /* value: const char ** (points into argv) */
};

struct api_opt {
	const char *name; /* "--limit" */
	enum api_opt_type type;
	uint64_t min, max;
	void *value;
};

/*
 * Parse options anywhere in ARGV ("--name VALUE" or "--name=VALUE"; "--"
 * ends options). Positional words are moved to the front of ARGV and their
 * number stored in *n_pos; more than MAX_POS of them is an error. Returns 0
 * or -EINVAL after api_error().
 */
int api_opts_parse(struct api_ctx *ctx, int argc, char **argv, const struct api_opt *opts,
		   unsigned int n_opts, int max_pos, int *n_pos);

/* A page request: page counts from 1; limit 0 = everything. */
struct api_page {
	uint64_t page;
	uint64_t limit;
};

/* The --page/--limit pair for an api_opt array. */
#define API_PAGE_OPTS(pg)                                                      \
	{ "--page", API_OPT_U64, 1, UINT32_MAX, &(pg)->page },                 \
	{ "--limit", API_OPT_U64, 1, UINT32_MAX, &(pg)->limit }

/*
 * Resolve PG against TOTAL items (applying defaults and ctx->max_items) into
 * the index range [*first, *end). A page past the end is an error (page 1
 * of nothing is an empty page).
 */
int api_page_resolve(struct api_ctx *ctx, struct api_page *pg, unsigned int total,
		     unsigned int *first, unsigned int *end);

/*
 * Describe the page: "total", "page", "pages", "limit" members for JSON and
 * telemetry; in text a hint line, only when there is more than one page.
 */
void api_page_emit(struct api_ctx *ctx, const struct api_page *pg, unsigned int total,
		   const char *what);

#endif /* LONGSPAN_API_H */
