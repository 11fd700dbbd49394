// SPDX-License-Identifier: Apache-2.0
// `tessera conformance PATH.so [--device N] [--op NAME] [--reference REF.so]`:
// checks a plugin against the ABI and against the CPU backend, as a plugin
// author runs it before shipping. See conformance_abi.cpp and
// conformance_ops.cpp for what is checked.
//
// Exit status: 0 every check passed (skips allowed), 1 a check failed,
// 2 unusable: bad arguments, a library that cannot be opened, or a plugin
// that no runtime would load (its init throws or fails, it speaks another
// ABI major, its api or a required table is NULL or too small; the reason
// is printed as "UNUSABLE: ..."), 77 the plugin works but has no device to
// run on here (the reason is printed; ctest's skip code).
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "conformance_checks.hpp"

namespace tessera::tool {

namespace {

// cpu_tbb.so beside this executable: <prefix>/bin/tessera -> <prefix>/<libdir>/tessera/.
std::string default_reference() {
  char exe[PATH_MAX] = {};
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string dir = n > 0 ? std::string(exe, static_cast<size_t>(n)) : std::string();
  dir = dir.substr(0, dir.find_last_of('/'));
  for (const char* rel : {"/../lib/tessera/cpu_tbb.so", "/../" TESSERA_TOOL_LIBDIR "/tessera/cpu_tbb.so"}) {
    std::string candidate = dir + rel;
    if (access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return dir + "/../lib/tessera/cpu_tbb.so";
}

}  // namespace

int conformance(const Options& opts) {
  if (opts.args.size() != 1) {
    std::fprintf(stderr, "tessera conformance: give exactly one plugin library (PATH.so)\n");
    return 2;
  }
  const std::string& path = opts.args[0];
  int32_t device = 0;
  if (!opts.device.empty()) {
    char* end = nullptr;
    long v = std::strtol(opts.device.c_str(), &end, 10);
    if (end == opts.device.c_str() || *end != '\0' || v < 0 || v > INT32_MAX) {
      std::fprintf(stderr, "tessera conformance: --device takes a device index, got \"%s\"\n", opts.device.c_str());
      return 2;
    }
    device = static_cast<int32_t>(v);
  }
  if (!opts.op.empty()) {
    bool known = false;
    for (int32_t op = 0; op < TSR_OP_COUNT; ++op) known |= opts.op == tsr_op_name(op);
    if (!known) {
      std::fprintf(stderr, "tessera conformance: unknown op \"%s\"\n", opts.op.c_str());
      return 2;
    }
  }
  std::string why;
  std::unique_ptr<PluginHandle> plugin = PluginHandle::open(path, why);
  if (!plugin) {
    std::fprintf(stderr, "tessera conformance: cannot use %s: %s\n", path.c_str(), why.c_str());
    return 2;
  }
  const std::string ref_path = opts.reference.empty() ? default_reference() : opts.reference;
  std::unique_ptr<PluginHandle> reference = PluginHandle::open(ref_path, why);
  const tsr_plugin_api* ref_api = nullptr;
  if (!reference || reference->init(TSR_ABI_VERSION, &ref_api) != TSR_OK) {
    std::fprintf(stderr, "tessera conformance: cannot use the reference %s: %s\n", ref_path.c_str(),
                 reference ? plugin_error().c_str() : why.c_str());
    return 2;
  }

  Report report;
  std::printf("plugin:    %s\n", path.c_str());
  std::printf("reference: %s\n", ref_path.c_str());
  int status = 0;
  std::string unusable;
  if (!check_abi(*plugin, report, unusable)) {
    std::printf("\n");
    report.print(stdout, opts.verbose);
    std::printf("UNUSABLE: %s\n", unusable.c_str());
    return 2;
  }
  {
    const tsr_plugin_api& api = plugin->api();
    std::printf("device:    %s, plugin %s %s, ABI %u.%u\n", api.device_type_name, api.plugin_name,
                api.plugin_version ? api.plugin_version : "?", TSR_VERSION_MAJOR(api.abi_version),
                TSR_VERSION_MINOR(api.abi_version));
    const int32_t count = plugin->device().device_count(plugin->ctx());
    if (count <= 0) {
      const char* reason = plugin->device().unavailable_reason ? plugin->device().unavailable_reason(plugin->ctx()) : nullptr;
      std::string text = std::string("no ") + api.device_type_name + " device here" + (reason ? std::string(": ") + reason : "");
      report.skip("memory", "all", text);
      report.skip("ops", "all", text);
      status = 77;
    } else if (device >= count) {
      std::fprintf(stderr, "tessera conformance: --device %d, but the plugin has %d device(s)\n", device, count);
      return 2;
    } else {
      check_memory(*plugin, device, report);
      check_ops(*plugin, *reference, device, opts.op, report);
    }
  }
  std::printf("\n");
  report.print(stdout, opts.verbose);
  if (report.failures() > 0) return 1;
  if (status == 77) std::printf("SKIPPED: nothing ran on a device\n");
  else std::printf("PASSED: %d checks\n", report.passes());
  return status;
}

}  // namespace tessera::tool
