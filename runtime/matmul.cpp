// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <string>

#include "derivatives.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "promotion.hpp"
#include "shape.hpp"

namespace tessera::rt {

namespace {

// What matmul computes: both operands read as (batch..., m, k) and
// (batch..., k, n) with the batch dims broadcast, the (batch..., m, n)
// result, and whether 1-D operands added a dim that the result drops.
struct MatmulPlan {
  Layout a, b;           // the operands as the kernel reads them
  int32_t ndim = 0;      // of the kernel's output: batch dims + 2
  int64_t shape[TSR_MAX_DIMS];  // the kernel's output shape
  bool row = false, col = false;  // a was 1-D (a row), b was 1-D (a column)
  int32_t result_ndim = 0;      // the result: without the dims the 1-D operands added
  int64_t result_shape[TSR_MAX_DIMS];
};

// PyTorch's matmul: a 1-D first operand is a row (1, K), a 1-D second
// operand a column (K, 1), and the added dim is removed from the result;
// batch dims broadcast.
MatmulPlan plan_matmul(const tsr_tensor& a, const tsr_tensor& b) {
  check_same_device(a, b);
  if (a.layout.ndim == 0 || b.layout.ndim == 0)
    fail(TSR_ERR_SHAPE, "both arguments to matmul need to be at least 1D, but they are " +
                            std::to_string(a.layout.ndim) + "D and " + std::to_string(b.layout.ndim) + "D");
  if (a.dtype != b.dtype)
    fail(TSR_ERR_TYPE, std::string("expected scalar type ") + tsr_dtype_name(a.dtype) + " but found " +
                           tsr_dtype_name(b.dtype));
  MatmulPlan p;
  Layout la = a.layout, lb = b.layout;
  p.row = la.ndim == 1, p.col = lb.ndim == 1;
  if (p.row) la = unsqueeze(la, 0);
  if (p.col) lb = unsqueeze(lb, 1);
  int64_t m = la.shape[static_cast<size_t>(la.ndim - 2)], k = la.shape[static_cast<size_t>(la.ndim - 1)];
  int64_t k2 = lb.shape[static_cast<size_t>(lb.ndim - 2)], n = lb.shape[static_cast<size_t>(lb.ndim - 1)];
  if (k != k2) {
    if (p.row && p.col)
      fail(TSR_ERR_SHAPE, "inconsistent tensor size, expected tensor [" + std::to_string(k) + "] and src [" +
                              std::to_string(k2) + "] to have the same number of elements, but got " +
                              std::to_string(k) + " and " + std::to_string(k2) + " elements respectively");
    fail(TSR_ERR_SHAPE, "mat1 and mat2 shapes cannot be multiplied (" + std::to_string(m) + "x" + std::to_string(k) +
                            " and " + std::to_string(k2) + "x" + std::to_string(n) + ")");
  }
  int64_t batch[TSR_MAX_DIMS];
  const int32_t nb = broadcast_shapes(la.ndim - 2, la.shape.data(), lb.ndim - 2, lb.shape.data(), batch);
  if (nb + 2 > TSR_MAX_DIMS) fail(TSR_ERR_INVALID_ARGUMENT, "matmul result has too many dims");
  int64_t sa[TSR_MAX_DIMS], sb[TSR_MAX_DIMS];
  for (int32_t i = 0; i < nb; ++i) sa[i] = sb[i] = p.shape[i] = p.result_shape[i] = batch[i];
  sa[nb] = m, sa[nb + 1] = k;
  sb[nb] = k, sb[nb + 1] = n;
  p.shape[nb] = m, p.shape[nb + 1] = n;
  p.ndim = nb + 2;
  p.a = broadcast_to(la, p.ndim, sa);
  p.b = broadcast_to(lb, p.ndim, sb);
  p.result_ndim = nb;
  if (!p.row) p.result_shape[p.result_ndim++] = m;
  if (!p.col) p.result_shape[p.result_ndim++] = n;
  return p;
}

// out (in the plan's kernel shape) = a @ b.
void launch_matmul(const tsr_tensor& a, const tsr_tensor& b, const MatmulPlan& p, const tsr_tensor& out,
                   const Layout& out_layout) {
  tsr_tensor_desc da, db, dout;
  fill_desc(a, p.a, da);
  fill_desc(b, p.b, db);
  fill_desc(out, out_layout, dout);
  // params[0]: the float32 matmul precision (tsr_set_float32_matmul_precision); 0 for other dtypes.
  int64_t params[1] = {a.dtype == TSR_FLOAT32 ? a.rt->float32_matmul_precision.load() : TSR_MATMUL_PRECISION_HIGHEST};
  launch(*a.rt, a.device, TSR_OP_MATMUL, a.dtype, {&da, &db}, dout, {.params = params});
}

}  // namespace

TensorRef matmul(const tsr_tensor& a, const tsr_tensor& b) {
  const MatmulPlan p = plan_matmul(a, b);
  TensorRef out = empty(*a.rt, p.ndim, p.shape, a.dtype, a.device);
  if (out->layout.numel() > 0) launch_matmul(a, b, p, *out, out->layout);
  if (p.row || p.col) out = make_view(*out, view(out->layout, p.result_ndim, p.result_shape));  // drop the added dims
  if (autograd::should_record({&a, &b})) autograd::record_matmul(a, b, *out);
  return out;
}

// Into an existing tensor of exactly the result's shape and dtype (PyTorch
// would resize a wrongly shaped out; out= here never does). Every input that
// shares memory with out is read from a copy: a matmul reads whole rows and
// columns of its inputs while it writes out (Note [Outputs that share memory
// with inputs], runtime/elementwise.cpp).
void matmul_out(const tsr_tensor& a, const tsr_tensor& b, const tsr_tensor& out) {
  check_same_device(a, out);
  TensorRef keep_a, keep_b;
  const tsr_tensor& ac = may_share_memory(a, out) ? *(keep_a = clone(a)) : a;
  const tsr_tensor& bc = may_share_memory(b, out) ? *(keep_b = clone(b)) : b;
  const MatmulPlan p = plan_matmul(ac, bc);
  if (out.dtype != a.dtype)
    fail(TSR_ERR_TYPE, std::string("Expected out tensor to have dtype ") + tsr_dtype_name(a.dtype) + ", but got " +
                           tsr_dtype_name(out.dtype) + " instead");
  if (out.layout.ndim != p.result_ndim ||
      !std::equal(p.result_shape, p.result_shape + p.result_ndim, out.layout.shape.data()))
    fail(TSR_ERR_SHAPE, "matmul: out has shape " + format_list(out.layout.shape.data(), out.layout.ndim) +
                            " but the result's shape is " + format_list(p.result_shape, p.result_ndim) +
                            " (out= never resizes)");
  check_no_internal_overlap(out);
  if (out.layout.numel() == 0) return;
  // out as the kernel's (batch..., m, n): put back the dims the 1-D operands removed.
  Layout out_layout = out.layout;
  if (p.row) out_layout = unsqueeze(out_layout, p.ndim - 2);
  if (p.col) out_layout = unsqueeze(out_layout, p.ndim - 1);
  launch_matmul(ac, bc, p, out, out_layout);
}

}  // namespace tessera::rt
