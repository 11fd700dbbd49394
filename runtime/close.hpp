// SPDX-License-Identifier: Apache-2.0
// torch.testing.assert_close (PyTorch 1.13): the metadata checks, the value
// comparison and the exact message text a mismatch produces.
#pragma once

#include <cstdint>
#include <string>

#include "host_values.hpp"

namespace tessera::rt {

struct CloseTolerance {
  double rtol;
  double atol;
};

// assert_close's defaults: float16 1e-3/1e-5, bfloat16 1.6e-2/1e-5,
// float32 1.3e-6/1e-5, float64 1e-7/1e-7, integral and bool 0/0.
CloseTolerance default_tolerance(int32_t dtype);

// "" when every element satisfies |a - b| <= atol + rtol * |b| (or a == b, or
// both NaN with equal_nan), else PyTorch's message: "Tensor-likes are not
// close!" (or "not equal!" when rtol == atol == 0) with the mismatch count and
// the greatest absolute and relative differences; "Scalars are ..." for 0-d.
// Both tensors have the same shape and dtype (check compare_metadata first).
// Floating values are compared in float64 and integral/bool ones in int64, as
// torch upcasts them.
std::string compare_close(const HostTensor& actual, const HostTensor& expected, double rtol, double atol,
                          bool equal_nan);

// "" when shape, device and dtype agree, else PyTorch's message for the first
// that differs, in its order (shape, device, dtype), e.g. "The values for
// attribute 'shape' do not match: tessera.Size([2]) != tessera.Size([3])."
std::string compare_metadata(int32_t dtype_a, int32_t ndim_a, const int64_t* shape_a, const std::string& device_a,
                             int32_t dtype_b, int32_t ndim_b, const int64_t* shape_b, const std::string& device_b);

}  // namespace tessera::rt
