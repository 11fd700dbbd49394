#!/usr/bin/env bash
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
  'FAIL add float32 step-sliced: '; do
  grep -qF -- "$expected" <<<"$out" || fail "missing: $expected"
done
for correct in 'FAIL sub ' 'FAIL add float32 contiguous' 'FAIL memory '; do
  ! grep -qF -- "$correct" <<<"$out" || fail "a correct part was reported: $correct"
done
grep -qE '^sub +6 +0 +0$' <<<"$out" || fail "sub should pass its 6 layouts"
echo "catches_bugs: every planted bug was reported"
