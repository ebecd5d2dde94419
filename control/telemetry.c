/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /longspan/ telemetry commands: each one runs the API command that names
 * it, through an fmt backend that builds rte_tel_data dicts instead of
 * text. One implementation per report, so the CLI, JSON and telemetry
 * cannot drift apart.
 */

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "api.h"
#include "fmt.h"
#include "runtime.h"
#include "telemetry.h"

/*
 * Serialises callbacks (DPDK runs one thread per telemetry client) and
 * telemetry_unregister() against them. Taken before rt->cfg_lock, never
 * after it.
 */
static pthread_mutex_t telemetry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ls_runtime *telemetry_rt; /* under telemetry_lock */
static bool telemetry_registered; /* under telemetry_lock */

/* ---- the fmt backend ---- */

struct telemetry_fmt {
	struct fmt base; /* first: the ops get &base */
	struct rte_tel_data *level[FMT_MAX_DEPTH]; /* NULL: level dropped */
	size_t bytes; /* estimate of the JSON DPDK will print */
	bool truncated;
};

static_assert(offsetof(struct telemetry_fmt, base) == 0, "fmt must come first");

static struct telemetry_fmt *
telemetry_fmt_of(struct fmt *f)
{
	return (struct telemetry_fmt *)f;
}

/* Account for NEED more bytes of output; false once over budget. */
static bool
telemetry_reserve(struct telemetry_fmt *tf, size_t need)
{
	if (tf->truncated || tf->bytes + need > TELEMETRY_REPLY_BUDGET) {
		tf->truncated = true;
		return false;
	}
	tf->bytes += need;
	return true;
}

/* Copy KEY into BUF with every character telemetry rejects made '_'. */
static bool
telemetry_key(const char *key, char *buf, size_t size)
{
	bool changed = false;
	size_t i;

	for (i = 0; key[i] != '\0' && i + 1 < size; i++) {
		char c = key[i];
		bool ok = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
			  (c >= 'a' && c <= 'z') || c == '_' || c == '/';

		buf[i] = ok ? c : '_';
		changed |= !ok;
	}
	if (i == 0)
		buf[i++] = '_';
	buf[i] = '\0';
	return changed;
}

/* The dict members of the current level go to, if it is still being built. */
static struct rte_tel_data *
telemetry_member(struct telemetry_fmt *tf, const char *key, size_t value_bytes, char *safe,
		 size_t safe_size)
{
	struct rte_tel_data *d = tf->level[tf->base.depth];

	if (d == NULL)
		return NULL;
	if (key != NULL)
		telemetry_key(key, safe, safe_size);
	/* "key":value, plus quotes and separators. */
	if (!telemetry_reserve(tf, (key != NULL ? strlen(safe) : 0) + value_bytes + 4))
		return NULL;
	return d;
}

static void
telemetry_check(struct telemetry_fmt *tf, int rc)
{
	/* E2BIG (positive) is a truncated string: kept, not an error. */
	if (rc < 0)
		tf->truncated = true;
}

static void
telemetry_open(struct fmt *f, const char *key, enum fmt_node node)
{
	struct telemetry_fmt *tf = telemetry_fmt_of(f);
	struct rte_tel_data *parent = tf->level[f->depth - 1];
	struct rte_tel_data *child;
	char safe[RTE_TEL_MAX_STRING_LEN];
	bool renamed;
	int rc;

	tf->level[f->depth] = NULL;
	if (parent == NULL)
		return;
	renamed = telemetry_key(key, safe, sizeof(safe));
	if (!telemetry_reserve(tf, strlen(safe) + 6 + (renamed ? strlen(key) + 12 : 0)))
		return;
	child = rte_tel_data_alloc();
	if (child == NULL) {
		tf->truncated = true;
		return;
	}
	if (node == FMT_LIST)
		rte_tel_data_start_array(child, RTE_TEL_STRING_VAL);
	else
		rte_tel_data_start_dict(child);
	/* keep = 0: DPDK frees the container after printing it. */
	rc = rte_tel_data_add_dict_container(parent, safe, child, 0);
	if (rc < 0) {
		rte_tel_data_free(child);
		tf->truncated = true;
		return;
	}
	tf->level[f->depth] = child;
	if (renamed && node != FMT_LIST)
		telemetry_check(tf, rte_tel_data_add_dict_string(child, "name", key));
}

static void
telemetry_close(struct fmt *f)
{
	(void)f;
}

static void
telemetry_u64(struct fmt *f, const char *key, uint64_t v)
{
	struct telemetry_fmt *tf = telemetry_fmt_of(f);
	char safe[RTE_TEL_MAX_STRING_LEN];
	struct rte_tel_data *d = telemetry_member(tf, key, 20, safe, sizeof(safe));

	if (d != NULL)
		telemetry_check(tf, rte_tel_data_add_dict_u64(d, safe, v));
}

static void
telemetry_str(struct fmt *f, const char *key, const char *s)
{
	struct telemetry_fmt *tf = telemetry_fmt_of(f);
	char safe[RTE_TEL_MAX_STRING_LEN];
	size_t length;
	struct rte_tel_data *d;

	if (s[0] == '\0')
		s = "n/a"; /* absent (fmt.h); telemetry has no null */
	length = RTE_MIN(strlen(s), (size_t)RTE_TEL_MAX_STRING_LEN);
	d = telemetry_member(tf, key, length + 2, safe, sizeof(safe));
	if (d == NULL)
		return;
	if (f->node[f->depth] == FMT_LIST)
		telemetry_check(tf, rte_tel_data_add_array_string(d, s));
	else
		telemetry_check(tf, rte_tel_data_add_dict_string(d, safe, s));
}

static void
telemetry_i64(struct fmt *f, const char *key, int64_t v)
{
	char buf[32];

	/* 22.11 telemetry's signed values are 32-bit: exact as a string. */
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	telemetry_str(f, key, buf);
}

static void
telemetry_f64(struct fmt *f, const char *key, double v)
{
	char buf[32];

	/* 22.11 telemetry has no floating-point values. */
	snprintf(buf, sizeof(buf), "%.6g", v);
	telemetry_str(f, key, buf);
}

static void
telemetry_null(struct fmt *f, const char *key)
{
	telemetry_str(f, key, "n/a");
}

static void
telemetry_boolean(struct fmt *f, const char *key, bool v)
{
	struct telemetry_fmt *tf = telemetry_fmt_of(f);
	char safe[RTE_TEL_MAX_STRING_LEN];
	struct rte_tel_data *d = telemetry_member(tf, key, 1, safe, sizeof(safe));

	if (d != NULL)
		telemetry_check(tf, rte_tel_data_add_dict_int(d, safe, v ? 1 : 0));
}

static void
telemetry_finish(struct fmt *f)
{
	struct telemetry_fmt *tf = telemetry_fmt_of(f);

	/* The budget keeps room for this member. */
	if (tf->truncated)
		rte_tel_data_add_dict_int(tf->level[0], "truncated", 1);
}

static const struct fmt_ops telemetry_fmt_ops = {
	.open = telemetry_open,
	.close = telemetry_close,
	.u64 = telemetry_u64,
	.i64 = telemetry_i64,
	.f64 = telemetry_f64,
	.str = telemetry_str,
	.null = telemetry_null,
	.boolean = telemetry_boolean,
	.note = NULL,
	.finish = telemetry_finish,
};

static void
telemetry_fmt_init(struct telemetry_fmt *tf, struct rte_tel_data *root, const char *path)
{
	memset(tf, 0, sizeof(*tf));
	tf->base.ops = &telemetry_fmt_ops;
	tf->base.node[0] = FMT_OBJ;
	tf->level[0] = root;
	/* {"PATH":{...}} around the reply, and room for "truncated":1. */
	tf->bytes = strlen(path) + 6 + 16;
	rte_tel_data_start_dict(root);
}

/* ---- commands ---- */

/*
 * Turn the telemetry parameter "PAGE[,LIMIT]" into --page/--limit words in
 * BUF; returns the number of words added or -EINVAL.
 */
static int
telemetry_page_args(const char *params, char *buf, size_t size, char **argv)
{
	char *comma;

	if (strlen(params) >= size)
		return -EINVAL;
	memcpy(buf, params, strlen(params) + 1);
	comma = strchr(buf, ',');
	argv[0] = (char *)(uintptr_t)"--page";
	argv[1] = buf;
	if (comma == NULL)
		return 2;
	*comma = '\0';
	if (strchr(comma + 1, ',') != NULL)
		return -EINVAL;
	argv[2] = (char *)(uintptr_t)"--limit";
	argv[3] = comma + 1;
	return 4;
}

int
telemetry_handle(const char *path, const char *params, struct rte_tel_data *d)
{
	const struct api_cmd *cmd = api_cmd_by_telemetry(path);
	char words[128], page_words[64];
	char *argv[API_MAX_ARGS];
	char *msg = NULL;
	size_t msg_size = 0;
	struct telemetry_fmt tf;
	struct api_ctx ctx;
	FILE *err;
	int argc, n, rc;

	if (cmd == NULL)
		return -EINVAL;
	telemetry_fmt_init(&tf, d, path);
	pthread_mutex_lock(&telemetry_lock);
	if (telemetry_rt == NULL) {
		rte_tel_data_add_dict_string(d, "error", "gateway is shutting down");
		goto unlock;
	}
	snprintf(words, sizeof(words), "%s", cmd->telemetry_args != NULL ? cmd->telemetry_args : "");
	argc = api_split(words, argv, API_MAX_ARGS - 4);
	if (argc < 0) {
		rte_tel_data_add_dict_string(d, "error", "bad telemetry_args in the command table");
		goto unlock;
	}
	if (params != NULL && params[0] != '\0') {
		n = cmd->telemetry_page_max == 0 ?
			    -EINVAL :
			    telemetry_page_args(params, page_words, sizeof(page_words), argv + argc);
		if (n < 0) {
			rte_tel_data_add_dict_string(d, "error",
						     cmd->telemetry_page_max == 0 ?
							     "this command takes no parameter" :
							     "parameter: PAGE[,LIMIT]");
			goto unlock;
		}
		argc += n;
	}
	err = open_memstream(&msg, &msg_size);
	if (err == NULL) {
		rte_tel_data_add_dict_string(d, "error", "out of memory");
		goto unlock;
	}
	ctx = (struct api_ctx){
		.rt = telemetry_rt,
		.cmd = cmd,
		.fmt = &tf.base,
		.out = NULL,
		.err = err,
		.format = API_FORMAT_TELEMETRY,
		.max_items = cmd->telemetry_page_max,
	};
	rc = api_cmd_run(&ctx, argc, argv);
	fmt_finish(&tf.base);
	fclose(err);
	if (rc < 0) {
		/* Handlers check their arguments before emitting: d is empty. */
		msg[strcspn(msg, "\n")] = '\0';
		rte_tel_data_add_dict_string(d, "error", msg[0] != '\0' ? msg : "failed");
	}
	free(msg);
unlock:
	pthread_mutex_unlock(&telemetry_lock);
	return 0;
}

int
telemetry_register(struct ls_runtime *rt)
{
	unsigned int i, n = api_cmd_count();
	bool again;
	int rc;

	pthread_mutex_lock(&telemetry_lock);
	telemetry_rt = rt;
	again = telemetry_registered;
	telemetry_registered = true;
	pthread_mutex_unlock(&telemetry_lock);
	if (again)
		return 0;
	for (i = 0; i < n; i++) {
		const struct api_cmd *c = api_cmd_at(i);

		if (c->telemetry == NULL)
			continue;
		rc = rte_telemetry_register_cmd(c->telemetry, telemetry_handle, c->help);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void
telemetry_unregister(void)
{
	pthread_mutex_lock(&telemetry_lock);
	telemetry_rt = NULL;
	pthread_mutex_unlock(&telemetry_lock);
}
