// SPDX-License-Identifier: Apache-2.0
#include "arena.hpp"

namespace arena {

Arena::Arena(size_t capacity)
    : capacity_(rounded(capacity)), memory_(new std::byte[capacity_]), free_total_(capacity_) {
  free_.emplace(0, capacity_);
}

bool Arena::allocate(size_t nbytes, size_t& offset) {
  const size_t need = rounded(nbytes);
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < need) continue;
    offset = it->first;
    const size_t rest = it->second - need;
    free_.erase(it);
    if (rest > 0) free_.emplace(offset + need, rest);
    free_total_ -= need;
    return true;
  }
  return false;
}

void Arena::deallocate(size_t offset, size_t nbytes) {
  size_t length = rounded(nbytes);
  std::lock_guard<std::mutex> lock(mutex_);
  free_total_ += length;
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && offset + length == next->first) {  // merge with the range after
    length += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {  // merge with the range before
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += length;
      return;
    }
  }
  free_.emplace(offset, length);
}

size_t Arena::free_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return free_total_;
}

ArenaSet::ArenaSet(int devices, size_t bytes_each) {
  for (int d = 0; d < devices; ++d) arenas_.push_back(std::make_unique<Arena>(bytes_each));
}

std::byte* ArenaSet::resolve(int device, const void* handle, size_t nbytes) {
  if (device < 0 || device >= count()) return nullptr;
  const uintptr_t first = kHandleBase + static_cast<uintptr_t>(device) * kDeviceSpan;
  const uintptr_t h = reinterpret_cast<uintptr_t>(handle);
  Arena& a = arena(device);
  if (h < first || h - first > a.capacity() || nbytes > a.capacity() - (h - first)) return nullptr;
  return a.bytes() + (h - first);
}

}  // namespace arena
