#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check an IPFIX file, as ipfixDump --rfc5610 decodes it, against expectations.

    ipfix_check.py FILE EXPECT.json

EXPECT.json: {"records": N (exact count of flow records, templates 256/257),
              "templates_min": M (template records in the file, at least),
              "match": [{"where": {ELEMENT: VALUE, ...},
                         "fields": {ELEMENT: VALUE, ...}}, ...]}
Elements are named as ipfixDump prints them, the enterprise ones from the
RFC 5610 type records in the file: a file without them fails. A VALUE is
an integer, a string (addresses) or {"ms": N} for a time in ms since the
epoch. Each "where" must select exactly one record. Exits 0 when all
matches, 1 with the differences.
"""
import datetime
import json
import re
import subprocess
import sys

FIELD = re.compile(r"^\s+\((\d+(?:/\d+)?)\)\s+(\S+)\s+:\s(.*)$")
HEADER = re.compile(r"count:\s+\d+\s+tid:\s+(\d+)")
STATS = re.compile(r"File Stats: (\d+) Messages, (\d+) Data Records, (\d+) Template Records")


def parse(path):
    out = subprocess.run(["ipfixDump", "--rfc5610", "--in", path], check=True,
                         capture_output=True, text=True).stdout
    records, cur, templates = [], None, 0
    for line in out.splitlines():
        if line.startswith("--- "):
            cur = {} if line.startswith("--- data record") else None
            if cur is not None:
                records.append(cur)
            continue
        m = HEADER.search(line)
        if m and cur is not None and "_tid" not in cur:
            cur["_tid"] = int(m.group(1))
            continue
        m = FIELD.match(line)
        if m and cur is not None:
            value = m.group(3).strip()
            cur[m.group(2)] = int(value) if re.fullmatch(r"\d+", value) else value
        m = STATS.search(line)
        if m:
            templates = int(m.group(3))
    return [r for r in records if r.get("_tid") in (256, 257)], templates


def want_value(v):
    if isinstance(v, dict) and "ms" in v:
        t = datetime.datetime.fromtimestamp(v["ms"] / 1000, datetime.timezone.utc)
        return t.strftime("%Y-%m-%d %H:%M:%S.") + f"{v['ms'] % 1000:03d}"
    return v


def main():
    path, expect_path = sys.argv[1], sys.argv[2]
    with open(expect_path) as f:
        expect = json.load(f)
    records, templates = parse(path)
    errors = []
    if "records" in expect and len(records) != expect["records"]:
        errors.append(f"{len(records)} flow records, expected {expect['records']}")
    if templates < expect.get("templates_min", 0):
        errors.append(f"{templates} template records, expected at least {expect['templates_min']}")
    for m in expect.get("match", []):
        hits = [r for r in records
                if all(r.get(k) == want_value(v) for k, v in m["where"].items())]
        if len(hits) != 1:
            errors.append(f"{m['where']}: {len(hits)} records")
            continue
        for k, v in m["fields"].items():
            if k not in hits[0]:
                errors.append(f"{m['where']}: no element {k}")
            elif hits[0][k] != want_value(v):
                errors.append(f"{m['where']}: {k} = {hits[0][k]}, expected {want_value(v)}")
    for e in errors:
        print(f"{path}: {e}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
