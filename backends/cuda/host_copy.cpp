// SPDX-License-Identifier: Apache-2.0
#include "host_copy.hpp"

#include <algorithm>
#include <cstring>

namespace tessera::cuda {

HostCopier::HostCopier(int threads) : threads_(std::max(threads, 1)) {}

HostCopier::~HostCopier() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

int HostCopier::default_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp(hw, 1u, 8u));
}

void HostCopier::start_workers() noexcept {
  started_ = true;
  parts_.assign(static_cast<size_t>(threads_ - 1), Part{});
  for (size_t i = 0; i + 1 < static_cast<size_t>(threads_); ++i) {
    try {
      workers_.emplace_back([this, i] { work(i); });
    } catch (...) {  // no more threads: copy with those there are
      break;
    }
  }
}

void HostCopier::work(size_t index) noexcept {
  uint64_t seen = 0;
  for (;;) {
    Part part;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || round_ != seen; });
      if (stop_) return;
      seen = round_;
      part = parts_[index];
    }
    if (part.n == 0) continue;  // not needed this round
    std::memcpy(part.dst, part.src, part.n);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --pending_;
    }
    done_.notify_one();
  }
}

void HostCopier::copy(void* dst, const void* src, size_t n) noexcept {
  if (!started_ && threads_ > 1 && n >= 2 * kMinPart) start_workers();
  const size_t parts = std::min<size_t>(workers_.size() + 1, n / kMinPart);
  if (parts <= 1) {
    std::memcpy(dst, src, n);
    return;
  }
  // Equal parts, rounded to 4 KiB so that no two threads write one page.
  const size_t per = ((n + parts - 1) / parts + 4095) / 4096 * 4096;
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  size_t first_n = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ = 0;
    for (size_t i = 0; i < parts_.size(); ++i) {
      const size_t off = (i + 1) * per;  // the caller takes [0, per)
      parts_[i] = i < workers_.size() && i + 1 < parts && off < n ? Part{d + off, s + off, std::min(per, n - off)} : Part{};
      pending_ += parts_[i].n != 0;
    }
    first_n = std::min(per, n);
    ++round_;
  }
  wake_.notify_all();
  std::memcpy(d, s, first_n);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
}

}  // namespace tessera::cuda
