// SPDX-License-Identifier: Apache-2.0
// launch_floor: the host cost of launching an empty kernel on cuda:0, timed
// as bench_cuda times a small op (200 launches queued, median of 50 repeats,
// the synchronisation outside the clock). scripts/gpu-check prints it beside
// "small op host cost": the part of a small op's cost that is the driver's
// own, below which no runtime can go with one launch per op.
// Prints "RESULT launch_floor_us <value> us".
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace {
__global__ void empty_kernel() {}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

bool ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::printf("launch_floor: %s failed: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}
}  // namespace

int main() {
  cudaStream_t stream = nullptr;
  if (!ok(cudaSetDevice(0), "cudaSetDevice") || !ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate"))
    return 1;
  for (int i = 0; i < 1000; ++i) empty_kernel<<<1, 256, 0, stream>>>();
  if (!ok(cudaStreamSynchronize(stream), "warm-up")) return 1;
  std::vector<double> per_launch;
  for (int r = 0; r < 50; ++r) {
    const double t0 = now();
    for (int i = 0; i < 200; ++i) empty_kernel<<<1, 256, 0, stream>>>();
    per_launch.push_back((now() - t0) / 200);
    if (!ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize")) return 1;
  }
  if (!ok(cudaGetLastError(), "a launch")) return 1;
  std::sort(per_launch.begin(), per_launch.end());
  std::printf("RESULT launch_floor_us %.3f us\n", per_launch[per_launch.size() / 2] * 1e6);
  return 0;
}
