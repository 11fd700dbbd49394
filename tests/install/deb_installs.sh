#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# install.deb: the Debian packages `cpack -G DEB` makes of this build (Note
# [The Debian package] in cmake/Packaging.cmake), tessera installed on its
# own, used, and removed:
#  - their contents (dpkg-deb): libtessera with its SONAME links, the
#    plugins (cuda.so and nccl.so in tessera-cuda alone), the headers,
#    tessera.pc, the CMake package, bin/tessera, the Python package with
#    its extension in /usr/lib/python3/dist-packages; Depends as
#    dpkg-shlibdeps finds them, python3 and the BLAS;
#  - installed for real, `apt-get install ./tessera_*.deb`, where this runs
#    as root and may make a private mount namespace with overlays (unshare):
#    /usr, /etc and /var are overlays that only this test's processes see,
#    so the machine's own are left as they were. Elsewhere `dpkg --instdir`
#    into a temporary root, without the dependency checks (its database
#    there is empty). TESSERA_DEB_ROOT=apt or =dpkg picks one;
#  - with it alone: the README's C example built with pkg-config and run,
#    the installed arena plugin built with find_package(Tessera) and loaded
#    by `tessera info`, and `python3 -c "import tessera"` with ops; each
#    loads no Tessera file but the package's and the plugin it built;
#  - removed (`apt-get remove`, `dpkg --remove`): none of its files is left,
#    nor the bytecode Python wrote beside its modules; with apt, the
#    overlays show nothing else changed in /usr or /etc but ld.so.cache.
#   tests/install/deb_installs.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
self=$(readlink -f "$0")
# shellcheck source=tests/install/common.sh
source "$(dirname "$self")/common.sh"
unset PYTHONDONTWRITEBYTECODE  # the bytecode root's imports write is part of what removal must clean

# The installed package used: the C example, the plugin, Python. $root is
# where it is installed ("" for /); in a temporary root, pkg-config, CMake,
# the linker and Python are pointed there.
use_installed() {
  local prefix=$root/usr cc_args=() cmake_args=()
  if [ -n "$root" ]; then
    export PKG_CONFIG_PATH=$prefix/lib/pkgconfig PYTHONPATH=$prefix/lib/python3/dist-packages
    cc_args=("-Wl,-rpath,$prefix/lib")
    cmake_args=(-DCMAKE_PREFIX_PATH="$prefix")
  fi
  mapfile -t package < <(sed "s|^\\.|$root|" "$work/tessera.files")
  local soname
  soname=$(readelf -d "$prefix/lib/libtessera.so.$major.$minor.0" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
  [ "$soname" = "libtessera.so.$major" ] || fail "SONAME is '$soname', not libtessera.so.$major"

  step "the README's C example, built with pkg-config"
  [ "$(realpath "$(pkg-config --variable=libdir tessera)")" = "$prefix/lib" ] ||
    fail "pkg-config found $(pkg-config --path tessera), not the package's tessera.pc"
  readme_example "${cc_args[@]}"
  traced hello ./hello
  loaded_inside hello "libtessera.so cpu_tbb.so" "${package[@]}"

  step "the installed arena example, with find_package(Tessera $major.$minor)"
  build_arena "$prefix" "${cmake_args[@]}"
  mapfile -t arena <vendor-build/install_manifest.txt
  traced info "$prefix/bin/tessera" --config "$prefix/share/tessera/configs/arena.json" info
  loaded_inside info "libtessera.so cpu_tbb.so arena.so" "${package[@]}" "${arena[@]}"
  rm "${arena[@]}"  # not the package's: apt would leave it

  step "python3 -c \"import tessera\""
  /usr/bin/python3 -c "import tessera" || fail "the installed package does not import"
  python_ops python /usr/bin/python3
  loaded_inside python "libtessera.so cpu_tbb.so _C.cpython" "${package[@]}"
  # Root's imports wrote bytecode, which the package's prerm must remove.
  [ -n "$(find "$prefix/lib/python3/dist-packages/tessera" -name '*.pyc' -print -quit)" ] ||
    fail "python3 wrote no bytecode beside the package (nothing for its removal to prove)"
}

# Nothing of the package is left in $root.
nothing_left() {
  local path left=""
  while read -r path; do
    path=$root${path#.}
    if [ -e "$path" ] || [ -L "$path" ]; then left="$left $path"; fi
  done <"$work/tessera.files"
  for path in lib/python3/dist-packages/tessera lib/tessera lib/cmake/Tessera include/tessera share/tessera; do
    [ ! -e "$root/usr/$path" ] || left="$left $root/usr/$path"
  done
  [ -z "$left" ] || fail "left behind by the removal:$left"
}

# Inside the private mount namespace (below): apt-get installs the package
# into overlays of /usr, /etc and /var whose upper layers are in OVERLAYS.
if [ "${1:-}" = --in-namespace ]; then
  overlays=$2 deb=$5 root=""
  install_test install.deb "$3" "$4"
  cp "$overlays/tessera.files" "$work/tessera.files"
  for dir in usr etc var; do
    mount -t overlay overlay -o "lowerdir=/$dir,upperdir=$overlays/$dir/upper,workdir=$overlays/$dir/work" "/$dir"
  done
  export DEBIAN_FRONTEND=noninteractive
  step "apt-get install ./$(basename "$deb") (overlays: the machine's /usr, /etc and /var are left unchanged)"
  apt-get install -y --no-install-recommends "$deb" >apt-install.log 2>&1 ||
    { cat apt-install.log; fail "apt-get could not install $deb"; }
  dpkg-query -W -f='${Status}' tessera | grep -q "install ok installed" || fail "apt-get did not install tessera"
  use_installed
  step "apt-get remove tessera"
  apt-get remove -y tessera >apt-remove.log 2>&1 || { cat apt-remove.log; fail "apt-get could not remove tessera"; }
  if dpkg-query -W -f='${Status}' tessera 2>/dev/null | grep -q "installed"; then fail "tessera is still installed"; fi
  nothing_left
  exit 0
fi

install_test install.deb "$1" "$2"
arch=$(dpkg --print-architecture)
version=$major.$minor.0

step "cpack -G DEB"
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/packages" >cpack.log 2>&1 ||
  { cat cpack.log; fail "cpack -G DEB failed"; }
deb=$work/packages/tessera_${version}_$arch.deb
[ -f "$deb" ] || { cat cpack.log; fail "cpack made no tessera_${version}_$arch.deb"; }

step "the package's contents"
dpkg-deb -c "$deb" >contents.txt
dpkg-deb --fsys-tarfile "$deb" | tar -t | grep -v '/$' >tessera.files
has() { grep -qE "^$1\$" tessera.files || { cat contents.txt; fail "the package has no ${1//\\/}"; }; }
for path in "include/tessera/tessera\.h" "include/tessera/plugin\.h" "bin/tessera" "lib/pkgconfig/tessera\.pc" \
  "lib/cmake/Tessera/TesseraConfig\.cmake" "lib/cmake/Tessera/TesseraConfigVersion\.cmake" \
  "lib/cmake/Tessera/TesseraTargets\.cmake" "lib/tessera/cpu_tbb\.so" "share/tessera/configs/default\.json" \
  "share/tessera/examples/arena/CMakeLists\.txt" "share/doc/tessera/LICENSE" \
  "lib/python3/dist-packages/tessera/__init__\.py" "lib/python3/dist-packages/tessera/_C\.cpython-[^/]*\.so"; do
  has "\./usr/$path"
done
[ ! -f "$build/lib/tessera/mpi.so" ] || has "\./usr/lib/tessera/mpi\.so"
so=libtessera.so
grep -qE "^-.* \./usr/lib/$so\.$major\.$minor\.0\$" contents.txt || { cat contents.txt; fail "no $so.$major.$minor.0"; }
grep -qE "^l.* \./usr/lib/$so\.$major -> $so\.$major\.$minor\.0\$" contents.txt || fail "no link $so.$major -> $so.$major.$minor.0"
grep -qE "^l.* \./usr/lib/$so -> $so\.$major\$" contents.txt || fail "no link $so -> $so.$major"
if grep -E '/(cuda|nccl)\.so$|__pycache__|\.pyc$' tessera.files; then fail "the package holds the above"; fi
dpkg-deb -I "$deb" >info.txt
field() { sed -n "s/^ $1: //p" info.txt; }
if [ "$(field Package)/$(field Version)/$(field Architecture)" != "tessera/$version/$arch" ]; then
  cat info.txt; fail "not tessera $version for $arch"
fi
depends=$(field Depends)
for dep in "libc6 " "libtbb" "python3" "libopenblas0|libblas3"; do
  grep -qE "(^|, )($dep)" <<<"$depends" || { cat info.txt; fail "Depends has no $dep (dpkg-shlibdeps: dpkg-dev)"; }
done
[ "$(field Recommends)" = python3-numpy ] || { cat info.txt; fail "Recommends is not python3-numpy"; }
for script in prerm postinst postrm; do grep -qE "^ +[0-9]+ bytes, +[0-9]+ lines +\\* +$script " info.txt ||
  { cat info.txt; fail "no executable $script"; }; done
echo "  $(basename "$deb"): $(du -k "$deb" | cut -f1) KiB; Depends: $depends"

cuda_deb=$work/packages/tessera-cuda_${version}_$arch.deb
if [ -f "$build/lib/tessera/cuda.so" ]; then
  [ -f "$cuda_deb" ] || fail "cuda.so is built but cpack made no tessera-cuda_${version}_$arch.deb"
  dpkg-deb --fsys-tarfile "$cuda_deb" | tar -t | grep -v '/$' >cuda.files
  grep -qx "./usr/lib/tessera/cuda.so" cuda.files || { cat cuda.files; fail "tessera-cuda has no cuda.so"; }
  if grep -v -E '^\./usr/lib/tessera/(cuda|nccl)\.so$' cuda.files; then fail "tessera-cuda holds more than its plugins"; fi
  [ "$(dpkg-deb -f "$cuda_deb" Depends)" = "tessera (= $version)" ] ||
    fail "tessera-cuda's Depends is '$(dpkg-deb -f "$cuda_deb" Depends)', not 'tessera (= $version)'"
elif [ -e "$cuda_deb" ]; then
  fail "no cuda.so is built, yet cpack made $(basename "$cuda_deb")"
fi

# apt in a private mount namespace where it can be made, else dpkg --instdir.
mode=${TESSERA_DEB_ROOT:-}
if [ -z "$mode" ]; then
  mode=dpkg why="not root"
  if [ "$(id -u)" = 0 ]; then
    why="no apt-get or unshare"
    if command -v apt-get >/dev/null && command -v unshare >/dev/null; then
      why="$work is below /usr, /etc or /var"
      case $work/ in /usr/* | /etc/* | /var/*) ;; *)
        why="no overlay in a private mount namespace (unshare --mount)"
        mkdir -p probe/upper probe/work
        if unshare --mount --propagation private -- \
          mount -t overlay overlay -o "lowerdir=/usr,upperdir=$work/probe/upper,workdir=$work/probe/work" /usr 2>probe.err; then
          mode=apt
        else
          why="$why: $(cat probe.err)"
        fi ;;
      esac
    fi
  fi
  [ "$mode" = apt ] || step "apt-get cannot install here ($why): dpkg --instdir into a temporary root"
fi

case $mode in
apt)
  mkdir -p overlays
  for dir in usr etc var; do mkdir -p "overlays/$dir/upper" "overlays/$dir/work"; done
  cp tessera.files overlays/
  unshare --mount --propagation private -- "$self" --in-namespace "$work/overlays" "$build" "$src" "$deb"
  # What the install and removal changed: nothing in /usr (no file, no
  # whiteout of one of the machine's, no new directory), in /etc only the
  # linker's cache.
  changed=$(cd overlays/usr/upper && find . -mindepth 1 \( ! -type d -o -type d ! -exec test -d "/usr/{}" \; \) -print)
  [ -z "$changed" ] || fail "left in /usr after apt-get remove: $changed"
  changed=$(cd overlays/etc/upper && find . -mindepth 1 ! -type d ! -path ./ld.so.cache -print)
  [ -z "$changed" ] || fail "left in /etc after apt-get remove: $changed"
  ;;
dpkg)
  root=$work/root
  mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" shim
  touch "$root/var/lib/dpkg/status"
  # The maintainer scripts run outside the root (DPKG_ROOT names it): their
  # ldconfig would rebuild the machine's cache, so it is a no-op here.
  printf '#!/bin/sh\nexit 0\n' >shim/ldconfig
  chmod +x shim/ldconfig
  dpkg_root() {
    PATH=$work/shim:$PATH dpkg --instdir="$root" --admindir="$root/var/lib/dpkg" --log="$work/dpkg.log" \
      --force-not-root --force-script-chrootless "$@"
  }
  step "dpkg --instdir=<a temporary root> --install $(basename "$deb")"
  dpkg_root --force-depends --install "$deb" >dpkg-install.log 2>&1 ||
    { cat dpkg-install.log; fail "dpkg could not install $deb"; }
  use_installed
  step "dpkg --instdir=<the root> --remove tessera"
  dpkg_root --remove tessera >dpkg-remove.log 2>&1 || { cat dpkg-remove.log; fail "dpkg could not remove tessera"; }
  nothing_left
  left=$(find "$root" -mindepth 1 -path "$root/var" -prune -o -print)
  [ -z "$left" ] || fail "left in the root after dpkg --remove: $left"
  ;;
*) fail "TESSERA_DEB_ROOT is '$mode', not apt or dpkg" ;;
esac
step "ok ($mode)"
