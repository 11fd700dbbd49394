#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cuda.info: `tessera info` on configs/cuda.json. The cuda plugin must load
# (never be listed as failed) and cover the ops as the CPU backend does, but
# for the index primitives it runs through the CPU fallback.
# Without a GPU it reports zero devices and why, and the exit status is 0
# (the default device, cpu, is available; tools/info.cpp); with a GPU it
# lists cuda:0 with device memory. Also checks a bad option is refused.
# Usage: check_info.sh TESSERA CONFIG WORK_DIR
set -u
tessera=$1 config=$2 dir=$3
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect() {  # expect FILE SUBSTRING
  grep -qF -- "$2" "$1" || { fail "expected \"$2\" in:"; sed 's/^/    /' "$1"; }
}

out=$dir/info.out
"$tessera" info --config "$config" >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 0 ] || fail "tessera info exited $rc (the default device cpu is available: expected 0)"
expect "$out" "  cuda 0.1.0 (ABI "
expect "$out" "device type \"cuda\""
grep -q "plugins that failed to load" "$out" && fail "a plugin failed to load"
# cpu_tbb runs every op natively, the composites VAR and STD too (one pass,
# Note [One-pass variance]); cuda every op but those two, which the runtime
# builds (its LINALG kernels on cuSOLVER, float32 and float64; complex
# matrices go through the CPU fallback per dtype, which this per-op count
# does not show).
section() { sed -n "/^  $1 /,/^  [a-z]/p" "$out"; }
section cpu_tbb >"$dir/cpu.section"
section cuda >"$dir/cuda.section"
expect "$dir/cpu.section" "coverage of the 71 ops: 71 native, 0 composite, 0 through the CPU fallback, 0 missing"
expect "$dir/cuda.section" "coverage of the 71 ops: 68 native, 3 composite, 0 through the CPU fallback, 0 missing"
expect "$dir/cuda.section" "      composite: var std clamp"
if grep -q "^    cuda:0: " "$out"; then
  expect "$out" ", device memory"
  echo "cuda.info: a GPU is present"
else
  reason=$(sed -n 's/^    no devices: //p' "$out")
  [ -n "$reason" ] || fail "no cuda devices and no reason given"
  echo "cuda.info: no GPU: $reason"
fi

# The same as JSON: the reason is a field.
"$tessera" info --json --config "$config" >"$dir/info.json" 2>&1 || fail "info --json exited non-zero"
if ! grep -q '"device": "cuda:0"' "$dir/info.json"; then expect "$dir/info.json" '"unavailable_reason": "'; fi

# A bad option: the plugin refuses to load, naming the option.
sed 's/"memory_fraction": [0-9.]*/"memory_fraction": 2/' "$config" >"$dir/bad_option.json"
"$tessera" info --config "$dir/bad_option.json" >"$dir/bad_option.out" 2>&1
expect "$dir/bad_option.out" "plugins that failed to load: 1"
expect "$dir/bad_option.out" 'option "memory_fraction" must be a number in (0, 1], got 2'

if [ $failures -eq 0 ]; then echo "cuda.info: all checks passed"; else echo "cuda.info: $failures check(s) failed"; fi
[ $failures -eq 0 ]
