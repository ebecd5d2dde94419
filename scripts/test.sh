#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up the machine, build Longspan (warnings are errors), run every test
# suite, then build with ASan/UBSan and run the unit, dataplane and sim
# suites again, then builds every libFuzzer target (tests/fuzz/run.sh) and
# runs each for a few seconds. Benchmarks (suite perf) are not run; see
# docs/performance.md.
#
# As root:
#   scripts/test.sh            # everything
#   scripts/test.sh --no-asan  # skip the sanitizer build
set -euo pipefail
cd "$(dirname "$0")/.."

asan=1
for a in "$@"; do
	case "$a" in
	--no-asan) asan=0 ;;
	*) echo "usage: $0 [--no-asan]" >&2; exit 2 ;;
	esac
done

scripts/setup.sh

SUITES=(--suite unit --suite dataplane --suite integration --suite sim)

BUILD=build scripts/build.sh --werror
meson test -C build "${SUITES[@]}" --print-errorlogs --num-processes 2

if [ "$asan" -eq 1 ]; then
	# The sanitizer build links DPDK's shared objects, which ASan tolerates;
	# LeakSanitizer is off because EAL keeps memory until exit by design.
	export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
	export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
	BUILD=build-asan scripts/build.sh --werror -Dbuildtype=debug \
		-Db_sanitize=address,undefined -Db_lundef=false
	meson test -C build-asan --suite unit --suite dataplane --suite sim \
		--print-errorlogs --num-processes 2
fi
# Every fuzz target built with clang -fsanitize=fuzzer and run briefly, so a
# target that stops building or finds a crash in new code fails here
# (FUZZ_SECONDS per target; under two minutes in all with the builds).
FUZZ_OUT=build-fuzz tests/fuzz/run.sh "${FUZZ_SECONDS:-10}"

echo "test: all suites passed"
