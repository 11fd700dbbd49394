#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# install.python: the Python package installed the two ways issue 35 asks,
# each used with nothing but what it installed:
#  - `cmake --install` to a temporary prefix, the package found with
#    PYTHONPATH=<prefix>/lib/python3/dist-packages;
#  - the wheel: a venv (--system-site-packages, for NumPy), then
#    `pip install --no-build-isolation --no-index` of a copy of
#    bindings/python, offline, built against that prefix with pkg-config.
# For each: tensors and their operators work, `python3 -m tessera info`
# exits 0, and every Tessera file the process maps (libtessera, plugins,
# the extension) lies inside what that install made.
#   tests/install/python_installs.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
# shellcheck source=tests/install/common.sh
source "$(dirname "$0")/common.sh"
install_test install.python "$1" "$2"

# check NAME PYTHON INSIDE...: ops in PYTHON, and every Tessera file it maps inside one of INSIDE.
check() {
  local name=$1 python=$2
  shift 2
  python_ops "$name" "$python"
  loaded_inside "$name" "libtessera.so cpu_tbb.so _C.cpython" "$@"
}

step "cmake --install, the package found with PYTHONPATH"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
site=$work/prefix/lib/python3/dist-packages
ls "$site"/tessera/_C.cpython-*.so >/dev/null 2>&1 || fail "cmake --install put no extension in $site/tessera"
PYTHONPATH=$site check prefix /usr/bin/python3 "$work/prefix"

step "the wheel, built offline by pip in a venv against the install (pkg-config)"
mkdir "$work/src"
(cd "$src/bindings/python" && tar --exclude=__pycache__ --exclude=build --exclude='*.egg-info' -cf - .) |
  (cd "$work/src" && tar -xf -)
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig "$work/venv/bin/pip" install --no-build-isolation --no-index --no-deps \
  "$work/src" >"$work/pip.log" 2>&1 || { cat "$work/pip.log"; fail "pip could not build and install the wheel"; }
"$work/venv/bin/pip" show tessera >"$work/show.txt" 2>&1 || true  # (a file, not a pipe into grep -q: no SIGPIPE)
grep -q "^Version: " "$work/show.txt" || { cat "$work/show.txt"; fail "pip does not list the installed tessera"; }
check wheel "$work/venv/bin/python" "$work/venv" "$work/prefix"
step "ok"
