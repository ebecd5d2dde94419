/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dp_cycles: TSC cycles per packet of the gateway's own work, without a
 * packet source's cost, and of the pieces that work is made of.
 *
 *   dp_cycles --config FILE --pcap FILE [--packets N] [--rounds R] [--components]
 *             [--ingress wan [--outer-udp-csum]]
 *
 * Part 1 (always): the config's ports are replaced by net_ring ports (as in
 * tests/dataplane/dp_fixture.c); every frame of the pcap goes into an mbuf
 * on the DC port's rx ring; the harness then calls dp_worker_poll(), the
 * worker's real per-poll function, and times each call with rte_rdtsc().
 * What the worker sends to the WAN ring is restored to its original bytes
 * (outside the timed region) and fed back, until --packets packets have
 * been forwarded. The ring PMD's rx/tx are a few cycles per packet: the rest
 * is the pipeline.
 *
 * With --ingress wan the other direction is timed: the pcap's DC frames go
 * through the pipeline once (untimed), and what reaches the WAN ring is
 * turned around into what the peer gateway sends back (outer and inner
 * source and destination swapped, which leaves every checksum valid; the
 * MACs as the peer's next hop would write them) and fed to the WAN port;
 * what the worker sends to the DC is restored and fed back the same way.
 * An IPv4 underlay carries a zero outer UDP checksum, as the gateway sends
 * it; --outer-udp-csum fills it in, as some GENEVE senders do (an IPv6
 * underlay always has one), to time its verification on decapsulation.
 *
 * Part 2 (--components): the same packets through individual stages, each
 * timed the same way. "(pipeline)" is what the pipeline does now, "(before)"
 * what it replaced, "(alternative)" a change it might adopt, so that a
 * suggested change comes with its measured cost. A stage that is static in
 * the dataplane is timed from a copy here, checked against the real code;
 * the alternatives live here only.
 *
 * Output is Markdown on stdout. Timed bursts that took longer than 50 us
 * were preempted by another process and are left out (and counted); a busy
 * sibling vCPU still slows the rest down, so run it on a quiet machine.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lpm.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "control/config.h"
#include "control/eal_args.h"
#include "control/hook_set.h"
#include "control/ports.h"
#include "control/runtime.h"
#include "congestion/ecn.h"
#include "dataplane/bits.h"
#include "dataplane/flow.h"
#include "dataplane/geneve.h"
#include "dataplane/hook.h"
#include "dataplane/mbuf_meta.h"
#include "dataplane/neigh.h"
#include "dataplane/parse.h"
#include "dataplane/pipeline.h"
#include "dataplane/worker.h"

#define CY_BURST 32
#define CY_RESTORE_BYTES 128 /* the pipeline rewrites only the headers */

static struct ls_runtime rt;
static struct rte_ring *cy_rx[LS_MAX_PORTS], *cy_tx[LS_MAX_PORTS];

/*
 * Each mbuf keeps its original frame length and first CY_RESTORE_BYTES at
 * the end of its data room, which the pipeline never touches (it strips
 * and prepends headers at the front), to undo the rewrite between passes.
 */
struct cy_stash {
	const struct rte_mbuf *self; /* the mbuf it was loaded into: a pcap frame */
	uint16_t len;
	uint8_t head[CY_RESTORE_BYTES];
};

static struct rte_mbuf **cy_mbufs;
static unsigned int cy_n;
/* Ports the timed loop feeds and collects (indexes into dp_conf.ports). */
static uint16_t cy_in, cy_out;
/*
 * A timed burst longer than this (50 us) was preempted: on a shared machine
 * another process took the CPU. Such bursts are left out and counted, so
 * the numbers are the cost of the code, not of the scheduler.
 */
static uint64_t cy_preempt_cycles;
static uint64_t cy_preempted;
/* Frames the pipeline built itself (path probes, CNPs) and the loop freed. */
static uint64_t cy_generated;
static uint64_t cy_last_ns; /* the pipeline's clock when it stopped */
/* The first frame the pipeline sent to the WAN, as sent (part 2 checks its encap copy). */
static struct rte_mbuf *cy_wan_m;
static uint8_t cy_wan_hdr[CY_RESTORE_BYTES];
static uint16_t cy_wan_len; /* its data_len */
static volatile uint64_t cy_sink; /* keeps measured results alive */

static int
cy_ports_create(const struct ls_config *cfg, unsigned int ring_size)
{
	unsigned int i;

	for (i = 0; i < cfg->n_ports; i++) {
		char name[64], rname[RTE_RING_NAMESIZE];

		if (eal_args_dev_name(cfg->ports[i].dev, name, sizeof(name)) < 0)
			return -EINVAL;
		snprintf(rname, sizeof(rname), "cy_rx_%u", i);
		cy_rx[i] = rte_ring_create(rname, ring_size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(rname, sizeof(rname), "cy_tx_%u", i);
		cy_tx[i] = rte_ring_create(rname, ring_size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (cy_rx[i] == NULL || cy_tx[i] == NULL)
			return -ENOMEM;
		/* rte_eth_from_rings() names the port "net_ring_" + its argument. */
		if (strncmp(name, "net_ring_", 9) != 0) {
			fprintf(stderr, "port %s: device must be named net_ring_*\n", name);
			return -EINVAL;
		}
		if (rte_eth_from_rings(name + 9, &cy_rx[i], 1, &cy_tx[i], 1, 0) < 0) {
			fprintf(stderr, "cannot create ring port %s\n", name);
			return -EINVAL;
		}
	}
	return 0;
}

static int
cy_setup(const char *cfg_path, unsigned int ring_size)
{
	struct ls_config *cfg = calloc(1, sizeof(*cfg));
	struct dp_conf *dp;
	struct dp_worker *w;
	unsigned int i, j;
	int rc;

	if (cfg == NULL || config_load(cfg_path, cfg, stderr) != 0)
		return -EINVAL;
	pthread_mutex_init(&rt.cfg_lock, NULL);
	rt.cfg = cfg;
	rc = dp_mbuf_meta_register();
	if (rc != 0)
		return rc;
	rt.pool = ports_pool_create(cfg, stderr);
	if (rt.pool == NULL)
		return -ENOMEM;
	for (i = 0; i < cfg->n_ports; i++) {
		rt.neigh[i] = rte_zmalloc("cy_neigh", sizeof(struct neigh_table), 64);
		if (rt.neigh[i] == NULL)
			return -ENOMEM;
		neigh_init(rt.neigh[i]);
		for (j = 0; j < cfg->ports[i].n_neigh; j++) {
			const struct ls_static_neigh *sn = &cfg->ports[i].neigh[j];
			struct rte_ether_addr mac;

			memcpy(mac.addr_bytes, sn->mac, 6);
			neigh_update(rt.neigh[i], sn->ip.family, sn->ip.a, &mac, true, 0);
		}
	}
	w = rte_zmalloc("cy_worker", sizeof(*w), 64);
	if (w == NULL)
		return -ENOMEM;
	w->conf = &rt.dp;
	w->pool = rt.pool; /* probes, CNPs and credit control packets, as main.c sets it */
	w->tsc_hz = rte_get_tsc_hz();
	/* As dp_worker_main() sets it: dp_clock_now()'s ns per tick in Q32. */
	w->ns_per_tick_q32 = (uint64_t)(((unsigned __int128)1000000000u << 32) / w->tsc_hz);
	w->punt = rte_ring_create("cy_punt", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w->inject = rte_ring_create("cy_inject", 1024, 0, RING_F_SC_DEQ);
	if (w->punt == NULL || w->inject == NULL)
		return -ENOMEM;
	rc = runtime_worker_state_alloc(cfg, w, stderr);
	if (rc != 0)
		return rc;
	rt.workers[0] = w;
	rt.n_workers = 1;
	rc = cy_ports_create(cfg, ring_size);
	if (rc != 0)
		return rc;
	rc = ports_setup(cfg, rt.pool, rt.port_ids, stderr);
	if (rc != 0)
		return rc;
	rc = runtime_dp_build(&rt, cfg, &dp, stderr);
	if (rc != 0)
		return rc;
	/* The config's [hook NAME] sections, as longspand loads them (none: nothing). */
	rc = runtime_hooks_prepare(&rt, cfg, dp, stderr);
	if (rc != 0)
		return rc;
	rt.cfg = NULL;
	runtime_publish(&rt, cfg, dp);
	return 0;
}

/*
 * With hooks configured: their own counters over the whole run (warm-up
 * and preempted bursts included), per call; the pipeline table's cycles
 * per packet include them and the contexts' filling.
 */
static void
cy_hook_stats(void)
{
	const struct dp_hook_stats *st = rt.workers[0]->hook.stats;
	uint64_t calls = 0, cycles = 0, errors = 0;
	unsigned int i;

	for (i = 0; i < DP_HOOKS_MAX; i++) {
		calls += st[i].calls;
		cycles += st[i].cycles;
		errors += st[i].errors;
	}
	if (calls == 0)
		return;
	printf("\nhooks: %" PRIu64 " calls, %" PRIu64 " errors, %.1f cycles per call (their own "
	       "counter, the whole run)\n", calls, errors, (double)cycles / (double)calls);
}

static inline struct cy_stash *
cy_stash_of(struct rte_mbuf *m)
{
	return (struct cy_stash *)((uint8_t *)m->buf_addr + m->buf_len - sizeof(struct cy_stash));
}

static int
cy_load(const char *path, unsigned int max)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *pc = pcap_open_offline(path, errbuf);

	if (pc == NULL) {
		fprintf(stderr, "%s: %s\n", path, errbuf);
		return -EINVAL;
	}
	cy_mbufs = calloc(max, sizeof(*cy_mbufs));
	if (cy_mbufs == NULL)
		return -ENOMEM;
	while (cy_n < max && pcap_next_ex(pc, &h, &data) == 1) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(rt.pool);
		struct cy_stash *st;

		if (m == NULL ||
		    h->caplen + sizeof(struct cy_stash) > rte_pktmbuf_tailroom(m)) {
			fprintf(stderr, "%s: frame %u does not fit an mbuf (or the pool is empty)\n",
				path, cy_n);
			pcap_close(pc);
			return -ENOSPC;
		}
		memcpy(rte_pktmbuf_append(m, (uint16_t)h->caplen), data, h->caplen);
		st = cy_stash_of(m);
		st->self = m;
		st->len = (uint16_t)h->caplen;
		memcpy(st->head, data, RTE_MIN(h->caplen, (uint32_t)CY_RESTORE_BYTES));
		cy_mbufs[cy_n++] = m;
	}
	pcap_close(pc);
	return cy_n > 0 ? 0 : -EINVAL;
}

/*
 * Is m one of the pcap's frames? The others out of the pipeline are its own
 * (path probes, CNPs, from the same pool): they cannot be replayed.
 */
static inline bool
cy_is_frame(struct rte_mbuf *m)
{
	return cy_stash_of(m)->self == m;
}

/* Put an mbuf the pipeline rewrote back the way the pcap had it. */
static inline void
cy_restore(struct rte_mbuf *m)
{
	const struct cy_stash *st = cy_stash_of(m);

	m->data_off = RTE_PKTMBUF_HEADROOM;
	m->data_len = st->len;
	m->pkt_len = st->len;
	memcpy(rte_pktmbuf_mtod(m, void *), st->head, RTE_MIN(st->len, (uint16_t)CY_RESTORE_BYTES));
}

/* Part 1: dp_worker_poll() cycles per packet, after one untimed pass over every packet. */
static int
cy_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
cy_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cy_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int
cy_pipeline(uint64_t target, unsigned int rounds, double *round_cyc, uint64_t *pkts_out)
{
	struct dp_worker *w = rt.workers[0];
	uint16_t dc = cy_in, wan = cy_out;
	struct dp_clock clk = { .tsc = rte_rdtsc(), .ns = 1700000000000000000ull };
	uint64_t cyc = 0, pkts = 0, warm = 0, round_cyc0 = 0, round_pkts0 = 0;
	unsigned int r = 0;
	struct rte_mbuf *out[64];
	unsigned int i, n;

	for (i = 0; i < cy_n; i++)
		if (rte_ring_enqueue(cy_rx[dc], cy_mbufs[i]) != 0)
			return -ENOSPC;
	uint64_t tsc0 = clk.tsc, ns0 = clk.ns, idle = 0;

	/* Live, as dp_worker_main()'s: the poll reads it again after each burst (timed). */
	w->tsc_base = tsc0;
	w->ns_base = ns0;
	clk.live = true;

	while (r < rounds) {
		uint64_t t0, t1;

		/* The clock advances as in dp_clock_now() (shapers need it), untimed. */
		clk.tsc = rte_rdtsc();
		clk.ns = ns0 + (uint64_t)(((unsigned __int128)(clk.tsc - tsc0) *
					   w->ns_per_tick_q32) >> 32);
		t0 = rte_rdtsc();
		n = dp_worker_poll(w, &clk);
		t1 = rte_rdtsc();
		if (warm < cy_n) {
			warm += n;
		} else if (t1 - t0 > cy_preempt_cycles) {
			cy_preempted++;
		} else {
			cyc += t1 - t0;
			pkts += n;
			if (pkts - round_pkts0 >= target / rounds && r < rounds) {
				round_cyc[r++] = (double)(cyc - round_cyc0) / (double)(pkts - round_pkts0);
				round_cyc0 = cyc;
				round_pkts0 = pkts;
			}
		}
		/* Nothing in or out for a long time: dropped, or held in a queue. */
		idle = n == 0 && rte_ring_count(cy_tx[wan]) == 0 ? idle + 1 : 0;
		if (idle > 1000000)
			break;
		while ((n = rte_ring_dequeue_burst(cy_tx[wan], (void **)out, RTE_DIM(out), NULL)) > 0) {
			if (cy_wan_m == NULL && wan != rt.dp->dc_port && cy_is_frame(out[0])) {
				cy_wan_m = out[0];
				cy_wan_len = out[0]->data_len;
				memcpy(cy_wan_hdr, rte_pktmbuf_mtod(out[0], const void *),
				       RTE_MIN(cy_wan_len, sizeof(cy_wan_hdr)));
			}
			unsigned int k = 0;

			for (i = 0; i < n; i++) {
				if (!cy_is_frame(out[i])) {
					rte_pktmbuf_free(out[i]);
					cy_generated++;
					continue;
				}
				cy_restore(out[i]);
				out[k++] = out[i];
			}
			rte_ring_enqueue_burst(cy_rx[dc], (void **)out, k, NULL);
		}
	}
	cy_last_ns = clk.ns;
	for (i = 1; i < LS_DROP_MAX; i++)
		if (w->counters.drops[i] != 0) {
			fprintf(stderr, "dp_cycles: %" PRIu64 " packets dropped as %s: not the "
				"forwarding path\n", w->counters.drops[i], ls_drop_reason_names[i]);
			return -EIO;
		}
	if (r < rounds) {
		fprintf(stderr, "dp_cycles: the pipeline stalled after %" PRIu64 " packets "
			"(%u on the DC rx ring)\n", pkts, rte_ring_count(cy_rx[dc]));
		return -EIO;
	}
	*pkts_out = pkts;
	return 0;
}

/* Swap n bytes at a and b. */
static void
cy_swap(uint8_t *a, uint8_t *b, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint8_t t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
}

/*
 * --ingress wan: encapsulate every pcap frame once (untimed) and turn the
 * tunnel packets around into the peer's replies, in the same mbufs.
 */
static int
cy_turn_around(bool outer_udp_csum)
{
	struct dp_worker *w = rt.workers[0];
	const struct dp_conf *c = rt.dp;
	const struct dp_peer *peer = &c->peers[0];
	const struct dp_port *wan = &c->ports[peer->port];
	struct dp_clock clk = { .tsc = rte_rdtsc(), .ns = 1700000000000000000ull };
	struct rte_ether_addr peer_mac;
	unsigned int i, got = 0, polls;

	if (neigh_lookup(wan->neigh, peer->family, peer->nexthop, &peer_mac) != NEIGH_HIT) {
		fprintf(stderr, "dp_cycles: the peer's next hop has no static neighbour\n");
		return -EINVAL;
	}
	for (i = 0; i < cy_n; i++)
		if (rte_ring_enqueue(cy_rx[c->dc_port], cy_mbufs[i]) != 0)
			return -ENOSPC;
	for (polls = 0; got < cy_n && polls < 10 * cy_n; polls++) {
		struct rte_mbuf *m = NULL;

		clk.tsc = rte_rdtsc();
		dp_worker_poll(w, &clk);
		while (rte_ring_dequeue(cy_tx[peer->port], (void **)&m) == 0) {
			uint16_t len = (uint16_t)m->data_len, l2 = wan->vlan ? 18 : 14;
			uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *), *ip, *in;
			bool v4 = peer->family == AF_INET;
			unsigned int oh = v4 ? 20 : 40, alen = v4 ? 4 : 16;
			struct cy_stash *st;

			if (!cy_is_frame(m)) {
				rte_pktmbuf_free(m);
				cy_generated++;
				continue;
			}

			/* Back to the start of the data room, where cy_restore() puts frames. */
			memmove((uint8_t *)m->buf_addr + RTE_PKTMBUF_HEADROOM, f, len);
			m->data_off = RTE_PKTMBUF_HEADROOM;
			f = rte_pktmbuf_mtod(m, uint8_t *);
			st = cy_stash_of(m);
			if ((uint8_t *)st < f + len) {
				fprintf(stderr, "dp_cycles: a %u-byte tunnel frame does not fit "
					"before the stash: raise mbuf_data_size\n", len);
				return -ENOSPC;
			}
			memcpy(f, wan->mac.addr_bytes, 6);
			memcpy(f + 6, peer_mac.addr_bytes, 6);
			ip = f + l2;
			in = ip + oh + 8 + GENEVE_ENCAP_HDR_SIZE;
			cy_swap(ip + (v4 ? 12 : 8), ip + (v4 ? 16 : 24), alen);
			if ((in[0] >> 4) == 4)
				cy_swap(in + 12, in + 16, 4);
			else
				cy_swap(in + 8, in + 24, 16);
			if (v4 && outer_udp_csum) {
				struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + oh);

				udp->dgram_cksum = 0;
				udp->dgram_cksum = rte_ipv4_udptcp_cksum(
					(const struct rte_ipv4_hdr *)ip, udp);
			}
			st->len = len;
			memcpy(st->head, f, RTE_MIN(len, (uint16_t)CY_RESTORE_BYTES));
			cy_mbufs[got++] = m;
		}
	}
	if (got < cy_n) {
		fprintf(stderr, "dp_cycles: %u of %u frames were encapsulated\n", got, cy_n);
		return -EIO;
	}
	memset(&w->counters, 0, sizeof(w->counters));
	return 0;
}

/* ---- Part 2: stages and alternatives ------------------------------------- */

struct cy_item {
	const char *name;
	const char *note;
	double cycles; /* median of cy_rounds measurements */
};

static unsigned int cy_rounds = 5;

static struct pkt_meta *cy_meta;
static struct dp_hook_io cy_hook_io; /* the hook components' contexts (not the worker's) */

/*
 * Run the body once per burst of CY_BURST packets (b = the index of the
 * burst's first packet), timing each burst, until TARGET packets have been
 * timed; cycles per packet, the median of cy_rounds rounds. Bursts longer
 * than cy_preempt_cycles were preempted and are left out (and counted).
 */
#define CY_MEASURE_BURSTS(target, ...)                                            \
	({                                                                         \
		double _r[16];                                                     \
		unsigned int _i;                                                   \
		for (_i = 0; _i < cy_rounds; _i++)                                 \
			_r[_i] = CY_MEASURE_BURSTS1((target) / cy_rounds, __VA_ARGS__); \
		cy_median(_r, cy_rounds);                                          \
	})

#define CY_MEASURE_BURSTS1(target, ...)                                           \
	({                                                                         \
		uint64_t _cyc = 0, _done = 0;                                      \
		while (_done < (target)) {                                         \
			unsigned int b;                                            \
			for (b = 0; b + CY_BURST <= cy_n; b += CY_BURST) {         \
				uint64_t _t0 = rte_rdtsc();                        \
				uint64_t _dt;                                      \
				__VA_ARGS__;                                       \
				_dt = rte_rdtsc() - _t0;                           \
				if (_dt > cy_preempt_cycles) {                     \
					cy_preempted++;                            \
					continue;                                  \
				}                                                  \
				_cyc += _dt;                                       \
				_done += CY_BURST;                                 \
			}                                                          \
		}                                                                  \
		(double)_cyc / (double)_done;                                      \
	})

/* The same with the body run for every packet k of each burst; cycles per call. */
#define CY_MEASURE(target, ...)                                                   \
	CY_MEASURE_BURSTS(target, {                                                \
		unsigned int k;                                                    \
		for (k = b; k < b + CY_BURST; k++) {                               \
			__VA_ARGS__;                                               \
		}                                                                  \
	})

static inline const uint8_t *
cy_pkt(unsigned int k)
{
	return rte_pktmbuf_mtod(cy_mbufs[k], const uint8_t *);
}

/*
 * The IPv4 header check of parse_roce4_fast() (inline there, copied to time
 * it alone): five 32-bit words into a 64-bit sum, folded to 16 bits.
 */
static inline int
cy_ip4_csum_ok_words(const void *hdr)
{
	uint32_t w[5];
	uint64_t s;

	memcpy(w, hdr, sizeof(w));
	s = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

/*
 * An IPv4 flow hash with one CRC-32C step fewer than dp_flow_hash(): the
 * protocol as the seed, the ports as one host-order word. Its values are
 * not the hash docs/wire-format.md specifies.
 */
static inline uint32_t
cy_flow_hash_words(const uint8_t *ip, uint8_t proto, uint16_t sport, uint16_t dport)
{
	uint64_t addrs;

	memcpy(&addrs, ip + 12, 8);
	return dp_crc32c_u32((uint32_t)sport << 16 | dport, dp_crc32c_u64(addrs, proto));
}

/* Outer IPv4 total length of an inner IP packet of ip_len bytes. */
static inline uint16_t
cy_outer_tot(uint16_t ip_len)
{
	return (uint16_t)(sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_udp_hdr) +
			  GENEVE_ENCAP_HDR_SIZE + ip_len);
}

/*
 * The outer IPv4 header checksum as dp_encap() computes it (inline there):
 * the sum of the template's constant words, version and IHL included
 * (peer->tmpl_csum, from dp_peer_template() at publish), plus the TOS and
 * the total length, added as rte_raw_cksum() reads them from memory
 * (network order).
 * Returns the checksum field as stored, what rte_ipv4_cksum() returns.
 */
static inline uint16_t
cy_outer_csum_tmpl(uint32_t tmpl_csum, uint16_t tot, uint8_t tos)
{
	uint32_t sum = tmpl_csum + dp_htons(tos) + dp_htons(tot);

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Ethernet + IPv4 + UDP + GENEVE + option: an untagged template (DP_TMPL_V4_SIZE). */
#define CY_TMPL_V4_SIZE (sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) + \
			 sizeof(struct rte_udp_hdr) + GENEVE_ENCAP_HDR_SIZE)

/*
 * dp_encap()'s IPv4-underlay path (static there), copied to time it alone.
 * The mbuf data starts at the inner IP packet, as the traffic manager
 * leaves it; the peer's template goes in front and the per-packet fields
 * are patched. The next hop, hash, worker and sequence number come from
 * the caller instead of the mbuf metadata and the worker; the per-peer tx
 * counters are left out.
 */
static inline void
cy_encap(const struct dp_peer *peer, struct rte_mbuf *m, const uint8_t *dmac, uint32_t hash,
	 uint16_t worker, uint32_t seq, uint64_t now_ns)
{
	const uint8_t *inner = rte_pktmbuf_mtod(m, const uint8_t *);
	bool inner4 = (inner[0] >> 4) == 4;
	uint16_t udp_len = (uint16_t)(sizeof(struct rte_udp_hdr) + GENEVE_ENCAP_HDR_SIZE +
				      m->pkt_len);
	uint16_t tot = (uint16_t)(sizeof(struct rte_ipv4_hdr) + udp_len);
	uint16_t inner_et = inner4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6;
	uint8_t in_tos = inner4 ? inner[1] : (uint8_t)((inner[0] << 4) | (inner[1] >> 4));
	uint8_t tos = ecn_tos_with(in_tos, ecn_encap(ecn_of_tos(in_tos)));
	uint16_t l2 = peer->tmpl_l2;
	struct geneve_ls_opt *opt;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	uint8_t *hdr, *g;

	hdr = (uint8_t *)rte_pktmbuf_prepend(m, peer->tmpl_len);
	if (l2 == sizeof(struct rte_ether_hdr))
		memcpy(hdr, peer->tmpl, CY_TMPL_V4_SIZE);
	else
		memcpy(hdr, peer->tmpl, CY_TMPL_V4_SIZE + sizeof(struct rte_vlan_hdr));
	memcpy(hdr, dmac, RTE_ETHER_ADDR_LEN);
	ip = (struct rte_ipv4_hdr *)(hdr + l2);
	ip->type_of_service = tos;
	ip->total_length = dp_htons(tot);
	ip->hdr_checksum = cy_outer_csum_tmpl(peer->tmpl_csum, tot, tos);
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->src_port = dp_htons(geneve_src_port(hash));
	udp->dgram_len = dp_htons(udp_len);
	g = (uint8_t *)(udp + 1);
	opt = (struct geneve_ls_opt *)(g + GENEVE_HDR_SIZE);
	g[2] = (uint8_t)(inner_et >> 8);
	g[3] = (uint8_t)inner_et;
	opt->worker = dp_htons(worker);
	opt->seq = dp_htonl(seq);
	opt->tx_ns = dp_htonll(now_ns);
	m->tx_offload = peer->tmpl_offload;
}

/* Strip the inner Ethernet header and any padding, as dp_tm_prepare() does. */
static inline void
cy_strip(struct rte_mbuf *m, const struct pkt_meta *mt)
{
	rte_pktmbuf_adj(m, mt->l3_off);
	if (m->pkt_len > mt->ip_len)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - mt->ip_len));
}

/* The flow key of packet k, as dp_flow_key() builds it for IPv4. */
static inline void
cy_flow_key(unsigned int k, struct flow_key *fk)
{
	const struct pkt_meta *mt = &cy_meta[k];

	memset(fk, 0, sizeof(*fk));
	fk->family = AF_INET;
	memcpy(fk->src, cy_pkt(k) + mt->l3_off + 12, 4);
	memcpy(fk->dst, cy_pkt(k) + mt->l3_off + 16, 4);
	fk->sport = mt->sport;
	fk->dqpn = mt->dqpn;
}

/* The copies and alternatives must compute what the code they stand for computes. */
static void
cy_check(const struct dp_peer *peer, const struct rte_ether_addr *dmac)
{
	const struct dp_worker *w = rt.workers[0];
	static const uint64_t secs[] = { 0, 1, 60, 3600 };
	unsigned int k, i;

	for (k = 0; k < cy_n; k++) {
		const struct pkt_meta *mt = &cy_meta[k];
		struct pkt_meta f;

		if (!parse_roce4_fast(cy_pkt(k), cy_mbufs[k]->data_len, &f) ||
		    f.l3_off != mt->l3_off || f.l4_off != mt->l4_off || f.ip_len != mt->ip_len ||
		    f.vlan != mt->vlan || f.l3 != mt->l3 || f.proto != mt->proto ||
		    f.tos != mt->tos || f.cls != mt->cls || f.first_frag != mt->first_frag ||
		    f.fragmented != mt->fragmented || f.opcode != mt->opcode ||
		    f.sport != mt->sport || f.dport != mt->dport || f.bth_off != mt->bth_off ||
		    f.dqpn != mt->dqpn || f.psn != mt->psn) {
			fprintf(stderr, "dp_cycles: warning: parse_roce4_fast() disagrees with "
				"parse_l2() + parse_ip() on frame %u\n", k);
			break;
		}
		if (!cy_ip4_csum_ok_words(cy_pkt(k) + mt->l3_off)) {
			fprintf(stderr, "dp_cycles: warning: 32-bit header check disagrees with "
				"parse_ip() on frame %u\n", k);
			break;
		}
	}
	for (i = 0; i < RTE_DIM(secs); i++) {
		uint64_t d = secs[i] * w->tsc_hz + 12345;
		uint64_t by_div = (uint64_t)(((unsigned __int128)d * 1000000000u) / w->tsc_hz);
		uint64_t by_mul = (uint64_t)(((unsigned __int128)d * w->ns_per_tick_q32) >> 32);

		/* Q32 truncation: under 1 ns per 2^32 ticks, plus 1 for the floors. */
		if (by_div - by_mul > (d >> 32) + 1)
			fprintf(stderr, "dp_cycles: warning: multiply-shift clock disagrees "
				"with the divide by %" PRIu64 " ns after %" PRIu64 " s\n",
				by_div - by_mul, secs[i]);
	}
	if (peer->tmpl_len == 0)
		return;
	{
		struct rte_ipv4_hdr oh;
		unsigned int tos, len;
		bool ok = true;

		memcpy(&oh, peer->tmpl + peer->tmpl_l2, sizeof(oh));
		for (tos = 0; tos < 256 && ok; tos++)
			for (len = cy_outer_tot(20); len <= UINT16_MAX && ok; len += 997) {
				oh.type_of_service = (uint8_t)tos;
				oh.total_length = rte_cpu_to_be_16((uint16_t)len);
				oh.hdr_checksum = 0;
				ok = rte_ipv4_cksum(&oh) == cy_outer_csum_tmpl(peer->tmpl_csum,
									   (uint16_t)len,
									   (uint8_t)tos);
			}
		if (!ok)
			fprintf(stderr, "dp_cycles: warning: template outer checksum disagrees "
				"with rte_ipv4_cksum()\n");
	}
	/* The encap copy against a frame dp_encap() sent in part 1, but for seq and timestamp. */
	for (k = 0; k < cy_n && cy_mbufs[k] != cy_wan_m; k++)
		;
	if (k < cy_n && memcmp(cy_wan_hdr + peer->tmpl_l2 + 16, peer->dst, 4) == 0) {
		struct rte_mbuf *m = cy_mbufs[k];
		const struct pkt_meta *mt = &cy_meta[k];
		uint32_t hash = dp_flow_hash(cy_pkt(k) + mt->l3_off, mt->l3, mt->proto, mt->sport,
					     mt->dport);
		size_t same = peer->tmpl_len - sizeof(struct geneve_ls_opt) +
			      offsetof(struct geneve_ls_opt, seq);

		cy_strip(m, mt);
		cy_encap(peer, m, dmac->addr_bytes, hash, (uint16_t)w->id, 0, 0);
		if (m->data_len != cy_wan_len ||
		    memcmp(rte_pktmbuf_mtod(m, const void *), cy_wan_hdr, same) != 0)
			fprintf(stderr, "dp_cycles: warning: encap copy disagrees with "
				"dp_encap()\n");
		cy_restore(m);
	}
}

static void
cy_components(uint64_t target, struct cy_item *items, unsigned int *n_items)
{
	const struct dp_conf *c = rt.dp;
	const struct dp_peer *peer = &c->peers[0];
	const struct neigh_table *nt = c->ports[peer->port].neigh;
	const struct dp_worker *w = rt.workers[0];
	uint32_t ips[CY_BURST], hops[CY_BURST];
	struct rte_ether_addr dmac;
	bool have_dmac;
	uint64_t acc = 0;
	unsigned int n = 0, k;

	/* Parse once to have the metadata the later stages take. */
	for (k = 0; k < cy_n; k++) {
		uint16_t et;

		parse_l2(cy_pkt(k), cy_mbufs[k]->data_len, 0, &cy_meta[k], &et);
		parse_ip(cy_pkt(k), cy_mbufs[k]->data_len, cy_meta[k].l3_off, et, &cy_meta[k]);
	}
	have_dmac = neigh_lookup(nt, peer->family, peer->nexthop, &dmac) == NEIGH_HIT;
	cy_check(peer, &dmac);

	items[n++] = (struct cy_item){ "parse: parse_l2() + parse_ip() (before)",
		"the general parser, now only for what parse_roce4_fast() declines; "
		"IPv4 header check by rte_raw_cksum()",
		CY_MEASURE(target, {
			struct pkt_meta mt;
			uint16_t et;

			parse_l2(cy_pkt(k), cy_mbufs[k]->data_len, 0, &mt, &et);
			acc += parse_ip(cy_pkt(k), cy_mbufs[k]->data_len, mt.l3_off, et, &mt);
			acc += mt.dport;
		}) };
	items[n++] = (struct cy_item){ "parse: parse_roce4_fast() (pipeline)",
		"dp_parse() tries it first: Eth/IPv4 ihl 5/UDP 4791/BTH, checksum by 32-bit adds; "
		"dp_parse()'s MAC and own-address checks not included",
		CY_MEASURE(target, {
			struct pkt_meta mt;

			if (parse_roce4_fast(cy_pkt(k), cy_mbufs[k]->data_len, &mt))
				acc += mt.dqpn;
		}) };
	items[n++] = (struct cy_item){ "IPv4 header check: rte_raw_cksum(ip, 20) (before)",
		"16-bit loop in DPDK's generic helper; parse_ip() still uses it",
		CY_MEASURE(target, { acc += rte_raw_cksum(cy_pkt(k) + 14, 20) == 0xffff; }) };
	items[n++] = (struct cy_item){ "IPv4 header check: 5 x 32-bit adds (pipeline)",
		"parse_roce4_fast()'s check, copied; fixed 20-byte header, options take parse_ip()",
		CY_MEASURE(target, { acc += cy_ip4_csum_ok_words(cy_pkt(k) + 14); }) };
	items[n++] = (struct cy_item){ "flow hash: dp_flow_hash() (pipeline)",
		"CRC-32C instructions (bits.h) over 8 B addresses, 1 B protocol, 4 B ports: "
		"the bytes docs/wire-format.md specifies",
		CY_MEASURE(target, {
			const struct pkt_meta *mt = &cy_meta[k];

			acc += dp_flow_hash(cy_pkt(k) + mt->l3_off, mt->l3, mt->proto, mt->sport,
					    mt->dport);
		}) };
	items[n++] = (struct cy_item){ "flow hash: crc32c 8 B addresses + 4 B ports (alternative)",
		"IPv4; one CRC step fewer (protocol as the seed), but not the hash of "
		"docs/wire-format.md",
		CY_MEASURE(target, {
			const struct pkt_meta *mt = &cy_meta[k];

			acc += cy_flow_hash_words(cy_pkt(k) + mt->l3_off, mt->proto, mt->sport,
						  mt->dport);
		}) };
	if (c->lpm4 != NULL) {
		items[n++] = (struct cy_item){ "route: rte_lpm_lookup() per packet (pipeline)",
			"dp_ingress_dc()",
			CY_MEASURE(target, {
				uint32_t hop, d;

				memcpy(&d, cy_pkt(k) + 14 + 16, 4);
				acc += rte_lpm_lookup(c->lpm4, rte_be_to_cpu_32(d), &hop) + hop;
			}) };
		items[n++] = (struct cy_item){
			"route: rte_lpm_lookup_bulk() per burst of 32 (alternative)",
			"gather destinations, one call",
			CY_MEASURE_BURSTS(target, {
				for (k = 0; k < CY_BURST; k++) {
					uint32_t d;

					memcpy(&d, cy_pkt(b + k) + 14 + 16, 4);
					ips[k] = rte_be_to_cpu_32(d);
				}
				rte_lpm_lookup_bulk(c->lpm4, ips, hops, CY_BURST);
				acc += hops[CY_BURST - 1];
			}) };
	}
	items[n++] = (struct cy_item){ "next hop: neigh_lookup() per packet (before)",
		"same peer next hop for every packet",
		CY_MEASURE(target, {
			struct rte_ether_addr mac;

			acc += neigh_lookup(nt, peer->family, peer->nexthop, &mac) + mac.addr_bytes[5];
		}) };

	{
		struct rte_ether_addr mac;
		uint64_t t0, cyc = 0, done = 0;

		while (done < target) {
			t0 = rte_rdtsc();
			acc += neigh_lookup(nt, peer->family, peer->nexthop, &mac) + mac.addr_bytes[5];
			t0 = rte_rdtsc() - t0;
			if (t0 > cy_preempt_cycles) {
				cy_preempted++;
				continue;
			}
			cyc += t0;
			done += CY_BURST;
		}
		items[n++] = (struct cy_item){ "next hop: neigh_lookup() once per burst (pipeline)",
			"dp_pipeline_dc(): once per peer and burst; here every packet goes to one "
			"peer",
			(double)cyc / (double)done };
	}

	if (peer->tmpl_len != 0) {
		/* The peer template's outer IPv4 header, as dp_peer_template() built it. */
		struct rte_ipv4_hdr oh;

		memcpy(&oh, peer->tmpl + peer->tmpl_l2, sizeof(oh));
		items[n++] = (struct cy_item){ "outer IPv4 checksum: rte_ipv4_cksum() (before)",
			"the whole header summed per packet, as dp_encap() did before the template",
			CY_MEASURE(target, {
				const struct pkt_meta *mt = &cy_meta[k];

				oh.total_length = rte_cpu_to_be_16(cy_outer_tot(mt->ip_len));
				oh.type_of_service = mt->tos;
				oh.hdr_checksum = 0;
				acc += rte_ipv4_cksum(&oh);
			}) };
		items[n++] = (struct cy_item){
			"outer IPv4 checksum: template sum + TOS + length (pipeline)",
			"dp_encap()'s, copied; the constant words summed by dp_peer_template() "
			"at publish",
			CY_MEASURE(target, {
				const struct pkt_meta *mt = &cy_meta[k];

				acc += cy_outer_csum_tmpl(peer->tmpl_csum, cy_outer_tot(mt->ip_len),
							  mt->tos);
			}) };
	}
	items[n++] = (struct cy_item){
		"worker clock: tsc to ns with a 128-bit divide, per poll (before)",
		"rdtsc included (divide by the burst for per packet)",
		CY_MEASURE(target / CY_BURST, {
			uint64_t d = rte_rdtsc() - k;

			acc += (uint64_t)(((unsigned __int128)d * 1000000000u) / w->tsc_hz);
		}) };
	items[n++] = (struct cy_item){
		"worker clock: tsc to ns by Q32 multiply-shift, per poll (pipeline)",
		"dp_clock_now()'s, copied; rdtsc included (divide by the burst for per packet)",
		CY_MEASURE(target / CY_BURST, {
			uint64_t d = rte_rdtsc() - k;

			acc += (uint64_t)(((unsigned __int128)d * w->ns_per_tick_q32) >> 32);
		}) };
	{
		/* The per-QP flow table as dp_flow_account() uses it (entries exist from part 1). */
		struct flow_table *ft = &rt.workers[0]->flows;
		struct flow_key keys[CY_BURST];
		uint32_t hashes[CY_BURST];

		items[n++] = (struct cy_item){
			"flow table: key, flow_table_get(), counters, meter, one packet at a time (before)",
			"dp_flow_account() without ECN and PSN, copied: IPv4 key hashed as 3 words "
			"with CRC-32C (bits.h), open addressing, hot fields in the entry's first "
			"cache line",
			CY_MEASURE(target, {
				const struct pkt_meta *mt = &cy_meta[k];
				struct flow_entry *fe;
				struct flow_key fk;
				bool created;

				cy_flow_key(k, &fk);
				fe = flow_table_get(ft, &fk, cy_last_ns, &created);
				if (fe != NULL) {
					fe->pkts++;
					fe->bytes += mt->ip_len;
					rate_meter_add(&fe->meter, mt->ip_len, cy_last_ns);
				}
				acc += created;
			}) };
		items[n++] = (struct cy_item){
			"flow table: burst keys + hashes first, slots prefetched, then get (pipeline)",
			"dp_pipeline_dc()'s two passes, copied; matters when the table misses the cache "
			"(64k flows)",
			CY_MEASURE_BURSTS(target, {
				/* Keys and hashes of the burst first, slots prefetched... */
				for (k = 0; k < CY_BURST; k++) {
					cy_flow_key(b + k, &keys[k]);
					hashes[k] = flow_table_hash(&keys[k]);
					flow_table_prefetch(ft, hashes[k]);
				}
				/* ...then the lookups with those hashes. */
				for (k = 0; k < CY_BURST; k++) {
					const struct pkt_meta *mt = &cy_meta[b + k];
					bool created;
					struct flow_entry *fe = flow_table_get_hashed(
						ft, &keys[k], hashes[k], cy_last_ns, &created);

					if (fe != NULL) {
						fe->pkts++;
						fe->bytes += mt->ip_len;
						rate_meter_add(&fe->meter, mt->ip_len, cy_last_ns);
					}
					acc += created;
				}
			}) };
	}
	if (peer->tmpl_len != 0 && have_dmac) {
		uint32_t seq = 0;

		items[n++] = (struct cy_item){
			"encap: per-peer header template, copy + patch (pipeline)",
			"dp_encap()'s IPv4 path, copied: template copy (66 B untagged), then "
			"next hop, TOS, lengths, checksum, UDP port, inner type, worker, seq, "
			"timestamp; the inner Ethernet strip and the mbuf restore are inside "
			"the timing",
			CY_MEASURE(target, {
				struct rte_mbuf *m = cy_mbufs[k];

				cy_strip(m, &cy_meta[k]);
				cy_encap(peer, m, dmac.addr_bytes, k, (uint16_t)w->id, seq++,
					 cy_last_ns);
				acc += rte_pktmbuf_mtod(m, uint8_t *)[30];
				m->data_off = RTE_PKTMBUF_HEADROOM;
				m->data_len = cy_stash_of(m)->len;
				m->pkt_len = m->data_len;
			}) };
		for (k = 0; k < cy_n; k++)
			cy_restore(cy_mbufs[k]);
	}
	if (c->hooks[w->id] != NULL) {
		const struct dp_hooks *h = c->hooks[w->id];
		struct dp_hook_at at = { .port = 0, .peer = 0 };
		uint32_t hashes[CY_BURST];
		unsigned int j;

		dp_hook_io_init(&cy_hook_io, (uint16_t)w->lcore);
		items[n++] = (struct cy_item){
			"hook: dc_rx point, RoCE context + the point's programs (pipeline)",
			"dp_hook_rx_roce() for each packet (the flow key and hash precomputed "
			"per burst, outside the timing; no flow table slot, so a hook probes "
			"from the hash), then dp_hook_flush(): what the config's hooks at "
			"dc_rx cost, the program included",
			CY_MEASURE_BURSTS(target, {
				struct flow_key keys[CY_BURST];

				for (j = 0; j < CY_BURST; j++) {
					cy_flow_key(b + j, &keys[j]);
					hashes[j] = flow_table_hash(&keys[j]);
				}
				_t0 = rte_rdtsc();
				for (j = 0; j < CY_BURST; j++) {
					const struct pkt_meta *mt = &cy_meta[b + j];

					at.frame_bytes = cy_mbufs[b + j]->pkt_len;
					dp_hook_rx_roce(&cy_hook_io, h, LS_HOOK_DC_RX, &at, mt,
							cy_pkt(b + j) + mt->bth_off, &keys[j],
							hashes[j], LS_HOOK_NO_SLOT);
				}
				dp_hook_flush(&cy_hook_io, h, LS_HOOK_DC_RX);
			}) };
		items[n++] = (struct cy_item){
			"hook: wan_tx point, context from the packet + the point's programs "
			"(pipeline)",
			"dp_hook_tx() for each packet (its inner IP, the flow hash carried, "
			"precomputed outside the timing), then dp_hook_flush()",
			CY_MEASURE_BURSTS(target, {
				for (j = 0; j < CY_BURST; j++) {
					struct flow_key fk;

					cy_flow_key(b + j, &fk);
					hashes[j] = flow_table_hash(&fk);
				}
				_t0 = rte_rdtsc();
				for (j = 0; j < CY_BURST; j++) {
					const struct rte_mbuf *m = cy_mbufs[b + j];
					const struct pkt_meta *mt = &cy_meta[b + j];

					at.frame_bytes = m->pkt_len;
					dp_hook_tx(&cy_hook_io, h, LS_HOOK_WAN_TX, &at,
						   cy_pkt(b + j) + mt->l3_off,
						   (uint32_t)m->data_len - mt->l3_off,
						   LS_HOOK_V_FORWARDED, 0, 0, hashes[j], LS_HOOK_NO_SLOT);
				}
				dp_hook_flush(&cy_hook_io, h, LS_HOOK_WAN_TX);
			}) };
		acc += cy_hook_io.stats[0].calls;
	}
	cy_sink = acc;
	*n_items = n;
}

static void
usage(const char *prog)
{
	fprintf(stderr, "usage: %s --config FILE --pcap FILE [--packets N] [--rounds R (1..16)] "
		"[--components | --ingress wan [--outer-udp-csum]]\n",
		prog);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "pcap", required_argument, NULL, 'p' },
		{ "packets", required_argument, NULL, 'n' },
		{ "components", no_argument, NULL, 'C' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "ingress", required_argument, NULL, 'i' },
		{ "outer-udp-csum", no_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cfg_path = NULL, *pcap_path = NULL;
	uint64_t target = 20000000;
	bool components = false, ingress_wan = false, outer_udp_csum = false;
	char prefix[64];
	char *eal_argv[10];
	struct cy_item items[32];
	unsigned int n_items = 0, i, ring_size = 1;
	double cyc, round_cyc[16];
	uint64_t pkts;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "c:p:n:Cr:i:u", opts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			if (strcmp(optarg, "wan") != 0 && strcmp(optarg, "dc") != 0) {
				usage(argv[0]);
				return 2;
			}
			ingress_wan = strcmp(optarg, "wan") == 0;
			break;
		case 'u':
			outer_udp_csum = true;
			break;
		case 'c':
			cfg_path = optarg;
			break;
		case 'p':
			pcap_path = optarg;
			break;
		case 'n':
			target = strtoull(optarg, NULL, 0);
			break;
		case 'C':
			components = true;
			break;
		case 'r':
			cy_rounds = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (cfg_path == NULL || pcap_path == NULL || target == 0 || cy_rounds == 0 ||
	    cy_rounds > 16 || (ingress_wan && components) || (outer_udp_csum && !ingress_wan)) {
		usage(argv[0]);
		return 2;
	}
	snprintf(prefix, sizeof(prefix), "--file-prefix=dpcy%d", (int)getpid());
	eal_argv[0] = argv[0];
	eal_argv[1] = (char *)(uintptr_t)"--no-huge";
	eal_argv[2] = (char *)(uintptr_t)"--no-shconf";
	eal_argv[3] = (char *)(uintptr_t)"--no-pci";
	eal_argv[4] = (char *)(uintptr_t)"-l1";
	eal_argv[5] = prefix;
	eal_argv[6] = (char *)(uintptr_t)"--log-level=*:warning";
	eal_argv[7] = (char *)(uintptr_t)"-m1536"; /* 64k x 4.7 KB mbufs fit */
	eal_argv[8] = NULL;
	if (rte_eal_init(8, eal_argv) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	/* Rings hold every packet: the config's mbufs must cover the pcap. */
	{
		struct ls_config *probe = calloc(1, sizeof(*probe));

		if (probe == NULL || config_load(cfg_path, probe, stderr) != 0)
			return 1;
		while (ring_size <= ports_mbufs_needed(probe))
			ring_size <<= 1;
		free(probe);
	}
	cy_preempt_cycles = rte_get_tsc_hz() / 20000;
	rc = cy_setup(cfg_path, ring_size);
	if (rc != 0) {
		fprintf(stderr, "setup failed: %s\n", strerror(-rc));
		return 1;
	}
	/* Every frame, leaving the pool what the ports' descriptors and caches take. */
	rc = cy_load(pcap_path, rt.cfg->gw.mbufs > 16384 ? rt.cfg->gw.mbufs - 8192 : rt.cfg->gw.mbufs / 2);
	if (rc != 0)
		return 1;
	cy_in = rt.dp->dc_port;
	cy_out = rt.dp->peers[0].port;
	if (ingress_wan) {
		rc = cy_turn_around(outer_udp_csum);
		if (rc != 0)
			return 1;
		cy_in = rt.dp->peers[0].port;
		cy_out = rt.dp->dc_port;
	}
	rc = cy_pipeline(target, cy_rounds, round_cyc, &pkts);
	if (rc != 0)
		return 1;
	cyc = cy_median(round_cyc, cy_rounds);
	printf("| pipeline | packets | cycles/pkt (median) | min | ns/pkt | Mpps at this cost |\n"
	       "|---|---|---|---|---|---|\n");
	printf("| dp_worker_poll() over net_ring, %u %s frames of %u B | %" PRIu64
	       " | %.1f | %.1f | %.1f | %.2f |\n",
	       cy_n, ingress_wan ? (outer_udp_csum ? "WAN (outer UDP checksum)" : "WAN") : "DC",
	       (unsigned int)cy_stash_of(cy_mbufs[0])->len, pkts, cyc, round_cyc[0],

	       cyc * 1e9 / (double)rte_get_tsc_hz(), (double)rte_get_tsc_hz() / cyc / 1e6);
	if (components) {
		cy_meta = calloc(cy_n, sizeof(*cy_meta));
		if (cy_meta == NULL)
			return 1;
		cy_components(target, items, &n_items);
		printf("\n| stage | cycles/pkt | note |\n|---|---|---|\n");
		for (i = 0; i < n_items; i++)
			printf("| %s | %.1f | %s |\n", items[i].name, items[i].cycles, items[i].note);
	}
	cy_hook_stats();
	printf("\nTSC %.0f MHz; %" PRIu64 " timed bursts left out as preempted (> %" PRIu64
	       " cycles); %" PRIu64 " frames the pipeline built (probes, CNPs) freed\n",
	       (double)rte_get_tsc_hz() / 1e6, cy_preempted, cy_preempt_cycles, cy_generated);
	hook_set_free(rt.hooks, 0); /* its pins */
	rt.hooks = NULL;
	return 0;
}
