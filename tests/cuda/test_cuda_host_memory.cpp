// SPDX-License-Identifier: Apache-2.0
// cuda.host.memory: the staging's parallel host copier and the caching allocator (size
// classes; reuse, cache emptying and out-of-memory over a fake device memory).
// The CUDA backend's device code run on the CPU, no GPU needed (see
// test_cuda_host.hpp).
#include "test_cuda_host.hpp"

using namespace tessera_test_cuda_host;

// ---- the staging's parallel memcpy -----------------------------------------------------------

TEST_CASE("the host copier copies every byte, and only those, on any number of threads") {
  constexpr size_t MiB = size_t{1} << 20, kGuard = 4096;
  const std::vector<size_t> sizes = {0, 1, 4095, MiB, 2 * MiB - 1, 2 * MiB, 2 * MiB + 3, 8 * MiB + 4097, 37 * MiB + 5};
  std::vector<unsigned char> src(37 * MiB + 5 + 2 * kGuard), dst(src.size());
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>((i * 131 + 7) % 251);
  for (const int threads : {1, 2, 3, 8}) {
    cu::HostCopier copier(threads);
    for (const size_t n : sizes) {
      for (const size_t misalign : {size_t{0}, size_t{3}}) {
        INFO(threads << " threads, " << n << " bytes, offset " << misalign);
        std::fill(dst.begin(), dst.end(), 0xEE);
        copier.copy(dst.data() + kGuard + misalign, src.data() + misalign, n);
        CHECK(std::memcmp(dst.data() + kGuard + misalign, src.data() + misalign, n) == 0);
        // Nothing written before or after the destination.
        CHECK(std::count(dst.begin(), dst.begin() + static_cast<std::ptrdiff_t>(kGuard + misalign), 0xEE) ==
              static_cast<std::ptrdiff_t>(kGuard + misalign));
        CHECK(std::count(dst.begin() + static_cast<std::ptrdiff_t>(kGuard + misalign + n), dst.end(), 0xEE) ==
              static_cast<std::ptrdiff_t>(dst.size() - kGuard - misalign - n));
      }
    }
  }
  // Rounds of different widths back to back: workers idle in one round take
  // part in the next, and never copy a stale part.
  cu::HostCopier copier(cu::HostCopier::default_threads() > 1 ? cu::HostCopier::default_threads() : 4);
  for (int round = 0; round < 60; ++round) {
    const size_t n = (round % 3 == 0 ? 2 : round % 3 == 1 ? 9 : 3) * MiB + static_cast<size_t>(round);
    std::fill(dst.begin(), dst.end(), static_cast<unsigned char>(round));
    copier.copy(dst.data(), src.data() + round, n);
    REQUIRE(std::memcmp(dst.data(), src.data() + round, n) == 0);
    REQUIRE(dst[n] == static_cast<unsigned char>(round));
  }
}

TEST_CASE("the allocator's size classes waste at most 12.5% above 1 MiB") {
  size_t last = 0;
  for (size_t n : {size_t{1}, size_t{511}, size_t{512}, size_t{513}, size_t{4096}, size_t{1} << 20, (size_t{1} << 20) + 1,
                   size_t{3} << 20, (size_t{1} << 30) + 1, size_t{5} << 30, (size_t{1} << 37) + 12345}) {
    const size_t r = cu::CachingAllocator::round_size(n);
    CHECK(r >= n);
    CHECK(r >= last);
    CHECK(r % 512 == 0);
    if (n > (size_t{1} << 20)) CHECK(static_cast<double>(r) <= static_cast<double>(n) * 1.125 + (2 << 20));
    else CHECK(r - n < 512 + (n == 0 ? 512 : 0));
    last = r;
  }
}

// ---- the caching allocator, over a fake device memory -----------------------------------

namespace {

// A device memory of `capacity` bytes: malloc fails with
// cudaErrorMemoryAllocation past it, as cudaMalloc does; every call counted.
struct FakeDeviceMemory {
  size_t capacity = 0, used = 0;
  int mallocs = 0, frees = 0;
  std::vector<std::unique_ptr<unsigned char[]>> blocks;
  std::vector<size_t> sizes;

  cu::MemorySource source() {
    cu::MemorySource s;
    s.ctx = this;
    s.malloc = [](void* ctx, void** ptr, size_t n) {
      auto& m = *static_cast<FakeDeviceMemory*>(ctx);
      ++m.mallocs;
      if (m.used + n > m.capacity) return cudaErrorMemoryAllocation;
      m.blocks.emplace_back(new unsigned char[n]);
      m.sizes.push_back(n);
      m.used += n;
      *ptr = m.blocks.back().get();
      return cudaSuccess;
    };
    s.free = [](void* ctx, void* ptr) {
      auto& m = *static_cast<FakeDeviceMemory*>(ctx);
      ++m.frees;
      for (size_t i = 0; i < m.blocks.size(); ++i) {
        if (m.blocks[i].get() == ptr) {
          m.used -= m.sizes[i];
          m.blocks.erase(m.blocks.begin() + static_cast<std::ptrdiff_t>(i));
          m.sizes.erase(m.sizes.begin() + static_cast<std::ptrdiff_t>(i));
          return;
        }
      }
      FAIL("cudaFree of a pointer the fake never gave out");
    };
    s.info = [](void* ctx, size_t* free_bytes, size_t* total_bytes) {
      auto& m = *static_cast<FakeDeviceMemory*>(ctx);
      *free_bytes = m.capacity - m.used;
      *total_bytes = m.capacity;
    };
    return s;
  }
};

cudaStream_t fake_stream(uintptr_t n) { return reinterpret_cast<cudaStream_t>(n); }

}  // namespace

TEST_CASE("the caching allocator reuses blocks per stream and size class") {
  FakeDeviceMemory mem;
  mem.capacity = size_t{64} << 20;
  cu::CachingAllocator alloc("cuda:0", size_t{1} << 40, 1.0, mem.source());
  void* a = alloc.allocate(1000, fake_stream(1));
  CHECK(mem.mallocs == 1);
  CHECK(mem.sizes.back() == 1024);  // rounded to the size class
  alloc.deallocate(a);
  auto st = alloc.stats();
  CHECK(st.reserved == 1024);
  CHECK(st.cached == 1024);
  CHECK(st.in_use == 0);
  CHECK(st.live_blocks == 0);
  // The same class on the same stream: the cached block, no cudaMalloc.
  void* b = alloc.allocate(1023, fake_stream(1));
  CHECK(b == a);
  CHECK(mem.mallocs == 1);
  // Another stream never gets it (its queued work is not ordered with ours).
  alloc.deallocate(b);
  void* c = alloc.allocate(1000, fake_stream(2));
  CHECK(c != a);
  CHECK(mem.mallocs == 2);
  // Another size class neither.
  void* d = alloc.allocate(5000, fake_stream(1));
  CHECK(d != a);
  CHECK(mem.mallocs == 3);
  st = alloc.stats();
  CHECK(st.reserved == 1024 + 1024 + 5120);
  CHECK(st.cached == 1024);
  CHECK(st.live_blocks == 2);
  // Unknown and null pointers are ignored.
  int not_ours = 0;
  alloc.deallocate(&not_ours);
  alloc.deallocate(nullptr);
  CHECK(alloc.stats().live_blocks == 2);
  // empty_cache gives back the cached block only.
  alloc.empty_cache();
  CHECK(mem.frees == 1);
  CHECK(alloc.stats().reserved == 1024 + 5120);
  alloc.deallocate(c);
  alloc.deallocate(d);
}

TEST_CASE("the caching allocator empties its cache before giving up, then reports the bytes") {
  SECTION("the device runs out: the cache is freed and the allocation retried") {
    FakeDeviceMemory mem;
    mem.capacity = 16 << 10;
    cu::CachingAllocator alloc("cuda:0", size_t{1} << 40, 1.0, mem.source());
    void* big = alloc.allocate(12 << 10, nullptr);
    alloc.deallocate(big);  // cached: the device has 4 KiB free
    void* p = alloc.allocate(8 << 10, nullptr);
    CHECK(p != nullptr);
    CHECK(mem.mallocs == 3);  // 12 KiB, 8 KiB refused, 8 KiB after the cache went
    CHECK(mem.frees == 1);
    CHECK(alloc.stats().cached == 0);
    // Now truly out: live blocks hold the memory.
    void* q = alloc.allocate(4 << 10, nullptr);
    try {
      (void)alloc.allocate(8 << 10, nullptr);
      FAIL("allocated past the device's memory");
    } catch (const cu::Error& e) {
      CHECK(e.status() == TSR_ERR_OUT_OF_MEMORY);
      const std::string msg = e.what();
      CHECK_THAT(msg, Catch::Contains("out of memory on cuda:0"));
      CHECK_THAT(msg, Catch::Contains("tried to allocate 8192 bytes"));
      CHECK_THAT(msg, Catch::Contains("the device has 4096 bytes (4.00 KiB) free of 16384 bytes"));
      CHECK_THAT(msg, Catch::Contains("this plugin holds 12288 bytes"));
    }
    // The allocator still works after the refusal.
    alloc.deallocate(q);
    void* r = alloc.allocate(4 << 10, nullptr);
    CHECK(r == q);
    alloc.deallocate(r);
    alloc.deallocate(p);
  }
  SECTION("memory_fraction caps what the plugin holds, cache included") {
    FakeDeviceMemory mem;
    mem.capacity = size_t{1} << 30;
    cu::CachingAllocator alloc("cuda:1", 10 << 10, 0.25, mem.source());
    void* a = alloc.allocate(8 << 10, nullptr);
    alloc.deallocate(a);
    void* b = alloc.allocate(4 << 10, nullptr);  // 8 + 4 KiB over the cap: the cached 8 KiB go first
    CHECK(mem.frees == 1);
    CHECK(alloc.stats().reserved == 4 << 10);
    try {
      (void)alloc.allocate(8 << 10, nullptr);
      FAIL("allocated past memory_fraction");
    } catch (const cu::Error& e) {
      CHECK(e.status() == TSR_ERR_OUT_OF_MEMORY);
      CHECK_THAT(std::string(e.what()), Catch::Contains("memory_fraction 0.25"));
      CHECK_THAT(std::string(e.what()), Catch::Contains("cuda:1"));
    }
    CHECK(mem.mallocs == 2);  // the cap refused it before the device was asked
    alloc.deallocate(b);
  }
  SECTION("the destructor frees cached blocks and leaves live ones alone") {
    FakeDeviceMemory mem;
    mem.capacity = 1 << 20;
    void* live = nullptr;
    {
      cu::CachingAllocator alloc("cuda:0", size_t{1} << 40, 1.0, mem.source());
      live = alloc.allocate(512, nullptr);
      alloc.deallocate(alloc.allocate(2048, nullptr));
    }
    CHECK(mem.frees == 1);
    CHECK(mem.used == 512);
    CHECK(live != nullptr);
  }
}
