/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspan-hook-check: check a hook object the way the gateway will load
 * it (docs/telemetry.md, "Writing a hook"), without a gateway:
 *
 *   longspan-hook-check [--max-insns N] OBJECT SECTION
 *
 * Runs the loader's object checks, rte_bpf's verifier and JIT with the
 * declared memory bound to scratch buffers, then calls the program once on
 * a zeroed context of each hook point. Prints what the object declares, or
 * the refusal; exits 0 when the gateway would load it, 1 when not, 2 on
 * bad usage. No EAL, no root.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hook_load.h"

static uint64_t
hook_check_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
hook_check_usage(FILE *f)
{
	fprintf(f, "usage: longspan-hook-check [--max-insns N] OBJECT SECTION\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "max-insns", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hook_load_limits lim = { 0 };
	char err[HOOK_LOAD_ERR_MAX];
	struct hook_object *o;
	struct hook_prog p;
	struct hook_bind b;
	struct ls_hook_ctx c;
	uint64_t t0, t1;
	unsigned int pt;
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			errno = 0;
			lim.max_insns = (uint32_t)strtoul(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || lim.max_insns == 0) {
				fprintf(stderr, "--max-insns: '%s' is not a positive number\n", optarg);
				return 2;
			}
			break;
		case 'h':
			hook_check_usage(stdout);
			return 0;
		default:
			hook_check_usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2) {
		hook_check_usage(stderr);
		return 2;
	}
	if (hook_object_open(argv[optind], argv[optind + 1], &lim, &o, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	memset(&b, 0, sizeof(b));
	b.flows_bytes = (size_t)o->abi.flow_slots * sizeof(struct ls_hook_flow_rec);
	b.counters_bytes = (size_t)o->abi.counters * sizeof(uint64_t);
	b.flows = b.flows_bytes > 0 ? calloc(1, b.flows_bytes) : NULL;
	b.counters = b.counters_bytes > 0 ? calloc(1, b.counters_bytes) : NULL;
	if ((b.flows_bytes > 0 && b.flows == NULL) || (b.counters_bytes > 0 && b.counters == NULL)) {
		fprintf(stderr, "out of memory for the declared maps\n");
		return 1;
	}
	t0 = hook_check_ns();
	if (hook_prog_load(o, &b, &p, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	t1 = hook_check_ns();
	for (pt = 0; pt < LS_HOOK_POINT_MAX; pt++) {
		memset(&c, 0, sizeof(c));
		c.abi_version = LS_HOOK_ABI_VERSION;
		c.ctx_size = sizeof(c);
		c.hook_point = (uint8_t)pt;
		c.peer = LS_HOOK_NO_PEER;
		c.flow_slot = LS_HOOK_NO_SLOT;
		p.func(&c);
	}
	printf("%s: section '%s': ok: %u instructions, hook ABI %u, %u flow slots%s, "
	       "%u counters%s, %zu bytes of native code, loaded in %.0f us\n",
	       o->name, o->section, o->n_insns, o->abi.abi_version, o->abi.flow_slots,
	       o->uses_flows ? " (used)" : "", o->abi.counters, o->uses_counters ? " (used)" : "",
	       p.jit_bytes, (double)(t1 - t0) / 1000.0);
	hook_prog_unload(&p);
	hook_object_free(o);
	free(b.flows);
	free(b.counters);
	return 0;
}
