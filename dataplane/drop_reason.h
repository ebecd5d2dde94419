/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_DROP_REASON_H
#define LONGSPAN_DROP_REASON_H

/*
 * Every packet the gateway does not forward is counted under exactly one of
 * these reasons. The names are part of the operator interface (CLI, telemetry,
 * tests): append new reasons, never rename or reorder existing ones.
 *
 * X(enum suffix, "stable name", "one-line description")
 */
#define LS_DROP_REASONS(X)                                                     \
	X(NONE, "none", "not dropped")                                         \
	X(MULTISEG, "multi_segment", "multi-segment mbuf: raise mbuf_data_size") \
	X(ETH_TRUNC, "eth_truncated", "frame shorter than an Ethernet header") \
	X(L2_NOT_FOR_US, "l2_not_for_us", "destination MAC is not the port's") \
	X(VLAN_TRUNC, "vlan_truncated", "802.1Q tag cut short")                \
	X(VLAN_STACKED, "vlan_stacked", "more than one VLAN tag")              \
	X(VLAN_MISMATCH, "vlan_mismatch", "VLAN id differs from the port's")  \
	X(ETHERTYPE, "ethertype_unsupported", "not IPv4, IPv6 or ARP")         \
	X(IP4_TRUNC, "ipv4_truncated", "IPv4 header cut short")                \
	X(IP4_VERSION, "ipv4_bad_version", "IPv4 version field is not 4")      \
	X(IP4_IHL, "ipv4_bad_ihl", "IPv4 header length below 20 bytes")        \
	X(IP4_LEN, "ipv4_bad_length", "IPv4 total length disagrees with frame") \
	X(IP4_CSUM, "ipv4_bad_checksum", "IPv4 header checksum wrong")         \
	X(IP6_TRUNC, "ipv6_truncated", "IPv6 header cut short")                \
	X(IP6_VERSION, "ipv6_bad_version", "IPv6 version field is not 6")      \
	X(IP6_LEN, "ipv6_bad_length", "IPv6 payload length disagrees with frame") \
	X(UDP_TRUNC, "udp_truncated", "UDP header cut short")                  \
	X(UDP_LEN, "udp_bad_length", "UDP length disagrees with IP length")    \
	X(BTH_TRUNC, "bth_truncated", "RoCEv2 BTH cut short")                  \
	X(AETH_TRUNC, "aeth_truncated", "RoCE ACK/NAK without a full AETH")    \
	X(TTL_EXPIRED, "ttl_expired", "inner TTL or hop limit reached zero")   \
	X(NO_ROUTE, "no_route", "no peer site prefix matches the destination") \
	X(MTU_EXCEEDED, "mtu_exceeded", "encapsulated packet exceeds WAN MTU") \
	X(NO_HEADROOM, "no_headroom", "mbuf lacks headroom for encapsulation") \
	X(NEIGH_MISS, "neighbor_unresolved", "next hop MAC not yet resolved")  \
	X(NOT_FOR_US, "not_for_us", "WAN packet not addressed to the gateway") \
	X(NOT_TUNNEL, "wan_not_tunnel", "non-GENEVE IP traffic on a WAN port") \
	X(GENEVE_TRUNC, "geneve_truncated", "GENEVE header or options cut short") \
	X(GENEVE_VERSION, "geneve_bad_version", "GENEVE version is not 0")     \
	X(GENEVE_PROTO, "geneve_bad_protocol", "GENEVE inner protocol not IP") \
	X(GENEVE_OAM, "geneve_oam", "GENEVE OAM packet not handled in the fast path") \
	X(GENEVE_CRIT_OPT, "geneve_critical_option", "unknown critical GENEVE option") \
	X(UNKNOWN_PEER, "unknown_peer", "tunnel source is not a configured peer") \
	X(VNI_MISMATCH, "vni_mismatch", "VNI differs from the peer's")         \
	X(INNER_INVALID, "inner_invalid", "decapsulated inner packet malformed") \
	X(ECN_CE_NOT_ECT, "ecn_ce_over_not_ect", "RFC 6040: outer CE over Not-ECT inner") \
	X(ARP_INVALID, "arp_invalid", "malformed or unsupported ARP")          \
	X(ND_INVALID, "nd_invalid", "malformed or unsupported ICMPv6 ND")     \
	X(PUNT_FULL, "punt_ring_full", "control-plane punt queue full")        \
	X(TX_FULL, "tx_ring_full", "transmit queue full")                      \
	X(LOCAL_DELIVER, "local_unhandled", "addressed to the gateway, no handler") \
	X(NO_CONFIG, "no_config", "no dataplane configuration published")    \
	X(TM_QUEUE_FULL, "wan_queue_full", "WAN egress queue at its buffer limit") \
	X(TRP_QUEUE_FULL, "trp_queue_full", "mechanism C hold queue of the QP full") \
	X(MARTIAN_SRC, "martian_source", "source never forwarded (RFC 1812 5.3.7, RFC 4291 2.5)") \
	X(MARTIAN_DST, "martian_destination", "loopback, link-local, multicast, class E or network 0 destination") \
	X(INNER_SRC_SPOOF, "inner_source_spoofed", "decapsulated source not the peer's ([peer] source_check) or in the DC subnet") \
	X(UDP_CSUM, "udp_bad_checksum", "outer UDP checksum wrong ([peer] udp_checksum = verify)") \
	X(UDP_ZERO_CSUM6, "udp_zero_checksum6", "zero outer UDP checksum over IPv6 ([peer] ipv6_zero_checksum)") \
	X(PFC_CONSUMED, "pfc_consumed", "PFC or PAUSE frame from the DC fabric, obeyed (MAC control is never forwarded)") \
	X(MAC_CONTROL, "mac_control", "MAC control frame not obeyed: lossless off, not the DC port, other opcode or cut short") \
	X(DC_PAUSE_FULL, "dc_pause_queue_full", "priority paused by the DC fabric and its gateway queue full") \
	X(P4_VERDICT, "p4_bad_verdict", "pipeline = p4: the SWX pipeline returned a verdict, drop reason or port it has no business returning") \
	X(P4_LOST, "p4_lost", "pipeline = p4: the SWX pipeline did not return the packet within its run budget (a pipeline bug: the packet stays in the pipeline)") \
	X(PROBE_CONSUMED, "probe_consumed", "path probe from a peer gateway, measured (never forwarded)") \
	X(CREDIT_OPT_BAD, "credit_option_bad", "credit GENEVE option with a wrong length, version, priority, flags or reserved bits, or repeated") \
	X(CREDIT_NOT_ENABLED, "credit_not_enabled", "credit option or control packet from a peer without lossless = credit") \
	X(CREDIT_CONTROL, "credit_control", "credit control packet from the peer, consumed (never forwarded)") \
	X(PORT_STOPPED, "port_stopped", "output port stopped while the gateway restarts its link") \
	X(CNP_ABSORBED, "cnp_absorbed", "local receiver's CNP answered by mechanism C's reaction point alone ([congestion] cnp_forward = no)")



enum ls_drop_reason {
#define LS_DROP_ENUM(sym, name, desc) LS_DROP_##sym,
	LS_DROP_REASONS(LS_DROP_ENUM)
#undef LS_DROP_ENUM
	LS_DROP_MAX
};

/* Stable names for CLI and telemetry; index by enum ls_drop_reason. */
extern const char *const ls_drop_reason_names[LS_DROP_MAX];
extern const char *const ls_drop_reason_descs[LS_DROP_MAX];

#endif /* LONGSPAN_DROP_REASON_H */
