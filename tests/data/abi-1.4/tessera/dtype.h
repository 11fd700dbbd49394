/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/dtype.h — element types.
 *
 * The numbering is part of the ABI (append only). Element sizes are in bytes.
 * float16 is IEEE binary16; bfloat16 is the top 16 bits of a binary32; bool
 * is one byte holding 0 or 1.
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
  TSR_DTYPE_COUNT = 10,
  TSR_DTYPE_UNDEFINED = -1, /* "infer it", where an API says so */
  /* Makes the enum span all of int32_t, so a caller passing a value outside
   * the list gets an error rather than undefined behaviour (as Vulkan's
   * *_MAX_ENUM). Never a valid dtype. */
  TSR_DTYPE_MAX_ENUM = 0x7FFFFFFF
} tsr_dtype;

/* Bytes per element; 0 for a value outside the enum. */
TSR_INLINE size_t tsr_dtype_size(int32_t dtype) {
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
    default: return 0;
  }
}

/* PyTorch's spelling without the "torch." prefix ("float32"); "?" if unknown. */
TSR_INLINE const char* tsr_dtype_name(int32_t dtype) {
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
    default: return "?";
  }
}

TSR_INLINE int tsr_dtype_is_floating(int32_t dtype) {
  return dtype == TSR_FLOAT32 || dtype == TSR_FLOAT64 || dtype == TSR_FLOAT16 || dtype == TSR_BFLOAT16;
}

TSR_INLINE int tsr_dtype_is_integral(int32_t dtype) { /* bool excluded */
  return dtype >= TSR_INT8 && dtype <= TSR_INT64;
}

#endif /* TESSERA_DTYPE_H */
