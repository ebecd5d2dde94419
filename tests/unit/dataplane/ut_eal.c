/* SPDX-License-Identifier: BSD-3-Clause */
#include "ut_eal.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>

static char ut_runtime_dir[PATH_MAX];

int
ut_eal_init(const char *argv0, const char *name, unsigned int memory_mb)
{
	static char prefix[64], mem[16];
	char *argv[] = {
		(char *)(uintptr_t)argv0,
		(char *)(uintptr_t)"-l", (char *)(uintptr_t)"0",
		(char *)(uintptr_t)"--no-huge", (char *)(uintptr_t)"-m", mem,
		(char *)(uintptr_t)"--no-shconf", (char *)(uintptr_t)"--no-pci",
		(char *)(uintptr_t)"--no-telemetry",
		(char *)(uintptr_t)"--file-prefix", prefix,
		(char *)(uintptr_t)"--log-level", (char *)(uintptr_t)"*:error",
	};

	snprintf(prefix, sizeof(prefix), "%s_%d", name, (int)getpid());
	snprintf(mem, sizeof(mem), "%u", memory_mb);
	if (rte_eal_init((int)RTE_DIM(argv), argv) < 0) {
		fprintf(stderr, "%s: EAL init failed: %s\n", name, rte_strerror(rte_errno));
		return -1;
	}
	snprintf(ut_runtime_dir, sizeof(ut_runtime_dir), "%s", rte_eal_get_runtime_dir());
	return 0;
}

void
ut_eal_fini(void)
{
	rte_eal_cleanup();
	/* --no-shconf leaves the directory empty; do not leave one per run behind. */
	if (ut_runtime_dir[0] != '\0')
		rmdir(ut_runtime_dir);
}
