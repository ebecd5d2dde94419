#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpus of the parser fuzz target (tests/fuzz/corpus/parse).

Each file is one flags byte (fuzz_parse.c: bit 0 = port VLAN 100, bits 2-7 =
offset of a direct geneve_parse call) followed by an Ethernet frame. The
frames are built with struct alone, so the corpus can be regenerated on any
machine:  tests/fuzz/make_corpus.py [OUTDIR]
"""
import os
import struct
import sys


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def eth(payload, et, vlan=None):
    h = bytes.fromhex("0200000001fe") + bytes.fromhex("020000000101")
    if vlan is not None:
        h += struct.pack("!HH", 0x8100, vlan)
    return h + struct.pack("!H", et) + payload


def ipv4(payload, proto=17, tos=2, frag=0, src="10.1.0.1", dst="10.2.0.2", opts=b""):
    ihl = 5 + len(opts) // 4
    a = bytes(int(x) for x in src.split("."))
    b = bytes(int(x) for x in dst.split("."))
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, tos, 4 * ihl + len(payload), 0x1234, frag,
                    64, proto, 0, a, b) + opts
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ipv6(payload, nh=17, tc=2, flow=0x12345, src=b"\xfd\0\0\1" + b"\0" * 11 + b"\1",
         dst=b"\xfd\0\0\2" + b"\0" * 11 + b"\2"):
    return struct.pack("!IHBB", 6 << 28 | tc << 20 | flow, len(payload), nh, 64) + src + dst + payload


def udp(payload, sport, dport):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def bth(opcode, dqpn, psn, becn=False):
    return struct.pack("!BBHB3sB3s", opcode, 0, 0xFFFF, 0x40 if becn else 0,
                       dqpn.to_bytes(3, "big"), 0x80, psn.to_bytes(3, "big"))


ICRC = b"\x11\x22\x33\x44"


def roce(opcode, dqpn=0x123456, psn=0x000100, payload=b"", syndrome=None):
    body = bth(opcode, dqpn, psn, opcode == 0x81)
    if syndrome is not None:
        body += struct.pack("!B3s", syndrome, (7).to_bytes(3, "big"))
    return body + payload + ICRC


def geneve(inner, proto, vni, opts=b""):
    return struct.pack("!BBH3sB", len(opts) // 4, 0, proto, vni.to_bytes(3, "big"), 0) + opts + inner


def ls_opt(worker=1, seq=42, tx_ns=123456789):
    return struct.pack("!HBBBBHIQ", 0xFF4C, 0x01, 4, 1, 0, worker, seq, tx_ns)


def geneve_ctl(proto, vni, opts):
    """A GENEVE control packet (O = 1), as a path probe is (docs/wire-format.md)."""
    return struct.pack("!BBH3sB", len(opts) // 4, 0x80, proto, vni.to_bytes(3, "big"), 0) + opts


def echo_opt(flags=1, t1=1000, t2=2000, length=5, version=1):
    return struct.pack("!HBBBBHQQ", 0xFF4C, 0x03, length, version, flags, 0, t1, t2)


def seeds():
    data = roce(0x0A, payload=bytes(range(64)))
    yield "v4-roce-write", 0, eth(ipv4(udp(data, 0xC123, 4791)), 0x0800)
    yield "v4-roce-ack", 0, eth(ipv4(udp(roce(0x11, syndrome=0x1F), 0xC124, 4791)), 0x0800)
    yield "v4-roce-cnp", 0, eth(ipv4(udp(roce(0x81, payload=bytes(16)), 0, 4791), tos=48 << 2), 0x0800)
    yield "v6-roce-nak", 0, eth(ipv6(udp(roce(0x11, syndrome=0x60), 0xC125, 4791)), 0x86DD)
    yield "v6-roce-cnp", 0, eth(ipv6(udp(roce(0x81, payload=bytes(16)), 0, 4791)), 0x86DD)
    yield "v6-atomic-ack", 0, eth(ipv6(udp(roce(0x12, syndrome=0, payload=bytes(8)), 1, 4791)), 0x86DD)
    yield "vlan100-v4-roce", 1, eth(ipv4(udp(data, 0xC001, 4791)), 0x0800, vlan=0x6064)
    yield "prio-tag-v4", 0, eth(ipv4(udp(roce(0x04, payload=b"x" * 8), 7, 4791)), 0x0800, vlan=0xA000)
    yield "v4-options", 0, eth(ipv4(udp(data, 1, 4791), opts=b"\x01" * 8), 0x0800)
    yield "v4-first-frag", 0, eth(ipv4(udp(data, 0xC0DE, 4791)[:40], frag=0x2000), 0x0800)
    yield "v4-later-frag", 0, eth(ipv4(data[:32], frag=0x0010), 0x0800)
    yield "v4-tcp", 0, eth(ipv4(struct.pack("!HHIIBBHHH", 80, 8080, 1, 0, 0x50, 2, 1024, 0, 0), proto=6), 0x0800)
    yield "v4-icmp-padded", 0, eth(ipv4(b"\x08\x00\xf7\xff\0\0\0\0", proto=1), 0x0800) + bytes(18)
    yield "v6-hop-by-hop", 0, eth(ipv6(b"\x11\x00\x01\x04\0\0\0\0" + udp(data, 1, 4791), nh=0), 0x86DD)
    yield "v6-icmp-ns", 0, eth(ipv6(b"\x87\0\0\0\0\0\0\0" + b"\xfd" + bytes(15), nh=58), 0x86DD)
    yield "arp", 0, eth(bytes.fromhex("0001080006040001") + bytes(20), 0x0806)
    inner4 = ipv4(udp(roce(0x0A, payload=bytes(32)), 0xC200, 4791), src="10.2.0.2", dst="10.1.0.1")
    yield "geneve-v4-ls-opt", 0, eth(ipv4(udp(geneve(inner4, 0x0800, 100, ls_opt()), 0xC3A1, 6081),
                                          src="192.0.2.2", dst="192.0.2.1"), 0x0800)
    inner6 = ipv6(udp(roce(0x11, syndrome=0), 0xC201, 4791))
    unknown = struct.pack("!HBB", 0x0102, 0x05, 1) + b"\xaa" * 4
    yield "geneve-v6-opts", 0, eth(ipv6(udp(geneve(inner6, 0x86DD, 300, unknown + ls_opt(2, 7, 9)),
                                            0xC3A2, 6081)), 0x86DD)
    # The direct geneve_parse call at offset 14 + 20 + 8 = 42 (flags 42 << 2).
    yield "geneve-direct-42", (42 << 2) & 0xFF, eth(ipv4(udp(geneve(inner4, 0x0800, 5), 1, 6081)), 0x0800)
    yield "geneve-critical", 0, eth(ipv4(udp(geneve(inner4, 0x0800, 5, struct.pack("!HBB", 0x0102, 0x85, 0)),
                                             1, 6081)), 0x0800)
    probe = geneve_ctl(0, 100, ls_opt(0, 9, 5000) + echo_opt())
    yield "geneve-probe-v4", 0, eth(ipv4(udp(probe, 0xC000, 6081), tos=48 << 2,
                                         src="192.0.2.2", dst="192.0.2.1"), 0x0800)
    yield "geneve-probe-noecho", 0, eth(ipv6(udp(geneve_ctl(0, 300, ls_opt(1, 0, 7) + echo_opt(0, 0, 0)),
                                                 0xC001, 6081)), 0x86DD)
    yield "geneve-probe-echo-short", 0, eth(ipv4(udp(geneve_ctl(0, 5, ls_opt() + echo_opt()[:20]),
                                                     1, 6081)), 0x0800)
    yield "qinq", 0, eth(struct.pack("!HH", 0x8100, 0x0800) + ipv4(b""), 0x88A8, vlan=100)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "parse")
    os.makedirs(out, exist_ok=True)
    for name, flags, frame in seeds():
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(bytes([flags]) + frame)


if __name__ == "__main__":
    main()
