#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots and tables from longspan-sim run directories.

A RUN argument is a run directory (--out of longspan-sim), optionally
prefixed with a label: "A+C=out/mix/ac".  Without a label the directory's
name is used.

  plot-sim.py table RUN...                 markdown table of the headline numbers
  plot-sim.py bins --out PNG RUN...        FCT slowdown by size bin, intra and inter
  plot-sim.py cdf --out PNG RUN...         CDFs of FCT slowdown and of FCT, intra and inter
  plot-sim.py timeseries --out PNG RUN     gateway/ToR queue depth and flow rates
  plot-sim.py all --out DIR RUN...         bins.png and cdf.png for the runs, and a
                                           timeseries PNG per run that has CSVs
  plot-sim.py seeds [--ref I,X] [--pair L] [--split MS] RUN...
                                           a one-intra, one-inter-flow scenario (THEMIS
                                           `test`) over many seeds: runs labelled
                                           CONFIG-seedN are grouped by CONFIG; FCT mean,
                                           spread, runs with both flows under the
                                           reference (ms), per seed against CONFIG L,
                                           and the runs whose FCT sum is under MS

Needs python3-matplotlib (Debian) for everything but `table`; use
/usr/bin/python3.
"""

import argparse
import csv
import json
import os
import sys

SIZE_BINS = ["0-10KiB", "10KiB-100KiB", "100KiB-1MiB", "1MiB-10MiB", "10MiB+"]


def parse_run(arg):
    if "=" in arg and not os.path.isdir(arg):
        label, path = arg.split("=", 1)
    else:
        label, path = os.path.basename(os.path.normpath(arg)), arg
    if not os.path.isfile(os.path.join(path, "summary.json")):
        sys.exit(f"plot-sim: {path}: no summary.json (not a longspan-sim run directory)")
    return label, path


def summary(path):
    with open(os.path.join(path, "summary.json")) as f:
        return json.load(f)


def flows(path):
    """flows.csv rows of finished flows, numeric fields converted."""
    rows = []
    with open(os.path.join(path, "flows.csv")) as f:
        for r in csv.DictReader(f):
            if int(r["fct_ns"]) == 0:
                continue
            rows.append({"inter": int(r["inter"]), "size": int(r["size"]),
                         "fct_ns": int(r["fct_ns"]), "slowdown": float(r["slowdown"])})
    return rows


def plt_module():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


# ------------------------------------------------------------------ table

def cmd_table(runs):
    print("| run | intra sd avg / p99 | inter sd avg / p99 | all sd avg | intra FCT avg ms "
          "| inter FCT avg ms | PFC pauses | drops | CNPs host / gw | events | CPU s | M ev/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, path in runs:
        s = summary(path)
        f = s["fct"]
        unfinished = s["flows"] - s["flows_finished"]
        note = f" ({unfinished} unfinished)" if unfinished else ""
        if s.get("partial"):
            note += " (partial: stopped by a signal)"
        cpu = s.get("cpu_s", s["wall_s"])
        print(f"| {label}{note} | {f['intra']['slowdown_avg']:.2f} / {f['intra']['slowdown_p99']:.1f} "
              f"| {f['inter']['slowdown_avg']:.3f} / {f['inter']['slowdown_p99']:.2f} "
              f"| {f['all']['slowdown_avg']:.2f} | {f['intra']['avg_ns'] / 1e6:.3f} "
              f"| {f['inter']['avg_ns'] / 1e6:.3f} | {s['pfc']['pause_count']} | {s['drops']} "
              f"| {s['cnp']['host']} / {s['cnp']['gateway']} | {s['events']} | {cpu:.1f} "
              f"| {s['events_per_s'] / 1e6:.1f} |")


# ------------------------------------------------------------------ seeds

def two_flow_fcts(path):
    """(intra FCT ms, inter FCT ms) of a run with one flow of each class."""
    rows = flows(path)
    intra = [r["fct_ns"] for r in rows if not r["inter"]]
    inter = [r["fct_ns"] for r in rows if r["inter"]]
    if len(intra) != 1 or len(inter) != 1:
        sys.exit(f"plot-sim: {path}: seeds wants one finished intra and one inter flow")
    return intra[0] / 1e6, inter[0] / 1e6


def cmd_seeds(runs, ref, pair, split):
    groups = {}
    for label, path in runs:
        cfg, sep, seed = label.rpartition("-seed")
        if not sep or not seed.isdigit():
            sys.exit(f"plot-sim: seeds: label '{label}' is not CONFIG-seedN")
        groups.setdefault(cfg, {})[int(seed)] = two_flow_fcts(path)
    if pair is not None and pair not in groups:
        sys.exit(f"plot-sim: seeds: no runs of '{pair}' to pair with")
    first = [c for c in ("base", pair) if c in groups]
    order = first + [c for c in groups if c not in first]
    head = "| config | seeds | intra FCT mean (min-max) | inter FCT mean (min-max) | sum median (min-max) |"
    rule = "|---|---|---|---|---|"
    if ref:
        head += f" both < {ref[0]:.3f} / {ref[1]:.3f} | intra / inter below |"
        rule += "---|---|"
    if pair:
        head += f" both faster than {pair}, same seed | mean diff intra / inter |"
        rule += "---|---|"
    if split:
        head += f" sum < {split:g}: runs, median |"
        rule += "---|"
    print(head)
    print(rule)
    for cfg in order:
        g = groups[cfg]
        a = [g[k][0] for k in sorted(g)]
        b = [g[k][1] for k in sorted(g)]
        sums = sorted(x + y for x, y in zip(a, b))
        n = len(a)
        line = (f"| {cfg} | {n} | {sum(a) / n:.3f} ({min(a):.2f}-{max(a):.2f}) "
                f"| {sum(b) / n:.3f} ({min(b):.2f}-{max(b):.2f}) "
                f"| {sums[n // 2]:.2f} ({sums[0]:.2f}-{sums[-1]:.2f}) |")
        if ref:
            both = sum(1 for x, y in zip(a, b) if x < ref[0] and y < ref[1])
            line += (f" {both} | {sum(1 for x in a if x < ref[0])} / "
                     f"{sum(1 for y in b if y < ref[1])} |")
        if pair:
            common = sorted(set(g) & set(groups[pair]))
            p = groups[pair]
            both = sum(1 for k in common if g[k][0] < p[k][0] and g[k][1] < p[k][1])
            da = sum(g[k][0] - p[k][0] for k in common) / max(len(common), 1)
            db = sum(g[k][1] - p[k][1] for k in common) / max(len(common), 1)
            line += f" {both} of {len(common)} | {da:+.3f} / {db:+.3f} |"
        if split:
            low = [x for x in sums if x < split]
            line += f" {len(low)}, {low[len(low) // 2]:.2f} |" if low else " 0 |"
        print(line)


# ------------------------------------------------------------------- bins

def cmd_bins(runs, out):
    plt = plt_module()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=False)
    width = 0.8 / len(runs)
    for ci, cls in enumerate(("intra", "inter")):
        ax = axes[ci]
        for ri, (label, path) in enumerate(runs):
            bins = summary(path)["fct_by_size"]
            vals = [b[cls]["slowdown_avg"] for b in bins]
            xs = [i + (ri - (len(runs) - 1) / 2) * width for i in range(len(bins))]
            ax.bar(xs, vals, width, label=label)
        ax.set_xticks(range(len(SIZE_BINS)))
        ax.set_xticklabels(SIZE_BINS, rotation=20)
        ax.set_ylabel("average FCT slowdown")
        ax.set_title(f"{cls}-DC flows by size")
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


# -------------------------------------------------------------------- cdf

def cmd_cdf(runs, out):
    """Top: CDFs of FCT slowdown; bottom: CDFs of FCT itself (ms)."""
    plt = plt_module()
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    data = [(label, flows(path)) for label, path in runs]
    for ci, cls in enumerate(("intra", "inter")):
        for row, (key, scale, xlabel) in enumerate((
                ("slowdown", 1.0, "FCT slowdown (FCT / standalone FCT)"),
                ("fct_ns", 1e-6, "FCT (ms)"))):
            ax = axes[row][ci]
            for label, rows in data:
                xs = sorted(r[key] * scale for r in rows if r["inter"] == ci)
                if not xs:
                    continue
                ys = [(i + 1) / len(xs) for i in range(len(xs))]
                ax.plot(xs, ys, label=label)
            ax.set_xscale("log")
            ax.set_xlabel(xlabel)
            ax.set_ylabel("CDF of flows")
            ax.set_title(f"{cls}-DC flows")
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------- timeseries

def cmd_timeseries(run, out, max_ports=6, max_flows=8):
    plt = plt_module()
    label, path = run
    qpath = os.path.join(path, "queues.csv")
    rpath = os.path.join(path, "rates.csv")
    if not (os.path.isfile(qpath) and os.path.isfile(rpath)):
        sys.exit(f"plot-sim: {path}: no queues.csv/rates.csv (run with --ts-interval)")
    with open(qpath) as f:
        rd = csv.reader(f)
        head = next(rd)
        cols = {h: [] for h in head}
        for row in rd:
            for h, v in zip(head, row):
                cols[h].append(float(v))
    t0 = cols["t_ns"][0] if cols["t_ns"] else 0
    t_ms = [(t - t0) / 1e6 for t in cols["t_ns"]]
    ports = [h for h in head[1:] if max(cols[h], default=0) > 0]
    ports.sort(key=lambda h: -max(cols[h]))
    fig, axes = plt.subplots(2, 1, figsize=(11, 7), sharex=True)
    ax = axes[0]
    for h in ports[:max_ports]:
        ax.plot(t_ms, [v / 1e6 for v in cols[h]], label=h, lw=0.8)
    ax.set_ylabel("queue (MB)")
    ax.set_title(f"{label}: deepest queues (ToR and gateway egress, gateway DRAM)")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(alpha=0.3)

    series = {}
    with open(rpath) as f:
        for r in csv.DictReader(f):
            key = (int(r["flow"]), r["src"], r["dst"], r["inter"])
            series.setdefault(key, ([], [], []))
            s = series[key]
            s[0].append((float(r["t_ns"]) - t0) / 1e6)
            s[1].append(float(r["rate_bps"]) / 1e9)
            s[2].append(float(r["goodput_bps"]) / 1e9)
    biggest = sorted(series.items(), key=lambda kv: -len(kv[1][0]))[:max_flows]
    ax = axes[1]
    for (fl, src, dst, inter), (ts, rate, _) in sorted(biggest):
        kind = "inter" if inter == "1" else "intra"
        ax.plot(ts, rate, lw=0.8, label=f"flow {fl} {src}->{dst} ({kind}) DCQCN rate")
    ax.set_ylabel("sender rate (Gb/s)")
    ax.set_xlabel("time since first sample (ms)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cmd", choices=["table", "bins", "cdf", "timeseries", "all", "seeds"])
    ap.add_argument("runs", nargs="+", metavar="RUN")
    ap.add_argument("--out", help="PNG file (bins, cdf, timeseries) or directory (all)")
    ap.add_argument("--ref", help="seeds: reference FCTs in ms, INTRA,INTER")
    ap.add_argument("--pair", help="seeds: compare every config with this one, seed by seed")
    ap.add_argument("--split", type=float, help="seeds: also count runs whose FCT sum is under MS")
    a = ap.parse_args()
    runs = [parse_run(r) for r in a.runs]
    if a.cmd == "table":
        cmd_table(runs)
        return
    if a.cmd == "seeds":
        ref = None
        if a.ref:
            try:
                ref = tuple(float(x) for x in a.ref.split(","))
            except ValueError:
                ref = ()
            if len(ref) != 2:
                ap.error("--ref wants INTRA_MS,INTER_MS")
        cmd_seeds(runs, ref, a.pair, a.split)
        return
    if not a.out:
        ap.error("--out is required")
    if a.cmd == "bins":
        cmd_bins(runs, a.out)
    elif a.cmd == "cdf":
        cmd_cdf(runs, a.out)
    elif a.cmd == "timeseries":
        if len(runs) != 1:
            ap.error("timeseries takes one run")
        cmd_timeseries(runs[0], a.out)
    else:
        os.makedirs(a.out, exist_ok=True)
        cmd_bins(runs, os.path.join(a.out, "bins.png"))
        cmd_cdf(runs, os.path.join(a.out, "cdf.png"))
        for label, path in runs:
            if os.path.isfile(os.path.join(path, "queues.csv")):
                safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in label)
                cmd_timeseries((label, path), os.path.join(a.out, f"ts-{safe}.png"))


if __name__ == "__main__":
    main()
