/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/scalar.h — a number as the caller wrote it.
 *
 * tsr_scalar carries a Python-style number into the public API (tsr_full,
 * tsr_binary_scalar, tsr_fill_, tsr_tensor_set_item, ...) and into kernels
 * (tsr_kernel_args.scalars). Its kind decides promotion as a Python number
 * does: an INT with a float32 tensor stays float32, a FLOAT with an int64
 * tensor gives float32. It is a frozen value type (Note [Extensible
 * structs] in tessera/status.h): 24 bytes, passed by value; changing it is a
 * major bump.
 */
#ifndef TESSERA_SCALAR_H
#define TESSERA_SCALAR_H

#include <stdint.h>

#include "tessera/export.h"

typedef enum tsr_scalar_kind {
  TSR_SCALAR_FLOAT = 0, /* `f` holds the value */
  TSR_SCALAR_INT = 1,   /* `i` holds the value (exact for every int64) */
  TSR_SCALAR_BOOL = 2   /* `i` holds 0 or 1 */
} tsr_scalar_kind;

typedef struct tsr_scalar {
  int32_t kind;     /* a tsr_scalar_kind */
  int32_t reserved; /* 0 */
  double f;
  int64_t i;
} tsr_scalar;

/* Constructors. An INT or BOOL also sets `f` to its value as a double, so a
 * reader that only looks at `f` gets the nearest double. */
TSR_INLINE tsr_scalar tsr_scalar_float(double v) {
  tsr_scalar s;
  s.kind = TSR_SCALAR_FLOAT;
  s.reserved = 0;
  s.f = v;
  s.i = 0;
  return s;
}

TSR_INLINE tsr_scalar tsr_scalar_int(int64_t v) {
  tsr_scalar s;
  s.kind = TSR_SCALAR_INT;
  s.reserved = 0;
  s.f = (double)v;
  s.i = v;
  return s;
}

TSR_INLINE tsr_scalar tsr_scalar_bool(int v) {
  tsr_scalar s;
  s.kind = TSR_SCALAR_BOOL;
  s.reserved = 0;
  s.i = v != 0;
  s.f = (double)s.i;
  return s;
}

#endif /* TESSERA_SCALAR_H */
