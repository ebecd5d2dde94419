#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check that dataplane/p4/longspan.p4 and longspan.spec agree: the same
header instances of the same header types with the same fields (names and
widths, in order), the same tables and learners with the same actions, the
same register arrays, the same table actions; and that the P4 program's
DROP_* constants are the values of enum ls_drop_reason in
dataplane/drop_reason.h, and every drop reason the spec writes is one of them.

Usage: p4_names.py P4 SPEC DROP_REASON_H
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from p4_spec import Spec  # noqa: E402


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def blocks(text, kind):
    """{name: body} of every `kind NAME ... { body }` at any depth."""
    out = {}
    for m in re.finditer(r"\b%s\s+(\w+)\s*(\([^)]*\))?\s*\{" % kind, text):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out[m.group(1)] = text[m.end():i - 1]
    return out


def p4_program(path):
    with open(path, encoding="utf-8") as f:
        text = strip_comments(f.read())
    p = {"header_types": {}, "headers": {}, "tables": {}, "consts": {}}
    for name, body in blocks(text, "header").items():
        p["header_types"][name] = [(f, int(b)) for b, f in
                                   re.findall(r"bit<(\d+)>\s+(\w+)\s*;", body)]
    hs = blocks(text, "struct")["headers_t"]
    p["headers"] = {inst: t for t, inst in re.findall(r"(\w+)\s+(\w+)\s*;", hs)}
    for name, body in blocks(text, "table").items():
        m = re.search(r"actions\s*=\s*\{(.*?)\}", body, flags=re.S)
        acts = [a.split()[-1] for a in m.group(1).split(";") if a.strip()]
        p["tables"][name] = acts
    p["registers"] = set(re.findall(r"Register<.*?>\s*\(\s*\w+\s*\)\s*(\w+)\s*;", text))
    p["consts"] = {n: int(v, 0) for n, v in
                   re.findall(r"const\s+bit<\d+>\s+(DROP_\w+)\s*=\s*(\w+)\s*;", text)}
    return p


def drop_reasons(path):
    with open(path, encoding="utf-8") as f:
        names = re.findall(r"X\((\w+),\s*\"", f.read())
    return {n: i for i, n in enumerate(names)}


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    p4 = p4_program(argv[1])
    s = Spec(argv[2])
    reasons = drop_reasons(argv[3])
    errors = []

    def check(what, a, b):
        if a != b:
            errors.append(f"{what}: P4 {sorted(a - b) if isinstance(a, set) else a} / "
                          f"spec {sorted(b - a) if isinstance(b, set) else b}")

    check("header instances", set(p4["headers"]), set(s.headers))
    for inst, t in p4["headers"].items():
        if inst not in s.headers:
            continue
        st = s.headers[inst]
        check(f"header {inst} type", t, st)
        spec_fields = [(f.name, f.bits) for f in s.structs.get(st, {}).values()]
        check(f"header type {t} fields", p4["header_types"].get(t), spec_fields)
    spec_tables = {**{n: d["actions"] for n, d in s.tables.items()},
                   **{n: d["actions"] for n, d in s.learners.items()}}
    check("tables and learners", set(p4["tables"]), set(spec_tables))
    for t, acts in p4["tables"].items():
        if t in spec_tables:
            check(f"table {t} actions", acts, spec_tables[t])
    used = {a for acts in p4["tables"].values() for a in acts}
    check("actions", used, set(s.actions))
    check("register arrays", p4["registers"], set(s.regarrays))
    for name, value in p4["consts"].items():
        want = reasons.get(name[len("DROP_"):])
        if want != value:
            errors.append(f"{name} = {value}, enum ls_drop_reason says {want}")
    allowed = set(p4["consts"].values())
    for n, where, tok in s.instructions():
        if tok[0] == "mov" and tok[1].endswith("drop_reason") and tok[2].startswith("0x"):
            if int(tok[2], 0) not in allowed:
                errors.append(f"{argv[2]}:{n}: {where}: drop reason {tok[2]} is no DROP_ "
                              "constant of the P4 program")
    for e in errors:
        print(e)
    if not errors:
        print(f"p4 names: {len(s.headers)} headers, {len(spec_tables)} tables, "
              f"{len(s.actions)} actions, {len(s.regarrays)} register arrays agree")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
