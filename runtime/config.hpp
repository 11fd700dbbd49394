// SPDX-License-Identifier: Apache-2.0
// The runtime's JSON config: which plugins to load, with what options, and
// how device names are spelt. The shape is described for humans and editors
// in configs/schema.json; this parser enforces the same shape and reports the
// first violation as ONE message naming the file and the JSON pointer of the
// offending field (TSR_ERR_CONFIG).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tessera::rt {

struct PluginConfig {
  std::string name;               // unique within the config; the plugin's instance name
  std::string library;            // "cpu_tbb.so" (searched) or "dir/x.so" (relative to base_dir)
  bool enabled = true;
  std::string options_json = "{}";  // the "options" object, re-serialised
  int priority = 0;               // higher wins when two plugins claim one (op, device, dtype)
  bool fallback = false;
  std::string pointer;            // "/plugins/0", for messages
};

struct Config {
  std::string origin;    // the file path, or "<inline config>"
  std::string base_dir;  // relative library paths resolve here
  std::vector<PluginConfig> plugins;
  std::string default_device = "cpu";
  std::map<std::string, std::string> aliases;  // "gpu" -> "cuda:0"
  // Since ABI 1.5: the communicator plugin of each device type
  // ("cpu" -> "mpi"; tessera/distributed.h), each naming a plugin above.
  std::map<std::string, std::string> communicators;
  double comm_timeout_s = 300.0;  // seconds every collective may take (> 0)
};

// Reads and parses a config file; base_dir is the file's directory (made
// absolute). Throws Error(TSR_ERR_CONFIG) for an unreadable file or any
// violation of the shape.
Config parse_config_file(const std::string& path);

// Parses config text. `origin` names it in messages ("config <origin>: ...").
Config parse_config_text(const std::string& text, const std::string& origin, const std::string& base_dir);

}  // namespace tessera::rt
