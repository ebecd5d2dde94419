#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/lab.py's run summary: the intra-DC stream's max-min fair share, the
drops counted on every hop (consumed control frames left out), the PFC a
gateway sent, and the configs of the dest scenario and of the intra-DC
reference run."""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
import lab  # noqa: E402

failures = 0


def check(cond, msg):
    global failures
    if not cond:
        print(f"FAIL: {msg}")
        failures += 1


def close(a, b):
    return abs(a - b) < 1e-6 * max(1.0, abs(b))


# Max-min: 300 among five demands of 100 -> 60 each; a small demand is met
# and the rest split what is left.
check(all(close(x, 60e6) for x in lab.max_min_share(300e6, [100e6] * 5)), "five equal demands")
s = lab.max_min_share(300e6, [100e6, 100e6, 100e6, 100e6, 20e6])
check(close(s[4], 20e6) and all(close(x, 70e6) for x in s[:4]), f"a small demand: {s}")
s = lab.max_min_share(1e9, [100e6, 200e6])
check(close(s[0], 100e6) and close(s[1], 200e6), f"capacity left over: {s}")

# Drops: consumed probes, credit updates and PFC frames are not losses.
ans = {"total": 1680, "drops": {
    "wan_queue_full": {"count": 582, "description": "x"},
    "probe_consumed": {"count": 100, "description": "x"},
    "credit_control": {"count": 998, "description": "x"},
    "pfc_consumed": {"count": 5852, "description": "x"},
    "tx_ring_full": {"count": 0, "description": "x"}}}
check(lab.gateway_drops(ans) == {"wan_queue_full": 582}, f"gateway drops {lab.gateway_drops(ans)}")
hb = {"downlink": {"drops": 7}}
wanem = {"directions": [{"drop_queue": 2, "drop_slots": 1, "drop_loss": 50},
                        {"drop_queue": 0, "drop_slots": 0, "drop_loss": 9}]}
tm_a = {"mechanism_b": {"enabled": True, "held": 0, "tx_lapses": 3, "tx_lapsed_ns": 4_500_000,
                        "priority_3": {"tx_pauses": 400, "tx_paused_ns": 2_500_000_000}}}
tm_b = {"mechanism_b": {"enabled": True, "held": 1234, "priority_3": {"tx_pauses": 0}}}
out = lab.loss_and_pauses(hb, wanem, {"a": ans, "b": {"drops": {}}}, tm_a, tm_b, 10.0)
check(out["wanem_drops"] == 3, f"the line's drops, asked-for loss left out: {out['wanem_drops']}")
check(out["drops_total"] == 582 + 3 + 7, f"drops on every hop: {out['drops_total']}")
check(close(out["pfc_to_site_a_per_s"], 40.0), f"pauses per second {out['pfc_to_site_a_per_s']}")
check(close(out["site_a_paused_fraction"], 0.25), f"paused {out['site_a_paused_fraction']}")
check(out["gateway_b_held_pkts"] == 1234, "gateway B held")
check(out["gateway_b_c"] == {"trp_cnps": 0, "trp_no_flow": 0, "trp_upstream_ce": 0,
                             "trp_activations": 0, "trp_delayed": 0},
      f"no mechanism C at gateway B: {out['gateway_b_c']}")
check(out["site_a_pause_lapses"] == 3 and close(out["site_a_lapsed_ms"], 4.5),
      f"lapses {out['site_a_pause_lapses']}, {out['site_a_lapsed_ms']} ms")
check(lab.pfc_lapses({}) == (None, None), "no mechanism B: no lapses")
check(lab.pfc_sent({}, 10.0) == (None, None, None), "no mechanism B: nothing measured")

# Configs: dest adds the congested DC side and site B's intra-DC stream; the
# reference run leaves site A's inter-DC senders out.
tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"lab-summary-{os.getpid()}")
args = argparse.Namespace(scenario="dest", seconds=5, host_rate="100M", tor_rate="10G",
                          variant="firmware", pacing_grid="0", tools="separate",
                          dc_rate="300M", dc_red="16kB,48kB", out=tmp, build="build")
L = lab.Lab(args, tmp, "A,B", inter=False)
L.hostem_configs()
a_ini = open(os.path.join(tmp, "hostem-a.ini")).read()
b_ini = open(os.path.join(tmp, "hostem-b.ini")).read()
check("[qp inter" not in a_ini and "[qp intra0]" in a_ini, "reference run: no inter-DC sender")
check("dc_rate = 300M" in b_ini and "[qp intra-b0]" in b_ini and "[qp intra-b0-rx]" in b_ini,
      "dest: site B's DC side and its intra-DC stream")
check("dc_kmin = 16kB" in b_ini and "dc_kmax = 48kB" in b_ini, "dest: RED at site B's DC side")
check("duration = 5s" in b_ini, "dest: site B's sender runs for the run")
args.dc_red = "off"
lab.Lab(args, tmp, "A,B", inter=False).hostem_configs()
check("dc_kmax" not in open(os.path.join(tmp, "hostem-b.ini")).read(), "--dc-red off: no marking")
args.scenario = "near-source"
L = lab.Lab(args, tmp, "A")
L.hostem_configs()
b_ini = open(os.path.join(tmp, "hostem-b.ini")).read()
check("dc_rate" not in b_ini and "[qp inter0]" in open(os.path.join(tmp, "hostem-a.ini")).read(),
      "near-source configs unchanged")
for f in os.listdir(tmp):
    os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)

print("lab_summary: %s" % ("FAILED" if failures else "ok"))
sys.exit(1 if failures else 0)
