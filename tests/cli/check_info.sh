#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tessera info on a config mixing good and bad plugins, and on bad configs.
# Usage: check_info.sh TESSERA BINARY_DIR BAD_CONFIG_DIR LOADER_DIR
set -u
tessera=$1 dir=$2 bad_configs=$3 loader=$4
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect() {  # expect TEXT-FILE SUBSTRING
  grep -qF -- "$2" "$1" || { fail "expected \"$2\" in:"; sed 's/^/    /' "$1"; }
}

# 1. Good plugins load beside bad ones; each failure names its path and reason.
"$tessera" info --config "$dir/mixed.json" >"$dir/mixed.out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "tessera info on mixed.json exited $rc (the default device cpu is available)"
expect "$dir/mixed.out" "cpu_tbb"
expect "$dir/mixed.out" "cpu: CPU (oneTBB"
expect "$dir/mixed.out" "plugins that failed to load: 4"
expect "$dir/mixed.out" "$loader/does_not_exist.so"
expect "$dir/mixed.out" "file not found"
expect "$dir/mixed.out" "$loader/not_a_library.so"
expect "$dir/mixed.out" "not a loadable shared library"
expect "$dir/mixed.out" "$loader/bad_no_entry.so"
expect "$dir/mixed.out" "has no entry point \"tsr_plugin_init\""
expect "$dir/mixed.out" "$loader/bad_wrong_major.so"
expect "$dir/mixed.out" "ABI version mismatch"
expect "$dir/mixed.out" "null:0"
expect "$dir/mixed.out" "default device: cpu (available)"

# The same as JSON.
"$tessera" info --json --config "$dir/mixed.json" >"$dir/mixed.json.out" 2>&1 || fail "info --json exited non-zero"
expect "$dir/mixed.json.out" "\"failed\": ["
expect "$dir/mixed.json.out" "\"default_device_available\": true"

# 2. A default device that is not available: exit status 1.
sed 's/"default_device": "cpu"/"default_device": "cuda:3"/' "$dir/mixed.json" >"$dir/no_default.json"
"$tessera" info --config "$dir/no_default.json" >"$dir/no_default.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "tessera info with an unavailable default device exited $rc, expected 1"
expect "$dir/no_default.out" "NOT available"

# 3. Every bad config: exit status 2, one clear error naming the file and the field.
for cfg in "$bad_configs"/*.json; do
  "$tessera" info --config "$cfg" >"$dir/bad.out" 2>&1
  rc=$?
  [ $rc -eq 2 ] || fail "$(basename "$cfg"): exit status $rc, expected 2"
  expect "$dir/bad.out" "$cfg"
  expect "$dir/bad.out" "$(head -n 1 "${cfg%.json}.expected")"
  [ "$(wc -l <"$dir/bad.out")" -le 3 ] || fail "$(basename "$cfg"): more than one short error"
done

# 4. TESSERA_CONFIG selects the config too.
TESSERA_CONFIG="$dir/mixed.json" "$tessera" info >"$dir/env.out" 2>&1 || fail "TESSERA_CONFIG: non-zero exit"
expect "$dir/env.out" "$dir/mixed.json"

if [ $failures -eq 0 ]; then echo "cli.info: all checks passed"; else echo "cli.info: $failures check(s) failed"; fi
[ $failures -eq 0 ]
