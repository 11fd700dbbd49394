// SPDX-License-Identifier: Apache-2.0
// The plugin's context (one per tsr_plugin_init), its devices, its error type,
// and the wrapper that keeps every C++ exception inside the plugin (Note
// [Errors are values] in tessera/status.h). Host code only; compiled by both
// the C++ compiler and nvcc.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "plugin_error.hpp"
#include "tessera/plugin.h"

struct cusolverDnContext;  // cusolverDn.h's handle type (linalg.cu)

namespace tessera::cuda {

using backend::Error;
using backend::fail;

// "cudaErrorInvalidValue: invalid argument"
inline std::string cuda_error_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

// Every CUDA runtime call goes through check(): a failure becomes an Error
// whose message names the call and what it was for.
[[noreturn]] inline void fail_cuda(cudaError_t e, const std::string& what) {
  (void)cudaGetLastError();  // clear a non-sticky error so the next call starts clean
  fail(e == cudaErrorMemoryAllocation ? TSR_ERR_OUT_OF_MEMORY : TSR_ERR_DEVICE, "cuda: " + what + " failed (" + cuda_error_text(e) + ")");
}
inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail_cuda(e, what);
}
#define TSR_CUDA_CHECK(call) ::tessera::cuda::check((call), #call)

// Options from the config's "options" object (see plugin.cpp).
struct Options {
  bool allow_tf32 = false;       // float32 matmul may use TF32 tensor cores
  double memory_fraction = 1.0;  // the caching allocator holds at most this share of a device's memory
};

class CachingAllocator;  // allocator.hpp
class Staging;           // transfer.hpp

// A device's cuFFT plans (fft.cu): made by the first FFT kernel, destroyed
// by ~Device once the device's queued work is done. The deleter never
// throws: cuFFT statuses at teardown are ignored.
struct FftPlans;
struct FftPlansDeleter {
  void operator()(FftPlans* p) const noexcept;
};

// One CUDA device as the plugin sees it. Everything that needs a CUDA context
// (stream, allocator, staging buffers, cuBLAS) is created on first use, so
// loading the plugin and listing devices stays cheap.
struct Device {
  int index = 0;    // the plugin's index ("cuda:<index>")
  int ordinal = 0;  // the CUDA runtime's device ordinal
  std::string name;
  uint64_t total_memory = 0;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;

  std::once_flag init_once;
  cudaStream_t stream = nullptr;  // the device's default stream (non-blocking)
  std::unique_ptr<CachingAllocator> allocator;
  std::unique_ptr<Staging> staging;

  std::mutex blas_mutex;  // a cuBLAS handle is used by one thread at a time
  cublasHandle_t blas = nullptr;
  void* blas_workspace = nullptr;  // from `allocator`, for `blas`

  std::mutex solver_mutex;               // likewise for the cuSOLVER handle
  cusolverDnContext* solver = nullptr;  // cusolverDnHandle_t, created by the first LINALG kernel

  std::mutex fft_mutex;  // around the cache and every use of its plans (fft.cu)
  std::unique_ptr<FftPlans, FftPlansDeleter> fft_plans;  // created by the first FFT kernel

  Device();
  ~Device();
};

struct Context {
  const tsr_host_api* host = nullptr;
  Options options;
  std::vector<std::unique_ptr<Device>> devices;
  std::string unavailable_reason;  // when devices is empty
  std::mutex peer_mutex;
  std::vector<int8_t> peer_enabled;  // [src * n + dst]: 0 unknown, 1 enabled, -1 not possible
  tsr_plugin_api api{};              // what tsr_plugin_init returned; api.ctx == this

  // The device with the plugin's index `index`, created on first use.
  Device& device(int32_t index);
  ~Context();
};

// Makes `ordinal` the calling thread's current device for the guard's life.
class DeviceGuard {
 public:
  explicit DeviceGuard(int ordinal) {
    TSR_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != ordinal) TSR_CUDA_CHECK(cudaSetDevice(ordinal));
    else previous_ = -1;
  }
  ~DeviceGuard() {
    if (previous_ >= 0) (void)cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

// Runs body(); any exception becomes a status plus host->set_error.
template <class F> tsr_status guarded(const tsr_host_api* host, F&& body) noexcept {
  return backend::guarded(host, "cuda", std::forward<F>(body));
}

}  // namespace tessera::cuda
