#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two gateways on kernel interfaces: veth pairs, network namespaces and
net_af_packet.

Each site is a network namespace whose router interface is one end of a
veth pair; the other end is the gateway's DC port (net_af_packet). The two
gateways' WAN ports are the two ends of a third veth pair. No static
neighbours on the DC side: the gateways resolve the site routers with ARP
and ND, and the site kernels resolve the gateways the same way.

Checks, in both directions:
- ping and ping6 between hosts of the two sites (kernel ICMP through both
  gateways and back);
- ping and ping6 to a gateway's own DC address (answered by longspand);
- RoCEv2 frames sent with scapy in site A are captured in site B with the
  inner packet intact but for TTL / hop limit, and the reverse;
- no mbuf left in use at exit.

    test_netns.py --build BUILDDIR
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwlab  # noqa: E402
from scapy.all import IP, Ether, IPv6, rdpcap  # noqa: E402

PY = "/usr/bin/python3"


def sh(*cmd, check=True, **kw):
    return subprocess.run(list(cmd), check=check, capture_output=True, text=True, **kw)


class Topology:
    def __init__(self, tag):
        self.tag = tag
        self.ns = {s: f"ls{tag}{s}" for s in "ab"}
        self.host_if = {s: f"ls{tag}{s}h" for s in "ab"}  # in the namespace
        self.gw_if = {s: f"ls{tag}{s}g" for s in "ab"}  # gateway DC port
        self.wan_if = {s: f"ls{tag}w{s}" for s in "ab"}  # gateway WAN ports

    def up(self):
        for s in "ab":
            n = gwlab.SITE[s]["n"]
            ns, h, g = self.ns[s], self.host_if[s], self.gw_if[s]
            sh("ip", "netns", "add", ns)
            sh("ip", "link", "add", h, "type", "veth", "peer", "name", g)
            sh("ip", "link", "set", h, "netns", ns)
            sh("ip", "link", "set", g, "up")
            sh("sysctl", "-qw", f"net.ipv6.conf.{g}.disable_ipv6=1")
            ex = ["ip", "netns", "exec", ns]
            sh(*ex, "ip", "link", "set", "lo", "up")
            sh(*ex, "ip", "link", "set", h, "address", gwlab.SITE[s]["router_mac"])
            sh(*ex, "ip", "link", "set", h, "up")
            sh(*ex, "ip", "addr", "add", f"10.{n}.255.1/24", "dev", h)
            sh(*ex, "ip", "-6", "addr", "add", f"fd00:{n}:ffff::1/64", "dev", h, "nodad")
            sh(*ex, "ip", "addr", "add", f"10.{n}.0.1/32", "dev", "lo")
            sh(*ex, "ip", "-6", "addr", "add", f"fd00:{n}::1/128", "dev", "lo")
            o = gwlab.SITE[gwlab.other(s)]["n"]
            sh(*ex, "ip", "route", "add", f"10.{o}.0.0/16", "via", f"10.{n}.255.254")
            sh(*ex, "ip", "-6", "route", "add", f"fd00:{o}::/48", "via", f"fd00:{n}:ffff::fe")
        sh("ip", "link", "add", self.wan_if["a"], "type", "veth", "peer", "name", self.wan_if["b"])
        for s in "ab":
            sh("ip", "link", "set", self.wan_if[s], "up")
            sh("sysctl", "-qw", f"net.ipv6.conf.{self.wan_if[s]}.disable_ipv6=1")

    def down(self):
        for s in "ab":
            sh("ip", "netns", "del", self.ns[s], check=False)
            sh("ip", "link", "del", self.gw_if[s], check=False)
        sh("ip", "link", "del", self.wan_if["a"], check=False)

    def ex(self, site, *cmd, **kw):
        return sh("ip", "netns", "exec", self.ns[site], *cmd, **kw)


def ping(topo, site, dst, v6=False, src=None, tries=5):
    """ping until one round succeeds (the first ones may be lost to ARP)."""
    cmd = ["ping", "-6" if v6 else "-4", "-c", "3", "-i", "0.2", "-W", "1"]
    if src:
        cmd += ["-I", src]
    for _ in range(tries):
        r = topo.ex(site, *cmd, dst, check=False)
        if r.returncode == 0:
            return True
        time.sleep(0.5)
    print(r.stdout, r.stderr)
    return False


def roce_frames(site, tmp):
    path = f"{tmp}/roce-{site}.pcap"
    sh(PY, os.path.join(gwlab.ROOT, "scripts", "lab_traffic.py"), "--site", site, "--out", path,
       "--qps", "2", "--writes", "2", "--payload", "256")
    # Only RoCE: the rest is covered by the ping checks.
    return [f for f in rdpcap(path) if f.haslayer("UDP") and f["UDP"].dport == 4791]


SNIFF = """
import sys
from scapy.all import sniff, wrpcap
iface, count, timeout, out = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
pk = sniff(iface=iface, count=count, timeout=timeout,
           lfilter=lambda p: p.haslayer('UDP') and p['UDP'].dport == 4791)
wrpcap(out, pk)
"""

SEND = """
import sys, time
from scapy.all import rdpcap, sendp
iface, pcap = sys.argv[1], sys.argv[2]
for f in rdpcap(pcap):
    sendp(f, iface=iface, verbose=False)
    time.sleep(0.002)
"""


def roce_check(topo, src, dst, tmp, gw_mac):
    frames = roce_frames(src, tmp)
    # Re-address the frames from the site router (the veth in the namespace)
    # to the gateway's DC MAC, which the kernel learned over ARP.
    for f in frames:
        f[Ether].dst = gw_mac
        f[Ether].src = gwlab.SITE[src]["router_mac"]
    from scapy.all import wrpcap
    send_pcap = f"{tmp}/send-{src}.pcap"
    wrpcap(send_pcap, frames)
    got_pcap = f"{tmp}/got-{dst}.pcap"
    open(f"{tmp}/sniff.py", "w").write(SNIFF)
    open(f"{tmp}/send.py", "w").write(SEND)
    sniffer = subprocess.Popen(["ip", "netns", "exec", topo.ns[dst], PY, f"{tmp}/sniff.py",
                                topo.host_if[dst], str(len(frames)), "20", got_pcap],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(1.5)  # let the sniffer open its socket
    topo.ex(src, PY, f"{tmp}/send.py", topo.host_if[src], send_pcap)
    sniffer.communicate(timeout=40)
    got = rdpcap(got_pcap) if os.path.exists(got_pcap) else []
    problems = gwlab.compare(frames, got, dst)
    print(f"RoCE {src} -> {dst}: {len(frames)} sent, {len(got)} captured, "
          f"{len(problems)} problem(s)")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    os.makedirs("/run/longspan", exist_ok=True)
    tag = str(os.getpid() % 100000)
    topo = Topology(tag)
    problems = []
    with tempfile.TemporaryDirectory(prefix="ls-ns-") as tmp:
        topo.down()
        gw = {}
        try:
            topo.up()
            for s in "ab":
                text = gwlab.gateway_config(
                    s, f"ns{tag}",
                    dc_dev=f"net_af_packet0,iface={topo.gw_if[s]}",
                    wan_dev=f"net_af_packet1,iface={topo.wan_if[s]}",
                    static_dc=False, eal_extra=["in_memory = yes"], dc_mtu=1500, wan_mtu=1600)
                path = f"{tmp}/site-{s}.conf"
                open(path, "w").write(text)
                gw[s] = gwlab.Gateway(build, path, f"{tmp}/gw-{s}.log").start()
            for s in "ab":
                o = gwlab.other(s)
                n, on = gwlab.SITE[s]["n"], gwlab.SITE[o]["n"]
                checks = [
                    (f"ping {s}->{o}", dict(dst=f"10.{on}.0.1", src=f"10.{n}.0.1")),
                    (f"ping6 {s}->{o}", dict(dst=f"fd00:{on}::1", src=f"fd00:{n}::1", v6=True)),
                    (f"ping gateway {s}", dict(dst=f"10.{n}.255.254")),
                    (f"ping6 gateway {s}", dict(dst=f"fd00:{n}:ffff::fe", v6=True)),
                ]
                for name, kw in checks:
                    ok = ping(topo, s, **kw)
                    print(f"{name}: {'ok' if ok else 'FAILED'}")
                    if not ok:
                        problems.append(name)
            for s in "ab":
                problems += roce_check(topo, s, gwlab.other(s), tmp, gwlab.SITE[s]["dc_mac"])
            for s in "ab":
                st = gw[s].ctl("show", "stats")
                l2 = st["l2"]
                print(f"gateway {s}: arp_replies {l2['arp_replies']} nd_adverts {l2['nd_adverts']} "
                      f"echo_replies {l2['echo_replies']} learned {l2['learned']}")
                if l2["arp_replies"] == 0 or l2["nd_adverts"] == 0 or l2["learned"] == 0:
                    problems.append(f"gateway {s}: ARP/ND not exercised: {l2}")
        finally:
            for s in "ab":
                if s in gw:
                    leak = gw[s].stop()
                    if leak != 0:
                        problems.append(f"gateway {s}: {leak} mbufs in use at exit")
            topo.down()
        if problems:
            print("FAIL:")
            for p in problems:
                print("  " + p)
            for s in "ab":
                if os.path.exists(f"{tmp}/gw-{s}.log"):
                    print(f"--- gateway {s} log tail ---")
                    print(open(f"{tmp}/gw-{s}.log").read()[-1500:])
            sys.exit(1)
    print("OK: kernel interfaces, ARP/ND, ping and RoCE in both directions")


if __name__ == "__main__":
    main()
