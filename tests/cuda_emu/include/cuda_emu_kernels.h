/* SPDX-License-Identifier: Apache-2.0 */
// Emulated kernels: the CUDA backend's own __global__ functions run on the
// host, block by block, for cuda_emu.so. Included by cuda_runtime.h.
//
// Note [Emulated kernels]
// A kernel launch (TSR_LAUNCH in backends/cuda/kernels.hpp) checks the launch
// configuration against CUDA's limits as a GPU does (cudaGetLastError then
// reports cudaErrorInvalidConfiguration), then queues the grid on the stream
// (Note [Emulated streams]). When the stream runs it, the blocks run one after
// another on the host thread that drains the stream; the threads of a block
// run as fibers (block_runner.cpp: a few-instruction context switch on
// x86-64, ucontext elsewhere), so the kernel's own code runs unchanged:
//
// - threadIdx, blockIdx, blockDim and gridDim are thread-local variables set
//   for the fiber that runs;
// - __shared__ is `static thread_local`: one copy per host thread, which the
//   block running on that thread owns until it ends; it keeps the previous
//   block's values, as shared memory holds garbage on a GPU;
// - __syncthreads() suspends the thread until every thread of the block has
//   reached a barrier or exited; __shfl_xor_sync() exchanges values through
//   slots per thread, after a barrier of the thread's warp, and needs every
//   lane of the warp (a full mask).
//
// Threads start in order in even blocks and in reverse order in odd ones, and
// after a barrier resume in that order too, so a read of shared memory that
// another thread writes in the same phase (a missing __syncthreads) sees the
// wrong value in one of the two orders. A thread that exits without running
// suspends nobody; one that never needs a barrier never gets a fiber of its
// own: a fiber runs threads one after another until one of them waits, so a
// barrier-free kernel costs two context switches per block. A waiting fiber
// hands the host thread straight to the next one that can run, and a fiber
// whose threads are done parks until a later block takes it.
//
// A block whose threads cannot all proceed (some wait at __syncthreads while
// others wait at a shuffle, threads wait at different __syncthreads calls or
// lanes at different shuffles, a lane exited before a full-warp shuffle) is a
// kernel that hangs or is undefined on a GPU: the emulator abandons the block,
// prints what it saw, and makes the error sticky as a GPU's launch failures
// are: every later synchronisation returns cudaErrorLaunchFailure.
//
// Under AddressSanitizer and ThreadSanitizer every switch is announced to the
// sanitizer (its fiber API), so the kernels' accesses are checked as any.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

// The kernel built-ins (one set per host thread; see the Note).
inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};
inline constexpr int warpSize = 32;

#define __global__
#define __shared__ static thread_local
#define __launch_bounds__(...)

namespace tessera_cuda_emu {

// A kernel failure seen while a stream ran (a hang or undefined behaviour on
// a GPU): sticky, as a GPU's launch failures are.
inline std::atomic<bool>& kernel_failed() {
  static std::atomic<bool> failed{false};
  return failed;
}

// block_runner.cpp: runs `body` as every thread of every block of the grid,
// on the calling host thread (see the Note); a failure is printed, naming
// `kernel`, and sets kernel_failed().
void run_grid(const char* kernel, dim3 grid, dim3 block, const std::function<void()>& body);
// For the running kernel thread: wait at the barrier of the block at
// file:line (the __syncthreads call).
void block_barrier(const char* file, int line);
// __shfl_xor_sync on 8 bytes, called at file:line: `bits` of lane (this lane ^ lane_mask).
uint64_t shuffle_xor(unsigned mask, uint64_t bits, int lane_mask, int width, const char* file, int line);

// CUDA's launch limits (compute capability 9.0).
inline bool valid_launch(dim3 grid, dim3 block) {
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  return grid.x >= 1 && grid.x <= 0x7FFFFFFFu && grid.y >= 1 && grid.y <= 65535 && grid.z >= 1 && grid.z <= 65535 &&
         block.x >= 1 && block.x <= 1024 && block.y >= 1 && block.y <= 1024 && block.z >= 1 && block.z <= 64 && threads <= 1024;
}

}  // namespace tessera_cuda_emu

// The call site comes along: threads of a block at different __syncthreads
// (or lanes at different shuffles) would hang or be undefined on a GPU.
inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  tessera_cuda_emu::block_barrier(file, line);
}

// Atomics: the types CUDA's atomicAdd and atomicCAS take. Blocks of one
// launch run one after another on one host thread, but kernels on several
// streams run on several, so these are real atomic operations.
template <class T> T tsr_emu_atomic_add(T* p, T v) { return std::atomic_ref<T>(*p).fetch_add(v); }
inline int atomicAdd(int* p, int v) { return tsr_emu_atomic_add(p, v); }
inline unsigned atomicAdd(unsigned* p, unsigned v) { return tsr_emu_atomic_add(p, v); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { return tsr_emu_atomic_add(p, v); }
inline float atomicAdd(float* p, float v) { return tsr_emu_atomic_add(p, v); }
inline double atomicAdd(double* p, double v) { return tsr_emu_atomic_add(p, v); }
inline unsigned atomicCAS(unsigned* p, unsigned compare, unsigned value) {
  std::atomic_ref<unsigned>(*p).compare_exchange_strong(compare, value);
  return compare;  // the old value, whether or not it was swapped
}

// Lane (this lane ^ lane_mask)'s `var`: every lane of the warp takes part.
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize, const char* file = __builtin_FILE(),
                  int line = __builtin_LINE()) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8, "emulated shuffles move up to 8 bytes");
  uint64_t bits = 0;
  std::memcpy(&bits, &var, sizeof(T));
  bits = tessera_cuda_emu::shuffle_xor(mask, bits, lane_mask, width, file, line);
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}
