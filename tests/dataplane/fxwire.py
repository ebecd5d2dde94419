# SPDX-License-Identifier: BSD-3-Clause
"""
The wire contract of docs/wire-format.md, written again in Python.

The fixture tests build every expected packet here, from the text of the
spec and the fixture config, never from the C code: the flow hash is a
bitwise CRC-32C, the ICRC a zlib CRC-32 over the RoCEv2 pseudo header, the
RFC 6040 table is the spec's table typed in. Keep it that way: if this file
and the dataplane disagree, one of them is wrong and the diff says which.
"""

import ipaddress
import re
import struct
import zlib

from scapy.compat import raw
from scapy.layers.inet import IP, UDP, TCP, ICMP
from scapy.layers.inet6 import (IPv6, ICMPv6EchoRequest, ICMPv6ND_NA, ICMPv6ND_NS,
                                ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr)
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Raw

try:  # scapy.contrib layers register on import
    from scapy.contrib.geneve import GENEVE  # noqa: F401
    from scapy.contrib.roce import AETH, BTH, CNPPadding  # noqa: F401
except ImportError as e:  # pragma: no cover
    raise SystemExit("fxwire: scapy.contrib.roce/geneve missing (use /usr/bin/python3): %s" % e)

ETH_IP4 = 0x0800
ETH_IP6 = 0x86DD
ETH_ARP = 0x0806
ETH_VLAN = 0x8100
ETH_QINQ = 0x88A8
ROCE_PORT = 4791
GENEVE_PORT = 6081

# docs/wire-format.md, "DC -> WAN".
OUTER_TTL = 64
GENEVE_OPT_CLASS = 0xFF4C
GENEVE_OPT_TYPE = 0x01
GENEVE_OPT_CRITICAL = 0x80
LS_OPT_VERSION = 1

# dp_fixture.c runs one worker (id 0) on a fixed clock. The driver passes
# --clock-ns CLOCK_NS (not the harness default, 1700000000123456789) so a
# timestamp that ignored the clock could not pass by accident.
HARNESS_WORKER = 0
CLOCK_NS = 1712345678901234567

# RFC 3168 codepoints.
NOT_ECT, ECT1, ECT0, CE = 0, 1, 2, 3
ECN_NAMES = {NOT_ECT: "notect", ECT1: "ect1", ECT0: "ect0", CE: "ce"}

# docs/wire-format.md, "ECN, RFC 6040 section 4.2 (normal mode)":
# DECAP[inner][outer] -> new inner ECN, or None = drop `ecn_ce_over_not_ect`.
DECAP = {
    NOT_ECT: {NOT_ECT: NOT_ECT, ECT0: NOT_ECT, ECT1: NOT_ECT, CE: None},
    ECT0: {NOT_ECT: ECT0, ECT0: ECT0, ECT1: ECT1, CE: CE},
    ECT1: {NOT_ECT: ECT1, ECT0: ECT1, ECT1: ECT1, CE: CE},
    CE: {NOT_ECT: CE, ECT0: CE, ECT1: CE, CE: CE},
}


# --------------------------------------------------------------------------
# The fixture config (the test's input, parsed here rather than hard-coded).

class Port:
    def __init__(self, name):
        self.name = name
        self.role = None
        self.mac = None
        self.vlan = 0
        self.mtu = 1500
        self.ip4 = None  # ipaddress.IPv4Interface
        self.ip6 = None
        self.gw4 = None
        self.gw6 = None
        self.neigh = {}  # address string (compressed) -> MAC
        self.link_rate = None  # as written

    @property
    def ll6(self):
        """EUI-64 link-local address of the port MAC (RFC 4291 2.5.1)."""
        b = bytes(int(x, 16) for x in self.mac.split(":"))
        iid = bytes([b[0] ^ 0x02, b[1], b[2], 0xFF, 0xFE, b[3], b[4], b[5]])
        return str(ipaddress.IPv6Address(b"\xfe\x80" + b"\x00" * 6 + iid))


class Peer:
    def __init__(self, name):
        self.name = name
        self.port = None
        self.remote = None
        self.local = None
        self.vni = None
        self.prefixes = []

    @property
    def v6(self):
        return ":" in self.remote


class Config:
    """The parts of an INI gateway config the fixtures need."""

    def __init__(self, path):
        self.ports = {}
        self.peers = {}
        self.cong = {}  # [congestion] key -> value as written
        self.geneve_port = GENEVE_PORT
        order = []
        section = None
        with open(path) as f:
            for line in f:
                line = line.split(";", 1)[0].split("#", 1)[0].strip()
                if not line:
                    continue
                m = re.match(r"\[(\w+)(?:\s+([\w.-]+))?\]$", line)
                if m:
                    kind, name = m.group(1), m.group(2)
                    if kind == "port":
                        section = self.ports.setdefault(name, Port(name))
                        order.append(name)
                    elif kind == "peer":
                        section = self.peers.setdefault(name, Peer(name))
                    else:
                        section = kind
                    continue
                key, _, value = (s.strip() for s in line.partition("="))
                self._set(section, key, value)
        self.port_order = order
        for p in self.peers.values():
            wan = self.ports[p.port]
            if p.local is None:
                p.local = str((wan.ip6 if p.v6 else wan.ip4).ip)
        self.dc = next(p for p in self.ports.values() if p.role == "dc")

    def _set(self, sec, key, value):
        if sec == "gateway":
            if key == "geneve_port":
                self.geneve_port = int(value)
        elif sec == "congestion":
            self.cong[key] = value
        elif isinstance(sec, Port):
            if key == "role":
                sec.role = value
            elif key == "mac":
                sec.mac = value.lower()
            elif key == "vlan":
                sec.vlan = int(value)
            elif key == "mtu":
                sec.mtu = int(value)
            elif key == "ipv4":
                sec.ip4 = ipaddress.ip_interface(value)
            elif key == "ipv6":
                sec.ip6 = ipaddress.ip_interface(value)
            elif key == "gateway4":
                sec.gw4 = value
            elif key == "gateway6":
                sec.gw6 = value
            elif key == "neighbor":
                addr, mac = value.split()
                sec.neigh[str(ipaddress.ip_address(addr))] = mac.lower()
            elif key == "link_rate":
                sec.link_rate = value
        elif isinstance(sec, Peer):
            if key == "port":
                sec.port = value
            elif key == "remote":
                sec.remote = str(ipaddress.ip_address(value))
            elif key == "local":
                sec.local = str(ipaddress.ip_address(value))
            elif key == "vni":
                sec.vni = int(value)
            elif key == "prefix":
                sec.prefixes.append(ipaddress.ip_network(value))

    def cong_time_ns(self, key, default):
        """A [congestion] time (docs/config.md units: ns, us, ms, s)."""
        return parse_time_ns(self.cong.get(key, default))

    def cong_size(self, key, default="0"):
        """A [congestion] size in bytes (bare number or B, kB, KiB, MB, MiB)."""
        return parse_size(self.cong.get(key, default))

    def route(self, dst):
        """Longest prefix over all peers (IPv4 and IPv6 separately), or None."""
        a = ipaddress.ip_address(dst)
        best = None
        for p in self.peers.values():
            for n in p.prefixes:
                if n.version == a.version and a in n and (best is None or n.prefixlen > best[0]):
                    best = (n.prefixlen, p)
        return best[1] if best else None

    def wan_nexthop_mac(self, peer):
        """MAC of the next hop toward the peer's outer address (static neighbour)."""
        wan = self.ports[peer.port]
        iface = wan.ip6 if peer.v6 else wan.ip4
        if ipaddress.ip_address(peer.remote) in iface.network:
            nh = peer.remote
        else:
            nh = wan.gw6 if peer.v6 else wan.gw4
        return wan.neigh.get(str(ipaddress.ip_address(nh)))

    def dc_nexthop(self, dst):
        """DC-side next hop of an inner destination: on-link or the gateway."""
        dc = self.dc
        a = ipaddress.ip_address(dst)
        iface = dc.ip4 if a.version == 4 else dc.ip6
        if iface is not None and a in iface.network:
            return str(a)
        gw = dc.gw4 if a.version == 4 else dc.gw6
        return str(ipaddress.ip_address(gw)) if gw else None


def parse_time_ns(v):
    """docs/config.md "time": ns, us, ms, s; a bare number only for 0."""
    m = re.match(r"^\s*(\d+)\s*(ns|us|ms|s)?\s*$", v)
    if not m or (m.group(2) is None and m.group(1) != "0"):
        raise ValueError("time %r" % v)
    return int(m.group(1)) * {"ns": 1, "us": 1000, "ms": 1000000, "s": 10 ** 9,
                              None: 0}[m.group(2)]


def parse_size(v):
    """docs/config.md "size": bare or B, kB/MB (powers of 1000), KiB/MiB (of 1024)."""
    m = re.match(r"^\s*(\d+)\s*(B|kB|MB|KiB|MiB)?\s*$", v)
    if not m:
        raise ValueError("size %r" % v)
    return int(m.group(1)) * {None: 1, "B": 1, "kB": 1000, "MB": 10 ** 6, "KiB": 1024,
                              "MiB": 1 << 20}[m.group(2)]


# --------------------------------------------------------------------------
# Checksums and hashes.

def crc32c(data, crc=0):
    """CRC-32C (Castagnoli), reflected, no final inversion: rte_hash_crc()."""
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc & 0xFFFFFFFF


def inet_csum(data):
    if len(data) % 2:
        data += b"\x00"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def udp6_csum(ip):
    """UDP checksum of an IPv6/UDP packet (RFC 8200 8.1); 0 becomes 0xFFFF."""
    plen = struct.unpack("!H", ip[4:6])[0]
    udp = bytearray(ip[40:40 + plen])
    udp[6:8] = b"\x00\x00"
    c = inet_csum(ip[8:40] + struct.pack("!IxxxB", plen, 17) + bytes(udp))
    return c or 0xFFFF


def ip4_fix_csum(ip):
    """IPv4 packet bytes with the header checksum recomputed."""
    ihl = (ip[0] & 0x0F) * 4
    h = bytearray(ip[:ihl])
    h[10:12] = b"\x00\x00"
    h[10:12] = struct.pack("!H", inet_csum(bytes(h)))
    return bytes(h) + ip[ihl:]


def ip4_csum_ok(ip):
    ihl = (ip[0] & 0x0F) * 4
    return inet_csum(ip[:ihl]) == 0


def ip_l4(ip):
    """(protocol, L4 offset or None when there is no L4 header) of an IP packet."""
    if ip[0] >> 4 == 4:
        frag = struct.unpack("!H", ip[6:8])[0] & 0x1FFF
        return ip[9], (None if frag else (ip[0] & 0x0F) * 4)
    return ip[6], 40


def ip_addrs(ip):
    if ip[0] >> 4 == 4:
        return ip[12:16], ip[16:20]
    return ip[8:24], ip[24:40]


def flow_hash(ip):
    """
    docs/wire-format.md: CRC-32C over src || dst || proto || sport || dport,
    ports zero for a fragment (IPv4 MF or a fragment offset; an IPv6
    fragment's protocol is 44, the Fragment header, which has no ports).
    """
    src, dst = ip_addrs(ip)
    proto, l4 = ip_l4(ip)
    sport = dport = 0
    fragment = ip[0] >> 4 == 4 and struct.unpack("!H", ip[6:8])[0] & 0x3FFF != 0
    if proto in (6, 17) and l4 is not None and not fragment and len(ip) >= l4 + 4:

        sport, dport = struct.unpack("!HH", ip[l4:l4 + 4])
    return crc32c(src + dst + bytes([proto]) + struct.pack("!HH", sport, dport))


def ip_tos(ip):
    if ip[0] >> 4 == 4:
        return ip[1]
    return (struct.unpack("!I", ip[:4])[0] >> 20) & 0xFF


def ip_set_tos(ip, tos):
    """Set DSCP+ECN; an IPv4 header checksum is recomputed."""
    b = bytearray(ip)
    if b[0] >> 4 == 4:
        b[1] = tos
        return ip4_fix_csum(bytes(b))
    w = struct.unpack("!I", b[:4])[0]
    w = (w & ~(0xFF << 20)) | (tos << 20)
    b[:4] = struct.pack("!I", w)
    return bytes(b)


def ip_dec_ttl(ip):
    """TTL / hop limit minus one; an IPv4 header checksum is recomputed."""
    b = bytearray(ip)
    if b[0] >> 4 == 4:
        b[8] -= 1
        return ip4_fix_csum(bytes(b))
    b[7] -= 1
    return bytes(b)


def icrc(ip):
    """RoCEv2 ICRC (4 bytes, as on the wire) of an IP/UDP/BTH/.../ICRC packet."""
    b = bytearray(ip[:-4])
    if b[0] >> 4 == 4:
        ihl = (b[0] & 0x0F) * 4
        b[1] = 0xFF  # DSCP + ECN
        b[8] = 0xFF  # TTL
        b[10:12] = b"\xff\xff"  # header checksum
    else:
        ihl = 40
        b[0] |= 0x0F  # traffic class (low nibble of byte 0, high of byte 1)
        b[1:4] = b"\xff\xff\xff"  # traffic class rest + flow label
        b[7] = 0xFF  # hop limit
    b[ihl + 6:ihl + 8] = b"\xff\xff"  # UDP checksum
    b[ihl + 8 + 4] = 0xFF  # BTH FECN, BECN, resv6
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xFFFFFFFF)


def with_icrc(ip):
    """The packet with its last 4 bytes replaced by the right ICRC."""
    return ip[:-4] + icrc(ip)


def roce_inner(frame_ip):
    """True when the IP packet is UDP to the RoCEv2 port."""
    proto, l4 = ip_l4(frame_ip)
    return proto == 17 and l4 is not None and len(frame_ip) >= l4 + 4 and \
        struct.unpack("!H", frame_ip[l4 + 2:l4 + 4])[0] == ROCE_PORT


def ip_trim(ip):
    """The IP packet without any trailing bytes (Ethernet padding)."""
    if ip[0] >> 4 == 4:
        return ip[:struct.unpack("!H", ip[2:4])[0]]
    return ip[:40 + struct.unpack("!H", ip[4:6])[0]]


def l2_split(frame):
    """(ether type, offset of L3) after Ethernet and at most one tag."""
    et = struct.unpack("!H", frame[12:14])[0]
    off = 14
    if et == ETH_VLAN:
        et = struct.unpack("!H", frame[16:18])[0]
        off = 18
    return et, off


# --------------------------------------------------------------------------
# The spec's packets.

def ls_option(seq, ts=CLOCK_NS, worker=HARNESS_WORKER, version=LS_OPT_VERSION,
              opt_class=GENEVE_OPT_CLASS, opt_type=GENEVE_OPT_TYPE):
    """The 20-byte Longspan GENEVE option."""
    return struct.pack("!HBB", opt_class, opt_type, 4) + \
        struct.pack("!BBHIQ", version, 0, worker, seq & 0xFFFFFFFF, ts)


def geneve_hdr(proto, vni, options=b"", version=0, oam=0, critical=0, optlen=None):
    if optlen is None:
        optlen = len(options) // 4
    return struct.pack("!BBH", (version << 6) | (optlen & 0x3F), (oam << 7) | (critical << 6),
                       proto) + struct.pack("!I", vni << 8) + options


def encap(cfg, peer, inner, seq, ts=CLOCK_NS, worker=HARNESS_WORKER):
    """
    Expected WAN frame for an inner IP packet that already had its TTL
    decremented (docs/wire-format.md, DC -> WAN).
    """
    wan = cfg.ports[peer.port]
    h = flow_hash(inner)
    tos = ip_tos(inner)
    proto = ETH_IP4 if inner[0] >> 4 == 4 else ETH_IP6
    payload = geneve_hdr(proto, peer.vni, ls_option(seq, ts, worker)) + inner
    udp = UDP(sport=0xC000 | (h & 0x3FFF), dport=cfg.geneve_port)
    if peer.v6:
        outer = IPv6(tc=tos, fl=h & 0xFFFFF, nh=17, hlim=OUTER_TTL, src=peer.local,
                     dst=peer.remote) / udp / Raw(payload)  # scapy computes the UDP checksum
    else:
        udp.chksum = 0
        outer = IP(version=4, ihl=5, tos=tos, id=0, flags="DF", frag=0, ttl=OUTER_TTL, proto=17,
                   src=peer.local, dst=peer.remote) / udp / Raw(payload)
    eth = Ether(dst=cfg.wan_nexthop_mac(peer), src=wan.mac)
    if wan.vlan:
        eth = eth / Dot1Q(vlan=wan.vlan, prio=0)
    return raw(eth / outer)


def dc_to_wan(cfg, frame, seq, peer=None, ts=CLOCK_NS):
    """Expected WAN frame for a DC frame: strip L2, decrement TTL, encapsulate."""
    _, off = l2_split(frame)
    inner = ip_trim(frame[off:])
    if peer is None:
        dst = ipaddress.ip_address(ip_addrs(inner)[1])
        peer = cfg.route(str(dst))
    return encap(cfg, peer, ip_dec_ttl(inner), seq, ts)


def dc_frame_for(cfg, inner, dst_mac=None):
    """Expected DC frame carrying a decapsulated inner packet."""
    dc = cfg.dc
    dst = str(ipaddress.ip_address(ip_addrs(inner)[1]))
    if dst_mac is None:
        dst_mac = dc.neigh[cfg.dc_nexthop(dst)]
    et = ETH_IP4 if inner[0] >> 4 == 4 else ETH_IP6
    if dc.vlan:
        return raw(Ether(dst=dst_mac, src=dc.mac, type=ETH_VLAN) /
                   Dot1Q(vlan=dc.vlan, prio=0, type=et)) + inner
    return raw(Ether(dst=dst_mac, src=dc.mac, type=et)) + inner


def wan_to_dc(cfg, inner, outer_ecn):
    """Expected DC frame after decapsulation, or None when RFC 6040 drops."""
    tos = ip_tos(inner)
    new = DECAP[tos & 3][outer_ecn]
    if new is None:
        return None
    if new != tos & 3:
        inner = ip_set_tos(inner, (tos & ~3) | new)
    return dc_frame_for(cfg, inner)


def geneve_frame(cfg, peer, inner, seq=0, outer_ecn=NOT_ECT, outer_dscp=0, vni=None,
                 options=None, version=0, oam=0, critical=0, proto=None, src=None, dst=None,
                 dst_mac=None, src_mac=None, sport=0xC123, optlen=None, udp_dport=None,
                 worker=HARNESS_WORKER, ts=CLOCK_NS - 1000):
    """A tunnel packet as a peer gateway sends it to our WAN port."""
    wan = cfg.ports[peer.port]
    if options is None:
        options = ls_option(seq, ts, worker)
    if proto is None:
        proto = ETH_IP4 if inner[0] >> 4 == 4 else ETH_IP6
    if vni is None:
        vni = peer.vni
    payload = geneve_hdr(proto, vni, options, version, oam, critical, optlen) + inner
    src = src or peer.remote
    dst = dst or peer.local
    tos = (outer_dscp << 2) | outer_ecn
    udp = UDP(sport=sport, dport=udp_dport or cfg.geneve_port)
    if ":" in src:
        outer = IPv6(tc=tos, fl=0x12345, hlim=60, src=src, dst=dst) / udp / Raw(payload)
    else:
        udp.chksum = 0
        outer = IP(tos=tos, id=7, flags="DF", ttl=60, src=src, dst=dst) / udp / Raw(payload)
    eth = Ether(dst=dst_mac or wan.mac, src=src_mac or cfg.wan_nexthop_mac(peer))
    if wan.vlan:
        eth = eth / Dot1Q(vlan=wan.vlan)
    return raw(eth / outer)


def reth(va=0x00007F0000001000, rkey=0x1234, dma_len=4096):
    return struct.pack("!QII", va, rkey, dma_len)


def roce(src, dst, opcode, dqpn=0x000123, psn=0, payload=b"", tos=ECT0, sport=0xD001,
         ttl=64, becn=0, ackreq=0, pkey=0xFFFF, hdrs=b"", ident=0x4242, df=True):
    """
    A RoCEv2 packet as IP bytes with a correct ICRC. IPv4 uses scapy's BTH
    (which computes the ICRC; cross-checked against icrc()); IPv6 gets the
    ICRC from icrc(), scapy 2.5 leaving it at zero there.
    """
    bth = BTH(opcode=opcode, pkey=pkey, becn=becn, dqpn=dqpn, ackreq=ackreq, psn=psn)
    if ":" in src:
        # icrc = 0: scapy still appends the 4-byte field at the end of the
        # packet (an FCS field); with_icrc() then writes the real value.
        bth.icrc = 0
        p = IPv6(src=src, dst=dst, tc=tos, hlim=ttl) / UDP(sport=sport, dport=ROCE_PORT, chksum=0) / \
            bth / Raw(hdrs + payload)
        b = bytearray(with_icrc(raw(p)))
        assert len(b) == 40 + 8 + 12 + len(hdrs) + len(payload) + 4
        # The UDP checksum covers the ICRC (which masks the checksum): ICRC first.
        b[46:48] = struct.pack("!H", udp6_csum(bytes(b)))
        return bytes(b)
    p = IP(src=src, dst=dst, tos=tos, ttl=ttl, flags="DF" if df else 0, id=ident) / \
        UDP(sport=sport, dport=ROCE_PORT, chksum=0) / bth / Raw(hdrs + payload)
    b = raw(p)
    assert b[-4:] == icrc(b), "fxwire.icrc disagrees with scapy's BTH ICRC"
    return b


def cnp(src, dst, dqpn, tos=48 << 2, sport=0xD0C0):
    """CNP: BTH opcode 0x81, P_Key 0xFFFF, BECN, PSN 0, 16 reserved bytes, ICRC."""
    return roce(src, dst, 0x81, dqpn=dqpn, psn=0, payload=b"\x00" * 16, tos=tos,
                sport=sport, becn=1)


def gateway_cnp(cfg, sender, receiver, sender_qpn, sport, dscp=48):
    """
    The CNP a gateway sends (mechanism A) to a local sender, as the expected
    DC frame: from the remote receiver's address to the sender, UDP source
    port of the data flow, DSCP dscp with Not-ECT, TTL / hop limit 64, BTH
    opcode 0x81, P_Key 0xFFFF, BECN, DestQP = the sender's QPN, PSN 0, 16
    reserved zero bytes, ICRC (roce-wire.md "CNP"). IPv4: DF set and
    identification 0, an atomic datagram (RFC 6864 section 4.1); the IPv4
    UDP checksum is 0, the IPv6 one is computed (RFC 8200 8.1). IPv4 is built
    with scapy's CNP layers (scapy.contrib.roce.cnp(), ICRC by scapy), IPv6
    with icrc() (scapy 2.5 leaves the IPv6 ICRC at zero).
    """
    tos = (dscp << 2) | NOT_ECT
    if ":" in sender:
        ip = roce(receiver, sender, 0x81, dqpn=sender_qpn, psn=0, payload=b"\x00" * 16,
                  tos=tos, sport=sport, ttl=64, becn=1)
    else:
        from scapy.contrib.roce import cnp as scapy_cnp
        ip = raw(IP(src=receiver, dst=sender, tos=tos, ttl=64, flags="DF", id=0) /
                 UDP(sport=sport, dport=ROCE_PORT, chksum=0) / scapy_cnp(sender_qpn))
        assert ip[-4:] == icrc(ip), "scapy's CNP ICRC disagrees with icrc()"
    return dc_frame_for(cfg, ip)


def aeth(syndrome, msn):
    return struct.pack("!I", (syndrome << 24) | (msn & 0xFFFFFF))


def arp_reply_for(port, req_mac, req_ip):
    """ARP reply from the port (RFC 826) to a requester."""
    return raw(Ether(dst=req_mac, src=port.mac) /
               ARP(op=2, hwsrc=port.mac, psrc=str(port.ip4.ip), hwdst=req_mac, pdst=req_ip))


def arp_request_from(port, target_ip):
    return raw(Ether(dst="ff:ff:ff:ff:ff:ff", src=port.mac) /
               ARP(op=1, hwsrc=port.mac, psrc=str(port.ip4.ip), hwdst="00:00:00:00:00:00",
                   pdst=target_ip))


def solicited_node(addr):
    a = ipaddress.IPv6Address(addr).packed
    sn = ipaddress.IPv6Address(bytes.fromhex("ff0200000000000000000001ff") + a[13:])
    mac = "33:33:" + ":".join("%02x" % x for x in sn.packed[12:])
    return str(sn), mac


def ns_from(port, target, src):
    """Neighbour solicitation for target sent by the port from src (RFC 4861 7.2.2)."""
    sn, mac = solicited_node(target)
    return raw(Ether(dst=mac, src=port.mac) / IPv6(src=src, dst=sn, hlim=255) /
               ICMPv6ND_NS(tgt=target) / ICMPv6NDOptSrcLLAddr(lladdr=port.mac))


def na_from(port, target, dst_ip, dst_mac, solicited=True):
    """
    Solicited advertisement (RFC 4861 7.2.4): S and O set; R set because the
    gateway forwards packets (it is a router for the DC hosts).
    """
    return raw(Ether(dst=dst_mac, src=port.mac) / IPv6(src=target, dst=dst_ip, hlim=255) /
               ICMPv6ND_NA(R=1, S=1 if solicited else 0, O=1, tgt=target) /
               ICMPv6NDOptDstLLAddr(lladdr=port.mac))


def echo_reply_for(port, request_frame, ttl=64):
    """
    Echo reply to an echo request frame: addresses swapped, MACs swapped with
    the port MAC as source, type 0 / 129, identifier, sequence and data
    unchanged, TTL / hop limit = ttl, checksums recomputed, no padding.
    """
    et, off = l2_split(request_frame)
    ip = ip_trim(request_frame[off:])
    src_mac = ":".join("%02x" % x for x in request_frame[6:12])
    if ip[0] >> 4 == 4:
        p = IP(ip)
        p.src, p.dst = p.dst, p.src
        p.ttl = ttl
        del p.chksum
        p[ICMP].type = 0
        del p[ICMP].chksum
    else:
        p = IPv6(ip)
        p.src, p.dst = p.dst, p.src
        p.hlim = ttl
        req = p[ICMPv6EchoRequest]
        from scapy.layers.inet6 import ICMPv6EchoReply
        rep = ICMPv6EchoReply(id=req.id, seq=req.seq, data=req.data)
        p[ICMPv6EchoRequest].underlayer.remove_payload()
        p = p / rep
    return raw(Ether(dst=src_mac, src=port.mac, type=et)) + raw(p)


def pad60(frame):
    """Ethernet minimum frame size without FCS, as a NIC delivers it."""
    return frame + b"\x00" * max(0, 60 - len(frame))


def describe(frame):
    """A scapy dump of a frame for diffs."""
    return Ether(frame).show(dump=True)

