// SPDX-License-Identifier: Apache-2.0
// The softmax family (ABI 1.9): softmax, log_softmax and logsumexp, each
// computed from primitives with the max subtracted first (PyTorch's
// stable forms), with grad mode off, then recorded as one node with its
// fused formula (derivatives.cpp), which is shorter and more accurate than
// the derivative of the decomposition.
#include <cmath>
#include <string>
#include <vector>

#include "derivatives.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "shape.hpp"

namespace tessera::rt {

namespace {

void check_floating(const tsr_tensor& x, const char* fn) {
  if (!tsr_dtype_is_floating(x.dtype))
    fail(TSR_ERR_TYPE, std::string(fn) + "(): expected a floating point tensor (float16, bfloat16, float32 or "
                                         "float64), got " + tsr_dtype_name(x.dtype) +
                           "; cast it first (PyTorch's dtype= argument)");
}

// x's max over the dims, kept as 1s: the shift that keeps exp in range.
// logsumexp replaces its infinities (all -inf or +inf along the dims) by
// 0, softmax keeps them (a row with +inf or all -inf is NaN), as
// PyTorch's. An empty x has nothing to shift.
TensorRef shift_of(const tsr_tensor& x, int32_t num_dims, const int32_t* dims, bool finite) {
  if (x.layout.numel() == 0) return full(*x.rt, 0, nullptr, make_scalar(0.0), x.dtype, x.device);
  TensorRef m = reduce(TSR_OP_MAX, x, num_dims, dims, true);
  if (!finite) return m;
  TensorRef infinite = binary_scalar(TSR_OP_EQ, *unary(TSR_OP_ABS, *m), make_scalar(HUGE_VAL), false);
  return where(*infinite, *full(*x.rt, 0, nullptr, make_scalar(0.0), x.dtype, x.device), *m);
}

}  // namespace

TensorRef softmax(const tsr_tensor& x, int64_t dim, bool log) {
  const char* fn = log ? "log_softmax" : "softmax";
  check_floating(x, fn);
  const int32_t d = wrap_dim(dim, x.layout.ndim);
  const bool records = autograd::should_record({&x});
  const autograd::GradModeGuard off(false);
  const TensorRef X = widened(x);  // Note [Half precision inside fused functions]
  TensorRef out;
  if (x.layout.ndim == 0) {  // one element: softmax 1, log_softmax 0 (NaN stays NaN)
    TensorRef shifted = binary(TSR_OP_SUB, *X, *X);
    out = log ? shifted : unary(TSR_OP_EXP, *shifted);
  } else {
    TensorRef shifted = binary(TSR_OP_SUB, *X, *shift_of(*X, 1, &d, false));
    TensorRef e = unary(TSR_OP_EXP, *shifted);
    TensorRef sum = reduce(TSR_OP_SUM, *e, 1, &d, true);
    out = log ? binary(TSR_OP_SUB, *shifted, *unary(TSR_OP_LOG, *sum)) : binary(TSR_OP_DIV, *e, *sum);
  }
  out = narrowed(out, x.dtype);
  if (records) autograd::record_softmax(x, d, log, *out);
  return out;
}

TensorRef logsumexp(const tsr_tensor& x, int32_t num_dims, const int32_t* dims, bool keepdim) {
  check_floating(x, "logsumexp");
  bool reduced[TSR_MAX_DIMS];
  reduced_dims(x.layout.ndim, num_dims, dims, reduced);
  const bool records = autograd::should_record({&x});
  const autograd::GradModeGuard off(false);
  const TensorRef X = widened(x);  // Note [Half precision inside fused functions]
  TensorRef m = shift_of(*X, num_dims, dims, true);
  TensorRef kept = binary(TSR_OP_ADD, *unary(TSR_OP_LOG, *reduce(TSR_OP_SUM, *unary(TSR_OP_EXP, *binary(TSR_OP_SUB, *X, *m)),
                                                                 num_dims, dims, true)),
                          *m);
  kept = narrowed(kept, x.dtype);
  TensorRef out = kept;
  if (!keepdim) {
    std::vector<int64_t> shape;
    for (int32_t d = 0; d < x.layout.ndim; ++d)
      if (!reduced[d]) shape.push_back(x.layout.shape[static_cast<size_t>(d)]);
    out = make_view(*kept, view(kept->layout, static_cast<int32_t>(shape.size()), shape.data()));
  }
  if (records) autograd::record_logsumexp(x, reduced, *out);
  return out;
}

}  // namespace tessera::rt
