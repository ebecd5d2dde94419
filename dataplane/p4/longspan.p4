/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Longspan's ingress in P4-16 for the Portable NIC Architecture (PNA), in
 * the subset that p4c's DPDK backend compiles and DPDK 22.11's SWX engine
 * loads. longspan.spec beside this file is its SWX form; docs/p4.md says
 * how that was made, what this program does and what it cannot do.
 *
 * What it does, per packet (the C fast path's dataplane/parse.c,
 * dataplane/geneve.c and dataplane/pipeline.c do the same, and
 * docs/wire-format.md is the contract for both):
 *   parse   Ethernet [/ 802.1Q] / IPv4 | IPv6 [/ UDP [/ BTH [/ AETH]]],
 *           and on the WAN side IPv4 | IPv6 / UDP / GENEVE [/ Longspan option] /
 *           inner IPv4 | IPv6 [/ UDP [/ BTH [/ AETH]]];
 *   DC      martian checks, longest prefix route to a peer, TTL / hop
 *           limit, flow hash, GENEVE encapsulation (RFC 6040 copy);
 *   WAN     tunnel termination (port address, GENEVE port, peer and VNI),
 *           martian and source checks, RFC 6040 decapsulation, DC next hop;
 *   flows   a per-QP learner (DC -> WAN and WAN -> DC) with packet and
 *           byte counters in register arrays that the control plane reads;
 *   shim    every packet leaves with an ls_meta header in front: the
 *           verdict, the drop reason, the class and the ECN inputs for
 *           the traffic manager that stays in C (docs/p4.md).
 *
 * Changed for DPDK 22.11 (each is explained in docs/p4.md, "22.11 traps"):
 *   - IPv4 keeps version, IHL and DSCP+ECN in one 16-bit field, so that
 *     ckadd/cksub see the TOS byte at an even offset;
 *   - IPv6 addresses are two 64-bit halves (no 128-bit moves);
 *   - no PNA direction checks: a port_role table names DC and WAN ports;
 *   - no extern calls, no timestamp (the option's tx_ns is left 0);
 *   - the flow hash result sits in the first 32 bytes of the metadata.
 */

#include <core.p4>
#include <pna.p4>

/* Drop reasons: the values of enum ls_drop_reason (dataplane/drop_reason.h).
 * tests/p4_names.py checks every one against that file. */
const bit<8> DROP_NONE = 0;
const bit<8> DROP_L2_NOT_FOR_US = 3;
const bit<8> DROP_VLAN_STACKED = 5;
const bit<8> DROP_VLAN_MISMATCH = 6;
const bit<8> DROP_ETHERTYPE = 7;
const bit<8> DROP_IP4_VERSION = 9;
const bit<8> DROP_IP4_IHL = 10;
const bit<8> DROP_TTL_EXPIRED = 20;
const bit<8> DROP_NO_ROUTE = 21;
const bit<8> DROP_MTU_EXCEEDED = 22;
const bit<8> DROP_NEIGH_MISS = 24;
const bit<8> DROP_NOT_FOR_US = 25;
const bit<8> DROP_NOT_TUNNEL = 26;
const bit<8> DROP_GENEVE_VERSION = 28;
const bit<8> DROP_GENEVE_PROTO = 29;
const bit<8> DROP_GENEVE_OAM = 30;
const bit<8> DROP_GENEVE_CRIT_OPT = 31;
const bit<8> DROP_UNKNOWN_PEER = 32;
const bit<8> DROP_VNI_MISMATCH = 33;
const bit<8> DROP_ECN_CE_NOT_ECT = 35;
const bit<8> DROP_NO_CONFIG = 41;
const bit<8> DROP_MARTIAN_SRC = 44;
const bit<8> DROP_MARTIAN_DST = 45;
const bit<8> DROP_INNER_SRC_SPOOF = 46;

/* Verdicts in ls_meta.verdict. */
const bit<8> VERDICT_FORWARD = 0;
const bit<8> VERDICT_DROP = 1;
const bit<8> VERDICT_PUNT = 2;

/* enum dp_class (dataplane/dp_conf.h). */
const bit<8> CLASS_ROCE_DATA = 0;
const bit<8> CLASS_ROCE_ACK = 1;
const bit<8> CLASS_ROCE_CNP = 2;
const bit<8> CLASS_OTHER_IP = 3;
const bit<8> CLASS_ARP = 4;
const bit<8> CLASS_ND = 5;

/* What a route or source lookup found. */
const bit<8> ROUTE_MISS = 0;
const bit<8> ROUTE_PEER = 1;
const bit<8> ROUTE_DC_LOCAL = 2;
const bit<8> ROUTE_MARTIAN = 3;

const bit<8> ROLE_NONE = 0;
const bit<8> ROLE_DC = 1;
const bit<8> ROLE_WAN = 2;

const bit<16> GENEVE_OPT_CLASS_LONGSPAN = 0xff4c;
/* 20 (outer IPv4) + 8 (UDP) + 8 (GENEVE) + 20 (Longspan option). */
const bit<16> ENCAP4_IP_OVERHEAD = 56;
const bit<16> ENCAP4_UDP_OVERHEAD = 36;
/* Outer IPv6 + UDP + GENEVE + the option in front of the inner packet; the
 * UDP overhead is the outer IPv6 payload length's too. */
const bit<16> ENCAP6_IP_OVERHEAD = 76;
const bit<32> FLOW_SLOTS_MASK = 0xffff;

header ls_meta_t {
	bit<8> verdict;
	bit<8> drop_reason;
	bit<8> cls;
	bit<8> ecn; /* ECN codepoint of the packet as it leaves */
	bit<16> out_port;
	bit<16> peer_id;
	bit<32> flow_slot; /* 0xffffffff: not a RoCE flow */
}

header ethernet_t {
	bit<48> dst_addr;
	bit<48> src_addr;
	bit<16> ether_type;
}

header vlan_t {
	bit<16> pcp_cfi_vid;
	bit<16> ether_type;
}

/* version(4) ihl(4) DSCP(6) ECN(2) kept as one field: see the top. */
header ipv4_t {
	bit<16> ver_ihl_tos;
	bit<16> total_len;
	bit<16> identification;
	bit<16> flags_frag_offset;
	bit<8> ttl;
	bit<8> protocol;
	bit<16> hdr_checksum;
	bit<32> src_addr;
	bit<32> dst_addr;
}

header ipv6_t {
	bit<32> ver_tc_flow_label;
	bit<16> payload_len;
	bit<8> next_header;
	bit<8> hop_limit;
	bit<64> src_addr_hi;
	bit<64> src_addr_lo;
	bit<64> dst_addr_hi;
	bit<64> dst_addr_lo;
}

header udp_t {
	bit<16> src_port;
	bit<16> dst_port;
	bit<16> length;
	bit<16> checksum;
}

header bth_t {
	bit<8> opcode;
	bit<8> flags;
	bit<16> pkey;
	bit<8> fecn_becn;
	bit<24> dqpn;
	bit<8> ackreq;
	bit<24> psn;
}

header aeth_t {
	bit<8> syndrome;
	bit<24> msn;
}

header geneve_t {
	bit<8> ver_opt_len;
	bit<8> flags;
	bit<16> protocol;
	bit<24> vni;
	bit<8> reserved;
}

header geneve_ls_opt_t {
	bit<16> opt_class;
	bit<8> opt_type;
	bit<8> opt_len;
	bit<8> version;
	bit<8> flags;
	bit<16> worker;
	bit<32> seq;
	bit<64> tx_ns;
}

/* The flow hash input of docs/wire-format.md, in wire order; never emitted. */
header flow_key4_t {
	bit<32> src_addr;
	bit<32> dst_addr;
	bit<8> protocol;
	bit<16> src_port;
	bit<16> dst_port;
}

header flow_key6_t {
	bit<64> src_addr_hi;
	bit<64> src_addr_lo;
	bit<64> dst_addr_hi;
	bit<64> dst_addr_lo;
	bit<8> protocol;
	bit<16> src_port;
	bit<16> dst_port;
}

struct headers_t {
	ls_meta_t ls_meta;
	ethernet_t ethernet;
	vlan_t vlan;
	ipv4_t outer_ipv4;
	ipv6_t outer_ipv6;
	udp_t outer_udp;
	geneve_t geneve;
	geneve_ls_opt_t geneve_opt;
	ipv4_t ipv4;
	ipv6_t ipv6;
	udp_t udp;
	bth_t bth;
	aeth_t aeth;
	flow_key4_t flow_key4;
	flow_key6_t flow_key6;
}

/*
 * The order matters on 22.11: the hash destination must lie in the first
 * 32 bytes and no field may start at byte 256 or later (docs/p4.md).
 */
struct main_metadata_t {
	bit<32> flow_hash;
	bit<8> role;
	bit<8> verdict;
	bit<8> drop_reason;
	bit<8> timeout_id;
	bit<32> flow_slot; /* the learner action's argument */
	bit<32> peer_id;
	bit<32> decap_peer_id;
	bit<24> peer_vni;
	bit<16> port_vlan;
	bit<16> geneve_port;
	bit<48> port_mac;
	bit<16> tmp16;
	bit<32> port_ip4;
	bit<64> port_ip6_hi;
	bit<64> port_ip6_lo;
	bit<32> route_key4;
	bit<32> rpf_key4;
	bit<64> route_key6_hi;
	bit<64> route_key6_lo;
	bit<64> rpf_key6_hi;
	bit<64> rpf_key6_lo;
	bit<8> route_kind;
	bit<8> rpf_kind;
	bit<8> source_strict;
	bit<8> ecn_outer;
	bit<32> route_peer;
	bit<32> rpf_peer;
	/* Learner key, contiguous: direction, inner source, destination, UDP
	 * source port, BTH DestQP (struct flow_key in dataplane/flow.h). */
	bit<8> fk_dir;
	bit<64> fk_src_hi;
	bit<64> fk_src_lo;
	bit<64> fk_dst_hi;
	bit<64> fk_dst_lo;
	bit<16> fk_sport;
	bit<32> fk_dqpn;
	bit<32> nh_addr4;
	bit<64> nh_addr6_hi;
	bit<64> nh_addr6_lo;
	bit<48> nh_mac;
	bit<16> mtu;
	bit<16> outer_len;
	bit<16> ip_len;
	bit<8> ecn_inner;
	bit<8> cls;
	bit<8> nh_v6;
	bit<16> ether_type; /* of the packet as it leaves */
	bit<16> out_port;
	bit<32> seq;
	bit<32> pkt_bytes;
}

/* The flows learner's hit action argument, as add_entry() passes it. */
struct flow_hit_params_t {
	bit<32> slot;
}

parser MainParserImpl(packet_in pkt, out headers_t hdr, inout main_metadata_t meta,
		      in pna_main_parser_input_metadata_t istd)
{
	state start {
		pkt.extract(hdr.ethernet);
		transition select(hdr.ethernet.ether_type) {
			0x8100: parse_vlan;
			0x0800: parse_ipv4;
			0x86dd: parse_outer_ipv6;
			default: accept;
		}
	}
	state parse_vlan {
		pkt.extract(hdr.vlan);
		transition select(hdr.vlan.ether_type) {
			0x0800: parse_ipv4;
			0x86dd: parse_outer_ipv6;
			default: accept;
		}
	}
	/* An IPv4 packet is parsed into outer_ipv4 first; it becomes the inner
	 * ipv4 unless it carries GENEVE (parse_outer_udp). */
	state parse_ipv4 {
		pkt.extract(hdr.outer_ipv4);
		transition select(hdr.outer_ipv4.protocol) {
			17: parse_outer_udp;
			default: accept;
		}
	}
	/* IPv6 likewise: outer_ipv6 first, the inner ipv6 on the DC side. */
	state parse_outer_ipv6 {
		pkt.extract(hdr.outer_ipv6);
		transition select(hdr.outer_ipv6.next_header) {
			17: parse_outer_udp;
			default: accept;
		}
	}
	state parse_outer_udp {
		pkt.extract(hdr.outer_udp);
		transition select(hdr.outer_udp.dst_port) {
			6081: parse_geneve;
			4791: parse_bth_outer;
			default: accept;
		}
	}
	state parse_geneve {
		pkt.extract(hdr.geneve);
		transition select(hdr.geneve.ver_opt_len) {
			0x00: parse_inner;
			0x05: parse_geneve_opt;
			default: accept;
		}
	}
	state parse_geneve_opt {
		pkt.extract(hdr.geneve_opt);
		transition parse_inner;
	}
	state parse_inner {
		transition select(hdr.geneve.protocol) {
			0x0800: parse_inner_ipv4;
			0x86dd: parse_ipv6;
			default: accept;
		}
	}
	state parse_inner_ipv4 {
		pkt.extract(hdr.ipv4);
		transition select(hdr.ipv4.protocol) {
			17: parse_udp;
			default: accept;
		}
	}
	state parse_ipv6 {
		pkt.extract(hdr.ipv6);
		transition select(hdr.ipv6.next_header) {
			17: parse_udp;
			default: accept;
		}
	}
	state parse_udp {
		pkt.extract(hdr.udp);
		transition select(hdr.udp.dst_port) {
			4791: parse_bth;
			default: accept;
		}
	}
	/* RoCE directly over the outer IPv4 (DC side): BTH follows outer_udp. */
	state parse_bth_outer {
		pkt.extract(hdr.bth);
		transition select(hdr.bth.opcode) {
			0x11: parse_aeth;
			0x12: parse_aeth;
			default: accept;
		}
	}
	state parse_bth {
		pkt.extract(hdr.bth);
		transition select(hdr.bth.opcode) {
			0x11: parse_aeth;
			0x12: parse_aeth;
			default: accept;
		}
	}
	state parse_aeth {
		pkt.extract(hdr.aeth);
		transition accept;
	}
}

control PreControlImpl(in headers_t hdr, inout main_metadata_t meta,
		       in pna_pre_input_metadata_t istd, inout pna_pre_output_metadata_t ostd)
{
	apply {
	}
}

control MainControlImpl(inout headers_t hdr, inout main_metadata_t meta,
			in pna_main_input_metadata_t istd, inout pna_main_output_metadata_t ostd)
{
	/* Per flow slot, read by the control plane (`show flows`, docs/p4.md). */
	Register<bit<64>, bit<32>>(65536) flow_pkts;
	Register<bit<64>, bit<32>>(65536) flow_bytes;
	Register<bit<64>, bit<32>>(65536) flow_src_lo;
	Register<bit<64>, bit<32>>(65536) flow_dst_lo;
	Register<bit<64>, bit<32>>(65536) flow_qp;
	Register<bit<32>, bit<32>>(1) flow_next;
	/* Longspan option sequence number per peer (one pipeline per worker). */
	Register<bit<32>, bit<32>>(256) peer_seq;
	/* The worker id the option carries, written once by the control plane. */
	Register<bit<16>, bit<32>>(1) worker_id;
	/* DPDK's crc32 is rte_hash_crc(): CRC-32C, initial value 0, the flow
	 * hash of docs/wire-format.md. */
	Hash<bit<32>>(PNA_HashAlgorithm_t.CRC32) flow_hasher;
	InternetChecksum() ip_ck;

	action drop_with(bit<8> reason) {
		meta.verdict = VERDICT_DROP;
		meta.drop_reason = reason;
	}

	/* port_role: what the port a packet came in on is. */
	action port_dc(bit<16> vlan, bit<48> mac) {
		meta.role = ROLE_DC;
		meta.port_vlan = vlan;
		meta.port_mac = mac;
	}
	action port_wan(bit<16> vlan, bit<48> mac, bit<32> ip4, bit<64> ip6_hi, bit<64> ip6_lo,
			bit<16> geneve_port) {
		meta.role = ROLE_WAN;
		meta.port_vlan = vlan;
		meta.port_mac = mac;
		meta.port_ip4 = ip4;
		meta.port_ip6_hi = ip6_hi;
		meta.port_ip6_lo = ip6_lo;
		meta.geneve_port = geneve_port;
	}
	action port_none() {
		meta.role = ROLE_NONE;
	}
	table port_role {
		key = { istd.input_port : exact; }
		actions = { port_dc; port_wan; port_none; }
		default_action = port_none;
		size = 64;
	}

	/* route4/route6: the destination; rpf4/rpf6: the source. Martian
	 * prefixes are entries of the highest priority, the DC subnet is
	 * dc_local, peer prefixes name their peer. */
	action route_peer(bit<32> peer_id) {
		meta.route_kind = ROUTE_PEER;
		meta.route_peer = peer_id;
	}
	action route_dc_local() {
		meta.route_kind = ROUTE_DC_LOCAL;
	}
	action route_martian() {
		meta.route_kind = ROUTE_MARTIAN;
	}
	action route_miss() {
		meta.route_kind = ROUTE_MISS;
	}
	action rpf_peer(bit<32> peer_id) {
		meta.rpf_kind = ROUTE_PEER;
		meta.rpf_peer = peer_id;
	}
	action rpf_dc_local() {
		meta.rpf_kind = ROUTE_DC_LOCAL;
	}
	action rpf_martian() {
		meta.rpf_kind = ROUTE_MARTIAN;
	}
	action rpf_miss() {
		meta.rpf_kind = ROUTE_MISS;
	}
	/* 22.11 does LPM through its wildcard (ACL) table only: an lpm key
	 * becomes a wildcard table whose entry priority is the prefix length. */
	table route4 {
		key = { meta.route_key4 : lpm; }
		actions = { route_peer; route_dc_local; route_martian; route_miss; }
		default_action = route_miss;
		size = 1024;
	}
	table route6 {
		key = { meta.route_key6_hi : ternary; meta.route_key6_lo : ternary; }
		actions = { route_peer; route_dc_local; route_martian; route_miss; }
		default_action = route_miss;
		size = 1024;
	}
	table rpf4 {
		key = { meta.rpf_key4 : lpm; }
		actions = { rpf_peer; rpf_dc_local; rpf_martian; rpf_miss; }
		default_action = rpf_miss;
		size = 1024;
	}
	table rpf6 {
		key = { meta.rpf_key6_hi : ternary; meta.rpf_key6_lo : ternary; }
		actions = { rpf_peer; rpf_dc_local; rpf_martian; rpf_miss; }
		default_action = rpf_miss;
		size = 1024;
	}

	/* peer_tunnel: a peer's tunnel (tunnel4: IPv4 underlay, tunnel6: IPv6). */
	action tunnel4(bit<32> src_addr, bit<32> dst_addr, bit<24> vni, bit<16> wan_port,
		       bit<16> vlan, bit<48> wan_mac, bit<32> nexthop, bit<16> mtu,
		       bit<16> geneve_port) {
		hdr.outer_ipv4.setValid();
		hdr.outer_ipv4.src_addr = src_addr;
		hdr.outer_ipv4.dst_addr = dst_addr;
		hdr.geneve.setValid();
		hdr.geneve.vni = vni;
		hdr.outer_udp.setValid();
		hdr.outer_udp.dst_port = geneve_port;
		hdr.ethernet.src_addr = wan_mac;
		meta.out_port = wan_port;
		meta.port_vlan = vlan;
		meta.nh_addr4 = nexthop;
		meta.mtu = mtu;
	}
	action tunnel6(bit<64> src_addr_hi, bit<64> src_addr_lo, bit<64> dst_addr_hi,
		       bit<64> dst_addr_lo, bit<24> vni, bit<16> wan_port, bit<16> vlan,
		       bit<48> wan_mac, bit<64> nexthop_hi, bit<64> nexthop_lo, bit<16> mtu,
		       bit<16> geneve_port) {
		hdr.outer_ipv6.setValid();
		hdr.outer_ipv6.src_addr_hi = src_addr_hi;
		hdr.outer_ipv6.src_addr_lo = src_addr_lo;
		hdr.outer_ipv6.dst_addr_hi = dst_addr_hi;
		hdr.outer_ipv6.dst_addr_lo = dst_addr_lo;
		hdr.geneve.setValid();
		hdr.geneve.vni = vni;
		hdr.outer_udp.setValid();
		hdr.outer_udp.dst_port = geneve_port;
		hdr.ethernet.src_addr = wan_mac;
		meta.out_port = wan_port;
		meta.port_vlan = vlan;
		meta.nh_v6 = 1;
		meta.nh_addr6_hi = nexthop_hi;
		meta.nh_addr6_lo = nexthop_lo;
		meta.mtu = mtu;
	}
	action tunnel_none() {
		drop_with(DROP_NO_ROUTE);
	}
	table peer_tunnel {
		key = { meta.peer_id : exact; }
		actions = { tunnel4; tunnel6; tunnel_none; }
		default_action = tunnel_none;
		size = 256;
	}

	/* peer_by_remote4 and peer_by_remote6: tunnel termination, by outer
	 * source; the VNI must then be the peer's (vni_mismatch, as in the C
	 * path). */
	action decap_peer(bit<32> peer_id, bit<8> source_strict, bit<24> vni) {
		meta.decap_peer_id = peer_id;
		meta.source_strict = source_strict;
		meta.peer_vni = vni;
	}
	action decap_unknown() {
		drop_with(DROP_UNKNOWN_PEER);
	}
	table peer_by_remote4 {
		key = { hdr.outer_ipv4.src_addr : exact; }
		actions = { decap_peer; decap_unknown; }
		default_action = decap_unknown;
		size = 256;
	}
	table peer_by_remote6 {
		key = {
			hdr.outer_ipv6.src_addr_hi : exact;
			hdr.outer_ipv6.src_addr_lo : exact;
		}
		actions = { decap_peer; decap_unknown; }
		default_action = decap_unknown;
		size = 256;
	}

	/* dc_egress: the DC port (a key-less table: the default action only). */
	action dc_port(bit<16> port, bit<16> vlan, bit<48> mac, bit<32> gateway4,
		       bit<64> gateway6_hi, bit<64> gateway6_lo) {
		meta.out_port = port;
		meta.port_vlan = vlan;
		hdr.ethernet.src_addr = mac;
		meta.nh_addr4 = gateway4;
		meta.nh_addr6_hi = gateway6_hi;
		meta.nh_addr6_lo = gateway6_lo;
	}
	table dc_egress {
		actions = { dc_port; }
		default_action = dc_port(0, 0, 0, 0, 0, 0);
	}

	/* neigh4/neigh6: resolved next-hop MACs (ARP and ND, control thread). */
	action neigh_mac(bit<48> mac) {
		meta.nh_mac = mac;
	}
	action neigh_miss() {
		drop_with(DROP_NEIGH_MISS);
	}
	table neigh4 {
		key = { meta.nh_addr4 : exact; }
		actions = { neigh_mac; neigh_miss; }
		default_action = neigh_miss;
		size = 4096;
	}
	table neigh6 {
		key = { meta.nh_addr6_hi : exact; meta.nh_addr6_lo : exact; }
		actions = { neigh_mac; neigh_miss; }
		default_action = neigh_miss;
		size = 4096;
	}

	/* flows: one entry per QP direction, learned by the data plane. */
	action flow_hit(bit<32> slot) {
		meta.flow_slot = slot;
		restart_expire_timer();
	}
	action flow_learn() {
		meta.flow_slot = flow_next.read(0);
		flow_next.write(0, meta.flow_slot + 1);
		meta.flow_slot = meta.flow_slot & FLOW_SLOTS_MASK;
		add_entry(action_name = "flow_hit",
			  action_params = (flow_hit_params_t){ slot = meta.flow_slot },
			  expire_time_profile_id = meta.timeout_id);
		flow_pkts.write(meta.flow_slot, 0);
		flow_bytes.write(meta.flow_slot, 0);
		flow_src_lo.write(meta.flow_slot, meta.fk_src_lo);
		flow_dst_lo.write(meta.flow_slot, meta.fk_dst_lo);
		flow_qp.write(meta.flow_slot, (bit<64>)meta.fk_dqpn);
	}
	table flows {
		key = {
			meta.fk_dir : exact;
			meta.fk_src_hi : exact;
			meta.fk_src_lo : exact;
			meta.fk_dst_hi : exact;
			meta.fk_dst_lo : exact;
			meta.fk_sport : exact;
			meta.fk_dqpn : exact;
		}
		actions = { @tableonly flow_hit; @defaultonly flow_learn; }
		add_on_miss = true;
		default_idle_timeout_for_data_plane_added_entries = 1;
		idle_timeout_with_auto_delete = true;
		const default_action = flow_learn;
		size = 65536;
	}

	apply {
		meta.verdict = VERDICT_FORWARD;
		meta.drop_reason = DROP_NONE;
		meta.cls = CLASS_OTHER_IP;
		meta.flow_slot = 0xffffffff;
		meta.timeout_id = 0;
		meta.nh_v6 = 0;
		meta.route_kind = ROUTE_MISS;
		meta.rpf_kind = ROUTE_MISS;
		port_role.apply();
		if (meta.role == ROLE_NONE) {
			drop_with(DROP_NO_CONFIG);
		}
		/* L2: the port's VLAN; ARP and anything else not IP. */
		if (meta.verdict == VERDICT_FORWARD) {
			if (hdr.vlan.isValid()) {
				if (hdr.vlan.ether_type == 0x8100 || hdr.vlan.ether_type == 0x88a8) {
					drop_with(DROP_VLAN_STACKED);
				} else if ((hdr.vlan.pcp_cfi_vid & 0x0fff) != meta.port_vlan) {
					drop_with(DROP_VLAN_MISMATCH);
				}
			} else if (meta.port_vlan != 0) {
				drop_with(DROP_VLAN_MISMATCH);
			}
		}
		if (meta.verdict == VERDICT_FORWARD) {
			if (hdr.ethernet.ether_type == 0x0806 ||
			    (hdr.vlan.isValid() && hdr.vlan.ether_type == 0x0806)) {
				meta.verdict = VERDICT_PUNT;
				meta.cls = CLASS_ARP;
			} else if (!hdr.outer_ipv4.isValid() && !hdr.outer_ipv6.isValid()) {
				drop_with(DROP_ETHERTYPE);
			}
		}

		/* WAN: terminate the tunnel, or drop. */
		if (meta.verdict == VERDICT_FORWARD && meta.role == ROLE_WAN) {
			if (hdr.ethernet.dst_addr != meta.port_mac) {
				drop_with(DROP_L2_NOT_FOR_US);
			} else if (hdr.outer_ipv6.isValid() &&
				   (hdr.outer_ipv6.dst_addr_hi != meta.port_ip6_hi ||
				    hdr.outer_ipv6.dst_addr_lo != meta.port_ip6_lo)) {
				drop_with(DROP_NOT_FOR_US);
			} else if (!hdr.outer_ipv6.isValid() &&
				   (!hdr.outer_ipv4.isValid() ||
				    hdr.outer_ipv4.dst_addr != meta.port_ip4)) {
				drop_with(DROP_NOT_FOR_US);
			} else if (!hdr.geneve.isValid() ||
				   hdr.outer_udp.dst_port != meta.geneve_port) {
				drop_with(DROP_NOT_TUNNEL);
			} else if ((hdr.geneve.ver_opt_len & 0xc0) != 0) {
				drop_with(DROP_GENEVE_VERSION);
			} else if ((hdr.geneve.flags & 0x80) != 0) {
				drop_with(DROP_GENEVE_OAM);
			} else if (!hdr.ipv4.isValid() && !hdr.ipv6.isValid()) {
				drop_with(DROP_GENEVE_PROTO);
			} else if (hdr.geneve_opt.isValid() &&
				   hdr.geneve_opt.opt_class != GENEVE_OPT_CLASS_LONGSPAN &&
				   (hdr.geneve_opt.opt_type & 0x80) != 0) {
				drop_with(DROP_GENEVE_CRIT_OPT);
			} else {
				if (hdr.outer_ipv6.isValid()) {
					peer_by_remote6.apply();
				} else {
					peer_by_remote4.apply();
				}
				if (meta.verdict == VERDICT_FORWARD && hdr.geneve.vni != meta.peer_vni) {
					drop_with(DROP_VNI_MISMATCH);
				}
			}
		}
		/* DC: an IP packet was parsed as outer_ipv4 or outer_ipv6; it is
		 * the inner one. */
		if (meta.verdict == VERDICT_FORWARD && meta.role == ROLE_DC) {
			if (hdr.ethernet.dst_addr != meta.port_mac) {
				drop_with(DROP_L2_NOT_FOR_US);
			} else if (hdr.outer_ipv4.isValid() || hdr.outer_ipv6.isValid()) {
				if (hdr.outer_ipv6.isValid()) {
					hdr.ipv6 = hdr.outer_ipv6;
					hdr.outer_ipv6.setInvalid();
				} else {
					hdr.ipv4 = hdr.outer_ipv4;
					hdr.outer_ipv4.setInvalid();
				}
				if (hdr.outer_udp.isValid()) {
					hdr.udp = hdr.outer_udp;
					hdr.outer_udp.setInvalid();
				}
			}
		}
		if (meta.verdict == VERDICT_FORWARD && hdr.ipv4.isValid()) {
			if ((hdr.ipv4.ver_ihl_tos & 0xf000) != 0x4000) {
				drop_with(DROP_IP4_VERSION);
			} else if ((hdr.ipv4.ver_ihl_tos & 0x0f00) < 0x0500) {
				drop_with(DROP_IP4_IHL);
			}
		}

		/* Route and source lookups on the inner addresses. */
		if (meta.verdict == VERDICT_FORWARD && hdr.ipv4.isValid()) {
			meta.route_key4 = hdr.ipv4.dst_addr;
			meta.rpf_key4 = hdr.ipv4.src_addr;
			rpf4.apply();
			route4.apply();
		}
		if (meta.verdict == VERDICT_FORWARD && hdr.ipv6.isValid()) {
			if (hdr.ipv6.next_header == 58 && meta.role == ROLE_DC) {
				/* ICMPv6 from the DC: neighbour discovery goes to the
				 * control thread, as in the C path. */
				meta.verdict = VERDICT_PUNT;
				meta.cls = CLASS_ND;
			} else {
				meta.route_key6_hi = hdr.ipv6.dst_addr_hi;
				meta.route_key6_lo = hdr.ipv6.dst_addr_lo;
				meta.rpf_key6_hi = hdr.ipv6.src_addr_hi;
				meta.rpf_key6_lo = hdr.ipv6.src_addr_lo;
				rpf6.apply();
				route6.apply();
			}
		}
		if (meta.verdict == VERDICT_FORWARD) {
			if (meta.rpf_kind == ROUTE_MARTIAN) {
				drop_with(DROP_MARTIAN_SRC);
			} else if (meta.route_kind == ROUTE_MARTIAN) {
				drop_with(DROP_MARTIAN_DST);
			}
		}

		/* RoCE class and the learner key. */
		if (hdr.bth.isValid()) {
			if (hdr.bth.opcode == 0x81) {
				meta.cls = CLASS_ROCE_CNP;
			} else if (hdr.aeth.isValid()) {
				meta.cls = CLASS_ROCE_ACK;
			} else {
				meta.cls = CLASS_ROCE_DATA;
			}
		}

		if (meta.verdict == VERDICT_FORWARD && meta.role == ROLE_DC) {
			if (meta.route_kind != ROUTE_PEER) {
				drop_with(DROP_NO_ROUTE);
			} else if (hdr.ipv4.isValid() && hdr.ipv4.ttl <= 1) {
				drop_with(DROP_TTL_EXPIRED);
			} else if (hdr.ipv6.isValid() && hdr.ipv6.hop_limit <= 1) {
				drop_with(DROP_TTL_EXPIRED);
			} else {
				meta.peer_id = meta.route_peer;
				peer_tunnel.apply();
			}
		}
		if (meta.verdict == VERDICT_FORWARD && meta.role == ROLE_DC) {
			/* TTL / hop limit, IPv4 checksum patched incrementally (RFC 1624). */
			if (hdr.ipv4.isValid()) {
				/* RFC 1624 eqn. 3 on the (TTL, protocol) word. */
				ip_ck.set_state(~hdr.ipv4.hdr_checksum);
				ip_ck.subtract({ hdr.ipv4.ttl, hdr.ipv4.protocol });
				hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
				ip_ck.add({ hdr.ipv4.ttl, hdr.ipv4.protocol });
				hdr.ipv4.hdr_checksum = ip_ck.get();
				meta.ip_len = hdr.ipv4.total_len;
				meta.ecn_inner = (bit<8>)(hdr.ipv4.ver_ihl_tos & 3);
				hdr.flow_key4.setValid();
				hdr.flow_key4.src_addr = hdr.ipv4.src_addr;
				hdr.flow_key4.dst_addr = hdr.ipv4.dst_addr;
				hdr.flow_key4.protocol = hdr.ipv4.protocol;
				hdr.flow_key4.src_port = 0;
				hdr.flow_key4.dst_port = 0;
				if (hdr.udp.isValid() && (hdr.ipv4.flags_frag_offset & 0x3fff) == 0) {
					hdr.flow_key4.src_port = hdr.udp.src_port;
					hdr.flow_key4.dst_port = hdr.udp.dst_port;
				}
				meta.flow_hash = flow_hasher.get_hash(hdr.flow_key4);
				hdr.flow_key4.setInvalid();
				hdr.geneve.protocol = 0x0800;
			} else {
				hdr.ipv6.hop_limit = hdr.ipv6.hop_limit - 1;
				meta.ip_len = hdr.ipv6.payload_len + 40;
				meta.ecn_inner = (bit<8>)((hdr.ipv6.ver_tc_flow_label >> 20) & 3);
				hdr.flow_key6.setValid();
				hdr.flow_key6.src_addr_hi = hdr.ipv6.src_addr_hi;
				hdr.flow_key6.src_addr_lo = hdr.ipv6.src_addr_lo;
				hdr.flow_key6.dst_addr_hi = hdr.ipv6.dst_addr_hi;
				hdr.flow_key6.dst_addr_lo = hdr.ipv6.dst_addr_lo;
				hdr.flow_key6.protocol = hdr.ipv6.next_header;
				hdr.flow_key6.src_port = 0;
				hdr.flow_key6.dst_port = 0;
				if (hdr.udp.isValid()) {
					hdr.flow_key6.src_port = hdr.udp.src_port;
					hdr.flow_key6.dst_port = hdr.udp.dst_port;
				}
				meta.flow_hash = flow_hasher.get_hash(hdr.flow_key6);
				hdr.flow_key6.setInvalid();
				hdr.geneve.protocol = 0x86dd;
			}
			if (hdr.outer_ipv6.isValid()) {
				meta.outer_len = meta.ip_len + ENCAP6_IP_OVERHEAD;
			} else {
				meta.outer_len = meta.ip_len + ENCAP4_IP_OVERHEAD;
			}
			if (meta.outer_len > meta.mtu) {
				drop_with(DROP_MTU_EXCEEDED);
			}
		}
		if (meta.verdict == VERDICT_FORWARD && meta.role == ROLE_DC) {
			/* GENEVE encapsulation (docs/wire-format.md). RFC 6040
			 * section 4.1, normal mode: the outer DSCP+ECN copy the inner. */
			if (hdr.ipv4.isValid()) {
				meta.tmp16 = hdr.ipv4.ver_ihl_tos & 0xff;
			} else {
				meta.tmp16 = (bit<16>)((hdr.ipv6.ver_tc_flow_label >> 20) & 0xff);
			}
			if (hdr.outer_ipv6.isValid()) {
				/* The flow label is the flow hash's low 20 bits, as the
				 * C encapsulation writes it. The UDP checksum stays 0:
				 * SWX cannot sum the payload (docs/p4.md). */
				hdr.outer_ipv6.ver_tc_flow_label = 0x60000000 |
					((bit<32>)meta.tmp16 << 20) | (meta.flow_hash & 0xfffff);
				hdr.outer_ipv6.payload_len = meta.ip_len + ENCAP4_UDP_OVERHEAD;
				hdr.outer_ipv6.next_header = 17;
				hdr.outer_ipv6.hop_limit = 64;
			} else {
				hdr.outer_ipv4.ver_ihl_tos = 0x4500 | meta.tmp16;
				hdr.outer_ipv4.total_len = meta.outer_len;
				hdr.outer_ipv4.identification = 0;
				hdr.outer_ipv4.flags_frag_offset = 0x4000;
				hdr.outer_ipv4.ttl = 64;
				hdr.outer_ipv4.protocol = 17;
				hdr.outer_ipv4.hdr_checksum = 0;
			}
			hdr.outer_udp.src_port = 0xc000 | (bit<16>)(meta.flow_hash & 0x3fff);
			hdr.outer_udp.length = meta.ip_len + ENCAP4_UDP_OVERHEAD;
			hdr.outer_udp.checksum = 0;
			hdr.geneve.ver_opt_len = 5;
			hdr.geneve.flags = 0;
			hdr.geneve.reserved = 0;
			hdr.geneve_opt.setValid();
			hdr.geneve_opt.opt_class = GENEVE_OPT_CLASS_LONGSPAN;
			hdr.geneve_opt.opt_type = 1;
			hdr.geneve_opt.opt_len = 4;
			hdr.geneve_opt.version = 1;
			hdr.geneve_opt.flags = 0;
			hdr.geneve_opt.worker = worker_id.read(0);
			meta.seq = peer_seq.read(meta.peer_id);
			peer_seq.write(meta.peer_id, meta.seq + 1);
			hdr.geneve_opt.seq = meta.seq;
			hdr.geneve_opt.tx_ns = 0; /* no timestamp in 22.11 SWX */
			if (hdr.outer_ipv6.isValid()) {
				meta.ether_type = 0x86dd;
			} else {
				ip_ck.clear();
				ip_ck.add({ hdr.outer_ipv4.ver_ihl_tos, hdr.outer_ipv4.total_len,
					    hdr.outer_ipv4.identification,
					    hdr.outer_ipv4.flags_frag_offset, hdr.outer_ipv4.ttl,
					    hdr.outer_ipv4.protocol, hdr.outer_ipv4.src_addr,
					    hdr.outer_ipv4.dst_addr });
				hdr.outer_ipv4.hdr_checksum = ip_ck.get();
				meta.ether_type = 0x0800;
			}
			meta.fk_dir = 0;
		}

		/* WAN: source checks, RFC 6040 decapsulation, DC next hop. */
		if (meta.verdict == VERDICT_FORWARD && meta.role == ROLE_WAN) {
			if (meta.rpf_kind == ROUTE_DC_LOCAL) {
				drop_with(DROP_INNER_SRC_SPOOF);
			} else if (meta.source_strict == 1 &&
				   (meta.rpf_kind != ROUTE_PEER || meta.rpf_peer != meta.decap_peer_id)) {
				drop_with(DROP_INNER_SRC_SPOOF);
			}
		}
		if (meta.verdict == VERDICT_FORWARD && meta.role == ROLE_WAN) {
			/* RFC 6040 section 4.2, normal mode. */
			if (hdr.outer_ipv6.isValid()) {
				meta.ecn_outer = (bit<8>)((hdr.outer_ipv6.ver_tc_flow_label >> 20) & 3);
			} else {
				meta.ecn_outer = (bit<8>)(hdr.outer_ipv4.ver_ihl_tos & 3);
			}
			if (hdr.ipv4.isValid()) {
				meta.ecn_inner = (bit<8>)(hdr.ipv4.ver_ihl_tos & 3);
			} else {
				meta.ecn_inner = (bit<8>)((hdr.ipv6.ver_tc_flow_label >> 20) & 3);
			}
			if (meta.ecn_outer == 3 && meta.ecn_inner == 0) {
				drop_with(DROP_ECN_CE_NOT_ECT);
			} else if (meta.ecn_outer == 3 ||
				   (meta.ecn_outer == 1 && meta.ecn_inner == 2)) {
				if (hdr.ipv4.isValid()) {
					/* ver_ihl_tos is at an even offset: ckadd is right. */
					ip_ck.set_state(~hdr.ipv4.hdr_checksum);
					ip_ck.subtract({ hdr.ipv4.ver_ihl_tos });
					hdr.ipv4.ver_ihl_tos = (hdr.ipv4.ver_ihl_tos & 0xfffc) |
							       (bit<16>)meta.ecn_outer;
					ip_ck.add({ hdr.ipv4.ver_ihl_tos });
					hdr.ipv4.hdr_checksum = ip_ck.get();
				} else {
					hdr.ipv6.ver_tc_flow_label =
						(hdr.ipv6.ver_tc_flow_label & 0xffcfffff) |
						((bit<32>)meta.ecn_outer << 20);
				}
				meta.ecn_inner = meta.ecn_outer;
			}
		}
		if (meta.verdict == VERDICT_FORWARD && meta.role == ROLE_WAN) {
			dc_egress.apply();
			if (meta.route_kind == ROUTE_DC_LOCAL) {
				meta.nh_addr4 = hdr.ipv4.dst_addr;
				meta.nh_addr6_hi = hdr.ipv6.dst_addr_hi;
				meta.nh_addr6_lo = hdr.ipv6.dst_addr_lo;
			}
			if (hdr.ipv6.isValid()) {
				meta.nh_v6 = 1;
				meta.ether_type = 0x86dd;
				meta.ip_len = hdr.ipv6.payload_len + 40;
			} else {
				meta.ether_type = 0x0800;
				meta.ip_len = hdr.ipv4.total_len;
			}
			hdr.outer_ipv4.setInvalid();
			hdr.outer_ipv6.setInvalid();
			hdr.outer_udp.setInvalid();
			hdr.geneve.setInvalid();
			hdr.geneve_opt.setInvalid();
			meta.peer_id = meta.decap_peer_id;
			meta.fk_dir = 1;
		}

		/* Next-hop MAC, Ethernet and VLAN of the way out. */
		if (meta.verdict == VERDICT_FORWARD) {
			/* Each table is applied once (P4-16): the address family
			 * of the next hop was decided above. */
			if (meta.nh_v6 == 1) {
				neigh6.apply();
			} else {
				neigh4.apply();
			}
		}
		if (meta.verdict == VERDICT_FORWARD) {
			hdr.ethernet.dst_addr = meta.nh_mac;
			if (meta.port_vlan != 0) {
				hdr.vlan.setValid();
				hdr.vlan.pcp_cfi_vid = meta.port_vlan;
				hdr.vlan.ether_type = meta.ether_type;
				hdr.ethernet.ether_type = 0x8100;
			} else {
				hdr.vlan.setInvalid();
				hdr.ethernet.ether_type = meta.ether_type;
			}
		}

		/* Per-QP flow: learned on a miss, counted on every packet. */
		if (meta.verdict == VERDICT_FORWARD && hdr.bth.isValid()) {
			if (hdr.ipv4.isValid()) {
				meta.fk_src_hi = 0;
				meta.fk_src_lo = (bit<64>)hdr.ipv4.src_addr;
				meta.fk_dst_hi = 0;
				meta.fk_dst_lo = (bit<64>)hdr.ipv4.dst_addr;
			} else {
				meta.fk_src_hi = hdr.ipv6.src_addr_hi;
				meta.fk_src_lo = hdr.ipv6.src_addr_lo;
				meta.fk_dst_hi = hdr.ipv6.dst_addr_hi;
				meta.fk_dst_lo = hdr.ipv6.dst_addr_lo;
			}
			meta.fk_sport = hdr.udp.src_port;
			meta.fk_dqpn = (bit<32>)hdr.bth.dqpn;
			flows.apply();
			flow_pkts.write(meta.flow_slot, flow_pkts.read(meta.flow_slot) + 1);
			flow_bytes.write(meta.flow_slot,
					 flow_bytes.read(meta.flow_slot) + (bit<64>)meta.ip_len);
		}

		/* The shim the C stage reads: verdict, reason, ECN inputs. */
		hdr.ls_meta.setValid();
		hdr.ls_meta.verdict = meta.verdict;
		hdr.ls_meta.drop_reason = meta.drop_reason;
		hdr.ls_meta.cls = meta.cls;
		hdr.ls_meta.ecn = meta.ecn_inner;
		hdr.ls_meta.out_port = meta.out_port;
		hdr.ls_meta.peer_id = (bit<16>)meta.peer_id;
		hdr.ls_meta.flow_slot = meta.flow_slot;
		send_to_port((PortId_t)0);
	}
}

control MainDeparserImpl(packet_out pkt, in headers_t hdr, in main_metadata_t meta,
			 in pna_main_output_metadata_t ostd)
{
	apply {
		pkt.emit(hdr.ls_meta);
		pkt.emit(hdr.ethernet);
		pkt.emit(hdr.vlan);
		pkt.emit(hdr.outer_ipv4);
		pkt.emit(hdr.outer_ipv6);
		pkt.emit(hdr.outer_udp);
		pkt.emit(hdr.geneve);
		pkt.emit(hdr.geneve_opt);
		pkt.emit(hdr.ipv4);
		pkt.emit(hdr.ipv6);
		pkt.emit(hdr.udp);
		pkt.emit(hdr.bth);
		pkt.emit(hdr.aeth);
	}
}

PNA_NIC(MainParserImpl(), PreControlImpl(), MainControlImpl(), MainDeparserImpl()) main;
