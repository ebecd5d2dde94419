#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two real longspand processes (net_null ports) peering over TLS 1.3 on
loopback (docs/peering.md), with the lab PKI of scripts/make-certs.sh.

- The session comes up with valid certificates; each gateway learns the
  other's announced prefixes, publishes them (a new dataplane generation),
  and refuses a learned prefix that overlaps one configured for another
  peer (counted): config wins.
- Clients from the peer's address are refused, each under its own counted
  reason: a certificate of another CA (unknown_ca), an expired one
  (cert_expired), one naming another site (wrong_site), a plaintext client
  (not_tls); a slow-loris client ends as handshake_timeout. Garbage bytes,
  a TLS session killed mid-stream and the slow-loris client run while
  `show stats` is asked over the API: every answer within 100 ms, and the
  up session stays up.
- The peer is killed (SIGKILL): the session goes down, the learned routes
  stay in use (the dataplane forwards on them) until route_hold, then
  expire (counted); the peer restarts and the session and its routes come
  back without restarting this gateway.

    test_peering.py --build BUILDDIR --pki DIR
"""

import argparse
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwlab  # noqa: E402

ANSWER_MS = 100  # show stats while the peering port is abused (a large margin)
ROUTE_HOLD_S = 3
HANDSHAKE_S = 1

failures = []


def check(name, cond, detail=""):
    if cond:
        print(f"ok   {name}")
    else:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}")
    return cond


SITES = {
    "a": {"name": "site-a", "n": 1, "addr": "127.0.0.1"},
    "b": {"name": "site-b", "n": 2, "addr": "127.0.0.2"},
}


def config_text(site, tmp, pki, port):
    s = SITES[site]
    o = SITES["b" if site == "a" else "a"]
    tag = f"pr{os.getpid()}{site}"
    lines = [
        "[gateway]", f"name = {s['name']}", f"socket = {tmp}/{site}.sock", "workers = 1",
        "idle_sleep = 1ms", "mbuf_data_size = 2048",
        "[eal]", "lcores = 0,1", f"file_prefix = {tag}", "no_huge = yes", "memory = 256",
        "no_pci = yes",
        "[port dc]", "role = dc", f"dev = net_null{s['n']}0,no-rx=1",
        f"ipv4 = 10.{s['n']}.255.254/24",
        "[port wan]", "role = wan", f"dev = net_null{s['n']}1,no-rx=1",
        f"ipv4 = 192.0.2.{s['n']}/24", "link_rate = 10G",
    ]
    if site == "a":
        # A peer without a session whose configured prefix site-b will claim.
        lines += ["[peer site-c]", "port = wan", "remote = 192.0.2.3", "vni = 101", "rtt = 1ms",
                  "peering = no", "prefix = 10.9.0.0/16"]
    lines += [
        f"[peer {o['name']}]", "port = wan", f"remote = 192.0.2.{o['n']}", "vni = 100",
        "rtt = 1ms", f"peering_address = {o['addr']}", f"peering_port = {port}",
        "[peering]", f"listen = {s['addr']}", f"port = {port}",
        f"ca = {pki}/ca.crt", f"cert = {pki}/{s['name']}.crt", f"key = {pki}/{s['name']}.key",
        f"handshake_timeout = {HANDSHAKE_S}s", "hold_time = 900ms", "backoff_min = 200ms",
        "backoff_max = 1s", f"route_hold = {ROUTE_HOLD_S}s",
        f"prefix = 10.{s['n']}.0.0/16",
    ]
    if site == "b":
        # Inside site-c's configured 10.9.0.0/16 on site-a: config wins there.
        lines.append("prefix = 10.9.7.0/24")
    return "\n".join(lines) + "\n"


def request(path, line, timeout=5.0):
    """(reply, ms) for one API request, straight on the socket."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    start = time.monotonic()
    s.settimeout(timeout)
    data = b""
    try:
        s.connect(path)
        s.sendall(line.encode())
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        return None, (time.monotonic() - start) * 1000
    finally:
        s.close()
    return data.decode(errors="replace"), (time.monotonic() - start) * 1000


def peers(gw):
    return gw.ctl("show", "peers")


def session(gw, name):
    return peers(gw)["peers"][name]["session"]


def wait_for(what, fn, timeout=15.0):
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        try:
            last = fn()
            if last:
                return last
        except (subprocess.CalledProcessError, KeyError, ValueError) as e:
            last = e
        time.sleep(0.1)
    return None


def telemetry(site, cmd, timeout=2.0):
    """One DPDK telemetry command to SITE's gateway; None on no answer."""
    return gwlab.telemetry(f"pr{os.getpid()}{site}", cmd, timeout)


def generation(gw):
    return gw.ctl("show", "config", "--summary")["generation"]


class Gateway:
    """One longspand; the API answers before start() returns."""

    def __init__(self, build, path, log):
        self.build, self.path, self.logpath = build, path, log
        self.sock = next(line.split("=", 1)[1].strip() for line in open(path)
                         if line.startswith("socket ="))
        self.proc = None

    def start(self, timeout=20):
        if os.path.exists(self.sock):
            os.unlink(self.sock)
        self.log = open(self.logpath, "a")
        self.proc = subprocess.Popen([os.path.join(self.build, "longspand"), "-c", self.path],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"longspand exited: {open(self.logpath).read()[-2000:]}")
            reply, _ = request(self.sock, "show stats\n", timeout=1)
            if reply is not None and reply.startswith("ok\n"):
                return self
            time.sleep(0.1)
        raise RuntimeError(f"longspand API did not come up: {open(self.logpath).read()[-2000:]}")

    def ctl(self, *args):
        cmd = [os.path.join(self.build, "control", "longspanctl"), "-s", self.sock, "--json"]
        out = subprocess.run(cmd + list(args), check=True, capture_output=True, text=True,
                             timeout=10).stdout
        return json.loads(out)

    def stop(self):
        """SIGTERM, wait; the number of mbufs in use at exit (None if not running)."""
        if self.proc is None or self.proc.poll() is not None:
            return 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError("longspand did not stop on SIGTERM")
        self.log.close()
        for line in reversed(open(self.logpath).read().splitlines()):
            if "mbufs in use at exit:" in line:
                return int(line.rsplit(":", 1)[1])
        raise RuntimeError("no mbuf accounting line")


# ---- Clients on the peering port -------------------------------------------

def tcp_from(src, dst, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((src, 0))
    s.settimeout(5)
    s.connect((dst, port))
    return s


def tls_client(pki, cert, src, dst, port):
    """A TLS 1.3 client with CERT (a fixture name); returns what ended it."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.load_cert_chain(f"{pki}/{cert}.crt", f"{pki}/{cert}.key")
    raw = tcp_from(src, dst, port)
    try:
        t = ctx.wrap_socket(raw, server_hostname="site-a")
        # TLS 1.3: the server checks our certificate after our Finished; its
        # verdict arrives on the first read.
        t.recv(1)
        return "read"
    except (ssl.SSLError, OSError) as e:
        return type(e).__name__
    finally:
        raw.close()


def plaintext_client(src, dst, port):
    s = tcp_from(src, dst, port)
    try:
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        s.recv(100)
    except OSError:
        pass
    s.close()


def garbage_client(src, dst, port):
    s = tcp_from(src, dst, port)
    try:
        s.sendall(os.urandom(8192))
        s.recv(100)
    except OSError:
        pass
    s.close()


def killed_tls_client(pki, src, dst, port):
    """A valid TLS session (site-b's own certificate), reset mid-message."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.load_cert_chain(f"{pki}/site-b.crt", f"{pki}/site-b.key")
    raw = tcp_from(src, dst, port)
    t = None
    try:
        t = ctx.wrap_socket(raw, server_hostname="site-a")
        raw = t
        t.sendall(b"\x01\x01\x00")  # three bytes of a message header
        time.sleep(0.1)
    except (ssl.SSLError, OSError):
        pass
    # RST, no close_notify.
    try:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    except OSError:
        pass
    raw.close()


def slow_loris(src, dst, port, seconds, stop):
    s = tcp_from(src, dst, port)
    try:
        s.sendall(b"\x16")  # a TLS handshake record begins...
        end = time.monotonic() + seconds
        while time.monotonic() < end and not stop.is_set():
            s.sendall(b"\x03")  # ...and never ends
            time.sleep(0.2)
    except OSError:
        pass
    s.close()


def api_probe(sock, stop, times):
    while not stop.is_set():
        reply, ms = request(sock, "show stats\n")
        times.append(ms if reply is not None and reply.startswith("ok\n") else float("inf"))
        time.sleep(0.02)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--pki", required=True)
    a = ap.parse_args()
    build, pki = os.path.abspath(a.build), os.path.abspath(a.pki)
    port = 20000 + os.getpid() % 20000
    with tempfile.TemporaryDirectory(prefix="ls-peer-") as tmp:
        gws = {}
        for site in ("a", "b"):
            path = os.path.join(tmp, f"{site}.conf")
            with open(path, "w") as f:
                f.write(config_text(site, tmp, pki, port))
            gws[site] = Gateway(build, path, os.path.join(tmp, f"{site}.log"))
        ga, gb = gws["a"], gws["b"]
        try:
            run(build, pki, port, ga, gb)
        finally:
            for g in (ga, gb):
                try:
                    left = g.stop()
                    check(f"{g.path}: every mbuf back at exit", left == 0, f"{left}")
                except Exception as e:  # noqa: BLE001
                    check(f"{g.path}: clean stop", False, str(e))
            if failures:
                for g in (ga, gb):
                    print(f"---- {g.logpath}")
                    print(open(g.logpath).read()[-3000:])
    print(f"{0 if failures else 1} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


def run(build, pki, port, ga, gb):
    ga.start()
    gen0 = generation(ga)
    gb.start()

    # ---- Up, routes exchanged ----
    up = wait_for("up", lambda: session(ga, "site-b")["state"] == "up"
                  and session(gb, "site-a")["state"] == "up")
    check("session up on both gateways", up)
    sa = wait_for("routes", lambda: (lambda s: s if s["routes_in_use"] >= 1 else None)(
        session(ga, "site-b")))
    check("site-a learned site-b's prefixes", sa is not None
          and "10.2.0.0/16" in sa["routes_learned"], f"{sa}")
    if sa:
        check("site-a refused the prefix overlapping another peer's configured one",
              sa["routes_refused"] == 1 and sa["routes_refused_now"] == 1
              and sa["routes_in_use"] == 1, f"{sa}")
        check("session software announced", sa["peer_software"].startswith("longspan/"), f"{sa}")
    sb = session(gb, "site-a")
    check("site-b learned site-a's prefix", sb["routes_learned"] == ["10.1.0.0/16"]
          and sb["routes_in_use"] == 1, f"{sb}")
    check("learned routes published as a new snapshot", generation(ga) > gen0,
          f"{gen0} -> {generation(ga)}")
    # Congestion hints once a second each way: empty here (no traffic, nothing shaped),
    # each one received and counted by the other side.
    hints = wait_for("hints", lambda: (lambda x, y: (x, y) if x["hints_sent"] >= 2
                                       and y["hints"] >= 2 else None)(
        session(ga, "site-b"), session(gb, "site-a")))
    check("congestion hints sent and received", hints is not None
          and hints[0]["hint_qps_sent"] == 0 and hints[1]["hint_qps"] == 0, f"{hints}")
    whole = peers(ga)["peering"]
    check("manager counts a republish", whole["route_republishes"] >= 1, f"{whole}")
    ups_before = session(ga, "site-b")["ups"]
    tel = telemetry("a", "/longspan/peers")
    try:
        tsess = tel["/longspan/peers"]["peers"]["site_b"]["session"]
    except (TypeError, KeyError):
        tsess = None
    check("telemetry /longspan/peers shows the session", tsess is not None
          and tsess["state"] == "up" and tsess["routes_in_use"] == 1, f"{tel}")

    # ---- Refusals, each with its reason, while the API is asked ----
    stop = threading.Event()
    times = []
    prober = threading.Thread(target=api_probe, args=(ga.sock, stop, times))
    prober.start()
    loris = threading.Thread(target=slow_loris,
                             args=("127.0.0.2", "127.0.0.1", port, HANDSHAKE_S + 1.5, stop))
    loris.start()
    src, dst = "127.0.0.2", "127.0.0.1"
    tls_client(pki, "site-b-otherca", src, dst, port)
    tls_client(pki, "site-b-expired", src, dst, port)
    tls_client(pki, "site-b-wrongsite", src, dst, port)
    plaintext_client(src, dst, port)
    for _ in range(5):
        garbage_client(src, dst, port)
    killed_tls_client(pki, src, dst, port)
    loris.join()
    time.sleep(0.5)
    stop.set()
    prober.join()
    s = session(ga, "site-b")
    refused = s["refused"]
    print(f"refused on site-a: {refused}")
    check("another CA refused as unknown_ca", refused.get("unknown_ca", 0) >= 1, f"{refused}")
    check("expired certificate refused as cert_expired", refused.get("cert_expired", 0) >= 1,
          f"{refused}")
    check("certificate of another site refused as wrong_site",
          refused.get("wrong_site", 0) >= 1, f"{refused}")
    check("plaintext and garbage refused as not_tls", refused.get("not_tls", 0) >= 6,
          f"{refused}")
    check("slow-loris client dropped as handshake_timeout",
          refused.get("handshake_timeout", 0) >= 1, f"{refused}")
    check("session stayed up through it", s["state"] == "up" and s["ups"] == ups_before, f"{s}")
    times.sort()
    print(f"show stats during the abuse: {len(times)} requests, median "
          f"{times[len(times) // 2]:.1f} ms, max {times[-1]:.1f} ms")
    check(f"show stats answered within {ANSWER_MS} ms throughout",
          len(times) >= 10 and times[-1] < ANSWER_MS, f"{times[-5:]}")

    # ---- Peer dies: routes held, then expired; peer returns ----
    gb.proc.send_signal(signal.SIGKILL)
    gb.proc.wait()
    gb.log.close()
    down = wait_for("down", lambda: (lambda s: s if s["state"] == "down" else None)(
        session(ga, "site-b")), timeout=5)
    check("session down after the peer died", down is not None, f"{down}")
    if down:
        check("lost as peer_closed or hold_timeout",
              down["lost"].get("peer_closed", 0) + down["lost"].get("hold_timeout", 0) >= 1,
              f"{down['lost']}")
        check("learned routes still in use while down", down["routes_in_use"] == 1, f"{down}")
    expired = wait_for("expired", lambda: (lambda s: s if s["routes_expired"] >= 1 else None)(
        session(ga, "site-b")), timeout=ROUTE_HOLD_S + 3)
    check("learned routes expire after route_hold", expired is not None
          and expired["routes_in_use"] == 0, f"{expired}")
    gb.start()
    back = wait_for("back", lambda: (lambda s: s if s["state"] == "up" and s["routes_in_use"] == 1
                                     else None)(session(ga, "site-b")), timeout=15)
    check("session and routes back after the peer restarted", back is not None, f"{back}")
    if back:
        check("counted as a new up", back["ups"] == ups_before + 1, f"{back}")

    # ---- Reload with a changed [peering]: sessions restart, routes come back ----
    text = open(ga.path).read().replace("hold_time = 900ms", "hold_time = 1200ms")
    with open(ga.path, "w") as f:
        f.write(text)
    reply, _ = request(ga.sock, "reload\n", timeout=10)
    check("reload with a changed [peering] applied, sessions restarted", reply is not None
          and reply.startswith("ok\n") and "every session restarts" in reply, f"{reply!r:.300}")
    again = wait_for("again", lambda: (lambda s: s if s["state"] == "up" and s["routes_in_use"] == 1
                                       else None)(session(ga, "site-b")),
                     timeout=15)
    check("after the reload the session and its routes are back", again is not None,
          f"{session(ga, 'site-b')}")


if __name__ == "__main__":
    main()
