// SPDX-License-Identifier: Apache-2.0
// The CPU plugin's caching host allocator.
//
// Note [Why the CPU plugin caches memory]
//   A fresh block costs far more than the op that fills it: every 4 KiB page
//   faults on first touch (about 15 us per page on the benchmark VM, so a
//   64 MiB result costs ~0.25 s of faults against ~10 ms of arithmetic), and
//   glibc returns large blocks to the kernel on free, so the next op pays
//   again. The allocator keeps freed blocks in size classes and hands them
//   back to the next request of the same class: steady-state ops (c = a + b
//   in a loop, the temporaries of a forward pass) reuse warm, mapped memory.
//   Large blocks are mmap'ed 2 MiB aligned with MADV_HUGEPAGE, so even their
//   first touch faults once per 2 MiB and streams through few TLB entries.
//
//   Classes: multiples of 64 bytes up to 1 KiB, then four classes per power
//   of two (at most 25% slack) below 4 MiB ("small"); from 4 MiB on,
//   multiples of 2 MiB ("large"). A class is a function of the requested size
//   alone, so deallocate (which gets the same nbytes) needs no block header.
//
//   Limits: the large blocks kept total at most `limit` bytes, and each small
//   class at most limit / 64 (an eighth of physical memory by default, the
//   "cache_mb" option otherwise; 0 turns caching off). A block freed beyond
//   that goes back to the system. release_cache() returns everything kept:
//   the device interface's empty_cache slot, a failed allocation (retried
//   once after) and the plugin's destroy call it.
//
//   Cost: a small class is one spin lock (one atomic exchange to take, a
//   plain store to give back) around a vector push or pop; its statistics
//   are written under that lock, so they need no atomic read-modify-write.
//   That keeps an op on a tiny tensor cheap (bench/: tiny_add).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace tessera::cpu_tbb {

// A lock for a few instructions of work: spins briefly, then yields the core.
class SpinLock {
 public:
  void lock() noexcept {
    while (held_.exchange(true, std::memory_order_acquire)) wait();
  }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }

 private:
  void wait() noexcept;
  std::atomic<bool> held_{false};
};

class HostAllocator {
 public:
  // Blocks of at least this many bytes are mmap'ed, 2 MiB aligned, huge-page hinted.
  static constexpr size_t kHugeThreshold = size_t{4} << 20;
  static constexpr size_t kHugePage = size_t{2} << 20;

  explicit HostAllocator(size_t limit_bytes);
  ~HostAllocator() { release_cache(); }
  HostAllocator(const HostAllocator&) = delete;
  HostAllocator& operator=(const HostAllocator&) = delete;

  // nullptr when the system has no memory left (even after emptying the cache).
  void* allocate(size_t nbytes) noexcept;
  // Takes back a block from allocate(nbytes), keeping it for reuse while the cache has room.
  void deallocate(void* p, size_t nbytes) noexcept;
  // Returns every cached block to the system.
  void release_cache() noexcept;

  // Bytes in blocks handed out and not yet returned; bytes kept for reuse.
  // Both count whole blocks (block_size), as PyTorch's memory_allocated does.
  size_t in_use_bytes() const noexcept;
  size_t cached_bytes() const noexcept;
  size_t limit() const noexcept { return limit_; }
  // The size of the block a request of nbytes gets (its class).
  static size_t block_size(size_t nbytes) noexcept;

 private:
  static constexpr int kSmallClasses = 16 + 4 * 12;  // 64 B .. 1 KiB by 64, then 4 per doubling up to 4 MiB
  static int small_class(size_t nbytes) noexcept;     // nbytes < kHugeThreshold
  static size_t class_size(int c) noexcept;

  struct alignas(64) SmallClass {  // one cache line of hot fields per class
    SpinLock lock;
    std::vector<void*> blocks;     // cached, under lock
    size_t max_blocks = 0;
    // Written under lock only; atomic so that statistics may read them any time.
    std::atomic<size_t> cached{0}, in_use{0};  // block counts
  };
  static void* system_allocate(size_t size) noexcept;
  static void system_free(void* p, size_t size) noexcept;

  const size_t limit_;
  std::array<SmallClass, kSmallClasses> small_;
  std::mutex large_mutex_;  // large blocks are few and slow anyway: one lock for all
  std::unordered_map<size_t, std::vector<void*>> large_;  // by block size
  size_t large_cached_ = 0;                                // under large_mutex_
  std::atomic<size_t> large_in_use_{0}, large_cached_view_{0};
};

}  // namespace tessera::cpu_tbb
