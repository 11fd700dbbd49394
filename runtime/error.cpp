// SPDX-License-Identifier: Apache-2.0
#include "error.hpp"

namespace tessera::rt {
namespace {
struct ErrorSlot {
  tsr_status status = TSR_OK;
  std::string message;
};
thread_local ErrorSlot slot;
// Read around every plugin call, so a plain struct: no guard for a
// destructor on each access, as slot needs.
thread_local CallState state;
}  // namespace

void set_last_error(tsr_status status, const char* message) noexcept {
  ++state.generation;
  slot.status = status;
  try {
    slot.message = message ? message : "";
  } catch (...) {
    slot.message.clear();
  }
}

void clear_last_error() noexcept {
  slot.status = TSR_OK;
  slot.message.clear();
}

tsr_status last_error_status() noexcept { return slot.status; }
uint64_t error_generation() noexcept { return state.generation; }
CallState& call_state() noexcept { return state; }
const char* last_error_message() noexcept { return slot.message.c_str(); }

}  // namespace tessera::rt
