#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The peer gateway restarts while traffic runs through this one.

Site A's DC sends RoCE (and the lab's other traffic) to site B without a
pause: through gateway A (the WAN memif server), over the WAN link, out of
gateway B to a receiver at site B. Mid-run gateway B is killed (SIGKILL:
no goodbye, its WAN memif end simply goes away) and started again with the
same config; a new receiver takes its DC port. Gateway A is never
restarted. Checked:

- before the kill, and again after the restart, site B receives A's
  frames intact (each one a frame A sent, as the gateways emit it);
- after the restart the path carries data again within RECOVER_S of the
  new gateway B's API answering, and gateway B decapsulates exactly what
  it forwards to its DC (nothing lost inside it);
- gateway A: the WAN port went down and came back without a restart of the
  process (`show ports` restart counters), and every packet it received is
  accounted for: rx = forwarded + drops + punted + queued, with the frames
  that met the dead link under named drop reasons; nothing stays queued
  and no mbuf is in use at exit;
- gateway A measures no clock offset to the restarted B beyond
  MAX_OFFSET_NS (one machine, one realtime clock);
- with `lossless = credit`: the restarted B is a new credit epoch; gateway
  A takes its grants (grants_rx grows after the restart) and sends data
  within them, so no RoCE data waits for credit at the end.

    test_peer_restart.py --build BUILDDIR [--lossless credit]
"""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwlab  # noqa: E402
from scapy.all import rdpcap  # noqa: E402

PPS = 2000
BEFORE_PKTS = PPS  # frames through both gateways before the kill (about 1 s)
BEFORE_MAX_S = 10.0  # the sender's memif may take seconds to connect on a loaded machine
DOWN_S = 1.0  # gateway B dead
AFTER_S = 4.0  # traffic after the restart
SRC_MAX_S = 60.0  # the sender is stopped AFTER_S after the restart; this bounds it
RECOVER_S = 3.0  # data again at site B after the new gateway B answers
MAX_OFFSET_NS = 2_000_000  # two processes on one machine, one realtime
# Drop reasons gateway A may give the frames that met the dead link (or,
# with credit, waited beyond its queue for a peer that no longer granted).
DEAD_LINK_DROPS = {"tx_ring_full", "wan_queue_full", "port_stopped"}


def receiver(build, tag, sock, rx, duration):
    return gwlab.pktio(build, tag, f"net_memif0,role=client,socket={sock},id=0,bsize=8192",
                       rx=rx, duration=duration)


def run(build, tmp, lossless):
    tag = f"pr{os.getpid()}{(lossless or 'off')[0]}"
    path, sock = gwlab.two_site_configs(tmp, tag, lossless)
    tx = f"{tmp}/site-a-tx.pcap"
    subprocess.run(["/usr/bin/python3", os.path.join(gwlab.ROOT, "scripts", "lab_traffic.py"),
                    "--site", "a", "--out", tx, "--qps", "3", "--writes", "4"],
                   check=True, capture_output=True)
    sent = rdpcap(tx)
    want = {gwlab.expected_after_gateways(f, "b") for f in sent}
    problems, res = [], {}

    ga = gwlab.Gateway(build, path["a"], f"{tmp}/gw-a.log").start()
    gb = gwlab.Gateway(build, path["b"], f"{tmp}/gw-b1.log").start()
    gb2 = None
    leak_a = leak_b = None
    try:
        pid_a = ga.proc.pid
        rx1 = receiver(build, f"{tag}-rx1", sock["b"], f"{tmp}/b-rx1.pcap", BEFORE_MAX_S + 2.0)
        src = gwlab.pktio(build, f"{tag}-tx", f"net_memif0,role=client,socket={sock['a']},id=0,"
                          f"bsize=8192", tx=tx, loop=100000, pps=PPS, duration=SRC_MAX_S)
        t0 = time.time()
        while (time.time() - t0 < BEFORE_MAX_S and
               gb.ctl("show", "peers")["peers"]["site-a"]["rx_pkts"] < BEFORE_PKTS):
            time.sleep(0.1)
        before = ga.ctl("show", "peers")["peers"]["site-b"]
        gb.proc.send_signal(signal.SIGKILL)
        gb.proc.wait()
        gb.log.close()
        rx1.send_signal(signal.SIGTERM)  # it stops and writes what it received
        rx1.communicate(timeout=30)
        time.sleep(DOWN_S)
        credit_before = ga.ctl("show", "stats").get("credit", {}).get("grants_rx", 0)
        gb2 = gwlab.Gateway(build, path["b"], f"{tmp}/gw-b2.log").start()
        t_up = time.time()
        rx2 = receiver(build, f"{tag}-rx2", sock["b"], f"{tmp}/b-rx2.pcap", SRC_MAX_S + 5.0)
        # The first of A's packets through the new gateway B.
        first = None
        while time.time() - t_up < RECOVER_S + 2.0:
            if gb2.ctl("show", "peers")["peers"]["site-a"]["rx_pkts"] > 0:
                first = time.time() - t_up
                break
            time.sleep(0.05)
        res["recovered_s"] = first
        # The sender stops first and the receiver after the last frames got
        # through, so that every frame gateway B sends has a reader.
        time.sleep(AFTER_S)
        src.send_signal(signal.SIGTERM)
        src.communicate(timeout=30)
        time.sleep(1.0)
        rx2.send_signal(signal.SIGTERM)
        rx2.communicate(timeout=30)
        st_a, tm_a = gwlab.settled(ga)
        dr_a = ga.ctl("show", "drops")
        ports_a = ga.ctl("show", "ports")["ports"]["wan"]
        peer_a = ga.ctl("show", "peers")["peers"]["site-b"]
        st_b = gb2.ctl("show", "stats")
        dr_b = gb2.ctl("show", "drops")
        peer_b = gb2.ctl("show", "peers")["peers"]["site-a"]
        res["pid_a_same"] = ga.proc.poll() is None and ga.proc.pid == pid_a
    finally:
        leak_a = ga.stop()
        if gb2 is not None:
            leak_b = gb2.stop()
        elif gb.proc.poll() is None:
            gb.proc.kill()

    got1, got2 = rdpcap(f"{tmp}/b-rx1.pcap"), rdpcap(f"{tmp}/b-rx2.pcap")
    print(f"site B received {len(got1)} frames before the kill, {len(got2)} after the restart; "
          f"data again {res['recovered_s']} s after gateway B answered")
    for name, got in (("before the kill", got1), ("after the restart", got2)):
        if len(got) < PPS / 4:
            problems.append(f"site B received only {len(got)} frames {name}")
        bad = sum(1 for f in got if bytes(f) not in want)
        if bad:
            problems.append(f"{bad} frames {name} are not frames site A sent")
    if res["recovered_s"] is None or res["recovered_s"] > RECOVER_S:
        problems.append(f"no data at site B within {RECOVER_S} s of the restart "
                        f"({res['recovered_s']})")
    if not res["pid_a_same"]:
        problems.append("gateway A is not the process it was")
    # A's WAN end is the memif server: it saw the link go and waited for the
    # client to come back (a client end would have been restarted).
    r = ports_a["restart"]
    print(f"gateway A's WAN port: {r}")
    if r["link_down"] < 1 or r["state"] != "running" or r["start_failed"] != 0:
        problems.append(f"gateway A's WAN port did not go down and come back: {r}")
    # Gateway A: every packet accounted for, the dead link's under named reasons.
    q = gwlab.queued(tm_a) + tm_a["mechanism_b"]["queued"]
    if st_a["rx_pkts"] != st_a["forwarded"] + st_a["drops"] + st_a["punted"] + q:
        problems.append(f"gateway A: rx {st_a['rx_pkts']} != forwarded {st_a['forwarded']} + "
                        f"drops {st_a['drops']} + punted {st_a['punted']} + queued {q}")
    if q != 0:
        problems.append(f"gateway A: {q} packets still queued at the end")
    by = {k: v["count"] for k, v in dr_a["drops"].items() if v["count"]}
    print("gateway A drops: " + (", ".join(f"{k}={v}" for k, v in by.items()) or "none"))
    allowed = {"probe_consumed", "credit_control"} | DEAD_LINK_DROPS
    bad = {k: v for k, v in by.items() if k not in allowed}
    if bad:
        problems.append("gateway A: drops " + ", ".join(f"{k}={v}" for k, v in bad.items()))
    m_a = peer_a["measured"]
    print(f"gateway A: {by.get('probe_consumed', 0)} probes consumed, {m_a['probes_rx']} "
          f"measured; clock offset to the restarted B {m_a.get('offset_ns')} ns, "
          f"RTT {m_a.get('rtt_ns')} ns")
    # Both gateways' clocks are this machine's realtime at their start plus
    # TSC ticks at the measured rate (dataplane/tsc.h): the restarted one,
    # seconds younger, must still agree (DPDK's rounded rate made it 8.8 ms).
    if m_a.get("offset_ns") is None or abs(m_a["offset_ns"]) > MAX_OFFSET_NS:
        problems.append(f"gateway A measures a clock offset of {m_a.get('offset_ns')} ns to the "
                        f"restarted gateway B on the same machine (at most {MAX_OFFSET_NS})")
    print(f"gateway A to site-b: {before['tx_pkts']} packets before the kill, "
          f"{peer_a['tx_pkts']} at the end")
    if peer_a["tx_pkts"] <= before["tx_pkts"]:
        problems.append("gateway A sent nothing to site-b after the restart")
    # The new gateway B: what it decapsulated from A left its DC port, or
    # met it before the new receiver had connected (the DC memif's tx finds
    # no peer: tx_ring_full).
    by_b = {k: v["count"] for k, v in dr_b["drops"].items() if v["count"]}
    print("gateway B (restarted) drops: " + (", ".join(f"{k}={v}" for k, v in by_b.items())
                                              or "none"))
    bad_b = {k: v for k, v in by_b.items()
             if k not in ("probe_consumed", "credit_control", "tx_ring_full")}
    if bad_b:
        problems.append("gateway B (restarted): drops "
                        + ", ".join(f"{k}={v}" for k, v in bad_b.items()))
    if peer_b["rx_pkts"] != len(got2) + by_b.get("tx_ring_full", 0):
        problems.append(f"gateway B (restarted) decapsulated {peer_b['rx_pkts']} packets from "
                        f"site-a, site B received {len(got2)}, "
                        f"{by_b.get('tx_ring_full', 0)} not sent")
    if lossless == "credit":
        cr = st_a["credit"]
        print(f"gateway A credit: grants {credit_before} when B died, {cr['grants_rx']} at the "
              f"end")
        if cr["grants_rx"] <= credit_before:
            problems.append("gateway A took no grant from the restarted gateway B")
        if cr["overrun_bytes"] != 0:
            problems.append(f"gateway A: credit overrun {cr['overrun_bytes']} B")
    for s, leak in (("A", leak_a), ("B (restarted)", leak_b)):
        if leak != 0:
            problems.append(f"gateway {s}: {leak} mbufs in use at exit")
    if problems:
        for s in ("a", "b1", "b2"):
            print(f"--- gateway {s} log tail ---")
            print(open(f"{tmp}/gw-{s}.log").read()[-1500:])
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--lossless", choices=["pfc", "credit"], default=None)
    a = ap.parse_args()
    os.makedirs("/run/longspan", exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ls-pr-") as tmp:
        problems = run(os.path.abspath(a.build), tmp, a.lossless)
    gwlab.finish(problems, "data through gateway A again after its peer restarted"
                 + (f", lossless = {a.lossless}" if a.lossless else ""))


if __name__ == "__main__":
    main()
