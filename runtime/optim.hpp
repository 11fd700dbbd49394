// SPDX-License-Identifier: Apache-2.0
// The optimizers of tessera/optim.h (optim.cpp; the C API in
// api_optim.cpp): torch.optim's SGD, Adam and AdamW, their update written
// with the runtime's in-place ops, so that every device has them.
#pragma once

#include <string>
#include <vector>

#include "tensor.hpp"
#include "tessera/optim.h"

// The opaque handle of the C API: one optimizer, its parameters and their
// state.
struct tsr_optimizer {
  // State per parameter, torch's (empty refs before the first step).
  struct State {
    double step = 0;  // Adam, AdamW: the steps taken ("step")
    bool has_step = false;
    tessera::rt::TensorRef momentum_buffer, exp_avg, exp_avg_sq, max_exp_avg_sq;
  };
  tsr_optimizer_options options{};
  std::vector<tessera::rt::TensorRef> params;
  std::vector<State> state;
};

namespace tessera::rt {

// Throws torch's message for an invalid hyperparameter.
void check_optimizer_options(const tsr_optimizer_options& o);
// A copy of *options up to its struct_size, the rest torch's defaults for
// its kind.
tsr_optimizer_options read_optimizer_options(const tsr_optimizer_options& options, const char* fn);
tsr_optimizer_options default_optimizer_options(int32_t kind);
void check_optimizer_params(const std::vector<TensorRef>& params);
void optimizer_step(tsr_optimizer& opt);
void optimizer_zero_grad(tsr_optimizer& opt, bool set_to_none);
// The state tensor of param i named `name` (a reference to it; empty when
// it does not exist yet), and its replacement.
TensorRef optimizer_state(const tsr_optimizer& opt, int32_t i, const std::string& name);
void set_optimizer_state(tsr_optimizer& opt, int32_t i, const std::string& name, const tsr_tensor* value);

}  // namespace tessera::rt
