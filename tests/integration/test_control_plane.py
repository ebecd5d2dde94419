#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One gateway on net_null ports, its control plane pushed the way an
operator's mistakes or a hostile local user would push it.

Reload:
- of a directory, /dev/zero, a FIFO nobody writes, and a file over the
  config size limit: each refused at once with one clear message, the API
  and the DPDK telemetry socket answering right after (and during the
  attempt), the running config unchanged;
- of a restart-only change: refused as docs/cli.md shows it;
- of a config without [peer]: applied, with the warning that all traffic
  will be no_route (also at start);
- SIGTERM while a reload of a FIFO is being attempted and a client sits
  idle on the API: the gateway exits cleanly, every mbuf back in its pool.

API clients: 500 idle connections held open; none is refused, `show stats`
still answers within 100 ms, and the server closes the idle ones by its
request deadline.

The mempool: each buffer's data room is mbuf_data_size plus the 128-byte
headroom, as docs/config.md says.

    test_control_plane.py --build BUILDDIR
"""

import argparse
import errno
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwlab  # noqa: E402

IDLE_CLIENTS = 500
ANSWER_MS = 100  # show stats with IDLE_CLIENTS idle connections open
MBUF_HEADROOM = 128  # RTE_PKTMBUF_HEADROOM
MBUF_STRUCT = 128  # sizeof(struct rte_mbuf)
HANG_S = 5  # a reload attempt taking longer than this is a wedged control thread
CONFIG_MAX_BYTES = 1 << 20  # LS_CONFIG_MAX_BYTES

failures = []


def check(name, cond, detail=""):
    if cond:
        print(f"ok   {name}")
    else:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}")
    return cond


def config_text(tag, tmp, peers=True, extra_gateway=()):
    lines = [
        "[gateway]",
        f"name = {tag}",
        f"socket = {tmp}/api.sock",
        "workers = 1",
        "idle_sleep = 1ms",
        "mbuf_data_size = 2048",
        *extra_gateway,
        "[eal]",
        "lcores = 0,1",
        f"file_prefix = {tag}",
        "no_huge = yes",
        "memory = 256",
        "no_pci = yes",
        "[port dc]",
        "role = dc",
        "dev = net_null0,no-rx=1",
        "ipv4 = 10.1.255.254/24",
        "[port wan]",
        "role = wan",
        "dev = net_null1,no-rx=1",
        "ipv4 = 192.0.2.1/24",
        "link_rate = 10G",
    ]
    if peers:
        lines += ["[peer site-b]", "port = wan", "remote = 192.0.2.2", "vni = 100", "rtt = 1ms",
                  "prefix = 10.2.0.0/16"]
    return "\n".join(lines) + "\n"


class Daemon(gwlab.Gateway):
    def __init__(self, build, tmp, tag, **kw):
        self.tag, self.tmp = tag, tmp
        path = os.path.join(tmp, f"{tag}.conf")
        with open(path, "w") as f:
            f.write(config_text(tag, tmp, **kw))
        super().__init__(build, path, os.path.join(tmp, f"{tag}.log"))
        self.ctl_bin = os.path.join(build, "control", "longspanctl")

    def run_ctl(self, *args, timeout=HANG_S):
        """(rc, stdout, stderr, seconds); rc None when it did not finish in time."""
        start = time.monotonic()
        try:
            p = subprocess.run([self.ctl_bin, "-s", self.sock, "-t", str(timeout), *args],
                               capture_output=True, text=True, timeout=timeout + 1)
            return p.returncode, p.stdout, p.stderr, time.monotonic() - start
        except subprocess.TimeoutExpired:
            return None, "", "", time.monotonic() - start

    def telemetry(self, cmd, timeout=2.0):
        """One DPDK telemetry command, as dpdk-telemetry.py sends it; None on no answer."""
        return gwlab.telemetry(self.tag, cmd, timeout)

    def api_answers(self):
        rc, out, _, _ = self.run_ctl("show", "stats", timeout=2)
        return rc == 0 and "rx_pkts" in out

    def telemetry_answers(self):
        tel = self.telemetry("/longspan/stats")
        return tel is not None and "/longspan/stats" in tel

    def generation(self):
        rc, out, _, _ = self.run_ctl("--json", "show", "config", "--summary", timeout=2)
        return json.loads(out)["generation"] if rc == 0 else None

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def log_text(self):
        with open(self.logpath) as f:
            return f.read()


def hostile_reloads(d, tmp):
    """Each target refused at once; the gateway keeps answering."""
    fifo = os.path.join(tmp, "fifo.conf")
    os.mkfifo(fifo)
    big = os.path.join(tmp, "big.conf")
    with open(big, "w") as f:
        f.write(config_text(d.tag, tmp))
        f.write(";" * (CONFIG_MAX_BYTES - f.tell()) + "\n")
    os.makedirs(os.path.join(tmp, "dir.conf"))
    cases = [
        (os.path.join(tmp, "dir.conf"), "not a regular file (a directory)"),
        ("/dev/zero", "not a regular file (a character device)"),
        (fifo, "not a regular file (a FIFO)"),
        (big, f"{CONFIG_MAX_BYTES + 1} bytes: larger than the {CONFIG_MAX_BYTES}-byte limit"),
    ]
    for path, want in cases:
        name = f"reload {os.path.basename(path)}"
        gen = d.generation()
        rc, _, err, secs = d.run_ctl("reload", path)
        answered = rc is not None and "no reply within" not in err
        if not check(f"{name}: answered within {HANG_S} s", answered, f"{secs:.1f} s: {err}"):
            check(f"{name}: telemetry answers while the API does not", d.telemetry_answers())
            return False  # the control thread is wedged: nothing further to learn here
        lines = err.strip().splitlines()
        check(f"{name}: refused", rc == 1 and "not applied" in err, err)
        check(f"{name}: one reason, '{want}'",
              len(lines) == 2 and want in lines[1] and "role = dc" not in err, err)
        check(f"{name}: the API answers", d.api_answers())
        check(f"{name}: telemetry answers", d.telemetry_answers())
        check(f"{name}: running config kept", d.generation() == gen)
    # During an attempt: the reload request and a telemetry client at once.
    p = subprocess.Popen([d.ctl_bin, "-s", d.sock, "reload", fifo], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    start = time.monotonic()
    tel = d.telemetry("/longspan/config")
    check("telemetry answers while a FIFO reload is attempted",
          tel is not None and time.monotonic() - start < 2, f"{tel}")
    try:
        p.wait(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    return True


def docs_reload_restart(d):
    """A restart-only change is refused as docs/cli.md shows it."""
    with open(os.path.join(gwlab.ROOT, "docs", "cli.md")) as f:
        doc = f.read()
    m = re.search(r"\n    \$ longspanctl reload\n((?:    .*\n)*?.*needs a restart.*\n)", doc)
    if not check("docs/cli.md: a reload example refused for a restart-only change", m is not None):
        return
    want = [line[4:] for line in m.group(1).splitlines()]
    key = re.search(r"reload: \[gateway\] (\w+) changed", m.group(1))
    if not check("docs/cli.md: the example names a [gateway] key", key is not None, m.group(1)):
        return
    changed = os.path.join(d.tmp, "restart.conf")
    with open(changed, "w") as f:
        f.write(config_text(d.tag, d.tmp, extra_gateway=[f"{key.group(1)} = 16384"]))
    rc, out, err, _ = d.run_ctl("reload", changed)
    got = (out + err).replace(changed, "/etc/longspan/site-a.conf").strip().splitlines()
    check("reload of a restart-only change: refused", rc == 1, err)
    check("reload of a restart-only change: prints what docs/cli.md shows", got == want,
          f"\n  got:  {got}\n  docs: {want}")


def reload_without_peer(d):
    nopeer = os.path.join(d.tmp, "nopeer.conf")
    with open(nopeer, "w") as f:
        f.write(config_text(d.tag, d.tmp, peers=False))
    rc, out, err, _ = d.run_ctl("reload", nopeer)
    check("reload without [peer]: applied", rc == 0 and out.startswith("reloaded"), out + err)
    check("reload without [peer]: warns of no_route",
          f"{nopeer}: warning: no [peer]" in out and "no_route" in out, out)


def mbuf_data_room(d):
    info = d.telemetry("/mempool/info,ls_mbufs")
    if not check("telemetry /mempool/info answers", info is not None and
                 "/mempool/info" in info, f"{info}"):
        return
    room = info["/mempool/info"]["elt_size"] - MBUF_STRUCT
    check("mbuf data room = mbuf_data_size + headroom", room == 2048 + MBUF_HEADROOM, f"{room}")
    with open(os.path.join(gwlab.ROOT, "docs", "config.md")) as f:
        row = [line for line in f if line.startswith("| `mbuf_data_size` |")]
    check("docs/config.md: mbuf_data_size has the headroom on top",
          len(row) == 1 and f"mbuf_data_size + {MBUF_HEADROOM}" in row[0], f"{row}")


def sigterm_during_reload(d, tmp):
    fifo = os.path.join(tmp, "fifo2.conf")
    os.mkfifo(fifo)
    idle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    idle.connect(d.sock)  # a client that never sends
    p = subprocess.Popen([d.ctl_bin, "-s", d.sock, "reload", fifo], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    time.sleep(0.05)
    d.proc.send_signal(signal.SIGTERM)
    try:
        d.proc.wait(timeout=10)
        exited = True
    except subprocess.TimeoutExpired:
        exited = False
    check("SIGTERM during a reload attempt: the gateway exits", exited)
    if not exited:
        d.kill()
    d.log.close()
    d.proc = None
    m = re.search(r"mbufs in use at exit: (\d+)", d.log_text())
    check("SIGTERM during a reload attempt: mbufs in use at exit: 0",
          m is not None and m.group(1) == "0", d.log_text()[-600:])
    idle.close()
    try:
        p.wait(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def request(path, line, timeout=5.0):
    """(reply, seconds from connect to the server's close); reply None if refused."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    start = time.monotonic()
    try:
        s.connect(path)
    except OSError:
        s.close()
        return None, 0.0
    s.setblocking(True)
    s.settimeout(timeout)
    data = b""
    try:
        s.sendall(line.encode())
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    s.close()
    return data.decode(errors="replace"), time.monotonic() - start


def idle_clients(d):
    socks, refused = [], 0
    for _ in range(IDLE_CLIENTS):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect(d.sock)
            socks.append(s)
        except OSError as e:
            refused += 1
            s.close()
            if e.errno not in (errno.EAGAIN, errno.ECONNREFUSED):
                raise
    check(f"{IDLE_CLIENTS} idle connections: none refused", refused == 0, f"{refused} refused")
    times = []
    for _ in range(5):
        reply, secs = request(d.sock, "show stats\n")
        ok = reply is not None and reply.startswith("ok\n")
        times.append(secs * 1000 if ok else float("inf"))
        check("show stats among idle clients: ok", reply is not None and reply.startswith("ok\n"),
              f"{reply!r:.200}")
    times.sort()
    print(f"show stats with {IDLE_CLIENTS} idle connections: "
          + ", ".join(f"{t:.1f}" for t in times) + " ms")
    check(f"show stats among idle clients: median under {ANSWER_MS} ms",
          times[len(times) // 2] < ANSWER_MS, f"{times}")
    # The server hangs up on every idle one (an error line, then EOF).
    deadline = time.monotonic() + 10
    open_ = {s.fileno(): s for s in socks}
    errors = 0
    while open_ and time.monotonic() < deadline:
        r, _, _ = select.select(list(open_.values()), [], [], 0.2)
        for s in r:
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if data.startswith(b"error: "):
                errors += 1
            if not data or b"\n" in data:
                open_.pop(s.fileno()).close()
    check("idle connections closed by the server", not open_, f"{len(open_)} still open")
    check("idle connections told why", errors == IDLE_CLIENTS - len(open_),
          f"{errors} error lines")
    for s in open_.values():
        s.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    pid = os.getpid()
    with tempfile.TemporaryDirectory(prefix="ls-cp-") as tmp:
        # A wedged gateway is replaced, so that every check runs.
        d = Daemon(build, tmp, f"cp{pid}a").start()
        try:
            if not hostile_reloads(d, tmp):
                d.kill()
                d = Daemon(build, tmp, f"cp{pid}a").start()
            docs_reload_restart(d)
            reload_without_peer(d)
            mbuf_data_room(d)
            sigterm_during_reload(d, tmp)
        finally:
            d.kill()

        d = Daemon(build, tmp, f"cp{pid}b", peers=False).start()
        try:
            check("start without [peer]: warns of no_route",
                  "warning: no [peer]" in d.log_text() and "no_route" in d.log_text(),
                  d.log_text()[-600:])
            idle_clients(d)
            leaks = d.stop()
            check("after idle clients: mbufs in use at exit: 0", leaks == 0, f"{leaks}")
        finally:
            d.kill()
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("all passed")


if __name__ == "__main__":
    main()
