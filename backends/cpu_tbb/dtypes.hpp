// SPDX-License-Identifier: Apache-2.0
// Element types of the CPU plugin: the shared ones (backends/common/element_types.hpp),
// a C++ storage type per tsr_dtype, the type each one computes in, and the
// conversions between them (PyTorch's rules).
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include "element_types.hpp"

namespace tessera::cpu_tbb {
using namespace tessera::backend;  // Half, storage_t, convert, load, store, wrap_*, for_each_dtype

// What sums, products and scans of dtype D accumulate in: complex<double>
// for complex, double for floating, wrapping uint64 for integers and bool.
template <int D>
using wide_acc_t =
    std::conditional_t<is_complex_v<D>, std::complex<double>, std::conditional_t<is_floating_v<D>, double, uint64_t>>;
}  // namespace tessera::cpu_tbb
