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
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
work=$(cd "$(mktemp -d)" && pwd -P)
trap 'rm -rf "$work"' EXIT
step() { echo "== install.python: $*"; }
fail() { echo "install.python: $*" >&2; exit 1; }
unset TESSERA_LIBRARY TESSERA_CONFIG TESSERA_PLUGIN_PATH PYTHONPATH LD_LIBRARY_PATH PKG_CONFIG_PATH
cd "$work"

# check PYTHON ROOT...: runs ops with PYTHON; every mapped Tessera file must lie under one of the ROOTs.
check() {
  local python=$1
  shift
  "$python" - "$@" <<'PY' || fail "$python: the checks above failed"
import os, subprocess, sys
import tessera as ts
roots = [os.path.realpath(r) + os.sep for r in sys.argv[1:]]
x = ts.arange(12.0).view(3, 4)
y = (x + 1.0) * 2 - x[1:, ::2].sum()
assert y.shape == (3, 4) and y[2, 3].item() == 2 * 12.0 - (4 + 6 + 8 + 10), y
assert ts.__version__ and ts._C.__file__.startswith(tuple(roots)), ts._C.__file__
mapped = sorted({line.split()[-1] for line in open("/proc/self/maps")
                 if any(k in line for k in ("libtessera", "/tessera/", "cpu_tbb", "_C.cpython"))})
outside = [m for m in mapped if not os.path.realpath(m).startswith(tuple(roots))]
assert mapped and not outside, "mapped from outside the install: %s" % outside
info = subprocess.run([sys.executable, "-m", "tessera", "info"], capture_output=True, text=True)
assert info.returncode == 0 and "cpu_tbb" in info.stdout, info.stdout + info.stderr
print("  %s: tessera %s, %d files mapped, all inside %s" % (sys.executable, ts.__version__, len(mapped), roots))
PY
}

step "cmake --install, the package found with PYTHONPATH"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
site=$work/prefix/lib/python3/dist-packages
ls "$site"/tessera/_C.cpython-*.so >/dev/null 2>&1 || fail "cmake --install put no extension in $site/tessera"
PYTHONPATH=$site check /usr/bin/python3 "$work/prefix"

step "the wheel, built offline by pip in a venv against the install (pkg-config)"
mkdir "$work/src"
(cd "$src/bindings/python" && tar --exclude=__pycache__ --exclude=build --exclude='*.egg-info' -cf - .) |
  (cd "$work/src" && tar -xf -)
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig "$work/venv/bin/pip" install --no-build-isolation --no-index --no-deps \
  "$work/src" >"$work/pip.log" 2>&1 || { cat "$work/pip.log"; fail "pip could not build and install the wheel"; }
"$work/venv/bin/pip" show tessera >"$work/show.txt" 2>&1 || true  # (a file, not a pipe into grep -q: no SIGPIPE)
grep -q "^Version: " "$work/show.txt" || { cat "$work/show.txt"; fail "pip does not list the installed tessera"; }
check "$work/venv/bin/python" "$work/venv" "$work/prefix"
step "ok"
