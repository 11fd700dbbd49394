#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cli.demo: `tessera demo` on the cpu runs the lesson walk-through and the MLP
# forward to the end, and prints messages whole (it used to cut the view
# error after 46 characters, in the middle of a word).
set -uo pipefail
tessera=$1 config=$2
out=$("$tessera" --config "$config" demo --device cpu 2>&1) || { echo "$out"; echo "cli.demo: exit $?"; exit 1; }
fail() { echo "$out" | tail -n 20; echo "cli.demo: $*" >&2; exit 1; }
grep -qxF "view failed: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead." <<<"$out" ||
  fail "the view error is not printed whole"
grep -q "assert_close(float64, reference): passed" <<<"$out" || fail "the MLP forward did not pass"
echo "cli.demo: passed"
