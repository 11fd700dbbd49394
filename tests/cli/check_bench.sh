#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cli.bench: `tessera bench` runs every workload on every device of a config,
# checks each result against a float64 one on the cpu before timing it, and
# reports a wrong kernel as FAILED with exit status 1. Small sizes and short
# times: this checks behaviour, not speed (bench/ measures speed).
set -uo pipefail
tessera=$1 cpu_plugin=$2 arena_plugin=$3 bad_plugin=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "cli.bench: $*" >&2; exit 1; }

config() {  # NAME then plugin entries
  local name=$1; shift
  local entries=$1; shift
  for e in "$@"; do entries="$entries, $e"; done
  printf '{"plugins": [%s]}\n' "$entries" > "$work/$name.json"
}
cpu="{\"name\": \"cpu_tbb\", \"library\": \"$cpu_plugin\", \"options\": {\"threads\": 2}}"
config cpu "$cpu"
config arena "$cpu" "{\"name\": \"arena\", \"library\": \"$arena_plugin\", \"fallback\": true}"
config bad "$cpu" "{\"name\": \"careless\", \"library\": \"$bad_plugin\", \"fallback\": true}"
quick=(--size 65536 --seconds 0.01)

# 1. Every workload on the cpu, as JSON: all verified, sizes and rates consistent.
"$tessera" --config "$work/cpu.json" bench "${quick[@]}" --json > "$work/cpu.out" || fail "cpu run exited $?"
python3 - "$work/cpu.out" <<'PY' || fail "the cpu run's JSON is not what it should be"
import json, sys
records = json.load(open(sys.argv[1]))
names = [(r["workload"], r["dtype"]) for r in records]
expected = [("add_out", "float32"), ("bcast_add_out", "float32"), ("add_transposed_out", "float32"), ("relu_out", "float32"),
            ("sigmoid_out", "float32"), ("exp_out", "float32"), ("sum", "float32"), ("transpose_copy", "float32"),
            ("matmul", "float32"), ("matmul", "float64"), ("matmul", "float16"), ("matmul", "bfloat16"),
            ("tiny_add", "float32")]
assert names == expected, names
for r in records:
    assert r["device"] == "cpu" and r["check"] == "ok" and r["seconds"] > 0, r
by = {(r["workload"], r["dtype"]): r for r in records}
assert by[("add_out", "float32")]["bytes"] == 3 * 65536 * 4
assert by[("transpose_copy", "float32")]["size"] == "256x256"
# About 64 multiply-adds per element, rounded down to a multiple of 16: cbrt(64 * 65536) = 161.3 -> 160.
assert by[("matmul", "float32")]["size"] == "160^3" and by[("matmul", "float32")]["flops"] == 2 * 160 ** 3
print("cpu: %d workloads verified" % len(records))
PY

# 2. The arena: its own add, the rest through the CPU fallback; all verified.
out=$("$tessera" --config "$work/arena.json" bench --device arena:0 "${quick[@]}" 2>"$work/arena.err") ||
  fail "arena run exited $?: $out $(cat "$work/arena.err")"
echo "$out"
[ "$(grep -cE ' ok( \((CPU fallback|composite): no native [a-z_]+ [a-z0-9]+ kernel\))?$' <<<"$out")" -eq 13 ] ||
  fail "arena: not every workload verified"
# Rows that ran through the fallback or as a composite say so; the arena's own kernels' rows do not.
[ "$(grep -c '(CPU fallback: ' <<<"$out")" -eq 5 ] || fail "arena: expected 5 rows through the CPU fallback"
grep -qE '^sigmoid_out .* ok \(composite: no native sigmoid float32 kernel\)$' <<<"$out" || fail "arena: sigmoid row"
grep -qE '^exp_out .* ok \(CPU fallback: no native exp float32 kernel\)$' <<<"$out" || fail "arena: exp row"
grep -qE '^matmul +bfloat16 .* ok \(CPU fallback: no native matmul bfloat16 kernel\)$' <<<"$out" || fail "arena: matmul row"
grep -qE '^add_out .* ok$' <<<"$out" || fail "arena: its own add is not a fallback row"
grep -q 'exp (float32) has no kernel in plugin "arena" for arena:0; running it on the CPU' "$work/arena.err" ||
  fail "arena: no fallback warning naming op, dtype, plugin and device"

# 3. A plugin whose add ignores input strides: the transposed add is caught.
out=$("$tessera" --config "$work/bad.json" bench --device null:0 "${quick[@]}" 2>/dev/null)
status=$?
echo "$out"
[ "$status" -eq 1 ] || fail "bad plugin: exit status $status, expected 1"
grep -qE '^add_transposed_out .* FAILED: ' <<<"$out" || fail "bad plugin: the wrong strided add was not reported"
grep -qE '^add_out .* ok$' <<<"$out" || fail "bad plugin: its correct contiguous add should pass"
[ "$(grep -c 'FAILED' <<<"$out")" -eq 1 ] || fail "bad plugin: only the strided add is wrong"

# 4. Bad requests say what is wrong.
err=$("$tessera" --config "$work/cpu.json" bench --op nosuch 2>&1); status=$?
[ "$status" -eq 2 ] && grep -q 'no workload named "nosuch"' <<<"$err" || fail "--op nosuch: $status $err"
err=$("$tessera" --config "$work/cpu.json" bench --device nosuch:0 2>&1); status=$?
[ "$status" -ne 0 ] && grep -q 'nosuch' <<<"$err" || fail "--device nosuch:0: $status $err"
# A device of a known type that is not there: one error up front, no table.
for cmd in bench demo; do
  err=$("$tessera" --config "$work/cpu.json" $cmd --device cpu:3 2>&1); status=$?
  [ "$status" -eq 1 ] && [ "$(grep -c 'device cpu:3 is not available (1 cpu device(s))' <<<"$err")" -eq 1 ] &&
    ! grep -qE '^(workload|Tessera demo)' <<<"$err" || fail "$cmd --device cpu:3: $status $err"
done
err=$("$tessera" --config "$work/cpu.json" bench --size -3 2>&1); status=$?
[ "$status" -eq 2 ] && grep -q 'needs a positive whole number, got "-3"' <<<"$err" || fail "--size -3: $status $err"
err=$("$tessera" --config "$work/cpu.json" bench --seconds x 2>&1); status=$?
[ "$status" -eq 2 ] && grep -q -- '--seconds needs a positive number' <<<"$err" || fail "--seconds x: $status $err"
echo "cli.bench: passed"
