// SPDX-License-Identifier: Apache-2.0
// The op suite's shared helpers: one runtime per program, host-side
// conversion of every dtype to double, the layouts an input can take, the
// float64 reference's rounding rules, and the element-by-element comparison.
// Black-box: everything goes through the public C API (tessera.h/.hpp).
#pragma once

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

namespace ops {

using tessera::Scalar;
using tessera::Shape;
using tessera::Tensor;

// The program's one runtime (a function-local static) and its CPU device.
tessera::Runtime& runtime();
tsr_device cpu();

// The real dtypes: this suite's ops run on all of them; the complex dtypes
// (ABI 1.7) are checked against NumPy in tests/python/test_complex.py.
inline constexpr int kRealDtypeCount = TSR_COMPLEX64;
inline constexpr std::array<tsr_dtype, kRealDtypeCount> kDtypes{
    TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_INT8,   TSR_UINT8, TSR_INT16,
    TSR_INT32,   TSR_INT64,   TSR_BOOL,    TSR_UINT16,   TSR_UINT32, TSR_UINT64};

inline bool is_float(tsr_dtype d) { return tsr_dtype_is_floating(d) != 0; }
// Tessera's dtype name, as every message spells it ("float32", "int64").
std::string dtype_name(tsr_dtype d);
// PyTorch 1.13's torch.promote_types (hard-coded from torch), and NumPy
// 1.24's np.promote_types for pairs with uint16/32/64 (bfloat16 read as
// float16 there: Note [Unsigned promotion]).
tsr_dtype promote(tsr_dtype a, tsr_dtype b);
// PyTorch's canCast: no floating -> integral, no non-bool -> bool.
bool can_cast(tsr_dtype from, tsr_dtype to);

// ---- host values ------------------------------------------------------------
double load(tsr_dtype dtype, const unsigned char* p);
// PyTorch's static_cast rules: float -> integer truncates (through int64,
// then wraps), integer -> narrower integer wraps, -> bool is "!= 0",
// -> float16/bfloat16 rounds through float32 to nearest even; -> uint64
// exact on [0, 2^64) (Note [Casts]).
void store(tsr_dtype dtype, double v, unsigned char* p);
// v rounded to what `dtype` can hold (store then load).
double cast(tsr_dtype dtype, double v);

int64_t numel(const Shape& s);
std::string shape_str(const Shape& s);
// The elements of t, row-major, as doubles (read through tsr_read).
std::vector<double> values(const Tensor& t);
// A new contiguous tensor holding `v` (converted with store()).
Tensor from_values(const std::vector<double>& v, const Shape& shape, tsr_dtype dtype);
tsr_scalar int_scalar(int64_t v);
tsr_scalar float_scalar(double v);
tsr_scalar bool_scalar(bool v);
// The storage index of each element of a view, row-major.
std::vector<int64_t> storage_indices(const Tensor& t);
// The row-major index into `in` that element i of the broadcast shape `out` reads.
int64_t broadcast_source(const Shape& out, const Shape& in, int64_t i);

// ---- inputs -----------------------------------------------------------------
// General: floats k/8 in [-3, 3] (sums and products stay exact in float32),
// signed ints in [-5, 5], unsigned ints in [0, 10], bool 0/1. Exponent: floats in
// [-1.5, 1.5], integers in [0, 3] (no negative integer powers).
enum class Values { General, Exponent };
double sample(tsr_dtype dtype, Values kind, uint32_t seed, int64_t i);

enum class Layout { Contiguous, Transposed, Sliced, Expanded };
inline constexpr std::array<Layout, 4> kLayouts{Layout::Contiguous, Layout::Transposed, Layout::Sliced,
                                                Layout::Expanded};
const char* layout_name(Layout l);

// A view of logical shape `shape` in `layout` over a contiguous base:
// Transposed = tsr_t of a base of the reversed shape; Sliced = the last dim
// taken [1::2] from a base twice as wide plus one; Expanded = dim 0 expanded
// (stride 0) from a base with size 1 there. 0-d shapes are always contiguous.
struct Input {
  Tensor view;
  Tensor base;
};
Input make_input(const Shape& shape, tsr_dtype dtype, Layout layout, Values kind = Values::General,
                 uint32_t seed = 1);

// ---- results ----------------------------------------------------------------
struct Tolerance {
  double rtol, atol;
};
Tolerance tolerance(tsr_dtype dtype);

// "" when `got` has `shape`, `dtype` and values close to `expected` (each
// first rounded with cast(dtype, .), but for uint64 values from 2^63 on),
// else a description of the first difference. Integers and bool compare
// exactly; NaN matches NaN only.
std::string mismatch(const Tensor& got, const Shape& shape, tsr_dtype dtype, const std::vector<double>& expected);

// What a C call that returns a tensor gave back.
struct Result {
  tsr_status status = TSR_OK;
  std::string message;
  bool out_null = true;  // whether *out was left NULL
  Tensor out;
};
template <class F> Result attempt(F&& call) {
  tsr_tensor* out = nullptr;
  Result r;
  r.status = call(&out);
  r.out_null = out == nullptr;
  if (r.status != TSR_OK) r.message = tsr_last_error_message();
  r.out = Tensor(out);
  return r;
}

// What a call should do: give a tensor of `dtype`, fail with `status` and a
// message containing `message`, or (where PyTorch 1.13 has no CPU kernel)
// either fail cleanly or give the right values.
struct Outcome {
  enum Kind { Value, Error, Either } kind = Value;
  tsr_dtype dtype = TSR_FLOAT32;
  tsr_status status = TSR_OK;
  std::string message;
};
inline Outcome value_of(tsr_dtype d) { return Outcome{Outcome::Value, d, TSR_OK, {}}; }
inline Outcome error_of(tsr_status s, std::string m) { return Outcome{Outcome::Error, TSR_FLOAT32, s, std::move(m)}; }
inline Outcome either_of(tsr_dtype d) { return Outcome{Outcome::Either, d, TSR_OK, {}}; }

// Checks a failed call: the status (TSR_OK: any failure), the message
// substring, *out left NULL.
void check_error(const Result& r, tsr_status status, const std::string& needle);
// Checks `r` against `want`; expected() computes the reference values (only
// called when there is a tensor to compare).
template <class F> void check_outcome(const Result& r, const Outcome& want, const Shape& shape, F&& expected) {
  if (want.kind == Outcome::Error) {
    check_error(r, want.status, want.message);
    return;
  }
  if (want.kind == Outcome::Either && r.status != TSR_OK) {
    CHECK(r.out_null);
    CHECK(r.status != TSR_ERR_INTERNAL);
    CHECK_FALSE(r.message.empty());
    return;
  }
  INFO("status " << tsr_status_name(r.status) << ": " << r.message);
  CHECK(r.status == TSR_OK);
  if (r.status != TSR_OK) return;
  CHECK(mismatch(r.out, shape, want.dtype, expected()) == "");
}

// Runs an in-place call on a view of `in.base` and checks the base after it:
// on success exactly the view's elements hold `result` (one per element of
// the view, row-major); on failure nothing changed.
template <class Call, class Ref>
void check_inplace(const Input& in, const Outcome& want, Call&& call, Ref&& result) {
  std::vector<double> before = values(in.base);
  std::vector<int64_t> where = storage_indices(in.view);
  tsr_status st = call();
  std::string message = st == TSR_OK ? "" : tsr_last_error_message();
  INFO("status " << tsr_status_name(st) << ": " << message);
  if (want.kind == Outcome::Error) {
    if (want.status != TSR_OK) CHECK(tsr_status_name(st) == std::string(tsr_status_name(want.status)));
    CHECK_THAT(message, Catch::Contains(want.message));
  }
  if (st != TSR_OK) {
    CHECK(want.kind != Outcome::Value);
    CHECK(mismatch(in.base, in.base.shape(), in.base.dtype(), before) == "");  // errors write nothing
    return;
  }
  CHECK(want.kind != Outcome::Error);
  if (want.kind == Outcome::Error) return;
  std::vector<double> expected = before, r = result();
  for (size_t k = 0; k < where.size(); ++k) expected[static_cast<size_t>(where[k])] = r[k];
  CHECK(mismatch(in.base, in.base.shape(), in.base.dtype(), expected) == "");
}

}  // namespace ops
