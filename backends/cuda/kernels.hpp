// SPDX-License-Identifier: Apache-2.0
// What every kernel file shares: the (op, dtype) support matrix (the CPU
// backend's, which is the reference), the entry wrapper that picks the device
// and stream and turns exceptions into statuses, argument checks, and the
// template that registers a kernel family for every supported dtype. Host
// code only; compiled by both the C++ compiler and nvcc.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "allocator.hpp"
#include "context.hpp"
#include "kernel_support.hpp"
#include "tessera/plugin.h"

namespace tessera::cuda {

using backend::KernelList;
using backend::numel_of;
using backend::op_supports;
using backend::scalar_as_double;
using backend::scalar_as_int;
using backend::scalar_to;

// "cuda: add(float32): " — the prefix of every kernel error message.
inline std::string where(const tsr_kernel_args& a, int dtype) { return backend::where("cuda", a, dtype); }

// Checks what every kernel relies on: counts, descriptors on this plugin's
// device type, device index.
void check_args(const tsr_kernel_args& a, int dtype, int num_inputs, int num_scalars, int num_params);
// `d` holds `dtype` (what = "output", "input 0", ...).
inline void check_dtype(const tsr_kernel_args& a, int key, const tsr_tensor_desc& d, int dtype, const char* what) {
  backend::check_dtype("cuda", a, key, d, dtype, what);
}
// `in` has the output's shape (pointwise ops).
inline void check_same_shape(const tsr_kernel_args& a, int key, const tsr_tensor_desc& in, const char* what) {
  backend::check_same_shape("cuda", a, key, in, what);
}

// Where one kernel call runs: the device (current for the call), the stream,
// and the (op, key dtype) that names it in messages.
struct Exec {
  Context& ctx;
  Device& dev;
  cudaStream_t stream;
  const tsr_kernel_args& args;
  int key;

  std::string where() const { return cuda::where(args, key); }
  // After every launch: a launch that failed (bad configuration, no kernel
  // image for this GPU, ...) becomes TSR_ERR_DEVICE naming the op.
  void check_launch(const char* kernel) const {
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
      fail(TSR_ERR_DEVICE, where() + "launch of " + kernel + " failed on cuda:" + std::to_string(dev.index) + " (" + cuda_error_text(e) + ")");
  }
  // Checks a CUDA call made for this kernel.
  void check(cudaError_t e, const char* what) const {
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      fail(e == cudaErrorMemoryAllocation ? TSR_ERR_OUT_OF_MEMORY : TSR_ERR_DEVICE,
           this->where() + what + " failed (" + cuda_error_text(e) + ")");
    }
  }
};

// Device scratch memory for one kernel call, from the caching allocator on
// the call's stream; returned to the cache when the call has queued its work
// (stream order keeps the reuse safe).
class Workspace {
 public:
  Workspace(const Exec& ex, size_t nbytes) : alloc_(*ex.dev.allocator) {
    if (nbytes > 0) ptr_ = alloc_.allocate(nbytes, ex.stream);
  }
  ~Workspace() { alloc_.deallocate(ptr_); }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  void* get() const { return ptr_; }

 private:
  CachingAllocator& alloc_;
  void* ptr_ = nullptr;
};

// TSR_LAUNCH(grid, block, stream, kernel<...>)(args...) is
// kernel<<<grid, block, 0, stream>>>(args...). Built as C++ for the emulator
// (tests/cuda_emu), the same kernel is queued on the stream and its blocks run
// on the host, threads as fibers (Note [Emulated kernels] in
// tests/cuda_emu/include/cuda_emu_kernels.h). Follow it with check_launch.
#if defined(__CUDACC__)
#define TSR_LAUNCH(grid, block, stream, ...) __VA_ARGS__<<<grid, block, 0, stream>>>
#elif defined(TESSERA_CUDA_EMULATION)
#define TSR_LAUNCH(grid, block, stream, ...) TSR_EMU_LAUNCH(grid, block, stream, __VA_ARGS__)
#endif
// Where the kernels are compiled: by nvcc, and as C++ for the emulator (the
// host tests, tests/cuda/test_cuda_host_*.cpp, see only their per-thread code).
#if defined(__CUDACC__) || defined(TESSERA_CUDA_EMULATION)
#define TSR_KERNELS 1
#endif

// The tsr_kernel_fn for K: makes the device current, picks the stream, runs
// K::run(exec, args) with every exception caught and reported.
template <class K> tsr_status kernel_entry(void* ctx, const tsr_kernel_args* args) {
  Context* c = static_cast<Context*>(ctx);
  return guarded(c != nullptr ? c->host : nullptr, [&] {
    if (c == nullptr || args == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "cuda: kernel called with a NULL context or args");
    if (args->struct_size < TSR_STRUCT_SIZE(tsr_kernel_args, num_params))
      fail(TSR_ERR_INVALID_ARGUMENT, where(*args, K::key) + "kernel args struct too small");
    Device& dev = c->device(args->device_index);
    DeviceGuard guard(dev.ordinal);
    const bool has_stream = args->struct_size >= TSR_STRUCT_SIZE(tsr_kernel_args, stream) && args->stream != nullptr;
    const Exec ex{*c, dev, has_stream ? static_cast<cudaStream_t>(args->stream) : dev.stream, *args, K::key};
    K::run(ex, *args);
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
void add_copy_kernels(KernelList& list);     // COPY
void add_binary_kernels(KernelList& list);   // ADD..POW, ATAN2..LOGADDEXP
void add_compare_kernels(KernelList& list);  // EQ..GE
void add_unary_kernels(KernelList& list);    // FILL, NEG..TANH, GELU, GELU_TANH, SILU, WHERE
void add_math_kernels(KernelList& list);     // MATH
void add_reduce_kernels(KernelList& list);   // SUM, PROD, MEAN, MAX, MIN, ARGMAX, ARGMIN
void add_matmul_kernels(KernelList& list);   // MATMUL
void add_factory_kernels(KernelList& list);  // ARANGE, LINSPACE, RAND_UNIFORM, RAND_NORMAL
void add_gather_kernels(KernelList& list);   // GATHER, SCATTER
void add_scan_kernels(KernelList& list);     // CUMSUM, CUMPROD
void add_search_kernels(KernelList& list);   // SEARCHSORTED
void add_compact_kernels(KernelList& list);  // NONZERO
void add_sort_kernels(KernelList& list);     // SORT, ARGSORT
void add_linalg_kernels(KernelList& list);   // CHOLESKY, LU, SOLVE, QR, SVD, EIGH, INV (cuSOLVER)
void add_fft_kernels(KernelList& list);      // FFT, RFFT, IRFFT (cuFFT)

// Shared helpers other kernel files call (copy.cu, unary.cu):
// out = in (same dtype, any layouts; the tiled path for transposes).
void copy_same_dtype(const Exec& ex, const tsr_tensor_desc& out, const tsr_tensor_desc& in);
// out = 0 in out's dtype.
void fill_zero(const Exec& ex, const tsr_tensor_desc& out);

// The plugin's kernel table, built once.
const tsr_kernel_table& kernel_table();

}  // namespace tessera::cuda
