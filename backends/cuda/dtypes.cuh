// SPDX-License-Identifier: Apache-2.0
// The GPU's element types are the shared ones (backends/common/element_types.hpp).
#pragma once

#include "element_types.hpp"

namespace tessera::cuda {
using namespace tessera::backend;  // Half, storage_t, convert, load, store, wrap_*, m_*, for_each_dtype
}  // namespace tessera::cuda
