// SPDX-License-Identifier: Apache-2.0
#include "error.hpp"

namespace tessera::rt {
namespace {
struct ErrorSlot {
  tsr_status status = TSR_OK;
  std::string message;
};
thread_local ErrorSlot slot;
// How many errors this thread has set: read around every plugin call (Note
// [Calling into a plugin]), so it is a plain integer, without the guard
// that slot's destructor needs on each access.
thread_local uint64_t generation = 0;
}  // namespace

void set_last_error(tsr_status status, const char* message) noexcept {
  ++generation;
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
uint64_t error_generation() noexcept { return generation; }
const char* last_error_message() noexcept { return slot.message.c_str(); }

}  // namespace tessera::rt
