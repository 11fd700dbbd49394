// SPDX-License-Identifier: Apache-2.0
// Reverse-mode differentiation in the runtime (issue 33): the record of how
// each tensor was computed, and the engine that runs it backwards. The C
// API over it is tessera/autograd.h (api_autograd.cpp).
//
// Note [Autograd]
//   A tensor that requires grad carries an AutogradMeta: a leaf (made by
//   the user, requires_grad set) accumulates its gradient in `.grad`; a
//   result of an op on such tensors points at the Node that made it
//   (grad_fn). A Node holds what its backward formula needs (saved
//   tensors, shapes, scalars) and one Edge per input: the node the input's
//   gradient goes to next (a leaf's AccumulateGrad, or the input's own
//   grad_fn), or none when that input needs no gradient. Formulas are
//   ordinary runtime functions (binary, reduce, matmul, ...) on the
//   tensors' own devices, so every device gets gradients from the ops it
//   already has. They live in one table, derivatives.cpp; the engine, not
//   each formula, sums a gradient over the dims its input was broadcast
//   along and casts it to the input's dtype and device.
//   run_backward() counts each node's incoming edges from the roots, then
//   runs the nodes whose gradients are complete, latest-created first
//   (PyTorch's order), summing the gradients that meet at a node. Before a
//   node runs, the hooks of the tensor it made replace its gradient
//   (register_hook, retain_grad). While it runs, grad mode is create_graph
//   on its thread: off, the formulas record nothing; on, they record their
//   own graph, so a gradient can be differentiated again.
//   A leaf holds its one AccumulateGrad, which holds the leaf's .grad cell
//   and its hooks (not the leaf: no cycle), so recording an op on a leaf
//   allocates the op's node alone (the node keeps up to two edges inline).
//   Grad mode is per thread (no_grad); the record is only made when it is
//   on and an input requires grad, so the op's cost without autograd is a
//   null test per input.
//
// Note [Saved tensors and versions]
//   A formula's saved input is the input itself; a saved output is a view
//   of the output's storage without a record (a node never keeps itself
//   alive through its output), given back with grad_fn = the node when a
//   graph is being created. Each remembers its storage's version: every
//   in-place write (the C API's _ and _out forms, copy_, fill_, set_item,
//   scatter_) adds one, and a formula that reads a saved tensor written
//   since fails with PyTorch's message. Without retain_graph, backward
//   frees each node's saved tensors after it runs; a second backward that
//   needs one fails with PyTorch's "backward through the graph a second
//   time".
//
// Note [In-place ops]
//   Under grad mode an in-place write into a leaf that requires grad (or a
//   view of one) fails, as in PyTorch. One into a recorded tensor, or one
//   whose other operands require grad, rewrites the target's history: the
//   op is recorded as if out of place, on a copy of the target's old values
//   that carries the old history, and the target's grad_fn becomes that
//   node. When the target is a recorded view of a base, the base's history
//   is rewritten instead (CopySlices: the written region's gradient goes to
//   the op, the rest to the base's old history), and each view of the base
//   regenerates its grad_fn from the base's new one the next time it is
//   used, because the storage's version changed since its record was made.
//   Views made without a record (under no_grad, of a tensor that did not
//   require grad) do not know their base: writing into them rewrites the
//   view alone. out= forms do not record: one whose inputs require grad
//   fails with PyTorch's message.
//
// Note [Nodes of several outputs]
//   A factorisation (qr, svd, eigh, slogdet) makes several results in one
//   call, and its backward formula needs their gradients together (svd's
//   mixes gU, gS and gVh). As in PyTorch, its results share one node: each
//   records which output of it it is (AutogradMeta::output_nr), an edge to
//   it names that output (Edge::input_nr), and the engine collects one
//   gradient per output before the node runs (apply_outputs), leaving
//   empty those no gradient reached. A hook of such a result sees its own
//   output's gradient only. Every other node has one output, and its
//   apply() gets that output's gradient.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <iterator>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "tensor.hpp"

namespace tessera::rt::autograd {

struct Node;

// Where a gradient goes: output `input_nr` of `node` (the gradient of the
// node's output input_nr is an input of its backward; 0 but for the nodes
// of several outputs).
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

// N values inline, more on the heap: a node's edges and input metas (most
// ops have one or two inputs), so that recording one allocates the node
// alone (bench autograd_record).
template <class T, size_t N>
class InlineVec {
 public:
  size_t size() const noexcept { return size_; }
  T& operator[](size_t i) noexcept { return size_ <= N ? inline_[i] : heap_[i]; }
  const T& operator[](size_t i) const noexcept { return size_ <= N ? inline_[i] : heap_[i]; }
  T* begin() noexcept { return &(*this)[0]; }
  T* end() noexcept { return begin() + size_; }
  const T* begin() const noexcept { return &(*this)[0]; }
  const T* end() const noexcept { return begin() + size_; }
  void push_back(T v) {
    if (size_ < N) {
      inline_[size_++] = std::move(v);
      return;
    }
    if (size_ == N) heap_.assign(std::make_move_iterator(inline_.begin()), std::make_move_iterator(inline_.end()));
    heap_.push_back(std::move(v));
    ++size_;
  }

 private:
  std::array<T, N> inline_{};
  std::vector<T> heap_;
  size_t size_ = 0;
};

// A tensor hook: the gradient about to be used, and what to use instead
// (empty: keep it).
using HookFn = std::function<TensorRef(const TensorRef& grad)>;
struct Hook {
  int64_t id = 0;
  HookFn fn;
  uint32_t output_nr = 0;  // which output of the node the hooked tensor is
};
// Hooks, allocated on a node's first registration (published atomically,
// so that a hook may be registered on a node while another thread runs
// backward through it); the list itself is locked.
struct HookList {
  std::mutex mutex;
  std::vector<Hook> hooks;
};

// A saved tensor (Note [Saved tensors and versions]).
class SavedTensor {
 public:
  // is_output: t is output `output_nr` of the node that saves it.
  void save(const tsr_tensor& t, bool is_output, uint32_t output_nr = 0);
  // The tensor for the formula of `owner`; fails when it was freed or
  // written since it was saved.
  TensorRef unpack(Node& owner) const;
  void release() noexcept;
  explicit operator bool() const noexcept { return saved_; }

 private:
  TensorRef data_;
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool saved_ = false;
  bool released_ = false;
};

struct Node : std::enable_shared_from_this<Node> {
  // PyTorch's name of the node ("MulBackward0").
  virtual const char* name() const = 0;
  // The gradients of the node's inputs (one per input; an empty TensorRef
  // where there is none) from the gradient of its output.
  virtual std::vector<TensorRef> apply(const TensorRef& grad_output) = 0;
  // A node of several outputs (Note [Nodes of several outputs]) says how
  // many and takes one gradient per output, an empty TensorRef for an
  // output no gradient reached (at least one is set).
  virtual uint32_t num_outputs() const { return 1; }
  // Whether apply() follows PyTorch's convention for complex gradients
  // (Note [Complex tensors and autograd]); the engine refuses to run a node
  // that does not when a complex gradient reaches it or it feeds a complex input.
  virtual bool handles_complex() const { return false; }
  virtual std::vector<TensorRef> apply_outputs(std::vector<TensorRef>& grads) { return apply(grads[0]); }
  // Saved tensors: unpacked before apply, dropped after it, freed when the
  // graph is not retained.
  virtual void unpack_saved() {}
  virtual void drop_unpacked() noexcept {}
  virtual void release_saved() noexcept {}
  // The name a user sees: name(), or that of the public function whose
  // composite made this node last (name_result: FlipBackward0 for a flip
  // built from a gather). A string literal.
  const char* alias = nullptr;
  const char* display_name() const { return alias != nullptr ? alias : name(); }
  InlineVec<Edge, 2> next;         // one per input
  InlineVec<InputMeta, 2> inputs;  // one per input
  uint64_t sequence = 0;           // creation order: later nodes run first
  // The hooks of the tensors this node made (a leaf's: on its
  // AccumulateGrad); null until the first, then owned by the node.
  std::atomic<HookList*> hooks{nullptr};
  HookList& hook_list();  // made on first use
  virtual ~Node();
};

// .grad of a leaf or of a retained non-leaf, shared with retain_grad's hook.
struct GradCell {
  std::mutex mutex;
  TensorRef grad;
};

struct AutogradMeta {
  bool requires_grad = false;       // a leaf's flag (results: grad_fn set)
  bool retains_grad = false;
  std::shared_ptr<Node> grad_fn;    // the node that made this tensor; null for a leaf
  uint32_t output_nr = 0;           // which output of grad_fn this tensor is
  std::shared_ptr<GradCell> cell;   // .grad, made on first use
  std::shared_ptr<Node> accumulator;  // a leaf's AccumulateGrad (holding its hooks), made on first use
  uint32_t view_version = 0;        // a view's: the storage's version when grad_fn was made (tsr_tensor::base)
  std::mutex mutex;                 // guards cell, accumulator, hook registration, grad_fn of a view
};

// Grad mode of the calling thread (on by default).
bool grad_enabled() noexcept;
void set_grad_enabled(bool enabled) noexcept;
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
inline bool is_leaf(const tsr_tensor& t) noexcept { return t.autograd == nullptr || t.autograd->grad_fn == nullptr; }
// Sets a leaf's flag; floating and complex dtypes only, leaves only (PyTorch's messages).
void set_requires_grad(tsr_tensor& t, bool value);
// .grad; empty when there is none. set_grad checks shape, dtype and device.
TensorRef grad(const tsr_tensor& t);
void set_grad(tsr_tensor& t, TensorRef g);
void retain_grad(tsr_tensor& t);
// The node that made t (regenerated for a view whose base changed); null
// for a leaf or a tensor without a record.
std::shared_ptr<Node> grad_fn(tsr_tensor& t);
// Tensor hooks; the id is > 0. remove_hook fails on an unknown id.
int64_t register_hook(tsr_tensor& t, HookFn fn);
void remove_hook(tsr_tensor& t, int64_t id);
// detach_: t loses its record (not a recorded view).
void detach_inplace(tsr_tensor& t);
inline uint32_t version(const tsr_tensor& t) noexcept { return t.storage->version.load(std::memory_order_relaxed); }

// torch.autograd.backward (accumulate: into .grad of the leaves, or of
// `inputs` when given) and torch.autograd.grad (the gradients of
// `inputs`, nothing accumulated). grad_outputs entries may be empty for
// one-element outputs. retain_graph < 0: as create_graph.
struct RunOptions {
  int retain_graph = -1;
  bool create_graph = false;
  bool allow_unused = false;
};
void backward(const std::vector<TensorRef>& outputs, const std::vector<TensorRef>& grad_outputs,
              const std::vector<TensorRef>& inputs, const RunOptions& options);
std::vector<TensorRef> grad(const std::vector<TensorRef>& outputs, const std::vector<TensorRef>& grad_outputs,
                            const std::vector<TensorRef>& inputs, const RunOptions& options);

// Whether an op on these inputs records (grad mode on, some input requires
// grad). Without autograd: one null test per input, no thread-local read.
inline bool should_record(std::span<const tsr_tensor* const> inputs) noexcept {
  bool any = false;
  for (const tsr_tensor* t : inputs) any = any || (t != nullptr && t->autograd != nullptr);
  if (!any) [[likely]]
    return false;
  for (const tsr_tensor* t : inputs)
    if (t != nullptr && requires_grad(*t)) return grad_enabled();
  return false;
}
inline bool should_record(std::initializer_list<const tsr_tensor*> inputs) noexcept {
  return should_record(std::span<const tsr_tensor* const>(inputs.begin(), inputs.size()));
}
// Links `node` to the inputs (their edges and metas) and gives it its
// sequence number; record() also makes it the grad_fn of `output`. A null
// input (a scalar operand) gets no edge.
void link(Node& node, std::initializer_list<const tsr_tensor*> inputs);
void link(Node& node, std::span<const tsr_tensor* const> inputs);
void record(std::shared_ptr<Node> node, std::initializer_list<const tsr_tensor*> inputs, tsr_tensor& output);
// t's history becomes output `output_nr` of `node`.
void set_history(tsr_tensor& t, std::shared_ptr<Node> node, uint32_t output_nr = 0);
// A composite's result is named as PyTorch names its node (Node::alias):
// out's grad_fn, when one of this call's (none of the inputs' own).
void name_result(const tsr_tensor& out, const char* name, std::initializer_list<const tsr_tensor*> inputs);
// A view of t over the same storage without any record.
TensorRef detached(const tsr_tensor& t);
// t's AutogradMeta, made when it has none.
AutogradMeta& meta_of(tsr_tensor& t);

// An in-place write into `target` by the C API (Note [In-place ops]).
// Construct before the write (it checks the leaf rule and, when the write
// records, keeps the target's old values with their history); call
// finish() after it, with a function that records the op onto a record
// over the target's storage.
class InplaceWrite {
 public:
  // keep_old: the op's formula reads the target's old values (not for a
  // write that replaces them all: copy_, fill_, set_item).
  InplaceWrite(tsr_tensor& target, std::initializer_list<const tsr_tensor*> others, bool keep_old = true);
  bool records() const noexcept { return records_; }
  // The target's values before the write, with its history (records() only).
  const tsr_tensor& old() const { return *old_; }
  void finish(const std::function<void(tsr_tensor& result)>& record_op);

 private:
  tsr_tensor& target_;
  TensorRef old_;
  bool records_ = false;
};
// An out= form: fails when grad mode is on and an input requires grad, or
// out is a leaf that requires grad; `fn` names the function ("add").
void check_out(const char* fn, const tsr_tensor& out, std::initializer_list<const tsr_tensor*> inputs);
// After any write into t: its version goes up.
inline void bump_version(const tsr_tensor& t) noexcept { t.storage->version.fetch_add(1, std::memory_order_relaxed); }

}  // namespace tessera::rt::autograd
