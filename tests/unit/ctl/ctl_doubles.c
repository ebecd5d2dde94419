/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one test double of the API tests: runtime_reload. The real one
 * (control/runtime.c) builds and publishes a dataplane snapshot to running
 * workers under RCU, which needs a full EAL runtime; the integration suite
 * (tests/integration/test_control_plane.py) runs it. This one fails for any
 * path containing "bad" and succeeds otherwise, reporting through err as
 * the real one does (on success, the running config's warnings, as the
 * real one prints the new config's). runtime_counters_sum is the real one
 * (control/runtime_counters.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "control/runtime.h"
#include "ctl_fixture.h"

char ctl_reload_last_path[256];
unsigned int ctl_reload_calls;

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
