// SPDX-License-Identifier: Apache-2.0
// One runtime per test program, on the build tree's default config.
#pragma once

#include "tessera/tessera.hpp"

namespace tessera::test {

inline const Runtime& runtime() {
  static const Runtime rt(TESSERA_TEST_CONFIG);
  return rt;
}

inline tsr_device cpu() { return runtime().device("cpu"); }

}  // namespace tessera::test
