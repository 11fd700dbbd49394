// SPDX-License-Identifier: Apache-2.0
#include "host_values.hpp"

#include <cstring>

#include "tessera/dtype.h"
#include "tessera/half.h"

namespace tessera::rt {

namespace {

// Reads one element of type T through memcpy: host buffers carry no
// alignment promise beyond the byte.
template <class T>
T load(const void* data, int64_t index) {
  T value;
  std::memcpy(&value, static_cast<const unsigned char*>(data) + index * static_cast<int64_t>(sizeof(T)),
              sizeof(T));
  return value;
}

}  // namespace

int64_t host_numel(const HostTensor& t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

double value_as_double(int32_t dtype, const void* data, int64_t index) {
  switch (dtype) {
    case TSR_FLOAT32: return load<float>(data, index);
    case TSR_FLOAT64: return load<double>(data, index);
    case TSR_FLOAT16: return tsr_float16_to_float(load<uint16_t>(data, index));
    case TSR_BFLOAT16: return tsr_bfloat16_to_float(load<uint16_t>(data, index));
    case TSR_INT8: return load<int8_t>(data, index);
    case TSR_UINT8: return load<uint8_t>(data, index);
    case TSR_INT16: return load<int16_t>(data, index);
    case TSR_INT32: return load<int32_t>(data, index);
    case TSR_INT64: return static_cast<double>(load<int64_t>(data, index));
    case TSR_BOOL: return load<uint8_t>(data, index) != 0 ? 1.0 : 0.0;
    case TSR_UINT16: return load<uint16_t>(data, index);
    case TSR_UINT32: return load<uint32_t>(data, index);
    case TSR_UINT64: return static_cast<double>(load<uint64_t>(data, index));
    case TSR_COMPLEX64: return load<float>(data, 2 * index);
    case TSR_COMPLEX128: return load<double>(data, 2 * index);
    default: return 0.0;
  }
}

std::complex<double> value_as_complex(int32_t dtype, const void* data, int64_t index) {
  switch (dtype) {
    case TSR_COMPLEX64: return {load<float>(data, 2 * index), load<float>(data, 2 * index + 1)};
    case TSR_COMPLEX128: return {load<double>(data, 2 * index), load<double>(data, 2 * index + 1)};
    default: return {value_as_double(dtype, data, index), 0.0};
  }
}

int64_t value_as_int64(int32_t dtype, const void* data, int64_t index) {
  switch (dtype) {
    case TSR_INT8: return load<int8_t>(data, index);
    case TSR_UINT8: return load<uint8_t>(data, index);
    case TSR_INT16: return load<int16_t>(data, index);
    case TSR_INT32: return load<int32_t>(data, index);
    case TSR_INT64: return load<int64_t>(data, index);
    case TSR_BOOL: return load<uint8_t>(data, index) != 0 ? 1 : 0;
    case TSR_UINT16: return load<uint16_t>(data, index);
    case TSR_UINT32: return load<uint32_t>(data, index);
    case TSR_UINT64: return static_cast<int64_t>(load<uint64_t>(data, index));  // the bits: wraps from 2^63
    default: {
      double v = value_as_double(dtype, data, index);
      // Out-of-range and NaN would be undefined behaviour in the cast.
      if (!(v > -9.2233720368547758e18 && v < 9.2233720368547758e18)) return 0;
      return static_cast<int64_t>(v);
    }
  }
}

}  // namespace tessera::rt
