#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Prepare a Debian 12 machine for building and running Longspan. Idempotent:
# installs only missing packages, reserves hugepages only when short, mounts
# hugetlbfs and bpffs only when absent. Needs root.
set -euo pipefail

PKGS=(
	build-essential pkg-config meson ninja-build clang llvm libclang-rt-14-dev
	dpdk dpdk-dev libdpdk-dev
	libbpf-dev bpftool libxdp-dev libelf-dev zlib1g-dev
	libmicrohttpd-dev libfixbuf-dev libfixbuf-tools
	libssl-dev openssl libcmocka-dev libpcap-dev
	tshark python3 python3-scapy python3-matplotlib
	iproute2 procps kmod iputils-ping ethtool
)
HUGEPAGES=${LONGSPAN_HUGEPAGES:-1024}

log() { printf 'setup: %s\n' "$*"; }

if [ "$(id -u)" -ne 0 ]; then
	echo "setup: must run as root (apt, hugepages, bpffs)" >&2
	exit 1
fi

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture; answer no, quietly.
	echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cur=$(cat /proc/sys/vm/nr_hugepages)
if [ "$cur" -lt "$HUGEPAGES" ]; then
	log "reserving $HUGEPAGES 2 MiB hugepages (had $cur)"
	echo "$HUGEPAGES" > /proc/sys/vm/nr_hugepages || true
	cur=$(cat /proc/sys/vm/nr_hugepages)
	[ "$cur" -ge "$HUGEPAGES" ] || log "warning: only $cur hugepages available"
fi
mkdir -p /dev/hugepages
mountpoint -q /dev/hugepages || mount -t hugetlbfs nodev /dev/hugepages
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
mkdir -p /run/longspan
# The SWX codegen output's two DPDK-internal headers, for tests/unit/p4.
"$(dirname "$0")/dpdk-pipeline-src.sh" ||
	log "warning: no DPDK pipeline headers; tests/unit/p4 skips its library cases"
log "ready"
