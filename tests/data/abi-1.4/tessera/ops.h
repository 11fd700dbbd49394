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
 *   Below, per kind (enum tsr_op_kind; TSR_OP_LIST gives each op's kind and
 *   arity, the number of inputs its kernel receives):
 *
 *   FILL        FILL: out = scalars[0]                      key: out dtype
 *   COPY        COPY: out = inputs[0], any input dtype      key: out dtype
 *               (casts), same device. Casts are PyTorch 1.13's, bit for
 *               bit (Note [Casts] below); `tessera conformance` checks
 *               them from every dtype.
 *   BINARY      ADD..POW: out = a (op) b, a b out of one dtype
 *                                                           key: that dtype
 *               DIV is true division (floating dtypes only)
 *   COMPARE     EQ..GE: out(bool) = a (cmp) b               key: input dtype
 *   UNARY       NEG..TANH: out = f(a)                       key: that dtype
 *   WHERE       WHERE: out = inputs[0](bool) ? inputs[1] : inputs[2]
 *                                                           key: out dtype
 *   REDUCE      SUM, MEAN, MAX, MIN, ARGMAX                 key: input dtype
 *               out has the input's ndim with size 1 on every reduced dim
 *               (keepdim form). SUM's out is int64 for integral and bool
 *               input, else the input dtype; MEAN floating only; ARGMAX's
 *               out is int64 and holds the index along the single reduced
 *               dim (or the row-major flat index when all dims are reduced,
 *               with params[0] = 1); ties pick the first; NaN wins MAX/MIN
 *               and ARGMAX.
 *   MATMUL      MATMUL: out[..., m, n] = sum_k a[..., m, k] * b[..., k, n]
 *               batch dims already broadcast; ndim >= 2      key: dtype
 *               params[0]: a tsr_matmul_precision (tessera.h), nonzero
 *               only for float32: 0 float32 throughout, 1 TF32 (or a
 *               similar reduced precision) allowed, 2 also bfloat16-based
 *   ARANGE      ARANGE: out[i] = scalars[0] + i * scalars[1], out 1-D
 *                                                           key: out dtype
 *   LINSPACE    LINSPACE: out[i] = start + i * step from the front half,
 *               end - (n-1-i) * step from the back half, scalars =
 *               (start, end)                                key: out dtype
 *   RANDOM      RAND_UNIFORM / RAND_NORMAL: out 1-D contiguous or any
 *               layout; element with row-major index i takes the
 *               counter-based random value number (params[1] + i) of seed
 *               params[0] (see Note [Counter-based random numbers] in the
 *               runtime); scalars = (low, high) or (mean, std)
 *                                                           key: out dtype
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

/* Note [The op table]
 *   Every op is one entry of TSR_OP_LIST, and everything else about the op
 *   list is generated from it: enum tsr_op, tsr_op_name, tsr_op_kind and
 *   tsr_op_arity here, tsr_op_count and tsr_op_get_name in libtessera, the
 *   runtime's checks of which C function takes which op, the Python
 *   package's op numbers. Adding an op is one entry at the end (the next
 *   value; a minor version), its contract in Note [Kernel contracts] under
 *   its kind, and its kernels. The runtime's build checks the table
 *   (runtime/op_table.cpp): values 0, 1, 2, ... in order, a unique name
 *   for each, the kinds and arities that its code assumes.
 *
 *   An entry is X(OP, value, name, KIND, arity):
 *     OP     the enumerator's suffix: TSR_OP_<OP>;
 *     value  its number, part of the ABI (never reused or renumbered);
 *     name   the name the public API and error messages spell;
 *     KIND   the kernel contract it follows: TSR_OP_KIND_<KIND>;
 *     arity  how many inputs its kernel receives (tsr_kernel_args.inputs).
 *   A user defines X, expands TSR_OP_LIST(X) and may #undef X after. */
#define TSR_OP_LIST(X)                        \
  X(FILL, 0, "fill", FILL, 0)                 \
  X(COPY, 1, "copy", COPY, 1)                 \
  X(ADD, 2, "add", BINARY, 2)                 \
  X(SUB, 3, "sub", BINARY, 2)                 \
  X(MUL, 4, "mul", BINARY, 2)                 \
  X(DIV, 5, "div", BINARY, 2)                 \
  X(MAXIMUM, 6, "maximum", BINARY, 2)         \
  X(MINIMUM, 7, "minimum", BINARY, 2)         \
  X(POW, 8, "pow", BINARY, 2)                 \
  X(EQ, 9, "eq", COMPARE, 2)                  \
  X(NE, 10, "ne", COMPARE, 2)                 \
  X(LT, 11, "lt", COMPARE, 2)                 \
  X(LE, 12, "le", COMPARE, 2)                 \
  X(GT, 13, "gt", COMPARE, 2)                 \
  X(GE, 14, "ge", COMPARE, 2)                 \
  X(NEG, 15, "neg", UNARY, 1)                 \
  X(ABS, 16, "abs", UNARY, 1)                 \
  X(EXP, 17, "exp", UNARY, 1)                 \
  X(LOG, 18, "log", UNARY, 1)                 \
  X(SQRT, 19, "sqrt", UNARY, 1)               \
  X(RELU, 20, "relu", UNARY, 1)               \
  X(SIGMOID, 21, "sigmoid", UNARY, 1)         \
  X(TANH, 22, "tanh", UNARY, 1)               \
  X(WHERE, 23, "where", WHERE, 3)             \
  X(SUM, 24, "sum", REDUCE, 1)                \
  X(MEAN, 25, "mean", REDUCE, 1)              \
  X(MAX, 26, "max", REDUCE, 1)                \
  X(MIN, 27, "min", REDUCE, 1)                \
  X(ARGMAX, 28, "argmax", REDUCE, 1)          \
  X(MATMUL, 29, "matmul", MATMUL, 2)          \
  X(ARANGE, 30, "arange", ARANGE, 0)          \
  X(LINSPACE, 31, "linspace", LINSPACE, 0)    \
  X(RAND_UNIFORM, 32, "rand", RANDOM, 0)      \
  X(RAND_NORMAL, 33, "randn", RANDOM, 0)

#define TSR_OP_ENUMERATOR_(op, value, name, kind, arity) TSR_OP_##op = value,
typedef enum tsr_op {
  TSR_OP_LIST(TSR_OP_ENUMERATOR_)
  TSR_OP_COUNT, /* ops this header knows (the last value + 1); grows with each minor version */
  TSR_OP_MAX_ENUM = 0x7FFFFFFF /* spans int32_t (see TSR_DTYPE_MAX_ENUM); never an op */
} tsr_op;
#undef TSR_OP_ENUMERATOR_

/* The kinds of op: ops of one kind share a kernel contract (Note [Kernel
 * contracts]) and a C function of tessera.h. Only the tag is declared,
 * because tsr_op_kind() below is the helper that answers an op's kind; hold
 * a kind in an int. New kinds are appended (a minor version). */
enum tsr_op_kind {
  TSR_OP_KIND_FILL = 0,     /* out = a scalar (tsr_fill_) */
  TSR_OP_KIND_COPY = 1,     /* out = the input, cast (tsr_copy_, tsr_to) */
  TSR_OP_KIND_BINARY = 2,   /* out = a (op) b (tsr_binary and its forms) */
  TSR_OP_KIND_COMPARE = 3,  /* out(bool) = a (cmp) b (tsr_binary and its forms) */
  TSR_OP_KIND_UNARY = 4,    /* out = f(a) (tsr_unary and its forms) */
  TSR_OP_KIND_WHERE = 5,    /* out = cond ? a : b (tsr_where) */
  TSR_OP_KIND_REDUCE = 6,   /* a reduction over some dims (tsr_reduce) */
  TSR_OP_KIND_MATMUL = 7,   /* a batched matrix product (tsr_matmul) */
  TSR_OP_KIND_ARANGE = 8,   /* start + i * step (tsr_arange) */
  TSR_OP_KIND_LINSPACE = 9, /* evenly spaced from start to end (tsr_linspace) */
  TSR_OP_KIND_RANDOM = 10,  /* counter-based random numbers (tsr_rand, tsr_randn) */
  TSR_OP_KIND_COUNT = 11,   /* kinds this header knows */
  TSR_OP_KIND_MAX_ENUM = 0x7FFFFFFF
};

/* The op's name as the public API and error messages spell it ("add"); "?"
 * for an unknown value. */
#define TSR_OP_NAME_CASE_(op, value, name, kind, arity) \
  case TSR_OP_##op:                                     \
    return name;
TSR_INLINE TSR_CONSTEXPR const char* tsr_op_name(int op) {
  switch (op) {
    TSR_OP_LIST(TSR_OP_NAME_CASE_)
    default: return "?";
  }
}
#undef TSR_OP_NAME_CASE_

/* The op's kind, a TSR_OP_KIND_* value; -1 for an unknown value. */
#define TSR_OP_KIND_CASE_(op, value, name, kind, arity) \
  case TSR_OP_##op:                                     \
    return TSR_OP_KIND_##kind;
TSR_INLINE TSR_CONSTEXPR int tsr_op_kind(int op) {
  switch (op) {
    TSR_OP_LIST(TSR_OP_KIND_CASE_)
    default: return -1;
  }
}
#undef TSR_OP_KIND_CASE_

/* How many inputs the op's kernel receives; -1 for an unknown value. */
#define TSR_OP_ARITY_CASE_(op, value, name, kind, arity) \
  case TSR_OP_##op:                                      \
    return arity;
TSR_INLINE TSR_CONSTEXPR int tsr_op_arity(int op) {
  switch (op) {
    TSR_OP_LIST(TSR_OP_ARITY_CASE_)
    default: return -1;
  }
}
#undef TSR_OP_ARITY_CASE_

#endif /* TESSERA_OPS_H */
