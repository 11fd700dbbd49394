// SPDX-License-Identifier: Apache-2.0
// The three parts of `tessera conformance` (conformance.cpp runs them).
#pragma once

#include <cstdint>
#include <string>

#include "conformance_report.hpp"
#include "plugin_handle.hpp"

namespace tessera::tool {

// Version negotiation and the tables' shape; initialises the plugin.
// Returns false when the plugin cannot be used at all, with the first reason
// in `unusable`.
bool check_abi(PluginHandle& plugin, Report& report, std::string& unusable);

// allocate/deallocate and the three copies on `device`: zero and odd sizes,
// large blocks, many small ones, alignment, round trips; the optional slots.
void check_memory(const PluginHandle& plugin, int32_t device, Report& report);

// Every (op, dtype) the plugin claims, on every layout of Note [Kernel
// contracts], against the same kernel of `reference` on host memory, with
// sentinel bytes around and between the output's elements. `only_op` empty:
// every op; else that op's name.
void check_ops(const PluginHandle& plugin, const PluginHandle& reference, int32_t device,
               const std::string& only_op, Report& report);

}  // namespace tessera::tool
