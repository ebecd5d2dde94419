#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The commands the docs give run as root, as written, on a bare Debian 12
# image, which has no sudo:
#   check_root_commands.sh SOURCE_ROOT
# - no README.md, docs/*.md, scripts/* or tests/perf/*.py line runs a
#   command through sudo (a command line, a usage comment or inline code);
# - README.md's first lines say "as root" and give the two commands,
#   scripts/lab.sh and scripts/test.sh, as code lines of their own;
# - scripts/setup.sh, which both run first, checks for root itself.
set -u

if [ $# -ne 1 ]; then
    echo "usage: $0 SOURCE_ROOT" >&2
    exit 2
fi
cd "$1" || exit 2
failed=0

fail() {
    echo "FAIL: $*" >&2
    failed=$((failed + 1))
}

files=(README.md docs/*.md scripts/* tests/perf/*.py)
if hits=$(grep -nE '(^[[:space:]]*(#[[:space:]]*)?|`)sudo[[:space:]]' "${files[@]}"); then
    fail "commands run through sudo (a bare Debian 12 has none; say \"as root\"):"
    sed 's/^/    /' <<<"$hits" >&2
fi

head=$(head -n 25 README.md)
grep -q 'as root' <<<"$head" || fail "README.md's first lines do not say 'as root'"
for cmd in scripts/lab.sh scripts/test.sh; do
    grep -qxE "[[:space:]]+$cmd" <<<"$head" ||
        fail "README.md's first lines lack the command line '$cmd'"
done

grep -q 'id -u' scripts/setup.sh || fail "scripts/setup.sh does not check that it runs as root"

if [ "$failed" -ne 0 ]; then
    exit 1
fi
echo "check_root_commands: README, docs and scripts give root commands without sudo"
