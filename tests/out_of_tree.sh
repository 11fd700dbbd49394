#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# out_of_tree: what a plugin vendor does. Installs this build to a temporary
# prefix, builds the sample plugin (plugins/arena) against that prefix alone,
# installs it there, checks it with `tessera conformance`, and runs the demo
# on its device chosen by the config it installs.
#   tests/out_of_tree.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
step() { echo "== out_of_tree: $*"; }
fail() { echo "out_of_tree: $*" >&2; exit 1; }

step "install to $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"

step "build plugins/arena against the installed package only"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$src/plugins/arena" -B "$work/arena" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$work/configure.log"
cmake --build "$work/arena" -j 2 >"$work/build.log" || { cat "$work/build.log"; fail "the sample plugin did not build"; }
# Nothing of the source tree may be on its include path.
if grep -q -- "-I$src" "$work/arena/compile_commands.json"; then
  fail "the sample plugin was compiled with the source tree on its include path"
fi
grep -q -- "$prefix/include" "$work/arena/compile_commands.json" || fail "the installed headers were not used"
cmake --install "$work/arena" >>"$work/install.log"
[ -f "$prefix/lib/tessera/arena.so" ] || fail "arena.so was not installed beside the other plugins"

step "tessera conformance on the installed arena.so"
"$prefix/bin/tessera" conformance "$prefix/lib/tessera/arena.so"

step "tessera info and demo with the installed arena config"
config=$prefix/share/tessera/configs/arena.json
"$prefix/bin/tessera" --config "$config" info
out=$("$prefix/bin/tessera" --config "$config" demo 2>"$work/demo.err") || { cat "$work/demo.err"; fail "demo failed"; }
echo "$out" | tail -n 12
grep -q "device='arena:0'" <<<"$out" || fail "the demo did not run on arena:0"
grep -q "largest float32 gap" <<<"$out" || fail "the demo did not reach the MLP"
grep -q "assert_close(float64, reference): passed" <<<"$out" || fail "the MLP forward on arena:0 is wrong"
grep -q 'warning: matmul (float32) has no kernel in plugin "arena" for arena:0' "$work/demo.err" || fail "no fallback warning for matmul"
echo "out_of_tree: passed"
