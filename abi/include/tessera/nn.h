/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/nn.h — the functions a training loop is made of (public API,
 * since ABI 1.10).
 *
 * Included by tessera.h. torch.nn.functional's functions in C, with
 * PyTorch 1.13's semantics and, where PyTorch has one, its error message:
 * a layer (linear, layer_norm, embedding, dropout), the activations that
 * tsr_unary lacks (relu, sigmoid and tanh are TSR_OP_RELU, TSR_OP_SIGMOID
 * and TSR_OP_TANH) and the losses. Each is built above the plugin line
 * from ops every device has, so it runs on any plugin's device, and each
 * records one node with a fused, numerically stable gradient whose
 * formula is itself recorded (gradients of gradients work). The results
 * are PyTorch's to float64 rounding; the random draws of dropout are
 * Tessera's own (the runtime's seeded counter-based generator, the same
 * numbers on every device), not PyTorch's.
 *
 * Ownership: as everywhere in tessera.h, tensors passed in are borrowed
 * for the call; every tensor returned through `struct tsr_tensor** out`
 * gives the caller one reference (tsr_tensor_release ends it). An optional
 * tensor argument is NULL when absent.
 *
 * Dtypes: the floating dtypes (float16, bfloat16, float32, float64); all
 * floating tensors of one call have one dtype and one device (no implicit
 * promotion, as torch.nn.functional). Class indices are int64.
 */
#ifndef TESSERA_NN_H
#define TESSERA_NN_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/export.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tsr_tensor;

/* ---- layers ---------------------------------------------------------------- */

/* linear: x [.., in] times weight [out, in] transposed, plus bias [out]
 * (bias NULL: none): [.., out]. A 1-d x [in] gives [out]. */
TSR_API tsr_status tsr_linear(struct tsr_tensor* x, struct tsr_tensor* weight, struct tsr_tensor* bias,
                              struct tsr_tensor** out);

/* layer_norm over the last num_normalized_dims dims of x (torch's
 * normalized_shape is x's last dims): (x - mean) / sqrt(var + eps) * weight
 * + bias, the variance biased; weight and bias (each NULL for none) have
 * the normalized shape. eps > 0 is usual; 1e-5 is torch's default. */
TSR_API tsr_status tsr_layer_norm(struct tsr_tensor* x, int32_t num_normalized_dims, struct tsr_tensor* weight,
                                  struct tsr_tensor* bias, double eps, struct tsr_tensor** out);

/* padding_idx of tsr_embedding when there is none. */
#define TSR_NO_PADDING_IDX INT64_MIN

/* embedding: the rows of weight [num, dim] at the int64 indices (any
 * shape, each in [0, num)): [indices' shape.., dim]. The gradient of
 * weight adds each row's gradients; the row padding_idx (counted from the
 * end when negative; TSR_NO_PADDING_IDX for none) gets none; with
 * scale_grad_by_freq != 0 each row's gradient is divided by how often its
 * index occurs in indices. An index out of range is TSR_ERR_INDEX naming
 * it. torch's max_norm is tsr_embedding_renorm_ before the call. */
TSR_API tsr_status tsr_embedding(struct tsr_tensor* weight, struct tsr_tensor* indices, int64_t padding_idx,
                                 int32_t scale_grad_by_freq, struct tsr_tensor** out);
/* torch.embedding_renorm_: each row of weight that indices name, whose
 * norm of order norm_type exceeds max_norm, is scaled in place by
 * max_norm / (norm + 1e-7), as torch. Not recorded (torch runs it under
 * no_grad); weight must not require grad unless grad mode is off. */
TSR_API tsr_status tsr_embedding_renorm_(struct tsr_tensor* weight, struct tsr_tensor* indices, double max_norm,
                                         double norm_type);

/* dropout: in training (training != 0), each element of x is zeroed with
 * probability p and the others are scaled by 1 / (1 - p); otherwise (or
 * p == 0) x itself is returned (a new reference to the same tensor, as
 * torch returns its input). p in [0, 1]; p == 1 gives zeros. The draws
 * come from the runtime's generator (tsr_manual_seed), in float32 on x's
 * device: one seed gives one mask on every device. */
TSR_API tsr_status tsr_dropout(struct tsr_tensor* x, double p, int32_t training, struct tsr_tensor** out);

/* ---- activations --------------------------------------------------------- */

/* gelu: x * Phi(x) with the normal distribution's Phi by erf
 * (approximate 0, torch's 'none'), or its tanh approximation (approximate
 * 1, torch's 'tanh'). gelu and silu are the ops GELU, GELU_TANH and SILU of
 * tessera/ops.h: a device's fused kernel runs where its plugin registers
 * one, the runtime's composition of primitives elsewhere. */
TSR_API tsr_status tsr_gelu(struct tsr_tensor* x, int32_t approximate, struct tsr_tensor** out);
/* silu (swish): x * sigmoid(x). */
TSR_API tsr_status tsr_silu(struct tsr_tensor* x, struct tsr_tensor** out);
/* softplus: log(1 + exp(beta x)) / beta, and x itself where beta x >
 * threshold (torch's defaults: beta 1, threshold 20). */
TSR_API tsr_status tsr_softplus(struct tsr_tensor* x, double beta, double threshold, struct tsr_tensor** out);

/* ---- losses ---------------------------------------------------------------- */

/* How a loss reduces its elements: torch's reduction= */
typedef enum tsr_reduction {
  TSR_REDUCTION_NONE = 0, /* one loss per element (per sample for the class losses) */
  TSR_REDUCTION_MEAN = 1, /* their mean (weighted mean for nll_loss/cross_entropy with indices) */
  TSR_REDUCTION_SUM = 2,  /* their sum */
  TSR_REDUCTION_MAX_ENUM = 0x7FFFFFFF
} tsr_reduction;

/* The options of the losses; NULL options: the defaults
 * (TSR_LOSS_OPTIONS_INIT). Each loss reads the fields it documents. */
typedef struct tsr_loss_options {
  size_t struct_size;        /* TSR_LOSS_OPTIONS_STRUCT_SIZE, set by the caller */
  int32_t reduction;         /* a tsr_reduction; default TSR_REDUCTION_MEAN */
  int32_t reserved;          /* 0 */
  int64_t ignore_index;      /* nll_loss, cross_entropy with indices: a target to skip; default -100 */
  double label_smoothing;    /* cross_entropy: in [0, 1]; default 0 */
  struct tsr_tensor* weight; /* borrowed or NULL: a weight per class [C] (nll_loss, cross_entropy) or one
                                broadcast over the elements (binary_cross_entropy*) */
  struct tsr_tensor* pos_weight; /* borrowed or NULL: binary_cross_entropy_with_logits' weight of positives,
                                    broadcast over the classes (last dim) */
} tsr_loss_options;
#define TSR_LOSS_OPTIONS_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_loss_options, pos_weight)
#define TSR_LOSS_OPTIONS_INIT {TSR_LOSS_OPTIONS_STRUCT_SIZE, TSR_REDUCTION_MEAN, 0, -100, 0.0, NULL, NULL}

/* cross_entropy of logits input [N, C] (or [C], or [N, C, d1, ..]) against
 * target: int64 class indices [N] (or [], [N, d1, ..]), or class
 * probabilities of input's shape and dtype. log_softmax over the class dim,
 * then nll_loss; label_smoothing mixes the target with the uniform
 * distribution. Reads reduction, ignore_index (indices only), label_smoothing
 * and weight. A class index outside [0, C) that is not ignore_index is
 * TSR_ERR_INDEX ("Target 7 is out of bounds."). */
TSR_API tsr_status tsr_cross_entropy(struct tsr_tensor* input, struct tsr_tensor* target,
                                     const tsr_loss_options* options, struct tsr_tensor** out);
/* nll_loss of log-probabilities input [N, C] (or [C], [N, C, d1, ..])
 * against int64 class indices: -input[n, target[n]] * weight[target[n]];
 * the mean divides by the sum of the weights of the targets not ignored.
 * Reads reduction, ignore_index and weight. */
TSR_API tsr_status tsr_nll_loss(struct tsr_tensor* input, struct tsr_tensor* target, const tsr_loss_options* options,
                                struct tsr_tensor** out);
/* mse_loss: (input - target)^2; l1_loss: |input - target|; input and
 * target broadcast (torch warns when their shapes differ; Tessera does
 * not). Read reduction. */
TSR_API tsr_status tsr_mse_loss(struct tsr_tensor* input, struct tsr_tensor* target, const tsr_loss_options* options,
                                struct tsr_tensor** out);
TSR_API tsr_status tsr_l1_loss(struct tsr_tensor* input, struct tsr_tensor* target, const tsr_loss_options* options,
                               struct tsr_tensor** out);
/* binary_cross_entropy of probabilities input (in [0, 1]) against target
 * of input's shape: -weight (target log(input) + (1 - target) log(1 -
 * input)), each log clamped to >= -100 as torch. An input outside [0, 1]
 * is TSR_ERR_INVALID_ARGUMENT. Reads reduction and weight. */
TSR_API tsr_status tsr_binary_cross_entropy(struct tsr_tensor* input, struct tsr_tensor* target,
                                            const tsr_loss_options* options, struct tsr_tensor** out);
/* binary_cross_entropy_with_logits: the same of sigmoid(input), computed
 * from the logits without overflow; pos_weight weighs the positive term.
 * Reads reduction, weight and pos_weight. */
TSR_API tsr_status tsr_binary_cross_entropy_with_logits(struct tsr_tensor* input, struct tsr_tensor* target,
                                                        const tsr_loss_options* options, struct tsr_tensor** out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_NN_H */
