/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/dtype.h — element types.
 *
 * The numbering is part of the ABI (append only). Element sizes are in bytes.
 * float16 is IEEE binary16; bfloat16 is the top 16 bits of a binary32; bool
 * is one byte holding 0 or 1. uint16, uint32 and uint64 (ABI 1.5) are
 * unsigned; their promotion with the other dtypes is NumPy's (Note [Unsigned
 * promotion] in the runtime's promotion.hpp), their casts are in Note [Casts]
 * (tessera/ops.h).
 *
 * complex64 and complex128 (ABI 1.7) store each element as two adjacent
 * reals of float32 or float64, the real part first: the layout of C99's
 * float _Complex / double _Complex, C++'s std::complex, NumPy's and
 * DLPack's kDLComplex. Strides and offsets count whole complex elements.
 * Their promotion and casts are in Note [Complex dtypes] (tessera/ops.h).
 * "floating" below means the real floating dtypes only.
 */
#ifndef TESSERA_DTYPE_H
#define TESSERA_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/export.h"

typedef enum tsr_dtype {
  TSR_FLOAT32 = 0, /* default for Python-style decimals */
  TSR_FLOAT64 = 1,
  TSR_FLOAT16 = 2,
  TSR_BFLOAT16 = 3,
  TSR_INT8 = 4,
  TSR_UINT8 = 5,
  TSR_INT16 = 6,
  TSR_INT32 = 7,
  TSR_INT64 = 8, /* default for Python-style whole numbers */
  TSR_BOOL = 9,
  TSR_UINT16 = 10, /* ABI 1.5 */
  TSR_UINT32 = 11, /* ABI 1.5 */
  TSR_UINT64 = 12, /* ABI 1.5 */
  TSR_COMPLEX64 = 13,  /* ABI 1.7: (float32 real, float32 imaginary) */
  TSR_COMPLEX128 = 14, /* ABI 1.7: (float64 real, float64 imaginary) */
  TSR_DTYPE_COUNT = 15, /* dtypes this header knows; grows with each minor version that appends one */
  TSR_DTYPE_UNDEFINED = -1, /* "infer it", where an API says so */
  /* Makes the enum span all of int32_t, so a caller passing a value outside
   * the list gets an error rather than undefined behaviour (as Vulkan's
   * *_MAX_ENUM). Never a valid dtype. */
  TSR_DTYPE_MAX_ENUM = 0x7FFFFFFF
} tsr_dtype;

/* Bytes per element; 0 for a value outside the enum. */
TSR_INLINE TSR_CONSTEXPR size_t tsr_dtype_size(int32_t dtype) {
  switch (dtype) {
    case TSR_FLOAT32: return 4;
    case TSR_FLOAT64: return 8;
    case TSR_FLOAT16: return 2;
    case TSR_BFLOAT16: return 2;
    case TSR_INT8: return 1;
    case TSR_UINT8: return 1;
    case TSR_INT16: return 2;
    case TSR_INT32: return 4;
    case TSR_INT64: return 8;
    case TSR_BOOL: return 1;
    case TSR_UINT16: return 2;
    case TSR_UINT32: return 4;
    case TSR_UINT64: return 8;
    case TSR_COMPLEX64: return 8;
    case TSR_COMPLEX128: return 16;
    default: return 0;
  }
}

/* PyTorch's (NumPy's, for uint16/32/64) spelling without the "torch." prefix ("float32"); "?" if unknown. */
TSR_INLINE TSR_CONSTEXPR const char* tsr_dtype_name(int32_t dtype) {
  switch (dtype) {
    case TSR_FLOAT32: return "float32";
    case TSR_FLOAT64: return "float64";
    case TSR_FLOAT16: return "float16";
    case TSR_BFLOAT16: return "bfloat16";
    case TSR_INT8: return "int8";
    case TSR_UINT8: return "uint8";
    case TSR_INT16: return "int16";
    case TSR_INT32: return "int32";
    case TSR_INT64: return "int64";
    case TSR_BOOL: return "bool";
    case TSR_UINT16: return "uint16";
    case TSR_UINT32: return "uint32";
    case TSR_UINT64: return "uint64";
    case TSR_COMPLEX64: return "complex64";
    case TSR_COMPLEX128: return "complex128";
    default: return "?";
  }
}

TSR_INLINE TSR_CONSTEXPR int tsr_dtype_is_floating(int32_t dtype) {
  return dtype == TSR_FLOAT32 || dtype == TSR_FLOAT64 || dtype == TSR_FLOAT16 || dtype == TSR_BFLOAT16;
}

TSR_INLINE TSR_CONSTEXPR int tsr_dtype_is_integral(int32_t dtype) { /* bool excluded */
  return (dtype >= TSR_INT8 && dtype <= TSR_INT64) || (dtype >= TSR_UINT16 && dtype <= TSR_UINT64);
}

/* The unsigned integers: uint8, uint16, uint32, uint64 (bool excluded). */
TSR_INLINE TSR_CONSTEXPR int tsr_dtype_is_unsigned(int32_t dtype) {
  return dtype == TSR_UINT8 || (dtype >= TSR_UINT16 && dtype <= TSR_UINT64);
}

/* The signed integers: int8, int16, int32, int64. */
TSR_INLINE TSR_CONSTEXPR int tsr_dtype_is_signed_integral(int32_t dtype) {
  return dtype == TSR_INT8 || dtype == TSR_INT16 || dtype == TSR_INT32 || dtype == TSR_INT64;
}

/* ---- since ABI 1.7 ---- */

/* complex64 and complex128. */
TSR_INLINE TSR_CONSTEXPR int tsr_dtype_is_complex(int32_t dtype) {
  return dtype == TSR_COMPLEX64 || dtype == TSR_COMPLEX128;
}

/* The dtype of a complex dtype's parts (float32 for complex64, float64 for
 * complex128); the dtype itself for any other. */
TSR_INLINE TSR_CONSTEXPR int32_t tsr_dtype_real(int32_t dtype) {
  return dtype == TSR_COMPLEX64 ? TSR_FLOAT32 : dtype == TSR_COMPLEX128 ? TSR_FLOAT64 : dtype;
}

/* The complex dtype whose parts are the real floating dtype `dtype`
 * (complex128 for float64, complex64 for the others: no complex32 exists);
 * the dtype itself when it is complex; TSR_DTYPE_UNDEFINED for an integral
 * or bool dtype. */
TSR_INLINE TSR_CONSTEXPR int32_t tsr_dtype_complex(int32_t dtype) {
  return dtype == TSR_FLOAT64 || dtype == TSR_COMPLEX128                  ? TSR_COMPLEX128
         : tsr_dtype_is_floating(dtype) || dtype == TSR_COMPLEX64 ? TSR_COMPLEX64
                                                                  : TSR_DTYPE_UNDEFINED;
}

#endif /* TESSERA_DTYPE_H */
