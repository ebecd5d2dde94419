/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test doubles for the runtime functions the API calls (the real ones in
 * control/runtime.c need a full EAL runtime). runtime_counters_sum has the
 * contract of runtime.h; runtime_reload fails for any path containing
 * "bad" and succeeds otherwise, like the real one reporting through err
 * (on success, the running config's warnings, as the real one prints the
 * new config's).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "control/runtime.h"
#include "ctl_fixture.h"

char ctl_reload_last_path[256];
unsigned int ctl_reload_calls;

void
runtime_counters_sum(const struct ls_runtime *rt, struct dp_counters *out)
{
	uint64_t *dst = (uint64_t *)out;
	unsigned int w, i;

	memset(out, 0, sizeof(*out));
	for (w = 0; w < rt->n_workers; w++) {
		const uint64_t *src = (const uint64_t *)&rt->workers[w]->counters;

		for (i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
			dst[i] += src[i];
	}
}

int
runtime_reload(struct ls_runtime *rt, const char *path, FILE *err)
{
	const char *name = path != NULL ? path : rt->cfg->path;

	ctl_reload_calls++;
	snprintf(ctl_reload_last_path, sizeof(ctl_reload_last_path), "%s",
		 path != NULL ? path : "(null)");
	if (strstr(name, "bad") != NULL) {
		fprintf(err, "%s:12: [peer site-b] vni: 16777216 out of range (0 .. 16777215)\n",
			name);
		fprintf(err, "%s:20: [congestion] marker: 'blue' is not one of: none, red, sojourn, "
			"phantom\n",
			name);
		rt->reloads_failed++;
		return -EINVAL;
	}
	config_warn(rt->cfg, err);
	rt->reloads_ok++;
	rt->dp->generation++;
	return 0;
}
