// SPDX-License-Identifier: Apache-2.0
// The caching device allocator (one per device).
//
// cudaMalloc and cudaFree are slow (cudaFree also waits for the whole device),
// so freed blocks are kept and handed out again. A block is only reused on the
// stream it was allocated for: the ABI's allocate() takes no stream, so every
// block belongs to the device's default stream, where the runtime queues all
// of its work; stream order then makes reuse safe without waiting. (Work a
// caller queues on a stream of its own must be synchronised before it frees
// the tensors it used, as with PyTorch's record_stream.)
//
// Sizes are rounded to a few classes per power of two so that a freed block
// fits the next request of about the same size: 512-byte steps up to 1 MiB,
// then 1/8 of the power of two (at least 2 MiB), at most 12.5% waste.
//
// The cache is returned to CUDA on empty_cache(), and before an allocation is
// retried after cudaMalloc ran out of memory or the memory_fraction cap was
// reached; only then is the request refused with TSR_ERR_OUT_OF_MEMORY.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tessera::cuda {

// Where the allocator's blocks come from: by default cudaMalloc, cudaFree and
// cudaMemGetInfo on the current device; tests/cuda/test_cuda_host_memory.cpp puts a
// fake device memory here to check the caching rules without a GPU.
struct MemorySource {
  cudaError_t (*malloc)(void* ctx, void** ptr, size_t nbytes);
  void (*free)(void* ctx, void* ptr);
  void (*info)(void* ctx, size_t* free_bytes, size_t* total_bytes);  // 0, 0 when unknown
  void* ctx;
};
MemorySource cuda_memory();

class CachingAllocator {
 public:
  // `device_name` appears in messages ("cuda:0"); `limit` caps the bytes held
  // from the source (live and cached together).
  CachingAllocator(std::string device_name, size_t limit, double fraction, MemorySource source = cuda_memory());
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // The caller has made the device current. Throws Error (OUT_OF_MEMORY, DEVICE).
  void* allocate(size_t nbytes, cudaStream_t stream);
  // Never fails; an unknown pointer is ignored.
  void deallocate(void* ptr) noexcept;
  // Frees every cached block (waits for the device, as cudaFree does).
  void empty_cache();

  struct Stats {
    size_t reserved = 0;  // held from cudaMalloc: live + cached
    size_t cached = 0;    // held but unused
    size_t in_use = 0;    // in live blocks (rounded sizes, as PyTorch's memory_allocated)
    size_t live_blocks = 0;
  };
  Stats stats();

  static size_t round_size(size_t nbytes);

 private:
  struct Block {
    size_t size;
    cudaStream_t stream;
  };
  struct Key {
    cudaStream_t stream;
    size_t size;
    bool operator==(const Key& o) const { return stream == o.stream && size == o.size; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept {
      return std::hash<size_t>()(k.size) ^ (std::hash<const void*>()(k.stream) << 1);
    }
  };

  using LiveMap = std::unordered_map<void*, Block>;
  static constexpr size_t kMaxSpareNodes = 256;
  void remember_live(void* p, Block b);
  void release_cached_locked() noexcept;
  [[noreturn]] void out_of_memory(size_t nbytes, size_t rounded, const std::string& why);

  MemorySource source_;
  std::string device_name_;
  size_t limit_;
  double fraction_;
  std::mutex mutex_;
  LiveMap live_;
  std::vector<LiveMap::node_type> spare_nodes_;  // extracted from live_, reused by remember_live
  std::unordered_map<Key, std::vector<void*>, KeyHash> free_;
  size_t reserved_ = 0;
  size_t cached_ = 0;
};

}  // namespace tessera::cuda
