#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
};

int info(const Options& opts);
int demo(const Options& opts);
int conformance(const Options& opts);
int bench(const Options& opts);

}  // namespace tessera::tool
