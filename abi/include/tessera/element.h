/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/element.h — one element of any dtype as a double, both ways, for
 * programs that read results with tsr_read or fill buffers for tsr_from_host
 * without a switch over the dtypes of their own (and for tests and plugin
 * authors comparing results).
 *
 * `p` points at one element, at any alignment (its bytes are copied). Reading:
 * int64 and uint64 values beyond 2^53 round to the nearest double; a bool reads as its
 * byte (0 or 1 in a valid tensor, so a stray value shows); an unknown dtype
 * reads as 0. Writing: float32 rounds to nearest, float16 and bfloat16 round
 * through float32 (tessera/half.h); integers truncate toward zero and `v`
 * must lie within the dtype's range (C's conversion rule); bool stores
 * v != 0; an unknown dtype writes nothing. A complex element (ABI 1.7)
 * reads as its real part and is written as (v, 0); tsr_element_imag reads
 * its imaginary part.
 */
#ifndef TESSERA_ELEMENT_H
#define TESSERA_ELEMENT_H

#include <stdint.h>
#include <string.h>

#include "dtype.h"
#include "half.h"
#include "tessera/export.h"

TSR_INLINE double tsr_element_to_double(int32_t dtype, const void* p) {
  switch (dtype) {
    case TSR_FLOAT32: { float v; memcpy(&v, p, 4); return v; }
    case TSR_FLOAT64: { double v; memcpy(&v, p, 8); return v; }
    case TSR_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return tsr_float16_to_float(v); }
    case TSR_BFLOAT16: { uint16_t v; memcpy(&v, p, 2); return tsr_bfloat16_to_float(v); }
    case TSR_INT8: { int8_t v; memcpy(&v, p, 1); return v; }
    case TSR_UINT8: { uint8_t v; memcpy(&v, p, 1); return v; }
    case TSR_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case TSR_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case TSR_INT64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case TSR_BOOL: { uint8_t v; memcpy(&v, p, 1); return v; }
    case TSR_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case TSR_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case TSR_UINT64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    case TSR_COMPLEX64: { float v; memcpy(&v, p, 4); return v; }
    case TSR_COMPLEX128: { double v; memcpy(&v, p, 8); return v; }
    default: return 0;
  }
}

/* Since ABI 1.7: the imaginary part of a complex element; 0 for the other dtypes. */
TSR_INLINE double tsr_element_imag(int32_t dtype, const void* p) {
  if (dtype == TSR_COMPLEX64) { float v; memcpy(&v, (const char*)p + 4, 4); return v; }
  if (dtype == TSR_COMPLEX128) { double v; memcpy(&v, (const char*)p + 8, 8); return v; }
  return 0;
}

TSR_INLINE void tsr_element_from_double(int32_t dtype, void* p, double v) {
  switch (dtype) {
    case TSR_FLOAT32: { float x = (float)v; memcpy(p, &x, 4); break; }
    case TSR_FLOAT64: memcpy(p, &v, 8); break;
    case TSR_FLOAT16: { uint16_t x = tsr_float_to_float16((float)v); memcpy(p, &x, 2); break; }
    case TSR_BFLOAT16: { uint16_t x = tsr_float_to_bfloat16((float)v); memcpy(p, &x, 2); break; }
    case TSR_INT8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case TSR_UINT8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case TSR_INT16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case TSR_INT32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case TSR_INT64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
    case TSR_BOOL: { uint8_t x = v != 0 ? 1 : 0; memcpy(p, &x, 1); break; }
    case TSR_UINT16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case TSR_UINT32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case TSR_UINT64: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); break; }
    case TSR_COMPLEX64: { float x[2]; x[0] = (float)v; x[1] = 0; memcpy(p, x, 8); break; }
    case TSR_COMPLEX128: { double x[2]; x[0] = v; x[1] = 0; memcpy(p, x, 16); break; }
    default: break;
  }
}

#endif /* TESSERA_ELEMENT_H */
