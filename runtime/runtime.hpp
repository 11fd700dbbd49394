// SPDX-License-Identifier: Apache-2.0
// struct tsr_runtime: one loaded configuration (the C API's opaque handle).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config.hpp"
#include "plugin_loader.hpp"
#include "registry.hpp"
#include "tessera/tessera.h"

namespace tessera::rt {

// A plugin the config named that did not load, and why.
struct PluginFailure {
  std::string name;
  std::string library;
  std::string reason;
  tsr_status status = TSR_OK;
};

// Which (device type, op, dtype) has already logged its CPU-fallback warning
// (Note [CPU fallback] in fallback.cpp): one bit each, set once.
class FallbackWarnings {
 public:
  // True for the first call with these values only (thread-safe).
  bool first(int32_t type, int32_t op, int32_t dtype) noexcept {
    if (type < 0 || type >= Registry::kMaxTypeNumber || op < 0 || op >= TSR_OP_COUNT || dtype < 0 ||
        dtype >= TSR_DTYPE_COUNT)
      return false;
    const uint64_t bit = uint64_t{1} << (op % 64);
    auto& word = bits_[static_cast<size_t>(type)][static_cast<size_t>(dtype)][static_cast<size_t>(op / 64)];
    return (word.fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
  }

 private:
  static constexpr size_t kWords = (TSR_OP_COUNT + 63) / 64;
  std::array<std::array<std::array<std::atomic<uint64_t>, kWords>, TSR_DTYPE_COUNT>, Registry::kMaxTypeNumber> bits_{};
};

}  // namespace tessera::rt

struct tsr_runtime {
  tessera::rt::Config config;
  // Declared before the registry so that plugins outlive it; destroyed last.
  std::vector<std::unique_ptr<tessera::rt::LoadedPlugin>> plugins;
  std::vector<tessera::rt::PluginFailure> failures;
  tessera::rt::Registry registry;
  tsr_device default_device{TSR_DEVICE_CPU, 0};
  bool default_device_available = false;
  std::string default_device_problem;  // why it is not available

  // The counter-based generator: a seed and the next unused counter value.
  std::atomic<uint64_t> seed{0};
  std::atomic<uint64_t> rng_counter{0};
  std::atomic<int32_t> print_precision{4};
  std::atomic<int32_t> float32_matmul_precision{TSR_MATMUL_PRECISION_HIGHEST};
  tessera::rt::FallbackWarnings fallback_warnings;
  // Tensors and storages alive, to report leaks at shutdown.
  std::atomic<int64_t> live_tensors{0};
  std::atomic<int64_t> live_storages{0};
  // Communicators alive (tsr_comm; a tsr_work holds its communicator).
  std::atomic<int64_t> live_comms{0};
};

namespace tessera::rt {

// Builds a runtime from options (throws Error).
std::unique_ptr<tsr_runtime> create_runtime(const tsr_runtime_options* options);

// Parses "cpu", "cuda:1", or an alias of the config.
tsr_device parse_device(const tsr_runtime& rt, const std::string& text);

// The text of `tessera info` (json: a JSON document).
std::string describe_runtime(const tsr_runtime& rt, bool as_json);

}  // namespace tessera::rt
