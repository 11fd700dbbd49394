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
#include "tessera/plugin.h"

namespace tessera::cpu_tbb {

class Error : public std::exception {
 public:
  Error(tsr_status status, std::string message) : status_(status), message_(std::move(message)) {}
  tsr_status status() const noexcept { return status_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  tsr_status status_;
  std::string message_;
};

[[noreturn]] inline void fail(tsr_status status, std::string message) { throw Error(status, std::move(message)); }

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

inline void report_error(const tsr_host_api* host, tsr_status status, const char* message) noexcept {
  if (host != nullptr && TSR_STRUCT_HAS(host, tsr_host_api, set_error) && host->set_error != nullptr) {
    host->set_error(status, message);
  }
}

// Runs body(); any exception becomes a status plus host->set_error.
template <class F> tsr_status guarded(const tsr_host_api* host, F&& body) noexcept {
  try {
    body();
    return TSR_OK;
  } catch (const Error& e) {
    report_error(host, e.status(), e.what());
    return e.status();
  } catch (const std::bad_alloc&) {
    report_error(host, TSR_ERR_OUT_OF_MEMORY, "cpu_tbb: out of host memory");
    return TSR_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    std::string message = std::string("cpu_tbb: internal error: ") + e.what();
    report_error(host, TSR_ERR_INTERNAL, message.c_str());
    return TSR_ERR_INTERNAL;
  } catch (...) {
    report_error(host, TSR_ERR_INTERNAL, "cpu_tbb: unknown C++ exception");
    return TSR_ERR_INTERNAL;
  }
}

}  // namespace tessera::cpu_tbb
