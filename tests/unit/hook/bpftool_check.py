#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check what `bpftool -j map dump pinned PIN` prints against expectations.

    bpftool_check.py PIN EXPECT.json

EXPECT.json: {"entries": N (optional, exact count),
              "match": [{"key": K, "value": {FIELD: VALUE, ...}}, ...],
              "absent": [K, ...] (optional)}
A key K is an integer (an ARRAY index) or an object whose fields must all
equal the entry key's named fields; VALUE is an integer, a list, or, for a
u64 counter map, the value itself. Every field is looked up by the name
bpftool prints from the map's BTF, so a map without BTF fails the check.
Exits 0 when everything matches, 1 with the differences otherwise.
"""
import json
import subprocess
import sys


def key_matches(want, got):
    if isinstance(want, dict):
        return isinstance(got, dict) and all(got.get(k) == v for k, v in want.items())
    return want == got


def main():
    pin, expect_path = sys.argv[1], sys.argv[2]
    with open(expect_path) as f:
        expect = json.load(f)
    out = subprocess.run(["bpftool", "-j", "map", "dump", "pinned", pin],
                         check=True, capture_output=True, text=True).stdout
    entries = [e["formatted"] for e in json.loads(out)]
    errors = []
    if "entries" in expect and len(entries) != expect["entries"]:
        errors.append(f"{len(entries)} entries, expected {expect['entries']}")
    for m in expect.get("match", []):
        hits = [e for e in entries if key_matches(m["key"], e["key"])]
        if len(hits) != 1:
            errors.append(f"key {m['key']}: {len(hits)} entries")
            continue
        value = hits[0]["value"]
        want = m["value"]
        if isinstance(want, dict):
            for field, v in want.items():
                if field not in value:
                    errors.append(f"key {m['key']}: no field named {field}")
                elif value[field] != v:
                    errors.append(f"key {m['key']}: {field} = {value[field]}, expected {v}")
        elif value != want:
            errors.append(f"key {m['key']}: value {value}, expected {want}")
    for k in expect.get("absent", []):
        if any(key_matches(k, e["key"]) for e in entries):
            errors.append(f"key {k}: present, expected absent")
    for e in errors:
        print(f"{pin}: {e}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
