// SPDX-License-Identifier: Apache-2.0
// The runtime's functions as the derivative table's formulas write them
// (derivatives.cpp, derivatives_linalg.cpp): short names over recorded
// functions only, so that a formula run under create_graph records its
// own graph (Note [The derivative table]). Views go through view_of, with
// the node names PyTorch gives them.
#pragma once

#include <array>

#include "derivatives.hpp"
#include "ops.hpp"
#include "shape.hpp"

namespace tessera::rt::autograd::formula {

inline TensorRef mul(const TensorRef& a, const TensorRef& b) { return binary(TSR_OP_MUL, *a, *b); }
inline TensorRef div(const TensorRef& a, const TensorRef& b) { return binary(TSR_OP_DIV, *a, *b); }
inline TensorRef add(const TensorRef& a, const TensorRef& b) { return binary(TSR_OP_ADD, *a, *b); }
inline TensorRef sub(const TensorRef& a, const TensorRef& b) { return binary(TSR_OP_SUB, *a, *b); }
inline TensorRef neg(const TensorRef& a) { return unary(TSR_OP_NEG, *a); }
inline TensorRef mul_scalar(const TensorRef& a, tsr_scalar s) { return binary_scalar(TSR_OP_MUL, *a, s, false); }
inline TensorRef div_scalar(const TensorRef& a, tsr_scalar s) { return binary_scalar(TSR_OP_DIV, *a, s, false); }
inline TensorRef mul_scalar(const TensorRef& a, double s) { return mul_scalar(a, make_scalar(s)); }
inline TensorRef div_scalar(const TensorRef& a, double s) { return div_scalar(a, make_scalar(s)); }
// A 0-d tensor of value v, like t's dtype and device.
inline TensorRef scalar_like(const TensorRef& t, double v) {
  return full(*t->rt, 0, nullptr, make_scalar(v), t->dtype, t->device);
}
inline TensorRef zeros_of(const tsr_tensor& like, int32_t ndim, const int64_t* shape) {
  return full(*like.rt, ndim, shape, make_scalar(0.0), like.dtype, like.device);
}
inline TensorRef zeros_like(const TensorRef& t) { return zeros_of(*t, t->layout.ndim, t->layout.shape.data()); }
inline TensorRef matmul(const TensorRef& a, const TensorRef& b) { return rt::matmul(*a, *b); }
// The complex conjugate (recorded); a real tensor as it is (Note [Complex tensors and autograd]).
inline TensorRef conj(const TensorRef& t) { return tsr_dtype_is_complex(t->dtype) ? math(TSR_MATH_CONJ, *t) : t; }
inline tsr_scalar conj(tsr_scalar s) {
  return s.kind == TSR_SCALAR_COMPLEX ? tsr_scalar_complex(s.f, -tsr_scalar_imag(s)) : s;
}
// Where cond, 0, else g (PyTorch's masked_fill: a NaN in g stays out of the masked places).
inline TensorRef zero_where(const TensorRef& cond, const TensorRef& g) { return where(*cond, *scalar_like(g, 0.0), *g); }

// ---- views (recorded) -------------------------------------------------------
// The last two dims swapped (mT; for real tensors also mH).
inline TensorRef mT(const TensorRef& t) {
  return view_of(*t, [](const Layout& l) { return transpose(l, l.ndim - 2, l.ndim - 1); }, "TransposeBackward0");
}
inline TensorRef unsqueezed(const TensorRef& t, int32_t dim) {
  return view_of(*t, [&](const Layout& l) { return unsqueeze(l, dim < 0 ? dim + l.ndim + 1 : dim); },
                 "UnsqueezeBackward0");
}
inline TensorRef squeezed(const TensorRef& t, int32_t dim) {
  return view_of(*t, [&](const Layout& l) { return squeeze_dim(l, dim < 0 ? dim + l.ndim : dim); },
                 "SqueezeBackward1");
}
// t[..., start:start + length, ...] along dim (counted from the end when < 0).
inline TensorRef narrow(const TensorRef& t, int32_t dim, int64_t start, int64_t length) {
  return view_of(*t, [&](const Layout& l) { return slice(l, dim < 0 ? dim + l.ndim : dim, start, start + length, 1); },
                 "SliceBackward0");
}
// The main diagonal of the last two dims, as the last dim.
inline TensorRef diagonal_of(const TensorRef& t) {
  return view_of(*t, [](const Layout& l) { return diagonal(l, 0, -2, -1); }, "DiagonalBackward0");
}

// ---- matrices ---------------------------------------------------------------
// The n x n identity, like t's dtype and device.
inline TensorRef eye_like(const TensorRef& t, int64_t n) { return eye(*t->rt, n, n, 0, t->dtype, t->device); }
// [.., n] -> [.., n, n] with x on the diagonal (diag_embed).
inline TensorRef diag_embed(const TensorRef& x) {
  const int64_t n = x->layout.ndim > 0 ? x->layout.shape[static_cast<size_t>(x->layout.ndim - 1)] : 1;
  return mul(unsqueezed(x, -1), eye_like(x, n));
}
inline TensorRef tril(const TensorRef& t, int64_t k = 0) { return triangle(*t, k, true); }
inline TensorRef triu(const TensorRef& t, int64_t k = 0) { return triangle(*t, k, false); }

// A node whose formula reads N saved tensors (Note [Saved tensors and
// versions]): saved[i] is unpacked into t[i] while apply runs.
template <size_t N>
struct SavedNode : Node {
  std::array<SavedTensor, N> saved;
  std::array<TensorRef, N> t;
  void unpack_saved() override {
    for (size_t i = 0; i < N; ++i)
      if (saved[i]) t[i] = saved[i].unpack(*this);
  }
  void drop_unpacked() noexcept override {
    for (TensorRef& r : t) r.reset();
  }
  void release_saved() noexcept override {
    for (SavedTensor& s : saved) s.release();
  }
};

}  // namespace tessera::rt::autograd::formula
