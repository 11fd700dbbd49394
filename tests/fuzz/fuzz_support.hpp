// SPDX-License-Identifier: Apache-2.0
// What the fuzz targets that run tensors share: a finding (a message on
// stderr, then abort, which libFuzzer records with its input), EXPECT, and
// one runtime over the CPU plugin, $TESSERA_FUZZ_PLUGIN (a path to
// cpu_tbb.so) or the build's own, single-threaded so that runs repeat.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tessera/tessera.h"
#include "test_paths.hpp"

namespace fuzz {

// The target's name, which each finding's message starts with.
extern const char* const kTarget;

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", kTarget, what.c_str());
  std::abort();
}

inline tsr_runtime* runtime() {
  static tsr_runtime* rt = [] {
    const char* env = std::getenv("TESSERA_FUZZ_PLUGIN");
    const std::string plugin = env != nullptr && *env != '\0' ? env : test_paths::fuzz_default_plugin;
    const std::string json = "{\"plugins\": [{\"name\": \"cpu_tbb\", \"library\": \"" + plugin +
                             "\", \"options\": {\"threads\": 1}}], \"default_device\": \"cpu\"}";
    tsr_runtime_options opts{};
    opts.struct_size = TSR_RUNTIME_OPTIONS_STRUCT_SIZE;
    opts.config_json = json.c_str();
    opts.strict_plugins = 1;
    tsr_runtime* r = nullptr;
    if (tsr_runtime_create(&opts, &r) != TSR_OK) finding(std::string("no runtime: ") + tsr_last_error_message());
    return r;
  }();
  return rt;
}

}  // namespace fuzz

#define EXPECT(cond, what)                                            \
  do {                                                                \
    if (!(cond)) ::fuzz::finding(std::string(what) + " [" #cond "]"); \
  } while (0)
