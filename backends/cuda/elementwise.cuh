// SPDX-License-Identifier: Apache-2.0
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
//   tiled    the output unit-stride along dim 0 (`a`) and an input that is
//            not, but is unit-stride along another dim (`b`): a.T + b, a cast
//            of a transposed tensor, where(c, x, y.T). A block covers a 32 x 32
//            tile of (a, b) for one index of the other dims: such "staged"
//            inputs are read along b into shared memory, coalesced; then each
//            thread computes 4 outputs along a, taking staged values from the
//            tile and the other inputs straight from memory (unit-stride along
//            a: coalesced; broadcast: one value). Whole tiles whose offsets fit
//            32 bits skip the bounds checks. Without it a transposed operand
//            is read one element per 32-byte sector: ~1.45 TB/s on an H200 for
//            a.T + b at 4096^2, against ~4 TB/s for a + b.
//            Same-dtype copies have their own tiled kernel, with 64 x 64 tiles
//            (copy.cu, transpose.cuh): ~95% of the copy rate.
//
// Each kernel's work is written as a __host__ __device__ function of the
// thread's global index, so tests/cuda/test_cuda_host_pointwise.cpp runs exactly the
// same index arithmetic on the CPU (tests/cuda/kernels_on_host.hpp), and the
// emulator (tests/cuda_emu) runs the kernels themselves.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
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

// ---- the tiled kernel ------------------------------------------------------------------

inline constexpr int kPwTile = 32;                              // a tile is 32 x 32 elements of (a, b)
inline constexpr int kPwTileRows = kPointwiseBlock / kPwTile;   // threads are 32 x 8
inline constexpr int kPwTilePerThread = kPwTile / kPwTileRows;  // 4 elements each

template <size_t N> struct TiledParams {
  char* base[N];
  int64_t n_a, n_b;                    // sizes of the tiled dims
  int64_t stride_a[N], stride_b[N];    // elements; the output's stride_a is 1
  int64_t tiles_a, tiles_b;            // the grid's x and y
  uint32_t staged_mask;                // bit k: input k goes through shared memory (its stride_b is 1)
  bool offsets32;                      // every offset within a tile, of every operand, fits 32 bits
  uint32_t batches;                    // the grid's z: the product of the other dims
  int outer_ndim;
  int64_t outer_shape[TSR_MAX_DIMS];
  int64_t outer_stride[TSR_MAX_DIMS][N];
};

// A block's tile: its first element along a and b, and where each operand's
// element (a0, b0) is.
template <size_t N> struct TiledOrigin {
  int64_t a0, b0;
  int64_t off[N];
};

template <size_t N> TSR_HD TiledOrigin<N> tiled_origin(const TiledParams<N>& p, uint32_t ta, uint32_t tb, uint32_t batch) {
  TiledOrigin<N> o;
  o.a0 = static_cast<int64_t>(ta) * kPwTile;
  o.b0 = static_cast<int64_t>(tb) * kPwTile;
  for (size_t k = 0; k < N; ++k) o.off[k] = o.a0 * p.stride_a[k] + o.b0 * p.stride_b[k];
  uint32_t rest = batch;
  for (int d = 0; d < p.outer_ndim; ++d) {
    const uint32_t size = static_cast<uint32_t>(p.outer_shape[d]);
    const uint32_t q = rest / size;
    const int64_t idx = static_cast<int64_t>(rest - q * size);
    for (size_t k = 0; k < N; ++k) o.off[k] += idx * p.outer_stride[d][k];
    rest = q;
  }
  return o;
}

// Whole tile, 32-bit offsets: no bounds checks (the same for every thread of a block).
template <size_t N> TSR_HD bool tiled_full(const TiledParams<N>& p, const TiledOrigin<N>& o) {
  return p.offsets32 && o.a0 + kPwTile <= p.n_a && o.b0 + kPwTile <= p.n_b;
}

// Shared memory: one padded tile per input (raw bytes: storage types need no
// construction), used by the staged ones.
template <size_t I, class T> struct StageSlot {
  alignas(T) unsigned char bytes[kPwTile * (kPwTile + 1) * sizeof(T)];
};
template <class Seq, class... T> struct StageSet;
template <size_t... I, class... T> struct StageSet<std::index_sequence<I...>, T...> : StageSlot<I, T>... {};
template <size_t I, class T> TSR_HD T* stage_tile(StageSlot<I, T>& s) { return reinterpret_cast<T*>(s.bytes); }

// Phase 1 for thread (tx, ty) and input K: rows along b into the tile, tile[a][b].
template <bool Full, class T, size_t K, size_t N>
TSR_HD void stage_input(const TiledParams<N>& p, const TiledOrigin<N>& o, T* tile, int tx, int ty) {
  if (((p.staged_mask >> K) & 1u) == 0) return;
  const T* in = reinterpret_cast<const T*>(p.base[K]) + o.off[K];
  if constexpr (Full) {
    const uint32_t sa = static_cast<uint32_t>(p.stride_a[K]);
    T v[kPwTilePerThread];
TSR_UNROLL
    for (int i = 0; i < kPwTilePerThread; ++i) v[i] = in[static_cast<uint32_t>(ty + kPwTileRows * i) * sa + static_cast<uint32_t>(tx)];
TSR_UNROLL
    for (int i = 0; i < kPwTilePerThread; ++i) tile[(ty + kPwTileRows * i) * (kPwTile + 1) + tx] = v[i];
  } else {
    for (int i = 0; i < kPwTilePerThread; ++i) {
      const int al = ty + kPwTileRows * i;
      if (o.a0 + al < p.n_a && o.b0 + tx < p.n_b) tile[al * (kPwTile + 1) + tx] = in[al * p.stride_a[K] + tx];
    }
  }
}

// Phase 2, input K's values for thread (al, ty): element (al, ty + 8 r) for
// each r, from the tile or from memory.
template <bool Full, class T, size_t K, size_t N>
TSR_HD void gather_input(const TiledParams<N>& p, const TiledOrigin<N>& o, const T* tile, int al, int ty, T* dst) {
  const T* in = reinterpret_cast<const T*>(p.base[K]) + o.off[K];
  const bool staged = (p.staged_mask >> K) & 1u;
TSR_UNROLL
  for (int r = 0; r < kPwTilePerThread; ++r) {
    const int bl = ty + kPwTileRows * r;
    if (!Full && o.b0 + bl >= p.n_b) continue;
    if (staged) dst[r] = tile[al * (kPwTile + 1) + bl];
    else if constexpr (Full)
      dst[r] = in[static_cast<uint32_t>(al) * static_cast<uint32_t>(p.stride_a[K]) + static_cast<uint32_t>(bl) * static_cast<uint32_t>(p.stride_b[K])];
    else
      dst[r] = in[al * p.stride_a[K] + bl * p.stride_b[K]];
  }
}

template <bool Full, class Out, class... In, class F, size_t N, class S, size_t... I>
TSR_HD void tiled_apply(const TiledParams<N>& p, const TiledOrigin<N>& o, S& stage, const F& f, int tx, int ty,
                        std::index_sequence<I...>) {
  if (!Full && o.a0 + tx >= p.n_a) return;
  Arrays<std::index_sequence<I...>, kPwTilePerThread, In...> in{};
  // Every load first (the output may be an input: in place), then the math and the stores.
  (gather_input<Full, In, I + 1>(p, o, stage_tile<I>(stage), tx, ty, slot<I>(in)), ...);
  Out* out = reinterpret_cast<Out*>(p.base[0]) + o.off[0];
TSR_UNROLL
  for (int r = 0; r < kPwTilePerThread; ++r) {
    const int bl = ty + kPwTileRows * r;
    if constexpr (Full) {
      out[static_cast<uint32_t>(bl) * static_cast<uint32_t>(p.stride_b[0]) + static_cast<uint32_t>(tx)] = f(slot<I>(in)[r]...);
    } else {
      if (o.b0 + bl < p.n_b) out[bl * p.stride_b[0] + tx] = f(slot<I>(in)[r]...);
    }
  }
}

// A block's two phases for thread (tx, ty), with the barrier between them
// left to the caller (the kernel, or the host mirror's block loop).
template <class... In, size_t N, class S, size_t... I>
TSR_HD void tiled_stage(const TiledParams<N>& p, const TiledOrigin<N>& o, S& stage, int tx, int ty, std::index_sequence<I...>) {
  if (tiled_full(p, o)) (stage_input<true, In, I + 1>(p, o, stage_tile<I>(stage), tx, ty), ...);
  else (stage_input<false, In, I + 1>(p, o, stage_tile<I>(stage), tx, ty), ...);
}
template <class Out, class... In, class F, size_t N, class S, size_t... I>
TSR_HD void tiled_compute(const TiledParams<N>& p, const TiledOrigin<N>& o, S& stage, const F& f, int tx, int ty,
                          std::index_sequence<I...> seq) {
  if (tiled_full(p, o)) tiled_apply<true, Out, In...>(p, o, stage, f, tx, ty, seq);
  else tiled_apply<false, Out, In...>(p, o, stage, f, tx, ty, seq);
}

// The tiled parameters when the plan has an input worth staging; nullopt otherwise.
template <size_t N> std::optional<TiledParams<N>> plan_tiled_pointwise(const Plan<N>& plan) {
  constexpr int64_t kMinSide = 16;  // smaller sides leave most of a tile idle: the strided path is as good
  if (N < 2 || plan.ndim < 2 || plan.stride[0][0] != 1 || plan.shape[0] < kMinSide) return std::nullopt;
  int b = -1;
  for (size_t k = 1; k < N && b < 0; ++k) {
    if (plan.stride[0][k] == 0 || plan.stride[0][k] == 1) continue;  // read along a as it is
    for (int d = 1; d < plan.ndim && b < 0; ++d)
      if (plan.stride[d][k] == 1 && plan.shape[d] >= kMinSide) b = d;
  }
  if (b < 0) return std::nullopt;
  TiledParams<N> p{};
  p.n_a = plan.shape[0];
  p.n_b = plan.shape[b];
  p.tiles_a = (p.n_a + kPwTile - 1) / kPwTile;
  p.tiles_b = (p.n_b + kPwTile - 1) / kPwTile;
  p.offsets32 = true;
  for (size_t k = 0; k < N; ++k) {
    p.base[k] = plan.base[k];
    p.stride_a[k] = plan.stride[0][k];
    p.stride_b[k] = plan.stride[b][k];
    if (k > 0 && p.stride_a[k] != 0 && p.stride_a[k] != 1 && p.stride_b[k] == 1) p.staged_mask |= 1u << k;
    // The largest offset within a tile is (kPwTile - 1) x (stride_a + stride_b).
    p.offsets32 = p.offsets32 && p.stride_a[k] >= 0 && p.stride_b[k] >= 0 &&
                  (kPwTile - 1) * (p.stride_a[k] + p.stride_b[k]) < (int64_t{1} << 31);
  }
  uint64_t batches = 1;
  for (int d = 1; d < plan.ndim; ++d) {
    if (d == b) continue;
    p.outer_shape[p.outer_ndim] = plan.shape[d];
    for (size_t k = 0; k < N; ++k) p.outer_stride[p.outer_ndim][k] = plan.stride[d][k];
    ++p.outer_ndim;
    batches *= static_cast<uint64_t>(plan.shape[d]);
  }
  // The grid's limits: x < 2^31, y and z <= 65535.
  if (p.tiles_a >= (int64_t{1} << 31) || p.tiles_b > 65535 || batches > 65535) return std::nullopt;
  p.batches = static_cast<uint32_t>(batches);
  return p;
}

// ---- choosing the kernel (host) ---------------------------------------------------------------

enum class PathKind { kNone, kFlat, kStrided32, kStrided64, kTiled };

template <size_t N> struct PointwiseLaunch {
  PathKind kind = PathKind::kNone;
  uint64_t threads = 0;  // kTiled: blocks x kPointwiseBlock
  FlatParams<N> flat{};
  TiledParams<N> tiled{};
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
    // same alignment as a unit-stride run. A vector of one element (16-byte
    // ones: complex128) has no pairs to take.
    if (k > 0 && V >= 2 && plan.stride[0][k] == 2 && runs_aligned(V)) s.pair_mask |= 1u << k;
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
// instantiated. force_64 (tests) takes the 64-bit strided path where the flat
// one does not apply.
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
  if (!force_64) {
    if (const auto tiled = plan_tiled_pointwise(plan)) {
      L.kind = PathKind::kTiled;
      L.tiled = *tiled;
      L.threads = static_cast<uint64_t>(tiled->tiles_a) * static_cast<uint64_t>(tiled->tiles_b) * tiled->batches * kPointwiseBlock;
      return L;
    }
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

template <class Out, class F, class... In>
__global__ void __launch_bounds__(kPointwiseBlock) tiled_pointwise_kernel(const TiledParams<1 + sizeof...(In)> p, const F f) {
  __shared__ StageSet<std::index_sequence_for<In...>, In...> stage;
  const TiledOrigin<1 + sizeof...(In)> o = tiled_origin(p, blockIdx.x, blockIdx.y, blockIdx.z);
  tiled_stage<In...>(p, o, stage, threadIdx.x, threadIdx.y, std::index_sequence_for<In...>{});
  __syncthreads();
  tiled_compute<Out, In...>(p, o, stage, f, threadIdx.x, threadIdx.y, std::index_sequence_for<In...>{});
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
  if (L.kind == PathKind::kTiled) {
    if constexpr (sizeof...(In) > 0) {  // plan_tiled_pointwise needs an input to stage
      const dim3 grid(static_cast<unsigned>(L.tiled.tiles_a), static_cast<unsigned>(L.tiled.tiles_b), L.tiled.batches);
      TSR_LAUNCH(grid, dim3(kPwTile, kPwTileRows), ex.stream, tiled_pointwise_kernel<Out, F, In...>)(L.tiled, f);
      ex.check_launch("tiled_pointwise_kernel");
    }
    return;
  }
  const unsigned blocks = blocks_for(L.threads, "pointwise");  // one-dimensional grids
  switch (L.kind) {
    case PathKind::kTiled:  // launched above
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
