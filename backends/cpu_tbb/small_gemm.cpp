// SPDX-License-Identifier: Apache-2.0
// Note [Small matrix products] in small_gemm.hpp. Compiled with
// -ffp-contract=fast (CMakeLists.txt): a * b + c becomes one FMA where the
// clone's ISA has it.
#include "small_gemm.hpp"

#include <algorithm>
#include <vector>

#include "isa.hpp"

namespace tessera::cpu_tbb {

namespace {

// One 32-byte vector of T: 8 floats or 4 doubles. GCC lowers the type to
// what each clone has (one ymm for x86-64-v3 and -v4, two xmm for the
// baseline), and the accumulators below stay in registers. (A 64-byte type
// would not: GCC spills it through the stack when it has to split it.)
typedef float f32v __attribute__((vector_size(32)));
typedef double f64v __attribute__((vector_size(32)));
template <class T> struct VecOf;
template <> struct VecOf<float> { using type = f32v; };
template <> struct VecOf<double> { using type = f64v; };
template <class T> constexpr int kLanes = 32 / sizeof(T);
// 64-byte vectors for the AVX-512 panel only (compiled for that ISA alone,
// where GCC keeps them in zmm registers).
typedef float f32z __attribute__((vector_size(64)));
typedef double f64z __attribute__((vector_size(64)));

// Vectors go by reference: these always inline, and by value a 64-byte
// vector would change the calling convention between clones (-Wpsabi).
template <class V, class T> [[gnu::always_inline]] inline void load(V& v, const T* p) { __builtin_memcpy(&v, p, sizeof v); }

template <class V, class T> [[gnu::always_inline]] inline void store_row(T* c, int64_t ccs, int64_t n, const V& v) {
  if (ccs == 1 && n == static_cast<int64_t>(sizeof(V) / sizeof(T))) {
    __builtin_memcpy(c, &v, sizeof v);
  } else {
    for (int64_t j = 0; j < n; ++j) c[j * ccs] = v[j];
  }
}

// C = A * Bp: Bp is K x ldb row-major, zero past column N; rows in blocks of
// eight, so eight independent accumulators hide the FMA latency.
template <class T, class V = typename VecOf<T>::type>
[[gnu::always_inline]] inline void panel(int64_t M, int64_t N, int64_t K, const T* A, int64_t ars, int64_t acs,
                                         const T* Bp, int64_t ldb, T* C, int64_t crs, int64_t ccs) {
  constexpr int W = sizeof(V) / sizeof(T);
  for (int64_t n0 = 0; n0 < N; n0 += W) {
    const int64_t nw = N - n0 < W ? N - n0 : W;
    int64_t m = 0;
    for (; m + 8 <= M; m += 8) {
      V c0 = {}, c1 = {}, c2 = {}, c3 = {}, c4 = {}, c5 = {}, c6 = {}, c7 = {};
      const T* a = A + m * ars;
      for (int64_t k = 0; k < K; ++k) {
        V b;
        load(b, Bp + k * ldb + n0);
        const T* ak = a + k * acs;
        c0 += ak[0] * b;
        c1 += ak[ars] * b;
        c2 += ak[2 * ars] * b;
        c3 += ak[3 * ars] * b;
        c4 += ak[4 * ars] * b;
        c5 += ak[5 * ars] * b;
        c6 += ak[6 * ars] * b;
        c7 += ak[7 * ars] * b;
      }
      T* c = C + m * crs + n0 * ccs;
      store_row(c, ccs, nw, c0);
      store_row(c + crs, ccs, nw, c1);
      store_row(c + 2 * crs, ccs, nw, c2);
      store_row(c + 3 * crs, ccs, nw, c3);
      store_row(c + 4 * crs, ccs, nw, c4);
      store_row(c + 5 * crs, ccs, nw, c5);
      store_row(c + 6 * crs, ccs, nw, c6);
      store_row(c + 7 * crs, ccs, nw, c7);
    }
    for (; m < M; ++m) {
      V c0 = {};
      for (int64_t k = 0; k < K; ++k) {
        V b;
        load(b, Bp + k * ldb + n0);
        c0 += A[m * ars + k * acs] * b;
      }
      store_row(C + m * crs + n0 * ccs, ccs, nw, c0);
    }
  }
}

// C = A * B for a narrow C (few columns): each element is a dot product of a
// row of A with a column of B, both packed K-contiguous and zero-padded to
// whole vectors (Ap: M x ldk, Bt: N x ldk); lanes summed in a fixed order.
template <class T>
[[gnu::always_inline]] inline void dots(int64_t M, int64_t N, const T* Ap, int64_t lda, const T* Bt, int64_t ldk, T* C,
                                        int64_t crs, int64_t ccs) {
  using V = typename VecOf<T>::type;
  constexpr int W = kLanes<T>;
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      V acc = {};
      for (int64_t k = 0; k < ldk; k += W) {
        V a, b;
        load(a, Ap + m * lda + k);
        load(b, Bt + n * ldk + k);
        acc += a * b;
      }
      T sum = 0;
      for (int j = 0; j < W; ++j) sum += acc[j];
      C[m * crs + n * ccs] = sum;
    }
  }
}

TSR_CLONES_V4_V3 void panel_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t ars, int64_t acs,
                              const float* Bp, int64_t ldb, float* C, int64_t crs, int64_t ccs) {
  panel<float>(M, N, K, A, ars, acs, Bp, ldb, C, crs, ccs);
}
TSR_CLONES_V4_V3 void panel_f64(int64_t M, int64_t N, int64_t K, const double* A, int64_t ars, int64_t acs,
                              const double* Bp, int64_t ldb, double* C, int64_t crs, int64_t ccs) {
  panel<double>(M, N, K, A, ars, acs, Bp, ldb, C, crs, ccs);
}
TSR_CLONES_V4_V3 void dots_f32(int64_t M, int64_t N, const float* Ap, int64_t lda, const float* Bt, int64_t ldk, float* C,
                             int64_t crs, int64_t ccs) {
  dots<float>(M, N, Ap, lda, Bt, ldk, C, crs, ccs);
}
TSR_CLONES_V4_V3 void dots_f64(int64_t M, int64_t N, const double* Ap, int64_t lda, const double* Bt, int64_t ldk,
                             double* C, int64_t crs, int64_t ccs) {
  dots<double>(M, N, Ap, lda, Bt, ldk, C, crs, ccs);
}

#if TSR_HAVE_CLONES
// One 16-float (8-double) tile per zmm register: half the instructions of
// the 32-byte clones. Called only when the CPU has AVX-512 (has_avx512).
[[gnu::target("arch=x86-64-v4")]] void panel_f32_avx512(int64_t M, int64_t N, int64_t K, const float* A, int64_t ars,
                                                        int64_t acs, const float* Bp, int64_t ldb, float* C, int64_t crs,
                                                        int64_t ccs) {
  panel<float, f32z>(M, N, K, A, ars, acs, Bp, ldb, C, crs, ccs);
}
[[gnu::target("arch=x86-64-v4")]] void panel_f64_avx512(int64_t M, int64_t N, int64_t K, const double* A, int64_t ars,
                                                        int64_t acs, const double* Bp, int64_t ldb, double* C,
                                                        int64_t crs, int64_t ccs) {
  panel<double, f64z>(M, N, K, A, ars, acs, Bp, ldb, C, crs, ccs);
}
bool has_avx512() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq");
  }();
  return yes;
}
#endif

// Tiles as wide as the widest vector the CPU has.
template <class T> int64_t tile_width() {
#if TSR_HAVE_CLONES
  if (has_avx512()) return 64 / sizeof(T);
#endif
  return kLanes<T>;
}

void run_panel(int64_t M, int64_t N, int64_t K, const float* A, int64_t ars, int64_t acs, const float* Bp, int64_t ldb,
               float* C, int64_t crs, int64_t ccs) {
#if TSR_HAVE_CLONES
  if (has_avx512()) return panel_f32_avx512(M, N, K, A, ars, acs, Bp, ldb, C, crs, ccs);
#endif
  panel_f32(M, N, K, A, ars, acs, Bp, ldb, C, crs, ccs);
}
void run_panel(int64_t M, int64_t N, int64_t K, const double* A, int64_t ars, int64_t acs, const double* Bp,
               int64_t ldb, double* C, int64_t crs, int64_t ccs) {
#if TSR_HAVE_CLONES
  if (has_avx512()) return panel_f64_avx512(M, N, K, A, ars, acs, Bp, ldb, C, crs, ccs);
#endif
  panel_f64(M, N, K, A, ars, acs, Bp, ldb, C, crs, ccs);
}
void run_dots(int64_t M, int64_t N, const float* Ap, int64_t lda, const float* Bt, int64_t ldk, float* C, int64_t crs,
              int64_t ccs) {
  dots_f32(M, N, Ap, lda, Bt, ldk, C, crs, ccs);
}
void run_dots(int64_t M, int64_t N, const double* Ap, int64_t lda, const double* Bt, int64_t ldk, double* C,
              int64_t crs, int64_t ccs) {
  dots_f64(M, N, Ap, lda, Bt, ldk, C, crs, ccs);
}

// A scratch buffer: on the stack when small, else on the heap.
template <class T> class Scratch {
 public:
  explicit Scratch(int64_t n) {
    if (n > kStack) {
      heap_.resize(static_cast<size_t>(n));
      p_ = heap_.data();
    }
  }
  T* data() { return p_; }

 private:
  static constexpr int64_t kStack = 1024;  // 4-8 KiB: safe on small thread stacks
  alignas(64) T stack_[kStack];
  std::vector<T> heap_;
  T* p_ = stack_;
};

// dst[r * ld + c] = src(r, c) for r < rows, c < cols, zero for cols <= c < ld.
template <class T>
void pack(T* dst, int64_t ld, const T* src, int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  for (int64_t r = 0; r < rows; ++r) {
    T* row = dst + r * ld;
    const T* s = src + r * rs;
    if (cs == 1) {
      for (int64_t c = 0; c < cols; ++c) row[c] = s[c];
    } else {
      for (int64_t c = 0; c < cols; ++c) row[c] = s[c * cs];
    }
    for (int64_t c = cols; c < ld; ++c) row[c] = T(0);
  }
}

template <class T>
void gemm(int64_t M, int64_t N, int64_t K, const T* A, int64_t ars, int64_t acs, const T* B, int64_t brs, int64_t bcs,
          T* C, int64_t crs, int64_t ccs) {
  constexpr int W = kLanes<T>;
  if (N <= W / 4) {  // a matrix-vector-like product: dot products along k
    const int64_t ldk = (K + W - 1) / W * W;
    Scratch<T> b(N * ldk);
    pack(b.data(), ldk, B, N, K, bcs, brs);  // B^T: row n is column n of B
    if (acs == 1 && K == ldk && ars >= K) {  // rows of A already k-contiguous whole vectors
      run_dots(M, N, A, ars, b.data(), ldk, C, crs, ccs);
      return;
    }
    Scratch<T> a(M * ldk);
    pack(a.data(), ldk, A, M, K, ars, acs);
    run_dots(M, N, a.data(), ldk, b.data(), ldk, C, crs, ccs);
    return;
  }
  const int64_t tw = tile_width<T>();  // B is padded to whole tiles of the panel that runs
  const int64_t ldb = (N + tw - 1) / tw * tw;
  Scratch<T> b(K * ldb);
  pack(b.data(), ldb, B, K, N, brs, bcs);
  run_panel(M, N, K, A, ars, acs, b.data(), ldb, C, crs, ccs);
}

}  // namespace

void small_gemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t ars, int64_t acs, const float* B, int64_t brs,
                int64_t bcs, float* C, int64_t crs, int64_t ccs) {
  gemm<float>(M, N, K, A, ars, acs, B, brs, bcs, C, crs, ccs);
}

void small_gemm(int64_t M, int64_t N, int64_t K, const double* A, int64_t ars, int64_t acs, const double* B,
                int64_t brs, int64_t bcs, double* C, int64_t crs, int64_t ccs) {
  gemm<double>(M, N, K, A, ars, acs, B, brs, bcs, C, crs, ccs);
}

}  // namespace tessera::cpu_tbb
