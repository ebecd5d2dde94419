/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspan-pktio: send a pcap's frames out of one DPDK port and capture what
 * the port receives into another pcap. The traffic end of the integration
 * tests and the issue-2 lab: a "site" attached to a gateway's DC port over
 * any vdev (net_memif, net_af_packet, net_ring...).
 *
 *   longspan-pktio [EAL options] -- [--tx FILE] [--rx FILE] [--duration S]
 *                  [--wait-link S] [--settle MS] [--pps N] [--loop N]
 *                  [--expect N]
 *
 * It waits for the port's link to come up (memif connects asynchronously),
 * captures from then on, starts sending the --tx frames --settle ms later
 * (--loop times, at most --pps frames per second), and stops --duration
 * seconds after that or once --expect frames arrived and all were sent. Prints `tx N rx N` at the end. Idle polling backs off so it
 * can share a core with the gateways.
 */
#include <getopt.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#define PKTIO_MAX_FRAMES 65536
#define PKTIO_BURST 32

struct frame {
	uint32_t len;
	uint8_t *data;
};

static volatile sig_atomic_t pktio_stop;

static void
pktio_signal(int sig)
{
	(void)sig;
	pktio_stop = 1;
}

static int
pktio_load(const char *path, struct frame *frames, unsigned int max)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	unsigned int n = 0;
	pcap_t *pc = pcap_open_offline(path, errbuf);

	if (pc == NULL) {
		fprintf(stderr, "pktio: %s: %s\n", path, errbuf);
		return -1;
	}
	while (n < max && pcap_next_ex(pc, &h, &data) == 1) {
		frames[n].len = h->caplen;
		frames[n].data = malloc(h->caplen);
		if (frames[n].data == NULL)
			break;
		memcpy(frames[n].data, data, h->caplen);
		n++;
	}
	pcap_close(pc);
	return (int)n;
}

static uint64_t
pktio_now_us(void)
{
	return rte_get_timer_cycles() * 1000000 / rte_get_timer_hz();
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tx", required_argument, NULL, 't' },
		{ "rx", required_argument, NULL, 'r' },
		{ "duration", required_argument, NULL, 'd' },
		{ "wait-link", required_argument, NULL, 'w' },
		{ "settle", required_argument, NULL, 's' },
		{ "pps", required_argument, NULL, 'p' },
		{ "loop", required_argument, NULL, 'l' },
		{ "expect", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	static struct frame frames[PKTIO_MAX_FRAMES];
	const char *tx_path = NULL, *rx_path = NULL;
	double duration = 3.0, wait_link = 10.0;
	uint64_t settle_ms = 200, pps = 100000, loops = 1, expect = 0;
	uint64_t tx = 0, rx = 0, t_end, t_next, gap_us, idle = 0, linger_end = 0;
	struct rte_eth_conf conf;
	struct rte_eth_link link;
	struct rte_mempool *mp;
	pcap_dumper_t *dump = NULL;
	pcap_t *dead = NULL;
	unsigned int nframes = 0, fi = 0;
	uint16_t port = 0;
	int n, opt;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "pktio: EAL init failed\n");
		return 1;
	}
	argc -= n;
	argv += n;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			tx_path = optarg;
			break;
		case 'r':
			rx_path = optarg;
			break;
		case 'd':
			duration = atof(optarg);
			break;
		case 'w':
			wait_link = atof(optarg);
			break;
		case 's':
			settle_ms = strtoull(optarg, NULL, 0);
			break;
		case 'p':
			pps = strtoull(optarg, NULL, 0);
			break;
		case 'l':
			loops = strtoull(optarg, NULL, 0);
			break;
		case 'e':
			expect = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "pktio: bad option\n");
			return 2;
		}
	}
	if (rte_eth_dev_count_avail() != 1) {
		fprintf(stderr, "pktio: give exactly one port (--vdev), have %u\n",
			rte_eth_dev_count_avail());
		return 2;
	}
	RTE_ETH_FOREACH_DEV(port)
		break;
	if (tx_path != NULL) {
		n = pktio_load(tx_path, frames, PKTIO_MAX_FRAMES);
		if (n < 0)
			return 1;
		nframes = (unsigned int)n;
	}
	mp = rte_pktmbuf_pool_create("pktio", 8191, 256, 0, 9216 + RTE_PKTMBUF_HEADROOM,
				     (int)rte_socket_id());
	memset(&conf, 0, sizeof(conf));
	if (mp == NULL || rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port), NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port), NULL) != 0 ||
	    rte_eth_dev_start(port) != 0) {
		fprintf(stderr, "pktio: port setup failed\n");
		return 1;
	}
	signal(SIGINT, pktio_signal);
	signal(SIGTERM, pktio_signal);

	t_end = pktio_now_us() + (uint64_t)(wait_link * 1e6);
	do {
		rte_eth_link_get_nowait(port, &link);
		if (link.link_status)
			break;
		rte_delay_us_sleep(10000);
	} while (pktio_now_us() < t_end && !pktio_stop);
	if (!link.link_status) {
		fprintf(stderr, "pktio: link did not come up in %.1f s\n", wait_link);
		return 1;
	}
	if (rx_path != NULL) {
		dead = pcap_open_dead(DLT_EN10MB, 65535);
		dump = pcap_dump_open(dead, rx_path);
		if (dump == NULL) {
			fprintf(stderr, "pktio: %s: %s\n", rx_path, pcap_geterr(dead));
			return 1;
		}
	}
	/* Receive from now on; start sending after the settle time. */
	gap_us = pps ? 1000000 / pps : 0;
	t_next = pktio_now_us() + settle_ms * 1000;
	t_end = t_next + (uint64_t)(duration * 1e6);
	while (!pktio_stop && pktio_now_us() < t_end) {
		struct rte_mbuf *pkts[PKTIO_BURST];
		uint16_t i, got;
		bool busy = false;

		if (fi < nframes * loops && pktio_now_us() >= t_next) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
			const struct frame *f = &frames[fi % nframes];

			if (m != NULL) {
				memcpy(rte_pktmbuf_append(m, (uint16_t)f->len), f->data, f->len);
				if (rte_eth_tx_burst(port, 0, &m, 1) == 1) {
					tx++;
					fi++;
					t_next += gap_us;
				} else {
					rte_pktmbuf_free(m);
				}
			}
			busy = true;
		}
		got = rte_eth_rx_burst(port, 0, pkts, PKTIO_BURST);
		for (i = 0; i < got; i++) {
			if (dump != NULL) {
				struct pcap_pkthdr h;
				struct timeval tv;
				uint8_t buf[9216];

				gettimeofday(&tv, NULL);
				h.ts = tv;
				h.caplen = h.len = pkts[i]->pkt_len;
				const void *d = rte_pktmbuf_read(pkts[i], 0,
					RTE_MIN(pkts[i]->pkt_len, (uint32_t)sizeof(buf)), buf);

				h.caplen = h.len = RTE_MIN(pkts[i]->pkt_len, (uint32_t)sizeof(buf));
				pcap_dump((u_char *)dump, &h, d);
			}
			rte_pktmbuf_free(pkts[i]);
			rx++;
		}
		/*
		 * Done: linger half a second so the peer drains what we sent last
		 * (stopping a memif port discards its ring), capturing meanwhile.
		 */
		if (expect && rx >= expect && fi >= nframes * loops && linger_end == 0)
			linger_end = pktio_now_us() + 500000;
		if (linger_end != 0 && pktio_now_us() >= linger_end)
			break;
		if (got || busy) {
			idle = 0;
		} else if (++idle > 64) {
			rte_delay_us_sleep(100);
		}
	}
	if (dump != NULL) {
		pcap_dump_close(dump);
		pcap_close(dead);
	}
	printf("tx %" PRIu64 " rx %" PRIu64 "\n", tx, rx);
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
	rte_eal_cleanup();
	return 0;
}
