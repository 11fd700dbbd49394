// SPDX-License-Identifier: Apache-2.0
// The record each differentiable function leaves (Note [Autograd],
// Note [The derivative table] in derivatives.cpp). An op calls its record_*
// after computing `out`, when autograd::should_record(inputs) holds.
#pragma once

#include <span>

#include "autograd.hpp"
#include "tessera/fft.h"
#include "shape.hpp"

namespace tessera::rt::autograd {

// Whether out gets a record: floating results do; complex ones record
// NotImplementedBackward naming `what` (their formulas take conjugates: not
// written); the others have no gradient.
bool differentiable(const char* what, std::initializer_list<const tsr_tensor*> inputs, tsr_tensor& out);

void record_binary(int32_t op, const tsr_tensor& a, const tsr_tensor& b, tsr_tensor& out);
// a (op) s, or s (op) a when reversed.
void record_binary_scalar(int32_t op, const tsr_tensor& a, tsr_scalar s, bool reversed, tsr_tensor& out);
void record_unary(int32_t op, const tsr_tensor& a, tsr_tensor& out);
void record_where(const tsr_tensor& cond, const tsr_tensor& a, const tsr_tensor& b, tsr_tensor& out);
// reduced[d]: whether input dim d was reduced (out with or without them);
// dims_given: the caller named the dims (sum(dim), not sum()); correction:
// VAR's and STD's.
void record_reduce(int32_t op, const tsr_tensor& a, const bool* reduced, bool dims_given, double correction,
                   tsr_tensor& out);
void record_math(int32_t fn, const tsr_tensor& a, tsr_tensor& out);
// The fused formulas of softmax.cpp and vector_norm: dim wrapped;
// reduced[d] whether input dim d was reduced.
void record_softmax(const tsr_tensor& x, int32_t dim, bool log, tsr_tensor& out);
void record_logsumexp(const tsr_tensor& x, const bool* reduced, tsr_tensor& out);
void record_vector_norm(const tsr_tensor& x, double ord, const bool* reduced, tsr_tensor& out);
void record_cumsum(const tsr_tensor& a, int64_t dim, tsr_tensor& out);
void record_cumprod(const tsr_tensor& a, int64_t dim, tsr_tensor& out);
// index: the int64 index tensor gather read (kept for the backward); name:
// another node name (sort's values are x gathered at argsort's indices).
void record_gather(const tsr_tensor& x, int64_t dim, const TensorRef& index, tsr_tensor& out,
                   const char* name = nullptr);
// scatter_ (add: scatter_add_) of src at index along dim into self's old
// values, out the written tensor (Note [In-place ops]).
void record_scatter(const tsr_tensor& self, const tsr_tensor& src, int64_t dim, const tsr_tensor& index, bool add,
                    tsr_tensor& out);
void record_concat(std::span<const tsr_tensor* const> tensors, int64_t dim, tsr_tensor& out);
void record_matmul(const tsr_tensor& a, const tsr_tensor& b, tsr_tensor& out);
// torch.real / torch.imag of a complex tensor: out is the part's view.
void record_complex_part(const tsr_tensor& t, bool imag, tsr_tensor& out);
// tsr_fft (derivatives_fft.cpp): out = the transform `o` of x.
void record_fft(const tsr_tensor& x, const tsr_fft_options& o, tsr_tensor& out);
// out has a's values, maybe in another dtype, on another device or
// broadcast (contiguous and clone: "CloneBackward0", to:
// "ToCopyBackward0", copy_: "CopyBackwards"): the gradient goes back summed
// to a's shape, cast to a's dtype and moved to a's device.
void record_copy(const tsr_tensor& a, tsr_tensor& out, const char* name);
// out was overwritten with a constant (fill_, set_item): no gradient flows
// to what it held.
void record_fill(tsr_tensor& out);
// A result whose derivative is not written yet: its backward fails naming `what`.
void record_unsupported(const char* what, std::initializer_list<const tsr_tensor*> inputs, tsr_tensor& out);
// out is a view of a (a new record over a's storage), named as PyTorch
// names the view's node ("SliceBackward0"). dense_view: the same view op
// applied to a row-major layout of a's shape, which the gradient is
// scattered through, so that a view of an expanded tensor is
// differentiated too. kExpand: out broadcasts a (the engine sums the
// gradient back); kStrided: as_strided, whose gradient goes through the
// storage (its input must not alias itself).
enum class ViewKind { kPlain, kExpand, kStrided };
void record_view(const tsr_tensor& a, tsr_tensor& out, const Layout& dense_view, const char* name, ViewKind kind);
// Linear algebra (derivatives_linalg.cpp, Note [Linear algebra formulas]).
// solve: a and b as given, A the matrix in the dtype the solve ran in,
// vector: b was a vector right-hand side. svd, eigh: values_only when the
// caller asked for the values alone (the vectors were computed for the
// node, which keeps them).
void record_linalg_cholesky(const tsr_tensor& a, bool upper, tsr_tensor& L);
void record_linalg_inv(const tsr_tensor& a, tsr_tensor& x);
void record_linalg_solve(const tsr_tensor& a, const tsr_tensor& b, const tsr_tensor& A, bool vector, tsr_tensor& x);
void record_linalg_det(const tsr_tensor& a, tsr_tensor& det);
void record_linalg_slogdet(const tsr_tensor& a, tsr_tensor& sign, tsr_tensor& logabsdet);
void record_linalg_qr(const tsr_tensor& a, bool complete, tsr_tensor& q, tsr_tensor& r);
void record_linalg_svd(const tsr_tensor& a, bool full_matrices, tsr_tensor& u, tsr_tensor& s, tsr_tensor& vh,
                       bool values_only);
void record_linalg_eigh(const tsr_tensor& a, tsr_tensor& w, tsr_tensor& v, bool values_only);
void record_linalg_pinv(const tsr_tensor& a, tsr_tensor& p);
void record_linalg_lu_factor(const tsr_tensor& a, tsr_tensor& lu, const tsr_tensor& pivots);
// tessera/nn.h's fused formulas (derivatives_nn.cpp): gelu (approximate:
// tanh's form), silu, softplus, layer_norm over x's last k dims (weight,
// bias may be null), embedding (flat_indices: the int64 indices as [n]),
// binary_cross_entropy of reduction none (weight may be null).
void record_gelu(const tsr_tensor& x, bool approximate, tsr_tensor& out);
void record_silu(const tsr_tensor& x, tsr_tensor& out);
void record_softplus(const tsr_tensor& x, double beta, double threshold, tsr_tensor& out);
void record_layer_norm(const tsr_tensor& x, int32_t k, const tsr_tensor* weight, const tsr_tensor* bias, double eps,
                       tsr_tensor& out);
void record_embedding(const tsr_tensor& weight, const TensorRef& flat_indices, int64_t padding_idx, bool has_padding,
                      bool scale_grad_by_freq, tsr_tensor& out);
void record_binary_cross_entropy(const tsr_tensor& x, const tsr_tensor& y, const tsr_tensor* weight,
                                 tsr_tensor& out);
// A function with no derivative formula yet (linear algebra, unique; issue
// 33): constructed before the function runs, it turns recording off for
// it; each floating result passed through it records
// NotImplementedBackward when an input required grad, so that backward
// fails naming the function instead of dropping its share of a gradient.
class NoFormulaYet {
 public:
  NoFormulaYet(const char* what, const tsr_tensor& a, const tsr_tensor* b = nullptr)
      : what_(what), a_(&a), b_(b), records_(should_record({&a, b})) {}
  TensorRef operator()(TensorRef t) const {
    if (records_ && t) record_unsupported(what_, {a_, b_}, *t);
    return t;
  }

 private:
  const char* what_;
  const tsr_tensor* a_;
  const tsr_tensor* b_;
  bool records_;
  GradModeGuard off_{false};
};

// The view of src that `op` (Layout -> Layout) makes, recorded when src
// requires grad.
template <class Op>
TensorRef view_of(const tsr_tensor& src, const Op& op, const char* name, ViewKind kind = ViewKind::kPlain) {
  TensorRef v = make_based_view(src, [&] { return op(src.layout); });
  if (should_record({&src})) [[unlikely]]
    record_view(src, *v,
                kind == ViewKind::kStrided ? v->layout
                                           : op(contiguous_layout(src.layout.ndim, src.layout.shape.data())),
                name, kind);
  return v;
}
// The node of a view of `base` made again from base's current history
// (AsStridedBackward0), for a view whose base was written in place.
std::shared_ptr<Node> view_node(tsr_tensor& base, const tsr_tensor& view);
// target's history becomes `node` (the in-place op that wrote it); for a
// recorded view, its base's history is rewritten (Note [In-place ops]).
void rebase_history(tsr_tensor& target, std::shared_ptr<Node> node);

}  // namespace tessera::rt::autograd

namespace tessera::rt::autograd {

// Note [Every op has a gradient or a reason]
//   What each op of TSR_OP_LIST gives autograd, one case per op and no
//   default, so that a new op fails the build (-Wswitch) until it is given
//   its row:
//     kFormula   a node of derivatives.cpp differentiates it;
//     kNone      its result has no gradient (integer, bool or index
//                results, comparisons, constants and random draws);
//     kRefused   PyTorch 1.13 has no derivative either (floor_divide): its
//                backward fails naming it;
//     kPending   not written yet: its result records NotImplementedBackward,
//                whose backward fails naming it (never a silent zero).
//   Functions of the public API that are not ops (views, copies, concat,
//   stack, flip, roll, tril/triu, take, sort's values) record through the
//   ops and views they are built from, or through their own record_*;
//   each public function has its row in public_gradients.hpp (Note [Every
//   public function has a gradient or a reason]).
enum class Gradient : uint8_t { kFormula, kNone, kRefused, kPending };
constexpr Gradient op_gradient(tsr_op op) {
  switch (op) {
    case TSR_OP_COPY: case TSR_OP_ADD: case TSR_OP_SUB: case TSR_OP_MUL: case TSR_OP_DIV: case TSR_OP_MAXIMUM:
    case TSR_OP_MINIMUM: case TSR_OP_POW: case TSR_OP_NEG: case TSR_OP_ABS: case TSR_OP_EXP: case TSR_OP_LOG:
    case TSR_OP_SQRT: case TSR_OP_RELU: case TSR_OP_SIGMOID: case TSR_OP_TANH: case TSR_OP_WHERE: case TSR_OP_SUM:
    case TSR_OP_MEAN: case TSR_OP_MAX: case TSR_OP_MIN: case TSR_OP_MATMUL: case TSR_OP_MATH: case TSR_OP_ATAN2:
    case TSR_OP_REMAINDER: case TSR_OP_LOGADDEXP: case TSR_OP_PROD: case TSR_OP_VAR: case TSR_OP_STD:
    case TSR_OP_CUMSUM: case TSR_OP_GATHER: case TSR_OP_SORT: case TSR_OP_SCATTER: case TSR_OP_CHOLESKY: case TSR_OP_SOLVE:
    case TSR_OP_QR: case TSR_OP_SVD: case TSR_OP_EIGH: case TSR_OP_INV: case TSR_OP_LU: case TSR_OP_GELU:
    case TSR_OP_GELU_TANH: case TSR_OP_SILU: case TSR_OP_CUMPROD: case TSR_OP_CLAMP:
    // The Fourier transforms: tsr_fft records one node for its kernels (derivatives_fft.cpp).
    case TSR_OP_FFT: case TSR_OP_RFFT: case TSR_OP_IRFFT:
      return Gradient::kFormula;
    case TSR_OP_FILL: case TSR_OP_EQ: case TSR_OP_NE: case TSR_OP_LT: case TSR_OP_LE: case TSR_OP_GT: case TSR_OP_GE:
    case TSR_OP_ARGMAX: case TSR_OP_ARANGE: case TSR_OP_LINSPACE: case TSR_OP_RAND_UNIFORM: case TSR_OP_RAND_NORMAL:
    case TSR_OP_BITWISE_AND: case TSR_OP_BITWISE_OR: case TSR_OP_BITWISE_XOR: case TSR_OP_SHIFT_LEFT:
    case TSR_OP_SHIFT_RIGHT: case TSR_OP_ARGMIN: case TSR_OP_ARGSORT: case TSR_OP_NONZERO: case TSR_OP_SEARCHSORTED:
      return Gradient::kNone;
    case TSR_OP_EIG:  // its formula is not written yet
      return Gradient::kPending;
    case TSR_OP_FLOOR_DIVIDE:
      return Gradient::kRefused;
    case TSR_OP_COUNT: case TSR_OP_MAX_ENUM:
      break;
  }
  return Gradient::kPending;
}

}  // namespace tessera::rt::autograd
