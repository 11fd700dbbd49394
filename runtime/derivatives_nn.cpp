// SPDX-License-Identifier: Apache-2.0
// The derivative table's rows for tessera/nn.h's functions (Note [The
// derivative table] in derivatives.cpp): PyTorch 1.13's formulas and node
// names for gelu, silu, softplus, layer_norm, embedding and
// binary_cross_entropy. nn.cpp and losses.cpp compute each result with
// grad mode off, then call the record_* here; the other functions of
// tessera/nn.h (linear, dropout, the other losses) are recorded through
// the ops they are built from.
//
// Note [Formulas that recompute]
//   A formula is written with recorded functions, so that under
//   create_graph it records its own graph; but a tensor the forward made
//   with grad mode off (layer_norm's mean and 1/std) is a constant to
//   that graph. LayerNormBackward therefore saves x alone and computes the
//   statistics again, with recorded functions, while it runs: the second
//   derivative then sees how they depend on x. It costs two reductions
//   more in backward, against torch's fused kernel that saves them.
#include <cmath>

#include "error.hpp"
#include "formula_ops.hpp"

namespace tessera::rt::autograd {

namespace {

using namespace formula;

TensorRef add_scalar(const TensorRef& a, double s) { return binary_scalar(TSR_OP_ADD, *a, make_scalar(s), false); }
// s - a
TensorRef rsub_scalar(const TensorRef& a, double s) { return binary_scalar(TSR_OP_SUB, *a, make_scalar(s), true); }
TensorRef sigmoid(const TensorRef& a) { return unary(TSR_OP_SIGMOID, *a); }

// gelu (approximate: tanh's form), torch's gelu_backward.
struct GeluBackward final : SavedNode<1> {
  bool approximate = false;
  const char* name() const override { return "GeluBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& grad) override {
    const TensorRef x = widened(*t[0]), g = widened(*grad);  // Note [Half precision inside fused functions]
    if (!approximate) {  // Phi(x) + x phi(x)
      const TensorRef cdf = mul_scalar(add_scalar(math(TSR_MATH_ERF, *mul_scalar(x, M_SQRT1_2)), 1.0), 0.5);
      const TensorRef pdf = mul_scalar(unary(TSR_OP_EXP, *mul_scalar(mul(x, x), -0.5)), 0.5 * M_2_SQRTPI * M_SQRT1_2);
      return {mul(g, add(cdf, mul(x, pdf)))};
    }
    constexpr double kBeta = M_SQRT2 * M_2_SQRTPI * 0.5, kKappa = 0.044715;
    const TensorRef x_sq = mul(x, x);
    const TensorRef inner = mul_scalar(add(x, mul_scalar(mul(x_sq, x), kKappa)), kBeta);
    const TensorRef tanh_inner = unary(TSR_OP_TANH, *inner);
    const TensorRef left_derivative = mul_scalar(add_scalar(tanh_inner, 1.0), 0.5);
    const TensorRef right_derivative =
        mul(mul(mul_scalar(x, 0.5), rsub_scalar(mul(tanh_inner, tanh_inner), 1.0)),
            mul_scalar(add_scalar(mul_scalar(x_sq, 3 * kKappa), 1.0), kBeta));
    return {mul(g, add(left_derivative, right_derivative))};
  }
};

// silu: s (1 + x (1 - s)), s = sigmoid(x).
struct SiluBackward final : SavedNode<1> {
  const char* name() const override { return "SiluBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& grad) override {
    const TensorRef x = widened(*t[0]), g = widened(*grad);
    const TensorRef s = sigmoid(x);
    return {mul(g, mul(s, add_scalar(mul(x, rsub_scalar(s, 1.0)), 1.0)))};
  }
};

// softplus: sigmoid(beta x), and 1 where beta x > threshold.
struct SoftplusBackward final : SavedNode<1> {
  double beta = 1, threshold = 20;
  const char* name() const override { return "SoftplusBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& grad) override {
    const TensorRef g = widened(*grad), bx = mul_scalar(widened(*t[0]), beta);
    const TensorRef linear = binary_scalar(TSR_OP_GT, *bx, make_scalar(threshold), false);
    return {where(*linear, *g, *mul(g, sigmoid(bx)))};
  }
};

// layer_norm over the last k dims (Note [Formulas that recompute]):
// with xhat = (x - mean) rstd and gx = g w, dx = rstd (gx - mean(gx) -
// xhat mean(gx xhat)); dw = g xhat and db = g (the engine sums both to
// the normalized shape).
struct LayerNormBackward final : SavedNode<2> {  // t[0] x, t[1] weight (or none)
  int32_t k = 1;
  double eps = 1e-5;
  const char* name() const override { return "NativeLayerNormBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& grad) override {
    const TensorRef x = widened(*t[0]), g = widened(*grad);  // Note [Half precision inside fused functions]
    int32_t dims[TSR_MAX_DIMS];
    for (int32_t i = 0; i < k; ++i) dims[i] = x->layout.ndim - k + i;
    auto mean = [&](const TensorRef& v) { return reduce(TSR_OP_MEAN, *v, k, dims, true); };
    const TensorRef xc = sub(x, mean(x));
    const TensorRef rstd = binary_scalar(TSR_OP_DIV, *unary(TSR_OP_SQRT, *add_scalar(mean(mul(xc, xc)), eps)),
                                         make_scalar(1.0), true);
    const TensorRef xhat = mul(xc, rstd);
    TensorRef dx, dw, db;
    if (next[0].node) {
      const TensorRef gx = t[1] ? mul(g, widened(*t[1])) : g;
      dx = mul(rstd, sub(sub(gx, mean(gx)), mul(xhat, mean(mul(gx, xhat)))));
    }
    if (next[1].node) dw = mul(g, xhat);
    if (next[2].node) db = g;
    return {dx, dw, db};
  }
};

// embedding: the rows' gradients added into a zero [num, dim] at their
// indices; none for padding_idx's row; divided by each index's count with
// scale_grad_by_freq.
struct EmbeddingBackward final : SavedNode<1> {  // t[0]: the indices, flattened [n]
  int64_t num_weights = 0, padding_idx = -1;
  bool has_padding = false, scale_grad_by_freq = false;
  const char* name() const override { return "EmbeddingBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const TensorRef& idx = t[0];
    const int64_t n = idx->layout.shape[0];
    const int64_t dim = g->layout.shape[static_cast<size_t>(g->layout.ndim - 1)];
    const int64_t rows[2] = {n, dim};
    TensorRef G = view_of(*contiguous(g), [&](const Layout& l) { return view(l, 2, rows); }, "ViewBackward0");
    const TensorRef column = unsqueezed(idx, 1);  // [n, 1]
    if (has_padding)
      G = zero_where(binary_scalar(TSR_OP_EQ, *column, make_scalar_int(padding_idx), false), G);
    if (scale_grad_by_freq) {
      const int64_t num[1] = {num_weights};
      const TensorRef counts = full(*g->rt, 1, num, make_scalar(0.0), g->dtype, g->device);
      scatter_(*counts, 0, *idx, *full(*g->rt, 1, &n, make_scalar(1.0), g->dtype, g->device), true);
      G = div(G, unsqueezed(take(*counts, *idx, 0), 1));
    }
    const int64_t shape[2] = {num_weights, dim};
    TensorRef grad = full(*g->rt, 2, shape, make_scalar(0.0), g->dtype, g->device);
    const TensorRef index = make_view(*column, expand(column->layout, 2, rows));
    scatter_(*grad, 0, *index, *G, true);
    return {grad};
  }
};

// binary_cross_entropy (reduction none; the caller reduces): torch's
// binary_cross_entropy_backward, g (x - y) / max((1 - x) x, 1e-12) w, and
// for the target g (log(1 - x) - log(x)) w, each log clamped at -100.
struct BinaryCrossEntropyBackward final : SavedNode<3> {  // x, y, weight (or none)
  const char* name() const override { return "BinaryCrossEntropyBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const TensorRef &x = t[0], &y = t[1], &w = t[2];
    const TensorRef gw = w ? mul(g, w) : g;
    TensorRef dx, dy;
    if (next[0].node) {
      const TensorRef denominator =
          binary_scalar(TSR_OP_MAXIMUM, *mul(rsub_scalar(x, 1.0), x), make_scalar(1e-12), false);
      dx = div(mul(gw, sub(x, y)), denominator);
    }
    if (next[1].node) {
      auto clamped_log = [](const TensorRef& v) {
        return binary_scalar(TSR_OP_MAXIMUM, *unary(TSR_OP_LOG, *v), make_scalar(-100.0), false);
      };
      dy = mul(gw, sub(clamped_log(rsub_scalar(x, 1.0)), clamped_log(x)));
    }
    return {dx, dy, TensorRef{}};
  }
};

}  // namespace

void record_gelu(const tsr_tensor& x, bool approximate, tsr_tensor& out) {
  if (!differentiable("gelu", {&x}, out)) return;
  auto n = std::make_shared<GeluBackward>();
  n->approximate = approximate;
  n->saved[0].save(x, false);
  record(std::move(n), {&x}, out);
}

void record_silu(const tsr_tensor& x, tsr_tensor& out) {
  if (!differentiable("silu", {&x}, out)) return;
  auto n = std::make_shared<SiluBackward>();
  n->saved[0].save(x, false);
  record(std::move(n), {&x}, out);
}

void record_softplus(const tsr_tensor& x, double beta, double threshold, tsr_tensor& out) {
  if (!differentiable("softplus", {&x}, out)) return;
  auto n = std::make_shared<SoftplusBackward>();
  n->beta = beta;
  n->threshold = threshold;
  n->saved[0].save(x, false);
  record(std::move(n), {&x}, out);
}

void record_layer_norm(const tsr_tensor& x, int32_t k, const tsr_tensor* weight, const tsr_tensor* bias, double eps,
                       tsr_tensor& out) {
  if (!differentiable("native_layer_norm", {&x, weight, bias}, out)) return;
  auto n = std::make_shared<LayerNormBackward>();
  n->k = k;
  n->eps = eps;
  n->saved[0].save(x, false);
  if (weight != nullptr) n->saved[1].save(*weight, false);
  record(std::move(n), {&x, weight, bias}, out);
}

void record_embedding(const tsr_tensor& weight, const TensorRef& flat_indices, int64_t padding_idx, bool has_padding,
                      bool scale_grad_by_freq, tsr_tensor& out) {
  if (!differentiable("embedding", {&weight}, out)) return;
  auto n = std::make_shared<EmbeddingBackward>();
  n->num_weights = weight.layout.shape[0];
  n->padding_idx = padding_idx;
  n->has_padding = has_padding;
  n->scale_grad_by_freq = scale_grad_by_freq;
  n->saved[0].save(*flat_indices, false);
  record(std::move(n), {&weight}, out);
}

void record_binary_cross_entropy(const tsr_tensor& x, const tsr_tensor& y, const tsr_tensor* weight,
                                 tsr_tensor& out) {
  if (!differentiable("binary_cross_entropy", {&x, &y, weight}, out)) return;
  auto n = std::make_shared<BinaryCrossEntropyBackward>();
  n->saved[0].save(x, false);
  n->saved[1].save(y, false);
  if (weight != nullptr) n->saved[2].save(*weight, false);
  // weight has no formula in torch either ("the derivative for 'weight' is
  // not implemented"): it is not an input of the node.
  record(std::move(n), {&x, &y, nullptr}, out);
}

}  // namespace tessera::rt::autograd
