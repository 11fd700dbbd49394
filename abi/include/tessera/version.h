/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/version.h — the ABI version and the rules for changing it.
 *
 * The ABI version is a (major, minor) pair, packed as TSR_ABI_VERSION.
 *
 * The package version, the pkg-config version and the SONAME follow the ABI:
 * the top CMakeLists.txt reads TSR_ABI_VERSION_MAJOR and _MINOR below, so the
 * package is MAJOR.MINOR.0 (find_package(Tessera 1.N) takes any 1.x from 1.N
 * on, never another major; `pkg-config --modversion tessera` says the same),
 * and libtessera's SONAME is libtessera.so.MAJOR. There is no other version
 * number to bump.
 *
 * Rules (see also the note "Extensible structs" in tessera/status.h):
 *  - MINOR bump: something was *appended*: a field at the end of a struct
 *    that starts with `size_t struct_size`, a new optional slot at the end of
 *    an interface table, a new enum value (op, dtype, status) at the end of
 *    its list, a new function in the public API. Old plugins keep working on a
 *    newer runtime and new plugins on an older runtime, because each side
 *    reads at most min(its own sizeof, the other's struct_size) bytes and
 *    treats anything past that as absent (NULL / zero).
 *  - MAJOR bump: anything else — a field removed, reordered, resized or whose
 *    meaning changed, a frozen value type (tsr_device, tsr_scalar,
 *    tsr_kernel_entry) changed, a required slot added. The runtime refuses a
 *    plugin of another major version before calling anything else, with a
 *    message that names both versions.
 *  - Negotiation: the runtime passes its version in tsr_plugin_init_args; the
 *    plugin answers with the version it was built against in
 *    tsr_plugin_api.abi_version. Both then use only what the smaller minor
 *    version defines. A newer runtime hands an older plugin no dtype, op,
 *    MATH function, scalar kind, params meaning or field that the history
 *    below dates after the plugin's minor, not even as a cast's source or a
 *    further output; a call holding one runs on the CPU fallback where
 *    configured, or fails naming the plugin, its ABI and what it predates
 *    (tessera/plugin.h says how; the runtime's table of it is
 *    runtime/abi_history.hpp, checked against this header when it builds).
 *
 * History:
 *   1.0  the first ABI.
 *   1.1  tsr_device_iface.memory_stats (optional slot, appended);
 *        tsr_empty_cache, tsr_get_memory_stats and struct tsr_memory_stats in the
 *        public API.
 *   1.2  tsr_binary_out, tsr_binary_scalar_out, tsr_unary_out and
 *        tsr_matmul_out in the public API (the plugin ABI is unchanged: a 1.1
 *        plugin is a 1.2 one); tsr_binary_ and tsr_binary_scalar_ take the
 *        comparisons too (a = a < b, as PyTorch's lt_); tessera/element.h
 *        (inline helpers, no new symbols).
 *   1.3  tsr_set_float32_matmul_precision, tsr_get_float32_matmul_precision
 *        and enum tsr_matmul_precision in the public API; MATMUL's params[0]
 *        carries that precision (it was 0 or 1, "TF32 allowed", which the
 *        new values keep meaning).
 *   1.4  tessera/export.h (TSR_API, TSR_PLUGIN_EXPORT, TSR_INLINE: the headers
 *        compile as C89) and tessera/scalar.h (tsr_scalar moved out of
 *        plugin.h, unchanged, with constructors); tsr_runtime_options.
 *        abi_version and reserved2 (appended) with TSR_RUNTIME_OPTIONS_INIT;
 *        tsr_runtime_destroy returns a tsr_status (was void);
 *        tsr_clear_last_error, tsr_dtype_itemsize, tsr_dtype_get_name,
 *        tsr_op_get_name, tsr_op_count, tsr_struct_size,
 *        tsr_device_is_host_accessible, tsr_tensor_is_host_accessible,
 *        tsr_tensor_get_item, tsr_tensor_set_item, tsr_copy_to_host and
 *        tsr_copy_from_host in the public API; the op table in ops.h
 *        (TSR_OP_LIST, enum tsr_op_kind, the inline tsr_op_kind and
 *        tsr_op_arity; the op values are unchanged) and TSR_CONSTEXPR. The
 *        plugin ABI is unchanged (a 1.3 plugin is a 1.4 one); its contracts
 *        are written out (plugin.h).
 *   1.5  The op table grows (ops.h): TSR_OP_TABLE, whose rows add each op's
 *        dtypes and role (enum tsr_op_dtypes, enum tsr_op_role,
 *        tsr_op_takes_dtype, tsr_op_role, TSR_OP_PRIMITIVE_COUNT; Notes
 *        [Primitives] and [Kernel contracts] say what a device implements);
 *        ops MATH (with enum tsr_math_fn and tsr_math_fn_name), ATAN2,
 *        FLOOR_DIVIDE, REMAINDER, BITWISE_AND/OR/XOR, SHIFT_LEFT/RIGHT,
 *        LOGADDEXP, PROD, ARGMIN, VAR, STD, CUMSUM, GATHER, SCATTER, SORT,
 *        ARGSORT and NONZERO; kinds MATH, SCAN, GATHER, SCATTER, SORT and
 *        COMPACT. GT, GE, RELU, SIGMOID and MEAN become composites: a
 *        plugin may drop its kernels for them and the runtime builds them
 *        from primitives
 *        (a 1.4 plugin is a 1.5 one). A kernel may answer
 *        TSR_ERR_UNSUPPORTED to arguments it does not know (the CPU
 *        fallback runs the call). tessera/random.h: the RAND_* formulas as
 *        reference code. Public API: tsr_math, tsr_math_out, tsr_reduce_ex
 *        and struct tsr_reduce_options (TSR_STRUCT_REDUCE_OPTIONS),
 *        tsr_cumsum, tsr_gather, tsr_take, tsr_scatter_, tsr_nonzero,
 *        tsr_sort and struct tsr_sort_options (TSR_STRUCT_SORT_OPTIONS),
 *        tsr_unique, tsr_concat, tsr_stack, tsr_roll, tsr_flip, tsr_tril,
 *        tsr_triu and tsr_eye. The communicators (issue 19):
 *        tessera/comm.h (tsr_comm_iface, tsr_comm_args, enum tsr_reduce_op,
 *        enum tsr_collective: the communicator interface) and
 *        tsr_plugin_api.comm (optional, appended; a plugin may be only a
 *        communicator, with NULL device and kernel tables); TSR_ERR_TIMEOUT
 *        (appended); tessera/distributed.h in the public API (tsr_comm,
 *        tsr_work, tsr_comm_world .. tsr_barrier, included by tessera.h).
 *        The dtypes TSR_UINT16, TSR_UINT32 and TSR_UINT64 (appended, 10..12;
 *        TSR_DTYPE_COUNT 13) with tsr_dtype_is_unsigned and
 *        tsr_dtype_is_signed_integral in dtype.h, whose helpers are now
 *        TSR_CONSTEXPR; their promotion is NumPy
 *        1.24's, their casts are in Note [Casts] (ops.h), SUM of them gives
 *        uint64 (Note [Kernel contracts]); tessera/element.h reads and writes
 *        them. A 1.4 plugin has no kernels for them (an op on them there
 *        is unsupported, or runs through the CPU fallback where configured);
 *        a 1.4 runtime ignores a 1.5 plugin's entries for them.
 *   1.6  Linear algebra (issue 20): the role TSR_OP_ROLE_OPTIONAL, the kind
 *        TSR_OP_KIND_LINALG, the dtype class TSR_OP_DTYPES_LINALG and its
 *        ops CHOLESKY, LU, SOLVE, QR, SVD, EIGH and INV (54..60), which a device
 *        may implement and the CPU fallback runs otherwise (Notes
 *        [Primitives] and [Kernel contracts]); tsr_kernel_args.more_outputs
 *        and num_more_outputs (appended: a kernel's results after the
 *        first). A 1.5 plugin is a 1.6 one (it has none of the new ops).
 *        Public API: tsr_linalg_cholesky, tsr_linalg_lu_factor,
 *        tsr_linalg_solve, tsr_linalg_inv, tsr_linalg_det,
 *        tsr_linalg_slogdet, tsr_linalg_qr, tsr_linalg_svd and
 *        tsr_linalg_eigh (tessera.h).
 *   1.7  Complex numbers (issue 20): the dtypes TSR_COMPLEX64 and
 *        TSR_COMPLEX128 (appended, 13 and 14; TSR_DTYPE_COUNT 15) with
 *        tsr_dtype_is_complex, tsr_dtype_real and tsr_dtype_complex
 *        (dtype.h); the scalar kind TSR_SCALAR_COMPLEX with
 *        tsr_scalar_complex and tsr_scalar_imag (scalar.h, the frozen
 *        24-byte layout kept); the DTYPES classes ALL_COMPLEX,
 *        NUMERIC_COMPLEX and FLOATING_COMPLEX in TSR_OP_TABLE's rows and
 *        TSR_MATH_CONJ (ops.h; Note [Complex dtypes]: promotion, casts,
 *        which ops take them, ABS's real output); the class
 *        LINALG_COMPLEX in the LINALG rows (the factorisations of complex
 *        matrices; SVD's and EIGH's values real). A 1.6 plugin has no
 *        kernels for them (an op on them runs through the CPU fallback
 *        where configured); a 1.6 runtime ignores a 1.7 plugin's entries
 *        for them. Public API: tsr_real, tsr_imag (views), tsr_conj.
 *   1.8  Autograd (issue 33): tessera/autograd.h, included by tessera.h:
 *        per-thread grad mode (tsr_is_grad_enabled, tsr_set_grad_enabled),
 *        requires_grad, .grad, retain_grad, grad_fn names, version
 *        counters, detach, hooks (tsr_grad_hook_fn), tsr_backward and
 *        tsr_grad with tsr_autograd_options (struct kind
 *        TSR_STRUCT_AUTOGRAD_OPTIONS). The plugin ABI is unchanged: a 1.7
 *        plugin is a 1.8 one (gradients are runtime functions of the ops
 *        every device has).
 *   1.9  Functions whose gradients are fused (issue 33): tsr_softmax,
 *        tsr_log_softmax, tsr_logsumexp, tsr_linalg_vector_norm,
 *        tsr_linalg_pinv; the view
 *        tsr_diagonal. Gradients of the tsr_linalg_* functions (their
 *        signatures are unchanged); requires_grad on a complex tensor is
 *        refused (TSR_ERR_TYPE). The plugin ABI is unchanged: a 1.8 plugin
 *        is a 1.9 one.
 *   1.10 Training (issue 34): TSR_MATH_ERF (ops.h), the one change a
 *        plugin is handed: a plugin of 1.7 to 1.9 is never handed it (its
 *        calls run on the CPU fallback where configured); the composite
 *        ops GELU, GELU_TANH and SILU (ops.h), whose kernels a plugin may
 *        register (fused activations; the runtime composes them from
 *        primitives where it does not). Public API:
 *        tessera/nn.h (linear, gelu, silu, softplus, dropout, layer_norm,
 *        embedding, the losses), tessera/optim.h (SGD, Adam, AdamW) and
 *        tessera/safetensors.h (weights on disk), included by tessera.h.
 *   1.11 The Array API standard 2025.12 and its fft extension (issue 36):
 *        the ops SEARCHSORTED (a primitive, kind SEARCH), CUMPROD (kind
 *        SCAN, optional), EIG (kind LINALG, optional), FFT, RFFT and IRFFT
 *        (kind FFT, optional) and CLAMP (kind CLAMP, a composite), and the
 *        dtype class TSR_OP_DTYPES_COMPLEX (ops.h). A 1.10 plugin has no
 *        kernels for them: SEARCHSORTED and the optional ones run on the
 *        CPU fallback where configured, CLAMP as its composite. Public API:
 *        tsr_searchsorted, tsr_cumprod, tsr_clamp, tsr_view_dtype,
 *        tsr_linalg_eig, tsr_linalg_eigvals (tessera.h), tsr_fft
 *        (tessera/fft.h), the versioned DLPack exchange
 *        (tsr_to_dlpack_versioned, tsr_from_dlpack_versioned:
 *        tessera/dlpack_exchange.h), struct kinds 11-13 of tsr_struct_size.
 *   1.12 Complex autograd: tsr_tensor_set_requires_grad accepts complex64
 *        and complex128 tensors (1.9 to 1.11 refused them), and their
 *        gradients follow PyTorch's convention (tessera/autograd.h);
 *        tsr_fft records its gradient (tessera/fft.h). tsr_format prints
 *        PyTorch's grad_fn=<...> or requires_grad=True suffix. No function
 *        or struct changed; the plugin ABI is unchanged: a 1.11 plugin is a
 *        1.12 one.
 */
#ifndef TESSERA_VERSION_H
#define TESSERA_VERSION_H

#include <stdint.h>

#define TSR_ABI_VERSION_MAJOR 1
#define TSR_ABI_VERSION_MINOR 12

/* Packs (major, minor) into one uint32_t: major in the high 16 bits. */
#define TSR_MAKE_VERSION(major, minor) ((uint32_t)(((uint32_t)(major) << 16) | ((uint32_t)(minor) & 0xFFFFu)))
#define TSR_VERSION_MAJOR(v) ((uint32_t)(v) >> 16)
#define TSR_VERSION_MINOR(v) ((uint32_t)(v) & 0xFFFFu)

#define TSR_ABI_VERSION TSR_MAKE_VERSION(TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR)

#endif /* TESSERA_VERSION_H */
