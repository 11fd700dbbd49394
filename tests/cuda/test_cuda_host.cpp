// The CUDA backend's device code, run on the CPU (no GPU needed): every
// kernel's per-thread work is a __host__ __device__ function of the thread's
// index, so here the same index arithmetic, vector paths, tiles and
// reduction splits run thread by thread over host memory and are compared
// element by element with plain loops (and the dtype conversions with the
// CPU backend's, bit for bit). Beside them: every matmul plan through a
// reference of cuBLAS's contract, and the caching allocator's rules over a
// fake device memory. What this cannot check is the GPU itself: launches,
// shared-memory races, warp shuffles, cuBLAS; tests/cuda/test_cuda_ops.cpp
// does that where a GPU exists.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../../backends/cpu_tbb/dtypes.hpp"
#include "tessera/half.h"
#include "allocator.hpp"
#include "binary_ops.hpp"
#include "cast.cuh"
#include "elementwise.cuh"
#include "gemm_plan.hpp"
#include "host_copy.hpp"
#include "kernels_on_host.hpp"
#include "../cuda_emu/include/column_major_gemm.hpp"
#include "matmul_plain.cuh"
#include "reduce.cuh"
#include "transpose.cuh"
#include "unary_ops.cuh"

namespace cu = tessera::cuda;
namespace cpu = tessera::cpu_tbb;

namespace {

// ---- host tensors --------------------------------------------------------------

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// A storage of `bytes` (64-byte aligned, filled with a sentinel) and a view on it.
struct HostTensor {
  std::unique_ptr<unsigned char, FreeDeleter> storage;
  size_t bytes = 0;
  tsr_tensor_desc desc{};
};

constexpr unsigned char kSentinel = 0xA5;

HostTensor make_tensor(int dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, int64_t offset) {
  HostTensor t;
  const size_t es = tsr_dtype_size(dtype);
  int64_t extent = offset + 1;
  bool empty = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    empty = empty || shape[d] == 0;
    if (shape[d] > 0) extent += (shape[d] - 1) * strides[d];
  }
  t.bytes = (static_cast<size_t>(extent) + 8) * es;  // a few spare elements past the view
  t.storage.reset(static_cast<unsigned char*>(std::aligned_alloc(64, (t.bytes + 63) / 64 * 64)));
  std::memset(t.storage.get(), kSentinel, t.bytes);
  t.desc.struct_size = TSR_TENSOR_DESC_STRUCT_SIZE;
  t.desc.data = t.storage.get();
  t.desc.offset = offset;
  t.desc.ndim = static_cast<int32_t>(shape.size());
  t.desc.dtype = dtype;
  t.desc.device = tsr_device{TSR_DEVICE_CUDA, 0};
  for (size_t d = 0; d < shape.size(); ++d) {
    t.desc.shape[d] = shape[d];
    t.desc.strides[d] = strides[d];
  }
  (void)empty;
  return t;
}

std::vector<int64_t> row_major(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t st = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    s[d] = st;
    st *= std::max<int64_t>(shape[d], 1);
  }
  return s;
}

int64_t numel(const tsr_tensor_desc& d) {
  int64_t n = 1;
  for (int i = 0; i < d.ndim; ++i) n *= d.shape[i];
  return n;
}

// Element offset of row-major element i of the view.
int64_t offset_of(const tsr_tensor_desc& d, int64_t i) {
  int64_t off = d.offset;
  for (int k = d.ndim - 1; k >= 0; --k) {
    off += (i % d.shape[k]) * d.strides[k];
    i /= d.shape[k];
  }
  return off;
}

template <class T> T& at(const HostTensor& t, int64_t i) {
  return reinterpret_cast<T*>(t.storage.get())[offset_of(t.desc, i)];
}

// Fills the view's elements with random bits of type T (every element the view reaches).
template <class T> void fill_random(HostTensor& t, std::mt19937_64& rng) {
  const int64_t n = numel(t.desc);
  for (int64_t i = 0; i < n; ++i) {
    T v;
    if constexpr (std::is_same_v<T, cu::Bool>) {
      v.value = static_cast<uint8_t>(rng() & 1u);
    } else if constexpr (std::is_same_v<T, float>) {
      v = static_cast<float>(std::uniform_real_distribution<double>(-8, 8)(rng));
    } else if constexpr (std::is_same_v<T, double>) {
      v = std::uniform_real_distribution<double>(-8, 8)(rng);
    } else if constexpr (std::is_same_v<T, cu::Half>) {
      v.bits = cu::float_to_float16(static_cast<float>(std::uniform_real_distribution<double>(-8, 8)(rng)));
    } else {
      const uint64_t r = rng();
      std::memcpy(&v, &r, sizeof v);
    }
    at<T>(t, i) = v;
  }
}

// ---- the pointwise check -----------------------------------------------------------
template <class Out, class... In, class F, size_t... I>
Out ref_apply(const F& f, const std::vector<const HostTensor*>& ins, int64_t i, std::index_sequence<I...>) {
  (void)ins, (void)i;  // FILL has no inputs
  return f(at<In>(*ins[I], i)...);
}

// Runs f through plan_pointwise + pointwise_on_host, and through a plain loop
// on a copy of the output storage; the two storages must be byte-equal
// (the sentinel bytes outside the view included).
template <class Out, class... In, class F>
void check_pointwise(const F& f, HostTensor& out, const std::vector<const HostTensor*>& ins, bool force_64, cu::PathKind expect,
                     const std::function<void(cu::PointwiseLaunch<1 + sizeof...(In)>&)>& tweak = {}) {
  constexpr size_t N = 1 + sizeof...(In);
  std::array<const tsr_tensor_desc*, N> ops{};
  ops[0] = &out.desc;
  for (size_t k = 0; k < ins.size(); ++k) ops[k + 1] = &ins[k]->desc;
  // The reference: a copy of out's storage written element by element.
  std::vector<unsigned char> expected(out.storage.get(), out.storage.get() + out.bytes);
  const int64_t n = numel(out.desc);
  for (int64_t i = 0; i < n; ++i) {
    const Out v = ref_apply<Out, In...>(f, ins, i, std::index_sequence_for<In...>{});
    std::memcpy(expected.data() + offset_of(out.desc, i) * sizeof(Out), &v, sizeof(Out));
  }
  constexpr int V = cu::kVec<Out, In...>;
  cu::PointwiseLaunch<N> L = cu::plan_pointwise(cu::make_plan(ops, true), V, cu::kFlatUnroll, force_64);
  if (expect != cu::PathKind::kNone || n == 0) CHECK(static_cast<int>(L.kind) == static_cast<int>(expect));
  if (tweak) tweak(L);
  cu::pointwise_on_host<Out, In...>(L, f);
  CHECK(std::memcmp(expected.data(), out.storage.get(), out.bytes) == 0);
}

// A launch the plan makes tiled, run as planned (whole tiles on the fast
// path) and again with every tile through the checked path.
template <class Out, class... In, class F>
void check_tiled_pointwise(const F& f, HostTensor& out, const std::vector<const HostTensor*>& ins) {
  const std::vector<unsigned char> before(out.storage.get(), out.storage.get() + out.bytes);
  for (const bool checked : {false, true}) {
    INFO((checked ? "every tile checked" : "as planned"));
    std::memcpy(out.storage.get(), before.data(), out.bytes);
    check_pointwise<Out, In...>(f, out, ins, false, cu::PathKind::kTiled, [&](cu::PointwiseLaunch<1 + sizeof...(In)>& L) {
      CHECK(L.tiled.offsets32);
      if (checked) L.tiled.offsets32 = false;
    });
  }
}

struct Layout {
  std::string name;
  std::vector<int64_t> shape, strides;
  int64_t offset;
};

// The layouts of a logical [r, c] operand: contiguous, misaligned, transposed,
// step-2 slices (inner and outer), expanded rows and columns.
std::vector<Layout> layouts(int64_t r, int64_t c) {
  return {
      {"contiguous", {r, c}, {c, 1}, 0},
      {"offset 1", {r, c}, {c, 1}, 1},
      {"transposed", {r, c}, {1, r}, 0},
      {"x[:, ::2]", {r, c}, {2 * c, 2}, 0},
      {"x[:, 1::2]", {r, c}, {2 * c + 2, 2}, 1},
      {"x[::2, :]", {r, c}, {2 * c, 1}, 0},
      {"row expanded", {r, c}, {0, 1}, 0},
      {"column expanded", {r, c}, {1, 0}, 0},
      {"padded rows", {r, c}, {c + 3, 1}, 2},
  };
}

HostTensor tensor_for(int dtype, const Layout& l) { return make_tensor(dtype, l.shape, l.strides, l.offset); }

template <class T> struct Identity {
  T operator()(T x) const { return x; }
};

}  // namespace

// ---- dtypes --------------------------------------------------------------------------

TEST_CASE("float16 and bfloat16 conversions are tessera/half.h's, bit for bit") {
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint16_t b = static_cast<uint16_t>(h);
    const float ours = cu::float16_to_float(b), ref = tsr_float16_to_float(b);
    REQUIRE(std::memcmp(&ours, &ref, 4) == 0);
    const float ours_bf = cu::bfloat16_to_float(b), ref_bf = tsr_bfloat16_to_float(b);
    REQUIRE(std::memcmp(&ours_bf, &ref_bf, 4) == 0);
  }
  // Every 251st float bit pattern, and the neighbourhoods of the rounding edges.
  std::vector<uint32_t> patterns;
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 251) patterns.push_back(static_cast<uint32_t>(u));
  for (uint32_t edge : {0x477FF000u, 0x38800000u, 0x33000000u, 0x7F800000u, 0x7F7FFFFFu, 0x00000001u, 0x3F800000u})
    for (int d = -300; d <= 300; ++d) {
      patterns.push_back(edge + static_cast<uint32_t>(d));
      patterns.push_back((edge + static_cast<uint32_t>(d)) | 0x80000000u);
    }
  for (uint32_t u : patterns) {
    const float f = cu::bits_float(u);
    REQUIRE(cu::float_to_float16(f) == tsr_float_to_float16(f));
    REQUIRE(cu::float_to_bfloat16(f) == tsr_float_to_bfloat16(f));
  }
}

namespace {
// A value of storage type S from a double, through the CPU backend.
template <class CpuS> CpuS cpu_value(double v) { return cpu::convert<CpuS>(v); }

template <int To, int From> void check_convert_pair(const std::vector<double>& values) {
  using CuTo = cu::storage_t<To>;
  using CuFrom = cu::storage_t<From>;
  using CpuTo = cpu::storage_t<To>;
  using CpuFrom = cpu::storage_t<From>;
  static_assert(sizeof(CuTo) == sizeof(CpuTo) && sizeof(CuFrom) == sizeof(CpuFrom));
  for (double v : values) {
    const CpuFrom src = cpu_value<CpuFrom>(v);
    CuFrom cu_src;
    std::memcpy(&cu_src, &src, sizeof src);
    const CpuTo ref = cpu::convert<CpuTo>(src);
    const CuTo got = cu::Convert<CuTo, CuFrom>{}(cu_src);
    INFO(tsr_dtype_name(From) << " -> " << tsr_dtype_name(To) << " of " << v);
    REQUIRE(std::memcmp(&got, &ref, sizeof got) == 0);
  }
}
}  // namespace

// Since both backends share element_types.hpp, this checks cast.cuh's
// Convert functor (the GPU's copy kernel body) against the CPU's conversion;
// the conversion itself is checked against PyTorch by tests/python.
TEST_CASE("every cast (out, in) pair converts as the CPU backend") {
  const std::vector<double> values = {0.0,   -0.0,  1.0,   -1.0,   0.5,   -0.5,   1.5,   2.5,    255.0,  255.5,   256.0,
                                      -129., 300.0, -300., 65504., 65520., 7e4,   1e10,  -1e10,  3e38,   1e300,   -1e300,
                                      1e-8,  1e-40, NAN,   INFINITY, -INFINITY, 2147483647.0, 2147483648.0, -2147483649.0,
                                      9.3e18, -9.3e18, 123456789.0, 0.1, 1.0 / 3.0};
  cu::for_each_dtype([&]<int To>(std::integral_constant<int, To>) {
    cu::for_each_dtype([&]<int From>(std::integral_constant<int, From>) { check_convert_pair<To, From>(values); });
  });
}

TEST_CASE("the 32-bit fast division is exact below 2^31") {
  std::mt19937_64 rng(7);
  std::vector<uint32_t> divisors = {1, 2, 3, 5, 7, 64, 100, 1000, 16384, 65535, 65537, 1u << 30, (1u << 31) - 1};
  for (int i = 0; i < 200; ++i) divisors.push_back(static_cast<uint32_t>(rng() % ((1u << 31) - 1)) + 1);
  for (uint32_t d : divisors) {
    const cu::Div32 div(d);
    std::vector<uint32_t> ns = {0, 1, d - 1, d, d + 1, (1u << 31) - 1, (1u << 31) - 2};
    for (int i = 0; i < 2000; ++i) ns.push_back(static_cast<uint32_t>(rng() % (1u << 31)));
    for (uint32_t n : ns) {
      if (n >= (1u << 31)) continue;
      uint32_t q, r;
      div.divmod(n, q, r);
      REQUIRE(q == n / d);
      REQUIRE(r == n % d);
    }
  }
}

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

TEST_CASE("a GPU kernel refuses operands that are not on its device") {
  HostTensor out = make_tensor(TSR_FLOAT32, {2, 3}, {3, 1}, 0), in = make_tensor(TSR_FLOAT32, {2, 3}, {3, 1}, 0);
  const tsr_tensor_desc* inputs[1] = {&in.desc};
  tsr_kernel_args k{};
  k.struct_size = TSR_KERNEL_ARGS_STRUCT_SIZE;
  k.op = TSR_OP_NEG;
  k.output = &out.desc;
  k.inputs = inputs;
  k.num_inputs = 1;
  auto check = [&] { tessera::backend::check_kernel_args("cuda", k, TSR_FLOAT32, 1, 0, 0, INT32_MAX, TSR_DEVICE_CUDA); };
  CHECK_NOTHROW(check());  // make_tensor puts both on cuda:0
  in.desc.device = tsr_device{TSR_DEVICE_CPU, 0};
  CHECK_THROWS_WITH(check(), "cuda: neg(float32): input is not on cuda:0");
  in.desc.device = tsr_device{TSR_DEVICE_CUDA, 1};
  CHECK_THROWS_WITH(check(), "cuda: neg(float32): input is not on cuda:0");
  in.desc.shape[0] = 0;  // empty: never dereferenced, any device will do
  out.desc.shape[0] = 0;
  CHECK_NOTHROW(check());
}

// ---- pointwise -----------------------------------------------------------------------

TEST_CASE("binary add float32 over every layout pair, 32- and 64-bit paths") {
  std::mt19937_64 rng(1);
  for (auto [r, c] : std::vector<std::pair<int64_t, int64_t>>{{3, 5}, {4, 64}, {7, 130}, {33, 17}, {2, 1}, {1, 9}}) {
    for (const Layout& la : layouts(r, c)) {
      for (const Layout& lb : layouts(r, c)) {
        for (bool force_64 : {false, true}) {
          INFO(r << "x" << c << " a " << la.name << ", b " << lb.name << (force_64 ? ", 64-bit" : ""));
          HostTensor a = tensor_for(TSR_FLOAT32, la), b = tensor_for(TSR_FLOAT32, lb);
          HostTensor out = make_tensor(TSR_FLOAT32, {r, c}, {c, 1}, 0);
          fill_random<float>(a, rng);
          fill_random<float>(b, rng);
          check_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_ADD, float>{}, out, {&a, &b}, force_64,
                                               force_64 ? cu::PathKind::kStrided64 : cu::PathKind::kNone);
        }
      }
    }
  }
}

TEST_CASE("outputs in every layout, written in place and out of place") {
  std::mt19937_64 rng(2);
  for (const Layout& lo : layouts(9, 70)) {
    if (lo.name.find("expanded") != std::string::npos) continue;  // an output never overlaps itself
    INFO("out " << lo.name);
    HostTensor out = tensor_for(TSR_FLOAT64, lo);
    HostTensor a = make_tensor(TSR_FLOAT64, {9, 70}, {70, 1}, 0);
    fill_random<double>(a, rng);
    check_pointwise<double, double>(cu::UnaryFn<TSR_OP_NEG, double>{}, out, {&a}, false, cu::PathKind::kNone);
    // In place: the input is the output's own layout.
    fill_random<double>(out, rng);
    HostTensor same = tensor_for(TSR_FLOAT64, lo);
    std::memcpy(same.storage.get(), out.storage.get(), out.bytes);
    same.desc.data = out.storage.get();
    check_pointwise<double, double>(cu::UnaryFn<TSR_OP_ABS, double>{}, out, {&same}, false, cu::PathKind::kNone);
  }
}

TEST_CASE("the flat kernel's warps read and write consecutive vectors") {
  // float: V = 4 elements per 16-byte vector, U = kFlatUnroll vectors per thread.
  constexpr int V = 4, U = cu::kFlatUnroll, B = cu::kPointwiseBlock;
  std::vector<int> hits(static_cast<size_t>(3 * B * V * U), 0);
  for (uint64_t t = 0; t < 3 * static_cast<uint64_t>(B); ++t)
    for (int u = 0; u < U; ++u) {
      const uint64_t first = cu::flat_vector_first<V, U>(t, u);
      // One access instruction of a warp: lane l + 1 starts where lane l ends.
      if (t % 32 != 31) CHECK(cu::flat_vector_first<V, U>(t + 1, u) == first + V);
      // Each block owns B * V * U consecutive elements.
      CHECK(first / (B * V * U) == t / B);
      for (int j = 0; j < V; ++j) ++hits.at(first + j);
    }
  CHECK(std::count(hits.begin(), hits.end(), 1) == static_cast<long>(hits.size()));  // each element exactly once
}

TEST_CASE("the kernel paths the benchmarks rely on are the ones taken") {
  std::mt19937_64 rng(3);
  // add: one contiguous run, aligned -> flat.
  HostTensor a = make_tensor(TSR_FLOAT32, {4096}, {1}, 0), b = make_tensor(TSR_FLOAT32, {4096}, {1}, 0);
  HostTensor o = make_tensor(TSR_FLOAT32, {4096}, {1}, 0);
  fill_random<float>(a, rng);
  fill_random<float>(b, rng);
  check_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_ADD, float>{}, o, {&a, &b}, false, cu::PathKind::kFlat);
  // A tail that is not a whole number of vectors.
  HostTensor a2 = make_tensor(TSR_FLOAT32, {4099}, {1}, 0), b2 = make_tensor(TSR_FLOAT32, {4099}, {1}, 0);
  HostTensor o2 = make_tensor(TSR_FLOAT32, {4099}, {1}, 0);
  fill_random<float>(a2, rng);
  fill_random<float>(b2, rng);
  check_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_ADD, float>{}, o2, {&a2, &b2}, false, cu::PathKind::kFlat);

  // Broadcast add [64, 256] + [256]: strided, every operand vectorised.
  HostTensor x = make_tensor(TSR_FLOAT32, {64, 256}, {256, 1}, 0), row = make_tensor(TSR_FLOAT32, {64, 256}, {0, 1}, 0);
  HostTensor bo = make_tensor(TSR_FLOAT32, {64, 256}, {256, 1}, 0);
  fill_random<float>(x, rng);
  fill_random<float>(row, rng);
  {
    const auto plan = cu::make_plan(std::array<const tsr_tensor_desc*, 3>{&bo.desc, &x.desc, &row.desc}, true);
    const auto L = cu::plan_pointwise(plan, 4, cu::kFlatUnroll);
    CHECK(L.kind == cu::PathKind::kStrided32);
    CHECK(L.s32.vec_mask == 0b111u);
  }
  check_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_ADD, float>{}, bo, {&x, &row}, false, cu::PathKind::kStrided32);

  // Step-2 slice copy [64, 128] of [64, 256]: the input takes the pair path.
  HostTensor src = make_tensor(TSR_FLOAT32, {64, 128}, {256, 2}, 0), dst = make_tensor(TSR_FLOAT32, {64, 128}, {128, 1}, 0);
  fill_random<float>(src, rng);
  {
    const auto plan = cu::make_plan(std::array<const tsr_tensor_desc*, 2>{&dst.desc, &src.desc}, true);
    const auto L = cu::plan_pointwise(plan, 4, cu::kFlatUnroll);
    CHECK(L.kind == cu::PathKind::kStrided32);
    CHECK(L.s32.vec_mask == 0b01u);
    CHECK(L.s32.pair_mask == 0b10u);
  }
  check_pointwise<float, float>(Identity<float>{}, dst, {&src}, false, cu::PathKind::kStrided32);

  // A one-element add (the small-op benchmark): the flat kernel's scalar
  // tail, also at offsets no vector load could use.
  for (const int64_t off : {int64_t{0}, int64_t{1}, int64_t{3}}) {
    INFO("offset " << off);
    HostTensor s1 = make_tensor(TSR_FLOAT32, {1, 1}, {1, 1}, off), s2 = make_tensor(TSR_FLOAT32, {1, 1}, {0, 0}, 2 * off);
    HostTensor so = make_tensor(TSR_FLOAT32, {1, 1}, {7, 1}, off);
    fill_random<float>(s1, rng);
    fill_random<float>(s2, rng);
    check_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_ADD, float>{}, so, {&s1, &s2}, false, cu::PathKind::kFlat);
  }
}

TEST_CASE("casts between element sizes, where, fill, 0-d and empty tensors") {
  std::mt19937_64 rng(4);
  for (const Layout& l : layouts(5, 37)) {
    INFO(l.name);
    HostTensor in8 = tensor_for(TSR_UINT8, l);
    fill_random<uint8_t>(in8, rng);
    HostTensor of = make_tensor(TSR_FLOAT32, {5, 37}, {37, 1}, 0);
    check_pointwise<float, uint8_t>(cu::Convert<float, uint8_t>{}, of, {&in8}, false, cu::PathKind::kNone);
    HostTensor ind = tensor_for(TSR_FLOAT64, l);
    fill_random<double>(ind, rng);
    HostTensor oi = make_tensor(TSR_INT8, {5, 37}, {1, 5}, 0);  // a transposed output
    check_pointwise<int8_t, double>(cu::Convert<int8_t, double>{}, oi, {&ind}, false, cu::PathKind::kNone);
    HostTensor oh = make_tensor(TSR_FLOAT16, {5, 37}, {37, 1}, 1);
    check_pointwise<cu::Half, double>(cu::Convert<cu::Half, double>{}, oh, {&ind}, false, cu::PathKind::kNone);
    HostTensor cmp = make_tensor(TSR_BOOL, {5, 37}, {37, 1}, 0);
    HostTensor other = make_tensor(TSR_FLOAT64, {5, 37}, {37, 1}, 0);
    fill_random<double>(other, rng);
    check_pointwise<cu::Bool, double, double>(cu::CompareFn<TSR_OP_LT, double>{}, cmp, {&ind, &other}, false, cu::PathKind::kNone);
    HostTensor cond = tensor_for(TSR_BOOL, l);
    fill_random<cu::Bool>(cond, rng);
    HostTensor u = make_tensor(TSR_INT16, {5, 37}, {1, 5}, 0), v = tensor_for(TSR_INT16, l);
    fill_random<int16_t>(u, rng);
    fill_random<int16_t>(v, rng);
    HostTensor w = make_tensor(TSR_INT16, {5, 37}, {37, 1}, 0);
    check_pointwise<int16_t, cu::Bool, int16_t, int16_t>(cu::WhereFn<int16_t>{}, w, {&cond, &u, &v}, false, cu::PathKind::kNone);
    HostTensor filled = tensor_for(TSR_INT64, l.name.find("expanded") == std::string::npos ? l : layouts(5, 37)[0]);
    check_pointwise<int64_t>(cu::FillFn<int64_t>{-77}, filled, {}, false, cu::PathKind::kNone);
  }
  // 0-d: one element, any path; empty: nothing written.
  HostTensor s0 = make_tensor(TSR_FLOAT32, {}, {}, 3), s1 = make_tensor(TSR_FLOAT32, {}, {}, 0), s2 = make_tensor(TSR_FLOAT32, {}, {}, 1);
  fill_random<float>(s1, rng);
  fill_random<float>(s2, rng);
  check_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_MUL, float>{}, s0, {&s1, &s2}, false, cu::PathKind::kNone);
  HostTensor e0 = make_tensor(TSR_FLOAT32, {4, 0}, {0, 1}, 0), e1 = make_tensor(TSR_FLOAT32, {4, 0}, {0, 1}, 0);
  check_pointwise<float, float>(cu::UnaryFn<TSR_OP_EXP, float>{}, e0, {&e1}, false, cu::PathKind::kNone);
  // Size-1 dims, 3-d permutes, bfloat16 math.
  HostTensor p_in = make_tensor(TSR_BFLOAT16, {3, 1, 20, 6}, {1, 999, 18, 3}, 0);
  for (int64_t i = 0; i < numel(p_in.desc); ++i) at<cu::BFloat16>(p_in, i).bits = cu::float_to_bfloat16(static_cast<float>(i % 17) - 8.f);
  HostTensor p_out = make_tensor(TSR_BFLOAT16, {3, 1, 20, 6}, {120, 120, 6, 1}, 0);
  check_pointwise<cu::BFloat16, cu::BFloat16>(cu::UnaryFn<TSR_OP_SIGMOID, cu::BFloat16>{}, p_out, {&p_in}, false, cu::PathKind::kNone);
}

TEST_CASE("integer and float functors follow the CPU backend's rules") {
  CHECK(cu::int_pow<int32_t>(3, 4) == 81);
  CHECK(cu::int_pow<int32_t>(2, -1) == 0);
  CHECK(cu::int_pow<int32_t>(-1, -3) == -1);
  CHECK(cu::int_pow<int8_t>(2, 7) == -128);  // wraps
  CHECK(cu::int_pow<uint8_t>(3, 5) == static_cast<uint8_t>(243));
  CHECK(std::isnan(cu::maximum(1.0f, NAN)));
  CHECK(std::isnan(cu::minimum(static_cast<double>(NAN), 1.0)));
  CHECK(cu::apply_unary<TSR_OP_ABS, int8_t>(-128) == -128);
  CHECK(cu::apply_unary<TSR_OP_NEG, int64_t>(INT64_MIN) == INT64_MIN);
  CHECK(std::signbit(cu::apply_unary<TSR_OP_RELU, float>(-0.0f)));
  CHECK(std::isnan(cu::apply_unary<TSR_OP_RELU, float>(NAN)));
  CHECK(cu::apply_unary<TSR_OP_SIGMOID, double>(-1000.0) == 0.0);
  CHECK(cu::apply_unary<TSR_OP_SIGMOID, double>(1000.0) == 1.0);
  CHECK(cu::apply_binary<TSR_OP_ADD, bool>(true, true) == true);
  CHECK(cu::apply_binary<TSR_OP_ADD, int16_t>(32767, 1) == -32768);
}

TEST_CASE("an operand transposed against the output takes the tiled kernel") {
  std::mt19937_64 rng(6);
  // a + b.T: whole tiles, edge tiles, and both.
  for (auto [r, c] : std::vector<std::pair<int64_t, int64_t>>{{64, 96}, {100, 37}, {33, 70}, {16, 16}}) {
    INFO(r << "x" << c);
    HostTensor a = make_tensor(TSR_FLOAT32, {r, c}, {c, 1}, 0), b = make_tensor(TSR_FLOAT32, {r, c}, {1, r}, 3);
    HostTensor out = make_tensor(TSR_FLOAT32, {r, c}, {c, 1}, 1);
    fill_random<float>(a, rng);
    fill_random<float>(b, rng);
    check_tiled_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_ADD, float>{}, out, {&a, &b});
    // The output transposed against both inputs: both are staged.
    HostTensor ot = make_tensor(TSR_FLOAT32, {r, c}, {1, r}, 0);
    check_tiled_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_SUB, float>{}, ot, {&a, &a});
  }
  // where(cond, x.T, row): three inputs of three kinds (read along a, staged, broadcast).
  HostTensor cond = make_tensor(TSR_BOOL, {70, 40}, {40, 1}, 0), x = make_tensor(TSR_FLOAT64, {70, 40}, {1, 70}, 0);
  HostTensor row = make_tensor(TSR_FLOAT64, {70, 40}, {0, 1}, 0), wout = make_tensor(TSR_FLOAT64, {70, 40}, {40, 1}, 0);
  fill_random<cu::Bool>(cond, rng);
  fill_random<double>(x, rng);
  fill_random<double>(row, rng);
  check_tiled_pointwise<double, cu::Bool, double, double>(cu::WhereFn<double>{}, wout, {&cond, &x, &row});
  // A cast of a transposed tensor (int32 -> float16 storage).
  HostTensor xi = make_tensor(TSR_INT32, {50, 80}, {1, 50}, 0), xh = make_tensor(TSR_FLOAT16, {50, 80}, {80, 1}, 0);
  fill_random<int32_t>(xi, rng);
  check_tiled_pointwise<cu::Half, int32_t>(cu::Convert<cu::Half, int32_t>{}, xh, {&xi});
  // A batch dim: [50, 3, 40] permuted to [40, 3, 50].
  HostTensor pin = make_tensor(TSR_FLOAT32, {40, 3, 50}, {1, 40, 120}, 0), pout = make_tensor(TSR_FLOAT32, {40, 3, 50}, {150, 50, 1}, 0);
  fill_random<float>(pin, rng);
  check_tiled_pointwise<float, float>(cu::UnaryFn<TSR_OP_NEG, float>{}, pout, {&pin});
  // Too small a side, or no unit-stride dim to stage along: not tiled.
  HostTensor narrow = make_tensor(TSR_FLOAT32, {100, 8}, {1, 100}, 0), nout = make_tensor(TSR_FLOAT32, {100, 8}, {8, 1}, 0);
  fill_random<float>(narrow, rng);
  check_pointwise<float, float>(cu::UnaryFn<TSR_OP_NEG, float>{}, nout, {&narrow}, false, cu::PathKind::kStrided32);
  HostTensor step = make_tensor(TSR_FLOAT32, {40, 40}, {2, 160}, 0), sout = make_tensor(TSR_FLOAT32, {40, 40}, {40, 1}, 0);
  fill_random<float>(step, rng);
  check_pointwise<float, float>(cu::UnaryFn<TSR_OP_NEG, float>{}, sout, {&step}, false, cu::PathKind::kStrided32);
}

TEST_CASE("a tiled operand whose offsets pass 32 bits takes the checked path") {
  HostTensor a = make_tensor(TSR_FLOAT32, {64, 64}, {64, 1}, 0), out = make_tensor(TSR_FLOAT32, {64, 64}, {64, 1}, 0);
  tsr_tensor_desc wide = a.desc;  // never read: the plan only looks at the descriptor
  // b = the output's dim 1 (out stride 1): wide is unit-stride along dim 0 and strided along dim 1.
  wide.strides[0] = 1;
  for (const int64_t s : {int64_t{69273665}, int64_t{69273666}}) {  // 31 x (s + 1) < 2^31 for the first only
    wide.strides[1] = s;
    const auto plan = cu::make_plan(std::array<const tsr_tensor_desc*, 3>{&out.desc, &a.desc, &wide}, true);
    const auto L = cu::plan_pointwise(plan, 4, cu::kFlatUnroll);
    REQUIRE(L.kind == cu::PathKind::kTiled);
    CHECK(L.tiled.staged_mask == 0b100u);
    CHECK(L.tiled.offsets32 == (s == 69273665));
  }
}

// ---- the tiled transpose ---------------------------------------------------------------

namespace {
template <class T> void check_tiled(const std::vector<int64_t>& shape, const std::vector<int32_t>& perm, std::mt19937_64& rng) {
  // in: a permuted view of a contiguous tensor; out: contiguous.
  std::vector<int64_t> base_shape(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) base_shape[static_cast<size_t>(perm[d])] = shape[d];
  const std::vector<int64_t> base_strides = row_major(base_shape);
  std::vector<int64_t> strides(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) strides[d] = base_strides[static_cast<size_t>(perm[d])];
  const int dtype = sizeof(T) == 1 ? TSR_UINT8 : sizeof(T) == 2 ? TSR_INT16 : sizeof(T) == 4 ? TSR_INT32 : TSR_INT64;
  HostTensor in = make_tensor(dtype, shape, strides, 0);
  fill_random<T>(in, rng);
  HostTensor out = make_tensor(dtype, shape, row_major(shape), 0);
  std::vector<unsigned char> expected(out.storage.get(), out.storage.get() + out.bytes);
  for (int64_t i = 0; i < numel(out.desc); ++i) reinterpret_cast<T*>(expected.data())[offset_of(out.desc, i)] = at<T>(in, i);
  const auto plan = cu::make_plan(std::array<const tsr_tensor_desc*, 2>{&out.desc, &in.desc}, true);
  constexpr int TILE = cu::kTile<sizeof(T)>;
  auto tp = cu::plan_tiled(plan, TILE);
  REQUIRE(tp.has_value());
  CHECK(tp->offsets32);
  cu::tiled_on_host<T, TILE>(*tp);
  CHECK(std::memcmp(expected.data(), out.storage.get(), out.bytes) == 0);
  // Every tile through the checked path too (what offsets past 32 bits take).
  std::memset(out.storage.get(), kSentinel, out.bytes);
  tp->offsets32 = false;
  cu::tiled_on_host<T, TILE>(*tp);
  CHECK(std::memcmp(expected.data(), out.storage.get(), out.bytes) == 0);
}
}  // namespace

TEST_CASE("the tiled copy transposes and permutes every element size") {
  std::mt19937_64 rng(5);
  for (auto shape : std::vector<std::vector<int64_t>>{{64, 64}, {100, 37}, {17, 300}, {129, 65}}) {
    INFO(shape[0] << "x" << shape[1]);
    check_tiled<uint8_t>(shape, {1, 0}, rng);
    check_tiled<uint16_t>(shape, {1, 0}, rng);
    check_tiled<uint32_t>(shape, {1, 0}, rng);
    check_tiled<uint64_t>(shape, {1, 0}, rng);
  }
  check_tiled<uint32_t>({3, 40, 50}, {0, 2, 1}, rng);     // batched transpose
  check_tiled<uint32_t>({20, 5, 33}, {2, 1, 0}, rng);     // the unit-stride dim two away
  check_tiled<uint64_t>({2, 3, 30, 40}, {2, 0, 3, 1}, rng);  // two batch dims
  // A small side goes to the strided kernel instead.
  HostTensor in = make_tensor(TSR_FLOAT32, {100, 4}, {1, 100}, 0), out = make_tensor(TSR_FLOAT32, {100, 4}, {4, 1}, 0);
  const auto plan = cu::make_plan(std::array<const tsr_tensor_desc*, 2>{&out.desc, &in.desc}, true);
  CHECK_FALSE(cu::plan_tiled(plan, 64).has_value());
}

TEST_CASE("a tile whose offsets pass 32 bits takes the checked path") {
  HostTensor in = make_tensor(TSR_FLOAT32, {64, 64}, {1, 64}, 0), out = make_tensor(TSR_FLOAT32, {64, 64}, {64, 1}, 0);
  tsr_tensor_desc wide = in.desc;  // never read: the plan only looks at the descriptor
  for (const int64_t in_a : {int64_t{34087041}, int64_t{34087042}}) {  // 63 x (in_a + 1) < 2^31 for the first only
    wide.strides[1] = in_a;
    const auto plan = cu::make_plan(std::array<const tsr_tensor_desc*, 2>{&out.desc, &wide}, true);
    const auto tp = cu::plan_tiled(plan, 64);
    REQUIRE(tp.has_value());
    CHECK(tp->in_a == in_a);
    CHECK(tp->offsets32 == (in_a == 34087041));
  }
}

// ---- reductions ---------------------------------------------------------------------------
// The host mirror of reduce_impl.cuh's three kernels: the per-thread folds are
// the device's own functions; the combining order is the kernels' (lanes by
// the warp butterfly, then warps 0..7, then slices through finish).

namespace {

// Reduces `in` over the dims marked in `reduced` into a keepdim output; checks
// against a row-major loop (sums to a relative 1e-12, the rest exactly), and
// that the expected kernel and split were chosen.
template <class R, class Ref>
void check_reduce(HostTensor& in, const std::vector<bool>& reduced, const Ref& ref, int expect_team, bool expect_slices) {
  using out_t = typename R::out_t;
  const int nd = in.desc.ndim;
  std::vector<int64_t> oshape(static_cast<size_t>(nd));
  for (int d = 0; d < nd; ++d) oshape[static_cast<size_t>(d)] = reduced[static_cast<size_t>(d)] ? 1 : in.desc.shape[d];
  HostTensor out = make_tensor(in.desc.dtype == TSR_BOOL || !std::is_same_v<out_t, typename R::in_t> ? TSR_INT64 : in.desc.dtype, oshape,
                               row_major(oshape), 1);
  if constexpr (std::is_same_v<out_t, typename R::in_t>) out.desc.dtype = in.desc.dtype;
  bool red[TSR_MAX_DIMS] = {};
  for (int d = 0; d < nd; ++d) red[d] = reduced[static_cast<size_t>(d)];
  const cu::ReducePlan rp = cu::make_reduce_plan(in.desc, out.desc, red, R::uses_index);
  cu::ReduceParams p = cu::plan_reduce(rp, reinterpret_cast<const char*>(in.storage.get()) + in.desc.offset * static_cast<int64_t>(sizeof(typename R::in_t)),
                                       reinterpret_cast<char*>(out.storage.get()) + out.desc.offset * static_cast<int64_t>(sizeof(out_t)),
                                       sizeof(typename R::in_t), 16 / static_cast<int>(sizeof(typename R::in_t)));
  CHECK(p.team == expect_team);
  CHECK((p.slices > 1) == expect_slices);
  std::vector<typename R::acc_t> partial(p.slices > 1 ? static_cast<size_t>(p.n_out * p.slices) : 0);
  p.partial = partial.data();
  cu::reduce_on_host<R>(p);
  // The reference: for each output, its elements in row-major order.
  const int64_t n_out = numel(out.desc);
  for (int64_t o = 0; o < n_out; ++o) {
    std::vector<int64_t> idx(static_cast<size_t>(nd));
    int64_t rest = o;
    for (int d = nd - 1; d >= 0; --d) {
      idx[static_cast<size_t>(d)] = rest % oshape[static_cast<size_t>(d)];
      rest /= oshape[static_cast<size_t>(d)];
    }
    std::vector<typename R::in_t> elems;
    std::function<void(int)> walk = [&](int d) {
      if (d == nd) {
        int64_t off = in.desc.offset;
        for (int k = 0; k < nd; ++k) off += idx[static_cast<size_t>(k)] * in.desc.strides[k];
        elems.push_back(reinterpret_cast<const typename R::in_t*>(in.storage.get())[off]);
        return;
      }
      if (!red[d]) return walk(d + 1);
      for (int64_t i = 0; i < in.desc.shape[d]; ++i) {
        idx[static_cast<size_t>(d)] = i;
        walk(d + 1);
      }
      idx[static_cast<size_t>(d)] = 0;
    };
    walk(0);
    const out_t got = at<out_t>(out, o);
    ref(elems, got);
  }
}

double as_double(float x) { return x; }
double as_double(double x) { return x; }
double as_double(cu::Half x) { return cu::load(x); }

template <class S> auto sum_ref(bool mean) {
  return [mean](const std::vector<S>& elems, S got) {
    double s = 0;
    for (const S& x : elems) s += as_double(x);
    if (mean) s /= static_cast<double>(elems.size());
    const double g = as_double(got);
    if (std::isnan(s)) {
      CHECK(std::isnan(g));
      return;
    }
    double magnitude = 0;
    for (const S& x : elems) magnitude += std::abs(as_double(x));
    if constexpr (std::is_same_v<S, double>) CHECK(std::abs(g - s) <= 1e-12 * std::max(1.0, magnitude));
    else CHECK(g == as_double(cu::convert<S>(s)));  // one rounding of the double sum (near-ties aside)
  };
}

}  // namespace

TEST_CASE("sum and mean: full, rows, columns, strided, sliced, empty") {
  std::mt19937_64 rng(6);
  {  // a full contiguous reduction long enough to be cut into slices: vectors + finish
    HostTensor x = make_tensor(TSR_FLOAT64, {100003}, {1}, 0);
    fill_random<double>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT64, false>>(x, {true}, sum_ref<double>(false), 256, true);
  }
  {  // the same misaligned (no vectors)
    HostTensor x = make_tensor(TSR_FLOAT64, {50001}, {1}, 1);
    fill_random<double>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT64, true>>(x, {true}, sum_ref<double>(true), 256, true);
  }
  {  // rows of a matrix, short rows: a warp per row
    HostTensor x = make_tensor(TSR_FLOAT64, {300, 45}, {45, 1}, 0);
    fill_random<double>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT64, false>>(x, {false, true}, sum_ref<double>(false), 32, false);
  }
  {  // columns of a matrix: the column kernel, sliced (few outputs)
    HostTensor x = make_tensor(TSR_FLOAT64, {1000, 40}, {40, 1}, 0);
    fill_random<double>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT64, false>>(x, {true, false}, sum_ref<double>(false), 0, true);
  }
  {  // columns of a transposed matrix: rows in memory
    HostTensor x = make_tensor(TSR_FLOAT64, {40, 1000}, {1, 40}, 0);
    fill_random<double>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT64, false>>(x, {true, false}, sum_ref<double>(false), 32, false);
  }
  {  // two reduced dims that do not merge, and a kept one between them
    HostTensor x = make_tensor(TSR_FLOAT64, {6, 5, 70}, {700, 1, 10}, 3);
    fill_random<double>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT64, false>>(x, {true, false, true}, sum_ref<double>(false), 32, false);
  }
  {  // float32: vectors, in double, sliced rows
    HostTensor x = make_tensor(TSR_FLOAT32, {5, 100003}, {100003, 1}, 0);
    fill_random<float>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT32, false>>(x, {false, true}, sum_ref<float>(false), 256, true);
    HostTensor y = make_tensor(TSR_FLOAT32, {1 << 18}, {1}, 0);
    fill_random<float>(y, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT32, true>>(y, {true}, sum_ref<float>(true), 256, true);
  }
  {  // float16 sums accumulate in double and round once
    HostTensor x = make_tensor(TSR_FLOAT16, {8, 3000}, {3000, 1}, 0);
    fill_random<cu::Half>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT16, false>>(x, {false, true}, sum_ref<cu::Half>(false), 256, false);
  }
  {  // integer sums wrap in 64 bits; bool counts
    HostTensor x = make_tensor(TSR_INT32, {7, 999}, {999, 1}, 0);
    fill_random<int32_t>(x, rng);
    check_reduce<cu::SumReducer<TSR_INT32, false>>(x, {false, true}, [](const std::vector<int32_t>& e, int64_t got) {
      uint64_t s = 0;
      for (int32_t v : e) s += static_cast<uint64_t>(static_cast<int64_t>(v));
      CHECK(got == static_cast<int64_t>(s));
    }, 32, false);
    HostTensor b = make_tensor(TSR_BOOL, {3000}, {1}, 0);
    fill_random<cu::Bool>(b, rng);
    check_reduce<cu::SumReducer<TSR_BOOL, false>>(b, {true}, [](const std::vector<cu::Bool>& e, int64_t got) {
      int64_t s = 0;
      for (cu::Bool v : e) s += v.value;
      CHECK(got == s);
    }, 256, false);
  }
  {  // zero elements: sum 0, mean NaN
    HostTensor x = make_tensor(TSR_FLOAT32, {4, 0}, {0, 1}, 0);
    check_reduce<cu::SumReducer<TSR_FLOAT32, false>>(x, {false, true}, [](const std::vector<float>& e, float got) {
      CHECK(e.empty());
      CHECK(got == 0.0f);
    }, 32, false);
    check_reduce<cu::SumReducer<TSR_FLOAT32, true>>(x, {false, true}, [](const std::vector<float>&, float got) { CHECK(std::isnan(got)); }, 32, false);
  }
}

TEST_CASE("max, min and argmax: NaN wins, ties pick the first index") {
  std::mt19937_64 rng(8);
  auto argmax_ref = [](const std::vector<float>& e, int64_t got) {
    int64_t best = 0;
    for (size_t i = 1; i < e.size(); ++i) {
      const float v = e[i], b = e[static_cast<size_t>(best)];
      if (std::isnan(b)) break;
      if (std::isnan(v) || v > b) best = static_cast<int64_t>(i);
    }
    CHECK(got == best);
  };
  auto max_ref = [](const std::vector<float>& e, float got) {
    float m = -INFINITY;
    bool nan = false;
    for (float v : e) {
      nan = nan || std::isnan(v);
      m = std::max(m, v);
    }
    if (nan) CHECK(std::isnan(got));
    else CHECK(got == m);
  };
  for (int64_t n : {int64_t{10}, int64_t{2000}, int64_t{70000}}) {
    for (int nan_at : {-1, 5, static_cast<int>(n) - 1}) {
      INFO("n " << n << " NaN at " << nan_at);
      HostTensor x = make_tensor(TSR_FLOAT32, {3, n}, {n, 1}, 0);
      for (int64_t i = 0; i < 3 * n; ++i) at<float>(x, i) = static_cast<float>(rng() % 7);  // many ties
      if (nan_at >= 0) at<float>(x, n + nan_at) = NAN;
      const int team = n >= 1024 ? 256 : 32;
      const bool sliced = n > 16384;
      check_reduce<cu::ArgmaxReducer<TSR_FLOAT32>>(x, {false, true}, argmax_ref, team, sliced);
      check_reduce<cu::ExtremumReducer<TSR_FLOAT32, true>>(x, {false, true}, max_ref, team, sliced);
      // The same rows seen as columns of a transposed view: still rows in memory.
      HostTensor t = make_tensor(TSR_FLOAT32, {n, 3}, {1, n}, 0);
      std::memcpy(t.storage.get(), x.storage.get(), x.bytes < t.bytes ? x.bytes : t.bytes);
      check_reduce<cu::ArgmaxReducer<TSR_FLOAT32>>(t, {true, false}, argmax_ref, team, sliced);
    }
  }
  {  // column kernel proper: kept dim innermost
    HostTensor x = make_tensor(TSR_FLOAT32, {500, 64}, {64, 1}, 0);
    for (int64_t i = 0; i < 500 * 64; ++i) at<float>(x, i) = static_cast<float>(rng() % 5);
    check_reduce<cu::ArgmaxReducer<TSR_FLOAT32>>(x, {true, false}, argmax_ref, 0, true);
    check_reduce<cu::ExtremumReducer<TSR_FLOAT32, true>>(x, {true, false}, max_ref, 0, true);
  }
  {  // integer min, bool max (any)
    HostTensor x = make_tensor(TSR_INT8, {9, 33}, {33, 1}, 0);
    fill_random<int8_t>(x, rng);
    check_reduce<cu::ExtremumReducer<TSR_INT8, false>>(x, {false, true}, [](const std::vector<int8_t>& e, int8_t got) {
      CHECK(got == *std::min_element(e.begin(), e.end()));
    }, 32, false);
    HostTensor b = make_tensor(TSR_BOOL, {9, 33}, {33, 1}, 0);
    for (int64_t i = 0; i < 9 * 33; ++i) at<cu::Bool>(b, i).value = i == 40 ? 1 : 0;
    check_reduce<cu::ExtremumReducer<TSR_BOOL, true>>(b, {false, true}, [](const std::vector<cu::Bool>& e, cu::Bool got) {
      bool any = false;
      for (cu::Bool v : e) any = any || v.value;
      CHECK(got.value == (any ? 1 : 0));
    }, 32, false);
  }
}

// ---- matmul through cuBLAS ---------------------------------------------------------------
// cuBLAS needs a GPU, so the plan (gemm_plan.hpp) runs here through a
// reference of cublasGemmStridedBatchedEx's documented contract: column-major
// operands, op N or T, leading dimensions that cuBLAS would refuse with
// CUBLAS_STATUS_INVALID_VALUE checked first. Operands without a BLAS layout
// are packed as matmul.cu packs them.

namespace {

// The plan's cuBLAS call, run by the emulator's reference of the contract
// (tests/cuda_emu/include/column_major_gemm.hpp), in double.
void gemm_reference(const cu::GemmPlan& p, const double* first, const double* second, double* c) {
  const tessera_cuda_emu::GemmShape g{p.trans_first, p.trans_second, p.m, p.n, p.k, p.ld_first, p.ld_second, p.ldc,
                                      p.stride_first, p.stride_second, p.stride_c, p.batch_count};
  REQUIRE(tessera_cuda_emu::gemm_valid(g));
  REQUIRE((p.m >= 1 && p.n >= 1 && p.k >= 1 && p.batch_count >= 1));
  tessera_cuda_emu::column_major_gemm<double>(g, [&](int64_t i) { return first[i]; }, [&](int64_t i) { return second[i]; },
                                              [&](int64_t i, double v) { c[i] = v; });
}

// An operand's layout: dims listed outermost to innermost in memory, the
// innermost run padded by `pad` elements, every stride times `step`, and the
// dims in `expanded` given stride 0.
struct MatLayout {
  MatLayout(std::string n, std::vector<int> o, int64_t p = 0, int64_t s = 1, std::vector<int> e = {})
      : name(std::move(n)), order(std::move(o)), pad(p), step(s), expanded(std::move(e)) {}
  std::string name;
  std::vector<int> order;  // a permutation of the dims, outermost first
  int64_t pad, step;
  std::vector<int> expanded;
};

HostTensor make_operand(const std::vector<int64_t>& shape, const MatLayout& l, std::mt19937_64& rng, bool fill, int dtype = TSR_FLOAT64) {
  const int nd = static_cast<int>(shape.size());
  std::vector<int64_t> strides(static_cast<size_t>(nd));
  int64_t stride = 1;
  for (int i = nd - 1; i >= 0; --i) {
    const int d = l.order[static_cast<size_t>(i)];
    strides[static_cast<size_t>(d)] = stride * l.step;
    stride *= shape[static_cast<size_t>(d)] + (i == nd - 1 ? l.pad : 0);
  }
  for (int d : l.expanded) strides[static_cast<size_t>(d)] = 0;
  HostTensor t = make_tensor(dtype, shape, strides, 1);
  if (fill && dtype == TSR_FLOAT64) fill_random<double>(t, rng);
  return t;
}

// A packed row-major copy of t's view, as matmul.cu's contiguous_like + copy.
std::vector<double> pack(const HostTensor& t, tsr_tensor_desc& packed) {
  std::vector<double> data(static_cast<size_t>(std::max<int64_t>(numel(t.desc), 1)));
  packed = cu::contiguous_like(t.desc, data.data());
  for (int64_t i = 0; i < numel(t.desc); ++i) data[static_cast<size_t>(i)] = at<double>(t, i);
  return data;
}

// c = a @ b through the plan and the reference, checked against a plain
// triple loop over the views; nothing outside c's view may change.
void check_gemm(const HostTensor& a, const HostTensor& b, HostTensor& c, bool expect_pack) {
  const int nd = c.desc.ndim;
  const int64_t M = c.desc.shape[nd - 2], N = c.desc.shape[nd - 1], K = a.desc.shape[nd - 1];
  std::vector<unsigned char> expected(c.storage.get(), c.storage.get() + c.bytes);
  const int64_t n_out = numel(c.desc);
  for (int64_t o = 0; o < n_out; ++o) {
    // o's batch index and (i, j); a and b at the same batch index.
    int64_t rest = o / (M * N);
    const int64_t i = (o / N) % M, j = o % N;
    int64_t oa = a.desc.offset, ob = b.desc.offset;
    for (int d = nd - 3; d >= 0; --d) {
      const int64_t idx = rest % c.desc.shape[d];
      rest /= c.desc.shape[d];
      oa += idx * a.desc.strides[d];
      ob += idx * b.desc.strides[d];
    }
    double acc = 0;
    for (int64_t l = 0; l < K; ++l)
      acc += reinterpret_cast<const double*>(a.storage.get())[oa + i * a.desc.strides[nd - 2] + l * a.desc.strides[nd - 1]] *
             reinterpret_cast<const double*>(b.storage.get())[ob + l * b.desc.strides[nd - 2] + j * b.desc.strides[nd - 1]];
    std::memcpy(expected.data() + offset_of(c.desc, o) * 8, &acc, 8);
  }
  tsr_tensor_desc da = a.desc, db = b.desc, dc = c.desc;
  std::vector<double> pa, pb, pc;
  const bool packs = !cu::blas_layout(cu::matrix_of(da)) || !cu::blas_layout(cu::matrix_of(db)) || !cu::blas_layout(cu::matrix_of(dc));
  CHECK(packs == expect_pack);
  if (!cu::blas_layout(cu::matrix_of(da))) pa = pack(a, da);
  if (!cu::blas_layout(cu::matrix_of(db))) pb = pack(b, db);
  if (!cu::blas_layout(cu::matrix_of(dc))) pc = pack(c, dc);
  const std::optional<cu::GemmPlan> plan = cu::plan_gemm(da, db, dc);
  REQUIRE(plan.has_value());
  auto base = [](const tsr_tensor_desc& d) { return static_cast<double*>(d.data) + d.offset; };
  for (int64_t t = 0; t < plan->outer_count; ++t) {
    int64_t oa, ob, oc;
    plan->offsets(t, oa, ob, oc);
    const double* first = plan->swapped ? base(db) + ob : base(da) + oa;
    const double* second = plan->swapped ? base(da) + oa : base(db) + ob;
    gemm_reference(*plan, first, second, base(dc) + oc);
  }
  if (!pc.empty()) {
    for (int64_t i = 0; i < n_out; ++i) at<double>(c, i) = pc[static_cast<size_t>(i)];
  }
  // Exact: both sides add the same products in the same order.
  CHECK(std::memcmp(expected.data(), c.storage.get(), c.bytes) == 0);
}

}  // namespace

TEST_CASE("matmul's cuBLAS calls: every operand layout, vectors, batches merged, looped and broadcast") {
  std::mt19937_64 rng(9);
  // 2-d: [M, K] x [K, N] -> [M, N], each operand in each layout.
  const std::vector<MatLayout> mats = {
      {"row-major", {0, 1}},
      {"column-major", {1, 0}},
      {"row-major, padded rows", {0, 1}, 3},
      {"column-major, padded columns", {1, 0}, 2},
      {"step-2 columns (packed)", {0, 1}, 0, 2},
      {"expanded rows (packed)", {0, 1}, 0, 1, {0}},
  };
  for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{5, 7, 3}, {1, 7, 3}, {5, 1, 3}, {5, 7, 1}, {1, 1, 1}, {4, 6, 1}}) {
    for (const MatLayout& la : mats) {
      for (const MatLayout& lb : mats) {
        for (const MatLayout& lc : mats) {
          if (!lc.expanded.empty()) continue;  // the runtime never writes into an expanded view
          INFO(M << "x" << K << "x" << N << ": a " << la.name << ", b " << lb.name << ", c " << lc.name);
          HostTensor a = make_operand({M, K}, la, rng, true), b = make_operand({K, N}, lb, rng, true);
          HostTensor c = make_operand({M, N}, lc, rng, false);
          auto needs_pack = [](const HostTensor& t) { return !cu::blas_layout(cu::matrix_of(t.desc)).has_value(); };
          check_gemm(a, b, c, needs_pack(a) || needs_pack(b) || needs_pack(c));
        }
      }
    }
  }
  // Vectors and 1-wide matrices are never packed, whatever their strides.
  for (const MatLayout& l : mats) {
    if (l.expanded.empty() && l.step == 1) {
      HostTensor row = make_operand({1, 9}, l, rng, true);
      CHECK(cu::blas_layout(cu::matrix_of(row.desc)).has_value());
    }
  }

  // Batches: [2, 3, M, K] x [2, 3, K, N] -> [2, 3, M, N].
  struct BatchCase {
    const char* name;
    MatLayout a, b, c;
    int64_t expect_calls, expect_batch;
  };
  const std::vector<BatchCase> batches = {
      {"all contiguous: one call of 6", {"", {0, 1, 2, 3}}, {"", {0, 1, 2, 3}}, {"", {0, 1, 2, 3}}, 1, 6},
      {"transposed matrices, contiguous batches", {"", {0, 1, 3, 2}}, {"", {0, 1, 3, 2}}, {"", {0, 1, 3, 2}}, 1, 6},
      {"b broadcast over both batch dims", {"", {0, 1, 2, 3}}, {"", {0, 1, 2, 3}, 0, 1, {0, 1}}, {"", {0, 1, 2, 3}}, 1, 6},
      {"a broadcast over the inner batch dim", {"", {0, 1, 2, 3}, 0, 1, {1}}, {"", {0, 1, 2, 3}}, {"", {0, 1, 2, 3}}, 2, 3},
      {"c's batch dims swapped: looped", {"", {0, 1, 2, 3}}, {"", {0, 1, 2, 3}}, {"", {1, 0, 2, 3}}, 2, 3},
      {"matrices interleaved with the batch", {"", {2, 0, 1, 3}}, {"", {0, 1, 2, 3}}, {"", {2, 0, 1, 3}}, 1, 6},
      {"a packed, b and c column-major", {"", {0, 1, 2, 3}, 0, 2}, {"", {0, 1, 3, 2}}, {"", {0, 1, 3, 2}}, 1, 6},
      {"c packed", {"", {0, 1, 2, 3}}, {"", {0, 1, 2, 3}}, {"", {0, 1, 2, 3}, 0, 2}, 1, 6},
  };
  for (const BatchCase& bc : batches) {
    for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{5, 7, 3}, {1, 4, 6}, {6, 4, 1}}) {
      INFO(bc.name << ", " << M << "x" << K << "x" << N);
      HostTensor a = make_operand({2, 3, M, K}, bc.a, rng, true), b = make_operand({2, 3, K, N}, bc.b, rng, true);
      HostTensor c = make_operand({2, 3, M, N}, bc.c, rng, false);
      tsr_tensor_desc da = a.desc, db = b.desc, dc = c.desc;
      std::vector<double> pa, pb, pc;
      if (!cu::blas_layout(cu::matrix_of(da))) pa = pack(a, da);
      if (!cu::blas_layout(cu::matrix_of(db))) pb = pack(b, db);
      if (!cu::blas_layout(cu::matrix_of(dc))) pc = pack(c, dc);
      const auto plan = cu::plan_gemm(da, db, dc);
      REQUIRE(plan.has_value());
      CHECK(plan->outer_count == bc.expect_calls);
      CHECK(plan->batch_count == bc.expect_batch);
      check_gemm(a, b, c, !pa.empty() || !pb.empty() || !pc.empty());
    }
  }
  // A size-1 batch dim is dropped; one with more than INT_MAX matrices is refused.
  {
    HostTensor a = make_operand({1, 5, 7}, {"", {0, 1, 2}}, rng, true), b = make_operand({1, 7, 3}, {"", {0, 1, 2}}, rng, true);
    HostTensor c = make_operand({1, 5, 3}, {"", {0, 1, 2}}, rng, false);
    const auto plan = cu::plan_gemm(a.desc, b.desc, c.desc);
    REQUIRE(plan.has_value());
    CHECK(plan->outer.empty());
    CHECK(plan->batch_count == 1);
    check_gemm(a, b, c, false);
    tsr_tensor_desc big_a = a.desc, big_b = b.desc, big_c = c.desc;
    for (tsr_tensor_desc* d : {&big_a, &big_b, &big_c}) d->shape[0] = int64_t{1} << 31;
    big_b.strides[0] = 0;
    CHECK_FALSE(cu::plan_gemm(big_a, big_b, big_c).has_value());
  }
}

// The plain kernel (integers, and floats beyond cuBLAS's int): every output
// element by plain_matmul_element, against 64-bit wrapping sums of the views.
template <class S> void check_plain(const std::vector<int64_t>& batch, int64_t M, int64_t K, int64_t N, const MatLayout& la,
                                    const MatLayout& lb, const MatLayout& lc, std::mt19937_64& rng) {
  constexpr int D = std::is_same_v<S, int8_t> ? TSR_INT8 : std::is_same_v<S, int32_t> ? TSR_INT32 : std::is_same_v<S, int64_t> ? TSR_INT64 : TSR_FLOAT32;
  auto with = [&](int64_t r, int64_t c) {
    std::vector<int64_t> s = batch;
    s.push_back(r);
    s.push_back(c);
    return s;
  };
  HostTensor a = make_operand(with(M, K), la, rng, false, D), b = make_operand(with(K, N), lb, rng, false, D);
  HostTensor c = make_operand(with(M, N), lc, rng, false, D);
  fill_random<S>(a, rng);
  fill_random<S>(b, rng);
  std::vector<unsigned char> expected(c.storage.get(), c.storage.get() + c.bytes);
  const int nd = c.desc.ndim;
  for (int64_t o = 0; o < numel(c.desc); ++o) {
    int64_t rest = o / (M * N), oa = a.desc.offset, ob = b.desc.offset;
    const int64_t i = (o / N) % M, j = o % N;
    for (int d = nd - 3; d >= 0; --d) {
      const int64_t idx = rest % c.desc.shape[d];
      rest /= c.desc.shape[d];
      oa += idx * a.desc.strides[d];
      ob += idx * b.desc.strides[d];
    }
    const S* pa = reinterpret_cast<const S*>(a.storage.get());
    const S* pb = reinterpret_cast<const S*>(b.storage.get());
    S v;
    if constexpr (std::is_integral_v<S>) {
      uint64_t acc = 0;
      for (int64_t l = 0; l < K; ++l)
        acc += static_cast<uint64_t>(static_cast<int64_t>(pa[oa + i * a.desc.strides[nd - 2] + l * a.desc.strides[nd - 1]])) *
               static_cast<uint64_t>(static_cast<int64_t>(pb[ob + l * b.desc.strides[nd - 2] + j * b.desc.strides[nd - 1]]));
      v = static_cast<S>(static_cast<int64_t>(acc));
    } else {
      float acc = 0;
      for (int64_t l = 0; l < K; ++l)
        acc += pa[oa + i * a.desc.strides[nd - 2] + l * a.desc.strides[nd - 1]] * pb[ob + l * b.desc.strides[nd - 2] + j * b.desc.strides[nd - 1]];
      v = acc;
    }
    std::memcpy(expected.data() + offset_of(c.desc, o) * sizeof(S), &v, sizeof(S));
  }
  const cu::PlainParams p = cu::plan_plain<S>(a.desc, b.desc, c.desc);
  REQUIRE(p.batches * p.M * p.N == numel(c.desc));
  for (int64_t t = 0; t < p.batches; ++t)
    for (int64_t m = 0; m < p.M; ++m)
      for (int64_t n = 0; n < p.N; ++n) cu::plain_matmul_element<S>(p, t, m, n);
  CHECK(std::memcmp(expected.data(), c.storage.get(), c.bytes) == 0);
}

TEST_CASE("the plain matmul: integers wrap as 64-bit sums, any layout, broadcast batches") {
  std::mt19937_64 rng(10);
  const MatLayout row("row-major", {0, 1, 2}), col("column-major", {0, 2, 1}), padded("padded", {0, 1, 2}, 3),
      stepped("step-2", {0, 1, 2}, 0, 2), broadcast("batch-broadcast", {0, 1, 2}, 0, 1, {0});
  for (const MatLayout* la : {&row, &col, &stepped, &broadcast}) {
    for (const MatLayout* lb : {&row, &col, &padded, &broadcast}) {
      for (const MatLayout* lc : {&row, &col, &stepped}) {
        INFO("a " << la->name << ", b " << lb->name << ", c " << lc->name);
        check_plain<int8_t>({3}, 5, 7, 4, *la, *lb, *lc, rng);
        check_plain<int32_t>({2}, 4, 9, 3, *la, *lb, *lc, rng);
        check_plain<int64_t>({2}, 1, 6, 5, *la, *lb, *lc, rng);
        check_plain<float>({2}, 3, 5, 2, *la, *lb, *lc, rng);
      }
    }
  }
}
