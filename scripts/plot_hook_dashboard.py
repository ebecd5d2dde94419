#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Render the panels of config/grafana-longspan-hooks.json with matplotlib from
series scraped off a gateway's Prometheus endpoint (for docs, where no
Grafana runs).

    plot_hook_dashboard.py --url http://127.0.0.1:9464/metrics --samples 30 --out dash.png
    plot_hook_dashboard.py --url URL --save series.json      # scrape only
    plot_hook_dashboard.py --load series.json --out dash.png # draw only

Scrapes every --every seconds, then draws rates of the counters the
dashboard charts (throughput, packets, CE share, CNPs, PSN gaps / NAKs /
retransmissions, sojourn p50/p99 from the histogram buckets) and the top
flows by bytes at the last sample.
"""

import argparse
import json
import re
import time
import urllib.request

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')


def scrape(url):
    text = urllib.request.urlopen(url, timeout=5).read().decode()
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        m = SAMPLE.match(line)
        if m:
            out[(m.group(1), m.group(3) or "")] = float(m.group(4))
    return out


def rate(ts, samples, name, labels=""):
    xs, ys = [], []
    for i in range(1, len(samples)):
        a, b = samples[i - 1].get((name, labels)), samples[i].get((name, labels))
        if a is None or b is None:
            continue
        xs.append(ts[i] - ts[0])
        ys.append((b - a) / (ts[i] - ts[i - 1]))
    return xs, ys


def quantile(q, buckets):
    """Prometheus histogram_quantile over [(le, count)] of one interval."""
    buckets = sorted(buckets)
    total = buckets[-1][1] if buckets else 0
    if total <= 0:
        return None
    rank, prev_le, prev_c = q * total, 0.0, 0.0
    for le, c in buckets:
        if c >= rank:
            if le == float("inf"):
                return prev_le
            return prev_le + (le - prev_le) * (rank - prev_c) / max(c - prev_c, 1e-12)
        prev_le, prev_c = le, c
    return prev_le


def sojourn(ts, samples, q):
    xs, ys = [], []
    for i in range(1, len(samples)):
        bk = []
        for (n, ls), v in samples[i].items():
            if n != "longspan_hook_sojourn_seconds_bucket":
                continue
            le = re.search(r'le="([^"]+)"', ls).group(1)
            bk.append((float("inf") if le == "+Inf" else float(le),
                       v - samples[i - 1].get((n, ls), 0.0)))
        v = quantile(q, bk)
        if v is not None:
            xs.append(ts[i] - ts[0])
            ys.append(v * 1e6)
    return xs, ys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url")
    ap.add_argument("--save", help="write the scraped series here and stop")
    ap.add_argument("--load", help="draw these series instead of scraping")
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--every", type=float, default=1.0)
    ap.add_argument("--title", default="Longspan RoCE telemetry (eBPF hooks)")
    ap.add_argument("--out")
    args = ap.parse_args()
    ts, samples = [], []
    if args.load:
        with open(args.load) as f:
            d = json.load(f)
        ts = d["t"]
        samples = [{(k.split("\t")[0], k.split("\t")[1]): v for k, v in s.items()}
                   for s in d["samples"]]
    else:
        for _ in range(args.samples):
            ts.append(time.monotonic())
            samples.append(scrape(args.url))
            time.sleep(args.every)
    if args.save:
        with open(args.save, "w") as f:
            json.dump({"t": ts, "samples": [{f"{n}\t{ls}": v for (n, ls), v in s.items()}
                                            for s in samples]}, f)
        return

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(4, 2, figsize=(14, 13))
    fig.suptitle(args.title)

    def panel(a, title, unit, series):
        for label, (x, y) in series:
            a.plot(x, y, label=label)
        a.set_title(title)
        a.set_ylabel(unit)
        a.set_xlabel("s")
        a.grid(alpha=0.3)
        a.legend(fontsize=8)

    scale = lambda xy, k: (xy[0], [v * k for v in xy[1]])  # noqa: E731
    panel(ax[0][0], "RoCE throughput through the gateway", "Gbit/s", [
        ("received", scale(rate(ts, samples, "longspan_hook_bytes_total"), 8e-9)),
        ("transmitted", scale(rate(ts, samples, "longspan_hook_tx_bytes_total"), 8e-9))])
    panel(ax[0][1], "RoCE packets", "Mpps", [
        ("received", scale(rate(ts, samples, "longspan_hook_packets_total"), 1e-6)),
        ("transmitted", scale(rate(ts, samples, "longspan_hook_tx_packets_total"), 1e-6)),
        ("dropped after rx", scale(rate(ts, samples, "longspan_hook_tx_drops_total"), 1e-6))])
    ce, pk = rate(ts, samples, "longspan_hook_ce_packets_total"), \
        rate(ts, samples, "longspan_hook_packets_total")
    panel(ax[1][0], "ECN: share of packets received CE", "%", [
        ("CE received", (ce[0], [100 * c / max(p, 1) for c, p in zip(ce[1], pk[1])]))])
    panel(ax[1][1], "CNPs", "per s", [
        ("from hosts", rate(ts, samples, "longspan_hook_cnps_seen_total")),
        ("generated by the gateway", rate(ts, samples, "longspan_hook_cnps_generated_total"))])
    panel(ax[2][0], "Loss and recovery", "per s", [
        ("PSN gaps", rate(ts, samples, "longspan_hook_psn_gaps_total")),
        ("retransmissions", rate(ts, samples, "longspan_hook_retransmissions_total")),
        ("NAKs", rate(ts, samples, "longspan_hook_naks_total"))])
    panel(ax[2][1], "Sojourn in the gateway", "us", [
        ("p50", sojourn(ts, samples, 0.5)), ("p99", sojourn(ts, samples, 0.99))])
    peers = sorted({ls for (n, ls) in samples[-1] if n == "longspan_hook_peer_bytes_total"})
    panel(ax[3][0], "Throughput per peer", "Gbit/s", [
        (ls, scale(rate(ts, samples, "longspan_hook_peer_bytes_total", ls), 8e-9)) for ls in peers])
    top = sorted(((v, ls) for (n, ls), v in samples[-1].items()
                  if n == "longspan_hook_flow_bytes_total"), reverse=True)[:10]
    ax[3][1].axis("off")
    ax[3][1].set_title("Top flows by bytes (last scrape)")
    rows = [[re.sub(r'(\w+)="([^"]*)"', r"\2", ls).replace(",", " "), "%.0f" % v]
            for v, ls in top]
    if rows:
        ax[3][1].table(cellText=rows, colLabels=["src dst sport dest_qp direction", "bytes"],
                       loc="upper center", fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=80)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
