// SPDX-License-Identifier: Apache-2.0
// The body of an in-tree backend's tsr_plugin_init: check the arguments and
// the runtime's major version, build the plugin's context, hand out its
// tsr_plugin_api. The context is owned by the runtime's handle from then on
// and freed by the api's destroy slot.
#pragma once

#include <memory>
#include <string>

#include "plugin_error.hpp"
#include "tessera/plugin.h"

namespace tessera::backend {

// make_context(const tsr_plugin_init_args&) returns std::unique_ptr<Context>,
// where Context has a tsr_plugin_api member `api`.
template <class MakeContext>
tsr_status init_plugin(const char* plugin, const tsr_plugin_init_args* args, const tsr_plugin_api** out,
                       MakeContext&& make_context) noexcept {
  const tsr_host_api* host =
      (args != nullptr && args->struct_size >= TSR_STRUCT_SIZE(tsr_plugin_init_args, host)) ? args->host : nullptr;
  return guarded(host, plugin, [&] {
    const std::string name(plugin);
    if (args == nullptr || out == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, name + ": tsr_plugin_init needs args and out");
    if (args->struct_size < TSR_STRUCT_SIZE(tsr_plugin_init_args, options_json))
      fail(TSR_ERR_INVALID_ARGUMENT, name + ": tsr_plugin_init_args too small");
    if (TSR_VERSION_MAJOR(args->abi_version) != TSR_ABI_VERSION_MAJOR) {
      fail(TSR_ERR_VERSION, name + ": runtime ABI version " + std::to_string(TSR_VERSION_MAJOR(args->abi_version)) + "." +
                                std::to_string(TSR_VERSION_MINOR(args->abi_version)) +
                                " is not compatible with the plugin's " + std::to_string(TSR_ABI_VERSION_MAJOR) + "." +
                                std::to_string(TSR_ABI_VERSION_MINOR));
    }
    auto c = make_context(*args);
    *out = &c->api;
    (void)c.release();  // owned by the runtime's handle until destroy
  });
}

}  // namespace tessera::backend
