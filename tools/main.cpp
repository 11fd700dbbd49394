// SPDX-License-Identifier: Apache-2.0
// The `tessera` command: info, demo, conformance, bench, allreduce-bench.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "commands.hpp"

namespace {
void usage(FILE* to) {
  std::fputs(
      "usage: tessera [--config FILE] COMMAND [options]\n"
      "commands:\n"
      "  info [--json]        plugins loaded (version, path), devices, plugins that failed and why;\n"
      "                       exit status 0 when the default device is available, 1 when not,\n"
      "                       2 when the config is invalid\n"
      "  demo [--device DEV]  the lesson walk-through and the MLP forward on every enabled device\n"
      "                       (or on DEV only)\n"
      "  conformance PATH.so [--device N] [--op NAME] [--reference REF.so] [--verbose]\n"
      "                       checks a plugin: ABI, memory and copies, and every op x dtype x layout\n"
      "                       it claims against the CPU backend (REF.so, default cpu_tbb.so);\n"
      "                       exit status 0 passed, 1 failed, 2 unusable, 77 no device here\n"
      "  bench [--device DEV] [--op NAME] [--size N] [--seconds S] [--json]\n"
      "                       times the common ops on every enabled device (or DEV) through the C API,\n"
      "                       each checked first against a float64 result on the cpu; N elements per\n"
      "                       elementwise operand (default 2^24), S seconds per workload (default 0.5);\n"
      "                       exit status 1 when a result is wrong or an op fails\n"
      "  allreduce-bench [--min-bytes B] [--max-bytes B] [--json]\n"
      "                       under mpirun: nccl-tests' all_reduce table (float32, sum) through the\n"
      "                       config's communicator, sizes from B (4) to B (256 MiB) doubling: time,\n"
      "                       algorithm and bus bandwidth, wrong elements; exit status 1 when any\n"
      "                       element is wrong or a call fails\n"
      "The config is FILE, else $TESSERA_CONFIG, else the default config.\n",
      to);
}
}  // namespace

int main(int argc, char** argv) {
  tessera::tool::Options opts;
  std::string command;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool missing = false;
    auto value = [&](const char* name) -> std::string {
      if (i + 1 < argc) return argv[++i];
      std::fprintf(stderr, "tessera: %s needs a value\n", name);
      missing = true;
      return {};
    };
    if (arg == "--config") opts.config = value("--config");
    else if (arg.rfind("--config=", 0) == 0) opts.config = arg.substr(9);
    else if (arg == "--json") opts.json = true;
    else if (arg == "--device") opts.device = value("--device");
    else if (arg.rfind("--device=", 0) == 0) opts.device = arg.substr(9);
    else if (arg == "--op") opts.op = value("--op");
    else if (arg == "--reference") opts.reference = value("--reference");
    else if (arg == "--verbose" || arg == "-v") opts.verbose = true;
    else if (arg == "--min-bytes" || arg == "--max-bytes") {
      const std::string v = value(arg.c_str());
      char* end = nullptr;
      const long long x = std::strtoll(v.c_str(), &end, 10);
      if (missing) return 2;
      if (v.empty() || *end != '\0' || x < 4 || x > (1ll << 34)) {
        std::fprintf(stderr, "tessera: %s needs a byte count from 4 to 2^34, got \"%s\"\n", arg.c_str(), v.c_str());
        return 2;
      }
      (arg == "--min-bytes" ? opts.min_bytes : opts.max_bytes) = x;
    }
    else if (arg == "--size" || arg == "--seconds") {
      const std::string v = value(arg.c_str());
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (missing) return 2;
      if (v.empty() || *end != '\0' || !(x > 0) || (arg == "--size" && (x != std::floor(x) || x > 1e15))) {
        std::fprintf(stderr, "tessera: %s needs a positive %s, got \"%s\"\n", arg.c_str(),
                     arg == "--size" ? "whole number" : "number", v.c_str());
        return 2;
      }
      if (arg == "--size") opts.size = static_cast<int64_t>(x);
      else opts.seconds = x;
    }
    else if (arg == "-h" || arg == "--help") {
      usage(stdout);
      return 0;
    } else if (command.empty() && !arg.empty() && arg[0] != '-') command = arg;
    else if (command == "conformance" && !arg.empty() && arg[0] != '-') opts.args.push_back(arg);
    else {
      std::fprintf(stderr, "tessera: unknown argument \"%s\"\n", arg.c_str());
      usage(stderr);
      return 2;
    }
    if (missing) return 2;
  }
  if (command == "info") return tessera::tool::info(opts);
  if (command == "demo") return tessera::tool::demo(opts);
  if (command == "conformance") return tessera::tool::conformance(opts);
  if (command == "bench") return tessera::tool::bench(opts);
  if (command == "allreduce-bench") {
    try {
      return tessera::tool::allreduce_bench(opts);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tessera: allreduce-bench: %s\n", e.what());
      return 1;
    }
  }
  usage(command.empty() ? stdout : stderr);
  return command.empty() ? 0 : 2;
}
