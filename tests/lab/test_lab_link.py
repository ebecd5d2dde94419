#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
hostem (site A, senders) -> wanem (100 km) -> hostem (site B, receivers),
three processes joined by links between processes (net_memif, or vhost-user:
net_vhost in wanem, net_virtio_user in the hostems), no gateway: the two
hostems address each other's MACs directly.

    test_lab_link.py --build BUILD --phase delay|cnp|loss [--link memif|vhost]
                     [--tools separate|one] [--keep DIR]

With --tools one both hostems run in one longspan-labtools process, on one
thread (as scripts/lab.py runs them), against the same wanem.

Timing on a shared machine is not asserted: latencies and lateness are
printed; what must hold is behaviour (counts, order, that feedback arrives).

delay: 500 us one way, no bottleneck. Every data packet carries its send
       TSC; B's one-way latency must never be below the delay (its median is
       reported). Counters add up across the three tools, every packet is
       acknowledged, no gaps. Over vhost every tool must have waited on rx
       interrupts and been woken by packets.
cnp:   A's two senders share a ToR uplink slower than their sum, with low
       RED thresholds, so B sees CE and sends CNPs; A must receive them
       (tagged as hostem's), no earlier than one WAN RTT after it started,
       and cut its rates (the first cut right after the first CNP).
loss:  wanem drops 1% (seeded): its loss count is within binomial bounds,
       B counts the missing PSNs as gaps and NAKs them, A receives the NAKs
       that were not themselves lost.
Needs root and hugepages (net_memif between processes), like the suite's
other integration tests.
"""

import argparse
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

A_MAC, B_MAC = "02:00:00:00:0a:fe", "02:00:00:00:0b:fe"
DELAY_NS = 500_000
EAL = ["-m", "128", "--no-pci", "--log-level=*:warning"]
# Device strings of a link's two ends (port number, directory, name): wanem is
# the server of both its links, the hostems connect.
LINKS = {
    "memif": ("net_memif%d,role=server,socket=%s/%s.sock,id=0,bsize=8192",
              "net_memif%d,role=client,socket=%s/%s.sock,id=0,bsize=8192"),
    "vhost": ("net_vhost%d,iface=%s/%s.sock,queues=1",
              "net_virtio_user%d,path=%s/%s.sock,queues=1,queue_size=1024"),
}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def site_a(d, phase):
    tor = ""
    if phase == "cnp":
        tor = "tor_rate = 300M\ntor_kmin = 10kB\ntor_kmax = 40kB\ntor_pmax = 0.2\n"
    qps = ""
    for i in range(2):
        qps += ("\n[qp s%d]\nrole = send\nlocal = 10.1.0.%d\nremote = 10.2.0.%d\n"
                "local_qpn = %#x\nremote_qpn = %#x\n") % (i, i + 1, i + 1, 0x100 + i, 0x200 + i)
    return ("[host]\nname = A\nmac = %s\ngateway_mac = %s\nlocal = 10.1.0.0/16\n"
            "line_rate = 200M\nmessage = 64KiB\nduration = 1500ms\nstats_interval = 500ms\n"
            "json = %s/a.json\ncnp_log = %s/a-cnp.csv\n%s%s") % (A_MAC, B_MAC, d, d, tor, qps)


def site_b(d):
    qps = ""
    for i in range(2):
        qps += ("\n[qp r%d]\nrole = recv\nlocal = 10.2.0.%d\nremote = 10.1.0.%d\n"
                "local_qpn = %#x\nremote_qpn = %#x\n") % (i, i + 1, i + 1, 0x200 + i, 0x100 + i)
    return ("[host]\nname = B\nmac = %s\ngateway_mac = %s\nlocal = 10.2.0.0/16\n"
            "duration = 0\nstats_interval = 500ms\nack_every = 8\njson = %s/b.json\n%s") % (
                B_MAC, A_MAC, d, qps)


def start(cmd, log):
    return subprocess.Popen(cmd, stdout=open(log, "w"), stderr=subprocess.STDOUT)


def stop(p, name, log):
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("%s did not stop on SIGINT" % name)
    text = open(log).read()
    if p.returncode != 0 or "mbufs in use at exit: 0" not in text:
        print(text[-3000:])
        fail("%s: exit %d or leaked mbufs" % (name, p.returncode))
    return text


def run(args, d):
    tag = "lslab%d" % os.getpid()
    bin_dir = os.path.join(args.build, "tests", "lab")
    wanem_bin = os.path.join(bin_dir, "longspan-wanem")
    hostem_bin = os.path.join(bin_dir, "longspan-hostem")
    with open(os.path.join(d, "a.ini"), "w") as f:
        f.write(site_a(d, args.phase))
    with open(os.path.join(d, "b.ini"), "w") as f:
        f.write(site_b(d))
    wopts = ["--delay", "%dns" % DELAY_NS, "--stats-interval", "500ms",
             "--json", os.path.join(d, "w.json")]
    if args.phase == "loss":
        wopts += ["--loss", "0.01", "--seed", "7"]
    server, client = LINKS[args.link]
    procs = {}
    try:
        procs["wanem"] = start([wanem_bin, "-l", "0", "--file-prefix", tag + "w"] + EAL +
                               ["--vdev=" + server % (0, d, "a"), "--vdev=" + server % (1, d, "b"),
                                "--"] + wopts, os.path.join(d, "wanem.log"))
        # memif sockets are abstract by default: wait for wanem's banner instead.
        for _ in range(200):
            if "wanem: ports" in open(os.path.join(d, "wanem.log")).read():
                break
            check(procs["wanem"].poll() is None, "wanem exited: " +
                  open(os.path.join(d, "wanem.log")).read())
            time.sleep(0.05)
        # The client side of a vhost-user link shares its memory with the server:
        # one file per memory segment list (virtio-user's limit is 8 regions).
        ceal = EAL + (["--single-file-segments"] if args.link == "vhost" else [])
        if args.tools == "one":
            # Both hostems in one longspan-labtools process, on one thread: A
            # runs its 1.5 s, B until the process ends 0.5 s later.
            labtools_bin = os.path.join(bin_dir, "longspan-labtools")
            t = subprocess.run([labtools_bin, "-l", "1", "--file-prefix", tag + "t"] + ceal +
                               ["--vdev=" + client % (0, d, "a"), "--vdev=" + client % (1, d, "b"),
                                "--", "--duration", "2s",
                                "--hostem", "0:" + os.path.join(d, "a.ini"),
                                "--hostem", "1:" + os.path.join(d, "b.ini")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=60)
            print(t.stdout)
            leaks = [ln for ln in t.stdout.splitlines() if "mbufs in use at exit" in ln]
            check(t.returncode == 0 and len(leaks) == 2 and
                  all(ln.endswith(" 0") for ln in leaks),
                  "labtools: exit %d or leaked mbufs" % t.returncode)
            print(stop(procs.pop("wanem"), "wanem", os.path.join(d, "wanem.log")))
            return (json.load(open(os.path.join(d, n))) for n in ("a.json", "b.json", "w.json"))
        procs["B"] = start([hostem_bin, "-l", "1", "--file-prefix", tag + "b"] + ceal +
                           ["--vdev=" + client % (0, d, "b"), "--", "--config",
                            os.path.join(d, "b.ini")], os.path.join(d, "b.log"))
        time.sleep(0.3)
        a = subprocess.run([hostem_bin, "-l", "1", "--file-prefix", tag + "a"] + ceal +
                           ["--vdev=" + client % (0, d, "a"), "--", "--config",
                            os.path.join(d, "a.ini")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=60)
        print(a.stdout)
        check(a.returncode == 0 and "mbufs in use at exit: 0" in a.stdout,
              "hostem A: exit %d or leaked mbufs" % a.returncode)
        time.sleep(0.5)  # the last packets cross the line, B answers into a closed port
        print(stop(procs.pop("B"), "hostem B", os.path.join(d, "b.log")))
        print(stop(procs.pop("wanem"), "wanem", os.path.join(d, "wanem.log")))
    finally:
        for p in procs.values():
            p.kill()
    return (json.load(open(os.path.join(d, n))) for n in ("a.json", "b.json", "w.json"))


def common(A, B, W):
    fwd, rev = W["directions"]
    for dr in (fwd, rev):
        held = dr["tx_pkts"] + dr["drop_loss"] + dr["drop_queue"] + dr["drop_slots"] + \
            dr["held_pkts"] + dr["drained"]
        check(dr["rx_pkts"] == held, "wanem %d>%d: rx %d != tx + drops + held + drained %d"
              % (dr["from"], dr["to"], dr["rx_pkts"], held))
        check(dr["drop_queue"] == 0 and dr["drop_slots"] == 0, "wanem dropped for room")
    check(W["mbufs_in_use"] == 0, "wanem leaked mbufs")
    # B stopped after the line drained: it got exactly what wanem sent.
    check(B["port"]["rx_pkts"] == fwd["tx_pkts"], "B received %d, wanem sent %d" %
          (B["port"]["rx_pkts"], fwd["tx_pkts"]))
    check(B["port"]["tx_pkts"] == rev["rx_pkts"], "B sent %d, wanem received %d" %
          (B["port"]["tx_pkts"], rev["rx_pkts"]))
    # A may stop with a few packets still in its memif ring.
    check(0 <= A["port"]["tx_pkts"] - fwd["rx_pkts"] <= 1024, "A sent %d, wanem received %d" %
          (A["port"]["tx_pkts"], fwd["rx_pkts"]))
    check(A["port"]["rx_pkts"] <= rev["tx_pkts"], "A received more than wanem sent")
    for j in (A, B):
        p = j["port"]
        check(p["bad_icrc"] == 0 and p["malformed"] == 0 and p["no_receiver"] == 0 and
              p["no_sender"] == 0 and p["not_for_us"] == 0, "%s port counters: %s" %
              (j["name"], p))
    sent = sum(s["sent_pkts"] for s in A["senders"])
    got = sum(r["pkts"] for r in B["receivers"])
    check(sent > 1000, "A sent only %d packets" % sent)
    return sent, got


def interrupts(A, B, W, link):
    """Over vhost-user every tool blocked on rx interrupts and packets woke it."""
    for name, j in (("hostem A", A), ("hostem B", B), ("wanem", W)):
        print("%s: rx interrupts %s, %d waits, %d ended by a packet, %d by the due time, "
              "%d timer settings, %d sleeps" % (name, j["rx_interrupts"], j["intr_waits"],
                                               j["intr_wakeups"], j["timer_wakeups"],
                                               j["timer_arms"], j["sleeps"]))
        if link == "vhost":
            check(j["rx_interrupts"] and j["intr_waits"] > 0 and j["intr_wakeups"] > 0,
                  "%s did not wait on rx interrupts over vhost" % name)
            check(j["sleeps"] == 0, "%s slept on a timer over vhost" % name)


def phase_delay(A, B, W):
    sent, got = common(A, B, W)
    for r in B["receivers"]:
        lat = r["latency_ns"]
        print("delay: %s one-way latency min %.1f us, p50 %.1f, p99 %.1f, max %.1f "
              "(line %d us; reported, not asserted)" % (
                  r["qp"], lat["min"] / 1e3, lat["p50"] / 1e3, lat["p99"] / 1e3,
                  lat["max"] / 1e3, DELAY_NS // 1000))
        check(lat["n"] == r["pkts"], "every packet carries a stamp")
        check(lat["min"] >= DELAY_NS, "%s: a packet came out after %d ns, before the delay" %
              (r["qp"], lat["min"]))
        check(r["gaps"] == 0 and r["dups"] == 0 and r["naks_sent"] == 0, "gaps without loss")
    fwd = W["directions"][0]
    print("delay: wanem release lateness avg %.1f us max %.1f us over %d packets" %
          (fwd["late_avg_ns"] / 1e3, fwd["late_max_ns"] / 1e3, fwd["tx_pkts"]))
    for s in A["senders"]:
        # Acknowledged: all but the last RTT's worth (ACKs still in flight at A's end).
        check(s["acked_pkts"] >= s["sent_pkts"] - 200 and s["acks"] > 0,
              "%s: %d of %d acknowledged" % (s["qp"], s["acked_pkts"], s["sent_pkts"]))
        check(s["cnps"] == 0, "CNPs without congestion")
    check(got == sent - (A["port"]["tx_pkts"] - W["directions"][0]["rx_pkts"]),
          "B got %d of %d" % (got, sent))


def phase_cnp(A, B, W):
    common(A, B, W)
    tor = A["tor"]
    check(tor["marks"] > 0, "the ToR marked nothing")
    ce = sum(r["ce"] for r in B["receivers"])
    cnps_b = sum(r["cnps_sent"] for r in B["receivers"])
    check(ce > 0 and cnps_b > 0, "B saw %d CE and sent %d CNPs" % (ce, cnps_b))
    for s in A["senders"]:
        print("cnp: %s got %d CNPs (%d tagged), first at %.3f ms, first cut %+.1f us later, "
              "rate min %.1f Mb/s (line %d), avg %.1f Mb/s, tx %.1f Mb/s" %
              (s["qp"], s["cnps"], s["cnps_tagged"], s["first_cnp_ns"] / 1e6,
               s["cnp_to_cut_ns"] / 1e3, s["rate_min_bps"] / 1e6, s["line_rate_bps"] // 10**6,
               s["rate_avg_bps"] / 1e6, s["tx_bps"] / 1e6))
        check(s["cnps"] > 0 and s["cnps_tagged"] == s["cnps"], "%s: CNPs %d tagged %d" %
              (s["qp"], s["cnps"], s["cnps_tagged"]))
        # Marks happen at A, the CNP comes back from B: at least one WAN RTT.
        check(s["first_cnp_ns"] >= 2 * DELAY_NS, "%s: first CNP at %d ns, before one RTT" %
              (s["qp"], s["first_cnp_ns"]))
        check(s["rp"]["cuts"] > 0 and s["rate_min_bps"] < s["line_rate_bps"],
              "%s: no rate cut" % s["qp"])
        # ConnectX firmware: a CNP cuts at once unless a cut happened < 4 us before.
        check(s["cnp_to_cut_ns"] is not None and s["cnp_to_cut_ns"] <= 4000,
              "%s: first cut %s ns after the first CNP" % (s["qp"], s["cnp_to_cut_ns"]))
        check(len(s["cnp_rx_ns"]) == min(s["cnps"], 1000), "%s: CNP times" % s["qp"])
    rx = sum(s["cnps"] for s in A["senders"])
    check(rx <= cnps_b, "A got %d CNPs, B sent %d" % (rx, cnps_b))
    log = open(os.path.join(os.path.dirname(A["_path"]), "a-cnp.csv")).read().splitlines()
    check(len(log) == 1 + rx, "A's CNP log has %d lines for %d CNPs" % (len(log), rx))


def phase_loss(A, B, W):
    common(A, B, W)
    fwd, rev = W["directions"]
    for dr in (fwd, rev):
        n, k = dr["rx_pkts"], dr["drop_loss"]
        mean, sd = 0.01 * n, math.sqrt(n * 0.01 * 0.99)
        print("loss: wanem %d>%d lost %d of %d (expected %.0f +- %.0f)" %
              (dr["from"], dr["to"], k, n, mean, sd))
        check(abs(k - mean) <= 5 * sd + 1, "loss outside 5 sigma")
    missing = sum(r["missing"] for r in B["receivers"])
    naks = sum(r["naks_sent"] for r in B["receivers"])
    gaps = sum(r["gaps"] for r in B["receivers"])
    print("loss: B counted %d gaps, %d missing PSNs, sent %d NAKs; A got %d NAKs" %
          (gaps, missing, naks, sum(s["naks"] for s in A["senders"])))
    # Every data loss shows up as a missing PSN, except losses after the last
    # packet a receiver saw (nothing behind them reveals the gap).
    check(fwd["drop_loss"] - 4 <= missing <= fwd["drop_loss"], "missing %d vs lost %d" %
          (missing, fwd["drop_loss"]))
    check(naks == gaps and gaps > 0, "one NAK per gap")
    check(sum(s["naks"] for s in A["senders"]) <= naks, "A got more NAKs than B sent")


def main():
    global DELAY_NS
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--phase", choices=["delay", "cnp", "loss"], required=True)
    ap.add_argument("--link", choices=sorted(LINKS), default="memif")
    ap.add_argument("--tools", choices=["separate", "one"], default="separate",
                    help="one: both hostems in one longspan-labtools process")
    ap.add_argument("--delay-us", type=int, default=DELAY_NS // 1000,
                    help="wanem's one-way delay (0 measures the two hops' wake-up latency)")
    ap.add_argument("--keep", help="keep logs and JSON here")
    args = ap.parse_args()
    DELAY_NS = args.delay_us * 1000
    d = tempfile.mkdtemp(prefix="lslab-")  # short: memif socket paths are sun_path
    try:
        A, B, W = run(args, d)
        A["_path"] = os.path.join(d, "a.json")
        interrupts(A, B, W, args.link)
        if args.phase == "delay":
            phase_delay(A, B, W)
        elif args.phase == "cnp":
            phase_cnp(A, B, W)
        else:
            phase_loss(A, B, W)
        print("%s: OK" % args.phase)
    finally:
        if args.keep:
            shutil.copytree(d, args.keep, dirs_exist_ok=True)
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
