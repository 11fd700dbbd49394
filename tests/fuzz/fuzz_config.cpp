// SPDX-License-Identifier: Apache-2.0
// Fuzz target: arbitrary bytes as a config file.
//
// The loader must either return a config that keeps its promises or fail
// with TSR_ERR_CONFIG and one message naming the file ("config <origin>:
// ..."); anything else — another status, another exception, a crash, a
// sanitizer report, a leak — is a finding. A config that parses and enables
// no plugin also goes through the public API (tsr_runtime_create with the
// text, describe, the default device and every alias), which loads no
// library; configs that enable plugins stop at the parser, so the fuzzer
// never dlopens a path it made up.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "config.hpp"
#include "error.hpp"
#include "tessera/tessera.h"

namespace {

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_config: %s\n", what.c_str());
  std::abort();
}

const char* const kOrigin = "<fuzz>";

void check_config(const tessera::rt::Config& c) {
  if (c.origin != kOrigin) finding("origin not kept");
  if (c.default_device.empty()) finding("empty default_device accepted");
  std::set<std::string> names;
  for (size_t i = 0; i < c.plugins.size(); ++i) {
    const auto& p = c.plugins[i];
    if (p.name.empty() || p.library.empty()) finding("plugin with an empty name or library accepted");
    if (!names.insert(p.name).second) finding("duplicate plugin name accepted: " + p.name);
    if (p.pointer != "/plugins/" + std::to_string(i)) finding("wrong pointer " + p.pointer);
    if (p.options_json.empty() || p.options_json.front() != '{') finding("options not an object: " + p.options_json);
  }
  for (const auto& [alias, target] : c.aliases)
    if (alias.empty() || target.empty()) finding("empty alias accepted");
}

// The public API on a config that loads nothing.
void through_api(const std::string& text, const tessera::rt::Config& c) {
  if (text.find('\0') != std::string::npos) return;  // the API takes a C string
  for (const auto& p : c.plugins)
    if (p.enabled) return;
  tsr_runtime_options opts{};
  opts.struct_size = TSR_RUNTIME_OPTIONS_STRUCT_SIZE;
  opts.config_json = text.c_str();
  opts.config_base_dir = "/nonexistent";
  tsr_runtime* rt = nullptr;
  if (tsr_runtime_create(&opts, &rt) != TSR_OK) finding(std::string("a parsed config failed: ") + tsr_last_error_message());
  char* s = nullptr;
  if (tsr_runtime_describe(rt, 1, &s) != TSR_OK) finding("describe failed");
  tsr_string_free(s);
  tsr_device dev{};
  int32_t available = -1;
  if (tsr_runtime_default_device(rt, &dev, &available) != TSR_OK || available != 0)
    finding("a device is available with no plugin loaded");
  // No device type is loaded: every name must fail cleanly.
  for (const auto& [alias, target] : c.aliases) {
    if (tsr_device_parse(rt, alias.c_str(), &dev) == TSR_OK) finding("alias parsed without a device type");
    if (std::strlen(tsr_last_error_message()) == 0) finding("an error without a message");
  }
  tsr_runtime_destroy(rt);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tessera::rt::Config config;
  try {
    config = tessera::rt::parse_config_text(text, kOrigin, "/nonexistent");
  } catch (const tessera::rt::Error& e) {
    if (e.status() != TSR_ERR_CONFIG) finding(std::string("status ") + tsr_status_name(e.status()) + ": " + e.what());
    if (std::strncmp(e.what(), "config <fuzz>: ", 15) != 0) finding(std::string("message without its origin: ") + e.what());
    return 0;
  }
  // Any other exception escapes and aborts: also a finding.
  check_config(config);
  through_api(text, config);
  return 0;
}
