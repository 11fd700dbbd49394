// SPDX-License-Identifier: Apache-2.0
// Work cut into chunks, one block of kChunkThreads threads per chunk, each
// thread kChunkPerThread consecutive elements: what CUMSUM (scan.cu) and
// NONZERO (compact.cu) share. Both need each thread's place among the
// block's results, which thread 0 gives by an exclusive prefix in order, so
// a result depends on the length alone, never on timing.
#pragma once

#include <cstdint>

#include "elementwise.cuh"

namespace tessera::cuda {

inline constexpr int kChunkThreads = 256;
inline constexpr int kChunkPerThread = 16;
inline constexpr int64_t kChunk = int64_t{kChunkThreads} * kChunkPerThread;

// Thread t's elements of chunk c of n: [first, last), empty past the end.
TSR_HD void chunk_range(int64_t c, unsigned t, int64_t n, int64_t& first, int64_t& last) {
  first = c * kChunk + static_cast<int64_t>(t) * kChunkPerThread;
  last = first + kChunkPerThread < n ? first + kChunkPerThread : n;
  if (first > last) first = last;
}

#if defined(TSR_KERNELS)
// a + b: chunk_exclusive_prefix's default combination.
struct ChunkAdd {
  template <class Acc> __device__ Acc operator()(Acc a, Acc b) const { return a + b; }
};

// parts[t] holds thread t's value; after this every thread sees, in
// parts[threadIdx.x], the combination (a sum by default; CUMPROD's product)
// of start and the values of the threads before it. Returns that combined
// with the thread's own value. Called by every thread.
template <class Acc, class Combine = ChunkAdd>
__device__ Acc chunk_exclusive_prefix(Acc* parts, Acc start, Combine combine = {}) {
  const Acc mine = parts[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    Acc running = start;
    for (int t = 0; t < kChunkThreads; ++t) {
      const Acc v = parts[t];
      parts[t] = running;
      running = combine(running, v);
    }
  }
  __syncthreads();
  return combine(parts[threadIdx.x], mine);
}
#endif

}  // namespace tessera::cuda
