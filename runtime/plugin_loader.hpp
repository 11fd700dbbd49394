// SPDX-License-Identifier: Apache-2.0
// Loading one device plugin: find its library, open it, run the handshake of
// tessera/plugin.h, check what it answered, and keep normalised copies of its
// tables so that the runtime can use every field its own headers define.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include "config.hpp"
#include "tessera/plugin.h"

namespace tessera::rt {

// The services offered to every plugin: a static table. set_error stores the
// calling thread's error (set_last_error); log writes one line on stderr,
// "tessera: <level>: <message>", dropping levels below $TESSERA_LOG_LEVEL
// (read once; default warning).
const tsr_host_api* host_api();

// "debug", "info", "warning", "error" (any case) or "0".."3"; "off" or "none"
// silences everything (4). Anything else, and NULL, is `fallback`.
int parse_log_level(const char* text, int fallback);

class LoadedPlugin {
 public:
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;
  // Calls api().destroy(ctx) when non-NULL, then unloads the library.
  ~LoadedPlugin();

  const PluginConfig& config() const { return config_; }
  const std::string& path() const { return path_; }  // the library loaded, as resolved
  uint32_t abi_version() const { return abi_version_; }  // what the plugin answered
  // The minor of this major both sides know: the plugin's, at most the
  // runtime's (Note [What an older plugin is handed]).
  uint32_t abi_minor() const { return std::min<uint32_t>(TSR_VERSION_MINOR(abi_version_), TSR_ABI_VERSION_MINOR); }

  // Copies of the plugin's tables, zero-filled beyond the struct_size the
  // plugin wrote, so that absent optional slots read as NULL. In api(),
  // `device` and `kernels` point at these copies.
  const tsr_plugin_api& api() const { return api_; }
  const tsr_device_iface& device() const { return device_; }
  // False for a plugin that is only a communicator (ABI 1.5): no device
  // type, no kernels.
  bool has_devices() const { return has_devices_; }
  // The communicator table (tessera/comm.h), normalised as the others;
  // nullptr when the plugin offers none.
  const tsr_comm_iface* comm() const { return api_.comm; }
  // Only entries with an op and dtype this runtime knows. The names in api()
  // are never NULL ("" when the plugin gave none).
  std::span<const tsr_kernel_entry> kernels() const { return kernels_; }

 private:
  friend std::unique_ptr<LoadedPlugin> load_plugin(const PluginConfig&, const std::string&,
                                                   const std::vector<std::string>&);
  LoadedPlugin() = default;

  PluginConfig config_;
  std::string path_;
  boost::dll::shared_library library_;
  uint32_t abi_version_ = 0;
  tsr_plugin_api api_{};
  tsr_device_iface device_{};
  tsr_kernel_table kernel_table_{};
  tsr_comm_iface comm_{};
  bool has_devices_ = true;
  std::vector<tsr_kernel_entry> kernels_;
};

// Loads the plugin `cfg` names: its library is resolved against base_dir
// and search_dirs (resolve_library in paths.hpp), opened with RTLD_NOW |
// RTLD_LOCAL, and initialised with cfg.options_json and cfg.name. Throws
// Error(TSR_ERR_VERSION) for another ABI major version and Error(TSR_ERR_LOAD)
// for any other failure, with a message naming the plugin, the path and why.
std::unique_ptr<LoadedPlugin> load_plugin(const PluginConfig& cfg, const std::string& base_dir,
                                          const std::vector<std::string>& search_dirs);

}  // namespace tessera::rt
