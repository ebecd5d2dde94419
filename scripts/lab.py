#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The two-site lab on one machine (scripts/lab.sh sets up and builds first).

    site A endpoints == gateway A == WAN delay line == gateway B == site B endpoints
    (longspan-hostem)  (longspand)   (longspan-wanem)  (longspand)  (longspan-hostem)

the tools (both hostems and the delay line) in one longspan-labtools process
unless --tools separate, every hop a link between processes (--link):
vhost-user (the gateways serve net_vhost ports, the tools connect with
net_virtio_user; rx interrupts, so idle processes block until a packet) or
net_memif (no rx interrupts in DPDK 22.11: idle processes sleep on timers).
Scenarios:

  near-source (default): four inter-DC RDMA WRITE streams from site A to site B
      and two intra-DC streams inside site A, DCQCN senders (ConnectX firmware
      model); the bottleneck is gateway A's WAN link (its traffic manager
      shapes to [port wan] link_rate). Runs once per --mechanisms value and
      reports WAN queue, utilisation, per-QP goodput and fairness, and the
      feedback loop from gateway A's first signal for a QP to the sender's
      first rate cut.
  dest: near-destination congestion: the same four inter-DC streams, now
      below gateway A's WAN rate, and an intra-DC stream inside site B meet at
      site B's DC side toward its hosts (hostem's dc_rate, --dc-rate), which
      pauses gateway B with PFC as a congested ToR port would. Reports, besides
      the near-source numbers, the drops on every hop, the intra-DC stream's
      share of its fair share, and the pauses on both sides.
  mix: the traffic mix check: RoCE writes, ACK/NAK, CNPs, UDP, ICMP and TCP
      over IPv4 and IPv6 both ways; every inner packet must arrive intact
      but for TTL.

Outputs go to --out (default lab-out/TIMESTAMP): per run the configs, logs,
JSON reports, summary.json and PNG plots, and a comparison table.
"""

import argparse
import collections
import json
import os
import re
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import lab_peering  # noqa: E402
from ini_text import ini_del, ini_drop_sections, ini_set, set_arg  # noqa: E402

PY = "/usr/bin/python3"
RUN = "/run/longspan"

# Did the lab keep up? A run outside any of these bounds is marked starved: its
# numbers measure the machine, not the mechanisms (docs/lab.md, "Self-check").
HEALTH = {
    # every sender sent at least this share of what its reaction point allowed
    # (its time-averaged rate): below it the process was not scheduled enough
    "sender_rate_min": 0.90,
    # the delay line released packets at most this late on average (ns)
    "wanem_late_avg_max_ns": 100_000,
    # no process spent more than this share of the run runnable but waiting
    # for a CPU (/proc/PID/task/*/schedstat, second field). Three busy-polling
    # processes on two vCPUs wait by construction: quiet runs 6-28% (15 runs,
    # docs/lab.md), with two CPU hogs beside the lab 29-48% (the gateway A and
    # the tools above 43%)
    "sched_wait_max": 0.35,
    # intra-DC round trip inside hostem A (2 x the intra-DC pairs' mean
    # one-way latency; nominal 2 x dc_delay = 10 us)
    "intra_rtt_max_ns": 200_000,
}


# A link between two lab processes: the gateway's end (a server) and the tool's
# end, given the device index and the socket's name under RUN.
LINKS = {
    "vhost": (lambda i, name: f"net_vhost{i},iface={RUN}/{name}.sock,queues=1",
              lambda i, name: f"net_virtio_user{i},path={RUN}/{name}.sock,queues=1,"
                              f"queue_size={DC_RING if name.endswith('-dc') else 1024}"),
    "memif": (lambda i, name: f"net_memif{i},role=server,socket={RUN}/{name}.sock,id=0,bsize=8192",
              lambda i, name: f"net_memif{i},role=client,socket={RUN}/{name}.sock,id=0,bsize=8192"),
}
# The DC links' rings (both directions of a virtio-user device). A gateway sees
# a frame only when its worker reads the ring, and a worker in interrupt mode
# on this VM wakes up to 8 ms late (a timer or kick to a halted vCPU; traced on
# 2026-12-03), so what the ring holds then lands at once behind XOFF: the PFC
# headroom above XOFF (LAB_PFC_* below) must hold a full ring. 128 descriptors
# of 4.2 kB RoCE frames are 543 kB; 1024 would be 4.3 MB. 64 also fits, but
# then the gateway's own CNPs and ACKs toward site A overflow the other
# direction's ring while hostem is not scheduled (tx_ring_full).
DC_RING = 128
# The client of a vhost-user link shares its memory with the server, one file
# per memory segment list (virtio-user takes at most 8 regions).
LINK_EAL = {"vhost": ["--single-file-segments"], "memif": []}
SOCKETS = ("a-dc", "wan-a", "wan-b", "b-dc")


def link_server(a, i, name):
    return LINKS[a.link][0](i, name)


def link_client(a, i, name):
    return LINKS[a.link][1](i, name)


def worker_rt(pid, prio):
    """Run a gateway's worker threads SCHED_FIFO at prio: a woken worker takes a
    CPU at once instead of after another process's slice (the lab's stand-in
    for a production gateway's own cores). Its control thread stays normal."""
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            comm = open(f"/proc/{pid}/task/{t}/comm").read().strip()
        except OSError:
            continue
        if comm.startswith("rte-worker"):
            try:
                os.sched_setscheduler(int(t), os.SCHED_FIFO, os.sched_param(prio))
            except OSError as e:
                log(f"worker {t} of {pid} stays SCHED_OTHER: {e.strerror}")


def start_hog(n):
    """n busy loops beside the lab (a machine that is not quiet)."""
    return [subprocess.Popen([PY, "-c", "while True: pass"]) for _ in range(n)]


# The CPUs this lab may use; every process may run on any of them unless --pin.
CPUS = ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))


def schedstat(pid):
    """(ns on a CPU, ns runnable but waiting, times switched in, {thread name: ns on a
    CPU}) summed over every thread of pid."""
    run = wait = slices = 0
    threads = {}
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for t in tasks:
        try:
            f = open(f"/proc/{pid}/task/{t}/schedstat").read().split()
            comm = open(f"/proc/{pid}/task/{t}/comm").read().strip()
        except OSError:
            continue
        run += int(f[0])
        wait += int(f[1])
        slices += int(f[2])
        threads[comm] = threads.get(comm, 0) + int(f[0])
    return run, wait, slices, threads


def log(msg):
    print(f"lab: {msg}", flush=True)


# Mechanism B in the lab: WAN queue buffer and PFC watermarks. XON (32 kB, 0.5 ms
# of the 476 Mb/s WAN) keeps the WAN busy over the lab's DC round trip after a
# resume; XOFF - XON is another 32 kB (96/64 kB gave a sojourn p99 of 2.1-4.2 ms
# at 100 km, 64/32 kB 2.1 ms, 2026-12-03). The headroom above XOFF holds what
# arrives after the gateway decided to pause: a full DC ring (DC_RING frames of
# up to 4.2 kB, 543 kB: the worker was asleep or off its CPU while the senders
# ran) and the two bursts of 32 the gateway and hostem move before the pause takes
# effect (272 kB), with some 370 kB to spare.
LAB_PFC_BUFFER, LAB_PFC_XOFF, LAB_PFC_XON = "1250KB", "64KB", "32KB"


# The dest scenario's intra-DC stream inside site B (hostem-b), toward a local
# receiver through the same DC side as the inter-DC streams.
DEST_INTRA_B = """
[qp intra-b0]
role = send
local = 10.2.0.5
remote = 10.2.1.5
local_qpn = 0x120
remote_qpn = 0x220

[qp intra-b0-rx]
role = recv
local = 10.2.1.5
remote = 10.2.0.5
local_qpn = 0x220
remote_qpn = 0x120
"""
# Gateway B's DC port link_rate (config/site-b.conf): hostem counts the
# quanta of the PFC frames it sends at this rate.
DEST_DC_PORT_RATE = "10G"


def max_min_share(capacity, demands):
    """Max-min fair share of capacity for each demand (water filling)."""
    share = [0.0] * len(demands)
    left, todo = capacity, sorted(range(len(demands)), key=lambda i: demands[i])
    while todo:
        each = left / len(todo)
        i = todo[0]
        if demands[i] <= each:
            share[i] = demands[i]
            left -= demands[i]
            todo.pop(0)
        else:
            for j in todo:
                share[j] = each
            break
    return share


class Lab:
    def __init__(self, a, run_dir, mechanisms, inter=True):
        self.a, self.dir, self.mech = a, run_dir, mechanisms
        self.inter = inter  # False: site A's inter-DC senders left out (the intra-DC reference)
        self.build = os.path.abspath(a.build)
        self.procs = []
        os.makedirs(run_dir, exist_ok=True)

    # -- processes --------------------------------------------------------
    def spawn(self, name, cmd):
        logf = open(os.path.join(self.dir, f"{name}.log"), "w")
        p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT)
        self.procs.append((name, p, logf))
        return p

    def stop(self, name, sig=signal.SIGTERM, timeout=20):
        for n, p, f in self.procs:
            if n == name and p.poll() is None:
                p.send_signal(sig)
                try:
                    p.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
                f.close()

    def sched_snapshot(self):
        """Per running process: (wall ns, run ns, wait ns, switches in, threads)."""
        now = time.monotonic_ns()
        snap = {}
        for n, p, f in self.procs:
            st = schedstat(p.pid) if p.poll() is None else None
            if st:
                snap[n] = (now,) + st
        return snap

    def stop_all(self):
        for n, p, f in reversed(self.procs):
            if p.poll() is None:
                self.stop(n)

    def ctl(self, site, *args):
        out = subprocess.run([os.path.join(self.build, "control", "longspanctl"), "-s",
                              f"{RUN}/lab-{site}.sock", "--json"] + list(args),
                             capture_output=True, text=True, timeout=10)
        if out.returncode != 0:
            raise RuntimeError(out.stderr.strip())
        return json.loads(out.stdout)

    def wait_api(self, site, timeout=20):
        end = time.time() + timeout
        while time.time() < end:
            try:
                self.ctl(site, "show", "stats")
                return
            except Exception:
                time.sleep(0.1)
        raise RuntimeError(f"gateway {site} did not come up; see {self.dir}/gw-{site}.log")

    def wait_log(self, name, pattern, timeout=20):
        path = os.path.join(self.dir, f"{name}.log")
        end = time.time() + timeout
        while time.time() < end:
            if re.search(pattern, open(path).read()):
                return
            time.sleep(0.1)
        raise RuntimeError(f"{name} did not print /{pattern}/; see {path}")

    # -- configs ----------------------------------------------------------
    def gateway_configs(self):
        pki = lab_peering.make_certs(self.a.out)
        for s, o in (("a", "b"), ("b", "a")):
            t = open(os.path.join(ROOT, "config", f"site-{s}.conf")).read()
            # The peers' certificates and hellos name the sites: keep site-a, site-b.
            t = lab_peering.configure(t, s, o, pki, ini_set)
            t = ini_set(t, "gateway", "socket", f"{RUN}/lab-{s}.sock")
            t = ini_set(t, "eal", "file_prefix", f"lab-gw-{s}")
            t = ini_set(t, "port wan", "link_rate", self.a.wan_rate)
            t = ini_del(t, f"peer site-{o}", "rtt")
            t = ini_set(t, f"peer site-{o}", "distance", f"{self.a.distance_km}km")
            # Mechanism B is per peer in longspand (`lossless = credit`: PFC at the
            # DC port and the credit hop); [congestion] mechanisms takes A and C.
            letters = [m for m in self.mech.upper().split(",") if m in ("A", "C")]
            t = ini_set(t, "congestion", "mechanisms", ",".join(letters) or "none")
            if "B" in self.mech.upper().split(","):
                t = ini_set(t, f"peer site-{o}", "lossless", "credit")
                # The derived PFC headroom assumes a 10 us DC round trip; the lab's
                # (vhost links, polling tools on 2 vCPUs) is up to about 1 ms, so
                # XOFF leaves that much of the WAN queue free (LAB_PFC_* below).
                t = ini_set(t, "congestion", "buffer", LAB_PFC_BUFFER)
                t = ini_set(t, "congestion", "pfc_xoff", LAB_PFC_XOFF)
                t = ini_set(t, "congestion", "pfc_xon", LAB_PFC_XON)
                # The gateway sizes its PFC headroom for a full DC ring (its workers
                # sleep when idle): say how large the link's ring is.
                t = ini_set(t, "port dc", "rx_desc", str(DC_RING))
            t = ini_set(t, "congestion", "marker", self.a.marker)
            for sec, key, val in self.a.set:
                t = ini_set(t, sec, key, val)
            t = ini_set(t, "port dc", "dev", link_server(self.a, 0, f"{s}-dc"))
            t = ini_set(t, "port wan", "dev", link_server(self.a, 1, f"wan-{s}"))
            if not self.a.pin:
                t = ini_del(t, "eal", "lcores")
                t = ini_set(t, "eal", "extra", f"--lcores=0@({CPUS}),1@({CPUS})")
            path = os.path.join(self.dir, f"site-{s}.conf")
            open(path, "w").write(t)
            chk = subprocess.run([os.path.join(self.build, "longspand"), "--check-config", path],
                                 capture_output=True, text=True)
            if chk.returncode != 0:
                raise RuntimeError(chk.stderr)

    def hostem_configs(self):
        for s in "ab":
            t = open(os.path.join(ROOT, "tests", "lab", "examples", f"site-{s}.ini")).read()
            if s == "a" and not self.inter:
                t = ini_drop_sections(t, "qp inter")
            if s == "b" and self.a.scenario == "dest":
                t = ini_set(t, "host", "duration", f"{self.a.seconds}s")
                t = ini_set(t, "host", "line_rate", self.a.host_rate)
                t = ini_set(t, "host", "tor_rate", DEST_DC_PORT_RATE)
                t = ini_set(t, "host", "dc_rate", self.a.dc_rate)
                if self.a.dc_red != "off":
                    kmin, kmax = self.a.dc_red.split(",")
                    t = ini_set(t, "host", "dc_kmin", kmin)
                    t = ini_set(t, "host", "dc_kmax", kmax)
                t += DEST_INTRA_B
            if s == "a":
                t = ini_set(t, "host", "duration", f"{self.a.seconds}s")
                t = ini_set(t, "host", "line_rate", self.a.host_rate)
                t = ini_set(t, "host", "tor_rate", self.a.tor_rate)
                t = ini_set(t, "host", "variant", self.a.variant)
                t = ini_set(t, "host", "csv_interval", "10ms")
                t = ini_set(t, "host", "pacing_grid", self.a.pacing_grid)
                if self.a.tools == "one":
                    t = ini_set(t, "host", "csv", os.path.join(self.dir, "rates-a.csv"))
                    t = ini_set(t, "host", "cnp_log", os.path.join(self.dir, "cnp-a.csv"))
            if self.a.tools == "one":
                t = ini_set(t, "host", "json", os.path.join(self.dir, f"hostem-{s}.json"))
            open(os.path.join(self.dir, f"hostem-{s}.ini"), "w").write(t)

    # -- topology ---------------------------------------------------------
    def lcore(self, cpu):
        """EAL core options of a lab tool: pinned to cpu, or free to run on any."""
        return ["-l", str(cpu)] if self.a.pin else [f"--lcores=0@({CPUS})"]

    def start_gateways(self):
        # vhost-user sockets are files: a previous run's would stop the bind.
        for name in SOCKETS:
            try:
                os.unlink(f"{RUN}/{name}.sock")
            except OSError:
                pass
        for s in "ab":
            p = self.spawn(f"gw-{s}", [os.path.join(self.build, "longspand"), "-c",
                                       os.path.join(self.dir, f"site-{s}.conf")])
            self.wait_api(s)
            if self.a.worker_rt:
                worker_rt(p.pid, self.a.worker_rt)

    def wanem_args(self):
        return ["--distance-km", str(self.a.distance_km), "--stats-interval", "0",
                "--json", os.path.join(self.dir, "wanem.json")]

    def start_gateways_and_wan(self):
        self.start_gateways()
        self.spawn("wanem", [os.path.join(self.build, "tests", "lab", "longspan-wanem"),
                             *self.lcore(0), "--file-prefix", "lab-wanem", "-m", "160", "--no-pci",
                             "--log-level=*:warning", *LINK_EAL[self.a.link],
                             "--vdev=" + link_client(self.a, 0, "wan-a"),
                             "--vdev=" + link_client(self.a, 1, "wan-b"),
                             "--", *self.wanem_args()])
        self.wait_log("wanem", r"wanem")

    def labtools(self, seconds):
        """Both sites' hostems and the delay line in one process (--tools one):
        ports 0 (site A's DC), 1 and 2 (the WAN), 3 (site B's DC)."""
        devs = [link_client(self.a, 0, "a-dc"), link_client(self.a, 1, "wan-a"),
                link_client(self.a, 2, "wan-b"), link_client(self.a, 3, "b-dc")]
        return self.spawn("labtools", [
            os.path.join(self.build, "tests", "lab", "longspan-labtools"), *self.lcore(1),
            "--file-prefix", "lab-labtools", "-m", "256", "--no-pci", "--log-level=*:warning",
            *LINK_EAL[self.a.link], *[f"--vdev={d}" for d in devs], "--",
            "--duration", f"{seconds}s",
            "--hostem", "0:" + os.path.join(self.dir, "hostem-a.ini"),
            "--hostem", "3:" + os.path.join(self.dir, "hostem-b.ini"),
            "--wanem", "1,2", *self.wanem_args()])

    def hostem(self, site, extra):
        name = f"hostem-{site}"
        return self.spawn(name, [os.path.join(self.build, "tests", "lab", "longspan-hostem"),
                                 *self.lcore(1), "--file-prefix", f"lab-{name}", "-m", "160",
                                 "--no-pci", "--log-level=*:warning", *LINK_EAL[self.a.link],
                                 "--vdev=" + link_client(self.a, 0, f"{site}-dc"),
                                 "--", "--config", os.path.join(self.dir, f"{name}.ini")] + extra)


# ---------------------------------------------------------------------------
# near-source scenario


def hist_pct(hist, pct):
    """Upper edge of the log2 bucket holding the pct-th percentile."""
    total = sum(hist)
    if total == 0:
        return 0
    acc = 0
    for i, n in enumerate(hist):
        acc += n
        if acc >= total * pct / 100.0:
            return 2 ** (i + 1)
    return 2 ** len(hist)


def jain(xs):
    xs = [x for x in xs]
    if not xs or sum(xs) == 0:
        return 0.0
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def run_near_source(a, run_dir, mech, inter=True):
    lab = Lab(a, run_dir, mech, inter)
    lab.gateway_configs()
    lab.hostem_configs()
    series = []
    try:
        if a.tools == "one":
            lab.start_gateways()
            ha = lab.labtools(a.seconds)
            # The window that counts starts when the tools' clocks do.
            lab.wait_log("labtools", r"hostem site-a on port", timeout=30)
        else:
            lab.start_gateways_and_wan()
            lab.hostem("b", ["--json", os.path.join(run_dir, "hostem-b.json")])
            time.sleep(1.0)
            ha = lab.hostem("a", ["--json", os.path.join(run_dir, "hostem-a.json"),
                                  "--csv", os.path.join(run_dir, "rates-a.csv"),
                                  "--cnp-log", os.path.join(run_dir, "cnp-a.csv")])
        t0 = time.time()
        last_print = 0
        flows = {}
        # The window that counts: hostem A's run (its link up to its exit).
        sched0 = lab.sched_snapshot()
        sched1 = sched0
        while ha.poll() is None and time.time() - t0 < a.seconds + 30:
            sched1 = lab.sched_snapshot()
            try:
                tm = lab.ctl("a", "show", "tm")
                st = lab.ctl("a", "show", "stats")
            except Exception:
                time.sleep(0.2)
                continue
            wan = tm_port(tm, "wan")
            roce = wan_class(wan, 1)
            row = {"t": time.time() - t0,
                   "depth_bytes": roce.get("depth_bytes", 0),
                   "marks": st.get("wan_mark_decisions", 0), "cnp_sent": st.get("cnp_sent", 0),
                   "deq_bytes": sum(wan_class(wan, c).get("deq_bytes", 0) for c in range(3)),
                   "drops": sum(wan_class(wan, c).get("drops", 0) for c in range(3))}
            series.append(row)
            if row["t"] - last_print >= 1.0:
                last_print = row["t"]
                # Flow entries age out once traffic stops: keep the latest view.
                flows = lab.ctl("a", "show", "flows", "--limit", "64")
                log(f"[{mech}] t={row['t']:5.1f}s WAN queue {row['depth_bytes'] / 1e3:7.1f} kB, "
                    f"marks {row['marks']}, gateway CNPs {row['cnp_sent']}")
            time.sleep(0.25)
        ha.wait(timeout=60)
        time.sleep(1.0)
        tm = lab.ctl("a", "show", "tm")
        tm_b = lab.ctl("b", "show", "tm")
        stats = {s: lab.ctl(s, "show", "stats") for s in "ab"}
        drops = {s: lab.ctl(s, "show", "drops", "--nonzero") for s in "ab"}
        if a.tools != "one":
            lab.stop("hostem-b", signal.SIGINT)
    finally:
        lab.stop_all()
    json.dump({"tm": tm, "tm_b": tm_b, "flows": flows, "stats": stats, "drops": drops,
               "series": series},
              open(os.path.join(run_dir, "gateway-a.json"), "w"), indent=1)
    sched = {}
    for n, (w1, r1, q1, k1, t1) in sched1.items():
        if n in sched0 and w1 > sched0[n][0]:
            w0, r0, q0, k0, t0 = sched0[n]
            # Every switch-in after a wake-up waits at least the wake-up latency
            # (1.9 us for a lone thread waking 6,800 times a second here,
            # docs/lab.md): the wait per switch-in tells that apart from
            # queueing behind others.
            sched[n] = {"cpu": (r1 - r0) / (w1 - w0), "wait": (q1 - q0) / (w1 - w0),
                        "switches_per_s": (k1 - k0) * 1e9 / (w1 - w0),
                        "wait_per_switch_ns": (q1 - q0) / (k1 - k0) if k1 > k0 else None,
                        "threads": {c: round((v - t0.get(c, 0)) / (w1 - w0), 3)
                                    for c, v in sorted(t1.items())}}
    return summarize_near_source(a, run_dir, mech, tm, flows, series, sched, stats["a"], drops,
                                 tm_b)


def tm_port(tm, name):
    ports = tm.get("ports", {})
    if isinstance(ports, dict):
        return ports.get(name, {})
    for p in ports:
        if p.get("name") == name:
            return p
    return {}


def wan_class(port, c):
    classes = port.get("classes", {})
    if isinstance(classes, dict):
        for k, v in classes.items():
            if str(k) == str(c) or v.get("class") == c or k in (("control", "roce", "other")[c],):
                return v
        return {}
    return classes[c] if c < len(classes) else {}


def health_check(ha, wanem, sched):
    """The lab's self-check: what it measured and whether it kept up."""
    h = {"senders": [], "wanem_late_avg_ns": None, "sched": sched, "intra_rtt_ns": None}
    why = []
    pfc = ha.get("pfc") or {}
    run_ns = ha.get("run_ns") or 0
    for s in ha.get("senders", []):
        allowed = s.get("rate_avg_bps") or 0
        if not s.get("intra") and run_ns and pfc.get("priorities"):
            # Paused by the gateway's PFC (mechanism B) is not a sender falling behind.
            paused = pfc["priorities"][s.get("pfc_priority", 3)]["paused_ns"]
            allowed *= max(0.0, 1.0 - paused / run_ns)
        share = s.get("tx_bps", 0) / allowed if allowed else None
        h["senders"].append({"qp": s["qp"], "allowed_bps": allowed, "tx_bps": s.get("tx_bps", 0),
                             "share": share})
        if share is not None and share < HEALTH["sender_rate_min"]:
            why.append(f"sender {s['qp']} sent {share * 100:.0f}% of its rate")
    lates = [d.get("late_avg_ns", 0) for d in wanem.get("directions", []) if d.get("tx_pkts")]
    if lates:
        h["wanem_late_avg_ns"] = max(lates)
        if max(lates) > HEALTH["wanem_late_avg_max_ns"]:
            why.append(f"delay line {max(lates) / 1e3:.0f} us late on average")
    else:
        why.append("delay line report missing")
    for n, v in sorted(sched.items()):
        if v["wait"] > HEALTH["sched_wait_max"]:
            why.append(f"{n} waited for a CPU {v['wait'] * 100:.0f}% of the run")
    if not sched:
        why.append("no scheduler statistics")
    lat = [r["latency_ns"]["avg"] for r in ha.get("receivers", [])
           if r.get("intra") and r.get("latency_ns", {}).get("n")]
    if lat:
        h["intra_rtt_ns"] = 2 * sum(lat) / len(lat)
        if h["intra_rtt_ns"] > HEALTH["intra_rtt_max_ns"]:
            why.append(f"intra-DC RTT {h['intra_rtt_ns'] / 1e3:.0f} us")
    h["bounds"] = HEALTH
    h["starved"] = bool(why)
    h["why"] = why
    return h


def clock_to_tsc(stats_a, ha):
    """Functions that turn gateway A's flow times and hostem A's times (ns since
    its start) back into TSC values, which every process reads alike. Their
    ns clocks are TSC extrapolations at DPDK's TSC rate, which can be off (a
    VM whose TSC counts 2096 MHz where 2100 is assumed: the gateway's clock
    then falls 1.9 ms behind per second of uptime, more than the loop being
    measured). None when the gateway does not say its clock."""
    try:
        ghz, gtsc, gns = (stats_a["clock_tsc_hz"], stats_a["clock_tsc_base"],
                          stats_a["clock_ns_base"])
    except (KeyError, TypeError):
        return None
    hhz, htsc = ha["tsc_hz"], ha["tsc0"]
    return (lambda ns: gtsc + (ns - gns) * ghz / 1e9,
            lambda ns: htsc + ns * hhz / 1e9,
            ghz)


def summarize_near_source(a, run_dir, mech, tm, flows, series, sched, stats_a=None, drops=None,
                          tm_b=None):
    ha = json.load(open(os.path.join(run_dir, "hostem-a.json")))
    hb = json.load(open(os.path.join(run_dir, "hostem-b.json")))
    try:
        wanem = json.load(open(os.path.join(run_dir, "wanem.json")))
    except (OSError, ValueError):
        wanem = {}
    real0 = ha["realtime_ns0"]
    clk = clock_to_tsc(stats_a, ha)
    wan = tm_port(tm, "wan")
    roce = wan_class(wan, 1)
    # Per QP: goodput at the receivers (site B for inter, site A for intra).
    inter = {r["qp"]: r for r in hb.get("receivers", [])}
    intra = {r["qp"]: r for h in (ha, hb) for r in h.get("receivers", []) if r.get("intra")}
    senders = {s["qp"]: s for h in (ha, hb) for s in h.get("senders", [])}
    # Gateway A's signal time per inter-DC QP: first gateway CNP (A) or first mark.
    sig = {}
    frows = flows.get("flows", {})
    frows = frows.values() if isinstance(frows, dict) else frows
    for f in frows:
        if f.get("dir") not in ("dc->wan", "dc_to_wan", 0):
            continue
        t = f.get("first_cnp_ns") or f.get("first_mark_ns")
        if t:
            sig[(f.get("src"), f.get("dst"))] = t
    qps = []
    loops = []
    for name, s in sorted(senders.items()):
        is_inter = name.startswith("inter")
        rx = inter.get(name) if is_inter else intra.get(name + "-rx")
        good = rx.get("goodput_bps", 0) if rx else 0
        loop_ns = None
        t_sig = sig.get((s.get("local"), s.get("remote")))
        if is_inter and t_sig and clk:
            # First CNP to reach the sender after gateway A's first signal, in TSC.
            gw_tsc, h_tsc, hz = clk
            sig_tsc = gw_tsc(t_sig)
            after = [h_tsc(t) for t in s.get("cnp_rx_ns", []) if h_tsc(t) >= sig_tsc]
            if after:
                loop_ns = (min(after) - sig_tsc) * 1e9 / hz
                loops.append(loop_ns)
        elif is_inter and t_sig:
            # Wall clock: biased by the gateway's clock drift (see clock_to_tsc).
            after = [real0 + t for t in s.get("cnp_rx_ns", []) if real0 + t >= t_sig]
            if after:
                loop_ns = min(after) - t_sig
                loops.append(loop_ns)
        qps.append({"qp": name, "kind": "inter" if is_inter else "intra",
                    "goodput_bps": good, "tx_bps": s.get("tx_bps", 0),
                    "cnps": s.get("cnps", 0), "gateway_cnps": s.get("cnps_other", 0),
                    "rate_cuts": s.get("rp", {}).get("cuts", 0),
                    "feedback_loop_ns": loop_ns})
    inter_good = [q["goodput_bps"] for q in qps if q["kind"] == "inter"]
    link = parse_rate(a.wan_rate)
    run_s = ha.get("run_ns", 1) / 1e9
    wan_bytes = sum(wan_class(wan, c).get("deq_bytes", 0) for c in range(3))
    summ = {
        "mechanisms": mech, "distance_km": a.distance_km, "marker": a.marker,
        "variant": a.variant,
        "wan_rate_bps": link, "seconds": run_s,
        "wan_queue_p99_bytes": hist_pct(roce.get("depth_hist", []), 99) if roce.get("depth_hist") else roce.get("depth_p99_bytes"),
        "wan_queue_max_bytes": roce.get("depth_max_bytes"),
        "wan_sojourn_p99_ns": hist_pct(roce.get("sojourn_hist", []), 99) if roce.get("sojourn_hist") else roce.get("sojourn_p99_ns"),
        "wan_drops": sum(wan_class(wan, c).get("drops", 0) for c in range(3)),
        "wan_marks": sum(wan_class(wan, c).get("mark_decisions", 0) for c in range(3)),
        "wan_ce_written": sum(wan_class(wan, c).get("ce_written", 0) for c in range(3)),
        "wan_utilization": wan_bytes * 8 / (link * run_s) if link else None,
        "inter_goodput_bps": sum(inter_good),
        "inter_jain": jain(inter_good),
        "feedback_loop_ns_median": sorted(loops)[len(loops) // 2] if loops else None,
        "qps": qps,
    }
    summ.update(loss_and_pauses(hb, wanem, drops or {}, tm, tm_b or {}, run_s))
    summ["intra_goodput_bps"] = sum(r.get("goodput_bps", 0) for r in intra.values())
    if a.scenario == "dest":
        summ.update(dest_share(a, senders, intra))
    summ["health"] = health_check(ha, wanem, sched)
    summ["starved"] = summ["health"]["starved"]
    json.dump(summ, open(os.path.join(run_dir, "summary.json"), "w"), indent=1)
    plot_run(run_dir, mech, series)
    return summ


# Gateway drop reasons that are not a packet lost: a probe, a credit update or a
# PFC frame the gateway consumed as meant.
CONSUMED = ("probe_consumed", "credit_control", "pfc_consumed")


def gateway_drops(d):
    """{reason: count} of a `show drops --nonzero` answer, consumed reasons left out."""
    rows = d.get("drops", {}) if isinstance(d, dict) else {}
    return {k: v["count"] for k, v in rows.items() if v.get("count") and k not in CONSUMED}


def pfc_sent(tm, run_s):
    """(PFC pauses a gateway sent per second, the largest fraction of the run a
    priority was paused, packets it held for a paused priority), from `show tm`'s
    mechanism B; Nones without it."""
    mb = tm.get("mechanism_b") or {}
    prios = [mb.get(f"priority_{p}", {}) for p in range(8)]
    if not mb.get("enabled") or not run_s:
        return None, None, None
    return (sum(p.get("tx_pauses", 0) for p in prios) / run_s,
            max(p.get("tx_paused_ns", 0) for p in prios) / (run_s * 1e9), mb.get("held"))


def pfc_lapses(tm):
    """(pauses of a gateway's data priority that expired before their refresh or resume,
    ms the fabric ran in them), from `show tm`'s mechanism B; Nones without it."""
    mb = tm.get("mechanism_b") or {}
    if not mb.get("enabled"):
        return None, None
    return mb.get("tx_lapses", 0), mb.get("tx_lapsed_ns", 0) / 1e6


def loss_and_pauses(hb, wanem, drops, tm_a, tm_b, run_s):
    """Drops on every hop and the PFC each side sent, for the lossless claim."""
    gw = {s: gateway_drops(drops.get(s, {})) for s in "ab"}
    # The line's own drops (a full queue or out of slots); drop_loss is loss asked for.
    line = sum(d.get("drop_queue", 0) + d.get("drop_slots", 0)
               for d in wanem.get("directions", []))
    down = (hb.get("downlink") or {}).get("drops", 0)
    out = {"gateway_drops": gw, "wanem_drops": line, "dc_side_drops": down,
           "drops_total": sum(sum(v.values()) for v in gw.values()) + line + down}
    # PFC from gateway A toward site A's senders (mechanism B holding them).
    out["pfc_to_site_a_per_s"], out["site_a_paused_fraction"], _ = pfc_sent(tm_a, run_s)
    # Pauses gateway A let lapse (its worker late): the fabric ran past XOFF.
    out["site_a_pause_lapses"], out["site_a_lapsed_ms"] = pfc_lapses(tm_a)
    # What gateway B held for its paused DC port (dest).
    out["gateway_b_held_pkts"] = pfc_sent(tm_b, run_s)[2]
    # PFC from site B's congested DC side toward gateway B (dc_rate).
    dl = hb.get("downlink")
    if dl:
        dp = dl.get("priorities") or []
        out["pfc_to_gateway_b_per_s"] = sum(p.get("pauses", 0) for p in dp) / run_s
        out["gateway_b_paused_fraction"] = (max((p.get("paused_ns", 0) for p in dp), default=0)
                                            / (run_s * 1e9))
        out["dc_side_delivered_bps"] = dl.get("delivered_bytes", 0) * 8 / run_s
        out["dc_side_marks"] = dl.get("marks", 0)
    # Mechanism C at gateway B: the receiver CNPs it saw and what it did with them.
    mc = (tm_b or {}).get("mechanism_c") or {}
    out["gateway_b_c"] = {k: mc.get(k, 0) for k in ("trp_cnps", "trp_no_flow", "trp_upstream_ce",
                                                   "trp_activations", "trp_delayed")}
    return out


def dest_share(a, senders, intra):
    """The intra-DC stream at site B against its max-min fair share of the DC side."""
    rate = parse_rate(a.dc_rate)
    flows = [q for q, s in senders.items() if q.startswith("inter") or q.endswith("-b0")]
    demands = [senders[q].get("rate_avg_bps") or parse_rate(a.host_rate) for q in flows]
    share = dict(zip(flows, max_min_share(rate, demands)))
    good = intra.get("intra-b0-rx", {}).get("goodput_bps", 0)
    fair = share.get("intra-b0")
    return {"dc_rate_bps": rate, "intra_b_goodput_bps": good, "intra_b_fair_bps": fair,
            "intra_b_of_fair": good / fair if fair else None}


def parse_rate(s):
    m = re.match(r"([\d.]+)\s*([KMGT]?)", s)
    mult = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(2)]
    return float(m.group(1)) * mult


def plot_run(run_dir, mech, series):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    if series:
        ax1.plot([r["t"] for r in series], [r["depth_bytes"] / 1e3 for r in series])
    ax1.set_ylabel("gateway A WAN queue (kB)")
    ax1.set_title(f"near-source lab, mechanisms {mech}")
    rates = collections.defaultdict(list)
    csv = os.path.join(run_dir, "rates-a.csv")
    if os.path.exists(csv):
        for ln in open(csv).read().splitlines()[1:]:
            f = ln.split(",")
            if len(f) >= 5 and f[2] == "send":
                rates[f[1]].append((float(f[0]), float(f[4]) / 1e6))
    for qp, pts in sorted(rates.items()):
        ax2.plot([p[0] for p in pts], [p[1] for p in pts], label=qp, linewidth=0.8)
    ax2.set_ylabel("sender rate (Mb/s, sent)")
    ax2.set_xlabel("time (s)")
    ax2.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(os.path.join(run_dir, "lab.png"), dpi=110)
    plt.close(fig)


def print_table(results):
    print()
    print("| run | mechanisms | WAN queue p99 | WAN drops | drops, all hops | WAN util | "
          "inter goodput | Jain | intra goodput | PFC to site A /s | feedback loop (median) | "
          "self-check |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for s in results:
        fl = s["feedback_loop_ns_median"]
        why = s["health"]["why"]
        check = ("starved: " + "; ".join(why[:2]) + (f" (+{len(why) - 2} more)" if len(why) > 2
                                                    else "")) if s["starved"] else "ok"
        print(f"| {s.get('repeat', 1)} | {s['mechanisms']} | {fmt_b(s['wan_queue_p99_bytes'])} | "
              f"{s['wan_drops']} | {s['drops_total']} | {(s['wan_utilization'] or 0) * 100:.0f}% | "
              f"{s['inter_goodput_bps'] / 1e6:.0f} Mb/s | {s['inter_jain']:.3f} | "
              f"{s['intra_goodput_bps'] / 1e6:.0f} Mb/s | "
              f"{s['pfc_to_site_a_per_s'] or 0:.0f} | "
              f"{fl / 1e3 if fl else float('nan'):.0f} us | {check} |")
    lapse_rows = [s for s in results if s.get("site_a_pause_lapses") is not None]
    if lapse_rows:
        print("mechanism B at gateway A (a lapse: a pause expired before its refresh or resume)")
        print("| run | mechanisms | WAN queue max | PFC to site A /s | site A paused | "
              "pause lapses | fabric ran in lapses |")
        print("|---|---|---|---|---|---|---|")
        for s in lapse_rows:
            print(f"| {s.get('repeat', 1)} | {s['mechanisms']} | {fmt_b(s['wan_queue_max_bytes'])} | "
                  f"{s['pfc_to_site_a_per_s'] or 0:.0f} | "
                  f"{(s['site_a_paused_fraction'] or 0) * 100:.0f}% | "
                  f"{s['site_a_pause_lapses']} | {s['site_a_lapsed_ms']:.1f} ms |")
    dest = [s for s in results if s.get("intra_b_of_fair") is not None]
    if dest:
        print(f"dest: site B's DC side at {dest[0]['dc_rate_bps'] / 1e6:.0f} Mb/s")
        print("| run | mechanisms | intra-DC at B | its fair share | of fair | DC side drops | "
              "DC side marks | PFC to gateway B /s | gateway B paused | gateway B held (packets) "
              "| C at gateway B: CNPs / no flow / activations / delayed |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for s in dest:
            c = s.get("gateway_b_c") or {}
            c = {k: c.get(k, 0) for k in ("trp_cnps", "trp_no_flow", "trp_activations",
                                          "trp_delayed")}
            print(f"| {s.get('repeat', 1)} | {s['mechanisms']} | "
                  f"{s['intra_b_goodput_bps'] / 1e6:.1f} Mb/s | {s['intra_b_fair_bps'] / 1e6:.1f} Mb/s | "
                  f"{s['intra_b_of_fair']:.2f} | {s['dc_side_drops']} | "
                  f"{s.get('dc_side_marks', 0)} | "
                  f"{s.get('pfc_to_gateway_b_per_s', 0):.0f} | "
                  f"{s.get('gateway_b_paused_fraction', 0) * 100:.0f}% | "
                  f"{s.get('gateway_b_held_pkts')} | {c['trp_cnps']} / {c['trp_no_flow']} / "
                  f"{c['trp_activations']} / {c['trp_delayed']} |")
    print()


def fmt_b(b):
    if b is None:
        return "-"
    return f"{b / 1e3:.0f} kB"


# ---------------------------------------------------------------------------
# traffic mix scenario


def run_mix(a, run_dir):
    import lab_check
    lab = Lab(a, run_dir, "none")
    lab.gateway_configs()
    for s in "ab":
        subprocess.run([PY, os.path.join(ROOT, "scripts", "lab_traffic.py"), "--site", s, "--out",
                        os.path.join(run_dir, f"site-{s}-tx.pcap")], check=True,
                       capture_output=True)
    frames = 232
    loops = max(1, a.seconds * 2000 // frames)
    try:
        lab.start_gateways_and_wan()
        pk = {}
        for s in "ab":
            pk[s] = lab.spawn(f"pktio-{s}", [
                os.path.join(a.build, "tests", "tools", "longspan-pktio"), "-l", "1",
                "--file-prefix", f"lab-pktio-{s}", "-m", "160", "--no-pci",
                "--log-level=*:warning", *LINK_EAL[a.link],
                "--vdev=" + link_client(a, 0, f"{s}-dc"), "--",
                "--tx", os.path.join(run_dir, f"site-{s}-tx.pcap"),
                "--rx", os.path.join(run_dir, f"site-{s}-rx.pcap"),
                "--loop", str(loops), "--pps", "2000", "--duration", str(a.seconds + 15),
                "--expect", str(loops * frames), "--settle", "1500"])
        for s in "ab":
            pk[s].wait(timeout=a.seconds + 60)
        for s in "ab":
            print(lab.ctl(s, "show", "stats") and "", end="")
            out = subprocess.run([os.path.join(a.build, "control", "longspanctl"), "-s",
                                  f"{RUN}/lab-{s}.sock", "show", "peers"], capture_output=True,
                                 text=True).stdout
            print(f"=== gateway {s}: show peers ===\n{out}")
    finally:
        lab.stop_all()
    ok = lab_check.check(run_dir, "a", "b") & lab_check.check(run_dir, "b", "a")
    return ok


def run_repeats(a):
    results = []
    # Repeats interleave the mechanisms, so a disturbance hits them alike.
    mechs = (["intra-alone"] if a.intra_alone else []) + a.mechanisms
    for rep in range(1, a.repeat + 1):
        for mech in mechs:
            log(f"run {rep}/{a.repeat}: {a.scenario}, {a.distance_km} km, mechanisms {mech}, "
                f"marker {a.marker}, {a.variant} DCQCN, {a.link} links, tools: {a.tools}, "
                f"{a.seconds} s, "
                f"load average {os.getloadavg()[0]:.1f}")
            d = f"mech-{mech.replace(',', '')}" + (f"-{rep}" if a.repeat > 1 else "")
            if mech == "intra-alone":
                r = run_near_source(a, os.path.join(a.out, d), "none", inter=False)
                r["mechanisms"] = mech
            else:
                r = run_near_source(a, os.path.join(a.out, d), mech)
            r["scenario"] = a.scenario
            r["repeat"] = rep
            r["link"] = a.link
            r["hog"] = a.hog
            r["tools"] = a.tools
            json.dump(r, open(os.path.join(a.out, d, "summary.json"), "w"), indent=1)
            results.append(r)
            if r["starved"]:
                log(f"run {rep} ({mech}) starved: {'; '.join(r['health']['why'])}")
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenario", choices=["near-source", "dest", "mix"], default="near-source")
    ap.add_argument("--dc-rate", default="300M",
                    help="dest: site B's DC side toward its hosts (the bottleneck; the inter-DC "
                         "senders offer 4 x --host-rate, the intra-DC one --host-rate)")
    ap.add_argument("--dc-red", default="16kB,48kB", metavar="KMIN,KMAX|off",
                    help="dest: RED at site B's DC side, as the ToR port toward the receivers "
                         "marks before it pauses (hostem's dc_kmin, dc_kmax; XOFF is 64 kB); "
                         "off: that queue only pauses and drops")
    ap.add_argument("--intra-alone", action="store_true",
                    help="in every repeat, also run the intra-DC streams without the inter-DC "
                         "ones (mechanisms none): the reference for intra-DC goodput")
    ap.add_argument("--mechanisms", nargs="+", default=["none", "A"],
                    help="one run per value: none, A, B, C, A,B, A,C, A,B,C (B: lossless = "
                    "credit on both gateways, PFC toward the hostems; default: none A)")
    ap.add_argument("--distance-km", type=int, default=100)
    ap.add_argument("--set", action="append", default=[], type=set_arg,
                    metavar="SECTION.KEY=VALUE",
                    help="also set this key in both gateways' configs (repeatable), e.g. "
                         "congestion.cnp_interval=4us; checked by longspand --check-config")
    ap.add_argument("--marker", choices=["red", "sojourn", "phantom"], default="red")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per mechanism (interleaved); the table gives the median and "
                         "range of the runs that were not starved")
    ap.add_argument("--wan-rate", default="500M", help="gateway A's WAN link rate (the bottleneck)")
    ap.add_argument("--host-rate", default=None,
                    help="each sender's line rate (default 400M: the senders stay within what "
                         "two shared cores can send, so DCQCN, not the CPU, sets their rate; "
                         "dest: 100M, so the inter-DC senders offer less than the WAN and the "
                         "intra-DC one less than the DC side)")
    ap.add_argument("--tor-rate", default="10G", help="site A ToR uplink (10G: not a bottleneck)")
    ap.add_argument("--variant", choices=["firmware", "paper", "hpcc"], default="firmware",
                    help="senders' DCQCN reaction point model")
    ap.add_argument("--worker-rt", type=int, default=0, metavar="PRIO",
                    help="run the gateways' worker threads SCHED_FIFO at PRIO, the stand-in "
                         "for a production gateway's own cores: a woken worker takes a CPU at "
                         "once, so mechanism B's pauses do not lapse (10 for its acceptance "
                         "runs, docs/lab.md); without B the real-time gateways starve the tools "
                         "(default 0: SCHED_OTHER, as the kernel places them)")
    ap.add_argument("--pin", action="store_true",
                    help="pin every process to one core as the configs say (gateways: control "
                         "on 0, worker on 1; wanem on 0; hostems on 1) instead of letting the "
                         "kernel place them")
    ap.add_argument("--link", choices=sorted(LINKS), default="vhost",
                    help="links between the processes: vhost (vhost-user, rx interrupts: idle "
                         "processes block until a packet; default) or memif (idle processes "
                         "sleep on timers)")
    ap.add_argument("--pacing-grid", default="0",
                    help="site A's senders wake on multiples of this ([host] pacing_grid; "
                         "0: each at its own next frame)")
    ap.add_argument("--tools", choices=["one", "separate"], default="one",
                    help="one (default): both sites' hostems and the delay line in one process "
                         "(longspan-labtools), three DPDK processes in all; separate: "
                         "longspan-hostem twice and longspan-wanem, five processes")
    ap.add_argument("--hog", type=int, default=0, metavar="N",
                    help="start N busy loops beside the lab for its whole run (the self-check "
                         "must then mark the runs starved)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "lab-out", time.strftime("%Y%m%d-%H%M%S")))
    a = ap.parse_args()
    if a.dc_red != "off" and not re.fullmatch(r"[^,]+,[^,]+", a.dc_red):
        ap.error(f"--dc-red {a.dc_red!r}: expected KMIN,KMAX or off")
    if a.host_rate is None:
        a.host_rate = "100M" if a.scenario == "dest" else "400M"
    os.makedirs(RUN, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    import lab_verdict
    hog = start_hog(a.hog)
    if hog:
        log(f"{a.hog} busy loop(s) started beside the lab (--hog)")
    try:
        if a.scenario == "mix":
            ok = run_mix(a, os.path.join(a.out, "mix"))
            log("OK: every frame crossed the WAN intact in both directions" if ok else "FAILED")
            sys.exit(0 if ok else 1)
        results = run_repeats(a)
    finally:
        for p in hog:
            p.kill()
            p.wait()
    print_table(results)
    agg = lab_verdict.aggregate(results)
    print(lab_verdict.table(agg))
    print()
    lines = lab_verdict.verdict(agg)
    json.dump({"runs": results, "aggregate": agg, "verdict": lines},
              open(os.path.join(a.out, "comparison.json"), "w"), indent=1)
    log(f"results, plots and logs in {a.out}")
    for ln in lines:
        print(ln)


if __name__ == "__main__":
    main()
