/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_API_TUNE_H
#define LONGSPAN_API_TUNE_H

/*
 * The link options of `tune`, shared by the gateway's tune (api_tune.c)
 * and longspanctl tune --offline.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "units.h"
#include "congestion/cc_params.h"

enum api_tune_opt {
	API_TUNE_RATE = 0, /* rate, e.g. 400G */
	API_TUNE_RTT, /* time, e.g. 1ms */
	API_TUNE_DISTANCE, /* distance, e.g. 640km */
	API_TUNE_MTU, /* size, e.g. 4096 */
	API_TUNE_MECHANISMS, /* none, A, C or A,C */
	API_TUNE_OPTS
};

static const char *const api_tune_opt_names[API_TUNE_OPTS] = {
	[API_TUNE_RATE] = "--rate",
	[API_TUNE_RTT] = "--rtt",
	[API_TUNE_DISTANCE] = "--distance",
	[API_TUNE_MTU] = "--mtu",
	[API_TUNE_MECHANISMS] = "--mechanisms",
};

/*
 * The link `tune --rate R (--rtt T | --distance D) [--mtu M] [--mechanisms
 * M]` describes (TEXT[i]: the value of option i, or NULL) as the input of
 * cc_params_derive(): units as in the config file (control/units.h), MTU
 * 0 = CC_DEFAULT_MTU_BYTES, mechanism A makes the marking loop the DC RTT
 * (default none, as in the config). Returns 0, or -EINVAL with a message
 * in MSG.
 *
 * Inline so that longspanctl's tune --offline, which links neither DPDK
 * nor the API, parses exactly as the gateway does.
 */
static inline int
api_tune_link_parse(const char *const text[API_TUNE_OPTS], struct cc_link *link, char *msg,
		    size_t size)
{
	static const enum units_kind kinds[API_TUNE_MECHANISMS] = {
		[API_TUNE_RATE] = UNITS_RATE,
		[API_TUNE_RTT] = UNITS_TIME,
		[API_TUNE_DISTANCE] = UNITS_DISTANCE,
		[API_TUNE_MTU] = UNITS_SIZE,
	};
	uint64_t v[API_TUNE_MECHANISMS] = { 0 };
	const char *m = text[API_TUNE_MECHANISMS];
	unsigned int i;

	for (i = 0; i < API_TUNE_MECHANISMS; i++) {
		const char *why = "out of range";
		int rc;

		if (text[i] == NULL)
			continue;
		rc = units_parse(kinds[i], text[i], &v[i], &why);
		if (rc < 0 || v[i] == 0) {
			snprintf(msg, size, "%s: %s", api_tune_opt_names[i],
				 rc < 0 ? why : "must be above 0");
			return -EINVAL;
		}
	}
	if (text[API_TUNE_RATE] == NULL ||
	    (text[API_TUNE_RTT] == NULL) == (text[API_TUNE_DISTANCE] == NULL)) {
		snprintf(msg, size, "give --rate and one of --rtt or --distance");
		return -EINVAL;
	}
	if (v[API_TUNE_MTU] > UINT16_MAX) {
		snprintf(msg, size, "--mtu: at most 65535 bytes");
		return -EINVAL;
	}
	memset(link, 0, sizeof(*link));
	link->rate_bps = v[API_TUNE_RATE];
	link->rtt_ns = v[API_TUNE_RTT];
	link->distance_m = v[API_TUNE_DISTANCE];
	link->mtu_bytes = (uint32_t)v[API_TUNE_MTU];
	if (m != NULL && (strcmp(m, "A") == 0 || strcmp(m, "A,C") == 0 || strcmp(m, "C,A") == 0)) {
		link->near_source_cnp = true;
	} else if (m != NULL && strcmp(m, "none") != 0 && strcmp(m, "C") != 0) {
		snprintf(msg, size, "--mechanisms: expected none, A, C or A,C, got '%s'", m);
		return -EINVAL;
	}
	return 0;
}

#endif /* LONGSPAN_API_TUNE_H */
