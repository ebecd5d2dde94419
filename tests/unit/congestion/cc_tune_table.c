/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prints the derivation table in docs/congestion-core.md from the code
 * itself (cc_params_derive), so the docs cannot drift from what the gateway
 * and the simulator use:
 *
 *   build/tests/unit/congestion/cc-tune-table            # Markdown table
 *   build/tests/unit/congestion/cc-tune-table 100G 100km # explain one link
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "congestion/cc_params.h"

static void
row(uint64_t gbps, uint64_t km, bool near_source)
{
	struct cc_link l = {
		.rate_bps = gbps * 1000000000ull,
		.distance_m = km * 1000,
		.near_source_cnp = near_source,
	};
	struct cc_derived d;

	if (cc_params_derive(&l, &d) != 0) {
		printf("| %" PRIu64 "G | %" PRIu64 " km | error |\n", gbps, km);
		return;
	}
	printf("| %" PRIu64 "G | %" PRIu64 " | %s | %.0f | %.2f | %.3f | %.3f | %.0f | %.3f | "
			"%.2f | %.1f | %.0f | %.0f | %.0f |\n",
			gbps, km, near_source ? "A" : "e2e", d.rtt_ns / 1e3, d.bdp_bytes / 1e6,
			d.kmin_bytes / 1e6, d.kmax_bytes / 1e6, d.target_delay_ns / 1e3,
			d.phantom_threshold_bytes / 1e6, d.buffer_bytes / 1e6,
			d.cnp_interval_ns / 1e3, d.cut_interval_ns / 1e3, d.hold_ns / 1e3,
			d.flow_idle_ns / 1e6);
}

int
main(int argc, char **argv)
{
	static const uint64_t rates[] = { 100, 400 };
	static const uint64_t kms[] = { 10, 100, 640 };
	unsigned int r, k, a;

	if (argc == 3) {
		struct cc_link l = { .rate_bps = strtoull(argv[1], NULL, 10) * 1000000000ull,
			.distance_m = strtoull(argv[2], NULL, 10) * 1000 };
		struct cc_derived d;
		char buf[4096];

		if (cc_params_derive(&l, &d) != 0) {
			fprintf(stderr, "usage: %s GBPS KM\n", argv[0]);
			return 2;
		}
		cc_params_explain(&d, buf, sizeof(buf));
		fputs(buf, stdout);
		return 0;
	}
	printf("| rate | km | loop | RTT us | BDP MB | Kmin MB | Kmax MB | target us | "
			"phantom thr MB | buffer MB | CNP int. us | cut int. us | hold us | flow idle ms |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (r = 0; r < 2; r++)
		for (k = 0; k < 3; k++)
			for (a = 0; a < 2; a++)
				row(rates[r], kms[k], a == 1);
	return 0;
}
