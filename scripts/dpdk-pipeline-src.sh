#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Put the two lib/pipeline headers of the installed DPDK that its SWX codegen
# output includes (rte_swx_pipeline_internal.h, rte_swx_pipeline_spec.h) in
# /var/cache/longspan/dpdk-VERSION/lib/pipeline, where tests/unit/p4 looks
# for them (or set LS_DPDK_SRC to another tree). Debian's libdpdk-dev does
# not install them; they come from Debian's own source package of the
# installed libdpdk-dev version, fetched with apt-get source through the
# machine's configured Debian archive (its sources turned into deb-src in a
# private apt state, so the system's apt configuration is not changed).
# Builds nothing. Idempotent; needs root only to write /var/cache.
set -euo pipefail

ver=$(pkg-config --modversion libdpdk)
deb_ver=$(dpkg-query -W -f='${Version}' libdpdk-dev)
dest=${LS_DPDK_SRC:-/var/cache/longspan/dpdk-$ver}
log() { printf 'dpdk-pipeline-src: %s\n' "$*"; }

if [ -f "$dest/lib/pipeline/rte_swx_pipeline_internal.h" ] &&
	[ -f "$dest/lib/pipeline/rte_swx_pipeline_spec.h" ]; then
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/src"
found=0
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	grep -qi '^Types:.*\bdeb\b' "$f" || continue
	grep -qi 'debian-archive-keyring' "$f" || continue
	sed 's/^Types:.*/Types: deb-src/' "$f" > "$tmp/$(basename "$f")"
	found=1
done
if [ "$found" -eq 0 ]; then
	log "no Debian archive in /etc/apt/sources.list.d/*.sources" >&2
	exit 1
fi
apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$tmp"
	-o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache"
	-o "APT::Sandbox::User=root" -qq)
log "fetching the source of dpdk $deb_ver (headers only are kept)"
apt-get "${apt_opts[@]}" update
(cd "$tmp/src" && apt-get "${apt_opts[@]}" source --download-only "dpdk=$deb_ver")
orig=$(find "$tmp/src" -maxdepth 1 -name 'dpdk_*.orig.tar.*' | awk 'NR == 1')
top=$(tar -tf "$orig" | awk -F/ 'NR == 1 { print $1 }')
tar -xf "$orig" -C "$tmp/src" "$top/lib/pipeline/rte_swx_pipeline_internal.h" \
	"$top/lib/pipeline/rte_swx_pipeline_spec.h"
mkdir -p "$dest/lib/pipeline"
cp "$tmp/src/$top/lib/pipeline/"rte_swx_pipeline_{internal,spec}.h "$dest/lib/pipeline/"
log "ready: $dest"
