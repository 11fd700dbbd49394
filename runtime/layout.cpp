// SPDX-License-Identifier: Apache-2.0
#include "layout.hpp"

namespace tessera::rt {

// Python's tuple repr: a one-element tuple keeps its trailing comma.
std::string format_tuple(const int64_t* values, int32_t n) {
  std::string out = "(";
  for (int32_t i = 0; i < n; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(values[i]);
  }
  if (n == 1) out += ",";
  out += ")";
  return out;
}

}  // namespace tessera::rt
