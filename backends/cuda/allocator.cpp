// SPDX-License-Identifier: Apache-2.0
#include "allocator.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "context.hpp"

namespace tessera::cuda {

namespace {

std::string bytes_text(size_t n) {
  char buf[64];
  if (n >= (size_t{1} << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(n) / (1 << 30));
  else if (n >= (size_t{1} << 20)) std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(n) / (1 << 20));
  else std::snprintf(buf, sizeof buf, "%.2f KiB", static_cast<double>(n) / 1024);
  return std::to_string(n) + " bytes (" + buf + ")";
}

}  // namespace

MemorySource cuda_memory() {
  MemorySource s;
  s.malloc = [](void*, void** ptr, size_t nbytes) { return cudaMalloc(ptr, nbytes); };
  s.free = [](void*, void* ptr) { (void)cudaFree(ptr); };  // waits for the device: queued work may still use the block
  s.info = [](void*, size_t* free_bytes, size_t* total_bytes) {
    if (cudaMemGetInfo(free_bytes, total_bytes) != cudaSuccess) {
      (void)cudaGetLastError();
      *free_bytes = *total_bytes = 0;
    }
  };
  s.ctx = nullptr;
  return s;
}

CachingAllocator::CachingAllocator(std::string device_name, size_t limit, double fraction, MemorySource source)
    : source_(source), device_name_(std::move(device_name)), limit_(limit), fraction_(fraction) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  release_cached_locked();
  // Blocks still live belong to tensors the runtime never freed (it reports
  // the leak itself); freeing them here would turn the leak into a crash.
}

size_t CachingAllocator::round_size(size_t nbytes) {
  constexpr size_t kSmallStep = 512, kSmallLimit = size_t{1} << 20, kMinLargeStep = size_t{2} << 20;
  if (nbytes <= kSmallLimit) return (std::max<size_t>(nbytes, 1) + kSmallStep - 1) / kSmallStep * kSmallStep;
  size_t power = kSmallLimit;
  while (power <= nbytes / 2) power *= 2;  // the largest power of two <= nbytes
  const size_t step = std::max(kMinLargeStep, power / 8);
  if (nbytes > SIZE_MAX - step) return nbytes;  // absurd sizes: let cudaMalloc refuse them
  return (nbytes + step - 1) / step * step;
}

void* CachingAllocator::allocate(size_t nbytes, cudaStream_t stream) {
  const size_t size = round_size(nbytes);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = free_.find(Key{stream, size});
  if (it != free_.end() && !it->second.empty()) {
    void* p = it->second.back();
    it->second.pop_back();
    cached_ -= size;
    remember_live(p, Block{size, stream});
    return p;
  }
  if (size > limit_ || reserved_ > limit_ - size) {
    release_cached_locked();
    if (size > limit_ || reserved_ > limit_ - size)
      out_of_memory(nbytes, size, "memory_fraction " + std::to_string(fraction_) + " caps this plugin at " + bytes_text(limit_) + " on " + device_name_);
  }
  void* p = nullptr;
  cudaError_t e = source_.malloc(source_.ctx, &p, size);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    release_cached_locked();
    e = source_.malloc(source_.ctx, &p, size);
  }
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    out_of_memory(nbytes, size, "cudaMalloc refused it");
  }
  if (e != cudaSuccess) fail_cuda(e, "cudaMalloc of " + bytes_text(size) + " on " + device_name_);
  reserved_ += size;
  remember_live(p, Block{size, stream});
  return p;
}

// The map's nodes are recycled (spare_nodes_) so that an allocation served
// from the cache makes no heap allocation: a small op's host cost is mostly
// the kernel launch, and this keeps the rest small.
void CachingAllocator::remember_live(void* p, Block b) {
  if (spare_nodes_.empty()) {
    live_.emplace(p, b);
    return;
  }
  auto node = std::move(spare_nodes_.back());
  spare_nodes_.pop_back();
  node.key() = p;
  node.mapped() = b;
  live_.insert(std::move(node));
}

void CachingAllocator::deallocate(void* ptr) noexcept {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(ptr);
  if (it == live_.end()) return;
  const Block b = it->second;
  auto node = live_.extract(it);
  try {
    free_[Key{b.stream, b.size}].push_back(ptr);
    cached_ += b.size;
  } catch (...) {  // no memory to remember it: give it back to CUDA instead
    source_.free(source_.ctx, ptr);
    reserved_ -= b.size;
    return;
  }
  if (spare_nodes_.size() < kMaxSpareNodes) {
    try {
      spare_nodes_.push_back(std::move(node));
    } catch (...) {  // the node is freed with `node`
    }
  }
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  release_cached_locked();
}

CachingAllocator::Stats CachingAllocator::stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  return Stats{reserved_, cached_, reserved_ - cached_, live_.size()};
}

void CachingAllocator::release_cached_locked() noexcept {
  for (auto& [key, blocks] : free_) {
    for (void* p : blocks) {
      source_.free(source_.ctx, p);
      reserved_ -= key.size;
      cached_ -= key.size;
    }
  }
  free_.clear();
}

void CachingAllocator::out_of_memory(size_t nbytes, size_t rounded, const std::string& why) {
  size_t free_bytes = 0, total_bytes = 0;
  source_.info(source_.ctx, &free_bytes, &total_bytes);
  fail(TSR_ERR_OUT_OF_MEMORY, "cuda: out of memory on " + device_name_ + ": tried to allocate " + bytes_text(nbytes) +
                                  (rounded != nbytes ? " (rounded to " + std::to_string(rounded) + ")" : std::string()) +
                                  "; " + why + "; the device has " + bytes_text(free_bytes) + " free of " +
                                  bytes_text(total_bytes) + "; this plugin holds " + bytes_text(reserved_) +
                                  " (none of it cached: the cache was emptied before giving up)");
}

}  // namespace tessera::cuda
