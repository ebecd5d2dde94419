/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reload: load, check and apply a config file to the running gateway
 * (runtime_reload); a failure reports every error and changes nothing.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "api_cmds.h"
#include "runtime.h"

int
api_reload(struct api_ctx *ctx, int argc, char **argv)
{
	struct ls_runtime *rt = ctx->rt;
	const char *path;
	char *log = NULL;
	size_t log_size = 0;
	FILE *s;
	int n_pos, rc;

	rc = api_opts_parse(ctx, argc, argv, NULL, 0, 1, &n_pos);
	if (rc < 0)
		return rc;
	path = n_pos == 1 ? argv[0] : NULL;
	s = open_memstream(&log, &log_size);
	if (s == NULL) {
		api_error(ctx, "out of memory");
		return -ENOMEM;
	}
	/* Not under cfg_lock: runtime_reload takes it to swap the config. */
	rc = runtime_reload(rt, path, s);
	fclose(s);
	if (path == NULL)
		path = rt->cfg != NULL ? rt->cfg->path : "(current file)";
	if (rc < 0) {
		api_error(ctx, "%s: not applied, the running config is unchanged (%s)", path,
			  strerror(-rc));
		fputs(log, ctx->err);
		free(log);
		return rc;
	}
	if (ctx->format == API_FORMAT_TEXT) {
		fprintf(ctx->out, "reloaded %s (generation %" PRIu64 ")\n", path,
			rt->dp != NULL ? rt->dp->generation : 0);
		fputs(log, ctx->out);
	} else {
		char *line, *save = NULL;

		fmt_str(ctx->fmt, "path", path);
		fmt_u64(ctx->fmt, "generation", rt->dp != NULL ? rt->dp->generation : 0);
		fmt_open(ctx->fmt, "messages", FMT_LIST);
		for (line = strtok_r(log, "\n", &save); line != NULL;
		     line = strtok_r(NULL, "\n", &save))
			fmt_str(ctx->fmt, NULL, line);
		fmt_close(ctx->fmt);
	}
	free(log);
	return 0;
}
