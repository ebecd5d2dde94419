#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check that two longspan-sim builds simulate exactly the same thing.

  scripts/sim-compare.py [-t THEMIS_DIR] [-o OUT] [-g GROUP]... [-i KEY]... REF_SIM NEW_SIM

Runs every configuration of the chosen groups with both simulators, one run
at a time under `nice -n 10`, and compares the run directories: every file
byte for byte (fct.txt, flows.csv, queues.csv, rates.csv, cnps.csv), and
summary.json as JSON without its timing fields (wall_s, cpu_s,
events_per_s) and any KEY given with -i (a top-level key, e.g. one that only
the newer build writes).  Prints one line per run with both builds' CPU
seconds, and exits 1 if any run differs.

GROUP (default: lab, and test and mix when THEMIS_DIR is given):
  lab   congestion/sim/scenarios/lab at 10, 100 and 640 km, mechanisms none, A
        and A,C, and at 100 km the lossy WAN egress with and without
        retransmission, as scripts/lab-vs-sim.sh runs them
  test  THEMIS's `test`: baseline, A, A+C, A+C tuned (cnps.csv on), A+C tuned
        with the phantom marker, firmware hosts, the sender window on, seed 2
  mix   THEMIS's mix_50%_0.03s: baseline, A, A+C, A+C tuned (cnps.csv on)

THEMIS_DIR (or THEMIS=...) holds THEMIS's scenario directories (test/,
mix_50%_0.03s/); they are not part of this repository.  OUT (default
build/sim-compare) gets OUT/<group>/<run>/{ref,new}/.
"""

import argparse
import filecmp
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAB = os.path.join(ROOT, "congestion", "sim", "scenarios", "lab")
TUNED = os.path.join(ROOT, "congestion", "sim", "configs", "tuned.ini")
TIMING = ("wall_s", "cpu_s", "events_per_s")


def themis_runs(sc, extra):
    """(name, args) of the THEMIS scenario directory sc."""
    files = ["--topology", os.path.join(sc, "topology.txt"),
             "--flows", os.path.join(sc, "flow.txt"),
             "--hpcc-config", os.path.join(sc, "config.txt")]
    runs = [
        ("base", ["--window", "off", "--mechanisms", "none"]),
        ("A", ["--window", "off", "--mechanisms", "A"]),
        ("AC", ["--window", "off", "--mechanisms", "A,C"]),
        ("AC-tuned", ["--window", "off", "--mechanisms", "A,C", "--config", TUNED,
                      "-o", "sim.cnp_log=true"]),
    ] + extra
    return [(name, files + args) for name, args in runs]


def lab_runs():
    runs = []
    for km in (10, 100, 640):
        for mech in ("none", "A", "A,C"):
            ini = f"lab-{km}km-{'none' if mech == 'none' else 'A'}.ini"
            runs.append((f"km{km}-{mech.replace(',', '')}", km, ini, mech, []))
    for extra, name in ((["-o", "gateway.wan_buffer=70400"], "lossy"),
                        (["-o", "gateway.wan_buffer=70400", "-o", "sim.retransmit=false"],
                         "lossy-nort")):
        runs.append((f"km100-{name}-A", 100, "lab-100km-A.ini", "A", extra))
    out = []
    for name, km, ini, mech, extra in runs:
        out.append((name, ["--topology", os.path.join(LAB, f"topology-{km}km.txt"),
                           "--flows", os.path.join(LAB, "flow.txt"),
                           "--hpcc-config", os.path.join(LAB, "config.txt"),
                           "--config", os.path.join(LAB, ini), "--host-model", "firmware",
                           "--marker", "red", "--mechanisms", mech, "--end", "10s"] + extra))
    return out


def run(sim, args, out):
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        os.unlink(os.path.join(out, name))
    cmd = ["nice", "-n", "10", sim, *args, "--out", out, "--quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"sim-compare: {' '.join(cmd)} failed ({p.returncode}): {p.stderr}")
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def differences(ref_dir, new_dir, ref_sum, new_sum, ignore):
    diffs = []
    names = sorted(set(os.listdir(ref_dir)) | set(os.listdir(new_dir)))
    for name in names:
        a, b = os.path.join(ref_dir, name), os.path.join(new_dir, name)
        if not os.path.exists(a) or not os.path.exists(b):
            diffs.append(f"{name} only in {'new' if os.path.exists(b) else 'ref'}")
        elif name == "summary.json":
            ra = {k: v for k, v in ref_sum.items() if k not in TIMING and k not in ignore}
            rb = {k: v for k, v in new_sum.items() if k not in TIMING and k not in ignore}
            keys = sorted(k for k in set(ra) | set(rb) if ra.get(k) != rb.get(k))
            if keys:
                diffs.append("summary.json: " + ", ".join(keys))
        elif not filecmp.cmp(a, b, shallow=False):
            diffs.append(name)
    return diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-t", "--themis", default=os.environ.get("THEMIS"))
    ap.add_argument("-o", "--out", default=os.path.join(ROOT, "build", "sim-compare"))
    ap.add_argument("-g", "--group", action="append", choices=("lab", "test", "mix"))
    ap.add_argument("-i", "--ignore", action="append", default=[])
    ap.add_argument("ref")
    ap.add_argument("new")
    a = ap.parse_args()
    groups = a.group or (["lab", "test", "mix"] if a.themis else ["lab"])
    if ("test" in groups or "mix" in groups) and not a.themis:
        sys.exit("sim-compare: groups test and mix need THEMIS's scenarios: give -t DIR or "
                 "THEMIS=DIR, the directory that holds test/ and mix_50%_0.03s/")
    for sim in (a.ref, a.new):
        if not os.access(sim, os.X_OK):
            sys.exit(f"sim-compare: {sim}: not an executable")
    plan = []
    for g in groups:
        if g == "lab":
            plan += [(g, n, r) for n, r in lab_runs()]
        elif g == "test":
            sc = os.path.join(a.themis, "test")
            extra = [("AC-tuned-phantom", ["--window", "off", "--mechanisms", "A,C",
                                           "--config", TUNED, "--marker", "phantom"]),
                     ("AC-firmware", ["--window", "off", "--mechanisms", "A,C",
                                      "--host-model", "firmware"]),
                     ("base-window", ["--window", "auto", "--mechanisms", "none"]),
                     ("AC-tuned-seed2", ["--window", "off", "--mechanisms", "A,C",
                                         "--config", TUNED, "--seed", "2"])]
            plan += [(g, n, r) for n, r in themis_runs(sc, extra)]
        else:
            plan += [(g, n, r) for n, r in themis_runs(os.path.join(a.themis,
                                                                   "mix_50%_0.03s"), [])]
    failed = 0
    print(f"{'run':<28} {'ref CPU s':>9} {'new CPU s':>9}  result")
    for g, name, args in plan:
        base = os.path.join(a.out, g, name)
        rs = run(a.ref, args, os.path.join(base, "ref"))
        ns = run(a.new, args, os.path.join(base, "new"))
        diffs = differences(os.path.join(base, "ref"), os.path.join(base, "new"), rs, ns,
                            set(a.ignore))
        failed += bool(diffs)
        print(f"{g + '/' + name:<28} {rs['cpu_s']:>9.2f} {ns['cpu_s']:>9.2f}  "
              f"{'DIFFERENT: ' + '; '.join(diffs) if diffs else 'identical'}", flush=True)
    print(f"sim-compare: {len(plan) - failed} of {len(plan)} runs identical")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
