// SPDX-License-Identifier: Apache-2.0
// The C API of tessera/autograd.h over the engine (Note [Autograd]).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api_support.hpp"
#include "autograd.hpp"
#include "ops.hpp"

using namespace tessera::rt;

namespace {

// A C hook and its user data; the data is released once, when the last
// copy of the hook goes (removed, or its tensor's record freed).
struct CHook {
  tsr_grad_hook_fn fn;
  void* user_data;
  void (*release)(void*);
  CHook(tsr_grad_hook_fn f, void* u, void (*r)(void*)) : fn(f), user_data(u), release(r) {}
  CHook(const CHook&) = delete;
  CHook& operator=(const CHook&) = delete;
  ~CHook() {
    if (release != nullptr) release(user_data);
  }
};

// n borrowed handles as references; NULL entries allowed where `nullable`.
std::vector<TensorRef> handles(int32_t n, struct tsr_tensor* const* list, const char* what, bool nullable) {
  if (n < 0) fail(TSR_ERR_INVALID_ARGUMENT, std::string(what) + ": a negative count");
  std::vector<TensorRef> refs;
  if (n == 0 || list == nullptr) {
    if (n > 0 && !nullable) fail(TSR_ERR_INVALID_ARGUMENT, std::string(what) + " is NULL");
    return refs;
  }
  refs.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) {
    if (list[i] == nullptr && !nullable)
      fail(TSR_ERR_INVALID_ARGUMENT, std::string(what) + "[" + std::to_string(i) + "] is NULL");
    refs.push_back(list[i] != nullptr ? TensorRef::share(list[i]) : TensorRef{});
  }
  return refs;
}

autograd::RunOptions run_options(const tsr_autograd_options* options, const char* fn) {
  autograd::RunOptions o;
  if (options == nullptr) return o;
  if (options->struct_size < TSR_STRUCT_SIZE(tsr_autograd_options, allow_unused))
    fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": options->struct_size " + std::to_string(options->struct_size) +
                                       " is smaller than any tsr_autograd_options (set it to "
                                       "TSR_AUTOGRAD_OPTIONS_STRUCT_SIZE)");
  o.retain_graph = options->retain_graph < 0 ? -1 : options->retain_graph != 0;
  o.create_graph = options->create_graph != 0;
  o.allow_unused = options->allow_unused != 0;
  return o;
}

}  // namespace

extern "C" {

int32_t tsr_is_grad_enabled(void) { return autograd::grad_enabled() ? 1 : 0; }

int32_t tsr_set_grad_enabled(int32_t enabled) {
  const bool previous = autograd::grad_enabled();
  autograd::set_grad_enabled(enabled != 0);
  return previous ? 1 : 0;
}

int32_t tsr_tensor_requires_grad(const tsr_tensor* t) { return t != nullptr && autograd::requires_grad(*t) ? 1 : 0; }

tsr_status tsr_tensor_set_requires_grad(tsr_tensor* t, int32_t requires_grad) {
  return guard([&] { autograd::set_requires_grad(require(t, "tensor"), requires_grad != 0); });
}

int32_t tsr_tensor_is_leaf(const tsr_tensor* t) { return t != nullptr && autograd::is_leaf(*t) ? 1 : 0; }

tsr_status tsr_tensor_grad(const tsr_tensor* t, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    *out = nullptr;
    hand_out(autograd::grad(require(t, "tensor")), out);
  });
}

tsr_status tsr_tensor_set_grad(tsr_tensor* t, tsr_tensor* grad) {
  return guard([&] {
    tsr_tensor& target = require(t, "tensor");
    autograd::set_grad(target, grad != nullptr ? TensorRef::share(grad) : TensorRef{});
  });
}

tsr_status tsr_tensor_retain_grad(tsr_tensor* t) {
  return guard([&] { autograd::retain_grad(require(t, "tensor")); });
}

int32_t tsr_tensor_retains_grad(const tsr_tensor* t) {
  return t != nullptr && t->autograd != nullptr && t->autograd->retains_grad ? 1 : 0;
}

const char* tsr_tensor_grad_fn_name(const tsr_tensor* t) {
  if (t == nullptr || t->autograd == nullptr) return nullptr;
  std::shared_ptr<autograd::Node> fn = autograd::grad_fn(const_cast<tsr_tensor&>(*t));
  return fn ? fn->display_name() : nullptr;
}

int64_t tsr_tensor_version(const tsr_tensor* t) { return t != nullptr ? autograd::version(*t) : 0; }

tsr_status tsr_detach(tsr_tensor* t, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(autograd::detached(require(t, "tensor")), out);
  });
}

tsr_status tsr_detach_(tsr_tensor* t) {
  return guard([&] { autograd::detach_inplace(require(t, "tensor")); });
}

tsr_status tsr_tensor_register_hook(tsr_tensor* t, tsr_grad_hook_fn fn, void* user_data,
                                    void (*release_user_data)(void*), int64_t* handle) {
  return guard([&] {
    require_out(handle);
    tsr_tensor& target = require(t, "tensor");
    if (fn == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "tsr_tensor_register_hook: fn is NULL");
    if (!autograd::requires_grad(target))
      fail(TSR_ERR_INVALID_ARGUMENT, "cannot register a hook on a tensor that doesn't require gradient");
    auto hook = std::make_shared<CHook>(fn, user_data, release_user_data);
    *handle = autograd::register_hook(target, [hook](const TensorRef& g) -> TensorRef {
      tsr_tensor* replacement = nullptr;
      clear_last_error();
      const tsr_status st = hook->fn(hook->user_data, g.get(), &replacement);
      TensorRef r(replacement);
      if (st != TSR_OK) {
        const char* why = last_error_message();
        fail(st, std::string("a gradient hook returned ") + tsr_status_name(st) +
                     (why != nullptr && *why != '\0' ? std::string(": ") + why : std::string()));
      }
      return r;
    });
  });
}

tsr_status tsr_tensor_remove_hook(tsr_tensor* t, int64_t handle) {
  return guard([&] { autograd::remove_hook(require(t, "tensor"), handle); });
}

tsr_status tsr_backward(int32_t num_outputs, tsr_tensor* const* outputs, tsr_tensor* const* grad_outputs,
                        int32_t num_inputs, tsr_tensor* const* inputs, const tsr_autograd_options* options) {
  return guard([&] {
    const autograd::RunOptions o = run_options(options, "tsr_backward");
    std::vector<TensorRef> outs = handles(num_outputs, outputs, "outputs", false);
    std::vector<TensorRef> grads = grad_outputs ? handles(num_outputs, grad_outputs, "grad_outputs", true)
                                                : std::vector<TensorRef>{};
    autograd::backward(outs, grads, handles(num_inputs, inputs, "inputs", false), o);
  });
}

tsr_status tsr_grad(int32_t num_outputs, tsr_tensor* const* outputs, tsr_tensor* const* grad_outputs,
                    int32_t num_inputs, tsr_tensor* const* inputs, const tsr_autograd_options* options,
                    tsr_tensor** out) {
  if (out != nullptr && num_inputs > 0)
    for (int32_t i = 0; i < num_inputs; ++i) out[i] = nullptr;
  return guard([&] {
    require_out(out);
    const autograd::RunOptions o = run_options(options, "tsr_grad");
    std::vector<TensorRef> outs = handles(num_outputs, outputs, "outputs", false);
    std::vector<TensorRef> grads = grad_outputs ? handles(num_outputs, grad_outputs, "grad_outputs", true)
                                                : std::vector<TensorRef>{};
    std::vector<TensorRef> ins = handles(num_inputs, inputs, "inputs", false);
    std::vector<TensorRef> result = autograd::grad(outs, grads, ins, o);
    for (size_t i = 0; i < result.size(); ++i) out[i] = result[i].release();
  });
}

}  // extern "C"
