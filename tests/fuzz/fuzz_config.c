/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the config parser (control/config.h config_load_stream) on
 * arbitrary text. Checks, besides memory safety:
 *   - the result is 0 or a negative errno;
 *   - on failure, *cfg is untouched and every message line reads
 *     "fuzz.conf:..." (FILE:LINE or FILE: for whole-file errors);
 *   - on success, no message, and --dump-config round-trips: the dump
 *     loads again and dumps to the same text; config_warn() (which derives
 *     each lossless WAN port's PFC headroom from the values) returns as
 *     many warnings as it writes lines, each "fuzz.conf:...".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/config.h"
#include "fuzz.h"

#define FUZZ_NAME "fuzz.conf"
#define FUZZ_MAX_INPUT (64 * 1024)

static struct ls_config cfg, cfg2, sentinel;

/* Load text; returns rc and the messages (malloc'ed) in *msg. */
static int
load(const char *text, size_t size, struct ls_config *out, char **msg)
{
	size_t msg_size = 0;
	FILE *err = open_memstream(msg, &msg_size);
	/* fmemopen may refuse size 0: an empty file reads like a blank line. */
	FILE *in = size != 0 ? fmemopen((void *)(uintptr_t)text, size, "r") :
			       fmemopen((void *)(uintptr_t)"\n", 1, "r");
	int rc;

	FUZZ_CHECK(err != NULL);
	if (in == NULL) {
		fclose(err);
		free(*msg);
		*msg = NULL;
		return -ENOMEM;
	}
	rc = config_load_stream(in, FUZZ_NAME, out, err);
	fclose(in);
	fclose(err);
	return rc;
}

static void
check_messages(const char *msg)
{
	const char *line = msg;

	while (line != NULL && *line != '\0') {
		FUZZ_CHECK(strncmp(line, FUZZ_NAME ":", sizeof(FUZZ_NAME)) == 0);
		line = strchr(line, '\n');
		if (line != NULL)
			line++;
	}
}

static char *
dump(const struct ls_config *c, size_t *size)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, size);

	FUZZ_CHECK(out != NULL);
	config_dump(c, out);
	fclose(out);
	return text;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *msg = NULL, *msg2 = NULL, *d1, *d2;
	size_t s1 = 0, s2 = 0;
	int rc;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	memset(&cfg, 0xa5, sizeof(cfg));
	memset(&sentinel, 0xa5, sizeof(sentinel));
	rc = load((const char *)data, size, &cfg, &msg);
	if (rc == -ENOMEM && msg == NULL)
		return 0;
	FUZZ_CHECK(rc <= 0);
	FUZZ_CHECK(msg != NULL);
	if (rc != 0) {
		/* Rejected: reported, and nothing written to the caller's config. */
		FUZZ_CHECK(msg[0] != '\0');
		check_messages(msg);
		FUZZ_CHECK(memcmp(&cfg, &sentinel, sizeof(cfg)) == 0);
		free(msg);
		return 0;
	}
	FUZZ_CHECK(msg[0] == '\0');
	free(msg);

	/* Accepted: its warnings, one line each, named by the file. */
	{
		size_t wsize = 0;
		FILE *w = open_memstream(&msg, &wsize);
		unsigned int n, lines = 0;

		FUZZ_CHECK(w != NULL);
		n = config_warn(&cfg, w);
		fclose(w);
		check_messages(msg);
		for (const char *c = msg; *c != '\0'; c++)
			lines += *c == '\n';
		FUZZ_CHECK(n == lines);
		free(msg);
	}

	/* Accepted: the effective config dumps to a file that loads to the same dump. */
	d1 = dump(&cfg, &s1);
	rc = load(d1, s1, &cfg2, &msg2);
	if (rc != 0)
		fprintf(stderr, "dump does not load again:\n%s--- dump:\n%s", msg2, d1);
	FUZZ_CHECK(rc == 0);
	free(msg2);
	d2 = dump(&cfg2, &s2);
	if (s1 != s2 || memcmp(d1, d2, s1) != 0)
		fprintf(stderr, "dump of the dump differs:\n--- first:\n%s--- second:\n%s", d1, d2);
	FUZZ_CHECK(s1 == s2 && memcmp(d1, d2, s1) == 0);
	free(d1);
	free(d2);
	return 0;
}
