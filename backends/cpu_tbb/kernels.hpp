// SPDX-License-Identifier: Apache-2.0
// What every kernel file shares: the (op, dtype) support matrix, the entry
// wrapper that turns exceptions into statuses, argument checks, and the
// template that registers a kernel family for every supported dtype.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "context.hpp"
#include "dtypes.hpp"
#include "kernel_support.hpp"
#include "tessera/plugin.h"

namespace tessera::cpu_tbb {

using backend::KernelList;
using backend::numel_of;
using backend::op_supports;
using backend::scalar_as_double;
using backend::scalar_as_int;
using backend::scalar_to;

// "cpu_tbb: add(float32): " — the prefix of every kernel error message.
inline std::string where(const tsr_kernel_args& a, int dtype) { return backend::where("cpu_tbb", a, dtype); }

// Checks what every kernel relies on: counts, descriptors, device index.
void check_args(const tsr_kernel_args& a, int dtype, int num_inputs, int num_scalars, int num_params);
// `d` holds `dtype` (what = "output", "input 0", ...).
inline void check_dtype(const tsr_kernel_args& a, int key, const tsr_tensor_desc& d, int dtype, const char* what) {
  backend::check_dtype("cpu_tbb", a, key, d, dtype, what);
}
// `in` has the output's shape (pointwise ops).
inline void check_same_shape(const tsr_kernel_args& a, int key, const tsr_tensor_desc& in, const char* what) {
  backend::check_same_shape("cpu_tbb", a, key, in, what);
}

// The tsr_kernel_fn for K: runs K::run(ctx, args) with every exception
// caught and reported.
template <class K> tsr_status kernel_entry(void* ctx, const tsr_kernel_args* args) {
  Context* c = static_cast<Context*>(ctx);
  return guarded(c != nullptr ? c->host : nullptr, [&] {
    if (c == nullptr || args == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "cpu_tbb: kernel called with a NULL context or args");
    K::run(*c, *args);
  });
}

// Adds {Op, D, kernel_entry<K<Op, D>>} for each Op in Ops and each D that
// op_supports; unsupported pairs are never instantiated.
template <template <int, int> class K, int... Ops> void add_kernels(KernelList& list) {
  backend::for_each_supported<Ops...>([&]<int Op, int D>(std::integral_constant<int, Op>, std::integral_constant<int, D>) {
    list.push_back(tsr_kernel_entry{Op, D, &kernel_entry<K<Op, D>>});
  });
}

// add_kernels for every op of the table whose kind is one of Kinds.
template <template <int, int> class K, int... Kinds> void add_kernels_of_kind(KernelList& list) {
  backend::for_each_op_of_kind<Kinds...>([&]<int Op>(std::integral_constant<int, Op>) { add_kernels<K, Op>(list); });
}

// One per kernel file.
void add_copy_kernels(KernelList& list);      // COPY
void add_binary_kernels(KernelList& list);    // ADD..POW, ATAN2..LOGADDEXP, EQ..GE
void add_unary_kernels(KernelList& list);     // FILL, NEG..TANH, GELU, GELU_TANH, SILU, WHERE, CLAMP
void add_math_kernels(KernelList& list);      // MATH
void add_reduce_kernels(KernelList& list);    // SUM, PROD, MEAN, MAX, MIN, ARGMAX, ARGMIN
void add_matmul_kernels(KernelList& list);    // MATMUL
void add_scan_kernels(KernelList& list);      // CUMSUM, CUMPROD
void add_search_kernels(KernelList& list);    // SEARCHSORTED
void add_gather_kernels(KernelList& list);    // GATHER, SCATTER
void add_sort_kernels(KernelList& list);      // SORT, ARGSORT
void add_compact_kernels(KernelList& list);   // NONZERO
void add_factory_kernels(KernelList& list);   // ARANGE, LINSPACE, RAND_UNIFORM, RAND_NORMAL
void add_linalg_kernels(KernelList& list);    // CHOLESKY, LU, SOLVE, QR, SVD, EIGH, INV (LAPACK)
void add_fft_kernels(KernelList& list);       // FFT, RFFT, IRFFT (KissFFT)

// The plugin's kernel table, built once.
const tsr_kernel_table& kernel_table();

}  // namespace tessera::cpu_tbb
