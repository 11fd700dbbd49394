// SPDX-License-Identifier: Apache-2.0
// The emulator's kernel launches (Note [Emulated kernels] in
// include/cuda_emu_kernels.h): built-ins, barriers, shuffles, launch limits,
// and the failures it must report, each against a reference computed here.
// ctest cuda_emu.kernels (label threaded: `make test-tsan` runs it too).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "cuda_runtime.h"

namespace {

// Every launch here goes through the stream, as the backend's do.
struct Stream {
  cudaStream_t s = nullptr;
  Stream() { REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess); }
  ~Stream() { (void)cudaStreamDestroy(s); }
};

// A kernel failure is sticky; each test that provokes one clears it after.
struct ClearFailure {
  ~ClearFailure() {
    tessera_cuda_emu::kernel_failed().store(false);
    (void)cudaGetLastError();
  }
};

__global__ void __launch_bounds__(1024) write_ids(uint32_t* out) {
  const uint32_t block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const uint32_t thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  out[block * blockDim.x * blockDim.y * blockDim.z + thread] = block * 1000 + thread;
}

// Each thread stores its value in shared memory and, after the barrier (or,
// planted bug, without it), reads its mirror thread's.
template <bool Barrier> __global__ void mirror(const int* in, int* out) {
  __shared__ int tile[256];
  const int t = static_cast<int>(threadIdx.x), b = static_cast<int>(blockIdx.x);
  tile[t] = in[b * 256 + t];
  if (Barrier) __syncthreads();
  out[b * 256 + t] = tile[255 - t];
}

// The backend's butterfly (reduce.cuh's warp_fold): every lane ends with its
// warp's sum (the block's last warp may be partial: 48 threads).
__global__ void warp_sums(const uint32_t* in, uint32_t* out) {
  const int t = static_cast<int>(threadIdx.x + blockIdx.x * blockDim.x);
  const unsigned lanes = std::min(32u, blockDim.x - threadIdx.x / 32 * 32);
  uint32_t v = in[t];
  for (unsigned mask = 16; mask >= 1; mask /= 2)  // a partial warp of 16 lanes: masks 8..1 (no lane has no partner)
    if (mask < lanes) v += __shfl_xor_sync(lanes == 32 ? 0xFFFFFFFFu : (1u << lanes) - 1u, v, static_cast<int>(mask));
  out[t] = v;
}

// Half a warp waits at the barrier for the other half, which waits at a
// shuffle for the first: a hang.
__global__ void barrier_or_shuffle(int* out) {
  if (threadIdx.x < 16) __syncthreads();
  else out[threadIdx.x] = __shfl_xor_sync(0xFFFFFFFFu, 1, 1);
}

// Each half of the block at its own barrier.
__global__ void split_barriers(int* out) {
  if (threadIdx.x < 48) __syncthreads();
  else __syncthreads();
  out[threadIdx.x] = 1;
}

// Each half of a warp at its own shuffle.
__global__ void split_shuffles(int* out) {
  if (threadIdx.x < 16) out[threadIdx.x] = __shfl_xor_sync(0xFFFFFFFFu, 1, 1);
  else out[threadIdx.x] = __shfl_xor_sync(0xFFFFFFFFu, 2, 1);
}

__global__ void lane_exits_before_shuffle(int* out) {
  if (threadIdx.x == 5) return;
  out[threadIdx.x] = __shfl_xor_sync(0xFFFFFFFFu, 1, 1);
}

}  // namespace

TEST_CASE("emulated kernels see CUDA's built-ins over a 3-d grid of 3-d blocks") {
  Stream st;
  const dim3 grid(3, 2, 2), block(4, 3, 2);
  std::vector<uint32_t> out(12 * 24, 0xFFFFFFFFu);
  TSR_EMU_LAUNCH(grid, block, st.s, write_ids)(out.data());
  REQUIRE(cudaGetLastError() == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(st.s) == cudaSuccess);
  for (uint32_t b = 0; b < 12; ++b)
    for (uint32_t t = 0; t < 24; ++t) REQUIRE(out[b * 24 + t] == b * 1000 + t);
}

TEST_CASE("a launch runs when its stream is waited for, with its arguments as they were") {
  Stream st;
  std::vector<uint32_t> a(64, 0), b(64, 0);
  uint32_t* target = a.data();
  TSR_EMU_LAUNCH(2, 32, st.s, write_ids)(target);
  target = b.data();  // the launch copied the pointer
  CHECK(a[63] == 0);  // queued, not run
  REQUIRE(cudaStreamSynchronize(st.s) == cudaSuccess);
  CHECK(a[63] == 1031);
  CHECK(b[63] == 0);
}

TEST_CASE("__syncthreads orders shared memory, and a missing one is seen") {
  Stream st;
  const int blocks = 4;
  std::vector<int> in(blocks * 256), out(blocks * 256, -1);
  for (int i = 0; i < blocks * 256; ++i) in[static_cast<size_t>(i)] = i * 7 + 3;
  auto expect_mirrored = [&] {
    int wrong = 0;
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < 256; ++t) wrong += out[static_cast<size_t>(b * 256 + t)] != in[static_cast<size_t>(b * 256 + 255 - t)];
    return wrong;
  };
  TSR_EMU_LAUNCH(blocks, 256, st.s, mirror<true>)(in.data(), out.data());
  REQUIRE(cudaStreamSynchronize(st.s) == cudaSuccess);
  CHECK(expect_mirrored() == 0);
  // Without the barrier, threads start in order in even blocks and in reverse
  // in odd ones: one of the two reads values not yet written.
  std::fill(out.begin(), out.end(), -1);
  TSR_EMU_LAUNCH(blocks, 256, st.s, mirror<false>)(in.data(), out.data());
  REQUIRE(cudaStreamSynchronize(st.s) == cudaSuccess);
  CHECK(expect_mirrored() > 0);
}

TEST_CASE("__shfl_xor_sync exchanges within whole and partial warps") {
  Stream st;
  for (unsigned threads : {64u, 48u}) {
    std::vector<uint32_t> in(3 * threads), out(3 * threads, 0);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint32_t>(i * i + 1);
    TSR_EMU_LAUNCH(3, threads, st.s, warp_sums)(in.data(), out.data());
    REQUIRE(cudaStreamSynchronize(st.s) == cudaSuccess);
    for (size_t i = 0; i < in.size(); ++i) {
      const size_t block = i / threads, first = block * threads + (i % threads) / 32 * 32;
      const size_t last = std::min(first + 32, (block + 1) * threads);
      uint32_t sum = 0;
      for (size_t j = first; j < last; ++j) sum += in[j];
      INFO("threads " << threads << ", thread " << i);
      REQUIRE(out[i] == sum);
    }
  }
}

TEST_CASE("launches outside CUDA's limits fail at once, as on a GPU") {
  Stream st;
  uint32_t sink[1];
  const dim3 bad_grids[] = {dim3(0), dim3(1, 65536), dim3(1, 1, 65536)};
  for (const dim3& g : bad_grids) {
    TSR_EMU_LAUNCH(g, 32, st.s, write_ids)(sink);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  }
  const dim3 bad_blocks[] = {dim3(1025), dim3(32, 33), dim3(1, 1, 65), dim3(0)};
  for (const dim3& b : bad_blocks) {
    TSR_EMU_LAUNCH(1, b, st.s, write_ids)(sink);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  }
  CHECK(cudaGetLastError() == cudaSuccess);  // read once, then cleared
  REQUIRE(cudaStreamSynchronize(st.s) == cudaSuccess);
}

TEST_CASE("a block that would hang on a GPU fails the launch, and every later wait") {
  ClearFailure clear;
  Stream st;
  std::vector<int> out(64, 0);
  SECTION("threads at __syncthreads while others wait at a shuffle") {
    TSR_EMU_LAUNCH(1, 32, st.s, barrier_or_shuffle)(out.data());
  }
  SECTION("threads at two different __syncthreads") {
    TSR_EMU_LAUNCH(1, 64, st.s, split_barriers)(out.data());
  }
  SECTION("lanes of a warp at two different shuffles") {
    TSR_EMU_LAUNCH(1, 32, st.s, split_shuffles)(out.data());
  }
  SECTION("a lane exited before a full-warp shuffle") {
    TSR_EMU_LAUNCH(1, 32, st.s, lane_exits_before_shuffle)(out.data());
  }
  REQUIRE(cudaGetLastError() == cudaSuccess);  // the launch itself was valid
  CHECK(cudaStreamSynchronize(st.s) == cudaErrorLaunchFailure);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);  // sticky
  // Nothing more runs in the failed context.
  std::vector<uint32_t> ids(32, 7);
  TSR_EMU_LAUNCH(1, 32, st.s, write_ids)(ids.data());
  CHECK(cudaStreamSynchronize(st.s) == cudaErrorLaunchFailure);
  CHECK(ids[31] == 7);
}

TEST_CASE("host threads drain their streams' kernels at once, each with its own blocks") {
  constexpr int kThreads = 4, kRounds = 20;
  std::vector<std::vector<uint32_t>> results(kThreads, std::vector<uint32_t>(4 * 64));
  std::vector<std::thread> pool;
  for (int h = 0; h < kThreads; ++h)
    pool.emplace_back([&, h] {
      Stream st;
      std::vector<uint32_t> in(4 * 64);
      for (int r = 0; r < kRounds; ++r) {
        for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint32_t>(i + 1000u * static_cast<unsigned>(h + r));
        TSR_EMU_LAUNCH(4, 64, st.s, warp_sums)(in.data(), results[static_cast<size_t>(h)].data());
        (void)cudaStreamSynchronize(st.s);
      }
    });
  for (std::thread& t : pool) t.join();
  for (int h = 0; h < kThreads; ++h) {
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 32; ++i) sum += i + 1000u * static_cast<unsigned>(h + kRounds - 1);
    CHECK(results[static_cast<size_t>(h)][0] == sum);
  }
}
