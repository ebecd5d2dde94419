#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Mechanism B's credit hop against a WAN slower than the offered load.

Two gateways whose WAN ports meet in longspan-wanem (net_memif, wanem the
server of both). Wanem shapes each direction to RATE (half the offered
load) behind a buffer of --queue-bytes, 5 ms one way: the WAN's
bottleneck, which the gateways do not shape for (their WAN link_rate is
100M, several times RATE; their peer rtt is wanem's round trip). Site A's
sender (longspan-pktio) offers a burst of one RoCE RC WRITE stream (3000
packets of 1 KiB at 4000 pps, Not-ECT, DSCP 26) toward site B, at twice
RATE and long enough to overflow wanem's buffer twice over.

Two runs of the same scenario:

- lossless = credit on both gateways. Gateway B grants a credit window
  (the derived credit buffer, BDP + rate x one PFC pause: 132000 B here,
  a quarter of wanem's queue; checked first); gateway A sends within it
  and queues the rest in its own WAN queue, whose [congestion] buffer
  (4MB) holds the whole burst. Must hold: wanem dropped nothing in either
  direction; neither gateway dropped anything but the peer's probes and
  credit control packets it consumes by design; each gateway's packets
  are accounted for (rx = forwarded + drops + punted + queued, tx =
  forwarded + own_tx, nothing queued at the end) and no own packet failed
  to go out during the traffic; every offered packet reached site B
  exactly once, intact and in PSN order; the credit hop was in use (the
  sender waited for credit; no overrun, no lost bytes, no GENEVE sequence
  gap); gateway A paused its DC fabric (PFC, priority 3: pktio ignores it)
  while its queue was above pfc_xoff; no mbuf leaked anywhere.
- lossless = off (the control run, so that the test can fail): wanem's
  queue must drop and site B must miss packets; the gateways still drop
  nothing themselves.

The credit window is the bytes in flight between the gateways, so the
scenario holds while window + the control packets a stalled process lets
pile up stay below wanem's queue: control packets go only with news or on
the refresh (max(10 ms, 2 RTT): 50 a second each way at the 10 ms RTT),
and the window is a quarter of the queue, so that a shared 2-vCPU machine pausing wanem for a
few hundred ms does not overflow it.

    test_credit_shaped.py --build BUILDDIR [--pkts N] [--pps N] [--payload B]
        [--rate-bps R] [--queue-bytes B] [--delay-us D] [--max-wait S]
        [--only credit|off]

The numbers (offered, delivered, drops, credit and PFC counters, times)
are printed in any case. About 15 s.
"""

import argparse
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwlab  # noqa: E402
from lspkt import roce_icrc  # noqa: E402  (scripts/, on gwlab's path)
from scapy.all import IP, UDP, Ether, Raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

EAL = ["-m", "128", "--no-pci", "--log-level=*:warning"]
OP_WRITE_MIDDLE = 0x07
PSN_OFF = 14 + 20 + 8 + 9  # Ethernet, IPv4, UDP, then the BTH's PSN (3 bytes)
DATA_DSCP = 26  # [congestion] data_dscp default: PFC priority 3, the credited one
PFC_ETHERTYPE = 0x8808
WAN_LINK_RATE = "100M"  # what the gateways shape to: well above wanem's rate
DC_LINK_RATE = "100G"  # the PFC pause time, hence the credit buffer, derive from it
# Packets wanem's line holds (queue, fibre, ready to send): more than the
# control packets one gateway sends toward the other before that one is up
# (a report every credit_refresh_ns), so that they wait instead of being
# dropped; the bottleneck's limit is --queue-bytes.
WANEM_SLOTS = 16384


def ip4_checksum(h):
    """The IPv4 header checksum of header h (its checksum field zero)."""
    x = sum(struct.unpack(f"!{len(h) // 2}H", h))
    while x >> 16:
        x = (x & 0xffff) + (x >> 16)
    return ~x & 0xffff


def frames_for(n, payload):
    """
    N RoCE RC WRITE MIDDLE frames of one QP from site A's router to gateway
    A, PSN 0..N-1, as bytes. Scapy builds the first (and its ICRC); the rest
    are that frame with the PSN and ICRC patched, which is much faster (a
    check below compares one of them with scapy's).
    """
    s = gwlab.SITE["a"]

    def scapy_frame(psn):
        ip = IP(src="10.1.0.1", dst="10.2.0.1", tos=DATA_DSCP << 2)  # Not-ECT: never marked
        return bytes(Ether(src=s["router_mac"], dst=s["dc_mac"]) / ip /
                     UDP(sport=49152, dport=4791, chksum=0) /  # as RoCE NICs send it
                     BTH(opcode=OP_WRITE_MIDDLE, dqpn=0x100, psn=psn) / Raw(bytes(payload)))

    first = scapy_frame(0)
    out = []
    for psn in range(n):
        f = bytearray(first)
        f[PSN_OFF:PSN_OFF + 3] = psn.to_bytes(3, "big")
        f[-4:] = roce_icrc(bytes(f[14:-4]))
        out.append(bytes(f))
    if n > 1 and out[n - 1] != scapy_frame(n - 1):
        raise RuntimeError("patched frame differs from scapy's")
    return out


def after_gateways(frame):
    """frame as gateway B emits it toward its router: new MACs, TTL - 1."""
    s = gwlab.SITE["b"]
    ip = bytearray(frame[14:])
    ip[8] -= 1
    ip[10:12] = b"\0\0"
    ip[10:12] = ip4_checksum(bytes(ip[:20])).to_bytes(2, "big")
    return bytes.fromhex(s["router_mac"].replace(":", "")) + \
        bytes.fromhex(s["dc_mac"].replace(":", "")) + frame[12:14] + bytes(ip)


def pcap_write(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for fr in frames:
            f.write(struct.pack("<IIII", 0, 0, len(fr), len(fr)) + fr)


def pcap_read(path):
    """[(time in s, frame bytes)] of a microsecond pcap in this host's byte order."""
    data = open(path, "rb").read()
    if struct.unpack("<I", data[:4])[0] != 0xa1b2c3d4:
        raise RuntimeError(f"{path}: not a little-endian microsecond pcap")
    out, o = [], 24
    while o + 16 <= len(data):
        sec, usec, caplen, _ = struct.unpack("<IIII", data[o:o + 16])
        out.append((sec + usec / 1e6, data[o + 16:o + 16 + caplen]))
        o += 16 + caplen
    return out


def gateway_text(site, tag, tmp, lossless, wan_sock, rtt_us):
    text = gwlab.gateway_config(
        site, tag,
        dc_dev=f"net_memif0,role=server,socket={tmp}/{tag}-{site}-dc.sock,id=0,bsize=8192",
        wan_dev=f"net_memif1,role=client,socket={wan_sock},id=0,bsize=8192")
    text = text.replace("link_rate = 10G", f"link_rate = {WAN_LINK_RATE}")
    text = text.replace("rtt = 1ms", f"rtt = {rtt_us}us")
    text = text.replace("[port wan]\n", f"link_rate = {DC_LINK_RATE}\n[port wan]\n", 1)
    out = []
    for line in text.splitlines():
        out.append(line)
        if line.startswith("[peer "):
            out.append(f"lossless = {lossless}")
    # No marking (the packets are Not-ECT anyway); a WAN queue that holds the
    # whole default burst (3000 x 1068 B) even if none of it had left, since
    # pktio ignores the PFC that would keep it short in a real fabric;
    # pfc_xoff low enough that the waiting burst crosses it.
    out += ["[congestion]", "marker = none", "buffer = 4MB", "pfc_xoff = 256KB",
            "pfc_xon = 128KB"]
    return "\n".join(out) + "\n"


def credit_window(g):
    """The credit buffer gateway g grants its peer (longspanctl tune), in bytes."""
    return g.ctl("tune")["ports"]["wan"].get("credit_buffer_bytes")


def check_gateway(s, base, st, dr, tm, leak, problems):
    """Drops, accounting and leaks of gateway s; returns the drops by reason."""
    by = {k: v["count"] for k, v in dr["drops"].items() if v["count"]}
    allowed = {"probe_consumed", "credit_control"}
    bad = {k: v for k, v in by.items() if k not in allowed}
    if bad:
        problems.append(f"gateway {s}: drops " + ", ".join(f"{k}={v}" for k, v in bad.items()))
    q = gwlab.queued(tm) + tm["mechanism_b"]["queued"]
    if st["rx_pkts"] != st["forwarded"] + st["drops"] + st["punted"] + q:
        problems.append(f"gateway {s}: rx {st['rx_pkts']} != forwarded {st['forwarded']} + "
                        f"drops {st['drops']} + punted {st['punted']} + queued {q}")
    if st["tx_pkts"] != st["forwarded"] + st["own_tx"]:
        problems.append(f"gateway {s}: tx {st['tx_pkts']} != forwarded {st['forwarded']} + "
                        f"own {st['own_tx']}")
    if q != 0:
        problems.append(f"gateway {s}: {q} packets still queued at the end")
    print(f"gateway {s}: own packets not sent: {base['own_tx_failed']} before the traffic, "
          f"{st['own_tx_failed']} at the end")
    if st["own_tx_failed"] != base["own_tx_failed"]:
        problems.append(f"gateway {s}: {st['own_tx_failed'] - base['own_tx_failed']} own "
                        f"packets not sent during the traffic")
    if leak != 0:
        problems.append(f"gateway {s}: {leak} mbufs in use at exit")
    return by


def run(build, tmp, lossless, a, frames):
    tag = f"cs{os.getpid()}{lossless[0]}"
    tx = f"{tmp}/{tag}-a-tx.pcap"
    pcap_write(tx, frames)
    wanem = os.path.join(build, "tests", "lab", "longspan-wanem")
    wjson = f"{tmp}/{tag}-w.json"
    wlog = f"{tmp}/{tag}-wanem.log"
    wsock = {s: f"{tmp}/{tag}-{s}-wan.sock" for s in "ab"}
    server = "net_memif%d,role=server,socket=%s,id=0,bsize=8192"
    w = subprocess.Popen([wanem, "-l", "0", "--file-prefix", tag + "w"] + EAL +
                         ["--vdev=" + server % (0, wsock["a"]), "--vdev=" + server % (1, wsock["b"]),
                          "--", "--delay", f"{a.delay_us}us", "--rate", str(a.rate_bps),
                          "--queue-bytes", str(a.queue_bytes), "--queue-pkts", str(WANEM_SLOTS),
                          "--stats-interval", "0",
                          "--json", wjson],
                         stdout=open(wlog, "w"), stderr=subprocess.STDOUT)
    gw = {}
    leaks = {}
    t0 = time.time()
    try:
        gwlab.wanem_wait(wlog, w)
        for s in "ab":
            path = f"{tmp}/{tag}-{s}.conf"
            open(path, "w").write(gateway_text(s, tag, tmp, lossless, wsock[s], 2 * a.delay_us))
            gw[s] = gwlab.Gateway(build, path, f"{tmp}/{tag}-gw-{s}.log").start()
        window = credit_window(gw["b"])
        base = {s: gw[s].ctl("show", "stats") for s in "ab"}
        # Traffic: A sends the burst and records what its gateway sends back
        # (PFC frames); B records what arrives. Both run until the burst has
        # had time to drain through wanem at its rate, or B has all of it.
        # Without credit the burst has crossed wanem (or been dropped there)
        # twice the burst's time after it started; with credit the receiver
        # stops once it has every packet, within --max-wait.
        burst_s = a.pkts / a.pps
        duration = a.max_wait if lossless == "credit" else 2 * burst_s + 2.0
        vdev = "net_memif0,role=client,socket={}/{}-{}-dc.sock,id=0,bsize=8192"
        pk = {
            "b": gwlab.pktio(build, f"{tag}-pkb", vdev.format(tmp, tag, "b"),
                             rx=f"{tmp}/{tag}-b-rx.pcap", duration=duration, expect=a.pkts),
            "a": gwlab.pktio(build, f"{tag}-pka", vdev.format(tmp, tag, "a"), tx=tx,
                             rx=f"{tmp}/{tag}-a-rx.pcap", pps=a.pps, duration=duration),
        }
        t1 = time.time()
        out, _ = pk["b"].communicate(timeout=duration + 30)
        t_traffic = time.time() - t1
        print(f"{lossless}: pktio b: {out.strip().splitlines()[-1]}")
        # Site A only receives gateway A's PFC frames now: its queue is empty
        # once B has everything.
        pk["a"].send_signal(signal.SIGTERM)
        out, _ = pk["a"].communicate(timeout=30)
        print(f"{lossless}: pktio a: {out.strip().splitlines()[-1]}")
        st, tm = {}, {}
        for s in "ab":
            st[s], tm[s] = gwlab.settled(gw[s])
        dr = {s: gw[s].ctl("show", "drops") for s in "ab"}
        peers = {s: gw[s].ctl("show", "peers") for s in "ab"}
    finally:
        for s, g in gw.items():
            leaks[s] = g.stop()
        w.terminate()
        w.wait(timeout=15)
    elapsed = time.time() - t0
    wj = json.load(open(wjson))
    return dict(frames=frames, base=base, st=st, dr=dr, tm=tm, peers=peers, leaks=leaks, wj=wj,
                window=window, t_traffic=t_traffic, elapsed=elapsed,
                rx={s: pcap_read(f"{tmp}/{tag}-{s}-rx.pcap") for s in "ab"})


def delivered(r):
    """Indexes of site B's packets in arrival order (intact ones), and the count of others."""
    index = {after_gateways(f): i for i, f in enumerate(r["frames"])}
    got, foreign = [], 0
    for _, f in r["rx"]["b"]:
        i = index.get(f)
        if i is None:
            foreign += 1
        else:
            got.append(i)
    return got, foreign


def report(name, r, a):
    wa, wb = r["wj"]["directions"]  # 0: port 0 (site a) -> port 1 (site b)
    got, foreign = delivered(r)
    cr = {s: r["st"][s]["credit"] for s in "ab"}
    pfc3 = r["tm"]["a"]["mechanism_b"]["priority_3"]
    pfc_frames = sum(1 for _, f in r["rx"]["a"] if f[12:14] == PFC_ETHERTYPE.to_bytes(2, "big"))
    wan_a = r["tm"]["a"]["ports"]["wan"]["classes"]
    depth = max(c.get("depth_max_bytes", 0) for c in wan_a.values())
    offered_bps = a.pps * len(r["frames"][0]) * 8
    wan_bps = wa["rx_bytes"] * 8 / (a.pkts / a.pps)
    print(f"{name}: offered {len(r['frames'])} packets at {a.pps} pps "
          f"({offered_bps / 1e6:.1f} Mb/s of frames, {offered_bps / a.rate_bps:.2f} x wanem's "
          f"{a.rate_bps / 1e6:.1f} Mb/s; wanem a->b took in {wan_bps / 1e6:.1f} Mb/s over the "
          f"burst's time, tunnel and control packets included); site B got {len(got)} of them ({len(set(got))} distinct, "
          f"{foreign} other frames), in order: {got == sorted(got)}")
    print(f"{name}: wanem a->b rx {wa['rx_pkts']} tx {wa['tx_pkts']} drop queue {wa['drop_queue']} "
          f"slots {wa['drop_slots']} loss {wa['drop_loss']}, max backlog {wa['max_backlog_bytes']} B "
          f"of {a.queue_bytes}; b->a rx {wb['rx_pkts']} drop queue {wb['drop_queue']}; "
          f"mbufs in use at exit {r['wj']['mbufs_in_use']}")
    for s in "ab":
        d = r["dr"][s]
        print(f"{name}: gateway {s}: rx {r['st'][s]['rx_pkts']} forwarded {r['st'][s]['forwarded']} "
              f"drops {d['total']} ("
              + ", ".join(f"{k}={v['count']}" for k, v in d["drops"].items() if v["count"]) + ")"
              f", credit sent {cr[s]['sent_bytes']} B blocked {cr[s]['blocked']} "
              f"({cr[s]['blocked_ns'] / 1e6:.1f} ms) grants rx {cr[s]['grants_rx']} tx "
              f"{cr[s]['grants_tx']} ctrl {cr[s]['ctrl_tx']} overrun {cr[s]['overrun_bytes']} "
              f"lost {cr[s]['lost_bytes']}, mbufs at exit {r['leaks'][s]}")
    times = [t for t, _ in r["rx"]["b"]]
    span = max(times) - min(times) if len(times) > 1 else 0.0
    inner = (len(r["frames"][0]) - 14) * len(got)
    print(f"{name}: site B received for {span:.2f} s (first to last packet): "
          f"{inner * 8 / span / 1e6 if span else 0:.1f} Mb/s of inner IP, wanem's rate "
          f"{a.rate_bps / 1e6:.1f} Mb/s")
    print(f"{name}: gateway a: WAN queue max {depth} B, PFC priority 3 pauses {pfc3['tx_pauses']} "
          f"resumes {pfc3['tx_resumes']} ({pfc3['tx_paused_ns'] / 1e6:.1f} ms), "
          f"{pfc_frames} PFC frames seen at site A; credit window {r['window']} B; "
          f"traffic {r['t_traffic']:.1f} s, run {r['elapsed']:.1f} s")
    print(f"{name}: wanem late avg {wa['late_avg_ns'] / 1e3:.0f} us max {wa['late_max_ns'] / 1e3:.0f} us, "
          f"tx_full {wa['tx_full']}/{wb['tx_full']}; gateway sleeps a {r['st']['a']['sleeps']} "
          f"b {r['st']['b']['sleeps']}, idle a {r['st']['a']['idle_pct']}% b {r['st']['b']['idle_pct']}%")
    return got, foreign


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--pkts", type=int, default=3000)
    ap.add_argument("--pps", type=int, default=4000)
    ap.add_argument("--payload", type=int, default=1024)
    ap.add_argument("--rate-bps", type=int, default=0,
                    help="wanem's rate per direction; 0: half the offered inner rate")
    ap.add_argument("--queue-bytes", type=int, default=512 * 1024)
    ap.add_argument("--delay-us", type=int, default=5000,
                    help="wanem's one-way delay; the gateways' peer rtt is twice it")
    ap.add_argument("--max-wait", type=float, default=20.0,
                    help="seconds the credit run may take to deliver the burst")
    ap.add_argument("--only", choices=["credit", "off"])
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    frames = frames_for(a.pkts, a.payload)
    if a.rate_bps == 0:
        a.rate_bps = a.pps * len(frames[0]) * 8 // 2
    os.makedirs("/run/longspan", exist_ok=True)
    problems = []
    with tempfile.TemporaryDirectory(prefix="ls-credit-") as tmp:
        if a.only != "off":
            r = run(build, tmp, "credit", a, frames)
            got, foreign = report("credit", r, a)
            wa, wb = r["wj"]["directions"]
            p = []
            if r["window"] is None or r["window"] >= a.queue_bytes:
                p.append(f"credit window {r['window']} B is not below wanem's queue "
                         f"{a.queue_bytes} B: the scenario shows nothing")
            for d, name in ((wa, "a->b"), (wb, "b->a")):
                if d["drop_queue"] or d["drop_slots"] or d["drop_loss"]:
                    p.append(f"wanem {name}: drops queue {d['drop_queue']} slots "
                             f"{d['drop_slots']} loss {d['drop_loss']}")
            if r["wj"]["mbufs_in_use"] != 0:
                p.append(f"wanem: {r['wj']['mbufs_in_use']} mbufs in use at exit")
            for s in "ab":
                check_gateway(s, r["base"][s], r["st"][s], r["dr"][s], r["tm"][s], r["leaks"][s], p)
                cr = r["st"][s]["credit"]
                if cr["overrun_bytes"] or cr["lost_bytes"] or cr["ctrl_failed"]:
                    p.append(f"gateway {s}: credit overrun {cr['overrun_bytes']} B, lost "
                             f"{cr['lost_bytes']} B, {cr['ctrl_failed']} control packets not built")
                gaps = r["peers"][s]["peers"][f"site-{gwlab.other(s)}"]["rx_seq_gaps"]
                if gaps:
                    p.append(f"gateway {s}: {gaps} GENEVE sequence gaps")
            if got != list(range(a.pkts)):
                p.append(f"site B got {len(got)} of {a.pkts} packets"
                         + ("" if got == sorted(got) else ", out of order"))
            if foreign:
                p.append(f"site B got {foreign} frames that were not sent (or were altered)")
            if r["st"]["a"]["credit"]["blocked"] == 0:
                p.append("gateway a never waited for credit: the WAN was not the bottleneck")
            if r["tm"]["a"]["mechanism_b"]["priority_3"]["tx_pauses"] == 0:
                p.append("gateway a never paused its DC although its queue crossed pfc_xoff")
            problems += ["credit: " + x for x in p]
        if a.only != "credit":
            r = run(build, tmp, "off", a, frames)
            got, foreign = report("off", r, a)
            wa = r["wj"]["directions"][0]
            p = []
            if wa["drop_queue"] == 0:
                p.append("wanem's queue dropped nothing without credit: the scenario does not "
                         "overload the WAN, so the credit run proves nothing")
            if len(got) >= a.pkts:
                p.append(f"site B got all {a.pkts} packets across an overloaded WAN")
            for s in "ab":
                check_gateway(s, r["base"][s], r["st"][s], r["dr"][s], r["tm"][s], r["leaks"][s], p)
            problems += ["off: " + x for x in p]
    gwlab.finish(problems, "with credit nothing was lost across a WAN shaped below the offered "
                 "load; without, wanem's queue dropped")


if __name__ == "__main__":
    main()
