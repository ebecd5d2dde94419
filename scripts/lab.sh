#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The two-site lab on one machine: set up, build, start gateway A and
# gateway B (config/site-a.conf, config/site-b.conf) joined by a net_memif
# WAN link, attach a traffic end to each gateway's DC port (net_memif), send
# each site's traffic mix to the other site (RoCEv2 RC writes, ACK/NAK, CNP,
# UDP, ICMP, TCP over IPv4 and IPv6), print live counters, then the
# gateways' statistics, and check that everything arrived.
#
#   sudo scripts/lab.sh [--seconds N] [--pps N] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

seconds=5
pps=4000
out=""
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=$2; shift 2 ;;
	--pps) pps=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) sed -n '3,10p' "$0"; exit 0 ;;
	*) echo "lab: unknown option $1" >&2; exit 2 ;;
	esac
done

scripts/setup.sh
BUILD=build scripts/build.sh >/dev/null
BIN=$ROOT/build
PY=/usr/bin/python3
out=${out:-$ROOT/lab-out/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" /run/longspan
rm -f /run/longspan/a-dc.sock /run/longspan/b-dc.sock /run/longspan/wan.sock

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
}
trap cleanup EXIT

echo "lab: building traffic"
$PY scripts/lab_traffic.py --site a --out "$out/site-a-tx.pcap" 2>&1 | grep -v WARNING
$PY scripts/lab_traffic.py --site b --out "$out/site-b-tx.pcap" 2>&1 | grep -v WARNING
frames=$($PY -c "from scapy.all import rdpcap; print(len(rdpcap('$out/site-a-tx.pcap')))" 2>/dev/null)
loops=$(( (seconds * pps + frames - 1) / frames ))

echo "lab: starting gateways (logs in $out)"
ctl() { "$BIN/control/longspanctl" -s "/run/longspan/site-$1.sock" "${@:2}"; }
wait_api() {
	for _ in $(seq 100); do
		ctl "$1" show stats >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "lab: gateway $1 did not come up:" >&2
	tail -n 5 "$out/gw-$1.log" >&2
	return 1
}
# Gateway A is the memif server of the WAN link: start it first.
"$BIN/longspand" -c config/site-a.conf --stats >"$out/gw-a.log" 2>&1 &
pids+=($!)
wait_api a
"$BIN/longspand" -c config/site-b.conf --stats >"$out/gw-b.log" 2>&1 &
pids+=($!)
wait_api b

echo "lab: sending $((loops * frames)) frames from each site at $pps frames/s"
pktio() {
	local site=$1
	"$BIN/tests/tools/longspan-pktio" -l 1 --file-prefix "lab-pktio-$site" -m 160 \
		--no-pci --log-level='*:warning' \
		--vdev="net_memif0,role=client,socket=/run/longspan/$site-dc.sock,id=0" -- \
		--tx "$out/site-$site-tx.pcap" --rx "$out/site-$site-rx.pcap" \
		--loop "$loops" --pps "$pps" --duration $((seconds + 10)) \
		--expect $((loops * frames)) --settle 1500
}
pktio a >"$out/pktio-a.log" 2>&1 &
pa=$!
pktio b >"$out/pktio-b.log" 2>&1 &
pb=$!
pids+=($pa $pb)
# Live counters: each gateway prints one line per stats_interval.
tail -n 0 -f "$out/gw-a.log" "$out/gw-b.log" &
tailpid=$!
pids+=($tailpid)
wait $pa $pb || true
kill $tailpid 2>/dev/null || true

echo
for s in a b; do
	echo "=== gateway $s: longspanctl show stats / peers / drops ==="
	ctl $s show stats
	ctl $s show peers
	ctl $s show drops
done

kill -TERM "${pids[0]}" "${pids[1]}" 2>/dev/null || true
wait "${pids[0]}" "${pids[1]}" 2>/dev/null || true

echo
echo "=== summary ==="
status=0
for s in a b; do
	echo "site $s traffic end: $(cat "$out/pktio-$s.log" | tail -n 1)"
done
ra=$(awk '/^tx/ {print $4}' "$out/pktio-a.log")
rb=$(awk '/^tx/ {print $4}' "$out/pktio-b.log")
ta=$(awk '/^tx/ {print $2}' "$out/pktio-a.log")
tb=$(awk '/^tx/ {print $2}' "$out/pktio-b.log")
echo "site A -> site B: sent ${ta:-0}, received ${rb:-0}"
echo "site B -> site A: sent ${tb:-0}, received ${ra:-0}"
[ "${rb:-0}" -eq "${ta:-1}" ] && [ "${ra:-0}" -eq "${tb:-1}" ] || status=1
for s in a b; do
	grep -h "mbufs in use at exit" "$out/gw-$s.log" | sed "s/^/gateway $s: /"
done
$PY scripts/lab_check.py "$out" || status=1
if [ $status -eq 0 ]; then
	echo "lab: OK, every frame crossed the WAN in both directions (results in $out)"
else
	echo "lab: FAILED (results in $out)"
fi
exit $status
