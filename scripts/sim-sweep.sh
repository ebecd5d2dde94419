#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Runs every longspan-sim configuration docs/congestion.md reports, one at a
# time (sweeps share the machine), then writes the tables and plots.
#
#   scripts/sim-sweep.sh -t THEMIS_DIR [-o OUT] [-f] [GROUP...]
#   THEMIS=THEMIS_DIR scripts/sim-sweep.sh [-o OUT] [-f] [GROUP...]
#
# THEMIS_DIR holds THEMIS's scenario directories (test/, mix_50%_0.03s/, as
# in its repository's NS3/simulation/mix/); they are not part of this
# repository.  GROUP: test mix neardst distance wan firmware seeds inband
# tuning testseeds testgrid waits isolated (default: all).  A run whose summary.json exists
# and is not partial is kept unless -f, so an interrupted sweep resumes
# where it stopped.  OUT defaults to build-sim/sim-sweep; results go to
# OUT/runs/<scenario>/<config>/, tables to OUT/tables.md, plots to
# OUT/img/.  Needs /usr/bin/python3 with matplotlib for the plots.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/build-sim/sim-sweep
FORCE=0
THEMIS=${THEMIS:-}
while getopts "t:o:fh" opt; do
	case $opt in
	t) THEMIS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	f) FORCE=1 ;;
	*) sed -n '3,18p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
GROUPS_WANTED=${*:-"test mix neardst distance wan firmware seeds inband tuning testseeds testgrid waits isolated"}

if [ -z "$THEMIS" ]; then
	echo "sim-sweep: where are THEMIS's scenarios? Give -t DIR or THEMIS=DIR, the directory" \
		"that holds test/ and mix_50%_0.03s/ (THEMIS's NS3/simulation/mix/)" >&2
	exit 2
fi
SIM=${SIM:-$ROOT/build-sim/congestion/sim/longspan-sim}
TUNED=$ROOT/congestion/sim/configs/tuned.ini
PNP=$ROOT/congestion/sim/configs/themis-pnp.ini
PY=/usr/bin/python3
PLOT=$ROOT/scripts/plot-sim.py

if [ -z "${SIM_NO_BUILD:-}" ]; then
	[ -d "$ROOT/build-sim" ] || meson setup "$ROOT/build-sim" >/dev/null
	ninja -C "$ROOT/build-sim" congestion/sim/longspan-sim >/dev/null
fi
[ -x "$SIM" ] || { echo "sim-sweep: no simulator at $SIM" >&2; exit 1; }
[ -f "$THEMIS/test/topology.txt" ] && [ -f "$THEMIS/mix_50%_0.03s/topology.txt" ] || {
	echo "sim-sweep: $THEMIS: no test/topology.txt and mix_50%_0.03s/topology.txt there" >&2
	exit 1
}

SC=$OUT/scenarios
mkdir -p "$SC" "$OUT/runs" "$OUT/img"

# ------------------------------------------------------------ scenarios
# All derived from THEMIS's files by changing one thing, so every number
# stays comparable with the published scenario.
T=$THEMIS/test
M=$THEMIS/mix_50%_0.03s
# The 48-49 link is the WAN: 500 us one way for 100 km in THEMIS (5 us/km).
sed 's/^48 49 1600Gbps 500000ns/48 49 1600Gbps 50000ns/' "$T/topology.txt" >"$SC/topology-10km.txt"
sed 's/^48 49 1600Gbps 500000ns/48 49 1600Gbps 3200000ns/' "$T/topology.txt" >"$SC/topology-640km.txt"
# WAN bottleneck: 400G between the gateways (about 100% of mix_50%'s inter-DC load
# in bursts), so the gateway's WAN egress queue, and its marker, matter.
sed 's/^48 49 1600Gbps 500000ns/48 49 400Gbps 500000ns/' "$M/topology.txt" >"$SC/topology-wan400.txt"
# Near destination: an inter-DC flow (host 1, DC1) and an intra-DC flow (host 24,
# DC2, another ToR) converge on host 18's 100G link; 100 MB each, as in `test`.
printf '2\n1 18 3 100 100000000 2.000000000\n24 18 3 100 100000000 2.000000000\n' \
	>"$SC/flow-neardst.txt"

# run SCENARIO CONFIG TOPOLOGY FLOWS HPCC_CONFIG [longspan-sim options...]
run() {
	local sc=$1 cfg=$2 topo=$3 fl=$4 hc=$5
	shift 5
	local dir=$OUT/runs/$sc/$cfg
	if [ $FORCE = 0 ] && [ -f "$dir/summary.json" ] &&
		! grep -q '"partial": true' "$dir/summary.json"; then
		return
	fi
	mkdir -p "$dir"
	echo "sim-sweep: $sc/$cfg" >&2
	"$SIM" --topology "$topo" --flows "$fl" --hpcc-config "$hc" --out "$dir" --quiet "$@"
	printf '%q ' "$SIM" --topology "$topo" --flows "$fl" --hpcc-config "$hc" --out "$dir" \
		"$@" >"$dir/command.txt"
	echo >>"$dir/command.txt"
}

# The standard configurations of one scenario.  THEMIS's ns-3 does not
# enforce the sender window (IsWinBound() is commented out in its
# qbb-net-device.cc), so every THEMIS comparison runs with --window off.
standard() {
	local sc=$1 topo=$2 fl=$3 hc=$4
	shift 4
	run "$sc" base "$topo" "$fl" "$hc" --window off --mechanisms none "$@"
	run "$sc" A "$topo" "$fl" "$hc" --window off --mechanisms A "$@"
	run "$sc" AC "$topo" "$fl" "$hc" --window off --mechanisms A,C "$@"
	run "$sc" A-tuned "$topo" "$fl" "$hc" --window off --mechanisms A --config "$TUNED" "$@"
	run "$sc" AC-tuned "$topo" "$fl" "$hc" --window off --mechanisms A,C --config "$TUNED" "$@"
}

markers() {
	local sc=$1 topo=$2 fl=$3 hc=$4
	for k in red sojourn phantom; do
		run "$sc" "A-$k" "$topo" "$fl" "$hc" --window off --mechanisms A --marker $k
		run "$sc" "AC-tuned-$k" "$topo" "$fl" "$hc" --window off --mechanisms A,C \
			--config "$TUNED" --marker $k
	done
}

for g in $GROUPS_WANTED; do
	case $g in
	test)
		standard test "$T/topology.txt" "$T/flow.txt" "$T/config.txt"
		run test C "$T/topology.txt" "$T/flow.txt" "$T/config.txt" --window off --mechanisms C
		run test base-window "$T/topology.txt" "$T/flow.txt" "$T/config.txt" --window auto
		markers test "$T/topology.txt" "$T/flow.txt" "$T/config.txt"
		;;
	mix)
		standard mix "$M/topology.txt" "$M/flow.txt" "$M/config.txt"
		run mix C "$M/topology.txt" "$M/flow.txt" "$M/config.txt" --window off --mechanisms C
		run mix base-window "$M/topology.txt" "$M/flow.txt" "$M/config.txt" --window auto
		run mix pnp "$M/topology.txt" "$M/flow.txt" "$M/config.txt" --window off \
			--mechanisms A --config "$PNP"
		markers mix "$M/topology.txt" "$M/flow.txt" "$M/config.txt"
		;;
	neardst)
		standard neardst "$T/topology.txt" "$SC/flow-neardst.txt" "$T/config.txt"
		run neardst C "$T/topology.txt" "$SC/flow-neardst.txt" "$T/config.txt" \
			--window off --mechanisms C
		;;
	distance)
		standard test-10km "$SC/topology-10km.txt" "$T/flow.txt" "$T/config.txt"
		standard test-640km "$SC/topology-640km.txt" "$T/flow.txt" "$T/config.txt"
		standard neardst-10km "$SC/topology-10km.txt" "$SC/flow-neardst.txt" "$T/config.txt"
		standard neardst-640km "$SC/topology-640km.txt" "$SC/flow-neardst.txt" "$T/config.txt"
		;;
	wan)
		standard mix-wan400 "$SC/topology-wan400.txt" "$M/flow.txt" "$M/config.txt"
		markers mix-wan400 "$SC/topology-wan400.txt" "$M/flow.txt" "$M/config.txt"
		;;
	firmware)
		for sc in test mix; do
			if [ $sc = test ]; then d=$T; else d=$M; fi
			standard "$sc-firmware" "$d/topology.txt" "$d/flow.txt" "$d/config.txt" \
				--host-model firmware
		done
		;;
	seeds)
		for s in 2 3 4; do
			for c in base A AC-tuned pnp; do
				case $c in
				base) o=(--mechanisms none) ;;
				A) o=(--mechanisms A) ;;
				AC-tuned) o=(--mechanisms A,C --config "$TUNED") ;;
				pnp) o=(--mechanisms A --config "$PNP") ;;
				esac
				run mix "$c-seed$s" "$M/topology.txt" "$M/flow.txt" "$M/config.txt" \
					--window off --seed $s "${o[@]}"
				[ $c = pnp ] && continue # test-seeds covers test
				run test "$c-seed$s" "$T/topology.txt" "$T/flow.txt" "$T/config.txt" \
					--window off --seed $s "${o[@]}"
			done
		done
		;;
	inband)
		# Mechanism A learning sender QPNs from returning ACKs only.
		run mix A-inband "$M/topology.txt" "$M/flow.txt" "$M/config.txt" --window off \
			--mechanisms A -o mech_a.qpn_learning=inband
		run mix AC-tuned-inband "$M/topology.txt" "$M/flow.txt" "$M/config.txt" --window off \
			--mechanisms A,C --config "$TUNED" -o mech_a.qpn_learning=inband
		;;
	tuning)
		# The sweep behind tuned.ini: A CNP interval, TRP cut interval, hold.
		for t in 10us,1ms,0 10us,0,150us 5us,1ms,150us 10us,1ms,150us 10us,1ms,350us \
			20us,1ms,150us 10us,100us,150us 15us,100us,150us; do
			IFS=, read -r ai ci hold <<<"$t"
			run mix-tuning "a$ai-c$ci-h$hold" "$M/topology.txt" "$M/flow.txt" \
				"$M/config.txt" --window off --mechanisms A,C \
				-o mech_a.cnp_interval=$ai -o mech_c.cut_interval=$ci -o mech_c.hold=$hold
		done
		;;
	testseeds)
		# `test` over 16 seeds with THEMIS's PNP module (themis-pnp.ini) beside
		# ours, with exact link timing and with ns-3's truncated timing.
		for tx in exact ns3; do
			for s in $(seq 1 16); do
				for c in base pnp A A-9us A-12us AC-tuned; do
					case $c in
					base) o=(--mechanisms none) ;;
					pnp) o=(--mechanisms A --config "$PNP") ;;
					A) o=(--mechanisms A) ;;
					A-9us) o=(--mechanisms A -o mech_a.cnp_interval=9us) ;;
					A-12us) o=(--mechanisms A -o mech_a.cnp_interval=12us
						-o mech_a.cnp_delay=0) ;;
					AC-tuned) o=(--mechanisms A,C --config "$TUNED") ;;
					esac
					run "test-seeds-$tx" "$c-seed$s" "$T/topology.txt" "$T/flow.txt" \
						"$T/config.txt" --window off --seed $s --ts-interval 0 \
						-o sim.tx_time=$tx "${o[@]}"
				done
			done
		done
		;;
	testgrid)
		# Mechanism A's two knobs on `test`: CNP interval x CNP delay, seeds 1-8.
		for tx in exact ns3; do
			for i in 4.16 5 6 7 8 9 10 11 12 14 16 20 25 30; do
				for d in 0 1 2 4 8; do
					for s in $(seq 1 8); do
						run "test-grid-$tx" "i$i-d$d-seed$s" "$T/topology.txt" \
							"$T/flow.txt" "$T/config.txt" --window off --seed $s \
							--ts-interval 0 -o sim.tx_time=$tx --mechanisms A \
							-o mech_a.cnp_interval=${i}us -o mech_a.cnp_delay=${d}us
					done
				done
			done
		done
		;;
	waits)
		# Where packets wait (docs/congestion.md, "Where the time goes"): mix_50%,
		# seeds 1-4, plain DCQCN, A, A+C derived and A+C tuned, with the
		# per-port and per-hop waits by flow class and every CNP logged; then
		# seed 1 again with a per-packet trace of the flows that lose most.
		for s in 1 2 3 4; do
			for c in base A AC AC-tuned; do
				case $c in
				base) o=(--mechanisms none) ;;
				A) o=(--mechanisms A) ;;
				AC) o=(--mechanisms A,C) ;;
				AC-tuned) o=(--mechanisms A,C --config "$TUNED") ;;
				esac
				run mix-waits "$c-seed$s" "$M/topology.txt" "$M/flow.txt" "$M/config.txt" \
					--window off --seed $s --waits -o sim.cnp_log=true "${o[@]}"
			done
		done
		W=$OUT/runs/mix-waits
		for c in base AC AC-tuned; do
			ids=$("$PY" "$PLOT" worst --ids --base "$W/base-seed1" "$W/$c-seed1")
			case $c in
			base) o=(--mechanisms none) ;;
			AC) o=(--mechanisms A,C) ;;
			AC-tuned) o=(--mechanisms A,C --config "$TUNED") ;;
			esac
			run mix-waits "$c-seed1-trace" "$M/topology.txt" "$M/flow.txt" "$M/config.txt" \
				--window off --seed 1 --waits -o sim.cnp_log=true --trace-flows "$ids" \
				"${o[@]}"
		done
		;;
	isolated)
		# Each class of mix_50% alone (docs/congestion.md, "What the targets
		# allow"): the intra-DC flows without any inter-DC traffic, and the
		# inter-DC flows without any intra-DC traffic, with their own start
		# times, sizes and hosts. The class of each flow is the "inter"
		# column of a mix_50% run's flows.csv (the flows in flow.txt order).
		run mix base "$M/topology.txt" "$M/flow.txt" "$M/config.txt" --window off \
			--mechanisms none
		for cls in intra inter; do
			awk -F, -v want=$([ $cls = inter ] && echo 1 || echo 0) \
				'NR == FNR { if (FNR > 1) keep[$1 + 1] = ($4 == want); next }
				 FNR == 1 { next }
				 keep[FNR - 1] { rows[++n] = $0 }
				 END { print n; for (i = 1; i <= n; i++) print rows[i] }' \
				"$OUT/runs/mix/base/flows.csv" "$M/flow.txt" >"$SC/flow-mix-$cls.txt"
			for s in 1 2 3 4; do
				run "mix-$cls" "base-seed$s" "$M/topology.txt" "$SC/flow-mix-$cls.txt" \
					"$M/config.txt" --window off --seed $s --mechanisms none
				run "mix-$cls" "AC-tuned-seed$s" "$M/topology.txt" \
					"$SC/flow-mix-$cls.txt" "$M/config.txt" --window off --seed $s \
					--mechanisms A,C --config "$TUNED"
			done
		done
		;;
	*)
		echo "sim-sweep: unknown group '$g'" >&2
		exit 2
		;;
	esac
done

# --------------------------------------------------------------- tables
{
	for sc in "$OUT"/runs/*; do
		[ -d "$sc" ] || continue
		echo "### $(basename "$sc")"
		echo
		case $(basename "$sc") in
		test-grid-*)
			"$PY" "$PLOT" seeds --ref 17.273,18.816 --split 37.5 $(ls -d "$sc"/*/ | sort -V)
			;;
		test-seeds-*)
			# THEMIS's ns-3 PNP row: 17.273 / 18.816 ms. Runs either settle after
			# one start-up collapse (FCT sum 35.9-37.0 ms) or collapse again
			# (37.8 ms and up); 37.5 splits them.
			"$PY" "$PLOT" seeds --ref 17.273,18.816 --pair pnp --split 37.5 \
				$(ls -d "$sc"/*/ | sort -V)
			;;
		*)
			"$PY" "$PLOT" table $(ls -d "$sc"/*/ | sort)
			;;
		esac
		echo
	done
} >"$OUT/tables.md"
echo "sim-sweep: tables in $OUT/tables.md" >&2

# ---------------------------------------------------------------- plots
plots() {
	local sc=$1
	shift
	local args=()
	for c in "$@"; do
		[ -f "$OUT/runs/$sc/$c/summary.json" ] && args+=("$c=$OUT/runs/$sc/$c")
	done
	[ ${#args[@]} -gt 0 ] || return 0
	"$PY" "$PLOT" bins --out "$OUT/img/sim-$sc-bins.png" "${args[@]}"
	"$PY" "$PLOT" cdf --out "$OUT/img/sim-$sc-cdf.png" "${args[@]}"
	for c in "$@"; do
		[ -f "$OUT/runs/$sc/$c/queues.csv" ] &&
			"$PY" "$PLOT" timeseries --out "$OUT/img/sim-$sc-ts-$c.png" "$c=$OUT/runs/$sc/$c"
	done
	return 0
}
if "$PY" -c 'import matplotlib' 2>/dev/null; then
	plots mix base A AC AC-tuned
	plots mix-wan400 base A A-red A-sojourn A-phantom AC-tuned
	plots test base A AC-tuned
	plots neardst base A AC AC-tuned
	plots test-640km base A AC-tuned
	W=$OUT/runs/mix-waits
	if [ -f "$W/AC-tuned-seed1-trace/trace.csv" ]; then
		args=()
		for c in base A AC AC-tuned; do
			for s in 1 2 3 4; do
				[ -f "$W/$c-seed$s/ports.csv" ] && args+=("$c-seed$s=$W/$c-seed$s")
			done
		done
		"$PY" "$PLOT" waitbars --out "$OUT/img/sim-mix-waits.png" "${args[@]}"
		for c in base AC-tuned; do
			ids=$("$PY" "$PLOT" worst --ids --n 1 --base "$W/base-seed1" "$W/$c-seed1")
			for id in ${ids//,/ }; do
				"$PY" "$PLOT" trace --out "$OUT/img/sim-mix-trace-$c-$id.png" \
					"$c=$W/$c-seed1-trace" "$id"
			done
		done
	fi
	echo "sim-sweep: plots in $OUT/img" >&2
else
	echo "sim-sweep: no matplotlib for /usr/bin/python3: plots skipped" >&2
fi
