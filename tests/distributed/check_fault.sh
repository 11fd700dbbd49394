#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# mpi.fault.*: runs one mpirun job that must FAIL, within a time limit, with
# its output matching a pattern (the rank named).
#   check_fault.sh MAX_SECONDS PATTERN -- mpirun ARGS...
set -u
max=$1 pattern=$2
shift 3
start=$(date +%s%N)
out=$(timeout -k 5 $((${max%.*} + 30)) "$@" 2>&1)
status=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
elapsed="$((elapsed_ms / 1000)).$(printf %03d $((elapsed_ms % 1000)))"
echo "$out"
echo "check_fault: exit status $status after $elapsed s (limit $max s)"
fail=0
[ "$status" -ne 0 ] || { echo "check_fault: FAILED: the job succeeded"; fail=1; }
[ "$status" -ne 124 ] && [ "$status" -ne 137 ] || { echo "check_fault: FAILED: the job hung"; fail=1; }
(( elapsed_ms < max * 1000 )) || { echo "check_fault: FAILED: took $elapsed s (limit $max s)"; fail=1; }
echo "$out" | grep -Eq "$pattern" || { echo "check_fault: FAILED: no line matches: $pattern"; fail=1; }
exit $fail
