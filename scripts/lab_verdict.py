# SPDX-License-Identifier: BSD-3-Clause
"""The lab's comparison over repeated runs: per mechanism the median and range
of every metric over the runs that were not starved, and the verdict in words.

A run (a summary.json of scripts/lab.py) carries "starved": true when the
lab's self-check found that it did not keep up (docs/lab.md, "Self-check");
its numbers measure the machine, so they are listed but never enter a median
or the verdict.
"""

# metric key, label in the verdict, formatter
METRICS = [
    ("wan_drops", "WAN drops", lambda v: fmt_count(v)),
    ("feedback_loop_ns_median", "feedback loop", lambda v: fmt_ns(v)),
    ("wan_utilization", "utilisation", lambda v: f"{v * 100:.0f}%"),
]
TABLE_METRICS = [
    ("wan_drops", "WAN drops", lambda v: fmt_count(v)),
    ("wan_utilization", "WAN util", lambda v: f"{v * 100:.0f}%"),
    ("inter_goodput_bps", "inter goodput", lambda v: f"{v / 1e6:.0f} Mb/s"),
    ("inter_jain", "Jain", lambda v: f"{v:.3f}"),
    ("feedback_loop_ns_median", "feedback loop", lambda v: fmt_ns(v)),
]


def fmt_count(v):
    if v >= 10_000:
        return f"{v / 1e3:.0f}k"
    if v >= 1_000:
        return f"{v / 1e3:.1f}k"
    return f"{v:.0f}"


def fmt_ns(v):
    if v >= 1e6:
        return f"{v / 1e6:.1f} ms"
    if v >= 1e5:
        return f"{v / 1e6:.2f} ms"
    return f"{v / 1e3:.0f} us"


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def aggregate(runs):
    """{mechanisms: {"runs": n, "starved": k, metric: {"median", "min", "max"}}} in
    the order the mechanisms first appear."""
    out = {}
    for r in runs:
        m = out.setdefault(r["mechanisms"], {"runs": 0, "starved": 0, "_ok": []})
        m["runs"] += 1
        if r.get("starved", True):
            m["starved"] += 1
        else:
            m["_ok"].append(r)
    for m in out.values():
        ok = m.pop("_ok")
        for key, _, _ in TABLE_METRICS:
            vals = [r[key] for r in ok if r.get(key) is not None]
            m[key] = ({"median": median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}
                      if vals else None)
    return out


def verdict(agg, base="none"):
    """One line per mechanism other than base, from the medians of the runs that
    were not starved: 'mechanism A: WAN drops 320k -> 5k, ...'."""
    lines = []
    b = agg.get(base)
    for mech, m in agg.items():
        if mech == base:
            continue
        if b is None:
            lines.append(f"mechanism {mech}: no verdict: no run without mechanisms to compare with")
            continue
        missing = [x for x, a in ((base, b), (mech, m)) if a["runs"] == a["starved"]]
        if missing:
            lines.append(f"mechanism {mech}: no verdict: every run of "
                         f"{' and '.join(missing)} was starved (the machine did not keep up)")
            continue
        parts = []
        for key, label, fmt in METRICS:
            if b.get(key) is None or m.get(key) is None:
                parts.append(f"{label} not measured")
                continue
            parts.append(f"{label} {fmt(b[key]['median'])} -> {fmt(m[key]['median'])}")
        n = f"{m['runs'] - m['starved']} vs {b['runs'] - b['starved']} runs"
        lines.append(f"mechanism {mech}: " + ", ".join(parts) + f" (medians, {n} not starved)")
    return lines


def table(agg):
    """Markdown table: per mechanism the median [min-max] of every metric."""
    rows = ["| mechanisms | runs (starved) | " + " | ".join(t for _, t, _ in TABLE_METRICS) + " |",
            "|---|---|" + "---|" * len(TABLE_METRICS)]
    for mech, m in agg.items():
        cells = []
        for key, _, fmt in TABLE_METRICS:
            v = m.get(key)
            if v is None:
                cells.append("-")
            elif v["n"] == 1:
                cells.append(fmt(v["median"]))
            else:
                cells.append(f"{fmt(v['median'])} [{fmt(v['min'])}-{fmt(v['max'])}]")
        rows.append(f"| {mech} | {m['runs']} ({m['starved']}) | " + " | ".join(cells) + " |")
    return "\n".join(rows)
