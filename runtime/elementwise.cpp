// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <array>
#include <string>

#include "derivatives.hpp"
#include "error.hpp"
#include "fallback.hpp"
#include "ops.hpp"
#include "promotion.hpp"
#include "shape.hpp"

namespace tessera::rt {

namespace {

// The kinds (tessera/ops.h) each C function takes: tsr_binary and its forms
// take the comparisons too.
bool is_comparison(int32_t op) { return tsr_op_kind(op) == TSR_OP_KIND_COMPARE; }
bool is_binary(int32_t op) { return tsr_op_kind(op) == TSR_OP_KIND_BINARY || is_comparison(op); }
bool is_unary(int32_t op) { return tsr_op_kind(op) == TSR_OP_KIND_UNARY; }
// Ops defined on floating dtypes only (TSR_OP_TABLE's DTYPES column): their
// integer and bool operands compute in the default float dtype, as PyTorch's
// true division and exp.
bool is_float_only(int32_t op) { return tsr_op_takes_dtype(op, TSR_FLOAT32) && !tsr_op_takes_dtype(op, TSR_INT64); }

// The error for a dtype outside the op's DTYPES column.
[[noreturn]] void refuse_dtype(int32_t op, int32_t dtype) {
  if (tsr_dtype_is_complex(dtype)) check_op_takes_dtype(op, dtype);  // the one message for any op
  const char* which = tsr_op_takes_dtype(op, TSR_BOOL) ? "integer and bool"
                      : tsr_op_takes_dtype(op, TSR_INT64) && !tsr_op_takes_dtype(op, TSR_FLOAT32) ? "integer"
                                                                                                   : "numeric";
  fail(TSR_ERR_TYPE, std::string(tsr_op_name(op)) + " is defined for " + which + " dtypes only, not for " +
                         tsr_dtype_name(dtype));
}

void check_op(int32_t op, bool ok, const char* what) {
  if (!ok) fail(TSR_ERR_INVALID_ARGUMENT, op_label(op) + " is not " + what);
}

// The dtype a binary op computes in, given the operands' dtypes and the
// dtype they promote to.
int32_t compute_dtype(int32_t op, int32_t a, int32_t b, int32_t common) {
  if (op == TSR_OP_SUB && a == TSR_BOOL && b == TSR_BOOL)
    fail(TSR_ERR_TYPE,
         "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
         "operator instead.");
  if (op == TSR_OP_SUB && (a == TSR_BOOL || b == TSR_BOOL))
    fail(TSR_ERR_TYPE,
         "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
         "use the `~` or `logical_not()` operator instead.");
  if (is_float_only(op) && !tsr_dtype_is_floating(common) && !tsr_dtype_is_complex(common)) return TSR_FLOAT32;
  if (!tsr_op_takes_dtype(op, common)) refuse_dtype(op, common);
  return common;
}

// t itself when it already has `dtype`, else a converted copy held in `keep`
// (no reference is taken in the common case: the caller's handle keeps t alive).
const tsr_tensor& in_dtype(const tsr_tensor& t, int32_t dtype, TensorRef& keep) {
  if (t.dtype == dtype) return t;
  keep = to(TensorRef::share(const_cast<tsr_tensor*>(&t)), dtype, t.device);
  return *keep;
}

// Row-major strides exactly (size-1 dims included) and offset 0 or not: what
// a fresh result of the same shape gets, so the result's layout is known
// without dense_like.
bool row_major_strides(const Layout& l) {
  int64_t expected = 1;
  for (int32_t d = l.ndim - 1; d >= 0; --d) {
    if (l.strides[static_cast<size_t>(d)] != expected) return false;
    expected *= std::max<int64_t>(l.shape[static_cast<size_t>(d)], 1);
  }
  return true;
}

// A 0-d tensor holding a scalar, in `dtype`, on `device`.
TensorRef scalar_tensor(tsr_runtime& rt, tsr_scalar s, int32_t dtype, tsr_device device) {
  TensorRef t = empty(rt, 0, nullptr, dtype, device);
  fill_wrapping(*t, s);
  return t;
}

Operand operand_of(const tsr_tensor& t) { return Operand{t.dtype, t.layout.ndim == 0, false}; }
Operand operand_of(const tsr_scalar& s) {
  int32_t dtype = s.kind == TSR_SCALAR_FLOAT     ? TSR_FLOAT64
                  : s.kind == TSR_SCALAR_INT     ? TSR_INT64
                  : s.kind == TSR_SCALAR_COMPLEX ? TSR_COMPLEX128
                                                 : TSR_BOOL;
  return Operand{dtype, true, true};
}

// out = a (op) b computed in `compute`, a and b broadcast to each other.
// Note [The op fast path]: most calls have operands of one shape and one
// dtype; they take no reference, build no Layout and run no shape check
// beyond a comparison (a few hundred instructions in all, see bench/).
TensorRef binary_in(int32_t op, const tsr_tensor& a, const tsr_tensor& b, int32_t compute) {
  const int32_t out_dtype = is_comparison(op) ? TSR_BOOL : compute;
  tsr_tensor_desc da, db, dout;
  TensorRef keep_a, keep_b, out;
  if (same_shape(a.layout, b.layout)) {
    out = make_result(a, a.layout.ndim, a.layout.shape.data(), out_dtype);
    if (out->layout.numel() == 0) return out;
    fill_desc(in_dtype(a, compute, keep_a), da);
    fill_desc(in_dtype(b, compute, keep_b), db);
  } else {
    int64_t shape[TSR_MAX_DIMS];
    const int32_t ndim = broadcast_shapes(a.layout.ndim, a.layout.shape.data(), b.layout.ndim, b.layout.shape.data(), shape);
    const tsr_tensor& ac = in_dtype(a, compute, keep_a);
    const tsr_tensor& bc = in_dtype(b, compute, keep_b);
    out = make_result(a, ndim, shape, out_dtype);
    if (out->layout.numel() == 0) return out;
    fill_desc_broadcast(ac, ndim, shape, da);
    fill_desc_broadcast(bc, ndim, shape, db);
  }
  fill_desc(*out, dout);
  launch(*a.rt, a.device, op, compute, {&da, &db}, dout);
  return out;
}

// Note [Outputs that share memory with inputs]: an op writing into an
// existing tensor (out=, in place) reads each input element before writing
// the output element at the same index, so an input that is exactly the
// output (same storage, offset and strides over out's shape) is safe. An
// input that shares memory with the output any other way (x[0] into x, a
// shifted slice) is read from a copy first, as NumPy does; PyTorch refuses
// such calls, and the copy gives the answer its refusal protects.
bool exactly_aliases(const tsr_tensor_desc& in, const tsr_tensor_desc& out) {
  if (in.data != out.data || in.offset != out.offset || in.ndim != out.ndim) return false;
  for (int32_t i = 0; i < out.ndim; ++i)
    if (out.shape[i] > 1 && in.strides[i] != out.strides[i]) return false;
  return true;
}

// The descriptor of input x read as out's shape; x is first copied into
// `keep` when it shares memory with out other than exactly.
void input_desc(const tsr_tensor& x, const tsr_tensor& out, TensorRef& keep, tsr_tensor_desc& desc) {
  fill_desc_broadcast(x, out.layout.ndim, out.layout.shape.data(), desc);
  if (!may_share_memory(x, out)) return;
  tsr_tensor_desc dout;
  fill_desc(out, dout);
  if (exactly_aliases(desc, dout)) return;
  keep = clone(x);
  fill_desc_broadcast(*keep, out.layout.ndim, out.layout.shape.data(), desc);
}

// The checks every op writing into an existing tensor makes: out has no
// element twice, the result dtype casts to out's, and x broadcasts to out's
// shape without growing it (NumPy's out= rule; out is never resized).
void check_output(const tsr_tensor& out, int32_t result_dtype) {
  check_no_internal_overlap(out);
  if (!can_cast(result_dtype, out.dtype))
    fail(TSR_ERR_TYPE, std::string("result type ") + tsr_dtype_name(result_dtype) +
                           " can't be cast to the desired output type " + tsr_dtype_name(out.dtype));
}

void check_broadcasts_to_output(const tsr_tensor& x, const tsr_tensor& out) {
  if (!same_shape(x.layout, out.layout)) (void)broadcast_to(x.layout, out.layout.ndim, out.layout.shape.data());
}

// out = a (op) b computed in `compute`; a and b broadcast to out's shape.
void binary_into(int32_t op, const tsr_tensor& a, const tsr_tensor& b, const tsr_tensor& out, int32_t compute) {
  const int32_t result_dtype = is_comparison(op) ? TSR_BOOL : compute;
  check_output(out, result_dtype);
  check_broadcasts_to_output(a, out);
  check_broadcasts_to_output(b, out);
  if (out.layout.numel() == 0) return;
  if (result_dtype != out.dtype) {  // compute, then cast into out
    TensorRef result = binary_in(op, a, b, compute);
    copy_into(out, *result);
    return;
  }
  TensorRef keep_a, keep_b, copy_a, copy_b;
  tsr_tensor_desc da, db, dout;
  input_desc(in_dtype(a, compute, keep_a), out, copy_a, da);
  input_desc(in_dtype(b, compute, keep_b), out, copy_b, db);
  fill_desc(out, dout);
  launch(*out.rt, out.device, op, compute, {&da, &db}, dout);
}

// The dtype a binary op on a and b computes in.
int32_t binary_compute_dtype(int32_t op, const tsr_tensor& a, const tsr_tensor& b) {
  // One dtype promotes to itself: skip the promotion tables (compute_dtype's
  // two special cases aside).
  if (a.dtype == b.dtype && tsr_op_takes_dtype(op, a.dtype)) return a.dtype;
  std::array<Operand, 2> ops{operand_of(a), operand_of(b)};
  return compute_dtype(op, a.dtype, b.dtype, result_type(ops));
}

}  // namespace

TensorRef binary(int32_t op, const tsr_tensor& a, const tsr_tensor& b) {
  check_op(op, is_binary(op), "a binary op");
  check_same_device(a, b);
  TensorRef out = binary_in(op, a, b, binary_compute_dtype(op, a, b));
  if (autograd::should_record({&a, &b})) [[unlikely]]
    autograd::record_binary(op, a, b, *out);
  return out;
}

void binary_out(int32_t op, const tsr_tensor& a, const tsr_tensor& b, const tsr_tensor& out) {
  check_op(op, is_binary(op), "a binary op");
  check_same_device(a, b);
  check_same_device(a, out);
  binary_into(op, a, b, out, binary_compute_dtype(op, a, b));
}

namespace {
int32_t scalar_compute_dtype(int32_t op, const tsr_tensor& a, const tsr_scalar& b) {
  std::array<Operand, 2> ops{operand_of(a), operand_of(b)};
  return compute_dtype(op, a.dtype, ops[1].dtype, result_type(ops));
}
}  // namespace

TensorRef binary_scalar(int32_t op, const tsr_tensor& a, tsr_scalar b, bool reversed) {
  check_op(op, is_binary(op), "a binary op");
  const int32_t compute = scalar_compute_dtype(op, a, b);
  TensorRef s = scalar_tensor(*a.rt, b, compute, a.device);
  TensorRef out = reversed ? binary_in(op, *s, a, compute) : binary_in(op, a, *s, compute);
  if (autograd::should_record({&a})) [[unlikely]]
    autograd::record_binary_scalar(op, a, b, reversed, *out);
  return out;
}

void binary_scalar_out(int32_t op, const tsr_tensor& a, tsr_scalar b, bool reversed, const tsr_tensor& out) {
  check_op(op, is_binary(op), "a binary op");
  check_same_device(a, out);
  const int32_t compute = scalar_compute_dtype(op, a, b);
  TensorRef s = scalar_tensor(*a.rt, b, compute, a.device);
  if (reversed) binary_into(op, *s, a, out, compute);
  else binary_into(op, a, *s, out, compute);
}

// Comparisons too, as PyTorch's lt_ and friends: a's elements become 1 or 0
// (true or false) in a's dtype.
void binary_inplace(int32_t op, const tsr_tensor& a, const tsr_tensor& b) {
  check_op(op, is_binary(op), "a binary op");
  check_same_device(a, b);
  binary_into(op, a, b, a, binary_compute_dtype(op, a, b));
}

void binary_scalar_inplace(int32_t op, const tsr_tensor& a, tsr_scalar b) {
  check_op(op, is_binary(op), "a binary op");
  const int32_t compute = scalar_compute_dtype(op, a, b);
  TensorRef s = scalar_tensor(*a.rt, b, compute, a.device);
  binary_into(op, a, *s, a, compute);
}

namespace {
int32_t unary_compute_dtype(int32_t op, int32_t dtype) {
  if (op == TSR_OP_NEG && dtype == TSR_BOOL)
    fail(TSR_ERR_TYPE,
         "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use "
         "the `~` or `logical_not()` operator instead.");
  if (is_float_only(op) && !tsr_dtype_is_floating(dtype) && !tsr_dtype_is_complex(dtype)) return TSR_FLOAT32;
  if (!tsr_op_takes_dtype(op, dtype)) refuse_dtype(op, dtype);
  return dtype;
}

// The dtype a unary op writes: its compute dtype, but ABS of a complex one
// gives the real dtype of its parts (Note [Complex dtypes]).
int32_t unary_result_dtype(int32_t op, int32_t compute) { return op == TSR_OP_ABS ? tsr_dtype_real(compute) : compute; }
}  // namespace

TensorRef unary(int32_t op, const tsr_tensor& a) {
  check_op(op, is_unary(op), "a unary op");
  int32_t compute = unary_compute_dtype(op, a.dtype);
  TensorRef keep;
  const tsr_tensor& ac = in_dtype(a, compute, keep);
  const int32_t result = unary_result_dtype(op, compute);
  // The result keeps the input's dense strides (dense_like); row-major ones need no work.
  TensorRef out = row_major_strides(ac.layout) ? make_result(ac, ac.layout.ndim, ac.layout.shape.data(), result)
                                               : make_tensor(*a.rt, dense_like(ac.layout), result, a.device);
  if (out->layout.numel() != 0) {
    tsr_tensor_desc din, dout;
    fill_desc(ac, din);
    fill_desc(*out, dout);
    launch(*a.rt, a.device, op, compute, {&din}, dout);
  }
  if (autograd::should_record({&a})) [[unlikely]]
    autograd::record_unary(op, a, *out);
  return out;
}

void unary_out(int32_t op, const tsr_tensor& a, const tsr_tensor& out) {
  check_op(op, is_unary(op), "a unary op");
  check_same_device(a, out);
  const int32_t compute = unary_compute_dtype(op, a.dtype);
  const int32_t result = unary_result_dtype(op, compute);
  check_output(out, result);
  check_broadcasts_to_output(a, out);
  if (out.layout.numel() == 0) return;
  if (result != out.dtype) {  // compute, then cast into out
    TensorRef result = unary(op, a);
    copy_into(out, *result);
    return;
  }
  TensorRef keep, copy;
  tsr_tensor_desc din, dout;
  input_desc(in_dtype(a, compute, keep), out, copy, din);
  fill_desc(out, dout);
  launch(*out.rt, out.device, op, compute, {&din}, dout);
}

void unary_inplace(int32_t op, const tsr_tensor& a) { unary_out(op, a, a); }

namespace {

// A fresh result of `shape` in `key` from three operands broadcast to it
// (WHERE, CLAMP); the first's device and runtime.
TensorRef three_operands(int32_t op, int32_t key, std::array<const tsr_tensor*, 3> in, int32_t ndim,
                         const int64_t* shape) {
  TensorRef out = make_result(*in[1], ndim, shape, key);
  if (out->layout.numel() != 0) {
    tsr_tensor_desc d[3], dout;
    for (size_t i = 0; i < 3; ++i) fill_desc_broadcast(*in[i], ndim, shape, d[i]);
    fill_desc(*out, dout);
    launch(*in[1]->rt, in[1]->device, op, key, {&d[0], &d[1], &d[2]}, dout);
  }
  return out;
}

}  // namespace

TensorRef where(const tsr_tensor& cond, const tsr_tensor& a, const tsr_tensor& b) {
  check_same_device(cond, a);
  check_same_device(a, b);
  if (cond.dtype != TSR_BOOL)
    fail(TSR_ERR_TYPE, std::string("where expected condition to be a boolean tensor, but got a tensor with dtype ") +
                           tsr_dtype_name(cond.dtype));
  std::array<Operand, 2> ops{operand_of(a), operand_of(b)};
  int32_t compute = result_type(ops);
  int64_t ab[TSR_MAX_DIMS], shape[TSR_MAX_DIMS];
  int32_t nab = broadcast_shapes(a.layout.ndim, a.layout.shape.data(), b.layout.ndim, b.layout.shape.data(), ab);
  int32_t ndim = broadcast_shapes(cond.layout.ndim, cond.layout.shape.data(), nab, ab, shape);
  TensorRef keep_a, keep_b;
  const tsr_tensor& ac = in_dtype(a, compute, keep_a);
  const tsr_tensor& bc = in_dtype(b, compute, keep_b);
  TensorRef out = three_operands(TSR_OP_WHERE, compute, {&cond, &ac, &bc}, ndim, shape);
  if (autograd::should_record({&a, &b})) autograd::record_where(cond, a, b, *out);
  return out;
}

TensorRef clamp(const tsr_tensor& x, const tsr_tensor* lo, const tsr_tensor* hi) {
  if (lo == nullptr && hi == nullptr)
    fail(TSR_ERR_INVALID_ARGUMENT, "torch.clamp: At least one of 'min' or 'max' must not be None");
  for (const tsr_tensor* t : {&x, lo, hi}) {
    if (t == nullptr) continue;
    check_same_device(x, *t);
    if (tsr_dtype_is_complex(t->dtype)) fail(TSR_ERR_TYPE, "clamp is not supported for complex types");
  }
  if (autograd::should_record({&x, lo, hi})) [[unlikely]] {
    // Recorded as torch 1.13 differentiates clamp: the gradient passes to
    // x where lo <= x <= hi, to a bound where it won.
    TensorRef r = TensorRef::share(const_cast<tsr_tensor*>(&x));
    if (lo != nullptr) r = where(*binary(TSR_OP_LT, *r, *lo), *lo, *r);
    if (hi != nullptr) r = where(*binary(TSR_OP_LT, *hi, *r), *hi, *r);
    return r;
  }
  if (lo == nullptr) return binary(TSR_OP_MINIMUM, x, *hi);
  if (hi == nullptr) return binary(TSR_OP_MAXIMUM, x, *lo);
  std::array<Operand, 3> ops{operand_of(x), operand_of(*lo), operand_of(*hi)};
  const int32_t compute = result_type(ops);
  if (compute == TSR_BOOL) fail(TSR_ERR_TYPE, "clamp is not supported for bool tensors");
  int64_t two[TSR_MAX_DIMS], shape[TSR_MAX_DIMS];
  const int32_t n2 = broadcast_shapes(x.layout.ndim, x.layout.shape.data(), lo->layout.ndim, lo->layout.shape.data(), two);
  const int32_t ndim = broadcast_shapes(n2, two, hi->layout.ndim, hi->layout.shape.data(), shape);
  TensorRef keep_x, keep_lo, keep_hi;
  const tsr_tensor& xc = in_dtype(x, compute, keep_x);
  const tsr_tensor& lc = in_dtype(*lo, compute, keep_lo);
  const tsr_tensor& hc = in_dtype(*hi, compute, keep_hi);
  return three_operands(TSR_OP_CLAMP, compute, {&xc, &lc, &hc}, ndim, shape);
}

}  // namespace tessera::rt
