#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
longspan-hostem on the wire, checked by tools that are not hostem.

    test_hostem_wire.py wire --hostem BIN --workdir DIR
    test_hostem_wire.py config --hostem BIN --workdir DIR

wire: hostem runs on a net_pcap port (no hugepages needed) whose rx file
holds data, CNPs, ACKs and junk built here with scapy, and whose tx file
collects what hostem sends. Every frame hostem sent must dissect cleanly in
tshark (no malformed frame, no expert warning), carry an ICRC that scapy's
RoCE layer (IPv4) and scripts/lspkt.py (IPv4 and IPv6) agree with, and
follow RC rules: PSNs in sequence, WRITE FIRST/MIDDLE/LAST/ONLY with RETH
on FIRST/ONLY, AckReq on the last packet of a message, ECT(0). The ACKs,
NAKs and CNPs hostem's receivers answer the rx file with are checked one by
one, and the JSON summary's counters must match the rx file.

intra: the near-source scenario inside one hostem: an intra-DC pair and an
inter-DC sender share the ToR uplink (RED with low thresholds); the intra
pair is looped back inside hostem, the inter-DC packets leave through a
net_null port (no peer, so no feedback). The intra receiver must see CE and
send CNPs that reach its sender (when is printed, not asserted), which cuts its rate;
the inter-DC sender, whose feedback would take a WAN RTT, keeps its rate.

pfc: PFC frames from the gateway pause the senders of their priority for
the quanta given.

dcrate: the site's DC side limited to dc_rate: hostem pauses the gateway
with PFC frames that tshark dissects, and that pause the gateway's DC port
(dp_fixture) for as long.

config: bad files are rejected with FILE:LINE: [section] key messages,
--dump-config output loads back to itself, and the example configs in
tests/lab/examples/ load.
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "tests", "dataplane"))

from scapy.all import IP, UDP, Ether, IPv6, Raw, raw, rdpcap, wrpcap  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

from lspkt import roce_icrc  # noqa: E402
import tshark_check  # noqa: E402

MAC = "02:00:00:00:0a:fe"
GW_MAC = "02:00:00:00:0a:01"
PEER_MAC = GW_MAC  # frames from the gateway come from its DC port MAC
OP_FIRST, OP_MIDDLE, OP_LAST, OP_ONLY, OP_ACK, OP_CNP = 0x06, 0x07, 0x08, 0x0A, 0x11, 0x81
ECT0, CE = 2, 3
CNP_TAG = 0x4C53
STAMP_MAGIC = 0x4C534845

CONFIG = """
[host]
name = wire
mac = {mac}
gateway_mac = {gw}
local = 10.1.0.0/16
local = fd00:1::/48
line_rate = 5M
duration = 300ms
stats_interval = 0
csv_interval = 50ms
dscp = 26
cnp_dscp = 48
json = {dir}/hostem.json
csv = {dir}/hostem.csv
cnp_log = {dir}/cnp.csv

[qp w4]
role = send
local = 10.1.0.1
remote = 10.2.0.1
local_qpn = 0x100
remote_qpn = 0x200
sport = 50001
message = 10002
psn = 0xfffffe

[qp o4]
role = send
local = 10.1.0.3
remote = 10.2.0.3
local_qpn = 0x102
remote_qpn = 0x202
sport = 50003
message = 1000
mtu = 1024

[qp w6]
role = send
local = fd00:1::1
remote = fd00:2::1
local_qpn = 0x101
remote_qpn = 0x201
sport = 50002
message = 600
mtu = 256

[qp r4]
role = recv
local = 10.1.0.2
remote = 10.2.0.2
local_qpn = 0x300
remote_qpn = 0x400
sport = 50004
ack_every = 4
cnp_interval = 1s

[qp r6]
role = recv
local = fd00:1::2
remote = fd00:2::2
local_qpn = 0x301
remote_qpn = 0x401
sport = 50005
cnp_interval = 0
"""

SENDERS = {
    "w4": {"local": "10.1.0.1", "remote": "10.2.0.1", "lqpn": 0x100, "rqpn": 0x200,
           "sport": 50001, "message": 10002, "mtu": 4096, "psn": 0xFFFFFE},
    "o4": {"local": "10.1.0.3", "remote": "10.2.0.3", "lqpn": 0x102, "rqpn": 0x202,
           "sport": 50003, "message": 1000, "mtu": 1024, "psn": 0},
    "w6": {"local": "fd00:1::1", "remote": "fd00:2::1", "lqpn": 0x101, "rqpn": 0x201,
           "sport": 50002, "message": 600, "mtu": 256, "psn": 0},
}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


# ------------------------------------------------------------------ building

def bth(opcode, dqpn, psn, pad=0, ackreq=False, becn=False):
    return struct.pack("!BBHB3sB3s", opcode, pad << 4, 0xFFFF, 0x40 if becn else 0,
                       dqpn.to_bytes(3, "big"), 0x80 if ackreq else 0, psn.to_bytes(3, "big"))


def reth(va, rkey, length):
    return struct.pack("!QII", va, rkey, length)


def aeth(syndrome, msn):
    return bytes([syndrome]) + msn.to_bytes(3, "big")


def roce(src, dst, sport, l4_payload, ecn=ECT0, dscp=26, ident=0, bad_icrc=False,
         dst_mac=MAC):
    """An Ethernet frame with a RoCEv2 packet; l4_payload = BTH onwards, no ICRC."""
    body = l4_payload + b"\0\0\0\0"
    if ":" in src:
        ip = IPv6(src=src, dst=dst, tc=dscp << 2 | ecn, fl=ident, hlim=64) / \
            UDP(sport=sport, dport=4791, chksum=0) / Raw(body)
    else:
        ip = IP(src=src, dst=dst, tos=dscp << 2 | ecn, id=ident, flags="DF", ttl=64) / \
            UDP(sport=sport, dport=4791, chksum=0) / Raw(body)
    b = raw(ip)
    icrc = roce_icrc(b[:-4])
    if bad_icrc:
        icrc = bytes(x ^ 0x5A for x in icrc)
    b = b[:-4] + icrc
    if ":" in src:  # RFC 8200: a real UDP checksum over IPv6
        p = IPv6(b)
        p[UDP].chksum = None
        b = raw(p)
    return raw(Ether(src=PEER_MAC, dst=dst_mac, type=0x86DD if ":" in src else 0x0800) /
               Raw(b))


def data(src, dst, dqpn, psn, opcode, payload_len, ecn=ECT0, ackreq=False, **kw):
    pad = (4 - payload_len % 4) % 4
    ext = reth(0x1000, 7, payload_len) if opcode in (OP_FIRST, OP_ONLY) else b""
    return roce(src, dst, 60000, bth(opcode, dqpn, psn, pad, ackreq) + ext +
                bytes(payload_len + pad), ecn=ecn, **kw)


def rx_frames():
    """What the rx pcap holds, and the responses expected from it."""
    frames = []
    r4 = ("10.2.0.2", "10.1.0.2", 0x300)
    # r4: one 8-packet WRITE, CE on PSN 2 and 3 (cnp_interval 1 s: one CNP).
    for psn in range(8):
        op = OP_FIRST if psn == 0 else OP_LAST if psn == 7 else OP_MIDDLE
        frames.append(data(*r4, psn, op, 512, ecn=CE if psn in (2, 3) else ECT0,
                           ackreq=psn == 7))
    # PSN 8 lost: 9 (a WRITE ONLY) gets a NAK for 8, then is accepted and ACKed.
    frames.append(data(*r4, 9, OP_ONLY, 100, ackreq=True))
    frames.append(data(*r4, 5, OP_MIDDLE, 512))  # duplicate
    frames.append(data(*r4, 10, OP_ONLY, 64, ackreq=True, bad_icrc=True))
    # r6: three WRITE ONLY, all CE, cnp_interval 0: three CNPs, three ACKs.
    for psn in range(3):
        frames.append(data("fd00:2::2", "fd00:1::2", 0x301, psn, OP_ONLY, 333, ecn=CE,
                           ackreq=True))
    # CNPs for the senders: one from a hostem NP (tagged), one from elsewhere.
    cnp = bth(OP_CNP, 0x100, 0, becn=True) + bytes(16)
    frames.append(roce("10.2.0.1", "10.1.0.1", 60001, cnp, ecn=0, dscp=48, ident=CNP_TAG))
    frames.append(roce("10.2.0.1", "10.1.0.1", 60001, cnp, ecn=0, dscp=48, ident=0))
    frames.append(roce("fd00:2::1", "fd00:1::1", 60001, bth(OP_CNP, 0x101, 0, becn=True) +
                       bytes(16), ecn=0, dscp=48, ident=CNP_TAG))
    # Junk: an ACK for no QP, plain UDP, a frame for another MAC.
    frames.append(roce("10.2.0.9", "10.1.0.9", 60002, bth(OP_ACK, 0x999, 0) + aeth(0x1F, 0)))
    frames.append(raw(Ether(src=PEER_MAC, dst=MAC) / IP(src="10.2.0.1", dst="10.1.0.1") /
                      UDP(sport=1, dport=9) / Raw(b"x" * 20)))
    frames.append(data(*r4, 11, OP_ONLY, 64, dst_mac="02:00:00:00:0a:77"))
    return frames


# ------------------------------------------------------------------ checking

def parse(frame):
    """Fields of a RoCEv2 frame hostem sent, from the bytes (not from scapy)."""
    et = struct.unpack("!H", frame[12:14])[0]
    ip = frame[14:]
    f = {"dst_mac": frame[0:6], "src_mac": frame[6:12]}
    if et == 0x0800:
        ihl = (ip[0] & 0xF) * 4
        f.update(v=4, tos=ip[1], ttl=ip[8], ident=struct.unpack("!H", ip[4:6])[0],
                 df=bool(ip[6] & 0x40), src=".".join(map(str, ip[12:16])),
                 dst=".".join(map(str, ip[16:20])))
        l4 = ihl
        f["iplen"] = struct.unpack("!H", ip[2:4])[0]
    elif et == 0x86DD:
        vtc = struct.unpack("!I", ip[0:4])[0]
        f.update(v=6, tos=(vtc >> 20) & 0xFF, flow=vtc & 0xFFFFF, ttl=ip[7],
                 src=str(IPv6(ip).src), dst=str(IPv6(ip).dst))
        l4 = 40
        f["iplen"] = 40 + struct.unpack("!H", ip[4:6])[0]
    else:
        return None
    udp = ip[l4:]
    f["sport"], f["dport"], f["ulen"], f["ucsum"] = struct.unpack("!HHHH", udp[:8])
    b = udp[8:]
    f.update(op=b[0], pad=(b[1] >> 4) & 3, pkey=struct.unpack("!H", b[2:4])[0], becn=b[4] >> 6,
             dqpn=int.from_bytes(b[5:8], "big"), ackreq=b[8] >> 7,
             psn=int.from_bytes(b[9:12], "big"))
    rest = b[12:f["ulen"] - 8 - 4]
    f["rest"] = rest
    f["ip_bytes"] = ip[:f["iplen"]]
    f["ecn"], f["dscp"] = f["tos"] & 3, f["tos"] >> 2
    return f


def icrc_problems(fr):
    """What is wrong with one frame's ICRC: lspkt for all, scapy's RoCE layer for IPv4."""
    f = parse(fr)
    out = []
    want = roce_icrc(f["ip_bytes"][:-4])
    if f["ip_bytes"][-4:] != want:
        out.append("lspkt: ICRC %s, want %s" % (f["ip_bytes"][-4:].hex(), want.hex()))
    if f["v"] == 4:
        p = Ether(fr)
        if BTH not in p:
            return out + ["scapy does not see a BTH"]
        got = p[BTH].icrc
        p[BTH].icrc = None
        rebuilt = Ether(raw(p))
        if rebuilt[BTH].icrc != got:
            out.append("scapy: ICRC %#x, frame has %#x" % (rebuilt[BTH].icrc, got))
    else:
        # IPv6: the UDP checksum must be valid (scapy recomputes it).
        p = IPv6(f["ip_bytes"])
        c = p[UDP].chksum
        p[UDP].chksum = None
        if IPv6(raw(p))[UDP].chksum != c:
            out.append("bad IPv6 UDP checksum")
    return out


def check_icrc(frames):
    """Every frame's ICRC; and the check must catch a corrupted frame of each family."""
    n4 = 0
    for i, fr in enumerate(frames):
        pr = icrc_problems(fr)
        check(not pr, "frame %d: %s" % (i, "; ".join(pr)))
        n4 += parse(fr)["v"] == 4
    for v in (4, 6):
        fr = bytearray(next(x for x in frames if parse(x)["v"] == v))
        fr[-8] ^= 0x01  # a payload bit, inside the ICRC's coverage
        pr = icrc_problems(bytes(fr))
        check(any(x.startswith("lspkt") for x in pr) and
              (v == 6 or any(x.startswith("scapy") for x in pr)),
              "a corrupted IPv%d frame passed the ICRC checks: %s" % (v, pr))
    return n4


def check_sender(name, frames):
    """Data of one sender QP: PSNs, opcodes, RETH, AckReq, lengths, ECN, stamp."""
    s = SENDERS[name]
    mine = [f for f in frames if f["op"] in (OP_FIRST, OP_MIDDLE, OP_LAST, OP_ONLY) and
            f["src"] == s["local"] and f["dqpn"] == s["rqpn"]]
    check(len(mine) >= 3, "%s: only %d data packets" % (name, len(mine)))
    k = (s["message"] + s["mtu"] - 1) // s["mtu"]
    for i, f in enumerate(mine):
        j = i % k
        want_op = OP_ONLY if k == 1 else OP_FIRST if j == 0 else OP_LAST if j == k - 1 \
            else OP_MIDDLE
        length = s["mtu"] if j < k - 1 else s["message"] - (k - 1) * s["mtu"]
        pad = (4 - length % 4) % 4
        where = "%s packet %d (psn %#x)" % (name, i, f["psn"])
        check(f["psn"] == (s["psn"] + i) & 0xFFFFFF, where + ": PSN out of sequence")
        check(f["op"] == want_op, where + ": opcode %#x, want %#x" % (f["op"], want_op))
        check(f["ackreq"] == (1 if j == k - 1 else 0), where + ": AckReq")
        check(f["pad"] == pad, where + ": PadCnt %d, want %d" % (f["pad"], pad))
        check(f["pkey"] == 0xFFFF and f["becn"] == 0, where + ": P_Key or BECN")
        check(f["ecn"] == ECT0 and f["dscp"] == 26, where + ": not ECT(0) DSCP 26")
        check(f["sport"] == s["sport"] and f["dport"] == 4791, where + ": UDP ports")
        check(f["dst"] == s["remote"], where + ": destination")
        check(f["dst_mac"] == bytes.fromhex(GW_MAC.replace(":", "")) and
              f["src_mac"] == bytes.fromhex(MAC.replace(":", "")), where + ": MACs")
        check(f["ttl"] == 64, where + ": TTL/hop limit")
        payload = f["rest"]
        if want_op in (OP_FIRST, OP_ONLY):
            va, rkey, dma = struct.unpack("!QII", payload[:16])
            check(dma == s["message"], where + ": RETH DMA length %d" % dma)
            check(rkey == s["lqpn"], where + ": R_Key")
            payload = payload[16:]
        check(len(payload) == length + pad, where + ": payload %d, want %d" %
              (len(payload), length + pad))
        if length >= 16:
            magic, qpn = struct.unpack("!II", payload[:8])
            check(magic == STAMP_MAGIC and qpn == s["lqpn"], where + ": stamp")
        if f["v"] == 4:
            check(f["ucsum"] == 0 and f["df"], where + ": IPv4 UDP checksum 0 and DF")
    return len(mine)


def check_responses(frames):
    """ACKs, NAKs and CNPs the receivers sent for the rx file."""
    def of(src, dqpn):
        return [f for f in frames if f["src"] == src and f["dqpn"] == dqpn and
                f["op"] in (OP_ACK, OP_CNP)]

    r4 = of("10.1.0.2", 0x400)
    acks = [(f["psn"], f["rest"][0], int.from_bytes(f["rest"][1:4], "big"))
            for f in r4 if f["op"] == OP_ACK]
    # ACK after 4 packets (PSN 3), after the AckReq on PSN 7 (MSN 1), the NAK
    # for the lost PSN 8 (PSN sequence error), then the ACK of WRITE ONLY 9.
    want = [(3, 0x1F, 0), (7, 0x1F, 1), (8, 0x60, 1), (9, 0x1F, 2)]
    check(acks == want, "r4 ACK/NAKs %s, want %s" % (acks, want))
    cnps = [f for f in r4 if f["op"] == OP_CNP]
    check(len(cnps) == 1, "r4: %d CNPs, want 1 (1 s interval)" % len(cnps))
    r6 = of("fd00:1::2", 0x401)
    check([f["psn"] for f in r6 if f["op"] == OP_ACK] == [0, 1, 2], "r6 ACKs")
    check(sum(f["op"] == OP_CNP for f in r6) == 3, "r6: want 3 CNPs (interval 0)")
    for f in r4 + r6:
        where = "response %s op %#x psn %d" % (f["src"], f["op"], f["psn"])
        check(f["dst"] in ("10.2.0.2", "fd00:2::2"), where + ": destination")
        check(f["ecn"] == 0, where + ": not Not-ECT")
        if f["op"] == OP_CNP:
            check(f["dscp"] == 48 and f["becn"] == 1 and f["pkey"] == 0xFFFF and
                  f["psn"] == 0 and f["rest"] == bytes(16), where + ": CNP fields")
            tag = f["ident"] if f["v"] == 4 else f["flow"]
            check(tag == CNP_TAG, where + ": CNP tag")
        else:
            check(f["dscp"] == 26 and len(f["rest"]) == 4, where + ": ACK fields")
    return len(r4) + len(r6)


def hostem_run(args, tag, vdev, conf):
    """hostem on one in-process port (no hugepages) with CONF; its output printed."""
    cmd = [args.hostem, "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
           "--file-prefix", "lab-%s-%d" % (tag, os.getpid()), "-l", "0",
           "--log-level=*:warning", "--vdev=" + vdev, "--", "--config", conf]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=60)
    print(r.stdout)
    return r


def run_wire(args):
    d = args.workdir
    os.makedirs(d, exist_ok=True)
    for f in ("rx.pcap", "tx.pcap", "hostem.json", "hostem.csv", "cnp.csv"):
        if os.path.exists(os.path.join(d, f)):
            os.unlink(os.path.join(d, f))
    conf = os.path.join(d, "wire.ini")
    with open(conf, "w") as f:
        f.write(CONFIG.format(mac=MAC, gw=GW_MAC, dir=d))
    wrpcap(os.path.join(d, "rx.pcap"), [Ether(x) for x in rx_frames()])
    r = hostem_run(args, "wire", "net_pcap0,rx_pcap=%s/rx.pcap,tx_pcap=%s/tx.pcap" % (d, d),
                   conf)
    check(r.returncode == 0, "hostem exited with %d" % r.returncode)
    check("mbufs in use at exit: 0" in r.stdout, "mbufs leaked")

    out = [raw(p) for p in rdpcap(os.path.join(d, "tx.pcap"))]
    check(len(out) > 20, "only %d frames sent" % len(out))
    problems = tshark_check.check_file(os.path.join(d, "tx.pcap"))
    check(not problems, "tshark: " + "; ".join("frame %d [%s]: %s" % p for p in problems[:5]))
    # ...and tshark really dissected them as RoCEv2 (else the check above is empty).
    protos = subprocess.run([tshark_check.TSHARK, "-n", "-r", os.path.join(d, "tx.pcap"), "-T",
                             "fields", "-e", "frame.protocols"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, timeout=120).stdout.split()
    check(len(protos) == len(out) and all(":udp:infiniband" in x for x in protos),
          "tshark did not dissect every frame as InfiniBand over UDP")
    n4 = check_icrc(out)
    frames = [parse(x) for x in out]
    counts = {n: check_sender(n, frames) for n in SENDERS}
    nresp = check_responses(frames)
    check(len(frames) == sum(counts.values()) + nresp, "frames that are neither data nor "
          "responses: %d" % (len(frames) - sum(counts.values()) - nresp))

    j = json.load(open(os.path.join(d, "hostem.json")))
    port = j["port"]
    for key, want in (("bad_icrc", 1), ("no_sender", 1), ("not_roce", 1), ("not_for_us", 1),
                      ("malformed", 0), ("rx_pkts", len(rx_frames()))):
        check(port[key] == want, "json port.%s = %d, want %d" % (key, port[key], want))
    recv = {x["qp"]: x for x in j["receivers"]}
    r4 = recv["r4"]
    for key, want in (("pkts", 10), ("ce", 2), ("cnps_sent", 1), ("cnps_suppressed", 1),
                      ("gaps", 1), ("missing", 1), ("dups", 1), ("naks_sent", 1),
                      ("acks_sent", 3), ("msgs", 2), ("payload_bytes", 8 * 512 + 100)):
        check(r4[key] == want, "json r4.%s = %d, want %d" % (key, r4[key], want))
    check(recv["r6"]["cnps_sent"] == 3 and recv["r6"]["ce"] == 3, "json r6 CNPs")
    send = {x["qp"]: x for x in j["senders"]}
    w4 = send["w4"]
    check(w4["cnps"] == 2 and w4["cnps_tagged"] == 1 and w4["cnps_other"] == 1,
          "json w4 CNPs: %s" % {k: w4[k] for k in ("cnps", "cnps_tagged", "cnps_other")})
    check(w4["rp"]["cuts"] >= 1 and w4["rate_min_bps"] < 5_000_000, "w4 did not cut its rate")
    check(w4["first_cut_ns"] is not None and w4["cnp_to_cut_ns"] < 1_000_000,
          "w4 first cut missing or late")
    check(len(w4["cnp_rx_ns"]) == 2, "w4 CNP times")
    check(send["w6"]["cnps"] == 1 and send["o4"]["cnps"] == 0, "w6/o4 CNPs")
    for name, n in counts.items():
        check(send[name]["sent_pkts"] == n, "%s: json says %d packets, pcap has %d" %
              (name, send[name]["sent_pkts"], n))
    csv_rows = open(os.path.join(d, "hostem.csv")).read().splitlines()
    check(csv_rows[0].startswith("time_s,qp,role,rate_bps") and len(csv_rows) >= 1 + 5 * 5,
          "CSV has %d rows" % len(csv_rows))
    log = open(os.path.join(d, "cnp.csv")).read().splitlines()
    check(len(log) == 1 + 3 + 4, "CNP log: %d lines, want header + 3 rx + 4 tx" % len(log))
    print("wire: %d frames (%d IPv4 checked by scapy), senders %s, %d responses: all good"
          % (len(out), n4, counts, nresp))


# ------------------------------------------------------------------ config

GOOD = CONFIG.format(mac=MAC, gw=GW_MAC, dir="/tmp")

BAD = [
    # (description, file text, expected message fragments)
    ("unknown key", "[host]\nmac = %s\ngateway_mac = %s\nbogus = 1\n" % (MAC, GW_MAC),
     [":4: [host] bogus: unknown key"]),
    ("bad MAC", "[host]\nmac = 02:00\n", [":2: [host] mac: '02:00' is not a MAC address"]),
    ("rate range", GOOD.replace("line_rate = 5M", "line_rate = 1K"),
     ["[host] line_rate: 1K out of range (1M .. 400G)"]),
    ("mtu", GOOD.replace("mtu = 256", "mtu = 1000"),
     ["[qp w6] mtu: 1000 is not a power of two"]),
    ("required", GOOD.replace("role = recv\nlocal = fd00:1::2", "local = fd00:1::2"),
     ["[qp r6] role: required"]),
    ("family", GOOD.replace("remote = fd00:2::1", "remote = 10.2.0.1"),
     ["[qp w6] remote: not the family of local"]),
    ("duplicate", GOOD + "\n[qp w4]\nrole = send\n", ["[qp w4]: QP 'w4' already defined"]),
    ("twice", GOOD.replace("sport = 50001", "sport = 50001\nsport = 50002"),
     ["[qp w4] sport: given twice"]),
    ("intra without receiver", GOOD.replace("remote = 10.2.0.3", "remote = 10.1.0.9"),
     ["[qp o4] remote: intra-DC QP without its receiver"]),
    ("not local", GOOD.replace("local = 10.1.0.3", "local = 10.7.0.3"),
     ["[qp o4] local: not in this site's prefixes"]),
    ("tor thresholds", GOOD.replace("[qp w4]", "tor_rate = 1G\ntor_kmin = 500kB\n[qp w4]"),
     ["[host] tor_kmin: must be below tor_kmax"]),
    ("dc thresholds", GOOD.replace("[qp w4]", "dc_rate = 1G\ndc_xoff = 64kB\ndc_xon = 64kB\n"
                                   "[qp w4]"), ["[host] dc_xon: must be below dc_xoff"]),
    ("dc xoff", GOOD.replace("[qp w4]", "dc_rate = 1G\ndc_buffer = 32kB\n[qp w4]"),
     ["[host] dc_xoff: must be at most dc_buffer"]),
    ("dc marking without dc_rate", GOOD.replace("[qp w4]", "dc_kmax = 32kB\n[qp w4]"),
     ["[host] dc_kmax: needs dc_rate"]),
    ("dc red thresholds", GOOD.replace("[qp w4]", "dc_rate = 1G\ndc_kmin = 32kB\n"
                                       "dc_kmax = 32kB\n[qp w4]"),
     ["[host] dc_kmin: must be below dc_kmax"]),
    ("section", GOOD + "\n[gateway]\nx = 1\n", ["[gateway]: unknown section"]),
    ("bare time", GOOD.replace("[qp w4]", "wait_link = 10\n[qp w4]"),
     ["[host] wait_link: bad value '10': needs a unit (ns, us, ms or s)"]),
    ("pacing grid", GOOD.replace("[qp w4]", "pacing_grid = 100us\n[qp w4]"),
     ["[host] pacing_grid: must be below pacing_burst / 2"]),
    ("typo", GOOD.replace("[qp w4]", "ack_evry = 4\n[qp w4]"),
     ["[host] ack_evry: unknown key (did you mean ack_every?)"]),
    ("header", GOOD + "\n[qp x\nrole = send\n", ["section header without a closing ']'"]),
    ("empty qp", GOOD + "\n[qp e]\n", ["[qp e] role: required"]),
]


def run_config(args):
    d = args.workdir
    os.makedirs(d, exist_ok=True)
    bad = 0
    for desc, text, wants in BAD:
        p = os.path.join(d, "bad.ini")
        with open(p, "w") as f:
            f.write(text)
        r = subprocess.run([args.hostem, "--check-config", p], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=30)
        for w in wants:
            if r.returncode == 0 or w not in r.stderr:
                print("FAIL: %s: rc %d, stderr %r lacks %r" % (desc, r.returncode, r.stderr, w))
                bad += 1
        print("config %-24s -> %s" % (desc, r.stderr.strip().splitlines()[0]
                                      if r.stderr.strip() else "(accepted)"))
    # The shared bounded reader (control/conf_file.c): a FIFO is refused
    # without being opened for a blocking read, as longspand refuses it.
    fifo = os.path.join(d, "fifo.ini")
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    r = subprocess.run([args.hostem, "--check-config", fifo], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=30)
    if r.returncode == 0 or "not a regular file (a FIFO)" not in r.stderr:
        print("FAIL: FIFO config: rc %d, stderr %r" % (r.returncode, r.stderr))
        bad += 1
    os.unlink(fifo)
    p = os.path.join(d, "good.ini")
    with open(p, "w") as f:
        f.write(GOOD)
    d1 = subprocess.run([args.hostem, "--dump-config", p], stdout=subprocess.PIPE, text=True,
                        check=True).stdout
    with open(p, "w") as f:
        f.write(d1)
    d2 = subprocess.run([args.hostem, "--dump-config", p], stdout=subprocess.PIPE, text=True,
                        check=True).stdout
    if d1 != d2 or "cnp_interval = 4us" not in d1 or "sport = 50001" not in d1:
        print("FAIL: --dump-config does not round-trip")
        bad += 1
    for ex in ("site-a.ini", "site-b.ini"):
        r = subprocess.run([args.hostem, "--check-config", os.path.join(HERE, "examples", ex)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print("config example %s: %s" % (ex, r.stdout.strip()))
        if r.returncode != 0:
            bad += 1
    check(bad == 0, "%d config checks failed" % bad)
    print("config: %d bad files rejected with their messages, dump round-trips" % len(BAD))


INTRA = """
[host]
name = intra
mac = {mac}
gateway_mac = {gw}
local = 10.1.0.0/16
line_rate = 200M
duration = 400ms
stats_interval = 0
tor_rate = 100M
tor_kmin = 5kB
tor_kmax = 20kB
tor_pmax = 0.2
dc_delay = 5us
json = {dir}/hostem.json

[qp i0]
role = send
local = 10.1.0.1
remote = 10.1.0.2
local_qpn = 0x100
remote_qpn = 0x200
message = 64KiB

[qp i0r]
role = recv
local = 10.1.0.2
remote = 10.1.0.1
local_qpn = 0x200
remote_qpn = 0x100

[qp x0]
role = send
local = 10.1.0.3
remote = 10.2.0.3
local_qpn = 0x101
remote_qpn = 0x201
message = 64KiB
"""


def run_intra(args):
    d = args.workdir
    os.makedirs(d, exist_ok=True)
    conf = os.path.join(d, "intra.ini")
    with open(conf, "w") as f:
        f.write(INTRA.format(mac=MAC, gw=GW_MAC, dir=d))
    r = hostem_run(args, "intra", "net_null0,no-rx=1", conf)
    check(r.returncode == 0 and "mbufs in use at exit: 0" in r.stdout, "hostem failed")
    j = json.load(open(os.path.join(d, "hostem.json")))
    send = {x["qp"]: x for x in j["senders"]}
    i0, x0, i0r = send["i0"], send["x0"], j["receivers"][0]
    check(j["tor"]["marks"] > 0, "the ToR marked nothing")
    check(i0["intra"] and not x0["intra"] and i0r["intra"], "intra flags")
    check(i0r["pkts"] > 100 and i0r["ce"] > 0 and i0r["cnps_sent"] > 0,
          "intra receiver: %d pkts, %d CE, %d CNPs" % (i0r["pkts"], i0r["ce"], i0r["cnps_sent"]))
    check(i0r["latency_ns"]["min"] >= 5000, "intra latency below dc_delay")
    check(i0r["gaps"] == 0 and i0r["dups"] == 0, "intra loss")
    # Internal delivery loses nothing; only the last CNPs may still be on the DC line.
    check(0 <= i0r["cnps_sent"] - i0["cnps"] <= 4 and i0["cnps_tagged"] == i0["cnps"],
          "intra CNPs: sent %d, received %d" % (i0r["cnps_sent"], i0["cnps"]))
    check(i0["acked_pkts"] > 0 and i0["sent_pkts"] - i0["acked_pkts"] <= 64,
          "intra ACKs: %d of %d" % (i0["acked_pkts"], i0["sent_pkts"]))
    check(i0["rp"]["cuts"] > 0 and i0["rate_min_bps"] < 200_000_000, "intra sender not cut")
    # A CNP arrives at all; when (the DC RTT plus the ToR queue, plus whatever
    # the machine adds) is printed below, not asserted.
    check(i0["first_cnp_ns"] is not None and i0["cnps"] > 0, "no intra CNP")
    check(x0["cnps"] == 0 and x0["sent_pkts"] > 0 and x0["rp"]["cuts"] == 0,
          "inter-DC sender got feedback without a peer")
    check(j["port"]["tx_pkts"] + 1024 >= x0["sent_pkts"] and j["port"]["tx_pkts"] <= x0["sent_pkts"],
          "inter-DC packets did not leave the port")
    check(i0["rate_avg_bps"] < x0["rate_avg_bps"], "the intra flow did not take the cut")
    print("intra: ToR marks %d; intra QP: %d CNPs, first at %.3f ms, rate avg %.1f Mb/s, "
          "goodput %.1f Mb/s; inter-DC QP: rate avg %.1f Mb/s, tx %.1f Mb/s" %
          (j["tor"]["marks"], i0["cnps"], i0["first_cnp_ns"] / 1e6, i0["rate_avg_bps"] / 1e6,
           i0["goodput_bps"] / 1e6, x0["rate_avg_bps"] / 1e6, x0["tx_bps"] / 1e6))


PFC_CONFIG = """
[host]
name = pfc
mac = {mac}
gateway_mac = {gw}
local = 10.1.0.0/16
line_rate = 5M
duration = 400ms
stats_interval = 0
csv_interval = 0
json = {dir}/hostem.json

[qp d3]
role = send
local = 10.1.0.1
remote = 10.2.0.1
local_qpn = 0x100
remote_qpn = 0x200
sport = 50001
message = 1000
mtu = 1024

[qp d1]
role = send
local = 10.1.0.3
remote = 10.2.0.3
local_qpn = 0x102
remote_qpn = 0x202
sport = 50003
message = 1000
mtu = 1024
dscp = 8
"""
PFC_QUANTA = 1000  # x 512 bit times at the 5 Mb/s line rate: 102.4 ms


def pfc_frame(opcode, enable, quanta):
    """An 802.1Qbb frame from the gateway's DC port (opcode 0x0101 = PFC)."""
    body = struct.pack("!HH8H", opcode, enable, *quanta)
    return raw(Ether(dst="01:80:c2:00:00:01", src=GW_MAC, type=0x8808) / Raw(body.ljust(46, b"\0")))


def run_pfc(args):
    """
    PFC from the gateway pauses the senders of that priority, for the
    quanta given at the port's rate: d3 (DSCP 26, priority 3) waits 102.4
    ms, d1 (DSCP 8, priority 1) does not; another MAC control opcode is
    counted, not obeyed.
    """
    d = args.workdir
    os.makedirs(d, exist_ok=True)
    for f in ("rx.pcap", "tx.pcap", "hostem.json"):
        if os.path.exists(os.path.join(d, f)):
            os.unlink(os.path.join(d, f))
    conf = os.path.join(d, "pfc.ini")
    with open(conf, "w") as f:
        f.write(PFC_CONFIG.format(mac=MAC, gw=GW_MAC, dir=d))
    q = [0] * 8
    q[3] = PFC_QUANTA
    wrpcap(os.path.join(d, "rx.pcap"),
           [Ether(pfc_frame(0x0101, 1 << 3, q)), Ether(pfc_frame(0x0002, 0xFF, [5] * 8))])
    r = hostem_run(args, "pfc", "net_pcap0,rx_pcap=%s/rx.pcap,tx_pcap=%s/tx.pcap" % (d, d),
                   conf)
    check(r.returncode == 0 and "mbufs in use at exit: 0" in r.stdout, "hostem failed")
    j = json.load(open(os.path.join(d, "hostem.json")))
    pfc = j["pfc"]
    check(pfc["frames"] == 1 and pfc["bad"] == 1, "pfc frames %d, bad %d" %
          (pfc["frames"], pfc["bad"]))
    p3 = pfc["priorities"][3]
    check(p3["pauses"] == 1 and all(p["pauses"] == 0 for i, p in enumerate(pfc["priorities"])
                                    if i != 3), "pauses by priority: %s" % pfc["priorities"])
    # Exactly the quanta at the port's rate (rounded up to a tick), then expired.
    want = PFC_QUANTA * 512 * 1e9 / 5e6
    check(abs(p3["paused_ns"] - want) < 0.001 * want, "priority 3 paused %d ns, want %.0f" %
          (p3["paused_ns"], want))
    send = {x["qp"]: x for x in j["senders"]}
    check(send["d3"]["blocked_pfc"] > 0 and send["d1"]["blocked_pfc"] == 0,
          "blocked_pfc: d3 %d, d1 %d" % (send["d3"]["blocked_pfc"], send["d1"]["blocked_pfc"]))
    # On the wire: d1 goes at once, d3 only once its pause ended.
    first = {}
    for p in rdpcap(os.path.join(d, "tx.pcap")):
        if p.haslayer(IP) and p[IP].dst in ("10.2.0.1", "10.2.0.3"):
            first.setdefault(p[IP].dst, float(p.time))
    check(len(first) == 2, "both senders sent: %s" % first)
    if len(first) == 2:
        gap = first["10.2.0.1"] - first["10.2.0.3"]
        print("pfc: d3's first packet %.1f ms after d1's (pause %.1f ms)" % (gap * 1e3, want / 1e6))
        check(gap >= 0.9 * want / 1e9, "d3 sent %.1f ms after d1, paused for %.1f ms" %
              (gap * 1e3, want / 1e6))


DCRATE_CONFIG = """
[host]
name = dcrate
mac = {mac}
gateway_mac = {gw}
local = 10.1.0.0/16
duration = 400ms
stats_interval = 0
csv_interval = 0
json = {dir}/hostem.json
dc_rate = {rate}
dc_xoff = 32kB
dc_xon = 16kB
dc_buffer = 1MB
{red}
[qp r4]
role = recv
local = 10.1.0.2
remote = 10.2.0.2
local_qpn = 0x300
remote_qpn = 0x400
sport = 50004
ack_every = 16
"""
DCRATE_BPS = 20_000_000
DCRATE_PKTS = 200  # 1 kB of payload each: 200 kB, 90 ms at 20 Mb/s

# The gateway's DC side for the frames hostem sent (dp_fixture, lossless = pfc).
GATEWAY_DC_GBPS = 10  # link_rate of its port dc below: a pause quantum is 512 bit times
GATEWAY_DC_BPS = GATEWAY_DC_GBPS * 1e9
GATEWAY_CONFIG = """
[gateway]
name = dcrate
socket = {dir}/gw.sock
workers = 1
probe_interval = 0
burst = 32
[eal]
no_pci = yes
in_memory = yes
[port dc]
role = dc
dev = net_ring_dc
mac = {gw}
ipv4 = 10.1.0.254/16
link_rate = {dc_gbps}G
neighbor = 10.1.0.2 {mac}
[port wan]
role = wan
dev = net_ring_wan
mac = 02:00:00:00:0a:02
ipv4 = 192.0.2.1/24
link_rate = 10G
neighbor = 192.0.2.2 02:00:00:00:0b:02
[peer site-b]
port = wan
remote = 192.0.2.2
vni = 100
rtt = 1ms
prefix = 10.2.0.0/16
lossless = pfc
"""


def tshark_pfc(path):
    """(time, enable vector, quanta of priority 3) of every MAC control frame, by tshark."""
    r = subprocess.run(["tshark", "-r", path, "-Y", "eth.type == 0x8808", "-T", "fields",
                        "-e", "frame.time_epoch", "-e", "macc.opcode", "-e", "macc.cbfc.enbv",
                        "-e", "macc.cbfc.pause_time.c3", "-e", "_ws.expert",
                        "-e", "_ws.malformed"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    check(r.returncode == 0, "tshark failed: %s" % r.stderr)
    out = []
    for line in r.stdout.splitlines():
        t, op, enbv, q3, expert, malformed = (line.split("\t") + [""] * 6)[:6]
        check(int(op, 0) == 0x0101, "MAC control opcode %s, not PFC" % op)
        check(not expert and not malformed, "tshark: expert %r malformed %r" % (expert, malformed))
        out.append((float(t), int(enbv, 0), int(q3, 0)))
    return out


def run_dcrate(args):
    """
    Near-destination congestion: data from the gateway arrives faster than
    the site's DC side (dc_rate) takes it. hostem queues it toward its
    receiver and pauses the gateway with PFC at dc_xoff (refreshing the
    pause), resumes it at dc_xon, and loses nothing. tshark dissects the
    frames as PFC for priority 3; fed to the gateway's DC port (dp_fixture,
    lossless = pfc) at the times they were sent, they pause its priority 3
    for as long as hostem held it paused.
    """
    d = args.workdir
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    conf = os.path.join(d, "dcrate.ini")
    with open(conf, "w") as f:
        f.write(DCRATE_CONFIG.format(mac=MAC, gw=GW_MAC, dir=d, rate=DCRATE_BPS, red=""))
    frames = [data("10.2.0.2", "10.1.0.2", 0x300, psn, OP_ONLY, 1024, ackreq=psn % 16 == 15)
              for psn in range(DCRATE_PKTS)]
    wrpcap(os.path.join(d, "rx.pcap"), [Ether(f) for f in frames])
    r = hostem_run(args, "dcrate", "net_pcap0,rx_pcap=%s/rx.pcap,tx_pcap=%s/tx.pcap" % (d, d),
                   conf)
    check(r.returncode == 0 and "mbufs in use at exit: 0" in r.stdout, "hostem failed")
    j = json.load(open(os.path.join(d, "hostem.json")))
    down = j["downlink"]
    p3 = down["priorities"][3]
    rcv = j["receivers"][0]
    check(down["pkts"] == DCRATE_PKTS and down["delivered_pkts"] == DCRATE_PKTS and
          down["drops"] == 0, "downlink: %s" % down)
    check(rcv["pkts"] == DCRATE_PKTS and rcv["gaps"] == 0, "receiver: %d pkts, %d gaps" %
          (rcv["pkts"], rcv["gaps"]))
    check(down["marks"] == 0 and rcv["ce"] == 0, "no dc_kmax, yet %d marks, %d CE received" %
          (down["marks"], rcv["ce"]))
    check(p3["pauses"] >= 2 and p3["resumes"] >= 1, "priority 3: %s" % p3)
    check(all(p["pauses"] == 0 for i, p in enumerate(down["priorities"]) if i != 3),
          "pauses of other priorities: %s" % down["priorities"])
    check(down["xoff_bytes"] <= p3["max_bytes"] <= down["buffer_bytes"],
          "queue peaked at %d B" % p3["max_bytes"])
    # Paused from XOFF to XON: at least what drains between them at dc_rate.
    check(p3["paused_ns"] >= (32_000 - 16_000) * 8e9 / DCRATE_BPS,
          "paused %d ns" % p3["paused_ns"])

    pfc = tshark_pfc(os.path.join(d, "tx.pcap"))
    check(len(pfc) == p3["pauses"] + p3["resumes"], "tshark saw %d PFC frames, hostem sent %d" %
          (len(pfc), p3["pauses"] + p3["resumes"]))
    check(all(e == 1 << 3 for _, e, _ in pfc), "enable vectors %s" % [e for _, e, _ in pfc])
    check(pfc and pfc[0][2] == 0xFFFF and pfc[-1][2] == 0,
          "first quanta %s, last %s" % (pfc[0][2] if pfc else None, pfc[-1][2] if pfc else None))

    # The same frames into the gateway's DC port, each at its time after the first.
    gw = os.path.join(d, "gateway")
    os.makedirs(gw)
    gconf = os.path.join(gw, "gw.conf")
    with open(gconf, "w") as f:
        f.write(GATEWAY_CONFIG.format(mac=MAC, gw=GW_MAC, dir=gw, dc_gbps=GATEWAY_DC_GBPS))
    macc = [p for p in rdpcap(os.path.join(d, "tx.pcap")) if p.haslayer(Ether) and
            p[Ether].type == 0x8808]
    t0, clock0 = float(macc[0].time), 10**9
    with open(os.path.join(gw, "manifest.txt"), "w") as mf:
        for i, p in enumerate(macc):
            sdir = os.path.join(gw, "step%d" % i)
            os.makedirs(sdir)
            wrpcap(os.path.join(sdir, "in.pcap"), [p])
            clock = clock0 + int(round((float(p.time) - t0) * 1e9))
            mf.write("dcrate dc %s/in.pcap %s %d%s\n" % (sdir, sdir, clock, " +" if i else ""))
    g = subprocess.run([args.dp_fixture, "--config", gconf, "--manifest",
                        os.path.join(gw, "manifest.txt"), "--clock-ns", str(clock0)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    check(g.returncode == 0, "dp_fixture failed: %s" % g.stdout[-2000:])
    res = {}
    last = os.path.join(gw, "step%d" % (len(macc) - 1), "result.txt")
    for line in open(last):
        t = line.split()
        if t and t[0] == "pfc":
            res.update({k: int(v) for k, v in zip(t[1::2], t[2::2])})
    check(res.get("rx_frames") == len(macc), "gateway obeyed %s of %d PFC frames" %
          (res.get("rx_frames"), len(macc)))
    check(res.get("rx_pauses3") == p3["pauses"], "gateway pauses of priority 3: %s, sent %d" %
          (res.get("rx_pauses3"), p3["pauses"]))
    # Paused from each pause to the next frame, by the frames' times, but
    # never longer than the pause's quanta at the gateway's DC link rate: a
    # refresh that hostem sent late (its loop woke late) finds the pause
    # already expired, and the gateway is right to have sent in between.
    want, late = 0.0, 0
    for (t, _, q3), (t_next, _, _) in zip(pfc, pfc[1:]):
        if q3:
            expiry = q3 * 512 / GATEWAY_DC_BPS
            want += min(t_next - t, expiry) * 1e9
            late += t_next - t > expiry
    got = res.get("rx_paused_ns3", 0)
    check(abs(got - want) <= 0.01 * want + 1000,
          "gateway paused %d ns, hostem's frames span %.0f (%d pauses expired before the next "
          "frame)" % (got, want, late))
    print("dcrate: %d pauses (refreshes included), %d resumes, hostem paused the gateway %.1f ms, "
          "queue peak %d B; the gateway counted %d frames, %.1f ms paused (%d pauses expired "
          "before a late refresh)" %
          (p3["pauses"], p3["resumes"], p3["paused_ns"] / 1e6, p3["max_bytes"],
           res.get("rx_frames", 0), got / 1e6, late))
    run_dcrate_red(args, frames)


def roce_opcodes(path):
    """The BTH opcode of every RoCEv2 frame in a pcap."""
    return [bytes(p[UDP].payload)[0] for p in rdpcap(path)
            if p.haslayer(UDP) and p[UDP].dport == 4791 and len(p[UDP].payload) >= 12]


def run_dcrate_red(args, frames):
    """
    The same arrivals with RED on the DC side (dc_kmin, dc_kmax): the queue
    that builds toward the receiver marks ECT packets CE above dc_kmin, the
    receiver gets each mark and answers with CNPs (firmware NP, at most one
    per 4 us), and the marking costs no packet.
    """
    d = os.path.join(args.workdir, "red")
    os.makedirs(d)
    conf = os.path.join(d, "dcrate.ini")
    with open(conf, "w") as f:
        f.write(DCRATE_CONFIG.format(mac=MAC, gw=GW_MAC, dir=d, rate=DCRATE_BPS,
                                     red="dc_kmin = 4kB\ndc_kmax = 16kB\ndc_pmax = 0.5\n"))
    wrpcap(os.path.join(d, "rx.pcap"), [Ether(f) for f in frames])
    r = hostem_run(args, "dcrate-red", "net_pcap0,rx_pcap=%s/rx.pcap,tx_pcap=%s/tx.pcap" % (d, d),
                   conf)
    check(r.returncode == 0 and "mbufs in use at exit: 0" in r.stdout, "hostem failed")
    j = json.load(open(os.path.join(d, "hostem.json")))
    down, rcv = j["downlink"], j["receivers"][0]
    check(down["kmin_bytes"] == 4000 and down["kmax_bytes"] == 16000, "thresholds %s" % down)
    check(down["delivered_pkts"] == DCRATE_PKTS and down["drops"] == 0 and
          rcv["pkts"] == DCRATE_PKTS and rcv["gaps"] == 0, "lost packets: %s" % down)
    # 200 frames queue up to dc_xoff (32 kB): above 16 kB every one is marked.
    check(down["marks"] >= 10 and down["marks_not_ect"] == 0,
          "marks %d, not ECT %d" % (down["marks"], down["marks_not_ect"]))
    check(rcv["ce"] == down["marks"], "receiver saw %d CE, the queue marked %d" %
          (rcv["ce"], down["marks"]))
    cnps = roce_opcodes(os.path.join(d, "tx.pcap")).count(OP_CNP)
    check(1 <= rcv["cnps_sent"] <= down["marks"] and cnps == rcv["cnps_sent"],
          "CNPs: receiver %d, on the wire %d, for %d marks" % (rcv["cnps_sent"], cnps,
                                                              down["marks"]))
    print("dcrate with RED: %d of %d packets marked, %d CNPs" %
          (down["marks"], DCRATE_PKTS, cnps))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["wire", "config", "intra", "pfc", "dcrate"])
    ap.add_argument("--hostem", required=True)
    ap.add_argument("--dp-fixture", help="tests/dataplane/dp_fixture (mode dcrate)")
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    if args.mode == "wire":
        run_wire(args)
    elif args.mode == "intra":
        run_intra(args)
    elif args.mode == "pfc":
        run_pfc(args)
    elif args.mode == "dcrate":
        run_dcrate(args)
    else:
        run_config(args)


if __name__ == "__main__":
    main()
