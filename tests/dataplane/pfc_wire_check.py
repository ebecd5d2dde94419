#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
PFC frames the gateway writes, checked by two independent dissectors:
tshark (no malformed frame or expert warning; macc.opcode 0x0101, the
class-enable vector and every pause time) and scapy
(scapy.contrib.mac_control.MACControlClassBasedFlowControl), both against
what the generator was asked for (docs/wire-format.md, "PFC frames").

    pfc_wire_check.py PFC_FRAMES_TOOL
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tshark_check  # noqa: E402

from scapy.layers.l2 import Ether  # noqa: E402
from scapy.contrib.mac_control import MACControlClassBasedFlowControl  # noqa: E402


def main(argv):
    out = subprocess.run([argv[1]], stdout=subprocess.PIPE, text=True, check=True).stdout
    cases = []
    for line in out.splitlines():
        cols = line.split()
        enable = int(cols[0])
        quanta = [int(x) for x in cols[1:9]]
        cases.append((enable, quanta, bytes.fromhex(cols[9])))
    if len(cases) < 3:
        print("FAIL: the generator printed %d frames" % len(cases))
        return 1
    errors = []
    problems = tshark_check.check_frames(("frame %d" % i, c[2]) for i, c in enumerate(cases))
    for label, texts in problems.items():
        errors.append("%s: tshark: %s" % (label, "; ".join(texts)))
    fields = ["eth.dst", "eth.type", "macc.opcode", "macc.cbfc.enbv"] + \
        ["macc.cbfc.pause_time.c%d" % i for i in range(8)]
    dissected = tshark_check.frame_fields([c[2] for c in cases], fields)
    for i, ((enable, quanta, frame), got) in enumerate(zip(cases, dissected)):
        want_q = [q if enable >> p & 1 else 0 for p, q in enumerate(quanta)]
        if len(frame) != 60:
            errors.append("frame %d: %d bytes, want 60" % (i, len(frame)))
        if got["eth.dst"] != "01:80:c2:00:00:01" or int(got["eth.type"], 0) != 0x8808:
            errors.append("frame %d: tshark: dst %s type %s" % (i, got["eth.dst"], got["eth.type"]))
        if got["macc.opcode"] == "" or int(got["macc.opcode"], 0) != 0x0101:
            errors.append("frame %d: tshark: opcode %r" % (i, got["macc.opcode"]))
            continue
        if int(got["macc.cbfc.enbv"], 0) != enable:
            errors.append("frame %d: tshark: enable vector %s, want %#x" %
                          (i, got["macc.cbfc.enbv"], enable))
        for p in range(8):
            v = got["macc.cbfc.pause_time.c%d" % p]
            if int(v or "0", 0) != want_q[p]:
                errors.append("frame %d: tshark: priority %d time %r, want %d" %
                              (i, p, v, want_q[p]))
        pkt = Ether(frame)
        cbfc = pkt.getlayer(MACControlClassBasedFlowControl)
        if cbfc is None:
            errors.append("frame %d: scapy: no MACControlClassBasedFlowControl: %s" %
                          (i, pkt.summary()))
            continue
        for p in range(8):
            if getattr(cbfc, "c%d_enabled" % p) != (enable >> p & 1):
                errors.append("frame %d: scapy: c%d_enabled" % (i, p))
            if getattr(cbfc, "c%d_pause_time" % p) != want_q[p]:
                errors.append("frame %d: scapy: c%d_pause_time %d, want %d" %
                              (i, p, getattr(cbfc, "c%d_pause_time" % p), want_q[p]))
    for e in errors:
        print("FAIL:", e)
    if not errors:
        print("ok: %d PFC frames dissect cleanly in tshark and scapy" % len(cases))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
