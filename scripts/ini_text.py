# SPDX-License-Identifier: BSD-3-Clause
"""
Edits of Longspan's INI config text, for the tools that derive a config
from another: scripts/lab.py (the lab's gateway configs, --set) and
tests/dataplane/fixtures.py (the harness's copy, --set). Lines are kept as
written; a key is matched by name within its section.
"""

import argparse
import re


def set_arg(text, sections=None):
    """
    --set SECTION.KEY=VALUE -> (section, key, value); the section may hold
    spaces ("port wan"). With sections, SECTION must be one of them.
    """
    m = re.fullmatch(r"([^.=]+)\.([A-Za-z0-9_]+)=(.*)", text)
    if m is None or (sections is not None and m.group(1) not in sections):
        allowed = f" with SECTION one of {', '.join(sections)}" if sections else ""
        raise argparse.ArgumentTypeError(f"'{text}': expected SECTION.KEY=VALUE{allowed}")
    return m.group(1), m.group(2), m.group(3)


def _append_to_section(out, line):
    """Add line to out after its last non-blank line (the section's end)."""
    i = len(out)
    while i > 0 and out[i - 1].strip() == "":
        i -= 1
    out.insert(i, line)


def ini_set(text, section, key, value):
    """Set key = value in [section] of an INI text (replace or append)."""
    lines = text.splitlines()
    out, in_sec, done = [], False, False
    for ln in lines:
        s = ln.strip()
        if s.startswith("["):
            if in_sec and not done:
                _append_to_section(out, f"{key} = {value}")
                done = True
            in_sec = s == f"[{section}]"
        elif in_sec and re.match(rf"{re.escape(key)}\s*=", s):
            if not done:
                out.append(f"{key} = {value}")
                done = True
            continue
        out.append(ln)
    if in_sec and not done:
        out.append(f"{key} = {value}")
        done = True
    if not done:
        out += ["", f"[{section}]", f"{key} = {value}"]
    return "\n".join(out) + "\n"


def ini_del(text, section, key):
    """text without key in [section]."""
    out, in_sec = [], False
    for ln in text.splitlines():
        s = ln.strip()
        if s.startswith("["):
            in_sec = s == f"[{section}]"
        elif in_sec and re.match(rf"{re.escape(key)}\s*=", s):
            continue
        out.append(ln)
    return "\n".join(out) + "\n"


def ini_drop_sections(text, prefix):
    """text without the sections whose name starts with prefix."""
    out, drop = [], False
    for ln in text.splitlines():
        s = ln.strip()
        if s.startswith("["):
            drop = s[1:-1].startswith(prefix)
        if not drop:
            out.append(ln)
    return "\n".join(out) + "\n"
