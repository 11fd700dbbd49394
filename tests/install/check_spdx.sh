#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# license.spdx: the licence is at the root, and every source file of the
# project (C, C++, CUDA, Python, shell, CMake) names it on an SPDX line near
# its top, so that a vendor copying any one file knows its terms.
#   check_spdx.sh SOURCE_DIR
set -uo pipefail
src=$1
fail() { echo "license.spdx: $*" >&2; exit 1; }
grep -q "Apache License" "$src/LICENSE" && grep -q "Version 2.0, January 2004" "$src/LICENSE" ||
  fail "LICENSE is not the Apache License 2.0"
missing=$(cd "$src" && find abi runtime backends plugins tools bindings tests bench scripts cmake examples .ci \
    -type f \( -name '*.h' -o -name '*.c' -o -name '*.hpp' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \
    -o -name '*.py' -o -name '*.sh' -o -name '*.cmake' -o -name '*.cmake.in' -o -name '*.pc.in' \
    -o -name CMakeLists.txt -o -name run -o -name gpu-check -o -name install-deps \) \
    -not -path '*/__pycache__/*' -print0 | xargs -0 grep -L -m1 'SPDX-License-Identifier: Apache-2.0')
for f in CMakeLists.txt Makefile; do
  head -n 3 "$src/$f" | grep -q 'SPDX-License-Identifier: Apache-2.0' || missing="$missing $f"
done
[ -z "${missing// /}" ] || fail "no SPDX line in: $missing"
echo "license.spdx: every source file names Apache-2.0"
