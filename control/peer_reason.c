/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>

#include "congestion/cc_time.h"
#include "peer_reason.h"

const char *const peer_reason_names[PEER_REASON_MAX] = {
#define PEER_REASON_NAME(sym, name, desc) [PEER_REASON_##sym] = name,
	PEER_REASONS(PEER_REASON_NAME)
#undef PEER_REASON_NAME
};

const char *const peer_reason_descs[PEER_REASON_MAX] = {
#define PEER_REASON_DESC(sym, name, desc) [PEER_REASON_##sym] = desc,
	PEER_REASONS(PEER_REASON_DESC)
#undef PEER_REASON_DESC
};

bool
peer_log_limit_ok(struct peer_log_limit *l, enum peer_reason r, uint64_t now_ns,
		  uint32_t *suppressed)
{
	/* next_ns 0 = never logged (a clock at exactly 0 logs twice: harmless). */
	if (l->next_ns[r] != 0 && cc_time_before(now_ns, l->next_ns[r])) {
		if (l->suppressed[r] < UINT32_MAX)
			l->suppressed[r]++;
		return false;
	}
	*suppressed = l->suppressed[r];
	l->suppressed[r] = 0;
	l->next_ns[r] = now_ns + PEER_LOG_INTERVAL_NS;
	return true;
}

const char *
peer_log_held_text(uint32_t held, char *buf, size_t size)
{
	if (held == 0)
		return "";
	snprintf(buf, size, "; %u more not logged", (unsigned int)held);
	return buf;
}

void
peer_err_printf(char *err, size_t err_size, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || err_size == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, err_size, fmt, ap);
	va_end(ap);
}
