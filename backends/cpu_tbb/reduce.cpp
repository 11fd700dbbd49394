// SPDX-License-Identifier: Apache-2.0
// Reductions: SUM, PROD, MEAN, MAX, MIN, ARGMAX, ARGMIN, VAR and STD (the
// last four are composites that run natively here: MEAN, ARGMIN in one pass
// each, VAR and STD in one read of memory, Note [One-pass variance]). The
// contract is Note [Kernel contracts]
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

// ---- VAR's and STD's second pass (Note [One-pass variance]) ------------------
// The sums of d = x - mean and of d * d over a run, in double: 16 lanes each
// (lane k takes elements k, k + 16, ...), the lanes added in order, then the
// tail. The AVX2 and AVX-512 bodies compute exactly that, so the bits never
// depend on the CPU. (GCC's vectoriser, cloned_loops.hpp's way, split the
// conversions into scalars here.)
struct Deviations {
  double sum = 0;
  double squares = 0;
};
constexpr int kDevLanes = 16;

template <class T> Deviations finish_deviations(const double* l1, const double* l2, const T* p, int64_t i, int64_t n,
                                                double mean) {
  Deviations out;
  if (l1 != nullptr)
    for (int k = 0; k < kDevLanes; ++k) out.sum += l1[k], out.squares += l2[k];
  for (; i < n; ++i) {
    const double d = static_cast<double>(p[i]) - mean;
    out.sum += d;
    out.squares += d * d;
  }
  return out;
}

template <class T> Deviations deviations_baseline(const T* p, int64_t n, double mean) {
  if (n < 2 * kDevLanes) return finish_deviations<T>(nullptr, nullptr, p, 0, n, mean);
  double l1[kDevLanes] = {}, l2[kDevLanes] = {};
  int64_t i = 0;
  for (; i + kDevLanes <= n; i += kDevLanes)
    for (int k = 0; k < kDevLanes; ++k) {
      const double d = static_cast<double>(p[i + k]) - mean;
      l1[k] += d;
      l2[k] += d * d;
    }
  return finish_deviations(l1, l2, p, i, n, mean);
}

#if TSR_HAVE_CLONES
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // as in sum_f32_avx512
template <class T> [[gnu::target("avx512f")]] Deviations deviations_avx512(const T* p, int64_t n, double mean) {
  if (n < 2 * kDevLanes) return finish_deviations<T>(nullptr, nullptr, p, 0, n, mean);
  const __m512d m = _mm512_set1_pd(mean);
  __m512d a1[2] = {_mm512_setzero_pd(), _mm512_setzero_pd()}, a2[2] = {a1[0], a1[0]};
  int64_t i = 0;
  for (; i + kDevLanes <= n; i += kDevLanes)
    for (int j = 0; j < 2; ++j) {
      __m512d x;
      if constexpr (std::is_same_v<T, float>) x = _mm512_cvtps_pd(_mm256_loadu_ps(p + i + 8 * j));
      else x = _mm512_loadu_pd(p + i + 8 * j);
      const __m512d d = _mm512_sub_pd(x, m);
      a1[j] = _mm512_add_pd(a1[j], d);
      a2[j] = _mm512_add_pd(a2[j], _mm512_mul_pd(d, d));
    }
  double l1[kDevLanes], l2[kDevLanes];
  for (int j = 0; j < 2; ++j) _mm512_storeu_pd(l1 + 8 * j, a1[j]), _mm512_storeu_pd(l2 + 8 * j, a2[j]);
  return finish_deviations(l1, l2, p, i, n, mean);
}
#pragma GCC diagnostic pop

template <class T> [[gnu::target("avx2")]] Deviations deviations_avx2(const T* p, int64_t n, double mean) {
  if (n < 2 * kDevLanes) return finish_deviations<T>(nullptr, nullptr, p, 0, n, mean);
  const __m256d m = _mm256_set1_pd(mean);
  __m256d a1[4], a2[4];
  for (int j = 0; j < 4; ++j) a1[j] = a2[j] = _mm256_setzero_pd();
  int64_t i = 0;
  for (; i + kDevLanes <= n; i += kDevLanes)
    for (int j = 0; j < 4; ++j) {
      __m256d x;
      if constexpr (std::is_same_v<T, float>) x = _mm256_cvtps_pd(_mm_loadu_ps(p + i + 4 * j));
      else x = _mm256_loadu_pd(p + i + 4 * j);
      const __m256d d = _mm256_sub_pd(x, m);
      a1[j] = _mm256_add_pd(a1[j], d);
      a2[j] = _mm256_add_pd(a2[j], _mm256_mul_pd(d, d));
    }
  double l1[kDevLanes], l2[kDevLanes];
  for (int j = 0; j < 4; ++j) _mm256_storeu_pd(l1 + 4 * j, a1[j]), _mm256_storeu_pd(l2 + 4 * j, a2[j]);
  return finish_deviations(l1, l2, p, i, n, mean);
}
#endif

// The widest body the CPU runs, picked once per element type.
template <class T> Deviations deviations_fast(const T* p, int64_t n, double mean) {
#if TSR_HAVE_CLONES
  using Fn = Deviations (*)(const T*, int64_t, double);
  static const Fn fn = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return Fn{deviations_avx512<T>};
    if (__builtin_cpu_supports("avx2")) return Fn{deviations_avx2<T>};
    return Fn{deviations_baseline<T>};
  }();
  return fn(p, n, mean);
#else
  return deviations_baseline(p, n, mean);
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
  if constexpr (requires { R::fold(p, n); }) return R::fold(p, n);
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

// Note [One-pass variance]
//   VAR and STD read memory once. The row path hands fold() runs of at most
//   kRowBlock elements (128 KiB of float32, 256 KiB of float64: they stay in
//   L2), and fold() makes two passes over its run, the sum and then the
//   sums of d = x - mean and of d * d (the corrected two-pass algorithm:
//   M2 = sum d^2 - (sum d)^2 / n, exact up to rounding where one pass of
//   sums of squares would cancel). Runs, blocks and the strided and column
//   paths' elements combine by Chan, Golub and LeVeque's update of (n, mean,
//   M2); a single element joins an accumulator as a shifted sum (d = x -
//   shift, shift its first element), so no element costs a division. All in
//   double; finish divides M2 by max(0, count - correction) (scalars[0]) and
//   STD takes the root, one rounding to the output dtype. Other devices run
//   the composite (Note [Variance as a composite] in runtime/composite.cpp):
//   the same algorithm in the dtype's arithmetic, reading the input's size five times
//   and writing it twice.
template <int D, bool Root> struct VarReducer {
  static constexpr bool float32_sum = false;
  static constexpr bool uses_index = false;
  static constexpr bool has_identity = true;  // zero elements: 0 / max(0, -correction), NaN as PyTorch's
  static constexpr int lanes = 1;
  using in_t = storage_t<D>;
  // `count` elements as shift + d: s1 = sum d, s2 = sum d^2.
  struct acc_t {
    double count, shift, s1, s2;
    double mean() const { return shift + s1 / count; }
    double m2() const { return s2 - s1 * s1 / count; }
  };
  using out_t = in_t;
  double correction = 1;
  static acc_t init() { return {0, 0, 0, 0}; }
  static void add(acc_t& a, in_t x, int64_t) {
    const double v = static_cast<double>(load(x));
    if (a.count == 0) a.shift = v;
    const double d = v - a.shift;
    a.count += 1;
    a.s1 += d;
    a.s2 += d * d;
  }
  static void merge(acc_t& a, const acc_t& b) {
    if (b.count == 0) return;
    if (a.count == 0) {
      a = b;
      return;
    }
    const double n = a.count + b.count, ma = a.mean(), delta = b.mean() - ma;
    a = {n, ma + delta * (b.count / n), 0, a.m2() + b.m2() + delta * delta * (a.count * b.count / n)};
  }
  static acc_t fold(const in_t* p, int64_t n) {
    if (n == 0) return init();
    Deviations d;
    double mean;
    if constexpr (D == TSR_FLOAT32) {
      mean = sum_f32_fast(p, n) / static_cast<double>(n);
      d = deviations_fast(p, n, mean);
    } else if constexpr (D == TSR_FLOAT64) {
      mean = deviations_fast(p, n, 0.0).sum / static_cast<double>(n);  // memory-bound: the squares cost nothing
      d = deviations_fast(p, n, mean);
    } else {  // float16, bfloat16: scalar loops
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(load(p[i]));
      mean = sum / static_cast<double>(n);
      for (int64_t i = 0; i < n; ++i) {
        const double x = static_cast<double>(load(p[i])) - mean;
        d.sum += x;
        d.squares += x * x;
      }
    }
    return {static_cast<double>(n), mean, d.sum, d.squares};
  }
  out_t finish(const acc_t& a, int64_t count) const {
    double m2 = a.count == 0 ? 0.0 : a.m2();
    if (m2 < 0) m2 = 0;  // rounding; NaN stays
    const double v = m2 / std::max(0.0, static_cast<double>(count) - correction);
    return convert<out_t>(Root ? std::sqrt(v) : v);
  }
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
void reduce_rows(Context& ctx, const R& reducer, const ReducePlan& p, const typename R::in_t* in,
                 typename R::out_t* out) {
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
        out[k.off2] = reducer.finish(range(in + k.off1, 0, p.count), p.count);
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
    out[k.off2] = reducer.finish(acc, p.count);
    if (t + 1 < p.n_out) k.advance(1);
  }
}

// Column path: the innermost kept dim is inner to every reduced dim in
// memory, so a tile of up to kColumnWidth outputs accumulates whole rows at
// once (acc[j] += x[j], vectorised when the kept dim is unit-stride).
template <class R>
void reduce_columns(Context& ctx, const R& reducer, const ReducePlan& p, const typename R::in_t* in,
                    typename R::out_t* out) {
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
        for (int64_t j = 0; j < width; ++j) out[out_off + j * so] = reducer.finish(acc[j], p.count);
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
      for (int64_t j = 0; j < width; ++j) out[out_off + j * so] = reducer.finish(first[j], p.count);
    }
  });
}

// `reducer` carries what finish needs beyond the accumulator (VAR's correction).
template <class R>
void reduce(Context& ctx, const tsr_kernel_args& a, int key, const tsr_tensor_desc& in, const tsr_tensor_desc& out,
            const bool* reduced, const R& reducer = {}) {
  const ReducePlan p = make_reduce_plan(in, out, reduced, R::uses_index);
  if (p.n_out == 0) return;
  using out_t = typename R::out_t;
  out_t* o = static_cast<out_t*>(out.data) + out.offset;
  if (p.count == 0) {  // reducing zero elements
    if constexpr (!R::has_identity) {
      fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + "cannot reduce over zero elements: the operation has no identity");
    } else {
      const out_t value = reducer.finish(R::init(), 0);
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
    reduce_columns<R>(ctx, reducer, p, i, o);
  } else {
    reduce_rows<R>(ctx, reducer, p, i, o);
  }
}

template <int Op, int D> struct ReduceKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    constexpr bool variance = Op == TSR_OP_VAR || Op == TSR_OP_STD;
    check_args(a, D, 1, variance ? 1 : 0, 0);
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
    else if constexpr (variance) {
      VarReducer<D, Op == TSR_OP_STD> r;
      r.correction = a.scalars[0].kind == TSR_SCALAR_INT ? static_cast<double>(a.scalars[0].i) : a.scalars[0].f;
      reduce(ctx, a, D, in, out, reduced, r);
    }
    else reduce<ArgmaxReducer<D, Op == TSR_OP_ARGMIN>>(ctx, a, D, in, out, reduced);
  }
};

}  // namespace

void add_reduce_kernels(KernelList& list) {
  // MEAN, ARGMIN, VAR and STD are composites (Note [Primitives]) with native kernels here.
  add_kernels<ReduceKernel, TSR_OP_SUM, TSR_OP_MEAN, TSR_OP_MAX, TSR_OP_MIN, TSR_OP_ARGMAX, TSR_OP_PROD, TSR_OP_ARGMIN,
              TSR_OP_VAR, TSR_OP_STD>(list);
}

}  // namespace tessera::cpu_tbb
