// SPDX-License-Identifier: Apache-2.0
// The caching host allocator (Note [Why the CPU plugin caches memory] in allocator.hpp).
#include "allocator.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <thread>

namespace tessera::cpu_tbb {

void SpinLock::wait() noexcept {
  for (int spins = 0; held_.load(std::memory_order_relaxed); ++spins) {
    if (spins >= 64) {
      std::this_thread::yield();  // the holder may have been preempted
    } else {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }
}

HostAllocator::HostAllocator(size_t limit_bytes) : limit_(limit_bytes) {
  for (int c = 0; c < kSmallClasses; ++c) small_[static_cast<size_t>(c)].max_blocks = limit_ / kSmallClasses / class_size(c);
}

int HostAllocator::small_class(size_t nbytes) noexcept {
  if (nbytes <= 1024) return static_cast<int>((std::max<size_t>(nbytes, 1) + 63) / 64) - 1;
  const int e = std::bit_width(nbytes - 1) - 1;  // 2^e < nbytes <= 2^(e+1), e >= 10
  const size_t quarter = size_t{1} << (e - 2);
  const int k = static_cast<int>((nbytes - (size_t{1} << e) + quarter - 1) / quarter);  // 1..4
  return 16 + (e - 10) * 4 + (k - 1);
}

size_t HostAllocator::class_size(int c) noexcept {
  if (c < 16) return static_cast<size_t>(c + 1) * 64;
  const int e = 10 + (c - 16) / 4, k = (c - 16) % 4 + 1;
  return (size_t{1} << e) + static_cast<size_t>(k) * (size_t{1} << (e - 2));
}

size_t HostAllocator::block_size(size_t nbytes) noexcept {
  if (nbytes >= kHugeThreshold) return (nbytes + kHugePage - 1) / kHugePage * kHugePage;
  return class_size(small_class(nbytes));
}

void* HostAllocator::system_allocate(size_t size) noexcept {
  if (size < kHugeThreshold) return std::aligned_alloc(64, size);
  // Over-map by one huge page and trim, so the block starts on a 2 MiB boundary.
  const size_t span = size + kHugePage;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t base = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (base + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > base) munmap(raw, aligned - base);
  const size_t tail = base + span - (aligned + size);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + size), tail);
  void* p = reinterpret_cast<void*>(aligned);
  (void)madvise(p, size, MADV_HUGEPAGE);  // a hint: failure only costs speed
  return p;
}

void HostAllocator::system_free(void* p, size_t size) noexcept {
  if (size < kHugeThreshold) std::free(p);
  else munmap(p, size);
}

// Plain load + store of a counter that only its lock's holder writes.
static inline void bump(std::atomic<size_t>& counter, ptrdiff_t by) noexcept {
  counter.store(counter.load(std::memory_order_relaxed) + static_cast<size_t>(by), std::memory_order_relaxed);
}

void* HostAllocator::allocate(size_t nbytes) noexcept {
  const size_t size = block_size(nbytes);
  void* p = nullptr;
  if (size < kHugeThreshold) {
    SmallClass& sc = small_[static_cast<size_t>(small_class(nbytes))];
    {
      std::lock_guard<SpinLock> lock(sc.lock);
      if (!sc.blocks.empty()) {
        p = sc.blocks.back();
        sc.blocks.pop_back();
        bump(sc.cached, -1);
        bump(sc.in_use, 1);
        return p;
      }
    }
    p = system_allocate(size);
    if (p == nullptr && cached_bytes() > 0) {  // the cache may be what holds the memory
      release_cache();
      p = system_allocate(size);
    }
    if (p != nullptr) {
      std::lock_guard<SpinLock> lock(sc.lock);
      bump(sc.in_use, 1);
    }
    return p;
  }
  {
    std::lock_guard<std::mutex> lock(large_mutex_);
    auto it = large_.find(size);
    if (it != large_.end() && !it->second.empty()) {
      p = it->second.back();
      it->second.pop_back();
      large_cached_ -= size;
      large_cached_view_.store(large_cached_, std::memory_order_relaxed);
    }
  }
  if (p == nullptr) {
    p = system_allocate(size);
    if (p == nullptr && cached_bytes() > 0) {
      release_cache();
      p = system_allocate(size);
    }
    if (p == nullptr) return nullptr;
  }
  large_in_use_.fetch_add(size, std::memory_order_relaxed);
  return p;
}

void HostAllocator::deallocate(void* p, size_t nbytes) noexcept {
  if (p == nullptr) return;
  const size_t size = block_size(nbytes);
  if (size < kHugeThreshold) {
    SmallClass& sc = small_[static_cast<size_t>(small_class(nbytes))];
    {
      std::lock_guard<SpinLock> lock(sc.lock);
      bump(sc.in_use, -1);
      if (sc.blocks.size() < sc.max_blocks) {
        try {
          sc.blocks.push_back(p);
          bump(sc.cached, 1);
          return;
        } catch (...) {  // no room to remember the block (bad_alloc): give it back instead
        }
      }
    }
    system_free(p, size);
    return;
  }
  large_in_use_.fetch_sub(size, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(large_mutex_);
    if (large_cached_ + size <= limit_) {
      try {
        large_[size].push_back(p);
        large_cached_ += size;
        large_cached_view_.store(large_cached_, std::memory_order_relaxed);
        return;
      } catch (...) {
      }
    }
  }
  system_free(p, size);
}

void HostAllocator::release_cache() noexcept {
  // Each list is emptied under its lock and freed outside it.
  for (size_t c = 0; c < small_.size(); ++c) {
    std::vector<void*> blocks;
    {
      std::lock_guard<SpinLock> lock(small_[c].lock);
      blocks.swap(small_[c].blocks);
      small_[c].cached.store(0, std::memory_order_relaxed);
    }
    for (void* p : blocks) std::free(p);
  }
  std::unordered_map<size_t, std::vector<void*>> large;
  {
    std::lock_guard<std::mutex> lock(large_mutex_);
    large.swap(large_);
    large_cached_ = 0;
    large_cached_view_.store(0, std::memory_order_relaxed);
  }
  for (auto& [size, blocks] : large)
    for (void* p : blocks) system_free(p, size);
}

size_t HostAllocator::in_use_bytes() const noexcept {
  size_t total = large_in_use_.load(std::memory_order_relaxed);
  for (size_t c = 0; c < small_.size(); ++c)
    total += small_[c].in_use.load(std::memory_order_relaxed) * class_size(static_cast<int>(c));
  return total;
}

size_t HostAllocator::cached_bytes() const noexcept {
  size_t total = large_cached_view_.load(std::memory_order_relaxed);
  for (size_t c = 0; c < small_.size(); ++c)
    total += small_[c].cached.load(std::memory_order_relaxed) * class_size(static_cast<int>(c));
  return total;
}

}  // namespace tessera::cpu_tbb
