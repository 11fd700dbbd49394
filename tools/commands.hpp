// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

namespace tessera::tool {

struct Options {
  std::string config;  // empty: $TESSERA_CONFIG or the default
  std::string device;  // demo: one device only
  bool json = false;
  std::vector<std::string> args;  // the command's positional arguments
  std::string op;                 // conformance: one op only
  std::string reference;          // conformance: the reference plugin
  bool verbose = false;
  int64_t size = 0;     // bench: elements of the elementwise operands (0: 2^24)
  double seconds = 0;   // bench: time per workload (0: 0.5 s)
  int64_t min_bytes = 0;  // allreduce-bench: the smallest message (0: 4 B)
  int64_t max_bytes = 0;  // allreduce-bench: the largest message (0: 256 MiB)
};

// The devices a command runs on: every available one, or the one --device
// names. Throws Error when there is none, or when the named device is not
// available (the message says why: "device cuda:0 is not available (0 cuda
// device(s): no NVIDIA driver ...)"), so the command fails once, up front.
inline std::vector<tsr_device> chosen_devices(const Runtime& rt, const std::string& device) {
  if (device.empty()) {
    std::vector<tsr_device> all = rt.devices();
    if (all.empty()) throw Error(TSR_ERR_DEVICE, "no device is available\n" + rt.describe());
    return all;
  }
  const tsr_device d = rt.device(device);
  check(tsr_synchronize(rt.get(), d));  // an unavailable device fails here, with the reason
  return {d};
}

int info(const Options& opts);
int demo(const Options& opts);
int conformance(const Options& opts);
int bench(const Options& opts);
int allreduce_bench(const Options& opts);

}  // namespace tessera::tool
