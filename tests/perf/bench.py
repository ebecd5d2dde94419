#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Longspan forwarding benchmark: longspand against dpdk-testpmd, one worker core.

    /usr/bin/python3 tests/perf/bench.py --build build [--quick] [--out FILE]   # as root

For every (flows, frame size) pair the driver writes a pcap of RoCEv2 packets
(RC SEND ONLY, one distinct 5-tuple and destination QP per flow, every
destination inside the peer's prefix so each packet is GENEVE-encapsulated)
and runs, back to back on the same vdevs and the same cores (-l 0,1, the
forwarding loop on lcore 1):

  1. dpdk-testpmd --forward-mode=io        net_pcap (infinite_rx) -> net_null
  2. longspand, one worker                  DC port net_pcap -> WAN port net_null
  3. dpdk-testpmd --forward-mode=macswap   same

With --p4, longspand runs a second time after step 2 with [gateway]
pipeline = p4 (docs/p4.md: the worker's burst through the SWX pipeline, the
C stages after it), so the P4 ingress gets its own ratio to testpmd beside
the C one, from the same rounds on the same vdevs and cores.

Rates come from counter deltas over clean windows after a warm-up: for
longspand `longspanctl --json show stats` (WAN tx packets, drops, worker
busy %), cross-checked against the WAN ethdev counters over the DPDK
telemetry socket; for testpmd the ethdev counters over the telemetry socket.
Each number is the median of the windows. Cycles per packet are TSC Hz / pps
(the worker is a busy-polling core) and busy_tsc / packets (TSC spent in
polls that carried packets, as the worker counts it).

The machine has two shared vCPUs that behave like SMT siblings, so absolute
numbers move with whatever else runs: read the ratio to testpmd, measured
minutes apart on the same cores, and the "other load" column (CPU time on
either vCPU not spent by the measured process, from /proc/stat).

Exit status: 0 measured (whatever the numbers), 1 broken setup (a process
did not start, packets were dropped, nothing was forwarded), 77 missing
prerequisites (not root, no hugepages, no testpmd, no scapy; with --p4, no
gcc or DPDK pipeline sources): meson counts that as a skip.
"""

import argparse
import datetime
import importlib.util
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import time
import zlib

EXIT_BROKEN = 1
EXIT_SKIP = 77

# Addresses of the benchmark topology (mirrors config/site-a.conf).
DC_MAC = "02:00:00:00:0a:01"
DC_ROUTER_MAC = "02:00:00:00:0a:fe"
WAN_MAC = "02:00:00:00:0a:02"
PEER_MAC = "02:00:00:00:0b:02"
ROCE_PORT = 4791
ROCE_OP_RC_SEND_ONLY = 0x04
# Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4.
ROCE_OVERHEAD = 58
# Frame classes: name -> RoCE payload bytes. "64" is a 64-byte frame (the
# smallest Ethernet frame without FCS); "1k" and "4k" carry a full 1024 or
# 4096-byte RoCE MTU payload (1082 and 4154-byte frames).
SIZES = {"64": 64 - ROCE_OVERHEAD, "1k": 1024, "4k": 4096}
FLOWS = [1, 1024, 65536]
# The pcap never holds fewer packets than this, so the source's footprint
# (the net_pcap PMD copies from its own ring of mbufs) does not differ
# between 1 flow and 1k flows: only the gateway's per-flow work does.
MIN_PCAP_PKTS = 1024
# mbuf data room for every run (longspand mbuf_data_size; testpmd gets the
# same + the 128-byte headroom, which is what longspand allocates).
MBUF_DATA_SIZE = 4608
MBUF_HEADROOM = 128
# Extra mbufs beyond the pcap copy: rx/tx descriptors, caches, bursts.
MBUF_SLACK = 16384
WAN_MTU = 4400  # a 4154-byte frame's 4140-byte IP packet + GENEVE encap is 4200

_children = []  # Popen objects still to stop


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Traffic


def ip4_csum(hdr):
    s = sum(struct.unpack("!10H", hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def roce_icrc(ip_udp_bth_payload):
    """ICRC of an IPv4 RoCEv2 packet (IBTA Annex A17): CRC-32 over 8 bytes of
    ones (pseudo LRH), then IP/UDP/BTH/payload with TOS, TTL, IP checksum,
    UDP checksum and the BTH FECN/BECN/reserved byte set to ones. Returned as
    it goes on the wire (scapy.contrib.roce's byte order)."""
    b = bytearray(ip_udp_bth_payload)
    b[1] = 0xFF  # TOS
    b[8] = 0xFF  # TTL
    b[10:12] = b"\xff\xff"  # IP checksum
    b[26:28] = b"\xff\xff"  # UDP checksum
    b[28 + 4] = 0xFF  # BTH byte 4: FECN, BECN, resv6
    crc = zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xFFFFFFFF
    return struct.pack("<I", crc)


def mac_bytes(s):
    return bytes(int(x, 16) for x in s.split(":"))


def roce_frame(flow, psn, payload_size):
    """One RC SEND ONLY frame of FLOW (0-based), toward the peer prefix."""
    src = bytes((10, 1, (flow >> 8) & 0xFF, flow & 0xFF))
    dst = bytes((10, 2, (flow >> 8) & 0xFF, flow & 0xFF))
    sport = 49152 + (flow & 0x3FFF)
    dqpn = 0x100 + flow
    udp_len = 8 + 12 + payload_size + 4
    ip_len = 20 + udp_len
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0x02, ip_len, 0, 0x4000, 64, 17, 0, src, dst))
    ip[10:12] = struct.pack("!H", ip4_csum(bytes(ip)))
    udp = struct.pack("!HHHH", sport, ROCE_PORT, udp_len, 0)  # RoCEv2 NICs send 0
    bth = struct.pack("!BBHI I", ROCE_OP_RC_SEND_ONLY, 0, 0xFFFF, dqpn & 0xFFFFFF, psn & 0xFFFFFF)
    body = bytes(ip) + udp + bth + bytes(payload_size)
    eth = mac_bytes(DC_MAC) + mac_bytes(DC_ROUTER_MAC) + b"\x08\x00"
    return eth + body + roce_icrc(body)


def check_frames_with_scapy(payload_size):
    """Build two frames with scapy and compare them byte for byte: a wrong
    template would silently measure the drop path."""
    from scapy.all import IP, UDP, Ether, raw
    from scapy.contrib.roce import BTH

    for flow, psn in ((0, 0), (300, 7)):
        mine = roce_frame(flow, psn, payload_size)
        ref = raw(Ether(dst=DC_MAC, src=DC_ROUTER_MAC)
                  / IP(src="10.1.%d.%d" % (flow >> 8, flow & 255), dst="10.2.%d.%d" % (flow >> 8, flow & 255),
                       ttl=64, tos=0x02, id=0, flags="DF")
                  / UDP(sport=49152 + (flow & 0x3FFF), dport=ROCE_PORT, chksum=0)
                  / BTH(opcode=ROCE_OP_RC_SEND_ONLY, pkey=0xFFFF, dqpn=0x100 + flow, psn=psn)
                  / bytes(payload_size))
        if mine != ref:
            raise SystemExit("bench: internal error: frame template differs from scapy's "
                             "(payload %d)" % payload_size)


def write_pcap(path, flows, payload_size):
    """FLOWS flows round-robin, at least MIN_PCAP_PKTS packets; PSN counts up per flow."""
    n = max(flows, MIN_PCAP_PKTS)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i in range(n):
            fr = roce_frame(i % flows, i // flows, payload_size)
            f.write(struct.pack("<IIII", 0, 0, len(fr), len(fr)))
            f.write(fr)
    os.replace(tmp, path)
    return n


# ---------------------------------------------------------------------------
# Processes, counters


def stop_process(p, sig=signal.SIGTERM, timeout=20):
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    if p in _children:
        _children.remove(p)


def stop_all(*_):
    for p in list(_children):
        stop_process(p)


class Telemetry:
    """DPDK telemetry v2 client (the protocol dpdk-telemetry.py speaks)."""

    def __init__(self, prefix, deadline):
        path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
        while True:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                s.connect(path)
                break
            except OSError:
                s.close()
                if time.monotonic() > deadline:
                    raise RuntimeError("no telemetry socket at " + path)
                time.sleep(0.1)
        self.sock = s
        info = json.loads(s.recv(4096).decode())
        self.max_len = info.get("max_output_len", 16384)

    def query(self, cmd):
        self.sock.send(cmd.encode())
        return json.loads(self.sock.recv(self.max_len).decode())[cmd.split(",")[0]]

    def port_by_name(self, name):
        for pid in self.query("/ethdev/list"):
            if self.query("/ethdev/info,%d" % pid).get("name") == name:
                return pid
        raise RuntimeError("no ethdev named " + name)

    def close(self):
        self.sock.close()


def cpu_sample(pid):
    """(monotonic s, busy jiffies of all CPUs, steal jiffies, jiffies of PID)."""
    busy = steal = 0
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu") and line[3].isdigit():
                v = [int(x) for x in line.split()[1:]]
                # user nice system idle iowait irq softirq steal ...
                busy += v[0] + v[1] + v[2] + v[5] + v[6]
                steal += v[7] if len(v) > 7 else 0
    own = 0
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        own = int(fields[11]) + int(fields[12])  # utime, stime
    except OSError:
        pass
    return time.monotonic(), busy, steal, own


def fwd_thread(pid):
    """Task id of the forwarding lcore's thread (EAL names it rte-worker-1)."""
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                if f.read().strip() == "rte-worker-1":
                    return int(tid)
        except OSError:
            pass
    return None


def oncpu_ns(pid, tid):
    """Nanoseconds the thread has run on a CPU (schedstat), or None."""
    if tid is None:
        return None
    try:
        with open("/proc/%d/task/%d/schedstat" % (pid, tid)) as f:
            return int(f.read().split()[0])
    except OSError:
        return None


def proc_times():
    """{pid: (command, utime + stime ticks)} of every process."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                head, tail = f.read().rsplit(")", 1)
            v = tail.split()
            out[int(d)] = (head.split("(", 1)[1], int(v[11]) + int(v[12]))
        except (OSError, IndexError, ValueError):
            pass
    return out


def top_consumers(p0, p1, dt, skip):
    """Other processes that used >= 5% of a core between two proc_times()."""
    hz = os.sysconf("SC_CLK_TCK")
    use = {}
    for pid, (comm, t) in p1.items():
        if pid in skip:
            continue
        d = (t - p0[pid][1]) if pid in p0 else 0
        use[comm] = use.get(comm, 0) + d
    return sorted(((100.0 * t / hz / dt, c) for c, t in use.items() if 100.0 * t / hz / dt >= 5.0),
                  reverse=True)[:4]


def other_load(c1, c2):
    """CPU time of other processes during the window, in % of one core."""
    dt = c2[0] - c1[0]
    hz = os.sysconf("SC_CLK_TCK")
    other = (c2[1] - c1[1]) - (c2[3] - c1[3])
    return max(0.0, 100.0 * other / hz / dt), 100.0 * (c2[2] - c1[2]) / hz / dt


def median(xs):
    return statistics.median(xs) if xs else float("nan")


class Stalled(Exception):
    """A window in which nothing was forwarded: starved by other processes
    for a while, or broken if it lasts (Sampler decides)."""


class Sampler:
    """Windows over a running process. sample() returns a dict of counters;
    forwarded(a, b) the packets forwarded between two samples."""

    def __init__(self, args, proc):
        self.args = args
        self.proc = proc

    def windows(self, sample, check):
        a = self.args
        pid = self.proc.pid
        tid = fwd_thread(pid)
        time.sleep(a.warmup)
        s0 = sample()
        c0, r0 = cpu_sample(pid), oncpu_ns(pid, tid)
        p_start, t_start = proc_times(), time.monotonic()
        out = []
        stalls = starved = 0
        while len(out) < a.windows:
            time.sleep(a.window)
            s1 = sample()
            c1, r1 = cpu_sample(pid), oncpu_ns(pid, tid)
            if self.proc.poll() is not None:
                raise RuntimeError("process exited during the measurement")
            try:
                w = check(s0, s1)
            except Stalled as e:
                # Another process can starve the forwarding core for a few
                # seconds; only a stall that lasts is a broken setup.
                stalls += 1
                if stalls * a.window >= 15.0:
                    raise RuntimeError("%s for %.0f s" % (e, stalls * a.window))
                log("bench: %s in a window; waiting" % e)
                s0, c0, r0 = s1, c1, r1
                continue
            stalls = 0
            oncpu = ((r1 - r0) / 1e9 / (c1[0] - c0[0])
                     if r0 is not None and r1 is not None else 1.0)
            if oncpu < a.min_oncpu and starved * a.window < a.starve_wait:
                # The forwarding thread was kept off its CPU by other
                # processes: such a window measures the scheduler. Retry.
                starved += 1
                log("bench: forwarding thread on its CPU %.0f%% of a window; retrying" % (100 * oncpu))
                s0, c0, r0 = s1, c1, r1
                continue
            w["other_pct"], w["steal_pct"] = other_load(c0, c1)
            # Share of the window the forwarding thread was on a CPU: the
            # other vCPU's load preempts it as well as slowing it down.
            w["oncpu"] = ((r1 - r0) / 1e9 / (c1[0] - c0[0])
                          if r0 is not None and r1 is not None else float("nan"))
            out.append(w)
            s0, c0, r0 = s1, c1, r1
        out[-1]["others"] = top_consumers(p_start, proc_times(), time.monotonic() - t_start,
                                          {pid, os.getpid()})
        return out


def run_testpmd(args, mode, pcap, n_mbufs, tag):
    prefix = "lsperf-%d-%s" % (os.getpid(), tag)
    cmd = [args.testpmd, "-l", "0,1", "--main-lcore", "0", "--file-prefix", prefix, "--no-pci",
           "--log-level=lib.eal:debug",
           "--vdev", "net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap, "--vdev", "net_null0,no-rx=1",
           "--", "--forward-mode=" + mode, "--auto-start", "--stats-period", "1", "--nb-cores=1",
           "--burst=32", "--mbuf-size=%d" % (MBUF_DATA_SIZE + MBUF_HEADROOM),
           "--total-num-mbufs=%d" % n_mbufs, "--max-pkt-len=%d" % (WAN_MTU + 18)]
    logf = open(os.path.join(args.workdir, "testpmd-%s.log" % tag), "w")
    p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    _children.append(p)
    tel = None
    try:
        deadline = time.monotonic() + args.start_timeout
        tel = Telemetry(prefix, deadline)
        sink = tel.port_by_name("net_null0")
        while tel.query("/ethdev/stats,%d" % sink)["opackets"] == 0:
            if p.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("testpmd %s forwarded nothing (log %s)" % (mode, logf.name))
            time.sleep(0.1)

        def sample():
            t0 = time.monotonic()
            st = tel.query("/ethdev/stats,%d" % sink)
            return {"t": (t0 + time.monotonic()) / 2, "tx": st["opackets"], "err": st["oerrors"]}

        def check(s0, s1):
            n = s1["tx"] - s0["tx"]
            if n <= 0:
                raise Stalled("testpmd %s forwarded nothing" % mode)
            return {"pps": n / (s1["t"] - s0["t"])}

        ws = Sampler(args, p).windows(sample, check)
    finally:
        if tel is not None:
            tel.close()
        stop_process(p, signal.SIGINT)
        logf.close()
    return ws


def tsc_hz_from_log(path):
    with open(path, errors="replace") as f:
        m = re.search(r"TSC frequency is ~(\d+) KHz", f.read())
    return int(m.group(1)) * 1000 if m else None


LONGSPAND_CONF = """\
; Generated by tests/perf/bench.py: one worker, DC port = pcap source, WAN port = null sink.
[gateway]
name = bench
socket = {sock}
workers = 1
burst = 32
mbufs = {mbufs}
mbuf_data_size = {mbuf_data_size}
stats_interval = 1s
; Per-QP flow table: four times the flows (a quarter full), as a deployment
; would size it; the default (65536) would be full at 64k flows.
flows = {flow_entries}

[eal]
lcores = 0,1
main_lcore = 0
file_prefix = {prefix}
no_pci = yes

[port dc]
role = dc
dev = net_pcap0,rx_pcap={pcap},infinite_rx=1
mac = {dc_mac}
ipv4 = 10.1.255.254/24
gateway4 = 10.1.255.1
mtu = 4200
neighbor = 10.1.255.1 {dc_router_mac}

[port wan]
role = wan
dev = net_null0,no-rx=1
mac = {wan_mac}
ipv4 = 192.0.2.1/24
mtu = {wan_mtu}
; The WAN traffic manager shapes to link_rate (0 would take net_null's 10G):
; the highest rate keeps the shaper from limiting even 4 KB frames (47 Mpps),
; so the benchmark measures the CPU, not the configured link.
link_rate = 1.6T
neighbor = 192.0.2.2 {peer_mac}

[peer site-b]
port = wan
remote = 192.0.2.2
vni = 100
rtt = 100us
prefix = 10.2.0.0/16

[congestion]
marker = {marker}
mechanisms = {mechanisms}
"""

# Set from --marker / --mechanisms: the congestion settings every run uses.
CONGESTION = {"marker": "none", "mechanisms": "none"}


HOOK_CONF = """
[hook roce_flow]
object = {obj}

[telemetry]
interval = 1s
max_flows = {max_flows}
"""


def write_config(path, sock, pcap, n_mbufs, prefix, rings=False, flows=1024, hook=None,
                 pipeline="c"):
    """The benchmark's longspand config; with rings, net_ring_dc/net_ring_wan
    device names for dp_cycles, which replaces the ports with its own rings;
    pipeline: [gateway] pipeline, c or p4."""
    entries = 1 << max(10, (4 * flows - 1).bit_length())
    text = LONGSPAND_CONF.format(sock=sock, mbufs=n_mbufs, mbuf_data_size=MBUF_DATA_SIZE,
                                 flow_entries=entries,
                                 prefix=prefix, pcap=pcap, dc_mac=DC_MAC,
                                 dc_router_mac=DC_ROUTER_MAC, wan_mac=WAN_MAC,
                                 peer_mac=PEER_MAC, wan_mtu=WAN_MTU, **CONGESTION)
    if hook:
        text += HOOK_CONF.format(obj=hook, max_flows=max(1024, 2 * flows))
    if pipeline != "c":
        text = text.replace("[gateway]\n", "[gateway]\npipeline = %s\n" % pipeline, 1)
    if rings:
        text = text.replace("dev = net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap, "dev = net_ring_dc")
        text = text.replace("dev = net_null0,no-rx=1", "dev = net_ring_wan")
    with open(path, "w") as f:
        f.write(text)


def ctl_stats(args, sock):
    t0 = time.monotonic()
    r = subprocess.run([args.longspanctl, "-s", sock, "--json", "-t", "5", "show", "stats"],
                       capture_output=True, text=True)
    t1 = time.monotonic()
    if r.returncode != 0:
        raise RuntimeError("longspanctl show stats: " + (r.stderr.strip() or "exit %d" % r.returncode))
    return (t0 + t1) / 2, json.loads(r.stdout)


def worker0(st):
    ws = st.get("workers", {})
    return ws.get("0") or next(iter(ws.values()))


def pin_start(args, sock, timeout=6.0, max_err=0.05):
    """Monotonic time of longspand's start_tsc, from the moment `uptime_s`
    steps: show stats reports busy % of the time since then, not busy_tsc,
    so the window's busy TSC is busy% x uptime differenced. Only a step seen
    between two replies less than 2 x max_err apart counts; (None, None)
    when the machine is too busy to see one."""
    t_prev, st = ctl_stats(args, sock)
    u_prev = st["uptime_s"]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        t, st = ctl_stats(args, sock)
        if st["uptime_s"] != u_prev and t - t_prev <= 2 * max_err:
            return (t_prev + t) / 2 - st["uptime_s"], (t - t_prev) / 2
        t_prev, u_prev = t, st["uptime_s"]
    return None, None


def run_longspand(args, pcap, n_mbufs, tag, flows, hook=None, pipeline="c"):
    prefix = "lsperf-%d-%s" % (os.getpid(), tag)
    sock = os.path.join(args.workdir, "bench.sock")
    conf = os.path.join(args.workdir, "bench-%s.conf" % tag)
    write_config(conf, sock, pcap, n_mbufs, prefix, flows=flows, hook=hook, pipeline=pipeline)
    r = subprocess.run([args.longspand, "--check-config", conf], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("bench config rejected:\n" + r.stdout + r.stderr)
    if os.path.exists(sock):
        os.unlink(sock)
    logf = open(os.path.join(args.workdir, "longspand-%s.log" % tag), "w")
    p = subprocess.Popen([args.longspand, "-c", conf, "--log-level=lib.eal:debug"],
                         stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    _children.append(p)
    tel = None
    try:
        deadline = time.monotonic() + args.start_timeout
        while True:
            if p.poll() is not None:
                raise RuntimeError("longspand exited with %d (log %s)" % (p.returncode, logf.name))
            if time.monotonic() > deadline:
                raise RuntimeError("longspand did not come up (log %s)" % logf.name)
            try:
                _, st = ctl_stats(args, sock)
                if st["tx_pkts"] > 0:
                    break
            except (RuntimeError, ValueError):
                pass
            time.sleep(0.1)
        tel = Telemetry(prefix, deadline)
        sink = tel.port_by_name("net_null0")
        start, start_err = pin_start(args, sock)

        def sample():
            t, st = ctl_stats(args, sock)
            eth = tel.query("/ethdev/stats,%d" % sink)
            w = worker0(st)
            return {"t": t, "st": st, "w": w, "eth_tx": eth["opackets"]}

        def check(s0, s1):
            a, b = s0["st"], s1["st"]
            dt = s1["t"] - s0["t"]
            tx = b["tx_pkts"] - a["tx_pkts"]
            rx = b["rx_pkts"] - a["rx_pkts"]
            drops = b["drops"] - a["drops"]
            data = b["classes"]["roce_data"] - a["classes"]["roce_data"]
            if tx <= 0 and rx <= 0 and drops == 0:
                raise Stalled("longspand forwarded nothing")
            if drops != 0 or abs(rx - tx) > 1024 or abs(data - rx) > 1024:
                raise RuntimeError("longspand: rx %d tx %d roce_data %d drops %d in a window: "
                                   "the benchmark would measure the wrong path" % (rx, tx, data, drops))
            w = {"pps": tx / dt, "eth_pps": (s1["eth_tx"] - s0["eth_tx"]) / dt}
            bw0, bw1 = s0["w"], s1["w"]
            if "busy_tsc" in bw1:  # raw counter, if the API exports it
                w["busy_tsc"] = bw1["busy_tsc"] - bw0["busy_tsc"]
            elif start is not None and bw0.get("busy_pct") is not None:
                e0, e1 = s0["t"] - start, s1["t"] - start
                frac = (bw1["busy_pct"] * e1 - bw0["busy_pct"] * e0) / 100.0 / (e1 - e0)
                if 0.0 <= frac <= 1.02:  # else the start time was not pinned well enough
                    w["busy_frac"] = min(frac, 1.0)
            polls = bw1["polls"] - bw0["polls"]
            idle = b["idle_polls"] - a["idle_polls"]
            w["idle_poll_pct"] = 100.0 * idle / polls if polls else float("nan")
            w["pkts_per_poll"] = tx / (polls - idle) if polls > idle else float("nan")
            w["tx"] = tx
            h0, h1 = a.get("hooks", {}).get("roce_flow"), b.get("hooks", {}).get("roce_flow")
            if h0 and h1 and tx > 0:
                w["hook_cycles_per_pkt"] = (h1["cycles"] - h0["cycles"]) / tx
                w["hook_calls_per_pkt"] = (h1["calls"] - h0["calls"]) / tx
            if "flows_full" in b:  # per-QP flow table: every flow must fit
                w["flows_full"] = b["flows_full"] - a["flows_full"]
                w["flows_created"] = b["flows_created"]
            return w

        ws = Sampler(args, p).windows(sample, check)
        for w in ws:
            w["start_err_s"] = start_err
    finally:
        if tel is not None:
            tel.close()
        stop_process(p, signal.SIGTERM)
        logf.close()
    with open(logf.name, errors="replace") as f:
        text = f.read()
    m = re.search(r"mbufs in use at exit: (\d+)", text)
    if m is None or int(m.group(1)) != 0:
        log("bench: warning: longspand did not return every mbuf (log %s)" % logf.name)
    return ws, tsc_hz_from_log(logf.name)


def p4_sources():
    """Whether pipeline = p4 can start here: gcc and the lib/pipeline headers
    of the installed DPDK (control/p4_pipeline.c looks in the same places)."""
    if shutil.which("gcc") is None:
        return False
    src = os.environ.get("LS_DPDK_SRC")
    if not src:
        r = subprocess.run(["pkg-config", "--modversion", "libdpdk"], capture_output=True,
                           text=True)
        src = "/var/cache/longspan/dpdk-" + r.stdout.strip()
    return os.path.exists(os.path.join(src, "lib", "pipeline", "rte_swx_pipeline_internal.h"))


def wait_quiet(args):
    """Wait up to --quiet-wait seconds for the other processes' load (all
    CPUs, from /proc/stat, nothing of ours running) to fall below
    --quiet-below % of a core. Returns the seconds waited."""
    if args.quiet_wait <= 0:
        return 0.0
    t0 = time.monotonic()
    while True:
        c0 = cpu_sample(os.getpid())
        time.sleep(1.0)
        load, _ = other_load(c0, cpu_sample(os.getpid()))
        waited = time.monotonic() - t0
        if load < args.quiet_below or waited >= args.quiet_wait:
            if waited > 1.5:
                log("bench: waited %.0f s for a quieter machine (other load now %.0f%%)"
                    % (waited, load))
            return waited


def run_dp_cycles(args, pcap, n_mbufs, tag, flows, components=False):
    """dp_cycles on the same packets: the pipeline's rdtsc cycles per packet
    over net_ring ports (no pcap copy, no null PMD), and optionally its stages."""
    conf = os.path.join(args.workdir, "cycles-%s.conf" % tag)
    write_config(conf, os.path.join(args.workdir, "cycles.sock"), pcap, n_mbufs,
                 "lsperf-%d-cy" % os.getpid(), rings=True, flows=flows)
    cmd = [args.dp_cycles, "--config", conf, "--pcap", pcap,
           "--packets", str(args.cycles_packets), "--rounds", "5"]
    if components:
        cmd.append("--components")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    with open(os.path.join(args.workdir, "cycles-%s.log" % tag), "w") as f:
        f.write(r.stdout + r.stderr)
    if r.returncode != 0:
        raise RuntimeError("dp_cycles failed: " + r.stderr.strip().splitlines()[-1]
                           if r.stderr.strip() else "dp_cycles exit %d" % r.returncode)
    out = {"stages": []}
    for line in r.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| dp_worker_poll()"):
            out["pipeline_cycles"] = float(cells[2])
            out["pipeline_cycles_min"] = float(cells[3])
        elif len(cells) == 3 and cells[1].replace(".", "", 1).isdigit():
            out["stages"].append({"stage": cells[0], "cycles": float(cells[1]), "note": cells[2]})
    if "pipeline_cycles" not in out:
        raise RuntimeError("dp_cycles printed no result")
    return out


# ---------------------------------------------------------------------------
# Report


def fmt(x, nd=1):
    if x is None or x != x:
        return "n/a"
    return "%.*f" % (nd, x)


def summarise(row, tsc_hz):
    ls = row["longspand"]
    pps = median([w["pps"] for w in ls])
    io = median([w["pps"] for w in row["io"]])
    ms = median([w["pps"] for w in row["macswap"]])
    if all("busy_tsc" in w for w in ls):
        busy_cyc = median([w["busy_tsc"] / w["tx"] for w in ls])
    elif all("busy_frac" in w for w in ls) and tsc_hz:
        busy_cyc = median([w["busy_frac"] * tsc_hz / w["pps"] for w in ls])
    else:
        busy_cyc = float("nan")
    other = max(w["other_pct"] for k in ("longspand", "io", "macswap") for w in row[k])
    p4w = row.get("longspand_p4", [])
    p4 = {}
    if p4w:
        p4pps = median([w["pps"] for w in p4w])
        p4 = {"p4_mpps": p4pps / 1e6, "ratio_p4_io": p4pps / io, "ratio_p4_macswap": p4pps / ms,
              "ratio_p4_c": p4pps / pps,
              "p4_oncpu_cycles_per_pkt": (median([w["oncpu"] * tsc_hz / w["pps"] for w in p4w])
                                          if tsc_hz else float("nan")),
              "p4_spread_pct": 100.0 * (max(w["pps"] for w in p4w) -
                                        min(w["pps"] for w in p4w)) / p4pps}
    hk = row.get("longspand_hook", [])
    hook = {}
    if hk:
        hpps = median([w["pps"] for w in hk])
        hook = {"hook_mpps": hpps / 1e6, "ratio_hook": hpps / pps,
                "hook_cycles_per_pkt": median([w.get("hook_cycles_per_pkt", float("nan"))
                                               for w in hk]),
                "hook_calls_per_pkt": median([w.get("hook_calls_per_pkt", float("nan"))
                                              for w in hk])}
    return {
        **hook,
        **p4,
        "flows": row["flows"], "size": row["size"], "frame_bytes": row["frame_bytes"],
        "mpps": pps / 1e6, "ns_per_pkt": 1e9 / pps,
        "cycles_per_pkt": tsc_hz / pps if tsc_hz else float("nan"),
        "busy_cycles_per_pkt": busy_cyc,
        "oncpu_pct": 100.0 * median([w["oncpu"] for w in ls]),
        "io_oncpu_pct": 100.0 * median([w["oncpu"] for w in row["io"]]),
        "oncpu_cycles_per_pkt": (median([w["oncpu"] * tsc_hz / w["pps"] for w in ls])
                                 if tsc_hz else float("nan")),
        "io_oncpu_cycles_per_pkt": (median([w["oncpu"] * tsc_hz / w["pps"] for w in row["io"]])
                                    if tsc_hz else float("nan")),
        "pipeline_cycles": row.get("cycles", {}).get("pipeline_cycles", float("nan")),
        "io_mpps": io / 1e6, "ratio_io": pps / io,
        "macswap_mpps": ms / 1e6, "ratio_macswap": pps / ms,
        "gbps": pps * row["frame_bytes"] * 8 / 1e9,
        "idle_poll_pct": median([w["idle_poll_pct"] for w in ls]),
        "pkts_per_poll": median([w["pkts_per_poll"] for w in ls]),
        "ethdev_check": median([w["eth_pps"] / w["pps"] for w in ls]),
        "spread_pct": 100.0 * (max(w["pps"] for w in ls) - min(w["pps"] for w in ls)) / pps,
        "other_pct": other,
        "steal_pct": max(w["steal_pct"] for k in ("longspand", "io", "macswap") for w in row[k]),
        "others": sorted({c for k in ("longspand", "io", "macswap") for w in row[k]
                          for _, c in w.get("others", [])}),
        "windows": len(ls),
        "flows_full": sum(w.get("flows_full", 0) for w in ls),
    }


def table(summ):
    cols = ["flows", "frame", "longspand Mpps", "ns/pkt", "cycles/pkt (TSC/pps)",
            "busy cycles/pkt", "on-CPU cycles/pkt", "worker on-CPU", "pipeline cycles/pkt (dp_cycles)",
            "Gbit/s",
            "testpmd io Mpps", "longspand/io", "longspand/io on-CPU",
            "testpmd macswap Mpps", "longspand/macswap", "other load"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for s in summ:
        v = [str(s["flows"]), "%d B" % s["frame_bytes"], fmt(s["mpps"], 2), fmt(s["ns_per_pkt"], 1),
             fmt(s["cycles_per_pkt"], 0), fmt(s["busy_cycles_per_pkt"], 0),
             fmt(s["oncpu_cycles_per_pkt"], 0), fmt(s["oncpu_pct"], 0) + "%",
             fmt(s["pipeline_cycles"], 0), fmt(s["gbps"], 1),
             fmt(s["io_mpps"], 2), fmt(s["ratio_io"], 2),
             fmt(s["io_oncpu_cycles_per_pkt"] / s["oncpu_cycles_per_pkt"], 2),
             fmt(s["macswap_mpps"], 2), fmt(s["ratio_macswap"], 2), fmt(s["other_pct"], 0) + "%"]
        lines.append("| " + " | ".join(v) + " |")
    if any("p4_mpps" in s for s in summ):
        lines += ["", "With [gateway] pipeline = p4 (the SWX pipeline, then the C stages; same "
                  "rounds, same cores, same testpmd runs):", "",
                  "| flows | frame | C Mpps | C/io | p4 Mpps | p4/io | p4/macswap | p4/C | "
                  "C on-CPU cycles/pkt | p4 on-CPU cycles/pkt | p4 window spread |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for s in summ:
            if "p4_mpps" in s:
                lines.append("| %d | %d B | %s | %s | %s | %s | %s | %s | %s | %s | %s%% |" % (
                    s["flows"], s["frame_bytes"], fmt(s["mpps"], 2), fmt(s["ratio_io"], 2),
                    fmt(s["p4_mpps"], 2), fmt(s["ratio_p4_io"], 2),
                    fmt(s["ratio_p4_macswap"], 2), fmt(s["ratio_p4_c"], 2),
                    fmt(s["oncpu_cycles_per_pkt"], 0), fmt(s["p4_oncpu_cycles_per_pkt"], 0),
                    fmt(s["p4_spread_pct"], 0)))
    if any("hook_mpps" in s for s in summ):
        lines += ["", "With the roce_flow hook at all four points (same run, same cores):", "",
                  "| flows | frame | hooks off Mpps | hooks on Mpps | on/off | "
                  "hook cycles/pkt (its own counter) | hook calls/pkt |",
                  "|---|---|---|---|---|---|---|"]
        for s in summ:
            if "hook_mpps" in s:
                lines.append("| %d | %d B | %s | %s | %s | %s | %s |" % (
                    s["flows"], s["frame_bytes"], fmt(s["mpps"], 2), fmt(s["hook_mpps"], 2),
                    fmt(s["ratio_hook"], 2), fmt(s["hook_cycles_per_pkt"], 1),
                    fmt(s["hook_calls_per_pkt"], 1)))
    return "\n".join(lines)


def source_rev(build):
    """Which source the build came from: its git commit (and whether the hot
    code has uncommitted changes), or the COMMIT file of a `git archive` export."""
    try:
        with open(os.path.join(build, "meson-info", "meson-info.json")) as f:
            src = json.load(f)["directories"]["source"]
    except (OSError, ValueError, KeyError):
        return "unknown source"
    if os.path.exists(os.path.join(src, "COMMIT")) and not os.path.exists(os.path.join(src, ".git")):
        with open(os.path.join(src, "COMMIT")) as f:
            return "%s (clean export in %s)" % (f.read().strip(), src)
    r = subprocess.run(["git", "-C", src, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if r.returncode != 0:
        return "unknown (source %s)" % src
    dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "--", "dataplane", "control"],
                           capture_output=True, text=True).stdout.strip()
    return r.stdout.strip() + (" + uncommitted changes in dataplane/ or control/" if dirty else "")


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def top_others(own_pids):
    r = subprocess.run(["ps", "-eo", "pid,pcpu,comm", "--sort=-pcpu"], capture_output=True, text=True)
    out = []
    for line in r.stdout.splitlines()[1:]:
        pid, pcpu, comm = line.split(None, 2)
        if int(pid) in own_pids or float(pcpu) < 5.0:
            continue
        out.append("%s (%s%%)" % (comm, pcpu))
    return out[:5]


def write_results(args, out, rows, tsc_hz, stages, started, others_before, n_cases):
    """Write the Markdown results and the JSON beside them (after every case, so a
    run that is cut short leaves what it measured); returns the Markdown."""
    summ = [summarise(r, tsc_hz) for r in rows]
    max_other = max(s["other_pct"] for s in summ)
    others_seen = sorted({c for s in summ for c in s["others"]})
    shared = max_other > 10.0
    ver = subprocess.run([args.longspand, "--version"], capture_output=True, text=True).stdout.strip()
    hdr = [
        "# Longspan benchmark results" + ("" if len(rows) == n_cases else
                                          " (partial: %d of %d cases)" % (len(rows), n_cases)),
        "",
        "- date: %s" % started.strftime("%Y-%m-%d %H:%M %Z"),
        "- command: `%s`" % " ".join(["/usr/bin/python3" if sys.executable == "/usr/bin/python3"
                                      else sys.executable] + [os.path.relpath(sys.argv[0], os.getcwd())]
                                     + sys.argv[1:]),
        "- %s, source %s, build %s" % (ver, source_rev(args.build), args.build),
        "- CPU: %s, %d vCPUs, TSC %s MHz; forwarding on lcore 1, control/main on lcore 0"
        % (cpu_model(), os.cpu_count(), fmt(tsc_hz / 1e6 if tsc_hz else None, 0)),
        "- windows: warm-up %.1f s, %d x %.1f s per run, %d round(s) of testpmd io, longspand, "
        "testpmd macswap back to back per case; medians over all windows%s"
        % (args.warmup, args.windows, args.window, args.rounds,
           "; each round waited up to %.0f s for other load < %.0f%% of a core"
           % (args.quiet_wait, args.quiet_below) if args.quiet_wait > 0 else ""),
        "- machine shared: %s (other processes used up to %.0f%% of a core during a window%s%s)"
        % ("YES, read the ratios" if shared else "no", max_other,
           "; busy at start: " + ", ".join(others_before) if others_before else "",
           "; using >= 5% of a core during runs: " + ", ".join(others_seen) if others_seen else ""),
        "",
        "",
    ]
    tab = table(summ)
    notes = [
        "",
        "cycles/pkt (TSC/pps) is the worker core's whole budget per packet (it busy-polls); "
        "busy cycles/pkt counts only the TSC spent in polls that carried packets "
        "(struct dp_counters busy_tsc); on-CPU cycles/pkt counts only the time the forwarding "
        "thread was on a CPU (/proc schedstat), which removes preemption by other processes "
        "but not the slowdown from a busy sibling vCPU; longspand/io on-CPU compares the two "
        "programs' on-CPU cycles per packet; pipeline cycles/pkt is dp_cycles: dp_worker_poll() "
        "timed with rdtsc over net_ring ports (no pcap copy, no null PMD), median of 5 rounds. "
        "longspand Mpps is the WAN port's tx rate "
        "(longspanctl show stats); the ethdev telemetry counter agreed within %s%%; "
        "worker idle polls %s%%, packets per busy poll %s."
        % (fmt(max(abs(s["ethdev_check"] - 1) * 100 for s in summ), 2),
           fmt(max(s["idle_poll_pct"] for s in summ), 2),
           fmt(min(s["pkts_per_poll"] for s in summ), 1)),
    ]
    full = sum(s.get("flows_full", 0) for s in summ)
    if full:
        notes += ["", "WARNING: the per-QP flow table was full for %d packets "
                  "(flows_full): those flows went untracked." % full]
    if stages:
        notes += ["", "Stages of the pipeline (dp_cycles --components, %d flows, %d B frames; "
                  "rdtsc per burst of 32, median of 5; hot caches, so a lower bound):"
                  % (stages["flows"], stages["frame_bytes"]), "",
                  "| stage | cycles/pkt | note |", "|---|---|---|"]
        notes += ["| %s | %.1f | %s |" % (x["stage"], x["cycles"], x["note"]) for x in stages["stages"]]
    text = "\n".join(hdr) + tab + "\n" + "\n".join(notes) + "\n"
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write(text)
    with open(os.path.splitext(out)[0] + ".json", "w") as f:
        json.dump({"tsc_hz": tsc_hz, "summary": summ, "runs": rows, "shared": shared,
                   "stages": stages}, f, indent=1)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--build", default=os.path.join(root, "build"), help="meson build directory")
    ap.add_argument("--testpmd", default=shutil.which("dpdk-testpmd") or "dpdk-testpmd")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: 1k flows, 64 B, one short window")
    ap.add_argument("--flows", default=None, help="comma list (default 1,1024,65536)")
    ap.add_argument("--sizes", default=None, help="comma list of 64,1k,4k (default all)")
    ap.add_argument("--warmup", type=float, default=None, help="seconds before the first window")
    ap.add_argument("--window", type=float, default=None, help="seconds per window")
    ap.add_argument("--windows", type=int, default=None, help="windows per run (median taken)")
    ap.add_argument("--start-timeout", type=float, default=60.0)
    ap.add_argument("--rounds", type=int, default=1,
                    help="repeat testpmd io, longspand, testpmd macswap this many times per "
                         "case, interleaved, and take the medians over every window")
    ap.add_argument("--quiet-wait", type=float, default=0.0,
                    help="before each round, wait up to this many seconds for other processes' "
                         "load to fall below --quiet-below")
    ap.add_argument("--quiet-below", type=float, default=30.0,
                    help="%% of a core (default 30)")
    ap.add_argument("--min-oncpu", type=float, default=0.8,
                    help="retry a window in which the forwarding thread ran less than this "
                         "share of the time (default 0.8)")
    ap.add_argument("--starve-wait", type=float, default=30.0,
                    help="seconds of such retries per run before keeping what there is")
    ap.add_argument("--no-cycles", action="store_true",
                    help="skip dp_cycles (the pipeline's cycles without a packet source)")
    ap.add_argument("--cycles-packets", type=int, default=None,
                    help="packets per dp_cycles run (default 20M, --quick 5M)")
    ap.add_argument("--marker", choices=["none", "red", "sojourn", "phantom"], default="none",
                    help="[congestion] marker of the benchmark's gateway (default none)")
    ap.add_argument("--mechanisms", default="none",
                    help="[congestion] mechanisms: none, A, C or A,C (default none)")
    ap.add_argument("--hook", default=None,
                    help="roce_flow.bpf.o: also run longspand with the hook at every point")
    ap.add_argument("--p4", action="store_true",
                    help="also run longspand with [gateway] pipeline = p4 in every round, after "
                         "the C one, for the P4 ingress's ratio to testpmd")
    ap.add_argument("--workdir", default="/tmp/longspan-perf",
                    help="pcaps (kept between runs), configs and logs")
    ap.add_argument("--out", default=None,
                    help="results file (Markdown; a .json beside it). Default BUILD/perf-results.md")
    args = ap.parse_args()
    CONGESTION["marker"] = args.marker
    CONGESTION["mechanisms"] = args.mechanisms

    if args.quick:
        flows, sizes = [1024], ["64"]
        args.warmup = 0.5 if args.warmup is None else args.warmup
        args.window = 1.0 if args.window is None else args.window
        args.windows = 1 if args.windows is None else args.windows
    else:
        flows = FLOWS
        sizes = list(SIZES)
        args.warmup = 1.0 if args.warmup is None else args.warmup
        args.window = 2.0 if args.window is None else args.window
        args.windows = 3 if args.windows is None else args.windows
    if args.flows:
        flows = [int(x) for x in args.flows.split(",")]
    if args.sizes:
        sizes = args.sizes.split(",")
        for s in sizes:
            if s not in SIZES:
                ap.error("unknown size %s (64, 1k, 4k)" % s)
    args.build = os.path.abspath(args.build)
    args.longspand = os.path.join(args.build, "longspand")
    args.longspanctl = os.path.join(args.build, "control", "longspanctl")
    args.dp_cycles = os.path.join(args.build, "tests", "perf", "dp_cycles")
    if args.no_cycles or not os.access(args.dp_cycles, os.X_OK):
        args.dp_cycles = None
    if args.cycles_packets is None:
        args.cycles_packets = 5000000 if args.quick else 20000000
    out = os.path.abspath(args.out or os.path.join(args.build, "perf-results.md"))

    # Prerequisites: a skip, not a failure.
    missing = []
    if os.geteuid() != 0:
        missing.append("root (hugepages, /var/run/dpdk)")
    for b in (args.longspand, args.longspanctl):
        if not os.access(b, os.X_OK):
            missing.append("%s (build first: ninja -C %s)" % (b, args.build))
    if shutil.which(args.testpmd) is None:
        missing.append("dpdk-testpmd (Debian package dpdk)")
    try:
        if importlib.util.find_spec("scapy.contrib.roce") is None:
            raise ImportError
    except ImportError:
        missing.append("scapy (python3-scapy; run with /usr/bin/python3)")
    try:
        with open("/proc/meminfo") as f:
            free_huge = int(re.search(r"HugePages_Free:\s+(\d+)", f.read()).group(1))
    except (OSError, AttributeError):
        free_huge = 0
    if args.p4 and not p4_sources():
        missing.append("DPDK pipeline sources for pipeline = p4 (scripts/dpdk-pipeline-src.sh "
                       "or LS_DPDK_SRC) and gcc")
    if free_huge < 256:
        missing.append("free 2 MiB hugepages (%d free, need 256+)" % free_huge)
    if missing:
        log("bench: skipped, missing: " + "; ".join(missing))
        return EXIT_SKIP

    os.makedirs(args.workdir, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: (stop_all(), sys.exit(EXIT_BROKEN)))
    started = datetime.datetime.now().astimezone()
    log("bench: flows %s, sizes %s, warm-up %.1f s, %d x %.1f s windows; work dir %s" % (
        flows, sizes, args.warmup, args.windows, args.window, args.workdir))
    others_before = top_others({os.getpid()})

    rows, tsc_hz, stages = [], None, None
    try:
        for size in sizes:
            payload = SIZES[size]
            check_frames_with_scapy(payload)
            for nf in flows:
                pcap = os.path.join(args.workdir, "roce-%dflows-%s.pcap" % (nf, size))
                if not os.path.exists(pcap):
                    log("bench: writing %s" % pcap)
                    write_pcap(pcap, nf, payload)
                n_pkts = max(nf, MIN_PCAP_PKTS)
                n_mbufs = n_pkts + MBUF_SLACK
                tag = "%d-%s" % (nf, size)
                row = {"flows": nf, "size": size, "frame_bytes": payload + ROCE_OVERHEAD,
                       "io": [], "longspand": [], "macswap": [], "quiet_wait_s": 0.0}
                what = "%s flows, %s B frames" % (nf, row["frame_bytes"])
                for rnd in range(args.rounds):
                    row["quiet_wait_s"] += wait_quiet(args)
                    sfx = "" if args.rounds == 1 else " (round %d/%d)" % (rnd + 1, args.rounds)
                    log("bench: %s: testpmd io%s" % (what, sfx))
                    row["io"] += run_testpmd(args, "io", pcap, n_mbufs, tag + "-io")
                    tsc_hz = tsc_hz or tsc_hz_from_log(
                        os.path.join(args.workdir, "testpmd-%s-io.log" % tag))
                    log("bench: %s: longspand%s" % (what, sfx))
                    ws, hz = run_longspand(args, pcap, n_mbufs, tag, nf)
                    row["longspand"] += ws
                    tsc_hz = tsc_hz or hz
                    if args.p4:
                        log("bench: %s: longspand, pipeline = p4%s" % (what, sfx))
                        ws, _ = run_longspand(args, pcap, n_mbufs, tag + "-p4", nf,
                                              pipeline="p4")
                        row.setdefault("longspand_p4", []).extend(ws)
                    if args.hook:
                        log("bench: %s: longspand with the roce_flow hook%s" % (what, sfx))
                        ws, _ = run_longspand(args, pcap, n_mbufs, tag + "-hook", nf,
                                              hook=args.hook)
                        row.setdefault("longspand_hook", []).extend(ws)
                    log("bench: %s: testpmd macswap%s" % (what, sfx))
                    row["macswap"] += run_testpmd(args, "macswap", pcap, n_mbufs, tag + "-macswap")
                if args.dp_cycles:
                    log("bench: %s flows, %s B frames: dp_cycles" % (nf, row["frame_bytes"]))
                    stage_flows = 1024 if 1024 in flows else flows[0]
                    want_stages = stages is None and size == sizes[0] and nf == stage_flows
                    row["cycles"] = run_dp_cycles(args, pcap, n_mbufs, tag, nf, want_stages)
                    if want_stages:
                        stages = {"flows": nf, "frame_bytes": row["frame_bytes"],
                                  "stages": row["cycles"]["stages"]}
                rows.append(row)
                write_results(args, out, rows, tsc_hz, stages, started, others_before,
                              len(flows) * len(sizes))
                s = summarise(row, tsc_hz)
                log("bench:   longspand %.2f Mpps, testpmd io %.2f, macswap %.2f, ratio %.2f" % (
                    s["mpps"], s["io_mpps"], s["macswap_mpps"], s["ratio_io"]))
                if "p4_mpps" in s:
                    log("bench:   longspand p4 %.2f Mpps, ratio to io %.2f, to C %.2f" % (
                        s["p4_mpps"], s["ratio_p4_io"], s["ratio_p4_c"]))
    except (RuntimeError, OSError, ValueError, KeyError) as e:
        log("bench: broken setup: %s" % e)
        stop_all()
        return EXIT_BROKEN
    finally:
        stop_all()

    if not rows:
        return EXIT_BROKEN
    print(write_results(args, out, rows, tsc_hz, stages, started, others_before,
                        len(rows)))
    log("bench: results in %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
