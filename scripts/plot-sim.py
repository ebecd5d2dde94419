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

Where the time goes (runs made with --waits; see docs/congestion.md):

  plot-sim.py worst [--n N] [--base BASE] [--ids] RUN
                                           the N intra-DC flows with the largest slowdown
                                           and (with BASE, plain DCQCN on the same flows) the
                                           N inter-DC flows that lose most against it, each
                                           with its wait, hold and bytes ahead per hop;
                                           --ids: only their flow ids, for --trace-flows
  plot-sim.py waits [--base-config C] RUN...
                                           runs labelled CONFIG-seedN: what the intra-DC
                                           slowdown is made of (sender-limited flows, and
                                           for the others the hop where they waited, with
                                           the inter-DC share of the bytes ahead), when the
                                           worst intra-DC flows waited relative to inter-DC
                                           flows' blind windows, and the inter-DC flows
                                           against config C seed by seed
  plot-sim.py waitbars --out PNG RUN...    intra- and inter-DC wait by hop, split by the
                                           class of the bytes ahead, per config
  plot-sim.py trace --out PNG RUN ID       a traced flow (--trace-flows): per-packet wait per
                                           hop over time, the queue of its slowest hop by
                                           class, the inter-DC flows through that hop
                                           (start, first rate cut) and its CNPs

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


# ------------------------------------------------------- where time goes

# Hop categories: (role of the switch, role of the next node).
HOP_NAMES = {
    ("tor", "core"): "ToR uplink", ("core", "tor"): "agg->ToR", ("tor", "host"): "ToR->host",
    ("core", "gateway"): "agg->gw", ("gateway", "gateway"): "WAN", ("gateway", "core"): "gw->agg",
}
HOP_ORDER = ["ToR uplink", "agg->gw", "WAN", "gw->agg", "agg->ToR", "ToR->host"]
SENDER = "sender-limited"
WAN_ONE_WAY_NS = 500_000  # THEMIS's 48-49 link


def read_csv(path, name):
    fn = os.path.join(path, name)
    if not os.path.isfile(fn):
        sys.exit(f"plot-sim: {fn}: missing (run longspan-sim with --waits)")
    with open(fn) as f:
        return list(csv.DictReader(f))


class Waits:
    """A run's flows.csv, hops.csv and ports.csv, with the role of every node."""

    def __init__(self, path):
        self.path = path
        self.summary = summary(path)
        self.flows = {int(r["id"]): {k: (float(v) if "." in v else int(v)) for k, v in r.items()}
                      for r in read_csv(path, "flows.csv")}
        self.hops = {}
        for r in read_csv(path, "hops.csv"):
            h = {k: int(v) for k, v in r.items()}
            self.hops.setdefault(h["id"], []).append(h)
        self.ports = [{k: (v if k == "role" else float(v)) for k, v in r.items()}
                      for r in read_csv(path, "ports.csv")]
        self.role = {int(p["node"]): p["role"] for p in self.ports}
        for node, _ in self.summary["host_site"]:
            self.role[node] = "host"

    def hop_name(self, node, to):
        return HOP_NAMES.get((self.role.get(node), self.role.get(to)), f"{node}->{to}")

    def done(self, inter):
        return [f for f in self.flows.values() if f["inter"] == inter and f["fct_ns"] > 0]

    def cause(self, f):
        """SENDER if its sender took most of the FCT to send, else its slowest hop."""
        hops = self.hops.get(f["id"], [])
        tx = hops[0]["tx_done_ns"] if hops else -1
        if tx >= 0.5 * f["fct_ns"]:
            return SENDER
        if not hops:
            return SENDER
        h = max(hops, key=lambda h: (h["wait_ns"] + h["held_ns"]) / max(h["pkts"], 1))
        return self.hop_name(h["node"], h["to"])

    def slowest_hop(self, f):
        hops = self.hops.get(f["id"], [])
        return max(hops, key=lambda h: h["wait_max_ns"] + h["held_ns"] / max(h["pkts"], 1),
                   default=None)


def inter_share(ahead_intra, ahead_inter):
    total = ahead_intra + ahead_inter
    return ahead_inter / total if total else 0.0


def group_runs(runs):
    groups = {}
    for label, path in runs:
        cfg, sep, seed = label.rpartition("-seed")
        if not sep or not seed.isdigit():
            sys.exit(f"plot-sim: label '{label}' is not CONFIG-seedN")
        groups.setdefault(cfg, {})[int(seed)] = path
    return groups


def hop_desc(w, f):
    out = []
    for h in w.hops.get(f["id"], []):
        n = max(h["pkts"], 1)
        out.append(f"{w.hop_name(h['node'], h['to'])} ({h['node']}->{h['to']}) "
                   f"{h['wait_ns'] / n / 1e3:.0f}/{h['wait_max_ns'] / 1e3:.0f} us"
                   + (f" held {h['held_ns'] / n / 1e3:.0f} us" if h["held_ns"] else "")
                   + f" {100 * inter_share(h['ahead_intra_bytes'], h['ahead_inter_bytes']):.0f}%")
    return "; ".join(out)


def worst_sets(w, base, n):
    intra = sorted(w.done(0), key=lambda f: -f["slowdown"])[:n]
    losers = []
    if base is not None:
        pairs = [(f, base.flows[f["id"]]) for f in w.done(1) if base.flows[f["id"]]["fct_ns"] > 0]
        losers = [f for f, b in sorted(pairs, key=lambda p: p[1]["slowdown"] - p[0]["slowdown"])
                  if f["slowdown"] > b["slowdown"]][:n]
    return intra, losers


def cmd_worst(run, base_run, n, ids_only):
    w = Waits(run[1])
    base = Waits(base_run) if base_run else None
    intra, losers = worst_sets(w, base, n)
    if ids_only:
        print(",".join(str(f["id"]) for f in intra + losers))
        return
    print(f"{run[0]}: the {n} intra-DC flows with the largest slowdown. Per hop: mean / max "
          "wait per packet, mean hold (gateway DRAM), % of the bytes ahead from inter-DC flows.")
    print()
    print("| flow | bytes | slowdown | FCT us | sent by us | rate cuts | CNPs rcv / gw | hops |")
    print("|---|---|---|---|---|---|---|---|")
    for f in intra:
        tx = w.hops[f["id"]][0]["tx_done_ns"] if f["id"] in w.hops else -1
        print(f"| {f['id']} | {f['size']} | {f['slowdown']:.1f} | {f['fct_ns'] / 1e3:.0f} "
              f"| {tx / 1e3:.0f} | {f['rp_cuts']} | {f['cnp_host']} / {f['cnp_gw']} "
              f"| {hop_desc(w, f)} |")
    if base is None:
        return
    print()
    print(f"The {n} inter-DC flows whose slowdown grows most against the base run "
          "(base -> this run).")
    print()
    print("| flow | bytes | slowdown | FCT us | sent by us | first cut us | CNPs rcv / gw | hops (this run) |")
    print("|---|---|---|---|---|---|---|---|")
    for f in losers:
        b = base.flows[f["id"]]
        tx = w.hops[f["id"]][0]["tx_done_ns"]
        tb = base.hops[f["id"]][0]["tx_done_ns"]
        print(f"| {f['id']} | {f['size']} | {b['slowdown']:.2f} -> {f['slowdown']:.2f} "
              f"| {b['fct_ns'] / 1e3:.0f} -> {f['fct_ns'] / 1e3:.0f} | {tb / 1e3:.0f} -> {tx / 1e3:.0f} "
              f"| {b['first_cut_ns'] / 1e3:.0f} -> {f['first_cut_ns'] / 1e3:.0f} "
              f"| {b['cnp_host']} / {b['cnp_gw']} -> {f['cnp_host']} / {f['cnp_gw']} | {hop_desc(w, f)} |")


def blind_windows(w):
    """Per hop (node, to): inter-DC flows' [arrival, arrival of the first cut's effect]."""
    win = {}
    for f in w.flows.values():
        if not f["inter"]:
            continue
        cut = f["first_cut_ns"] if f["first_cut_ns"] >= 0 else f["fct_ns"]
        # At the destination DC the flow's packets arrive one WAN crossing after they
        # leave; it sends at line rate until its first cut, whose effect arrives as late.
        lo, hi = f["start_ns"], f["start_ns"] + cut
        for h in w.hops.get(f["id"], []):
            dest = h["hop"] > 2 if len(w.hops[f["id"]]) == 6 else False
            d = WAN_ONE_WAY_NS if dest else 0
            win.setdefault((h["node"], h["to"]), []).append((lo + d, hi + d))
    return win


def window_coverage(iv, t0, t1):
    """The share of [t0, t1) covered by the union of the intervals iv."""
    tot, cur = 0, None
    for a, b in sorted((max(a, t0), min(b, t1)) for a, b in iv if min(b, t1) > max(a, t0)):
        if cur is None or a > cur[1]:
            if cur is not None:
                tot += cur[1] - cur[0]
            cur = [a, b]
        else:
            cur[1] = max(cur[1], b)
    if cur is not None:
        tot += cur[1] - cur[0]
    return tot / (t1 - t0) if t1 > t0 else 0.0


def cmd_waits(runs, base_cfg, top):
    groups = group_runs(runs)
    loaded = {c: {s: Waits(p) for s, p in g.items()} for c, g in groups.items()}
    cats = [SENDER] + HOP_ORDER
    print("Intra-DC flows: mean slowdown, and where its excess (slowdown - 1, summed) comes "
          "from: flows whose sender took over half the FCT to send its bytes (rate cuts, NIC "
          "sharing, PFC at the host), else the hop where the flow's packets waited longest "
          "on average. Mean over the seeds; in brackets the inter-DC share of the bytes "
          "queued ahead of those flows' packets at that hop.")
    print()
    print("| config | seeds | intra slowdown | " + " | ".join(cats) + " |")
    print("|---|---|---|" + "---|" * len(cats))
    for cfg, ws in loaded.items():
        acc = {c: 0.0 for c in cats}
        share = {c: [0.0, 0.0] for c in cats}
        sd = 0.0
        for w in ws.values():
            fl = w.done(0)
            total = sum(f["slowdown"] - 1 for f in fl)
            sd += sum(f["slowdown"] for f in fl) / len(fl)
            for f in fl:
                c = w.cause(f)
                if c not in acc:
                    continue
                acc[c] += (f["slowdown"] - 1) / total / len(ws)
                if c != SENDER:
                    for h in w.hops[f["id"]]:
                        if w.hop_name(h["node"], h["to"]) == c:
                            share[c][0] += h["ahead_intra_bytes"]
                            share[c][1] += h["ahead_inter_bytes"]
        cells = []
        for c in cats:
            x = f"{100 * acc[c]:.0f}%"
            if c != SENDER and acc[c] >= 0.005:
                x += f" ({100 * inter_share(*share[c]):.0f}%)"
            cells.append(x)
        print(f"| {cfg} | {len(ws)} | {sd / len(ws):.2f} | " + " | ".join(cells) + " |")
    print()
    print(f"The {top} intra-DC flows with the largest slowdown in each run. For those not "
          "sender-limited: was their first packet queued at their slowest hop inside the blind "
          "window of an inter-DC flow through that hop (from the arrival there of that flow's "
          "first packets to the arrival of its first rate cut's effect, a WAN crossing later at "
          "the destination), against the share of the run's time that hop spent inside such a "
          "window (chance); how long after that burst's arrival and before its cut took "
          "effect; the inter-DC share of the bytes ahead; medians.")
    print()
    print("| config | flows | sender-limited | queued in a blind window (chance) | after burst "
          "us | before cut us | wait us | inter-DC ahead | bytes | rate cuts | receiver CNPs |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    med = lambda v: sorted(v)[len(v) // 2] if v else 0
    for cfg, ws in loaded.items():
        n = sl = inwin = 0
        chance, after, before, waits, share, sizes, cuts, cnps = ([] for _ in range(8))
        for w in ws.values():
            win = blind_windows(w)
            t0 = min(f["start_ns"] for f in w.flows.values())
            t1 = t0 + w.summary["active_span_ns"]
            for f in sorted(w.done(0), key=lambda f: -f["slowdown"])[:top]:
                n += 1
                sizes.append(f["size"])
                cuts.append(f["rp_cuts"])
                cnps.append(f["cnp_host"])
                if w.cause(f) == SENDER:
                    sl += 1
                    continue
                hops = w.hops[f["id"]]
                h = w.slowest_hop(f)
                # Its first packet reaches the hop after the earlier hops' waits.
                t = f["start_ns"] + sum(x["wait_ns"] / max(x["pkts"], 1)
                                        for x in hops[:hops.index(h)])
                iv = win.get((h["node"], h["to"]), [])
                hit = [(a, b) for a, b in iv if a <= t < b]
                chance.append(window_coverage(iv, t0, t1))
                waits.append(h["wait_max_ns"] / 1e3)
                share.append(inter_share(h["ahead_intra_bytes"], h["ahead_inter_bytes"]))
                if hit:
                    inwin += 1
                    after.append(med([t - a for a, _ in hit]) / 1e3)
                    before.append(med([b - t for _, b in hit]) / 1e3)
        nn = n - sl
        print(f"| {cfg} | {n} | {sl} | {inwin} of {nn} ({100 * sum(chance) / max(len(chance), 1):.0f}%) "
              f"| {med(after):.0f} | {med(before):.0f} | {med(waits):.0f} "
              f"| {100 * med(share):.0f}% | {med(sizes)} | {med(cuts)} | {med(cnps)} |")
    if base_cfg is None or base_cfg not in loaded:
        return
    print()
    print(f"Inter-DC flows against {base_cfg} on the same seed: mean slowdown by size, and for "
          "flows of 1 MiB and more the mean per-packet hold in gateway DRAM, the time to send "
          "(ms), the first rate cut after the start (us) and the gateway CNPs per flow.")
    print()
    print("| config | all | 0-100KiB | 100KiB-1MiB | 1-10MiB | 10MiB+ | held us | send ms | "
          "first cut us | gateway CNPs |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    edges = [(0, 102400), (102400, 1048576), (1048576, 10485760), (10485760, 1 << 40)]
    for cfg, ws in loaded.items():
        cols = [[] for _ in range(5)]
        held, send, cut, gwc = [], [], [], []
        for seed, w in ws.items():
            fl = w.done(1)
            cols[0].append(sum(f["slowdown"] for f in fl) / len(fl))
            for i, (lo, hi) in enumerate(edges):
                b = [f["slowdown"] for f in fl if lo < f["size"] <= hi]
                cols[i + 1].append(sum(b) / len(b) if b else 0)
            for f in fl:
                if f["size"] <= 1048576:
                    continue
                hs = w.hops[f["id"]]
                held.append(sum(h["held_ns"] / max(h["pkts"], 1) for h in hs) / 1e3)
                send.append(hs[0]["tx_done_ns"] / 1e6)
                cut.append(f["first_cut_ns"] / 1e3 if f["first_cut_ns"] >= 0 else float("nan"))
                gwc.append(f["cnp_gw"])
        mean = lambda v: sum(v) / len(v) if v else 0
        cutv = sorted(x for x in cut if x == x)
        print(f"| {cfg} | {mean(cols[0]):.3f} | {mean(cols[1]):.3f} | {mean(cols[2]):.3f} "
              f"| {mean(cols[3]):.3f} | {mean(cols[4]):.3f} | {mean(held):.0f} | {mean(send):.2f} "
              f"| {cutv[len(cutv) // 2] if cutv else 0:.0f} | {mean(gwc):.0f} |")


def cmd_waitbars(runs, out):
    """Per config: total wait of intra- and inter-DC data packets by hop, split by whose
    bytes were ahead (summed over the runs of the config)."""
    plt = plt_module()
    groups = group_runs(runs)
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    width = 0.8 / len(groups)
    for ci, cls in enumerate(("intra", "inter")):
        ax = axes[ci]
        for gi, (cfg, g) in enumerate(groups.items()):
            tot = {c: [0.0, 0.0] for c in HOP_ORDER}
            for path in g.values():
                w = Waits(path)
                for p in w.ports:
                    c = w.hop_name(int(p["node"]), int(p["to"]))
                    if c not in tot:
                        continue
                    share = inter_share(p[f"{cls}_ahead_intra_bytes"],
                                        p[f"{cls}_ahead_inter_bytes"])
                    wait = p[f"wait_{cls}_ns"] / 1e9 / len(g)
                    tot[c][0] += wait * (1 - share)
                    tot[c][1] += wait * share
            xs = [i + (gi - (len(groups) - 1) / 2) * width for i in range(len(HOP_ORDER))]
            a = [tot[c][0] for c in HOP_ORDER]
            b = [tot[c][1] for c in HOP_ORDER]
            bars = ax.bar(xs, a, width, label=f"{cfg}: behind intra-DC bytes")
            ax.bar(xs, b, width, bottom=a, color=bars[0].get_facecolor(), alpha=0.45,
                   hatch="//", label=f"{cfg}: behind inter-DC bytes")
        ax.set_xticks(range(len(HOP_ORDER)))
        ax.set_xticklabels(HOP_ORDER, rotation=20)
        ax.set_ylabel("total wait of data packets (s, mean over seeds)")
        ax.set_title(f"{cls}-DC packets: where they waited, behind whose bytes")
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def cmd_trace(run, flow_id, out):
    plt = plt_module()
    label, path = run
    w = Waits(path)
    f = w.flows[flow_id]
    tr = [r for r in read_csv(path, "trace.csv") if int(r["flow"]) == flow_id]
    if not tr:
        sys.exit(f"plot-sim: {path}: flow {flow_id} not in trace.csv (--trace-flows)")
    # The queue shown is the hop with the longest wait (a hold in DRAM is no queue).
    h = max(w.hops[flow_id], key=lambda h: h["wait_max_ns"])
    key = (h["node"], h["to"])
    t0 = f["start_ns"]
    fig, axes = plt.subplots(4, 1, figsize=(11, 11), sharex=True)
    ax = axes[0]
    enq = {}
    held = ([], [])
    for r in tr:
        k = (r["seq"], r["node"])
        if r["ev"] == "enq":
            enq[k] = int(r["t_ns"])
            if int(r["held_ns"]) > 0:
                held[0].append((int(r["t_ns"]) - int(r["held_ns"]) - t0) / 1e3)
                held[1].append(int(r["held_ns"]) / 1e3)
    if held[0]:
        ax.plot(held[0], held[1], "x", ms=3, color="k", label="held in gateway DRAM")
    series = {}
    for r in tr:
        if r["ev"] != "deq":
            continue
        k = (r["seq"], r["node"])
        name = f"{w.hop_name(int(r['node']), int(r['to']))} {r['node']}->{r['to']}"
        s = series.setdefault(name, ([], []))
        s[0].append((enq.get(k, int(r["t_ns"])) - t0) / 1e3)
        s[1].append(int(r["wait_ns"]) / 1e3)
    for name, (x, y) in series.items():
        ax.plot(x, y, ".", ms=3, label=name)
    ax.set_ylabel("wait per packet (us)")
    ax.set_yscale("symlog", linthresh=10)
    kind = "inter" if f["inter"] else "intra"
    ax.set_title(f"{label}: flow {flow_id} ({kind}-DC, {f['src']}->{f['dst']}, {f['size']} B, "
                 f"slowdown {f['slowdown']:.1f})")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    # The slowest hop's queue by class.
    qfile = os.path.join(path, "queue_class.csv")
    ax = axes[1]
    lo_ms, hi_ms = -2.0, (f["fct_ns"] + 200_000) / 1e3
    if os.path.isfile(qfile):
        col = f"{key[0]}->{key[1]}"
        ts, qi, qx = [], [], []
        with open(qfile) as fq:
            for r in csv.DictReader(fq):
                t = (int(r["t_ns"]) - t0) / 1e3
                if t < lo_ms * 1e3 or t > hi_ms:
                    continue
                ts.append(t)
                qi.append(int(r[col + ":intra"]) / 1e6)
                qx.append(int(r[col + ":inter"]) / 1e6)
        ax.stackplot(ts, qi, qx, labels=["intra-DC bytes", "inter-DC bytes"], alpha=0.7)
        ax.legend(fontsize=7, loc="upper right")
    ax.set_ylabel(f"queue {key[0]}->{key[1]} (MB)")
    ax.grid(alpha=0.3)
    # Inter-DC flows through that hop: their packets' first arrival and first cut there.
    ax = axes[2]
    y = 0
    for g in sorted(w.flows.values(), key=lambda g: g["start_ns"]):
        if not g["inter"] or not any((x["node"], x["to"]) == key for x in w.hops.get(g["id"], [])):
            continue
        hops = w.hops[g["id"]]
        idx = [i for i, x in enumerate(hops) if (x["node"], x["to"]) == key][0]
        d = WAN_ONE_WAY_NS if len(hops) == 6 and idx > 2 else 0
        a = (g["start_ns"] + d - t0) / 1e3
        cut = g["first_cut_ns"] if g["first_cut_ns"] >= 0 else g["fct_ns"]
        b = (g["start_ns"] + cut + d - t0) / 1e3
        if b < lo_ms * 1e3 or a > hi_ms:
            continue
        y += 1
        ax.plot([a, b], [y, y], "-", color="tab:red", lw=2)
        ax.plot([a], [y], "|", color="k")
    ax.set_ylabel("inter-DC flows via this hop")
    rfile = os.path.join(path, "rates.csv")
    ax = axes[3]
    if os.path.isfile(rfile):
        ts, rate = [], []
        with open(rfile) as fr:
            for r in csv.DictReader(fr):
                if int(r["flow"]) == flow_id:
                    ts.append((int(r["t_ns"]) - t0) / 1e3)
                    rate.append(int(r["rate_bps"]) / 1e9)
        ax.plot(ts, rate, lw=0.9)
        if not ts:
            ax.text(0.5, 0.5, "rates.csv has flows of at least [sim] ts_min_flow_bytes only",
                    transform=ax.transAxes, ha="center")
    ax.set_ylabel("its sender's rate (Gb/s)")
    ax.grid(alpha=0.3)
    ax = axes[2]
    ax.set_title("inter-DC flows through that hop, from their first packets' arrival there to "
                 "their first rate cut's arrival there; purple: CNPs to this flow's sender",
                 fontsize=9)
    axes[3].set_xlabel(f"time since flow {flow_id} started (us)")
    cnp = os.path.join(path, "cnps.csv")
    if os.path.isfile(cnp):
        with open(cnp) as fc:
            ts = [(int(r["t_ns"]) - t0) / 1e3 for r in csv.DictReader(fc)
                  if int(r["flow"]) == flow_id]
        for t in ts:
            for a in axes:
                a.axvline(t, color="tab:purple", lw=0.6, alpha=0.6)
    axes[3].set_xlim(lo_ms * 1e3, hi_ms)
    axes[2].grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cmd", choices=["table", "bins", "cdf", "timeseries", "all", "seeds",
                                    "worst", "waits", "waitbars", "trace"])
    ap.add_argument("runs", nargs="+", metavar="RUN")
    ap.add_argument("--out", help="PNG file (bins, cdf, timeseries) or directory (all)")
    ap.add_argument("--ref", help="seeds: reference FCTs in ms, INTRA,INTER")
    ap.add_argument("--pair", help="seeds: compare every config with this one, seed by seed")
    ap.add_argument("--split", type=float, help="seeds: also count runs whose FCT sum is under MS")
    ap.add_argument("--n", type=int, default=10, help="worst, waits: how many flows")
    ap.add_argument("--base", help="worst: the plain-DCQCN run of the same flows")
    ap.add_argument("--base-config", help="waits: the config to compare inter-DC flows with")
    ap.add_argument("--ids", action="store_true", help="worst: print only the flow ids")
    a = ap.parse_args()
    if a.cmd == "trace":
        if len(a.runs) != 2 or not a.out:
            ap.error("trace takes --out PNG RUN FLOW_ID")
        cmd_trace(parse_run(a.runs[0]), int(a.runs[1]), a.out)
        return
    runs = [parse_run(r) for r in a.runs]
    if a.cmd == "worst":
        if len(runs) != 1:
            ap.error("worst takes one run")
        cmd_worst(runs[0], a.base, a.n, a.ids)
        return
    if a.cmd == "waits":
        cmd_waits(runs, a.base_config, a.n)
        return
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
    elif a.cmd == "waitbars":
        cmd_waitbars(runs, a.out)
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
