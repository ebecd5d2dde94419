/* SPDX-License-Identifier: BSD-3-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl_check.h"

extern char **environ;

static const char ctl_check_py[] =
	"import json, sys\n"
	"def pairs(kv):\n"
	"    keys = [k for k, _ in kv]\n"
	"    if len(set(keys)) != len(keys):\n"
	"        raise ValueError('duplicate key in ' + repr(keys))\n"
	"    return dict(kv)\n"
	"d = json.load(open(sys.argv[1]), object_pairs_hook=pairs)\n"
	"if not eval(sys.argv[2]):\n"
	"    sys.stderr.write('json check failed: ' + sys.argv[2] + '\\n')\n"
	"    sys.stderr.write(json.dumps(d, indent=1)[:6000] + '\\n')\n"
	"    sys.exit(1)\n";

void
ctl_check_json(const char *json, size_t size, const char *expr)
{
	char path[] = "/tmp/ctl-json-XXXXXX";
	char *argv[] = { (char *)(uintptr_t)"python3", (char *)(uintptr_t)"-c",
			 (char *)(uintptr_t)ctl_check_py, path, (char *)(uintptr_t)expr, NULL };
	pid_t pid;
	int fd, status;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, size), (ssize_t)size);
	close(fd);
	assert_int_equal(posix_spawn(&pid, "/usr/bin/python3", NULL, NULL, argv, environ), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	unlink(path);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("JSON check failed for: %s\n--- document ---\n%.*s", expr, (int)size, json);
}

bool
ctl_has_line(const char *text, const char *const words[], unsigned int n)
{
	const char *line = text;

	while (line != NULL && *line != '\0') {
		const char *end = strchr(line, '\n');
		size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
		char buf[1024];
		char *save = NULL, *w;
		unsigned int i = 0;

		if (length < sizeof(buf)) {
			memcpy(buf, line, length);
			buf[length] = '\0';
			for (w = strtok_r(buf, " \t", &save); w != NULL && i < n;
			     w = strtok_r(NULL, " \t", &save), i++)
				if (strcmp(words[i], "*") != 0 && strcmp(words[i], w) != 0)
					break;
			if (i == n)
				return true;
		}
		line = end != NULL ? end + 1 : NULL;
	}
	return false;
}

unsigned int
ctl_count_lines(const char *text)
{
	unsigned int n = 0;

	for (; *text != '\0'; text++)
		n += *text == '\n';
	return n;
}
