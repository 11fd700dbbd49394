// SPDX-License-Identifier: Apache-2.0
// The record each differentiable function leaves (Note [Autograd],
// Note [The derivative table] in derivatives.cpp). An op calls its record_*
// after computing `out`, when autograd::should_record(inputs) holds.
#pragma once

#include "autograd.hpp"

namespace tessera::rt::autograd {

void record_binary(int32_t op, const tsr_tensor& a, const tsr_tensor& b, tsr_tensor& out);
// a (op) s, or s (op) a when reversed.
void record_binary_scalar(int32_t op, const tsr_tensor& a, tsr_scalar s, bool reversed, tsr_tensor& out);
void record_unary(int32_t op, const tsr_tensor& a, tsr_tensor& out);
// reduced[d]: whether input dim d was reduced (out with or without them).
void record_reduce(int32_t op, const tsr_tensor& a, const bool* reduced, tsr_tensor& out);
void record_matmul(const tsr_tensor& a, const tsr_tensor& b, tsr_tensor& out);
// out is a new tensor with a's values (contiguous, clone, to): the gradient
// goes back cast to a's dtype and moved to a's device.
void record_copy(const tsr_tensor& a, tsr_tensor& out);
// out is a view of a (a new record over a's storage). kExpand: out
// broadcasts a (the engine sums the gradient back); kStrided: as_strided,
// whose view may alias itself.
enum class ViewKind { kPlain, kExpand, kStrided };
void record_view(const tsr_tensor& a, tsr_tensor& out, ViewKind kind);

}  // namespace tessera::rt::autograd
