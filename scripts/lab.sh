#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The two-site lab on one machine: set up the machine, build, then run
# scripts/lab.py (site A endpoints, gateway A, a 100 km WAN delay line,
# gateway B, site B endpoints, all DPDK processes joined by vhost-user
# links; --link memif for net_memif).
#
# As root:
#   scripts/lab.sh                       # near-source scenario, mechanisms none vs A
#   scripts/lab.sh --mechanisms A,C      # one run with mechanisms A and C
#   scripts/lab.sh --distance-km 640 --marker sojourn
#   scripts/lab.sh --scenario dest --mechanisms A A,B   # site B's DC side the bottleneck
#   scripts/lab.sh --scenario mix        # traffic mix, checks every packet arrives intact
#   scripts/lab.sh --mechanisms none A A,C --repeat 5   # medians of 5 runs, the verdict
#   scripts/lab.sh --hog 2               # two busy loops beside it: runs marked starved
#
# Every option: scripts/lab.py --help. Results: lab-out/TIMESTAMP/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD=build scripts/build.sh >/dev/null
exec /usr/bin/python3 scripts/lab.py --build build "$@"
