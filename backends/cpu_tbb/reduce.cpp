// SPDX-License-Identifier: Apache-2.0
// Reductions: SUM, PROD, MEAN, MAX, MIN, ARGMAX, ARGMIN (VAR and STD are
// the runtime's composites). The contract is Note [Kernel contracts]
// (tessera/ops.h); what this file adds:
//
// What the kernels accept (for the runtime's author):
//   inputs[0]: the tensor to reduce, key dtype. output: same ndim as the
//   input, each dim either equal to the input's (kept) or 1 (reduced); an
//   input dim of size 1 is the same either way. A 0-d output also means "all
//   dims reduced" (SUM, MEAN, MAX, MIN, ARGMAX alike).
//   SUM, PROD: out uint64 for uint16/32/64 input, int64 for the other
//     integral dtypes and bool, else the input dtype (sum_dtype); float
//     dtypes accumulate in double, integers wrap. MEAN: floating only, sum in
//     double / count. Over zero elements SUM gives 0, PROD 1, MEAN NaN.
//   MAX / MIN: out = input dtype; NaN wins. ARGMAX / ARGMIN: out int64; ties
//     pick the first index, the first NaN wins. MAX, MIN, ARGMAX and ARGMIN
//     over zero elements (with a non-empty output) fail with
//     TSR_ERR_INVALID_ARGUMENT.
//   ARGMAX / ARGMIN params: params[0] == 1: all dims reduced, out holds the row-major
//     flat index into the input (out may have any shape with one element, 0-d
//     included). params[0] == 0: params[1] is the one reduced dim, out has the
//     input's shape with size 1 there, and holds the index along that dim.
//     Without params, the reduced dims are read off the shapes as above.
//
// Determinism: a float result never depends on the thread count. Every
// output's reduction range is cut into fixed-size blocks that depend on the
// shape only; block partials are combined in order.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include "cloned_loops.hpp"
#include "elementwise.hpp"
#include "parallel.hpp"
#include "isa.hpp"
#include "reduce_plan.hpp"
#include "kernels.hpp"

#if TSR_HAVE_CLONES
#include <immintrin.h>
#endif

namespace tessera::cpu_tbb {

namespace {

// ---- float32 sums of contiguous runs ---------------------------------------
// Note [float32 sums]
//   The order is sum_f32's (cloned_loops.hpp): 32 double lanes, lane k takes
//   elements k, k + 32, ...; the lanes are added in order, then the tail. The
//   bodies below compute exactly that, so the bits never depend on the CPU.
//   GCC's clone of sum_f32 loads whole vectors and splits them (vextract)
//   before converting (x86-64-v4 tuning prefers 256-bit work): ~80 GB/s per
//   core from L2 on the 2-core Zen 5 bench machine, while its two threads
//   can stream 64 MiB at ~90-125 GB/s, so the fold, not memory, could set
//   the pace. Converting straight from memory (vcvtps2pd zmm, m256) gives
//   ~100 GB/s per core: more headroom, same bits.
#if TSR_HAVE_CLONES
constexpr int kSumLanes = 32;

// Adds the 32 lanes in order, then the tail, as sum_f32 does.
[[gnu::always_inline]] inline double finish_lanes(const double* lane, const float* p, int64_t i, int64_t n) {
  double acc = 0;
  for (int k = 0; k < kSumLanes; ++k) acc += lane[k];
  for (; i < n; ++i) acc += static_cast<double>(p[i]);
  return acc;
}

// GCC 12 warns inside its own _mm512_cvtps_pd (the _mm512_undefined_pd it
// passes as the unused merge source): a false positive.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
[[gnu::target("avx512f")]] double sum_f32_avx512(const float* p, int64_t n) {
  if (n < 2 * kSumLanes) return sum_f32(p, n);
  __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;  // lanes 0-7, 8-15, 16-23, 24-31
  int64_t i = 0;
  for (; i + kSumLanes <= n; i += kSumLanes) {
    a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm256_loadu_ps(p + i)));
    a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm256_loadu_ps(p + i + 8)));
    a2 = _mm512_add_pd(a2, _mm512_cvtps_pd(_mm256_loadu_ps(p + i + 16)));
    a3 = _mm512_add_pd(a3, _mm512_cvtps_pd(_mm256_loadu_ps(p + i + 24)));
  }
  double lane[kSumLanes];
  _mm512_storeu_pd(lane, a0);
  _mm512_storeu_pd(lane + 8, a1);
  _mm512_storeu_pd(lane + 16, a2);
  _mm512_storeu_pd(lane + 24, a3);
  return finish_lanes(lane, p, i, n);
}
#pragma GCC diagnostic pop

[[gnu::target("avx2")]] double sum_f32_avx2(const float* p, int64_t n) {
  if (n < 2 * kSumLanes) return sum_f32(p, n);
  __m256d a[8];  // lanes 4j .. 4j + 3
  for (auto& v : a) v = _mm256_setzero_pd();
  int64_t i = 0;
  for (; i + kSumLanes <= n; i += kSumLanes)
    for (int j = 0; j < 8; ++j) a[j] = _mm256_add_pd(a[j], _mm256_cvtps_pd(_mm_loadu_ps(p + i + 4 * j)));
  double lane[kSumLanes];
  for (int j = 0; j < 8; ++j) _mm256_storeu_pd(lane + 4 * j, a[j]);
  return finish_lanes(lane, p, i, n);
}
#endif

// The widest body the CPU runs, picked once.
double sum_f32_fast(const float* p, int64_t n) {
#if TSR_HAVE_CLONES
  using Fn = double (*)(const float*, int64_t);
  static const Fn fn = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return Fn{sum_f32_avx512};
    if (__builtin_cpu_supports("avx2")) return Fn{sum_f32_avx2};
    return Fn{sum_f32};
  }();
  return fn(p, n);
#else
  return sum_f32(p, n);
#endif
}

// ---- reducers ---------------------------------------------------------------
// A reducer folds input elements into an accumulator: init() is the identity,
// add(acc, x, index) takes the element at row-major position `index` of the
// reduced sub-space, merge(acc, later) combines a partial of later elements.

// A vectorisable fold of a contiguous run: `lanes` accumulators merged in order.
template <class R> typename R::acc_t fold_contiguous(const typename R::in_t* p, int64_t n, int64_t index0) {
  using acc_t = typename R::acc_t;
  if constexpr (R::float32_sum) return sum_f32_fast(p, n);  // Note [float32 sums]
  acc_t acc = R::init();
  int64_t i = 0;
  if constexpr (R::lanes > 1) {
    if (n >= 2 * R::lanes) {
      acc_t lane[R::lanes];
      for (int k = 0; k < R::lanes; ++k) lane[k] = R::init();
      for (; i + R::lanes <= n; i += R::lanes) {
        for (int k = 0; k < R::lanes; ++k) R::add(lane[k], p[i + k], index0 + i + k);
      }
      for (int k = 0; k < R::lanes; ++k) R::merge(acc, lane[k]);
    }
  }
  for (; i < n; ++i) R::add(acc, p[i], index0 + i);
  return acc;
}

template <int D, bool Mean> struct SumReducer {
  static constexpr bool floating = is_floating_v<D> || is_complex_v<D>;
  static constexpr bool float32_sum = D == TSR_FLOAT32;  // contiguous runs: sum_f32 (cloned_loops.hpp)
  static constexpr bool uses_index = false;
  static constexpr bool has_identity = true;
  static constexpr int lanes = 8;
  using in_t = storage_t<D>;
  using acc_t = wide_acc_t<D>;  // unsigned: integer sums wrap as in PyTorch
  using out_t = storage_t<sum_dtype(D)>;  // int64, uint64 (uint16/32/64) or the floating input's
  static acc_t init() { return acc_t(0); }
  static void add(acc_t& a, in_t x, int64_t) {
    if constexpr (is_complex_v<D>) a += acc_t(load(x));
    else if constexpr (floating) a += static_cast<double>(load(x));
    else a += static_cast<uint64_t>(static_cast<int64_t>(load(x)));
  }
  static void merge(acc_t& a, const acc_t& b) { a += b; }
  static out_t finish(const acc_t& a, int64_t count) {
    if constexpr (Mean) return convert<out_t>(a / static_cast<double>(count));
    else if constexpr (floating) return convert<out_t>(a);
    else return static_cast<out_t>(a);
  }
};

// PROD: doubles for floating input, wrapping 64-bit products for integers
// and bool (out dtype as SUM's: sum_dtype).
template <int D> struct ProdReducer {
  static constexpr bool floating = is_floating_v<D> || is_complex_v<D>;
  static constexpr bool float32_sum = false;
  static constexpr bool uses_index = false;
  static constexpr bool has_identity = true;
  static constexpr int lanes = 8;
  using in_t = storage_t<D>;
  using acc_t = wide_acc_t<D>;
  using out_t = storage_t<sum_dtype(D)>;  // as SUM's
  static acc_t init() { return acc_t(1); }
  static void add(acc_t& a, in_t x, int64_t) {
    if constexpr (is_complex_v<D>) a *= acc_t(load(x));
    else if constexpr (floating) a *= static_cast<double>(load(x));
    else a *= static_cast<uint64_t>(static_cast<int64_t>(load(x)));
  }
  static void merge(acc_t& a, const acc_t& b) { a *= b; }
  static out_t finish(const acc_t& a, int64_t) {
    if constexpr (floating) return convert<out_t>(a);
    else return static_cast<out_t>(a);
  }
};

template <int D, bool Max> struct ExtremumReducer {
  static constexpr bool float32_sum = false;
  static constexpr bool uses_index = false;
  static constexpr bool has_identity = false;
  static constexpr int lanes = 8;
  using in_t = storage_t<D>;
  using acc_t = std::conditional_t<D == TSR_BOOL, uint8_t, compute_t<D>>;  // bool as 0/1: max = any, min = all
  using out_t = in_t;
  static acc_t init() {
    if constexpr (std::is_floating_point_v<acc_t>) return Max ? -std::numeric_limits<acc_t>::infinity() : std::numeric_limits<acc_t>::infinity();
    else return Max ? std::numeric_limits<acc_t>::lowest() : std::numeric_limits<acc_t>::max();
  }
  static void merge(acc_t& a, const acc_t& v) {
    if constexpr (std::is_floating_point_v<acc_t>) a = ((Max ? a >= v : a <= v) || a != a) ? a : v;  // NaN sticks, NaN v wins
    else a = (Max ? a > v : a < v) ? a : v;
  }
  static void add(acc_t& a, in_t x, int64_t) { merge(a, load(x)); }
  static out_t finish(const acc_t& a, int64_t) { return store<out_t>(a); }
};

template <int D, bool Min> struct ArgmaxReducer {
  static constexpr bool float32_sum = false;
  static constexpr bool uses_index = true;
  static constexpr bool has_identity = false;
  static constexpr int lanes = 1;  // the first of equal values wins: sequential
  using in_t = storage_t<D>;
  using value_t = compute_t<D>;
  struct acc_t {
    value_t value;
    int64_t index;  // -1: nothing seen yet
  };
  using out_t = int64_t;
  static acc_t init() { return {value_t(0), -1}; }
  static bool better(value_t v, value_t best) {
    const bool beats = Min ? v < best : v > best;
    if constexpr (std::is_floating_point_v<value_t>) return beats || (v != v && best == best);
    else return beats;
  }
  static void merge(acc_t& a, const acc_t& later) {
    if (later.index >= 0 && (a.index < 0 || better(later.value, a.value))) a = later;
  }
  static void add(acc_t& a, in_t x, int64_t index) { merge(a, acc_t{load(x), index}); }
  static out_t finish(const acc_t& a, int64_t) { return a.index < 0 ? 0 : a.index; }
};


// A multi-index over dims (innermost first) tracking one or two offsets.
struct Walker {
  int n;
  const int64_t* size;
  const int64_t* s1;
  const int64_t* s2;  // may be null
  int64_t idx[TSR_MAX_DIMS] = {};
  int64_t off1 = 0, off2 = 0;

  Walker(int n_, const int64_t* size_, const int64_t* s1_, const int64_t* s2_, int64_t start)
      : n(n_), size(size_), s1(s1_), s2(s2_) {
    for (int d = 0; d < n; ++d) {
      idx[d] = start % size[d];
      start /= size[d];
      off1 += idx[d] * s1[d];
      if (s2 != nullptr) off2 += idx[d] * s2[d];
    }
  }
  // Moves `steps` along dim 0 (not past its end), carrying into outer dims.
  void advance(int64_t steps) {
    idx[0] += steps;
    off1 += steps * s1[0];
    if (s2 != nullptr) off2 += steps * s2[0];
    for (int d = 0; d + 1 < n && idx[d] == size[d]; ++d) {
      off1 += s1[d + 1] - size[d] * s1[d];
      if (s2 != nullptr) off2 += s2[d + 1] - size[d] * s2[d];
      idx[d] = 0;
      ++idx[d + 1];
    }
  }
};

// Fixed sizes: they decide the summation order, so never the thread count.
constexpr int64_t kRowBlock = 32768;    // reduced elements per block, row path
constexpr int64_t kColumnWidth = 1024;    // outputs per tile, column path (long contiguous row pieces)
constexpr int64_t kColumnBlock = 262144;  // elements per block, column path

// Row path: each output reduces its elements, innermost reduced dim in the
// inner loop (contiguous runs take the vectorised fold).
template <class R>
void reduce_rows(Context& ctx, const ReducePlan& p, const typename R::in_t* in, typename R::out_t* out) {
  using acc_t = typename R::acc_t;
  auto range = [&](const typename R::in_t* base, int64_t r0, int64_t r1) {
    acc_t acc = R::init();
    Walker w(p.nred, p.red_size, p.red_in, nullptr, r0);
    for (int64_t r = r0; r < r1;) {
      const int64_t n = std::min(p.red_size[0] - w.idx[0], r1 - r);
      const auto* q = base + w.off1;
      if (p.red_in[0] == 1) {
        R::merge(acc, fold_contiguous<R>(q, n, r));
      } else {
        const int64_t s = p.red_in[0];
        for (int64_t i = 0; i < n; ++i) R::add(acc, q[i * s], r + i);
      }
      r += n;
      if (r < r1) w.advance(n);
    }
    return acc;
  };
  const int64_t nblocks = std::max<int64_t>(1, (p.count + kRowBlock - 1) / kRowBlock);
  const int64_t work = p.n_out * p.count;
  if (nblocks == 1) {
    maybe_parallel(ctx, p.n_out, work, kParallelGrain / std::max<int64_t>(1, p.count), [&](int64_t t0, int64_t t1) {
      Walker k(p.nkeep, p.keep_size, p.keep_in, p.keep_out, t0);
      for (int64_t t = t0; t < t1; ++t) {
        out[k.off2] = R::finish(range(in + k.off1, 0, p.count), p.count);
        if (t + 1 < t1) k.advance(1);
      }
    });
    return;
  }
  std::vector<acc_t> partial(static_cast<size_t>(p.n_out * nblocks));
  maybe_parallel(ctx, p.n_out * nblocks, work, 1, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t t = i / nblocks, b = i % nblocks;
      Walker k(p.nkeep, p.keep_size, p.keep_in, p.keep_out, t);
      partial[i] = range(in + k.off1, b * kRowBlock, std::min(p.count, (b + 1) * kRowBlock));
    }
  });
  Walker k(p.nkeep, p.keep_size, p.keep_in, p.keep_out, 0);
  for (int64_t t = 0; t < p.n_out; ++t) {
    acc_t acc = partial[t * nblocks];
    for (int64_t b = 1; b < nblocks; ++b) R::merge(acc, partial[t * nblocks + b]);
    out[k.off2] = R::finish(acc, p.count);
    if (t + 1 < p.n_out) k.advance(1);
  }
}

// Column path: the innermost kept dim is inner to every reduced dim in
// memory, so a tile of up to kColumnWidth outputs accumulates whole rows at
// once (acc[j] += x[j], vectorised when the kept dim is unit-stride).
template <class R>
void reduce_columns(Context& ctx, const ReducePlan& p, const typename R::in_t* in, typename R::out_t* out) {
  using acc_t = typename R::acc_t;
  const int64_t m = p.keep_size[0], sk = p.keep_in[0], so = p.keep_out[0];
  const int64_t n_outer = p.n_out / m;
  const int64_t chunks = (m + kColumnWidth - 1) / kColumnWidth;
  const int64_t tiles = n_outer * chunks;
  const int64_t rows_per_block = std::max<int64_t>(1, kColumnBlock / std::min(m, kColumnWidth));
  const int64_t nblocks = (p.count + rows_per_block - 1) / rows_per_block;
  const int64_t work = p.n_out * p.count;
  // Offsets of the tile's first output, in the input and the output.
  auto tile_origin = [&](int64_t tile, int64_t& in_off, int64_t& out_off, int64_t& width) {
    const int64_t o = tile / chunks, c = tile % chunks;
    Walker k(p.nkeep - 1, p.keep_size + 1, p.keep_in + 1, p.keep_out + 1, o);
    in_off = k.off1 + c * kColumnWidth * sk;
    out_off = k.off2 + c * kColumnWidth * so;
    width = std::min(kColumnWidth, m - c * kColumnWidth);
  };
  // Out of line: both paths below call it, once per tile of up to
  // kColumnWidth outputs (Note [One copy of each loop] in elementwise.hpp).
  auto range = [&](const typename R::in_t* base, int64_t width, int64_t r0, int64_t r1, acc_t* acc) __attribute__((noinline)) {
    for (int64_t j = 0; j < width; ++j) acc[j] = R::init();
    Walker w(p.nred, p.red_size, p.red_in, nullptr, r0);
    for (int64_t r = r0; r < r1; ++r) {
      const auto* q = base + w.off1;
      if (sk == 1) {
        for (int64_t j = 0; j < width; ++j) R::add(acc[j], q[j], r);
      } else {
        for (int64_t j = 0; j < width; ++j) R::add(acc[j], q[j * sk], r);
      }
      if (r + 1 < r1) w.advance(1);
    }
  };
  if (nblocks <= 1) {
    maybe_parallel(ctx, tiles, work, 1, [&](int64_t t0, int64_t t1) {
      acc_t acc[kColumnWidth];
      for (int64_t t = t0; t < t1; ++t) {
        int64_t in_off, out_off, width;
        tile_origin(t, in_off, out_off, width);
        range(in + in_off, width, 0, p.count, acc);
        for (int64_t j = 0; j < width; ++j) out[out_off + j * so] = R::finish(acc[j], p.count);
      }
    });
    return;
  }
  std::vector<acc_t> partial(static_cast<size_t>(tiles * nblocks * kColumnWidth));
  maybe_parallel(ctx, tiles * nblocks, work, 1, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t t = i / nblocks, b = i % nblocks;
      int64_t in_off, out_off, width;
      tile_origin(t, in_off, out_off, width);
      range(in + in_off, width, b * rows_per_block, std::min(p.count, (b + 1) * rows_per_block), &partial[i * kColumnWidth]);
    }
  });
  maybe_parallel(ctx, tiles, work, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      int64_t in_off, out_off, width;
      tile_origin(t, in_off, out_off, width);
      acc_t* first = &partial[t * nblocks * kColumnWidth];
      for (int64_t b = 1; b < nblocks; ++b) {
        const acc_t* next = &partial[(t * nblocks + b) * kColumnWidth];
        for (int64_t j = 0; j < width; ++j) R::merge(first[j], next[j]);
      }
      for (int64_t j = 0; j < width; ++j) out[out_off + j * so] = R::finish(first[j], p.count);
    }
  });
}

template <class R>
void reduce(Context& ctx, const tsr_kernel_args& a, int key, const tsr_tensor_desc& in, const tsr_tensor_desc& out,
            const bool* reduced) {
  const ReducePlan p = make_reduce_plan(in, out, reduced, R::uses_index);
  if (p.n_out == 0) return;
  using out_t = typename R::out_t;
  out_t* o = static_cast<out_t*>(out.data) + out.offset;
  if (p.count == 0) {  // reducing zero elements
    if constexpr (!R::has_identity) {
      fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + "cannot reduce over zero elements: the operation has no identity");
    } else {
      const out_t value = R::finish(R::init(), 0);
      Walker k(p.nkeep, p.keep_size, p.keep_out, nullptr, 0);
      for (int64_t t = 0; t < p.n_out; ++t) {
        o[k.off1] = value;
        if (t + 1 < p.n_out) k.advance(1);
      }
      return;
    }
  }
  const auto* i = static_cast<const typename R::in_t*>(in.data) + in.offset;
  const bool columns = p.nkeep > 0 && p.keep_size[0] >= 8 && p.keep_in[0] < p.red_in[0];
  if (columns) {
    reduce_columns<R>(ctx, p, i, o);
  } else {
    reduce_rows<R>(ctx, p, i, o);
  }
}

template <int Op, int D> struct ReduceKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 1, 0, 0);
    const tsr_tensor_desc& in = *a.inputs[0];
    const tsr_tensor_desc& out = *a.output;
    check_dtype(a, D, in, D, "input");
    constexpr bool arg = Op == TSR_OP_ARGMAX || Op == TSR_OP_ARGMIN;
    const int out_dtype = arg ? TSR_INT64 : (Op == TSR_OP_SUM || Op == TSR_OP_PROD) ? sum_dtype(D) : D;
    check_dtype(a, D, out, out_dtype, "output");

    bool reduced[TSR_MAX_DIMS] = {};
    backend::find_reduced_dims("cpu_tbb", a, Op, D, in, out, reduced);
    if constexpr (Op == TSR_OP_SUM) reduce<SumReducer<D, false>>(ctx, a, D, in, out, reduced);
    else if constexpr (Op == TSR_OP_MEAN) reduce<SumReducer<D, true>>(ctx, a, D, in, out, reduced);
    else if constexpr (Op == TSR_OP_MAX) reduce<ExtremumReducer<D, true>>(ctx, a, D, in, out, reduced);
    else if constexpr (Op == TSR_OP_MIN) reduce<ExtremumReducer<D, false>>(ctx, a, D, in, out, reduced);
    else if constexpr (Op == TSR_OP_PROD) reduce<ProdReducer<D>>(ctx, a, D, in, out, reduced);
    else reduce<ArgmaxReducer<D, Op == TSR_OP_ARGMIN>>(ctx, a, D, in, out, reduced);
  }
};

}  // namespace

void add_reduce_kernels(KernelList& list) {
  // VAR and STD are composites (Note [Primitives]): the runtime builds them.
  add_kernels<ReduceKernel, TSR_OP_SUM, TSR_OP_MEAN, TSR_OP_MAX, TSR_OP_MIN, TSR_OP_ARGMAX, TSR_OP_PROD, TSR_OP_ARGMIN>(list);
}

}  // namespace tessera::cpu_tbb
