// SPDX-License-Identifier: Apache-2.0
// A view record without its storage: what every view computation maps to a
// new record. Strides and offset are in elements (Note [Extensible structs]
// does not apply: this type never crosses the ABI).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "tessera/tensor_desc.h"

namespace tessera::rt {

using Dims = std::array<int64_t, TSR_MAX_DIMS>;

struct Layout {
  int32_t ndim = 0;
  Dims shape{};
  Dims strides{};
  int64_t offset = 0;

  int64_t numel() const {
    int64_t n = 1;
    for (int32_t i = 0; i < ndim; ++i) n *= shape[i];
    return n;
  }
};

// "(3, 4)" / "(5,)" / "()", as Python prints a tuple.
std::string format_tuple(const int64_t* values, int32_t n);
inline std::string shape_string(const Layout& l) { return format_tuple(l.shape.data(), l.ndim); }
inline std::string strides_string(const Layout& l) { return format_tuple(l.strides.data(), l.ndim); }

}  // namespace tessera::rt
