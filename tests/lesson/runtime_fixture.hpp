// SPDX-License-Identifier: Apache-2.0
// One runtime per test program, on the build tree's default config.
#pragma once

#include <string>

#include "tessera/tessera.hpp"
#include "test_paths.hpp"

namespace tessera::test {

inline const Runtime& runtime() {
  static const Runtime rt(test_paths::config);
  return rt;
}

inline tsr_device cpu() { return runtime().device("cpu"); }

// The calling thread's last error message, as a string to match against.
inline std::string last_error() { return tsr_last_error_message(); }

}  // namespace tessera::test
