/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * p4_cycles: TSC cycles per packet of the two ingress pipelines side by
 * side in one run, on the same frames and configuration: the C path
 * (dp_pipeline_dc, which includes the traffic manager's pass-through and
 * the encapsulation) and dataplane/p4/longspan.spec on DPDK's SWX engine
 * (ring in, pipeline, ring out, ports in bursts of 32: the worker's
 * hand-off would be the same rings), DC -> WAN RoCE data, IPv4, at 1k and 64k flows (QPs). Reports
 * numbers; never fails on timing. Needs the DPDK pipeline sources of
 * tests/unit/p4 (docs/p4.md) and exits 77 without them.
 *
 *   meson test -C build --benchmark --suite perf p4-cycles --verbose
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_swx_ctl.h>
#include <rte_swx_pipeline.h>

#include "control/config.h"
#include "control/p4_tables.h"
#include "control/runtime.h"
#include "dataplane/p4_stage.h"
#include "dataplane/pipeline.h"
#include "dataplane/worker.h"
#include "../unit/dataplane/ut_eal.h"
#include "../unit/dataplane/ut_pkt.h"
#include "../unit/dataplane/ut_runtime.h"
#include "../unit/p4/ut_swx.h"

#ifndef LS_P4_SPEC
#error "LS_P4_SPEC: path of dataplane/p4/longspan.spec"
#endif

#define BURST 32
#define ROUNDS 2000

static const char conf_text[] =
	"[gateway]\nname = p4bench\n"
	"[port dc]\nrole = dc\ndev = net_null0\nmac = 02:00:00:00:01:fe\n"
	"ipv4 = 10.1.0.254/16\nneighbor = 10.1.0.1 02:00:00:00:01:01\n"
	"[port wan]\nrole = wan\ndev = net_null1\nmac = 02:00:00:00:0a:02\n"
	"ipv4 = 192.0.2.1/24\nneighbor = 192.0.2.2 02:00:00:00:0b:02\n"
	"[peer site-b]\nport = wan\nremote = 192.0.2.2\nvni = 100\nrtt = 1ms\n"
	"prefix = 10.2.0.0/16\n";

static struct ls_runtime rt;
static struct dp_worker *w;
static struct rte_swx_pipeline *pl;
static unsigned int dc_port;
static struct ut_pkt frame;

/* Frame i of n flows: the QP (DestQP) and the source host vary. */
static void
fill(struct rte_mbuf **m, unsigned int first, unsigned int flows)
{
	unsigned int i;

	for (i = 0; i < BURST; i++) {
		unsigned int f = (first + i) % flows;
		uint8_t *b;

		m[i] = rte_pktmbuf_alloc(rt.pool);
		if (m[i] == NULL) {
			fprintf(stderr, "p4_cycles: mbuf pool empty\n");
			exit(1);
		}
		b = (uint8_t *)rte_pktmbuf_append(m[i], (uint16_t)frame.len);
		memcpy(b, frame.b, frame.len);
		ut_put32(b + frame.bth_off + 4, f & 0xffffff);
		b[frame.l3_off + 15] = (uint8_t)(1 + (f >> 12) % 200);
		ut_ip4_fix_csum(b + frame.l3_off);
	}
}

/*
 * A worker's ingress over the DC port, per burst: dp_pipeline_dc()
 * (pipeline = c), or with p4 dp_p4_burst(), pipeline = p4 as a worker runs
 * it (the C checks in front, the SWX pipeline, the C stage after). The
 * branch between them is taken the same way every burst: well under a
 * cycle per packet.
 */
static double
run_worker(bool p4, unsigned int flows)
{
	static struct dp_tx tx;
	struct rte_mbuf *m[BURST];
	uint64_t cycles = 0, pkts = 0;
	unsigned int r, p, i;

	for (r = 0; r < ROUNDS + flows / BURST; r++) {
		struct dp_clock clk = { .tsc = rte_rdtsc(), .ns = 1000 + r };
		uint64_t t0;

		fill(m, r * BURST, flows);
		memset(tx.n, 0, sizeof(tx.n));
		t0 = rte_rdtsc();
		if (p4)
			dp_p4_burst(w, rt.dp, rt.dp->p4[0], (uint16_t)dc_port, m, BURST, &clk,
				    &tx);
		else
			dp_pipeline_dc(w, rt.dp, (uint16_t)dc_port, m, BURST, &clk, &tx);
		if (r >= flows / BURST) { /* after every flow was seen once */
			cycles += rte_rdtsc() - t0;
			pkts += BURST;
		}
		for (p = 0; p < rt.dp->n_ports; p++)
			for (i = 0; i < tx.n[p]; i++)
				rte_pktmbuf_free(tx.pkts[p][i]);
	}
	return (double)cycles / (double)pkts;
}

static double
run_p4(unsigned int flows)
{
	struct rte_ring *in = ut_swx_ring("bench", (int)dc_port), *out = ut_swx_ring("bench", -1);
	struct rte_mbuf *m[BURST], *o[BURST];
	uint64_t cycles = 0, pkts = 0;
	unsigned int r, got;

	for (r = 0; r < ROUNDS + flows / BURST; r++) {
		uint64_t t0;
		int spins = 0;

		fill(m, r * BURST, flows);
		t0 = rte_rdtsc();
		rte_ring_enqueue_burst(in, (void **)m, BURST, NULL);
		got = 0;
		while (got < BURST && spins++ < 1000) {
			/* A few instructions per call: a long call polls the empty
			 * input ring after the burst (4096 per call measured 2x
			 * slower). */
			rte_swx_pipeline_run(pl, BURST);
			rte_swx_pipeline_flush(pl);
			got += rte_ring_dequeue_burst(out, (void **)o + got, BURST - got, NULL);
		}
		if (r >= flows / BURST) {
			cycles += rte_rdtsc() - t0;
			pkts += got;
		}
		rte_pktmbuf_free_bulk(o, got);
	}
	return (double)cycles / (double)pkts;
}

int
main(int argc, char **argv)
{
	static const unsigned int flow_counts[] = { 1024, 65536 };
	char c_path[256], so[256], err[256];
	struct rte_swx_ctl_pipeline *ctl;
	struct ls_config *mode_cfg;
	double hz;
	unsigned int i;

	(void)argc;
	setenv("LS_SWX_OPT", "-O3", 1);
	if (ut_swx_src_dir() == NULL) {
		fprintf(stderr, "p4_cycles: no DPDK pipeline sources (docs/p4.md): skipped\n");
		return 77;
	}
	if (ut_eal_init(argv[0], "p4_cycles", 512) != 0)
		return 1;
	w = ut_runtime_init(&rt, "p4_cycles", conf_text, 4095);
	if (w == NULL)
		return 1;
	for (i = 0; i < rt.cfg->n_ports; i++)
		if (rt.cfg->ports[i].role == LS_PORT_DC)
			dc_port = i;
	if (ut_runtime_publish(&rt) != 0)
		return 1;
	runtime_resolve_nexthops(&rt);
	ut_swx_tmp(c_path, sizeof(c_path), "bench.c");
	ut_swx_tmp(so, sizeof(so), "bench.so");
	if (ut_swx_codegen(LS_P4_SPEC, c_path) != 0 || ut_swx_compile(c_path, so) != 0 ||
	    ut_swx_load(so, "bench", rt.dp->n_ports, BURST, &pl) != 0)
		return 1;
	ctl = rte_swx_ctl_pipeline_create(pl);
	if (ctl == NULL || p4_tables_load(ctl, rt.cfg, rt.dp, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "p4_cycles: %s\n", err);
		return 1;
	}
	/* The runtime's own p4 mode pipeline for the same snapshot (runtime_p4_prepare()). */
	mode_cfg = malloc(sizeof(*mode_cfg));
	if (mode_cfg == NULL)
		return 1;
	memcpy(mode_cfg, rt.cfg, sizeof(*mode_cfg));
	mode_cfg->gw.pipeline = LS_PIPELINE_P4;
	if (runtime_p4_prepare(&rt, mode_cfg, rt.dp, stderr) != 0)
		return 1;
	ut_build(&frame, &(struct ut_spec){ .roce = true, .opcode = 0x0a, .tos = 0x02,
					    .sport = 0xc001, .payload = 16 });
	hz = (double)rte_get_tsc_hz();
	printf("p4_cycles: DC -> WAN RoCE data, %u-byte frames, bursts of %d, %d rounds, "
	       "TSC %.2f GHz, the generated C built with -O3\n",
	       frame.len, BURST, ROUNDS, hz / 1e9);
	printf("p4: the SWX pipeline alone; p4 mode: dp_p4_burst(), the C checks in front, the "
	       "pipeline and the C stage after it (traffic manager, encapsulation)\n");
	printf("| flows | C cycles/pkt | C Mpps | p4 cycles/pkt | p4 Mpps | p4 mode cycles/pkt | "
	       "p4 mode Mpps | p4 mode/C |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < RTE_DIM(flow_counts); i++) {
		double c = run_worker(false, flow_counts[i]), p = run_p4(flow_counts[i]),
		       pm = run_worker(true, flow_counts[i]);

		printf("| %u | %.0f | %.1f | %.0f | %.1f | %.0f | %.1f | %.1f |\n", flow_counts[i], c,
		       hz / c / 1e6, p, hz / p / 1e6, pm, hz / pm / 1e6, pm / c);
	}
	runtime_p4_discard(&rt);
	free(mode_cfg);
	rte_swx_ctl_pipeline_free(ctl);
	rte_swx_pipeline_free(pl);
	ut_eal_fini();
	ut_swx_cleanup();
	return 0;
}
