/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the hook object checks (hook_object_check() in
 * control/hook_load.c) over arbitrary bytes, for each section name the
 * seeds use. Whatever the input, the check returns 0 or a negative errno,
 * a refusal carries the "NAME: section 'S': reason" message, and an
 * accepted object has a program and this gateway's ABI.
 */
#include <string.h>

#include "control/hook_load.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const sections[] = { "roce_flow", "dscp_ce", "hook" };
	unsigned int i;

	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		struct hook_object info;
		char err[HOOK_LOAD_ERR_MAX] = "", prefix[96];
		int rc;

		memset(&info, 0, sizeof(info));
		rc = hook_object_check(data, size, "fuzz.o", sections[i], NULL, &info, err,
				       sizeof(err));
		FUZZ_CHECK(rc <= 0);
		if (rc < 0) {
			snprintf(prefix, sizeof(prefix), "fuzz.o: section '%s': ", sections[i]);
			FUZZ_CHECK(strncmp(err, prefix, strlen(prefix)) == 0);
			FUZZ_CHECK(strlen(err) > strlen(prefix));
		} else {
			FUZZ_CHECK(info.n_insns > 0 && info.n_insns <= HOOK_LOAD_MAX_INSNS_DEFAULT);
			FUZZ_CHECK(info.abi.magic == LS_HOOK_ABI_MAGIC);
			FUZZ_CHECK(info.abi.abi_version == LS_HOOK_ABI_VERSION);
			FUZZ_CHECK(strcmp(info.section, sections[i]) == 0);
		}
	}
	return 0;
}
