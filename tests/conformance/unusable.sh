#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# conformance.unusable: `tessera conformance` on plugins no runtime would load
# must exit 2 and say why on an "UNUSABLE:" line, never abort (an init that
# throws used to end the tool with std::terminate, status 134) nor report a
# plain check failure (status 1).
#   unusable.sh TESSERA PLUGIN_DIR
set -uo pipefail
tessera=$1 dir=$2
fail() { echo "unusable: $*" >&2; exit 1; }
check() {  # check NAME EXPECTED-REASON-SUBSTRING
  local out status
  out=$("$tessera" conformance "$dir/$1.so" 2>&1)
  status=$?
  echo "--- $1 (exit $status)"
  echo "$out" | tail -n 3
  [ "$status" -eq 2 ] || fail "$1: exit status $status, expected 2"
  grep -qF -- "UNUSABLE: " <<<"$out" || fail "$1: no UNUSABLE line"
  grep -F -- "UNUSABLE: " <<<"$out" | grep -qF -- "$2" || fail "$1: the reason does not mention: $2"
}
check bad_throws 'threw a C++ exception: bad_throws: init exploded'
check bad_wrong_major 'api.abi_version major'
check bad_null_api 'returned TSR_OK and no api'
check bad_no_device 'api tables present'
check bad_init_fails 'init with ABI'
check bad_tiny_struct 'api.struct_size'
check bad_null_kernel 'no NULL kernel'
echo "unusable: every broken plugin exits 2 with its reason"
