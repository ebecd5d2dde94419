#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the fuzz targets with clang's libFuzzer (+ ASan, UBSan) and run each
# for a while. Not part of the meson suites: the unit suite replays the seed
# corpus through the same targets without libFuzzer (fuzz_*_replay tests).
#
#   tests/fuzz/run.sh [SECONDS] [TARGET...]     TARGET: parse, pfc, credit, config, peer_msg, api,
#                                               hook_elf, hook_ctx (default: every
#                                               tests/fuzz/fuzz_*.c)
#
# scripts/test.sh runs every target for a few seconds, so a target that no
# longer builds fails CI; a new fuzz_NAME.c needs its case in build() below.
# Environment: CC (default clang-14, else clang), FUZZ_OUT (default
# build-fuzz), FUZZ_ARGS (more libFuzzer options, e.g. -len_control=0).
# One libFuzzer process per target, one after the other.
# The growing corpus lives in $FUZZ_OUT/corpus-TARGET (seeded from
# tests/fuzz/corpus/TARGET and, for config, tests/configs/ and config/);
# crashes go to $FUZZ_OUT/artifacts-TARGET/ and make the script fail.
# To keep an input as a regression seed, copy it into tests/fuzz/corpus/.
set -euo pipefail
cd "$(dirname "$0")/../.."

secs=${1:-60}
[ $# -gt 0 ] && shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do
		t=${f#tests/fuzz/fuzz_}
		targets+=("${t%.c}")
	done
fi
cc=${CC:-$(command -v clang-14 || command -v clang)}
out=${FUZZ_OUT:-build-fuzz}
mkdir -p "$out"

common=(-g -O1 -std=c11 -D_GNU_SOURCE -DALLOW_EXPERIMENTAL_API
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-I. -Icontrol)

# longspand's config loader and the shared config library under it.
config_src=(control/config.c control/config_check.c control/config_keys.c
	control/config_types.c control/config_doc.c control/eal_args.c
	control/config_hooks.c control/config_cc.c
	control/conf_*.c control/units.c
	congestion/cc_params.c congestion/cc_math.c congestion/ecn_*.c)

build() {
	case "$1" in
	parse)
		# Header-only DPDK use: no DPDK library is linked (DPDK's
		# -march=corei7 gives dataplane/bits.h the CRC instruction, so
		# rte_hash_crc.h and its EAL dependency stay out).
		"$cc" "${common[@]}" $(pkg-config --cflags libdpdk) \
			tests/fuzz/fuzz_parse.c dataplane/parse.c dataplane/geneve.c \
			dataplane/credit_opt.c dataplane/drop_reason.c -o "$out/fuzz_parse"
		;;
	pfc)
		# The codec and the pause state machine: no DPDK, no EAL.
		"$cc" "${common[@]}" tests/fuzz/fuzz_pfc.c dataplane/pfc.c congestion/pfc.c \
			-o "$out/fuzz_pfc"
		;;
	credit)
		# The credit option codec and the credit state machine: no DPDK, no EAL.
		"$cc" "${common[@]}" tests/fuzz/fuzz_credit.c dataplane/credit_opt.c \
			congestion/credit.c -o "$out/fuzz_credit"
		;;
	config)
		"$cc" "${common[@]}" tests/fuzz/fuzz_config.c "${config_src[@]}" \
			-lm -o "$out/fuzz_config"
		;;
	peer_msg)
		# The codec alone: no OpenSSL, no EAL.
		"$cc" "${common[@]}" tests/fuzz/fuzz_peer_msg.c control/peer_msg.c \
			-o "$out/fuzz_peer_msg"
		;;
	hook_elf)
		# Seeds: the shipped hooks and the objects the loader must refuse,
		# built here with the same clang flags as meson's.
		mkdir -p "$out/seeds-hook_elf"
		for src in dataplane/hooks/*.bpf.c tests/unit/hook/bad/*.bpf.c; do
			"$cc" -O2 -target bpf -mcpu=v2 -ffreestanding -std=c11 -I. -c "$src" \
				-o "$out/seeds-hook_elf/$(basename "$src" .c).o"
		done
		"$cc" "${common[@]}" $(pkg-config --cflags libdpdk libelf) \
			tests/fuzz/fuzz_hook_elf.c control/hook_load.c control/hook_insns.c \
			$(pkg-config --libs libdpdk libelf) -o "$out/fuzz_hook_elf"
		;;
	hook_ctx)
		"$cc" "${common[@]}" $(pkg-config --cflags libdpdk) \
			tests/fuzz/fuzz_hook_ctx.c dataplane/hook.c $(pkg-config --libs libdpdk) \
			-o "$out/fuzz_hook_ctx"
		;;
	api)
		# The ctl tests' fixture runtime; the API needs DPDK's libraries, show
		# peers the peering library (OpenSSL).
		# The version header meson generates, from meson.build's project().
		mkdir -p "$out/gen/control"
		version=$(sed -n "s/^[[:space:]]*version: '\([^']*\)',\$/\1/p" meson.build | head -n 1)
		printf '#define LONGSPAN_VERSION "%s"\n' "$version" >"$out/gen/control/longspan_version.h"
		"$cc" "${common[@]}" -I"$out/gen" $(pkg-config --cflags libdpdk libfixbuf) \
			tests/fuzz/fuzz_api.c tests/unit/ctl/ctl_fixture.c tests/unit/ctl/ctl_doubles.c \
			control/api_*.c control/fmt.c control/telemetry.c control/runtime_counters.c \
			control/peering_show.c control/peer_*.c control/measure.c control/measure_prom.c \
			"${config_src[@]}" \
			control/hook_api.c control/hook_set.c control/hook_load.c control/hook_insns.c control/hook_maps.c \
			control/hook_export.c control/hook_prom.c control/hook_ipfix.c control/prom_server.c \
			control/prom_text.c dataplane/hook.c \
			dataplane/drop_reason.c $(ls congestion/*.c | grep -v -E '/(ecn_[a-z]+|cc_params|cc_math)\.c$') \
			$(pkg-config --libs libdpdk libssl libcrypto libbpf libelf libmicrohttpd libfixbuf) \
			-lm -o "$out/fuzz_api"
		;;
	*)
		echo "unknown target $1: add its build rule to tests/fuzz/run.sh" >&2
		exit 2
		;;
	esac
}

status=0
for t in "${targets[@]}"; do
	build "$t"
	corpus="$out/corpus-$t"
	art="$out/artifacts-$t"
	mkdir -p "$corpus" "$art"
	seeds=()
	[ -d tests/fuzz/corpus/"$t" ] && seeds+=(tests/fuzz/corpus/"$t")
	# shellcheck disable=SC2206
	opts=(-max_total_time="$secs" -artifact_prefix="$art/" -print_final_stats=1
		${FUZZ_ARGS:-})
	if [ "$t" = config ]; then
		seeds+=(tests/configs/good tests/configs/bad config)
		opts+=(-dict=tests/fuzz/config.dict -max_len=8192)
	elif [ "$t" = peer_msg ]; then
		# Room for a stream of two largest messages.
		opts+=(-max_len=8192)
	elif [ "$t" = hook_ctx ]; then
		seeds+=(tests/fuzz/corpus/parse)
		opts+=(-max_len=4096)
	elif [ "$t" = hook_elf ]; then
		seeds+=("$out/seeds-hook_elf")
		opts+=(-max_len=16384)
	elif [ "$t" = api ]; then
		opts+=(-max_len=2048)
	else
		opts+=(-max_len=4096)
	fi
	echo "=== fuzz_$t for ${secs}s (corpus $corpus)"
	before=$(find "$art" -type f | wc -l)
	# libFuzzer reads every directory and writes new inputs to the first.
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		"$out/fuzz_$t" "${opts[@]}" "$corpus" "${seeds[@]}" 2>&1 |
		tee "$out/fuzz_$t.log" | grep -E '^(#[0-9]+.*(DONE|INITED)|stat::|==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' || true
	after=$(find "$art" -type f | wc -l)
	if [ "$after" -gt "$before" ]; then
		echo "=== fuzz_$t: new crash inputs in $art (see $out/fuzz_$t.log)"
		status=1
	else
		echo "=== fuzz_$t: no crash; corpus $(find "$corpus" -type f | wc -l) inputs"
	fi
done
exit $status
