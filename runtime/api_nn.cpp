// SPDX-License-Identifier: Apache-2.0
// The C API of tessera/nn.h (nn.cpp, losses.cpp) and tessera/optim.h
// (optim.cpp).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api_support.hpp"
#include "ops.hpp"
#include "optim.hpp"

using namespace tessera::rt;

namespace {

LossOptions loss_options(const tsr_loss_options* options, const char* fn) {
  LossOptions o;
  if (options == nullptr) return o;
  if (options->struct_size < TSR_STRUCT_SIZE(tsr_loss_options, pos_weight))
    fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": options->struct_size " + std::to_string(options->struct_size) +
                                       " is smaller than tsr_loss_options (set it to TSR_LOSS_OPTIONS_STRUCT_SIZE)");
  o.reduction = options->reduction;
  o.ignore_index = options->ignore_index;
  o.label_smoothing = options->label_smoothing;
  o.weight = options->weight;
  o.pos_weight = options->pos_weight;
  return o;
}

template <class F>
tsr_status loss(tsr_tensor* input, tsr_tensor* target, const tsr_loss_options* options, tsr_tensor** out,
                const char* fn, F f) {
  return guard([&] {
    require_out(out);
    hand_out(f(require(input, "input"), require(target, "target"), loss_options(options, fn)), out);
  });
}

tsr_optimizer& require_optimizer(tsr_optimizer* opt) { return require(opt, "optimizer"); }
const tsr_optimizer& require_optimizer(const tsr_optimizer* opt) { return require(opt, "optimizer"); }

}  // namespace

extern "C" {

// ---- tessera/nn.h ------------------------------------------------------------

tsr_status tsr_linear(tsr_tensor* x, tsr_tensor* weight, tsr_tensor* bias, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(linear(require(x, "x"), require(weight, "weight"), bias), out);
  });
}

tsr_status tsr_layer_norm(tsr_tensor* x, int32_t num_normalized_dims, tsr_tensor* weight, tsr_tensor* bias, double eps,
                          tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(layer_norm(require(x, "x"), num_normalized_dims, weight, bias, eps), out);
  });
}

tsr_status tsr_embedding(tsr_tensor* weight, tsr_tensor* indices, int64_t padding_idx, int32_t scale_grad_by_freq,
                         tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(embedding(require(weight, "weight"), require(indices, "indices"), padding_idx, scale_grad_by_freq != 0),
             out);
  });
}

tsr_status tsr_embedding_renorm_(tsr_tensor* weight, tsr_tensor* indices, double max_norm, double norm_type) {
  return guard([&] { embedding_renorm_(require(weight, "weight"), require(indices, "indices"), max_norm, norm_type); });
}

tsr_status tsr_dropout(tsr_tensor* x, double p, int32_t training, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(dropout(borrow(x, "x"), p, training != 0), out);
  });
}

tsr_status tsr_gelu(tsr_tensor* x, int32_t approximate, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    if (approximate != 0 && approximate != 1)
      fail(TSR_ERR_INVALID_ARGUMENT, "gelu(): approximate must be 0 ('none') or 1 ('tanh'), got " +
                                         std::to_string(approximate));
    hand_out(gelu(require(x, "x"), approximate == 1), out);
  });
}

tsr_status tsr_silu(tsr_tensor* x, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(silu(require(x, "x")), out);
  });
}

tsr_status tsr_softplus(tsr_tensor* x, double beta, double threshold, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(softplus(require(x, "x"), beta, threshold), out);
  });
}

tsr_status tsr_cross_entropy(tsr_tensor* input, tsr_tensor* target, const tsr_loss_options* options,
                             tsr_tensor** out) {
  return loss(input, target, options, out, "tsr_cross_entropy", cross_entropy);
}
tsr_status tsr_nll_loss(tsr_tensor* input, tsr_tensor* target, const tsr_loss_options* options, tsr_tensor** out) {
  return loss(input, target, options, out, "tsr_nll_loss", nll_loss);
}
tsr_status tsr_mse_loss(tsr_tensor* input, tsr_tensor* target, const tsr_loss_options* options, tsr_tensor** out) {
  return loss(input, target, options, out, "tsr_mse_loss", mse_loss);
}
tsr_status tsr_l1_loss(tsr_tensor* input, tsr_tensor* target, const tsr_loss_options* options, tsr_tensor** out) {
  return loss(input, target, options, out, "tsr_l1_loss", l1_loss);
}
tsr_status tsr_binary_cross_entropy(tsr_tensor* input, tsr_tensor* target, const tsr_loss_options* options,
                                    tsr_tensor** out) {
  return loss(input, target, options, out, "tsr_binary_cross_entropy", binary_cross_entropy);
}
tsr_status tsr_binary_cross_entropy_with_logits(tsr_tensor* input, tsr_tensor* target, const tsr_loss_options* options,
                                                tsr_tensor** out) {
  return loss(input, target, options, out, "tsr_binary_cross_entropy_with_logits", binary_cross_entropy_with_logits);
}

// ---- tessera/optim.h -------------------------------------------------------------

tsr_status tsr_optimizer_defaults(int32_t kind, tsr_optimizer_options* options) {
  return guard([&] {
    require(options, "options");
    if (kind < 0 || kind >= TSR_OPTIMIZER_KIND_COUNT)
      fail(TSR_ERR_INVALID_ARGUMENT,
           "tsr_optimizer_defaults: kind " + std::to_string(kind) + " is not a tsr_optimizer_kind (0 SGD, 1 Adam, 2 AdamW)");
    *options = default_optimizer_options(kind);
  });
}

tsr_status tsr_optimizer_create(int32_t num_params, tsr_tensor* const* params, const tsr_optimizer_options* options,
                                tsr_optimizer** out) {
  return guard([&] {
    require_out(out);
    *out = nullptr;
    const tsr_optimizer_options o = read_optimizer_options(require(options, "options"), "tsr_optimizer_create");
    check_optimizer_options(o);
    if (num_params < 0) fail(TSR_ERR_INVALID_ARGUMENT, "tsr_optimizer_create: num_params is negative");
    if (num_params > 0 && params == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "tsr_optimizer_create: params is NULL");
    auto opt = std::make_unique<tsr_optimizer>();
    opt->options = o;
    for (int32_t i = 0; i < num_params; ++i)
      opt->params.push_back(borrow(params[i], ("params[" + std::to_string(i) + "]").c_str()));
    check_optimizer_params(opt->params);
    opt->state.resize(opt->params.size());
    *out = opt.release();
  });
}

void tsr_optimizer_destroy(tsr_optimizer* opt) { delete opt; }

tsr_status tsr_optimizer_step(tsr_optimizer* opt) { return guard([&] { optimizer_step(require_optimizer(opt)); }); }

tsr_status tsr_optimizer_zero_grad(tsr_optimizer* opt, int32_t set_to_none) {
  return guard([&] { optimizer_zero_grad(require_optimizer(opt), set_to_none != 0); });
}

tsr_status tsr_optimizer_get_options(const tsr_optimizer* opt, tsr_optimizer_options* options) {
  return guard([&] {
    const tsr_optimizer& o = require_optimizer(opt);
    tsr_optimizer_options& dst = require(options, "options");
    if (dst.struct_size < TSR_STRUCT_SIZE(tsr_optimizer_options, kind))
      fail(TSR_ERR_INVALID_ARGUMENT, "tsr_optimizer_get_options: options->struct_size " +
                                         std::to_string(dst.struct_size) + " is too small (set it first)");
    const size_t size = std::min(dst.struct_size, sizeof(tsr_optimizer_options));
    std::memcpy(&dst, &o.options, size);
    dst.struct_size = size;
  });
}

tsr_status tsr_optimizer_set_options(tsr_optimizer* opt, const tsr_optimizer_options* options) {
  return guard([&] {
    tsr_optimizer& o = require_optimizer(opt);
    const tsr_optimizer_options next = read_optimizer_options(require(options, "options"), "tsr_optimizer_set_options");
    if (next.kind != o.options.kind)
      fail(TSR_ERR_INVALID_ARGUMENT, "tsr_optimizer_set_options: the kind cannot change (" +
                                         std::to_string(o.options.kind) + " to " + std::to_string(next.kind) + ")");
    check_optimizer_options(next);
    o.options = next;
  });
}

tsr_status tsr_optimizer_set_lr(tsr_optimizer* opt, double lr) {
  return guard([&] {
    tsr_optimizer& o = require_optimizer(opt);
    tsr_optimizer_options next = o.options;
    next.lr = lr;
    check_optimizer_options(next);
    o.options = next;
  });
}

int32_t tsr_optimizer_num_params(const tsr_optimizer* opt) {
  return opt == nullptr ? 0 : static_cast<int32_t>(opt->params.size());
}

tsr_status tsr_optimizer_param(const tsr_optimizer* opt, int32_t i, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    *out = nullptr;
    const tsr_optimizer& o = require_optimizer(opt);
    if (i < 0 || static_cast<size_t>(i) >= o.params.size())
      fail(TSR_ERR_INDEX, "tsr_optimizer_param: index " + std::to_string(i) + " is out of range for " +
                              std::to_string(o.params.size()) + " parameters");
    hand_out(o.params[static_cast<size_t>(i)], out);
  });
}

tsr_status tsr_optimizer_get_state(const tsr_optimizer* opt, int32_t i, const char* name, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    *out = nullptr;
    hand_out(optimizer_state(require_optimizer(opt), i, std::string(&require(name, "name"))), out);
  });
}

tsr_status tsr_optimizer_set_state(tsr_optimizer* opt, int32_t i, const char* name, tsr_tensor* value) {
  return guard([&] { set_optimizer_state(require_optimizer(opt), i, std::string(&require(name, "name")), value); });
}

}  // extern "C"
