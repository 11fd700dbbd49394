// SPDX-License-Identifier: Apache-2.0
// Errors inside the runtime: C++ exceptions that carry a tsr_status, turned
// into a status plus a per-thread message at the C boundary (Note [Errors are
// values] in tessera/status.h). Nothing in the runtime lets an exception out.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <utility>

#include "tessera/status.h"

namespace tessera::rt {

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

// The calling thread's error slot.
void set_last_error(tsr_status status, const char* message) noexcept;
void clear_last_error() noexcept;
tsr_status last_error_status() noexcept;
// Grows by one with each set_last_error on this thread: a caller that notes
// it before a call can tell whether the call set an error.
uint64_t error_generation() noexcept;

// The calling thread's state around calls into plugins (Note [Calling into
// a plugin] in plugin_call.hpp), kept beside the error generation in one
// plain thread-local so that a PluginCall costs one thread-local lookup.
struct CallState {
  uint64_t generation = 0;       // as error_generation()
  uint64_t call_start = 0;       // generation when the last plugin call began
  const void* plugin = nullptr;  // the LoadedPlugin being called, or nullptr
};
CallState& call_state() noexcept;
const char* last_error_message() noexcept;

// Runs `body` and converts any exception into a status and a message.
template <class F>
tsr_status guard(F&& body) noexcept {
  try {
    body();
    return TSR_OK;
  } catch (const Error& e) {
    set_last_error(e.status(), e.what());
    return e.status();
  } catch (const std::bad_alloc&) {
    set_last_error(TSR_ERR_OUT_OF_MEMORY, "out of host memory");
    return TSR_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_last_error(TSR_ERR_INTERNAL, e.what());
    return TSR_ERR_INTERNAL;
  } catch (...) {
    set_last_error(TSR_ERR_INTERNAL, "unknown C++ exception");
    return TSR_ERR_INTERNAL;
  }
}

}  // namespace tessera::rt
