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
  // Per device type, one bit per op that already warned about running in the
  // CPU fallback (Note [CPU fallback] in fallback.cpp).
  std::array<std::atomic<uint64_t>, tessera::rt::Registry::kMaxTypeNumber> fallback_warned{};
  // Tensors and storages alive, to report leaks at shutdown.
  std::atomic<int64_t> live_tensors{0};
  std::atomic<int64_t> live_storages{0};
};

namespace tessera::rt {

// Builds a runtime from options (throws Error).
std::unique_ptr<tsr_runtime> create_runtime(const tsr_runtime_options* options);

// Parses "cpu", "cuda:1", or an alias of the config.
tsr_device parse_device(const tsr_runtime& rt, const std::string& text);

// The text of `tessera info` (json: a JSON document).
std::string describe_runtime(const tsr_runtime& rt, bool as_json);

}  // namespace tessera::rt
