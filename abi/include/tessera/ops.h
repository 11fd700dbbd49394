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
 *   Empty tensors: the runtime never calls a kernel whose output has no
 *   elements. A kernel whose output has elements but whose input has none
 *   (a reduction or a scan over a dim of size 0, MATMUL with k = 0) writes
 *   the identity: 0 for SUM and MATMUL, 1 for PROD; MAX, MIN and ARGMAX of
 *   an empty input are refused by the runtime before any kernel runs.
 *
 *   Below, per kind (enum tsr_op_kind; TSR_OP_LIST gives each op's kind and
 *   arity, the number of inputs its kernel receives, and TSR_OP_TABLE the
 *   dtypes its key may be, tsr_op_takes_dtype):
 *
 *   FILL        FILL: out = scalars[0]                      key: out dtype
 *   COPY        COPY: out = inputs[0], any input dtype      key: out dtype
 *               (casts), same device. Casts are PyTorch 1.13's, bit for
 *               bit (Note [Casts] below); `tessera conformance` checks
 *               them from every dtype.
 *   BINARY      out = a (op) b, a b out of one dtype         key: that dtype
 *               ADD SUB MUL: wrap modulo 2^bits for integers; bool ADD is
 *                 OR and MUL is AND.
 *               DIV: true division (floating only).
 *               MAXIMUM MINIMUM: NaN wins; between -0 and +0 either.
 *               POW: integers by repeated squaring, wrapping; a negative
 *                 integer exponent gives 0 except for bases 1 and -1
 *                 (PyTorch's CPU result).
 *               ATAN2: C's atan2(a, b).
 *               FLOOR_DIVIDE: floor(a / b) as Python's //; integers: a
 *                 zero divisor gives 0 (NumPy's), INT_MIN // -1 wraps;
 *                 floating: (a - fmod(a, b)) / b corrected to the floor,
 *                 as NumPy's npy_divmod (x // 0 is +-inf or NaN).
 *               REMAINDER: a - b * floor_divide(a, b) with the sign of b,
 *                 as Python's %; integers: a zero divisor gives 0;
 *                 floating: fmod(a, b) moved into b's sign (NumPy's).
 *               BITWISE_AND/OR/XOR: on the bits (integers and bool).
 *               SHIFT_LEFT/RIGHT (bitwise_left_shift, ..._right_shift):
 *                 integers only; b < 0 or b >= bits gives 0 for a left
 *                 shift and for a right shift of a non-negative a, and -1
 *                 for a right shift of a negative a (NumPy's); right
 *                 shifts of signed values are arithmetic.
 *   COMPARE     EQ..GE: out(bool) = a (cmp) b               key: input dtype
 *               NaN compares false except NE.
 *   UNARY       NEG..TANH, GELU, GELU_TANH, SILU: out = f(a) key: that dtype
 *               NEG of an unsigned integer wraps modulo 2^bits (NumPy's
 *               rule); ABS and RELU of one are the identity; ABS of
 *               INT_MIN is INT_MIN.
 *               ABI 1.10, the fused activations of tessera/nn.h (composites:
 *               a kernel for them is optional and wins where registered):
 *               GELU: a/2 (1 + erf(a / sqrt 2)); GELU_TANH: a/2 (1 +
 *               tanh(sqrt(2/pi) (a + 0.044715 a^3))); SILU: a / (1 +
 *               exp(-a)). float16 and bfloat16 compute in float32 and
 *               round once (Note [Half precision inside fused functions]
 *               of the runtime: within one ulp of the float64 value).
 *   MATH        MATH: out = f(a), f = params[0], a tsr_math_fn below
 *                                                           key: that dtype
 *               (floating only; half types compute in float32). A kernel
 *               given an f it does not know (a newer runtime) returns
 *               TSR_ERR_UNSUPPORTED after host->set_error; the runtime then
 *               runs that call on the CPU fallback.
 *   WHERE       WHERE: out = inputs[0](bool) ? inputs[1] : inputs[2]
 *                                                           key: out dtype
 *   REDUCE      SUM, PROD, MAX, MIN, ARGMAX (and the composites MEAN,
 *               ARGMIN, VAR, STD)                           key: input dtype
 *               The reduced dims: out has the input's ndim, and a dim is
 *               reduced where out's size is 1 and the input's is not 1 (a
 *               dim of size 1 in both is the same whether reduced or not),
 *               the keepdim form. The dtypes: SUM's and PROD's out is
 *               uint64 for uint16, uint32 and uint64 (NumPy's and the
 *               Array API's rule; they wrap modulo 2^64), int64 for the
 *               other integers and bool (PyTorch's, uint8 included), else
 *               the input's; the others' out is the input's dtype, but
 *               ARGMAX's and ARGMIN's, int64. ARGMAX/ARGMIN: params[0] = 1
 *               when every dim is reduced (out then holds the row-major
 *               flat index), else 0 and params[1] is the one reduced dim;
 *               ties pick the first; NaN wins MAX, MIN, ARGMAX and ARGMIN.
 *               VAR and STD: scalars[0] is the correction (Bessel's: 1);
 *               the sum of squared deviations is divided by max(0, count -
 *               correction), so that a count not above it gives inf or NaN.
 *   MATMUL      MATMUL: out[..., m, n] = sum_k a[..., m, k] * b[..., k, n]
 *                                                           key: dtype
 *               a, b and out have one ndim >= 2 and one set of batch dims
 *               (all but the last two): the runtime broadcasts the batch
 *               dims first, so a batch dim an operand lacked arrives with
 *               the output's size and stride 0, never size 1. Integers
 *               wrap. params[0]: a tsr_matmul_precision (tessera.h),
 *               nonzero only for float32: 0 (HIGHEST) float32
 *               throughout, 1 (HIGH) TF32 or a similar reduced precision
 *               allowed, 2 (MEDIUM) also bfloat16-based.
 *   ARANGE      ARANGE: out[i] = scalars[0] + i * scalars[1], out 1-D
 *                                                           key: out dtype
 *   LINSPACE    LINSPACE: out[i] = start + i * step from the front half,
 *               end - (n-1-i) * step from the back half, scalars =
 *               (start, end)                                key: out dtype
 *   RANDOM      RAND_UNIFORM / RAND_NORMAL: out 1-D contiguous or any
 *               layout; element with row-major index i takes the
 *               counter-based random value number (params[1] + i) of seed
 *               params[0], by the formulas of tessera/random.h;
 *               scalars = (low, high) or (mean, std)        key: out dtype
 *   SCAN        CUMSUM: out[..., i, ...] = the sum over j <= i of
 *               in[..., j, ...] along dim params[0]; out has the input's
 *               shape and SUM's dtype (above; the runtime casts the input
 *               first when the caller asks another). Floating sums may
 *               associate in any order (a fixed one is better: the CPU's
 *               does not depend on the thread count).  key: input dtype
 *   GATHER      GATHER: inputs = (x, index int64); out has index's shape;
 *               out[i.., j, k..] = x[i.., index[i.., j, k..], k..] with j
 *               on dim params[0] (torch.gather). x, index and out have one
 *               ndim >= 1; off that dim index's sizes are at most x's.
 *               Every index is in [-n, n) for n = x's size on the dim (the
 *               runtime checked); a negative one counts from the end.
 *               index may have stride 0 (broadcast).      key: x's dtype
 *   SCATTER     SCATTER: inputs = (index int64, src of out's dtype), out is
 *               read and written in place: out[i.., index[i.., j, k..],
 *               k..] = (params[1] = 0) or += (params[1] = 1, not bool)
 *               src[i.., j, k..] along dim params[0]. index and src have
 *               one shape and out's ndim; indices are checked as for
 *               GATHER. Which of two stores to one element wins is
 *               unspecified, and so is the order of floating additions.
 *                                                          key: out dtype
 *   SORT        SORT: out = the input sorted along dim params[0]; ARGSORT:
 *               out (int64) = the indices that sort it. params[1] = 1
 *               sorts descending. NaN is above every number (last
 *               ascending, first descending); -0 and +0 are equal.
 *               ARGSORT's params[2] = 1 asks stability: equal elements keep
 *               their order, in both directions (a kernel may always be
 *               stable). Input ndim >= 1.                 key: input dtype
 *   COMPACT     NONZERO: out (int64) has shape (count, ndim of the input)
 *               and holds, row by row in row-major order, the index of
 *               each element that is not zero (NaN is not zero; -0 is).
 *               The runtime counted them first, so count is exact; the
 *               input has ndim >= 1.                       key: input dtype
 *   LINALG      (ABI 1.6; role OPTIONAL, Note [Primitives]) factorisations
 *               of the matrices in the last two dims, one per batch
 *               element: every operand has the same batch dims (all but
 *               the last two, or the last one for a vector of values), an
 *               input's possibly with stride 0 (broadcast). The results
 *               beyond `output` arrive in more_outputs (plugin.h), in the
 *               order below; `info` is int32 with the batch shape (0-d for
 *               one matrix), and holds per matrix 0 or LAPACK's positive
 *               info (a negative one is the kernel's bug: return an error).
 *               The runtime never calls one with a matrix dim or the batch
 *               of size 0 (it writes those results itself). Operands may
 *               have any strides; a kernel copies each matrix to the layout
 *               its library wants. Key: the input's dtype, float32,
 *               float64, complex64 or complex128 (TSR_OP_DTYPES_LINALG_COMPLEX
 *               from ABI 1.7; LINALG, the real two, before). Every result
 *               has the key dtype but SVD's S and EIGH's w, which are real
 *               (tsr_dtype_real of the key: float32 for complex64). For a
 *               complex key read the transposes below as conjugate
 *               transposes (^H): L L^H, Q^H Q = I, U diag(S) Vh with Vh =
 *               V^H, A Hermitian for EIGH (the imaginary parts of its
 *               diagonal are ignored, as LAPACK's heevd ignores them), the
 *               routines LAPACK's c/z ones (potrf, getrf, gesv, geqrf +
 *               ungqr, gesdd, heevd, getri).
 *               CHOLESKY: A[.., n, n] -> L[.., n, n] with A = L L^T, L lower
 *                 triangular, read from A's lower triangle (params[0] = 0),
 *                 or the upper factor U = L^T from A's upper triangle
 *                 (params[0] = 1); the other triangle of the result is 0.
 *                 more_outputs: (info): k > 0 when the leading minor of
 *                 order k is not positive-definite.
 *               LU: A[.., m, n] -> LU[.., m, n], L (unit diagonal, below
 *                 it) and U packed as LAPACK's getrf leaves them, with
 *                 partial pivoting. more_outputs: (pivots int32 [..,
 *                 min(m, n)], 1-based: row i was swapped with row
 *                 pivots[i] - 1, in order; info: k > 0 when U[k-1, k-1] is
 *                 exactly 0, the factorisation being complete).
 *               SOLVE: (A[.., n, n], B[.., n, k]) -> X[.., n, k] with
 *                 A X = B, by LU with partial pivoting (getrf, getrs).
 *                 more_outputs: (info): k > 0 when U[k-1, k-1] is exactly
 *                 0, A is singular and X unspecified.
 *               QR: A[.., m, n] -> Q[.., m, c] with orthonormal columns,
 *                 more_outputs: (R[.., c, n], upper trapezoidal, zeros
 *                 below), A = Q R by Householder reflections (geqrf,
 *                 orgqr); c = min(m, n) (params[0] = 0, "reduced") or m
 *                 (params[0] = 1, "complete").
 *               SVD: A[.., m, n] -> S[.., k], k = min(m, n), the singular
 *                 values, non-negative and descending; A holds no NaN (the
 *                 runtime refuses one first). params[0] = 1: the
 *                 vectors too, more_outputs: (U[.., m, c], Vh[.., c', n],
 *                 info) with A = U diag(S) Vh, c = c' = k (params[1] = 0)
 *                 or c = m, c' = n (params[1] = 1, full_matrices);
 *                 params[0] = 0: more_outputs: (info). info: k > 0 when
 *                 the iteration did not converge.
 *               EIGH: A[.., n, n], symmetric, read from its lower triangle
 *                 -> w[.., n], the eigenvalues ascending. params[0] = 1:
 *                 the vectors too, more_outputs: (V[.., n, n], column j
 *                 the eigenvector of w[j], orthonormal; info), else (info).
 *                 info: k > 0 when the iteration did not converge.
 *               INV: A[.., n, n] -> A^-1[.., n, n] by LU with partial
 *                 pivoting (getrf, getri: fewer flops than SOLVE against
 *                 the identity). more_outputs: (info): k > 0 when
 *                 U[k-1, k-1] is exactly 0, A is singular and the result
 *                 unspecified.
 *               EIG (ABI 1.11): A[.., n, n], a general matrix -> w[.., n],
 *                 its eigenvalues in the order the library leaves them
 *                 (LAPACK's geev), complex: complex64 for float32 and
 *                 complex64, complex128 for float64 and complex128 (a real
 *                 A's come in conjugate pairs). params[0] = 1: the vectors
 *                 too, more_outputs: (V[.., n, n] of w's dtype, column j
 *                 the right eigenvector of w[j], of 2-norm 1; info), else
 *                 (info). info: k > 0 when the QR algorithm did not
 *                 converge.
 *               Signs of singular vectors and eigenvectors (and the basis
 *               of a repeated eigenvalue's space) are the library's.
 *   SEARCH      (ABI 1.11) SEARCHSORTED: inputs = (sorted, values) of one
 *               dtype, out int64 of values' shape. sorted has values'
 *               ndim (>= 1); its last dim, of size m >= 1, is sorted
 *               ascending (NaN last, as SORT leaves it); its other dims are
 *               values' (the runtime expands a 1-D sorted with stride 0).
 *               out[.., j] = the number of elements of sorted[.., :] that
 *               are < values[.., j] (params[0] = 0, "left") or <= it
 *               (params[0] = 1, "right"), found by binary search; NaN is
 *               above every number and equal to NaN, -0 equals +0. Sorted
 *               input that is not ascending gives an unspecified index in
 *               [0, m].                                   key: their dtype
 *   CLAMP       (ABI 1.11; a composite) CLAMP: inputs = (x, lo, hi) of one
 *               dtype and the output's shape (broadcast), out =
 *               MINIMUM(MAXIMUM(x, lo), hi): NaN in x, lo or hi gives NaN;
 *               lo > hi gives hi. The runtime composes it from MAXIMUM and
 *               MINIMUM (two passes); a native kernel makes one.
 *                                                         key: that dtype
 *   SCAN, ABI 1.11 (role OPTIONAL): CUMPROD: as CUMSUM, products (PROD's
 *               dtype rule; the empty product 1).
 *   FFT         (ABI 1.11; role OPTIONAL) one-dimensional discrete Fourier
 *               transforms along dim params[0] of the input, unnormalised
 *               and then multiplied by scalars[0] (a float; the runtime
 *               passes 1, 1/n or 1/sqrt(n) for the norm modes). n >= 1 is
 *               the transform's length; every other dim of the input and
 *               out is the same. out[.., k, ..] = scalars[0] * sum over j of
 *               in[.., j, ..] * exp(s 2 pi i j k / n):
 *               FFT: complex to complex, in and out of one shape (n their
 *                 size on the dim); s = -1 (params[1] = 0, forward) or +1
 *                 (params[1] = 1, inverse).          key: complex64/128
 *               RFFT: real to complex, s = -1: in float32/float64 with n on
 *                 the dim, out complex64/complex128 with n/2 + 1 there (the
 *                 rest is the conjugate of what is written). key: float32/64
 *               IRFFT: complex to real, s = +1: out float32/float64 with n
 *                 on the dim, in complex64/complex128 with n/2 + 1 there,
 *                 read as the first half of a Hermitian sequence: X[k] for
 *                 k > n/2 is conj(X[n - k]), and the imaginary parts of
 *                 X[0] and (n even) X[n/2] are ignored.
 *                                                     key: complex64/128
 *               Accuracy: a kernel's relative error in the 2-norm is of
 *               order log2(n) ulps, for every n (primes included: a
 *               library's Bluestein or Rader's algorithm, never O(n^2)).
 *
 *   Composites (TSR_OP_ROLE_COMPOSITE in TSR_OP_TABLE): the runtime builds
 *   the op from primitives on the same device when a plugin has no kernel
 *   for it; a plugin may register a native kernel, which then runs instead
 *   and follows the contract above. GT and GE: LT and LE with the operands
 *   swapped; RELU: MAXIMUM with 0; SIGMOID: 1 / (1 + exp(-a)); MEAN: SUM
 *   divided by the count; ARGMIN: ARGMAX of -a (floating) or of ~a
 *   (integers); LOGADDEXP: max(a, b) + log1p(exp(-|a - b|)), with a == b
 *   giving a + log(2); VAR and STD: the corrected two-pass algorithm, d =
 *   a - mean and (SUM(d^2) - SUM(d)^2 / count) / max(0, count -
 *   correction) (and SQRT), in float32 for float16 and bfloat16; a native
 *   kernel should be as exact (the CPU's works in double, one read of
 *   memory). GELU, GELU_TANH and SILU (ABI 1.10): the formulas of UNARY
 *   above, op for op (MUL, MATH's ERF or TANH, ADD; NEG, EXP, ADD, DIV), in
 *   float32 for float16 and bfloat16: six to nine passes over memory where
 *   a fused kernel makes one, the reason a device registers its own.

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
 *   The unsigned dtypes of ABI 1.5 (uint16, uint32, uint64), which PyTorch
 *   1.13 lacks, convert as NumPy 1.24 does on x86-64 wherever NumPy is
 *   deterministic, and as written here where it is not:
 *   - to float32/float64 from any of them: one rounding to nearest even of
 *     the unsigned value (uint64 2^64 - 1 -> float32 2^64), as above;
 *     to float16/bfloat16: through float32, as above;
 *   - float to uint16/uint32: truncate toward zero through int64, then wrap
 *     to the width, as uint8 (out of int64's range, and NaN: INT64_MIN, so
 *     0; -1.5 -> 65535 in uint16, as NumPy);
 *   - float to uint64: truncate toward zero; [0, 2^64) converts exactly
 *     (2^63 + 2048 stays itself), (-2^63, 0) through int64 then wraps
 *     (-1.0 -> 2^64 - 1); from 2^64 up, +inf: 0; NaN, -inf, -2^63 and
 *     below: 2^63 (x86-64's conversion, NumPy's results);
 *   - integer to integer (either side unsigned): wrap modulo 2^bits.
 *
 * Note [Complex dtypes]
 *   complex64 and complex128 (ABI 1.7; storage in tessera/dtype.h) follow
 *   PyTorch 1.13 and the Array API standard 2022.12:
 *   - promotion: complex outranks every real dtype; a complex dtype and a
 *     real one give the complex dtype wide enough for both parts
 *     (complex64 + float64 -> complex128; + uint32 or uint64, which only
 *     float64 holds, -> complex128, NumPy's rule); an integral, bool,
 *     float16 or bfloat16 one keeps complex64. A Python complex is the
 *     complex of a floating tensor's dtype (float64 -> complex128, the other
 *     floats -> complex64) and complex64 with an integral or bool one.
 *   - casts: real to complex sets the imaginary part to 0, converting the
 *     real part as to float32 / float64 (above); complex to real drops the
 *     imaginary part and converts the real part as from float32 / float64;
 *     complex to bool: true when either part is not 0 (NaN included);
 *     complex to complex: each part as float64 <-> float32.
 *   - the ops that take them are the DTYPES classes *_COMPLEX of
 *     TSR_OP_TABLE: arithmetic (ADD SUB MUL DIV POW, NEG), EQ and NE (both
 *     parts equal), ABS (|z| into the real dtype: its output is float32 for
 *     complex64, float64 for complex128), EXP LOG SQRT TANH and MATH's
 *     functions but FLOOR CEIL TRUNC (C99 Annex G's complex functions and
 *     their special cases; ROUND rounds each part, SIGN is z / |z| and 0
 *     at 0, CONJ negates the imaginary part), WHERE, SUM PROD CUMSUM (in
 *     the input's dtype), GATHER SCATTER, NONZERO (either part not 0), and
 *     MATMUL (cgemm / zgemm), and the LINALG rows (LINALG_COMPLEX: LAPACK's
 *     c/z routines; SVD's and EIGH's values real). The orderings (MAXIMUM MINIMUM LT..GE, MAX
 *     MIN ARGMAX, SORT) and the integer-valued ops are not defined on them.
 */
/* Note [Negative steps]
 *   A view's strides are never negative in Tessera: every kernel is
 *   promised non-negative strides (Note [Kernel contracts]), so a plugin
 *   never walks memory backwards and a storage's span is always [offset,
 *   offset + extent). What NumPy and DLPack express as a view with a
 *   negative stride (x[::-1], np.flip) is a copy here, as PyTorch's flip
 *   is: tsr_flip, and a negative step in the Python array API's
 *   indexing, gather the elements along a reversed range (GATHER) into a
 *   new tensor on the same device. The cost is one pass over the result;
 *   the gain is that no plugin, no DLPack consumer and no kernel contract
 *   has to handle a stride below zero.
 */
#ifndef TESSERA_OPS_H
#define TESSERA_OPS_H

#include "tessera/dtype.h"
#include "tessera/export.h"

/* Note [The op table]
 *   Every op is one row of the table below, and everything else about the
 *   op list is generated from it: enum tsr_op, tsr_op_name, tsr_op_kind,
 *   tsr_op_arity, tsr_op_takes_dtype and tsr_op_role here, tsr_op_count
 *   and tsr_op_get_name in libtessera, the runtime's checks of which C
 *   function takes which op and of which dtypes it accepts, the backends'
 *   support matrix, `tessera conformance`'s and `tessera info`'s lists, the
 *   Python package's op numbers. Adding an op is one row at the end (the
 *   next value; a minor version), its contract in Note [Kernel contracts]
 *   under its kind, and its kernels (or, for a composite, its
 *   decomposition in the runtime). The runtime's build checks the table
 *   (runtime/op_table.cpp): values 0, 1, 2, ... in order, a unique name for
 *   each, the kinds and arities that its code assumes, the primitive count.
 *
 *   A row is (OP, value, name, KIND, arity, DTYPES, ROLE):
 *     OP     the enumerator's suffix: TSR_OP_<OP>;
 *     value  its number, part of the ABI (never reused or renumbered);
 *     name   the name the public API and error messages spell;
 *     KIND   the kernel contract it follows: TSR_OP_KIND_<KIND>;
 *     arity  how many inputs its kernel receives (tsr_kernel_args.inputs);
 *     DTYPES the key dtypes its contract defines: TSR_OP_DTYPES_<DTYPES>;
 *     ROLE   TSR_OP_ROLE_PRIMITIVE: a device implements it (or lets the
 *            CPU fallback run it); TSR_OP_ROLE_COMPOSITE: the runtime can
 *            build it from primitives, a native kernel is optional;
 *            TSR_OP_ROLE_OPTIONAL: a device may implement it, the CPU
 *            fallback runs it where it does not (the CPU backend has it).
 *   TSR_OP_TABLE(X) calls X with all seven; TSR_OP_LIST(X), the form of
 *   ABI 1.4, with the first five. A user defines X, expands the list and
 *   may #undef X after.
 *
 *   Note [Primitives]
 *   A device needs kernels for the TSR_OP_PRIMITIVE_COUNT primitives only
 *   (45 in ABI 1.5): casts and copies, fill, the elementwise functions
 *   (the arithmetic, bitwise ops, comparisons, the unary ops of ABI 1.0
 *   and MATH's twenty functions), where, the reductions SUM PROD MAX MIN
 *   ARGMAX, the scan CUMSUM, GATHER and SCATTER along a dim, SORT and
 *   ARGSORT along a dim, NONZERO (stream compaction, on which boolean
 *   masks are built), MATMUL, and the creation kernels (ARANGE, LINSPACE,
 *   RAND_*).
 *   Every function of the public API is then available on that device:
 *   the composites of the table are built by the runtime from primitives
 *   on the same device (runtime/composite.cpp), without a round trip
 *   through the host, and a plugin's native kernel for one runs instead
 *   when it has one. A primitive a plugin lacks runs on the CPU fallback
 *   when the config allows it; so does a call a kernel answers with
 *   TSR_ERR_UNSUPPORTED (a MATH function it does not know).
 *   Optional ops (TSR_OP_ROLE_OPTIONAL, ABI 1.6): the LINALG kind's
 *   factorisations (CHOLESKY, LU, SOLVE, QR, SVD, EIGH, INV), which a device
 *   may implement, with its vendor's solver library; a device without them
 *   runs them on the CPU fallback (LAPACK), with the copies `tessera info`
 *   states. The CPU backend implements them: it is every fallback's
 *   target. The linear algebra functions of the public API (inv, det,
 *   slogdet, ...) are built from them and from primitives.
 *   ABI 1.11 adds one primitive, SEARCHSORTED (binary search: the Array
 *   API's searchsorted, on which isin and repeat are built), so there are
 *   46, the composite CLAMP (one pass where a device has the kernel),
 *   and the optional ops CUMPROD, EIG (geev) and the FFT kind's FFT,
 *   RFFT and IRFFT (a vendor's FFT library where a device has one; the
 *   CPU backend's, KissFFT, otherwise). */
#define TSR_OP_ROWS_(M, X)                                                          \
  M(X, FILL, 0, "fill", FILL, 0, ALL_COMPLEX, PRIMITIVE)                            \
  M(X, COPY, 1, "copy", COPY, 1, ALL_COMPLEX, PRIMITIVE)                            \
  M(X, ADD, 2, "add", BINARY, 2, ALL_COMPLEX, PRIMITIVE)                            \
  M(X, SUB, 3, "sub", BINARY, 2, NUMERIC_COMPLEX, PRIMITIVE)                        \
  M(X, MUL, 4, "mul", BINARY, 2, ALL_COMPLEX, PRIMITIVE)                            \
  M(X, DIV, 5, "div", BINARY, 2, FLOATING_COMPLEX, PRIMITIVE)                       \
  M(X, MAXIMUM, 6, "maximum", BINARY, 2, ALL, PRIMITIVE)                            \
  M(X, MINIMUM, 7, "minimum", BINARY, 2, ALL, PRIMITIVE)                            \
  M(X, POW, 8, "pow", BINARY, 2, NUMERIC_COMPLEX, PRIMITIVE)                        \
  M(X, EQ, 9, "eq", COMPARE, 2, ALL_COMPLEX, PRIMITIVE)                             \
  M(X, NE, 10, "ne", COMPARE, 2, ALL_COMPLEX, PRIMITIVE)                            \
  M(X, LT, 11, "lt", COMPARE, 2, ALL, PRIMITIVE)                                    \
  M(X, LE, 12, "le", COMPARE, 2, ALL, PRIMITIVE)                                    \
  M(X, GT, 13, "gt", COMPARE, 2, ALL, COMPOSITE)                                    \
  M(X, GE, 14, "ge", COMPARE, 2, ALL, COMPOSITE)                                    \
  M(X, NEG, 15, "neg", UNARY, 1, NUMERIC_COMPLEX, PRIMITIVE)                        \
  M(X, ABS, 16, "abs", UNARY, 1, NUMERIC_COMPLEX, PRIMITIVE)                        \
  M(X, EXP, 17, "exp", UNARY, 1, FLOATING_COMPLEX, PRIMITIVE)                       \
  M(X, LOG, 18, "log", UNARY, 1, FLOATING_COMPLEX, PRIMITIVE)                       \
  M(X, SQRT, 19, "sqrt", UNARY, 1, FLOATING_COMPLEX, PRIMITIVE)                     \
  M(X, RELU, 20, "relu", UNARY, 1, NUMERIC, COMPOSITE)                              \
  M(X, SIGMOID, 21, "sigmoid", UNARY, 1, FLOATING_COMPLEX, COMPOSITE)               \
  M(X, TANH, 22, "tanh", UNARY, 1, FLOATING_COMPLEX, PRIMITIVE)                     \
  M(X, WHERE, 23, "where", WHERE, 3, ALL_COMPLEX, PRIMITIVE)                        \
  M(X, SUM, 24, "sum", REDUCE, 1, ALL_COMPLEX, PRIMITIVE)                           \
  M(X, MEAN, 25, "mean", REDUCE, 1, FLOATING_COMPLEX, COMPOSITE)                    \
  M(X, MAX, 26, "max", REDUCE, 1, ALL, PRIMITIVE)                                   \
  M(X, MIN, 27, "min", REDUCE, 1, ALL, PRIMITIVE)                                   \
  M(X, ARGMAX, 28, "argmax", REDUCE, 1, NUMERIC, PRIMITIVE)                         \
  M(X, MATMUL, 29, "matmul", MATMUL, 2, NUMERIC_COMPLEX, PRIMITIVE)                 \
  M(X, ARANGE, 30, "arange", ARANGE, 0, NUMERIC, PRIMITIVE)                         \
  M(X, LINSPACE, 31, "linspace", LINSPACE, 0, NUMERIC, PRIMITIVE)                   \
  M(X, RAND_UNIFORM, 32, "rand", RANDOM, 0, FLOATING, PRIMITIVE)                    \
  M(X, RAND_NORMAL, 33, "randn", RANDOM, 0, FLOATING, PRIMITIVE)                    \
  M(X, MATH, 34, "math", MATH, 1, FLOATING_COMPLEX, PRIMITIVE)                      \
  M(X, ATAN2, 35, "atan2", BINARY, 2, FLOATING, PRIMITIVE)                          \
  M(X, FLOOR_DIVIDE, 36, "floor_divide", BINARY, 2, NUMERIC, PRIMITIVE)             \
  M(X, REMAINDER, 37, "remainder", BINARY, 2, NUMERIC, PRIMITIVE)                   \
  M(X, BITWISE_AND, 38, "bitwise_and", BINARY, 2, INTEGRAL, PRIMITIVE)              \
  M(X, BITWISE_OR, 39, "bitwise_or", BINARY, 2, INTEGRAL, PRIMITIVE)                \
  M(X, BITWISE_XOR, 40, "bitwise_xor", BINARY, 2, INTEGRAL, PRIMITIVE)              \
  M(X, SHIFT_LEFT, 41, "bitwise_left_shift", BINARY, 2, INTEGER, PRIMITIVE)         \
  M(X, SHIFT_RIGHT, 42, "bitwise_right_shift", BINARY, 2, INTEGER, PRIMITIVE)       \
  M(X, LOGADDEXP, 43, "logaddexp", BINARY, 2, FLOATING, COMPOSITE)                  \
  M(X, PROD, 44, "prod", REDUCE, 1, ALL_COMPLEX, PRIMITIVE)                         \
  M(X, ARGMIN, 45, "argmin", REDUCE, 1, NUMERIC, COMPOSITE)                         \
  M(X, VAR, 46, "var", REDUCE, 1, FLOATING, COMPOSITE)                              \
  M(X, STD, 47, "std", REDUCE, 1, FLOATING, COMPOSITE)                              \
  M(X, CUMSUM, 48, "cumsum", SCAN, 1, ALL_COMPLEX, PRIMITIVE)                       \
  M(X, GATHER, 49, "gather", GATHER, 2, ALL_COMPLEX, PRIMITIVE)                     \
  M(X, SCATTER, 50, "scatter", SCATTER, 2, ALL_COMPLEX, PRIMITIVE)                  \
  M(X, SORT, 51, "sort", SORT, 1, ALL, PRIMITIVE)                                   \
  M(X, ARGSORT, 52, "argsort", SORT, 1, ALL, PRIMITIVE)                             \
  M(X, NONZERO, 53, "nonzero", COMPACT, 1, ALL_COMPLEX, PRIMITIVE)                  \
  M(X, CHOLESKY, 54, "cholesky", LINALG, 1, LINALG_COMPLEX, OPTIONAL)               \
  M(X, LU, 55, "lu_factor", LINALG, 1, LINALG_COMPLEX, OPTIONAL)                    \
  M(X, SOLVE, 56, "solve", LINALG, 2, LINALG_COMPLEX, OPTIONAL)                     \
  M(X, QR, 57, "qr", LINALG, 1, LINALG_COMPLEX, OPTIONAL)                           \
  M(X, SVD, 58, "svd", LINALG, 1, LINALG_COMPLEX, OPTIONAL)                         \
  M(X, EIGH, 59, "eigh", LINALG, 1, LINALG_COMPLEX, OPTIONAL)                       \
  M(X, INV, 60, "inv", LINALG, 1, LINALG_COMPLEX, OPTIONAL)                         \
  M(X, GELU, 61, "gelu", UNARY, 1, FLOATING, COMPOSITE)                             \
  M(X, GELU_TANH, 62, "gelu_tanh", UNARY, 1, FLOATING, COMPOSITE)                   \
  M(X, SILU, 63, "silu", UNARY, 1, FLOATING, COMPOSITE)                             \
  M(X, SEARCHSORTED, 64, "searchsorted", SEARCH, 2, ALL, PRIMITIVE)                 \
  M(X, CUMPROD, 65, "cumprod", SCAN, 1, ALL_COMPLEX, OPTIONAL)                      \
  M(X, EIG, 66, "eig", LINALG, 1, LINALG_COMPLEX, OPTIONAL)                         \
  M(X, FFT, 67, "fft", FFT, 1, COMPLEX, OPTIONAL)                                   \
  M(X, RFFT, 68, "rfft", FFT, 1, LINALG, OPTIONAL)                                  \
  M(X, IRFFT, 69, "irfft", FFT, 1, COMPLEX, OPTIONAL)                               \
  M(X, CLAMP, 70, "clamp", CLAMP, 3, NUMERIC, COMPOSITE)
#define TSR_OP_PASS7_(X, op, value, name, kind, arity, dtypes, role) X(op, value, name, kind, arity, dtypes, role)
#define TSR_OP_PASS5_(X, op, value, name, kind, arity, dtypes, role) X(op, value, name, kind, arity)
#define TSR_OP_TABLE(X) TSR_OP_ROWS_(TSR_OP_PASS7_, X)
#define TSR_OP_LIST(X) TSR_OP_ROWS_(TSR_OP_PASS5_, X)

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
  /* ---- since ABI 1.5 ---- */
  TSR_OP_KIND_MATH = 11,    /* out = f(a), f a tsr_math_fn (tsr_math) */
  TSR_OP_KIND_SCAN = 12,    /* a cumulative sum along a dim (tsr_cumsum) */
  TSR_OP_KIND_GATHER = 13,  /* values at indices along a dim (tsr_gather, tsr_take) */
  TSR_OP_KIND_SCATTER = 14, /* values stored at indices along a dim (tsr_scatter_) */
  TSR_OP_KIND_SORT = 15,    /* sorted values or their indices along a dim (tsr_sort) */
  TSR_OP_KIND_COMPACT = 16, /* the indices of the nonzero elements (tsr_nonzero) */
  /* ---- since ABI 1.6 ---- */
  TSR_OP_KIND_LINALG = 17,  /* matrix factorisations, several results (tsr_linalg_*) */
  /* ---- since ABI 1.11 ---- */
  TSR_OP_KIND_SEARCH = 18,  /* binary search in sorted rows (tsr_searchsorted) */
  TSR_OP_KIND_FFT = 19,     /* discrete Fourier transforms along a dim (tsr_fft) */
  TSR_OP_KIND_CLAMP = 20,   /* out = min(max(x, lo), hi) (tsr_clamp) */
  TSR_OP_KIND_COUNT = 21,   /* kinds this header knows */
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

/* ---- since ABI 1.5 ---- */

/* The dtypes an op's contract defines (TSR_OP_TABLE's DTYPES column): which
 * key dtypes a kernel may be registered for. */
enum tsr_op_dtypes {
  TSR_OP_DTYPES_ALL = 0,      /* every dtype, bool included */
  TSR_OP_DTYPES_NUMERIC = 1,  /* every dtype but bool */
  TSR_OP_DTYPES_FLOATING = 2, /* float32, float64, float16, bfloat16 */
  TSR_OP_DTYPES_INTEGRAL = 3, /* the integers and bool (bitwise ops) */
  TSR_OP_DTYPES_INTEGER = 4,  /* the integers, without bool (shifts) */
  TSR_OP_DTYPES_LINALG = 5,   /* float32 and float64: LAPACK's real types (ABI 1.6) */
  /* ABI 1.7: the classes above take no complex dtype; these three take the
   * same real dtypes as ALL, NUMERIC and FLOATING, plus complex64 and
   * complex128 (Note [Complex dtypes]). */
  TSR_OP_DTYPES_ALL_COMPLEX = 6,
  TSR_OP_DTYPES_NUMERIC_COMPLEX = 7,
  TSR_OP_DTYPES_FLOATING_COMPLEX = 8,
  /* ABI 1.7: LAPACK's four types, float32, float64, complex64 and
   * complex128 (the LINALG rows; LINALG above stays the real two). */
  TSR_OP_DTYPES_LINALG_COMPLEX = 9,
  /* ABI 1.11: complex64 and complex128 only (FFT's complex inputs). */
  TSR_OP_DTYPES_COMPLEX = 10,
  TSR_OP_DTYPES_MAX_ENUM = 0x7FFFFFFF
};

/* Whether the op is a primitive (a device implements it), a composite
 * (the runtime builds it from primitives; a native kernel is optional) or
 * optional (a device may implement it; the CPU fallback runs it where the
 * device does not). Note [Primitives]. */
enum tsr_op_role {
  TSR_OP_ROLE_PRIMITIVE = 0,
  TSR_OP_ROLE_COMPOSITE = 1,
  TSR_OP_ROLE_OPTIONAL = 2, /* ABI 1.6: a device may implement it, else the CPU fallback runs it */
  TSR_OP_ROLE_MAX_ENUM = 0x7FFFFFFF
};

/* How many ops of TSR_OP_TABLE are primitives; runtime/op_table.cpp checks
 * it against the table. Grows only when a primitive is appended. */
#define TSR_OP_PRIMITIVE_COUNT 46

/* MATH's functions, passed as the kernel's params[0]: C99's functions of the
 * same name on the element (half types through float32). Values are part of
 * the ABI; new ones are appended. */
enum tsr_math_fn {
  TSR_MATH_SIN = 0,
  TSR_MATH_COS = 1,
  TSR_MATH_TAN = 2,
  TSR_MATH_ASIN = 3,
  TSR_MATH_ACOS = 4,
  TSR_MATH_ATAN = 5,
  TSR_MATH_SINH = 6,
  TSR_MATH_COSH = 7,
  TSR_MATH_ASINH = 8,
  TSR_MATH_ACOSH = 9,
  TSR_MATH_ATANH = 10,
  TSR_MATH_EXPM1 = 11,
  TSR_MATH_LOG1P = 12,
  TSR_MATH_LOG2 = 13,
  TSR_MATH_LOG10 = 14,
  TSR_MATH_FLOOR = 15,
  TSR_MATH_CEIL = 16,
  TSR_MATH_TRUNC = 17,
  TSR_MATH_ROUND = 18, /* to the nearest integer, ties to even (nearbyint) */
  TSR_MATH_SIGN = 19,  /* -1, 0 or 1; NaN stays NaN; -0 and +0 give +0 */
  TSR_MATH_CONJ = 20,  /* ABI 1.7: the complex conjugate; the identity on real dtypes */
  TSR_MATH_ERF = 21,   /* ABI 1.10: the error function (gelu's exact form); not defined on complex numbers */
  TSR_MATH_FN_COUNT = 22,
  TSR_MATH_FN_MAX_ENUM = 0x7FFFFFFF
};

/* The function's name ("sin"); "?" for an unknown value. */
TSR_INLINE TSR_CONSTEXPR const char* tsr_math_fn_name(int fn) {
  switch (fn) {
    case TSR_MATH_SIN: return "sin";
    case TSR_MATH_COS: return "cos";
    case TSR_MATH_TAN: return "tan";
    case TSR_MATH_ASIN: return "asin";
    case TSR_MATH_ACOS: return "acos";
    case TSR_MATH_ATAN: return "atan";
    case TSR_MATH_SINH: return "sinh";
    case TSR_MATH_COSH: return "cosh";
    case TSR_MATH_ASINH: return "asinh";
    case TSR_MATH_ACOSH: return "acosh";
    case TSR_MATH_ATANH: return "atanh";
    case TSR_MATH_EXPM1: return "expm1";
    case TSR_MATH_LOG1P: return "log1p";
    case TSR_MATH_LOG2: return "log2";
    case TSR_MATH_LOG10: return "log10";
    case TSR_MATH_FLOOR: return "floor";
    case TSR_MATH_CEIL: return "ceil";
    case TSR_MATH_TRUNC: return "trunc";
    case TSR_MATH_ROUND: return "round";
    case TSR_MATH_SIGN: return "sign";
    case TSR_MATH_CONJ: return "conj";
    case TSR_MATH_ERF: return "erf";
    default: return "?";
  }
}

/* Whether key dtype `dtype` is one the op's contract defines (its DTYPES
 * column); 0 for an unknown op or dtype. */
#define TSR_OP_DTYPES_CASE_(op, value, name, kind, arity, dtypes, role) \
  case TSR_OP_##op:                                                     \
    klass = TSR_OP_DTYPES_##dtypes;                                     \
    break;
TSR_INLINE TSR_CONSTEXPR int tsr_op_takes_dtype(int op, int dtype) {
  int klass = -1;
  int floating = 0, integer = 0;
  switch (op) {
    TSR_OP_TABLE(TSR_OP_DTYPES_CASE_)
    default: return 0;
  }
  floating = tsr_dtype_is_floating(dtype);
  integer = tsr_dtype_is_integral(dtype);
  switch (klass) {
    case TSR_OP_DTYPES_ALL: return floating || integer || dtype == TSR_BOOL;
    case TSR_OP_DTYPES_NUMERIC: return floating || integer;
    case TSR_OP_DTYPES_FLOATING: return floating;
    case TSR_OP_DTYPES_INTEGRAL: return integer || dtype == TSR_BOOL;
    case TSR_OP_DTYPES_INTEGER: return integer;
    case TSR_OP_DTYPES_LINALG: return dtype == TSR_FLOAT32 || dtype == TSR_FLOAT64;
    case TSR_OP_DTYPES_ALL_COMPLEX: return floating || integer || dtype == TSR_BOOL || tsr_dtype_is_complex(dtype);
    case TSR_OP_DTYPES_NUMERIC_COMPLEX: return floating || integer || tsr_dtype_is_complex(dtype);
    case TSR_OP_DTYPES_FLOATING_COMPLEX: return floating || tsr_dtype_is_complex(dtype);
    case TSR_OP_DTYPES_LINALG_COMPLEX:
      return dtype == TSR_FLOAT32 || dtype == TSR_FLOAT64 || tsr_dtype_is_complex(dtype);
    case TSR_OP_DTYPES_COMPLEX: return tsr_dtype_is_complex(dtype);
    default: return 0;
  }
}
#undef TSR_OP_DTYPES_CASE_

/* The op's role, a TSR_OP_ROLE_* value; -1 for an unknown value. */
#define TSR_OP_ROLE_CASE_(op, value, name, kind, arity, dtypes, role) \
  case TSR_OP_##op:                                                   \
    return TSR_OP_ROLE_##role;
TSR_INLINE TSR_CONSTEXPR int tsr_op_role(int op) {
  switch (op) {
    TSR_OP_TABLE(TSR_OP_ROLE_CASE_)
    default: return -1;
  }
}
#undef TSR_OP_ROLE_CASE_

#endif /* TESSERA_OPS_H */
