// SPDX-License-Identifier: Apache-2.0
// An arena: one block of memory that stands in for a device's own memory.
//
// The addresses it hands out are handles, not host pointers: they lie in a
// non-canonical x86-64 range (ArenaSet::kHandleBase), so a host dereference
// faults at once. Address arithmetic on them is fine (a runtime adds byte
// offsets to reach views); only this plugin turns a handle back into bytes.
// That is how a real accelerator's memory looks to the host, and it proves
// that whatever drives the plugin goes through its copy functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace arena {

class Arena {
 public:
  explicit Arena(size_t capacity);

  // First fit, 64-byte aligned; returns false when no free range fits.
  bool allocate(size_t nbytes, size_t& offset);
  void deallocate(size_t offset, size_t nbytes);
  size_t capacity() const { return capacity_; }
  size_t free_bytes() const;
  std::byte* bytes() { return memory_.get(); }

 private:
  static size_t rounded(size_t nbytes) { return (nbytes + 63) / 64 * 64; }

  size_t capacity_;
  std::unique_ptr<std::byte[]> memory_;
  mutable std::mutex mutex_;
  std::map<size_t, size_t> free_;  // offset -> length, coalesced
  size_t free_total_;
};

// The arenas of every device of one plugin instance, and the handle space.
class ArenaSet {
 public:
  // Device d's handles start at kHandleBase + d * kDeviceSpan.
  static constexpr uintptr_t kHandleBase = uintptr_t{0x5A5A} << 48;
  static constexpr uintptr_t kDeviceSpan = uintptr_t{1} << 40;

  ArenaSet(int devices, size_t bytes_each);

  int count() const { return static_cast<int>(arenas_.size()); }
  Arena& arena(int device) { return *arenas_[static_cast<size_t>(device)]; }

  void* handle(int device, size_t offset) const {
    return reinterpret_cast<void*>(kHandleBase + static_cast<uintptr_t>(device) * kDeviceSpan + offset);
  }
  // The bytes behind `handle` for `nbytes`, or nullptr when the range is not
  // inside device's arena (a bad address from the caller).
  std::byte* resolve(int device, const void* handle, size_t nbytes);

 private:
  std::vector<std::unique_ptr<Arena>> arenas_;
};

}  // namespace arena
