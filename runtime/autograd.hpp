// SPDX-License-Identifier: Apache-2.0
// Reverse-mode differentiation in the runtime (issue 33): the record of how
// each tensor was computed, and the engine that runs it backwards.
//
// Note [Autograd]
//   A tensor that requires grad carries an AutogradMeta: a leaf (made by
//   the user, requires_grad set) accumulates its gradient in `grad`; a
//   result of an op on such tensors points at the Node that made it
//   (grad_fn, and which of its outputs it is). A Node holds what its
//   backward formula needs (saved tensors, shapes, scalars) and one Edge
//   per input: the node the input's gradient goes to next (a leaf's
//   AccumulateGrad, or the input's own grad_fn), or none when that input
//   needs no gradient. Formulas are ordinary runtime functions (binary,
//   reduce, matmul, ...) on the tensors' own devices, so every device gets
//   gradients from the ops it already has. They live in one table,
//   derivatives.cpp; the engine, not each formula, sums a gradient over the
//   dims its input was broadcast along and casts it to the input's dtype.
//   backward() counts each node's incoming edges from the root, then runs
//   the nodes whose gradients are complete, latest-created first (PyTorch's
//   order), summing the gradients that meet at a node. While it runs, grad
//   mode is off on its thread: the formulas record nothing.
//   Saved outputs are detached views (the same storage, no grad_fn), so a
//   node never keeps itself alive through its own output.
//   Grad mode is per thread (no_grad); the record is only made when it is
//   on and an input requires grad, so the op's cost without autograd is one
//   thread-local load and a null test per input.
//   Recorded so far: ADD SUB MUL DIV POW MAXIMUM MINIMUM (tensor and scalar
//   operands), NEG EXP LOG TANH SQRT ABS RELU SIGMOID, SUM and MEAN over any
//   dims, MATMUL (ndim >= 2), the copies (contiguous, clone, to) and every
//   view of the C API (one formula, ViewBackward; expand's gradient summed
//   by the engine). Other ops record nothing yet, and in-place and out=
//   forms do not record: nothing outside the runtime can set requires_grad
//   until the C ABI and Python of issue 33 come, with the rest (higher
//   order, version counters, hooks).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <vector>

#include "tensor.hpp"

namespace tessera::rt::autograd {

struct Node;

// Where a gradient goes: input `input_nr` of `node`.
struct Edge {
  std::shared_ptr<Node> node;
  uint32_t input_nr = 0;
};

// What a gradient must be to flow into an input: its shape, dtype, device.
struct InputMeta {
  int32_t ndim = 0;
  std::array<int64_t, TSR_MAX_DIMS> shape{};
  int32_t dtype = TSR_FLOAT32;
  tsr_device device{};
};

struct Node {
  virtual ~Node() = default;
  // PyTorch's name of the node ("MulBackward0").
  virtual const char* name() const = 0;
  // The gradients of the node's inputs (one per input; an empty TensorRef
  // where there is none) from the gradient of its output.
  virtual std::vector<TensorRef> apply(const TensorRef& grad_output) = 0;
  std::vector<Edge> next;          // one per input
  std::vector<InputMeta> inputs;   // one per input
  uint64_t sequence = 0;           // creation order: later nodes run first
};

struct AutogradMeta {
  bool requires_grad = false;       // a leaf's flag (results: grad_fn set)
  TensorRef grad;                   // a leaf's accumulated gradient
  std::shared_ptr<Node> grad_fn;    // the node that made this tensor; null for a leaf
  std::weak_ptr<Node> accumulator;  // a leaf's AccumulateGrad, while some graph holds it
  std::mutex mutex;                 // guards grad and accumulator
};

// Grad mode of the calling thread (on by default).
bool grad_enabled() noexcept;
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled);
  ~GradModeGuard();
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool previous_;
};

// A leaf with the flag set, or a result with a grad_fn.
inline bool requires_grad(const tsr_tensor& t) noexcept {
  return t.autograd != nullptr && (t.autograd->requires_grad || t.autograd->grad_fn != nullptr);
}
// Sets a leaf's flag; floating and complex dtypes only, leaves only (PyTorch's messages).
void set_requires_grad(tsr_tensor& t, bool value);
// A leaf's gradient; empty when none was accumulated.
TensorRef grad(const tsr_tensor& t);
// The node that made t; null for a leaf or a tensor without a record.
const Node* grad_fn(const tsr_tensor& t) noexcept;
// Runs the graph from `root` backwards; `gradient` may be null for a
// one-element root (ones, as PyTorch's implicit gradient).
void backward(const tsr_tensor& root, const tsr_tensor* gradient);

// Whether an op on these inputs records (grad mode on, some input requires
// grad). Without autograd: one null test per input, no thread-local read.
inline bool should_record(std::initializer_list<const tsr_tensor*> inputs) noexcept {
  bool any = false;
  for (const tsr_tensor* t : inputs) any = any || (t != nullptr && t->autograd != nullptr);
  if (!any) [[likely]]
    return false;
  for (const tsr_tensor* t : inputs)
    if (t != nullptr && requires_grad(*t)) return grad_enabled();
  return false;
}
// Links `node` to the inputs (their edges and metas) and makes it the
// grad_fn of `output`. A null input (a scalar operand) gets no edge.
void record(std::shared_ptr<Node> node, std::initializer_list<const tsr_tensor*> inputs, tsr_tensor& output);
// A view of t over the same storage without any record, for saving.
TensorRef detached(const tsr_tensor& t);

}  // namespace tessera::rt::autograd
