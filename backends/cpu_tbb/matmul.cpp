// SPDX-License-Identifier: Apache-2.0
// MATMUL: out[..., m, n] = sum_k a[..., m, k] * b[..., k, n], batch dims
// already broadcast (they may have stride 0). float32 / float64 go to
// OpenBLAS (opened on first use: Note [BLAS on first use]), or to small_gemm for products too small for it (Note [Small
// matrix products]); the other dtypes use a packed kernel accumulating in float
// (float16, bfloat16) or wrapping 64-bit integers (same result as PyTorch's
// wrapping native accumulation, since both are exact modulo 2^bits).
#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <cblas.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "blas_library.hpp"
#include "elementwise.hpp"
#include "kernels.hpp"
#include "small_gemm.hpp"

namespace tessera::cpu_tbb {

namespace {

// One matrix of one batch: element (r, c) at p[r * rs + c * cs].
template <class T> struct Mat {
  T* p;
  int64_t rows, cols, rs, cs;
};

struct Shapes {
  int64_t M, N, K, batches;
  int nb;  // batch dims
  const tsr_tensor_desc *a, *b, *out;
};

// Element offsets of batch t in a, b and out.
void batch_offsets(const Shapes& s, int64_t t, int64_t& oa, int64_t& ob, int64_t& oc) {
  oa = s.a->offset, ob = s.b->offset, oc = s.out->offset;
  for (int d = s.nb - 1; d >= 0; --d) {
    const int64_t i = t % s.out->shape[d];
    t /= s.out->shape[d];
    oa += i * s.a->strides[d];
    ob += i * s.b->strides[d];
    oc += i * s.out->strides[d];
  }
}

template <class T> Mat<T> matrix(const tsr_tensor_desc& d, T* base, int64_t off) {
  const int n = d.ndim;
  return {base + off, d.shape[n - 2], d.shape[n - 1], d.strides[n - 2], d.strides[n - 1]};
}

// ---- BLAS path ----------------------------------------------------------------

// How BLAS can read a matrix in place: row- or column-major with leading
// dimension ld; a size-1 dim's stride does not matter.
struct BlasLayout {
  bool col_major;
  int ld;
};

template <class T> std::optional<BlasLayout> blas_layout(const Mat<T>& m) {
  if (m.cols == 1 || m.cs == 1) {
    const int64_t ld = m.rows == 1 ? std::max<int64_t>(1, m.cols) : m.rs;
    if (ld >= std::max<int64_t>(1, m.cols) && ld <= INT_MAX) return BlasLayout{false, static_cast<int>(ld)};
  }
  if (m.rows == 1 || m.rs == 1) {
    const int64_t ld = m.cols == 1 ? std::max<int64_t>(1, m.rows) : m.cs;
    if (ld >= std::max<int64_t>(1, m.rows) && ld <= INT_MAX) return BlasLayout{true, static_cast<int>(ld)};
  }
  return std::nullopt;
}

// A row-major contiguous copy of m in `buffer`.
template <class T> Mat<const T> packed(const Mat<const T>& m, std::vector<T>& buffer) {
  buffer.resize(static_cast<size_t>(m.rows * m.cols));
  for (int64_t r = 0; r < m.rows; ++r)
    for (int64_t c = 0; c < m.cols; ++c) buffer[r * m.cols + c] = m.p[r * m.rs + c * m.cs];
  return {buffer.data(), m.rows, m.cols, m.cols, 1};
}

// Note [BLAS on first use] (blas_library.hpp): cblas_sgemm and cblas_dgemm
// are looked up once per process.
struct Blas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  decltype(&cblas_cgemm) cgemm = nullptr;  // complex64 and complex128 (Note [Complex dtypes])
  decltype(&cblas_zgemm) zgemm = nullptr;
  std::string problem;  // why it is unusable; empty when loaded
};

const Blas& blas() {
  static const Blas loaded = [] {
    Blas b;
    b.problem = blas_library().problem;
    if (!b.problem.empty()) return b;
    b.sgemm = blas_symbol<decltype(&cblas_sgemm)>("cblas_sgemm");
    b.dgemm = blas_symbol<decltype(&cblas_dgemm)>("cblas_dgemm");
    b.cgemm = blas_symbol<decltype(&cblas_cgemm)>("cblas_cgemm");
    b.zgemm = blas_symbol<decltype(&cblas_zgemm)>("cblas_zgemm");
    if (b.sgemm == nullptr || b.dgemm == nullptr || b.cgemm == nullptr || b.zgemm == nullptr)
      b.problem = std::string(TESSERA_BLAS_SONAME) + " has no cblas_sgemm/dgemm/cgemm/zgemm";
    return b;
  }();
  return loaded;
}

void gemm(CBLAS_ORDER o, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int M, int N, int K, const float* A, int lda,
          const float* B, int ldb, float* C, int ldc) {
  blas().sgemm(o, ta, tb, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
}
void gemm(CBLAS_ORDER o, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int M, int N, int K, const double* A, int lda,
          const double* B, int ldb, double* C, int ldc) {
  blas().dgemm(o, ta, tb, M, N, K, 1.0, A, lda, B, ldb, 0.0, C, ldc);
}
void gemm(CBLAS_ORDER o, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int M, int N, int K, const std::complex<float>* A,
          int lda, const std::complex<float>* B, int ldb, std::complex<float>* C, int ldc) {
  const std::complex<float> one(1), zero(0);
  blas().cgemm(o, ta, tb, M, N, K, &one, A, lda, B, ldb, &zero, C, ldc);
}
void gemm(CBLAS_ORDER o, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int M, int N, int K, const std::complex<double>* A,
          int lda, const std::complex<double>* B, int ldb, std::complex<double>* C, int ldc) {
  const std::complex<double> one(1), zero(0);
  blas().zgemm(o, ta, tb, M, N, K, &one, A, lda, B, ldb, &zero, C, ldc);
}

template <class T> void blas_matmul(Mat<const T> A, Mat<const T> B, Mat<T> C) {
  std::vector<T> abuf, bbuf, cbuf;
  auto la = blas_layout(A);
  if (!la) A = packed(A, abuf), la = blas_layout(A);
  auto lb = blas_layout(B);
  if (!lb) B = packed(B, bbuf), lb = blas_layout(B);
  auto lc = blas_layout(C);
  Mat<T> target = C;
  if (!lc) {
    cbuf.resize(static_cast<size_t>(C.rows * C.cols));
    target = {cbuf.data(), C.rows, C.cols, C.cols, 1};
    lc = blas_layout(target);
  }
  const bool cm = lc->col_major;
  auto trans = [cm](const BlasLayout& l) { return l.col_major == cm ? CblasNoTrans : CblasTrans; };
  gemm(cm ? CblasColMajor : CblasRowMajor, trans(*la), trans(*lb), static_cast<int>(C.rows), static_cast<int>(C.cols),
       static_cast<int>(A.cols), A.p, la->ld, B.p, lb->ld, target.p, lc->ld);
  if (target.p != C.p) {
    for (int64_t r = 0; r < C.rows; ++r)
      for (int64_t c = 0; c < C.cols; ++c) C.p[r * C.rs + c * C.cs] = target.p[r * C.cols + c];
  }
}

// ---- packed kernel for the other dtypes -----------------------------------------

template <class S>
using matmul_acc_t =
    std::conditional_t<std::is_integral_v<S>, uint64_t,
                       std::conditional_t<std::is_same_v<S, double> || is_complex_type_v<S>, S, float>>;

template <class S> matmul_acc_t<S> to_acc(S x) {
  if constexpr (std::is_integral_v<S>) return static_cast<uint64_t>(static_cast<int64_t>(x));
  else return static_cast<matmul_acc_t<S>>(load(x));
}
template <class S> S from_acc(matmul_acc_t<S> v) {
  if constexpr (std::is_integral_v<S>) return static_cast<S>(static_cast<int64_t>(v));
  else return store<S>(v);
}

// Rows [m0, m1) of C = A * B, with B already packed row-major (K x N) in Acc.
template <class S>
void packed_rows(const Mat<const S>& A, const matmul_acc_t<S>* bp, const Mat<S>& C, int64_t K, int64_t m0, int64_t m1) {
  using Acc = matmul_acc_t<S>;
  const int64_t N = C.cols;
  std::vector<Acc> row(static_cast<size_t>(N));
  for (int64_t m = m0; m < m1; ++m) {
    std::fill(row.begin(), row.end(), Acc(0));
    for (int64_t k = 0; k < K; ++k) {
      const Acc av = to_acc(A.p[m * A.rs + k * A.cs]);
      const Acc* brow = bp + k * N;
      for (int64_t n = 0; n < N; ++n) row[n] += av * brow[n];
    }
    for (int64_t n = 0; n < N; ++n) C.p[m * C.rs + n * C.cs] = from_acc<S>(row[n]);
  }
}

template <int Op, int D> struct MatmulKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 2, 0, 0);
    const tsr_tensor_desc& x = *a.inputs[0];
    const tsr_tensor_desc& y = *a.inputs[1];
    const tsr_tensor_desc& out = *a.output;
    for (const tsr_tensor_desc* d : {&x, &y, &out}) check_dtype(a, D, *d, D, d == &out ? "output" : "input");
    const int n = out.ndim;
    if (n < 2 || x.ndim != n || y.ndim != n) fail(TSR_ERR_SHAPE, where(a, D) + "operands need one ndim >= 2");
    Shapes s{out.shape[n - 2], out.shape[n - 1], x.shape[n - 1], 1, n - 2, &x, &y, &out};
    bool ok = x.shape[n - 2] == s.M && y.shape[n - 2] == s.K && y.shape[n - 1] == s.N;
    for (int d = 0; d < n - 2; ++d) {
      ok = ok && x.shape[d] == out.shape[d] && y.shape[d] == out.shape[d];
      s.batches *= out.shape[d];
    }
    if (!ok) fail(TSR_ERR_SHAPE, where(a, D) + "shapes do not match [..., M, K] x [..., K, N] -> [..., M, N]");
    if (s.batches == 0 || s.M == 0 || s.N == 0) return;
    using S = storage_t<D>;
    if (s.K == 0) {
      pointwise<S>(ctx, out, {}, [] { return convert<S>(0); });
      return;
    }
    const S* abase = static_cast<const S*>(x.data);
    const S* bbase = static_cast<const S*>(y.data);
    S* cbase = static_cast<S*>(out.data);
    const int64_t flops = s.M * s.N * s.K;

    if constexpr (D == TSR_FLOAT32 || D == TSR_FLOAT64 || is_complex_v<D>) {
      if (s.M <= INT_MAX && s.N <= INT_MAX && s.K <= INT_MAX) {
        const bool small = !is_complex_v<D> && small_gemm_fits(s.M, s.N, s.K);
        if (!small && !blas().problem.empty())  // Note [BLAS on first use]
          fail(TSR_ERR_LOAD, where(a, D) + "BLAS is unavailable: " + blas().problem);
        auto one = [&](int64_t t) {
          int64_t oa, ob, oc;
          batch_offsets(s, t, oa, ob, oc);
          const Mat<const S> A = matrix(x, abase, oa), B = matrix(y, bbase, ob);
          const Mat<S> C = matrix(out, cbase, oc);
          if constexpr (is_complex_v<D>) blas_matmul<S>(A, B, C);
          else if (small) small_gemm(s.M, s.N, s.K, A.p, A.rs, A.cs, B.p, B.rs, B.cs, C.p, C.rs, C.cs);
          else blas_matmul<S>(A, B, C);
        };
        // OpenBLAS runs a product this small on one thread; run batches side
        // by side instead. Larger products use OpenBLAS's own threads.
        if (s.batches > 1 && flops <= 262144 && ctx.threads > 1 && s.batches * flops >= kParallelThreshold) {
          ctx.parallel([&] {
            tbb::parallel_for(int64_t{0}, s.batches, [&](int64_t t) { one(t); });
          });
        } else {
          for (int64_t t = 0; t < s.batches; ++t) one(t);
        }
        return;
      }
    }
    using Acc = matmul_acc_t<S>;
    std::vector<Acc> bp(static_cast<size_t>(s.batches * s.K * s.N));
    for (int64_t t = 0; t < s.batches; ++t) {
      int64_t oa, ob, oc;
      batch_offsets(s, t, oa, ob, oc);
      const Mat<const S> B = matrix(y, bbase, ob);
      Acc* dst = bp.data() + t * s.K * s.N;
      for (int64_t k = 0; k < s.K; ++k)
        for (int64_t j = 0; j < s.N; ++j) dst[k * s.N + j] = to_acc(B.p[k * B.rs + j * B.cs]);
    }
    constexpr int64_t kRows = 16;
    const int64_t row_blocks = (s.M + kRows - 1) / kRows;
    auto body = [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        const int64_t t = i / row_blocks, rb = i % row_blocks;
        int64_t oa, ob, oc;
        batch_offsets(s, t, oa, ob, oc);
        packed_rows<S>(matrix(x, abase, oa), bp.data() + t * s.K * s.N, matrix(out, cbase, oc), s.K, rb * kRows,
                       std::min(s.M, (rb + 1) * kRows));
      }
    };
    const int64_t items = s.batches * row_blocks;
    if (ctx.threads > 1 && s.batches * flops >= kParallelThreshold && items > 1) {
      ctx.parallel([&] {
        tbb::parallel_for(tbb::blocked_range<int64_t>(0, items), [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
      });
    } else {
      body(0, items);
    }
  }
};

}  // namespace

void add_matmul_kernels(KernelList& list) { add_kernels<MatmulKernel, TSR_OP_MATMUL>(list); }

}  // namespace tessera::cpu_tbb
