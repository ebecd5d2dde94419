#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The shipped roce_flow hook in a real longspand, on net_pcap ports.

Known traffic, both directions (fixture pcaps built here with the dataplane
fixtures' packet builders):
  DC -> WAN  QP 0x111: 10 data packets, PSN 0..10 without 5 (one gap),
             3 of them CE; QP 0x222: 2 CNPs from the local host
  WAN -> DC  QP 0x333: 6 data packets in sequence; QP 0x444: one NAK
then, once the exporter has made a pass:
- `bpftool -j map dump pinned .../roce_flow/flows` has one record per QP
  with the named fields equal to what was sent (packets, bytes, ECT, CE,
  CNPs, the PSN gap, the NAK, packets transmitted);
- the Prometheus endpoint parses as the text exposition format (a strict
  parser below) and its totals and top-K flow series say the same;
- /longspan/hook_flows pages over DPDK telemetry cover every flow exactly
  once, and `longspanctl show flows --source hook` shows them;
- show stats / show hooks count the hook's calls (rx + tx per packet);
- after SIGTERM: `ipfixDump` decodes one record per QP with the same
  numbers, the pins are gone, every mbuf is back.

Then under endless traffic (net_pcap infinite_rx): reloads with objects the
loader must refuse (a kernel helper call, a loop, an unknown extern, a wrong
ABI version, a missing section, a truncated and a non-ELF file) each fail
with a message naming object, section and reason while the running hook
keeps counting; a good reload swaps the hook; nothing is dropped and no
mbuf leaks.

    test_hooks.py --build BUILDDIR
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "dataplane"))
import gwlab  # noqa: E402
from promtext import prom_get, prom_parse  # noqa: E402
import fxwire as w  # noqa: E402
from scapy.all import Ether, raw, wrpcap  # noqa: E402

failures = []


def check(name, cond, detail=""):
    if cond:
        print(f"ok   {name}")
    else:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}")
    return cond


DC_MAC, WAN_MAC = "02:00:00:00:01:fe", "02:00:00:00:0a:02"
HOST_MAC, PEER_MAC = "02:00:00:00:01:01", "02:00:00:00:0b:02"


def config_text(tag, tmp, dc_dev, wan_dev, hook_obj, section="roce_flow", prom_port=0,
                ipfix=None, wan_rate="10G"):
    lines = [
        "[gateway]", f"name = {tag}", f"socket = {tmp}/api.sock", "workers = 1",
        "idle_sleep = 1ms", "idle = sleep",
        "[eal]", "lcores = 0,1", f"file_prefix = {tag}", "no_huge = yes", "memory = 512",
        "no_pci = yes",
        "[port dc]", "role = dc", f"dev = {dc_dev}", f"mac = {DC_MAC}", "ipv4 = 10.1.0.254/16",
        f"neighbor = 10.1.0.1 {HOST_MAC}",
        "[port wan]", "role = wan", f"dev = {wan_dev}", f"mac = {WAN_MAC}",
        "ipv4 = 192.0.2.1/24", f"link_rate = {wan_rate}", f"neighbor = 192.0.2.2 {PEER_MAC}",
        "[peer site-b]", "port = wan", "remote = 192.0.2.2", "vni = 100", "rtt = 1ms",
        "prefix = 10.2.0.0/16",
        "[hook roce_flow]", f"object = {hook_obj}", f"section = {section}",
        "[telemetry]", "interval = 200ms",
    ]
    if prom_port:
        lines.append(f"prometheus = 127.0.0.1:{prom_port}")
    if ipfix:
        lines.append(f"ipfix = file:{ipfix}")
    return "\n".join(lines) + "\n"


class FxCfg:
    """What fxwire.geneve_frame needs of the config."""

    def __init__(self):
        port = w.Port("wan")
        port.mac = WAN_MAC
        self.ports = {"wan": port}
        self.geneve_port = w.GENEVE_PORT

    def wan_nexthop_mac(self, peer):
        return PEER_MAC


class FxPeer:
    port, remote, local, vni = "wan", "192.0.2.2", "192.0.2.1", 100


def traffic():
    """The fixture frames and what the flows map must say of each QP."""
    dc, wan, expect = [], [], {}
    a = []
    for i, psn in enumerate([0, 1, 2, 3, 4, 6, 7, 8, 9, 10]):
        tos = w.CE if i < 3 else w.ECT0
        a.append(w.roce("10.1.0.1", "10.2.0.1", 0x0A, dqpn=0x111, psn=psn,
                        payload=w.reth() + bytes(64), tos=tos))
    dc += [raw(Ether(dst=DC_MAC, src=HOST_MAC, type=0x0800)) + p for p in a]
    expect[(0x111, 0)] = dict(pkts=10, bytes=sum(len(p) for p in a), ce_pkts=3, ect_pkts=7,
                              psn_gaps=1, psn_skipped=1, psn_ooo=1, naks=0, cnp_seen=0,
                              tx_pkts=10, tx_bytes=sum(len(p) for p in a), tx_drops=0)
    c = [w.cnp("10.1.0.1", "10.2.0.1", 0x222) for _ in range(2)]
    dc += [raw(Ether(dst=DC_MAC, src=HOST_MAC, type=0x0800)) + p for p in c]
    expect[(0x222, 0)] = dict(pkts=2, bytes=sum(len(p) for p in c), cnp_seen=2, naks=0,
                              tx_pkts=2)
    cfg, peer = FxCfg(), FxPeer()
    b = [w.roce("10.2.0.1", "10.1.0.1", 0x0A, dqpn=0x333, psn=100 + i,
                payload=w.reth() + bytes(32), tos=w.ECT0) for i in range(6)]
    wan += [w.geneve_frame(cfg, peer, p, seq=i) for i, p in enumerate(b)]
    expect[(0x333, 1)] = dict(pkts=6, bytes=sum(len(p) for p in b), ect_pkts=6, ce_pkts=0,
                              psn_gaps=0, naks=0, tx_pkts=6)
    nak = w.roce("10.2.0.1", "10.1.0.1", 0x11, dqpn=0x444, psn=7, hdrs=w.aeth(0x60, 3),
                 tos=w.ECT0)
    wan.append(w.geneve_frame(cfg, peer, nak, seq=6))
    expect[(0x444, 1)] = dict(pkts=1, bytes=len(nak), naks=1, psn_gaps=0, tx_pkts=1)
    return dc, wan, expect


# ---- DPDK telemetry ----

def wait(what, cond, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.2)
    return check(what, False, "timed out")


def flows_by_qp(pin):
    out = subprocess.run(["bpftool", "-j", "map", "dump", "pinned", pin], check=True,
                         capture_output=True, text=True).stdout
    recs = {}
    for e in json.loads(out):
        k, v = e["formatted"]["key"], e["formatted"]["value"]
        recs[(k["dest_qp"], k["direction"])] = v
    return recs


def known_traffic(args, tmp, obj):
    dc, wan, expect = traffic()
    wrpcap(f"{tmp}/dc_in.pcap", [Ether(f) for f in dc])
    wrpcap(f"{tmp}/wan_in.pcap", [Ether(f) for f in wan])
    tag = "lshook1"
    prom = gwlab.free_port()
    ipfix = f"{tmp}/flows.ipfix"
    conf = f"{tmp}/gw.conf"
    with open(conf, "w") as f:
        f.write(config_text(tag, tmp, f"net_pcap0,rx_pcap={tmp}/dc_in.pcap,tx_pcap={tmp}/dc_out.pcap",
                            f"net_pcap1,rx_pcap={tmp}/wan_in.pcap,tx_pcap={tmp}/wan_out.pcap",
                            obj, prom_port=prom, ipfix=ipfix))
    pin_dir = f"/sys/fs/bpf/longspan/{tag}/roce_flow"
    gw = gwlab.Gateway(args.build, conf, f"{tmp}/gw.log").start()
    n_pkts = len(dc) + len(wan)
    try:
        wait("all fixture packets forwarded",
             lambda: gw.ctl("show", "stats")["forwarded"] >= n_pkts)
        stats = gw.ctl("show", "stats")
        drops = gw.ctl("show", "drops", "--nonzero")
        check("nothing dropped", drops.get("total") == 0, json.dumps(drops))
        # Every packet once at its rx point and once at its tx point.
        hooks = stats.get("hooks", {})
        check("show stats counts the hook's calls",
              hooks.get("roce_flow", {}).get("calls") == 2 * n_pkts, json.dumps(hooks))
        check("no hook errors", hooks.get("roce_flow", {}).get("errors") == 0, json.dumps(hooks))
        wait("exporter pass with every flow",
             lambda: gw.ctl("show", "hooks")["exporter"]["flows"] == len(expect) and
             gw.ctl("show", "hooks")["exporter"]["passes"] >= 2)
        recs = flows_by_qp(f"{pin_dir}/flows")
        check("one pinned record per QP", sorted(recs) == sorted(expect), str(sorted(recs)))
        for qp, want in expect.items():
            got = recs.get(qp, {})
            bad = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
            check(f"bpftool record of QP {qp[0]:#x} dir {qp[1]}", not bad, str(bad))
        # Prometheus.
        text = urllib.request.urlopen(f"http://127.0.0.1:{prom}/metrics", timeout=5).read().decode()
        try:
            samples = prom_parse(text)
            check("Prometheus exposition parses strictly", True)
        except ValueError as e:
            samples = {}
            check("Prometheus exposition parses strictly", False, str(e))
        check("Prometheus gateway packets", prom_get(samples, "longspan_hook_packets_total") ==
              sum(e["pkts"] for e in expect.values()), str(prom_get(samples, "longspan_hook_packets_total")))
        check("Prometheus gateway CE", prom_get(samples, "longspan_hook_ce_packets_total") == 3)
        check("Prometheus gateway NAKs", prom_get(samples, "longspan_hook_naks_total") == 1)
        check("Prometheus gateway PSN gaps", prom_get(samples, "longspan_hook_psn_gaps_total") == 1)
        check("Prometheus gateway CNPs seen", prom_get(samples, "longspan_hook_cnps_seen_total") == 2)
        check("Prometheus top-K flow series", prom_get(samples, "longspan_hook_flow_packets_total",
                                                     dest_qp=0x111) == 10)
        # DPDK telemetry pages: every flow exactly once.
        dirs = {"dc->wan": 0, "wan->dc": 1}
        for _ in range(5):  # a pass may end between two pages: take them again
            seen, passes, page = [], set(), 1
            while True:
                r = gwlab.telemetry(tag, f"/longspan/hook_flows,{page},2", timeout=5)["/longspan/hook_flows"]
                passes.add(r["pass"])
                seen += [(f["dest_qp"], dirs[f["direction"]]) for f in r["flows"].values()]
                if page >= r.get("pages", 1):
                    break
                page += 1
            if len(passes) == 1:
                break
        check("telemetry pages cover every flow once", sorted(seen) == sorted(expect), str(seen))
        check("telemetry pages of one pass", len(passes) == 1, str(passes))
        cli = gw.ctl("show", "flows", "--source", "hook", json_out=False)
        check("show flows --source hook lists the QPs", all(f"{q[0]}" in cli for q in expect), cli)
    finally:
        mbufs = gw.stop()
    check("no mbuf leaked", mbufs == 0, str(mbufs))
    check("pins removed at exit", not os.path.exists(pin_dir), pin_dir)
    dump = subprocess.run(["ipfixDump", "--rfc5610", "--in", ipfix], capture_output=True,
                          text=True).stdout
    recs = parse_ipfix(dump)
    for qp, want in expect.items():
        r = [x for x in recs if x.get("lsRoceDestQueuePair") == str(qp[0])]
        got = r[0] if len(r) == 1 else {}
        ok = len(r) == 1 and got.get("packetDeltaCount") == str(want["pkts"]) and \
            got.get("octetDeltaCount") == str(want["bytes"]) and \
            got.get("lsCePacketDeltaCount", "0") == str(want.get("ce_pkts", 0)) and \
            got.get("lsNakDeltaCount", "0") == str(want.get("naks", 0)) and \
            got.get("lsPsnGapDeltaCount", "0") == str(want.get("psn_gaps", 0)) and \
            got.get("lsCnpSeenDeltaCount", "0") == str(want.get("cnp_seen", 0))
        check(f"ipfixDump record of QP {qp[0]:#x}", ok, str(r))


def parse_ipfix(text):
    recs, cur = [], None
    for line in text.split("\n"):
        if "tid:" in line and "count:" in line:
            cur = {}
            if re.search(r"tid:\s+(256|257)\b", line):
                recs.append(cur)
            continue
        m = re.match(r"^\s+\(\d+(?:/\d+)?\)\s+(\S+)\s+:\s(.*)$", line)
        if m and cur is not None:
            cur[m.group(1)] = m.group(2).strip()
    return recs


def reloads_under_traffic(args, tmp, obj, bad):
    dc, wan, _ = traffic()
    wrpcap(f"{tmp}/dc_loop.pcap", [Ether(f) for f in dc])
    tag = "lshook2"
    conf = f"{tmp}/gw2.conf"
    dc_dev = f"net_pcap0,rx_pcap={tmp}/dc_loop.pcap,tx_pcap=/dev/null,infinite_rx=1"
    wan_dev = "net_null0,no-rx=1"

    def write(path, o, section="roce_flow"):
        with open(path, "w") as f:
            # The replay runs as fast as the worker can take it; a WAN shaped
            # at 10G would then tail-drop whenever the replay outpaces it,
            # which says nothing about the swap. The replay stays far below 100G.
            f.write(config_text(tag, tmp, dc_dev, wan_dev, o, section=section,
                                wan_rate="100G"))
    write(conf, obj)
    gw = gwlab.Gateway(args.build, conf, f"{tmp}/gw2.log").start()
    with open(f"{tmp}/truncated.bpf.o", "wb") as f:
        f.write(open(obj, "rb").read()[:300])
    with open(f"{tmp}/not_elf.bpf.o", "w") as f:
        f.write("this is not an ELF object\n")
    cases = [
        ("kernel helper call", bad["helper_call"], "hook", "helper"),
        ("unbounded loop", bad["loop"], "hook", "loop"),
        ("unknown extern", bad["unknown_extern"], "hook", "extern"),
        ("wrong ABI version", bad["abi_version"], "hook", "ABI"),
        ("missing section", obj, "no_such", "no_such"),
        ("truncated file", f"{tmp}/truncated.bpf.o", "roce_flow", "truncated"),
        ("non-ELF file", f"{tmp}/not_elf.bpf.o", "roce_flow", "ELF"),
    ]

    def calls():
        return gw.ctl("show", "hooks")["hooks"]["roce_flow"]["calls"]
    try:
        wait("traffic reaches the hook", lambda: calls() > 1000)
        for name, o, sec, reason in cases:
            path = f"{tmp}/bad.conf"
            write(path, o, sec)
            before = calls()
            r = subprocess.run([os.path.join(args.build, "control", "longspanctl"), "-s",
                                f"{tmp}/api.sock", "reload", path], capture_output=True,
                               text=True, timeout=30)
            msg = r.stdout + r.stderr
            check(f"reload refuses {name}", r.returncode != 0 and o in msg and
                  f"section '{sec}'" in msg and reason.lower() in msg.lower(), msg.strip())
            check(f"the old hook keeps counting after {name}",
                  wait(f"calls grow after {name}", lambda: calls() > before + 100, 10), "")
        before = calls()
        for i in range(3):
            r = subprocess.run([os.path.join(args.build, "control", "longspanctl"), "-s",
                                f"{tmp}/api.sock", "reload", conf], capture_output=True,
                               text=True, timeout=30)
            check(f"good reload {i + 1} under traffic", r.returncode == 0, r.stdout + r.stderr)
        check("the swapped hook counts", wait("calls grow after swap",
                                             lambda: calls() > before + 1000, 10), "")
        drops = gw.ctl("show", "drops", "--nonzero")
        check("zero drops across the reloads", drops.get("total") == 0, json.dumps(drops))
        check("no hook errors across the reloads",
              gw.ctl("show", "hooks")["hooks"]["roce_flow"]["errors"] == 0)
    finally:
        mbufs = gw.stop()
    check("no mbuf leaked across the reloads", mbufs == 0, str(mbufs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--hook", required=True, help="roce_flow.bpf.o")
    ap.add_argument("--bad", nargs="*", default=[], help="NAME=PATH of refused objects")
    args = ap.parse_args()
    if os.geteuid() != 0 or not shutil.which("bpftool") or not shutil.which("ipfixDump"):
        print("SKIP: needs root, bpftool and ipfixDump")
        return 77
    bad = dict(a.split("=", 1) for a in args.bad)
    tmp = tempfile.mkdtemp(prefix="ls-hooks-")
    known_traffic(args, tmp, args.hook)
    reloads_under_traffic(args, tmp, args.hook, bad)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
