/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/optim.h — optimizers (public API, since ABI 1.10).
 *
 * Included by tessera.h. torch.optim's SGD, Adam and AdamW in C, so that a
 * program in any language trains without writing update rules: an
 * optimizer holds its parameters and their state, and tsr_optimizer_step
 * updates each parameter in place from its .grad (tsr_backward fills it),
 * on the parameter's own device, with PyTorch 1.13's update formulas
 * (its single-tensor forms, the default on the CPU), operation for
 * operation, so that in float64 the parameters agree with torch.optim's
 * to rounding. The update is written with the runtime's in-place ops,
 * which every device has, under grad mode off (torch's @no_grad).
 *
 * A training step:
 *   tsr_optimizer_zero_grad(opt, 1);  forward;  tsr_backward(1, &loss, ...);
 *   tsr_optimizer_step(opt);
 * The learning rate, or any hyperparameter, may change between steps
 * (tsr_optimizer_set_lr, tsr_optimizer_set_options): a scheduler is a loop
 * that sets it.
 *
 * Ownership: tsr_optimizer_create retains each parameter (it keeps one
 * reference until tsr_optimizer_destroy, which must come before the
 * parameters' runtime is destroyed). State tensors (momentum buffers,
 * moments) live on each parameter's device in its dtype and belong to the
 * optimizer; tsr_optimizer_get_state hands out a new reference to one.
 *
 * Threads: an optimizer is used by one thread at a time (the caller
 * serialises its calls); different optimizers may step at once.
 */
#ifndef TESSERA_OPTIM_H
#define TESSERA_OPTIM_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/export.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tsr_tensor;
typedef struct tsr_optimizer tsr_optimizer;

typedef enum tsr_optimizer_kind {
  /* torch.optim.SGD: g += weight_decay p (when non-zero); with momentum,
   * b = g on the first step, then b = momentum b + (1 - dampening) g, and g
   * = b (or, nesterov, g + momentum b); p -= lr g. */
  TSR_OPTIMIZER_SGD = 0,
  /* torch.optim.Adam: g += weight_decay p (L2 in the gradient); m = beta1 m
   * + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2; with amsgrad, vmax =
   * max(vmax, v) replaces v; p -= lr / (1 - beta1^t) m / (sqrt(v) /
   * sqrt(1 - beta2^t) + eps). */
  TSR_OPTIMIZER_ADAM = 1,
  /* torch.optim.AdamW: Adam with the decay decoupled: p *= 1 - lr
   * weight_decay before the update, g unchanged. */
  TSR_OPTIMIZER_ADAMW = 2,
  TSR_OPTIMIZER_KIND_COUNT = 3,
  TSR_OPTIMIZER_KIND_MAX_ENUM = 0x7FFFFFFF
} tsr_optimizer_kind;

/* An optimizer's hyperparameters. tsr_optimizer_defaults fills torch's
 * defaults for a kind; each kind reads the fields its comment names. */
typedef struct tsr_optimizer_options {
  size_t struct_size;  /* TSR_OPTIMIZER_OPTIONS_STRUCT_SIZE, set by the caller */
  int32_t kind;        /* a tsr_optimizer_kind */
  int32_t maximize;    /* all: 1 ascends (the gradient's sign flipped); default 0 */
  double lr;           /* all: the learning rate, >= 0; Adam, AdamW default 1e-3; SGD has none (NaN:
                          create fails until it is set, as torch's "required" lr) */
  double weight_decay; /* all: >= 0; SGD, Adam default 0, AdamW 1e-2 */
  double momentum;     /* SGD: >= 0, default 0 */
  double dampening;    /* SGD: default 0 */
  int32_t nesterov;    /* SGD: 1 needs momentum > 0 and dampening 0; default 0 */
  int32_t amsgrad;     /* Adam, AdamW: default 0 */
  double beta1;        /* Adam, AdamW: in [0, 1); default 0.9 */
  double beta2;        /* Adam, AdamW: in [0, 1); default 0.999 */
  double eps;          /* Adam, AdamW: >= 0; default 1e-8 */
} tsr_optimizer_options;
#define TSR_OPTIMIZER_OPTIONS_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_optimizer_options, eps)

/* Fills *options with torch 1.13's defaults for `kind` (struct_size set). */
TSR_API tsr_status tsr_optimizer_defaults(int32_t kind, tsr_optimizer_options* options);

/* An optimizer of num_params >= 0 distinct parameters: floating leaf
 * tensors (float16, bfloat16, float32, float64), on any devices. torch's
 * checks, with its messages: "can't optimize a non-leaf Tensor", an
 * invalid hyperparameter ("Invalid learning rate: -1"), a parameter given
 * twice. *out is owned by the caller (tsr_optimizer_destroy). */
TSR_API tsr_status tsr_optimizer_create(int32_t num_params, struct tsr_tensor* const* params,
                                        const tsr_optimizer_options* options, tsr_optimizer** out);
/* Releases the parameters and the state. NULL is a no-op. */
TSR_API void tsr_optimizer_destroy(tsr_optimizer* opt);

/* One update of every parameter that has a .grad (the others, and their
 * state, are left as they are, as torch skips them). A failure (a .grad
 * of another shape, device or dtype than its parameter) leaves the
 * parameters updated before it updated, as torch; the message names the
 * parameter's index. */
TSR_API tsr_status tsr_optimizer_step(tsr_optimizer* opt);
/* Each parameter's .grad dropped (set_to_none != 0) or zeroed in place
 * (and detached from any graph), as torch's zero_grad. */
TSR_API tsr_status tsr_optimizer_zero_grad(tsr_optimizer* opt, int32_t set_to_none);

/* The hyperparameters now; set_options replaces them (kind must stay the
 * same), checked as create checks them; set_lr changes lr alone. */
TSR_API tsr_status tsr_optimizer_get_options(const tsr_optimizer* opt, tsr_optimizer_options* options);
TSR_API tsr_status tsr_optimizer_set_options(tsr_optimizer* opt, const tsr_optimizer_options* options);
TSR_API tsr_status tsr_optimizer_set_lr(tsr_optimizer* opt, double lr);

/* The number of parameters; *out a new reference to parameter i. */
TSR_API int32_t tsr_optimizer_num_params(const tsr_optimizer* opt);
TSR_API tsr_status tsr_optimizer_param(const tsr_optimizer* opt, int32_t i, struct tsr_tensor** out);

/* Parameter i's state, by torch's names: "step" (a 0-d float32 tensor of
 * the steps taken; Adam, AdamW), "momentum_buffer" (SGD with momentum),
 * "exp_avg", "exp_avg_sq", "max_exp_avg_sq" (amsgrad). get: *out a new
 * reference to the state tensor itself (writes into it change the state),
 * or NULL while it does not exist yet (before the first step). set: the
 * state becomes a copy of value (borrowed), cast to the parameter's dtype
 * and moved to its device, of the parameter's shape ("step": any 0-d or
 * one-element tensor), as torch's load_state_dict; NULL value removes it.
 * An unknown name is TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_optimizer_get_state(const tsr_optimizer* opt, int32_t i, const char* name,
                                           struct tsr_tensor** out);
TSR_API tsr_status tsr_optimizer_set_state(tsr_optimizer* opt, int32_t i, const char* name,
                                           struct tsr_tensor* value);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_OPTIM_H */
