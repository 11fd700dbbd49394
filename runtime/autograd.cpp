// SPDX-License-Identifier: Apache-2.0
// The engine of Note [Autograd] (autograd.hpp).
#include "autograd.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <queue>
#include <string>
#include <unordered_map>

#include "derivatives.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "shape.hpp"

namespace tessera::rt::autograd {

namespace {

thread_local bool t_grad_enabled = true;
std::atomic<uint64_t> g_next_sequence{0};  // creation order of nodes, process-wide
std::atomic<int64_t> g_next_hook{1};       // hook handles, process-wide
constexpr uint64_t kLeafSequence = uint64_t{1} << 63;  // accumulators' sequences start here

InputMeta input_meta(const tsr_tensor& t) {
  InputMeta im;
  im.ndim = t.layout.ndim;
  std::copy(t.layout.shape.begin(), t.layout.shape.begin() + t.layout.ndim, im.shape.begin());
  im.dtype = t.dtype;
  im.device = t.device;
  return im;
}

// PyTorch's type string of a tensor, for its messages: "torch.FloatTensor",
// "torch.cuda.DoubleTensor"; a plugin's device type by its name.
std::string torch_type_name(const tsr_tensor& t) {
  const char* scalar = "Float";
  switch (t.dtype) {
    case TSR_FLOAT64: scalar = "Double"; break;
    case TSR_FLOAT16: scalar = "Half"; break;
    case TSR_BFLOAT16: scalar = "BFloat16"; break;
    case TSR_COMPLEX64: scalar = "ComplexFloat"; break;
    case TSR_COMPLEX128: scalar = "ComplexDouble"; break;
    default: break;
  }
  std::string device;
  if (t.device.type == TSR_DEVICE_CUDA) {
    device = "cuda.";
  } else if (t.device.type != TSR_DEVICE_CPU) {
    device = t.rt->registry.device_name(t.device);
    device = device.substr(0, device.find(':')) + ".";
  }
  return "torch." + device + scalar + "Tensor";
}

std::shared_ptr<GradCell> cell_of(AutogradMeta& m) {  // m.mutex held
  if (!m.cell) m.cell = std::make_shared<GradCell>();
  return m.cell;
}

// g added into a .grad cell: in place when no graph is being made (so that
// an optimizer holding .grad sees it, as PyTorch's AccumulateGrad does),
// else out of place, recorded.
void accumulate_into(GradCell& cell, const TensorRef& g) {
  std::lock_guard<std::mutex> lock(cell.mutex);
  if (!cell.grad) {
    // A gradient nobody else holds is kept as it is; another is copied, so
    // that a later in-place step cannot change .grad behind the user's back.
    // A view (base set) shares its base's storage without a reference of
    // its own (Note [A view's storage is its base's]): never sole.
    const bool sole = g->refs.load() == 1 && g->base == nullptr && g->storage->refs.load() == 1 &&
                      is_contiguous(g->layout);
    cell.grad = grad_enabled() || sole ? g : clone(*g);
  } else if (grad_enabled()) {
    cell.grad = binary(TSR_OP_ADD, *cell.grad, *g);
  } else {
    binary_inplace(TSR_OP_ADD, *cell.grad, *g);
    bump_version(*cell.grad);
  }
}

// A retained non-leaf's .grad, as PyTorch's retain_grad hook keeps it: a
// contiguous copy of the first gradient, then out-of-place sums. Unlike a
// leaf's in-place accumulation, a later backward without create_graph
// leaves a .grad that does not require grad, and the first one made under
// create_graph is recorded as CloneBackward0.
void retain_into(GradCell& cell, const TensorRef& g) {
  std::lock_guard<std::mutex> lock(cell.mutex);
  if (cell.grad)
    cell.grad = binary(TSR_OP_ADD, *cell.grad, *g);
  else
    cell.grad = is_contiguous(g->layout) ? clone(*g) : contiguous(g);
}

// A leaf's sink: adds the gradient into the leaf's .grad cell. It holds
// the cell, not the leaf, so the leaf can hold it for its whole life (one
// per leaf, made once: recording an op on a leaf makes no node for it) and
// the leaf's hooks live on it as a result's live on its grad_fn.
struct AccumulateGrad final : Node {
  std::shared_ptr<GradCell> cell;
  explicit AccumulateGrad(std::shared_ptr<GradCell> c) : cell(std::move(c)) {}
  const char* name() const override { return "AccumulateGrad"; }
  bool handles_complex() const override { return true; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    accumulate_into(*cell, g);
    return {};
  }
};

// Note [Complex tensors and autograd]: a node whose formula is written for
// real tensors only fails rather than give a complex input a wrong gradient.
void refuse_complex(const Node& n, const std::vector<TensorRef>& grads) {
  bool complex = false;
  for (const TensorRef& g : grads) complex = complex || (g && tsr_dtype_is_complex(g->dtype));
  for (size_t i = 0; i < n.inputs.size(); ++i)
    complex = complex || (n.next[i].node && tsr_dtype_is_complex(n.inputs[i].dtype));
  if (complex)
    fail(TSR_ERR_UNSUPPORTED, std::string("the derivative of ") + n.display_name() +
                                  " is not implemented for complex tensors (tessera/autograd.h lists the functions "
                                  "whose gradients take complex tensors)");
}

// The hooks of output `output_nr` of n, in order, on its gradient.
TensorRef run_hooks(Node& n, uint32_t output_nr, TensorRef g) {
  HookList* list = n.hooks.load(std::memory_order_acquire);
  if (list == nullptr) return g;
  std::vector<Hook> hooks;
  {
    std::lock_guard<std::mutex> lock(list->mutex);
    hooks = list->hooks;
  }
  for (const Hook& h : hooks) {
    if (h.output_nr != output_nr) continue;
    TensorRef r = h.fn(g);
    if (!r) continue;
    if (!same_shape(r->layout, g->layout))
      fail(TSR_ERR_SHAPE, "hook " + std::to_string(h.id) + " returned a gradient of shape " +
                              format_list(r->layout.shape.data(), r->layout.ndim) + " where " +
                              format_list(g->layout.shape.data(), g->layout.ndim) + " was expected");
    g = std::move(r);
  }
  return g;
}

// g summed over the dims its input was broadcast along, then cast to the
// input's dtype and moved to its device (the engine's part of every
// formula, Note [Autograd]). Recorded when a graph is being created.
TensorRef to_input(TensorRef g, const InputMeta& in) {
  const Layout& l = g->layout;
  if (!same_shape(g->layout, in.ndim, in.shape.data())) {
    // Leading dims the input lacks, and dims of size 1 it had.
    int32_t dims[TSR_MAX_DIMS];
    int32_t n = 0;
    const int32_t lead = l.ndim - in.ndim;
    if (lead < 0) fail(TSR_ERR_INTERNAL, "autograd: a gradient has fewer dims than its input");
    for (int32_t d = 0; d < l.ndim; ++d)
      if (d < lead || (in.shape[static_cast<size_t>(d - lead)] == 1 && l.shape[static_cast<size_t>(d)] != 1))
        dims[n++] = d;
    if (n > 0) g = reduce(TSR_OP_SUM, *g, n, dims, true, 0);
    g = view_of(*g, [&](const Layout& v) { return view(v, in.ndim, in.shape.data()); }, "ViewBackward0");
  }
  if (g->dtype != in.dtype || !same_device(g->device, in.device))
    g = to(g, in.dtype, in.device);  // a gradient flows back to its input's device
  return g;
}

// The edge a gradient of t flows along: its grad_fn, or its leaf's accumulator.
Edge edge_of(tsr_tensor& t) {
  if (std::shared_ptr<Node> fn = grad_fn(t)) return Edge{std::move(fn), t.autograd->output_nr};
  AutogradMeta& m = *t.autograd;
  std::lock_guard<std::mutex> lock(m.mutex);
  if (!m.accumulator) {
    m.accumulator = std::make_shared<AccumulateGrad>(cell_of(m));
    m.accumulator->inputs.push_back(input_meta(t));
    // Above every node's (PyTorch gives AccumulateGrad the largest
    // sequence_nr): a leaf's gradient is accumulated, and its hooks run, as
    // soon as it is ready, not after the rest of backward (which a leaf
    // made before this graph's nodes would otherwise wait for). Hooks that
    // overlap work with backward (DistributedDataParallel's all_reduces)
    // need that. Among leaves, creation order still decides.
    m.accumulator->sequence = kLeafSequence + g_next_sequence.fetch_add(1);
  }
  return Edge{m.accumulator, 0};
}

// What an output of a node is for the run: where its captured gradient
// goes (grad), or a non-leaf whose .grad accumulates it (backward with
// inputs).
struct Target {
  uint32_t output_nr = 0;
  size_t capture = SIZE_MAX;             // an index into the results of grad()
  std::shared_ptr<GradCell> accumulate;  // a non-leaf input of backward(inputs=)
};
using Targets = std::unordered_map<Node*, std::vector<Target>>;

// The one engine of backward() and grad(). targets empty: every node runs
// and every leaf accumulates; else only nodes that lead to a target run,
// and AccumulateGrad runs only when it is one and `accumulate_leaves`.
void run(const std::vector<Edge>& roots, std::vector<TensorRef> root_grads, bool keep_graph, bool create_graph,
         Targets& targets, bool accumulate_leaves, std::vector<TensorRef>* captured) {
  GradModeGuard mode(create_graph);
  const bool pruned = !targets.empty();

  // Which nodes run: all of them, or those a target is reached through.
  std::unordered_map<Node*, bool> needed;
  {
    std::vector<std::pair<Node*, size_t>> stack;  // node, next edge to visit
    for (const Edge& r : roots)
      if (needed.emplace(r.node.get(), false).second) stack.push_back({r.node.get(), 0});
    while (!stack.empty()) {
      auto& [n, i] = stack.back();
      if (i < n->next.size()) {
        Node* child = n->next[i++].node.get();
        if (child != nullptr && needed.emplace(child, false).second) stack.push_back({child, 0});
        continue;
      }
      bool need = !pruned || targets.count(n) > 0;
      for (const Edge& e : n->next) need = need || (e.node && needed[e.node.get()]);
      needed[n] = need;
      stack.pop_back();
    }
  }
  // Incoming edges from nodes that run.
  std::unordered_map<Node*, int> pending;
  for (const auto& [n, need] : needed) {
    if (!need) continue;
    pending.emplace(n, 0);
    for (const Edge& e : n->next)
      if (e.node && needed[e.node.get()]) ++pending[e.node.get()];
  }

  // Gradients waiting at each node, one per output, summed as they meet;
  // ready nodes run latest first. Nodes stay alive through their
  // producers' edges and `roots`.
  std::unordered_map<Node*, std::vector<TensorRef>> buffer;
  auto add_to = [&](const Edge& e, TensorRef g) {
    auto [slot, fresh] = buffer.try_emplace(e.node.get());
    if (fresh) slot->second.resize(e.node->num_outputs());
    TensorRef& sum = slot->second.at(e.input_nr);
    sum = sum ? binary(TSR_OP_ADD, *sum, *g) : std::move(g);
  };
  for (size_t i = 0; i < roots.size(); ++i) add_to(roots[i], std::move(root_grads[i]));
  auto later = [](Node* a, Node* b) { return a->sequence < b->sequence; };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later)> ready(later);
  for (const Edge& r : roots)
    if (needed[r.node.get()] && pending[r.node.get()] == 0) {
      pending[r.node.get()] = -1;  // queued once
      ready.push(r.node.get());
    }
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    // A node none of whose consumers gave it a gradient still releases its
    // inputs' counts, so that a gradient they get by another path runs.
    std::vector<TensorRef> grads;
    if (auto it = buffer.find(n); it != buffer.end()) {
      std::vector<TensorRef> outs = std::move(it->second);
      buffer.erase(it);
      for (uint32_t k = 0; k < outs.size(); ++k)
        if (outs[k]) outs[k] = run_hooks(*n, k, std::move(outs[k]));
      const bool is_leaf_sink = dynamic_cast<AccumulateGrad*>(n) != nullptr;
      if (auto t = targets.find(n); t != targets.end()) {
        for (const Target& target : t->second) {
          const TensorRef& g = outs[target.output_nr];
          if (!g) continue;
          if (target.capture != SIZE_MAX) (*captured)[target.capture] = g;
          if (target.accumulate) accumulate_into(*target.accumulate, g);
        }
      }
      bool runs = is_leaf_sink ? !pruned || (accumulate_leaves && targets.count(n) > 0) : !pruned;
      for (const Edge& e : n->next) runs = runs || (!is_leaf_sink && e.node && needed[e.node.get()]);
      if (runs) {
        if (!n->handles_complex()) refuse_complex(*n, outs);
        n->unpack_saved();
        grads = n->apply_outputs(outs);
        n->drop_unpacked();
        if (!keep_graph) n->release_saved();
      }
    }
    for (size_t i = 0; i < n->next.size(); ++i) {
      const Edge& e = n->next[i];
      if (!e.node || !needed[e.node.get()]) continue;
      if (i < grads.size() && grads[i]) add_to(e, to_input(std::move(grads[i]), n->inputs[i]));
      if (--pending[e.node.get()] == 0) ready.push(e.node.get());
    }
  }
}

// The roots' edges and gradients, checked as PyTorch checks them.
void prepare_roots(const std::vector<TensorRef>& outputs, const std::vector<TensorRef>& grad_outputs,
                   std::vector<Edge>& edges, std::vector<TensorRef>& grads) {
  if (outputs.empty()) fail(TSR_ERR_INVALID_ARGUMENT, "grad requires at least one output tensor");
  if (!grad_outputs.empty() && grad_outputs.size() != outputs.size())
    fail(TSR_ERR_INVALID_ARGUMENT, std::to_string(grad_outputs.size()) + " gradients were given for " +
                                       std::to_string(outputs.size()) + " outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    tsr_tensor& root = *outputs[i];
    const std::string at = std::to_string(i);
    if (!requires_grad(root))
      fail(TSR_ERR_INVALID_ARGUMENT, "element " + at + " of tensors does not require grad and does not have a grad_fn");
    TensorRef g = grad_outputs.empty() ? TensorRef{} : grad_outputs[i];
    if (g) {
      if (!same_shape(g->layout, root.layout))
        fail(TSR_ERR_SHAPE, "Mismatch in shape: grad_output[" + at + "] has a shape of torch.Size(" +
                                format_list(g->layout.shape.data(), g->layout.ndim) + ") and output[" + at +
                                "] has a shape of torch.Size(" +
                                format_list(root.layout.shape.data(), root.layout.ndim) + ").");
      if (tsr_dtype_is_complex(g->dtype) != tsr_dtype_is_complex(root.dtype))
        fail(TSR_ERR_TYPE, "For complex Tensors, both grad_output and output are required to have the same dtype. "
                           "Mismatch in dtype: grad_output[" + at + "] has a dtype of " + tsr_dtype_name(g->dtype) +
                               " and output[" + at + "] has a dtype of " + tsr_dtype_name(root.dtype) + ".");
    } else {
      if (root.layout.numel() != 1) fail(TSR_ERR_INVALID_ARGUMENT, "grad can be implicitly created only for scalar outputs");
      g = full(*root.rt, root.layout.ndim, root.layout.shape.data(), make_scalar(1.0), root.dtype, root.device);
    }
    edges.push_back(edge_of(root));
    grads.push_back(std::move(g));
  }
}

bool keeps_graph(const RunOptions& o) { return o.retain_graph < 0 ? o.create_graph : o.retain_graph != 0; }

// Views regenerate their grad_fn from their base when the storage was
// written since it was made (Note [In-place ops]); m.mutex held.
void refresh_view(tsr_tensor& t, AutogradMeta& m) {
  if (t.base == nullptr || m.view_version == version(t)) return;
  tsr_tensor& base = *t.base;
  m.view_version = version(t);
  if (!requires_grad(base)) return;
  m.grad_fn = view_node(base, t);
  m.output_nr = 0;
}

}  // namespace

// ---- nodes ----------------------------------------------------------------------

Node::~Node() { delete hooks.load(std::memory_order_acquire); }

HookList& Node::hook_list() {
  HookList* list = hooks.load(std::memory_order_acquire);
  if (list != nullptr) return *list;
  auto fresh = std::make_unique<HookList>();
  if (hooks.compare_exchange_strong(list, fresh.get(), std::memory_order_acq_rel)) return *fresh.release();
  return *list;  // another thread made it first
}

// ---- saved tensors -------------------------------------------------------------

void SavedTensor::save(const tsr_tensor& t, bool is_output, uint32_t output_nr) {
  data_ = is_output ? detached(t) : TensorRef::share(const_cast<tsr_tensor*>(&t));
  version_ = version(t);
  output_nr_ = output_nr;
  is_output_ = is_output;
  saved_ = true;
}

TensorRef SavedTensor::unpack(Node& owner) const {
  if (released_)
    fail(TSR_ERR_INVALID_ARGUMENT,
         "Trying to backward through the graph a second time (or directly access saved tensors after they have "
         "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
         "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
         "if you need to access saved tensors after calling backward.");
  const uint32_t now = version(*data_);
  if (now != version_) {
    std::string of;
    if (is_output_) of = ", which is output " + std::to_string(output_nr_) + " of " + owner.display_name() + ",";
    else if (data_->autograd != nullptr && data_->autograd->grad_fn)
      of = ", which is output " + std::to_string(data_->autograd->output_nr) + " of " +
           data_->autograd->grad_fn->display_name() + ",";
    fail(TSR_ERR_INVALID_ARGUMENT,
         "one of the variables needed for gradient computation has been modified by an inplace operation: [" +
             torch_type_name(*data_) + " " + format_list(data_->layout.shape.data(), data_->layout.ndim) + "]" + of +
             " is at version " + std::to_string(now) + "; expected version " + std::to_string(version_) +
             " instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
             "with torch.autograd.set_detect_anomaly(True).");
  }
  if (!is_output_ || !grad_enabled()) return data_;
  // Creating a graph: the output as the node's result, so that formulas
  // reading it are differentiated through this node.
  TensorRef t = detached(*data_);
  set_history(*t, owner.shared_from_this(), output_nr_);
  return t;
}

void SavedTensor::release() noexcept {
  if (!saved_) return;
  data_.reset();
  released_ = true;
}

// ---- grad mode, flags, .grad ------------------------------------------------------

// Note [Complex tensors and autograd]
//   PyTorch's convention: the gradient of a real loss L with respect to a
//   complex z = x + iy is dL/dx + i dL/dy (the conjugate Wirtinger
//   derivative, times 2), so that gradient descent on z is z -= lr * z.grad.
//   A formula for a holomorphic f(z) is then grad * conj(f'(z)) (mul's is
//   grad * conj(other), matmul's G @ B^H), and a gradient that reaches a real
//   input from a complex result keeps its real part (the engine's cast to
//   the input's dtype, to_input). A node says whether its formula follows
//   the convention (Node::handles_complex); the engine refuses to run one
//   that does not when a complex gradient reaches it or it feeds a complex
//   input, naming it, so no complex gradient is ever wrong in silence. The
//   nodes that do: add, sub, neg, mul, div and pow (tensor and number
//   operands), exp, log, sqrt, tanh, sigmoid, abs, conj, real, imag, the
//   trigonometric and hyperbolic functions, expm1, log1p, log2, log10,
//   sum, mean, prod, cumsum, cumprod, vector_norm, matmul, views, copies
//   and casts, cat, where, fill,
//   gather, scatter and the indexing built on them, and the Fourier
//   transforms (FftC2CBackward0, FftR2CBackward0, FftC2RBackward0). As in
//   PyTorch, a complex scalar result may start backward with the implicit
//   gradient 1.

AutogradMeta& meta_of(tsr_tensor& t) {
  if (t.autograd == nullptr) t.autograd = new AutogradMeta;
  return *t.autograd;
}

bool grad_enabled() noexcept { return t_grad_enabled; }
void set_grad_enabled(bool enabled) noexcept { t_grad_enabled = enabled; }

void destroy(AutogradMeta* m) { delete m; }

GradModeGuard::GradModeGuard(bool enabled) : previous_(t_grad_enabled) { t_grad_enabled = enabled; }
GradModeGuard::~GradModeGuard() { t_grad_enabled = previous_; }

void set_requires_grad(tsr_tensor& t, bool value) {
  if (!is_leaf(t))
    fail(TSR_ERR_INVALID_ARGUMENT,
         "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
         "subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  if (value && !tsr_dtype_is_floating(t.dtype) && !tsr_dtype_is_complex(t.dtype))
    fail(TSR_ERR_TYPE, "only Tensors of floating point dtype can require gradients");  // PyTorch 1.13's words
  if (!value && t.autograd == nullptr) return;
  meta_of(t).requires_grad = value;
}

TensorRef grad(const tsr_tensor& t) {
  if (t.autograd == nullptr) return {};
  std::shared_ptr<GradCell> cell;
  {
    std::lock_guard<std::mutex> lock(t.autograd->mutex);
    cell = t.autograd->cell;
  }
  if (!cell) return {};
  std::lock_guard<std::mutex> lock(cell->mutex);
  return cell->grad;
}

void set_grad(tsr_tensor& t, TensorRef g) {
  if (g) {
    if (!same_shape(g->layout, t.layout))
      fail(TSR_ERR_SHAPE, "assigned grad has data of a different size");
    if (g->dtype != t.dtype) fail(TSR_ERR_TYPE, "assigned grad has data of a different type");
    if (!same_device(g->device, t.device))
      fail(TSR_ERR_INVALID_ARGUMENT, "assigned grad has data located on a different device");
  } else if (t.autograd == nullptr) {
    return;
  }
  AutogradMeta& m = meta_of(t);
  std::shared_ptr<GradCell> cell;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    cell = cell_of(m);
  }
  std::lock_guard<std::mutex> lock(cell->mutex);
  cell->grad = std::move(g);
}

void retain_grad(tsr_tensor& t) {
  if (!requires_grad(t)) fail(TSR_ERR_INVALID_ARGUMENT, "can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf(t)) return;  // a leaf keeps its gradient anyway
  AutogradMeta& m = *t.autograd;
  std::weak_ptr<GradCell> weak;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    if (m.retains_grad) return;
    m.retains_grad = true;
    weak = cell_of(m);
  }
  register_hook(t, [weak](const TensorRef& g) -> TensorRef {
    if (std::shared_ptr<GradCell> cell = weak.lock()) retain_into(*cell, g);
    return {};
  });
}

std::shared_ptr<Node> grad_fn(tsr_tensor& t) {
  if (t.autograd == nullptr) return nullptr;
  AutogradMeta& m = *t.autograd;
  if (t.base == nullptr) return m.grad_fn;
  std::lock_guard<std::mutex> lock(m.mutex);
  refresh_view(t, m);
  return m.grad_fn;
}

int64_t register_hook(tsr_tensor& t, HookFn fn) {
  if (!requires_grad(t))
    fail(TSR_ERR_INVALID_ARGUMENT, "cannot register a hook on a tensor that doesn't require gradient");
  // A result's hooks live on its grad_fn, a leaf's on its accumulator.
  const Edge edge = edge_of(t);
  const std::shared_ptr<Node>& node = edge.node;
  std::lock_guard<std::mutex> lock(t.autograd->mutex);
  HookList& list = node->hook_list();
  const int64_t id = g_next_hook.fetch_add(1);
  std::lock_guard<std::mutex> hooks_lock(list.mutex);
  list.hooks.push_back(Hook{id, std::move(fn), edge.input_nr});
  return id;
}

void remove_hook(tsr_tensor& t, int64_t id) {
  if (requires_grad(t)) {
    const std::shared_ptr<Node> node = edge_of(t).node;
    std::lock_guard<std::mutex> lock(t.autograd->mutex);
    if (HookList* list = node->hooks.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> hooks_lock(list->mutex);
      auto it = std::find_if(list->hooks.begin(), list->hooks.end(), [&](const Hook& h) { return h.id == id; });
      if (it != list->hooks.end()) {
        list->hooks.erase(it);
        return;
      }
    }
  }
  fail(TSR_ERR_INVALID_ARGUMENT, "no hook with handle " + std::to_string(id) + " is registered on this tensor");
}

void detach_inplace(tsr_tensor& t) {
  if (t.base != nullptr)
    fail(TSR_ERR_INVALID_ARGUMENT,
         "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for "
         "training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence "
         "detach_() cannot be called on these gradients. To fix this error, please refer to the "
         "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
  if (t.autograd == nullptr) return;
  std::lock_guard<std::mutex> lock(t.autograd->mutex);
  t.autograd->grad_fn.reset();
  t.autograd->requires_grad = false;
}

// ---- recording ----------------------------------------------------------------------

TensorRef detached(const tsr_tensor& t) { return make_view(t, t.layout); }

void link(Node& node, std::initializer_list<const tsr_tensor*> inputs) {
  link(node, std::span<const tsr_tensor* const>(inputs.begin(), inputs.size()));
}

void link(Node& node, std::span<const tsr_tensor* const> inputs) {
  for (const tsr_tensor* t : inputs) {
    node.inputs.push_back(t != nullptr ? input_meta(*t) : InputMeta{});
    node.next.push_back(t != nullptr && requires_grad(*t) ? edge_of(const_cast<tsr_tensor&>(*t)) : Edge{});
  }
  node.sequence = g_next_sequence.fetch_add(1);
}

void record(std::shared_ptr<Node> node, std::initializer_list<const tsr_tensor*> inputs, tsr_tensor& output) {
  link(*node, inputs);
  set_history(output, std::move(node));
}

void name_result(const tsr_tensor& out, const char* name, std::initializer_list<const tsr_tensor*> inputs) {
  if (out.autograd == nullptr || !out.autograd->grad_fn) return;
  Node* node = out.autograd->grad_fn.get();
  for (const tsr_tensor* in : inputs)
    if (in != nullptr && in->autograd != nullptr && in->autograd->grad_fn.get() == node) return;
  node->alias = name;
}

void set_history(tsr_tensor& t, std::shared_ptr<Node> node, uint32_t output_nr) {
  AutogradMeta& m = meta_of(t);
  m.grad_fn = std::move(node);
  m.output_nr = output_nr;
}

// ---- in-place writes ----------------------------------------------------------------

InplaceWrite::InplaceWrite(tsr_tensor& target, std::initializer_list<const tsr_tensor*> others, bool keep_old)
    : target_(target) {
  if (target.autograd == nullptr && (target.base == nullptr || target.base->autograd == nullptr) &&
      !should_record(others)) [[likely]]
    return;
  if (!grad_enabled()) return;
  if (requires_grad(target) && is_leaf(target))
    fail(TSR_ERR_INVALID_ARGUMENT, "a leaf Variable that requires grad is being used in an in-place operation.");
  if (target.base != nullptr && is_leaf(*target.base) && requires_grad(*target.base))
    fail(TSR_ERR_INVALID_ARGUMENT,
         "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  records_ = requires_grad(target) || (target.base != nullptr && requires_grad(*target.base)) || should_record(others);
  if (!records_ || !keep_old) return;
  // The old values, carrying the target's history (no CloneBackward of their own).
  {
    GradModeGuard off(false);
    old_ = clone(target);
  }
  if (std::shared_ptr<Node> fn = grad_fn(target)) set_history(*old_, std::move(fn), target.autograd->output_nr);
}

void InplaceWrite::finish(const std::function<void(tsr_tensor& result)>& record_op) {
  bump_version(target_);
  if (!records_) return;
  TensorRef r = detached(target_);
  record_op(*r);
  if (r->autograd == nullptr || !r->autograd->grad_fn) return;  // not differentiable (an integer result)
  rebase_history(target_, r->autograd->grad_fn);
}

void check_out(const char* fn, const tsr_tensor& out, std::initializer_list<const tsr_tensor*> inputs) {
  if (out.autograd == nullptr && !should_record(inputs)) [[likely]]
    return;
  if (!grad_enabled()) return;
  if (should_record(inputs))
    fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) +
                                       "(): functions with out=... arguments don't support automatic "
                                       "differentiation, but one of the arguments requires grad.");
  if (requires_grad(out) && is_leaf(out))
    fail(TSR_ERR_INVALID_ARGUMENT, "a leaf Variable that requires grad is being used in an in-place operation.");
}

// ---- running backwards -----------------------------------------------------------------

void backward(const std::vector<TensorRef>& outputs, const std::vector<TensorRef>& grad_outputs,
              const std::vector<TensorRef>& inputs, const RunOptions& options) {
  std::vector<Edge> roots;
  std::vector<TensorRef> grads;
  prepare_roots(outputs, grad_outputs, roots, grads);
  Targets targets;
  std::vector<Edge> keep;  // the targets' nodes, alive for the run
  for (size_t i = 0; i < inputs.size(); ++i) {
    tsr_tensor& t = *inputs[i];
    if (!requires_grad(t)) fail(TSR_ERR_INVALID_ARGUMENT, "can't retain_grad on Tensor that has requires_grad=False");
    keep.push_back(edge_of(t));
    Target target;
    target.output_nr = keep.back().input_nr;
    if (!is_leaf(t)) {
      std::lock_guard<std::mutex> lock(t.autograd->mutex);
      target.accumulate = cell_of(*t.autograd);
    }
    targets[keep.back().node.get()].push_back(std::move(target));
  }
  run(roots, std::move(grads), keeps_graph(options), options.create_graph, targets, true, nullptr);
}

std::vector<TensorRef> grad(const std::vector<TensorRef>& outputs, const std::vector<TensorRef>& grad_outputs,
                            const std::vector<TensorRef>& inputs, const RunOptions& options) {
  std::vector<Edge> roots;
  std::vector<TensorRef> grads;
  prepare_roots(outputs, grad_outputs, roots, grads);
  if (inputs.empty()) fail(TSR_ERR_INVALID_ARGUMENT, "grad requires at least one input tensor");
  Targets targets;
  std::vector<Edge> keep;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!requires_grad(*inputs[i])) fail(TSR_ERR_INVALID_ARGUMENT, "One of the differentiated Tensors does not require grad");
    keep.push_back(edge_of(*inputs[i]));
    Target target;
    target.output_nr = keep.back().input_nr;
    target.capture = i;
    targets[keep.back().node.get()].push_back(std::move(target));
  }
  std::vector<TensorRef> result(inputs.size());
  run(roots, std::move(grads), keeps_graph(options), options.create_graph, targets, false, &result);
  if (!options.allow_unused)
    for (const TensorRef& r : result)
      if (!r)
        fail(TSR_ERR_INVALID_ARGUMENT, "One of the differentiated Tensors appears to not have been used in the graph. "
                                       "Set allow_unused=True if this is the desired behavior.");
  return result;
}

}  // namespace tessera::rt::autograd
