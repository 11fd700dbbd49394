// SPDX-License-Identifier: Apache-2.0
// Errors inside a backend plugin: C++ exceptions that carry a tsr_status,
// turned into a status plus the host's per-thread message at every entry
// point (Note [Errors are values] in tessera/status.h). Shared by the
// in-tree backends; like them it uses nothing but the ABI headers.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "tessera/plugin.h"

namespace tessera::backend {

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

// Hands the message to the runtime (tsr_host_api.set_error), when it has the slot.
inline void report_error(const tsr_host_api* host, tsr_status status, const char* message) noexcept {
  if (host != nullptr && TSR_STRUCT_HAS(host, tsr_host_api, set_error) && host->set_error != nullptr) {
    host->set_error(status, message);
  }
}

// Runs body(); any exception becomes a status plus host->set_error, its
// message prefixed with the plugin's name where the plugin did not write it.
template <class F> tsr_status guarded(const tsr_host_api* host, const char* plugin, F&& body) noexcept {
  try {
    body();
    return TSR_OK;
  } catch (const Error& e) {
    report_error(host, e.status(), e.what());
    return e.status();
  } catch (const std::bad_alloc&) {
    report_error(host, TSR_ERR_OUT_OF_MEMORY, (std::string(plugin) + ": out of host memory").c_str());
    return TSR_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    report_error(host, TSR_ERR_INTERNAL, (std::string(plugin) + ": internal error: " + e.what()).c_str());
    return TSR_ERR_INTERNAL;
  } catch (...) {
    report_error(host, TSR_ERR_INTERNAL, (std::string(plugin) + ": unknown C++ exception").c_str());
    return TSR_ERR_INTERNAL;
  }
}

}  // namespace tessera::backend
