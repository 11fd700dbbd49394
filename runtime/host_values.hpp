// SPDX-License-Identifier: Apache-2.0
// A tensor's elements copied to host memory in row-major order: what the
// printing and comparison functions (format.hpp, close.hpp) read. The runtime
// fills one of these after reading a tensor back; nothing here owns memory.
#pragma once

#include <complex>
#include <cstdint>

#include "tessera/dtype.h"

namespace tessera::rt {

struct HostTensor {
  int32_t dtype;         // a tsr_dtype
  int32_t ndim;          // 0 .. TSR_MAX_DIMS
  const int64_t* shape;  // ndim sizes (may be nullptr when ndim == 0)
  // numel elements, row-major contiguous, in dtype: float16/bfloat16 as their
  // uint16 bits, bool as one byte holding 0 or 1.
  const void* data;
};

int64_t host_numel(const HostTensor& t);

// Element `index` (row-major) widened exactly to double; float16/bfloat16
// through their float value. int64 and uint64 values beyond 2^53 round. A
// complex element gives its real part.
double value_as_double(int32_t dtype, const void* data, int64_t index);

// Element `index` as a complex double: both parts of a complex element, a
// real one with imaginary part 0.
std::complex<double> value_as_complex(int32_t dtype, const void* data, int64_t index);

// Element `index` of an integral or bool dtype, exactly; a uint64 as its
// bits (values from 2^63 on read as negative: exact_integer undoes that).
// For a floating dtype the value is truncated toward zero (only meaningful
// when it fits).
int64_t value_as_int64(int32_t dtype, const void* data, int64_t index);

// The integer a value_as_int64 result `v` of `dtype` stands for.
inline __int128 exact_integer(int32_t dtype, int64_t v) {
  return dtype == TSR_UINT64 ? static_cast<__int128>(static_cast<uint64_t>(v)) : static_cast<__int128>(v);
}

}  // namespace tessera::rt
