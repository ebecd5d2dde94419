/* SPDX-License-Identifier: BSD-3-Clause */
#include "drop_reason.h"

const char *const ls_drop_reason_names[LS_DROP_MAX] = {
#define LS_DROP_NAME(sym, name, desc) [LS_DROP_##sym] = name,
	LS_DROP_REASONS(LS_DROP_NAME)
#undef LS_DROP_NAME
};

const char *const ls_drop_reason_descs[LS_DROP_MAX] = {
#define LS_DROP_DESC(sym, name, desc) [LS_DROP_##sym] = desc,
	LS_DROP_REASONS(LS_DROP_DESC)
#undef LS_DROP_DESC
};
