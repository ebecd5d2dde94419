/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CONFIG_H
#define LONGSPAN_CONFIG_H

/*
 * The parsed, defaulted and validated gateway configuration.
 *
 * Ownership: built by config_load() on the control thread, immutable after
 * that. The control thread turns it into a dataplane snapshot
 * (dataplane/dp_conf.h) and publishes that to workers; workers never see a
 * struct ls_config.
 *
 * Units are in the field names: _bps bits per second, _bytes, _ns, _m metres.
 */

#include "conf_addr.h"
#include "conf_mech.h"
#include "dataplane/dp_limits.h"
#include "dataplane/idle_mode.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* LS_NAME_MAX, LS_MAX_PORTS, LS_MAX_PEERS, LS_MAX_WORKERS, LS_MAX_BURST, the port
 * role and the LS_MECH_* bits: dataplane/dp_limits.h. */
#define LS_DEVARGS_MAX 256
#define LS_PATH_MAX 108 /* sun_path */
#define LS_MAX_PREFIXES 64 /* per peer */
#define LS_MAX_STATIC_NEIGH 64 /* per port */
#define LS_MAX_EAL_ARGS 64
/* = RTE_PKTMBUF_HEADROOM (checked in runtime.c): the mempool adds it to mbuf_data_size. */
#define LS_MBUF_HEADROOM_BYTES 128

/*
 * Largest config file the loader reads, bytes. A config at every limit
 * (8 ports with 64 neighbours, 32 peers with 64 IPv6 prefixes) is ~150 KB;
 * anything larger is refused before it is read (docs/config.md).
 */
#define LS_CONFIG_MAX_BYTES (1u << 20)

/* One-way propagation delay of light in fibre (refractive index ~1.47):
 * a peer's `distance` becomes rtt_ns = 2 * distance_m * this / 1000. */
#define LS_FIBRE_NS_PER_KM 4900

struct ls_static_neigh {
	struct conf_addr ip;
	uint8_t mac[6];
};

struct ls_port_conf {
	char name[LS_NAME_MAX];
	char dev[LS_DEVARGS_MAX]; /* PCI address or vdev string */
	enum ls_port_role role;
	bool mac_set;
	uint8_t mac[6]; /* overrides the device MAC when mac_set */
	struct conf_prefix ipv4; /* gateway's address on this port + subnet */
	struct conf_prefix ipv6;
	struct conf_addr gateway4; /* next-hop router for off-link IPv4, optional */
	struct conf_addr gateway6;
	uint16_t vlan; /* 0 = untagged */
	uint32_t mtu; /* L3 MTU of the attached link, bytes */
	uint64_t link_rate_bps; /* WAN ports: rate the traffic manager shapes to */
	uint16_t rx_desc;
	uint16_t tx_desc;
	unsigned int n_neigh;
	struct ls_static_neigh neigh[LS_MAX_STATIC_NEIGH];
	unsigned int line; /* line of the [port] header, for messages */
};

/* A non-zero outer UDP checksum from the peer ([peer] udp_checksum). */
enum ls_udp_checksum {
	LS_UDP_CSUM_VERIFY = 0, /* verified; a wrong one is dropped */
	LS_UDP_CSUM_IGNORE, /* not looked at */
};

/* A zero outer UDP checksum over IPv6 ([peer] ipv6_zero_checksum, RFC 6936). */
enum ls_zero_checksum6 {
	LS_ZERO_CSUM6_DROP = 0,
	LS_ZERO_CSUM6_ACCEPT,
};

/* Which inner sources a peer's decapsulated packets may carry ([peer] source_check). */
enum ls_source_check {
	LS_SOURCE_STRICT = 0, /* inside this peer's prefixes (longest match) */
	LS_SOURCE_LOOSE, /* any but martians and the DC port's subnet */
};

/* Mechanism B for a peer's traffic ([peer] lossless). */
enum ls_lossless {
	LS_LOSSLESS_OFF = 0,
	LS_LOSSLESS_PFC, /* PFC terminates at the DC port */
	LS_LOSSLESS_CREDIT, /* PFC + credits on the WAN hop */
};

struct ls_peer_conf {
	char name[LS_NAME_MAX];
	char port[LS_NAME_MAX]; /* WAN port name */
	int port_index; /* resolved index into ls_config.ports */
	struct conf_addr remote; /* outer address of the peer gateway */
	struct conf_addr local; /* outer source; unset = WAN port address */
	uint32_t vni; /* 24 bits */
	uint64_t rtt_ns; /* configured (or derived from distance) WAN RTT; auto: the start */
	uint64_t distance_m;
	bool rtt_auto; /* rtt = auto: follow the measured RTT (control/measure.c) */
	unsigned int n_prefixes;
	struct conf_prefix prefixes[LS_MAX_PREFIXES];
	enum ls_source_check source_check;
	enum ls_udp_checksum udp_checksum;
	enum ls_zero_checksum6 ipv6_zero_checksum;
	enum ls_lossless lossless;
	/* Peering (docs/peering.md): used only when the file has a [peering] section. */
	bool peering; /* run a session with this peer */
	struct conf_addr peering_address; /* unset = remote */
	uint16_t peering_port; /* 0 = [peering] port */
	bool peering_connect; /* open connections (no = accept only) */
	unsigned int line;
};

#define LS_PEERING_PATH_MAX 256 /* = PEER_TLS_PATH_MAX (control/peer_tls.h) */
#define LS_PEERING_PORT 7481

/*
 * [peering]: the TLS sessions between gateways (docs/peering.md). Absent
 * (enabled false): no session, every peer from config alone.
 */
struct ls_peering_conf {
	bool enabled; /* the file has a [peering] section */
	struct conf_addr listen; /* the kernel address sessions use (required) */
	uint16_t port; /* listening port, and the peers' unless peering_port */
	bool accept; /* listen for inbound connections */
	char ca[LS_PEERING_PATH_MAX];
	char cert[LS_PEERING_PATH_MAX];
	char key[LS_PEERING_PATH_MAX];
	char crl[LS_PEERING_PATH_MAX]; /* "" = no CRL */
	uint64_t handshake_timeout_ns;
	uint64_t hold_time_ns;
	uint64_t backoff_min_ns;
	uint64_t backoff_max_ns;
	uint64_t route_hold_ns; /* learned routes outlive a lost session by this */
	uint32_t max_pending; /* inbound handshakes in progress, all peers */
	/* Prefixes this gateway announces; none given = the dc port's subnets. */
	unsigned int n_prefixes;
	struct conf_prefix prefixes[LS_MAX_PREFIXES];
};


enum ls_marker_kind {
	LS_MARKER_NONE = 0,
	LS_MARKER_RED,
	LS_MARKER_SOJOURN,
	LS_MARKER_PHANTOM,
};

struct ls_congestion_conf {
	enum ls_marker_kind marker;
	unsigned int mechanisms; /* LS_MECH_* bits */
	/* 0 = derive from link rate and RTT (congestion/ parameter function). */
	uint64_t kmin_bytes;
	uint64_t kmax_bytes;
	uint32_t pmax_ppm; /* marking probability at Kmax, parts per million */
	uint64_t target_delay_ns; /* sojourn marker */
	uint32_t phantom_ratio_ppm; /* phantom queue drain, fraction of line rate */
	uint64_t buffer_bytes; /* WAN queue limit; 0 = one BDP */
	uint64_t cnp_interval_ns; /* per-QP minimum CNP spacing (mechanism A) */
	uint8_t cnp_dscp;
	bool ce_clear; /* clear CE on packets that triggered a gateway CNP */
	uint64_t hold_ns; /* mechanism C hold time; 0 = derived (cc_params) */
	uint64_t cut_interval_ns; /* mechanism C: least time between two cuts; 0 = derived */
	bool cnp_forward; /* mechanism C: receiver CNPs go on to the sender */
	uint64_t cnp_forward_gap_ns; /* with cnp_forward: one per QP per gap; 0 = all */
	uint64_t cnp_forward_backlog_bytes; /* with cnp_forward: only from this backlog */
	uint64_t flow_idle_ns; /* per-QP flow entry aging */
	/* Mechanism B ([peer] lossless); 0 = derive (cc_params). */
	uint64_t pfc_xoff_bytes; /* WAN RoCE queue at which the DC fabric is paused */
	uint64_t pfc_xon_bytes; /* and resumed */
	uint8_t data_dscp; /* DSCP of RoCE data: the paused priority 3 */
};

/* [gateway] pipeline: which ingress the workers run (docs/p4.md). */
enum ls_pipeline {
	LS_PIPELINE_C = 0, /* the C fast path (dataplane/pipeline.c) */
	LS_PIPELINE_P4, /* dataplane/p4/longspan.spec on DPDK's SWX engine, C after it */
};

struct ls_gateway_conf {
	char name[LS_NAME_MAX];
	char socket_path[LS_PATH_MAX]; /* UNIX API socket */
	unsigned int workers; /* worker lcores */
	unsigned int burst; /* packets per rx burst */
	uint32_t mbufs; /* 0 = size from the WAN BDP */
	uint32_t mbuf_data_size; /* data room per mbuf, bytes */
	enum idle_mode idle_mode; /* how idle workers wait */
	uint64_t idle_sleep_ns; /* longest back-off sleep of an idle worker */
	uint16_t geneve_port; /* UDP destination port, 6081 */
	uint64_t stats_interval_ns;
	uint64_t neigh_timeout_ns; /* ARP/ND entry lifetime */
	uint32_t flows; /* per-worker flow table and QPN learner entries */
	enum ls_pipeline pipeline;
	char p4_spec[LS_PATH_MAX]; /* SWX spec for pipeline = p4; "" = the built-in path */
	uint64_t probe_interval_ns; /* path probes per worker and peer; 0 = none */
	uint64_t measure_interval_ns; /* path measurement aggregation (control/measure.c) */
	uint64_t clock_offset_ns; /* added to the workers' timestamp clock (tests: a clock offset) */
};

struct ls_eal_conf {
	char lcores[64];
	unsigned int main_lcore;
	bool main_lcore_set;
	uint32_t memory_mb; /* 0 = EAL default */
	char file_prefix[64];
	bool in_memory;
	bool no_pci;
	bool no_huge;
	char extra[512]; /* appended verbatim, split on spaces */
};

#define LS_MAX_HOOKS 8 /* [hook NAME] sections; = DP_HOOKS_MAX (dataplane/hook.h) */
#define LS_HOOK_PATH_MAX 256

/* Hook points a [hook NAME] runs at (bit i = enum ls_hook_point i). */
#define LS_HOOK_POINTS_ALL 0x0fu

/* One [hook NAME]: an eBPF object the workers run (docs/telemetry.md). */
struct ls_hook_conf {
	char name[LS_NAME_MAX];
	char object[LS_HOOK_PATH_MAX]; /* ELF object path */
	char section[64]; /* its program's section; default: the hook's name */
	char points_text[64]; /* as written: "dc_rx, wan_rx, wan_tx, dc_tx" */
	char pin_dir[LS_HOOK_PATH_MAX]; /* default /sys/fs/bpf/longspan/GATEWAY/NAME */
	uint32_t max_insns;
	unsigned int points; /* bits of enum ls_hook_point, from points_text */
	uint8_t order[4]; /* the points in points_text's order (n_points of them) */
	unsigned int n_points;
	unsigned int line;
};

/* [telemetry]: the hook exporter and its outputs. */
struct ls_telemetry_conf {
	uint64_t interval_ns; /* one exporter pass over every slot */
	uint64_t idle_timeout_ns;
	uint64_t active_timeout_ns;
	uint32_t max_flows; /* aggregate entries over all workers */
	uint32_t top_k;
	char prometheus[64]; /* "ADDR:PORT" or "[ADDR6]:PORT"; "" = off */
	char ipfix[LS_HOOK_PATH_MAX]; /* udp://IP:PORT, tcp://IP:PORT, file:PATH; "" = off */
	uint32_t ipfix_domain;
	uint32_t ipfix_pen;
	uint32_t ipfix_mtu;
	uint64_t template_refresh_ns;
	/* Parsed from the strings above by config_hooks_check(). */
	struct conf_addr prom_addr;
	uint16_t prom_port;
	uint8_t ipfix_transport; /* 0 udp, 1 tcp, 2 file (enum hook_ipfix_transport) */
	struct conf_addr ipfix_addr;
	uint16_t ipfix_port;
	char ipfix_path[LS_HOOK_PATH_MAX];
};

struct ls_config {
	char path[256];
	struct ls_gateway_conf gw;
	struct ls_eal_conf eal;
	struct ls_congestion_conf cong;
	struct ls_peering_conf peering;
	unsigned int n_ports;
	struct ls_port_conf ports[LS_MAX_PORTS];
	unsigned int n_peers;
	struct ls_peer_conf peers[LS_MAX_PEERS];
	int dc_port; /* index of the single DC-facing port */
	unsigned int n_hooks;
	struct ls_hook_conf hooks[LS_MAX_HOOKS];
	struct ls_telemetry_conf tel;
};

/*
 * Parse, default and validate FILE. On success returns 0 and fills *cfg.
 * On failure returns -EINVAL (or -errno for I/O) and writes every error, one
 * per line as "FILE:LINE: [section] key: message", to err (if not NULL);
 * *cfg is then untouched. The function never touches a device, needs no
 * EAL, and is safe to call while running (docs/config.md lists the keys).
 *
 * It never waits: anything but a regular file (a FIFO, a device, a
 * directory) is refused with "FILE: not a regular file (...)" and -EINVAL
 * without being read, a file over LS_CONFIG_MAX_BYTES with -EFBIG; the rest
 * is read into memory in one go and parsed from there.
 */
int config_load(const char *path, struct ls_config *cfg, FILE *err);

/*
 * config_load() of SIZE bytes at TEXT (need not be NUL-terminated); NAME is
 * the file name used in messages and stored in cfg->path.
 */
int config_load_buffer(const char *text, size_t size, const char *name, struct ls_config *cfg,
		       FILE *err);

/*
 * Settings that load but will not do what they say in every deployment:
 * each is written to out as "FILE: warning: ..." (one line). Returns how
 * many. Today: mechanisms A/C with more than one worker (the QPN learners
 * and holds are per worker, and RSS does not keep a QP's data and its
 * returning ACKs/CNPs on one worker), a net_memif port whose buffer size
 * (devargs bsize) cannot hold the port's frames, and no [peer] at all (every
 * DC packet is a no_route drop). longspand prints them at start and
 * --check-config, reload in its reply.
 */
unsigned int config_warn(const struct ls_config *cfg, FILE *out);

/* Largest frame a port carries: its L3 MTU plus Ethernet and one VLAN tag. */
uint32_t config_port_frame_bytes(const struct ls_port_conf *pc);

/*
 * net_memif's buffer size for DEV (devargs bsize, DPDK's default 2048 when
 * absent); 0 if DEV is not a net_memif device. *given says whether DEV set it.
 */
uint32_t config_memif_bsize(const char *dev, bool *given);

/*
 * config_load_buffer() of what an open stream holds: at most
 * LS_CONFIG_MAX_BYTES are read (more is -EFBIG). The caller chooses the
 * stream; reading it may block (a pipe). *cfg is written only on success.
 */
int config_load_stream(FILE *in, const char *name, struct ls_config *cfg, FILE *err);

/* Print the effective configuration (defaults filled in) as a valid INI. */
void config_dump(const struct ls_config *cfg, FILE *out);

/* Print the key reference (Markdown) generated from the key table. */
void config_doc_markdown(FILE *out);

/* Index of the port named NAME, or -1. */
int config_port_index(const struct ls_config *cfg, const char *name);

#endif /* LONGSPAN_CONFIG_H */
