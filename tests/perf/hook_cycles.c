/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hook_cycles: TSC cycles per packet of the shipped roce_flow hook, JIT'd by
 * rte_bpf, over synthetic hook contexts (docs/telemetry.md, "Cost").
 *
 *   hook_cycles NAME=OBJECT... (roce_flow, empty) [packets=N]
 *
 * For 1k and 64k flows, with each packet from a random flow (the worst
 * case for caches) and in trains of 16 packets per flow (as RDMA writes
 * arrive), at an rx point and at a tx point:
 *   per packet     the hook called once per context from a C loop, as
 *                  dp_hooks_run() does;
 *   + prefetch     the same after a first pass that prefetches each
 *                  context's slot (the pipeline could do this pass);
 *   interp burst   rte_bpf_exec_burst(): one call per burst, interpreted
 *                  (22.11 has no JIT'd burst entry);
 * and the empty hook (return 0) per packet: the call's own cost, all that a
 * per-burst entry could save. A JIT'd program looping over a burst is not
 * measured: 22.11's verifier walks every path, and 32 unrolled copies of
 * roce_flow have some 25^32 of them.
 *
 * Each timed region is one 32-packet burst of prepared contexts (filling
 * them is the pipeline's cost, not the hook's). Slots are warmed first, so
 * flows exist. Bursts over 50 us were preempted and are left out; the
 * table gives the median and the mean of the rest. The flow memory is a
 * pinned BPF ARRAY map's mmap when run as root (as in the gateway), else
 * anonymous memory; both are 4 KiB pages. The exporter's pass over the
 * same slots is timed too, in the steps the control loop would run. A
 * benchmark: it reports, it never fails on timing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_bpf.h>
#include <rte_cycles.h>
#include <rte_prefetch.h>

#include "control/hook_export.h"
#include "control/hook_load.h"
#include "control/hook_maps.h"
#include "dataplane/hook.h"

#define BURST 32
#define TRAIN 16
#define PREEMPTED_NS 50000
#define SLOTS 131072u /* roce_flow's */

static const char *obj_roce, *obj_empty;
static uint64_t n_packets = 1u << 21;
static double tsc_per_ns;

enum mode {
	MODE_JIT,
	MODE_JIT_PREFETCH,
	MODE_INTERP_BURST,
};

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
tsc_calibrate(void)
{
	uint64_t n0 = mono_ns(), t0 = rte_rdtsc(), n1, t1;

	do
		n1 = mono_ns();
	while (n1 - n0 < 100000000u);
	t1 = rte_rdtsc();
	tsc_per_ns = (double)(t1 - t0) / (double)(n1 - n0);
}

static uint64_t
xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The context of flow i (IPv4, distinct addresses, ports and QPs). */
static void
flow_ctx(struct ls_hook_ctx *c, uint32_t i, enum ls_hook_point p)
{
	dp_hook_ctx_init(c, p, 1, 0, 0);
	c->flags = LS_HOOK_F_ROCE;
	c->family = LS_HOOK_FAMILY_IP4;
	c->proto = 17;
	c->src[0] = 10;
	c->src[1] = (uint8_t)(i >> 16);
	c->src[2] = (uint8_t)(i >> 8);
	c->src[3] = (uint8_t)i;
	c->dst[0] = 10;
	c->dst[1] = 1;
	c->sport = (uint16_t)(49152 + (i & 0x3fff));
	c->dport = 4791;
	c->dest_qp = 0x100 + i;
	c->bth_opcode = 0x0a;
	c->ip_bytes = 1024;
	c->frame_bytes = 1038;
	c->ecn = (i & 7) == 0 ? 3 : 2;
	c->dscp = 26;
	c->port = p == LS_HOOK_DC_RX ? 0 : 1;
	c->peer = 0;
	c->verdict = p == LS_HOOK_WAN_TX ? LS_HOOK_V_FORWARDED : 0;
	c->sojourn_ns = p == LS_HOOK_WAN_TX ? 1000u + 37u * (i & 1023) : 0;
	c->hash = dp_hook_ctx_hash(c);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct result {
	double median, mean;
	uint64_t bursts, preempted;
};

/*
 * Run n_packets through prog over nflows flows whose contexts (for one
 * point) are base[]; cycles per packet of the timed bursts. psn[] keeps
 * each flow's PSN in sequence.
 */
static struct result
run(const struct hook_prog *prog, const void *flows, enum mode mode, uint32_t nflows,
    bool trains, const struct ls_hook_ctx *base, uint32_t *psn)
{
	static struct ls_hook_ctx ctx[BURST];
	static double per_pkt[(1u << 22) / BURST];
	void *ptrs[BURST];
	uint64_t rc[BURST];
	struct result r = { 0 };
	uint64_t seed = 0x9e3779b97f4a7c15ull, now = 1000000000ull, done = 0, sum_c = 0, sum_p = 0;
	uint32_t f = 0, left = 0;
	unsigned int j;

	while (done < n_packets && r.bursts < sizeof(per_pkt) / sizeof(per_pkt[0])) {
		uint64_t t0, t1;

		for (j = 0; j < BURST; j++) {
			if (!trains || left == 0) {
				f = (uint32_t)(xorshift(&seed) % nflows);
				left = TRAIN;
			}
			left--;
			ctx[j] = base[f];
			ctx[j].psn = psn[f]++ & 0xffffff;
			ctx[j].now_ns = now;
			ptrs[j] = &ctx[j];
		}
		now += 1000;
		t0 = rte_rdtsc();
		switch (mode) {
		case MODE_JIT_PREFETCH:
			for (j = 0; j < BURST; j++)
				rte_prefetch0((const uint8_t *)flows +
					      (uint64_t)(ctx[j].hash & (SLOTS - 1)) *
						      sizeof(struct ls_hook_flow_rec));
			/* fall through */
		case MODE_JIT:
			for (j = 0; j < BURST; j++)
				rc[j] = prog->func(&ctx[j]);
			break;
		case MODE_INTERP_BURST:
			rte_bpf_exec_burst(prog->bpf, ptrs, rc, BURST);
			break;
		}
		t1 = rte_rdtsc();
		done += BURST;
		if ((double)(t1 - t0) / tsc_per_ns > PREEMPTED_NS) {
			r.preempted++;
			continue;
		}
		per_pkt[r.bursts++] = (double)(t1 - t0) / BURST;
		sum_c += t1 - t0;
		sum_p += BURST;
		(void)rc;
	}
	if (r.bursts > 0) {
		qsort(per_pkt, r.bursts, sizeof(per_pkt[0]), cmp_double);
		r.median = per_pkt[r.bursts / 2];
		r.mean = (double)sum_c / (double)sum_p;
	}
	return r;
}

static int
load(const char *path, const char *section, void *flows, struct hook_object **o,
     struct hook_prog *p, double *load_us)
{
	struct hook_bind b = { .flows = flows, .flows_bytes = (size_t)SLOTS * 256 };
	char err[HOOK_LOAD_ERR_MAX];
	uint64_t t0;

	if (hook_object_open(path, section, NULL, o, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	t0 = mono_ns();
	if (hook_prog_load(*o, &b, p, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	*load_us = (double)(mono_ns() - t0) / 1000.0;
	return 0;
}

static void
cpu_model(char *out, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(out, size, "unknown CPU");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "model name", 10) == 0 && strchr(line, ':') != NULL) {
			snprintf(out, size, "%s", strchr(line, ':') + 2);
			out[strcspn(out, "\n")] = '\0';
			break;
		}
	fclose(f);
}

int
main(int argc, char **argv)
{
	static const uint32_t n_flows[] = { 1024, 65536 };
	static const char *const mode_names[] = { "per packet", "per packet + prefetch",
						  "interp burst" };
	struct hook_maps maps;
	struct hook_maps_params mp = { .n_lcores = 1, .lcores = { 1 }, .flow_slots = SLOTS };
	struct hook_object *o_roce = NULL, *o_empty = NULL;
	struct hook_prog roce, empty;
	struct ls_hook_ctx *base_rx, *base_tx;
	uint32_t *psn;
	char dir[HOOK_MAPS_PATH_MAX], gw[64], cpu[128], err[256];
	double load_roce, load_empty;
	bool have_maps;
	void *flows;
	int i, fi;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "roce_flow=", 10) == 0)
			obj_roce = argv[i] + 10;
		else if (strncmp(argv[i], "empty=", 6) == 0)
			obj_empty = argv[i] + 6;
		else if (strncmp(argv[i], "packets=", 8) == 0)
			n_packets = strtoull(argv[i] + 8, NULL, 0);
	}
	if (obj_roce == NULL || obj_empty == NULL) {
		fprintf(stderr, "usage: %s roce_flow=OBJECT empty=OBJECT [packets=N]\n", argv[0]);
		return 2;
	}
	snprintf(gw, sizeof(gw), "bench-%d", (int)getpid());
	hook_maps_default_dir(dir, sizeof(dir), gw, "roce_flow");
	mp.dir = dir;
	have_maps = geteuid() == 0 && hook_maps_create(&maps, &mp, err, sizeof(err)) == 0;
	flows = have_maps ? maps.flows[0].mem : aligned_alloc(4096, (size_t)SLOTS * 256);
	base_rx = calloc(65536, sizeof(*base_rx));
	base_tx = calloc(65536, sizeof(*base_tx));
	psn = calloc(65536, sizeof(*psn));
	if (flows == NULL || base_rx == NULL || base_tx == NULL || psn == NULL)
		return 1;
	memset(flows, 0, (size_t)SLOTS * 256);
	if (load(obj_roce, "roce_flow", flows, &o_roce, &roce, &load_roce) != 0 ||
	    load(obj_empty, "hook", flows, &o_empty, &empty, &load_empty) != 0)
		return 1;
	tsc_calibrate();
	cpu_model(cpu, sizeof(cpu));

	printf("## roce_flow hook: TSC cycles per packet\n\n");
	printf("%s, TSC %.2f GHz; flow memory: %s; %" PRIu64 " packets per row, bursts of %d.\n"
	       "roce_flow: %u instructions, %zu bytes of x86 code, load + verify + JIT %.0f us.\n\n",
	       cpu, tsc_per_ns, have_maps ? "pinned BPF ARRAY map (mmap)" : "anonymous memory",
	       n_packets, BURST, o_roce->n_insns, roce.jit_bytes, load_roce);
	printf("| flows | arrival | point | invocation | median | mean | preempted bursts |\n");
	printf("|---:|---|---|---|---:|---:|---:|\n");
	for (fi = 0; fi < 2; fi++) {
		uint32_t nf = n_flows[fi], k;
		int trains, point, mode;

		memset(flows, 0, (size_t)SLOTS * 256);
		memset(psn, 0, 65536 * sizeof(*psn));
		for (k = 0; k < nf; k++) {
			flow_ctx(&base_rx[k], k, LS_HOOK_DC_RX);
			flow_ctx(&base_tx[k], k, LS_HOOK_WAN_TX);
			base_rx[k].now_ns = 1;
			roce.func(&base_rx[k]); /* warm: every flow has its slot */
		}
		for (trains = 0; trains < 2; trains++)
			for (point = 0; point < 2; point++)
				for (mode = 0; mode < 3; mode++) {
					struct result r = run(&roce, flows, (enum mode)mode, nf,
							      trains, point ? base_tx : base_rx, psn);

					printf("| %u | %s | %s | %s | %.1f | %.1f | %" PRIu64 " |\n", nf,
					       trains ? "trains of 16" : "random",
					       point ? "tx" : "rx", mode_names[mode], r.median,
					       r.mean, r.preempted);
				}
	}
	{
		struct result r = run(&empty, flows, MODE_JIT, 1024, false, base_rx, psn);

		printf("| - | - | rx | empty hook, per packet | %.1f | %.1f | %" PRIu64 " |\n",
		       r.median, r.mean, r.preempted);
	}

	/*
	 * The exporter over these slots (64k flows live in them): a pass in
	 * steps of 4096 slots, as the control loop would run it; CPU time of
	 * the thread (the machine's load does not count) and the worst step.
	 */
	{
		const struct hook_export_source src = { flows, SLOTS, 1 };
		const struct hook_export_params ep = {
			.idle_timeout_ns = 60ull * 1000000000u,
			.active_timeout_ns = 60ull * 1000000000u,
			.max_flows = 65536,
			.top_k = 10,
		};
		struct hook_export *e =
			hook_export_create(&ep, &src, 1, NULL, NULL, NULL, err, sizeof(err));
		static const char *const what[] = { "64k new flows", "64k flows changed",
						    "nothing changed" };
		int pass;

		if (e != NULL) {
			printf("\nExporter, one pass over %u slots in steps of 4096 (thread CPU "
			       "time):\n\n| pass | total ms | worst step ms |\n|---|---:|---:|\n",
			       SLOTS);
			for (pass = 0; pass < 3; pass++) {
				uint64_t total = 0, worst = 0, t0, dt;
				bool done = false;
				uint32_t k;

				if (pass == 1)
					for (k = 0; k < SLOTS; k++)
						((struct ls_hook_flow_rec *)flows)[k].pkts++;
				while (!done) {
					t0 = cpu_ns();
					done = hook_export_step(e, (2ull + pass) * 1000000000u, 4096);
					dt = cpu_ns() - t0;
					total += dt;
					worst = dt > worst ? dt : worst;
				}
				printf("| %s | %.1f | %.2f |\n", what[pass], (double)total / 1e6,
				       (double)worst / 1e6);
			}
			hook_export_free(e);
		}
	}
	hook_prog_unload(&roce);
	hook_prog_unload(&empty);
	hook_object_free(o_roce);
	hook_object_free(o_empty);
	if (have_maps)
		hook_maps_destroy(&maps);
	else
		free(flows);
	free(base_rx);
	free(base_tx);
	free(psn);
	return 0;
}
