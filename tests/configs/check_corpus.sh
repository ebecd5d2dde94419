#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Check the --check-config contract of a binary over the config corpus:
#   check_corpus.sh LONGSPAND CORPUS_DIR
# Every CORPUS_DIR/bad/*.conf must exit non-zero and print on stderr each
# "; expect: SUBSTRING" of its header right after the file's path (so the
# message carries FILE:LINE), and exactly "; errors: N" lines when given.
# Every CORPUS_DIR/good/*.conf must exit 0 and print on stderr exactly one
# line per "; warns: SUBSTRING" of its leading comments, each containing
# "FILE: warning: SUBSTRING" (nothing at all when it has none).
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 LONGSPAND CORPUS_DIR" >&2
    exit 2
fi
bin=$1
dir=$2
failed=0
checked=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# stderr_has CONF WANT: count a failure unless the last run's stderr has WANT.
stderr_has() {
    if ! grep -qF -- "$2" "$tmp/err"; then
        echo "FAIL $1: stderr lacks: $2" >&2
        sed 's/^/    /' "$tmp/err" >&2
        failed=$((failed + 1))
    fi
}

for f in "$dir"/bad/*.conf; do
    [ -e "$f" ] || continue
    checked=$((checked + 1))
    "$bin" --check-config "$f" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "FAIL $f: exit 0, want non-zero" >&2
        failed=$((failed + 1))
        continue
    fi
    if [ "$rc" -ge 126 ]; then
        echo "FAIL $f: exit $rc (crash or not executable)" >&2
        failed=$((failed + 1))
        continue
    fi
    nexp=0
    while IFS= read -r line; do
        case "$line" in
        "; expect: "*)
            nexp=$((nexp + 1))
            stderr_has "$f" "$f${line#; expect: }"
            ;;
        "; errors: "*)
            want=${line#; errors: }
            got=$(wc -l <"$tmp/err")
            if [ "$got" -ne "$want" ]; then
                echo "FAIL $f: $got error lines, want $want" >&2
                failed=$((failed + 1))
            fi
            ;;
        *) break ;;
        esac
    done <"$f"
    if [ "$nexp" -eq 0 ]; then
        echo "FAIL $f: no '; expect:' header line" >&2
        failed=$((failed + 1))
    fi
done

for f in "$dir"/good/*.conf; do
    [ -e "$f" ] || continue
    checked=$((checked + 1))
    if ! "$bin" --check-config "$f" >"$tmp/out" 2>"$tmp/err" </dev/null; then
        echo "FAIL $f: rejected:" >&2
        sed 's/^/    /' "$tmp/err" >&2
        failed=$((failed + 1))
    else
        nwarn=0
        while IFS= read -r line; do
            case "$line" in
            "; warns: "*)
                nwarn=$((nwarn + 1))
                stderr_has "$f" "$f: warning: ${line#; warns: }"
                ;;
            ";"*) ;;
            *) break ;;
            esac
        done <"$f"
        got=$(wc -l <"$tmp/err")
        if [ "$got" -ne "$nwarn" ]; then
            echo "FAIL $f: accepted with $got line(s) on stderr, want $nwarn warning(s):" >&2
            sed 's/^/    /' "$tmp/err" >&2
            failed=$((failed + 1))
        fi
    fi
done

if [ "$checked" -lt 31 ]; then
    echo "FAIL: only $checked configs under $dir (want at least 30 bad and 1 good)" >&2
    exit 1
fi
if [ "$failed" -ne 0 ]; then
    echo "check_corpus: $failed failure(s) over $checked configs" >&2
    exit 1
fi
echo "check_corpus: $checked configs behave as expected"
