// SPDX-License-Identifier: Apache-2.0
// tessera/nn.h's losses (ABI 1.10), PyTorch 1.13's formulas written with
// recorded functions: their gradients (and gradients of gradients) come
// from the nodes of the ops they are made of, whose formulas are the
// fused ones (log_softmax's above all), and the result is named as torch
// names its node. binary_cross_entropy is the exception: torch's gradient
// there is not the derivative of its clamped forward, so it has a node of
// its own (derivatives_nn.cpp).
#include <cmath>
#include <string>

#include "derivatives.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "shape.hpp"

namespace tessera::rt {

namespace {

using autograd::view_of;

std::string shape_text(const Layout& l) { return "[" + format_list(l.shape.data(), l.ndim) + "]"; }
TensorRef share(const tsr_tensor& t) { return TensorRef::share(const_cast<tsr_tensor*>(&t)); }
TensorRef mul(const TensorRef& a, const TensorRef& b) { return binary(TSR_OP_MUL, *a, *b); }
TensorRef sub(const TensorRef& a, const TensorRef& b) { return binary(TSR_OP_SUB, *a, *b); }
TensorRef add(const TensorRef& a, const TensorRef& b) { return binary(TSR_OP_ADD, *a, *b); }
TensorRef neg(const TensorRef& a) { return unary(TSR_OP_NEG, *a); }
TensorRef mul_scalar(const TensorRef& a, double s) { return binary_scalar(TSR_OP_MUL, *a, make_scalar(s), false); }
TensorRef sum_all(const TensorRef& a) { return reduce(TSR_OP_SUM, *a, 0, nullptr, false); }
TensorRef zero_like(const tsr_tensor& t) { return full(*t.rt, 0, nullptr, make_scalar(0.0), t.dtype, t.device); }

void check_floating(const tsr_tensor& x, const char* fn) {
  if (!tsr_dtype_is_floating(x.dtype))
    fail(TSR_ERR_TYPE, std::string(fn) + "(): expected a floating point input (float16, bfloat16, float32 or "
                                         "float64), got " + tsr_dtype_name(x.dtype));
}

void check_reduction(int32_t reduction, const char* fn) {
  if (reduction < TSR_REDUCTION_NONE || reduction > TSR_REDUCTION_SUM)
    fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + "(): reduction " + std::to_string(reduction) +
                                       " is not a tsr_reduction (0 none, 1 mean, 2 sum)");
}

// The elementwise losses' reductions: none, mean, sum.
TensorRef reduced(const TensorRef& losses, int32_t reduction) {
  if (reduction == TSR_REDUCTION_NONE) return losses;
  return reduce(reduction == TSR_REDUCTION_MEAN ? TSR_OP_MEAN : TSR_OP_SUM, *losses, 0, nullptr, false);
}

TensorRef squeezed(const TensorRef& t, int32_t dim) {
  return view_of(*t, [&](const Layout& l) { return squeeze_dim(l, dim); }, "SqueezeBackward1");
}

// The class losses' shapes: input [C] with target [], [N, C] with [N],
// [N, C, d..] with [N, d..]. Returns the class dim.
int32_t class_dim_of(const tsr_tensor& input, const tsr_tensor& target, const char* fn) {
  const Layout &in = input.layout, &t = target.layout;
  if (in.ndim == 0) fail(TSR_ERR_SHAPE, std::string(fn) + "(): input must have a class dim, got a 0-d tensor");
  const int32_t class_dim = in.ndim == 1 ? 0 : 1;
  bool ok = t.ndim == in.ndim - 1;
  for (int32_t d = 0, e = 0; ok && d < in.ndim; ++d)
    if (d != class_dim) ok = in.shape[static_cast<size_t>(d)] == t.shape[static_cast<size_t>(e++)];
  if (!ok) {
    if (in.ndim == 2 && t.ndim == 1)
      fail(TSR_ERR_SHAPE, "Expected input batch_size (" + std::to_string(in.shape[0]) + ") to match target batch_size (" +
                              std::to_string(t.shape[0]) + ").");
    fail(TSR_ERR_SHAPE, std::string(fn) + "(): target " + shape_text(t) + " does not match input " + shape_text(in) +
                            " (class indices have the input's shape without its class dim " +
                            std::to_string(class_dim) + ")");
  }
  return class_dim;
}

void check_class_weight(const tsr_tensor& input, const tsr_tensor* weight, int64_t classes) {
  if (weight == nullptr) return;
  check_same_device(input, *weight);
  if (weight->dtype != input.dtype)
    fail(TSR_ERR_TYPE, std::string("expected weight of dtype ") + tsr_dtype_name(input.dtype) + " like the input, got " +
                           tsr_dtype_name(weight->dtype));
  if (weight->layout.ndim != 1 || weight->layout.shape[0] != classes)
    fail(TSR_ERR_SHAPE, "weight tensor should be defined either for all " + std::to_string(classes) +
                            " classes or no classes but got weight tensor of shape: " + shape_text(weight->layout));
}

// valid: the targets that are not ignore_index; throws torch's "Target 7 is
// out of bounds." for one of them outside [0, classes) (one read back).
void check_targets(const TensorRef& target, const TensorRef& valid, int64_t classes) {
  if (target->layout.numel() == 0) return;
  const autograd::GradModeGuard off(false);
  const TensorRef outside =
      binary(TSR_OP_BITWISE_OR, *binary_scalar(TSR_OP_LT, *target, make_scalar_int(0), false),
             *binary_scalar(TSR_OP_GE, *target, make_scalar_int(classes), false));
  const TensorRef bad = binary(TSR_OP_BITWISE_AND, *outside, *valid);
  if (read_item(*reduce(TSR_OP_MAX, *bad, 0, nullptr, false)).i == 0) return;
  const int64_t n = target->layout.numel();
  // argmax gives the first maximum: the first bad target, in row-major order.
  const TensorRef first = reduce(TSR_OP_ARGMAX, *to(bad, TSR_INT64, bad->device), 0, nullptr, false);
  const TensorRef flat_target = contiguous(target);
  const int64_t value =
      read_item(*take(*make_view(*flat_target, view(flat_target->layout, 1, &n)), *first, 0)).i;
  fail(TSR_ERR_INDEX, "Target " + std::to_string(value) + " is out of bounds.");
}

void check_index_target(const tsr_tensor& target, const char* fn) {
  if (target.dtype != TSR_INT64)
    fail(TSR_ERR_TYPE, std::string(fn) + "(): expected class indices of dtype int64, got " + tsr_dtype_name(target.dtype) +
                           " (or class probabilities of the input's floating dtype and shape, for cross_entropy)");
}

// The class losses' per-sample weights: weight[target] (1 without a
// weight) where the target is not ignored, else 0.
struct Picked {
  TensorRef valid;    // bool, target's shape
  TensorRef safe;     // the targets, 0 where ignored
  TensorRef weights;  // input's dtype, target's shape
};
Picked pick(const tsr_tensor& input, const tsr_tensor& target, const LossOptions& o, int64_t classes) {
  const autograd::GradModeGuard off(false);
  Picked p;
  const TensorRef t = share(target);
  p.valid = binary_scalar(TSR_OP_NE, target, make_scalar_int(o.ignore_index), false);
  check_targets(t, p.valid, classes);
  p.safe = where(*p.valid, target, *full(*target.rt, 0, nullptr, make_scalar_int(0), TSR_INT64, target.device));
  p.weights = to(p.valid, input.dtype, input.device);
  if (o.weight != nullptr) {
    const int64_t n = target.layout.numel();
    const TensorRef safe = contiguous(p.safe);
    const TensorRef w = take(*o.weight, *make_view(*safe, view(safe->layout, 1, &n)), 0);
    p.weights = mul(make_view(*w, view(w->layout, target.layout.ndim, target.layout.shape.data())), p.weights);
  }
  return p;
}

// nll_loss of log-probabilities (already checked): -input[target] weight[target].
TensorRef nll(const tsr_tensor& input, const tsr_tensor& target, const LossOptions& o, int32_t class_dim,
              const Picked& p) {
  const TensorRef index = make_view(*p.safe, unsqueeze(p.safe->layout, class_dim));
  const TensorRef chosen = squeezed(gather(input, class_dim, *index), class_dim);
  const TensorRef losses = where(*p.valid, *neg(mul(chosen, p.weights)), *zero_like(input));
  TensorRef out = o.reduction == TSR_REDUCTION_NONE ? losses
                  : o.reduction == TSR_REDUCTION_SUM
                      ? sum_all(losses)
                      : binary(TSR_OP_DIV, *sum_all(losses), *sum_all(p.weights));
  autograd::name_result(*out, input.layout.ndim == 4 ? "NllLoss2DBackward0" : "NllLossBackward0", {&input});
  (void)target;
  return out;
}

}  // namespace

TensorRef nll_loss(const tsr_tensor& input, const tsr_tensor& target, const LossOptions& o) {
  check_floating(input, "nll_loss");
  check_reduction(o.reduction, "nll_loss");
  check_index_target(target, "nll_loss");
  check_same_device(input, target);
  const int32_t class_dim = class_dim_of(input, target, "nll_loss");
  const int64_t classes = input.layout.shape[static_cast<size_t>(class_dim)];
  check_class_weight(input, o.weight, classes);
  return nll(input, target, o, class_dim, pick(input, target, o, classes));
}

TensorRef cross_entropy(const tsr_tensor& input, const tsr_tensor& target, const LossOptions& o) {
  check_floating(input, "cross_entropy");
  check_reduction(o.reduction, "cross_entropy");
  check_same_device(input, target);
  if (!(o.label_smoothing >= 0 && o.label_smoothing <= 1))
    fail(TSR_ERR_INVALID_ARGUMENT,
         "label_smoothing must be between 0.0 and 1.0. Got: " + std::to_string(o.label_smoothing));
  if (input.layout.ndim == 0) fail(TSR_ERR_SHAPE, "cross_entropy(): input must have a class dim, got a 0-d tensor");
  const int32_t class_dim = input.layout.ndim == 1 ? 0 : 1;
  const int64_t classes = input.layout.shape[static_cast<size_t>(class_dim)];
  check_class_weight(input, o.weight, classes);
  const double ls = o.label_smoothing;
  const TensorRef logp = softmax(input, class_dim, true);
  // The class weights shaped to broadcast along the class dim.
  TensorRef class_weight;
  if (o.weight != nullptr) {
    Dims shape{};
    for (int32_t d = 0; d < input.layout.ndim; ++d) shape[static_cast<size_t>(d)] = d == class_dim ? classes : 1;
    class_weight = view_of(*o.weight, [&](const Layout& l) { return view(l, input.layout.ndim, shape.data()); },
                           "ViewBackward0");
  }
  if (tsr_dtype_is_floating(target.dtype)) {  // class probabilities
    if (target.dtype != input.dtype || !same_shape(target.layout, input.layout))
      fail(TSR_ERR_SHAPE, "cross_entropy(): class probabilities must have the input's shape and dtype: input " +
                              shape_text(input.layout) + " " + tsr_dtype_name(input.dtype) + ", target " +
                              shape_text(target.layout) + " " + tsr_dtype_name(target.dtype));
    TensorRef t = share(target);
    if (ls > 0)
      t = binary_scalar(TSR_OP_ADD, *mul_scalar(t, 1 - ls), make_scalar(ls / static_cast<double>(classes)), false);
    TensorRef product = mul(logp, t);
    if (class_weight) product = mul(product, class_weight);
    if (o.reduction == TSR_REDUCTION_NONE) return neg(reduce(TSR_OP_SUM, *product, 1, &class_dim, false));
    TensorRef total = neg(sum_all(product));
    if (o.reduction == TSR_REDUCTION_SUM) return total;
    const double samples = input.layout.numel() == 0 ? NAN : static_cast<double>(input.layout.numel() / classes);
    return binary_scalar(TSR_OP_DIV, *total, make_scalar(samples), false);
  }
  check_index_target(target, "cross_entropy");
  class_dim_of(input, target, "cross_entropy");
  const Picked p = pick(input, target, o, classes);
  TensorRef loss = nll(*logp, target, o, class_dim, p);
  if (ls == 0) return loss;
  // torch's cross_entropy_loss_label_smoothing: (1 - ls) nll + ls / C times
  // the smoothing loss -sum(logp weight) over the classes (0 where ignored),
  // its mean normalised as nll's.
  TensorRef smooth = neg(reduce(TSR_OP_SUM, *(class_weight ? mul(logp, class_weight) : logp), 1, &class_dim, false));
  smooth = where(*p.valid, *smooth, *zero_like(input));
  TensorRef ret = smooth;
  if (o.reduction == TSR_REDUCTION_SUM) {
    ret = sum_all(smooth);
  } else if (o.reduction == TSR_REDUCTION_MEAN) {
    const TensorRef denominator = o.weight != nullptr ? sum_all(p.weights) : sum_all(to(p.valid, input.dtype, input.device));
    ret = binary(TSR_OP_DIV, *sum_all(smooth), *denominator);
  }
  return add(mul_scalar(loss, 1 - ls), mul_scalar(ret, ls / static_cast<double>(classes)));
}

TensorRef mse_loss(const tsr_tensor& input, const tsr_tensor& target, const LossOptions& o) {
  check_floating(input, "mse_loss");
  check_reduction(o.reduction, "mse_loss");
  const TensorRef d = binary(TSR_OP_SUB, input, target);
  TensorRef out = reduced(mul(d, d), o.reduction);
  autograd::name_result(*out, "MseLossBackward0", {&input, &target});
  return out;
}

TensorRef l1_loss(const tsr_tensor& input, const tsr_tensor& target, const LossOptions& o) {
  check_floating(input, "l1_loss");
  check_reduction(o.reduction, "l1_loss");
  return reduced(unary(TSR_OP_ABS, *binary(TSR_OP_SUB, input, target)), o.reduction);
}

namespace {

void check_same_size(const tsr_tensor& input, const tsr_tensor& target) {
  if (!same_shape(input.layout, target.layout))
    fail(TSR_ERR_SHAPE, "Using a target size (" + shape_text(target.layout) + ") that is different to the input size (" +
                            shape_text(input.layout) + ") is deprecated. Please ensure they have the same size.");
}

}  // namespace

TensorRef binary_cross_entropy(const tsr_tensor& input, const tsr_tensor& target, const LossOptions& o) {
  check_floating(input, "binary_cross_entropy");
  check_reduction(o.reduction, "binary_cross_entropy");
  check_same_size(input, target);
  check_same_device(input, target);
  if (o.weight != nullptr && autograd::should_record({o.weight}))
    fail(TSR_ERR_UNSUPPORTED, "binary_cross_entropy(): the derivative for 'weight' is not implemented");
  const bool records = autograd::should_record({&input, &target});
  TensorRef losses;
  {
    const autograd::GradModeGuard off(false);
    const TensorRef x = share(input), y = share(target);
    if (x->layout.numel() > 0) {
      const TensorRef outside = binary(TSR_OP_BITWISE_OR, *binary_scalar(TSR_OP_LT, *x, make_scalar(0.0), false),
                                       *binary_scalar(TSR_OP_GT, *x, make_scalar(1.0), false));
      const TensorRef nan = binary(TSR_OP_NE, *x, *x);
      if (read_item(*reduce(TSR_OP_MAX, *binary(TSR_OP_BITWISE_OR, *outside, *nan), 0, nullptr, false)).i != 0)
        fail(TSR_ERR_INVALID_ARGUMENT, "all elements of input should be between 0 and 1");
    }
    auto clamped = [](const TensorRef& v) { return binary_scalar(TSR_OP_MAXIMUM, *v, make_scalar(-100.0), false); };
    // (y - 1) max(log(1 - x), -100) - y max(log(x), -100)
    const TensorRef log_1mx = clamped(math(TSR_MATH_LOG1P, *neg(x)));
    const TensorRef log_x = clamped(unary(TSR_OP_LOG, *x));
    losses = sub(mul(binary_scalar(TSR_OP_SUB, *y, make_scalar(1.0), false), log_1mx), mul(y, log_x));
    if (o.weight != nullptr) losses = binary(TSR_OP_MUL, *losses, *o.weight);
  }
  if (records) autograd::record_binary_cross_entropy(input, target, o.weight, *losses);
  TensorRef out = reduced(losses, o.reduction);
  autograd::name_result(*out, "BinaryCrossEntropyBackward0", {&input, &target});
  return out;
}

TensorRef binary_cross_entropy_with_logits(const tsr_tensor& input, const tsr_tensor& target,
                                           const LossOptions& o) {
  check_floating(input, "binary_cross_entropy_with_logits");
  check_reduction(o.reduction, "binary_cross_entropy_with_logits");
  check_same_size(input, target);
  if (o.pos_weight != nullptr && autograd::should_record({o.pos_weight}))
    fail(TSR_ERR_UNSUPPORTED, "The function 'binary_cross_entropy_with_logits' is not differentiable with respect to "
                              "argument 'pos_weight'. This input cannot have requires_grad True.");
  const TensorRef x = share(input), y = share(target);
  // torch's stable form: with m = max(-x, 0),
  // (1 - y) x + lw (log(exp(-m) + exp(-x - m)) + m), lw = 1 + (pos_weight - 1) y.
  const TensorRef m = binary_scalar(TSR_OP_MAXIMUM, *neg(x), make_scalar(0.0), false);
  const TensorRef log_sum = unary(TSR_OP_LOG, *add(unary(TSR_OP_EXP, *neg(m)), unary(TSR_OP_EXP, *sub(neg(x), m))));
  const TensorRef one_minus_y_x = mul(binary_scalar(TSR_OP_SUB, *y, make_scalar(1.0), true), x);
  TensorRef losses;
  if (o.pos_weight != nullptr) {
    const TensorRef log_weight = binary_scalar(
        TSR_OP_ADD, *mul(binary_scalar(TSR_OP_SUB, *o.pos_weight, make_scalar(1.0), false), y), make_scalar(1.0),
        false);
    losses = add(one_minus_y_x, mul(log_weight, add(log_sum, m)));
  } else {
    losses = add(add(one_minus_y_x, m), log_sum);
  }
  if (o.weight != nullptr) losses = binary(TSR_OP_MUL, *losses, *o.weight);
  TensorRef out = reduced(losses, o.reduction);
  autograd::name_result(*out, "BinaryCrossEntropyWithLogitsBackward0", {&input, &target});
  return out;
}

}  // namespace tessera::rt
