// SPDX-License-Identifier: Apache-2.0
// The record each differentiable function leaves (Note [Autograd],
// Note [The derivative table] in derivatives.cpp). An op calls its record_*
// after computing `out`, when autograd::should_record(inputs) holds.
#pragma once

#include "autograd.hpp"
#include "shape.hpp"

namespace tessera::rt::autograd {

void record_binary(int32_t op, const tsr_tensor& a, const tsr_tensor& b, tsr_tensor& out);
// a (op) s, or s (op) a when reversed.
void record_binary_scalar(int32_t op, const tsr_tensor& a, tsr_scalar s, bool reversed, tsr_tensor& out);
void record_unary(int32_t op, const tsr_tensor& a, tsr_tensor& out);
void record_where(const tsr_tensor& cond, const tsr_tensor& a, const tsr_tensor& b, tsr_tensor& out);
// reduced[d]: whether input dim d was reduced (out with or without them).
void record_reduce(int32_t op, const tsr_tensor& a, const bool* reduced, tsr_tensor& out);
void record_matmul(const tsr_tensor& a, const tsr_tensor& b, tsr_tensor& out);
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
// The view of src that `op` (Layout -> Layout) makes, recorded when src
// requires grad.
template <class Op>
TensorRef view_of(const tsr_tensor& src, const Op& op, const char* name, ViewKind kind = ViewKind::kPlain) {
  TensorRef v = make_view(src, op(src.layout));
  set_view_base(src, *v);
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
