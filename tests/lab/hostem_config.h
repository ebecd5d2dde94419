/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOSTEM_CONFIG_H
#define LONGSPAN_HOSTEM_CONFIG_H

/*
 * longspan-hostem's configuration: an INI file with one [host] section
 * (the emulated site: MACs, local prefixes, defaults, reports, the ToR
 * uplink) and one [qp NAME] section per queue pair. Every key is in one
 * table (hostem_config.c) with its type, unit, range, default and a line of
 * documentation; --dump-config prints the effective file, which loads back
 * to the same config (tested). Errors read "FILE:LINE: [section] key:
 * message"; the whole file is checked and every error reported.
 *
 * QP keys that the [host] section also has (mtu, message, line_rate,
 * bytes, window, ack_every, cnp_interval, dscp) default to the host's value.
 *
 * Naming: a QP's "local" address and "local_qpn" are on this hostem's side,
 * "remote" ones on the peer's. A sender sends data from local to remote
 * with BTH DestQP = remote_qpn and receives ACKs and CNPs with DestQP =
 * local_qpn. A receiver takes data for (local, local_qpn) and sends ACKs
 * and CNPs to (remote, remote_qpn).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>

#include "dataplane/idle_mode.h"
#include "hostem_pkt.h"

#define HOSTEM_MAX_QPS 256
#define HOSTEM_MAX_PREFIXES 16
#define HOSTEM_NAME_MAX 32
#define HOSTEM_PATH_MAX 256

enum hostem_role {
	HOSTEM_ROLE_SEND = 0,
	HOSTEM_ROLE_RECV,
};

/* One [qp NAME] section. Numeric keys are uint64_t so the key table can store any of them. */
struct hostem_qp_conf {
	char name[HOSTEM_NAME_MAX];
	uint64_t role; /* enum hostem_role */
	struct conf_addr local, remote;
	uint64_t local_qpn, remote_qpn;
	uint64_t sport; /* UDP source port of what this QP sends */
	uint64_t psn; /* first PSN of the stream (sender) or expected (receiver) */
	uint64_t mtu; /* payload bytes per packet */
	uint64_t message_bytes; /* RDMA WRITE size */
	uint64_t total_bytes; /* 0 = send until the end */
	uint64_t start_ns; /* sender: start after this */
	uint64_t line_rate_bps; /* sender: NIC line rate, the RP's ceiling */
	uint64_t window_pkts; /* sender: unacknowledged packets allowed, 0 = no limit */
	uint64_t ack_every; /* receiver: ACK after this many packets */
	uint64_t cnp_interval_ns; /* receiver: NP minimum CNP spacing for this QP */
	uint64_t dscp;
	uint64_t set; /* bit i: key i of the QP table was given */
	int line; /* line of the section header */
	bool intra; /* resolved: remote is in this site (looped back inside hostem) */
};

struct hostem_conf {
	char name[HOSTEM_NAME_MAX];
	struct rte_ether_addr mac; /* ours: the site router's */
	struct rte_ether_addr gateway_mac; /* where inter-DC packets go */
	struct conf_prefix local[HOSTEM_MAX_PREFIXES]; /* this site's prefixes */
	uint32_t n_local;
	uint64_t variant; /* enum dcqcn_variant */
	uint64_t line_rate_bps, mtu, message_bytes, total_bytes, window_pkts;
	uint64_t ack_every, cnp_interval_ns, dscp, cnp_dscp;
	uint64_t duration_ns;
	bool until_done;
	uint64_t stats_interval_ns, csv_interval_ns;
	char csv_path[HOSTEM_PATH_MAX], json_path[HOSTEM_PATH_MAX], cnp_log_path[HOSTEM_PATH_MAX];
	uint64_t seed;
	uint64_t tor_rate_bps; /* 0 = no ToR uplink */
	uint64_t tor_kmin_bytes, tor_kmax_bytes, tor_pmax_ppm, tor_xoff_bytes;
	uint64_t dc_rate_bps; /* the DC side toward the hosts; 0 = no limit */
	uint64_t dc_buffer_bytes, dc_xoff_bytes, dc_xon_bytes; /* its queue and PFC toward the gateway */
	uint64_t dc_kmin_bytes, dc_kmax_bytes, dc_pmax_ppm; /* its RED marker; dc_kmax 0 = none */
	uint64_t dc_delay_ns; /* one way inside the site (intra-DC loopback) */
	bool icrc_check;
	uint64_t max_sleep_ns, mbufs, wait_link_ns, cnp_log_max;
	enum idle_mode idle_mode; /* --idle (command line only), default interrupt */
	uint64_t pacing_burst_ns; /* token bucket depth, in time at the QP's line rate */
	uint64_t pacing_grid_ns; /* senders' due times rounded up to this grid; 0 = none */
	uint64_t set; /* bit i: key i of the host table was given */
	struct hostem_qp_conf qp[HOSTEM_MAX_QPS];
	uint32_t n_qp;
};

/*
 * Load PATH into C (defaults, file, derived values, validation). Errors go to
 * err, one line each. Returns 0 or -EINVAL (or -errno for I/O).
 */
int hostem_config_load(struct hostem_conf *c, const char *path, FILE *err);

/* Print C as a config file that loads back to the same values. */
void hostem_config_dump(const struct hostem_conf *c, FILE *out);

/* True if A is in one of this site's prefixes. */
bool hostem_config_is_local(const struct hostem_conf *c, const struct conf_addr *a);

/* "10.1.0.1" / "fd00:1::1". */
const char *hostem_config_addr_str(const struct conf_addr *a, char *buf, size_t size);

/* Frame size of a full data packet with RETH (the largest this config sends). */
uint32_t hostem_config_max_frame(const struct hostem_conf *c);

#endif /* LONGSPAN_HOSTEM_CONFIG_H */
