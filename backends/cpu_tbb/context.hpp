// SPDX-License-Identifier: Apache-2.0
// The plugin's context (one per tsr_plugin_init), its error type, and the
// wrapper that keeps every C++ exception inside the plugin (Note [Errors are
// values] in tessera/status.h).
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include <tbb/task_arena.h>

#include "allocator.hpp"
#include "plugin_error.hpp"
#include "tessera/plugin.h"

namespace tessera::cpu_tbb {

using backend::Error;
using backend::fail;

// Note [One parallel loop]
//   Every kernel template that cut its work over threads used to call
//   tbb::parallel_for with a lambda of its own, and each such call
//   instantiates oneTBB's task types, partitioner and arena wrapper for that
//   lambda: for every op x dtype x walk, hundreds of copies of the same
//   machinery (copy.cpp's 169 casts alone had ~500). Kernels now go through
//   Context::parallel_for, compiled once (context.cpp), with the body passed
//   as a RangeFn: one indirect call per piece of at least kParallelGrain
//   elements, nothing per element.

// A reference to a callable body(begin, end), valid while the callable lives.
class RangeFn {
 public:
  template <class F>
  RangeFn(F& f) : obj_(&f), call_([](void* o, int64_t begin, int64_t end) { (*static_cast<F*>(o))(begin, end); }) {}  // NOLINT
  void operator()(int64_t begin, int64_t end) const { call_(obj_, begin, end); }

 private:
  void* obj_;
  void (*call_)(void*, int64_t, int64_t);
};

// The FFT plans of one instance (fft.cpp, Note [FFT plans]): made with the
// Context (make_fft_plans) and freed with it.
struct FftPlans;
struct FftPlansDeleter {
  void operator()(FftPlans* p) const noexcept;
};
using FftPlansPtr = std::unique_ptr<FftPlans, FftPlansDeleter>;
FftPlansPtr make_fft_plans();

struct Context {
  const tsr_host_api* host = nullptr;
  int threads = 1;        // the arena's concurrency
  tbb::task_arena arena;  // all parallel work of this instance runs here
  std::string device_name;
  std::unique_ptr<HostAllocator> memory;  // every storage of this instance
  FftPlansPtr fft_plans;                  // the FFT kind's plan cache (fft.cpp)
  tsr_plugin_api api{};   // what tsr_plugin_init returned; api.ctx == this

  // Runs f inside the arena, so TBB uses this instance's thread count.
  template <class F> void parallel(F&& f) { arena.execute(std::forward<F>(f)); }
  // body(begin, end) over [0, n) in pieces of `piece` items (the last one
  // shorter), in parallel inside the arena (Note [One parallel loop]).
  void parallel_for(int64_t n, int64_t piece, RangeFn body);
};

// Runs body(); any exception becomes a status plus host->set_error.
template <class F> tsr_status guarded(const tsr_host_api* host, F&& body) noexcept {
  return backend::guarded(host, "cpu_tbb", std::forward<F>(body));
}

}  // namespace tessera::cpu_tbb
