// SPDX-License-Identifier: Apache-2.0
// Note [Every public function has a gradient or a reason]
//   What each function of the public C API (tessera.h, autograd.h,
//   distributed.h) gives autograd, one row per function, as op_gradient()
//   gives each op of TSR_OP_LIST its row (derivatives.hpp):
//     kFormula   its floating result records a node of the derivative table
//                (derivatives.cpp, derivatives_linalg.cpp), or of the ops it
//                is built from;
//     kView      a view: ViewBackward (or ExpandBackward), named as torch
//                names the view's node;
//     kInplace   writes into an existing tensor: recorded as Note [In-place
//                ops] says (leaves refuse, histories are rewritten);
//     kOut       an out= form: refuses inputs that require grad (check_out);
//     kNone      its result has no gradient: a creation, a random draw, a
//                comparison or an integer result, a copy to the host, or a
//                collective (not recorded, as torch.distributed's are not);
//     kPending   records NotImplementedBackward, whose backward fails naming
//                the function (never a silent zero): not written yet;
//     kRefused   the same, where PyTorch 1.13 has no derivative either;
//     kNoTensor  makes no tensor: the runtime, metadata, errors, autograd's
//                own controls.
//   Two checks keep the table whole. At build time,
//   cmake/CheckPublicGradients.cmake fails when a function declared TSR_API
//   in those headers has no row here; when this file compiles
//   (public_gradients.cpp), each row's function must exist with that name.
//   A new public function therefore breaks the build until it is given its
//   row.
#pragma once

#include <cstdint>

namespace tessera::rt::autograd {

enum class PublicGradient : uint8_t { kFormula, kView, kInplace, kOut, kNone, kPending, kRefused, kNoTensor };

// clang-format off
#define TSR_PUBLIC_GRADIENTS(M)                                                                 \
  /* runtime, devices, errors */                                                                \
  M(tsr_abi_version, kNoTensor) M(tsr_runtime_create, kNoTensor) M(tsr_runtime_destroy, kNoTensor) \
  M(tsr_runtime_describe, kNoTensor) M(tsr_runtime_default_device, kNoTensor)                   \
  M(tsr_runtime_device_count, kNoTensor) M(tsr_runtime_device_at, kNoTensor)                    \
  M(tsr_runtime_has_kernel, kNoTensor) M(tsr_device_parse, kNoTensor) M(tsr_device_format, kNoTensor) \
  M(tsr_device_is_host_accessible, kNoTensor) M(tsr_synchronize, kNoTensor)                     \
  M(tsr_empty_cache, kNoTensor) M(tsr_get_memory_stats, kNoTensor) M(tsr_manual_seed, kNoTensor) \
  M(tsr_set_print_precision, kNoTensor) M(tsr_set_float32_matmul_precision, kNoTensor)          \
  M(tsr_get_float32_matmul_precision, kNoTensor) M(tsr_last_error_message, kNoTensor)           \
  M(tsr_last_error_status, kNoTensor) M(tsr_clear_last_error, kNoTensor) M(tsr_status_name, kNoTensor) \
  M(tsr_string_free, kNoTensor) M(tsr_struct_size, kNoTensor) M(tsr_dtype_itemsize, kNoTensor)  \
  M(tsr_dtype_get_name, kNoTensor) M(tsr_op_get_name, kNoTensor) M(tsr_op_count, kNoTensor)     \
  M(tsr_promote_types, kNoTensor) M(tsr_broadcast_shapes, kNoTensor) M(tsr_get_finfo, kNoTensor) \
  /* tensor metadata and lifetime */                                                            \
  M(tsr_tensor_retain, kNoTensor) M(tsr_tensor_release, kNoTensor) M(tsr_tensor_runtime, kNoTensor) \
  M(tsr_tensor_ndim, kNoTensor) M(tsr_tensor_shape, kNoTensor) M(tsr_tensor_strides, kNoTensor) \
  M(tsr_tensor_storage_offset, kNoTensor) M(tsr_tensor_dtype, kNoTensor) M(tsr_tensor_device, kNoTensor) \
  M(tsr_tensor_numel, kNoTensor) M(tsr_tensor_element_size, kNoTensor)                          \
  M(tsr_tensor_is_contiguous, kNoTensor) M(tsr_tensor_storage_data, kNoTensor)                  \
  M(tsr_tensor_storage_nbytes, kNoTensor) M(tsr_tensor_describe, kNoTensor)                     \
  M(tsr_tensor_is_host_accessible, kNoTensor) M(tsr_format, kNoTensor) M(tsr_format_layout, kNoTensor) \
  M(tsr_assert_close, kNoTensor)                                                                \
  /* creation: constants and draws */                                                           \
  M(tsr_empty, kNone) M(tsr_zeros, kNone) M(tsr_ones, kNone) M(tsr_full, kNone) M(tsr_arange, kNone) \
  M(tsr_linspace, kNone) M(tsr_eye, kNone) M(tsr_rand, kNone) M(tsr_randn, kNone)               \
  M(tsr_from_host, kNone) M(tsr_from_external, kNone)                                           \
  /* host access */                                                                             \
  M(tsr_read, kNone) M(tsr_item, kNone) M(tsr_copy_to_host, kNone) M(tsr_tensor_get_item, kNone) \
  M(tsr_tensor_set_item, kInplace) M(tsr_copy_from_host, kInplace)                              \
  /* views */                                                                                   \
  M(tsr_view, kView) M(tsr_reshape, kView) M(tsr_transpose, kView) M(tsr_t, kView)              \
  M(tsr_permute, kView) M(tsr_slice, kView) M(tsr_select, kView) M(tsr_unsqueeze, kView)        \
  M(tsr_squeeze, kView) M(tsr_squeeze_all, kView) M(tsr_expand, kView) M(tsr_flatten, kView)    \
  M(tsr_as_strided, kView) M(tsr_diagonal, kView) M(tsr_real, kView) M(tsr_imag, kView) M(tsr_view_dtype, kView)         \
  /* copies */                                                                                  \
  M(tsr_contiguous, kFormula) M(tsr_clone, kFormula) M(tsr_to, kFormula) M(tsr_to_dtype, kFormula) \
  M(tsr_to_device, kFormula) M(tsr_copy_, kInplace) M(tsr_fill_, kInplace)                      \
  /* elementwise, reductions, products */                                                       \
  M(tsr_binary, kFormula) M(tsr_binary_scalar, kFormula) M(tsr_unary, kFormula) M(tsr_math, kFormula) \
  M(tsr_where, kFormula) M(tsr_reduce, kFormula) M(tsr_reduce_ex, kFormula) M(tsr_matmul, kFormula) \
  M(tsr_binary_, kInplace) M(tsr_binary_scalar_, kInplace) M(tsr_unary_, kInplace)              \
  M(tsr_binary_out, kOut) M(tsr_binary_scalar_out, kOut) M(tsr_unary_out, kOut) M(tsr_math_out, kOut) \
  M(tsr_matmul_out, kOut)                                                                       \
  M(tsr_softmax, kFormula) M(tsr_log_softmax, kFormula) M(tsr_logsumexp, kFormula)              \
  /* indexing and manipulation */                                                               \
  M(tsr_cumsum, kFormula) M(tsr_gather, kFormula) M(tsr_take, kFormula) M(tsr_sort, kFormula)   \
  M(tsr_concat, kFormula) M(tsr_stack, kFormula) M(tsr_roll, kFormula) M(tsr_flip, kFormula)    \
  M(tsr_tril, kFormula) M(tsr_triu, kFormula) M(tsr_scatter_, kInplace) M(tsr_nonzero, kNone)   \
  M(tsr_unique, kRefused)                                                                       \
  M(tsr_cumprod, kFormula) M(tsr_searchsorted, kNone) M(tsr_clamp, kFormula)                                           \
  /* linear algebra */                                                                          \
  M(tsr_linalg_cholesky, kFormula) M(tsr_linalg_solve, kFormula) M(tsr_linalg_inv, kFormula)    \
  M(tsr_linalg_det, kFormula) M(tsr_linalg_slogdet, kFormula) M(tsr_linalg_qr, kFormula)        \
  M(tsr_linalg_svd, kFormula) M(tsr_linalg_eigh, kFormula) M(tsr_linalg_vector_norm, kFormula)  \
  M(tsr_linalg_pinv, kFormula)                                                                  \
  M(tsr_linalg_lu_factor, kFormula)                                                             \
  /* eig, eigvals (ABI 1.11): no formula written yet: the results record NotImplementedBackward */ \
  M(tsr_linalg_eig, kPending) M(tsr_linalg_eigvals, kPending)                                   \
  /* Fourier transforms (fft.h): one node per call, the adjoint transform (derivatives_fft.cpp) */ \
  M(tsr_fft_options_init, kNoTensor) M(tsr_fft, kFormula)                                       \
  /* autograd's own */                                                                          \
  M(tsr_is_grad_enabled, kNoTensor) M(tsr_set_grad_enabled, kNoTensor)                          \
  M(tsr_tensor_requires_grad, kNoTensor) M(tsr_tensor_set_requires_grad, kNoTensor)             \
  M(tsr_tensor_is_leaf, kNoTensor) M(tsr_tensor_grad, kNoTensor) M(tsr_tensor_set_grad, kNoTensor) \
  M(tsr_tensor_retain_grad, kNoTensor) M(tsr_tensor_retains_grad, kNoTensor)                    \
  M(tsr_tensor_grad_fn_name, kNoTensor) M(tsr_tensor_version, kNoTensor) M(tsr_detach, kNoTensor) \
  M(tsr_detach_, kNoTensor) M(tsr_tensor_register_hook, kNoTensor) M(tsr_tensor_remove_hook, kNoTensor) \
  M(tsr_backward, kNoTensor) M(tsr_grad, kNoTensor)                                             \
  /* training's functions (nn.h, ABI 1.10): fused formulas or recorded composites */             \
  M(tsr_linear, kFormula) M(tsr_layer_norm, kFormula) M(tsr_embedding, kFormula)                \
  M(tsr_embedding_renorm_, kNone) M(tsr_dropout, kFormula) M(tsr_gelu, kFormula)                \
  M(tsr_silu, kFormula) M(tsr_softplus, kFormula) M(tsr_cross_entropy, kFormula)                \
  M(tsr_nll_loss, kFormula) M(tsr_mse_loss, kFormula) M(tsr_l1_loss, kFormula)                  \
  M(tsr_binary_cross_entropy, kFormula) M(tsr_binary_cross_entropy_with_logits, kFormula)       \
  /* optimizers (optim.h, ABI 1.10): updates run under no_grad, as torch.optim's */             \
  M(tsr_optimizer_defaults, kNoTensor) M(tsr_optimizer_create, kNoTensor)                       \
  M(tsr_optimizer_destroy, kNoTensor) M(tsr_optimizer_step, kNoTensor)                          \
  M(tsr_optimizer_zero_grad, kNoTensor) M(tsr_optimizer_get_options, kNoTensor)                 \
  M(tsr_optimizer_set_options, kNoTensor) M(tsr_optimizer_set_lr, kNoTensor)                    \
  M(tsr_optimizer_num_params, kNoTensor) M(tsr_optimizer_param, kNoTensor)                      \
  M(tsr_optimizer_get_state, kNoTensor) M(tsr_optimizer_set_state, kNoTensor)                   \
  /* collectives (distributed.h) */                                                             \
  M(tsr_comm_world, kNoTensor) M(tsr_comm_split, kNoTensor) M(tsr_comm_rank, kNoTensor)         \
  M(tsr_comm_size, kNoTensor) M(tsr_comm_release, kNoTensor) M(tsr_comm_timeout, kNoTensor)     \
  M(tsr_all_reduce, kNone) M(tsr_broadcast, kNone) M(tsr_comm_reduce, kNone) M(tsr_all_gather, kNone) \
  M(tsr_reduce_scatter, kNone) M(tsr_all_to_all, kNone) M(tsr_send, kNone) M(tsr_recv, kNone)   \
  M(tsr_barrier, kNoTensor) M(tsr_work_wait, kNoTensor) M(tsr_work_test, kNoTensor)             \
  M(tsr_work_release, kNoTensor)                                                                \
  /* weights on disk (safetensors.h): a loaded tensor is a new leaf */                          \
  M(tsr_safetensors_save, kNoTensor) M(tsr_safetensors_open, kNoTensor)                         \
  M(tsr_safetensors_open_memory, kNoTensor) M(tsr_safetensors_free, kNoTensor)                  \
  M(tsr_safetensors_count, kNoTensor) M(tsr_safetensors_name_at, kNoTensor)                     \
  M(tsr_safetensors_find, kNoTensor) M(tsr_safetensors_info, kNoTensor)                         \
  M(tsr_safetensors_get, kNone) M(tsr_safetensors_metadata_count, kNoTensor)                    \
  M(tsr_safetensors_metadata_key_at, kNoTensor) M(tsr_safetensors_metadata_get, kNoTensor)   \
  /* DLPack 1.x (dlpack_exchange.h, ABI 1.11): memory handed over; an import is a new leaf */   \
  M(tsr_to_dlpack_versioned, kNoTensor) M(tsr_from_dlpack_versioned, kNone)
// clang-format on

}  // namespace tessera::rt::autograd
