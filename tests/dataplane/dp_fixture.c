/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dp_fixture: run packet fixtures through the real pipeline over net_ring
 * ports and write what comes out.
 *
 *   dp_fixture --config FILE --manifest FILE [--clock-ns N]
 *
 * Each manifest line is `NAME INGRESS_PORT INPUT.pcap OUTDIR [CLOCK_NS [+]]`.
 * For each case the harness resets the worker (counters, sequence numbers,
 * queues, flow and learner tables) and the neighbour tables (static entries
 * only), feeds the input frames to the ingress port's rx ring, polls the
 * worker with the case's clock (default --clock-ns; the TSC advances with
 * it from that default), lets the control thread handle what was punted,
 * polls again to send what the control thread injected, then writes
 * OUTDIR/<port>.pcap for every port that transmitted and OUTDIR/result.txt
 * with one `drop REASON COUNT` line per non-zero drop reason, `rx N` and
 * `tx N` (packets received and sent, every port), `forwarded N`, `own_tx
 * N` and `own_tx_failed N` (packets the gateway built), `punted N`,
 * `resolve_requests N`,
 * `injected N`, traffic manager and mechanism counters (`tm ...`, `mech
 * ...`, `learn ...`, `pfc ...`: PFC frames obeyed at the DC port, and per
 * priority paused the pauses received and the paused time in ns), `queued N` (packets waiting in WAN queues or hold
 * queues) and `mbuf_leak N` (mbufs neither back in the pool nor queued). A
 * trailing `+` makes the line a further step of the previous case: no
 * reset, counters keep adding up, so multi-step scenarios (data, then the
 * ACK that teaches the QPN, then a marked packet) can be written. The config's device strings
 * name the ring ports (net_ring_*), which the harness creates itself.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_net_crc.h>
#include <rte_cycles.h>
#include <rte_ring.h>

#include "control/config.h"
#include "control/eal_args.h"
#include "control/ports.h"
#include "control/runtime.h"
#include "dataplane/mbuf_meta.h"
#include "dataplane/neigh.h"
#include "dataplane/worker.h"

#define FX_RING_SIZE 1024
#define FX_MAX_FRAMES 512

struct fx_port {
	struct rte_ring *rx, *tx;
};

static struct ls_runtime rt;
static struct fx_port fx_ports[LS_MAX_PORTS];

static int
fx_create_ports(const struct ls_config *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->n_ports; i++) {
		char name[64], rname[RTE_RING_NAMESIZE];

		if (eal_args_dev_name(cfg->ports[i].dev, name, sizeof(name)) < 0)
			return -EINVAL;
		snprintf(rname, sizeof(rname), "fx_rx_%u", i);
		fx_ports[i].rx = rte_ring_create(rname, FX_RING_SIZE, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(rname, sizeof(rname), "fx_tx_%u", i);
		fx_ports[i].tx = rte_ring_create(rname, FX_RING_SIZE, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (fx_ports[i].rx == NULL || fx_ports[i].tx == NULL)
			return -ENOMEM;
		/* rte_eth_from_rings() names the port "net_ring_" + its argument. */
		if (strncmp(name, "net_ring_", 9) != 0) {
			fprintf(stderr, "port %s: device must be named net_ring_*\n", name);
			return -EINVAL;
		}
		if (rte_eth_from_rings(name + 9, &fx_ports[i].rx, 1, &fx_ports[i].tx, 1, 0) < 0) {
			fprintf(stderr, "cannot create ring port %s\n", name);
			return -EINVAL;
		}
	}
	return 0;
}

static int
fx_setup(const char *cfg_path)
{
	struct ls_config *cfg = calloc(1, sizeof(*cfg));
	struct dp_conf *dp;
	struct dp_worker *w;
	unsigned int i;
	int rc;

	if (cfg == NULL || config_load(cfg_path, cfg, stderr) != 0)
		return -EINVAL;
	pthread_mutex_init(&rt.cfg_lock, NULL);
	rt.cfg = cfg;
	rte_net_crc_set_alg(RTE_NET_CRC_SSE42);
	rc = dp_mbuf_meta_register();
	if (rc != 0)
		return rc;
	rt.pool = ports_pool_create(cfg, stderr);
	if (rt.pool == NULL)
		return -ENOMEM;
	for (i = 0; i < cfg->n_ports; i++) {
		rt.neigh[i] = rte_zmalloc("fx_neigh", sizeof(struct neigh_table), 64);
		if (rt.neigh[i] == NULL)
			return -ENOMEM;
		neigh_init(rt.neigh[i]);
	}
	w = rte_zmalloc("fx_worker", sizeof(*w), 64);
	if (w == NULL)
		return -ENOMEM;
	w->conf = &rt.dp;
	w->pool = rt.pool;
	w->tsc_hz = rte_get_tsc_hz();
	rc = runtime_worker_state_alloc(cfg, w, stderr);
	if (rc != 0)
		return rc;
	w->punt = rte_ring_create("fx_punt", FX_RING_SIZE, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w->inject = rte_ring_create("fx_inject", FX_RING_SIZE, 0, RING_F_SC_DEQ);
	if (w->punt == NULL || w->inject == NULL)
		return -ENOMEM;
	rt.workers[0] = w;
	rt.n_workers = 1;
	rc = fx_create_ports(cfg);
	if (rc != 0)
		return rc;
	rc = ports_setup(cfg, rt.pool, rt.port_ids, stderr);
	if (rc != 0)
		return rc;
	rc = runtime_dp_build(&rt, cfg, &dp, stderr);
	if (rc != 0)
		return rc;
	/* [gateway] pipeline = p4: the worker's SWX pipeline, as longspand starts it. */
	rc = runtime_p4_prepare(&rt, cfg, dp, stderr);
	if (rc != 0)
		return rc;
	rt.cfg = NULL;
	runtime_publish(&rt, cfg, dp);
	return 0;
}

/* Back to the config's static neighbours only. */
static void
fx_reset(void)
{
	unsigned int i;

	for (i = 0; i < rt.cfg->n_ports; i++)
		neigh_init(rt.neigh[i]);
	for (i = 0; i < rt.cfg->n_ports; i++) {
		unsigned int j;

		for (j = 0; j < rt.cfg->ports[i].n_neigh; j++) {
			const struct ls_static_neigh *sn = &rt.cfg->ports[i].neigh[j];
			struct rte_ether_addr mac;

			memcpy(mac.addr_bytes, sn->mac, 6);
			neigh_update(rt.neigh[i], sn->ip.family, sn->ip.a, &mac, true, 0);
		}
	}
	dp_worker_reset(rt.workers[0]);
	memset(&rt.l2, 0, sizeof(rt.l2));
}

static int
fx_port_index(const char *name)
{
	unsigned int i;

	for (i = 0; i < rt.cfg->n_ports; i++)
		if (strcmp(rt.cfg->ports[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int
fx_feed(const char *pcap_path, unsigned int port)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *pc;
	int n = 0;

	pc = pcap_open_offline(pcap_path, errbuf);
	if (pc == NULL) {
		fprintf(stderr, "%s: %s\n", pcap_path, errbuf);
		return -EINVAL;
	}
	while (pcap_next_ex(pc, &h, &data) == 1) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(rt.pool);
		char *d;

		if (m == NULL || h->caplen > rte_pktmbuf_tailroom(m)) {
			fprintf(stderr, "%s: frame %d does not fit an mbuf\n", pcap_path, n);
			rte_pktmbuf_free(m);
			pcap_close(pc);
			return -ENOSPC;
		}
		d = rte_pktmbuf_append(m, (uint16_t)h->caplen);
		memcpy(d, data, h->caplen);
		if (rte_ring_enqueue(fx_ports[port].rx, m) != 0) {
			rte_pktmbuf_free(m);
			pcap_close(pc);
			return -ENOSPC;
		}
		n++;
	}
	pcap_close(pc);
	return n;
}

static int
fx_collect(const char *outdir)
{
	unsigned int i;

	for (i = 0; i < rt.cfg->n_ports; i++) {
		struct rte_mbuf *m = NULL;
		pcap_dumper_t *d = NULL;
		pcap_t *pc = NULL;
		char path[1024];

		while (rte_ring_dequeue(fx_ports[i].tx, (void **)&m) == 0) {
			struct pcap_pkthdr h;
			uint8_t buf[16384];

			if (d == NULL) {
				snprintf(path, sizeof(path), "%s/%s.pcap", outdir, rt.cfg->ports[i].name);
				pc = pcap_open_dead(DLT_EN10MB, 65535);
				d = pcap_dump_open(pc, path);
				if (d == NULL) {
					fprintf(stderr, "%s: %s\n", path, pcap_geterr(pc));
					rte_pktmbuf_free(m);
					pcap_close(pc);
					return -EIO;
				}
			}
			const void *data;

			memset(&h, 0, sizeof(h));
			h.caplen = h.len = RTE_MIN(m->pkt_len, (uint32_t)sizeof(buf));
			/* Returns a pointer into the mbuf when contiguous, else copies to buf. */
			data = rte_pktmbuf_read(m, 0, h.caplen, buf);
			pcap_dump((u_char *)d, &h, data);
			rte_pktmbuf_free(m);
		}
		if (d != NULL) {
			pcap_dump_close(d);
			pcap_close(pc);
		}
	}
	return 0;
}

/* Packets legitimately held by the worker: WAN queues and mechanism C holds. */
static unsigned int
fx_queued(const struct dp_worker *w)
{
	unsigned int n = 0, p, q, i;

	for (p = 0; p < LS_MAX_PORTS; p++)
		for (q = 0; q < DP_TM_CLASS_MAX; q++)
			n += tm_fifo_count(&w->tm[p].q[q]);
	for (i = 0; i < HOLD_SLOTS; i++)
		n += hold_count(&w->hold.e[i]);
	return n;
}

static void
fx_write_mech(FILE *f, const struct dp_worker *w)
{
	const struct dp_mech_counters *mc = &w->counters.mech;
	unsigned int p, q, r;

	for (p = 0; p < rt.cfg->n_ports; p++) {
		if (rt.cfg->ports[p].role != LS_PORT_WAN)
			continue;
		for (q = 0; q < DP_TM_CLASS_MAX; q++) {
			const struct dp_tm_counters *t = &w->counters.tm[p][q];

			fprintf(f, "tm %s %u enq %" PRIu64 " deq %" PRIu64 " drops %" PRIu64
				   " mark_decisions %" PRIu64 " ce_written %" PRIu64 " ce_cleared %" PRIu64
				   " cnp_sent %" PRIu64 " cnp_suppressed %" PRIu64 " cnp_no_qpn %" PRIu64
				   " cnp_failed %" PRIu64 " depth_bytes %" PRIu64 " depth_pkts %" PRIu64
				   "\n",
				rt.cfg->ports[p].name, q, t->enq_pkts, t->deq_pkts, t->drops,
				t->mark_decisions, t->ce_written, t->ce_cleared, t->cnp_sent,
				t->cnp_suppressed, t->cnp_no_qpn, t->cnp_failed, t->depth_bytes,
				t->depth_pkts);
		}
	}
	fprintf(f, "mech cnp_sent %" PRIu64 " cnp_suppressed %" PRIu64 " cnp_no_qpn %" PRIu64
		   " cnp_no_neigh %" PRIu64 " cnp_no_mbuf %" PRIu64 " cnp_tx_full %" PRIu64
		   " ce_cleared %" PRIu64 " trp_cnps %" PRIu64
		   " trp_no_flow %" PRIu64 " trp_activations %" PRIu64 " trp_delayed %" PRIu64
		   " trp_released %" PRIu64 " trp_upstream_ce %" PRIu64 "\n",
		mc->cnp_sent, mc->cnp_suppressed, mc->cnp_no_qpn, mc->cnp_no_neigh, mc->cnp_no_mbuf,
		mc->cnp_tx_full, mc->ce_cleared,
		mc->trp_cnps, mc->trp_no_flow, mc->trp_activations, mc->trp_delayed,
		mc->trp_released, mc->trp_upstream_ce);
	/* Mechanism B at the DC port: what the fabric's PFC did to us, per priority that moved. */
	fprintf(f, "pfc rx_frames %" PRIu64 " held %" PRIu64 " released %" PRIu64,
		w->counters.pfc.rx_frames, w->counters.pfc.held, w->counters.pfc.released);
	for (q = 0; q < PFC_PRIORITIES; q++)
		if (w->counters.pfc.rx_pauses[q] != 0)
			fprintf(f, " rx_pauses%u %" PRIu64 " rx_paused_ns%u %" PRIu64, q,
				w->counters.pfc.rx_pauses[q], q, w->counters.pfc.rx_paused_ns[q]);
	fprintf(f, "\n");
	for (r = 0; r < QPN_LEARN_RESULT_MAX; r++)
		if (mc->learn[r] != 0 || mc->learn_dst[r] != 0)
			fprintf(f, "learn %s src %" PRIu64 " dst %" PRIu64 "\n",
				qpn_learn_result_name((enum qpn_learn_result)r), mc->learn[r],
				mc->learn_dst[r]);
}

static uint64_t fx_clock_base;

static int
fx_run_case(const char *name, const char *ingress, const char *input, const char *outdir,
	    uint64_t clock_ns, bool cont, unsigned int base_in_use)
{
	/* The TSC follows the step clock, so shapers and sojourn times see it move. */
	const struct dp_clock clk = {
		.tsc = (uint64_t)((unsigned __int128)(clock_ns - fx_clock_base) * rte_get_tsc_hz() /
				  1000000000u),
		.ns = clock_ns,
	};
	struct dp_worker *w = rt.workers[0];
	unsigned int queued;
	uint64_t rx = 0, tx = 0;
	char path[1024];
	unsigned int i, in_use;
	int port, n, rounds;
	FILE *f;

	port = fx_port_index(ingress);
	if (port < 0) {
		fprintf(stderr, "%s: no port named '%s'\n", name, ingress);
		return -EINVAL;
	}
	if (!cont)
		fx_reset();
	n = fx_feed(input, (unsigned int)port);
	if (n < 0)
		return n;
	/* Poll until the rings are drained, letting the control thread run between. */
	for (rounds = 0; rounds < 64; rounds++) {
		unsigned int got = dp_worker_poll(w, &clk);
		unsigned int punted = runtime_drain_punts(&rt);

		if (got == 0 && punted == 0 && rte_ring_count(w->inject) == 0 &&
		    rte_ring_count(fx_ports[port].rx) == 0)
			break;
	}
	if (fx_collect(outdir) != 0)
		return -EIO;
	in_use = rte_mempool_in_use_count(rt.pool);
	snprintf(path, sizeof(path), "%s/result.txt", outdir);
	f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		return -errno;
	}
	for (i = 1; i < LS_DROP_MAX; i++)
		if (w->counters.drops[i] != 0)
			fprintf(f, "drop %s %" PRIu64 "\n", ls_drop_reason_names[i],
				w->counters.drops[i]);
	fprintf(f, "input %d\n", n);
	/* Port totals, for the accounting check (rx = forwarded + drops + punts + queued). */
	for (i = 0; i < rt.cfg->n_ports; i++) {
		rx += w->counters.port[i].rx_pkts;
		tx += w->counters.port[i].tx_pkts;
	}
	fprintf(f, "rx %" PRIu64 "\n", rx);
	fprintf(f, "tx %" PRIu64 "\n", tx);
	fprintf(f, "forwarded %" PRIu64 "\n", w->counters.forwarded);
	fprintf(f, "own_tx %" PRIu64 "\n", w->counters.own_tx);
	fprintf(f, "own_tx_failed %" PRIu64 "\n", w->counters.own_tx_failed);
	fprintf(f, "punted %" PRIu64 "\n", w->counters.punted);
	fprintf(f, "resolve_requests %" PRIu64 "\n", w->counters.resolve_requests);
	fprintf(f, "injected %" PRIu64 "\n", w->counters.injected);
	fprintf(f, "ecn_marked %" PRIu64 "\n", w->counters.ecn_marked);
	for (i = 0; i < rt.cfg->n_peers; i++)
		fprintf(f, "peer %s tx %" PRIu64 " rx %" PRIu64 " ce %" PRIu64 " gaps %" PRIu64
			   " reorder %" PRIu64 "\n",
			rt.cfg->peers[i].name, w->counters.peer[i].tx_pkts, w->counters.peer[i].rx_pkts,
			w->counters.peer[i].rx_ce, w->counters.peer[i].rx_seq_gaps,
			w->counters.peer[i].rx_seq_reorder);
	fprintf(f, "l2 arp_replies %" PRIu64 " nd_adverts %" PRIu64 " echo_replies %" PRIu64
		   " requests %" PRIu64 " learned %" PRIu64 " invalid %" PRIu64 "\n",
		rt.l2.arp_replies, rt.l2.nd_adverts, rt.l2.echo_replies, rt.l2.requests,
		rt.l2.learned, rt.l2.invalid);
	fx_write_mech(f, w);
	queued = fx_queued(w);
	fprintf(f, "queued %u\n", queued);
	fprintf(f, "mbuf_leak %d\n", (int)in_use - (int)queued - (int)base_in_use);
	fclose(f);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "manifest", required_argument, NULL, 'm' },
		{ "clock-ns", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cfg_path = NULL, *manifest = NULL;
	uint64_t clock_ns = 1700000000123456789ull;
	char prefix[64], line[2048];
	char *eal_argv[9];
	unsigned int base_in_use;
	int opt, rc, failed = 0, cases = 0;
	FILE *mf;

	while ((opt = getopt_long(argc, argv, "c:m:t:", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			cfg_path = optarg;
			break;
		case 'm':
			manifest = optarg;
			break;
		case 't':
			clock_ns = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s --config FILE --manifest FILE [--clock-ns N]\n",
				argv[0]);
			return 2;
		}
	}
	if (cfg_path == NULL || manifest == NULL) {
		fprintf(stderr, "usage: %s --config FILE --manifest FILE [--clock-ns N]\n", argv[0]);
		return 2;
	}
	snprintf(prefix, sizeof(prefix), "--file-prefix=dpfx%d", (int)getpid());
	eal_argv[0] = argv[0];
	eal_argv[1] = (char *)(uintptr_t)"--no-huge";
	eal_argv[2] = (char *)(uintptr_t)"--no-shconf";
	eal_argv[3] = (char *)(uintptr_t)"--no-pci";
	eal_argv[4] = (char *)(uintptr_t)"-l0";
	eal_argv[5] = prefix;
	eal_argv[6] = (char *)(uintptr_t)"--log-level=*:warning";
	eal_argv[7] = (char *)(uintptr_t)"-m512"; /* --no-huge defaults to 64 MiB */
	eal_argv[8] = NULL;
	if (rte_eal_init(8, eal_argv) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = fx_setup(cfg_path);
	if (rc != 0) {
		fprintf(stderr, "setup failed: %s\n", strerror(-rc));
		return 1;
	}
	base_in_use = rte_mempool_in_use_count(rt.pool);
	fx_clock_base = clock_ns;
	mf = fopen(manifest, "r");
	if (mf == NULL) {
		perror(manifest);
		return 1;
	}
	while (fgets(line, sizeof(line), mf) != NULL) {
		char name[256], ingress[64], input[768], outdir[768], cont[8] = "";
		unsigned long long step_ns = clock_ns;
		int fields;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		fields = sscanf(line, "%255s %63s %767s %767s %llu %7s", name, ingress, input, outdir,
				&step_ns, cont);
		if (fields < 4) {
			fprintf(stderr, "%s: bad line: %s", manifest, line);
			failed++;
			continue;
		}
		cases++;
		if (fx_run_case(name, ingress, input, outdir, step_ns, strcmp(cont, "+") == 0,
				base_in_use) != 0) {
			fprintf(stderr, "case %s: harness error\n", name);
			failed++;
		}
	}
	fclose(mf);
	printf("dp_fixture: %d case(s) run, %d harness error(s)\n", cases, failed);
	return failed ? 1 : 0;
}
