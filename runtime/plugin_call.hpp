// SPDX-License-Identifier: Apache-2.0
// Note [Calling into a plugin]
//   Every call from the runtime into a plugin (init, destroy, a kernel, a
//   device slot) runs inside a PluginCall, which
//    - notes the thread's error generation (error.hpp) as the call starts,
//      so that plugin_message() afterwards reports only what this call set
//      through host->set_error: a slot that fails without a message is
//      reported as giving none, never with an older, unrelated error wrapped
//      around it (which also nested a little deeper on each failure). The
//      slot itself is not cleared: a successful API call leaves the caller's
//      last error as it was (tessera.h);
//    - makes the plugin the thread's current one while the call runs, so
//      that a host->log line written during it names the plugin.
//   Both live in one plain thread-local struct (CallState, error.hpp): a call
//   costs one thread-local lookup and a few stores, nothing per element.
#pragma once

#include <string>

#include "error.hpp"

namespace tessera::rt {

class LoadedPlugin;

class PluginCall {
 public:
  explicit PluginCall(const LoadedPlugin* plugin) noexcept : state_(call_state()), previous_(state_.plugin) {
    state_.plugin = plugin;
    state_.call_start = state_.generation;
  }
  ~PluginCall() { state_.plugin = previous_; }
  PluginCall(const PluginCall&) = delete;
  PluginCall& operator=(const PluginCall&) = delete;

 private:
  CallState& state_;  // this thread's: a PluginCall never changes threads
  const void* previous_;
};

// The plugin whose call is running on this thread, or nullptr.
const LoadedPlugin* current_plugin() noexcept;

// What the plugin call begun last on this thread said when it failed: the
// message it set, or "the plugin gave no message" when it set none. Read it
// right after the call, before another PluginCall starts.
std::string plugin_message();

}  // namespace tessera::rt
