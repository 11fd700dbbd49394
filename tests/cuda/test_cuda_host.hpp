// SPDX-License-Identifier: Apache-2.0
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
//
// The tests are split by subsystem, one program and one ctest each
// (cuda.host.<part>, test_cuda_host_<part>.cpp); this header holds what
// they share: host tensors with sentinel bytes around their views, the
// pointwise check and the layouts the checks sweep.
#pragma once

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

namespace tessera_test_cuda_host {

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

inline HostTensor make_tensor(int dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, int64_t offset) {
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

inline std::vector<int64_t> row_major(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t st = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    s[d] = st;
    st *= std::max<int64_t>(shape[d], 1);
  }
  return s;
}

inline int64_t numel(const tsr_tensor_desc& d) {
  int64_t n = 1;
  for (int i = 0; i < d.ndim; ++i) n *= d.shape[i];
  return n;
}

// Element offset of row-major element i of the view.
inline int64_t offset_of(const tsr_tensor_desc& d, int64_t i) {
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
inline std::vector<Layout> layouts(int64_t r, int64_t c) {
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

inline HostTensor tensor_for(int dtype, const Layout& l) { return make_tensor(dtype, l.shape, l.strides, l.offset); }

template <class T> struct Identity {
  T operator()(T x) const { return x; }
};

}  // namespace tessera_test_cuda_host
