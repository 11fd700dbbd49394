// SPDX-License-Identifier: Apache-2.0
// The engine of Note [Autograd] (autograd.hpp).
#include "autograd.hpp"

#include <algorithm>
#include <atomic>
#include <queue>
#include <string>
#include <unordered_map>

#include "error.hpp"
#include "ops.hpp"
#include "shape.hpp"

namespace tessera::rt::autograd {

namespace {

thread_local bool t_grad_enabled = true;
std::atomic<uint64_t> g_next_sequence{0};  // creation order of nodes, process-wide

AutogradMeta& meta_of(tsr_tensor& t) {
  if (t.autograd == nullptr) t.autograd = new AutogradMeta;
  return *t.autograd;
}

// A leaf's sink: adds the gradient into the leaf's .grad.
struct AccumulateGrad final : Node {
  TensorRef leaf;
  explicit AccumulateGrad(TensorRef t) : leaf(std::move(t)) {}
  const char* name() const override { return "AccumulateGrad"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    AutogradMeta& m = *leaf->autograd;
    std::lock_guard<std::mutex> lock(m.mutex);
    // A fresh tensor, never the caller's: a later in-place step must not
    // change .grad behind the user's back.
    m.grad = m.grad ? binary(TSR_OP_ADD, *m.grad, *g) : clone(*g);
    return {};
  }
};

// The edge a gradient of t flows along: its grad_fn, or its leaf's accumulator.
Edge edge_of(const tsr_tensor& t) {
  AutogradMeta& m = *t.autograd;
  if (m.grad_fn) return Edge{m.grad_fn, 0};
  std::lock_guard<std::mutex> lock(m.mutex);
  std::shared_ptr<Node> acc = m.accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(TensorRef::share(const_cast<tsr_tensor*>(&t)));
    acc->inputs.push_back(InputMeta{});
    InputMeta& im = acc->inputs.back();
    im.ndim = t.layout.ndim;
    std::copy(t.layout.shape.begin(), t.layout.shape.begin() + t.layout.ndim, im.shape.begin());
    im.dtype = t.dtype;
    im.device = t.device;
    acc->sequence = g_next_sequence.fetch_add(1);
    m.accumulator = acc;
  }
  return Edge{acc, 0};
}

// g summed over the dims its input was broadcast along, then cast to the
// input's dtype (the engine's part of every formula, Note [Autograd]).
TensorRef to_input(TensorRef g, const InputMeta& in) {
  const Layout& l = g->layout;
  const bool same_shape =
      l.ndim == in.ndim && std::equal(in.shape.begin(), in.shape.begin() + in.ndim, l.shape.begin());
  if (!same_shape) {
    // Leading dims the input lacks, and dims of size 1 it had.
    int32_t dims[TSR_MAX_DIMS];
    int32_t n = 0;
    const int32_t lead = l.ndim - in.ndim;
    if (lead < 0) fail(TSR_ERR_INTERNAL, "autograd: a gradient has fewer dims than its input");
    for (int32_t d = 0; d < l.ndim; ++d)
      if (d < lead || (in.shape[static_cast<size_t>(d - lead)] == 1 && l.shape[static_cast<size_t>(d)] != 1))
        dims[n++] = d;
    if (n > 0) g = reduce(TSR_OP_SUM, *g, n, dims, true, 0);
    g = make_view(*g, view(g->layout, in.ndim, in.shape.data()));
  }
  if (g->dtype != in.dtype || g->device.type != in.device.type || g->device.index != in.device.index)
    g = to(g, in.dtype, in.device);  // a gradient flows back to its input's device
  return g;
}

}  // namespace

bool grad_enabled() noexcept { return t_grad_enabled; }

void destroy(AutogradMeta* m) { delete m; }

GradModeGuard::GradModeGuard(bool enabled) : previous_(t_grad_enabled) { t_grad_enabled = enabled; }
GradModeGuard::~GradModeGuard() { t_grad_enabled = previous_; }

void set_requires_grad(tsr_tensor& t, bool value) {
  if (t.autograd != nullptr && t.autograd->grad_fn != nullptr)
    fail(TSR_ERR_INVALID_ARGUMENT,
         "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
         "subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  if (value && !tsr_dtype_is_floating(t.dtype) && !tsr_dtype_is_complex(t.dtype))
    fail(TSR_ERR_TYPE, "only Tensors of floating point and complex dtype can require gradients");
  if (!value && t.autograd == nullptr) return;
  meta_of(t).requires_grad = value;
}

TensorRef grad(const tsr_tensor& t) {
  if (t.autograd == nullptr) return {};
  std::lock_guard<std::mutex> lock(t.autograd->mutex);
  return t.autograd->grad;
}

const Node* grad_fn(const tsr_tensor& t) noexcept { return t.autograd ? t.autograd->grad_fn.get() : nullptr; }

TensorRef detached(const tsr_tensor& t) { return make_view(t, t.layout); }

void record(std::shared_ptr<Node> node, std::initializer_list<const tsr_tensor*> inputs, tsr_tensor& output) {
  for (const tsr_tensor* t : inputs) {
    InputMeta im;
    if (t != nullptr) {
      im.ndim = t->layout.ndim;
      std::copy(t->layout.shape.begin(), t->layout.shape.begin() + t->layout.ndim, im.shape.begin());
      im.dtype = t->dtype;
      im.device = t->device;
    }
    node->inputs.push_back(im);
    node->next.push_back(t != nullptr && requires_grad(*t) ? edge_of(*t) : Edge{});
  }
  node->sequence = g_next_sequence.fetch_add(1);
  meta_of(output).grad_fn = std::move(node);
}

void backward(const tsr_tensor& root, const tsr_tensor* gradient) {
  if (!requires_grad(root))
    fail(TSR_ERR_INVALID_ARGUMENT, "element 0 of tensors does not require grad and does not have a grad_fn");
  TensorRef g;
  if (gradient != nullptr) {
    if (gradient->layout.ndim != root.layout.ndim ||
        !std::equal(root.layout.shape.begin(), root.layout.shape.begin() + root.layout.ndim,
                    gradient->layout.shape.begin()))
      fail(TSR_ERR_SHAPE, "Mismatch in shape: grad_output[0] has a shape of " +
                              format_list(gradient->layout.shape.data(), gradient->layout.ndim) +
                              " and output[0] has a shape of " +
                              format_list(root.layout.shape.data(), root.layout.ndim) + ".");
    g = TensorRef::share(const_cast<tsr_tensor*>(gradient));
  } else {
    if (root.layout.numel() != 1) fail(TSR_ERR_INVALID_ARGUMENT, "grad can be implicitly created only for scalar outputs");
    g = full(*root.rt, root.layout.ndim, root.layout.shape.data(), make_scalar(1.0), root.dtype, root.device);
  }
  const Edge start = edge_of(root);
  GradModeGuard no_grad(false);

  // Incoming edges per node, from the root.
  std::unordered_map<Node*, int> pending;
  std::vector<Node*> stack{start.node.get()};
  pending[start.node.get()] = 0;
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next) {
      if (!e.node) continue;
      auto [it, fresh] = pending.emplace(e.node.get(), 0);
      ++it->second;
      if (fresh) stack.push_back(e.node.get());
    }
  }

  // Gradients waiting at each node, summed as they meet; ready nodes run
  // latest first. Nodes stay alive through their producers' edges and `start`.
  std::unordered_map<Node*, TensorRef> buffer;
  auto later = [](Node* a, Node* b) { return a->sequence < b->sequence; };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later)> ready(later);
  buffer[start.node.get()] = std::move(g);
  ready.push(start.node.get());
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    // A node none of whose consumers gave it a gradient still releases its
    // inputs' counts, so that a gradient they get by another path runs.
    std::vector<TensorRef> grads;
    if (auto it = buffer.find(n); it != buffer.end()) {
      TensorRef grad_out = std::move(it->second);
      buffer.erase(it);
      grads = n->apply(grad_out);
    }
    for (size_t i = 0; i < n->next.size(); ++i) {
      const Edge& e = n->next[i];
      if (!e.node) continue;
      if (i < grads.size() && grads[i]) {
        TensorRef gi = to_input(std::move(grads[i]), n->inputs[i]);
        auto [slot, fresh] = buffer.try_emplace(e.node.get());
        slot->second = fresh ? std::move(gi) : binary(TSR_OP_ADD, *slot->second, *gi);
      }
      if (--pending[e.node.get()] == 0) ready.push(e.node.get());
    }
  }
}

}  // namespace tessera::rt::autograd
