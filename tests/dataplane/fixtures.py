#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Dataplane packet fixtures: a table of cases run through the real pipeline
by dp_fixture (tests/dataplane/dp_fixture.c) over net_ring ports.

    fixtures.py --harness build/tests/dataplane/dp_fixture \\
                --config tests/dataplane/fixture.conf [--group base|tm|sojourn|absorb] [--set SECTION.KEY=VALUE]
                [--workdir DIR] [--only REGEX] [--list] [--verbose]

Each group of cases goes with its config: base (this file, fixture.conf),
tm (fx_tm.py, fixture-tm.conf: the WAN traffic manager with RED at explicit
thresholds, mechanisms A and C), sojourn (fx_tm.py, fixture-sojourn.conf)
and absorb (fx_tm.py, fixture-tm.conf with --set congestion.cnp_forward=no:
--set writes a key of [gateway] or [congestion] into the copy of the config
the harness reads).

For every case the driver writes the input frames (built with scapy) to a
pcap, runs the harness once over all cases, then checks:
  - each port's output byte for byte against the expected frames, built
    from docs/wire-format.md in fxwire.py (never from the C code); a port
    that should stay silent must not transmit;
  - result.txt: the drop reasons exactly (no unexpected drop), the input
    count, `mbuf_leak 0`, and any counters the case names;
  - every emitted pcap with tshark (no malformed frame, no expert info of
    severity warning or error; see tshark_check.py);
  - every emitted RoCEv2 packet, inner or decapsulated, with scapy's RoCE
    layers and the ICRC (unchanged through encap/decap); every CNP on a DC
    port also with tshark's InfiniBand dissector (opcode, P_Key, DestQP).
The expected frames themselves go through tshark first, so a broken
generator shows up as such and not as a dataplane failure.

Adding a case: append to one of the groups below, e.g.

    add("dc2wan.udp4.example", "what it shows", "dc",
        [dc_frame(udp4("10.1.0.1", "10.2.0.9"))],
        out={"wan": [expect_encap(0)]}, counters={"peer site-b tx": 1})

where out maps a port to its frames in order (a tuple is a set of
acceptable alternatives for one frame) and drops maps a reason name
(dataplane/drop_reason.h) to its count. A multi-step case (Case(...,
steps=[Step(ingress, inputs, clock, out, drops, counters), ...])) becomes
manifest lines continued with `+`: no reset in between, each step with
its own clock and outputs, counters adding up (see fx_tm.py).
"""

import argparse
import ipaddress
import os
import re
import shutil
import struct
import subprocess
import sys
import time
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from ini_text import ini_set, set_arg  # noqa: E402  (scripts/ini_text.py)

try:
    import logging
    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    from scapy.compat import raw
    from scapy.layers.inet import ICMP, IP, TCP, UDP
    from scapy.layers.inet import fragment
    from scapy.layers.inet6 import (ICMPv6EchoRequest, ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr,
                                    IPv6, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, fragment6)
    from scapy.layers.l2 import ARP, Ether
    from scapy.packet import Raw
    import fxwire as w
    import tshark_check
except ImportError as e:  # pragma: no cover
    # A failure, not a skip: CI must not pass without looking at a packet.
    print("fixtures: cannot import scapy (%s); run with /usr/bin/python3" % e)
    sys.exit(1)

# --------------------------------------------------------------------------
# pcap files (written and read here so nothing reinterprets the bytes)

PCAP_MAGIC = 0xA1B2C3D4


def pcap_write(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", PCAP_MAGIC, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000, i, len(fr), len(fr)))
            f.write(fr)


def pcap_read(path):
    frames = []
    with open(path, "rb") as f:
        hdr = f.read(24)
        magic = struct.unpack("<I", hdr[:4])[0]
        end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
        while True:
            rh = f.read(16)
            if len(rh) < 16:
                break
            _, _, incl, _ = struct.unpack(end + "IIII", rh)
            frames.append(f.read(incl))
    return frames


# --------------------------------------------------------------------------
# The case table.

class Step:
    """
    One manifest line: frames fed to one port at one clock. Counters and
    drops in result.txt add up over the steps of a case, so drops and
    counters here are the totals expected after this step.
    """

    def __init__(self, ingress, inputs, clock=None, out=None, drops=None, counters=None,
                 check=None):
        self.ingress = ingress
        self.inputs = [bytes(x) for x in inputs]
        self.clock = clock  # absolute ns; None = the driver's --clock-ns
        self.out = {p: list(v) for p, v in (out or {}).items()}
        self.drops = None if drops is None else dict(drops)
        self.counters = dict(counters or {})
        self.check = check  # optional: result dict -> list of failure messages


class Case:
    """
    A case is one step (ingress, inputs, out, drops, counters) or, with
    steps=[Step, ...], several steps run without a reset in between. plan,
    when given, is called with the frames each step emitted per port
    ({port: [frame, ...]} per step) and the parsed result.txt of each step,
    and returns (outs, problems): the
    expected frames per step (a list of {port: frames}), built for the split
    that was observed, and extra failures. It serves queues whose shaper
    burst is not part of the spec: the split is observed, the frames and
    their order are not. xfail = (regex, text) marks a known dataplane bug:
    failures matching regex are reported as XFAIL instead of failing.
    """

    def __init__(self, name, desc, ingress=None, inputs=(), out=None, drops=None, counters=None,
                 steps=None, plan=None, xfail=None):
        assert re.match(r"^[\w.+-]+$", name), name
        assert xfail is None or len(xfail) == 2, "xfail = (failure regex, bug description)"
        self.name = name
        self.desc = desc
        self.xfail = xfail
        if steps is None:
            steps = [Step(ingress, inputs, None, out, drops or {}, counters)]
        assert steps, name
        if steps[0].drops is None:
            steps[0].drops = {}
        for prev, st in zip(steps, steps[1:]):
            if st.drops is None:
                st.drops = dict(prev.drops)
        self.steps = steps
        self.plan = plan

    @property
    def ingress(self):
        return "+".join(sorted(set(s.ingress for s in self.steps)))

    @property
    def inputs(self):
        return [f for s in self.steps for f in s.inputs]

    @property
    def multi(self):
        return len(self.steps) > 1


class Pred:
    """A counter expectation other than equality: Pred(lambda v: v >= 1, ">= 1")."""

    def __init__(self, fn, text):
        self.fn = fn
        self.text = text

    def __call__(self, v):
        return v is not None and self.fn(v)

    def __str__(self):
        return self.text


def at_least(n):
    return Pred(lambda v: v >= n, ">= %d" % n)


def step_dir(work, case, i):
    base = os.path.join(work, case.name)
    return os.path.join(base, "step%d" % i) if case.multi else base


def make_builders(cfg):
    """
    The packet builders every case group uses, bound to one fixture config:
    a namespace with the config's ports, peers and hosts and the frame
    builders below (dc_frame, wan_frame, enc, gen, dec, roce_msg, ...).
    """
    dc, wan = cfg.dc, cfg.ports["wan"]
    site_b, site_c = cfg.peers["site-b"], cfg.peers["site-c"]
    h1_mac = dc.neigh["10.1.0.1"]
    h6_mac = dc.neigh["fd00:1::1"]
    dc4, dc6 = str(dc.ip4.ip), str(dc.ip6.ip)
    wan4, wan6 = str(wan.ip4.ip), str(wan.ip6.ip)

    # ---- builders ---------------------------------------------------------
    def ip4(src, dst, l4, tos=0, ttl=64, ident=1, **kw):
        return raw(IP(src=src, dst=dst, tos=tos, ttl=ttl, id=ident, **kw) / l4)

    def ip6(src, dst, l4, tc=0, hlim=64, fl=0):
        return raw(IPv6(src=src, dst=dst, tc=tc, hlim=hlim, fl=fl) / l4)

    def ipx(src, dst, l4, tos=0, ttl=64):
        return ip6(src, dst, l4, tc=tos, hlim=ttl) if ":" in src else ip4(src, dst, l4, tos, ttl)

    def udp(src, dst, sport=40000, dport=50000, payload=b"longspan udp " * 4, tos=0, ttl=64):
        return ipx(src, dst, UDP(sport=sport, dport=dport) / Raw(payload), tos, ttl)

    def tcp(src, dst, sport=33000, dport=80, tos=0):
        return ipx(src, dst, TCP(sport=sport, dport=dport, flags="S", seq=1000, window=64240,
                                 options=[("MSS", 1460)]), tos)

    def icmp_echo(src, dst, ident=0x77, seq=1, payload=b"ping" * 8):
        if ":" in src:
            return ip6(src, dst, ICMPv6EchoRequest(id=ident, seq=seq, data=payload))
        return ip4(src, dst, ICMP(type=8, id=ident, seq=seq) / Raw(payload))

    def dc_frame(ip, src_mac=None, dst_mac=None, tag=None, pad=True, ethertype=None):
        """
        A frame from a DC host to the gateway, padded to 60 bytes like a NIC
        delivers it. tag: (pcp, vid[, tpid]) or a list of them, outermost first.
        """
        if src_mac is None:
            src_mac = h6_mac if ip[0] >> 4 == 6 else h1_mac
        et = ethertype or (w.ETH_IP4 if ip[0] >> 4 == 4 else w.ETH_IP6)
        hdr = struct.pack("!6s6s", mac_b(dst_mac or dc.mac), mac_b(src_mac))
        tags = [] if tag is None else (tag if isinstance(tag, list) else [tag])
        for t in tags:
            pcp, vid, tpid = t[0], t[1], (t[2] if len(t) > 2 else w.ETH_VLAN)
            hdr += struct.pack("!HH", tpid, (pcp << 13) | vid)
        fr = hdr + struct.pack("!H", et) + ip
        return w.pad60(fr) if pad else fr

    def wan_frame(ip, src_mac=None, dst_mac=None):
        et = w.ETH_IP4 if ip[0] >> 4 == 4 else w.ETH_IP6
        return w.pad60(struct.pack("!6s6sH", mac_b(dst_mac or wan.mac),
                                   mac_b(src_mac or cfg.wan_nexthop_mac(site_b)), et) + ip)

    def enc(frame, seq, peer=None):
        return w.dc_to_wan(cfg, frame, seq, peer)

    def gen(peer, inner, **kw):
        return w.geneve_frame(cfg, peer, inner, **kw)

    def dec(inner, outer_ecn=w.NOT_ECT):
        return w.wan_to_dc(cfg, inner, outer_ecn)

    # RoCE traffic: DSCP 26 + ECT(0) as RoCE NICs send it; CNPs DSCP 48 Not-ECT.
    roce_tos = (26 << 2) | w.ECT0
    payload = bytes(range(256)) * 2

    def roce_msg(kind, src, dst, psn=100):
        if kind == "write_first":
            return w.roce(src, dst, 0x06, psn=psn, tos=roce_tos, hdrs=w.reth(), payload=payload)
        if kind == "write_middle":
            return w.roce(src, dst, 0x07, psn=psn + 1, tos=roce_tos, payload=payload)
        if kind == "write_last":
            return w.roce(src, dst, 0x08, psn=psn + 2, tos=roce_tos, payload=payload[:300],
                          ackreq=1)
        if kind == "write_only":
            return w.roce(src, dst, 0x0A, psn=psn, tos=roce_tos, hdrs=w.reth(dma_len=200),
                          payload=payload[:200], ackreq=1)
        if kind == "send_only":
            return w.roce(src, dst, 0x04, psn=psn, tos=roce_tos, payload=b"send" * 16, ackreq=1)
        if kind == "ack":
            return w.roce(src, dst, 0x11, psn=psn, tos=roce_tos, hdrs=w.aeth(0x1F, 7))
        if kind == "nak":  # syndrome 011xxxxx: NAK, code 0 = PSN sequence error
            return w.roce(src, dst, 0x11, psn=psn, tos=roce_tos, hdrs=w.aeth(0x60, 7))
        if kind == "cnp":
            return w.cnp(src, dst, dqpn=0x00ABCD)
        raise ValueError(kind)

    return SimpleNamespace(
        dc=dc, wan=wan, site_b=site_b, site_c=site_c, h1_mac=h1_mac, h6_mac=h6_mac, dc4=dc4,
        dc6=dc6, wan4=wan4, wan6=wan6, ip4=ip4, ip6=ip6, ipx=ipx, udp=udp, tcp=tcp,
        icmp_echo=icmp_echo, dc_frame=dc_frame, wan_frame=wan_frame, enc=enc, gen=gen, dec=dec,
        roce_tos=roce_tos, payload=payload, roce_msg=roce_msg)


def build_cases(cfg):
    """Every case, in order. Groups are plain code: read them top to bottom."""
    cases = []
    names = set()

    def add(name, desc, ingress, inputs, out=None, drops=None, counters=None):
        assert name not in names, "duplicate case " + name
        names.add(name)
        cases.append(Case(name, desc, ingress, inputs, out, drops, counters))

    b = make_builders(cfg)
    (dc, wan, site_b, site_c, h1_mac, dc4, dc6, wan4, wan6, ip4, ip6, udp, tcp, icmp_echo,
     dc_frame, wan_frame, enc, gen, dec, roce_msg) = \
        (b.dc, b.wan, b.site_b, b.site_c, b.h1_mac, b.dc4, b.dc6, b.wan4, b.wan6, b.ip4, b.ip6,
         b.udp, b.tcp, b.icmp_echo, b.dc_frame, b.wan_frame, b.enc, b.gen, b.dec, b.roce_msg)

    roce_kinds = ["write_first", "write_middle", "write_last", "write_only", "send_only",
                  "ack", "nak", "cnp"]
    # (label, peer, DC-side address, remote address)
    combos = [
        ("in4.siteb", site_b, "10.1.0.1", "10.2.0.5"),
        ("in4.sitec", site_c, "10.1.0.1", "10.3.0.5"),
        ("in6.siteb", site_b, "fd00:1::1", "fd00:2::5"),
        ("in6.sitec", site_c, "fd00:1::1", "fd00:3::5"),
    ]

    def underlay(peer):
        return "IPv6" if peer.v6 else "IPv4"

    # ======================================================================
    # DC -> WAN: GENEVE encapsulation.
    for label, peer, local, remote in combos:
        for kind in roce_kinds:
            fr = dc_frame(roce_msg(kind, local, remote))
            add("dc2wan.roce.%s.%s" % (label, kind),
                "RoCE %s %s -> %s over the %s underlay to %s" %
                (kind, local, remote, underlay(peer), peer.name), "dc", [fr],
                out={"wan": [enc(fr, 0, peer)]}, counters={"peer %s tx" % peer.name: 1})
        frs = [dc_frame(roce_msg(k, local, remote)) for k in
               ("write_first", "write_middle", "write_last", "ack", "write_only")]
        add("dc2wan.roce.%s.burst" % label,
            "RC WRITE first/middle/last, ACK, WRITE only in one burst: sequence 0..4",
            "dc", frs, out={"wan": [enc(f, i, peer) for i, f in enumerate(frs)]},
            counters={"peer %s tx" % peer.name: len(frs)})
        for kind, ip in (("udp", udp(local, remote)), ("tcp", tcp(local, remote)),
                         ("icmp_echo", icmp_echo(local, remote))):
            fr = dc_frame(ip)
            add("dc2wan.%s.%s" % (kind, label),
                "plain %s %s -> %s over the %s underlay" % (kind, local, remote, underlay(peer)),
                "dc", [fr], out={"wan": [enc(fr, 0, peer)]})

    # Longest prefix: 10.2.5.0/24 (site-c) inside 10.2.0.0/16 (site-b).
    frs = [dc_frame(udp("10.1.0.1", d)) for d in ("10.2.5.9", "10.2.4.9", "10.2.5.255",
                                                   "10.2.6.1")]
    add("dc2wan.lpm.more_specific", "10.2.5.0/24 goes to site-c, the rest of 10.2/16 to site-b",
        "dc", frs, out={"wan": [enc(frs[0], 0, site_c), enc(frs[1], 0, site_b),
                                enc(frs[2], 1, site_c), enc(frs[3], 1, site_b)]},
        counters={"peer site-b tx": 2, "peer site-c tx": 2})
    # Sequence numbers count per peer.
    dsts = ["10.2.0.1", "10.3.0.1", "10.2.0.2", "fd00:3::1", "fd00:2::1", "10.2.0.3"]
    frs = [dc_frame(udp("10.1.0.1" if ":" not in d else "fd00:1::1", d)) for d in dsts]
    seqs = {"site-b": 0, "site-c": 0}
    exp = []
    for f, d in zip(frs, dsts):
        p = cfg.route(d)
        exp.append(enc(f, seqs[p.name], p))
        seqs[p.name] += 1
    add("dc2wan.seq.per_peer", "sequence numbers increase per peer, from 0, within a case",
        "dc", frs, out={"wan": exp}, counters={"peer site-b tx": 4, "peer site-c tx": 2})

    # DSCP and ECN copied to the outer header, all four ECN codepoints.
    for peer, remote in ((site_b, "10.2.0.7"), (site_c, "10.3.0.7")):
        for ecn, ename in w.ECN_NAMES.items():
            fr = dc_frame(udp("10.1.0.1", remote, tos=(46 << 2) | ecn))
            add("dc2wan.tos.%s.ef_%s" % (peer.name, ename),
                "DSCP EF + %s copied to the outer %s header" % (ename, underlay(peer)),
                "dc", [fr], out={"wan": [enc(fr, 0, peer)]})
    for ecn, ename in w.ECN_NAMES.items():
        fr = dc_frame(udp("fd00:1::1", "fd00:3::9", tos=(10 << 2) | ecn))
        add("dc2wan.tos.in6.af11_%s" % ename,
            "inner IPv6 traffic class AF11 + %s copied to the outer IPv6 header" % ename,
            "dc", [fr], out={"wan": [enc(fr, 0, site_c)]})

    # Flow hash: same hosts, different ports, different entropy.
    frs = [dc_frame(udp("10.1.0.1", "10.3.0.8", sport=s)) for s in (1000, 1001, 65535)]
    add("dc2wan.hash.ports", "outer UDP source port and flow label follow the inner 5-tuple",
        "dc", frs, out={"wan": [enc(f, i, site_c) for i, f in enumerate(frs)]})

    # TTL / hop limit.
    fr = dc_frame(udp("10.1.0.1", "10.2.0.5", ttl=2))
    add("dc2wan.ttl.two", "TTL 2 leaves as 1 with a valid header checksum", "dc", [fr],
        out={"wan": [enc(fr, 0)]})
    fr = dc_frame(udp("fd00:1::1", "fd00:2::5", ttl=2))
    add("dc2wan.hlim.two", "hop limit 2 leaves as 1", "dc", [fr], out={"wan": [enc(fr, 0)]})
    for t in (1, 0):
        add("dc2wan.ttl.%d" % t, "IPv4 TTL %d is not forwarded" % t, "dc",
            [dc_frame(udp("10.1.0.1", "10.2.0.5", ttl=t))], drops={"ttl_expired": 1})
        add("dc2wan.hlim.%d" % t, "IPv6 hop limit %d is not forwarded" % t, "dc",
            [dc_frame(udp("fd00:1::1", "fd00:3::5", ttl=t))], drops={"ttl_expired": 1})
    # One burst mixing verdicts and peers: the parser/route pass and the flow
    # table/TM pass of dp_pipeline_dc() must keep every survivor, in order,
    # with its own peer's sequence numbers.
    frs = [dc_frame(roce_msg("write_first", "10.1.0.1", "10.2.0.5")),
           mac_b(dc.mac) + mac_b(h1_mac) + b"\x08",
           dc_frame(roce_msg("write_only", "10.1.0.1", "10.3.0.5")),
           dc_frame(udp("10.1.0.1", "10.2.0.5", ttl=1)),
           dc_frame(roce_msg("ack", "10.1.0.1", "10.2.0.5")),
           dc_frame(roce_msg("send_only", "10.1.0.1", "10.3.0.5"))]
    add("dc2wan.burst.mixed_verdicts",
        "RoCE to two peers with a truncated frame and an expired TTL between them, one burst",
        "dc", frs, out={"wan": [enc(frs[0], 0, site_b), enc(frs[2], 0, site_c),
                                enc(frs[4], 1, site_b), enc(frs[5], 1, site_c)]},
        drops={"eth_truncated": 1, "ttl_expired": 1},
        counters={"peer site-b tx": 2, "peer site-c tx": 2})
    # Checksum carry: a header whose checksum is near the wrap points.
    for ident in (0x0000, 0xFFFF, 0x7A3C):
        fr = dc_frame(ip4("10.1.0.1", "10.2.0.5", UDP(sport=1, dport=2) / Raw(b"c" * 20),
                          ttl=255, ident=ident, tos=0xFF))
        add("dc2wan.ttl.csum_id_%04x" % ident, "TTL 255 -> 254, checksum update with id %#x" %
            ident, "dc", [fr], out={"wan": [enc(fr, 0)]})

    # Layer 2 on the (untagged) DC port.
    fr = dc_frame(udp("10.1.0.1", "10.2.0.5"), tag=(3, 0))
    add("dc2wan.vlan.priority_tag", "a priority tag (VID 0) is accepted on an untagged port",
        "dc", [fr], out={"wan": [enc(fr, 0)]})
    add("dc2wan.vlan.mismatch", "VID 5 on the untagged DC port", "dc",
        [dc_frame(udp("10.1.0.1", "10.2.0.5"), tag=(0, 5))], drops={"vlan_mismatch": 1})
    add("dc2wan.vlan.stacked_8100", "two 802.1Q tags", "dc",
        [dc_frame(udp("10.1.0.1", "10.2.0.5"), tag=[(0, 0), (0, 0)])], drops={"vlan_stacked": 1})
    add("dc2wan.vlan.qinq_88a8", "an 802.1ad S-tag", "dc",
        [dc_frame(udp("10.1.0.1", "10.2.0.5"), tag=(0, 0, w.ETH_QINQ))],
        drops={"vlan_stacked": 1})
    add("dc2wan.vlan.truncated", "802.1Q TPID and half a tag", "dc",
        [mac_b(dc.mac) + mac_b(h1_mac) + b"\x81\x00\x00"], drops={"vlan_truncated": 1})
    add("dc2wan.eth.truncated", "13-byte frame", "dc", [mac_b(dc.mac) + mac_b(h1_mac) + b"\x08"],
        drops={"eth_truncated": 1})
    add("dc2wan.eth.other_mac", "unicast to another MAC", "dc",
        [dc_frame(udp("10.1.0.1", "10.2.0.5"), dst_mac="02:00:00:00:01:99")],
        drops={"l2_not_for_us": 1})
    add("dc2wan.eth.multicast", "IPv4 multicast MAC", "dc",
        [dc_frame(udp("10.1.0.1", "10.2.0.5"), dst_mac="01:00:5e:02:00:05")],
        drops={"l2_not_for_us": 1})
    add("dc2wan.eth.broadcast", "IPv4 UDP to the broadcast MAC", "dc",
        [dc_frame(udp("10.1.0.1", "10.2.0.5"), dst_mac="ff:ff:ff:ff:ff:ff")],
        drops={"l2_not_for_us": 1})
    add("dc2wan.eth.lldp", "EtherType 0x88cc", "dc",
        [dc_frame(b"\x02\x07\x04" + b"\x00" * 40, ethertype=0x88CC)],
        drops={"ethertype_unsupported": 1})

    # Malformed or truncated IPv4 / IPv6 / UDP / BTH / AETH.
    good4 = udp("10.1.0.1", "10.2.0.5")
    good6 = udp("fd00:1::1", "fd00:2::5")

    def mod(b, off, val, csum=True):
        b = bytearray(b)
        b[off:off + len(val)] = val
        return w.ip4_fix_csum(bytes(b)) if csum and b[0] >> 4 == 4 else bytes(b)

    # IPv6 next header UDP with 3 bytes of UDP header.
    u6 = bytearray(ip6("fd00:1::1", "fd00:2::5", Raw(b"\x9c\x40\x13")))
    u6[6] = 17
    u6 = bytes(u6)
    bad = [
        ("ipv4.truncated", dc_frame(good4[:19], pad=False), "ipv4_truncated"),
        ("ipv4.version5", dc_frame(mod(good4, 0, b"\x55"), ethertype=w.ETH_IP4),
         "ipv4_bad_version"),
        ("ipv4.version6", dc_frame(good6, ethertype=w.ETH_IP4), "ipv4_bad_version"),
        ("ipv4.ihl4", dc_frame(mod(good4, 0, b"\x44", csum=False)), "ipv4_bad_ihl"),
        ("ipv4.ihl15_short", dc_frame(mod(good4, 0, b"\x4f", csum=False)[:40], pad=False),
         "ipv4_truncated"),
        ("ipv4.len_beyond_frame", dc_frame(mod(good4, 2, struct.pack("!H", len(good4) + 1))),
         "ipv4_bad_length"),
        ("ipv4.len_below_ihl", dc_frame(mod(good4, 2, struct.pack("!H", 19))), "ipv4_bad_length"),
        ("ipv4.bad_checksum", dc_frame(mod(good4, 10, b"\xde\xad", csum=False)),
         "ipv4_bad_checksum"),
        ("ipv6.truncated", dc_frame(good6[:39], pad=False), "ipv6_truncated"),
        ("ipv6.version4", dc_frame(mod(good6, 0, b"\x40"), ethertype=w.ETH_IP6),
         "ipv6_bad_version"),
        ("ipv6.len_beyond_frame", dc_frame(mod(good6, 4, struct.pack("!H", len(good6) - 39))),
         "ipv6_bad_length"),
        ("udp4.truncated", dc_frame(ip4("10.1.0.1", "10.2.0.5", Raw(b"\x9c\x40\x13"), proto=17)),
         "udp_truncated"),
        ("udp6.truncated", dc_frame(u6), "udp_truncated"),
        ("udp4.len_beyond_ip", dc_frame(mod(good4, 24, struct.pack("!H", len(good4) - 20 + 1))),
         "udp_bad_length"),
        ("udp4.len_below_8", dc_frame(mod(good4, 24, struct.pack("!H", 7))), "udp_bad_length"),
        ("udp6.len_beyond_ip", dc_frame(mod(good6, 44, struct.pack("!H", len(good6) - 40 + 2))),
         "udp_bad_length"),
        ("bth.truncated", dc_frame(ip4("10.1.0.1", "10.2.0.5",
                                       UDP(sport=1, dport=w.ROCE_PORT, chksum=0) /
                                       Raw(b"\x0a\x00\xff\xff\x00\x00"))), "bth_truncated"),
        ("aeth.truncated", dc_frame(ip4("10.1.0.1", "10.2.0.5",
                                        UDP(sport=1, dport=w.ROCE_PORT, chksum=0) /
                                        Raw(raw(w.BTH(opcode=0x11, dqpn=5, icrc=0))[:12] +
                                            b"\x00\x00"))), "aeth_truncated"),
        # A RoCE ACK is BTH + AETH + the 4-byte ICRC trailer (IBA annex A17);
        # here only a (correct) ICRC follows the BTH: the AETH is missing, and
        # the ICRC must not be read as one.
        ("aeth.missing_icrc_only", dc_frame(w.roce("10.1.0.1", "10.2.0.5", 0x11, dqpn=5)),
         "aeth_truncated"),
    ]
    for n, fr, reason in bad:
        add("dc2wan.malformed." + n, "malformed: %s -> %s" % (n, reason), "dc", [fr],
            drops={reason: 1})

    # IPv6 extension header: the hash takes the first next header (0, hop-by-hop)
    # and no ports, as the spec's key says for a protocol other than UDP/TCP.
    fr = dc_frame(raw(IPv6(src="fd00:1::1", dst="fd00:3::6", hlim=9) /
                      IPv6ExtHdrHopByHop() / UDP(sport=5, dport=6) / Raw(b"hbh" * 5)))
    add("dc2wan.ipv6_hop_by_hop", "IPv6 with a hop-by-hop header before UDP", "dc", [fr],
        out={"wan": [enc(fr, 0)]})

    # Ethernet padding is not part of the IP packet.
    fr = dc_frame(udp("10.1.0.1", "10.2.0.5", payload=b"x"))
    assert len(fr) == 60
    add("dc2wan.padding_stripped", "a 60-byte frame carrying 29 bytes of IP leaves without "
        "padding", "dc", [fr], out={"wan": [enc(fr, 0)]})
    fr = dc_frame(ip4("10.1.0.1", "10.2.0.5", UDP(sport=7, dport=9) / Raw(b"opt"),
                      options=[b"\x01\x01\x01\x00"]))
    add("dc2wan.ipv4_options", "IPv4 header with options (IHL 6)", "dc", [fr],
        out={"wan": [enc(fr, 0)]})
    first = ip4("10.1.0.1", "10.3.0.5", UDP(sport=4000, dport=4001, len=8 + 3000) /
                Raw(b"f" * 1200), flags="MF", ident=0x99)
    first = w.ip4_fix_csum(first)
    fr = dc_frame(first)
    add("dc2wan.frag.first", "first fragment of a large UDP datagram (UDP length covers the "
        "whole datagram)", "dc", [fr], out={"wan": [enc(fr, 0)]})
    fr = dc_frame(ip4("10.1.0.1", "10.3.0.5", Raw(b"n" * 400), proto=17, frag=150, ident=0x99))
    add("dc2wan.frag.later", "non-first fragment: no L4 header, hash ports zero", "dc", [fr],
        out={"wan": [enc(fr, 0)]})
    # Every fragment of one datagram takes one WAN path: the same outer UDP
    # source port (and IPv6 flow label), hashed without ports, so ECMP in
    # the WAN cannot reorder them. IPv4 to site-b and site-c, and IPv6
    # fragments (Fragment header) to site-c.
    def same_port(frames):
        ports = set()
        for f in frames:
            _, off = w.l2_split(f)
            l4 = off + (40 if f[off] >> 4 == 6 else 20)
            ports.add(f[l4:l4 + 2])
        return len(ports) == 1

    for label, peer, dst in (("in4.siteb", site_b, "10.2.0.5"), ("in4.sitec", site_c, "10.3.0.5")):
        frags = [dc_frame(raw(x)) for x in fragment(
            IP(src="10.1.0.1", dst=dst, id=0x77) / UDP(sport=4000, dport=4001) /
            Raw(b"d" * 2500), fragsize=1000)]
        exp = [enc(f, i, peer) for i, f in enumerate(frags)]
        assert len(frags) == 3 and same_port(exp)
        add("dc2wan.frag.same_path.%s" % label,
            "the 3 fragments of one UDP datagram leave with one outer source port",
            "dc", frags, out={"wan": exp})
    frags = [dc_frame(raw(x)) for x in fragment6(
        IPv6(src="fd00:1::1", dst="fd00:3::5") / IPv6ExtHdrFragment(id=0x77) /
        UDP(sport=4000, dport=4001) / Raw(b"d" * 2500), 1200)]
    exp = [enc(f, i, site_c) for i, f in enumerate(frags)]
    assert len(frags) == 3 and same_port(exp)
    add("dc2wan.frag.same_path.in6",
        "the 3 IPv6 fragments of one UDP datagram leave with one outer source port and "
        "flow label", "dc", frags, out={"wan": exp})


    # MTU (outer IP packet <= WAN mtu).
    mtu = wan.mtu
    for peer, remote, over in ((site_b, "10.2.0.5", 20 + 8 + 8 + 20),
                               (site_c, "10.3.0.5", 40 + 8 + 8 + 20)):
        fit = mtu - over  # largest inner IPv4 packet
        for size, ok in ((fit, True), (fit + 1, False)):
            fr = dc_frame(udp("10.1.0.1", remote, payload=b"m" * (size - 28)))
            add("dc2wan.mtu.%s.%d" % (peer.name, size),
                "inner %d bytes over the %s underlay (wan mtu %d)" % (size, underlay(peer), mtu),
                "dc", [fr], out={"wan": [enc(fr, 0, peer)]} if ok else None,
                drops=None if ok else {"mtu_exceeded": 1})

    # The peer's next hop has no neighbour entry: drop, and ARP for it on the WAN.
    add("dc2wan.neigh.unresolved", "site-d's next hop 192.0.2.4 is not resolved: the packet "
        "is dropped (counted once) and the gateway ARPs for the next hop", "dc",
        [dc_frame(udp("10.1.0.1", "10.4.0.5"))],
        out={"wan": [w.arp_request_from(wan, cfg.peers["site-d"].remote)]},
        drops={"neighbor_unresolved": 1},
        counters={"punted": 0, "resolve_requests": 1, "injected": 1, "l2 requests": 1})

    # Martian addresses from the DC are not forwarded into the tunnel
    # (RFC 1812 5.3.7, RFC 3927 7, RFC 4291 2.5), whatever the route says.
    martians = {
        "src": ("127.0.0.1", "0.0.0.0", "224.0.0.5", "255.255.255.255", "169.254.0.9",
                "240.0.0.1", "::1", "::", "ff02::1", "fe80::1"),
        "dst": ("127.0.0.1", "0.0.0.1", "224.0.0.5", "239.1.2.3", "255.255.255.255",
                "240.0.0.1", "169.254.0.9", "::1", "::", "fe80::1"),
    }
    for end, addrs in martians.items():
        for a in addrs:
            # The other end: a DC host, or a site-b host.
            other = ("fd00:1::1" if end == "dst" else "fd00:2::5") if ":" in a else \
                ("10.1.0.1" if end == "dst" else "10.2.0.5")
            src, dst = (a, other) if end == "src" else (other, a)
            add("dc2wan.martian.%s.%s" % (end, a.replace(":", "_")),
                "%s %s is a martian: not forwarded" % (end, a), "dc",
                [dc_frame(udp(src, dst))],
                drops={"martian_source" if end == "src" else "martian_destination": 1})


    add("dc2wan.no_route.v4", "no peer prefix for 10.9.0.1", "dc",
        [dc_frame(udp("10.1.0.1", "10.9.0.1"))], drops={"no_route": 1})
    add("dc2wan.no_route.v6", "no peer prefix for fd00:9::1", "dc",
        [dc_frame(udp("fd00:1::1", "fd00:9::1"))], drops={"no_route": 1})
    add("dc2wan.local.udp", "UDP to the DC port's own address has no handler", "dc",
        [dc_frame(udp("10.1.0.1", dc4))], drops={"local_unhandled": 1})

    # ======================================================================
    # WAN -> DC: decapsulation.
    back = [
        ("in4.siteb", site_b, "10.2.0.5", "10.1.0.1"),
        ("in4.sitec", site_c, "10.3.0.5", "10.1.0.2"),
        ("in6.siteb", site_b, "fd00:2::5", "fd00:1::1"),
        ("in6.sitec", site_c, "fd00:3::5", "fd00:1::1"),
    ]
    for label, peer, remote, local in back:
        for kind in ("write_only", "write_middle", "send_only", "ack", "nak", "cnp"):
            inner = roce_msg(kind, remote, local)
            add("wan2dc.roce.%s.%s" % (label, kind),
                "RoCE %s from %s over the %s underlay, decapsulated" %
                (kind, peer.name, underlay(peer)), "wan", [gen(peer, inner)],
                out={"dc": [dec(inner)]}, counters={"peer %s rx" % peer.name: 1})
        for kind, inner in (("udp", udp(remote, local)), ("tcp", tcp(remote, local)),
                            ("icmp_echo", icmp_echo(remote, local))):
            add("wan2dc.%s.%s" % (kind, label), "plain %s from %s" % (kind, peer.name), "wan",
                [gen(peer, inner)], out={"dc": [dec(inner)]})

    # RFC 6040 section 4.2, the whole table: IPv4 RoCE inner over site-b
    # (checksum update, ICRC unchanged) and IPv6 UDP inner over site-c.
    for inner_ecn, iname in w.ECN_NAMES.items():
        for outer_ecn, oname in w.ECN_NAMES.items():
            for peer, inner in (
                    (site_b, w.roce("10.2.0.5", "10.1.0.1", 0x0A, tos=(26 << 2) | inner_ecn,
                                    hdrs=w.reth(dma_len=64), payload=b"e" * 64)),
                    (site_c, udp("fd00:3::5", "fd00:1::1", tos=(12 << 2) | inner_ecn))):
                exp = dec(inner, outer_ecn)
                fam = "in6" if inner[0] >> 4 == 6 else "in4"
                add("wan2dc.rfc6040.%s.inner_%s.outer_%s" % (fam, iname, oname),
                    "RFC 6040 decap: inner %s, outer %s (%s inner from %s)" %
                    (iname, oname, fam, peer.name), "wan",
                    [gen(peer, inner, outer_ecn=outer_ecn, outer_dscp=34)],
                    out={"dc": [exp]} if exp else None,
                    drops=None if exp else {"ecn_ce_over_not_ect": 1})

    # GENEVE validation.
    inner = udp("10.2.0.5", "10.1.0.1")
    opt_unknown = struct.pack("!HBB", 0x0101, 0x05, 1) + b"\xaa\xbb\xcc\xdd"
    opt_critical = struct.pack("!HBB", 0x0101, 0x85, 1) + b"\xaa\xbb\xcc\xdd"
    add("wan2dc.geneve.unknown_peer", "GENEVE from 192.0.2.77, not a peer", "wan",
        [gen(site_b, inner, src="192.0.2.77")], drops={"unknown_peer": 1})
    add("wan2dc.geneve.unknown_peer6", "GENEVE from 2001:db8:ff::77, not a peer", "wan",
        [gen(site_c, inner, src="2001:db8:ff::77")], drops={"unknown_peer": 1})
    add("wan2dc.geneve.vni_mismatch", "site-b with site-c's VNI", "wan",
        [gen(site_b, inner, vni=site_c.vni)], drops={"vni_mismatch": 1})
    add("wan2dc.geneve.vni_mismatch6", "site-c with VNI 301", "wan",
        [gen(site_c, inner, vni=301)], drops={"vni_mismatch": 1})
    add("wan2dc.geneve.version1", "GENEVE version 1", "wan", [gen(site_b, inner, version=1)],
        drops={"geneve_bad_version": 1})
    add("wan2dc.geneve.oam", "O bit set", "wan", [gen(site_b, inner, oam=1)],
        drops={"geneve_oam": 1})
    add("wan2dc.geneve.critical_unknown", "unknown option with the critical type bit", "wan",
        [gen(site_b, inner, options=w.ls_option(0) + opt_critical, critical=1)],
        drops={"geneve_critical_option": 1})
    add("wan2dc.geneve.noncritical_unknown", "unknown non-critical option is skipped", "wan",
        [gen(site_b, inner, options=opt_unknown + w.ls_option(0) + opt_unknown)],
        out={"dc": [dec(inner)]}, counters={"peer site-b rx": 1})
    inner_c = udp("10.3.0.5", "10.1.0.1")  # a site-c source (source_check = strict)
    add("wan2dc.geneve.no_options", "GENEVE without any option is accepted", "wan",
        [gen(site_c, inner_c, options=b"")], out={"dc": [dec(inner_c)]},

        counters={"peer site-c rx": 1, "peer site-c gaps": 0})
    add("wan2dc.geneve.proto_ethernet", "protocol type 0x6558 (Ethernet)", "wan",
        [gen(site_b, raw(Ether(dst=dc.mac, src=h1_mac)) + inner, proto=0x6558)],
        drops={"geneve_bad_protocol": 1})
    add("wan2dc.geneve.proto_arp", "protocol type 0x0806", "wan",
        [gen(site_b, inner, proto=0x0806)], drops={"geneve_bad_protocol": 1})
    add("wan2dc.geneve.truncated_base", "UDP payload of 4 bytes", "wan",
        [wan_frame(ip4(site_b.remote, site_b.local,
                       UDP(sport=0xC001, dport=cfg.geneve_port, chksum=0) / Raw(b"\x05\x00\x08\x00")),
                   src_mac=cfg.wan_nexthop_mac(site_b))], drops={"geneve_truncated": 1})
    add("wan2dc.geneve.optlen_beyond_packet", "option length 31 words, few bytes follow", "wan",
        [gen(site_b, b"", options=w.ls_option(0), optlen=31, proto=w.ETH_IP4)],
        drops={"geneve_truncated": 1})
    bad_tlv = struct.pack("!HBB", 0x0101, 0x05, 6) + b"\x00" * 4  # says 28 bytes, has 8
    add("wan2dc.geneve.option_overruns", "option TLV longer than the options area", "wan",
        [gen(site_b, inner, options=bad_tlv)], drops={"geneve_truncated": 1})
    add("wan2dc.geneve.inner_bad_checksum", "inner IPv4 header checksum wrong", "wan",
        [gen(site_b, mod(inner, 10, b"\x00\x01", csum=False))], drops={"inner_invalid": 1})
    add("wan2dc.geneve.inner_truncated", "protocol IPv4, 10 bytes of inner packet", "wan",
        [gen(site_b, inner[:10], proto=w.ETH_IP4)], drops={"inner_invalid": 1})
    add("wan2dc.geneve.inner_version", "protocol IPv6 but an IPv4 inner header", "wan",
        [gen(site_c, inner, proto=w.ETH_IP6)], drops={"inner_invalid": 1})
    add("wan2dc.geneve.inner_udp_len", "inner UDP length beyond the inner packet", "wan",
        [gen(site_b, mod(inner, 24, b"\x04\x00"))], drops={"inner_invalid": 1})

    # Sequence tracking per (peer, worker).
    frs = [gen(site_b, udp("10.2.0.5", "10.1.0.1", sport=100 + s), seq=s) for s in
           (0, 1, 2, 5, 4)]
    add("wan2dc.seq.gap_and_reorder", "seq 0 1 2 5 4: two lost (3, 4 late), one reordered",
        "wan", frs, out={"dc": [dec(udp("10.2.0.5", "10.1.0.1", sport=100 + s))
                                for s in (0, 1, 2, 5, 4)]},
        counters={"peer site-b rx": 5, "peer site-b gaps": 2, "peer site-b reorder": 1,
                  "peer site-c rx": 0})
    order = [(site_b, 7, 0), (site_c, 100, 0), (site_b, 8, 0), (site_b, 50, 1),
             (site_c, 101, 0), (site_b, 51, 1), (site_b, 9, 0)]
    frs = [gen(p, udp("10.2.0.5" if p is site_b else "10.3.0.5", "10.1.0.1"), seq=s, worker=wk)
           for p, s, wk in order]
    add("wan2dc.seq.per_peer_worker", "interleaved peers and sender workers: no gap, no reorder",
        "wan", frs, out={"dc": [dec(udp("10.2.0.5" if p is site_b else "10.3.0.5", "10.1.0.1"))
                                for p, _, _ in order]},
        counters={"peer site-b rx": 5, "peer site-b gaps": 0, "peer site-b reorder": 0,
                  "peer site-c rx": 2, "peer site-c gaps": 0, "peer site-c reorder": 0})
    frs = [gen(site_c, udp("10.3.0.5", "10.1.0.1"), seq=s) for s in (0xFFFFFFFE, 0xFFFFFFFF, 0, 1)]
    add("wan2dc.seq.wrap", "sequence wraps from 2^32-1 to 0 without a gap", "wan", frs,
        out={"dc": [dec(udp("10.3.0.5", "10.1.0.1"))] * 4},
        counters={"peer site-c rx": 4, "peer site-c gaps": 0, "peer site-c reorder": 0})

    # A packet that crossed the WAN and was then dropped behind the tunnel
    # header was not lost on the WAN: "options are walked: the Longspan
    # option updates the sequence counters" comes before inner checks.
    frs = [gen(site_b, udp("10.2.0.5", "10.1.0.1", tos=w.NOT_ECT), seq=0),
           gen(site_b, udp("10.2.0.5", "10.1.0.1", tos=w.NOT_ECT), seq=1, outer_ecn=w.CE),
           gen(site_b, mod(udp("10.2.0.5", "10.1.0.1"), 10, b"\x00\x01", csum=False), seq=2),
           gen(site_b, udp("10.2.0.5", "10.1.0.1", tos=w.NOT_ECT), seq=3)]
    add("wan2dc.seq.dropped_inner_not_lost",
        "seq 0..3 where 1 (CE over Not-ECT) and 2 (inner invalid) are dropped after the "
        "option walk: no gap", "wan", frs,
        out={"dc": [dec(udp("10.2.0.5", "10.1.0.1"))] * 2},
        drops={"ecn_ce_over_not_ect": 1, "inner_invalid": 1},
        counters={"peer site-b gaps": 0, "peer site-b reorder": 0})
    inner_ttl1 = udp("10.2.0.5", "10.1.0.1", ttl=1)
    add("wan2dc.ttl_not_decremented", "decapsulation leaves the inner TTL alone (TTL 1 passes)",
        "wan", [gen(site_b, inner_ttl1)], out={"dc": [dec(inner_ttl1)]})
    inner_hl1 = udp("fd00:3::5", "fd00:1::1", ttl=1)
    add("wan2dc.hlim_not_decremented", "decapsulation leaves the inner hop limit alone", "wan",
        [gen(site_c, inner_hl1)], out={"dc": [dec(inner_hl1)]})

    # Addressing and delivery on the WAN port.
    add("wan2dc.not_for_us.geneve", "GENEVE from site-b to 192.0.2.99", "wan",
        [gen(site_b, inner, dst="192.0.2.99")], drops={"not_for_us": 1})
    add("wan2dc.not_for_us.udp", "plain UDP to 192.0.2.99", "wan",
        [wan_frame(udp(site_b.remote, "192.0.2.99"))], drops={"not_for_us": 1})
    add("wan2dc.not_tunnel.udp4", "plain UDP to the WAN address", "wan",
        [wan_frame(udp(site_b.remote, wan4))], drops={"wan_not_tunnel": 1})
    add("wan2dc.not_tunnel.tcp6", "TCP to the WAN IPv6 address", "wan",
        [wan_frame(tcp(site_c.remote, wan6), src_mac=cfg.wan_nexthop_mac(site_c))],
        drops={"wan_not_tunnel": 1})
    add("wan2dc.not_tunnel.udp_4791", "RoCEv2 straight to the WAN address, not tunnelled", "wan",
        [wan_frame(w.roce(site_b.remote, wan4, 0x04, payload=b"r" * 8))],
        drops={"wan_not_tunnel": 1})
    add("wan2dc.l2.other_mac", "GENEVE to another MAC", "wan",
        [gen(site_b, inner, dst_mac="02:00:00:00:0a:99")], drops={"l2_not_for_us": 1})
    tagged = gen(site_b, inner)
    tagged = tagged[:12] + struct.pack("!HH", w.ETH_VLAN, 7) + tagged[12:]
    add("wan2dc.l2.vlan_mismatch", "VID 7 on the untagged WAN port", "wan", [tagged],
        drops={"vlan_mismatch": 1})
    add("wan2dc.outer.bad_checksum", "outer IPv4 checksum wrong", "wan",
        [(lambda f: f[:24] + b"\x12\x34" + f[26:])(gen(site_b, inner))],
        drops={"ipv4_bad_checksum": 1})
    f = bytearray(gen(site_b, inner))
    f[14 + 20 + 4:14 + 20 + 6] = struct.pack("!H", len(f) - 14 - 20 + 1)  # outer UDP length
    add("wan2dc.outer.udp_len", "outer UDP length beyond the IP packet", "wan", [bytes(f)],
        drops={"udp_bad_length": 1})
    add("wan2dc.no_route", "inner destination outside the DC subnet, no DC gateway", "wan",
        [gen(site_b, udp("10.2.0.5", "10.7.0.1"))], drops={"no_route": 1})

    # Next hop without a neighbour entry: drop, and resolve it (ARP / NS).
    add("wan2dc.neigh.unresolved4", "inner 10.1.0.99 has no neighbour: drop and ARP for it",
        "wan", [gen(site_b, udp("10.2.0.5", "10.1.0.99"))],
        out={"dc": [w.arp_request_from(dc, "10.1.0.99")]},
        drops={"neighbor_unresolved": 1},
        counters={"punted": 0, "resolve_requests": 1, "injected": 1, "l2 requests": 1})
    add("wan2dc.neigh.unresolved6", "inner fd00:1::99 has no neighbour: drop and solicit it",
        "wan", [gen(site_c, udp("fd00:3::5", "fd00:1::99"))],
        out={"dc": [(w.ns_from(dc, "fd00:1::99", dc.ll6), w.ns_from(dc, "fd00:1::99", dc6))]},
        drops={"neighbor_unresolved": 1},
        counters={"punted": 0, "resolve_requests": 1, "injected": 1, "l2 requests": 1})

    frs = [gen(site_b, udp("10.2.0.5", "10.1.0.99", sport=s)) for s in (1, 2, 3)]
    add("wan2dc.neigh.unresolved_rate_limited",
        "three packets to one unresolved host: three drops, one ARP request "
        "(RFC 1122 2.3.2.1: at most one per second per address)", "wan", frs,
        out={"dc": [w.arp_request_from(dc, "10.1.0.99")]},
        drops={"neighbor_unresolved": 3},
        counters={"punted": 0, "resolve_requests": 3, "l2 requests": 1})

    # The DC address is the gateway's own: nothing to resolve, nobody to forward to.
    add("wan2dc.inner_to_gateway", "tunnelled packet to the DC port's own address: "
        "local_unhandled, and no ARP request for the gateway's own address", "wan",
        [gen(site_b, udp("10.2.0.5", dc4))], drops={"local_unhandled": 1},
        counters={"l2 requests": 0})

    # Inner addresses after decapsulation: martians are dropped, and so is a
    # source the peer may not use: inside the DC subnet (the receiving site's
    # own), or, with source_check = strict (site-b, site-c), outside the
    # peer's prefixes by longest match. site-d has source_check = loose.
    d_mac = "02:00:00:00:0d:02"
    inner_cases = [
        ("martian_src4", site_b, udp("127.0.0.1", "10.1.0.1"), "martian_source"),
        ("martian_src4_bcast", site_b, udp("255.255.255.255", "10.1.0.1"), "martian_source"),
        ("martian_src6", site_c, udp("fe80::1", "fd00:1::1"), "martian_source"),
        ("martian_src6_mcast", site_c, udp("ff02::1", "fd00:1::1"), "martian_source"),
        ("martian_dst4", site_b, udp("10.2.0.5", "255.255.255.255"), "martian_destination"),
        ("martian_dst4_mcast", site_b, udp("10.2.0.5", "224.0.0.5"), "martian_destination"),
        ("martian_dst6", site_c, udp("fd00:3::5", "ff02::1"), "martian_destination"),
        ("martian_dst6_loopback", site_c, udp("fd00:3::5", "::1"), "martian_destination"),
        ("spoof.dc_subnet4", site_b, udp("10.1.0.7", "10.1.0.1"), "inner_source_spoofed"),
        ("spoof.dc_subnet6", site_c, udp("fd00:1::7", "fd00:1::1"), "inner_source_spoofed"),
        ("spoof.other_peer4", site_b, udp("10.3.0.5", "10.1.0.1"), "inner_source_spoofed"),
        ("spoof.other_peer6", site_b, udp("fd00:3::5", "fd00:1::1"), "inner_source_spoofed"),
        ("spoof.nested", site_b, udp("10.2.5.9", "10.1.0.1"), "inner_source_spoofed"),
        ("spoof.no_prefix", site_c, udp("10.9.0.1", "10.1.0.1"), "inner_source_spoofed"),
    ]
    for label, peer, inner, reason in inner_cases:
        add("wan2dc.inner.%s" % label, "from %s, inner %s -> %s: %s" % (
            peer.name, *[str(ipaddress.ip_address(a)) for a in w.ip_addrs(inner)], reason),
            "wan", [gen(peer, inner)], drops={reason: 1}, counters={"peer %s rx" % peer.name: 0})
    # The longest match decides: 10.2.5.0/24 inside site-b's 10.2.0.0/16 is site-c's.
    inner = udp("10.2.5.9", "10.1.0.1")
    add("wan2dc.inner.nested_from_owner", "10.2.5.9 from site-c, whose 10.2.5.0/24 is the "
        "longest match: forwarded", "wan", [gen(site_c, inner)], out={"dc": [dec(inner)]},
        counters={"peer site-c rx": 1})
    # source_check = loose (site-d): another site's source passes, martians and
    # the DC subnet still do not.
    inner = udp("10.3.0.5", "10.1.0.1")
    add("wan2dc.inner.loose.other_site", "site-d (loose) relays 10.3.0.5, a site-c source: "
        "forwarded", "wan", [gen(cfg.peers["site-d"], inner, src_mac=d_mac)],
        out={"dc": [dec(inner)]}, counters={"peer site-d rx": 1})
    for label, inner, reason in (("dc_subnet", udp("10.1.0.7", "10.1.0.1"), "inner_source_spoofed"),
                                 ("martian", udp("0.0.0.0", "10.1.0.1"), "martian_source")):
        add("wan2dc.inner.loose.%s" % label, "site-d (loose), inner %s: %s" % (
            label, reason), "wan", [gen(cfg.peers["site-d"], inner, src_mac=d_mac)],
            drops={reason: 1})

    # The outer UDP checksum policy per peer (docs/wire-format.md): site-b and
    # site-c verify a non-zero checksum and site-c drops a zero one over IPv6
    # (the defaults); site-d (IPv4) and site-e (IPv6) ignore non-zero ones
    # and site-e accepts zero ones.
    def outer_csum(frame, how):
        """The tunnel frame with its outer UDP checksum right, wrong or zero."""
        _, off = w.l2_split(frame)
        ip = frame[off:]
        if ip[0] >> 4 == 6:
            good = w.udp6_csum(ip)
            l4 = off + 40
        else:
            ihl = (ip[0] & 0x0F) * 4
            ulen = struct.unpack("!H", ip[ihl + 4:ihl + 6])[0]
            udp = bytearray(ip[ihl:ihl + ulen])
            udp[6:8] = b"\x00\x00"
            good = w.inet_csum(ip[12:20] + struct.pack("!xBH", 17, ulen) + bytes(udp)) or 0xFFFF
            l4 = off + ihl
        val = {"good": good, "wrong": good ^ 0x5A5A or 1, "zero": 0}[how]
        return frame[:l4 + 6] + struct.pack("!H", val) + frame[l4 + 8:]

    site_d, site_e = cfg.peers["site-d"], cfg.peers["site-e"]
    e_mac = "02:00:00:00:0e:02"
    csum_cases = [
        ("v4_good", site_b, "10.2.0.5", None, "good", None),
        ("v4_wrong", site_b, "10.2.0.5", None, "wrong", "udp_bad_checksum"),
        ("v4_wrong_ignored", site_d, "10.4.0.5", d_mac, "wrong", None),
        ("v6_good", site_c, "10.3.0.5", None, "good", None),
        ("v6_wrong", site_c, "10.3.0.5", None, "wrong", "udp_bad_checksum"),
        ("v6_zero", site_c, "10.3.0.5", None, "zero", "udp_zero_checksum6"),
        ("v6_zero_accepted", site_e, "10.5.0.5", e_mac, "zero", None),
        ("v6_wrong_ignored", site_e, "10.5.0.5", e_mac, "wrong", None),
    ]
    for label, peer, src, smac, how, reason in csum_cases:
        inner = udp(src, "10.1.0.1", payload=b"checksum " * 20)
        fr = outer_csum(gen(peer, inner, src_mac=smac), how)
        add("wan2dc.csum.%s" % label, "outer UDP checksum %s from %s (udp_checksum %s, "
            "ipv6_zero_checksum %s): %s" % (
                how, peer.name, "ignore" if peer in (site_d, site_e) else "verify",
                "accept" if peer is site_e else "drop", reason or "forwarded"),
            "wan", [fr], out=None if reason else {"dc": [dec(inner)]},
            drops={reason: 1} if reason else None)

    # ======================================================================
    # Answered by the gateway itself (control thread).


    def arp_req(port, sha, spa, tpa):
        return w.pad60(raw(Ether(dst="ff:ff:ff:ff:ff:ff", src=sha) /
                           ARP(op=1, hwsrc=sha, psrc=spa, hwdst="00:00:00:00:00:00", pdst=tpa)))

    host7 = "02:00:00:00:01:07"
    add("l2.arp.dc", "ARP request for the DC address", "dc",
        [arp_req(dc, host7, "10.1.0.7", dc4)], out={"dc": [w.arp_reply_for(dc, host7, "10.1.0.7")]},
        counters={"punted": 1, "injected": 1, "l2 arp_replies": 1})
    peer_mac = cfg.wan_nexthop_mac(site_b)
    add("l2.arp.wan", "ARP request for the WAN address", "wan",
        [arp_req(wan, peer_mac, site_b.remote, wan4)],
        out={"wan": [w.arp_reply_for(wan, peer_mac, site_b.remote)]},
        counters={"punted": 1, "injected": 1, "l2 arp_replies": 1})
    add("l2.arp.unicast", "unicast ARP request for the DC address", "dc",
        [w.pad60(raw(Ether(dst=dc.mac, src=host7) /
                     ARP(op=1, hwsrc=host7, psrc="10.1.0.7", pdst=dc4)))],
        out={"dc": [w.arp_reply_for(dc, host7, "10.1.0.7")]}, counters={"l2 arp_replies": 1})
    add("l2.arp.static_not_learned", "gratuitous ARP claiming a static neighbour's address "
        "from another MAC: the static entry stays, nothing is learned", "dc",
        [arp_req(dc, "02:00:00:00:01:66", "10.1.0.1", "10.1.0.1")],
        counters={"l2 learned": 0, "l2 arp_replies": 0})
    add("l2.arp.other_target", "ARP request for another host is not answered", "dc",
        [arp_req(dc, host7, "10.1.0.7", "10.1.0.77")], counters={"l2 arp_replies": 0})

    def ns(port, src_mac, src_ip, target, dst_ip=None):
        sn, mc = w.solicited_node(target)
        opt = ICMPv6NDOptSrcLLAddr(lladdr=src_mac) if src_ip != "::" else Raw(b"")
        return raw(Ether(dst=mc, src=src_mac) / IPv6(src=src_ip, dst=dst_ip or sn, hlim=255) /
                   ICMPv6ND_NS(tgt=target) / opt)

    h7_6 = "fd00:1::7"
    add("l2.nd.dc_global", "NS for the DC global address", "dc",
        [ns(dc, host7, h7_6, dc6)], out={"dc": [w.na_from(dc, dc6, h7_6, host7)]},
        counters={"punted": 1, "injected": 1, "l2 nd_adverts": 1})
    add("l2.nd.dc_link_local", "NS for the DC link-local address", "dc",
        [ns(dc, host7, "fe80::7", dc.ll6)], out={"dc": [w.na_from(dc, dc.ll6, "fe80::7", host7)]},
        counters={"l2 nd_adverts": 1})
    add("l2.nd.wan_global", "NS for the WAN address from site-c", "wan",
        [ns(wan, cfg.wan_nexthop_mac(site_c), site_c.remote, wan6)],
        out={"wan": [w.na_from(wan, wan6, site_c.remote, cfg.wan_nexthop_mac(site_c))]},
        counters={"l2 nd_adverts": 1})
    add("l2.nd.dad", "DAD probe (source ::) for the DC address: NA to all-nodes, S clear", "dc",
        [ns(dc, host7, "::", dc6)],
        out={"dc": [w.na_from(dc, dc6, "ff02::1", "33:33:00:00:00:01", solicited=False)]},
        counters={"l2 nd_adverts": 1})
    add("l2.nd.unicast_nud", "unicast NS (neighbour unreachability detection) for the DC "
        "address", "dc", [raw(Ether(dst=dc.mac, src=host7) / IPv6(src=h7_6, dst=dc6, hlim=255) /
                              ICMPv6ND_NS(tgt=dc6) / ICMPv6NDOptSrcLLAddr(lladdr=host7))],
        out={"dc": [w.na_from(dc, dc6, h7_6, host7)]}, counters={"l2 nd_adverts": 1})
    add("l2.nd.other_target", "NS for another address is not answered", "dc",
        [ns(dc, host7, h7_6, "fd00:1::77")], counters={"l2 nd_adverts": 0})

    nsf = bytearray(ns(dc, host7, h7_6, dc6))
    nsf[14 + 7] = 64  # hop limit: RFC 4861 7.1.1 wants 255
    add("l2.nd.hop_limit_64", "NS with hop limit 64 is not answered (RFC 4861 7.1.1)", "dc",
        [bytes(nsf)], counters={"l2 nd_adverts": 0})
    bad_echo = bytearray(dc_frame(icmp_echo("10.1.0.1", dc4)))
    bad_echo[14 + 20 + 2] ^= 0xFF  # ICMP checksum
    add("l2.echo.bad_checksum", "echo request with a wrong ICMP checksum is not answered", "dc",
        [bytes(bad_echo)], counters={"l2 echo_replies": 0})
    req = dc_frame(icmp_echo("10.1.0.1", dc4, payload=b"hi"))
    add("l2.echo.dc4", "ICMP echo to the DC address (padded frame)", "dc", [req],
        out={"dc": [w.echo_reply_for(dc, req)]},
        counters={"punted": 1, "injected": 1, "l2 echo_replies": 1})
    req = dc_frame(icmp_echo("fd00:1::1", dc6))
    add("l2.echo.dc6", "ICMPv6 echo to the DC address", "dc", [req],
        out={"dc": [w.echo_reply_for(dc, req)]}, counters={"l2 echo_replies": 1})
    req = dc_frame(icmp_echo("fe80::1:1", dc.ll6))
    add("l2.echo.dc6_link_local", "ICMPv6 echo to the DC link-local address", "dc", [req],
        out={"dc": [w.echo_reply_for(dc, req)]}, counters={"l2 echo_replies": 1})
    req = wan_frame(icmp_echo(site_b.remote, wan4))
    add("l2.echo.wan4", "ICMP echo to the WAN address", "wan", [req],
        out={"wan": [w.echo_reply_for(wan, req)]}, counters={"l2 echo_replies": 1})
    req = wan_frame(icmp_echo(site_c.remote, wan6), src_mac=cfg.wan_nexthop_mac(site_c))
    add("l2.echo.wan6", "ICMPv6 echo to the WAN address", "wan", [req],
        out={"wan": [w.echo_reply_for(wan, req)]}, counters={"l2 echo_replies": 1})
    return cases


def case_api():
    """What fx_tm.py builds its cases with (passed in: this file runs as __main__)."""
    return SimpleNamespace(Case=Case, Step=Step, Pred=Pred, at_least=at_least)


def build_tm_cases(cfg):
    import fx_tm
    return fx_tm.build_tm_cases(cfg, make_builders(cfg), case_api())


def build_sojourn_cases(cfg):
    import fx_tm
    return fx_tm.build_sojourn_cases(cfg, make_builders(cfg), case_api())


def build_absorb_cases(cfg):
    import fx_tm
    return fx_tm.build_absorb_cases(cfg, make_builders(cfg), case_api())


# --group: the case list written for each fixture config.
GROUPS = {"base": build_cases, "tm": build_tm_cases, "sojourn": build_sojourn_cases,
          "absorb": build_absorb_cases}


def mac_b(mac):
    return bytes(int(x, 16) for x in mac.split(":"))


# --------------------------------------------------------------------------
# Checking one case.

def parse_result(path):
    """
    result.txt as a flat dict: 'drop REASON', 'punted', 'peer NAME tx', 'l2 KEY',
    'tm PORT CLASS KEY', 'mech KEY', 'learn RESULT src|dst', 'queued', ...
    'learn' lines are written only when non-zero: read them with counter().
    """
    res = {}
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            if t[0] == "drop":
                res["drop " + t[1]] = int(t[2])
            elif t[0] == "peer":
                for k, v in zip(t[2::2], t[3::2]):
                    res["peer %s %s" % (t[1], k)] = int(v)
            elif t[0] in ("l2", "mech"):
                for k, v in zip(t[1::2], t[2::2]):
                    res[t[0] + " " + k] = int(v)
            elif t[0] == "tm":  # tm PORT CLASS key value ...
                for k, v in zip(t[3::2], t[4::2]):
                    res["tm %s %s %s" % (t[1], t[2], k)] = int(v)
            elif t[0] == "learn":  # learn RESULT src N dst N
                for k, v in zip(t[2::2], t[3::2]):
                    res["learn %s %s" % (t[1], k)] = int(v)
            elif len(t) == 2:
                res[t[0]] = int(t[1])
    return res


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def frame_diff(exp, got):
    off = first_diff(exp, got)
    lines = ["    lengths: expected %d, got %d; first differing byte at offset %d "
             "(expected %s, got %s)" % (len(exp), len(got), off,
                                        "%02x" % exp[off] if off < len(exp) else "end",
                                        "%02x" % got[off] if off < len(got) else "end")]
    lo = max(0, off - 8)
    lines.append("    expected[%d:]: %s" % (lo, exp[lo:off + 16].hex(" ")))
    lines.append("    got     [%d:]: %s" % (lo, got[lo:off + 16].hex(" ")))
    e, g = w.describe(exp).splitlines(), w.describe(got).splitlines()
    lines.append("    --- expected (scapy) ---" + " " * 22 + "| --- got (scapy) ---")
    for i in range(max(len(e), len(g))):
        a = e[i] if i < len(e) else ""
        b = g[i] if i < len(g) else ""
        mark = " " if a == b else "*"
        lines.append("   %s %-46.46s | %s" % (mark, a, b[:60]))
    return "\n".join(lines)


def roce_packets(frame):
    """Every RoCEv2 IP packet in a frame: plain, or inside GENEVE."""
    out = []
    try:
        et, off = w.l2_split(frame)
        if et not in (w.ETH_IP4, w.ETH_IP6):
            return out
        ip = w.ip_trim(frame[off:])
        if w.roce_inner(ip):
            out.append(ip)
            return out
        proto, l4 = w.ip_l4(ip)
        if proto == 17 and l4 is not None and struct.unpack("!H", ip[l4 + 2:l4 + 4])[0] == \
                w.GENEVE_PORT:
            g = l4 + 8
            inner = ip[g + 8 + (ip[g] & 0x3F) * 4:]
            if inner and w.roce_inner(inner):
                out.append(w.ip_trim(inner))
    except (IndexError, struct.error):
        pass
    return out


def check_roce(frame):
    """Problems with the RoCE packets a frame carries (ICRC, scapy's view)."""
    problems = []
    for ip in roce_packets(frame):
        if ip[-4:] != w.icrc(ip):
            problems.append("ICRC %s, expected %s" % (ip[-4:].hex(), w.icrc(ip).hex()))
        p = IP(ip) if ip[0] >> 4 == 4 else IPv6(ip)
        bth = p.getlayer(w.BTH)
        if bth is None:
            problems.append("scapy finds no BTH")
            continue
        if bth.opcode == 0x11 and p.getlayer(w.AETH) is None:
            problems.append("scapy finds no AETH in an ACK")
        if bth.opcode == 0x81 and (bth.becn != 1 or bth.pkey != 0xFFFF):
            problems.append("CNP without BECN or P_Key 0xFFFF")
        if bth.opcode == 0x81:
            pad = p.getlayer(w.CNPPadding)
            if pad is None or pad.reserved1 or pad.reserved2 or len(ip) != \
                    (20 if ip[0] >> 4 == 4 else 40) + 8 + 12 + 16 + 4:
                problems.append("CNP: scapy finds no 16 reserved zero bytes then the ICRC")
        if ip[0] >> 4 == 4:
            q = IP(ip)
            q[w.BTH].icrc = None
            if raw(q)[-4:] != ip[-4:]:
                problems.append("scapy computes ICRC %s, packet has %s" %
                                (raw(q)[-4:].hex(), ip[-4:].hex()))
    return problems


def counter(res, key):
    """A result.txt value; 'learn' lines are only written when non-zero."""
    if key.startswith("learn ") and key not in res:
        return 0
    return res.get(key)


def check_counters(res, counters):
    fails = []
    for k, v in counters.items():
        got = counter(res, k)
        if not (v(got) if isinstance(v, Pred) else got == v):
            fails.append("counter '%s' = %s, expected %s" % (k, got, v))
    return fails


def check_cnps_tshark(items):
    """
    {label: problems} for the plain (not tunnelled) CNPs among (label, frame)
    items that tshark does not dissect as an InfiniBand BTH with opcode 129,
    P_Key 0xFFFF, PSN 0 and the DestQP the bytes carry.
    """
    cnps = []
    for label, fr in items:
        if "GENERATOR" in label[1]:
            continue
        et, off = w.l2_split(fr)
        if et not in (w.ETH_IP4, w.ETH_IP6):
            continue
        ip = w.ip_trim(fr[off:])
        if not w.roce_inner(ip):
            continue
        bth = ip[w.ip_l4(ip)[1] + 8:]
        if bth[0] == 0x81:
            cnps.append((label, fr, int.from_bytes(bth[5:8], "big")))
    fields = ["frame.protocols", "infiniband.bth.opcode", "infiniband.bth.p_key",
              "infiniband.bth.destqp", "infiniband.bth.psn"]
    out = {}
    for (label, _, dqpn), got in zip(cnps, tshark_check.frame_fields([f for _, f, _ in cnps],
                                                                     fields)):
        want = {"infiniband.bth.opcode": "129", "infiniband.bth.p_key": "65535",
                "infiniband.bth.destqp": "0x%06x" % dqpn, "infiniband.bth.psn": "0"}
        probs = ["%s = %r, expected %r" % (k, got.get(k), v) for k, v in want.items()
                 if got.get(k) != v]
        if not got.get("frame.protocols", "").endswith(":udp:infiniband"):
            probs.append("protocols %r: not dissected as InfiniBand" %
                         got.get("frame.protocols"))
        if probs:
            out.setdefault(label, []).append("CNP: " + "; ".join(probs))
    return out


def check_case(case, cfg, work):
    """(failure messages, emitted (label, frame) pairs); no failure = pass."""
    fails = []
    results, got_frames = [], []
    for i, st in enumerate(case.steps):
        sdir = os.path.join(step_dir(work, case, i), "out")
        rpath = os.path.join(sdir, "result.txt")
        if not os.path.exists(rpath):
            return fails + ["no result.txt%s: the harness did not run this case" %
                            (" for step %d" % i if case.multi else "")], []
        results.append(parse_result(rpath))
        got_frames.append({port: pcap_read(os.path.join(sdir, port + ".pcap"))
                           if os.path.exists(os.path.join(sdir, port + ".pcap")) else []
                           for port in cfg.port_order})
    fails += check_accounting(case, results, got_frames)
    outs = [st.out for st in case.steps]
    if case.plan is not None:
        outs, problems = case.plan(got_frames, results)
        fails += ["plan: " + p for p in problems]
    emitted = []  # (label, frame) for the one tshark run over everything
    if case.plan is not None:
        # Frames planned after the run skip the generator check: do it here.
        emitted += [((case.name, "GENERATOR, expected step %d port %s frame %d" % (i, port, j)),
                     f[0] if isinstance(f, tuple) else f)
                    for i, o in enumerate(outs) for port, fs in o.items()
                    for j, f in enumerate(fs)]
    for i, (st, res, got_ports, exp_ports) in enumerate(zip(case.steps, results, got_frames,
                                                            outs)):
        pre = "step %d: " % i if case.multi else ""
        sf = []
        if res.get("input") != len(st.inputs):
            sf.append("input %s, expected %d" % (res.get("input"), len(st.inputs)))
        if res.get("mbuf_leak") != 0:
            sf.append("mbuf_leak %s, expected 0" % res.get("mbuf_leak"))
        got_drops = {k[5:]: v for k, v in res.items() if k.startswith("drop ")}
        if got_drops != st.drops:
            sf.append("drops %s, expected %s" % (fmt_drops(got_drops), fmt_drops(st.drops)))
        sf += check_counters(res, st.counters)
        if st.check is not None:
            sf += st.check(res)
        for port in cfg.port_order:
            got = got_ports[port]
            exp = exp_ports.get(port, [])
            where = (pre + "port %s frame %%d" % port)
            emitted += [((case.name, where % j), g) for j, g in enumerate(got)]
            if len(got) != len(exp):
                sf.append("port %s: %d frame(s), expected %d" % (port, len(got), len(exp)))
            for j, (e, g) in enumerate(zip(exp, got)):
                alts = e if isinstance(e, tuple) else (e,)
                if g not in alts:
                    sf.append("port %s frame %d differs:\n%s" % (port, j, frame_diff(alts[0], g)))
            for j, g in enumerate(got):
                for p in check_roce(g):
                    sf.append("port %s frame %d RoCE: %s" % (port, j, p))
            for j, g in enumerate(got[len(exp):]):
                sf.append("port %s unexpected frame %d:\n%s" %
                          (port, len(exp) + j, "\n".join("    " + l for l in
                                                          w.describe(g).splitlines()[:40])))
        fails += [pre + f for f in sf]
    return fails, emitted


def check_accounting(case, results, got_frames):
    """
    Every packet counted exactly once, after every step (counters add up
    over a case's steps): the packets the ports received are the ones fed
    in, and each of them was forwarded, dropped under one reason, punted to
    the control thread, or is still queued (WAN traffic manager, mechanism
    C hold); what the ports sent is the forwarded packets plus the ones the
    gateway built itself (mechanism A CNPs, control-thread injects). A
    case ends with nothing queued.
    """
    fails = []
    fed = sent = 0
    for i, (st, res, got) in enumerate(zip(case.steps, results, got_frames)):
        pre = "step %d: " % i if case.multi else ""
        fed += len(st.inputs)
        sent += sum(len(v) for v in got.values())
        own = (res.get("mech cnp_sent") or 0) + (res.get("injected") or 0)
        drops = sum(v for k, v in res.items() if k.startswith("drop "))
        forwarded = sent - own
        if res.get("rx") != fed:
            fails.append(pre + "rx %s, expected the %d frame(s) fed in" % (res.get("rx"), fed))
        if res.get("tx") != sent:
            fails.append(pre + "tx %s, expected the %d frame(s) the ports sent" %
                         (res.get("tx"), sent))
        total = forwarded + drops + (res.get("punted") or 0) + (res.get("queued") or 0)
        if res.get("forwarded") != forwarded:
            fails.append(pre + "forwarded %s, expected %d (sent %d, of them %d built by the "
                         "gateway)" % (res.get("forwarded"), forwarded, sent, own))
        if res.get("own_tx") != own or res.get("own_tx_failed") != 0:
            fails.append(pre + "own_tx %s own_tx_failed %s, expected %d and 0 (cnp_sent + "
                         "injected)" % (res.get("own_tx"), res.get("own_tx_failed"), own))
        if res.get("rx") != total:
            fails.append(pre + "accounting: rx %s != forwarded %d + drops %d + punted %s + "
                         "queued %s = %d (sent %d, of them %d built by the gateway)" %
                         (res.get("rx"), forwarded, drops, res.get("punted"),
                          res.get("queued"), total, sent, own))
    if results and results[-1].get("queued") != 0:
        fails.append("queued %s at the end of the case, expected 0" % results[-1].get("queued"))
    return fails


def fmt_drops(d):
    return "{" + ", ".join("%s: %d" % kv for kv in sorted(d.items())) + "}" if d else "none"


# --------------------------------------------------------------------------
# Self-test: the checks themselves must be able to fail.

def self_test(cfg):
    fails = []
    if w.crc32c(b"123456789", 0xFFFFFFFF) ^ 0xFFFFFFFF != 0xE3069283:
        fails.append("crc32c does not match the CRC-32C check value")
    ip = w.roce("10.1.0.1", "10.2.0.5", 0x0A, hdrs=w.reth(), payload=b"z" * 40)
    q = IP(ip)
    q[w.BTH].icrc = None
    if raw(q)[-4:] != w.icrc(ip):
        fails.append("icrc() disagrees with scapy over IPv4")
    for peer in (cfg.peers["site-b"], cfg.peers["site-c"]):
        good = w.encap(cfg, peer, ip, 0)
        if check_roce(good):
            fails.append("check_roce flags a good frame: %s" % check_roce(good))
        bad = good[:-1] + bytes([good[-1] ^ 1])
        if not check_roce(bad):
            fails.append("check_roce misses a wrong ICRC inside GENEVE (%s)" % peer.name)
        # The ICRC masks ECN and TTL: CE marking and TTL decrement keep it valid.
        _, off = w.l2_split(good)
        ioff = off + (40 if good[off] >> 4 == 6 else 20) + 8 + 8 + 20
        marked = good[:ioff] + w.ip_dec_ttl(w.ip_set_tos(good[ioff:], w.ip_tos(ip) | w.CE))
        if check_roce(marked):
            fails.append("check_roce: CE mark or TTL change flagged: %s" % check_roce(marked))
        payload_changed = bytearray(good)
        payload_changed[-10] ^= 0x20
        if not check_roce(bytes(payload_changed)):
            fails.append("check_roce misses a payload change (%s)" % peer.name)
        if good == bad or first_diff(good, bad) != len(good) - 1:
            fails.append("first_diff is wrong")
    six = w.roce("fd00:1::1", "fd00:3::5", 0x04, payload=b"s" * 8, tos=w.ECT0)
    if check_roce(w.dc_frame_for(cfg, w.ip_set_tos(
            w.roce("fd00:3::5", "fd00:1::1", 0x04, payload=b"s" * 8), 0x03))):
        fails.append("ECN change broke an IPv6 ICRC (mask wrong)")
    if six[-4:] != w.icrc(six):
        fails.append("IPv6 ICRC not stable")
    # Gateway CNPs: scapy's view, and the tshark CNP check must be able to fail.
    cnps = {fam: w.gateway_cnp(cfg, snd, rcv, 0x00BEEF, 0xE123)
            for fam, snd, rcv in (("4", "10.1.0.1", "10.2.0.5"), ("6", "fd00:1::1", "fd00:2::5"))}
    for fam, fr in cnps.items():
        if check_roce(fr):
            fails.append("check_roce flags a good IPv%s CNP: %s" % (fam, check_roce(fr)))
        if len(w.ip_trim(fr[14:])) != (20 if fam == "4" else 40) + 8 + 12 + 16 + 4:
            fails.append("IPv%s CNP has the wrong length" % fam)
    bad_pkey = bytearray(cnps["4"])
    bad_pkey[14 + 20 + 8 + 2] = 0x7F  # P_Key 0x7FFF; ICRC fixed so only tshark can object
    bad_pkey = bad_pkey[:14] + w.with_icrc(bytes(bad_pkey[14:]))
    flagged = check_cnps_tshark([(("good4", "f"), cnps["4"]), (("good6", "f"), cnps["6"]),
                                 (("bad", "f"), bytes(bad_pkey))])
    if set(flagged) != {("bad", "f")}:
        fails.append("check_cnps_tshark flagged %s, expected only the P_Key 0x7FFF CNP" %
                     sorted(flagged))
    for f in fails:
        print("self-test: " + f)
    print("self-test: %s" % ("FAILED" if fails else "ok"))
    return 1 if fails else 0


# --------------------------------------------------------------------------
# Driver.

# Sections --set may change: the ones a config has once.
SET_SECTIONS = ("gateway", "congestion")


def parse_set(arg):
    """--set SECTION.KEY=VALUE as (section, key, value)."""
    return set_arg(arg, SET_SECTIONS)


def derived_config(path, sets, work):
    """
    A copy of the config at path in work with each (section, key, value) of
    sets written (scripts/ini_text.py: a key the section has is replaced in
    place, any other is added at the section's end).
    """
    with open(path) as f:
        text = f.read()
    for section, key, value in sets:
        text = ini_set(text, section, key, value)
    dst = os.path.join(work, "harness-" + os.path.basename(path))
    with open(dst, "w") as f:
        f.write(text)
    return dst


# What the P4 program does differently from the C path (docs/p4.md, "What p4
# mode cannot do"), per case: (failure regex, why). Strict, as xfail: a listed
# case that passes fails, so the entry goes with the fix.
P4_DIFFERS = {
    "wan2dc.geneve.critical_unknown": (
        r"geneve_bad_protocol",
        "p4 mode: the SWX parser takes one 20-byte option in the Longspan option's place; an "
        "other option is not walked, so the packet has no inner header: geneve_bad_protocol, "
        "not geneve_critical_option"),
    "wan2dc.geneve.noncritical_unknown": (
        r"geneve_bad_protocol|peer site-b rx|port dc",
        "p4 mode: an unknown non-critical option is not skipped (one option of 20 bytes only)"),
    "wan2dc.geneve.option_overruns": (
        r"geneve_bad_protocol",
        "p4 mode: options are not walked, so an option TLV longer than the options area is not "
        "seen: geneve_bad_protocol, not geneve_truncated"),
    "wan2dc.csum.v4_wrong": (
        r"udp_bad_checksum|port dc",
        "p4 mode: outer UDP checksums are not verified (SWX cannot sum a payload): p4 mode acts "
        "as udp_checksum = ignore"),
    "wan2dc.csum.v6_wrong": (
        r"udp_bad_checksum|port dc",
        "p4 mode: outer UDP checksums are not verified over IPv6 either (a zero one is dropped "
        "as the peer's ipv6_zero_checksum says)"),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--harness", help="path of dp_fixture")
    ap.add_argument("--config", default=os.path.join(HERE, "fixture.conf"))
    ap.add_argument("--group", default="base", choices=sorted(GROUPS),
                    help="case group written for the config (base: fixture.conf, tm: "
                    "fixture-tm.conf, sojourn: fixture-sojourn.conf, absorb: "
                    "fixture-tm.conf with --set congestion.cnp_forward=no)")
    ap.add_argument("--workdir", default=os.path.join(os.getcwd(), "dp-fixtures"))
    ap.add_argument("--only", help="run the cases whose name matches this regex")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--generate-only", action="store_true",
                    help="write inputs and expected pcaps, check them with tshark, stop")
    ap.add_argument("--self-test", action="store_true",
                    help="check the checkers (ICRC, byte diff) and exit")
    ap.add_argument("--pipeline", default="c", choices=("c", "p4"),
                    help="the ingress the harness runs ([gateway] pipeline): p4 runs the same "
                    "cases through the SWX pipeline; P4_DIFFERS lists what may differ")
    ap.add_argument("--set", type=parse_set, action="append", default=[],
                    metavar="SECTION.KEY=VALUE",
                    help="run with this key of [gateway] or [congestion] set (replaced or added "
                    "in a copy of the config the harness reads)")
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--timeout", type=int, default=240)
    args = ap.parse_args()

    cfg = w.Config(args.config)
    for sec, key, value in args.set:
        cfg._set(sec, key, value)
    if args.self_test:
        return self_test(cfg)
    cases = GROUPS[args.group](cfg)
    if args.only:
        cases = [c for c in cases if re.search(args.only, c.name)]
    if args.list:
        for c in cases:
            print("%-52s %-4s %s" % (c.name, c.ingress, c.desc))
        print("%d case(s)" % len(cases))
        return 0
    if not cases:
        print("no case selected")
        return 1
    if not args.generate_only and not args.harness:
        ap.error("--harness is required")
    if not os.path.exists(tshark_check.TSHARK):
        print("fixtures: tshark not found (Debian package tshark)")
        return 1

    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if args.pipeline != "c":
        for c in cases:
            if c.name in P4_DIFFERS:
                c.xfail = P4_DIFFERS[c.name]
    manifest = os.path.join(work, "manifest.txt")
    gen_fail = {}
    expected_frames = []
    with open(manifest, "w") as mf:
        mf.write("# NAME INGRESS INPUT.pcap OUTDIR [CLOCK_NS [+]] (written by fixtures.py)\n")
        for c in cases:
            for i, st in enumerate(c.steps):
                sdir = step_dir(work, c, i)
                os.makedirs(os.path.join(sdir, "out"))
                pcap_write(os.path.join(sdir, "input.pcap"), st.inputs)
                for port, frames in st.out.items():
                    frames = [f[0] if isinstance(f, tuple) else f for f in frames]
                    pcap_write(os.path.join(sdir, "expected-%s.pcap" % port), frames)
                    expected_frames += [((c.name, "step %d port %s frame %d" % (i, port, j)), f)
                                        for j, f in enumerate(frames)]
                line = "%s %s %s %s" % (c.name + ("@%d" % i if c.multi else ""), st.ingress,
                                        os.path.join(sdir, "input.pcap"),
                                        os.path.join(sdir, "out"))
                if c.multi or st.clock is not None:
                    line += " %d" % (st.clock if st.clock is not None else w.CLOCK_NS)
                if i > 0:
                    line += " +"
                mf.write(line + "\n")

    # The generator's own output must dissect cleanly, or the test is wrong.
    for (name, where), probs in tshark_check.check_frames(expected_frames).items():
        gen_fail.setdefault(name, []).append(
            "GENERATOR: expected %s does not dissect cleanly: %s" % (where, "; ".join(probs)))
    if args.generate_only:
        for n, f in gen_fail.items():
            print(n, "\n".join(f))
        print("generated %d case(s) in %s, %d generator problem(s)" %
              (len(cases), work, len(gen_fail)))
        return 1 if gen_fail else 0

    sets = args.set + ([("gateway", "pipeline", args.pipeline)] if args.pipeline != "c" else [])
    harness_cfg = derived_config(args.config, sets, work) if sets else args.config
    cmd = [args.harness, "--config", harness_cfg, "--manifest", manifest,
           "--clock-ns", str(w.CLOCK_NS)]
    print("running:", " ".join(cmd))
    t0 = time.time()
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=args.timeout)
        hout, hrc = r.stdout, r.returncode
    except subprocess.TimeoutExpired as e:
        hout, hrc = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) \
            else (e.stdout or ""), "timeout"
    print("harness exit %s after %.1f s" % (hrc, time.time() - t0))
    if hrc != 0 or args.verbose:
        print("\n".join("  | " + l for l in hout.splitlines()[-40:]))

    results = []
    emitted = []
    for c in cases:
        fails, em = check_case(c, cfg, work)
        results.append((c, gen_fail.get(c.name, []) + fails))
        emitted += em
    # Everything the gateway emitted, through tshark in one run.
    for (name, where), probs in tshark_check.check_frames(emitted).items():
        next(f for c, f in results if c.name == name).append(
            "tshark, %s: %s" % (where, "; ".join(probs)))
    # CNPs on a DC port: tshark must see an InfiniBand CNP, not just UDP.
    for (name, where), probs in check_cnps_tshark(emitted).items():
        next(f for c, f in results if c.name == name).append(
            "tshark, %s: %s" % (where, "; ".join(probs)))
    not_run = [c.name for c in cases
               if not os.path.exists(os.path.join(step_dir(work, c, len(c.steps) - 1), "out",
                                                  "result.txt"))]
    if not_run:
        sig = " (signal %d)" % -hrc if isinstance(hrc, int) and hrc < 0 else ""
        print("\nthe harness stopped%s before finishing case %s; %d case(s) not run" %
              (sig, not_run[0], len(not_run)))

    # A known dataplane bug (Case xfail): failures matching its pattern are
    # reported but tolerated; any other failure still fails the case, and a
    # case that no longer fails at all fails too, so the marker is removed
    # with the fix (strict xfail).
    verdicts = []
    for c, fails in results:
        known = [f for f in fails if c.xfail and re.search(c.xfail[0], f)]
        other = [f for f in fails if f not in known]
        if c.name in not_run:
            verdicts.append((c, "FAIL (not run)", fails))
        elif other:
            verdicts.append((c, "FAIL", fails))
        elif known:
            verdicts.append((c, "xfail", known))
        elif c.xfail:
            verdicts.append((c, "FAIL (xpass)", ["known failure '%s' no longer happens: remove "
                                                  "the case's xfail marker" % c.xfail[1]]))
        else:
            verdicts.append((c, "pass", []))
    nfail = sum(1 for _, v, _ in verdicts if v.startswith("FAIL"))
    nxfail = sum(1 for _, v, _ in verdicts if v == "xfail")
    for c, v, fails in verdicts:
        if v.startswith("FAIL") and c.name not in not_run[1:] or v == "xfail":
            print("\n%s %s: %s (ingress %s, %d frame(s))" % (
                "XFAIL" if v == "xfail" else "FAIL", c.name, c.desc, c.ingress, len(c.inputs)))
            if v == "xfail":
                print("  known dataplane bug: " + c.xfail[1])
            for f in fails:
                print("  - " + f)
    print("\n%-56s %s" % ("case", "verdict"))
    print("-" * 64)
    for c, v, _ in verdicts:
        print("%-56s %s" % (c.name, v))
    print("-" * 64)
    print("%d case(s): %d passed, %d failed, %d known failure(s); harness exit %s; work dir %s" %
          (len(results), len(results) - nfail - nxfail, nfail, nxfail, hrc, work))
    return 1 if nfail or hrc != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
