// SPDX-License-Identifier: Apache-2.0
// `tessera allreduce-bench`, launched under mpirun: nccl-tests' all_reduce_perf
// table through the C API's tsr_all_reduce (float32, sum, in place), for sizes
// from --min-bytes (4 B) to --max-bytes (256 MiB), doubling. Per size: the
// mean time of one call (the slowest rank's), algorithm bandwidth
// (bytes / time) and bus bandwidth (algbw x 2(n-1)/n, nccl-tests'
// PERFORMANCE.md), and the check: every element against the exact sum.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"
#include "tessera/tessera.h"

namespace tessera::tool {

namespace {

struct Comm {
  tsr_comm* c = nullptr;
  ~Comm() { tsr_comm_release(c); }
};

struct Tensor {
  tsr_tensor* t = nullptr;
  ~Tensor() { tsr_tensor_release(t); }
};

// Element i of `rank`'s input: small integers, so every sum is exact in float32.
float value(int rank, int64_t i) { return static_cast<float>((i + rank) % 7 + rank); }

}  // namespace

int allreduce_bench(const Options& opts) {
  const int64_t min_bytes = opts.min_bytes > 0 ? opts.min_bytes : 4;
  const int64_t max_bytes = opts.max_bytes > 0 ? opts.max_bytes : int64_t{256} << 20;
  const Runtime rt(opts.config);
  Comm comm;
  check(tsr_comm_world(rt.get(), nullptr, &comm.c));
  const int rank = tsr_comm_rank(comm.c), n = tsr_comm_size(comm.c);
  const tsr_device cpu = rt.device("cpu");
  if (rank == 0) {
    std::printf("# tessera allreduce-bench: %d rank(s), float32, sum, in place, timeout %g s\n", n,
                tsr_comm_timeout(comm.c));
    std::printf("#\n# %10s %12s %8s %6s %10s %9s %9s %7s\n", "size", "count", "type", "redop", "time", "algbw",
                "busbw", "#wrong");
    std::printf("# %10s %12s %8s %6s %10s %9s %9s %7s\n", "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", "");
  }
  int wrong_total = 0;
  double busbw_sum = 0;
  int sizes = 0;
  for (int64_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
    const int64_t count = std::max<int64_t>(bytes / 4, 1);
    std::vector<float> host(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) host[static_cast<size_t>(i)] = value(rank, i);
    Tensor t;
    check(tsr_from_host(rt.get(), host.data(), 1, &count, TSR_FLOAT32, cpu, &t.t));
    // Warm up, and check the result of the first call.
    check(tsr_all_reduce(comm.c, t.t, TSR_REDUCE_SUM, nullptr, nullptr));
    check(tsr_read(t.t, host.data(), host.size() * sizeof(float)));
    int64_t wrong = 0;
    for (int64_t i = 0; i < count; ++i) {
      float want = 0;
      for (int r = 0; r < n; ++r) want += value(r, i);
      wrong += host[static_cast<size_t>(i)] != want;
    }
    // Iterations: about 1 GiB moved per size, between 5 and 1000 calls.
    const int iters = static_cast<int>(std::clamp<int64_t>((int64_t{1} << 30) / bytes, 5, 1000));
    check(tsr_barrier(comm.c, nullptr, nullptr));
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < iters; ++k) check(tsr_all_reduce(comm.c, t.t, TSR_REDUCE_SUM, nullptr, nullptr));
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters;
    // The slowest rank's time, and every rank's wrong elements.
    double stats[2] = {seconds, static_cast<double>(wrong)};
    const int64_t two = 2;
    Tensor s;
    check(tsr_from_host(rt.get(), stats, 1, &two, TSR_FLOAT64, cpu, &s.t));
    check(tsr_all_reduce(comm.c, s.t, TSR_REDUCE_MAX, nullptr, nullptr));
    check(tsr_read(s.t, stats, sizeof stats));
    seconds = stats[0];
    const double algbw = static_cast<double>(count * 4) / seconds / 1e9;
    const double busbw = algbw * 2.0 * (n - 1) / n;
    wrong_total += static_cast<int>(stats[1]);
    busbw_sum += busbw;
    ++sizes;
    if (rank == 0) {
      if (opts.json)
        std::printf("{\"bytes\": %lld, \"count\": %lld, \"time_us\": %.3f, \"algbw\": %.4f, \"busbw\": %.4f, \"wrong\": %d}\n",
                    static_cast<long long>(count * 4), static_cast<long long>(count), seconds * 1e6, algbw, busbw,
                    static_cast<int>(stats[1]));
      else
        std::printf("  %10lld %12lld %8s %6s %10.2f %9.3f %9.3f %7d\n", static_cast<long long>(count * 4),
                    static_cast<long long>(count), "float", "sum", seconds * 1e6, algbw, busbw,
                    static_cast<int>(stats[1]));
      std::fflush(stdout);
    }
  }
  if (rank == 0) {
    std::printf("# Out of bounds values : %d %s\n", wrong_total, wrong_total ? "FAILED" : "OK");
    std::printf("# Avg bus bandwidth    : %.4f GB/s\n", sizes ? busbw_sum / sizes : 0.0);
  }
  return wrong_total == 0 ? 0 : 1;
}

}  // namespace tessera::tool
