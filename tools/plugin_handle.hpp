// SPDX-License-Identifier: Apache-2.0
// A device plugin opened directly by the tool, without a runtime: the
// library, its entry point and one initialised instance. `tessera
// conformance` drives plugins through this to test the ABI surface itself
// (tessera/plugin.h), the way a runtime built by someone else would.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tessera/plugin.h"

namespace tessera::tool {

// The calling thread's last error set by a plugin through the host API.
const std::string& plugin_error();
void clear_plugin_error();
// The host API handed to plugins (set_error stores into plugin_error();
// log prints warnings and errors on stderr).
const tsr_host_api* tool_host_api();

class PluginHandle {
 public:
  PluginHandle(const PluginHandle&) = delete;
  PluginHandle& operator=(const PluginHandle&) = delete;
  ~PluginHandle();  // destroy(ctx), then dlclose

  // Opens the library (RTLD_NOW | RTLD_LOCAL). Returns nullptr with `why` set
  // when it is not a loadable library or has no tsr_plugin_init.
  static std::unique_ptr<PluginHandle> open(const std::string& path, std::string& why);

  // Calls the entry point as a runtime of ABI `abi_version` would, with
  // options "{}". On success the instance is kept (destroyed with the
  // handle; a second successful init is refused here). An entry point that
  // throws gives TSR_ERR_INTERNAL with the exception's text in plugin_error().
  tsr_status init(uint32_t abi_version, const tsr_plugin_api** out);

  // The api and tables of the initialised instance, copied into zeroed
  // structs of this tool's size (Note [Extensible structs]).
  const tsr_plugin_api& api() const { return api_; }
  const tsr_device_iface& device() const { return device_; }
  const tsr_kernel_table& kernels() const { return kernels_; }
  void* ctx() const { return api_.ctx; }
  const std::string& path() const { return path_; }
  bool threw() const { return threw_; }  // the entry point let a C++ exception out

 private:
  PluginHandle() = default;
  std::string path_;
  void* library_ = nullptr;
  tsr_plugin_init_fn entry_ = nullptr;
  const tsr_plugin_api* raw_ = nullptr;
  bool threw_ = false;  // init threw: the library is never closed
  tsr_plugin_api api_{};
  tsr_device_iface device_{};
  tsr_kernel_table kernels_{};
};

}  // namespace tessera::tool
