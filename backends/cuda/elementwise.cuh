// The strided N-d elementwise driver every pointwise kernel goes through.
//
// The host builds a plan as the CPU backend does (backends/cpu_tbb/
// elementwise.hpp): size-1 dims dropped, dims ordered innermost first by the
// operands' strides (output first), adjacent dims merged where every operand
// walks them as one. Then one of three kernels runs:
//
//   flat     one dim, every operand unit-stride (or a broadcast scalar, stride
//            0), every base aligned: each thread moves U vectors of 16 bytes
//            of the widest operand, all loads issued before the first store.
//            A block owns 256 x U consecutive vectors and sweep u gives lane l
//            vector u x 256 + l, so every warp-wide load and store covers 512
//            consecutive bytes (full sectors, one L1 wavefront per 8 lanes),
//            the pattern of PyTorch's vectorized kernel.
//            Bandwidth: reads + writes at ~90% of the copy rate (H200: ~4 TB/s
//            of the ~4.3 TB/s a device-to-device copy reaches).
//   strided  anything else: each thread takes a run of V elements along the
//            innermost dim (V = 16 bytes / widest element), so the index
//            arithmetic (a fast 32-bit divmod by each outer size, or 64-bit
//            where offsets need it) is paid once per V elements. An operand
//            that is unit-stride along the run and aligned is read/written
//            with one 16-byte vector; stride 0 with one load; stride 2 (a
//            step-2 slice) with two vectors of which half is used (the DRAM
//            sectors are fetched anyway); other strides element by element.
//            Broadcast add [16384,16384] + [16384] moves 2 x 1 GiB at the flat
//            rate. A step-2 slice copy reads every DRAM sector of its input
//            (each holds used elements), 1.5 bytes moved per byte used, and
//            runs at the device's pure-read rate (H200: 2899 GB/s counted =
//            4348 GB/s moved, against 4408 for a kernel that only reads).
//   tiled    (copy.cu) a same-dtype copy whose output is unit-stride along a
//            dim where the input is not, but the input is unit-stride along
//            another: a transpose/permute through 64x64 shared-memory tiles,
//            both sides coalesced: ~95% of the copy rate (transpose.cuh)
//            against ~27% for a transposing copy read element by element.
//
// Each kernel's work is written as a __host__ __device__ function of the
// thread's global index, so tests/cuda/test_cuda_host.cpp runs exactly the
// same index arithmetic on the CPU (tests/cuda/kernels_on_host.hpp), and the
// emulator (tests/cuda_emu) runs the kernels themselves.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "dtypes.cuh"
#include "kernels.hpp"
#include "pointwise_plan.hpp"
#include "tessera/tensor_desc.h"

namespace tessera::cuda {

// ---- the plan (host): backends/common/pointwise_plan.hpp --------------------------
using backend::make_plan;
using backend::Plan;

// ---- index arithmetic -------------------------------------------------------------

TSR_HD uint32_t umulhi32(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

// Division by a fixed divisor d in [1, 2^31) of dividends n < 2^31, by a
// multiply-high and a shift (Granlund & Montgomery; PyTorch's IntDivider).
struct Div32 {
  uint32_t divisor = 1, magic = 1, shift = 0;
  Div32() = default;
  explicit Div32(uint32_t d) : divisor(d) {
    for (shift = 0; shift < 32; ++shift)
      if ((uint32_t{1} << shift) >= d) break;
    const uint64_t one = 1;
    magic = static_cast<uint32_t>(((one << 32) * ((one << shift) - d)) / d + 1);
  }
  TSR_HD uint32_t div(uint32_t n) const { return (umulhi32(n, magic) + n) >> shift; }
  TSR_HD void divmod(uint32_t n, uint32_t& q, uint32_t& r) const {
    q = div(n);
    r = n - q * divisor;
  }
};

struct Div64 {
  uint64_t divisor = 1;
  Div64() = default;
  explicit Div64(uint64_t d) : divisor(d) {}
  TSR_HD void divmod(uint64_t n, uint64_t& q, uint64_t& r) const {
    q = n / divisor;
    r = n - q * divisor;
  }
};

template <class Index> using Divider = std::conditional_t<std::is_same_v<Index, uint32_t>, Div32, Div64>;

// ---- vectors ----------------------------------------------------------------------

template <class T, int V> struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

// V values of one operand, kept in registers; Arrays<I..., V, T...> holds one per operand.
template <size_t I, class T, int V> struct Slot {
  T v[V];
};
template <class Seq, int V, class... T> struct Arrays;
template <size_t... I, int V, class... T> struct Arrays<std::index_sequence<I...>, V, T...> : Slot<I, T, V>... {};
template <size_t I, class T, int V> TSR_HD T* slot(Slot<I, T, V>& s) { return s.v; }

// The elements per thread-run: 16 bytes of the widest operand.
template <class... T> inline constexpr int kVec = 16 / static_cast<int>(std::max({sizeof(T)...}));

// Reads V elements starting at p, `stride` elements apart (see the header).
template <class T, int V, class Index>
TSR_HD void load_run(const char* p, Index stride, bool vec, bool pair, T* out) {
  const T* q = reinterpret_cast<const T*>(p);
  if (vec) {
    const Vec<T, V> w = *reinterpret_cast<const Vec<T, V>*>(q);
TSR_UNROLL
    for (int j = 0; j < V; ++j) out[j] = w.v[j];
  } else if (stride == 0) {
    const T x = *q;
TSR_UNROLL
    for (int j = 0; j < V; ++j) out[j] = x;
  } else if (pair) {
    const Vec<T, V> w0 = reinterpret_cast<const Vec<T, V>*>(q)[0];
    const Vec<T, V> w1 = reinterpret_cast<const Vec<T, V>*>(q)[1];
TSR_UNROLL
    for (int j = 0; j < V / 2; ++j) {
      out[j] = w0.v[2 * j];
      out[V / 2 + j] = w1.v[2 * j];
    }
  } else {
TSR_UNROLL
    for (int j = 0; j < V; ++j) out[j] = q[static_cast<size_t>(j) * stride];
  }
}

template <class T, int V, class Index> TSR_HD void store_run(char* p, Index stride, bool vec, const T* in) {
  T* q = reinterpret_cast<T*>(p);
  if (vec) {
    Vec<T, V> w;
TSR_UNROLL
    for (int j = 0; j < V; ++j) w.v[j] = in[j];
    *reinterpret_cast<Vec<T, V>*>(q) = w;
  } else {
TSR_UNROLL
    for (int j = 0; j < V; ++j) q[static_cast<size_t>(j) * stride] = in[j];
  }
}

// ---- the flat kernel ------------------------------------------------------------------

inline constexpr int kPointwiseBlock = 256;  // threads per block of the pointwise kernels
inline constexpr int kFlatUnroll = 2;        // U: vectors per thread of the flat kernel

// The first element of thread t's u-th vector (see the header): block b owns
// elements [b, b + 1) x 256·V·U, and lane l's u-th vector starts at
// (b·U + u)·256·V + l·V.
template <int V, int U> TSR_HD uint64_t flat_vector_first(uint64_t t, int u) {
  const uint64_t block = t / kPointwiseBlock, lane = t % kPointwiseBlock;
  return (block * U + static_cast<uint64_t>(u)) * (kPointwiseBlock * V) + lane * V;
}

// Thread t's U vectors of V elements (or one broadcast value).
template <class T, int V, int U> TSR_HD void load_flat(const char* base, bool broadcast, uint64_t t, T* dst) {
  const T* src = reinterpret_cast<const T*>(base);
  if (broadcast) {
    const T x = *src;
    TSR_UNROLL
    for (int j = 0; j < V * U; ++j) dst[j] = x;
    return;
  }
  TSR_UNROLL
  for (int u = 0; u < U; ++u) {
    const Vec<T, V> w = *reinterpret_cast<const Vec<T, V>*>(src + flat_vector_first<V, U>(t, u));
    TSR_UNROLL
    for (int j = 0; j < V; ++j) dst[u * V + j] = w.v[j];
  }
}

template <size_t N> struct FlatParams {
  char* base[N];
  uint64_t numel;
  uint32_t bcast_mask;  // input k (bit k, k >= 1) has stride 0
};

// Thread t's U vectors (flat_vector_first); a block that ends past numel
// (the last one) goes element by element.
template <int V, int U, class Out, class... In, class F, size_t... I>
TSR_HD void flat_thread(const FlatParams<1 + sizeof...(In)>& p, const F& f, uint64_t t, std::index_sequence<I...>) {
  Out* out = reinterpret_cast<Out*>(p.base[0]);
  const uint64_t block_end = (t / kPointwiseBlock + 1) * static_cast<uint64_t>(kPointwiseBlock * V * U);
  if (block_end <= p.numel) {
    Arrays<std::index_sequence<I...>, V * U, In...> in;
    (void)in;  // FILL has no inputs
    // Every load of every input first, then the math and the stores: the
    // output may be an input (in place), so the compiler cannot hoist loads
    // above stores itself.
    (load_flat<In, V, U>(p.base[1 + I], (p.bcast_mask >> (1 + I)) & 1u, t, slot<I>(in)), ...);
TSR_UNROLL
    for (int u = 0; u < U; ++u) {
      Vec<Out, V> w;
TSR_UNROLL
      for (int j = 0; j < V; ++j) w.v[j] = f(slot<I>(in)[u * V + j]...);
      *reinterpret_cast<Vec<Out, V>*>(out + flat_vector_first<V, U>(t, u)) = w;
    }
    return;
  }
  for (int u = 0; u < U; ++u) {
    const uint64_t first = flat_vector_first<V, U>(t, u);
    for (uint64_t i = first; i < first + V && i < p.numel; ++i)
      out[i] = f(reinterpret_cast<const In*>(p.base[1 + I])[((p.bcast_mask >> (1 + I)) & 1u) ? 0 : i]...);
  }
}

// ---- the strided kernel ------------------------------------------------------------------

template <size_t N, class Index> struct StridedParams {
  char* base[N];
  Index inner;             // size of dim 0
  Index inner_stride[N];
  Divider<Index> chunks;   // runs per row: ceil(inner / V)
  Index total;             // rows * runs: one thread each
  int outer_ndim;          // dims 1 .. ndim-1
  Divider<Index> outer_shape[TSR_MAX_DIMS - 1];
  Index outer_stride[TSR_MAX_DIMS - 1][N];
  uint32_t vec_mask;   // operand k unit-stride along dim 0 and every run aligned: vector access
  uint32_t pair_mask;  // input k stride 2 along dim 0, runs aligned: two vector loads
};

template <int V, class Index, class Out, class... In, class F, size_t... I>
TSR_HD void strided_thread(const StridedParams<1 + sizeof...(In), Index>& p, const F& f, Index t,
                           std::index_sequence<I...>) {
  constexpr size_t N = 1 + sizeof...(In);
  if (t >= p.total) return;
  Index row, run;
  p.chunks.divmod(t, row, run);
  Index off[N] = {};
  for (int d = 0; d < p.outer_ndim; ++d) {
    Index q, idx;
    p.outer_shape[d].divmod(row, q, idx);
TSR_UNROLL
    for (size_t k = 0; k < N; ++k) off[k] += idx * p.outer_stride[d][k];
    row = q;
  }
  const Index i0 = run * static_cast<Index>(V);
  char* ptr[N];
  const size_t elsize[N] = {sizeof(Out), sizeof(In)...};
TSR_UNROLL
  for (size_t k = 0; k < N; ++k) ptr[k] = p.base[k] + static_cast<size_t>(off[k] + i0 * p.inner_stride[k]) * elsize[k];
  const Index n = p.inner - i0 < static_cast<Index>(V) ? p.inner - i0 : static_cast<Index>(V);
  if (n == static_cast<Index>(V)) {
    Arrays<std::index_sequence<I...>, V, In...> in;
    (void)in;
    (load_run<In, V, Index>(ptr[1 + I], p.inner_stride[1 + I], (p.vec_mask >> (1 + I)) & 1u, (p.pair_mask >> (1 + I)) & 1u,
                            slot<I>(in)),
     ...);
    Out o[V];
TSR_UNROLL
    for (int j = 0; j < V; ++j) o[j] = f(slot<I>(in)[j]...);
    store_run<Out, V, Index>(ptr[0], p.inner_stride[0], p.vec_mask & 1u, o);
    return;
  }
  for (Index j = 0; j < n; ++j) {
    reinterpret_cast<Out*>(ptr[0])[static_cast<size_t>(j) * p.inner_stride[0]] =
        f(reinterpret_cast<const In*>(ptr[1 + I])[static_cast<size_t>(j) * p.inner_stride[1 + I]]...);
  }
}

// ---- choosing the kernel (host) ---------------------------------------------------------------

enum class PathKind { kNone, kFlat, kStrided32, kStrided64 };

template <size_t N> struct PointwiseLaunch {
  PathKind kind = PathKind::kNone;
  uint64_t threads = 0;
  FlatParams<N> flat{};
  StridedParams<N, uint32_t> s32{};
  StridedParams<N, uint64_t> s64{};
};

inline bool aligned_to(const void* p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

template <size_t N, class Index>
void fill_strided(StridedParams<N, Index>& s, const Plan<N>& plan, int V, uint64_t rows, uint64_t chunks) {
  for (size_t k = 0; k < N; ++k) {
    s.base[k] = plan.base[k];
    s.inner_stride[k] = static_cast<Index>(plan.stride[0][k]);
  }
  s.inner = static_cast<Index>(plan.shape[0]);
  s.chunks = Divider<Index>(static_cast<Index>(chunks));
  s.total = static_cast<Index>(rows * chunks);
  s.outer_ndim = plan.ndim - 1;
  for (int d = 1; d < plan.ndim; ++d) {
    s.outer_shape[d - 1] = Divider<Index>(static_cast<Index>(plan.shape[d]));
    for (size_t k = 0; k < N; ++k) s.outer_stride[d - 1][k] = static_cast<Index>(plan.stride[d][k]);
  }
  s.vec_mask = 0;
  s.pair_mask = 0;
  for (size_t k = 0; k < N; ++k) {
    // Every run starts at a multiple of V along dim 0, so a run is aligned when
    // the base and every outer stride are.
    auto runs_aligned = [&](int64_t step) {
      if (!aligned_to(plan.base[k], static_cast<size_t>(step * plan.elsize[k]))) return false;
      for (int d = 1; d < plan.ndim; ++d)
        if (plan.stride[d][k] % step != 0) return false;
      return true;
    };
    if (plan.stride[0][k] == 1 && runs_aligned(V)) s.vec_mask |= 1u << k;
    // A pair's two vectors start V elements apart at a multiple of 2V: the
    // same alignment as a unit-stride run.
    if (k > 0 && plan.stride[0][k] == 2 && runs_aligned(V)) s.pair_mask |= 1u << k;
  }
}

// The largest element offset any operand reaches, +1.
template <size_t N> uint64_t max_extent(const Plan<N>& plan) {
  uint64_t most = 0;
  for (size_t k = 0; k < N; ++k) {
    uint64_t e = 1;
    for (int d = 0; d < plan.ndim; ++d) e += static_cast<uint64_t>(plan.shape[d] - 1) * static_cast<uint64_t>(plan.stride[d][k]);
    most = std::max(most, e);
  }
  return most;
}

// Picks the kernel and fills its parameters, for V and U as the kernel is
// instantiated. force_64 (tests) takes the 64-bit strided path.
template <size_t N> PointwiseLaunch<N> plan_pointwise(const Plan<N>& plan, int V, int U, bool force_64 = false) {
  PointwiseLaunch<N> L;
  if (plan.numel <= 0) return L;
  // One element (a 0-d or all-size-1 plan: every stride 0) goes through the
  // flat kernel's scalar tail, whatever the alignment: its parameters are a
  // tenth of the strided kernel's, which a small op's launch pays for.
  const bool one = plan.numel == 1;
  bool flat = one || (plan.ndim == 1 && plan.stride[0][0] == 1);
  for (size_t k = 0; flat && !one && k < N; ++k) {
    const int64_t s = plan.stride[0][k];
    flat = (s == 1 && aligned_to(plan.base[k], static_cast<size_t>(V * plan.elsize[k]))) || (k > 0 && s == 0);
  }
  if (flat && !force_64) {
    L.kind = PathKind::kFlat;
    for (size_t k = 0; k < N; ++k) L.flat.base[k] = plan.base[k];
    L.flat.numel = static_cast<uint64_t>(plan.numel);
    L.flat.bcast_mask = 0;
    for (size_t k = 1; k < N; ++k)
      if (plan.stride[0][k] == 0) L.flat.bcast_mask |= 1u << k;
    const uint64_t per_block = static_cast<uint64_t>(kPointwiseBlock) * V * U;
    L.threads = (L.flat.numel + per_block - 1) / per_block * kPointwiseBlock;  // whole blocks
    return L;
  }
  const uint64_t chunks = (static_cast<uint64_t>(plan.shape[0]) + V - 1) / V;
  const uint64_t rows = static_cast<uint64_t>(plan.numel / plan.shape[0]);
  const uint64_t threads = rows * chunks;
  // 32-bit: every dividend (thread index, row) and every offset below 2^31.
  if (!force_64 && threads < (uint64_t{1} << 31) && max_extent(plan) + 2 * V < (uint64_t{1} << 31)) {
    L.kind = PathKind::kStrided32;
    fill_strided(L.s32, plan, V, rows, chunks);
  } else {
    L.kind = PathKind::kStrided64;
    fill_strided(L.s64, plan, V, rows, chunks);
  }
  L.threads = threads;
  return L;
}

// ---- kernels and the launcher (device) ---------------------------------------------------------

#if defined(TSR_KERNELS)

// (A __global__ template's parameter pack must come last, so F goes before In.)
template <int V, int U, class Out, class F, class... In>
__global__ void __launch_bounds__(kPointwiseBlock) flat_kernel(const FlatParams<1 + sizeof...(In)> p, const F f) {
  const uint64_t t = static_cast<uint64_t>(blockIdx.x) * kPointwiseBlock + threadIdx.x;
  flat_thread<V, U, Out, In...>(p, f, t, std::index_sequence_for<In...>{});
}

template <int V, class Index, class Out, class F, class... In>
__global__ void __launch_bounds__(kPointwiseBlock) strided_kernel(const StridedParams<1 + sizeof...(In), Index> p, const F f) {
  const Index t = static_cast<Index>(blockIdx.x) * kPointwiseBlock + static_cast<Index>(threadIdx.x);
  strided_thread<V, Index, Out, In...>(p, f, t, std::index_sequence_for<In...>{});
}

inline unsigned blocks_for(uint64_t threads, const char* what) {
  const uint64_t blocks = (threads + kPointwiseBlock - 1) / kPointwiseBlock;
  if (blocks > 0x7FFFFFFFu) fail(TSR_ERR_INVALID_ARGUMENT, std::string("cuda: ") + what + ": tensor too large for one launch");
  return static_cast<unsigned>(blocks);
}

// out[...] = f(ins[0][...], ...) over one shape; Out and In are storage types
// matching the descriptors' dtypes. Queued on ex.stream.
template <class Out, class... In, class F>
void pointwise(const Exec& ex, const tsr_tensor_desc& out, const std::array<const tsr_tensor_desc*, sizeof...(In)>& ins, F f) {
  constexpr size_t N = 1 + sizeof...(In);
  constexpr int V = kVec<Out, In...>;
  std::array<const tsr_tensor_desc*, N> ops{};
  ops[0] = &out;
  std::copy(ins.begin(), ins.end(), ops.begin() + 1);
  const PointwiseLaunch<N> L = plan_pointwise(make_plan(ops, true), V, kFlatUnroll);
  if (L.kind == PathKind::kNone) return;
  const unsigned blocks = blocks_for(L.threads, "pointwise");
  switch (L.kind) {
    case PathKind::kNone:
      return;
    case PathKind::kFlat:
      TSR_LAUNCH(blocks, kPointwiseBlock, ex.stream, flat_kernel<V, kFlatUnroll, Out, F, In...>)(L.flat, f);
      ex.check_launch("flat_kernel");
      return;
    case PathKind::kStrided32:
      TSR_LAUNCH(blocks, kPointwiseBlock, ex.stream, strided_kernel<V, uint32_t, Out, F, In...>)(L.s32, f);
      ex.check_launch("strided_kernel");
      return;
    case PathKind::kStrided64:
      TSR_LAUNCH(blocks, kPointwiseBlock, ex.stream, strided_kernel<V, uint64_t, Out, F, In...>)(L.s64, f);
      ex.check_launch("strided_kernel");
      return;
  }
}

#endif  // TSR_KERNELS

}  // namespace tessera::cuda
