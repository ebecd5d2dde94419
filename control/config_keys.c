/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every config key longspand knows, in one table (config_keys.h). Adding a
 * key of an existing type is adding a row here (its field in config.h, and
 * docs/config.md regenerated); when it is not a plain range check, a
 * cross-field rule in config_check.c. The order of rows is the order
 * of config_dump() and of docs/config.md.
 */

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "config_keys.h"

const char *const config_section_names[CONFIG_SEC_MAX] = {
	[CONFIG_SEC_GATEWAY] = "gateway",
	[CONFIG_SEC_EAL] = "eal",
	[CONFIG_SEC_PORT] = "port",
	[CONFIG_SEC_PEER] = "peer",
	[CONFIG_SEC_CONGESTION] = "congestion",
	[CONFIG_SEC_PEERING] = "peering",
	[CONFIG_SEC_HOOK] = "hook",
	[CONFIG_SEC_TELEMETRY] = "telemetry",
};

static const struct conf_enum_name config_role_names[] = {
	{ "dc", LS_PORT_DC },
	{ "wan", LS_PORT_WAN },
	{ NULL, 0 },
};

static const struct conf_enum_name config_idle_names[] = {
	{ "interrupt", IDLE_INTERRUPT },
	{ "sleep", IDLE_SLEEP },
	{ "poll", IDLE_POLL },
	{ NULL, 0 },
};

static const struct conf_enum_name config_pipeline_names[] = {
	{ "c", LS_PIPELINE_C },
	{ "p4", LS_PIPELINE_P4 },
	{ NULL, 0 },
};

static const struct conf_enum_name config_marker_names[] = {
	{ "none", LS_MARKER_NONE },
	{ "red", LS_MARKER_RED },
	{ "sojourn", LS_MARKER_SOJOURN },
	{ "phantom", LS_MARKER_PHANTOM },
	{ NULL, 0 },
};

static const struct conf_enum_name config_source_check_names[] = {
	{ "strict", LS_SOURCE_STRICT },
	{ "loose", LS_SOURCE_LOOSE },
	{ NULL, 0 },
};

static const struct conf_enum_name config_udp_checksum_names[] = {
	{ "verify", LS_UDP_CSUM_VERIFY },
	{ "ignore", LS_UDP_CSUM_IGNORE },
	{ NULL, 0 },
};

static const struct conf_enum_name config_lossless_names[] = {
	{ "off", LS_LOSSLESS_OFF },
	{ "pfc", LS_LOSSLESS_PFC },
	{ "credit", LS_LOSSLESS_CREDIT },
	{ NULL, 0 },
};

static const struct conf_enum_name config_zero_checksum6_names[] = {
	{ "drop", LS_ZERO_CSUM6_DROP },
	{ "accept", LS_ZERO_CSUM6_ACCEPT },
	{ NULL, 0 },
};

#define CONFIG_SIZEOF(type, f) CONF_SIZEOF(type, f)
#define FIELD(type, f) CONF_FIELD(type, f)
#define FIELD_SET(type, f, setf) CONF_FIELD_SET(type, f, setf)
#define FIELD_LIST(type, arr, count) CONF_FIELD_LIST(type, arr, count)

#define GW(f) FIELD(struct ls_gateway_conf, f)
#define EAL(f) FIELD(struct ls_eal_conf, f)
#define PORT(f) FIELD(struct ls_port_conf, f)
#define PEER(f) FIELD(struct ls_peer_conf, f)
#define CONG(f) FIELD(struct ls_congestion_conf, f)
#define PEERING(f) FIELD(struct ls_peering_conf, f)
#define HOOK(f) FIELD(struct ls_hook_conf, f)
#define TEL(f) FIELD(struct ls_telemetry_conf, f)

#define NS_US UINT64_C(1000)
#define NS_MS UINT64_C(1000000)
#define NS_S UINT64_C(1000000000)

const struct conf_key config_keys[] = {
	/* [gateway] */
	{
		.section = CONFIG_SEC_GATEWAY, .name = "name", .type = CONFIG_T_STRING,
		.flags = CONF_F_NAMECHARS, .min = 1, .max = LS_NAME_MAX - 1,
		.def = "longspan", GW(name),
		.help = "Name of this gateway, used in logs, telemetry and the default "
			"socket path. Letters, digits, '.', '_' and '-'.",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "socket", .type = CONFIG_T_STRING,
		.min = 1, .max = LS_PATH_MAX - 1, GW(socket_path),
		.help = "Path of the UNIX socket (mode 0600) that longspanctl talks to. "
			"Default: /run/longspan/NAME.sock with NAME the gateway name.",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "workers", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .min = 1, .max = LS_MAX_WORKERS, .def = "1",
		GW(workers),
		.help = "Worker lcores polling the ports (one rx and tx queue each per "
			"port). The main lcore runs the control thread besides them.",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "burst", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .unit_label = "packets", .min = 1, .max = LS_MAX_BURST,
		.def = "32", GW(burst),
		.help = "Packets asked for in each receive burst.",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "mbufs", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .flags = CONF_F_ZERO, .min = 1024,
		.max = UINT64_C(1) << 26, .def = "0", GW(mbufs),
		.help = "Packet buffers in the mempool. 0 sizes the pool so that every "
			"WAN port can hold one bandwidth-delay product (link_rate x the "
			"largest peer RTT) plus the descriptor rings.",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "mbuf_data_size", .type = CONFIG_T_UINT,
		/* A buffer's data room, this + the headroom, is a uint16_t in DPDK. */
		.units = UNITS_COUNT, .unit_label = "bytes", .min = 1024,
		.max = UINT16_MAX - LS_MBUF_HEADROOM_BYTES, .def = "2176", GW(mbuf_data_size),
		.help = "Room for packet data in each packet buffer. DPDK's 128-byte "
			"headroom comes on top: each buffer's data room is mbuf_data_size + "
			"128 bytes, at most 65535. A port warns at start when its MTU's frames would not fit "
			"one buffer.",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "idle", .type = CONFIG_T_ENUM,
		.names = config_idle_names, .def = "interrupt", GW(idle_mode),
		.help = "How a worker that found no packets in a row of polls waits: interrupt "
			"(block on the ports' rx interrupts until a packet or the next shaper or "
			"hold deadline; a worker with a port whose driver has none, such as "
			"net_memif, net_ring, net_pcap or af_packet, sleeps instead and says so at "
			"start), sleep (sleep longer and longer up to idle_sleep), poll (never "
			"give the core away: dedicated cores).",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "idle_sleep", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = 0, .max = 10 * NS_MS, .def = "100us",
		GW(idle_sleep_ns),
		.help = "Longest sleep of a worker that found no packets in a row of polls "
			"(it first pauses, then sleeps longer up to this). 0 busy-polls "
			"whatever idle says.",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "pipeline", .type = CONFIG_T_ENUM,
		.names = config_pipeline_names, .def = "c", GW(pipeline),
		.help = "Which ingress the workers run: c (the C fast path) or p4 (the P4 "
			"program's SWX form, p4_spec, on DPDK's SWX engine, its tables filled "
			"from this file; the traffic manager, marking, CNPs, mechanisms and "
			"hooks stay in C after it). p4 has no credit hop "
			"(lossless = credit is refused), GENEVE on geneve_port 6081 only and is slower (docs/p4.md). Start fails when the spec does not build or a table "
			"refuses an entry; changing it needs a restart.",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "p4_spec", .type = CONFIG_T_STRING,
		.min = 1, .max = LS_PATH_MAX - 1, GW(p4_spec),
		.help = "The SWX pipeline spec that pipeline = p4 runs. Default: "
			"dataplane/p4/longspan.spec of the source tree longspand was built "
			"from. Read again on every reload; a spec that does not build is "
			"refused and the running pipeline kept.",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "flows", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .unit_label = "entries", .min = 256,
		.max = UINT64_C(1) << 24, .def = "65536", GW(flows),
		.help = "Per-QP flow table entries per worker (rounded up to a power of "
			"two), also the size of each QPN learner table. About 200 bytes "
			"each; entries idle for [congestion] flow_idle are reused.",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "geneve_port", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .min = 1, .max = 65535, .def = "6081",
		GW(geneve_port),
		.help = "UDP destination port of the GENEVE tunnel (RFC 8926: 6081).",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "stats_interval", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = 10 * NS_MS, .max = 3600 * NS_S, .def = "1s",
		GW(stats_interval_ns),
		.help = "Period of the control thread's statistics and rate computation.",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "probe_interval", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .flags = CONF_F_ZERO, .min = NS_MS, .max = 60 * NS_S,
		.def = "100ms", GW(probe_interval_ns),
		.help = "How often each worker sends each peer a path probe (a 94-byte GENEVE "
			"control packet in the high-priority class, docs/wire-format.md, "
			"\"Path measurement\"), whether or not the link carries traffic: "
			"the probes carry the echo that measures RTT and clock offset. 0: "
			"no probes, so no RTT measurement (one-way transit, jitter and loss "
			"are still measured on data packets).",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "measure_interval", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = 10 * NS_MS, .max = 3600 * NS_S, .def = "1s",
		GW(measure_interval_ns),
		.help = "Period over which the control thread aggregates the workers' path "
			"samples into the measured RTT, one-way delays, offset, jitter, loss "
			"and reordering of each peer (show peers); a peer with rtt = auto "
			"moves its parameters after 3 such intervals outside max(10%, the "
			"measured jitter) of the RTT in use.",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "clock_offset", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .flags = CONF_F_ZERO, .min = 1, .max = 3600 * NS_S,
		.def = "0", GW(clock_offset_ns),
		.help = "Added to the clock of the GENEVE timestamps, for tests: two gateways "
			"on one machine share a clock, and this injects the offset the path "
			"measurement must cancel. Leave 0 in production.",
	},
	{
		.section = CONFIG_SEC_GATEWAY, .name = "neigh_timeout", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = NS_S, .max = 86400 * NS_S, .def = "300s",
		GW(neigh_timeout_ns),
		.help = "Lifetime of a learned ARP or ND entry. Static neighbors never "
			"expire.",
	},

	/* [eal] */
	{
		.section = CONFIG_SEC_EAL, .name = "lcores", .type = CONFIG_T_STRING,
		.min = 1, .max = CONFIG_SIZEOF(struct ls_eal_conf, lcores) - 1, EAL(lcores),
		.help = "EAL lcore list (-l), for example 0,1 or 2-5. It must name at "
			"least workers + 1 lcores. Unset: EAL's default (every core). "
			"Ignored when the command line gives -l, -c or --lcores.",
	},
	{
		.section = CONFIG_SEC_EAL, .name = "main_lcore", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .min = 0, .max = 1023,
		FIELD_SET(struct ls_eal_conf, main_lcore, main_lcore_set),
		.help = "Lcore of the control thread (--main-lcore). Unset: the first "
			"lcore of the list.",
	},
	{
		.section = CONFIG_SEC_EAL, .name = "memory", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .unit_label = "MiB", .min = 0, .max = 1048576,
		.def = "0", EAL(memory_mb),
		.help = "Hugepage memory to reserve at start (-m), in MiB. 0 lets EAL "
			"decide. Ignored when the command line gives -m or --socket-mem.",
	},
	{
		.section = CONFIG_SEC_EAL, .name = "file_prefix", .type = CONFIG_T_STRING,
		.flags = CONF_F_NAMECHARS, .min = 1,
		.max = CONFIG_SIZEOF(struct ls_eal_conf, file_prefix) - 1, EAL(file_prefix),
		.help = "EAL --file-prefix, needed when several DPDK processes share a "
			"machine. Unset: EAL's default.",
	},
	{
		.section = CONFIG_SEC_EAL, .name = "in_memory", .type = CONFIG_T_BOOL,
		.def = "no", EAL(in_memory),
		.help = "Pass --in-memory: no shared runtime files, no secondary processes.",
	},
	{
		.section = CONFIG_SEC_EAL, .name = "no_pci", .type = CONFIG_T_BOOL,
		.def = "no", EAL(no_pci),
		.help = "Pass --no-pci: use virtual devices only. A port whose dev is a "
			"PCI address is then an error.",
	},
	{
		.section = CONFIG_SEC_EAL, .name = "no_huge", .type = CONFIG_T_BOOL,
		.def = "no", EAL(no_huge),
		.help = "Pass --no-huge: use ordinary pages (tests only; slow).",
	},
	{
		.section = CONFIG_SEC_EAL, .name = "extra", .type = CONFIG_T_STRING,
		.min = 1, .max = CONFIG_SIZEOF(struct ls_eal_conf, extra) - 1, EAL(extra),
		.help = "Further EAL arguments, split on blanks (no quoting), placed after "
			"the ones above. Options the command line also gives are dropped.",
	},

	/* [port NAME] */
	{
		.section = CONFIG_SEC_PORT, .name = "role", .type = CONFIG_T_ENUM,
		.flags = CONF_F_REQUIRED, .names = config_role_names, PORT(role),
		.help = "dc: the port toward the local data centre (exactly one); wan: a "
			"port toward peer gateways (at least one).",
	},
	{
		.section = CONFIG_SEC_PORT, .name = "dev", .type = CONFIG_T_STRING,
		.flags = CONF_F_REQUIRED, .min = 1, .max = LS_DEVARGS_MAX - 1, PORT(dev),
		.help = "The DPDK device: a PCI address with optional devargs "
			"(0000:03:00.0 or 0000:03:00.0,arg=1, passed as -a) or a virtual "
			"device (net_ring0, net_memif0,role=server,..., passed as --vdev). "
			"Each device may back one port only.",
	},
	{
		.section = CONFIG_SEC_PORT, .name = "mac", .type = CONFIG_T_MAC,
		FIELD_SET(struct ls_port_conf, mac, mac_set),
		.help = "Unicast MAC address to use instead of the device's own.",
	},
	{
		.section = CONFIG_SEC_PORT, .name = "ipv4", .type = CONFIG_T_IFADDR4, PORT(ipv4),
		.help = "The gateway's IPv4 address on this port and its subnet "
			"(10.1.0.254/16). Each port needs ipv4, ipv6 or both.",
	},
	{
		.section = CONFIG_SEC_PORT, .name = "ipv6", .type = CONFIG_T_IFADDR6, PORT(ipv6),
		.help = "The gateway's IPv6 address on this port and its prefix "
			"(fd00:1::fe/64).",
	},
	{
		.section = CONFIG_SEC_PORT, .name = "gateway4", .type = CONFIG_T_ADDR4,
		PORT(gateway4),
		.help = "IPv4 router for destinations outside the ipv4 subnet; must be "
			"inside it. Unset: only on-link destinations are reachable.",
	},
	{
		.section = CONFIG_SEC_PORT, .name = "gateway6", .type = CONFIG_T_ADDR6,
		PORT(gateway6),
		.help = "IPv6 router for destinations outside the ipv6 prefix; must be "
			"inside it or link-local (fe80::/10).",
	},
	{
		.section = CONFIG_SEC_PORT, .name = "vlan", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .min = 0, .max = 4094, .def = "0", PORT(vlan),
		.help = "802.1Q VLAN ID of the port's traffic; 0 sends untagged frames.",
	},
	{
		.section = CONFIG_SEC_PORT, .name = "mtu", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .unit_label = "bytes", .min = 576, .max = 9216,
		.def = "1500", PORT(mtu),
		.help = "L3 MTU of the attached link (at least 1280 with ipv6). A WAN "
			"port's MTU should hold the dc port's MTU plus the tunnel overhead: "
			"packets that would exceed it are dropped and counted.",
	},
	{
		.section = CONFIG_SEC_PORT, .name = "link_rate", .type = CONFIG_T_UINT,
		.units = UNITS_RATE, .flags = CONF_F_ZERO, .min = UINT64_C(1000000),
		.max = UINT64_C(1600000000000), .def = "0", PORT(link_rate_bps),
		.help = "Rate the WAN traffic manager shapes to, and the rate the "
			"congestion parameters derive from. 0 takes the device's link speed.",
	},
	{
		.section = CONFIG_SEC_PORT, .name = "rx_desc", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .flags = CONF_F_POW2, .min = 64, .max = 8192,
		.def = "1024", PORT(rx_desc),
		.help = "Receive descriptors per queue (a power of two). On the DC port, with "
			"lossless peers and workers that sleep when idle, the PFC headroom holds a "
			"full ring of them ([congestion] pfc_xoff).",
	},
	{
		.section = CONFIG_SEC_PORT, .name = "tx_desc", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .flags = CONF_F_POW2, .min = 64, .max = 8192,
		.def = "1024", PORT(tx_desc),
		.help = "Transmit descriptors per queue (a power of two).",
	},
	{
		.section = CONFIG_SEC_PORT, .name = "neighbor", .type = CONFIG_T_NEIGH,
		.flags = CONF_F_REPEAT,
		FIELD_LIST(struct ls_port_conf, neigh, n_neigh),
		.help = "A static neighbor, IP MAC (192.0.2.2 02:00:00:00:0b:02), "
			"never resolved nor expired. Repeat the key for more. The IP must "
			"be inside the port's ipv4 or ipv6 subnet.",
	},

	/* [peer NAME] */
	{
		.section = CONFIG_SEC_PEER, .name = "port", .type = CONFIG_T_STRING,
		.flags = CONF_F_REQUIRED | CONF_F_NAMECHARS, .min = 1,
		.max = LS_NAME_MAX - 1, PEER(port),
		.help = "Name of the WAN port that leads to this peer.",
	},
	{
		.section = CONFIG_SEC_PEER, .name = "remote", .type = CONFIG_T_ADDR,
		.flags = CONF_F_REQUIRED, PEER(remote),
		.help = "Outer (tunnel) address of the peer gateway, IPv4 or IPv6. The "
			"WAN port needs an address of the same family, unless local is set.",
	},
	{
		.section = CONFIG_SEC_PEER, .name = "local", .type = CONFIG_T_ADDR,
		PEER(local),
		.help = "Outer source address toward this peer, same family as remote. "
			"Unset: the WAN port's address.",
	},
	{
		.section = CONFIG_SEC_PEER, .name = "vni", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .flags = CONF_F_REQUIRED, .min = 0,
		.max = (UINT64_C(1) << 24) - 1, PEER(vni),
		.help = "GENEVE virtual network identifier (24 bits) used in both "
			"directions with this peer.",
	},
	{
		.section = CONFIG_SEC_PEER, .name = "rtt", .type = CONFIG_T_RTT,
		.units = UNITS_TIME, .min = NS_US, .max = NS_S, PEER(rtt_ns),
		.help = "Round-trip time of the WAN path to this peer (1us .. 1s), or auto: follow the "
			"measured RTT (path probes, [gateway] probe_interval): the parameters "
			"are derived anew when the measurement stays outside max(10%, the "
			"measured jitter) of the RTT in use for 3 measure_interval, each change logged and counted. With auto, "
			"distance (if given) is the RTT until the first measurement; without "
			"it the WAN port neither shapes nor marks until then. A time (or "
			"distance) is fixed: the measurement is shown, never used. Set rtt or "
			"distance, not both, unless rtt = auto. With neither, rtt is auto.",
	},
	{
		.section = CONFIG_SEC_PEER, .name = "distance", .type = CONFIG_T_UINT,
		.units = UNITS_DISTANCE, .min = 1, .max = UINT64_C(20000000),
		PEER(distance_m),
		.help = "Fibre length to the peer; the RTT is derived as 2 x distance x "
			"4.9 us/km (light in fibre, refractive index about 1.47).",
	},
	{
		.section = CONFIG_SEC_PEER, .name = "prefix", .type = CONFIG_T_PREFIX,
		.flags = CONF_F_REPEAT,
		FIELD_LIST(struct ls_peer_conf, prefixes, n_prefixes),
		.help = "A destination prefix of the peer's site (10.2.0.0/16, "
			"fd00:2::/64), host bits zero; repeat the key for more. The same "
			"prefix in two peers is an error; nested prefixes are allowed and "
			"the longest match wins. Required, unless the peer's session "
			"([peering]) announces them.",
	},
	{
		.section = CONFIG_SEC_PEER, .name = "source_check", .type = CONFIG_T_ENUM,
		.names = config_source_check_names, .def = "strict", PEER(source_check),
		.help = "Which inner source addresses packets decapsulated from this peer "
			"may carry. strict: only addresses whose longest prefix match over "
			"every peer's prefixes is this peer (strict reverse path check, RFC "
			"3704 2.2); loose: any address. Both drop martian sources and "
			"destinations (RFC 1812 5.3.7, RFC 4291 2.5) and sources inside the "
			"DC port's own subnet (inner_source_spoofed, martian_source, "
			"martian_destination). loose is for a peer that relays other sites.",
	},
	{
		.section = CONFIG_SEC_PEER, .name = "udp_checksum", .type = CONFIG_T_ENUM,
		.names = config_udp_checksum_names, .def = "verify", PEER(udp_checksum),
		.help = "A non-zero outer UDP checksum on tunnel packets from this peer: "
			"verify (a wrong one is dropped as udp_bad_checksum; costs a pass "
			"over the packet, docs/wire-format.md) or ignore (RFC 8926 3.3 "
			"allows both). A zero checksum over IPv4 means none (RFC 768).",
	},
	{
		.section = CONFIG_SEC_PEER, .name = "ipv6_zero_checksum", .type = CONFIG_T_ENUM,
		.names = config_zero_checksum6_names, .def = "drop",
		PEER(ipv6_zero_checksum),
		.help = "A zero outer UDP checksum over an IPv6 underlay: drop "
			"(udp_zero_checksum6, as RFC 6936 wants by default) or accept, for "
			"a peer known to send them (RFC 6935 zero-checksum mode, enabled "
			"per tunnel). Longspan itself always sends the checksum over IPv6.",
	},
	{
		.section = CONFIG_SEC_PEER, .name = "lossless", .type = CONFIG_T_ENUM,
		.names = config_lossless_names, .def = "off", PEER(lossless),
		.help = "Mechanism B for this peer's traffic (docs/congestion-core.md). off: the "
			"WAN queue tail-drops at its buffer. pfc: PFC terminates at the DC "
			"port: the gateway obeys the DC fabric's PFC frames (held packets "
			"wait in its memory) and pauses the RoCE data priority of the DC "
			"fabric when the WAN RoCE queue crosses XOFF, resuming at XON "
			"(derived from the DC port rate and DC RTT). credit: pfc plus "
			"credit-based flow control on the WAN hop: the peer sends RoCE data "
			"only within the bytes this gateway grants (a buffer of one WAN BDP "
			"plus one DC pause, from cc_params), and so does this gateway toward "
			"it; both ends must say credit, and [gateway] workers must be 1 "
			"(wire format in docs/wire-format.md).",
	},
	{
		.section = CONFIG_SEC_PEER, .name = "peering", .type = CONFIG_T_BOOL,
		.def = "yes", PEER(peering),
		.help = "With a [peering] section: keep an authenticated session with "
			"this peer (docs/peering.md). The peer's certificate must name "
			"this section's NAME in a DNS subjectAltName. Without [peering]: "
			"ignored.",
	},
	{
		.section = CONFIG_SEC_PEER, .name = "peering_address", .type = CONFIG_T_ADDR,
		.flags = CONFIG_F_LOOPBACK, PEER(peering_address),
		.help = "Address of the peer's peering listener, where this gateway "
			"connects; inbound connections from this address are the peer's. "
			"Unset: remote (which needs the kernel to reach the WAN address).",
	},
	{
		.section = CONFIG_SEC_PEER, .name = "peering_port", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .flags = CONF_F_ZERO, .min = 1, .max = 65535,
		.def = "0", PEER(peering_port),
		.help = "TCP port of the peer's peering listener. 0: [peering] port.",
	},
	{
		.section = CONFIG_SEC_PEER, .name = "peering_connect", .type = CONFIG_T_BOOL,
		.def = "yes", PEER(peering_connect),
		.help = "Open connections to the peer while the session is down. no: "
			"only accept the peer's (both sides may connect; one connection "
			"survives the tie-break).",
	},



	/* [congestion] */
	{
		.section = CONFIG_SEC_CONGESTION, .name = "marker", .type = CONFIG_T_ENUM,
		.names = config_marker_names, .def = "red", CONG(marker),
		.help = "ECN marker on the WAN egress queue: none, red (queue bytes "
			"between kmin and kmax), sojourn (queueing delay over "
			"target_delay) or phantom (a virtual queue draining at "
			"phantom_ratio of the link rate).",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "mechanisms", .type = CONFIG_T_MECH,
		.def = "none", CONG(mechanisms),
		.help = "Gateway mechanisms: none, A (near-source CNP), C "
			"(destination-side reaction point) or A,C.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "kmin", .type = CONFIG_T_UINT,
		.units = UNITS_SIZE, .min = 0, .max = UINT64_C(4000000000), .def = "0",
		CONG(kmin_bytes),
		.help = "RED: queue depth where marking starts. 0 derives it from the "
			"link rate and RTT. Set kmin and kmax together.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "kmax", .type = CONFIG_T_UINT,
		.units = UNITS_SIZE, .min = 0, .max = UINT64_C(4000000000), .def = "0",
		CONG(kmax_bytes),
		.help = "RED: queue depth where the marking probability reaches pmax. "
			"0 derives it from the link rate and RTT.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "pmax", .type = CONFIG_T_UINT,
		.units = UNITS_FRACTION, .min = 0, .max = 1000000, .def = "0",
		CONG(pmax_ppm),
		.help = "RED: marking probability at kmax (0.2 or 20%). 0 derives it.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "target_delay", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = 0, .max = 100 * NS_MS, .def = "0",
		CONG(target_delay_ns),
		.help = "Sojourn marker: queueing delay above which packets are marked. "
			"0 derives it from the RTT.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "phantom_ratio", .type = CONFIG_T_UINT,
		.units = UNITS_FRACTION, .min = 100000, .max = 1000000, .def = "0.95",
		CONG(phantom_ratio_ppm),
		.help = "Phantom marker: drain rate of the virtual queue as a fraction "
			"of the link rate.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "buffer", .type = CONFIG_T_UINT,
		.units = UNITS_SIZE, .flags = CONF_F_ZERO, .min = 65536,
		.max = UINT64_C(4000000000), .def = "0", CONG(buffer_bytes),
		.help = "WAN egress queue limit. 0 is one bandwidth-delay product of the "
			"link rate and the largest peer RTT (12.5MB at 100G and 1ms).",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "cnp_interval", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = 0, .max = 10 * NS_MS, .def = "0",
		CONG(cnp_interval_ns),
		.help = "Mechanism A: least time between two CNPs the gateway sends to "
			"one QP (as a NIC's notification point). 0 derives max(4us, 2 DC "
			"round trips): 20us. 1ns sends one per mark.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "cnp_dscp", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .min = 0, .max = 63, .def = "48", CONG(cnp_dscp),
		.help = "DSCP of the CNPs the gateway sends.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "pfc_xoff", .type = CONFIG_T_UINT,
		.units = UNITS_SIZE, .flags = CONF_F_ZERO, .min = 4096,
		.max = UINT64_C(4000000000), .def = "0", CONG(pfc_xoff_bytes),
		.help = "Mechanism B ([peer] lossless): WAN RoCE queue size at which the "
			"gateway pauses the RoCE data priority of its DC fabric. 0 is the "
			"buffer less the PFC headroom (DC port rate x DC RTT + 3 MTU, plus the "
			"DC port's full receive ring, rx_desc x its frames, unless [gateway] "
			"idle = poll: a sleeping worker reads the ring late). The config check "
			"warns when less than the headroom is left above it.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "pfc_xon", .type = CONFIG_T_UINT,
		.units = UNITS_SIZE, .flags = CONF_F_ZERO, .min = 4096,
		.max = UINT64_C(4000000000), .def = "0", CONG(pfc_xon_bytes),
		.help = "Mechanism B: queue size at which the paused priority resumes; "
			"below pfc_xoff. 0 is pfc_xoff less one headroom.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "data_dscp", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .min = 0, .max = 63, .def = "26", CONG(data_dscp),
		.help = "Mechanism B: DSCP of RoCE data, mapped to PFC priority 3 (the "
			"paused one); cnp_dscp maps to priority 6, any other DSCP to 0.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "ce_clear", .type = CONFIG_T_BOOL,
		.def = "yes", CONG(ce_clear),
		.help = "Mechanism A: forward a signalled RoCE packet without CE while a "
			"gateway CNP covers its QP (one sent within cnp_interval), so the "
			"far receiver does not send a second, late CNP (THEMIS's policy). "
			"no: keep CE and let both loops act.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "hold", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = 0, .max = NS_S, .def = "0", CONG(hold_ns),
		.help = "Mechanism C: how long a CNP-triggered rate cut holds before it "
			"ramps up; every CNP restarts it. 0 derives cut_interval + 2 DC "
			"round trips: 148us.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "cut_interval", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = 0, .max = NS_S, .def = "0", CONG(cut_interval_ns),
		.help = "Mechanism C: least time between two rate cuts of one QP; the "
			"CNPs in between only restart the hold. 0 derives the time the "
			"DC port drains a queue at the production Kmax (16KB per Gb/s): "
			"128us at any rate.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "cnp_forward", .type = CONFIG_T_BOOL,
		.def = "yes", CONG(cnp_forward),
		.help = "Mechanism C: send a local receiver's CNP on to the remote sender "
			"once the gateway's reaction point has acted on it. no: the reaction "
			"point answers it alone and the CNP is dropped and counted "
			"(cnp_absorbed); a CNP it cannot act on (no flow entry, hold table "
			"full, congestion before the WAN) always goes on.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "cnp_forward_gap", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = 0, .max = NS_S, .def = "0",
		CONG(cnp_forward_gap_ns),
		.help = "Mechanism C, with cnp_forward: send at most one receiver CNP of "
			"a QP on to the sender per this gap; the rest are dropped and "
			"counted (cnp_absorbed). 0: every one goes on.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "cnp_forward_backlog", .type = CONFIG_T_UINT,
		.units = UNITS_SIZE, .min = 0, .max = UINT64_C(4000000000), .def = "0",
		CONG(cnp_forward_backlog_bytes),
		.help = "Mechanism C, with cnp_forward: send a receiver CNP on to the "
			"sender only while its QP holds at least this much in gateway "
			"memory; below that the reaction point answers it alone and it is "
			"dropped and counted (cnp_absorbed). 0: whatever is held.",
	},
	{
		.section = CONFIG_SEC_CONGESTION, .name = "flow_idle", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = NS_MS, .max = 3600 * NS_S, .def = "1s",
		CONG(flow_idle_ns),
		.help = "A per-QP flow entry (and a learned QPN pairing) unused for this "
			"long is removed. With [gateway] pipeline = p4 also the timeout of "
			"the P4 program's flow learner, which must then be whole seconds.",
	},

	/* [peering] */
	{
		.section = CONFIG_SEC_PEERING, .name = "listen", .type = CONFIG_T_ADDR,
		.flags = CONF_F_REQUIRED | CONFIG_F_LOOPBACK, PEERING(listen),
		.help = "Address the kernel owns that the sessions use: the listener "
			"binds it and outbound connections leave from it (peers match "
			"inbound connections on it). A WAN port's address belongs to DPDK, "
			"so this is a management address (docs/peering.md).",
	},
	{
		.section = CONFIG_SEC_PEERING, .name = "port", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .min = 1, .max = 65535, .def = "7481", PEERING(port),
		.help = "TCP port of the listener, and of every peer's unless its "
			"peering_port says otherwise.",
	},
	{
		.section = CONFIG_SEC_PEERING, .name = "accept", .type = CONFIG_T_BOOL,
		.def = "yes", PEERING(accept),
		.help = "Listen for peers' connections. no: only connect out.",
	},
	{
		.section = CONFIG_SEC_PEERING, .name = "ca", .type = CONFIG_T_STRING,
		.flags = CONF_F_REQUIRED, .min = 1, .max = LS_PEERING_PATH_MAX - 1,
		PEERING(ca),
		.help = "PEM file of the CA every peer's certificate must chain to; "
			"the system store is not used.",
	},
	{
		.section = CONFIG_SEC_PEERING, .name = "cert", .type = CONFIG_T_STRING,
		.flags = CONF_F_REQUIRED, .min = 1, .max = LS_PEERING_PATH_MAX - 1,
		PEERING(cert),
		.help = "PEM file of this gateway's certificate (intermediates may "
			"follow). It must name [gateway] name in a DNS subjectAltName.",
	},
	{
		.section = CONFIG_SEC_PEERING, .name = "key", .type = CONFIG_T_STRING,
		.flags = CONF_F_REQUIRED, .min = 1, .max = LS_PEERING_PATH_MAX - 1,
		PEERING(key),
		.help = "PEM file of the certificate's private key, unencrypted.",
	},
	{
		.section = CONFIG_SEC_PEERING, .name = "crl", .type = CONFIG_T_STRING,
		.min = 1, .max = LS_PEERING_PATH_MAX - 1, PEERING(crl),
		.help = "PEM file of the CA's CRL; a peer whose certificate it lists is "
			"refused. Unset: no revocation check.",
	},
	{
		.section = CONFIG_SEC_PEERING, .name = "handshake_timeout", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = 100 * NS_MS, .max = 60 * NS_S, .def = "5s",
		PEERING(handshake_timeout_ns),
		.help = "Deadline for TCP, the TLS handshake and the hello of a new "
			"connection; a slower one is dropped (handshake_timeout).",
	},
	{
		.section = CONFIG_SEC_PEERING, .name = "hold_time", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = 300 * NS_MS, .max = 600 * NS_S, .def = "3s",
		PEERING(hold_time_ns),
		.help = "Hold time announced in the hello: a session from which nothing "
			"arrives this long ends (hold_timeout). Keepalives go every third "
			"of the smaller of the two sides' hold times. Whole milliseconds.",
	},
	{
		.section = CONFIG_SEC_PEERING, .name = "backoff_min", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = 10 * NS_MS, .max = 600 * NS_S, .def = "500ms",
		PEERING(backoff_min_ns),
		.help = "Reconnect back-off ceiling after the first failure; it doubles "
			"per failure up to backoff_max, each delay drawn from half the "
			"ceiling to the ceiling.",
	},
	{
		.section = CONFIG_SEC_PEERING, .name = "backoff_max", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = 10 * NS_MS, .max = 3600 * NS_S, .def = "30s",
		PEERING(backoff_max_ns),
		.help = "Largest reconnect back-off ceiling; at least backoff_min.",
	},
	{
		.section = CONFIG_SEC_PEERING, .name = "route_hold", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = 0, .max = 86400 * NS_S, .def = "60s",
		PEERING(route_hold_ns),
		.help = "Routes learned from a peer stay in the forwarding tables this "
			"long after its session went down, then expire.",
	},
	{
		.section = CONFIG_SEC_PEERING, .name = "max_pending", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .min = 1, .max = 1024, .def = "16",
		PEERING(max_pending),
		.help = "Inbound connections in their handshake at a time, across all "
			"peers; more are closed (too_many_pending).",
	},
	{
		.section = CONFIG_SEC_PEERING, .name = "prefix", .type = CONFIG_T_PREFIX,
		.flags = CONF_F_REPEAT,
		FIELD_LIST(struct ls_peering_conf, prefixes, n_prefixes),
		.help = "A prefix of this site that peers learn from the session; repeat "
			"for more. None given: the dc port's ipv4 and ipv6 subnets.",
	},

	/* [hook NAME] */
	{
		.section = CONFIG_SEC_HOOK, .name = "object", .type = CONFIG_T_STRING,
		.flags = CONF_F_REQUIRED, .min = 1, .max = LS_HOOK_PATH_MAX - 1, HOOK(object),
		.help = "Path of the hook's eBPF object (clang -O2 -target bpf -mcpu=v2, built "
			"against dataplane/hook_abi.h; the shipped ones are installed in "
			"share/longspan/hooks/). It is checked and loaded at start and at every "
			"reload; a refused object fails the start or the reload with "
			"OBJECT: section 'S': reason (docs/telemetry.md).",
	},
	{
		.section = CONFIG_SEC_HOOK, .name = "section", .type = CONFIG_T_STRING,
		.flags = CONF_F_NAMECHARS, .min = 1, .max = 63, HOOK(section),
		.help = "ELF section of the hook's program in the object. Default: the "
			"hook's name.",
	},
	{
		.section = CONFIG_SEC_HOOK, .name = "points", .type = CONFIG_T_STRING,
		.min = 1, .max = 63, .def = "dc_rx, wan_rx, wan_tx, dc_tx", HOOK(points_text),
		.help = "Hook points the program runs at, comma separated: dc_rx (from the "
			"DC, after parse and flow lookup), wan_rx (from the WAN, after "
			"decapsulation and flow lookup), wan_tx (toward the WAN, at the traffic "
			"manager's dequeue), dc_tx (toward the DC, at transmit). At one point "
			"the hooks run in the order of their sections, at most 4.",
	},
	{
		.section = CONFIG_SEC_HOOK, .name = "pin_dir", .type = CONFIG_T_STRING,
		.min = 1, .max = LS_HOOK_PATH_MAX - 1, HOOK(pin_dir),
		.help = "Directory under a bpffs where the hook's maps are pinned (created, "
			"and removed at exit). Default: /sys/fs/bpf/longspan/GATEWAY/NAME with "
			"every '.' of the two names made '_'. Two hooks may not share one.",
	},
	{
		.section = CONFIG_SEC_HOOK, .name = "max_insns", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .unit_label = "instructions", .min = 16, .max = 65536,
		.def = "4096", HOOK(max_insns),
		.help = "Largest program accepted.",
	},

	/* [telemetry] */
	{
		.section = CONFIG_SEC_TELEMETRY, .name = "interval", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = 100 * NS_MS, .max = 600 * NS_S, .def = "1s",
		TEL(interval_ns),
		.help = "One exporter pass over every hook's flow slots (spread over the "
			"control loop's iterations); Prometheus, the telemetry pages and IPFIX "
			"are refreshed after each. Must be below the flow_idle_ms that each "
			"hook object declares (checked when it loads).",
	},
	{
		.section = CONFIG_SEC_TELEMETRY, .name = "idle_timeout", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = NS_S, .max = 86400 * NS_S, .def = "15s",
		TEL(idle_timeout_ns),
		.help = "A flow without packets for this long ends: its last IPFIX record, "
			"then it leaves the aggregate and the pinned flows map.",
	},
	{
		.section = CONFIG_SEC_TELEMETRY, .name = "active_timeout", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = NS_S, .max = 86400 * NS_S, .def = "60s",
		TEL(active_timeout_ns),
		.help = "A live flow gets an IPFIX record at least this often.",
	},
	{
		.section = CONFIG_SEC_TELEMETRY, .name = "max_flows", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .unit_label = "flows", .min = 1024, .max = UINT64_C(1) << 22,
		.def = "65536", TEL(max_flows),
		.help = "Flows the exporter aggregates over all workers (and the pinned "
			"flows map holds).",
	},
	{
		.section = CONFIG_SEC_TELEMETRY, .name = "prometheus", .type = CONFIG_T_STRING,
		.min = 1, .max = 63, TEL(prometheus),
		.help = "Serve the Prometheus text exposition on GET /metrics at ADDR:PORT "
			"(127.0.0.1:9464, [::1]:9464; numeric): the measured distance to each "
			"peer, and the hooks' metrics when there are hooks. Unset: no HTTP "
			"server. Changing it needs a restart.",
	},
	{
		.section = CONFIG_SEC_TELEMETRY, .name = "top_k", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .unit_label = "flows", .min = 1, .max = 100, .def = "10",
		TEL(top_k),
		.help = "Flows with the most bytes that Prometheus shows by label (bounds "
			"the series however many flows there are).",
	},
	{
		.section = CONFIG_SEC_TELEMETRY, .name = "ipfix", .type = CONFIG_T_STRING,
		.min = 1, .max = LS_HOOK_PATH_MAX - 1, TEL(ipfix),
		.help = "Export IPFIX flow records (RFC 7011) to udp://IP:PORT, tcp://IP:PORT "
			"(numeric, [IPv6] in brackets) or file:PATH. Unset: no IPFIX.",
	},
	{
		.section = CONFIG_SEC_TELEMETRY, .name = "ipfix_domain", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .min = 0, .max = UINT32_MAX, .def = "0", TEL(ipfix_domain),
		.help = "IPFIX observation domain ID.",
	},
	{
		.section = CONFIG_SEC_TELEMETRY, .name = "ipfix_pen", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .min = 1, .max = UINT32_MAX, .def = "32473", TEL(ipfix_pen),
		.help = "Private enterprise number of the RoCE information elements "
			"(32473 is RFC 5612's documentation number).",
	},
	{
		.section = CONFIG_SEC_TELEMETRY, .name = "ipfix_mtu", .type = CONFIG_T_UINT,
		.units = UNITS_COUNT, .unit_label = "bytes", .min = 512, .max = 65000,
		.def = "1400", TEL(ipfix_mtu),
		.help = "Largest IPFIX message over UDP.",
	},
	{
		.section = CONFIG_SEC_TELEMETRY, .name = "template_refresh", .type = CONFIG_T_UINT,
		.units = UNITS_TIME, .min = NS_S, .max = 86400 * NS_S, .def = "600s",
		TEL(template_refresh_ns),
		.help = "How often IPFIX templates are resent over UDP (RFC 7011 8.4).",
	},
};

const unsigned int config_n_keys = sizeof(config_keys) / sizeof(config_keys[0]);

static_assert(sizeof(config_keys) / sizeof(config_keys[0]) <= CONFIG_KEYS_MAX,
	      "config.c tracks at most CONFIG_KEYS_MAX keys per section instance");
static_assert(LS_MBUF_HEADROOM_BYTES == 128, "mbuf_data_size's help says 128 bytes");
static_assert(LS_MAX_PREFIXES <= CONFIG_ELEMS_MAX && LS_MAX_STATIC_NEIGH <= CONFIG_ELEMS_MAX,
	      "config.c records a line per element of a repeatable key");

const struct conf_table config_table = {
	.keys = config_keys,
	.n_keys = sizeof(config_keys) / sizeof(config_keys[0]),
	.section_names = config_section_names,
	.n_sections = CONFIG_SEC_MAX,
	.types = config_types,
	.n_types = CONFIG_T_MAX,
};

const struct conf_key *
config_key_find(enum config_section section, const char *name)
{
	return conf_key_find(&config_table, section, name);
}

unsigned int
config_key_index(const struct conf_key *key)
{
	return (unsigned int)(key - config_keys);
}

const char *
config_key_type_text(const struct conf_key *key)
{
	return conf_key_type_text(&config_table, key);
}
