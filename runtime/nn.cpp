// SPDX-License-Identifier: Apache-2.0
// tessera/nn.h's layers and activations (ABI 1.10), above the plugin line:
// each is computed from ops every device has. gelu, silu, softplus,
// layer_norm and embedding run with grad mode off and record one node
// with a fused formula (derivatives_nn.cpp); linear and dropout are
// recorded through the matmul, add and mul they are made of, whose
// formulas are already the fused ones.
#include <cmath>
#include <string>
#include <vector>

#include "derivatives.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "shape.hpp"

namespace tessera::rt {

namespace {

void check_floating(const tsr_tensor& x, const char* fn, const char* what = "input") {
  if (!tsr_dtype_is_floating(x.dtype))
    fail(TSR_ERR_TYPE, std::string(fn) + "(): expected a floating point " + what +
                           " (float16, bfloat16, float32 or float64), got " + tsr_dtype_name(x.dtype));
}

// A weight or bias beside x: x's dtype and device, as torch.nn.functional
// (no promotion).
void check_beside(const tsr_tensor& x, const tsr_tensor* t, const char* fn, const char* what) {
  if (t == nullptr) return;
  check_same_device(x, *t);
  if (t->dtype != x.dtype)
    fail(TSR_ERR_TYPE, std::string(fn) + "(): expected " + what + " of dtype " + tsr_dtype_name(x.dtype) +
                           " like the input, got " + tsr_dtype_name(t->dtype));
}

std::string shape_text(const Layout& l) { return "[" + format_list(l.shape.data(), l.ndim) + "]"; }

TensorRef scalar_mul(const TensorRef& a, double s) { return binary_scalar(TSR_OP_MUL, *a, make_scalar(s), false); }
TensorRef scalar_add(const TensorRef& a, double s) { return binary_scalar(TSR_OP_ADD, *a, make_scalar(s), false); }
TensorRef times(const TensorRef& a, const TensorRef& b) { return binary(TSR_OP_MUL, *a, *b); }

// An integer index tensor as int64 (torch takes int32 and int64 indices).
TensorRef int64_indices(const tsr_tensor& indices, const char* fn) {
  if (!tsr_dtype_is_integral(indices.dtype))
    fail(TSR_ERR_TYPE, std::string(fn) + "(): expected indices of an integer dtype (int64 or int32), got " +
                           tsr_dtype_name(indices.dtype));
  TensorRef idx = TensorRef::share(const_cast<tsr_tensor*>(&indices));
  return indices.dtype == TSR_INT64 ? idx : to(idx, TSR_INT64, indices.device);
}

}  // namespace

// ---- linear -----------------------------------------------------------------------

TensorRef linear(const tsr_tensor& x, const tsr_tensor& weight, const tsr_tensor* bias) {
  check_floating(x, "linear");
  check_beside(x, &weight, "linear", "weight");
  check_beside(x, bias, "linear", "bias");
  if (weight.layout.ndim != 2)
    fail(TSR_ERR_SHAPE, "linear(): weight must be 2-D [out_features, in_features], got shape " +
                            shape_text(weight.layout));
  if (x.layout.ndim == 0) fail(TSR_ERR_SHAPE, "linear(): the input must have at least 1 dim, got a 0-d tensor");
  const int64_t in = x.layout.shape[static_cast<size_t>(x.layout.ndim - 1)];
  if (in != weight.layout.shape[1])
    fail(TSR_ERR_SHAPE, "linear(): the input's last dim (" + std::to_string(in) +
                            ") must equal weight's in_features (" + std::to_string(weight.layout.shape[1]) +
                            "): input " + shape_text(x.layout) + ", weight " + shape_text(weight.layout));
  TensorRef wt = autograd::view_of(weight, [](const Layout& l) { return transpose(l, 0, 1); }, "TBackward0");
  // PyTorch 1.13's aten::linear adds the bias inside the product (addmm) for
  // a 2-D input and for a contiguous 3-D one seen as 2-D; elsewhere it adds
  // it after matmul. The results are named as its are (AddmmBackward0, then
  // ViewBackward0; UnsafeViewBackward0 for matmul's view back; AddBackward0).
  const bool fused = bias != nullptr && (x.layout.ndim == 2 || (x.layout.ndim == 3 && is_contiguous(x.layout)));
  auto add_bias = [&](const TensorRef& product) {
    TensorRef sum = binary(TSR_OP_ADD, *product, *bias);
    autograd::name_result(*sum, "AddmmBackward0", {product.get(), bias});
    return sum;
  };
  TensorRef out;
  const int64_t rows[2] = {in == 0 ? 0 : x.layout.numel() / in, in};
  if (x.layout.ndim > 2 && view_strides(x.layout, 2, rows)) {
    // [.., in] as [n, in]: one matrix product, whose weight gradient is one
    // product too (not a batch of them summed afterwards).
    TensorRef flat = autograd::view_of(x, [&](const Layout& l) { return view(l, 2, rows); }, "ViewBackward0");
    TensorRef product = matmul(*flat, *wt);
    if (fused) product = add_bias(product);
    Dims shape = x.layout.shape;
    shape[static_cast<size_t>(x.layout.ndim - 1)] = weight.layout.shape[0];
    out = autograd::view_of(*product, [&](const Layout& l) { return view(l, x.layout.ndim, shape.data()); },
                            fused ? "ViewBackward0" : "UnsafeViewBackward0");
    if (fused) return out;
  } else {
    out = matmul(x, *wt);
    if (fused) return add_bias(out);
  }
  return bias != nullptr ? binary(TSR_OP_ADD, *out, *bias) : out;
}

// ---- activations ----------------------------------------------------------------------

// gelu and silu are the composite ops GELU, GELU_TANH and SILU (ABI 1.10):
// a plugin's fused kernel runs where it registered one, the runtime's
// composition of primitives elsewhere (Note [Composites]); unary() records
// GeluBackward0 / SiluBackward0.
TensorRef gelu(const tsr_tensor& x, bool approximate) {
  check_floating(x, "gelu");
  return unary(approximate ? TSR_OP_GELU_TANH : TSR_OP_GELU, x);
}

TensorRef silu(const tsr_tensor& x) {
  check_floating(x, "silu");
  return unary(TSR_OP_SILU, x);
}

TensorRef softplus(const tsr_tensor& x, double beta, double threshold) {
  check_floating(x, "softplus");
  if (beta == 0 || !std::isfinite(beta))
    fail(TSR_ERR_INVALID_ARGUMENT, "softplus(): beta must be a finite non-zero number, got " + std::to_string(beta));
  const bool records = autograd::should_record({&x});
  const autograd::GradModeGuard off(false);
  const TensorRef X = widened(x);  // Note [Half precision inside fused functions]
  const TensorRef bx = scalar_mul(X, beta);
  const TensorRef smooth =
      binary_scalar(TSR_OP_DIV, *math(TSR_MATH_LOG1P, *unary(TSR_OP_EXP, *bx)), make_scalar(beta), false);
  TensorRef out =
      narrowed(where(*binary_scalar(TSR_OP_GT, *bx, make_scalar(threshold), false), *X, *smooth), x.dtype);
  if (records) autograd::record_softplus(x, beta, threshold, *out);
  return out;
}

// ---- dropout ----------------------------------------------------------------------------

TensorRef dropout(const TensorRef& x, double p, bool training) {
  check_floating(*x, "dropout");
  if (!(p >= 0 && p <= 1))
    fail(TSR_ERR_INVALID_ARGUMENT, "dropout probability has to be between 0 and 1, but got " + std::to_string(p));
  if (!training || p == 0 || x->layout.numel() == 0) return x;  // torch returns its input
  // torch's CPU form: x * (bernoulli(1 - p) / (1 - p)), recorded as that
  // product (MulBackward0, as torch on the CPU); the mask is a constant.
  TensorRef scaled;
  {
    const autograd::GradModeGuard off(false);
    const TensorRef u = random(*x->rt, TSR_OP_RAND_UNIFORM, x->layout.ndim, x->layout.shape.data(), TSR_FLOAT32,
                               x->device);
    const TensorRef keep = binary_scalar(TSR_OP_LT, *u, make_scalar(1.0 - p), false);
    scaled = to(keep, x->dtype, x->device);
    if (p < 1) binary_scalar_inplace(TSR_OP_DIV, *scaled, make_scalar(1.0 - p));
  }
  return times(x, scaled);
}

// ---- layer_norm --------------------------------------------------------------------------

TensorRef layer_norm(const tsr_tensor& x, int32_t k, const tsr_tensor* weight, const tsr_tensor* bias, double eps) {
  check_floating(x, "layer_norm");
  if (k < 1 || k > x.layout.ndim)
    fail(TSR_ERR_SHAPE, "layer_norm(): normalized_shape must name 1 to " + std::to_string(x.layout.ndim) +
                            " last dims of the input " + shape_text(x.layout) + ", got " + std::to_string(k));
  const int64_t* normalized = x.layout.shape.data() + (x.layout.ndim - k);
  for (const auto& [t, what] : {std::pair{weight, "weight"}, std::pair{bias, "bias"}}) {
    if (t == nullptr) continue;
    check_beside(x, t, "layer_norm", what);
    if (!same_shape(t->layout, k, normalized))
      fail(TSR_ERR_SHAPE, std::string("layer_norm(): expected ") + what + " to be of same shape as normalized_shape, but got " +
                              what + " of shape " + shape_text(t->layout) + " and normalized_shape = [" +
                              format_list(normalized, k) + "]");
  }
  const bool records = autograd::should_record({&x, weight, bias});
  const autograd::GradModeGuard off(false);
  int32_t dims[TSR_MAX_DIMS];
  for (int32_t i = 0; i < k; ++i) dims[i] = x.layout.ndim - k + i;
  const TensorRef X = widened(x);  // Note [Half precision inside fused functions]
  const TensorRef xc = binary(TSR_OP_SUB, *X, *reduce(TSR_OP_MEAN, *X, k, dims, true));
  const TensorRef var = reduce(TSR_OP_MEAN, *times(xc, xc), k, dims, true);
  const TensorRef rstd =
      binary_scalar(TSR_OP_DIV, *unary(TSR_OP_SQRT, *scalar_add(var, eps)), make_scalar(1.0), true);
  TensorRef out = times(xc, rstd);
  if (weight != nullptr) out = binary(TSR_OP_MUL, *out, *widened(*weight));
  if (bias != nullptr) out = binary(TSR_OP_ADD, *out, *widened(*bias));
  out = narrowed(out, x.dtype);
  if (records) autograd::record_layer_norm(x, k, weight, bias, eps, *out);
  return out;
}

// ---- embedding -----------------------------------------------------------------------------

namespace {

// Throws naming the first index outside [0, num) (one number read back).
void check_rows(const TensorRef& flat, int64_t num, const char* fn) {
  if (flat->layout.numel() == 0) return;
  const TensorRef low = binary_scalar(TSR_OP_LT, *flat, make_scalar_int(0), false);
  const TensorRef high = binary_scalar(TSR_OP_GE, *flat, make_scalar_int(num), false);
  const TensorRef bad = binary(TSR_OP_BITWISE_OR, *low, *high);
  if (read_item(*reduce(TSR_OP_MAX, *bad, 0, nullptr, false)).i == 0) return;
  // argmax gives the first maximum: the first index out of range.
  const TensorRef at = reduce(TSR_OP_ARGMAX, *to(bad, TSR_INT64, bad->device), 0, nullptr, false);
  const int64_t first = read_item(*take(*flat, *at, 0)).i;
  fail(TSR_ERR_INDEX, std::string(fn) + "(): index " + std::to_string(first) + " is out of range for " +
                          std::to_string(num) + " rows (indices must lie in [0, " + std::to_string(num) + "))");
}

TensorRef flat_indices(const tsr_tensor& weight, const tsr_tensor& indices, const char* fn) {
  check_floating(weight, fn, "weight");
  check_same_device(weight, indices);
  if (weight.layout.ndim != 2)
    fail(TSR_ERR_SHAPE, std::string(fn) + "(): weight must be 2-D [num_embeddings, embedding_dim], got shape " +
                            shape_text(weight.layout));
  TensorRef idx = int64_indices(indices, fn);
  const int64_t n = idx->layout.numel();
  idx = contiguous(idx);
  TensorRef flat = make_view(*idx, view(idx->layout, 1, &n));
  check_rows(flat, weight.layout.shape[0], fn);
  return flat;
}

}  // namespace

TensorRef embedding(const tsr_tensor& weight, const tsr_tensor& indices, int64_t padding_idx,
                    bool scale_grad_by_freq) {
  const int64_t num = weight.layout.ndim == 2 ? weight.layout.shape[0] : 0;
  const bool has_padding = padding_idx != TSR_NO_PADDING_IDX;
  if (has_padding) {
    if (padding_idx >= num || padding_idx < -num)
      fail(TSR_ERR_INDEX, "embedding(): padding_idx " + std::to_string(padding_idx) +
                              " must be within num_embeddings (" + std::to_string(num) + ")");
    if (padding_idx < 0) padding_idx += num;
  }
  const bool records = autograd::should_record({&weight});
  const autograd::GradModeGuard off(false);
  const TensorRef flat = flat_indices(weight, indices, "embedding");
  const TensorRef rows = take(weight, *flat, 0);
  Dims shape{};
  for (int32_t d = 0; d < indices.layout.ndim; ++d) shape[static_cast<size_t>(d)] = indices.layout.shape[static_cast<size_t>(d)];
  shape[static_cast<size_t>(indices.layout.ndim)] = weight.layout.shape[1];
  TensorRef out = make_view(*rows, view(rows->layout, indices.layout.ndim + 1, shape.data()));
  if (records) autograd::record_embedding(weight, flat, padding_idx, has_padding, scale_grad_by_freq, *out);
  return out;
}

void embedding_renorm_(const tsr_tensor& weight, const tsr_tensor& indices, double max_norm, double norm_type) {
  const autograd::GradModeGuard off(false);
  const TensorRef flat = flat_indices(weight, indices, "embedding_renorm_");
  if (flat->layout.numel() == 0) return;
  TensorRef rows_named;
  unique(*flat, &rows_named, nullptr, nullptr, nullptr);
  const TensorRef rows = take(weight, *rows_named, 0);
  const int32_t last = 1;
  const TensorRef norms = linalg_vector_norm(*rows, norm_type, 1, &last, true);
  const TensorRef scale =
      binary_scalar(TSR_OP_DIV, *scalar_add(norms, 1e-7), make_scalar(max_norm), true);  // max_norm / (norm + 1e-7)
  const TensorRef one = full(*weight.rt, 0, nullptr, make_scalar(1.0), weight.dtype, weight.device);
  const TensorRef factor =
      where(*binary_scalar(TSR_OP_GT, *norms, make_scalar(max_norm), false), *scale, *one);
  const TensorRef column = make_view(*rows_named, unsqueeze(rows_named->layout, 1));
  const TensorRef index = make_view(*column, expand(column->layout, 2, rows->layout.shape.data()));
  scatter_(weight, 0, *index, *times(rows, factor), false);
}

}  // namespace tessera::rt
