// SPDX-License-Identifier: Apache-2.0
// Element types of the CPU plugin: the shared ones (backends/common/element_types.hpp),
// a C++ storage type per tsr_dtype, the type each one computes in, and the
// conversions between them (PyTorch's rules).
#pragma once

#include "element_types.hpp"

namespace tessera::cpu_tbb {
using namespace tessera::backend;  // Half, storage_t, convert, load, store, wrap_*, for_each_dtype
}  // namespace tessera::cpu_tbb
