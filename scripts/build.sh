#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Configure and build Longspan into ${BUILD:-build}. Extra arguments go to
# `meson setup` (for example -Db_sanitize=address,undefined).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" "$@"
elif [ $# -gt 0 ]; then
	meson configure "$BUILD" "$@"
fi
ninja -C "$BUILD"
