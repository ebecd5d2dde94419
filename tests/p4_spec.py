# SPDX-License-Identifier: BSD-3-Clause
"""Reading of DPDK SWX .spec files for the checks in tests/p4_names.py and
tests/p4_spec_lint.py: structs with their field offsets, header and metadata
instances, actions, tables, learners, register arrays and the instructions
of every action and of the apply block, each with its line number."""

import re

COMMENT = re.compile(r"(;|//|#).*$")


class Field:
    def __init__(self, name, bits, offset_bits, line):
        self.name = name
        self.bits = bits
        self.offset_bits = offset_bits
        self.line = line


class Spec:
    def __init__(self, path):
        self.path = path
        self.structs = {}  # type name -> {field name: Field}, in order
        self.struct_line = {}
        self.headers = {}  # instance -> type
        self.metadata = None  # type of the metadata
        self.actions = {}  # name -> (arg type or None, [(line, tokens)])
        self.tables = {}  # name -> {"keys": [...], "actions": [...], "line": n}
        self.learners = {}
        self.regarrays = {}
        self.extobjs = []
        self.apply = []  # [(line, tokens)]
        self._parse()

    def _lines(self):
        with open(self.path, encoding="utf-8") as f:
            for n, raw in enumerate(f, 1):
                text = COMMENT.sub("", raw).strip()
                if text:
                    yield n, text

    def _parse(self):
        block = None  # (kind, name, sub)
        for n, text in self._lines():
            tok = text.split()
            if block is None:
                if tok[0] == "struct" and tok[-1] == "{":
                    block = ["struct", tok[1], None]
                    self.structs[tok[1]] = {}
                    self.struct_line[tok[1]] = n
                    self._off = 0
                elif tok[0] == "header":
                    self.headers[tok[1]] = tok[3]
                elif tok[0] == "metadata":
                    self.metadata = tok[2]
                elif tok[0] == "action":
                    arg = tok[4] if tok[3] == "instanceof" else None
                    self.actions[tok[1]] = (arg, [])
                    block = ["action", tok[1], None]
                elif tok[0] in ("table", "learner"):
                    d = {"keys": [], "actions": [], "line": n}
                    (self.tables if tok[0] == "table" else self.learners)[tok[1]] = d
                    block = [tok[0], tok[1], None]
                elif tok[0] == "regarray":
                    self.regarrays[tok[1]] = n
                elif tok[0] == "extobj":
                    self.extobjs.append((n, tok[1]))
                elif tok[0] == "apply":
                    block = ["apply", None, None]
                continue
            kind, name, sub = block
            if tok == ["}"]:
                if sub is not None:
                    block[2] = None
                else:
                    block = None
                continue
            if kind == "struct":
                m = re.match(r"bit<(\d+)>", tok[0])
                bits = int(m.group(1)) if m else 0
                self.structs[name][tok[1]] = Field(tok[1], bits, self._off, n)
                self._off += bits
            elif kind == "action":
                self.actions[name][1].append((n, tok))
            elif kind == "apply":
                self.apply.append((n, tok))
            elif kind in ("table", "learner"):
                d = (self.tables if kind == "table" else self.learners)[name]
                if tok[-1] == "{":
                    block[2] = tok[0]
                elif sub == "key":
                    d["keys"].append(tok[0])
                elif sub == "actions":
                    d["actions"].append(tok[0])
                elif tok[0] == "default_action":
                    d["default"] = tok[1]

    def instructions(self):
        """Every instruction, labels removed: (line, where, tokens)."""
        for name, (_, ins) in self.actions.items():
            for n, tok in ins:
                yield n, "action " + name, strip_label(tok)
        for n, tok in self.apply:
            yield n, "apply", strip_label(tok)

    def field(self, ref):
        """Field of h.HDR.F or m.F: (Field, struct type, is_header), or None."""
        parts = ref.split(".")
        if parts[0] == "h" and len(parts) == 3 and parts[1] in self.headers:
            t = self.headers[parts[1]]
            f = self.structs.get(t, {}).get(parts[2])
            return (f, t, True) if f else None
        if parts[0] == "m" and len(parts) == 2 and self.metadata:
            f = self.structs.get(self.metadata, {}).get(parts[1])
            return (f, self.metadata, False) if f else None
        return None


def strip_label(tok):
    if len(tok) >= 2 and tok[1] == ":":
        return tok[2:]
    return tok
