#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The distance changes under traffic: two longspand whose WAN ports meet in
longspan-wanem at 10 km (49 us one way), both peers `rtt = auto`, RoCE
traffic both ways between the sites' DCs (longspan-pktio); then the delay
line becomes 100 km (490 us, SIGUSR1 with --delay-alt) while the traffic
runs.

Checks, on each gateway:
- the published parameters (`longspanctl tune`: the WAN port's derived
  rtt_ns, kmin/kmax, buffer) move from the 10 km measurement to the 100 km
  one, within the documented time: 3 measurement intervals outside the
  hysteresis band plus the interval that first sees the new delay, counted
  in the gateway's own intervals (longspan_measure_intervals_total on its
  Prometheus endpoint before the step against show peers'
  rtt_changed_interval, the interval the move happened in: at most 5, one
  for reading the counter around the step; the wall time is printed, it
  also holds the control thread's waits for a CPU on a shared machine), and the
  change is counted (rtt_changes; the lab's timing noise may add more,
  each one a republish under traffic too);
- zero drops caused by the change: every frame sent arrives exactly once
  intact at the other site, and the gateways drop nothing but the peer's
  path probes (probe_consumed); no mbuf leaked;
- with --pki (the unit suite's lab PKI), the gateways also peer over TLS on
  loopback, and each one's keepalives carry its measured RTT: what the
  other side shows as peer_measured_rtt_us is the sender's own measured
  RTT (within the second between keepalives).

With --flap the change is a link flap instead: under the same traffic the
delay line is killed and started again FLAP_DOWN_S later (both gateways'
memif WAN links go down; docs/operations.md, "Link flaps"). Checks, per
direction, without a restart of either gateway:
- each gateway restarted its WAN port and runs it again;
- what the far site received is what was sent with frames missing
  (the outage, and the burst after it when a receiver falls behind):
  nothing added, duplicated or damaged, nothing reordered within a
  traffic manager class (the classes are served in strict priority, so
  in the backlog after the outage ACKs and CNPs overtake data, and data
  overtakes other IP), and the last FLAP_TAIL frames all arrived;
- the missing frames are accounted for (both directions together: drop
  counters are per gateway): at least the gateways' drops (tx_ring_full
  while a link was down or a ring full, port_stopped while a port was
  stopped, wan_queue_full), at most those plus what the line lost (WAN tx
  minus the other side's WAN rx, read before it: what the delay line
  held or its rings took when it died, and the path probes sent between
  the reads); no other drop; no mbuf leaked.

    test_distance_change.py --build BUILD [--pki DIR] [--flap]
"""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwlab  # noqa: E402
from promtext import prom_get, prom_parse  # noqa: E402
from scapy.all import Ether, rdpcap  # noqa: E402

EAL = ["-m", "128", "--no-pci", "--log-level=*:warning"]
NEAR_NS, FAR_NS = 49_000, 490_000  # 10 km and 100 km of fibre, one way
INTERVAL_S = 0.2
BOUND_INTERVALS = 5
WALL_LIMIT_S = 5.0  # how long the test waits for the move at all
FLAP_DOWN_S = 1.0
FLAP_BOUND_S = 5.0  # link back to data flowing: 1 s without a port start plus the back-off
# What may go missing in a flap: dropped by the sender's WAN port, or lost on the line.
FLAP_DROPS = ("tx_ring_full", "port_stopped", "wan_queue_full")
FLAP_TAIL = 500  # the last third of a second of traffic arrives whole


def tune(g):
    return g.ctl("tune")["ports"]["wan"]


LOOPBACK = {"a": "127.0.0.1", "b": "127.0.0.2"}


def peering(text, s, pki, port):
    """TLS peering on loopback under the names the lab PKI's certificates carry."""
    o = gwlab.other(s)
    text = text.replace(f"name = {text.split('name = ', 1)[1].splitlines()[0]}\n",
                        f"name = site-{s}\n", 1)
    text = text.replace(f"[peer site-{o}]\n", f"[peer site-{o}]\npeering_address = "
                        f"{LOOPBACK[o]}\npeering_port = {port}\n", 1)
    return text + "\n".join([
        "[peering]", f"listen = {LOOPBACK[s]}", f"port = {port}", f"ca = {pki}/ca.crt",
        f"cert = {pki}/site-{s}.crt", f"key = {pki}/site-{s}.key", "hold_time = 900ms"]) + "\n"


def keepalive_rtt(gw):
    """Each side's peer_measured_rtt_us against the other's own measured RTT (us)."""
    out = {}
    for s, g in gw.items():
        o = gwlab.other(s)
        mine = g.ctl("show", "peers")["peers"][f"site-{o}"]
        theirs = gw[o].ctl("show", "peers")["peers"][f"site-{s}"]
        out[s] = (mine["session"]["state"], mine["session"]["peer_measured_rtt_us"],
                  (theirs["measured"]["rtt_ns"] or 0) / 1000.0)
    return out


def changed_interval(g, s):
    """The measurement interval of gateway s's last RTT change (show peers)."""
    return g.ctl("show", "peers")["peers"][f"site-{gwlab.other(s)}"]["measured"][
        "rtt_changed_interval"]


def intervals(port):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    return prom_get(prom_parse(text), "longspan_measure_intervals_total")


class Flapped(Exception):
    """The flap run is over: skip the distance step's part."""


def flap(gw, w, restart, log):
    """The delay line goes away for FLAP_DOWN_S under traffic and comes back."""
    problems, res = [], {}
    w.terminate()
    w.wait(timeout=15)
    time.sleep(FLAP_DOWN_S)
    for s, g in gw.items():
        if g.ctl("show", "ports")["ports"]["wan"]["link"]["status"] != "down":
            problems.append(f"{s}: WAN link not down with the delay line gone")
    w = restart()
    gwlab.wanem_wait(log, w)
    t0 = time.time()
    up = {}
    while time.time() - t0 < FLAP_BOUND_S and len(up) < len(gw):
        for s, g in gw.items():
            r = g.ctl("show", "ports")["ports"]["wan"]
            if s not in up and r["link"]["status"] == "up" and r["restart"]["state"] == "running":
                up[s] = time.time() - t0
        time.sleep(0.02)
    for s, g in gw.items():
        r = g.ctl("show", "ports")["ports"]["wan"]["restart"]
        print(f"{s}: WAN port running again {up.get(s)} s after the delay line came back; "
              f"restart {r}")
        if s not in up or r["restarts"] < 1:
            problems.append(f"{s}: WAN port not restarted and running within {FLAP_BOUND_S} s "
                            f"of the link returning: {r}")
    res["problems"] = problems
    return w, res


def ecn_blind(frame):
    """The frame with its ECN field (and the IPv4 header checksum it moves)
    cleared: a CE mark is the gateway's congestion signal, not damage (the
    RoCE ICRC does not cover it either)."""
    b = bytearray(frame)
    if b[12:14] == b"\x08\x00":
        b[15] &= 0xfc
        b[24:26] = b"\x00\x00"
    elif b[12:14] == b"\x86\xdd":
        b[15] &= 0xcf
    return bytes(b)


def in_order(sent, got):
    """None when GOT is SENT with some frames left out: nothing added,
    duplicated or reordered (the earliest match of each frame is the one to
    take when frames repeat), ECN marks aside; else what broke it."""
    sent = [ecn_blind(f) for f in sent]
    i = 0
    for k, g in enumerate(got):
        g = ecn_blind(g)
        j = i
        while j < len(sent) and sent[j] != g:
            j += 1
        if j == len(sent):
            where = [n for n, f in enumerate(sent) if f == g]
            return (f"received frame {k} of {len(got)} ({Ether(g).summary()}) is "
                    + (f"sent frame(s) {where[:4]}, all before sent frame {i} that the "
                       "frame before it matched: twice or out of order" if where else
                       "no frame that was sent"))
        i = j + 1
    return None


ROCE_CONTROL_OPCODES = (0x11, 0x12, 0x81)  # ACK, atomic ACK, CNP


def tm_class(frame):
    """The gateway's traffic manager class of a frame (dataplane/tm.h,
    dp_tm_class_of()): 0 RoCE control (ACK, NAK, CNP), 1 RoCE data, 2 any
    other IP. The classes are served in strict priority, so a backlog
    (the burst after the outage) lets a later frame of a higher class
    overtake an earlier one of a lower class; within a class it is a FIFO."""
    if frame[12:14] == b"\x08\x00":
        l4, proto = 14 + (frame[14] & 0x0f) * 4, frame[23]
    elif frame[12:14] == b"\x86\xdd":
        l4, proto = 14 + 40, frame[20]
    else:
        return 2
    if proto != 17 or len(frame) < l4 + 9 or frame[l4 + 2:l4 + 4] != (4791).to_bytes(2, "big"):
        return 2
    return 0 if frame[l4 + 8] in ROCE_CONTROL_OPCODES else 1


def in_order_by_class(sent, got):
    """in_order() within each traffic manager class (tm_class())."""
    for c, name in enumerate(("RoCE control", "RoCE data", "other")):
        bad = in_order([f for f in sent if tm_class(f) == c], [f for f in got if tm_class(f) == c])
        if bad:
            return f"{name} class: {bad}"
    return None


def ce_marked(got):
    """Frames that arrived with CE (ECN 11)."""
    n = 0
    for f in got:
        if f[12:14] == b"\x08\x00" and f[15] & 3 == 3:
            n += 1
        elif f[12:14] == b"\x86\xdd" and (f[15] >> 4) & 3 == 3:
            n += 1
    return n


def flap_frames(tmp, frames, loops, stats, leaks):
    """
    Drop counters are per gateway, not per port and direction: a frame of
    a -> b may also be dropped by b at its DC port (tx_ring_full when the
    receiving pktio falls behind the burst that follows the outage). So the
    missing frames are accounted for over both directions together.
    """
    problems = []
    missing, counted, line = 0, 0, 0
    for s in "ab":
        o = gwlab.other(s)
        sent = [gwlab.expected_after_gateways(f, o) for f in frames[s]] * loops
        got = [bytes(f) for f in rdpcap(f"{tmp}/site-{o}-rx.pcap")]
        tail = 0
        while tail < len(got) and ecn_blind(got[-1 - tail]) == ecn_blind(sent[-1 - tail]):
            tail += 1
        drops = stats[s][0]["drops"]
        here = {k: drops.get(k, {}).get("count", 0) for k in FLAP_DROPS}
        wan_tx = stats[s][1]["ports"]["wan"]["workers"]["tx_pkts"]
        wan_rx = stats[o][2]["ports"]["wan"]["workers"]["rx_pkts"]  # read before any tx
        lost = wan_tx - wan_rx
        print(f"{s} -> {o}: {len(sent)} sent, {len(got)} received, {len(sent) - len(got)} "
              f"missing, the last {tail} all arrived; gateway {s}'s drops {here}; lost on the "
              f"line at most {lost} (WAN tx {wan_tx}, {o}'s WAN rx {wan_rx}, probes included)")
        missing += len(sent) - len(got)
        counted += sum(here.values())
        line += lost
        bad = in_order_by_class(sent, got)
        if bad:
            problems.append(f"{s}->{o}: {bad}")
        if ce_marked(got):
            print(f"{s} -> {o}: {ce_marked(got)} frames arrived CE-marked (the burst after the "
                  "outage)")
        if len(got) == len(sent):
            problems.append(f"{s}->{o}: nothing missing: the flap did not hit the traffic")
        if tail < FLAP_TAIL:
            problems.append(f"{s}->{o}: only the last {tail} frames arrived without a gap, "
                            f"expected at least {FLAP_TAIL} after the flap")
        other_drops = {k: v["count"] for k, v in drops.items()
                       if v["count"] and k not in FLAP_DROPS and k != "probe_consumed"}
        if other_drops:
            problems.append(f"gateway {s}: other drops {other_drops}")
        if leaks[s] != 0:
            problems.append(f"gateway {s}: {leaks[s]} mbufs in use at exit")
    print(f"both ways: {missing} missing, {counted} counted drops, at most {line} of the "
          "traffic lost on the line")
    if not counted <= missing <= counted + max(line, 0):
        problems.append(f"{missing} frames missing, not the gateways' {counted} drops plus at "
                        f"most {line} lost on the line")
    return problems

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--pki", help="peer over TLS with the certificates in DIR")
    ap.add_argument("--flap", action="store_true", help="a link flap instead of the step")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    problems = []
    with tempfile.TemporaryDirectory(prefix="ls-dist-") as tmp:
        tag = f"dc{os.getpid()}"
        wanem = os.path.join(build, "tests", "lab", "longspan-wanem")
        server = "net_memif%d,role=server,socket=%s/%s-%s.sock,id=0,bsize=8192"
        wlog = f"{tmp}/wanem.log"

        def start_wanem(log):
            return subprocess.Popen([wanem, "-l", "0", "--file-prefix", tag + "w"] + EAL +
                                    ["--vdev=" + server % (0, tmp, tag, "a"),
                                     "--vdev=" + server % (1, tmp, tag, "b"), "--",
                                     "--delay", f"{NEAR_NS}ns", "--delay-alt", f"{FAR_NS}ns",
                                     "--stats-interval", "0"],
                                    stdout=open(log, "w"), stderr=subprocess.STDOUT)
        w = start_wanem(wlog)
        gw, leaks, procs = {}, {}, {}
        prom = {s: gwlab.free_port() for s in "ab"}
        peer_port = gwlab.free_port()
        try:
            gwlab.wanem_wait(wlog, w)
            tx, frames, cfg = {}, {}, {}
            for s in "ab":
                text = gwlab.gateway_config(
                    s, tag,
                    dc_dev=f"net_memif0,role=server,socket={tmp}/{s}-dc.sock,id=0,bsize=8192",
                    wan_dev=f"net_memif1,role=client,socket={tmp}/{tag}-{s}.sock,id=0,"
                            "bsize=8192")
                text = text.replace("rtt = 1ms\n", "rtt = auto\ndistance = 10km\n")
                text = text.replace("[gateway]\n", "[gateway]\nprobe_interval = 10ms\n"
                                    f"measure_interval = {int(INTERVAL_S * 1000)}ms\n", 1)
                text = text.replace("idle_sleep = 200us", "idle_sleep = 50us")
                text += f"[telemetry]\nprometheus = 127.0.0.1:{prom[s]}\n"
                if a.pki:
                    text = peering(text, s, a.pki, peer_port)
                cfg[s] = f"{tmp}/site-{s}.conf"
                open(cfg[s], "w").write(text)
                tx[s] = f"{tmp}/site-{s}-tx.pcap"
                subprocess.run(["/usr/bin/python3",
                                os.path.join(gwlab.ROOT, "scripts", "lab_traffic.py"),
                                "--site", s, "--out", tx[s], "--qps", "3", "--writes", "4"],
                               check=True, capture_output=True)
                frames[s] = rdpcap(tx[s])
            for s in "ab":
                gw[s] = gwlab.Gateway(build, cfg[s], f"{tmp}/gw-{s}.log").start()
            time.sleep(1.5)  # measured at 10 km
            near = {s: tune(g) for s, g in gw.items()}
            changes0 = {s: gw[s].ctl("show", "peers")["peers"][f"site-{gwlab.other(s)}"]
                        ["measured"]["rtt_changes"] for s in "ab"}
            # The flap needs traffic before, during and after: 13.6 s of it, while the
            # delay line's restart and the gateways' back-off have taken up to 5 s.
            loops = 200 if a.flap else 40
            for s in "ab":
                o = gwlab.other(s)
                procs[s] = gwlab.pktio(build, f"{tag}-pk{s}",
                                       f"net_memif0,role=client,socket={tmp}/{s}-dc.sock,id=0,"
                                       "bsize=8192",
                                       tx=tx[s], rx=f"{tmp}/site-{s}-rx.pcap", loop=loops,
                                       pps=1500, duration=22 if a.flap else 14,
                                       expect=len(frames[o]) * loops)
            time.sleep(3.0)  # traffic running at 10 km
            if a.flap:
                w, flapped = flap(gw, w, lambda: start_wanem(wlog + ".2"), wlog + ".2")
                for s in "ab":
                    print(f"pktio {s}: {gwlab.pktio_result(procs[s], 60)}")
                # The gateways keep sending path probes while the counters are
                # read: every WAN rx is read before every WAN tx, so a probe
                # sent between two reads can only make the line look lossier
                # (read the other way, a receiver read after the sender counts
                # probes the sender's count does not, and the bound of what
                # the line lost comes out short).
                rx_first = {s: gw[s].ctl("show", "ports") for s in "ab"}
                stats = {s: (gw[s].ctl("show", "drops"), gw[s].ctl("show", "ports"), rx_first[s])
                         for s in "ab"}
                raise Flapped()
            before = {s: intervals(prom[s]) for s in "ab"}
            w.send_signal(signal.SIGUSR1)
            t0 = time.time()
            moved, took = {}, {}
            while time.time() - t0 < WALL_LIMIT_S and len(moved) < 2:
                for s, g in gw.items():
                    if s not in moved and tune(g)["rtt_ns"] >= 2 * FAR_NS:
                        moved[s] = time.time() - t0
                        # The interval the gateway moved in, not the one this read
                        # lands in: a busy machine delays the read, not the move.
                        took[s] = changed_interval(g, s) - before[s]
                time.sleep(0.02)
            far = {s: tune(g) for s, g in gw.items()}
            if a.pki:
                time.sleep(2.5)  # keepalives every hold_time / 3 carry the new RTT
                ka = keepalive_rtt(gw)
            for s in "ab":
                print(f"pktio {s}: {gwlab.pktio_result(procs[s], 60)}")
            drops = {s: gw[s].ctl("show", "drops") for s in "ab"}
            peers = {s: gw[s].ctl("show", "peers") for s in "ab"}
        except Flapped:
            pass
        finally:
            for p in procs.values():
                if p.poll() is None:
                    p.kill()
            for s, g in gw.items():
                leaks[s] = g.stop()
            w.terminate()
            w.wait(timeout=15)
        if a.flap:
            problems += flapped["problems"]
            problems += flap_frames(tmp, frames, loops, stats, leaks)
            gwlab.finish(problems, "WAN link flap under traffic: every missing frame a counted "
                         "drop or lost on the line, nothing duplicated or reordered, then all "
                         "delivered")
            return
        if a.pki:
            for s, (state, shown, own) in ka.items():
                print(f"{s}: session {state}, the peer's measured RTT in its keepalives "
                      f"{shown} us, the peer's own show peers {own:.0f} us")
                # Both at 100 km now: the keepalive's value is a measurement of the
                # current path, sent within the last second.
                if state != "up" or not 2 * FAR_NS / 1000 <= shown <= 4 * FAR_NS / 1000:
                    problems.append(f"{s}: keepalive RTT {shown} us (session {state}), the "
                                    f"peer measures {own:.0f} us")
        if "delay now 490000 ns" not in open(wlog).read():
            problems.append("wanem did not change its delay")
        for s in "ab":
            o = gwlab.other(s)
            n, f = near[s], far[s]
            print(f"{s}: published at 10 km: rtt {n['rtt_ns']} ns, kmin {n['kmin_bytes']} B, "
                  f"kmax {n['kmax_bytes']} B, buffer {n['buffer_bytes']} B; at 100 km: rtt "
                  f"{f['rtt_ns']} ns, kmin {f['kmin_bytes']} B, kmax {f['kmax_bytes']} B, "
                  f"buffer {f['buffer_bytes']} B; moved {moved.get(s)} s, {took.get(s)} "
                  f"measurement intervals after the step")
            if s not in moved or took[s] > BOUND_INTERVALS:
                problems.append(f"{s}: parameters moved {took.get(s)} intervals "
                                f"({moved.get(s)} s) after the step, bound {BOUND_INTERVALS}")
            if not n["rtt_ns"] < 2 * FAR_NS <= f["rtt_ns"] or \
                    not f["kmax_bytes"] > n["kmax_bytes"] or \
                    not f["buffer_bytes"] > n["buffer_bytes"]:
                problems.append(f"{s}: thresholds did not follow the distance: {n} -> {f}")
            changes = peers[s]["peers"][f"site-{o}"]["measured"]["rtt_changes"] - changes0[s]
            # The step moves the parameters at least once; the lab's own wake-up noise
            # (hundreds of us on a shared 2-vCPU machine) can move them again, and every
            # one of those republishes happens under traffic too.
            print(f"{s}: {changes} republish(es) of the parameters after the first "
                  f"measurement (the step and the noise): " + "; ".join(
                      line.strip() for line in open(f"{tmp}/gw-{s}.log")
                      if "rtt auto:" in line))
            if changes < 1:
                problems.append(f"{s}: the step of the distance republished nothing")
            got = rdpcap(f"{tmp}/site-{o}-rx.pcap")
            p = gwlab.compare(frames[s], got, o, loops=loops)
            after = sum(1 for f in got if float(f.time) >= t0)
            print(f"{s} -> {o}: {after} frames arrived after the step")
            if after == 0:
                problems.append(f"{s}->{o}: the traffic was over before the step")
            print(f"{s} -> {o}: {len(frames[s]) * loops} sent, {len(got)} received, "
                  f"{len(p)} problem(s)")
            problems += [f"{s}->{o}: {x}" for x in p[:10]]
            probes = drops[s]["drops"].get("probe_consumed", {}).get("count", 0)
            if drops[s]["total"] != probes:
                problems.append(f"gateway {s}: drops besides the probes: " + ", ".join(
                    f"{k}={v['count']}" for k, v in drops[s]["drops"].items()
                    if v["count"] and k != "probe_consumed"))
            if leaks[s] != 0:
                problems.append(f"gateway {s}: {leaks[s]} mbufs in use at exit")
    gwlab.finish(problems, "the parameters followed 10 km -> 100 km under traffic, nothing dropped")


if __name__ == "__main__":
    main()
