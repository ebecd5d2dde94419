/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: one request line of the control API (control/api.h
 * api_exec: word splitting and quoting, the JSON switch, command matching,
 * option parsing and every handler) against the ctl tests' fixture runtime
 * (tests/unit/ctl/ctl_fixture.c: no EAL, no devices; reload is a double).
 * The input is the line up to its first NUL, as the socket server hands
 * it over. Checks, besides memory safety:
 *   - the result is 0 or a negative errno;
 *   - a failure writes a message whose first line is not empty;
 *   - the output holds no NUL byte;
 *   - the running config is never changed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/api.h"
#include "fuzz.h"
#include "tests/unit/ctl/ctl_fixture.h"

/* Past API_MAX_REQUEST_BYTES, so the length limit is exercised too. */
#define FUZZ_MAX_LINE (2 * API_MAX_REQUEST_BYTES)

static struct ctl_fixture *fx;
static struct ls_config *cfg_before;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[FUZZ_MAX_LINE + 1];
	char *out = NULL;
	size_t out_size = 0;
	FILE *s;
	int rc;

	if (fx == NULL) {
		fx = ctl_fixture_new();
		cfg_before = malloc(sizeof(*cfg_before));
		FUZZ_CHECK(fx != NULL && cfg_before != NULL);
		memcpy(cfg_before, &fx->cfg, sizeof(*cfg_before));
	}
	if (size > FUZZ_MAX_LINE)
		size = FUZZ_MAX_LINE;
	memcpy(line, data, size);
	line[size] = '\0';

	s = open_memstream(&out, &out_size);
	FUZZ_CHECK(s != NULL);
	rc = api_exec(&fx->rt, line, s);
	fclose(s);

	FUZZ_CHECK(rc <= 0 && rc > -4096);
	FUZZ_CHECK(memchr(out, '\0', out_size) == NULL);
	if (rc < 0)
		FUZZ_CHECK(out_size > 0 && out[0] != '\n');
	FUZZ_CHECK(fx->rt.cfg == &fx->cfg);
	FUZZ_CHECK(memcmp(&fx->cfg, cfg_before, sizeof(*cfg_before)) == 0);
	free(out);
	return 0;
}
