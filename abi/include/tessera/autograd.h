/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/autograd.h — gradients (public API, ABI 1.8).
 *
 * Included by tessera.h. PyTorch 1.13's autograd, in C: a floating-point
 * tensor (float16, bfloat16, float32, float64; since ABI 1.12 also
 * complex64 and complex128) may require grad; while grad mode is on, every
 * differentiable function of such tensors records how it made its result,
 * and tsr_backward / tsr_grad run that record backwards. The formulas are
 * the runtime's own functions on the tensors' devices, so a tensor of any
 * plugin's device gets gradients from the kernels that device already has.
 *
 *   leaf      a tensor the user made and set requires_grad on (or any
 *             tensor that does not require grad); tsr_backward adds its
 *             gradient into its .grad
 *   non-leaf  a result recorded from tensors that require grad; it has a
 *             grad_fn (tsr_tensor_grad_fn_name) and keeps .grad only after
 *             tsr_tensor_retain_grad
 *
 * Ownership: every tensor returned through `struct tsr_tensor** out` gives
 * the caller one reference (end it with tsr_tensor_release); tensors passed
 * in are borrowed for the call. A recorded graph holds references to what
 * its formulas need (saved tensors) until tsr_backward or tsr_grad frees
 * it (unless retain_graph) or its last result is released.
 *
 * Threads: grad mode is per thread (tsr_set_grad_enabled changes the
 * calling thread's only; a new thread starts with it on). Threads may
 * record and run separate graphs at once. Two threads running backward
 * through one graph at once, or writing .grad of one leaf while another
 * thread's backward accumulates into it, get their additions serialised
 * per leaf, in an unspecified order. Hooks run on the thread that called
 * tsr_backward or tsr_grad.
 *
 * Errors are PyTorch's, message for message where PyTorch has one: a
 * second backward through a freed graph, a saved tensor modified in place
 * ("... is at version 1; expected version 0 instead"), an in-place op on a
 * leaf that requires grad, requires_grad on an integer tensor.
 */
#ifndef TESSERA_AUTOGRAD_H
#define TESSERA_AUTOGRAD_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/export.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tsr_tensor;

/* ---- grad mode (per thread) --------------------------------------------- */

/* 1 while the calling thread records (the default), else 0. */
TSR_API int32_t tsr_is_grad_enabled(void);
/* Sets the calling thread's grad mode (torch.set_grad_enabled; 0 is
 * torch.no_grad) and returns the mode it replaces, so that a caller can
 * restore it. */
TSR_API int32_t tsr_set_grad_enabled(int32_t enabled);

/* ---- flags and gradients ------------------------------------------------ */

/* 1 when t requires grad (a leaf with the flag, or a recorded result). */
TSR_API int32_t tsr_tensor_requires_grad(const struct tsr_tensor* t);
/* requires_grad_: sets a leaf's flag. TSR_ERR_TYPE for a dtype that is
 * neither floating nor complex ("only Tensors of floating point dtype can
 * require gradients"; complex was refused before ABI 1.12);
 * TSR_ERR_INVALID_ARGUMENT for a non-leaf.
 * Complex gradients follow PyTorch's convention: a complex leaf's .grad is
 * dL/dRe + i dL/dIm of a real loss L, and a complex scalar result may start
 * tsr_backward with the implicit gradient 1. Functions whose formulas are
 * written for real tensors only fail in tsr_backward / tsr_grad when a
 * complex gradient reaches them (TSR_ERR_UNSUPPORTED, naming the function
 * and "not implemented for complex tensors"). Those with complex formulas:
 * arithmetic and pow with tensors and numbers, exp, log, sqrt, tanh,
 * sigmoid, abs, conj, real, imag, the trigonometric and hyperbolic
 * functions, expm1, log1p, log2, log10, sum, mean, prod, cumsum, cumprod,
 * vector_norm, matmul, views, copies and casts, cat, where, gather, scatter
 * and indexing, and tsr_fft. */
TSR_API tsr_status tsr_tensor_set_requires_grad(struct tsr_tensor* t, int32_t requires_grad);
/* 1 for a leaf: no grad_fn (PyTorch's is_leaf). */
TSR_API int32_t tsr_tensor_is_leaf(const struct tsr_tensor* t);
/* .grad: *out gets a new reference to it, or NULL when t has none. */
TSR_API tsr_status tsr_tensor_grad(const struct tsr_tensor* t, struct tsr_tensor** out);
/* Replaces .grad with `grad` (borrowed; the tensor keeps its own
 * reference), or drops it when grad is NULL. grad has t's shape, dtype and
 * device (PyTorch's "assigned grad has data of a different size" etc.). */
TSR_API tsr_status tsr_tensor_set_grad(struct tsr_tensor* t, struct tsr_tensor* grad);
/* retain_grad: a non-leaf keeps its gradient in .grad on later backward
 * calls (a no-op on a leaf that requires grad; TSR_ERR_INVALID_ARGUMENT on
 * a tensor that does not). */
TSR_API tsr_status tsr_tensor_retain_grad(struct tsr_tensor* t);
TSR_API int32_t tsr_tensor_retains_grad(const struct tsr_tensor* t);
/* The name of the node that made t, PyTorch's ("MulBackward0",
 * "AccumulateGrad" is never returned); NULL for a leaf. The string is
 * static: it lives as long as the library is loaded. For debugging. */
TSR_API const char* tsr_tensor_grad_fn_name(const struct tsr_tensor* t);
/* The storage's version counter (PyTorch's _version): in-place ops on any
 * view of the storage add one. 0 for a fresh tensor. */
TSR_API int64_t tsr_tensor_version(const struct tsr_tensor* t);
/* detach: a new view of t's storage that requires no grad and has no
 * grad_fn (it shares t's version counter). */
TSR_API tsr_status tsr_detach(struct tsr_tensor* t, struct tsr_tensor** out);
/* detach_: t itself loses its grad_fn and its flag (not for a view of a
 * recorded tensor, as in PyTorch). */
TSR_API tsr_status tsr_detach_(struct tsr_tensor* t);

/* ---- hooks --------------------------------------------------------------- */

/* A tensor hook (register_hook), called with the gradient computed for the
 * tensor it was registered on, before it is used (accumulated into a leaf's
 * .grad, or passed to the tensor's grad_fn). `grad` is borrowed for the
 * call. To replace the gradient, set *replacement to a tensor of grad's
 * shape (the runtime takes over that reference); leave it NULL to keep
 * grad. A status other than TSR_OK fails the backward call with a message
 * naming the hook and, when the hook's own Tessera call failed, its
 * message. The hook must not run backward itself. */
typedef tsr_status (*tsr_grad_hook_fn)(void* user_data, struct tsr_tensor* grad, struct tsr_tensor** replacement);
/* Registers fn on t (which requires grad). Hooks run in the order
 * registered; each sees the gradient the previous one left. *handle (> 0)
 * names the hook for tsr_tensor_remove_hook. release_user_data, when not
 * NULL, is called once with user_data when the hook is removed or t's
 * record is freed. */
TSR_API tsr_status tsr_tensor_register_hook(struct tsr_tensor* t, tsr_grad_hook_fn fn, void* user_data,
                                            void (*release_user_data)(void* user_data), int64_t* handle);
/* Removes a hook; an unknown handle is TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_tensor_remove_hook(struct tsr_tensor* t, int64_t handle);

/* ---- running the graph backwards ---------------------------------------- */

/* Options of tsr_backward and tsr_grad. NULL options: the defaults. */
typedef struct tsr_autograd_options {
  size_t struct_size;   /* TSR_AUTOGRAD_OPTIONS_STRUCT_SIZE, set by the caller */
  int32_t retain_graph; /* -1 (default): as create_graph; 0: free the saved tensors; 1: keep them */
  int32_t create_graph; /* 1: record the backward itself (gradients of gradients); default 0 */
  int32_t allow_unused; /* tsr_grad: 1 gives NULL for an input the outputs do not reach, 0 fails */
  int32_t reserved;     /* 0 */
} tsr_autograd_options;
#define TSR_AUTOGRAD_OPTIONS_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_autograd_options, reserved)

/* torch.autograd.backward: the gradients of the outputs (num_outputs >= 1)
 * with respect to every leaf they reach, added into the leaves' .grad
 * (and into retained non-leaves'). grad_outputs: NULL, or one entry per
 * output, each of its output's shape, or NULL for a one-element output
 * (a gradient of 1). inputs: when num_inputs > 0, only these tensors
 * (leaves or not) accumulate, as PyTorch's inputs=. */
TSR_API tsr_status tsr_backward(int32_t num_outputs, struct tsr_tensor* const* outputs,
                                struct tsr_tensor* const* grad_outputs, int32_t num_inputs,
                                struct tsr_tensor* const* inputs, const tsr_autograd_options* options);
/* torch.autograd.grad: out[i] gets a new reference to the gradient of the
 * outputs with respect to inputs[i] (num_inputs >= 1); nothing is added
 * into any .grad. An input the outputs do not reach gets NULL with
 * allow_unused, else the call fails. With create_graph the results are
 * recorded, so that they can be differentiated again. On failure every
 * out[i] is NULL. */
TSR_API tsr_status tsr_grad(int32_t num_outputs, struct tsr_tensor* const* outputs,
                            struct tsr_tensor* const* grad_outputs, int32_t num_inputs,
                            struct tsr_tensor* const* inputs, const tsr_autograd_options* options,
                            struct tsr_tensor** out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_AUTOGRAD_H */
