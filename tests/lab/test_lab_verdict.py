#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/lab_verdict.py: starved runs are listed but enter no median and no
verdict; medians and ranges over the rest; the verdict sentence."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
import lab_verdict  # noqa: E402

failures = 0


def check(cond, msg):
    global failures
    if not cond:
        print(f"FAIL: {msg}")
        failures += 1


def run(mech, drops, loop_ns, util, starved=False):
    return {"mechanisms": mech, "wan_drops": drops, "feedback_loop_ns_median": loop_ns,
            "wan_utilization": util, "inter_goodput_bps": util * 500e6, "inter_jain": 0.99,
            "starved": starved}


runs = [
    run("none", 320_000, 2_600_000, 0.90),
    run("A", 5_000, 200_000, 0.99),
    run("none", 300_000, 2_400_000, 0.88),
    # A starved run with numbers that would change every median: ignored.
    run("A", 900_000, 90_000_000, 0.10, starved=True),
    run("none", 340_000, 2_800_000, 0.92),
    run("A", 7_000, 240_000, 0.97),
    run("A", 3_000, 180_000, 0.99),
]
agg = lab_verdict.aggregate(runs)
check(list(agg) == ["none", "A"], f"mechanisms in first-seen order: {list(agg)}")
check(agg["A"]["runs"] == 4 and agg["A"]["starved"] == 1, f"A counts {agg['A']}")
check(agg["A"]["wan_drops"] == {"median": 5_000, "min": 3_000, "max": 7_000, "n": 3},
      f"A drops {agg['A']['wan_drops']}")
check(agg["none"]["feedback_loop_ns_median"]["median"] == 2_600_000, "none loop median")
v = lab_verdict.verdict(agg)
check(v == ["mechanism A: WAN drops 320k -> 5.0k, feedback loop 2.6 ms -> 0.20 ms, "
            "utilisation 90% -> 99% (medians, 3 vs 3 runs not starved)"], f"verdict {v}")
t = lab_verdict.table(agg)
check("| A | 4 (1) | 5.0k [3.0k-7.0k] |" in t, f"table row: {t}")

# An even count takes the mean of the middle two.
check(lab_verdict.median([1, 2, 3, 10]) == 2.5, "even median")

# Every run of a mechanism starved: no verdict, said so.
agg = lab_verdict.aggregate([run("none", 1, 1, 0.5), run("A", 1, 1, 0.5, starved=True)])
v = lab_verdict.verdict(agg)
check(len(v) == 1 and "no verdict" in v[0] and "A was starved" in v[0], f"starved verdict {v}")
check(agg["A"]["wan_drops"] is None, "no median from starved runs")

# A run without the starved mark (an old summary) counts as starved.
agg = lab_verdict.aggregate([{"mechanisms": "none", "wan_drops": 1}])
check(agg["none"]["starved"] == 1, "unmarked run")

print("passed" if failures == 0 else f"FAILED ({failures})")
sys.exit(1 if failures else 0)
