// SPDX-License-Identifier: Apache-2.0
// The build's checks of the op table (Note [The op table] in tessera/ops.h):
// nothing here runs. Each static_assert breaks the build when TSR_OP_LIST
// and what the runtime, the backends and the ABI assume of it disagree.
#include <cstddef>
#include <iterator>

#include "tessera/ops.h"

namespace tessera::rt {
namespace {

// The values are the ABI: a few pinned, and the count.
static_assert(TSR_OP_FILL == 0 && TSR_OP_COPY == 1 && TSR_OP_ADD == 2 && TSR_OP_EQ == 9 && TSR_OP_NEG == 15 &&
              TSR_OP_WHERE == 23 && TSR_OP_SUM == 24 && TSR_OP_MATMUL == 29 && TSR_OP_RAND_NORMAL == 33);
static_assert(TSR_OP_MATH == 34 && TSR_OP_LOGADDEXP == 43 && TSR_OP_PROD == 44 && TSR_OP_STD == 47 &&
              TSR_OP_NONZERO == 53);
static_assert(TSR_OP_CHOLESKY == 54 && TSR_OP_SOLVE == 56 && TSR_OP_EIGH == 59 && TSR_OP_INV == 60);
static_assert(TSR_OP_GELU == 61 && TSR_OP_SILU == 63);
static_assert(TSR_OP_SEARCHSORTED == 64 && TSR_OP_CUMPROD == 65 && TSR_OP_EIG == 66 && TSR_OP_IRFFT == 69);
static_assert(TSR_OP_COUNT == 71, "a new op is a minor version: update this check, version.h and Python's tests");
static_assert(TSR_OP_KIND_COUNT == 21 && TSR_MATH_FN_COUNT == 22);

// Entries in value order: entry k has value k, so there is no gap and no
// duplicate, and TSR_OP_COUNT is the number of entries.
constexpr int kValues[] = {
#define TSR_OP_VALUE_(op, value, name, kind, arity) value,
    TSR_OP_LIST(TSR_OP_VALUE_)
#undef TSR_OP_VALUE_
};
static_assert(std::size(kValues) == TSR_OP_COUNT, "TSR_OP_COUNT is not the number of entries of TSR_OP_LIST");
constexpr bool values_in_order() {
  for (size_t i = 0; i < std::size(kValues); ++i)
    if (kValues[i] != static_cast<int>(i)) return false;
  return true;
}
static_assert(values_in_order(), "TSR_OP_LIST: the entries' values must be 0, 1, 2, ... in order");

constexpr bool same(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

// Every op has a name, a kind and an arity, and no two ops share a name.
constexpr bool every_op_described() {
  for (int op = 0; op < TSR_OP_COUNT; ++op) {
    const char* name = tsr_op_name(op);
    if (name[0] == '\0' || same(name, "?")) return false;
    if (tsr_op_kind(op) < 0 || tsr_op_kind(op) >= TSR_OP_KIND_COUNT) return false;
    if (tsr_op_arity(op) < 0 || tsr_op_arity(op) > 3) return false;
    for (int other = 0; other < op; ++other)
      if (same(name, tsr_op_name(other))) return false;
  }
  return same(tsr_op_name(-1), "?") && same(tsr_op_name(TSR_OP_COUNT), "?") && tsr_op_kind(TSR_OP_COUNT) == -1 &&
         tsr_op_arity(TSR_OP_COUNT) == -1;
}
static_assert(every_op_described(), "TSR_OP_LIST: an op lacks a name, a kind or an arity, or two share a name");

// The arity each kind's C function and kernels assume.
constexpr int kind_arity(int kind) {
  switch (kind) {
    case TSR_OP_KIND_FILL: case TSR_OP_KIND_ARANGE: case TSR_OP_KIND_LINSPACE: case TSR_OP_KIND_RANDOM: return 0;
    case TSR_OP_KIND_COPY: case TSR_OP_KIND_UNARY: case TSR_OP_KIND_REDUCE: case TSR_OP_KIND_MATH:
    case TSR_OP_KIND_SCAN: case TSR_OP_KIND_SORT: case TSR_OP_KIND_COMPACT: case TSR_OP_KIND_FFT: return 1;
    case TSR_OP_KIND_BINARY: case TSR_OP_KIND_COMPARE: case TSR_OP_KIND_MATMUL: case TSR_OP_KIND_GATHER:
    case TSR_OP_KIND_SCATTER: case TSR_OP_KIND_SEARCH: return 2;
    case TSR_OP_KIND_WHERE: case TSR_OP_KIND_CLAMP: return 3;
    default: return -1;  // LINALG: SOLVE's 2 (A, B), the others' 1 (A)
  }
}
constexpr bool arities_match_kinds() {
  for (int op = 0; op < TSR_OP_COUNT; ++op) {
    const int want = tsr_op_kind(op) == TSR_OP_KIND_LINALG ? (op == TSR_OP_SOLVE ? 2 : 1) : kind_arity(tsr_op_kind(op));
    if (tsr_op_arity(op) != want) return false;
  }
  return true;
}
static_assert(arities_match_kinds(), "TSR_OP_LIST: an op's arity differs from its kind's");

// The kinds of the ops the runtime's code names one by one.
constexpr bool all_of_kind(int first, int last, int kind) {
  for (int op = first; op <= last; ++op)
    if (tsr_op_kind(op) != kind) return false;
  return true;
}
static_assert(tsr_op_kind(TSR_OP_FILL) == TSR_OP_KIND_FILL && tsr_op_kind(TSR_OP_COPY) == TSR_OP_KIND_COPY);
static_assert(all_of_kind(TSR_OP_ADD, TSR_OP_POW, TSR_OP_KIND_BINARY));
static_assert(all_of_kind(TSR_OP_EQ, TSR_OP_GE, TSR_OP_KIND_COMPARE));
static_assert(all_of_kind(TSR_OP_NEG, TSR_OP_TANH, TSR_OP_KIND_UNARY));
static_assert(all_of_kind(TSR_OP_GELU, TSR_OP_SILU, TSR_OP_KIND_UNARY));
static_assert(tsr_op_kind(TSR_OP_WHERE) == TSR_OP_KIND_WHERE);
static_assert(all_of_kind(TSR_OP_SUM, TSR_OP_ARGMAX, TSR_OP_KIND_REDUCE));
static_assert(tsr_op_kind(TSR_OP_MATMUL) == TSR_OP_KIND_MATMUL && tsr_op_kind(TSR_OP_ARANGE) == TSR_OP_KIND_ARANGE &&
              tsr_op_kind(TSR_OP_LINSPACE) == TSR_OP_KIND_LINSPACE);
static_assert(all_of_kind(TSR_OP_RAND_UNIFORM, TSR_OP_RAND_NORMAL, TSR_OP_KIND_RANDOM));
static_assert(tsr_op_kind(TSR_OP_MATH) == TSR_OP_KIND_MATH);
static_assert(all_of_kind(TSR_OP_ATAN2, TSR_OP_LOGADDEXP, TSR_OP_KIND_BINARY));
static_assert(all_of_kind(TSR_OP_PROD, TSR_OP_STD, TSR_OP_KIND_REDUCE));
static_assert(tsr_op_kind(TSR_OP_CUMSUM) == TSR_OP_KIND_SCAN && tsr_op_kind(TSR_OP_GATHER) == TSR_OP_KIND_GATHER &&
              tsr_op_kind(TSR_OP_SCATTER) == TSR_OP_KIND_SCATTER && tsr_op_kind(TSR_OP_NONZERO) == TSR_OP_KIND_COMPACT);
static_assert(all_of_kind(TSR_OP_SORT, TSR_OP_ARGSORT, TSR_OP_KIND_SORT));
static_assert(all_of_kind(TSR_OP_CHOLESKY, TSR_OP_INV, TSR_OP_KIND_LINALG));
static_assert(tsr_op_kind(TSR_OP_SEARCHSORTED) == TSR_OP_KIND_SEARCH && tsr_op_kind(TSR_OP_CUMPROD) == TSR_OP_KIND_SCAN &&
              tsr_op_kind(TSR_OP_EIG) == TSR_OP_KIND_LINALG);
static_assert(all_of_kind(TSR_OP_FFT, TSR_OP_IRFFT, TSR_OP_KIND_FFT) && tsr_op_kind(TSR_OP_CLAMP) == TSR_OP_KIND_CLAMP);
// The optional ops are the LINALG and FFT kinds' and CUMPROD (Note
// [Primitives]): the CPU fallback's code knows these.
constexpr bool optional_are_known() {
  for (int op = 0; op < TSR_OP_COUNT; ++op) {
    const int kind = tsr_op_kind(op);
    const bool known = kind == TSR_OP_KIND_LINALG || kind == TSR_OP_KIND_FFT || op == TSR_OP_CUMPROD;
    if ((tsr_op_role(op) == TSR_OP_ROLE_OPTIONAL) != known) return false;
  }
  return true;
}
static_assert(optional_are_known());

// Note [Primitives]: the count the header states, and the composites the
// runtime knows how to build (runtime/composite.cpp has a case for each).
constexpr int primitive_count() {
  int n = 0;
  for (int op = 0; op < TSR_OP_COUNT; ++op) n += tsr_op_role(op) == TSR_OP_ROLE_PRIMITIVE;
  return n;
}
static_assert(primitive_count() == TSR_OP_PRIMITIVE_COUNT, "TSR_OP_PRIMITIVE_COUNT differs from TSR_OP_TABLE");
static_assert(TSR_OP_PRIMITIVE_COUNT < 60, "Note [Primitives]: the primitive set stays small");
// Every op's contract defines some dtype (the DTYPES column is in range).
constexpr bool every_op_takes_a_dtype() {
  for (int op = 0; op < TSR_OP_COUNT; ++op)
    if (!tsr_op_takes_dtype(op, TSR_INT64) && !tsr_op_takes_dtype(op, TSR_FLOAT32) &&
        !tsr_op_takes_dtype(op, TSR_COMPLEX64))
      return false;
  return !tsr_op_takes_dtype(TSR_OP_COUNT, TSR_FLOAT32) && tsr_op_role(TSR_OP_COUNT) == -1;
}
static_assert(every_op_takes_a_dtype(), "TSR_OP_TABLE: an op's DTYPES column is out of range");
// Note [Complex dtypes]: the orderings take no complex dtype; the arithmetic does.
static_assert(!tsr_op_takes_dtype(TSR_OP_LT, TSR_COMPLEX64) && !tsr_op_takes_dtype(TSR_OP_MAX, TSR_COMPLEX128) &&
              !tsr_op_takes_dtype(TSR_OP_SORT, TSR_COMPLEX64) && tsr_op_takes_dtype(TSR_OP_MATMUL, TSR_COMPLEX64) &&
              tsr_op_takes_dtype(TSR_OP_MATH, TSR_COMPLEX128) && !tsr_op_takes_dtype(TSR_OP_RELU, TSR_COMPLEX64));
// The names the public API spells (and Python's functions look up).
static_assert(same(tsr_op_name(TSR_OP_ADD), "add") && same(tsr_op_name(TSR_OP_SIGMOID), "sigmoid") &&
              same(tsr_op_name(TSR_OP_RAND_UNIFORM), "rand") && same(tsr_op_name(TSR_OP_RAND_NORMAL), "randn"));

}  // namespace
}  // namespace tessera::rt
