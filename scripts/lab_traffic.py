#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Build the traffic one lab site sends toward the other, as a pcap.

Frames come from the site's router (the DC-side neighbour of the gateway)
and are addressed to the gateway's DC port MAC, as a real DC fabric would
deliver them. The mix: RoCEv2 RC WRITE streams (FIRST/MIDDLE/LAST with RETH
and a correct ICRC) for several QPs, the ACKs and a NAK a receiver returns,
CNPs, plain UDP, ICMP echo and TCP, over IPv4 and IPv6.

    lab_traffic.py --site a --out site-a.pcap [--qps 4] [--writes 8]
"""

import argparse
import os
import struct
import sys

from scapy.all import ICMP, IP, TCP, UDP, Ether, IPv6, ICMPv6EchoRequest, Raw, wrpcap
from scapy.contrib.roce import AETH, BTH

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspkt import with_icrc  # noqa: E402

SITES = {
    "a": {"gw_mac": "02:00:00:00:0a:01", "router_mac": "02:00:00:00:0a:fe",
          "v4": "10.1", "v6": "fd00:1"},
    "b": {"gw_mac": "02:00:00:00:0b:01", "router_mac": "02:00:00:00:0b:fe",
          "v4": "10.2", "v6": "fd00:2"},
}

OP_WRITE_FIRST, OP_WRITE_MIDDLE, OP_WRITE_LAST, OP_ACK, OP_CNP = 0x06, 0x07, 0x08, 0x11, 0x81
ECT0 = 0x02


def reth(va, rkey, length):
    """RDMA Extended Transport Header: virtual address, R_Key, DMA length."""
    return struct.pack("!QII", va, rkey, length)


def roce(l3, sport, opcode, dqpn, psn, payload=b"", tos=ECT0, ackreq=False, aeth=None):
    """A RoCEv2 packet; scapy computes the ICRC over the finished frame."""
    bth = BTH(opcode=opcode, dqpn=dqpn, psn=psn, ackreq=int(ackreq))
    if aeth is not None:
        bth = bth / aeth
    if isinstance(l3, IP):
        l3.tos = tos
    else:
        l3.tc = tos
    return l3 / UDP(sport=sport, dport=4791) / bth / Raw(payload)


def build(site, peer, qps, writes, payload):
    s, p = SITES[site], SITES[peer]
    eth = Ether(src=s["router_mac"], dst=s["gw_mac"])
    frames = []
    for q in range(qps):
        # Hosts .0.(q+1) on each side; QPNs distinct per direction.
        src4, dst4 = f"{s['v4']}.0.{q + 1}", f"{p['v4']}.0.{q + 1}"
        src6, dst6 = f"{s['v6']}::{q + 1}", f"{p['v6']}::{q + 1}"
        qpn_remote = 0x100 + q + (0x1000 if site == "b" else 0)
        sport = 49152 + q
        for v, (src, dst, ip) in enumerate(((src4, dst4, IP), (src6, dst6, IPv6))):
            for w in range(writes):
                base = w * 3
                va = 0x10000 * (w + 1)
                frames.append(eth / roce(ip(src=src, dst=dst), sport, OP_WRITE_FIRST,
                                         qpn_remote, base, reth(va, 0x42, 3 * payload) + bytes(payload)))
                frames.append(eth / roce(ip(src=src, dst=dst), sport, OP_WRITE_MIDDLE,
                                         qpn_remote, base + 1, bytes(payload)))
                frames.append(eth / roce(ip(src=src, dst=dst), sport, OP_WRITE_LAST,
                                         qpn_remote, base + 2, bytes(payload), ackreq=True))
            # What this site's receivers send back for the peer's writes.
            frames.append(eth / roce(ip(src=src, dst=dst), sport, OP_ACK, qpn_remote + 0x10,
                                     3 * writes - 1, aeth=AETH(syndrome=0, msn=writes)))
            frames.append(eth / roce(ip(src=src, dst=dst), sport, OP_ACK, qpn_remote + 0x10,
                                     5, aeth=AETH(syndrome=0x60, msn=2)))  # NAK: PSN sequence error
            cnp = roce(ip(src=src, dst=dst), sport, OP_CNP, qpn_remote + 0x10, 0, tos=48 << 2)
            cnp[BTH].becn = 1
            cnp[Raw].load = bytes(16)
            frames.append(eth / cnp)
        frames.append(eth / IP(src=src4, dst=dst4) / UDP(sport=5000 + q, dport=6000) / Raw(b"u" * 100))
        frames.append(eth / IP(src=src4, dst=dst4) / ICMP(id=q, seq=1) / Raw(b"ping" * 8))
        frames.append(eth / IPv6(src=src6, dst=dst6) / ICMPv6EchoRequest(id=q, seq=1))
        frames.append(eth / IP(src=src4, dst=dst4) / TCP(sport=40000 + q, dport=80, flags="S"))
    # Rebuild from bytes so checksums and ICRCs are final; scapy leaves the
    # ICRC of IPv6 RoCE at zero, so compute those here.
    out = []
    for f in frames:
        raw = bytes(f)
        if IPv6 in f and UDP in f and f[UDP].dport == 4791:
            raw = raw[:14] + with_icrc(raw[14:])
        out.append(Ether(raw))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", choices=SITES, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--qps", type=int, default=4)
    ap.add_argument("--writes", type=int, default=8)
    ap.add_argument("--payload", type=int, default=1024)
    a = ap.parse_args()
    peer = "b" if a.site == "a" else "a"
    frames = build(a.site, peer, a.qps, a.writes, a.payload)
    wrpcap(a.out, frames)
    print(f"{a.out}: {len(frames)} frames", file=sys.stderr)


if __name__ == "__main__":
    main()
