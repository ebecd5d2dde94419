/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tune: the congestion parameters the running gateway derived for each WAN
 * port, or those cc_params_resolve() derives for a link given as options
 * (parsed as longspanctl tune --offline parses them, api_tune.h).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "api.h"
#include "api_cmds.h"
#include "api_tune.h"
#include "config.h"
#include "runtime.h"
#include "congestion/cc_params.h"

/* cc_params_explain() of D on OUT, each line after INDENT. */
static int
api_tune_explain(const struct cc_derived *d, const char *indent, FILE *out)
{
	char buf[4096];
	char *text = buf, *line, *save = NULL;
	size_t length = cc_params_explain(d, buf, sizeof(buf));

	if (length >= sizeof(buf)) {
		text = malloc(length + 1);
		if (text == NULL)
			return -ENOMEM;
		cc_params_explain(d, text, length + 1);
	}
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		fprintf(out, "%s%s\n", indent, line);
	if (text != buf)
		free(text);
	return 0;
}

/* The running gateway: every WAN port's derived parameters. */
static int
api_tune_running(struct api_ctx *ctx)
{
	const struct ls_config *cfg = api_need_cfg(ctx);
	const struct dp_conf *dp = ctx->rt->dp;
	struct fmt *f = ctx->fmt;
	unsigned int i;

	if (cfg == NULL)
		return -ENOENT;
	if (dp == NULL) {
		api_error(ctx, "no dataplane configuration published");
		return -ENOENT;
	}
	if (ctx->format == API_FORMAT_TEXT) {
		for (i = 0; i < cfg->n_ports && i < dp->n_ports; i++) {
			if (cfg->ports[i].role != LS_PORT_WAN)
				continue;
			fprintf(ctx->out, "%sport %s\n", ftell(ctx->out) > 0 ? "\n" : "",
				cfg->ports[i].name);
			if (!dp->tm[i].enabled)
				fputs("  not shaped: no link_rate or no peer RTT, "
				      "nothing derived\n", ctx->out);
			else if (api_tune_explain(&dp->tm[i].derived, "  ", ctx->out) < 0)
				goto nomem;
		}
		return 0;
	}
	fmt_open(f, "ports", FMT_OBJ);
	for (i = 0; i < cfg->n_ports && i < dp->n_ports; i++) {
		if (cfg->ports[i].role != LS_PORT_WAN)
			continue;
		fmt_open(f, cfg->ports[i].name, FMT_OBJ);
		fmt_bool(f, "enabled", dp->tm[i].enabled);
		if (dp->tm[i].enabled)
			fmt_cc_derived(f, &dp->tm[i].derived);
		fmt_close(f);
	}
	fmt_close(f);
	return 0;
nomem:
	api_error(ctx, "out of memory");
	return -ENOMEM;
}

int
api_tune(struct api_ctx *ctx, int argc, char **argv)
{
	const char *text[API_TUNE_OPTS] = { NULL };
	bool offline = false;
	const struct api_opt opts[] = {
		{ api_tune_opt_names[API_TUNE_RATE], API_OPT_STR, 0, 0, &text[API_TUNE_RATE] },
		{ api_tune_opt_names[API_TUNE_RTT], API_OPT_STR, 0, 0, &text[API_TUNE_RTT] },
		{ api_tune_opt_names[API_TUNE_DISTANCE], API_OPT_STR, 0, 0,
		  &text[API_TUNE_DISTANCE] },
		{ api_tune_opt_names[API_TUNE_MTU], API_OPT_STR, 0, 0, &text[API_TUNE_MTU] },
		{ api_tune_opt_names[API_TUNE_MECHANISMS], API_OPT_STR, 0, 0,
		  &text[API_TUNE_MECHANISMS] },
		{ "--offline", API_OPT_FLAG, 0, 0, &offline },
	};
	const char *why = NULL;
	char msg[128];
	struct cc_derived d;
	struct cc_link link;
	bool given;
	unsigned int i;
	int n_pos, rc;

	rc = api_opts_parse(ctx, argc, argv, opts, RTE_DIM(opts), 0, &n_pos);
	if (rc < 0)
		return rc;
	given = offline;
	for (i = 0; i < API_TUNE_OPTS; i++)
		given |= text[i] != NULL;
	if (!given)
		return api_tune_running(ctx);
	/* A link of the operator's: computed here, the gateway is not touched. */
	if (api_tune_link_parse(text, &link, msg, sizeof(msg)) < 0) {
		api_error(ctx, "%s", msg);
		return -EINVAL;
	}
	/* cc_params_derive() with its reason on failure. */
	if (cc_params_resolve(&link, NULL, &d, &why) < 0) {
		api_error(ctx, "%s", why != NULL ? why : "parameters rejected");
		return -EINVAL;
	}
	if (ctx->format == API_FORMAT_TEXT) {
		if (api_tune_explain(&d, "", ctx->out) < 0) {
			api_error(ctx, "out of memory");
			return -ENOMEM;
		}
		return 0;
	}
	fmt_cc_derived(ctx->fmt, &d);
	return 0;
}
