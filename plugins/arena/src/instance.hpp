// SPDX-License-Identifier: Apache-2.0
// One initialised copy of the plugin: its arenas, options and host services.
#pragma once

#include <string>

#include "arena.hpp"
#include "tessera/plugin.h"

namespace arena {

struct Instance {
  Instance(int devices, size_t bytes_each) : arenas(devices, bytes_each) {}

  ArenaSet arenas;
  const tsr_host_api* host = nullptr;
  std::string name;  // the config's instance name, for messages
  // This instance's tables; api.ctx points back at the instance.
  tsr_device_iface iface{};
  tsr_plugin_api api{};

  // Reports an error through the host and returns `status`.
  tsr_status error(tsr_status status, const std::string& message) const {
    if (host != nullptr && host->set_error != nullptr) host->set_error(status, ("arena: " + message).c_str());
    return status;
  }
};

// The kernel table (kernels.cpp): a static array.
const tsr_kernel_table* kernel_table();

}  // namespace arena
