#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs one libFuzzer target for a while and prints one line of figures.
#   run_fuzz.sh BINARY SEED_DIR WORK_DIR SECONDS [libFuzzer flags...]
# New inputs go to WORK_DIR/corpus, crashes to WORK_DIR/, the full log to
# WORK_DIR/log. A finding prints the log's tail and exits non-zero.
set -uo pipefail
bin=$1 seeds=$2 work=$3 seconds=$4
shift 4
mkdir -p "$work/corpus"
name=$(basename "$bin")
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  "$bin" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/" "$@" \
  "$work/corpus" "$seeds" >"$work/log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  tail -n 60 "$work/log"
  echo "$name: FAILED (exit $rc); the input is in $work/"
  exit 1
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log")
last=$(grep -E '^#[0-9]+' "$work/log" | tail -n 1)
cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
corp=$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$last")
echo "$name: ${runs} runs in ${seconds} s (${rate}/s), coverage ${cov} edges, ${ft} features, corpus ${corp}, no crash"
