/* SPDX-License-Identifier: BSD-3-Clause */
#include "ports.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "eal_args.h"

#define PORTS_MIN_MBUFS 8192u
#define PORTS_MBUF_CACHE 256u
/* Packet size assumed when turning a BDP in bytes into a number of mbufs. */
#define PORTS_BDP_PKT_BYTES 1024u
/* Room for punt and inject rings and control-built packets. */
#define PORTS_CONTROL_MBUFS 2048u

uint64_t
ports_wan_bdp_bytes(const struct ls_config *cfg)
{
	uint64_t bdp = 0;
	unsigned int i;

	for (i = 0; i < cfg->n_peers; i++) {
		const struct ls_peer_conf *pc = &cfg->peers[i];
		const struct ls_port_conf *wan = &cfg->ports[pc->port_index];
		uint64_t b = (uint64_t)((double)wan->link_rate_bps * (double)pc->rtt_ns / 8e9);

		if (b > bdp)
			bdp = b;
	}
	return bdp;
}

uint32_t
ports_mbufs_needed(const struct ls_config *cfg)
{
	uint64_t n = 0;
	unsigned int i;

	if (cfg->gw.mbufs != 0)
		return cfg->gw.mbufs;
	/* Descriptor rings of every queue, full. */
	for (i = 0; i < cfg->n_ports; i++)
		n += (uint64_t)cfg->gw.workers * (cfg->ports[i].rx_desc + cfg->ports[i].tx_desc);
	/* Per-lcore mempool caches and in-flight bursts. */
	n += (uint64_t)(cfg->gw.workers + 1) * (PORTS_MBUF_CACHE + 2 * 64);
	/* One BDP of the WAN queue (traffic manager buffer). */
	n += ports_wan_bdp_bytes(cfg) / PORTS_BDP_PKT_BYTES;
	n += PORTS_CONTROL_MBUFS;
	if (n < PORTS_MIN_MBUFS)
		n = PORTS_MIN_MBUFS;
	if (n > UINT32_MAX)
		n = UINT32_MAX;
	return (uint32_t)n;
}

struct rte_mempool *
ports_pool_create(const struct ls_config *cfg, FILE *err)
{
	uint32_t n = ports_mbufs_needed(cfg);
	struct rte_mempool *mp;

	mp = rte_pktmbuf_pool_create("ls_mbufs", n, PORTS_MBUF_CACHE, 0,
				     (uint16_t)(cfg->gw.mbuf_data_size + RTE_PKTMBUF_HEADROOM),
				     (int)rte_socket_id());
	if (mp == NULL)
		fprintf(err, "mempool: cannot create %" PRIu32 " mbufs of %" PRIu32 " bytes: %s\n", n,
			cfg->gw.mbuf_data_size, rte_strerror(rte_errno));
	return mp;
}

static int
ports_setup_one(const struct ls_config *cfg, unsigned int idx, struct rte_mempool *mp,
		uint16_t *port_id, FILE *err)
{
	const struct ls_port_conf *pc = &cfg->ports[idx];
	uint16_t nq = (uint16_t)cfg->gw.workers;
	uint16_t nb_rxd = pc->rx_desc, nb_txd = pc->tx_desc;
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	char name[RTE_ETH_NAME_MAX_LEN];
	uint16_t id, q;
	uint32_t frame;
	int rc;

	if (eal_args_dev_name(pc->dev, name, sizeof(name)) < 0) {
		fprintf(err, "port '%s': bad device string '%s'\n", pc->name, pc->dev);
		return -EINVAL;
	}
	rc = rte_eth_dev_get_port_by_name(name, &id);
	if (rc != 0) {
		fprintf(err, "port '%s': device '%s' not found (is it probed by EAL?)\n", pc->name,
			name);
		return -ENODEV;
	}
	rc = rte_eth_dev_info_get(id, &info);
	if (rc != 0) {
		fprintf(err, "port '%s': cannot get device info: %s\n", pc->name, rte_strerror(-rc));
		return rc;
	}
	if (nq > info.max_rx_queues || nq > info.max_tx_queues) {
		fprintf(err,
			"port '%s': %u workers need %u rx and tx queues, device '%s' has %u rx, %u tx\n",
			pc->name, nq, nq, name, info.max_rx_queues, info.max_tx_queues);
		return -EINVAL;
	}
	memset(&conf, 0, sizeof(conf));
	if (nq > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP) & info.flow_type_rss_offloads;
	}
	/* Idle workers wait on rx interrupts where the driver has them. */
	conf.intr_conf.rxq = cfg->gw.idle_mode == IDLE_INTERRUPT && cfg->gw.idle_sleep_ns != 0;
	rc = rte_eth_dev_configure(id, nq, nq, &conf);
	if (rc != 0 && conf.intr_conf.rxq) {
		conf.intr_conf.rxq = 0;
		rc = rte_eth_dev_configure(id, nq, nq, &conf);
	}
	if (rc != 0) {
		fprintf(err, "port '%s': configure failed: %s\n", pc->name, rte_strerror(-rc));
		return rc;
	}
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(id, &nb_rxd, &nb_txd);
	if (rc != 0) {
		fprintf(err, "port '%s': descriptor counts rejected: %s\n", pc->name,
			rte_strerror(-rc));
		return rc;
	}
	for (q = 0; q < nq; q++) {
		rc = rte_eth_rx_queue_setup(id, q, nb_rxd, rte_eth_dev_socket_id(id), NULL, mp);
		if (rc == 0)
			rc = rte_eth_tx_queue_setup(id, q, nb_txd, rte_eth_dev_socket_id(id), NULL);
		if (rc != 0) {
			fprintf(err, "port '%s': queue %u setup failed: %s\n", pc->name, q,
				rte_strerror(-rc));
			return rc;
		}
	}
	if (pc->mac_set) {
		struct rte_ether_addr mac;

		/*
		 * Virtual devices often cannot change their address (memif,
		 * af_packet). The dataplane filters on the configured MAC in
		 * software, so fall back to a secondary unicast filter, then to
		 * promiscuous mode.
		 */
		memcpy(mac.addr_bytes, pc->mac, 6);
		if (rte_eth_dev_default_mac_addr_set(id, &mac) != 0 &&
		    rte_eth_dev_mac_addr_add(id, &mac, 0) != 0) {
			rc = rte_eth_promiscuous_enable(id);
			if (rc != 0 && rc != -ENOTSUP) {
				fprintf(err, "port '%s': cannot use MAC %s: device refuses both the "
					"address and promiscuous mode: %s\n", pc->name,
					pc->dev, rte_strerror(-rc));
				return rc;
			}
		}
	}
	/* Frames up to the L3 MTU plus Ethernet and one tag must fit an mbuf. */
	frame = config_port_frame_bytes(pc);
	if (frame > cfg->gw.mbuf_data_size)
		fprintf(err,
			"port '%s': warning: mtu %u needs %u-byte frames, mbuf_data_size is %u; "
			"larger frames are dropped as multi_segment\n",
			pc->name, pc->mtu, frame, cfg->gw.mbuf_data_size);
	rc = rte_eth_dev_set_mtu(id, (uint16_t)RTE_MIN(pc->mtu, (uint32_t)UINT16_MAX));
	if (rc != 0 && rc != -ENOTSUP)
		fprintf(err, "port '%s': warning: device refused mtu %u: %s\n", pc->name, pc->mtu,
			rte_strerror(-rc));
	/* IPv6 neighbour discovery uses solicited-node multicast. */
	rte_eth_allmulticast_enable(id);
	rc = rte_eth_dev_start(id);
	if (rc != 0) {
		fprintf(err, "port '%s': start failed: %s\n", pc->name, rte_strerror(-rc));
		return rc;
	}
	*port_id = id;
	return 0;
}

int
ports_setup(const struct ls_config *cfg, struct rte_mempool *mp, uint16_t *port_ids, FILE *err)
{
	unsigned int i;
	int rc;

	for (i = 0; i < cfg->n_ports; i++) {
		rc = ports_setup_one(cfg, i, mp, &port_ids[i], err);
		if (rc != 0) {
			ports_close(port_ids, i);
			return rc;
		}
	}
	return 0;
}

void
ports_close(const uint16_t *port_ids, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		rte_eth_dev_stop(port_ids[i]);
		rte_eth_dev_close(port_ids[i]);
	}
}
