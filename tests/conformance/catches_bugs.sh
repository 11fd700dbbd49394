#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# conformance.catches_bugs: `tessera conformance` on bad_conformance.so
# (tests/data/plugins/bad_conformance.c) must exit 1 and report each planted
# bug, while the plugin's correct parts pass.
set -uo pipefail
tessera=$1 plugin=$2
out=$("$tessera" conformance "$plugin" 2>&1)
status=$?
echo "$out"
fail() { echo "catches_bugs: $*" >&2; exit 1; }
[ "$status" -eq 1 ] || fail "exit status $status, expected 1"
for expected in \
  'FAIL abi refuses ABI 2.0: init succeeded for another major version' \
  'FAIL abi get_properties honours a short struct_size: wrote past the caller' \
  'FAIL fill float32 contiguous: wrote outside the output' \
  'FAIL neg float32 contiguous: input 0 changed' \
  'FAIL add float32 transposed: ' \
  'FAIL add float32 step-sliced: ' \
  'FAIL copy float32 contiguous from int64: ' \
  'FAIL copy float32 transposed from int64: '; do
  grep -qF -- "$expected" <<<"$out" || fail "missing: $expected"
done
! grep -qE 'FAIL copy float32 [a-z0-9-]+( from (int32|int16|int8|uint8|bool|float64|float16|bfloat16))?:' <<<"$out" ||
  fail "a correct cast was reported"
for correct in 'FAIL sub ' 'FAIL add float32 contiguous' 'FAIL memory '; do
  ! grep -qF -- "$correct" <<<"$out" || fail "a correct part was reported: $correct"
done
grep -qE '^sub +6 +0 +0$' <<<"$out" || fail "sub should pass its 6 layouts"
echo "catches_bugs: every planted bug was reported"
