// SPDX-License-Identifier: Apache-2.0
// Note [Update rules as torch writes them]
//   The updates are PyTorch 1.13's single-tensor forms (_single_tensor_sgd,
//   _single_tensor_adam, _single_tensor_adamw, foreach off, the CPU
//   default), operation for operation and in the same order, so that the
//   parameters agree with torch.optim's to rounding: a.add_(b, alpha=s) is
//   a += s b (the product rounded, then the sum), addcmul_(t1, t2, value=s)
//   a += (s t1) t2, addcdiv_(t1, t2, value=s) a += (s t1) / t2; the bias
//   corrections are doubles (torch reads the step count back as a Python
//   float). Each is an in-place op of the runtime, run with grad mode off
//   (torch's @no_grad), so the update runs on the parameter's device.
//   Temporaries come from the device's caching allocator; a plugin's
//   fused optimizer kernel is a later addition (the issue allows both).
#include "optim.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "autograd.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "shape.hpp"

namespace tessera::rt {

namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

TensorRef scaled(const tsr_tensor& t, double s) { return binary_scalar(TSR_OP_MUL, t, make_scalar(s), false); }
// a += s b, torch's a.add_(b, alpha=s)
void add_scaled_(const tsr_tensor& a, const tsr_tensor& b, double s) {
  if (s == 1) binary_inplace(TSR_OP_ADD, a, b);
  else binary_inplace(TSR_OP_ADD, a, *scaled(b, s));
}
void mul_(const tsr_tensor& a, double s) { binary_scalar_inplace(TSR_OP_MUL, a, make_scalar(s)); }
TensorRef zeros_like(const tsr_tensor& t) {
  return full(*t.rt, t.layout.ndim, t.layout.shape.data(), make_scalar(0.0), t.dtype, t.device);
}

void check_grad(const tsr_tensor& p, const tsr_tensor& g, size_t i) {
  if (!same_shape(g.layout, p.layout) || g.dtype != p.dtype || !same_device(g.device, p.device))
    fail(TSR_ERR_INVALID_ARGUMENT, "optimizer step: the .grad of parameter " + std::to_string(i) +
                                       " differs from the parameter in shape, dtype or device");
}

void sgd(const tsr_optimizer_options& o, const tsr_tensor& p, TensorRef d_p, tsr_optimizer::State& s) {
  if (o.maximize) d_p = unary(TSR_OP_NEG, *d_p);
  if (o.weight_decay != 0) d_p = binary(TSR_OP_ADD, *d_p, *scaled(p, o.weight_decay));
  if (o.momentum != 0) {
    if (!s.momentum_buffer) {
      s.momentum_buffer = clone(*d_p);
    } else {
      mul_(*s.momentum_buffer, o.momentum);
      add_scaled_(*s.momentum_buffer, *d_p, 1 - o.dampening);
    }
    d_p = o.nesterov ? binary(TSR_OP_ADD, *d_p, *scaled(*s.momentum_buffer, o.momentum)) : s.momentum_buffer;
  }
  add_scaled_(p, *d_p, -o.lr);
}

void adam(const tsr_optimizer_options& o, const tsr_tensor& p, TensorRef grad, tsr_optimizer::State& s) {
  const bool decoupled = o.kind == TSR_OPTIMIZER_ADAMW;
  if (!s.exp_avg) s.exp_avg = zeros_like(p);
  if (!s.exp_avg_sq) s.exp_avg_sq = zeros_like(p);
  if (o.amsgrad && !s.max_exp_avg_sq) s.max_exp_avg_sq = zeros_like(p);
  s.has_step = true;
  s.step += 1;
  if (o.maximize) grad = unary(TSR_OP_NEG, *grad);
  if (decoupled) mul_(p, 1 - o.lr * o.weight_decay);
  else if (o.weight_decay != 0) grad = binary(TSR_OP_ADD, *grad, *scaled(p, o.weight_decay));
  mul_(*s.exp_avg, o.beta1);
  add_scaled_(*s.exp_avg, *grad, 1 - o.beta1);
  mul_(*s.exp_avg_sq, o.beta2);
  binary_inplace(TSR_OP_ADD, *s.exp_avg_sq, *binary(TSR_OP_MUL, *scaled(*grad, 1 - o.beta2), *grad));
  const double bias_correction1 = 1 - std::pow(o.beta1, s.step);
  const double bias_correction2 = 1 - std::pow(o.beta2, s.step);
  const double step_size = o.lr / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);
  const tsr_tensor* second = s.exp_avg_sq.get();
  if (o.amsgrad) {
    binary_out(TSR_OP_MAXIMUM, *s.max_exp_avg_sq, *s.exp_avg_sq, *s.max_exp_avg_sq);
    second = s.max_exp_avg_sq.get();
  }
  TensorRef denom = binary_scalar(TSR_OP_DIV, *unary(TSR_OP_SQRT, *second), make_scalar(bias_correction2_sqrt), false);
  binary_scalar_inplace(TSR_OP_ADD, *denom, make_scalar(o.eps));
  binary_inplace(TSR_OP_ADD, p, *binary(TSR_OP_DIV, *scaled(*s.exp_avg, -step_size), *denom));
}

}  // namespace

tsr_optimizer_options default_optimizer_options(int32_t kind) {
  tsr_optimizer_options o{};
  o.struct_size = TSR_OPTIMIZER_OPTIONS_STRUCT_SIZE;
  o.kind = kind;
  o.lr = kind == TSR_OPTIMIZER_SGD ? NAN : 1e-3;
  o.weight_decay = kind == TSR_OPTIMIZER_ADAMW ? 1e-2 : 0;
  o.beta1 = 0.9;
  o.beta2 = 0.999;
  o.eps = 1e-8;
  return o;
}

tsr_optimizer_options read_optimizer_options(const tsr_optimizer_options& options, const char* fn) {
  if (options.struct_size < TSR_STRUCT_SIZE(tsr_optimizer_options, kind))
    fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": options->struct_size " + std::to_string(options.struct_size) +
                                       " is smaller than any tsr_optimizer_options (set it to "
                                       "TSR_OPTIMIZER_OPTIONS_STRUCT_SIZE)");
  if (options.kind < 0 || options.kind >= TSR_OPTIMIZER_KIND_COUNT)
    fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": options->kind " + std::to_string(options.kind) +
                                       " is not a tsr_optimizer_kind (0 SGD, 1 Adam, 2 AdamW)");
  tsr_optimizer_options o = default_optimizer_options(options.kind);
  std::memcpy(&o, &options, std::min(options.struct_size, sizeof o));
  o.struct_size = TSR_OPTIMIZER_OPTIONS_STRUCT_SIZE;
  return o;
}

void check_optimizer_options(const tsr_optimizer_options& o) {
  if (std::isnan(o.lr) && o.kind == TSR_OPTIMIZER_SGD)
    fail(TSR_ERR_INVALID_ARGUMENT, "SGD: lr is required (options.lr is NaN, tsr_optimizer_defaults' placeholder)");
  if (!(o.lr >= 0)) fail(TSR_ERR_INVALID_ARGUMENT, "Invalid learning rate: " + number(o.lr));
  if (!(o.weight_decay >= 0)) fail(TSR_ERR_INVALID_ARGUMENT, "Invalid weight_decay value: " + number(o.weight_decay));
  if (o.kind == TSR_OPTIMIZER_SGD) {
    if (!(o.momentum >= 0)) fail(TSR_ERR_INVALID_ARGUMENT, "Invalid momentum value: " + number(o.momentum));
    if (o.nesterov && (o.momentum <= 0 || o.dampening != 0))
      fail(TSR_ERR_INVALID_ARGUMENT, "Nesterov momentum requires a momentum and zero dampening");
  } else {
    if (!(o.eps >= 0)) fail(TSR_ERR_INVALID_ARGUMENT, "Invalid epsilon value: " + number(o.eps));
    if (!(o.beta1 >= 0 && o.beta1 < 1))
      fail(TSR_ERR_INVALID_ARGUMENT, "Invalid beta parameter at index 0: " + number(o.beta1));
    if (!(o.beta2 >= 0 && o.beta2 < 1))
      fail(TSR_ERR_INVALID_ARGUMENT, "Invalid beta parameter at index 1: " + number(o.beta2));
  }
}

void check_optimizer_params(const std::vector<TensorRef>& params) {
  for (size_t i = 0; i < params.size(); ++i) {
    const tsr_tensor& p = *params[i];
    if (!tsr_dtype_is_floating(p.dtype))
      fail(TSR_ERR_TYPE, "optimizer: parameter " + std::to_string(i) + " is " + tsr_dtype_name(p.dtype) +
                             "; parameters are floating tensors (float16, bfloat16, float32, float64)");
    if (!autograd::is_leaf(p)) fail(TSR_ERR_INVALID_ARGUMENT, "can't optimize a non-leaf Tensor (parameter " +
                                                                  std::to_string(i) + ")");
    for (size_t j = 0; j < i; ++j)
      if (params[j].get() == &p || (params[j]->storage == p.storage && same_shape(params[j]->layout, p.layout) &&
                                    params[j]->layout.offset == p.layout.offset))
        fail(TSR_ERR_INVALID_ARGUMENT, "optimizer: parameters " + std::to_string(j) + " and " + std::to_string(i) +
                                           " are the same tensor; some parameters appear more than once");
  }
}

void optimizer_step(tsr_optimizer& opt) {
  const autograd::GradModeGuard off(false);
  for (size_t i = 0; i < opt.params.size(); ++i) {
    const tsr_tensor& p = *opt.params[i];
    TensorRef g = autograd::grad(p);
    if (!g) continue;  // torch skips a parameter without a gradient
    check_grad(p, *g, i);
    if (opt.options.kind == TSR_OPTIMIZER_SGD) sgd(opt.options, p, g, opt.state[i]);
    else adam(opt.options, p, g, opt.state[i]);
    autograd::bump_version(p);  // the in-place ops of the runtime's API would
  }
}

void optimizer_zero_grad(tsr_optimizer& opt, bool set_to_none) {
  const autograd::GradModeGuard off(false);
  for (const TensorRef& p : opt.params) {
    TensorRef g = autograd::grad(*p);
    if (!g) continue;
    if (set_to_none) {
      autograd::set_grad(*p, TensorRef{});
      continue;
    }
    if (g->autograd != nullptr) {  // a recorded gradient (create_graph): detach it first, as torch
      g = autograd::detached(*g);
      autograd::set_grad(*p, g);
    }
    fill(*g, make_scalar(0.0));
    autograd::bump_version(*g);
  }
}

namespace {

TensorRef tsr_optimizer::State::*state_member(const std::string& name) {
  if (name == "momentum_buffer") return &tsr_optimizer::State::momentum_buffer;
  if (name == "exp_avg") return &tsr_optimizer::State::exp_avg;
  if (name == "exp_avg_sq") return &tsr_optimizer::State::exp_avg_sq;
  if (name == "max_exp_avg_sq") return &tsr_optimizer::State::max_exp_avg_sq;
  fail(TSR_ERR_INVALID_ARGUMENT, "optimizer state: no state named \"" + name +
                                     "\" (step, momentum_buffer, exp_avg, exp_avg_sq, max_exp_avg_sq)");
}

void check_index(const tsr_optimizer& opt, int32_t i) {
  if (i < 0 || static_cast<size_t>(i) >= opt.params.size())
    fail(TSR_ERR_INDEX, "optimizer: parameter index " + std::to_string(i) + " is out of range for " +
                            std::to_string(opt.params.size()) + " parameters");
}

}  // namespace

TensorRef optimizer_state(const tsr_optimizer& opt, int32_t i, const std::string& name) {
  check_index(opt, i);
  const tsr_optimizer::State& s = opt.state[static_cast<size_t>(i)];
  if (name == "step") {
    if (!s.has_step) return {};
    const tsr_tensor& p = *opt.params[static_cast<size_t>(i)];
    const float step = static_cast<float>(s.step);
    return from_host(*p.rt, &step, 0, nullptr, TSR_FLOAT32, tsr_device{TSR_DEVICE_CPU, 0});
  }
  return s.*state_member(name);
}

void set_optimizer_state(tsr_optimizer& opt, int32_t i, const std::string& name, const tsr_tensor* value) {
  check_index(opt, i);
  tsr_optimizer::State& s = opt.state[static_cast<size_t>(i)];
  const tsr_tensor& p = *opt.params[static_cast<size_t>(i)];
  if (name == "step") {
    if (value == nullptr) {
      s.has_step = false;
      s.step = 0;
      return;
    }
    if (value->layout.numel() != 1)
      fail(TSR_ERR_SHAPE, "optimizer state \"step\" must have one element, got " +
                              std::to_string(value->layout.numel()));
    const tsr_scalar v = read_item(*value);
    s.step = v.kind == TSR_SCALAR_FLOAT ? v.f : static_cast<double>(v.i);
    s.has_step = true;
    return;
  }
  TensorRef tsr_optimizer::State::*member = state_member(name);
  if (value == nullptr) {
    s.*member = TensorRef{};
    return;
  }
  if (!same_shape(value->layout, p.layout))
    fail(TSR_ERR_SHAPE, "optimizer state \"" + name + "\" of parameter " + std::to_string(i) +
                            " must have the parameter's shape");
  const autograd::GradModeGuard off(false);
  TensorRef copy = zeros_like(p);
  copy_into(*copy, *value);
  s.*member = copy;
}

}  // namespace tessera::rt
