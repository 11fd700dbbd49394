// SPDX-License-Identifier: Apache-2.0
// Reductions: SUM, PROD, MEAN, MAX, MIN, ARGMAX, ARGMIN — the CPU backend's contract
// (backends/cpu_tbb/reduce.cpp, which is the reference): float sums
// accumulate in double, integer sums wrap in 64 bits, NaN wins MAX/MIN and
// ARGMAX, ties pick the first index, over zero elements SUM gives 0, MEAN
// NaN, and the others fail.
//
// Deterministic: the work split depends on the shapes only (never on the
// GPU's size or timing), each thread folds its elements in a fixed order,
// and partials combine in a fixed tree; no atomics. Two kernels, as the CPU's
// row and column paths:
//
//   inner   the reduced dims are innermost in memory: a team (a warp, or the
//           whole 256-thread block for long rows) folds one output's range,
//           or a slice of it. A contiguous range is read with 16-byte vectors,
//           4 in flight per thread. Sum f32 2^28: 1 GiB read once, ~0.26 ms
//           at ~4.1 TB/s; the 4096 slices' partials (32 KiB) are combined by
//           a second kernel.
//   column   a kept dim is innermost: each thread owns one output and 32
//           consecutive outputs make a coalesced 128-byte read per row; 8
//           threads per output split the reduced range and combine through
//           shared memory. Bandwidth as a copy of the input.
//
// A range cut into slices writes per-slice partials (acc_t) to a workspace;
// `finish_kernel` folds them in slice order, one block per output.
//
// As in elementwise.cuh, each thread's work is a __host__ __device__
// function, so the host test runs the same index arithmetic on the CPU.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "dtypes.cuh"
#include "elementwise.cuh"
#include "kernels.hpp"
#include "reduce_plan.hpp"

namespace tessera::cuda {

// ---- reducers -------------------------------------------------------------------
// init() is the identity, add(acc, x, index) takes the element at position
// `index` (row-major within the reduced sub-space), merge(acc, later) folds a
// partial of later elements in, finish(acc, count) gives the output value.

template <int D, bool Mean> struct SumReducer {
  static constexpr bool has_identity = true;
  static constexpr bool uses_index = false;
  using in_t = storage_t<D>;
  using acc_t = wide_acc_t<D>;  // unsigned: integer sums wrap as in PyTorch
  using out_t = storage_t<sum_dtype(D)>;  // int64, uint64 (uint16/32/64) or the floating or complex input's
  TSR_HD static acc_t init() { return 0; }
  TSR_HD static void add(acc_t& a, in_t x, int64_t) { a += widen<D>(x); }
  TSR_HD static void merge(acc_t& a, const acc_t& b) { a += b; }
  // V contiguous elements, each converted to double as the CPU does. (Summing
  // groups of four in float first would save 3/4 of the conversions, which
  // sm_90 does at 16 per clock per SM, ~25% of the HBM time for f32 at full
  // rate, but would drift from the CPU by ~sqrt(n) float roundings; the
  // conversions overlap the loads, so exactness is kept.)
  template <int V> TSR_HD static void add_vec(acc_t& a, const in_t* v, int64_t index) {
    TSR_UNROLL
    for (int j = 0; j < V; ++j) add(a, v[j], index + j);
  }
  TSR_HD static out_t finish(const acc_t& a, int64_t count) {
    if constexpr (Mean) return narrow<out_t>(a / static_cast<double>(count));
    else return narrow<out_t>(a);
  }
};

// PROD: as SUM with products (double for floating input, wrapping 64-bit
// integers for the others, out dtype sum_dtype), the CPU's accumulation.
template <int D> struct ProdReducer {
  static constexpr bool has_identity = true;
  static constexpr bool uses_index = false;
  using in_t = storage_t<D>;
  using acc_t = wide_acc_t<D>;
  using out_t = storage_t<sum_dtype(D)>;  // as SUM's
  TSR_HD static acc_t init() { return 1; }
  TSR_HD static void add(acc_t& a, in_t x, int64_t) { a *= widen<D>(x); }
  TSR_HD static void merge(acc_t& a, const acc_t& b) { a *= b; }
  template <int V> TSR_HD static void add_vec(acc_t& a, const in_t* v, int64_t index) {
    TSR_UNROLL
    for (int j = 0; j < V; ++j) add(a, v[j], index + j);
  }
  TSR_HD static out_t finish(const acc_t& a, int64_t) { return narrow<out_t>(a); }
};

template <int D, bool Max> struct ExtremumReducer {
  static constexpr bool has_identity = false;
  static constexpr bool uses_index = false;
  using in_t = storage_t<D>;
  using acc_t = std::conditional_t<D == TSR_BOOL, uint8_t, compute_t<D>>;  // bool as 0/1: max = any, min = all
  using out_t = in_t;
  TSR_HD static acc_t init() {
    if constexpr (std::is_floating_point_v<acc_t>) return Max ? -std::numeric_limits<acc_t>::infinity() : std::numeric_limits<acc_t>::infinity();
    else return Max ? std::numeric_limits<acc_t>::lowest() : std::numeric_limits<acc_t>::max();
  }
  TSR_HD static void merge(acc_t& a, const acc_t& v) {
    if constexpr (std::is_floating_point_v<acc_t>) a = ((Max ? a >= v : a <= v) || a != a) ? a : v;  // NaN sticks, NaN v wins
    else a = (Max ? a > v : a < v) ? a : v;
  }
  TSR_HD static void add(acc_t& a, in_t x, int64_t) {
    if constexpr (D == TSR_BOOL) merge(a, static_cast<uint8_t>(x.value != 0));
    else merge(a, load(x));
  }
  template <int V> TSR_HD static void add_vec(acc_t& a, const in_t* v, int64_t index) {
    TSR_UNROLL
    for (int j = 0; j < V; ++j) add(a, v[j], index + j);
  }
  TSR_HD static out_t finish(const acc_t& a, int64_t) { return store<out_t>(a); }
};

template <int D, bool Min> struct ArgmaxReducer {
  static constexpr bool has_identity = false;
  static constexpr bool uses_index = true;
  using in_t = storage_t<D>;
  using value_t = compute_t<D>;
  struct acc_t {
    value_t value;
    int64_t index;  // -1: nothing seen yet
  };
  using out_t = int64_t;
  TSR_HD static acc_t init() { return {value_t(0), -1}; }
  // b beats a: a larger value (smaller: Min), NaN over numbers, and among equals (or two
  // NaNs) the smaller index. Symmetric, so any combining order gives the
  // CPU's answer ("the first of the largest; the first NaN").
  TSR_HD static bool beats(const acc_t& b, const acc_t& a) {
    if (b.index < 0) return false;
    if (a.index < 0) return true;
    if constexpr (std::is_floating_point_v<value_t>) {
      const bool bn = b.value != b.value, an = a.value != a.value;
      if (bn || an) return bn && (!an || b.index < a.index);
    }
    if (b.value != a.value) return Min ? b.value < a.value : b.value > a.value;
    return b.index < a.index;
  }
  TSR_HD static void merge(acc_t& a, const acc_t& b) {
    if (beats(b, a)) a = b;
  }
  TSR_HD static void add(acc_t& a, in_t x, int64_t index) { merge(a, acc_t{load(x), index}); }
  template <int V> TSR_HD static void add_vec(acc_t& a, const in_t* v, int64_t index) {
    TSR_UNROLL
    for (int j = 0; j < V; ++j) add(a, v[j], index + j);
  }
  TSR_HD static out_t finish(const acc_t& a, int64_t) { return a.index < 0 ? 0 : a.index; }
};

// ---- the plan (host): backends/common/reduce_plan.hpp -----------------------------
using backend::make_reduce_plan;
using backend::ReducePlan;

// ---- the launch parameters ------------------------------------------------------

inline constexpr int kReduceBlock = 256;
inline constexpr int kColumnLanes = 8;  // threads per output in the column kernel
inline constexpr int kColumnWidth = kReduceBlock / kColumnLanes;

struct ReduceParams {
  const char* in;  // base, offset included
  char* out;       // base, offset included
  void* partial;   // [n_out][slices] acc_t, when slices > 1
  int nkeep, nred;
  int64_t keep_size[TSR_MAX_DIMS], keep_in[TSR_MAX_DIMS], keep_out[TSR_MAX_DIMS];
  int64_t red_size[TSR_MAX_DIMS], red_in[TSR_MAX_DIMS];
  int64_t n_out, count;
  int64_t slices, slice_len;  // the reduced range of each output, cut in pieces
  int team;                   // inner kernel: threads per (output, slice): 32 or 256
  int vec;                    // inner kernel: read 16-byte vectors (contiguous, aligned)
  int64_t col_chunks;         // column kernel: ceil(keep_size[0] / kColumnWidth)
  uint64_t blocks;            // of the main kernel
};

// Offsets in `in` and `out` of output number o (kept dims innermost first).
TSR_HD void keep_offsets(const ReduceParams& p, int64_t o, int64_t& in_off, int64_t& out_off) {
  in_off = 0;
  out_off = 0;
  for (int d = 0; d < p.nkeep; ++d) {
    const int64_t q = o / p.keep_size[d];
    const int64_t idx = o - q * p.keep_size[d];
    in_off += idx * p.keep_in[d];
    out_off += idx * p.keep_out[d];
    o = q;
  }
}

// Offset in `in` of reduced position r.
TSR_HD int64_t red_offset(const ReduceParams& p, int64_t r) {
  if (p.nred == 1) return r * p.red_in[0];
  int64_t off = 0;
  for (int d = 0; d < p.nred; ++d) {
    const int64_t q = r / p.red_size[d];
    off += (r - q * p.red_size[d]) * p.red_in[d];
    r = q;
  }
  return off;
}

// Where thread `thread` of inner-kernel block `block` works: its team's
// output o and slice s, and its lane in the team. Threads past the last team
// are inactive: they still join the warp and block folds, with R::init().
struct InnerPosition {
  int64_t o, s;
  int lane;
  bool active;
};
TSR_HD InnerPosition inner_position(const ReduceParams& p, uint64_t block, int thread) {
  const int64_t team_id = static_cast<int64_t>(block) * (kReduceBlock / p.team) + thread / p.team;
  InnerPosition q;
  q.lane = thread % p.team;
  q.active = team_id < p.n_out * p.slices;
  q.o = q.active ? team_id / p.slices : 0;
  q.s = q.active ? team_id - q.o * p.slices : 0;
  return q;
}

// One thread's fold in the inner kernel: team lane `lane` of the team for
// (output o, slice s).
template <class R, int V>
TSR_HD typename R::acc_t inner_thread(const ReduceParams& p, int64_t o, int64_t s, int lane) {
  using in_t = typename R::in_t;
  typename R::acc_t acc = R::init();
  int64_t in_off, out_off;
  keep_offsets(p, o, in_off, out_off);
  const in_t* in = reinterpret_cast<const in_t*>(p.in) + in_off;
  const int64_t r0 = s * p.slice_len;
  const int64_t r1 = r0 + p.slice_len < p.count ? r0 + p.slice_len : p.count;
  const int team = p.team;
  if (p.vec) {
    const int64_t nvec = (r1 - r0) / V;
    const Vec<in_t, V>* vin = reinterpret_cast<const Vec<in_t, V>*>(in + r0);
    int64_t v = lane;
    for (; v + 3 * team < nvec; v += 4 * team) {
      Vec<in_t, V> w[4];
      TSR_UNROLL
      for (int u = 0; u < 4; ++u) w[u] = vin[v + u * team];
      TSR_UNROLL
      for (int u = 0; u < 4; ++u) R::template add_vec<V>(acc, w[u].v, r0 + (v + u * team) * V);
    }
    for (; v < nvec; v += team) {
      const Vec<in_t, V> w = vin[v];
      R::template add_vec<V>(acc, w.v, r0 + v * V);
    }
    const int64_t r = r0 + nvec * V + lane;  // the last few elements
    if (r < r1) R::add(acc, in[r], r);
    return acc;
  }
  // Without vectors a lane still folds the vector path's elements, in its
  // order: runs of V from vector lane, lane + team, ..., then one of the last
  // few. So the bits of a reduction do not depend on whether its rows happen
  // to be aligned (a batch of matrices against one of them).
  const int64_t nvec = (r1 - r0) / V;
  const int64_t st = p.red_in[0];
  auto at = [&](int64_t r) { return p.nred == 1 ? in[r * st] : in[red_offset(p, r)]; };
  int64_t v = lane;
  for (; v + 3 * team < nvec; v += 4 * team) {
    in_t x[4][V];
    TSR_UNROLL
    for (int u = 0; u < 4; ++u)
      TSR_UNROLL
      for (int j = 0; j < V; ++j) x[u][j] = at(r0 + (v + u * team) * V + j);
    TSR_UNROLL
    for (int u = 0; u < 4; ++u) R::template add_vec<V>(acc, x[u], r0 + (v + u * team) * V);
  }
  for (; v < nvec; v += team) {
    in_t x[V];
    TSR_UNROLL
    for (int j = 0; j < V; ++j) x[j] = at(r0 + v * V + j);
    R::template add_vec<V>(acc, x, r0 + v * V);
  }
  const int64_t r = r0 + nvec * V + lane;
  if (r < r1) R::add(acc, at(r), r);
  return acc;
}

// One thread's fold in the column kernel: lane `lane` (of kColumnLanes) of
// output o, slice s.
template <class R> TSR_HD typename R::acc_t column_thread(const ReduceParams& p, int64_t o, int64_t s, int lane) {
  using in_t = typename R::in_t;
  typename R::acc_t acc = R::init();
  int64_t in_off, out_off;
  keep_offsets(p, o, in_off, out_off);
  const in_t* in = reinterpret_cast<const in_t*>(p.in) + in_off;
  const int64_t r0 = s * p.slice_len;
  const int64_t r1 = r0 + p.slice_len < p.count ? r0 + p.slice_len : p.count;
  for (int64_t r = r0 + lane; r < r1; r += kColumnLanes) R::add(acc, in[red_offset(p, r)], r);
  return acc;
}

// The column kernel's block `block` and thread x: output and slice, or -1.
TSR_HD int64_t column_output(const ReduceParams& p, uint64_t block, int x, int64_t& slice) {
  const uint64_t outer_count = static_cast<uint64_t>(p.n_out / p.keep_size[0]);
  const uint64_t chunk = block % static_cast<uint64_t>(p.col_chunks);
  const uint64_t rest = block / static_cast<uint64_t>(p.col_chunks);
  const uint64_t outer = rest % outer_count;
  slice = static_cast<int64_t>(rest / outer_count);
  const int64_t col = static_cast<int64_t>(chunk) * kColumnWidth + x;
  if (col >= p.keep_size[0]) return -1;
  return static_cast<int64_t>(outer) * p.keep_size[0] + col;
}

// Writes output o's final value.
template <class R> TSR_HD void write_output(const ReduceParams& p, int64_t o, const typename R::acc_t& acc) {
  int64_t in_off, out_off;
  keep_offsets(p, o, in_off, out_off);
  reinterpret_cast<typename R::out_t*>(p.out)[out_off] = R::finish(acc, p.count);
}

template <class R> TSR_HD void write_result(const ReduceParams& p, int64_t o, int64_t s, const typename R::acc_t& acc) {
  if (p.slices > 1) reinterpret_cast<typename R::acc_t*>(p.partial)[o * p.slices + s] = acc;
  else write_output<R>(p, o, acc);
}

// The finish kernel's block: whole warps, as many as the slices fill (a
// slice per thread at first), at most kReduceBlock threads.
inline int finish_threads(int64_t slices) {
  return static_cast<int>(std::min<int64_t>(kReduceBlock, (slices + 31) / 32 * 32));
}

// The choice of kernel and split: a function of the shapes only.
inline ReduceParams plan_reduce(const ReducePlan& rp, const char* in, char* out, int64_t in_elsize, int vec_width) {
  ReduceParams p{};
  p.in = in;
  p.out = out;
  p.nkeep = rp.nkeep;
  p.nred = rp.nred;
  for (int d = 0; d < TSR_MAX_DIMS; ++d) {
    p.keep_size[d] = d < rp.nkeep ? rp.keep_size[d] : 1;
    p.keep_in[d] = d < rp.nkeep ? rp.keep_in[d] : 0;
    p.keep_out[d] = d < rp.nkeep ? rp.keep_out[d] : 0;
    p.red_size[d] = d < rp.nred ? rp.red_size[d] : 1;
    p.red_in[d] = d < rp.nred ? rp.red_in[d] : 0;
  }
  p.n_out = rp.n_out;
  p.count = rp.count;
  const bool columns = rp.nkeep > 0 && rp.keep_size[0] >= 8 && rp.keep_in[0] < rp.red_in[0] && rp.count > 0;
  if (columns) {
    p.team = 0;
    p.col_chunks = (rp.keep_size[0] + kColumnWidth - 1) / kColumnWidth;
    const int64_t base_blocks = p.col_chunks * (rp.n_out / rp.keep_size[0]);
    int64_t slices = 1;
    if (base_blocks < 1024) slices = std::min((rp.count + 63) / 64, (1024 + base_blocks - 1) / base_blocks);
    slices = std::max<int64_t>(slices, 1);
    p.slice_len = (rp.count + slices - 1) / slices;
    p.slices = (rp.count + p.slice_len - 1) / p.slice_len;
    p.blocks = static_cast<uint64_t>(base_blocks * p.slices);
    return p;
  }
  p.team = rp.count >= 1024 ? kReduceBlock : 32;
  int64_t slices = 1;
  constexpr int64_t kMinSlice = 8192;  // elements per team at least, when a row is cut
  if (rp.n_out < 4096 && rp.count > 2 * kMinSlice) slices = std::min((rp.count + kMinSlice - 1) / kMinSlice, 4096 / rp.n_out);
  slices = std::max<int64_t>(slices, 1);
  const int64_t granule = static_cast<int64_t>(kReduceBlock) * 16;  // keeps slice starts vector-aligned
  p.slice_len = std::max<int64_t>(1, (rp.count + slices - 1) / slices);
  if (slices > 1) p.slice_len = (p.slice_len + granule - 1) / granule * granule;
  p.slices = rp.count == 0 ? 1 : (rp.count + p.slice_len - 1) / p.slice_len;
  // Vectors: one contiguous reduced dim and every output's range aligned.
  bool vec = rp.nred == 1 && rp.red_in[0] == 1 && rp.count >= vec_width &&
             reinterpret_cast<uintptr_t>(in) % static_cast<uintptr_t>(vec_width * in_elsize) == 0;
  for (int d = 0; vec && d < rp.nkeep; ++d) vec = rp.keep_in[d] % vec_width == 0;
  p.vec = vec ? 1 : 0;
  const int64_t teams = rp.n_out * p.slices;
  const int64_t per_block = kReduceBlock / p.team;
  p.blocks = static_cast<uint64_t>((teams + per_block - 1) / per_block);
  return p;
}

// ---- combining a team's partials ----------------------------------------------------

#if defined(TSR_KERNELS)
// Shuffles any trivially copyable value, 32 bits at a time.
template <class T> __device__ __forceinline__ T shfl_xor(const T& v, int mask) {
  constexpr int W = (sizeof(T) + 3) / 4;
  uint32_t w[W] = {};
  memcpy(w, &v, sizeof(T));
  TSR_UNROLL
  for (int i = 0; i < W; ++i) w[i] = __shfl_xor_sync(0xFFFFFFFFu, w[i], mask);
  T out;
  memcpy(&out, w, sizeof(T));
  return out;
}

// Butterfly over a warp: every lane ends with the fold of all 32, in a fixed order.
template <class R> __device__ __forceinline__ typename R::acc_t warp_fold(typename R::acc_t acc) {
  TSR_UNROLL
  for (int mask = 16; mask >= 1; mask /= 2) {
    const typename R::acc_t other = shfl_xor(acc, mask);
    // The lower lane's partial holds earlier elements: merge in that order.
    if ((threadIdx.x & mask) == 0) R::merge(acc, other);
    else {
      typename R::acc_t mine = other;
      R::merge(mine, acc);
      acc = mine;
    }
  }
  return acc;
}
#endif  // TSR_KERNELS

}  // namespace tessera::cuda
