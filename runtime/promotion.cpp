// SPDX-License-Identifier: Apache-2.0
#include "promotion.hpp"

#include <string>

#include "error.hpp"

namespace tessera::rt {
namespace {

void check_dtype(int32_t dtype) {
  if (dtype < 0 || dtype >= TSR_DTYPE_COUNT)
    fail(TSR_ERR_INVALID_ARGUMENT, "unknown dtype " + std::to_string(dtype));
}

// c10's promoteTypes lookup table, re-indexed to Tessera's dtype numbers,
// with NumPy 1.24's np.promote_types for uint16/32/64 (Note [Unsigned
// promotion] in promotion.hpp) and for those with complex64 (Note [Complex
// dtypes] in tessera/ops.h).
constexpr int32_t f4 = TSR_FLOAT32, f8 = TSR_FLOAT64, f2 = TSR_FLOAT16, bf = TSR_BFLOAT16, i1 = TSR_INT8,
                  u1 = TSR_UINT8, i2 = TSR_INT16, i4 = TSR_INT32, i8 = TSR_INT64, b1 = TSR_BOOL, u2 = TSR_UINT16,
                  u4 = TSR_UINT32, u8 = TSR_UINT64, c8 = TSR_COMPLEX64, c16 = TSR_COMPLEX128;
constexpr int32_t kPromote[TSR_DTYPE_COUNT][TSR_DTYPE_COUNT] = {
    /*          f4  f8  f2  bf  i1  u1  i2  i4  i8  b1  u2  u4  u8  c8   c16 */
    /* f4 */ {f4, f8, f4, f4, f4, f4, f4, f4, f4, f4, f4, f8, f8, c8, c16},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, c16, c16},
    /* f2 */ {f4, f8, f2, f4, f2, f2, f2, f2, f2, f2, f4, f8, f8, c8, c16},
    /* bf */ {f4, f8, f4, bf, bf, bf, bf, bf, bf, bf, f4, f8, f8, c8, c16},
    /* i1 */ {f4, f8, f2, bf, i1, i2, i2, i4, i8, i1, i4, i8, f8, c8, c16},
    /* u1 */ {f4, f8, f2, bf, i2, u1, i2, i4, i8, u1, u2, u4, u8, c8, c16},
    /* i2 */ {f4, f8, f2, bf, i2, i2, i2, i4, i8, i2, i4, i8, f8, c8, c16},
    /* i4 */ {f4, f8, f2, bf, i4, i4, i4, i4, i8, i4, i4, i8, f8, c8, c16},
    /* i8 */ {f4, f8, f2, bf, i8, i8, i8, i8, i8, i8, i8, i8, f8, c8, c16},
    /* b1 */ {f4, f8, f2, bf, i1, u1, i2, i4, i8, b1, u2, u4, u8, c8, c16},
    /* u2 */ {f4, f8, f4, f4, i4, u2, i4, i4, i8, u2, u2, u4, u8, c8, c16},
    /* u4 */ {f8, f8, f8, f8, i8, u4, i8, i8, i8, u4, u4, u4, u8, c16, c16},
    /* u8 */ {f8, f8, f8, f8, f8, u8, f8, f8, f8, u8, u8, u8, u8, c16, c16},
    /* c8 */ {c8, c16, c8, c8, c8, c8, c8, c8, c8, c8, c8, c16, c16, c8, c16},
    /* c16 */ {c16, c16, c16, c16, c16, c16, c16, c16, c16, c16, c16, c16, c16, c16, c16},
};

// The table is symmetric, as both libraries' are.
constexpr bool symmetric() {
  for (int a = 0; a < TSR_DTYPE_COUNT; ++a)
    for (int b = 0; b < TSR_DTYPE_COUNT; ++b)
      if (kPromote[a][b] != kPromote[b][a]) return false;
  return true;
}
static_assert(symmetric(), "kPromote must be symmetric");

constexpr int32_t kUndefined = TSR_DTYPE_UNDEFINED;

// ATen's promote_skip_undefined: an empty priority class contributes nothing.
int32_t promote_skip_undefined(int32_t a, int32_t b) {
  if (a == kUndefined) return b;
  if (b == kUndefined) return a;
  return kPromote[a][b];
}

// ATen's combine_categories: the higher-priority class wins unless the lower
// one brings a higher category (complex over floating over integral,
// anything over bool); a floating class under a complex one keeps its
// precision (float64 tensor + 0-d complex64 tensor -> complex128).
int32_t combine_categories(int32_t higher, int32_t lower) {
  if (higher == kUndefined) return lower;
  if (lower == kUndefined) return higher;
  if (tsr_dtype_is_complex(higher)) return higher;
  if (tsr_dtype_is_complex(lower)) return tsr_dtype_is_floating(higher) ? tsr_dtype_complex(higher) : lower;
  if (tsr_dtype_is_floating(higher)) return higher;
  if (higher == TSR_BOOL || tsr_dtype_is_floating(lower)) return promote_skip_undefined(higher, lower);
  return higher;
}

}  // namespace

int32_t promote_types(int32_t a, int32_t b) {
  check_dtype(a);
  check_dtype(b);
  return kPromote[a][b];
}

Category category(int32_t dtype) {
  check_dtype(dtype);
  if (dtype == TSR_BOOL) return Category::Bool;
  if (tsr_dtype_is_complex(dtype)) return Category::Complex;
  return tsr_dtype_is_floating(dtype) ? Category::Floating : Category::Integral;
}

int32_t result_type(std::span<const Operand> ops) {
  if (ops.empty()) fail(TSR_ERR_INVALID_ARGUMENT, "result_type needs at least one operand");
  int32_t dim_result = kUndefined, zero_result = kUndefined, wrapped_result = kUndefined;
  for (const Operand& op : ops) {
    check_dtype(op.dtype);
    if (op.is_python_scalar) {
      // A Python float is read as the default dtype, so it cannot raise the
      // precision of a floating tensor.
      // A Python complex likewise reads as complex64.
      const int32_t dtype = tsr_dtype_is_floating(op.dtype)  ? TSR_FLOAT32
                            : tsr_dtype_is_complex(op.dtype) ? TSR_COMPLEX64
                                                             : op.dtype;
      wrapped_result = promote_skip_undefined(wrapped_result, dtype);
    } else if (op.is_zero_dim) {
      zero_result = promote_skip_undefined(zero_result, op.dtype);
    } else {
      dim_result = promote_skip_undefined(dim_result, op.dtype);
    }
  }
  // ATen's combine_categories(dim, combine_categories(zero, wrapped)), with
  // a Python number that outranks the tensors' category giving its own
  // dtype (float32 for a float), which is what ATen's table gives for the
  // ten dtypes of PyTorch and the category rule asks of uint16/32/64 (Note
  // [Unsigned promotion]).
  const int32_t tensors = combine_categories(dim_result, zero_result);
  if (wrapped_result == kUndefined) return tensors;
  if (tensors == kUndefined) return wrapped_result;
  // A Python complex with floating tensors: their precision's complex
  // (float64 tensor * 1j -> complex128).
  if (tsr_dtype_is_complex(wrapped_result) && tsr_dtype_is_floating(tensors)) return tsr_dtype_complex(tensors);
  if (category(wrapped_result) > category(tensors)) return wrapped_result;
  return tensors;
}

bool can_cast(int32_t from, int32_t to) {
  check_dtype(from);
  check_dtype(to);
  if (tsr_dtype_is_complex(from) && !tsr_dtype_is_complex(to)) return false;
  if (tsr_dtype_is_floating(from) && tsr_dtype_is_integral(to)) return false;
  if (from != TSR_BOOL && to == TSR_BOOL) return false;
  return true;
}

}  // namespace tessera::rt
