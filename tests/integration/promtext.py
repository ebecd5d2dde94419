# SPDX-License-Identifier: BSD-3-Clause
"""
The Prometheus text exposition format 0.0.4, read strictly, for the
integration tests that scrape a gateway's /metrics.
"""

import re

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
SAMPLE = re.compile(r"^(" + NAME + r")(\{(.*)\})? (\S+)( -?\d+)?$")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')


def prom_parse(text):
    """{(name, frozenset(labels)): value}; raises ValueError on any violation."""
    if not text.endswith("\n"):
        raise ValueError("no final newline")
    types, helps, samples = {}, {}, {}
    for n, line in enumerate(text.split("\n")[:-1], 1):
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            parts = line.split(" ", 3)
            if len(parts) < 4 or not re.fullmatch(NAME, parts[2]):
                raise ValueError(f"line {n}: bad {parts[1]}")
            d = helps if parts[1] == "HELP" else types
            if parts[2] in d:
                raise ValueError(f"line {n}: second {parts[1]} for {parts[2]}")
            if parts[1] == "TYPE" and parts[3] not in ("counter", "gauge", "histogram",
                                                       "summary", "untyped"):
                raise ValueError(f"line {n}: type {parts[3]}")
            d[parts[2]] = parts[3]
            continue
        if line.startswith("#") or line == "":
            raise ValueError(f"line {n}: stray line {line!r}")
        m = SAMPLE.match(line)
        if not m:
            raise ValueError(f"line {n}: not a sample: {line!r}")
        name, labels = m.group(1), {}
        if m.group(3):
            rest = m.group(3)
            while rest:
                lm = LABEL.match(rest)
                if not lm:
                    raise ValueError(f"line {n}: bad labels {rest!r}")
                if lm.group(1) in labels:
                    raise ValueError(f"line {n}: label {lm.group(1)} twice")
                labels[lm.group(1)] = lm.group(2)
                rest = rest[lm.end():]
        value = float(m.group(4))
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        family = name if name in types else base
        if family not in types:
            raise ValueError(f"line {n}: {name} without # TYPE")
        if types[family] == "counter" and not name.endswith("_total") and family == name:
            raise ValueError(f"line {n}: counter {name} not named _total")
        key = (name, frozenset(labels.items()))
        if key in samples:
            raise ValueError(f"line {n}: duplicate series {name}{labels}")
        samples[key] = value
    return samples


def prom_get(samples, name, **labels):
    want = {(k, str(v)) for k, v in labels.items()}
    hits = [v for (n, ls), v in samples.items() if n == name and want <= ls]
    return hits[0] if len(hits) == 1 else None
