#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# install.relocated: an install must work wherever it is moved to, and use
# nothing outside itself. Installs this build to a temporary prefix, moves
# the prefix, then, with the moved prefix alone:
#  - checks the versions (SONAME libtessera.so.<ABI major>, pkg-config and
#    find_package = version.h's ABI version);
#  - compiles the README's C example with pkg-config, runs it (under valgrind
#    when there is one: nothing lost), the installed c99_consumer.c and
#    examples/train_mlp.c (built, and run to its first error);
#  - builds the installed arena example with find_package(Tessera 1.<minor>)
#    and checks that 1.<minor + 1> is refused;
#  - checks with LD_DEBUG that every Tessera library and plugin loaded comes
#    from the moved prefix, and that without the prefix's cpu_tbb.so the
#    runtime reports it missing instead of finding the build tree's.
#   tests/install/relocated_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
# shellcheck source=tests/install/common.sh
source "$(dirname "$0")/common.sh"
install_test install.relocated "$1" "$2"

step "install to a temporary prefix, then move it"
cmake --install "$build" --prefix "$work/staged" >"$work/install.log"
mkdir "$work/moved"
mv "$work/staged" "$work/moved/prefix"
prefix=$work/moved/prefix
# Nothing installed may name the prefix it was installed to.
if grep -rlF -- "$work/staged" "$prefix" >"$work/named.txt"; then
  cat "$work/named.txt"; fail "installed files name the install prefix (not relocatable)"
fi
pc=$(find "$prefix" -name tessera.pc)
[ -n "$pc" ] || fail "no tessera.pc installed"
export PKG_CONFIG_PATH=${pc%/tessera.pc}
libdir=$(realpath "$(pkg-config --variable=libdir tessera)")
[ -f "$libdir/libtessera.so" ] || fail "pkg-config's libdir ($libdir) has no libtessera.so"
if grep -qF -- "$build" "$libdir"/libtessera.so; then fail "libtessera.so names the build tree $build"; fi

step "versions: ABI $major.$minor"
soname=$(readelf -d "$libdir/libtessera.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libtessera.so.$major" ] || fail "SONAME is '$soname', not libtessera.so.$major"
[ "$(pkg-config --modversion tessera)" = "$major.$minor.0" ] ||
  fail "pkg-config version $(pkg-config --modversion tessera), not $major.$minor.0"
for var in libdir includedir plugindir configdir examplesdir; do
  dir=$(realpath -m "$(pkg-config --variable=$var tessera)")
  case $dir in "$prefix"/*) ;; *) fail "pkg-config's $var is $dir, outside $prefix" ;; esac
  [ -d "$dir" ] || fail "pkg-config's $var ($dir) does not exist"
done
[ -f "$(pkg-config --variable=plugindir tessera)/cpu_tbb.so" ] || fail "no cpu_tbb.so in plugindir"
[ -f "$(pkg-config --variable=configdir tessera)/default.json" ] || fail "no default.json in configdir"
find "$prefix/share" -name LICENSE | grep -q . || fail "no LICENSE installed"

step "the README's C example, built with pkg-config"
readme_example -Wl,-rpath,"$libdir"
if command -v valgrind >/dev/null; then
  valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect ./hello >/dev/null 2>valgrind.log ||
    { cat valgrind.log; fail "valgrind: the README's example leaks or errs"; }
fi

step "the installed c99_consumer.c, built with pkg-config"
examples=$(pkg-config --variable=examplesdir tessera)
# shellcheck disable=SC2046
cc "${tessera_cflags[@]}" "$examples/c99_consumer.c" -o c99_consumer -lm $(pkg-config --cflags --libs tessera) \
  -Wl,-rpath,"$libdir"
./c99_consumer || fail "the installed c99_consumer failed"

step "the installed train_mlp.c, built with pkg-config"
# shellcheck disable=SC2046
cc "${tessera_cflags[@]}" "$examples/train_mlp.c" -o train_mlp -lm $(pkg-config --cflags --libs tessera) -Wl,-rpath,"$libdir"
# It runs in the moved prefix: a runtime made there, and a missing data file reported as one.
if ./train_mlp missing.safetensors >train_mlp.out 2>&1; then fail "train_mlp accepted a missing data file"; fi
grep -q "missing.safetensors: cannot open" train_mlp.out || { cat train_mlp.out; fail "train_mlp did not name the missing file"; }

step "the installed arena example, with find_package(Tessera $major.$minor)"
build_arena "$prefix" -DCMAKE_PREFIX_PATH="$prefix"

newer=$major.$((minor + 1))
mkdir newer
printf 'cmake_minimum_required(VERSION 3.22)\nproject(newer LANGUAGES NONE)\nfind_package(Tessera %s REQUIRED)\n' \
  "$newer" >newer/CMakeLists.txt
if cmake -S newer -B newer-build -DCMAKE_PREFIX_PATH="$prefix" >newer.log 2>&1; then
  fail "find_package(Tessera $newer) accepted a $major.$minor install"
fi

step "nothing outside the moved prefix is loaded"
traced info "$prefix/bin/tessera" --config "$prefix/share/tessera/configs/arena.json" info
loaded_inside info "libtessera.so cpu_tbb.so arena.so" "$prefix"

# The one deletion: without its cpu_tbb.so, an install must say it is
# missing, not fall back on the build tree's.
rm "$libdir/tessera/cpu_tbb.so"
"$prefix/bin/tessera" info --json >info.json 2>info.err || true
if grep -qF -- "$build" info.json info.err; then
  cat info.json; fail "the runtime looked in the build tree $build"
fi
python3 - info.json <<'EOF' || { cat info.json; fail "a missing cpu_tbb.so was not reported as failed"; }
import json, sys
doc = json.load(open(sys.argv[1]))
assert any(f["name"] == "cpu_tbb" for f in doc["failed"]), doc["failed"]
assert not any(p.get("name") == "cpu_tbb" for p in doc["plugins"]), doc["plugins"]
EOF
echo "install.relocated: passed"
