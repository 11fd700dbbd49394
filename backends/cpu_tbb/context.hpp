// SPDX-License-Identifier: Apache-2.0
// The plugin's context (one per tsr_plugin_init), its error type, and the
// wrapper that keeps every C++ exception inside the plugin (Note [Errors are
// values] in tessera/status.h).
#pragma once

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

struct Context {
  const tsr_host_api* host = nullptr;
  int threads = 1;        // the arena's concurrency
  tbb::task_arena arena;  // all parallel work of this instance runs here
  std::string device_name;
  std::unique_ptr<HostAllocator> memory;  // every storage of this instance
  tsr_plugin_api api{};   // what tsr_plugin_init returned; api.ctx == this

  // Runs f inside the arena, so TBB uses this instance's thread count.
  template <class F> void parallel(F&& f) { arena.execute(std::forward<F>(f)); }
};

// Runs body(); any exception becomes a status plus host->set_error.
template <class F> tsr_status guarded(const tsr_host_api* host, F&& body) noexcept {
  return backend::guarded(host, "cpu_tbb", std::forward<F>(body));
}

}  // namespace tessera::cpu_tbb
