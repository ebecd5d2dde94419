/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config-tool: the config subsystem's command line, without DPDK. It answers
 * the same options as longspand (--check-config, --dump-config,
 * --config-doc) so tests/configs/check_corpus.sh can run before the daemon
 * exists, and so docs/config.md can be regenerated from a unit-test build:
 *
 *   build/tests/unit/config/config-tool --config-doc > docs/config.md
 */

#include <stdio.h>
#include <string.h>

#include "control/config.h"
#include "control/peering_files.h"

static int
config_tool_usage(const char *prog)
{
	fprintf(stderr, "usage: %s --check-config FILE | --dump-config FILE | --config-doc\n",
		prog);
	return 2;
}

int
main(int argc, char **argv)
{
	static struct ls_config cfg;

	if (argc == 2 && strcmp(argv[1], "--config-doc") == 0) {
		config_doc_markdown(stdout);
		return 0;
	}
	if (argc != 3)
		return config_tool_usage(argv[0]);
	if (strcmp(argv[1], "--check-config") == 0) {
		if (config_load(argv[2], &cfg, stderr) < 0 || peering_check_files(&cfg, stderr) < 0)
			return 1;
		config_warn(&cfg, stderr);
		printf("%s: configuration OK\n", argv[2]);
		return 0;
	}
	if (strcmp(argv[1], "--dump-config") == 0) {
		if (config_load(argv[2], &cfg, stderr) < 0)
			return 1;
		config_dump(&cfg, stdout);
		return 0;
	}
	return config_tool_usage(argv[0]);
}
