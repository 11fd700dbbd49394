// SPDX-License-Identifier: Apache-2.0
// MPI's start-up and shut-down as the plugins that use MPI do them (mpi.so,
// and nccl.so for its bootstrap): Note [MPI is one per process] in
// context.hpp. Each plugin keeps its own state (a shared library's
// globals are its own); MPI tells them whether it is running already.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "plugin_error.hpp"

namespace tessera::mpi_startup {

// A plugin's process-wide MPI state (Note [MPI is one per process]): one
// per plugin library, returned by its world_state().
struct World {
  std::recursive_mutex mutex;       // every MPI call (and NCCL's, in nccl.so), and what follows
  bool initialised_here = false;    // MPI_Init_thread was called by this plugin
  std::atomic<bool> broken{false};  // a timeout or a lost peer: fail fast, skip MPI_Finalize
  std::string broken_reason;        // guarded by mutex

  // Marks the world broken; the first reason is the one kept.
  void mark_broken(const std::string& reason) {
    std::lock_guard lock(mutex);
    if (!broken.exchange(true)) broken_reason = reason;
  }
};

inline std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(len));
}

// Initialises MPI from the launch environment (MPI_THREAD_MULTIPLE asked,
// whatever is provided accepted) unless the application or another plugin
// did; then `initialised_here` is set, MPI_COMM_WORLD returns errors
// instead of aborting, and `at_exit` is registered to finalise it. Fails
// once MPI has been finalised: it cannot start again in the process.
inline void ensure_initialised(std::recursive_mutex& mutex, bool& initialised_here, const std::string& who,
                               void (*at_exit)()) {
  std::lock_guard lock(mutex);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized)
    backend::fail(TSR_ERR_DEVICE, who + ": MPI was already finalised in this process; it cannot start again");
  if (initialized) return;
  int provided = 0;
  const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  if (rc != MPI_SUCCESS) backend::fail(TSR_ERR_DEVICE, who + ": MPI_Init_thread failed: " + mpi_error_text(rc));
  initialised_here = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::atexit(at_exit);
}

// The at-exit finalisation: skipped when a peer was lost or an operation
// timed out (MPI_Finalize would wait for the lost rank; the launcher then
// reports the process as ending without finalising, which is what happened).
inline void finalize_unless_broken(bool broken, const std::string& reason, const char* plugin) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (broken) {
    std::fprintf(stderr, "tessera: warning: %s: MPI_Finalize skipped: %s\n", plugin, reason.c_str());
    return;
  }
  MPI_Finalize();
}

}  // namespace tessera::mpi_startup
