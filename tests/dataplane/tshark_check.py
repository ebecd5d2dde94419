#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Dissect pcaps with tshark and report every frame that Wireshark considers
malformed or that carries expert info of severity warning or error.

    tshark_check.py FILE.pcap...     exit 1 when a frame has a problem
    tshark_check.py --self-test      prove the check catches broken packets

Checksum validation is off by default in Wireshark; it is switched on here
for IPv4, UDP, TCP (ICMP and ICMPv6 are always checked), so a wrong checksum
is an expert error. Wireshark does not verify the RoCEv2 ICRC; the fixture
driver does that with fxwire.icrc().
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile

TSHARK = shutil.which("tshark") or "/usr/bin/tshark"

# Expert severities as _ws.expert.severity prints them (epan/proto.h PI_*).
SEV_CHAT = 0x00200000
SEV_NOTE = 0x00400000
SEV_WARN = 0x00600000
SEV_ERROR = 0x00800000
SEV_NAMES = {SEV_CHAT: "chat", SEV_NOTE: "note", SEV_WARN: "warning", SEV_ERROR: "error"}

PREFS = [
    "ip.check_checksum:TRUE",
    "udp.check_checksum:TRUE",
    "tcp.check_checksum:TRUE",
    "udp.try_heuristic_first:FALSE",
    # Frames of unrelated cases share one capture (check_frames): keep
    # Wireshark from relating them (TCP sequence analysis, fragment
    # reassembly, duplicate-address detection).
    "tcp.analyze_sequence_numbers:FALSE",
    "ip.defragment:FALSE",
    "ipv6.defragment:FALSE",
    "arp.detect_duplicate_ips:FALSE",
]

SEP = "\x1f"


def _run(path):
    cmd = [TSHARK, "-n", "-r", path]
    for p in PREFS:
        cmd += ["-o", p]
    cmd += ["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a",
            "-E", "aggregator=" + SEP,
            "-e", "frame.number", "-e", "frame.protocols",
            "-e", "_ws.expert.severity", "-e", "_ws.expert.message",
            "-e", "_ws.expert.group"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    if r.returncode != 0:
        err = "\n".join(l for l in r.stderr.splitlines() if "Running as user" not in l)
        raise RuntimeError("tshark failed on %s: %s" % (path, err.strip()))
    return r.stdout


def check_file(path):
    """List of (frame number, protocols, problem text) for one pcap."""
    problems = []
    for line in _run(path).splitlines():
        cols = line.split("\t")
        cols += [""] * (5 - len(cols))
        num, protos, sevs, msgs, _groups = cols[:5]
        if "_ws.malformed" in protos.split(":") or "malformed" in protos:
            problems.append((int(num), protos, "malformed packet"))
        sev_list = [s for s in sevs.split(SEP)] if sevs else []
        msg_list = msgs.split(SEP) if msgs else []
        for i, s in enumerate(sev_list):
            try:
                v = int(s, 0)
            except ValueError:
                continue
            if v >= SEV_WARN:
                m = msg_list[i] if i < len(msg_list) else "?"
                problems.append((int(num), protos, "expert %s: %s" % (SEV_NAMES.get(v, hex(v)), m)))
    return problems


def write_pcap(path, frames):
    """Ethernet frames to a classic pcap file."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i // 1000000, i % 1000000, len(fr), len(fr)))
            f.write(fr)


def check_frames(items):
    """
    items: (label, frame bytes) pairs, checked in one tshark run (tshark
    starts slowly; one run per pcap made the suite take minutes).
    Returns {label: [problem text, ...]} for the labels that have any.
    """
    items = list(items)
    if not items:
        return {}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "all.pcap")
        write_pcap(path, [fr for _, fr in items])
        out = {}
        for num, protos, text in check_file(path):
            label = items[num - 1][0]
            out.setdefault(label, []).append("%s [%s]" % (text, protos))
    return out


def frame_fields(frames, fields, every=False):
    """
    The values tshark dissects for each frame: a list (one per frame) of
    {field: value string} ('' when absent). One tshark run for all frames.
    A field that occurs more than once in a frame (a GENEVE option's class)
    gives its first value, or with every=True all of them, comma separated.
    """
    if not frames:
        return []
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "fields.pcap")
        write_pcap(path, frames)
        cmd = [TSHARK, "-n", "-r", path]
        for p in PREFS:
            cmd += ["-o", p]
        cmd += ["-T", "fields", "-E", "separator=/t"]
        cmd += ["-E", "occurrence=a", "-E", "aggregator=,"] if every else ["-E", "occurrence=f"]
        for f in fields:
            cmd += ["-e", f]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=120)
        if r.returncode != 0:
            raise RuntimeError("tshark failed: %s" % r.stderr.strip())
    out = []
    for line in r.stdout.splitlines():
        cols = line.split("\t")
        cols += [""] * (len(fields) - len(cols))
        out.append(dict(zip(fields, cols)))
    return out


def check(paths):
    """{path: problems} for the paths that have any."""
    out = {}
    for p in paths:
        pr = check_file(p)
        if pr:
            out[p] = pr
    return out


def format_problems(res):
    lines = []
    for path, probs in sorted(res.items()):
        for num, protos, text in probs:
            lines.append("%s: frame %d [%s]: %s" % (path, num, protos, text))
    return "\n".join(lines)


def self_test():
    """Good packets pass; each deliberately broken one is caught."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from scapy.utils import wrpcap
    from scapy.layers.l2 import Ether
    import fxwire as w

    cfg_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixture.conf")
    cfg = w.Config(cfg_path)
    peer_b, peer_c = cfg.peers["site-b"], cfg.peers["site-c"]
    r4 = w.roce("10.1.0.1", "10.2.0.5", 0x0A, payload=b"x" * 64, hdrs=w.reth())
    r6 = w.roce("fd00:1::1", "fd00:3::5", 0x11, hdrs=w.aeth(0x60, 3))
    good = [
        w.encap(cfg, peer_b, r4, 0),
        w.encap(cfg, peer_c, r6, 1),
        w.dc_frame_for(cfg, w.roce("10.2.0.5", "10.1.0.1", 0x04, payload=b"y" * 32)),
        w.arp_reply_for(cfg.dc, "02:00:00:00:01:07", "10.1.0.7"),
    ]
    bad_csum = bytearray(good[0])
    bad_csum[14 + 10] ^= 0x55  # outer IPv4 header checksum
    bad_len = bytearray(good[2])
    bad_len[14 + 2:14 + 4] = b"\x10\x00"  # IPv4 total length beyond the frame
    bad_geneve = bytes(good[0][:14 + 20 + 8 + 3])  # GENEVE header cut after 3 bytes
    bad_geneve = bytearray(bad_geneve)
    bad_geneve[14 + 2:14 + 4] = (20 + 8 + 3).to_bytes(2, "big")
    bad_geneve[14 + 20 + 4:14 + 20 + 6] = (8 + 3).to_bytes(2, "big")
    bad_geneve = w.ip4_fix_csum(bytes(bad_geneve[14:]))
    bad_geneve = good[0][:14] + bad_geneve
    bad_udp6 = bytearray(good[1])
    bad_udp6[14 + 40 + 6] ^= 0x01  # outer UDP checksum over IPv6
    bad_inner = bytearray(good[0])
    bad_inner[14 + 20 + 8 + 28 + 10] ^= 0xFF  # inner IPv4 header checksum
    broken = {
        "outer IPv4 checksum": bytes(bad_csum),
        "IPv4 length beyond frame": bytes(bad_len),
        "truncated GENEVE": bytes(bad_geneve),
        "IPv6 UDP checksum": bytes(bad_udp6),
        "inner IPv4 checksum": bytes(bad_inner),
    }
    failures = []
    with tempfile.TemporaryDirectory() as d:
        gp = os.path.join(d, "good.pcap")
        wrpcap(gp, [Ether(x) for x in good])
        res = check_file(gp)
        if res:
            failures.append("good packets flagged:\n" + format_problems({gp: res}))
        for name, frame in broken.items():
            bp = os.path.join(d, "bad.pcap")
            wrpcap(bp, [Ether(frame)])
            res = check_file(bp)
            print("self-test: %-28s -> %s" % (name, "; ".join(t for _, _, t in res) or "NOT CAUGHT"))
            if not res:
                failures.append("not caught: " + name)
        # The batched form the fixture driver uses: each problem maps back
        # to the frame it belongs to, and only the broken frames are named.
        items = [("good %d" % i, f) for i, f in enumerate(good)]
        for i, (name, frame) in enumerate(broken.items()):
            items.insert(2 * i + 1, (name, frame))
        flagged = set(check_frames(items))
        if flagged != set(broken):
            failures.append("check_frames flagged %s, expected %s" %
                            (sorted(flagged), sorted(broken)))
        else:
            print("self-test: check_frames over %d mixed frames names exactly the %d broken ones" %
                  (len(items), len(broken)))
    if failures:
        print("\n".join(failures))
        return 1
    print("self-test: ok (%d good frames clean, %d broken frames caught)" % (len(good), len(broken)))
    return 0


def main(argv):
    if not os.path.exists(TSHARK):
        print("tshark not found (Debian package tshark)")
        return 1
    if argv[1:2] == ["--self-test"]:
        return self_test()
    if len(argv) < 2:
        print(__doc__)
        return 2
    res = check(argv[1:])
    if res:
        print(format_problems(res))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
