#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Lint a DPDK SWX .spec for the DPDK 22.11 traps (docs/p4.md, "22.11
traps"). Each rule names a construct that 22.11 loads without complaint and
then runs wrong, or refuses only at build time:

  hash-dst     the hash instruction's destination must end within the first
               32 bytes of the metadata (22.11 casts its bit offset to 8
               bits before dividing by 8);
  offset-256   no struct (header or metadata) may have a field starting at
               byte 256 or later (instruction operands hold 8-bit byte
               offsets, so such a field aliases byte offset % 256);
  cksum-odd    ckadd/cksub operands that are header fields must start at an
               even byte offset of their header, and the checksum itself be
               16 bits (the 1's complement sum is taken over the raw bytes,
               so an odd-offset byte lands in the wrong half of its word);
  extern       no extern objects or extern function calls: 22.11's codegen
               flow (rte_swx_pipeline_codegen / build_from_lib) has none;
  learner-list a learner's learning action must also copy the flow to
               register arrays (regwr): the control plane cannot read learner
               entries in 22.11, so nothing else could list the flows.
  reg-imm      regadd and regwr need a field for the index or the value:
               with both immediate, 22.11's translation leaves the register
               array unset, so the instruction acts on array 0.

The 85-instruction-group limit of the codegen flow needs DPDK's own grouping;
tests/unit/p4 checks it on codegen's output.

Usage: p4_spec_lint.py SPEC            exit 1 on any finding
       p4_spec_lint.py --expect RULE SPEC   exit 0 only if exactly RULE is found
"""

import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from p4_spec import Spec  # noqa: E402

META_HASH_DST_BYTES = 32
STRUCT_OFFSET_MAX_BYTES = 256


def lint(path):
    s = Spec(path)
    out = []

    def find(rule, line, msg):
        out.append((rule, line, msg))

    for t, fields in s.structs.items():
        for f in fields.values():
            if f.offset_bits // 8 >= STRUCT_OFFSET_MAX_BYTES:
                find("offset-256", f.line,
                     f"struct {t}: field {f.name} at byte {f.offset_bits // 8}")
    for n, where, tok in s.instructions():
        op = tok[0]
        if op == "hash" and len(tok) == 5:
            r = s.field(tok[2])
            if r and not r[2]:
                f = r[0]
                end = (f.offset_bits + f.bits + 7) // 8
                if end > META_HASH_DST_BYTES:
                    find("hash-dst", n, f"{where}: hash into {tok[2]} ending at "
                         f"metadata byte {end - 1}")
        if op in ("ckadd", "cksub") and len(tok) == 3:
            d = s.field(tok[1])
            if d and d[2] and (d[0].bits != 16 or d[0].offset_bits % 16):
                find("cksum-odd", n, f"{where}: checksum {tok[1]} is not a 16-bit "
                     "field at an even offset")
            r = s.field(tok[2])
            if r and r[2] and r[0].offset_bits % 16:
                find("cksum-odd", n, f"{where}: {op} of {tok[2]} at odd byte "
                     f"offset {r[0].offset_bits // 8}")
        if op == "extern":
            find("extern", n, f"{where}: extern call {' '.join(tok[1:])}")
        if op in ("regadd", "regwr") and len(tok) == 4 and \
                not is_field(tok[2]) and not is_field(tok[3]):
            find("reg-imm", n, f"{where}: {op} {tok[1]} with an immediate index and "
                 "value acts on register array 0")
    for n, name in s.extobjs:
        find("extern", n, f"extern object {name}")
    for name, d in s.learners.items():
        for a in d["actions"]:
            ins = s.actions.get(a, (None, []))[1]
            ops = [t[0] for _, t in ((n, strip(t)) for n, t in ins)]
            if "learn" in ops and "regwr" not in ops:
                find("learner-list", d["line"], f"learner {name}: action {a} learns "
                     "without copying the flow to a register array")
    return out


def is_field(operand):
    return operand[:2] in ("h.", "m.", "t.")


def strip(tok):
    return tok[2:] if len(tok) >= 2 and tok[1] == ":" else tok


def main(argv):
    expect = None
    if len(argv) == 4 and argv[1] == "--expect":
        expect, path = argv[2], argv[3]
    elif len(argv) == 2:
        path = argv[1]
    else:
        print(__doc__, file=sys.stderr)
        return 2
    found = lint(path)
    for rule, line, msg in found:
        print(f"{path}:{line}: {rule}: {msg}")
    if expect is None:
        return 1 if found else 0
    rules = {r for r, _, _ in found}
    if rules != {expect}:
        print(f"{path}: expected exactly rule {expect}, found {sorted(rules) or 'none'}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
