# SPDX-License-Identifier: BSD-3-Clause
"""Helpers for the two-gateway integration tests: write configs, start and
stop longspand, talk to longspanctl, run the pktio traffic end, compare
what crossed the WAN with what was sent."""

import collections
import json
import os
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from scapy.all import IP, Ether, IPv6, rdpcap  # noqa: E402

SITE = {
    "a": {"n": 1, "dc_mac": "02:00:00:00:0a:01", "router_mac": "02:00:00:00:0a:fe",
          "wan_mac": "02:00:00:00:0a:02", "wan4": "192.0.2.1", "wan6": "2001:db8:ff::1"},
    "b": {"n": 2, "dc_mac": "02:00:00:00:0b:01", "router_mac": "02:00:00:00:0b:fe",
          "wan_mac": "02:00:00:00:0b:02", "wan4": "192.0.2.2", "wan6": "2001:db8:ff::2"},
}


def other(site):
    return "b" if site == "a" else "a"


def gateway_config(site, tag, dc_dev, wan_dev, underlay="4", static_dc=True, eal_extra=None,
                   dc_mtu=4200, wan_mtu=4400, pipeline="c"):
    """A gateway config for one lab site. underlay: '4' or '6' outer family;
    pipeline: [gateway] pipeline, c or p4 (docs/p4.md)."""
    s, o = SITE[site], SITE[other(site)]
    n, on = s["n"], o["n"]
    lines = [
        "[gateway]",
        f"name = {tag}-{site}",
        f"socket = /run/longspan/{tag}-{site}.sock",
        "workers = 1",
        "idle_sleep = 200us",
        f"pipeline = {pipeline}",
        "[eal]",
        "lcores = 0,1",
        f"file_prefix = {tag}-{site}",
        "memory = 256",
        "no_pci = yes",
    ]
    if eal_extra:
        lines += eal_extra
    lines += [
        "[port dc]",
        "role = dc",
        f"dev = {dc_dev}",
        f"mac = {s['dc_mac']}",
        f"ipv4 = 10.{n}.255.254/24",
        f"ipv6 = fd00:{n}:ffff::fe/64",
        f"gateway4 = 10.{n}.255.1",
        f"gateway6 = fd00:{n}:ffff::1",
        f"mtu = {dc_mtu}",
    ]
    if static_dc:
        lines += [f"neighbor = 10.{n}.255.1 {s['router_mac']}",
                  f"neighbor = fd00:{n}:ffff::1 {s['router_mac']}"]
    remote = o["wan4"] if underlay == "4" else o["wan6"]
    lines += [
        "[port wan]",
        "role = wan",
        f"dev = {wan_dev}",
        f"mac = {s['wan_mac']}",
        f"ipv4 = {s['wan4']}/24",
        f"ipv6 = {s['wan6']}/64",
        f"mtu = {wan_mtu}",
        "link_rate = 10G",
        f"neighbor = {remote} {o['wan_mac']}",
        f"[peer site-{other(site)}]",
        "port = wan",
        f"remote = {remote}",
        "vni = 100",
        "rtt = 1ms",
        f"prefix = 10.{on}.0.0/16",
        f"prefix = fd00:{on}::/48",
    ]
    return "\n".join(lines) + "\n"


def two_site_configs(tmp, tag, lossless=None, underlay="4", pipeline="c"):
    """Configs of gateways a and b for the two-site tests, written under TMP:
    each DC port a memif server (its socket in the returned dict), the WAN a
    memif link (a the server), [peer] lossless = LOSSLESS when given.
    Returns ({site: config path}, {site: DC socket})."""
    sock = {s: f"{tmp}/{s}-dc.sock" for s in "ab"}
    wan_sock = f"{tmp}/wan.sock"
    path = {}
    for s in "ab":
        role = "server" if s == "a" else "client"
        text = gateway_config(
            s, tag,
            dc_dev=f"net_memif0,role=server,socket={sock[s]},id=0,bsize=8192",
            wan_dev=f"net_memif1,role={role},socket={wan_sock},id=0,bsize=8192",
            underlay=underlay, pipeline=pipeline)
        if lossless:
            text = text.replace("vni = 100\n", f"vni = 100\nlossless = {lossless}\n")
        path[s] = f"{tmp}/site-{s}.conf"
        open(path[s], "w").write(text)
    return path, sock


def telemetry(file_prefix, cmd, timeout=2.0):
    """One DPDK telemetry command to the process with FILE_PREFIX, as
    dpdk-telemetry.py sends it; None when it does not answer."""
    path = f"/var/run/dpdk/{file_prefix}/dpdk_telemetry.v2"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(timeout)
    try:
        s.connect(path)
        s.recv(16384)  # greeting
        s.send(cmd.encode())
        return json.loads(s.recv(65536))
    except (OSError, ValueError):
        return None
    finally:
        s.close()


class Gateway:
    def __init__(self, build, path, log):
        self.build, self.path, self.logpath = build, path, log
        self.sock = None
        for line in open(path):
            if line.startswith("socket ="):
                self.sock = line.split("=", 1)[1].strip()
        self.proc = None

    def start(self, timeout=15):
        if self.sock and os.path.exists(self.sock):
            os.unlink(self.sock)
        self.log = open(self.logpath, "w")
        self.proc = subprocess.Popen([os.path.join(self.build, "longspand"), "-c", self.path],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"longspand exited: {open(self.logpath).read()[-2000:]}")
            try:
                self.ctl("show", "stats")
                return self
            except subprocess.CalledProcessError:
                time.sleep(0.1)
        raise RuntimeError(f"longspand API did not come up: {open(self.logpath).read()[-2000:]}")

    def ctl(self, *args, json_out=True):
        cmd = [os.path.join(self.build, "control", "longspanctl"), "-s", self.sock]
        if json_out:
            cmd.append("--json")
        out = subprocess.run(cmd + list(args), check=True, capture_output=True, text=True,
                             timeout=10).stdout
        return json.loads(out) if json_out else out

    def stop(self):
        """SIGTERM, wait, and return the number of mbufs still in use at exit."""
        if self.proc is None:
            return None
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError("longspand did not stop on SIGTERM")
        self.log.close()
        for line in open(self.logpath):
            if "mbufs in use at exit:" in line:
                return int(line.rsplit(":", 1)[1])
        raise RuntimeError(f"no mbuf accounting line: {open(self.logpath).read()[-2000:]}")


def pktio(build, prefix, vdev, tx=None, rx=None, loop=1, pps=2000, duration=10, expect=0,
          settle=1500):
    cmd = [os.path.join(build, "tests", "tools", "longspan-pktio"), "-l", "1",
           "--file-prefix", prefix, "-m", "160", "--no-pci", "--log-level=*:warning",
           f"--vdev={vdev}", "--"]
    if tx:
        cmd += ["--tx", tx, "--loop", str(loop), "--pps", str(pps)]
    if rx:
        cmd += ["--rx", rx]
    cmd += ["--duration", str(duration), "--expect", str(expect), "--settle", str(settle)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def pktio_result(proc, timeout):
    """pktio's "tx N rx N" line. The pcap and that line are written before
    pktio stops its port and cleans up the EAL; in one of 55 link-flap runs
    one had not exited a minute after it should have, so a pktio still
    running after timeout seconds is killed, and its line is taken when it
    printed one (RuntimeError with its output when it did not)."""
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate(timeout=10)
        print(f"pktio: still running {timeout} s on, killed")
    lines = [ln for ln in out.strip().splitlines() if ln.startswith("tx ") and " rx " in ln]
    if not lines:
        raise RuntimeError(f"pktio printed no result: {out[-2000:]}")
    return lines[-1]


def expected_after_gateways(frame, dst_site, dst_mac=None):
    """The frame as the far gateway emits it toward its DC router."""
    s = SITE[dst_site]
    ip = frame.payload.copy()
    if isinstance(ip, IP):
        ip.ttl -= 1
        del ip.chksum
    else:
        ip.hlim -= 1
    return bytes(Ether(src=s["dc_mac"], dst=dst_mac or s["router_mac"], type=frame.type) / ip)


def compare(sent_frames, got_frames, dst_site, loops=1, dst_mac=None):
    """Every sent frame (loops times) arrived exactly once, intact. Returns
    a list of problems (empty when all is well)."""
    want = collections.Counter()
    for f in sent_frames:
        want[expected_after_gateways(f, dst_site, dst_mac)] += loops
    got = collections.Counter(bytes(f) for f in got_frames)
    problems = []
    for w, n in want.items():
        if got.get(w, 0) != n:
            problems.append(f"expected {n}x, got {got.get(w, 0)}x: {Ether(w).summary()}")
    for g in got:
        if g not in want:
            problems.append(f"unexpected: {Ether(g).summary()}")
    return problems


def free_port():
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wanem_wait(log, proc):
    """Until longspan-wanem, writing to LOG, serves its ports (its banner)."""
    for _ in range(200):
        if "wanem: ports" in open(log).read():
            return
        if proc.poll() is not None:
            raise RuntimeError("wanem exited: " + open(log).read())
        time.sleep(0.05)
    raise RuntimeError("wanem did not start")


def queued(tm):
    """Packets waiting in the WAN traffic manager's queues (show tm)."""
    n = 0
    for port in tm["ports"].values():
        for cls in port.get("classes", {}).values():
            n += cls.get("depth_pkts", 0)
    return n


def balanced(st, tm):
    """rx = forwarded + drops + punted + queued and tx = forwarded + own_tx."""
    q = queued(tm) + tm["mechanism_b"]["queued"]
    return (st["rx_pkts"] == st["forwarded"] + st["drops"] + st["punted"] + q and
            st["tx_pkts"] == st["forwarded"] + st["own_tx"])


def settled(g, tries=5):
    """
    show stats and show tm of gateway g. The control thread sums the
    worker's counters while it runs, and credit control packets keep coming
    (one every credit_refresh_ns each way, and one per wait): a read in the middle of a burst
    can see its rx but not yet its verdict. Such a read is taken again; an
    error in the accounting persists (the counters only grow), so it still
    shows in the last read.
    """
    for _ in range(tries):
        st, tm = g.ctl("show", "stats"), g.ctl("show", "tm")
        if balanced(st, tm):
            break
        time.sleep(0.05)
    return st, tm


def finish(problems, ok):
    """Each problem as FAIL and exit 1, else the OK line."""
    for p in problems:
        print("FAIL: " + p)
    if problems:
        sys.exit(1)
    print("OK: " + ok)
