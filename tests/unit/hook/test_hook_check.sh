#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# longspan-hook-check: accepts the shipped hooks, refuses a bad object with
# its reason (exit 1), rejects bad usage (exit 2).
#   test_hook_check.sh TOOL ROCE_FLOW_OBJECT DSCP_CE_OBJECT LOOP_OBJECT
set -u
tool=$1 roce=$2 dscp=$3 loop=$4
fail() { echo "FAIL: $*"; exit 1; }

out=$("$tool" "$roce" roce_flow) || fail "roce_flow refused: $out"
case $out in *"section 'roce_flow': ok: "*"131072 flow slots (used)"*) ;; *) fail "roce_flow: $out" ;; esac
out=$("$tool" "$dscp" dscp_ce) || fail "dscp_ce refused: $out"
case $out in *"64 counters (used)"*) ;; *) fail "dscp_ce: $out" ;; esac
out=$("$tool" "$loop" hook 2>&1)
[ $? -eq 1 ] || fail "loop object: exit status not 1"
case $out in *"section 'hook': loop: "*) ;; *) fail "loop object: $out" ;; esac
out=$("$tool" --max-insns 10 "$roce" roce_flow 2>&1)
[ $? -eq 1 ] || fail "--max-insns 10: exit status not 1"
case $out in *"program too large"*) ;; *) fail "--max-insns: $out" ;; esac
"$tool" "$roce" >/dev/null 2>&1
[ $? -eq 2 ] || fail "one argument: exit status not 2"
echo ok
