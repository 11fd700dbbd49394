// SPDX-License-Identifier: Apache-2.0
// Functions built from views, copies and the primitives, with no kernel of
// their own: concat, stack, roll, flip, tril / triu, eye. Every result is a
// new tensor on the inputs' device; the work is copies into views of it
// (concat, stack, roll), GATHER along reversed ranges (flip), WHERE over a
// mask computed from two ranges (tril, triu), and FILL of a strided view
// (eye), so nothing goes through the host.
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "error.hpp"
#include "ops.hpp"
#include "derivatives.hpp"
#include "promotion.hpp"
#include "shape.hpp"

namespace tessera::rt {

TensorRef concat(std::span<const tsr_tensor* const> tensors, int64_t dim) {
  if (tensors.empty()) fail(TSR_ERR_INVALID_ARGUMENT, "concat(): expected a non-empty list of tensors");
  const tsr_tensor& first = *tensors[0];
  if (first.layout.ndim == 0) fail(TSR_ERR_INVALID_ARGUMENT, "concat(): zero-dimensional tensor (at position 0) cannot be concatenated");
  const int32_t d = wrap_dim(dim, first.layout.ndim);
  std::vector<Operand> operands;
  int64_t shape[TSR_MAX_DIMS];
  for (int32_t k = 0; k < first.layout.ndim; ++k) shape[k] = first.layout.shape[static_cast<size_t>(k)];
  shape[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const tsr_tensor& t = *tensors[i];
    check_same_device(first, t);
    if (t.layout.ndim != first.layout.ndim)
      fail(TSR_ERR_SHAPE, "concat(): Tensors must have same number of dimensions: got " +
                              std::to_string(first.layout.ndim) + " and " + std::to_string(t.layout.ndim) +
                              " (tensor " + std::to_string(i) + ")");
    for (int32_t k = 0; k < t.layout.ndim; ++k)
      if (k != d && t.layout.shape[static_cast<size_t>(k)] != first.layout.shape[static_cast<size_t>(k)])
        fail(TSR_ERR_SHAPE, "concat(): Sizes of tensors must match except in dimension " + std::to_string(d) +
                                ". Expected size " + std::to_string(first.layout.shape[static_cast<size_t>(k)]) +
                                " but got size " + std::to_string(t.layout.shape[static_cast<size_t>(k)]) +
                                " for tensor number " + std::to_string(i) + " in the list.");
    shape[d] += t.layout.shape[static_cast<size_t>(d)];
    operands.push_back(Operand{t.dtype, false, false});
  }
  TensorRef out = empty(*first.rt, first.layout.ndim, shape, result_type(operands), first.device);
  int64_t at = 0;
  for (const tsr_tensor* t : tensors) {
    const int64_t n = t->layout.shape[static_cast<size_t>(d)];
    if (n > 0) copy_into(*make_view(*out, slice(out->layout, d, at, at + n, 1)), *t);
    at += n;
  }
  if (autograd::should_record(tensors)) [[unlikely]]
    autograd::record_concat(tensors, d, *out);
  return out;
}

TensorRef stack(std::span<const tsr_tensor* const> tensors, int64_t dim) {
  if (tensors.empty()) fail(TSR_ERR_INVALID_ARGUMENT, "stack(): expected a non-empty list of tensors");
  const int32_t d = wrap_dim(dim, tensors[0]->layout.ndim + 1);
  std::vector<TensorRef> views;
  std::vector<const tsr_tensor*> ptrs;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const tsr_tensor& t = *tensors[i];
    if (t.layout.ndim != tensors[0]->layout.ndim ||
        !std::equal(t.layout.shape.begin(), t.layout.shape.begin() + t.layout.ndim, tensors[0]->layout.shape.begin()))
      fail(TSR_ERR_SHAPE, "stack(): stack expects each tensor to be equal size, but got " +
                              shape_string(tensors[0]->layout) + " at entry 0 and " + shape_string(t.layout) +
                              " at entry " + std::to_string(i));
    views.push_back(autograd::view_of(t, [&](const Layout& l) { return unsqueeze(l, d); }, "UnsqueezeBackward0"));
    ptrs.push_back(views.back().get());
  }
  TensorRef out = concat(ptrs, d);
  autograd::name_result(*out, "StackBackward0", {});
  return out;
}

namespace {
// x rolled by `shift` along dim d, into a new tensor: its last s elements
// along d, then the others (a concat of two recorded slices, so that its
// gradient is the two slices' of g).
TensorRef roll_one(const tsr_tensor& x, int32_t d, int64_t shift) {
  const int64_t n = x.layout.shape[static_cast<size_t>(d)];
  if (x.layout.numel() == 0) return clone(x);
  const int64_t s = ((shift % n) + n) % n;
  auto part = [&](int64_t start, int64_t stop) {
    return autograd::view_of(x, [&](const Layout& l) { return slice(l, d, start, stop, 1); }, "SliceBackward0");
  };
  TensorRef tail = part(n - s, n), head = part(0, n - s);
  const tsr_tensor* parts[2] = {tail.get(), head.get()};
  return concat(std::span<const tsr_tensor* const>(parts, 2), d);
}
}  // namespace

TensorRef roll(const tsr_tensor& x, std::span<const int64_t> shifts, std::span<const int64_t> dims) {
  if (dims.empty()) {  // the flattened tensor, rolled, in x's shape
    if (shifts.size() != 1) fail(TSR_ERR_INVALID_ARGUMENT, "roll(): without dims, give exactly one shift");
    TensorRef flat = contiguous(TensorRef::share(const_cast<tsr_tensor*>(&x)));
    const int64_t n = x.layout.numel();
    TensorRef line = autograd::view_of(*flat, [&](const Layout& l) { return view(l, 1, &n); }, "ViewBackward0");
    TensorRef rolled = roll_one(*line, 0, shifts[0]);
    TensorRef out = autograd::view_of(
        *rolled, [&](const Layout& l) { return view(l, x.layout.ndim, x.layout.shape.data()); }, "ViewBackward0");
    autograd::name_result(*out, "RollBackward0", {&x});
    return out;
  }
  if (shifts.size() != dims.size())
    fail(TSR_ERR_INVALID_ARGUMENT, "roll(): shifts and dimensions must align. shifts: " +
                                       std::to_string(shifts.size()) + ", dims:" + std::to_string(dims.size()));
  TensorRef out = TensorRef::share(const_cast<tsr_tensor*>(&x));
  for (size_t i = 0; i < dims.size(); ++i) out = roll_one(*out, wrap_dim(dims[i], x.layout.ndim), shifts[i]);
  if (out.get() == &x) out = clone(x);
  autograd::name_result(*out, "RollBackward0", {&x});
  return out;
}

TensorRef flip(const tsr_tensor& x, std::span<const int64_t> dims) {
  TensorRef out = clone(x);
  std::vector<bool> seen(static_cast<size_t>(std::max<int32_t>(x.layout.ndim, 1)), false);
  for (int64_t dim : dims) {
    const int32_t d = wrap_dim(dim, x.layout.ndim);
    if (seen[static_cast<size_t>(d)]) fail(TSR_ERR_INVALID_ARGUMENT, "flip(): dim " + std::to_string(d) + " appears multiple times in the list of dims");
    seen[static_cast<size_t>(d)] = true;
    if (x.layout.ndim == 0) continue;
    const int64_t n = x.layout.shape[static_cast<size_t>(d)];
    if (n <= 1) continue;
    TensorRef reversed = arange(*x.rt, tsr_scalar_int(n - 1), tsr_scalar_int(-1), tsr_scalar_int(-1), TSR_INT64, x.device);
    out = take(*out, *reversed, d);
  }
  autograd::name_result(*out, "FlipBackward0", {&x});
  return out;
}

TensorRef triangle(const tsr_tensor& x, int64_t k, bool lower) {
  const char* name = lower ? "tril" : "triu";
  if (x.layout.ndim < 2)
    fail(TSR_ERR_INVALID_ARGUMENT, std::string(name) + ": input tensor must have at least 2 dimensions");
  const int64_t m = x.layout.shape[static_cast<size_t>(x.layout.ndim - 2)];
  const int64_t n = x.layout.shape[static_cast<size_t>(x.layout.ndim - 1)];
  // keep[i][j]: j - i <= k (tril) or j - i >= k (triu), computed on the device.
  TensorRef rows = arange(*x.rt, tsr_scalar_int(0), tsr_scalar_int(m), tsr_scalar_int(1), TSR_INT64, x.device);
  TensorRef cols = arange(*x.rt, tsr_scalar_int(0), tsr_scalar_int(n), tsr_scalar_int(1), TSR_INT64, x.device);
  const int64_t col_shape[2] = {1, n};
  const int64_t row_shape[2] = {m, 1};
  TensorRef r = make_view(*rows, view(rows->layout, 2, row_shape));
  TensorRef c = make_view(*cols, view(cols->layout, 2, col_shape));
  TensorRef diff = binary(TSR_OP_SUB, *c, *r);
  TensorRef keep = binary_scalar(lower ? TSR_OP_LE : TSR_OP_GE, *diff, tsr_scalar_int(k), false);
  TensorRef zero = empty(*x.rt, 0, nullptr, x.dtype, x.device);
  fill_wrapping(*zero, tsr_scalar_int(0));
  TensorRef out = where(*keep, x, *zero);
  autograd::name_result(*out, lower ? "TrilBackward0" : "TriuBackward0", {&x});
  return out;
}

TensorRef eye(tsr_runtime& rt, int64_t n, int64_t m, int64_t k, int32_t dtype, tsr_device device) {
  if (n < 0 || m < 0) fail(TSR_ERR_INVALID_ARGUMENT, "eye(): n and m must be >= 0, got " + std::to_string(n) + " and " + std::to_string(m));
  const int64_t shape[2] = {n, m};
  TensorRef out = full(rt, 2, shape, tsr_scalar_int(0), dtype, device);
  // The k-th diagonal: a 1-d view with stride m + 1.
  const int64_t first_row = k >= 0 ? 0 : -k, first_col = k >= 0 ? k : 0;
  const int64_t length = std::max<int64_t>(0, std::min(n - first_row, m - first_col));
  if (length == 0) return out;
  Layout diag;
  diag.ndim = 1;
  diag.shape[0] = length;
  diag.strides[0] = m + 1;
  diag.offset = first_row * m + first_col;
  fill(*make_view(*out, diag), tsr_scalar_int(1));
  return out;
}

}  // namespace tessera::rt
