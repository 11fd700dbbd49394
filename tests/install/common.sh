# shellcheck shell=bash
# SPDX-License-Identifier: Apache-2.0
# What the install tests share (relocated_install.sh, python_installs.sh,
# deb_installs.sh source it): each uses an installed Tessera with nothing
# else, and checks that every Tessera file its programs load lies inside
# what it installed.
#
#   install_test NAME BUILD_DIR SOURCE_DIR
#     $build, $src: the two, absolute; $work: a new temporary directory
#     (canonical: paths are compared as strings), removed on exit and made
#     the current one; $major, $minor: tessera/version.h's ABI version. Clears
#     the variables through which the environment could point elsewhere.
#   step TEXT, fail TEXT          progress, and failure (exit 1)
#   readme_example [CC_ARG...]    the README's C example, built as ./hello
#                                 with pkg-config (and CC_ARGs), run and checked
#   build_arena PREFIX [CMAKE_ARG...]
#                                 the arena example installed in PREFIX, built
#                                 against PREFIX with find_package(Tessera
#                                 $major.$minor) and installed beside its plugins
#   traced NAME CMD...            runs CMD (output in NAME.out) under the
#                                 dynamic linker's trace; the Tessera objects
#                                 it loaded go to NAME.loaded
#   python_ops NAME PYTHON        tensor ops and `python -m tessera info` in
#                                 PYTHON; the Tessera files it mapped (and the
#                                 package's __init__.py) go to NAME.loaded
#   loaded_inside NAME "LIB..." INSIDE...
#                                 NAME.loaded names each LIB, and each of its
#                                 files is one of INSIDE or lies below one

# The Tessera files of a process: libtessera, the plugins, the Python
# package and its extension.
tessera_files_pattern='tessera|cpu_tbb|arena|_C\.cpython'
tessera_cflags=(-std=c99 -pedantic -Wall -Wextra -Werror)

# shellcheck disable=SC2034  # $build and the others are the sourcing script's
install_test() {
  test_name=$1
  build=$(cd "$2" && pwd) src=$(cd "$3" && pwd)
  work=$(cd "$(mktemp -d)" && pwd -P)
  trap 'rm -rf "$work"' EXIT
  unset TESSERA_LIBRARY TESSERA_CONFIG TESSERA_PLUGIN_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH PKG_CONFIG_LIBDIR \
    PKG_CONFIG_SYSROOT_DIR CMAKE_PREFIX_PATH PYTHONPATH PYTHONHOME
  export PYTHONNOUSERSITE=1
  cd "$work" || exit 1
  local version_h=$src/abi/include/tessera/version.h
  major=$(sed -n 's/^#define TSR_ABI_VERSION_MAJOR \([0-9]*\).*/\1/p' "$version_h")
  minor=$(sed -n 's/^#define TSR_ABI_VERSION_MINOR \([0-9]*\).*/\1/p' "$version_h")
  if [ -z "$major" ] || [ -z "$minor" ]; then fail "no ABI version in $version_h"; fi
}
step() { echo "== $test_name: $*"; }
fail() { echo "$test_name: $*" >&2; exit 1; }

readme_example() {
  awk '/^## Using it from C/ { s = 1 } s && /^```c$/ { c = 1; next } c && /^```$/ { exit } c' "$src/README.md" >hello.c
  grep -q "int main" hello.c || fail "no C program in the README's 'Using it from C'"
  # shellcheck disable=SC2046  # pkg-config's output is meant to be split
  cc "${tessera_cflags[@]}" hello.c -o hello $(pkg-config --cflags --libs tessera) "$@"
  ./hello >hello.out || fail "the README's example failed"
  grep -qF "tensor([[1., 1., 1.]," hello.out || { cat hello.out; fail "the README's example did not print zeros + ones"; }
}

build_arena() {
  local prefix=$1 generator=()
  shift
  command -v ninja >/dev/null && generator=(-G Ninja)
  mkdir vendor
  cat >vendor/CMakeLists.txt <<EOF
cmake_minimum_required(VERSION 3.22)
project(vendor LANGUAGES CXX)
find_package(Tessera $major.$minor REQUIRED)
message(STATUS "Tessera_DIR=\${Tessera_DIR} Tessera_VERSION=\${Tessera_VERSION}")
message(STATUS "Tessera_PLUGIN_DIR=\${Tessera_PLUGIN_DIR} Tessera_CONFIG_DIR=\${Tessera_CONFIG_DIR}")
add_subdirectory("\${Tessera_EXAMPLES_DIR}/arena" arena)
EOF
  cmake -S vendor -B vendor-build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >vendor.log 2>&1 ||
    { cat vendor.log; fail "find_package(Tessera $major.$minor) failed"; }
  grep -q "Tessera_DIR=$prefix/" vendor.log || { cat vendor.log; fail "Tessera was not found in $prefix"; }
  grep -q "Tessera_VERSION=$major.$minor.0" vendor.log || { cat vendor.log; fail "Tessera_VERSION is not $major.$minor.0"; }
  grep -q "Tessera_PLUGIN_DIR=$prefix/.*/tessera Tessera_CONFIG_DIR=$prefix/share/tessera/configs" vendor.log ||
    { cat vendor.log; fail "Tessera_PLUGIN_DIR or Tessera_CONFIG_DIR is not in $prefix"; }
  cmake --build vendor-build -j 2 >vendor-build.log 2>&1 || { cat vendor-build.log; fail "the arena example did not build"; }
  cmake --install vendor-build >>vendor.log
  local plugin_dir
  plugin_dir=$(sed -n 's/.*Tessera_PLUGIN_DIR=\([^ ]*\) .*/\1/p' vendor.log)
  [ -f "$plugin_dir/arena.so" ] || fail "arena.so was not installed beside cpu_tbb.so ($plugin_dir)"
}

traced() {
  local name=$1
  shift
  LD_DEBUG=files LD_DEBUG_OUTPUT="$work/$name.ld" "$@" >"$name.out" 2>&1 || { cat "$name.out"; fail "$* failed"; }
  # Paths of the objects initialised, and of those dlopen'ed by path.
  cat "$work/$name.ld".* | sed -n -e 's/.*calling init: \(.*\)$/\1/p' -e 's/.*file=\(\/[^ ]*\) \[.*/\1/p' |
    grep -E "$tessera_files_pattern" | sort -u >"$name.loaded" || true
  rm -f "$work/$name.ld".*
}

python_ops() {
  local name=$1 python=$2
  "$python" - "$name.loaded" "$tessera_files_pattern" <<'PY' || fail "$python: the checks above failed"
import os, re, subprocess, sys
import tessera as ts
x = ts.arange(12.0).view(3, 4)
y = (x + 1.0) * 2 - x[1:, ::2].sum()
assert y.shape == (3, 4) and y[2, 3].item() == 2 * 12.0 - (4 + 6 + 8 + 10), y
assert ts.__version__, ts.__version__
pattern = re.compile(sys.argv[2])
mapped = {line.split()[-1] for line in open("/proc/self/maps") if line.split()[-1].startswith("/")}
files = sorted({ts.__file__} | {m for m in mapped if pattern.search(m)})
with open(sys.argv[1], "w") as out:
    out.write("".join(f + "\n" for f in files))
info = subprocess.run([sys.executable, "-m", "tessera", "info"], capture_output=True, text=True)
assert info.returncode == 0 and "cpu_tbb" in info.stdout, info.stdout + info.stderr
print("  %s: tessera %s from %s, %d Tessera files" % (sys.executable, ts.__version__, ts.__file__, len(files)))
PY
}

loaded_inside() {
  local name=$1 lib file real inside outside=""
  for lib in $2; do
    grep -q "/$lib" "$name.loaded" || { cat "$name.loaded"; fail "$name: $lib was not loaded"; }
  done
  shift 2
  local insides=()
  for inside in "$@"; do insides+=("$(realpath -m "$inside")"); done
  while read -r file; do
    real=$(realpath -m "$file")
    for inside in "${insides[@]}"; do
      case $real in "$inside" | "$inside"/*) continue 2 ;; esac
    done
    outside="$outside $file"
  done <"$name.loaded"
  [ -z "$outside" ] || fail "$name: loaded from outside what was installed:$outside"
}
