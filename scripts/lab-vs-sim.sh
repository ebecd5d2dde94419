#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The simulator side of docs/lab-vs-sim.md: runs longspan-sim on the lab's
# near-source scenario (congestion/sim/scenarios/lab/) at 10, 100 and 640 km
# with mechanisms none, A and A,C, extracts the lab's metrics and prints them
# next to the lab's own (lab-out/km<D>/mech-*/, from scripts/lab.sh).
#
#   scripts/lab-vs-sim.sh [-o OUT] [-l LABOUT] [-f]
#
# OUT (default build/lab-vs-sim) gets runs/km<D>/<config>/ (each with
# command.txt), table.md and metrics.json.  LABOUT (default lab-out) holds the
# lab runs; missing lab runs print as "-".  A run whose summary.json exists and
# is not partial (stopped by a signal) is kept unless -f.  About 2-4 s of CPU
# per run, 33 runs.  SIM=path overrides the simulator (default:
# build/congestion/sim/longspan-sim, built first).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/build/lab-vs-sim
LAB=$ROOT/lab-out
FORCE=0
while getopts "o:l:fh" opt; do
	case $opt in
	o) OUT=$OPTARG ;;
	l) LAB=$OPTARG ;;
	f) FORCE=1 ;;
	*) sed -n '3,16p' "$0"; exit 2 ;;
	esac
done

SC=$ROOT/congestion/sim/scenarios/lab
if [ -z "${SIM:-}" ]; then
	SIM=$ROOT/build/congestion/sim/longspan-sim
	ninja -C "$ROOT/build" congestion/sim/longspan-sim >/dev/null
fi
[ -x "$SIM" ] || { echo "lab-vs-sim: no simulator at $SIM" >&2; exit 1; }
mkdir -p "$OUT/runs"

# run DIR TOPOLOGY INI HPCC_CONFIG MECH [extra options...]
run() {
	local dir=$1 topo=$2 ini=$3 cfg=$4 mech=$5
	shift 5
	if [ $FORCE = 0 ] && [ -f "$dir/summary.json" ] &&
		! grep -q '"partial": true' "$dir/summary.json"; then
		return
	fi
	mkdir -p "$dir"
	local cmd=("$SIM" --topology "$topo" --flows "$SC/flow.txt" --hpcc-config "$cfg"
		--config "$SC/$ini" --host-model firmware --marker red --mechanisms "$mech"
		--end 10s --out "$dir" --quiet "$@")
	echo "lab-vs-sim: ${dir#"$OUT"/runs/}" >&2
	"${cmd[@]}"
	printf '%q ' "${cmd[@]}" >"$dir/command.txt"
	echo >>"$dir/command.txt"
}

for km in 10 100 640; do
	topo=$SC/topology-${km}km.txt
	for mech in none A A,C; do
		ini=lab-${km}km-$([ "$mech" = none ] && echo none || echo A).ini
		d=$OUT/runs/km$km/mech-${mech//,/}
		run "$d" "$topo" "$ini" "$SC/config.txt" "$mech"
		# The first milliseconds again with the WAN queue every 1 us, for the
		# time the queue first crossed Kmin and Kmax (the loop estimate).
		# Same seed and inputs: the same run, only sampled finer.
		end=$(awk -F, 'NR > 1 && $4 == 1 && $14 > m { m = $14 } END { print int(m / 1e6) + 2 }' \
			"$d/flows.csv")
		run "$d/probe" "$topo" "$ini" "$SC/config.txt" "$mech" -o sim.ts_interval=1us \
			--end "${end}ms"
	done
	# ACK every 16 packets, as the lab's receivers do (the simulator's NP then
	# sees only every 16th packet: see the doc).
	run "$OUT/runs/km$km/ack16-none" "$topo" "lab-${km}km-none.ini" "$SC/config-ack16.txt" none
done

# Sensitivity, one thing changed each (inputs derived into OUT/scenarios):
# the switches' shared buffer (BUFFER_SIZE 2 and 4 MB instead of 1 MB), the seed
# (RED's draws), and 60 us instead of 2.5 us on the inter-DC senders' access
# links (PFC headroom 3 x 400 Mb/s x 60 us = 9 kB instead of 375 B).
G=$OUT/scenarios
mkdir -p "$G"
for mb in 2 4; do
	sed "s/^BUFFER_SIZE .*/BUFFER_SIZE $mb/" "$SC/config.txt" >"$G/config-buf${mb}mb.txt"
	for km in 100 640; do
		run "$OUT/runs/km$km/buf${mb}mb-A" "$SC/topology-${km}km.txt" "lab-${km}km-A.ini" \
			"$G/config-buf${mb}mb.txt" A
	done
done
sed -E 's/^([0-3]) 12 400Mbps 2500ns 0$/\1 12 400Mbps 60000ns 0/' "$SC/topology-100km.txt" \
	>"$G/topology-100km-access60us.txt"
for km in 100 640; do
	for seed in 2 3; do
		run "$OUT/runs/km$km/seed$seed-A" "$SC/topology-${km}km.txt" "lab-${km}km-A.ini" \
			"$SC/config.txt" A --seed $seed
	done
done
for mech in none A; do
	run "$OUT/runs/km100/access60us-mech-$mech" "$G/topology-100km-access60us.txt" \
		"lab-100km-$mech.ini" "$SC/config.txt" $mech
done
# The gateway's WAN egress as the lab's traffic manager: a tail-drop buffer of
# the lab's size (one BDP from cc_params: 70.4 kB at 10 and 100 km, 448.8 kB
# without and 396 kB with A at 640 km), no PFC toward the DC.
for km in 10 100 640; do
	for mech in none A; do
		buf=70400
		[ $km = 640 ] && { [ $mech = none ] && buf=448800 || buf=396000; }
		run "$OUT/runs/km$km/lossy-mech-$mech" "$SC/topology-${km}km.txt" \
			"lab-${km}km-$mech.ini" "$SC/config.txt" $mech -o gateway.wan_buffer=$buf
		# ... and hosts that skip gaps instead of going back N, as hostem.
		run "$OUT/runs/km$km/lossy-nort-mech-$mech" "$SC/topology-${km}km.txt" \
			"lab-${km}km-$mech.ini" "$SC/config.txt" $mech -o gateway.wan_buffer=$buf \
			-o sim.retransmit=false
	done
done

# The gateway's derived defaults since December 2026 (A's CNP interval 20 us,
# C's cut interval 128 us and hold 148 us; docs/lab.md "New defaults"), with the
# shared buffer and PFC and with the lab's lossy WAN egress.
derived=(-o mech_a.cnp_interval=20us -o mech_c.cut_interval=128us -o mech_c.hold=148us)
run "$OUT/runs/km100/derived-mech-AC" "$SC/topology-100km.txt" lab-100km-A.ini \
	"$SC/config.txt" A,C "${derived[@]}"
run "$OUT/runs/km100/derived-lossy-mech-AC" "$SC/topology-100km.txt" lab-100km-A.ini \
	"$SC/config.txt" A,C "${derived[@]}" -o gateway.wan_buffer=70400

/usr/bin/python3 - "$OUT" "$LAB" <<'EOF'
import csv, json, math, os, statistics, sys

out, lab = sys.argv[1], sys.argv[2]
WAN_BPS = 500e6
SECONDS = 10.0
FRAME = 4144  # the simulator's data frame: 4096 B payload + 48 B headers
# Gateway CNP -> sender cut on the simulator's strict-priority path: mech_a.cnp_delay
# 1 us, 60 B at 10 Gb/s, 10 us gateway-ToR, 60 B at 400 Mb/s, 2.5 us ToR-host.
A_PATH_NS = 1000 + 48 + 10000 + 1200 + 2500


def jain(xs):
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if xs and sum(xs) else 0.0


def pctl(v, p):
    v = sorted(v)
    if not v:
        return 0
    pos = p / 100 * (len(v) - 1)
    lo = int(math.floor(pos))
    return v[lo] if lo + 1 >= len(v) else v[lo] + (v[lo + 1] - v[lo]) * (pos - lo)


def log2_edge(b):
    """The lab's p99 is the upper edge of a log2 bucket."""
    return 2 ** (int(math.log2(b)) + 1) if b > 1 else 2


def sim_metrics(d, km, kmin, kmax):
    s = json.load(open(os.path.join(d, "summary.json")))
    flows = list(csv.DictReader(open(os.path.join(d, "flows.csv"))))
    inter = {int(f["id"]) for f in flows if f["inter"] == "1"}
    # Goodput: in-order acknowledged payload over the run, from rates.csv.
    bits, rate_sum, rate_n, last = {}, {}, {}, {}
    for r in csv.DictReader(open(os.path.join(d, "rates.csv"))):
        f, t = int(r["flow"]), int(r["t_ns"])
        dt = t - last.get(f, 0)
        last[f] = t
        bits[f] = bits.get(f, 0) + int(r["goodput_bps"]) * dt / 1e9
        rate_sum[f] = rate_sum.get(f, 0) + int(r["rate_bps"])
        rate_n[f] = rate_n.get(f, 0) + 1
    good = {f: b / SECONDS for f, b in bits.items()}
    q = [int(r[k]) for r in csv.DictReader(open(os.path.join(d, "queues.csv")))
         for k in r if k.startswith("wan13->")]
    wan = [w for w in s["wan"] if w["from"] == 13][0]
    cuts = sorted(int(f["first_cut_ns"]) for f in flows if int(f["id"]) in inter)
    m = {
        "drops": s["drops"], "nacks": s["nacks"],
        "pfc_pauses": s["pfc"]["pause_count"],
        "pfc_pause_s": s["pfc"]["pause_ns_total"] / 1e9,
        "wan_queue_p50_bytes": pctl(q, 50), "wan_queue_p99_bytes": pctl(q, 99),
        "wan_queue_max_bytes": wan["queue_max_bytes"],
        "tor_queue_max_bytes": s["queue_max_bytes"]["tor"],
        "wan_utilization": wan["tx_bytes"] * 8 / (WAN_BPS * SECONDS),
        "inter_goodput_bps": sum(good[f] for f in inter),
        "inter_jain": jain([good[f] for f in sorted(inter)]),
        "inter_goodput_each_bps": [good[f] for f in sorted(inter)],
        "intra_goodput_each_bps": [good[f] for f in sorted(good) if f not in inter],
        "inter_rate_avg_bps": statistics.mean(rate_sum[f] / rate_n[f] for f in inter),
        "inter_cnps_per_qp": statistics.mean(int(f["rp_cnps"]) for f in flows
                                             if int(f["id"]) in inter),
        "cnp_gateway": s["cnp"]["gateway"], "cnp_host": s["cnp"]["host"],
        "first_cut_ns_median": statistics.median(cuts) if cuts and cuts[0] >= 0 else None,
        "first_cut_ns_min": cuts[0] if cuts and cuts[0] >= 0 else None,
        "trp_cnps": sum(g["trp_cnps"] for g in s["gateways"]),
        "dram_max_bytes": max(g["dram_max_bytes"] for g in s["gateways"]),
    }
    # Loop estimate: the first mark is possible once an arrival sees more than
    # Kmin ahead of it and certain once it sees more than Kmax.
    probe = os.path.join(d, "probe", "queues.csv")
    if os.path.exists(probe):
        t_kmin = t_kmax = None
        for r in csv.DictReader(open(probe)):
            w = int(r["wan13->14"]) - FRAME
            t = int(r["t_ns"])
            if t_kmin is None and w > kmin:
                t_kmin = t
            if t_kmax is None and w > kmax:
                t_kmax = t
                break
        pf = list(csv.DictReader(open(os.path.join(d, "probe", "flows.csv"))))
        pcut = min(int(f["first_cut_ns"]) for f in pf if f["inter"] == "1")
        m.update({"t_kmin_ns": t_kmin, "t_kmax_ns": t_kmax, "probe_first_cut_ns": pcut})
        if m["first_cut_ns_min"] is not None and t_kmax is not None:
            m["mark_to_cut_ns"] = [m["first_cut_ns_min"] - t_kmax,
                                   m["first_cut_ns_min"] - (t_kmin or t_kmax)]
    return m


def lab_metrics(d):
    p = os.path.join(d, "summary.json")
    if not os.path.exists(p):
        return None
    s = json.load(open(p))
    h = json.load(open(os.path.join(d, "hostem-a.json")))
    inter = [x for x in h["senders"] if x["qp"].startswith("inter")]
    # Gaps between successive CNPs at each inter-DC sender (hostem's CNP log):
    # the firmware RP raises its rate only in gaps longer than its 300 us timer.
    rx = {}
    log = os.path.join(d, "cnp-a.csv")
    if os.path.exists(log):
        for r in csv.DictReader(open(log)):
            if r["event"] == "rx" and r["qp"].startswith("inter"):
                rx.setdefault(r["qp"], []).append(int(r["t_ns"]))
    gaps = [b - a for v in rx.values() for a, b in zip(sorted(v), sorted(v)[1:])]
    return {
        "cnp_gap_p50_ns": pctl(gaps, 50) if gaps else None,
        "cnp_gaps_over_300us": sum(g > 300000 for g in gaps) / len(gaps) if gaps else None,
        "drops": s["wan_drops"], "wan_queue_p99_bytes": s["wan_queue_p99_bytes"],
        "wan_utilization": s["wan_utilization"],
        "inter_goodput_bps": s["inter_goodput_bps"], "inter_jain": s["inter_jain"],
        "inter_goodput_each_bps": [q["goodput_bps"] for q in s["qps"] if q["kind"] == "inter"],
        "intra_goodput_each_bps": [q["goodput_bps"] for q in s["qps"] if q["kind"] == "intra"],
        "feedback_loop_ns_median": s["feedback_loop_ns_median"],
        "inter_rate_avg_bps": statistics.mean(x["rate_avg_bps"] for x in inter),
        "inter_tx_bps": statistics.mean(x["tx_bps"] for x in inter),
        "inter_cnps_per_qp": statistics.mean(x["cnps"] for x in inter),
        "first_cut_ns_median": statistics.median(x["first_cut_ns"] for x in inter
                                                 if x["first_cut_ns"]),
    }


TH = {10: {"none": (8800, 35200), "A": (8800, 35200)},
      100: {"none": (8800, 35200), "A": (8800, 35200)},
      640: {"none": (56000, 224000), "A": (8800, 35200)}}
res = {}
for km in (10, 100, 640):
    for mech in ("none", "A", "A,C"):
        key = f"km{km}/mech-{mech.replace(',', '')}"
        kmin, kmax = TH[km]["none" if mech == "none" else "A"]
        res[key] = {"km": km, "mech": mech,
                    "sim": sim_metrics(os.path.join(out, "runs", key), km, kmin, kmax),
                    "lab": lab_metrics(os.path.join(lab, key))}
    key = f"km{km}/ack16-none"
    res[key] = {"km": km, "mech": "none (ACK/16)",
                "sim": sim_metrics(os.path.join(out, "runs", key), km, *TH[km]["none"]),
                "lab": None}
sens = {}
for key, what in (("km100/buf2mb-A", "100 km, A, BUFFER_SIZE 2 MB"),
                  ("km100/buf4mb-A", "100 km, A, BUFFER_SIZE 4 MB"),
                  ("km640/buf2mb-A", "640 km, A, BUFFER_SIZE 2 MB"),
                  ("km640/buf4mb-A", "640 km, A, BUFFER_SIZE 4 MB"),
                  ("km100/seed2-A", "100 km, A, seed 2"),
                  ("km100/seed3-A", "100 km, A, seed 3"),
                  ("km640/seed2-A", "640 km, A, seed 2"),
                  ("km640/seed3-A", "640 km, A, seed 3"),
                  ("km100/access60us-mech-none", "100 km, none, 60 us access links"),
                  ("km100/access60us-mech-A", "100 km, A, 60 us access links"),
                  ("km10/lossy-mech-none", "10 km, none, lossy WAN egress of the lab's size"),
                  ("km10/lossy-mech-A", "10 km, A, lossy WAN egress of the lab's size"),
                  ("km100/lossy-mech-none", "100 km, none, lossy WAN egress of the lab's size"),
                  ("km100/lossy-mech-A", "100 km, A, lossy WAN egress of the lab's size"),
                  ("km640/lossy-mech-none", "640 km, none, lossy WAN egress of the lab's size"),
                  ("km640/lossy-mech-A", "640 km, A, lossy WAN egress of the lab's size"),
                  ("km10/lossy-nort-mech-none", "10 km, none, lossy WAN egress, no retransmission"),
                  ("km10/lossy-nort-mech-A", "10 km, A, lossy WAN egress, no retransmission"),
                  ("km100/lossy-nort-mech-none", "100 km, none, lossy WAN egress, no retransmission"),
                  ("km100/lossy-nort-mech-A", "100 km, A, lossy WAN egress, no retransmission"),
                  ("km640/lossy-nort-mech-none", "640 km, none, lossy WAN egress, no retransmission"),
                  ("km640/lossy-nort-mech-A", "640 km, A, lossy WAN egress, no retransmission"),
                  ("km100/derived-mech-AC", "100 km, A,C, derived defaults (20 us, 128 us, 148 us)"),
                  ("km100/derived-lossy-mech-AC",
                   "100 km, A,C, derived defaults, lossy WAN egress of the lab's size")):
    sens[key] = {"what": what, "sim": sim_metrics(os.path.join(out, "runs", key), 0, 0, 0)}
json.dump({"runs": res, "sensitivity": sens}, open(os.path.join(out, "metrics.json"), "w"), indent=1)


def kb(b):
    return "-" if b is None else f"{b / 1e3:.0f} kB"


def mbps(b):
    return "-" if b is None else f"{b / 1e6:.0f}"


def us(ns):
    return "-" if ns is None else f"{ns / 1e3:.0f} us"


def ms(ns):
    return "-" if ns is None else f"{ns / 1e6:.2f} ms"


def pct(x):
    return "-" if x is None else f"{x * 100:.0f}%"


lines = []
P = lines.append


def pair(a, b):
    return f"{a} / {b}"


P("Lab / sim. Sim: WAN queue p99 time-sampled every 100 us (in brackets the upper edge of")
P("its log2 bucket, which is what the lab reports); drops at the ToR (PFC headroom < one")
P("frame, see docs/lab-vs-sim.md); feedback loop: none = first mark -> first cut (the")
P("first mark lies between the first Kmin and Kmax crossings), A = gateway CNP -> cut.\n")
P("| km | mechanisms | WAN queue p99 | WAN drops | WAN util | inter goodput (Mb/s) | Jain "
  "| feedback loop |")
P("|---|---|---|---|---|---|---|---|")
for key, r in res.items():
    if "ack16" in key:
        continue
    L, S = r["lab"] or {}, r["sim"]
    if r["mech"] == "none":
        lo, hi = S.get("mark_to_cut_ns") or (None, None)
        loop = f"{ms(lo)}-{ms(hi)}"
    else:
        loop = f"{us(A_PATH_NS)}"
    lj = f"{L['inter_jain']:.3f}" if L else "-"
    P(f"| {r['km']} | {r['mech']} "
      f"| {pair(kb(L.get('wan_queue_p99_bytes')), kb(S['wan_queue_p99_bytes']))} "
      f"({kb(log2_edge(S['wan_queue_p99_bytes']))}) "
      f"| {pair(L.get('drops', '-'), S['drops'])} "
      f"| {pair(pct(L.get('wan_utilization')), pct(S['wan_utilization']))} "
      f"| {pair(mbps(L.get('inter_goodput_bps')), mbps(S['inter_goodput_bps']))} "
      f"| {pair(lj, format(S['inter_jain'], '.3f'))} "
      f"| {pair(ms(L.get('feedback_loop_ns_median')), loop)} |")
P("")
P("Senders and signals, lab / sim (R_C: the reaction point's rate, time average; first cut:")
P("after the start, median over the inter-DC QPs). Sim only: go-back-N NAKs, PFC pause")
P("frames, WAN queue p50 and the sojourn it means at 500 Mb/s.\n")
P("| km | mechanisms | inter R_C avg (Mb/s) | CNPs per inter QP | lab: CNP gap p50, > 300 us "
  "| first cut | intra goodput each (Mb/s) | NAKs | PFC pauses | WAN queue p50 (sojourn) |")
P("|---|---|---|---|---|---|---|---|---|---|")
for key, r in res.items():
    L, S = r["lab"] or {}, r["sim"]
    intra_l = L.get("intra_goodput_each_bps")
    lc = f"{L['inter_cnps_per_qp']:.0f}" if L else "-"
    P(f"| {r['km']} | {r['mech']} "
      f"| {pair(mbps(L.get('inter_rate_avg_bps')), mbps(S['inter_rate_avg_bps']))} "
      f"| {pair(lc, format(S['inter_cnps_per_qp'], '.0f'))} "
      f"| {us(L.get('cnp_gap_p50_ns'))}, {pct(L.get('cnp_gaps_over_300us'))} "
      f"| {pair(ms(L.get('first_cut_ns_median')), ms(S['first_cut_ns_median']))} "
      f"| {pair(mbps(statistics.mean(intra_l)) if intra_l else '-', mbps(statistics.mean(S['intra_goodput_each_bps'])))} "
      f"| {S['nacks']} | {S['pfc_pauses']} "
      f"| {kb(S['wan_queue_p50_bytes'])} ({ms(S['wan_queue_p50_bytes'] * 8e9 / WAN_BPS)}) |")
P("")
P("Sim: WAN queue first above Kmin / Kmax ahead of an arrival (first mark possible /")
P("certain), and the first rate cut of any inter-DC QP:\n")
for key, r in res.items():
    S = r["sim"]
    if S.get("t_kmin_ns") is not None:
        P(f"- {key}: {us(S['t_kmin_ns'])} / {us(S['t_kmax_ns'])}; first cut {us(S['first_cut_ns_min'])}")
P("")
P("Sim sensitivity (one input changed from the row it names):\n")
P("| run | WAN queue p50 | ToR queue max | drops | NAKs | PFC pauses | inter R_C avg | "
  "inter goodput | Jain |")
P("|---|---|---|---|---|---|---|---|---|")
for key, r in sens.items():
    S = r["sim"]
    P(f"| {r['what']} | {kb(S['wan_queue_p50_bytes'])} | {kb(S['tor_queue_max_bytes'])} "
      f"| {S['drops']} | {S['nacks']} | {S['pfc_pauses']} | {mbps(S['inter_rate_avg_bps'])} "
      f"| {mbps(S['inter_goodput_bps'])} | {S['inter_jain']:.3f} |")
text = "\n".join(lines) + "\n"
open(os.path.join(out, "table.md"), "w").write(text)
print(text)
EOF
