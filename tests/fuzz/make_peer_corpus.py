#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpus of the peering message fuzz target
(tests/fuzz/corpus/peer_msg).

Each file is a stream of valid peering messages, encoded here with struct
from the layout in docs/wire-format.md ("Peering messages"), independently
of the C encoder: the unit suite decodes every seed and requires it to be
valid, so the two encoders must agree.

    tests/fuzz/make_peer_corpus.py [OUTDIR]
"""
import ipaddress
import os
import struct
import sys

VERSION = 1
HELLO, KEEPALIVE, ROUTE, HINT, CLOSE = 1, 2, 3, 4, 5
ADD, WITHDRAW = 1, 2


def msg(mtype, body):
    return struct.pack("!IBBH", 8 + len(body), VERSION, mtype, 0) + body


def string(s):
    b = s.encode("ascii")
    return struct.pack("!B", len(b)) + b


def prefix(text):
    net = ipaddress.ip_network(text)
    fam = 4 if net.version == 4 else 6
    return struct.pack("!BB", fam, net.prefixlen) + net.network_address.packed


def hello(site, prefixes, sw="0.1.0", instance=0x0123456789ABCDEF, caps=3, hold_ms=3000, gen=1):
    body = string(site) + string(sw) + struct.pack("!QQIIH", instance, caps, hold_ms, gen,
                                                   len(prefixes))
    return msg(HELLO, body + b"".join(prefix(p) for p in prefixes))


def keepalive(tx, echo=0, delay=0, rtt=0):
    return msg(KEEPALIVE, struct.pack("!QQQQ", tx, echo, delay, rtt))


def route(gen, entries, full=False):
    body = struct.pack("!IBBH", gen, 1 if full else 0, 0, len(entries))
    return msg(ROUTE, body + b"".join(struct.pack("!B", op) + prefix(p) for op, p in entries))


def hint(qps, valid_ms=500):
    body = struct.pack("!BBHI", 1, 0, len(qps), valid_ms)
    for addr, qpn, rate in qps:
        a = ipaddress.ip_address(addr)
        fam = 4 if a.version == 4 else 6
        body += struct.pack("!B", fam) + qpn.to_bytes(3, "big") + a.packed.ljust(16, b"\0")
        body += struct.pack("!Q", rate)
    return msg(HINT, body)


def close(reason, text=""):
    return msg(CLOSE, struct.pack("!H", reason) + string(text))


SEEDS = {
    "hello-a.bin": hello("site-a", ["10.1.0.0/16", "fd00:1::/48"]),
    "hello-empty.bin": hello("site-b", [], sw="1.2.3-rc1", caps=0, hold_ms=300, gen=0),
    "hello-max.bin": hello("s" * 31, ["fd00:%x::/32" % i for i in range(64)], sw="~" * 31,
                           caps=(1 << 64) - 1, hold_ms=600000, gen=0xFFFFFFFF),
    "keepalive.bin": keepalive(123456789, 0, 0, 1000000),
    "keepalive-echo.bin": keepalive(2 ** 64 - 1, 1, 250000, 0),
    "route-delta.bin": route(2, [(ADD, "10.3.0.0/16"), (WITHDRAW, "fd00:1::/48"),
                                 (ADD, "0.0.0.0/0"), (ADD, "2001:db8::1/128")]),
    "route-full.bin": route(3, [(ADD, "10.%d.0.0/16" % i) for i in range(64)], full=True),
    "route-full-empty.bin": route(4, [], full=True),
    "hint.bin": hint([("10.2.0.5", 0x000123, 25000000000), ("fd00:2::5", 0xFFFFFF, 0)]),
    "hint-empty.bin": hint([], valid_ms=1),
    "close.bin": close(6, "the other connection won the tie-break"),
    "close-empty.bin": close(1),
    "stream.bin": (hello("site-b", ["10.2.0.0/16"]) + keepalive(1, 0, 0, 0) +
                   route(2, [(ADD, "10.4.0.0/16")]) + hint([("10.2.0.9", 7, 1)]) +
                   keepalive(2, 1, 10, 999) + close(7, "nothing received for 3000 ms")),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                             "corpus", "peer_msg")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print("wrote %d seeds to %s" % (len(SEEDS), out))


if __name__ == "__main__":
    main()
