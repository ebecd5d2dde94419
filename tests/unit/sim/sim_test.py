#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Small deterministic longspan-sim scenarios that assert on its outputs.

Usage: sim_test.py LONGSPAN_SIM TEST

Each test writes its own topology, flow and config files (HPCC formats) into
a temporary directory, runs the simulator there and checks fct.txt,
summary.json and rates.csv.  Every scenario runs in well under a second of
CPU.  Exit status 0 = pass, 1 = fail (with the reason on stderr), so meson
shows which property broke.
"""

import csv
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading

SIM = None


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def star(nhosts, rate="100Gbps", delay="1us"):
    """nhosts hosts 0..n-1 on one switch n."""
    sw = nhosts
    lines = [f"{nhosts + 1} 1 {nhosts}", str(sw)]
    lines += [f"{h} {sw} {rate} {delay} 0" for h in range(nhosts)]
    return "\n".join(lines) + "\n"


def dumbbell(wan_delay, rate="100Gbps", wan_rate="100Gbps"):
    """Host 0 - switch 2 == switch 3 - host 1, the long link in the middle."""
    return ("4 2 3\n2 3\n"
            f"0 2 {rate} 1us 0\n"
            f"2 3 {wan_rate} {wan_delay} 0\n"
            f"3 1 {rate} 1us 0\n")


def flows(spec):
    """spec: list of (src, dst, bytes, start_s)."""
    lines = [str(len(spec))]
    lines += [f"{s} {d} 3 100 {b} {t}" for s, d, b, t in spec]
    return "\n".join(lines) + "\n"


def run(d, topo, flow, *args, out="out", expect_ok=True):
    cmd = [SIM, "--topology", topo, "--flows", flow, "--out", os.path.join(d, out),
           "--quiet", *args]
    p = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=120)
    if expect_ok:
        check(p.returncode == 0, f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr}")
    return p


def summary(d, out="out"):
    with open(os.path.join(d, out, "summary.json")) as f:
        return json.load(f)


def fct_lines(d, out="out"):
    """fct.txt rows as dicts, keyed by (sip, dip)."""
    rows = []
    with open(os.path.join(d, out, "fct.txt")) as f:
        for line in f:
            sip, dip, sport, dport, size, start, fct, alone = line.split()
            rows.append(dict(sip=sip, dip=dip, size=int(size), start=int(start),
                             fct=int(fct), alone=int(alone)))
    return rows


def goodput_windows(d, window_ns, out="out"):
    """{window index: {flow: mean goodput b/s}} from rates.csv."""
    acc = {}
    with open(os.path.join(d, out, "rates.csv")) as f:
        for row in csv.DictReader(f):
            w = int(row["t_ns"]) // window_ns
            acc.setdefault(w, {}).setdefault(int(row["flow"]), []).append(
                float(row["goodput_bps"]))
    return {w: {fl: sum(v) / len(v) for fl, v in per.items()} for w, per in acc.items()}


def flows_csv(d, out="out"):
    """flows.csv rows, numeric fields as int or float."""
    with open(os.path.join(d, out, "flows.csv")) as f:
        return [{k: (float(v) if "." in v else int(v)) for k, v in r.items()}
                for r in csv.DictReader(f)]


def jain(xs):
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


# --------------------------------------------------------------------- tests

def test_single_flow(d):
    """One 10 MB flow on an idle path reaches >= 95% of line rate.

    standalone_fct_ns is the base RTT plus the flow's wire bytes (payload and
    headers) at the 100G bottleneck, so standalone / fct is the fraction of
    line rate the flow achieved.
    """
    topo = write(d, "topo.txt", star(2))
    fl = write(d, "flows.txt", flows([(0, 1, 10_000_000, 0)]))
    for model in ("firmware", "paper", "hpcc"):
        out = "out_" + model
        run(d, topo, fl, "--host-model", model, out=out)
        s = summary(d, out)
        check(s["flows_finished"] == 1, f"{model}: flow did not finish")
        r = fct_lines(d, out)[0]
        frac = r["alone"] / r["fct"]
        check(frac >= 0.95, f"{model}: single flow at {frac:.3f} of line rate")
        check(s["cnp"]["host"] == 0, f"{model}: CNPs on an idle path")
        check(s["drops"] == 0 and s["pfc"]["pause_count"] == 0, f"{model}: drops or PFC")
    # [sim] tx_time = ns3: 1048-byte packets take 83 ns at 100G instead of
    # 83.84, as in ns-3, so the same flow finishes ~1% sooner.
    run(d, topo, fl, "--host-model", "hpcc", "-o", "sim.tx_time=ns3", out="out_ns3")
    ratio = fct_lines(d, "out_ns3")[0]["fct"] / fct_lines(d, "out_hpcc")[0]["fct"]
    check(0.985 <= ratio <= 0.995, f"tx_time=ns3: FCT ratio {ratio:.4f}, expected ~0.990")


def test_incast(d):
    """2:1 incast: two 100 MB flows into one receiver share its link fairly.

    From 3 ms (after the first cuts and the recovery) until the first flow ends, each flow's
    goodput per 1 ms window must be within 15% of half the bottleneck's
    payload rate, Jain's index >= 0.98, and the link >= 90% utilised.  Run
    with the paper and the HPCC DCQCN models; the firmware model (rate-
    proportional byte counter) is only held to Jain >= 0.9, see
    docs/congestion.md.
    """
    topo = write(d, "topo.txt", star(3))
    fl = write(d, "flows.txt", flows([(0, 2, 100_000_000, 0), (1, 2, 100_000_000, 0)]))
    payload_rate = 100e9 * 1000 / 1048
    for model, min_jain, tol in (("paper", 0.98, 0.15), ("hpcc", 0.98, 0.15),
                                 ("firmware", 0.90, None)):
        out = "out_" + model
        run(d, topo, fl, "--host-model", model, "--ts-interval", "100us", out=out)
        s = summary(d, out)
        check(s["flows_finished"] == 2, f"{model}: flows did not finish")
        check(s["drops"] == 0, f"{model}: drops")
        first_end = min(r["fct"] for r in fct_lines(d, out))
        wins = goodput_windows(d, 1_000_000, out)
        checked = 0
        for w, per in sorted(wins.items()):
            if w < 3 or (w + 1) * 1_000_000 > first_end or len(per) != 2:
                continue
            rates = list(per.values())
            checked += 1
            check(jain(rates) >= min_jain,
                  f"{model}: window {w} ms: Jain {jain(rates):.3f} for {rates}")
            check(sum(rates) >= 0.9 * payload_rate,
                  f"{model}: window {w} ms: link at {sum(rates) / 1e9:.1f} Gb/s")
            if tol is not None:
                for r in rates:
                    check(abs(r - payload_rate / 2) <= tol * payload_rate / 2,
                          f"{model}: window {w} ms: {r / 1e9:.1f} Gb/s is not a fair share")
        check(checked >= 8, f"{model}: only {checked} windows with both flows")
        # The feedback timeline per flow: CE at the receiver, then the CNP at
        # the sender, then the first cut; no gateway here, so no gateway mark.
        for r in flows_csv(d, out):
            check(0 <= r["first_ce_rx_ns"] < r["first_cnp_ns"] <= r["first_cut_ns"],
                  f"{model}: flow {r['id']}: CE {r['first_ce_rx_ns']}, CNP "
                  f"{r['first_cnp_ns']}, cut {r['first_cut_ns']} out of order")
            check(r["first_gw_mark_ns"] == -1, f"{model}: gateway mark without a gateway")
            check(r["acked_bytes"] == r["size"], f"{model}: finished flow not fully acked")


def test_pfc_lossless(d):
    """8:1 incast into a 1 MB switch without ECN: PFC pauses, nothing drops."""
    topo = write(d, "topo.txt", star(9))
    fl = write(d, "flows.txt", flows([(h, 8, 2_000_000, 0) for h in range(8)]))
    cfg = write(d, "config.txt", "ENABLE_QCN 0\nUSE_DYNAMIC_PFC_THRESHOLD 1\n"
                "PACKET_PAYLOAD_SIZE 1000\nCC_MODE 1\nBUFFER_SIZE 1\n"
                "KMAX_MAP 1 100000000000 1600\nKMIN_MAP 1 100000000000 400\n"
                "PMAX_MAP 1 100000000000 0.2\n")
    run(d, topo, fl, "--hpcc-config", cfg)
    s = summary(d)
    check(s["flows_finished"] == 8, "not every flow finished")
    check(s["pfc"]["pause_count"] > 0, "the scenario never paused: it tests nothing")
    check(s["drops"] == 0, f"{s['drops']} drops with PFC on")
    check(s["nacks"] == 0, f"{s['nacks']} NACKs with PFC on")
    check(s["queue_max_bytes"]["tor"] <= 1 << 20, "queue larger than the buffer")
    # All 16 MB through one 100G port: the port never idled while paused upstream.
    last = max(r["start"] + r["fct"] for r in fct_lines(d))
    check(last <= 16_000_000 * 1048 / 1000 * 8 / 100 / 0.95 + 20_000,
          f"incast took {last} ns")


def test_pfc_headroom(d):
    """[sim] pfc_min_headroom: a PFC headroom of a few frames keeps slow links lossless.

    Four 400 Mb/s senders with 4 KB frames on 2.5 us links into a 500 Mb/s
    port, ECN off: HPCC's headroom (3 x rate x delay = 375 B) is below one
    frame, so the switch drops before it pauses; with 16 kB it pauses instead
    and drops nothing.
    """
    topo = write(d, "topo.txt", "6 1 5\n5\n" +
                 "".join(f"{h} 5 400Mbps 2500ns 0\n" for h in range(4)) +
                 "5 4 500Mbps 2500ns 0\n")
    fl = write(d, "flows.txt", flows([(h, 4, 2_000_000, 0) for h in range(4)]))
    cfg = write(d, "config.txt", "PACKET_PAYLOAD_SIZE 4096\nBUFFER_SIZE 1\nENABLE_QCN 0\n"
                "KMAX_MAP 2 400000000 320 500000000 320\n"
                "KMIN_MAP 2 400000000 80 500000000 80\n"
                "PMAX_MAP 2 400000000 0.2 500000000 0.2\n")
    run(d, topo, fl, "--hpcc-config", cfg, out="out_hpcc")
    run(d, topo, fl, "--hpcc-config", cfg, "-o", "sim.pfc_min_headroom=16kB", out="out_16k")
    hpcc, big = summary(d, "out_hpcc"), summary(d, "out_16k")
    check(hpcc["drops"] > 0, "HPCC headroom below one frame should drop")
    check(big["drops"] == 0 and big["nacks"] == 0, f"16 kB headroom: {big['drops']} drops")
    check(big["pfc"]["pause_count"] > 0, "16 kB headroom: no PAUSE sent")
    check(big["flows_finished"] == 4, "16 kB headroom: flows did not finish")


def test_long_haul(d):
    """A lone flow across 100 km (500 us one way) keeps >= 90% of line rate,
    without and with the gateway mechanisms."""
    topo = write(d, "topo.txt", dumbbell("500us"))
    fl = write(d, "flows.txt", flows([(0, 1, 50_000_000, 0)]))
    for mech in ("none", "A,C"):
        out = "out_" + mech.replace(",", "")
        run(d, topo, fl, "--mechanisms", mech, out=out)
        s = summary(d, out)
        check(s["flows_finished"] == 1, f"{mech}: flow did not finish")
        check(s["scenario"]["gateways"] == [2, 3], f"{mech}: gateways {s['scenario']['gateways']}")
        r = fct_lines(d, out)[0]
        check(r["alone"] >= 1_000_000, "standalone FCT lacks the 1 ms RTT")
        # Throughput over the transfer, the RTT taken out of both.
        rtt = 1_000_000
        frac = (r["alone"] - rtt) / (r["fct"] - rtt)
        check(frac >= 0.90, f"{mech}: 100 km flow at {frac:.3f} of line rate")
    # WAN utilisation is taken over the active span: from the first start (here
    # t = 0, followed by a later flow) to the last finish, or to the end of the
    # run while flows are left.
    fl2 = write(d, "flows2.txt", flows([(0, 1, 20_000_000, 0), (0, 1, 1_000_000, 0.001)]))
    run(d, topo, fl2, out="out_span")
    s = summary(d, "out_span")
    last = max(r["start"] + r["fct"] for r in fct_lines(d, "out_span"))
    check(s["active_span_ns"] == last, f"active span {s['active_span_ns']}, want 0..{last}")
    run(d, topo, fl, "--end", "3ms", out="out_cut")
    s = summary(d, "out_cut")
    check(s["flows_finished"] == 0, "50 MB flow finished within 3 ms")
    check(s["active_span_ns"] == s["sim_end_ns"], "unfinished run: span should reach the end")
    acked = flows_csv(d, "out_cut")[0]["acked_bytes"]
    check(0 < acked < 50_000_000, f"unfinished flow: {acked} bytes acked")
    check(0.5 <= s["wan_utilization"] <= 1.0,
          f"unfinished run: WAN utilisation {s['wan_utilization']:.3f}")
    # Each WAN port reports its own queue p99; a 40G WAN behind 100G hosts queues.
    slow = write(d, "topo_slow.txt", dumbbell("50us", wan_rate="40Gbps"))
    run(d, slow, write(d, "flows3.txt", flows([(0, 1, 10_000_000, 0)])), out="out_slow")
    wan = {(w["from"], w["to"]): w for w in summary(d, "out_slow")["wan"]}
    fwd = wan[(2, 3)]
    check(0 < fwd["queue_p99_bytes"] <= fwd["queue_max_bytes"],
          f"WAN egress p99 {fwd['queue_p99_bytes']} vs max {fwd['queue_max_bytes']}")
    check(wan[(3, 2)]["queue_p99_bytes"] == 0, "ACK-only WAN direction should not queue")
    r = flows_csv(d, "out_slow")[0]
    check(0 <= r["first_gw_mark_ns"] < r["first_ce_rx_ns"],
          f"gateway mark at {r['first_gw_mark_ns']}, CE at the receiver at {r['first_ce_rx_ns']}")


def test_lossy_wan(d):
    """[gateway] wan_buffer: the WAN egress tail-drops instead of buffering.

    Two 100G senders into a 40G WAN. By default the gateway is a lossless
    switch: no drop, the WAN queue grows past 64 kB. With a 64 kB WAN buffer
    it drops at the WAN egress, sends no PAUSE and its queue stays within the
    buffer. Without mechanisms the firmware senders never slow down (their
    receivers see only out-of-order packets after the first drop, and HPCC's
    NP ignores CE on those), so go-back-N keeps the flows from finishing in
    20 ms; with mechanism A each drop can trigger a gateway CNP and both
    flows finish with a small fraction of the drops.
    """
    topo = write(d, "topo.txt", "6 2 5\n2 3\n"
                 "0 2 100Gbps 1us 0\n4 2 100Gbps 1us 0\n"
                 "2 3 40Gbps 50us 0\n3 1 100Gbps 1us 0\n3 5 100Gbps 1us 0\n")
    fl = write(d, "flows.txt", flows([(0, 1, 20_000_000, 0), (4, 5, 20_000_000, 0)]))
    common = ("--host-model", "firmware", "--end", "20ms")
    run(d, topo, fl, *common, out="out_lossless")
    s = summary(d, "out_lossless")
    wan = {(w["from"], w["to"]): w for w in s["wan"]}[(2, 3)]
    check(s["drops"] == 0 and wan["drops"] == 0, "lossless gateway dropped")
    check(wan["queue_max_bytes"] > 64_000, f"lossless WAN queue only {wan['queue_max_bytes']} B")
    drops = {}
    for mech in ("none", "A"):
        out = "out_lossy_" + mech
        run(d, topo, fl, *common, "--mechanisms", mech, "-o", "gateway.wan_buffer=64kB",
            "-o", "sim.cnp_log=true", out=out)
        s = summary(d, out)
        wan = {(w["from"], w["to"]): w for w in s["wan"]}[(2, 3)]
        drops[mech] = wan["drops"]
        check(wan["drops"] > 0, f"{mech}: no tail drop at a 64 kB WAN egress")
        check(wan["drops"] == s["drops"], f"{mech}: drops outside the WAN egress")
        check(wan["queue_max_bytes"] <= 64_000, f"{mech}: WAN queue {wan['queue_max_bytes']} B")
        check(s["pfc"]["pause_count"] == 0, f"{mech}: {s['pfc']['pause_count']} PAUSE frames")
        check(s["marks"]["switch"] == 0, f"{mech}: drops counted as marks")
        if mech == "A":
            check(s["flows_finished"] == 2, "A: flows did not finish")
            check(s["cnp"]["gateway"] > 0, "A: drops answered with no gateway CNP")
            # cnps.csv: one row per CNP a sender acted on, all from the gateway here.
            with open(os.path.join(d, out, "cnps.csv")) as f:
                log = list(csv.DictReader(f))
            for r in flows_csv(d, out):
                mine = [int(x["t_ns"]) for x in log if int(x["flow"]) == r["id"]]
                check(len(mine) == r["rp_cnps"], f"flow {r['id']}: {len(mine)} logged CNPs, "
                      f"{r['rp_cnps']} at the RP")
                check(min(mine) - r["start_ns"] == r["first_cnp_ns"], "first logged CNP")
            check({x["source"] for x in log} == {"gateway"}, "CNP sources in the log")
    check(drops["A"] * 10 < drops["none"], f"drops with A {drops['A']}, without {drops['none']}")
    # With RED marks at the gateway: HPCC's NP flags CNPs only on ACKs of
    # in-order packets, so after the first drop the receivers stay silent and
    # the flows never finish; [sim] np_any_ce (ConnectX: a CNP for any CE
    # packet) lets DCQCN react and both finish.
    red = ("--marker", "red", "-o", "marker.kmin=10kB", "-o", "marker.kmax=40kB",
           "-o", "gateway.wan_buffer=64kB")
    for np_any in ("false", "true"):
        run(d, topo, fl, *common, *red, "-o", f"sim.np_any_ce={np_any}", out="out_np_" + np_any)
    hpcc, cx = summary(d, "out_np_false"), summary(d, "out_np_true")
    check(hpcc["flows_finished"] == 0, "HPCC NP: flows finished despite silent receivers")
    check(cx["flows_finished"] == 2, "np_any_ce: flows did not finish")
    check(cx["drops"] * 10 < hpcc["drops"], f"np_any_ce drops {cx['drops']} vs {hpcc['drops']}")
    check(cx["cnp"]["host"] > hpcc["cnp"]["host"], "np_any_ce: no more receiver CNPs")
    # [sim] retransmit = false (the lab's hostem): receivers skip gaps, nothing
    # is resent, and what arrived is what the WAN carried.
    lossy = ("--end", "5ms", "--host-model", "firmware", "-o", "gateway.wan_buffer=64kB")
    run(d, topo, fl, *lossy, "-o", "sim.retransmit=false", out="out_nort")
    run(d, topo, fl, *lossy, out="out_rt")
    nort, rt = summary(d, "out_nort"), summary(d, "out_rt")
    check(nort["nacks"] == 0 and rt["nacks"] > 0, f"NAKs {nort['nacks']} / {rt['nacks']}")
    check(all(r["lost_bytes"] == 0 for r in flows_csv(d, "out_rt")), "go-back-N lost bytes")
    rows = flows_csv(d, "out_nort")
    check(sum(r["lost_bytes"] for r in rows) > 0, "no gap skipped without retransmission")
    delivered = sum(r["acked_bytes"] - r["lost_bytes"] for r in rows) * 1048 // 1000
    carried = {(w["from"], w["to"]): w for w in nort["wan"]}[(2, 3)]["tx_bytes"]
    check(0 <= carried - delivered <= 300_000,
          f"delivered {delivered} B on the wire, the WAN carried {carried} B")
    # rates.csv's goodput (10 us samples) adds up to the payload that arrived.
    with open(os.path.join(d, "out_nort", "rates.csv")) as f:
        integral = sum(float(r["goodput_bps"]) * 10e-6 / 8 for r in csv.DictReader(f))
    arrived = delivered * 1000 // 1048
    check(abs(integral - arrived) <= 0.05 * arrived,
          f"goodput integrates to {integral:.0f} B, receivers took {arrived} B")


def test_errors(d):
    """Malformed input is reported as FILE:LINE and the run fails."""
    good_topo = star(2)
    good_flows = flows([(0, 1, 1000, 0)])
    cases = [
        ("topology", "topo.txt", good_topo.replace("100Gbps 1us", "fast 1us", 1), 3),
        ("topology", "topo.txt", good_topo.replace("1us 0\n", "1us 0\n7 9 1G 1us 0\n", 1)
         .replace("3 1 2", "3 1 3"), 4),
        ("flows", "flows.txt", good_flows.replace("0 1 3 100 1000 0", "0 1 3 100 lots 0"), 2),
        ("flows", "flows.txt", good_flows.replace("0 1 3", "0 0 3"), 2),
        ("hpcc", "config.txt", "CC_MODE 1\nNO_SUCH_KEY 3\n", 2),
        ("hpcc", "config.txt", "CC_MODE 1\n\nRATE_AI fast\n", 3),
        ("ini", "sim.ini", "[gateway]\nmechanisms = A\n[marker]\nkmin = 2 apples\n", 4),
        ("ini", "sim.ini", "[sim]\nseed = 1\nwarp = 9\n", 3),
    ]
    for kind, name, text, line in cases:
        topo = write(d, "topo.txt", good_topo)
        fl = write(d, "flows.txt", good_flows)
        bad = write(d, name, text)
        args = []
        if kind == "hpcc":
            args = ["--hpcc-config", bad]
        elif kind == "ini":
            args = ["--config", bad]
        p = run(d, topo, fl, *args, expect_ok=False)
        where = f"{bad}:{line}:"
        check(p.returncode != 0, f"{kind} case accepted: {text!r}")
        check(where in p.stderr, f"{kind}: expected '{where}' in: {p.stderr!r}")


def test_determinism(d):
    """Same inputs and seed: identical fct.txt, summary (but wall time) and
    time series; RED's draws make a different seed differ."""
    # Two ToRs joined by one 100G link: incast plus cross traffic marks.
    topo = write(d, "topo.txt", "10 2 9\n8 9\n"
                 "0 8 100Gbps 1us 0\n1 8 100Gbps 1us 0\n2 8 100Gbps 1us 0\n"
                 "3 8 100Gbps 1us 0\n4 9 100Gbps 1us 0\n5 9 100Gbps 1us 0\n"
                 "6 9 100Gbps 1us 0\n7 9 100Gbps 1us 0\n8 9 100Gbps 2us 0\n")
    spec = []
    for i in range(40):
        # Two hot receivers, one per ToR, fed from both sides.
        dst = 0 if i % 2 else 4
        src = 1 + (i * 5) % 7
        if src == dst:
            src = 5
        spec.append((src, dst, 200_000 + (i * 7919) % 900_000, i * 0.000002))
    fl = write(d, "flows.txt", flows(spec))
    outs = []
    for out, seed in (("a", "7"), ("b", "7"), ("c", "8")):
        run(d, topo, fl, "--seed", seed, "--ts-interval", "5us", out=out)
        s = summary(d, out)
        for k in ("wall_s", "cpu_s", "events_per_s"):
            s.pop(k)
        s["scenario"].pop("seed")
        with open(os.path.join(d, out, "fct.txt")) as f:
            fct = f.read()
        with open(os.path.join(d, out, "queues.csv")) as f:
            q = f.read()
        outs.append((json.dumps(s, sort_keys=True), fct, q))
    check(summary(d, "a")["flows_finished"] == 40, "flows did not finish")
    check(summary(d, "a")["marks"]["switch"] > 0, "no ECN marks: RED's RNG is not exercised")
    check(outs[0] == outs[1], "two runs with the same seed differ")
    check(outs[0][1] != outs[2][1], "seeds 7 and 8 gave identical FCTs")


PROGRESS_RE = re.compile(r"^longspan-sim: t = (\d+\.\d+) s, (\d+)/(\d+) flows finished, "
                         r"(\d+\.\d+) M events/s, (\d+\.\d)% done, ~(\d+ s|\?) left$")


def test_progress(d):
    """Status lines on stderr, --quiet, and partial outputs on SIGINT/SIGTERM.

    One 4 GB flow across a 500 us WAN (seconds of wall time, so the signal
    always lands mid-run) beside twenty 20 kB flows that finish within
    milliseconds of simulated time.  With --progress 100ms the run prints
    status lines; once they report finished flows it gets SIGINT and must
    exit with 128 + 2, a summary.json marked partial, and every output
    written out up to where it stopped.
    """
    topo = write(d, "topo.txt", dumbbell("500us"))
    fl = write(d, "flows.txt", flows([(0, 1, 4_000_000_000, 0)] +
                                     [(0, 1, 20_000, 0.0001 * i) for i in range(20)]))
    out = os.path.join(d, "out_int")
    cmd = [SIM, "--topology", topo, "--flows", fl, "--out", out, "--progress", "100ms",
           "--ts-interval", "10us"]
    p = subprocess.Popen(cmd, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(100, p.kill)
    watchdog.start()
    lines = []
    try:
        for line in p.stderr:
            m = PROGRESS_RE.match(line.rstrip("\n"))
            check(m is not None, f"not a status line: {line!r}")
            lines.append(m)
            if len(lines) >= 2 and int(m.group(2)) >= 1:
                break
        check(p.poll() is None, f"run ended before the signal; stderr: {lines}")
        p.send_signal(signal.SIGINT)
        rest = p.stderr.read()
        p.wait()
    finally:
        watchdog.cancel()
    check(p.returncode == 128 + signal.SIGINT, f"exit status {p.returncode} after SIGINT")
    check("stopped by SIGINT" in rest, f"no stop message: {rest!r}")
    times = [float(m.group(1)) for m in lines]
    done = [int(m.group(2)) for m in lines]
    check(all(int(m.group(3)) == 21 for m in lines), "status lines: wrong flow total")
    check(times == sorted(times) and times[0] < times[-1], f"simulated time {times}")
    check(done == sorted(done), f"finished flows went down: {done}")
    check(all(float(m.group(4)) > 0 and 0 <= float(m.group(5)) <= 100 for m in lines),
          "events/s or % done out of range")
    s = summary(d, "out_int")
    check(s["partial"] is True, "summary.json after SIGINT is not marked partial")
    check(done[-1] <= s["flows_finished"] < 21,
          f"{s['flows_finished']} flows finished in the partial summary, {done[-1]} reported")
    check(s["sim_end_ns"] >= times[-1] * 1e9 - 1, "summary ends before the last status line")
    # Every output flushed: one complete fct.txt line per finished flow, one
    # flows.csv row per flow, time series up to where the run stopped.
    rows = fct_lines(d, "out_int")
    check(len(rows) == s["flows_finished"], f"fct.txt {len(rows)} lines")
    check(len(flows_csv(d, "out_int")) == 21, "flows.csv rows")
    big = flows_csv(d, "out_int")[0]
    check(big["fct_ns"] == 0 and 0 < big["acked_bytes"] < 4_000_000_000, "big flow's row")
    for name in ("queues.csv", "rates.csv"):
        with open(os.path.join(out, name)) as f:
            text = f.read()
        check(text.endswith("\n"), f"{name} ends mid-line")
        last = int(text.splitlines()[-1].split(",")[0])
        check(0 <= s["sim_end_ns"] - last <= 10_000, f"{name} stops at {last} ns, run at "
              f"{s['sim_end_ns']} ns")
    # SIGTERM with --quiet: nothing on stderr, the same partial outputs.
    cmd = [SIM, "--topology", topo, "--flows", fl, "--out", os.path.join(d, "out_term"),
           "--quiet", "--progress", "1ms"]
    p = subprocess.Popen(cmd, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out_text, err = p.communicate(timeout=0.5)
        raise Fail(f"run ended before SIGTERM ({p.returncode}): {err!r}")
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGTERM)
        out_text, err = p.communicate(timeout=100)
    check(p.returncode == 128 + signal.SIGTERM, f"exit status {p.returncode} after SIGTERM")
    check(err == "" and out_text == "", f"--quiet printed: {err!r} {out_text!r}")
    check(summary(d, "out_term")["partial"] is True, "SIGTERM: summary not partial")
    # A run that ends by itself is not partial.
    run(d, topo, write(d, "small.txt", flows([(0, 1, 20_000, 0)])), out="out_small")
    check(summary(d, "out_small")["partial"] is False, "a complete run marked partial")


def csv_rows(d, out, name):
    with open(os.path.join(d, out, name)) as f:
        return list(csv.DictReader(f))


def test_waits(d):
    """--waits and --trace-flows: where packets wait, by flow class.

    An inter-DC flow (host 0, behind gateway 2) and an intra-DC flow (host
    5) both send 2 MB to host 1 behind gateway 3, so on port 3->1 each waits
    behind the other's bytes.  The outputs must observe without changing the
    run, and agree with each other: per-port sums equal the per-flow sums,
    the trace's waits add up to them, the class split of the queue adds up
    to queues.csv.
    """
    topo = write(d, "topo.txt", "6 2 5\n2 3\n0 2 100Gbps 1us 0\n4 2 100Gbps 1us 0\n"
                 "2 3 100Gbps 50us 0\n3 1 100Gbps 1us 0\n3 5 100Gbps 1us 0\n")
    fl = write(d, "flows.txt", flows([(0, 1, 2_000_000, 0), (5, 1, 2_000_000, 0)]))
    run(d, topo, fl, "--ts-interval", "5us", out="plain")
    run(d, topo, fl, "--ts-interval", "5us", "--waits", "--trace-flows", "1", out="waits")
    for name in ("fct.txt", "flows.csv", "queues.csv", "rates.csv"):
        with open(os.path.join(d, "plain", name)) as a, open(os.path.join(d, "waits", name)) as b:
            check(a.read() == b.read(), f"{name} differs with --waits")
    a, b = summary(d, "plain"), summary(d, "waits")
    for x in (a, b):
        for k in ("wall_s", "cpu_s", "events_per_s"):
            x.pop(k)
    check(a == b, "summary.json differs with --waits")
    check(not os.path.exists(os.path.join(d, "plain", "ports.csv")), "ports.csv without --waits")
    hops = csv_rows(d, "waits", "hops.csv")
    inter = [h for h in hops if h["id"] == "0"]
    intra = [h for h in hops if h["id"] == "1"]
    check([(h["node"], h["to"]) for h in inter] == [("2", "3"), ("3", "1")],
          f"inter-DC path {[(h['node'], h['to']) for h in inter]}")
    check([(h["node"], h["to"]) for h in intra] == [("3", "1")], "intra-DC path")
    npkts = int(inter[0]["pkts"])
    check(npkts > 0 and all(int(h["pkts"]) == npkts for h in hops), "packets per hop")
    ports = {(r["node"], r["to"]): r for r in csv_rows(d, "waits", "ports.csv")}
    down = ports[("3", "1")]
    check(int(down["pkts_intra"]) == npkts and int(down["pkts_inter"]) == npkts,
          "port 3->1 packets by class")
    check(int(down["wait_intra_ns"]) == int(intra[0]["wait_ns"]) and
          int(down["wait_inter_ns"]) == int(inter[1]["wait_ns"]), "port sums vs flow sums")
    check(int(down["wait_intra_ns"]) > 0 and int(down["intra_ahead_inter_bytes"]) > 0 and
          int(down["inter_ahead_intra_bytes"]) > 0, "no mutual waiting at the shared port")
    check(int(intra[0]["ahead_inter_bytes"]) == int(down["intra_ahead_inter_bytes"]),
          "bytes ahead: port vs flow")
    check(ports[("2", "3")]["pkts_intra"] == "0", "intra-DC packets on the WAN")
    # The trace of flow 1: one enqueue and one dequeue per packet, waits summing up.
    tr = csv_rows(d, "waits", "trace.csv")
    check({r["flow"] for r in tr} == {"1"}, "trace.csv holds other flows")
    deq = [r for r in tr if r["ev"] == "deq"]
    check(len(deq) == npkts and len(tr) == 2 * npkts, f"trace rows {len(tr)}")
    check(sum(int(r["wait_ns"]) for r in deq) == int(intra[0]["wait_ns"]), "trace waits")
    fct = {r["id"]: r for r in flows_csv(d, "waits")}
    for h in hops:
        check(int(h["wait_max_ns"]) + int(h["held_ns"]) <= fct[int(h["id"])]["fct_ns"],
              "a wait longer than the flow")
        check(0 < int(h["tx_done_ns"]) < fct[int(h["id"])]["fct_ns"], "tx_done_ns")
    # The class split of each queue adds up to its depth.
    check(b["pfc"]["pause_count"] == 0, "PFC frames would be in queues.csv only")
    qc = csv_rows(d, "waits", "queue_class.csv")
    qs = csv_rows(d, "waits", "queues.csv")
    check(len(qc) == len(qs) and len(qc) > 10, "queue_class.csv rows")
    for rc, rq in zip(qc, qs):
        check(rc["t_ns"] == rq["t_ns"], "queue_class.csv times")
        check(int(rc["3->1:intra"]) + int(rc["3->1:inter"]) == int(rq["gw3->1"]),
              f"t={rq['t_ns']}: class split {rc['3->1:intra']} + {rc['3->1:inter']} "
              f"!= {rq['gw3->1']}")
    p = run(d, topo, fl, "--trace-flows", "1,9", out="bad", expect_ok=False)
    check(p.returncode != 0 and "--trace-flows" in p.stderr, "flow id out of range accepted")


def gw_b(s, node):
    """The mech_b counters of gateway node in summary s."""
    return next(g for g in s["gateways"] if g["node"] == node)["mech_b"]


def no_qcn_config(d, rates):
    """An HPCC config with ECN off (senders never slow down) and a map per rate (Gb/s)."""
    n = len(rates)
    kmax = " ".join(f"{r}000000000 {16 * r}" for r in rates)
    kmin = " ".join(f"{r}000000000 {4 * r}" for r in rates)
    pmax = " ".join(f"{r}000000000 0.2" for r in rates)
    return write(d, "config.txt", "ENABLE_QCN 0\nUSE_DYNAMIC_PFC_THRESHOLD 1\n"
                 "PACKET_PAYLOAD_SIZE 1000\nCC_MODE 1\nBUFFER_SIZE 32\n"
                 f"KMAX_MAP {n} {kmax}\nKMIN_MAP {n} {kmin}\nPMAX_MAP {n} {pmax}\n")


def test_mech_b(d):
    """Mechanism B: PFC at the gateway's DC side and credits on the WAN hop.

    Near source: two 100G senders that never slow down (ECN off) into a 40G
    WAN with a 1 MB WAN queue. Without B the queue tail-drops; with B the
    gateway pauses its senders at XOFF and resumes them at XON: no drop, the
    queue stays within its buffer, the WAN stays busy, and with credits the
    sender never sends beyond a grant.

    Near destination: one 100G sender across a 100G WAN to a 25G receiver.
    Without B the destination gateway's shared buffer drops what its paused
    DC port cannot take; with credits that data waits in the gateway's
    credit buffer, never above its size, the sending gateway holds the rest
    for lack of credit and pauses its sender: no drop anywhere.
    """
    topo = write(d, "topo.txt", "6 2 5\n2 3\n"
                 "0 2 100Gbps 1us 0\n4 2 100Gbps 1us 0\n"
                 "2 3 40Gbps 50us 0\n3 1 100Gbps 1us 0\n3 5 100Gbps 1us 0\n")
    fl = write(d, "flows.txt", flows([(0, 1, 20_000_000, 0), (4, 5, 20_000_000, 0)]))
    cfg = no_qcn_config(d, [100, 40])
    common = ("--hpcc-config", cfg, "--end", "30ms", "-o", "gateway.wan_buffer=1MB")
    run(d, topo, fl, *common, "--mechanisms", "none", out="out_none")
    s = summary(d, "out_none")
    check(s["drops"] > 0, "without B a 1 MB WAN queue should tail-drop")
    check("mech_b" not in s["gateways"][0], "mech_b counters without mechanism B")
    for mode in ("credit", "pfc"):
        out = "out_b_" + mode
        run(d, topo, fl, *common, "--mechanisms", "B", "-o", f"gateway.lossless={mode}",
            out=out)
        s = summary(d, out)
        check(s["scenario"]["mechanisms"] == "B", f"{mode}: mechanisms {s['scenario']['mechanisms']}")
        check(s["flows_finished"] == 2, f"{mode}: flows did not finish")
        check(s["drops"] == 0 and s["nacks"] == 0, f"{mode}: {s['drops']} drops, {s['nacks']} NAKs")
        b = gw_b(s, 2)
        check(b["lossless"] == mode, f"lossless {b['lossless']}")
        check(b["wan_queue_bytes"] == 1_000_000, f"WAN queue {b['wan_queue_bytes']} B")
        check(0 < b["pfc_xon_bytes"] < b["pfc_xoff_bytes"] <= 1_000_000 - b["pfc_headroom_bytes"],
              f"{mode}: XON {b['pfc_xon_bytes']}, XOFF {b['pfc_xoff_bytes']}")
        check(b["pfc_pauses"] > 0 and b["pfc_resumes"] > 0,
              f"{mode}: {b['pfc_pauses']} pauses, {b['pfc_resumes']} resumes")
        # Each decision goes out of both DC ports, and the hosts obey them.
        check(b["pfc_pause_frames_sent"] == 2 * b["pfc_pauses"], "pause frames per DC port")
        check(s["pfc"]["pause_count_by_paused_role"]["host"] >= b["pfc_pause_frames_sent"],
              f"{mode}: hosts saw {s['pfc']['pause_count_by_paused_role']['host']} pauses")
        check(b["pfc_paused_ns"] > 0, f"{mode}: no paused time")
        check(b["pfc_xoff_bytes"] <= b["wan_queue_max_bytes"] <= 1_000_000,
              f"{mode}: WAN queue peaked at {b['wan_queue_max_bytes']} B")
        wan = {(w["from"], w["to"]): w for w in s["wan"]}[(2, 3)]
        check(wan["drops"] == 0, f"{mode}: WAN egress drops")
        check(wan["utilization"] >= 0.95, f"{mode}: WAN utilisation {wan['utilization']:.3f}")
        if mode == "credit":
            check(b["grants_applied"] > 0 and b["credit_overdraft"] == 0,
                  f"grants {b['grants_applied']}, overdraft {b['credit_overdraft']}")
            rx = gw_b(s, 3)
            check(rx["grants_sent"] > 0 and rx["credit_overrun_bytes"] == 0 and
                  rx["credit_lost_bytes"] == 0, f"receiver: {rx}")
            check(rx["credit_occupancy_max_bytes"] <= rx["credit_buffer_bytes"],
                  "credit buffer overrun")
        else:
            check(b["grants_applied"] == 0 and gw_b(s, 3)["grants_sent"] == 0,
                  "lossless = pfc exchanged credits")

    # Near destination: a 25G receiver behind the destination gateway.
    topo2 = write(d, "topo2.txt", "5 3 4\n2 3 4\n0 2 100Gbps 1us 0\n"
                  "2 3 100Gbps 50us 0\n3 4 100Gbps 1us 0\n4 1 25Gbps 1us 0\n")
    fl2 = write(d, "flows2.txt", flows([(0, 1, 30_000_000, 0)]))
    cfg2 = no_qcn_config(d, [100, 25])
    common = ("--hpcc-config", cfg2, "--end", "40ms", "-o", "gateway.wan_buffer=2MB")
    run(d, topo2, fl2, *common, "--mechanisms", "none", out="out_dest_none")
    s = summary(d, "out_dest_none")
    check(s["drops"] > 0, "without B the destination gateway should drop")
    run(d, topo2, fl2, *common, "--mechanisms", "B", out="out_dest_b")
    s = summary(d, "out_dest_b")
    check(s["flows_finished"] == 1, "near destination: flow did not finish")
    check(s["drops"] == 0 and s["nacks"] == 0, f"near destination: {s['drops']} drops")
    tx, rx = gw_b(s, 2), gw_b(s, 3)
    check(s["pfc"]["pause_count_by_paused_role"]["gateway"] > 0,
          "the receiver's switch never paused the destination gateway")
    check(rx["credit_occupancy_max_bytes"] <= rx["credit_buffer_bytes"] and
          rx["credit_occupancy_max_bytes"] >= rx["credit_buffer_bytes"] // 2,
          f"credit buffer peaked at {rx['credit_occupancy_max_bytes']} of "
          f"{rx['credit_buffer_bytes']} B")
    check(rx["credit_overrun_bytes"] == 0 and rx["credit_lost_bytes"] == 0, f"receiver: {rx}")
    check(tx["credit_holds"] > 0 and tx["credit_held_ns"] > 0,
          "the sending gateway never waited for credit")
    check(tx["credit_overdraft"] == 0, f"{tx['credit_overdraft']} packets beyond credit")
    check(tx["pfc_pauses"] > 0, "the sending gateway never paused its sender")
    r = fct_lines(d, "out_dest_b")[0]
    wire = 30_000_000 * 1048 / 1000 * 8 / 25e9 * 1e9
    check(r["fct"] <= wire / 0.95 + 200_000, f"near destination: FCT {r['fct']} ns for {wire:.0f} ns")


TESTS = {
    "single_flow": test_single_flow,
    "lossy_wan": test_lossy_wan,
    "pfc_headroom": test_pfc_headroom,
    "incast": test_incast,
    "pfc_lossless": test_pfc_lossless,
    "long_haul": test_long_haul,
    "errors": test_errors,
    "determinism": test_determinism,
    "progress": test_progress,
    "waits": test_waits,
    "mech_b": test_mech_b,
}


def main():
    global SIM
    if len(sys.argv) != 3 or sys.argv[2] not in TESTS:
        print(f"usage: {sys.argv[0]} LONGSPAN_SIM {{{','.join(TESTS)}}}", file=sys.stderr)
        return 2
    SIM = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="sim_test_") as d:
        try:
            TESTS[sys.argv[2]](d)
        except Fail as e:
            print(f"FAIL {sys.argv[2]}: {e}", file=sys.stderr)
            return 1
    print(f"ok {sys.argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
