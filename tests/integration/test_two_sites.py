#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two gateways over virtual devices, both directions, IPv4 and IPv6.

Site A's DC traffic (RoCE RC writes, ACK/NAK, CNPs, UDP, ICMP, TCP over
IPv4 and IPv6) enters gateway A over net_memif, crosses a net_memif WAN
link inside GENEVE to gateway B and leaves B's DC port; site B's traffic
goes the other way at the same time. Every inner packet must arrive exactly
once with only TTL / hop limit changed, the gateways must count no drops,
per-peer counters must match, and every mbuf must be back in its pool at
exit. Runs once over an IPv4 underlay and once over IPv6, once more
over IPv4 with `lossless = credit` on both gateways (mechanism B's credit
hop: every packet carries the credit option, idle control packets flow
both ways); there the only drops allowed are the consumed credit control
packets (credit_control), and there must be some, and no grant may be
missing at the end (no RoCE data left waiting for credit). And with
[gateway] pipeline = p4 on both gateways over IPv4 and over IPv6 (p4 mode
has no credit hop: its config check refuses it, docs/p4.md).

    test_two_sites.py --build BUILDDIR [--underlay 4|6] [--lossless credit] [--pipeline c|p4]
"""

import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwlab  # noqa: E402
from scapy.all import rdpcap  # noqa: E402


def run(build, underlay, tmp, lossless=None, pipeline="c"):
    tag = f"it{underlay}{pipeline}-{os.getpid()}"
    cfg, sock = gwlab.two_site_configs(tmp, tag, lossless, underlay, pipeline)
    tx = {}
    for s in "ab":
        tx[s] = f"{tmp}/site-{s}-tx.pcap"
        subprocess.run(["/usr/bin/python3", os.path.join(gwlab.ROOT, "scripts", "lab_traffic.py"),
                        "--site", s, "--out", tx[s], "--qps", "3", "--writes", "4"],
                       check=True, capture_output=True)
    frames = {s: rdpcap(tx[s]) for s in "ab"}
    loops = 3

    gw = {s: gwlab.Gateway(build, cfg[s], f"{tmp}/gw-{s}.log") for s in "ab"}
    gw["a"].start()  # the WAN memif server first
    gw["b"].start()
    leaks = {}
    try:
        procs = {}
        for s in "ab":
            o = gwlab.other(s)
            procs[s] = gwlab.pktio(build, f"{tag}-pk{s}",
                                   f"net_memif0,role=client,socket={sock[s]},id=0,bsize=8192",
                                   tx=tx[s], rx=f"{tmp}/site-{s}-rx.pcap", loop=loops,
                                   pps=3000, duration=20,
                                   expect=len(frames[o]) * loops)
        for s in "ab":
            out, _ = procs[s].communicate(timeout=60)
            print(f"pktio {s}: {out.strip().splitlines()[-1]}")
        stats = {s: gw[s].ctl("show", "stats") for s in "ab"}
        drops = {s: gw[s].ctl("show", "drops") for s in "ab"}
        peers = {s: gw[s].ctl("show", "peers") for s in "ab"}
    finally:
        for s in "ab":
            leaks[s] = gw[s].stop()

    problems = []
    for s in "ab":
        o = gwlab.other(s)
        got = rdpcap(f"{tmp}/site-{o}-rx.pcap")
        p = gwlab.compare(frames[s], got, o, loops=loops)
        print(f"{s} -> {o}: {len(frames[s]) * loops} sent, {len(got)} received, "
              f"{len(p)} problem(s)")
        problems += [f"{s}->{o}: {x}" for x in p[:10]]
        if leaks[s] != 0:
            problems.append(f"gateway {s}: {leaks[s]} mbufs in use at exit")
        # The peer's path probes and credit control packets end here by design
        # (probe_consumed, credit_control); nothing else may drop.
        probes = drops[s]["drops"].get("probe_consumed", {}).get("count", 0)
        consumed = drops[s]["drops"].get("credit_control", {}).get("count", 0)
        if drops[s]["total"] != probes + consumed:
            problems.append(f"gateway {s}: {drops[s]['total'] - probes - consumed} drops: "
                            + ", ".join(f"{k}={v['count']}" for k, v in drops[s]["drops"].items()
                                        if v["count"]
                                        and k not in ("probe_consumed", "credit_control")))
        # show peers was asked after show drops: a probe or two may have arrived between.
        measured = peers[s]["peers"][f"site-{o}"]["measured"]["probes_rx"]
        if not probes <= measured <= probes + 2:
            problems.append(f"gateway {s}: {probes} probes consumed, {measured} measured")
        if peers[s]["peers"][f"site-{o}"]["measured"]["rtt_ns"] is None:
            problems.append(f"gateway {s}: no RTT measured to site-{o} in 20 s of probes")
        if lossless == "credit":
            cr = stats[s]["credit"]
            if consumed == 0 or cr["ctrl_tx"] == 0 or cr["grants_rx"] == 0:
                problems.append(f"gateway {s}: credit hop idle: {consumed} control packets "
                                f"consumed, {cr['ctrl_tx']} sent, {cr['grants_rx']} grants")
            if cr["overrun_bytes"] != 0 or cr["ctrl_failed"] != 0:
                problems.append(f"gateway {s}: credit overrun {cr['overrun_bytes']} B, "
                                f"{cr['ctrl_failed']} control packets not built")
        # Per-peer counters agree with what crossed the WAN.
        enc = peers[s]["peers"][f"site-{o}"]["tx_pkts"]
        dec = peers[o]["peers"][f"site-{s}"]["rx_pkts"]
        if enc != len(frames[s]) * loops or dec != enc:
            problems.append(f"peer counters: {s} encapsulated {enc}, {o} decapsulated {dec}, "
                            f"sent {len(frames[s]) * loops}")
        gaps = peers[o]["peers"][f"site-{s}"]["rx_seq_gaps"]
        if gaps != 0:
            problems.append(f"gateway {o}: {gaps} GENEVE sequence gaps on a lossless link")
        # Classification: every CNP is seen once on the DC side of one gateway
        # and once decapsulated at the other.
        cnps = sum(1 for site in "ab" for f in frames[site]
                   if f.haslayer("UDP") and f["UDP"].dport == 4791 and bytes(f["UDP"].payload)[0] == 0x81)
        if stats[s]["classes"]["roce_cnp"] != cnps * loops:
            problems.append(f"gateway {s}: classified {stats[s]['classes']['roce_cnp']} CNPs, "
                            f"expected {cnps * loops}")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--underlay", choices=["4", "6"], default="4")
    ap.add_argument("--lossless", choices=["pfc", "credit"], default=None)
    ap.add_argument("--pipeline", choices=["c", "p4"], default="c",
                    help="[gateway] pipeline of both gateways")
    a = ap.parse_args()
    os.makedirs("/run/longspan", exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ls-it-") as tmp:
        problems = run(os.path.abspath(a.build), a.underlay, tmp, a.lossless, a.pipeline)
        if problems:
            print("FAIL:")
            for p in problems:
                print("  " + p)
            for s in "ab":
                print(f"--- gateway {s} log tail ---")
                print(open(f"{tmp}/gw-{s}.log").read()[-1500:])
            sys.exit(1)
    print(f"OK: both directions intact over the IPv{a.underlay} underlay"
          + (f", lossless = {a.lossless}" if a.lossless else "")
          + f", pipeline {a.pipeline}")


if __name__ == "__main__":
    main()
