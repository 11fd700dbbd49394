#include <string>

#include "error.hpp"
#include "ops.hpp"
#include "promotion.hpp"
#include "shape.hpp"

namespace tessera::rt {

// PyTorch's matmul: a 1-D first operand is a row (1, K), a 1-D second
// operand a column (K, 1), and the added dim is removed from the result;
// batch dims broadcast.
TensorRef matmul(const tsr_tensor& a, const tsr_tensor& b) {
  check_same_device(a, b);
  if (a.layout.ndim == 0 || b.layout.ndim == 0)
    fail(TSR_ERR_SHAPE, "both arguments to matmul need to be at least 1D, but they are " +
                            std::to_string(a.layout.ndim) + "D and " + std::to_string(b.layout.ndim) + "D");
  if (a.dtype != b.dtype)
    fail(TSR_ERR_TYPE, std::string("expected scalar type ") + torch_dtype_name(a.dtype) + " but found " +
                           torch_dtype_name(b.dtype));
  Layout la = a.layout, lb = b.layout;
  bool row = la.ndim == 1, col = lb.ndim == 1;
  if (row) la = unsqueeze(la, 0);
  if (col) lb = unsqueeze(lb, 1);
  int64_t m = la.shape[static_cast<size_t>(la.ndim - 2)], k = la.shape[static_cast<size_t>(la.ndim - 1)];
  int64_t k2 = lb.shape[static_cast<size_t>(lb.ndim - 2)], n = lb.shape[static_cast<size_t>(lb.ndim - 1)];
  if (k != k2) {
    if (row && col)
      fail(TSR_ERR_SHAPE, "inconsistent tensor size, expected tensor [" + std::to_string(k) + "] and src [" +
                              std::to_string(k2) + "] to have the same number of elements, but got " +
                              std::to_string(k) + " and " + std::to_string(k2) + " elements respectively");
    fail(TSR_ERR_SHAPE, "mat1 and mat2 shapes cannot be multiplied (" + std::to_string(m) + "x" + std::to_string(k) +
                            " and " + std::to_string(k2) + "x" + std::to_string(n) + ")");
  }
  int64_t batch[TSR_MAX_DIMS];
  int32_t nb = broadcast_shapes(la.ndim - 2, la.shape.data(), lb.ndim - 2, lb.shape.data(), batch);
  if (nb + 2 > TSR_MAX_DIMS) fail(TSR_ERR_INVALID_ARGUMENT, "matmul result has too many dims");
  int64_t sa[TSR_MAX_DIMS], sb[TSR_MAX_DIMS], so[TSR_MAX_DIMS];
  for (int32_t i = 0; i < nb; ++i) sa[i] = sb[i] = so[i] = batch[i];
  sa[nb] = m, sa[nb + 1] = k;
  sb[nb] = k, sb[nb + 1] = n;
  so[nb] = m, so[nb + 1] = n;
  TensorRef out = empty(*a.rt, nb + 2, so, a.dtype, a.device);
  if (out->layout.numel() > 0) {
    tsr_tensor_desc da, db, dout;
    fill_desc(a, broadcast_to(la, nb + 2, sa), da);
    fill_desc(b, broadcast_to(lb, nb + 2, sb), db);
    fill_desc(*out, dout);
    int64_t params[1] = {0};
    launch(*a.rt, a.device, TSR_OP_MATMUL, a.dtype, {&da, &db}, dout, {.params = params});
  }
  if (!row && !col) return out;
  // Drop the dims that the 1-D operands added.
  int64_t shape[TSR_MAX_DIMS];
  int32_t ndim = 0;
  for (int32_t i = 0; i < nb; ++i) shape[ndim++] = batch[i];
  if (!row) shape[ndim++] = m;
  if (!col) shape[ndim++] = n;
  return make_view(*out, view(out->layout, ndim, shape));
}

}  // namespace tessera::rt
