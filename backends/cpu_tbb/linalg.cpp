// SPDX-License-Identifier: Apache-2.0
// The LINALG kind (Note [Kernel contracts]): CHOLESKY, LU, SOLVE, QR, SVD,
// EIGH and INV through LAPACK's Fortran routines in OpenBLAS (Note [BLAS on
// first use]): potrf, getrf, gesv, geqrf + orgqr, gesdd, syevd, getrf +
// getri. Each matrix is copied to a column-major buffer (operands may have
// any strides, a batch dim stride 0) in cache-sized tiles, factorised, and
// its results copied out through the outputs' strides. A batch of many
// small matrices runs in parallel, each task with its own buffers from the
// caching allocator. A large matrix runs alone: OpenBLAS threads its
// solve, inverse and Cholesky itself, while QR, SVD and EIGH run OpenBLAS
// on one thread and apply their reflectors to column blocks in parallel
// (Note [Serial BLAS]; the same routines gesdd and syevd call, in their order;
// QR's geqrf runs in panels whose trailing updates go in parallel too, Note
// [Parallel panels]).
// Complex matrices (ABI 1.7) take LAPACK's c/z routines: potrf, getrf, gesv,
// geqrf + ungqr, gesdd, heevd, getrf + getri, each alone (the composed QR,
// SVD and EIGH are real-only). EIG (ABI 1.11) is geev in all four, its
// results complex whatever the key (Note [Eigenvalues of a real matrix]).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <tbb/parallel_for.h>

#include "blas_library.hpp"
#include "kernels.hpp"
#include "parallel.hpp"
#include "scratch.hpp"

namespace tessera::cpu_tbb {

namespace {

template <class T> struct RealOf {
  using type = T;
};
template <class R> struct RealOf<std::complex<R>> {
  using type = R;
};
// The real type of T's parts (float for complex<float>): singular values,
// eigenvalues, and the rwork of the complex routines.
template <class T> using real_t = typename RealOf<T>::type;

// LAPACK's Fortran interface: arguments by pointer, and gfortran's hidden
// length of each character argument last. For complex T the slots orgqr and
// syevd hold ungqr and heevd, and gesdd and heevd take their real work
// arrays (rwork) as LAPACK's c/z routines do.
template <class T> struct Lapack {
  using R = real_t<T>;
  static constexpr bool kComplex = is_complex_type_v<T>;
  using potrf_t = void (*)(const char*, const int*, T*, const int*, int*, size_t);
  using getrf_t = void (*)(const int*, const int*, T*, const int*, int*, int*);
  using getri_t = void (*)(const int*, T*, const int*, const int*, T*, const int*, int*);
  using gesv_t = void (*)(const int*, const int*, T*, const int*, int*, T*, const int*, int*);
  using geqrf_t = void (*)(const int*, const int*, T*, const int*, T*, T*, const int*, int*);
  using orgqr_t = void (*)(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*);
  using gesdd_real_t = void (*)(const char*, const int*, const int*, T*, const int*, R*, T*, const int*, T*,
                                const int*, T*, const int*, int*, int*, size_t);
  using gesdd_complex_t = void (*)(const char*, const int*, const int*, T*, const int*, R*, T*, const int*, T*,
                                   const int*, T*, const int*, R*, int*, int*, size_t);
  using gesdd_t = std::conditional_t<kComplex, gesdd_complex_t, gesdd_real_t>;
  using syevd_real_t = void (*)(const char*, const char*, const int*, T*, const int*, R*, T*, const int*, int*,
                                const int*, int*, size_t, size_t);
  using heevd_t = void (*)(const char*, const char*, const int*, T*, const int*, R*, T*, const int*, R*, const int*,
                           int*, const int*, int*, size_t, size_t);
  using syevd_t = std::conditional_t<kComplex, heevd_t, syevd_real_t>;
  // geev (EIG): the real one returns w as (wr, wi), the complex one takes rwork.
  using geev_real_t = void (*)(const char*, const char*, const int*, T*, const int*, R*, R*, T*, const int*, T*,
                               const int*, T*, const int*, int*, size_t, size_t);
  using geev_complex_t = void (*)(const char*, const char*, const int*, T*, const int*, T*, T*, const int*, T*,
                                  const int*, T*, const int*, R*, int*, size_t, size_t);
  using geev_t = std::conditional_t<kComplex, geev_complex_t, geev_real_t>;
  // The pieces of syevd and gesdd (Note [Serial BLAS]).
  using sytrd_t = void (*)(const char*, const int*, T*, const int*, T*, T*, T*, T*, const int*, int*, size_t);
  using stedc_t = void (*)(const char*, const int*, T*, T*, T*, const int*, T*, const int*, int*, const int*, int*, size_t);
  using ormtr_t = void (*)(const char*, const char*, const char*, const int*, const int*, const T*, const int*, const T*,
                           T*, const int*, T*, const int*, int*, size_t, size_t, size_t);
  using gebrd_t = void (*)(const int*, const int*, T*, const int*, T*, T*, T*, T*, T*, const int*, int*);
  using bdsdc_t = void (*)(const char*, const char*, const int*, T*, T*, T*, const int*, T*, const int*, T*, int*, T*,
                           int*, int*, size_t, size_t);
  using ormbr_t = void (*)(const char*, const char*, const char*, const int*, const int*, const int*, const T*,
                           const int*, const T*, T*, const int*, T*, const int*, int*, size_t, size_t, size_t);
  using ormqr_t = void (*)(const char*, const char*, const int*, const int*, const int*, const T*, const int*, const T*,
                           T*, const int*, T*, const int*, int*, size_t, size_t);
  // The pieces of a blocked geqrf (Note [Parallel panels]).
  using larft_t = void (*)(const char*, const char*, const int*, const int*, const T*, const int*, const T*, T*,
                           const int*, size_t, size_t);
  using larfb_t = void (*)(const char*, const char*, const char*, const char*, const int*, const int*, const int*,
                           const T*, const int*, const T*, const int*, T*, const int*, T*, const int*, size_t, size_t,
                           size_t, size_t);
  potrf_t potrf = nullptr;
  getrf_t getrf = nullptr;
  getri_t getri = nullptr;
  gesv_t gesv = nullptr;
  geqrf_t geqrf = nullptr;
  orgqr_t orgqr = nullptr;
  gesdd_t gesdd = nullptr;
  syevd_t syevd = nullptr;
  geev_t geev = nullptr;
  sytrd_t sytrd = nullptr;
  stedc_t stedc = nullptr;
  ormtr_t ormtr = nullptr;
  gebrd_t gebrd = nullptr;
  bdsdc_t bdsdc = nullptr;
  ormbr_t ormbr = nullptr;
  ormqr_t ormqr = nullptr;
  larft_t larft = nullptr;
  larfb_t larfb = nullptr;
  std::string problem;  // why LAPACK is unusable; empty when every routine was found
};

template <class T> const Lapack<T>& lapack() {
  static const Lapack<T> loaded = [] {
    Lapack<T> l;
    l.problem = blas_library().problem;
    if (!l.problem.empty()) return l;
    constexpr bool kComplex = Lapack<T>::kComplex;
    const char p = sizeof(real_t<T>) == 4 ? (kComplex ? 'c' : 's') : (kComplex ? 'z' : 'd');
    auto find = [&](auto& fn, const char* name) {
      const std::string symbol = std::string(1, p) + name + "_";
      fn = blas_symbol<std::remove_reference_t<decltype(fn)>>(symbol.c_str());
      if (fn == nullptr && l.problem.empty()) l.problem = std::string(TESSERA_BLAS_SONAME) + " has no LAPACK routine " + symbol;
    };
    find(l.potrf, "potrf");
    find(l.getrf, "getrf");
    find(l.getri, "getri");
    find(l.gesv, "gesv");
    find(l.geqrf, "geqrf");
    find(l.orgqr, kComplex ? "ungqr" : "orgqr");
    find(l.gesdd, "gesdd");
    find(l.syevd, kComplex ? "heevd" : "syevd");
    find(l.geev, "geev");
    if (kComplex) return l;  // the composed routines' pieces are real-only
    find(l.sytrd, "sytrd");
    find(l.stedc, "stedc");
    find(l.ormtr, "ormtr");
    find(l.gebrd, "gebrd");
    find(l.bdsdc, "bdsdc");
    find(l.ormbr, "ormbr");
    find(l.ormqr, "ormqr");
    find(l.larft, "larft");
    find(l.larfb, "larfb");
    return l;
  }();
  return loaded;
}

// LAPACK counts in int: a dim, and the elements of a matrix it indexes.
int lapack_int(const tsr_kernel_args& a, int key, int64_t rows, int64_t cols) {
  if (rows > INT_MAX || cols > INT_MAX || rows * cols > INT_MAX)
    fail(TSR_ERR_UNSUPPORTED, where(a, key) + "a " + std::to_string(rows) + " x " + std::to_string(cols) +
                                  " matrix is beyond LAPACK's int indexing");
  return static_cast<int>(rows);
}

// The element offset of batch element b (row-major over d's first nb dims).
int64_t batch_offset(const tsr_tensor_desc& d, int nb, int64_t b) {
  int64_t off = d.offset;
  for (int k = nb - 1; k >= 0; --k) {
    off += (b % d.shape[k]) * d.strides[k];
    b /= d.shape[k];
  }
  return off;
}

// Copies an m x n matrix between two strided layouts in 32 x 32 tiles, so
// that a row-major side and a column-major side both stay in cache.
template <class T, class Keep> void copy_tiles(const T* src, int64_t srs, int64_t scs, T* dst, int64_t drs, int64_t dcs,
                                               int64_t m, int64_t n, Keep keep) {
  constexpr int64_t kTile = 32;
  for (int64_t r0 = 0; r0 < m; r0 += kTile)
    for (int64_t c0 = 0; c0 < n; c0 += kTile) {
      const int64_t r1 = std::min(m, r0 + kTile), c1 = std::min(n, c0 + kTile);
      for (int64_t c = c0; c < c1; ++c)
        for (int64_t r = r0; r < r1; ++r) dst[r * drs + c * dcs] = keep(r, c) ? src[r * srs + c * scs] : T(0);
    }
}
constexpr auto kKeepAll = [](int64_t, int64_t) { return true; };

// Matrix b of d (its last two dims) into col, column-major with leading dim ld.
template <class T> void load_matrix(const tsr_tensor_desc& d, int nb, int64_t b, T* col, int64_t ld) {
  const T* p = static_cast<const T*>(d.data) + batch_offset(d, nb, b);
  copy_tiles(p, d.strides[nb], d.strides[nb + 1], col, int64_t{1}, ld, d.shape[nb], d.shape[nb + 1], kKeepAll);
}

// col (column-major, leading dim ld) into matrix b of d; elements where
// keep(r, c) is false (a triangle the contract zeroes) are written as 0.
template <class T, class Keep> void store_matrix(const tsr_tensor_desc& d, int nb, int64_t b, const T* col, int64_t ld,
                                                 Keep keep) {
  T* p = static_cast<T*>(d.data) + batch_offset(d, nb, b);
  copy_tiles(col, int64_t{1}, ld, p, d.strides[nb], d.strides[nb + 1], d.shape[nb], d.shape[nb + 1], keep);
}
template <class T> void store_matrix(const tsr_tensor_desc& d, int nb, int64_t b, const T* col, int64_t ld) {
  store_matrix(d, nb, b, col, ld, kKeepAll);
}

// v[0, n) into vector b of d (its last dim), as type V.
template <class V, class T> void store_vector(const tsr_tensor_desc& d, int nb, int64_t b, const T* v) {
  V* p = static_cast<V*>(d.data) + batch_offset(d, nb, b);
  for (int64_t i = 0; i < d.shape[nb]; ++i) p[i * d.strides[nb]] = static_cast<V>(v[i]);
}

// A negative LAPACK status names a bad argument: our bug.
void check_status(const tsr_kernel_args& a, int key, int status) {
  if (status < 0)
    fail(TSR_ERR_INTERNAL, where(a, key) + "LAPACK rejected argument " + std::to_string(-status) + " (a kernel bug)");
}

// LAPACK's info for matrix b (a negative one is our bug).
void store_info(const tsr_kernel_args& a, int key, const tsr_tensor_desc& info, int nb, int64_t b, int value) {
  check_status(a, key, value);
  static_cast<int32_t*>(info.data)[batch_offset(info, nb, b)] = value;
}

// OpenBLAS implements potrf, getrf, getrs and getri itself, and each call
// takes a buffer from its pool under a lock: on small matrices concurrent
// calls contend for it. On 2 threads against one (2026-12-01), 200000
// Cholesky factorisations of 4 x 4 took 64 ms against 40, 12500 of 16 x 16
// 16 ms against 9, 3125 of 32 x 32 7 ms against 12.
constexpr int64_t kOpenBlasOwnMinParallelN = 32;

// body(b0, b1) over the batch's matrices. Small ones (n <= 128) run with
// OpenBLAS on one thread (Note [Serial BLAS]: each call would otherwise try
// OpenBLAS's threads, and a batch of 1000 64 x 64 eigh took 4x NumPy's
// time), in parallel ranges from n = min_parallel_n on; a large matrix runs
// alone, on this thread. A small matrix alone runs on one OpenBLAS thread
// too: OpenBLAS's threaded kernels round differently, and a matrix's
// result must not depend on whether it came in a batch (the Array API
// suite compares every stack with the matrix alone, bit for bit).
template <class F>
void for_each_matrix(Context& ctx, int64_t count, int64_t n, F&& body, int64_t min_parallel_n = 1) {
  if (n > 128) {
    body(int64_t{0}, count);
    return;
  }
  SerialBlas serial;
  if (count <= 1 || n < min_parallel_n) body(int64_t{0}, count);
  else maybe_parallel(ctx, count, count * n * n * n, 1, body);
}

// One scratch block from the caching allocator cut into arrays (64-byte
// aligned each, sizes in bytes), reused for every matrix of a range: the
// buffers of a 1024 x 1024 solve would otherwise be fresh pages each call.
class Workspace {
 public:
  Workspace(Context& ctx, std::initializer_list<size_t> bytes) : block_(ctx, total(bytes)) {
    size_t at = 0;
    for (size_t b : bytes) {
      offsets_.push_back(at);
      at += round_up(b);
    }
  }
  template <class T> T* array(size_t i) const { return reinterpret_cast<T*>(block_.as<char>() + offsets_[i]); }

 private:
  static size_t round_up(size_t b) { return (b + 63) / 64 * 64; }
  static size_t total(std::initializer_list<size_t> bytes) {
    size_t t = 0;
    for (size_t b : bytes) t += round_up(b);
    return t;
  }
  Scratch block_;
  std::vector<size_t> offsets_;
};

// The optimal work size LAPACK reports from a query (lwork = -1): a complex
// routine reports it in the real part.
template <class T> int work_size(T query) {
  if constexpr (is_complex_type_v<T>) return work_size(query.real());
  else return std::max(1, static_cast<int>(query));
}

// Whether a large matrix takes the composed QR, SVD or EIGH (Note [Serial
// BLAS]): several arena threads, and at least 128 reflectors.
bool composed(const Context& ctx, int64_t k) { return ctx.threads > 1 && k >= 128; }

// A block's own copy of the reflectors (an m x n matrix, column-major, and
// its tau): with the blocks sharing one, Debian's OpenBLAS 0.3.21 gave a
// wrong block of U or V^T in about one SVD in a hundred on a loaded
// machine, so ormqr, ormtr and ormbr must write into their A on some path.
// The copy costs one pass over the matrix per block.
template <class T> struct Reflectors {
  Workspace space;
  T* a;
  T* tau;
  Reflectors(Context& ctx, const T* a_, int64_t m, int64_t n, const T* tau_, int64_t k, size_t work_bytes)
      : space(ctx, {sizeof(T) * m * n, sizeof(T) * k, work_bytes}), a(space.array<T>(0)), tau(space.array<T>(1)) {
    std::copy(a_, a_ + m * n, a);
    std::copy(tau_, tau_ + k, tau);
  }
  T* work() const { return space.array<T>(2); }
};

// body(b0, b1) over [0, total) (columns or rows), one block per arena
// thread, each of at least 64.
template <class F> void for_each_block(Context& ctx, int64_t total, F&& body) {
  const int64_t pieces = std::min<int64_t>(ctx.threads, std::max<int64_t>(1, total / 64));
  if (pieces <= 1) {
    body(int64_t{0}, total);
    return;
  }
  ctx.parallel([&] {
    tbb::parallel_for(int64_t{0}, pieces, [&](int64_t p) { body(total * p / pieces, total * (p + 1) / pieces); });
  });
}

// The largest |x| of a column-major m x n matrix (a NaN stays: comparisons
// with it fail, so no scaling happens, as in LAPACK).
template <class T> T max_abs(const T* x, int64_t m, int64_t n, int64_t ld, bool lower_only = false) {
  T best = 0;
  for (int64_t c = 0; c < n; ++c)
    for (int64_t r = lower_only ? c : 0; r < m; ++r) {
      const T v = std::abs(x[r + c * ld]);
      if (v > best || std::isnan(v)) best = v;
    }
  return best;
}

template <class T> void scale(T* x, int64_t m, int64_t n, int64_t ld, T by, bool lower_only = false) {
  for (int64_t c = 0; c < n; ++c)
    for (int64_t r = lower_only ? c : 0; r < m; ++r) x[r + c * ld] *= by;
}

// LAPACK's machine constants (dlamch 'S' and 'P'): IEEE's least normal
// number and the spacing of 1.
template <class T> constexpr T kSafeMin = std::numeric_limits<T>::min();
template <class T> constexpr T kEps = std::numeric_limits<T>::epsilon();

// Note [Parallel panels]
//   geqrf of a large matrix, as LAPACK's blocked dgeqrf computes it: panels
//   of kPanel columns, each factorised by geqrf (its unblocked geqr2 at that
//   width), its block reflector's T by larft, and the trailing columns
//   updated by larfb. The update is where the flops are (4/3 n^3 of them,
//   GEMM-shaped), and each trailing column is transformed alone, so it is
//   spread over column blocks, one per arena thread, OpenBLAS on one thread
//   (Note [Serial BLAS]); larfb only reads the reflectors and T. On 2 cores
//   (2026-12-04) qr_1024 went from 148 ms (geqrf whole, on one thread) to
//   98 ms; OpenBLAS's own threads gain geqrf 26 % there (torch.geqrf: 72 ->
//   54 ms), but leave their workers spinning into the parallel ormqr after.
constexpr int64_t kPanel = 32;  // dgeqrf's block size (ilaenv's NB for geqrf)

// work and lwork: the caller's, from its query for the whole matrix (more
// than a panel needs).
template <class T>
void geqrf_in_panels(Context& ctx, const tsr_kernel_args& a, int key, const Lapack<T>& L, T* A, T* tau, int64_t m,
                     int64_t n, T* work, int lwork) {
  const int64_t k = std::min(m, n);
  const int im = static_cast<int>(m), ldt = static_cast<int>(kPanel);
  // T, and larfb's work: cols x kPanel per block, the blocks' columns disjoint.
  Workspace space(ctx, {sizeof(T) * kPanel * kPanel, sizeof(T) * std::max<int64_t>(n, 1) * kPanel});
  T *Tm = space.array<T>(0), *update_work = space.array<T>(1);
  for (int64_t j = 0; j < k; j += kPanel) {
    const int64_t jb = std::min(kPanel, k - j);
    const int pm = static_cast<int>(m - j), pn = static_cast<int>(jb);
    T* V = A + j + j * m;
    int status = 0;
    L.geqrf(&pm, &pn, V, &im, tau + j, work, &lwork, &status);
    check_status(a, key, status);
    const int64_t first = j + jb, rest = n - first;
    if (rest <= 0) continue;
    L.larft("F", "C", &pm, &pn, V, &im, tau + j, Tm, &ldt, 1, 1);
    for_each_block(ctx, rest, [&](int64_t c0, int64_t c1) {
      const int cols = static_cast<int>(c1 - c0);
      L.larfb("L", "T", "F", "C", &pm, &cols, &pn, V, &im, Tm, &ldt, A + j + (first + c0) * m, &im,
              update_work + c0 * kPanel, &cols, 1, 1, 1, 1);
    });
  }
}

// Q of a large QR from geqrf's reflectors in A (m x n, column-major, ld m)
// and tau: Q's c columns as blocks of the identity that ormqr multiplies by
// the reflectors (what orgqr computes, in parallel; Note [Serial BLAS]).
template <class T>
void q_from_reflectors(Context& ctx, const tsr_kernel_args& a, int key, const Lapack<T>& L, const T* A, const T* tau,
                       T* Q, int64_t m, int64_t n, int64_t c) {
  const int im = static_cast<int>(m), ik = static_cast<int>(std::min(m, n)), ic = static_cast<int>(c);
  int lwork_block = 0;
  {
    T q = 0, dummy = 0;
    const int minus1 = -1;
    int status = 0;
    L.ormqr("L", "N", &im, &ic, &ik, &dummy, &im, &dummy, &dummy, &im, &q, &minus1, &status, 1, 1);
    lwork_block = work_size(q);
  }
  for_each_block(ctx, c, [&](int64_t c0, int64_t c1) {
    for (int64_t j = c0; j < c1; ++j) {
      std::fill(Q + j * m, Q + (j + 1) * m, T(0));
      Q[j + j * m] = T(1);
    }
    const Reflectors<T> r(ctx, A, m, n, tau, ik, sizeof(T) * lwork_block);
    const int cols = static_cast<int>(c1 - c0);
    int st = 0;
    L.ormqr("L", "N", &im, &cols, &ik, r.a, &im, r.tau, Q + c0 * m, &im, r.work(), &lwork_block, &st, 1, 1);
    check_status(a, key, st);
  });
}

// EIGH of a large matrix with its vectors, as syevd: scale into range,
// sytrd, stedc, then ormtr over column blocks of the eigenvectors. A (n x
// n, column-major, lower triangle read) is consumed; w gets the
// eigenvalues, Z the vectors. Returns stedc's info.
template <class T> int eigh_composed(Context& ctx, const tsr_kernel_args& a, int key, const Lapack<T>& L, T* A, T* w,
                                    T* Z, int64_t n) {
  const int in_ = static_cast<int>(n);
  const T smlnum = kSafeMin<T> / kEps<T>, rmin = std::sqrt(smlnum), rmax = std::sqrt(T(1) / smlnum);
  const T anrm = max_abs(A, n, n, n, true);
  T sigma = 1;
  if (anrm > 0 && anrm < rmin) sigma = rmin / anrm;
  else if (anrm > rmax) sigma = rmax / anrm;
  if (sigma != 1) scale(A, n, n, n, sigma, true);
  int status = 0, lwork = 0, liwork = 0;
  {
    T q1 = 0, q2 = 0, dummy = 0;
    int iq = 0;
    const int minus1 = -1;
    L.sytrd("L", &in_, &dummy, &in_, &dummy, &dummy, &dummy, &q1, &minus1, &status, 1);
    L.stedc("I", &in_, &dummy, &dummy, &dummy, &in_, &q2, &minus1, &iq, &minus1, &status, 1);
    lwork = std::max(work_size(q1), work_size(q2));
    liwork = std::max(1, iq);
  }
  Workspace space(ctx, {sizeof(T) * n, sizeof(T) * n, sizeof(T) * lwork, sizeof(int) * liwork});
  T *e = space.array<T>(0), *tau = space.array<T>(1), *work = space.array<T>(2);
  L.sytrd("L", &in_, A, &in_, w, e, tau, work, &lwork, &status, 1);
  check_status(a, key, status);
  L.stedc("I", &in_, w, e, Z, &in_, work, &lwork, space.array<int>(3), &liwork, &status, 1);
  check_status(a, key, status);
  if (status > 0) return status;
  int lwork_block = 0;
  {
    T q = 0, dummy = 0;
    const int minus1 = -1;
    int st = 0;
    L.ormtr("L", "L", "N", &in_, &in_, &dummy, &in_, &dummy, &dummy, &in_, &q, &minus1, &st, 1, 1, 1);
    lwork_block = work_size(q);
  }
  for_each_block(ctx, n, [&](int64_t c0, int64_t c1) {
    const Reflectors<T> r(ctx, A, n, n, tau, n, sizeof(T) * lwork_block);
    const int cols = static_cast<int>(c1 - c0);
    int st = 0;
    L.ormtr("L", "L", "N", &in_, &cols, r.a, &in_, r.tau, Z + c0 * n, &in_, r.work(), &lwork_block, &st, 1, 1, 1);
    check_status(a, key, st);
  });
  if (sigma != 1)
    for (int64_t i = 0; i < n; ++i) w[i] /= sigma;
  return 0;
}

// SVD with vectors of a large m x n matrix, m >= n but under gesdd's
// threshold for a QR first (m < 11 n / 6), as gesdd's path 5: scale into
// range, gebrd, bdsdc, then ormbr over column blocks of U and row blocks
// of V^T. X (column-major, ld m) is consumed; U is m x uc (uc = m for full
// matrices, else n; ld m), VT n x n (ld n). Returns bdsdc's info.
template <class T> int svd_composed(Context& ctx, const tsr_kernel_args& a, int key, const Lapack<T>& L, T* X, T* S,
                                   T* U, T* VT, int64_t m, int64_t n, int64_t uc) {
  const int im = static_cast<int>(m), in_ = static_cast<int>(n);
  const T smlnum = std::sqrt(kSafeMin<T>) / kEps<T>, bignum = T(1) / smlnum;
  const T anrm = max_abs(X, m, n, m);
  T to = 0;  // the norm scaled to, when scaled
  if (anrm > 0 && anrm < smlnum) to = smlnum;
  else if (anrm > bignum) to = bignum;
  if (to != 0) scale(X, m, n, m, to / anrm);
  int status = 0, lwork = 0;
  {
    T q = 0, dummy = 0;
    const int minus1 = -1;
    L.gebrd(&im, &in_, &dummy, &im, &dummy, &dummy, &dummy, &dummy, &q, &minus1, &status);
    lwork = work_size(q);
  }
  Workspace space(ctx, {sizeof(T) * n, sizeof(T) * n, sizeof(T) * n,
                        sizeof(T) * std::max<int64_t>(lwork, 3 * n * n + 4 * n), sizeof(int) * 8 * n});
  T *e = space.array<T>(0), *tauq = space.array<T>(1), *taup = space.array<T>(2), *work = space.array<T>(3);
  L.gebrd(&im, &in_, X, &im, S, e, tauq, taup, work, &lwork, &status);
  check_status(a, key, status);
  // bdsdc writes the n x n top of U; U's other rows and columns are set
  // below, block by block, before ormbr reads them.
  L.bdsdc("U", "I", &in_, S, e, U, &im, VT, &in_, nullptr, nullptr, work, space.array<int>(4), &status, 1, 1);
  check_status(a, key, status);
  if (status > 0) return status;
  const int iuc = static_cast<int>(uc);
  int lwork_q = 0, lwork_p = 0;
  {
    T q = 0, dummy = 0;
    const int minus1 = -1;
    int st = 0;
    L.ormbr("Q", "L", "N", &im, &iuc, &in_, &dummy, &im, &dummy, &dummy, &im, &q, &minus1, &st, 1, 1, 1);
    lwork_q = work_size(q);
    L.ormbr("P", "R", "T", &in_, &in_, &im, &dummy, &im, &dummy, &dummy, &in_, &q, &minus1, &st, 1, 1, 1);
    lwork_p = work_size(q);
  }
  for_each_block(ctx, uc, [&](int64_t c0, int64_t c1) {
    for (int64_t j = c0; j < c1; ++j) {
      T* col = U + j * m;
      if (j < n) {
        std::fill(col + n, col + m, T(0));
      } else {
        std::fill(col, col + m, T(0));
        col[j] = T(1);
      }
    }
    const Reflectors<T> r(ctx, X, m, n, tauq, n, sizeof(T) * lwork_q);
    const int cols = static_cast<int>(c1 - c0);
    int st = 0;
    L.ormbr("Q", "L", "N", &im, &cols, &in_, r.a, &im, r.tau, U + c0 * m, &im, r.work(), &lwork_q, &st, 1, 1, 1);
    check_status(a, key, st);
  });
  for_each_block(ctx, n, [&](int64_t r0, int64_t r1) {
    const Reflectors<T> r(ctx, X, m, n, taup, n, sizeof(T) * lwork_p);
    const int rows = static_cast<int>(r1 - r0);
    int st = 0;
    L.ormbr("P", "R", "T", &rows, &in_, &im, r.a, &im, r.tau, VT + r0, &in_, r.work(), &lwork_p, &st, 1, 1, 1);
    check_status(a, key, st);
  });
  if (to != 0) scale(S, n, 1, n, anrm / to);
  return 0;
}

template <int Op, int D> struct LinalgKernel {
  using T = compute_t<D>;
  using R = real_t<T>;  // SVD's S and EIGH's w (Note [Kernel contracts], kind LINALG)
  static constexpr bool kComplex = is_complex_v<D>;
  static constexpr int kParams = Op == TSR_OP_SVD ? 2 : (Op == TSR_OP_CHOLESKY || Op == TSR_OP_QR || Op == TSR_OP_EIGH || Op == TSR_OP_EIG) ? 1 : 0;
  static constexpr int kInputs = Op == TSR_OP_SOLVE ? 2 : 1;

  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, kInputs, 0, kParams);
    const Lapack<T>& L = lapack<T>();
    if (!L.problem.empty()) fail(TSR_ERR_LOAD, where(a, D) + "LAPACK is unavailable: " + L.problem);
    const tsr_tensor_desc& in = *a.inputs[0];
    const tsr_tensor_desc& out = *a.output;
    const int nb = in.ndim - 2;
    if (nb < 0) fail(TSR_ERR_SHAPE, where(a, D) + "the input has fewer than 2 dims");
    const int64_t m = in.shape[nb], n = in.shape[nb + 1], k = std::min(m, n);
    int64_t count = 1;
    for (int i = 0; i < nb; ++i) count *= in.shape[i];
    // Every matrix a call reaches has at most max(m, n)^2 elements (Q, U, Vh).
    const int im = lapack_int(a, D, m, std::max(m, n)), in_ = lapack_int(a, D, n, std::max(m, n));
    const int ik = static_cast<int>(k);
    auto input_shape = [&](const tsr_tensor_desc& d, std::initializer_list<int64_t> dims, const char* what) {
      backend::check_linalg_shape("cpu_tbb", a, D, d, D, nb, dims, what);
    };
    auto more = [&](int count_) { backend::check_more_outputs("cpu_tbb", a, D, count_, TSR_DEVICE_CPU); };
    auto info_of = [&](int i) -> const tsr_tensor_desc& {
      const tsr_tensor_desc& d = *a.more_outputs[i];
      backend::check_linalg_shape("cpu_tbb", a, D, d, TSR_INT32, nb, {}, "info");
      return d;
    };
    // OpenBLAS on one thread (Note [Serial BLAS]) for a composed QR, and for
    // any SVD of a large matrix: gesdd alone (singular values only, or a
    // tall matrix it first reduces by QR) gained 20 % at 512 x 512 and 24 %
    // at 1024 x 256 from gebrd on one thread. (A composed EIGH holds it
    // below; syevd alone did not gain: its sytrd at n = 1024 lost 12 %.)
    // The complex gesdd keeps OpenBLAS's threads: at 512 x 512 complex128
    // it took 127-133 ms with them and 141-146 ms on one (2026-12-02).
    std::optional<SerialBlas> serial;
    if constexpr (Op == TSR_OP_SVD && !kComplex)
      if (std::max(m, n) > 128) serial.emplace();
    if constexpr (Op == TSR_OP_QR && !kComplex)
      if (composed(ctx, k)) serial.emplace();
    if constexpr (Op == TSR_OP_CHOLESKY) {
      more(1);
      const bool upper = a.params[0] != 0;
      if (m != n) fail(TSR_ERR_SHAPE, where(a, D) + "the input is not square");
      input_shape(out, {n, n}, "output");
      const tsr_tensor_desc& info = info_of(0);
      const char uplo = upper ? 'U' : 'L';
      for_each_matrix(ctx, count, n, [&](int64_t b0, int64_t b1) {
        Workspace w(ctx, {sizeof(T) * n * n});
        T* A = w.array<T>(0);
        for (int64_t b = b0; b < b1; ++b) {
          load_matrix(in, nb, b, A, n);
          int status = 0;
          L.potrf(&uplo, &in_, A, &in_, &status, 1);
          store_matrix(out, nb, b, A, n, [&](int64_t r, int64_t c) { return upper ? r <= c : r >= c; });
          store_info(a, D, info, nb, b, status);
        }
      }, kOpenBlasOwnMinParallelN);
    } else if constexpr (Op == TSR_OP_LU) {
      more(2);
      input_shape(out, {m, n}, "output");
      backend::check_linalg_shape("cpu_tbb", a, D, *a.more_outputs[0], TSR_INT32, nb, {k}, "pivots");
      const tsr_tensor_desc& info = info_of(1);
      for_each_matrix(ctx, count, std::max(m, n), [&](int64_t b0, int64_t b1) {
        Workspace w(ctx, {sizeof(T) * m * n, sizeof(int) * k});
        T* A = w.array<T>(0);
        int* pivots = w.array<int>(1);
        for (int64_t b = b0; b < b1; ++b) {
          load_matrix(in, nb, b, A, m);
          int status = 0;
          L.getrf(&im, &in_, A, &im, pivots, &status);
          store_matrix(out, nb, b, A, m);
          store_vector<int32_t>(*a.more_outputs[0], nb, b, pivots);
          store_info(a, D, info, nb, b, status);
        }
      }, kOpenBlasOwnMinParallelN);
    } else if constexpr (Op == TSR_OP_SOLVE) {
      more(1);
      const tsr_tensor_desc& rhs = *a.inputs[1];
      if (m != n) fail(TSR_ERR_SHAPE, where(a, D) + "A is not square");
      const int64_t nrhs = out.ndim == nb + 2 ? out.shape[nb + 1] : -1;
      input_shape(out, {n, nrhs}, "output");
      input_shape(rhs, {n, nrhs}, "B");
      const tsr_tensor_desc& info = info_of(0);
      const int ir = lapack_int(a, D, nrhs, n);
      for_each_matrix(ctx, count, n, [&](int64_t b0, int64_t b1) {
        Workspace w(ctx, {sizeof(T) * n * n, sizeof(T) * n * nrhs, sizeof(int) * n});
        T *A = w.array<T>(0), *B = w.array<T>(1);
        int* pivots = w.array<int>(2);
        for (int64_t b = b0; b < b1; ++b) {
          load_matrix(in, nb, b, A, n);
          load_matrix(rhs, nb, b, B, n);
          int status = 0;
          L.gesv(&in_, &ir, A, &in_, pivots, B, &in_, &status);
          store_matrix(out, nb, b, B, n);
          store_info(a, D, info, nb, b, status);
        }
      }, kOpenBlasOwnMinParallelN);
    } else if constexpr (Op == TSR_OP_INV) {
      more(1);
      if (m != n) fail(TSR_ERR_SHAPE, where(a, D) + "the input is not square");
      input_shape(out, {n, n}, "output");
      const tsr_tensor_desc& info = info_of(0);
      int lwork = 0;
      {
        T query = 0, dummy = 0;
        const int minus1 = -1;
        int status = 0, ipiv = 0;
        L.getri(&in_, &dummy, &in_, &ipiv, &query, &minus1, &status);
        lwork = work_size(query);
      }
      const tsr_tensor_desc in_t = transposed(in), out_t = transposed(out);
      const bool contiguous = backend::is_row_major(in);
      for_each_matrix(ctx, count, n, [&](int64_t b0, int64_t b1) {
        Workspace w(ctx, {sizeof(T) * n * n, sizeof(int) * n, sizeof(T) * lwork});
        T *A = w.array<T>(0), *work = w.array<T>(2);
        int* pivots = w.array<int>(1);
        for (int64_t b = b0; b < b1; ++b) {
          // inv(A)^T = inv(A^T), and a row-major A read column-major is A^T:
          // so the copies in and out keep their order (no transposing).
          // PyTorch 1.13 factors A^T too where a real A is contiguous, and
          // A otherwise (a complex A always): a singular matrix's info (the
          // zero diagonal element its message names) follows the same rule.
          load_matrix(in_t, nb, b, A, n);
          int status = 0;
          L.getrf(&in_, &in_, A, &in_, pivots, &status);
          if (status == 0) L.getri(&in_, A, &in_, pivots, work, &lwork, &status);
          if (status > 0 && (kComplex || !contiguous)) {  // singular: the info PyTorch reports (above)
            load_matrix(in, nb, b, A, n);
            status = 0;
            L.getrf(&in_, &in_, A, &in_, pivots, &status);
          }
          store_matrix(out_t, nb, b, A, n);
          store_info(a, D, info, nb, b, status);
        }
      }, kOpenBlasOwnMinParallelN);
    } else if constexpr (Op == TSR_OP_QR) {
      more(1);
      const bool complete = a.params[0] != 0;
      const int64_t c = complete ? m : k;
      const int ic = static_cast<int>(c);
      input_shape(out, {m, c}, "Q");
      input_shape(*a.more_outputs[0], {c, n}, "R");
      int lwork = 0;
      {
        T q1 = 0, q2 = 0, dummy = 0;
        const int minus1 = -1;
        int status = 0;
        L.geqrf(&im, &in_, &dummy, &im, &dummy, &q1, &minus1, &status);
        L.orgqr(&im, &ic, &ik, &dummy, &im, &dummy, &q2, &minus1, &status);
        lwork = std::max(work_size(q1), work_size(q2));
      }
      const bool compose = !kComplex && composed(ctx, k);
      for_each_matrix(ctx, count, std::max(m, n), [&](int64_t b0, int64_t b1) {
        Workspace w(ctx, {sizeof(T) * m * n, sizeof(T) * m * c, sizeof(T) * k, sizeof(T) * lwork});
        T *A = w.array<T>(0), *Q = w.array<T>(1), *tau = w.array<T>(2), *work = w.array<T>(3);
        for (int64_t b = b0; b < b1; ++b) {
          load_matrix(in, nb, b, A, m);
          int status = 0;
          if (compose) geqrf_in_panels(ctx, a, D, L, A, tau, m, n, work, lwork);  // real only
          else L.geqrf(&im, &in_, A, &im, tau, work, &lwork, &status);
          check_status(a, D, status);
          store_matrix(*a.more_outputs[0], nb, b, A, m, [](int64_t r, int64_t col) { return r <= col; });
          if constexpr (!kComplex) {
            if (compose) {
              q_from_reflectors(ctx, a, D, L, A, tau, Q, m, n, c);
              store_matrix(out, nb, b, Q, m);
              continue;
            }
          }
          // Q from the k reflectors below A's diagonal: its first min(n, c) columns.
          std::copy(A, A + m * std::min(n, c), Q);
          L.orgqr(&im, &ic, &ik, Q, &im, tau, work, &lwork, &status);
          check_status(a, D, status);
          store_matrix(out, nb, b, Q, m);
        }
      });
    } else if constexpr (Op == TSR_OP_SVD) {
      const bool vectors = a.params[0] != 0, full = vectors && a.params[1] != 0;
      more(vectors ? 3 : 1);
      backend::check_linalg_shape("cpu_tbb", a, D, out, tsr_dtype_real(D), nb, {k}, "S");
      const int64_t uc = full ? m : k, vr = full ? n : k;
      if (vectors) {
        input_shape(*a.more_outputs[0], {m, uc}, "U");
        input_shape(*a.more_outputs[1], {vr, n}, "Vh");
      }
      const tsr_tensor_desc& info = info_of(vectors ? 2 : 0);
      const int64_t big = std::max(m, n);
      if constexpr (!kComplex) {
        if (vectors && composed(ctx, k) && big < k * 11 / 6) {
          // Work on the tall one of A and A^T: A^T = V S U^T, so for a wide A
          // U^T's place is V^T's and V's is U's (as views, transposed).
          const bool wide = m < n;
          const tsr_tensor_desc x = wide ? transposed(in) : in;
          const tsr_tensor_desc u = wide ? transposed(*a.more_outputs[1]) : *a.more_outputs[0];
          const tsr_tensor_desc vt = wide ? transposed(*a.more_outputs[0]) : *a.more_outputs[1];
          const int64_t xuc = full ? big : k;
          Workspace w(ctx, {sizeof(T) * big * k, sizeof(T) * k, sizeof(T) * big * xuc, sizeof(T) * k * k});
          T *X = w.array<T>(0), *S = w.array<T>(1), *U = w.array<T>(2), *VT = w.array<T>(3);
          for (int64_t b = 0; b < count; ++b) {
            load_matrix(x, nb, b, X, big);
            const int status = svd_composed(ctx, a, D, L, X, S, U, VT, big, k, xuc);
            store_vector<T>(out, nb, b, S);
            store_matrix(u, nb, b, U, big);
            store_matrix(vt, nb, b, VT, k);
            store_info(a, D, info, nb, b, status);
          }
          return;
        }
      }
      const char jobz = !vectors ? 'N' : full ? 'A' : 'S';
      const int ldu = static_cast<int>(std::max<int64_t>(m, 1)), ldvt = static_cast<int>(std::max<int64_t>(vr, 1));
      // The complex gesdd's real work: LAPACK 3.12's bound for any path
      // (5 min(m, n) suffices with jobz 'N' from 3.7 on; older ones ask 7).
      const int64_t lrwork = !kComplex ? 1 : !vectors ? 7 * k : std::max(5 * k * k + 7 * k, 2 * big * k + 2 * k * k + k);
      int lwork = 0;
      {
        T query = 0, dummy = 0;
        R rdummy = 0;
        const int minus1 = -1;
        int status = 0, iwork = 0;
        if constexpr (kComplex)
          L.gesdd(&jobz, &im, &in_, &dummy, &im, &rdummy, &dummy, &ldu, &dummy, &ldvt, &query, &minus1, &rdummy, &iwork,
                  &status, 1);
        else
          L.gesdd(&jobz, &im, &in_, &dummy, &im, &rdummy, &dummy, &ldu, &dummy, &ldvt, &query, &minus1, &iwork, &status, 1);
        lwork = work_size(query);
      }
      for_each_matrix(ctx, count, std::max(m, n), [&](int64_t b0, int64_t b1) {
        Workspace w(ctx, {sizeof(T) * m * n, sizeof(R) * k, sizeof(T) * lwork, sizeof(T) * (vectors ? m * uc : 1),
                          sizeof(T) * (vectors ? vr * n : 1), sizeof(int) * 8 * k, sizeof(R) * lrwork});
        T *A = w.array<T>(0), *work = w.array<T>(2), *U = w.array<T>(3), *Vt = w.array<T>(4);
        R *S = w.array<R>(1), *rwork = w.array<R>(6);
        int* iwork = w.array<int>(5);
        for (int64_t b = b0; b < b1; ++b) {
          load_matrix(in, nb, b, A, m);
          int status = 0;
          if constexpr (kComplex)
            L.gesdd(&jobz, &im, &in_, A, &im, S, U, &ldu, Vt, &ldvt, work, &lwork, rwork, iwork, &status, 1);
          else
            L.gesdd(&jobz, &im, &in_, A, &im, S, U, &ldu, Vt, &ldvt, work, &lwork, iwork, &status, 1);
          store_vector<R>(out, nb, b, S);
          if (vectors) {
            store_matrix(*a.more_outputs[0], nb, b, U, m);
            store_matrix(*a.more_outputs[1], nb, b, Vt, vr);
          }
          store_info(a, D, info, nb, b, status);
        }
      });
    } else if constexpr (Op == TSR_OP_EIGH) {
      const bool vectors = a.params[0] != 0;
      more(vectors ? 2 : 1);
      if (m != n) fail(TSR_ERR_SHAPE, where(a, D) + "the input is not square");
      backend::check_linalg_shape("cpu_tbb", a, D, out, tsr_dtype_real(D), nb, {n}, "eigenvalues");
      if (vectors) input_shape(*a.more_outputs[0], {n, n}, "eigenvectors");
      const tsr_tensor_desc& info = info_of(vectors ? 1 : 0);
      if constexpr (!kComplex) {
        if (vectors && composed(ctx, n)) {
          SerialBlas serial;
          Workspace space(ctx, {sizeof(T) * n * n, sizeof(T) * n, sizeof(T) * n * n});
          T *A = space.array<T>(0), *w = space.array<T>(1), *Z = space.array<T>(2);
          for (int64_t b = 0; b < count; ++b) {
            load_matrix(in, nb, b, A, n);
            const int status = eigh_composed(ctx, a, D, L, A, w, Z, n);
            store_vector<T>(out, nb, b, w);
            store_matrix(*a.more_outputs[0], nb, b, Z, n);
            store_info(a, D, info, nb, b, status);
          }
          return;
        }
      }
      const char jobz = vectors ? 'V' : 'N', uplo = 'L';
      int lwork = 0, liwork = 0, lrwork = 1;
      {
        T query = 0, dummy = 0;
        R rquery = 0, rdummy = 0;
        int iquery = 0, status = 0;
        const int minus1 = -1;
        if constexpr (kComplex) {
          L.syevd(&jobz, &uplo, &in_, &dummy, &in_, &rdummy, &query, &minus1, &rquery, &minus1, &iquery, &minus1,
                  &status, 1, 1);
          lrwork = work_size(rquery);
        } else {
          L.syevd(&jobz, &uplo, &in_, &dummy, &in_, &rdummy, &query, &minus1, &iquery, &minus1, &status, 1, 1);
        }
        lwork = work_size(query);
        liwork = std::max(1, iquery);
      }
      for_each_matrix(ctx, count, n, [&](int64_t b0, int64_t b1) {
        Workspace space(ctx, {sizeof(T) * n * n, sizeof(R) * n, sizeof(T) * lwork, sizeof(int) * liwork,
                              sizeof(R) * lrwork});
        T *A = space.array<T>(0), *work = space.array<T>(2);
        R *w = space.array<R>(1), *rwork = space.array<R>(4);
        int* iwork = space.array<int>(3);
        for (int64_t b = b0; b < b1; ++b) {
          load_matrix(in, nb, b, A, n);
          int status = 0;
          if constexpr (kComplex)
            L.syevd(&jobz, &uplo, &in_, A, &in_, w, work, &lwork, rwork, &lrwork, iwork, &liwork, &status, 1, 1);
          else
            L.syevd(&jobz, &uplo, &in_, A, &in_, w, work, &lwork, iwork, &liwork, &status, 1, 1);
          store_vector<R>(out, nb, b, w);
          if (vectors) store_matrix(*a.more_outputs[0], nb, b, A, n);
          store_info(a, D, info, nb, b, status);
        }
      });
    } else if constexpr (Op == TSR_OP_EIG) {
      eig(ctx, a, L, in, out, nb, n, count, m == n);
    }
  }

  // EIG by geev (Note [Eigenvalues of a real matrix]): w and V complex (C),
  // whatever the key.
  static void eig(Context& ctx, const tsr_kernel_args& a, const Lapack<T>& L, const tsr_tensor_desc& in,
                  const tsr_tensor_desc& out, int nb, int64_t n, int64_t count, bool square) {
    constexpr int kOut = tsr_dtype_complex(D);
    using C = compute_t<kOut>;
    const bool vectors = a.params[0] != 0;
    backend::check_more_outputs("cpu_tbb", a, D, vectors ? 2 : 1, TSR_DEVICE_CPU);
    if (!square) fail(TSR_ERR_SHAPE, where(a, D) + "the input is not square");
    backend::check_linalg_shape("cpu_tbb", a, D, out, kOut, nb, {n}, "eigenvalues");
    if (vectors) backend::check_linalg_shape("cpu_tbb", a, D, *a.more_outputs[0], kOut, nb, {n, n}, "eigenvectors");
    const tsr_tensor_desc& info = *a.more_outputs[vectors ? 1 : 0];
    backend::check_linalg_shape("cpu_tbb", a, D, info, TSR_INT32, nb, {}, "info");
    const int in_ = lapack_int(a, D, n, n), one = 1;
    const char jobvl = 'N', jobvr = vectors ? 'V' : 'N';
    int lwork = 0;
    {
      T query = 0, dummy = 0;
      R rdummy = 0;
      const int minus1 = -1;
      int status = 0;
      if constexpr (kComplex)
        L.geev(&jobvl, &jobvr, &in_, &dummy, &in_, &dummy, &dummy, &one, &dummy, &in_, &query, &minus1, &rdummy, &status,
               1, 1);
      else
        L.geev(&jobvl, &jobvr, &in_, &dummy, &in_, &rdummy, &rdummy, &dummy, &one, &dummy, &in_, &query, &minus1, &status,
               1, 1);
      check_status(a, D, status);
      lwork = work_size(query);
    }
    const int64_t nv = vectors ? n * n : 1;
    for_each_matrix(ctx, count, n, [&](int64_t b0, int64_t b1) {
      // A, VR (geev's), wr and wi (real keys) or rwork (complex), work, and
      // the complex w and V written out.
      Workspace space(ctx, {sizeof(T) * n * n, sizeof(T) * nv, sizeof(R) * 2 * n, sizeof(T) * lwork, sizeof(C) * n,
                            sizeof(C) * nv});
      T *A = space.array<T>(0), *VR = space.array<T>(1), *work = space.array<T>(3);
      R* rw = space.array<R>(2);
      C *w = space.array<C>(4), *V = space.array<C>(5);
      for (int64_t b = b0; b < b1; ++b) {
        load_matrix(in, nb, b, A, n);
        int status = 0;
        if constexpr (kComplex) {
          L.geev(&jobvl, &jobvr, &in_, A, &in_, w, VR, &one, VR, &in_, work, &lwork, rw, &status, 1, 1);
          store_vector<C>(out, nb, b, w);
          if (vectors) store_matrix(*a.more_outputs[0], nb, b, VR, n);
        } else {
          R *wr = rw, *wi = rw + n;
          L.geev(&jobvl, &jobvr, &in_, A, &in_, wr, wi, VR, &one, VR, &in_, work, &lwork, &status, 1, 1);
          for (int64_t j = 0; j < n; ++j) w[j] = C(wr[j], wi[j]);
          store_vector<C>(out, nb, b, w);
          if (vectors) {
            real_pairs_to_complex(VR, wi, V, n);
            store_matrix(*a.more_outputs[0], nb, b, V, n);
          }
        }
        store_info(a, D, info, nb, b, status);
      }
    });
  }

  // Note [Eigenvalues of a real matrix]
  // A real matrix's geev returns its eigenvalues as wr + i wi, a complex
  // conjugate pair as two neighbours j, j + 1 with wi[j] > 0 first, and the
  // pair's eigenvectors as two real columns: v(j) = VR[:, j] + i VR[:, j+1]
  // and v(j+1) = VR[:, j] - i VR[:, j+1], already of 2-norm 1 together (and
  // largest component real) as LAPACK normalises them. The contract's
  // complex w and V are built from those, column by column.
  template <class C> static void real_pairs_to_complex(const T* VR, const R* wi, C* V, int64_t n) {
    for (int64_t j = 0; j < n; ++j) {
      const T* x = VR + j * n;
      C* v = V + j * n;
      if (wi[j] > 0 && j + 1 < n) {
        const T* y = x + n;
        for (int64_t r = 0; r < n; ++r) {
          v[r] = C(x[r], y[r]);
          v[r + n] = C(x[r], -y[r]);
        }
        ++j;
      } else {
        for (int64_t r = 0; r < n; ++r) v[r] = C(x[r], 0);
      }
    }
  }
};

}  // namespace

void add_linalg_kernels(KernelList& list) { add_kernels_of_kind<LinalgKernel, TSR_OP_KIND_LINALG>(list); }

}  // namespace tessera::cpu_tbb
