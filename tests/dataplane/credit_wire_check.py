#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
GENEVE frames the gateway emits toward a credit peer (mechanism B on the WAN
hop), checked by two independent dissectors: tshark (no malformed frame or
expert warning; the O flag, protocol type, and every option's class, type
and length) and scapy (scapy.contrib.geneve), against docs/wire-format.md,
"Credits between gateways". The frames come from the pipeline test
test_dp_wan_credit, run here with LS_CREDIT_DUMP (data packets with the
option and the idle control packets).

    credit_wire_check.py TEST_DP_WAN_CREDIT
"""

import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tshark_check  # noqa: E402

from scapy.layers.l2 import Ether  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.contrib.geneve import GENEVE, GeneveOptions  # noqa: E402


def credit_fields(data):
    """The option's 32 data bytes as docs/wire-format.md lays them out."""
    ver, prio, flags, gep, glim, rep, resv, report = struct.unpack(">BBHIQIIQ", data)
    return dict(version=ver, priority=prio, flags=flags, grant_epoch=gep, grant_limit=glim,
                report_epoch=rep, reserved=resv, report=report)


def scapy_options(g):
    """
    (class, type, data) of every option. scapy's GeneveOptions has no
    extract_padding, so its list keeps the options after the first as the
    first one's payload: dissect them one at a time here, with scapy.
    """
    raw = bytes(g)[8:8 + g.optionlen * 4]
    out = []
    while raw:
        o = GeneveOptions(raw)
        out.append((o.classid, o.type, bytes(o.data)))
        raw = raw[4 + o.length * 4:]
    return out


def check_one(i, frame, got, errors):
    pkt = Ether(frame)
    g = pkt.getlayer(GENEVE)
    if g is None or pkt.getlayer(UDP).dport != 6081:
        errors.append("frame %d: scapy: no GENEVE: %s" % (i, pkt.summary()))
        return None
    control = g.oam == 1
    opts = {(c, t): d for c, t, d in scapy_options(g)}
    if (0xff4c, 0x02) not in opts:
        errors.append("frame %d: scapy: no credit option in %r" % (i, list(opts)))
        return None
    data = opts[(0xff4c, 0x02)]
    if len(data) != 32:
        errors.append("frame %d: scapy: credit option data %d bytes" % (i, len(data)))
        return None
    c = credit_fields(data)
    if c["version"] != 1 or c["priority"] != 3 or c["reserved"] != 0:
        errors.append("frame %d: scapy: option fields %r" % (i, c))
    if c["flags"] & ~0xf or not c["flags"] & 0x2:
        errors.append("frame %d: scapy: flags %#x" % (i, c["flags"]))
    if control:
        if g.proto != 0 or len(bytes(g.payload)) != 0 or g.optionlen != 9:
            errors.append("frame %d: scapy: control packet proto %#x optlen %d payload %d" %
                          (i, g.proto, g.optionlen, len(bytes(g.payload))))
        if pkt.getlayer(IP).tos >> 2 != 48:
            errors.append("frame %d: control packet DSCP %d" % (i, pkt.getlayer(IP).tos >> 2))
        if c["flags"] & 0x4:
            errors.append("frame %d: control packet charged" % i)
    else:
        if (0xff4c, 0x01) not in opts or g.optionlen != 14 or g.proto != 0x0800:
            errors.append("frame %d: scapy: data packet options %r optlen %d proto %#x" %
                          (i, list(opts), g.optionlen, g.proto))
        if not c["flags"] & 0x4:
            errors.append("frame %d: data packet not charged" % i)
        if c["flags"] & 0x8:
            errors.append("frame %d: charged data packet with the wait flag" % i)
    # tshark's view of the same header.
    oam = got["geneve.flags.oam"]
    if (oam in ("1", "True")) != control:
        errors.append("frame %d: tshark: O flag %r, control %s" % (i, oam, control))
    if int(got["geneve.proto_type"] or "-1", 0) != (0 if control else 0x0800):
        errors.append("frame %d: tshark: protocol %r" % (i, got["geneve.proto_type"]))
    classes = [int(x, 0) for x in got["geneve.option.class"].split(",") if x]
    types = [int(x, 0) for x in got["geneve.option.type"].split(",") if x]
    # The first geneve.option.length is the options' total, then one per option.
    lengths = [int(x, 0) for x in got["geneve.option.length"].split(",") if x]
    want = [(0xff4c, 0x02, 36)] if control else [(0xff4c, 0x01, 20), (0xff4c, 0x02, 36)]
    if lengths[:1] != [sum(w[2] for w in want)] or \
            list(zip(classes, types, lengths[1:])) != want:
        errors.append("frame %d: tshark: options %r (lengths %r), want %r" %
                      (i, list(zip(classes, types)), lengths, want))
    return control


def main(argv):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "frames.hex")
        env = dict(os.environ, LS_CREDIT_DUMP=path)
        r = subprocess.run([argv[1]], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=120)
        if r.returncode != 0:
            print(r.stdout)
            print("FAIL: %s exited %d" % (argv[1], r.returncode))
            return 1
        with open(path) as f:
            frames = [bytes.fromhex(line.strip()) for line in f if line.strip()]
    errors = []
    problems = tshark_check.check_frames(("frame %d" % i, fr) for i, fr in enumerate(frames))
    for label, texts in problems.items():
        errors.append("%s: tshark: %s" % (label, "; ".join(texts)))
    fields = ["geneve.flags.oam", "geneve.proto_type", "geneve.option.class",
              "geneve.option.type", "geneve.option.length"]
    dissected = tshark_check.frame_fields(frames, fields, every=True)
    kinds = [check_one(i, fr, got, errors) for i, (fr, got) in enumerate(zip(frames, dissected))]
    n_ctrl, n_data = kinds.count(True), kinds.count(False)
    if n_ctrl < 3 or n_data < 3:
        errors.append("only %d control and %d data frames emitted" % (n_ctrl, n_data))
    for e in errors:
        print("FAIL:", e)
    if not errors:
        print("ok: %d control and %d data frames with the credit option dissect cleanly in "
              "tshark and scapy" % (n_ctrl, n_data))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
