// SPDX-License-Identifier: Apache-2.0
// Large host memcpys split across threads, for the pinned staging of
// host <-> device copies (transfer.hpp).
//
// A pageable copy goes through a memcpy into (or out of) pinned memory, and
// one thread's memcpy is the bottleneck. Measured on an H200 machine (PCIe 5,
// 16 cores), 1 GiB: pinned DMA 55 GB/s each way, memcpy 10 GB/s on one
// thread, 19 on two, 32 on four, 35 on eight.
//
// The workers are started on first use and joined by the destructor. A copy
// blocks until every part is done; copies are serialised (Staging holds its
// lock around them).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace tessera::cuda {

class HostCopier {
 public:
  // At most `threads` threads per copy, the caller's included (>= 1).
  explicit HostCopier(int threads);
  ~HostCopier();
  HostCopier(const HostCopier&) = delete;
  HostCopier& operator=(const HostCopier&) = delete;

  // memcpy(dst, src, n), in parts of at least kMinPart bytes on the workers
  // and the calling thread. Never throws: without workers (none could be
  // started) it is one memcpy.
  void copy(void* dst, const void* src, size_t n) noexcept;

  static constexpr size_t kMinPart = size_t{1} << 20;  // smaller parts cost more to hand over than to copy
  // The threads a copy uses on this machine: up to 8 (35 GB/s above), at most
  // the hardware's.
  static int default_threads();

 private:
  struct Part {
    char* dst = nullptr;
    const char* src = nullptr;
    size_t n = 0;
  };
  void start_workers() noexcept;
  void work(size_t index) noexcept;

  const int threads_;
  bool started_ = false;  // workers_ started (or tried): touched by copy() only, which is serialised
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<Part> parts_;  // parts_[i] for worker i of this round; n == 0: idle
  uint64_t round_ = 0;       // bumped per copy: workers wait for a new round
  size_t pending_ = 0;       // workers' parts not yet done
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace tessera::cuda
