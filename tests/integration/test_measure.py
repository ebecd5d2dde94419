#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Measured distance through the lab's delay line: two longspand whose WAN
ports meet in longspan-wanem (net_memif, wanem the server of both), site
B's timestamp clock offset by 250 ms ([gateway] clock_offset), path
probes every 10 ms and nothing else on the link.

    test_measure.py --build BUILD [--delays-us 100,1000,5000] [--loss]

For each one-way delay: after a few measurement intervals both gateways
report an RTT no shorter than twice the delay and no longer than that
plus 5% plus twice the error the same setup shows with the line at zero
delay (the smallest RTT then: wanem's and the two gateways' poll and
wake-up latencies, about 250 us on a shared 2-vCPU machine), the offset
cancelled (A sees the offset between the two gateways' clocks, B its
negative, each within the zero-delay error: the real offset is the
injected 250 ms plus the difference of the two start-up readings, which
the test computes from each gateway's clock base and TSC rate in show
stats), the receive one-way delay (a mean over every packet) within 5%
plus the zero-delay mean RTT, and no loss. With --loss: wanem drops 1% (seeded) at 1 ms and
the loss reported over a 10 s interval of 1 ms probes must be within 0.3
percentage points of what wanem says it dropped toward that gateway.

Timing on a shared 2-vCPU machine: the numbers are printed in any case.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwlab  # noqa: E402
from promtext import prom_get, prom_parse  # noqa: E402

OFFSET_NS = 250_000_000
EAL = ["-m", "128", "--no-pci", "--log-level=*:warning"]


def scrape_peer(g, port):
    """Gateway A's /metrics and show peers of one interval: (show peers' measured, samples)."""
    for _ in range(5):
        before = g.ctl("show", "peers")["peers"]["site-b"]["measured"]
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
        after = g.ctl("show", "peers")["peers"]["site-b"]["measured"]
        if before["rtt_ns"] == after["rtt_ns"] and before["samples"] == after["samples"]:
            return after, prom_parse(text)
    raise RuntimeError("the measurement changed during every scrape")


FLAP_DOWN_S = 1.0
FLAP_BOUND_S = 5.0  # memif reconnects on its own timer; the measured time is printed


def wan_state(g):
    """(WAN link status, probes rx, probes failed, rtt_age_ms) of a gateway's one peer."""
    ports = g.ctl("show", "ports")["ports"]
    peer = list(g.ctl("show", "peers")["peers"].values())[0]["measured"]
    return (ports["wan"]["link"]["status"], peer["probes_rx"], peer["probes_failed"], peer["rtt_age_ms"])


def link_flap(gw, w, restart, log):
    """
    The delay line goes away for FLAP_DOWN_S and comes back (both memif
    links down, then up): each gateway sees its WAN link down and stops
    probing into it (probes_failed grows, nothing is queued for a dead
    link), then, with no restart of either gateway, the links come back,
    probes flow both ways again and the RTT is measured anew.
    """
    problems, res = [], {}
    w.terminate()
    w.wait(timeout=15)
    time.sleep(FLAP_DOWN_S)
    down = {s: wan_state(g) for s, g in gw.items()}
    time.sleep(0.5)
    down2 = {s: wan_state(g) for s, g in gw.items()}
    for s in gw:
        if down[s][0] != "down":
            problems.append(f"{s}: WAN link {down[s][0]} with the delay line gone")
        if down2[s][2] <= down[s][2]:
            problems.append(f"{s}: probes_failed {down[s][2]} -> {down2[s][2]} on a dead link")
    w = restart()
    gwlab.wanem_wait(log, w)
    t0 = time.time()  # the delay line serves its sockets again
    up = {}
    while time.time() - t0 < FLAP_BOUND_S and len(up) < len(gw):
        for s, g in gw.items():
            st = wan_state(g)
            if s not in up and st[0] == "up" and st[1] > down2[s][1]:
                up[s] = time.time() - t0
        time.sleep(0.02)
    res["recovered_s"] = up
    for s in gw:
        if s not in up:
            problems.append(f"{s}: no probe from the peer {FLAP_BOUND_S} s after the link returned")
    time.sleep(1.2)  # two measurement intervals
    for s, g in gw.items():
        st = wan_state(g)
        if st[3] is None or st[3] / 1000.0 > time.time() - t0:
            problems.append(f"{s}: RTT not measured again after the flap (age {st[3]} ms)")
    res["restart"] = {s: g.ctl("show", "ports")["ports"]["wan"]["restart"] for s, g in gw.items()}
    for s, r in res["restart"].items():
        if not r["restartable"] or r["restarts"] < 1 or r["state"] != "running":
            problems.append(f"{s}: WAN port restart state {r}")
    res["problems"] = problems
    return w, res


def prom_reloads(g, port, path):
    """Reloads keep the endpoint: a new address is refused by name, the same config taken."""
    text = open(path).read()
    moved = path + ".moved"
    open(moved, "w").write(text.replace(f"127.0.0.1:{port}", f"127.0.0.1:{port + 1}"))
    problems = []
    for conf, ok, want in ((moved, False, "[telemetry] prometheus changed: this needs a restart"),
                           (path, True, "")):
        try:
            g.ctl("reload", conf, json_out=False)
            took, msg = True, ""
        except subprocess.CalledProcessError as e:
            took, msg = False, e.stdout + e.stderr
        if took != ok or want not in msg:
            problems.append(f"reload {conf}: taken {took}, want {ok}: {msg.strip()}")
        body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read()
        if b"longspan_peer_rtt_seconds{" not in body:
            problems.append(f"after the reload of {conf}: no peer section on /metrics")
    return problems


def check_prom(what, prom, problems):
    """The endpoint says what show peers says (same interval)."""
    m, samples = prom
    peer = {"peer": "site-b"}
    pairs = [("longspan_peer_rtt_seconds", m["rtt_ns"], {}),
             ("longspan_peer_rtt_mean_seconds", m["rtt_mean_ns"], {}),
             ("longspan_peer_rtt_in_use_seconds", m["rtt_in_use_ns"], {}),
             ("longspan_peer_clock_offset_seconds", m["offset_ns"], {}),
             ("longspan_peer_one_way_delay_seconds", m["owd_tx_ns"], {"direction": "to_peer"}),
             ("longspan_peer_one_way_delay_seconds", m["owd_rx_ns"], {"direction": "from_peer"}),
             ("longspan_peer_jitter_seconds", m["jitter_ns"], {})]
    for name, ns, extra in pairs:
        v = prom_get(samples, name, **peer, **extra)
        if ns is None or v is None or abs(v * 1e9 - ns) > 1:
            problems.append(f"{what}: Prometheus {name}{extra} {v} s, show peers {ns} ns")
    v = prom_get(samples, "longspan_peer_loss_ratio", **peer)
    if m["loss_pct"] is None or v is None or abs(v * 100 - m["loss_pct"]) > 1e-4:
        problems.append(f"{what}: Prometheus loss {v}, show peers {m['loss_pct']}%")
    print(f"{what}: Prometheus agrees with show peers (rtt "
          f"{prom_get(samples, 'longspan_peer_rtt_seconds', **peer)} s)")


def one(build, tmp, delay_ns, loss, probe, interval, settle, flap=False):
    tag = f"ms{os.getpid()}-{delay_ns // 1000}{'l' if loss else ''}"
    wanem = os.path.join(build, "tests", "lab", "longspan-wanem")
    wopts = ["--delay", f"{delay_ns}ns", "--stats-interval", "500ms",
             "--json", f"{tmp}/{tag}-w.json"]
    if loss:
        wopts += ["--loss", "0.01", "--seed", "7"]
    wlog = f"{tmp}/{tag}-wanem.log"
    server = "net_memif%d,role=server,socket=%s/%s-%s.sock,id=0,bsize=8192"
    client = "net_memif1,role=client,socket=%s/%s-%s.sock,id=0,bsize=8192"
    def start_wanem(log):
        return subprocess.Popen([wanem, "-l", "0", "--file-prefix", tag + "w"] + EAL +
                                ["--vdev=" + server % (0, tmp, tag, "a"),
                                 "--vdev=" + server % (1, tmp, tag, "b"), "--"] + wopts,
                                stdout=open(log, "w"), stderr=subprocess.STDOUT)
    prom = gwlab.free_port()
    w = start_wanem(wlog)
    gw = {}
    got = {}
    try:
        gwlab.wanem_wait(wlog, w)
        for s in "ab":
            text = gwlab.gateway_config(
                s, tag, dc_dev=f"net_memif0,role=server,socket={tmp}/{tag}-{s}-dc.sock,id=0",
                wan_dev=client % (tmp, tag, s))
            extra = [f"probe_interval = {probe}", f"measure_interval = {interval}"]
            if s == "b":
                extra.append(f"clock_offset = {OFFSET_NS // 1000000}ms")
            text = text.replace("[gateway]\n", "[gateway]\n" + "\n".join(extra) + "\n", 1)
            text = text.replace("idle_sleep = 200us", "idle_sleep = 50us")
            if s == "a":
                text += f"\n[telemetry]\nprometheus = 127.0.0.1:{prom}\n"
            path = f"{tmp}/{tag}-{s}.conf"
            open(path, "w").write(text)
            gw[s] = gwlab.Gateway(build, path, f"{tmp}/{tag}-gw-{s}.log").start()
        time.sleep(settle)
        if flap:
            w, got["flap"] = link_flap(gw, w, lambda: start_wanem(wlog + ".2"), wlog + ".2")
            return got, {s: g.stop() for s, g in gw.items()}, None
        got["prom"] = scrape_peer(gw["a"], prom)
        got["prom_reload"] = prom_reloads(gw["a"], prom, f"{tmp}/{tag}-a.conf")
        clk = {}
        for s in "ab":
            o = gwlab.other(s)
            got[s] = gw[s].ctl("show", "peers")["peers"][f"site-{o}"]
            st = gw[s].ctl("show", "stats")
            clk[s] = (st["clock_ns_base"], st["clock_tsc_base"], st["clock_tsc_hz"])
        # The two timestamp clocks on the one TSC: ns = ns_base + (tsc - tsc_base) / hz, so
        # B - A is the injected offset plus the difference of their start-up readings.
        hz = clk["a"][2]
        got["true_offset"] = (clk["b"][0] - clk["a"][0]) - (clk["b"][1] - clk["a"][1]) * 1e9 / hz
    finally:
        leaks = {s: g.stop() for s, g in gw.items() if g.proc.poll() is None}
        w.terminate()
        w.wait(timeout=15)
    wj = json.load(open(f"{tmp}/{tag}-w.json"))
    return got, leaks, wj


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--delays-us", default="100,1000,5000")
    ap.add_argument("--loss", action="store_true")
    ap.add_argument("--flap", action="store_true")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    problems = []
    with tempfile.TemporaryDirectory(prefix="ls-measure-") as tmp:
        base, _, _ = one(build, tmp, 0, False, "10ms", "500ms", 3.0)
        wake = max(base[s]["measured"]["rtt_ns"] or 0 for s in "ab")
        wake_mean = max(base[s]["measured"]["rtt_mean_ns"] or 0 for s in "ab")
        print(f"line at 0: smallest RTT a {base['a']['measured']['rtt_ns']} ns, "
              f"b {base['b']['measured']['rtt_ns']} ns (the gateways' own error)")
        for d_us in [int(x) for x in a.delays_us.split(",")]:
            d = d_us * 1000
            # (Below: a point whose interval stalled is measured again too.)
            # An offset that disagrees with the clocks' real one while every other
            # number is right was seen once in a few dozen runs on a shared machine
            # (both ends agreeing on the same wrong value, 12.7 ms off; not
            # understood yet): such a point is measured once more, loudly, and fails
            # if it disagrees again. Any other problem fails at once.
            for attempt in (1, 2):
                pp = []
                got, leaks, wj = one(build, tmp, d, False, "10ms", "500ms", 3.0)
                # The line's delay is a floor; above it 5% plus what the same setup
                # measures with the line at zero (the emulator's and the gateways' error).
                hi = 2 * d + 0.05 * 2 * d + 2 * wake
                offs = [got[s]["measured"]["offset_ns"] for s in "ab"]
                true = got["true_offset"]
                print(f"wanem {d_us} us: the clocks' offset {true:.0f} ns (injected {OFFSET_NS}, "
                      f"the rest is the two start-up clock readings)")
                check_prom(f"{d_us} us", got["prom"], pp)
                pp += got["prom_reload"]
                for s in "ab":
                    m = got[s]["measured"]
                    want_off = true if s == "a" else -true
                    print(f"wanem {d_us} us: {s}: rtt {m['rtt_ns']} ns (mean {m['rtt_mean_ns']}), "
                          f"owd tx {m['owd_tx_ns']} rx {m['owd_rx_ns']} (mean {m['owd_rx_mean_ns']}), offset {m['offset_ns']}, "
                          f"jitter {m['jitter_ns']}, loss {m['loss_pct']}%, samples {m['samples']}; "
                          f"rtt wanted in [{2 * d}, {hi:.0f}] (5% + 2 x {wake} at zero delay)")
                    if m["rtt_ns"] is None or not 2 * d <= m["rtt_ns"] <= hi:
                        pp.append(f"{d_us} us: {s}: rtt {m['rtt_ns']}, want {2 * d} .. {hi:.0f}")
                    # The clocks' real offset, within the error of the zero-delay RTT.
                    if m["offset_ns"] is None or abs(m["offset_ns"] - want_off) > wake:
                        pp.append(f"{d_us} us: {s}: offset {m['offset_ns']}, want {want_off:.0f}")
                    # The smallest probe samples each way, the offset cancelled: within
                    # 5% plus the zero-delay RTT (the gateways' own error).
                    for k in ("owd_tx_ns", "owd_rx_ns"):
                        if m[k] is None or not d - wake <= m[k] <= 1.05 * d + wake:
                            pp.append(f"{d_us} us: {s}: one-way {k} {m[k]}, want {d}")
                    # The mean over every packet includes whatever the machine held them
                    # for: never below the line, and a stall is not the path (loose bound).
                    v = m["owd_rx_mean_ns"]
                    if v is None or not d - wake <= v <= 2 * d + wake_mean:
                        pp.append(f"{d_us} us: {s}: mean one-way {v}, want {d} or more")
                    if m["loss_pct"] not in (0, 0.0):
                        pp.append(f"{d_us} us: {s}: loss {m['loss_pct']}% on a lossless line")
                    if leaks[s] != 0:
                        pp.append(f"{d_us} us: {s}: {leaks[s]} mbufs in use at exit")
                # Both ends measure the same offset, from either side.
                if None in offs or abs(offs[0] + offs[1]) > wake:
                    pp.append(f"{d_us} us: offsets {offs} do not agree")
                offset_only = pp and all(" offset " in x or "offsets" in x for x in pp)
                if attempt == 1 and offset_only:
                    print(f"wanem {d_us} us: offset disagreed ({'; '.join(pp)}): measuring again")
                    continue
                # A stalled interval: the mean RTT far above the smallest (the
                # machine, not the gateways, held packets). Measured once more,
                # loudly; the same bounds apply to the second measurement.
                stalled = any((got[s]["measured"]["rtt_mean_ns"] or 0) >
                              1.5 * (got[s]["measured"]["rtt_ns"] or 0) for s in "ab")
                if attempt == 1 and pp and stalled:
                    print(f"wanem {d_us} us: a stalled interval ({'; '.join(pp)}): measuring "
                          "again")
                    continue
                problems += pp
                break
        if a.flap:
            got, leaks, _ = one(build, tmp, 1000000, False, "10ms", "500ms", 3.0, flap=True)
            print(f"link flap: probes from the peer again after {got['flap']['recovered_s']} s "
                  f"(wanem back after {FLAP_DOWN_S} s down); WAN port restarts "
                  f"{got['flap']['restart']}")
            problems += got["flap"]["problems"]
            problems += [f"flap: {s}: {n} mbufs in use at exit" for s, n in leaks.items() if n]
        if a.loss:
            got, leaks, wj = one(build, tmp, 1000000, True, "1ms", "10s", 11.5)
            for i, s in enumerate("ab"):
                # Direction 0 is port 0 (site a) -> port 1 (site b).
                dr = wj["directions"][1 - i]
                seen = 100.0 * dr.get("drop_loss", 0) / max(1, dr.get("rx_pkts", 1))
                m = got[s]["measured"]
                print(f"wanem 1% loss: {s} reports {m['loss_pct']}%, wanem dropped {seen:.2f}% "
                      f"toward it over the run")
                if m["loss_pct"] is None or abs(m["loss_pct"] - 1.0) > 0.3 or \
                        abs(m["loss_pct"] - seen) > 0.3:
                    problems.append(f"loss: {s} reports {m['loss_pct']}%, want 1 (wanem: "
                                    f"{seen:.2f}) +- 0.3")
    gwlab.finish(problems, "measured RTT, offset, one-way delay and loss through wanem")


if __name__ == "__main__":
    main()
