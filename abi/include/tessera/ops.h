/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/ops.h — the operations a kernel table can implement.
 *
 * The numbering is part of the ABI: new ops are appended (a minor bump). A
 * runtime ignores kernel entries whose op it does not know, so a newer
 * plugin works on an older runtime.
 *
 * Note [Kernel contracts]
 *   The runtime does the device-agnostic work before a kernel runs:
 *   broadcasting (inputs arrive already expanded to the output's shape, with
 *   stride 0 on broadcast dims), dtype promotion (inputs arrive in the
 *   kernel's dtype unless stated), shape checks and output allocation. So
 *   every kernel sees inputs and output of one shape, with arbitrary
 *   non-negative strides and offsets; outputs never overlap their inputs
 *   except where an in-place form passes the same storage region as both
 *   (an exactly identical layout). A kernel is keyed by (op, dtype) where
 *   dtype is the dtype named "key" below.
 *
 *   FILL        out = scalars[0]                            key: out dtype
 *   COPY        out = inputs[0], any input dtype (casts),   key: out dtype
 *               same device. Casts are PyTorch 1.13's, bit for bit (Note
 *               [Casts] below); `tessera conformance` checks them from
 *               every dtype.
 *   ADD..POW    out = a (op) b, a b out of one dtype        key: that dtype
 *               DIV is true division (floating dtypes only)
 *   EQ..GE      out(bool) = a (cmp) b                       key: input dtype
 *   NEG..TANH   out = f(a)                                  key: that dtype
 *   WHERE       out = inputs[0](bool) ? inputs[1] : inputs[2]  key: out dtype
 *   SUM, MEAN, MAX, MIN, ARGMAX (reductions)                key: input dtype
 *               out has the input's ndim with size 1 on every reduced dim
 *               (keepdim form). SUM's out is int64 for integral and bool
 *               input, else the input dtype; MEAN floating only; ARGMAX's
 *               out is int64 and holds the index along the single reduced
 *               dim (or the row-major flat index when all dims are reduced,
 *               with params[0] = 1); ties pick the first; NaN wins MAX/MIN
 *               and ARGMAX.
 *   MATMUL      out[..., m, n] = sum_k a[..., m, k] * b[..., k, n]
 *               batch dims already broadcast; ndim >= 2      key: dtype
 *               params[0]: a tsr_matmul_precision (tessera.h), nonzero
 *               only for float32: 0 float32 throughout, 1 TF32 (or a
 *               similar reduced precision) allowed, 2 also bfloat16-based
 *   ARANGE      out[i] = scalars[0] + i * scalars[1], out 1-D  key: out dtype
 *   LINSPACE    out[i] = start + i * step from the front half, end - (n-1-i)
 *               * step from the back half, scalars = (start, end)
 *   RAND_UNIFORM / RAND_NORMAL  out 1-D contiguous or any layout; element
 *               with row-major index i takes the counter-based random value
 *               number (params[1] + i) of seed params[0] (see Note
 *               [Counter-based random numbers] in the runtime); scalars =
 *               (low, high) or (mean, std)                  key: out dtype
 *
 * Note [Casts]
 *   COPY (and every kernel that stores into another dtype) converts as
 *   PyTorch 1.13 does on x86-64:
 *   - to float32/float64 from an integer or a wider float: one rounding to
 *     nearest, ties to even (int64 2^60 + 2^36 + 1 -> float32 2^60 + 2^37,
 *     never through a double, which would give 2^60);
 *   - to float16/bfloat16 from anything but float32: first to float32 as
 *     above, then round to nearest even (c10::Half's constructor is from
 *     float, so float64 rounds twice, on purpose);
 *   - float to integer: truncate toward zero; for int8, int16 and int32
 *     through int32 (out of int32's range, and NaN: INT32_MIN, then wrap to
 *     the width), for int64 and uint8 through int64 (out of range and NaN:
 *     INT64_MIN, then wrap);
 *   - integer to integer: wrap modulo 2^bits; anything to bool: != 0;
 *     bool to anything: 0 or 1.
 */
#ifndef TESSERA_OPS_H
#define TESSERA_OPS_H

#include "tessera/export.h"

typedef enum tsr_op {
  TSR_OP_FILL = 0,
  TSR_OP_COPY = 1,
  TSR_OP_ADD = 2,
  TSR_OP_SUB = 3,
  TSR_OP_MUL = 4,
  TSR_OP_DIV = 5,
  TSR_OP_MAXIMUM = 6,
  TSR_OP_MINIMUM = 7,
  TSR_OP_POW = 8,
  TSR_OP_EQ = 9,
  TSR_OP_NE = 10,
  TSR_OP_LT = 11,
  TSR_OP_LE = 12,
  TSR_OP_GT = 13,
  TSR_OP_GE = 14,
  TSR_OP_NEG = 15,
  TSR_OP_ABS = 16,
  TSR_OP_EXP = 17,
  TSR_OP_LOG = 18,
  TSR_OP_SQRT = 19,
  TSR_OP_RELU = 20,
  TSR_OP_SIGMOID = 21,
  TSR_OP_TANH = 22,
  TSR_OP_WHERE = 23,
  TSR_OP_SUM = 24,
  TSR_OP_MEAN = 25,
  TSR_OP_MAX = 26,
  TSR_OP_MIN = 27,
  TSR_OP_ARGMAX = 28,
  TSR_OP_MATMUL = 29,
  TSR_OP_ARANGE = 30,
  TSR_OP_LINSPACE = 31,
  TSR_OP_RAND_UNIFORM = 32,
  TSR_OP_RAND_NORMAL = 33,
  TSR_OP_COUNT = 34, /* ops this header knows; grows with each minor version */
  TSR_OP_MAX_ENUM = 0x7FFFFFFF /* spans int32_t (see TSR_DTYPE_MAX_ENUM); never an op */
} tsr_op;

/* The op's name as the public API and error messages spell it ("add"). */
TSR_INLINE const char* tsr_op_name(int op) {
  static const char* const names[TSR_OP_COUNT] = {
      "fill", "copy", "add", "sub", "mul", "div", "maximum", "minimum", "pow", "eq", "ne", "lt",
      "le", "gt", "ge", "neg", "abs", "exp", "log", "sqrt", "relu", "sigmoid", "tanh", "where",
      "sum", "mean", "max", "min", "argmax", "matmul", "arange", "linspace", "rand", "randn"};
  return (op >= 0 && op < TSR_OP_COUNT) ? names[op] : "?";
}

#endif /* TESSERA_OPS_H */
