#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check a lab run: every frame a site sent arrives at the other site with
the inner IP packet intact except TTL / hop limit (one less, IPv4 checksum
updated), re-framed by the far gateway (source = its DC port MAC,
destination = the far site's router).

    lab_check.py OUTDIR
"""

import collections
import sys

from scapy.all import IP, Ether, IPv6, rdpcap

MACS = {"a": ("02:00:00:00:0a:01", "02:00:00:00:0a:fe"),
        "b": ("02:00:00:00:0b:01", "02:00:00:00:0b:fe")}


def expected(frame, dst_site):
    gw, router = MACS[dst_site]
    ip = frame.payload.copy()
    if isinstance(ip, IP):
        ip.ttl -= 1
        del ip.chksum
    else:
        ip.hlim -= 1
    return bytes(Ether(src=gw, dst=router, type=frame.type) / ip)


def check(out, src, dst):
    sent = rdpcap(f"{out}/site-{src}-tx.pcap")
    got = collections.Counter(bytes(f) for f in rdpcap(f"{out}/site-{dst}-rx.pcap"))
    want = collections.Counter(expected(f, dst) for f in sent)
    # The traffic end loops over the pcap: compare per distinct frame.
    bad = [w for w in want if got.get(w, 0) == 0]
    extra = [g for g in got if g not in want]
    print(f"check {src}->{dst}: {len(want)} distinct frames sent, "
          f"{len(want) - len(bad)} arrived intact, {len(extra)} unexpected")
    for b in bad[:3]:
        print("  missing:", Ether(b).summary())
    for e in extra[:3]:
        print("  unexpected:", Ether(e).summary())
    return not bad and not extra


def main():
    out = sys.argv[1]
    ok = check(out, "a", "b") & check(out, "b", "a")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
