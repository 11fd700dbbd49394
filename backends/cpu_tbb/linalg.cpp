// SPDX-License-Identifier: Apache-2.0
// The LINALG kind (Note [Kernel contracts]): CHOLESKY, LU, SOLVE, QR, SVD and
// EIGH through LAPACK's Fortran routines in OpenBLAS (Note [BLAS on first
// use]): potrf, getrf, gesv, geqrf + orgqr, gesdd and syevd. Each matrix is
// copied to a column-major buffer (operands may have any strides, a batch dim
// stride 0), factorised, and its results copied out through the outputs'
// strides. A batch of many small matrices runs in parallel, one matrix per
// task with its own buffers; one large matrix runs alone, and OpenBLAS
// threads it itself.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>
#include <vector>

#include "blas_library.hpp"
#include "kernels.hpp"
#include "parallel.hpp"

namespace tessera::cpu_tbb {

namespace {

// LAPACK's Fortran interface: arguments by pointer, and gfortran's hidden
// length of each character argument last.
template <class T> struct Lapack {
  using potrf_t = void (*)(const char*, const int*, T*, const int*, int*, size_t);
  using getrf_t = void (*)(const int*, const int*, T*, const int*, int*, int*);
  using gesv_t = void (*)(const int*, const int*, T*, const int*, int*, T*, const int*, int*);
  using geqrf_t = void (*)(const int*, const int*, T*, const int*, T*, T*, const int*, int*);
  using orgqr_t = void (*)(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*);
  using gesdd_t = void (*)(const char*, const int*, const int*, T*, const int*, T*, T*, const int*, T*, const int*, T*,
                           const int*, int*, int*, size_t);
  using syevd_t = void (*)(const char*, const char*, const int*, T*, const int*, T*, T*, const int*, int*, const int*,
                           int*, size_t, size_t);
  potrf_t potrf = nullptr;
  getrf_t getrf = nullptr;
  gesv_t gesv = nullptr;
  geqrf_t geqrf = nullptr;
  orgqr_t orgqr = nullptr;
  gesdd_t gesdd = nullptr;
  syevd_t syevd = nullptr;
  std::string problem;  // why LAPACK is unusable; empty when every routine was found
};

template <class T> const Lapack<T>& lapack() {
  static const Lapack<T> loaded = [] {
    Lapack<T> l;
    l.problem = blas_library().problem;
    if (!l.problem.empty()) return l;
    const char p = sizeof(T) == 4 ? 's' : 'd';
    auto find = [&](auto& fn, const char* name) {
      const std::string symbol = std::string(1, p) + name + "_";
      fn = blas_symbol<std::remove_reference_t<decltype(fn)>>(symbol.c_str());
      if (fn == nullptr && l.problem.empty()) l.problem = std::string(TESSERA_BLAS_SONAME) + " has no LAPACK routine " + symbol;
    };
    find(l.potrf, "potrf");
    find(l.getrf, "getrf");
    find(l.gesv, "gesv");
    find(l.geqrf, "geqrf");
    find(l.orgqr, "orgqr");
    find(l.gesdd, "gesdd");
    find(l.syevd, "syevd");
    return l;
  }();
  return loaded;
}

// LAPACK counts in int: a dim, and the elements of a matrix it indexes.
int lapack_int(const tsr_kernel_args& a, int key, int64_t rows, int64_t cols = 1) {
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

// Matrix b of d (its last two dims) into col, column-major with leading dim ld.
template <class T> void load_matrix(const tsr_tensor_desc& d, int nb, int64_t b, T* col, int64_t ld) {
  const T* p = static_cast<const T*>(d.data) + batch_offset(d, nb, b);
  const int64_t m = d.shape[nb], n = d.shape[nb + 1], rs = d.strides[nb], cs = d.strides[nb + 1];
  for (int64_t c = 0; c < n; ++c)
    for (int64_t r = 0; r < m; ++r) col[r + c * ld] = p[r * rs + c * cs];
}

// col (column-major, leading dim ld) into matrix b of d; below(r, c) elements
// of a triangle the contract zeroes are written as 0 where `keep` says no.
template <class T, class Keep> void store_matrix(const tsr_tensor_desc& d, int nb, int64_t b, const T* col, int64_t ld,
                                                 Keep keep) {
  T* p = static_cast<T*>(d.data) + batch_offset(d, nb, b);
  const int64_t m = d.shape[nb], n = d.shape[nb + 1], rs = d.strides[nb], cs = d.strides[nb + 1];
  for (int64_t c = 0; c < n; ++c)
    for (int64_t r = 0; r < m; ++r) p[r * rs + c * cs] = keep(r, c) ? col[r + c * ld] : T(0);
}
template <class T> void store_matrix(const tsr_tensor_desc& d, int nb, int64_t b, const T* col, int64_t ld) {
  store_matrix(d, nb, b, col, ld, [](int64_t, int64_t) { return true; });
}

// v[0, n) into vector b of d (its last dim), as type V.
template <class V, class T> void store_vector(const tsr_tensor_desc& d, int nb, int64_t b, const T* v) {
  V* p = static_cast<V*>(d.data) + batch_offset(d, nb, b);
  for (int64_t i = 0; i < d.shape[nb]; ++i) p[i * d.strides[nb]] = static_cast<V>(v[i]);
}

// LAPACK's info for matrix b; a negative one names a bad argument: our bug.
void store_info(const tsr_kernel_args& a, int key, const tsr_tensor_desc& info, int nb, int64_t b, int value) {
  if (value < 0)
    fail(TSR_ERR_INTERNAL, where(a, key) + "LAPACK rejected argument " + std::to_string(-value) + " (a kernel bug)");
  static_cast<int32_t*>(info.data)[batch_offset(info, nb, b)] = value;
}

// body(b) for each matrix of the batch: in parallel when there are several
// and each is small enough that LAPACK would not thread it (n^3 flops).
template <class F> void for_each_matrix(Context& ctx, int64_t count, int64_t n, F&& body) {
  const int64_t work = count * n * n * std::min<int64_t>(n, 64);
  const bool small = n <= 128;
  maybe_parallel(ctx, small ? count : 1, small ? work : 0, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < (small ? b1 : count); ++b) body(b);
  });
}

// The optimal work size LAPACK reports from a query (lwork = -1).
template <class T> int work_size(T query) { return std::max(1, static_cast<int>(query)); }

template <int Op, int D> struct LinalgKernel {
  using T = compute_t<D>;
  static constexpr int kParams = Op == TSR_OP_SVD ? 2 : (Op == TSR_OP_CHOLESKY || Op == TSR_OP_QR || Op == TSR_OP_EIGH) ? 1 : 0;
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
    if constexpr (Op == TSR_OP_CHOLESKY) {
      more(1);
      const bool upper = a.params[0] != 0;
      if (m != n) fail(TSR_ERR_SHAPE, where(a, D) + "the input is not square");
      input_shape(out, {n, n}, "output");
      const tsr_tensor_desc& info = info_of(0);
      const char uplo = upper ? 'U' : 'L';
      for_each_matrix(ctx, count, n, [&](int64_t b) {
        std::vector<T> A(static_cast<size_t>(n * n));
        load_matrix(in, nb, b, A.data(), n);
        int status = 0;
        L.potrf(&uplo, &in_, A.data(), &in_, &status, 1);
        store_matrix(out, nb, b, A.data(), n, [&](int64_t r, int64_t c) { return upper ? r <= c : r >= c; });
        store_info(a, D, info, nb, b, status);
      });
    } else if constexpr (Op == TSR_OP_LU) {
      more(2);
      input_shape(out, {m, n}, "output");
      backend::check_linalg_shape("cpu_tbb", a, D, *a.more_outputs[0], TSR_INT32, nb, {k}, "pivots");
      const tsr_tensor_desc& info = info_of(1);
      for_each_matrix(ctx, count, std::max(m, n), [&](int64_t b) {
        std::vector<T> A(static_cast<size_t>(m * n));
        std::vector<int> pivots(static_cast<size_t>(std::max<int64_t>(k, 1)));
        load_matrix(in, nb, b, A.data(), m);
        int status = 0;
        L.getrf(&im, &in_, A.data(), &im, pivots.data(), &status);
        store_matrix(out, nb, b, A.data(), m);
        store_vector<int32_t>(*a.more_outputs[0], nb, b, pivots.data());
        store_info(a, D, info, nb, b, status);
      });
    } else if constexpr (Op == TSR_OP_SOLVE) {
      more(1);
      const tsr_tensor_desc& rhs = *a.inputs[1];
      if (m != n) fail(TSR_ERR_SHAPE, where(a, D) + "A is not square");
      const int64_t nrhs = out.ndim == nb + 2 ? out.shape[nb + 1] : -1;
      input_shape(out, {n, nrhs}, "output");
      input_shape(rhs, {n, nrhs}, "B");
      const tsr_tensor_desc& info = info_of(0);
      const int ir = lapack_int(a, D, nrhs, n);
      for_each_matrix(ctx, count, n, [&](int64_t b) {
        std::vector<T> A(static_cast<size_t>(n * n)), B(static_cast<size_t>(n * nrhs));
        std::vector<int> pivots(static_cast<size_t>(n));
        load_matrix(in, nb, b, A.data(), n);
        load_matrix(rhs, nb, b, B.data(), n);
        int status = 0;
        L.gesv(&in_, &ir, A.data(), &in_, pivots.data(), B.data(), &in_, &status);
        store_matrix(out, nb, b, B.data(), n);
        store_info(a, D, info, nb, b, status);
      });
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
      for_each_matrix(ctx, count, std::max(m, n), [&](int64_t b) {
        std::vector<T> A(static_cast<size_t>(m * n)), Q(static_cast<size_t>(m * c)), tau(static_cast<size_t>(k)),
            work(static_cast<size_t>(lwork));
        load_matrix(in, nb, b, A.data(), m);
        int status = 0;
        L.geqrf(&im, &in_, A.data(), &im, tau.data(), work.data(), &lwork, &status);
        store_matrix(*a.more_outputs[0], nb, b, A.data(), m, [](int64_t r, int64_t col) { return r <= col; });
        // Q from the k reflectors below A's diagonal: its first min(n, c) columns.
        std::copy(A.begin(), A.begin() + m * std::min(n, c), Q.begin());
        L.orgqr(&im, &ic, &ik, Q.data(), &im, tau.data(), work.data(), &lwork, &status);
        if (status < 0) fail(TSR_ERR_INTERNAL, where(a, D) + "LAPACK rejected argument " + std::to_string(-status));
        store_matrix(out, nb, b, Q.data(), m);
      });
    } else if constexpr (Op == TSR_OP_SVD) {
      const bool vectors = a.params[0] != 0, full = vectors && a.params[1] != 0;
      more(vectors ? 3 : 1);
      input_shape(out, {k}, "S");
      const int64_t uc = full ? m : k, vr = full ? n : k;
      if (vectors) {
        input_shape(*a.more_outputs[0], {m, uc}, "U");
        input_shape(*a.more_outputs[1], {vr, n}, "Vh");
      }
      const tsr_tensor_desc& info = info_of(vectors ? 2 : 0);
      const char jobz = !vectors ? 'N' : full ? 'A' : 'S';
      const int ldu = static_cast<int>(std::max<int64_t>(m, 1)), ldvt = static_cast<int>(std::max<int64_t>(vr, 1));
      int lwork = 0;
      {
        T query = 0, dummy = 0;
        const int minus1 = -1;
        int status = 0, iwork = 0;
        L.gesdd(&jobz, &im, &in_, &dummy, &im, &dummy, &dummy, &ldu, &dummy, &ldvt, &query, &minus1, &iwork, &status, 1);
        lwork = work_size(query);
      }
      for_each_matrix(ctx, count, std::max(m, n), [&](int64_t b) {
        std::vector<T> A(static_cast<size_t>(m * n)), S(static_cast<size_t>(k)), work(static_cast<size_t>(lwork));
        std::vector<T> U(vectors ? static_cast<size_t>(m * uc) : 1), Vt(vectors ? static_cast<size_t>(vr * n) : 1);
        std::vector<int> iwork(static_cast<size_t>(8 * k));
        load_matrix(in, nb, b, A.data(), m);
        int status = 0;
        L.gesdd(&jobz, &im, &in_, A.data(), &im, S.data(), U.data(), &ldu, Vt.data(), &ldvt, work.data(), &lwork,
                iwork.data(), &status, 1);
        store_vector<T>(out, nb, b, S.data());
        if (vectors) {
          store_matrix(*a.more_outputs[0], nb, b, U.data(), m);
          store_matrix(*a.more_outputs[1], nb, b, Vt.data(), vr);
        }
        store_info(a, D, info, nb, b, status);
      });
    } else if constexpr (Op == TSR_OP_EIGH) {
      const bool vectors = a.params[0] != 0;
      more(vectors ? 2 : 1);
      if (m != n) fail(TSR_ERR_SHAPE, where(a, D) + "the input is not square");
      input_shape(out, {n}, "eigenvalues");
      if (vectors) input_shape(*a.more_outputs[0], {n, n}, "eigenvectors");
      const tsr_tensor_desc& info = info_of(vectors ? 1 : 0);
      const char jobz = vectors ? 'V' : 'N', uplo = 'L';
      int lwork = 0, liwork = 0;
      {
        T query = 0, dummy = 0;
        int iquery = 0, status = 0;
        const int minus1 = -1;
        L.syevd(&jobz, &uplo, &in_, &dummy, &in_, &dummy, &query, &minus1, &iquery, &minus1, &status, 1, 1);
        lwork = work_size(query);
        liwork = std::max(1, iquery);
      }
      for_each_matrix(ctx, count, n, [&](int64_t b) {
        std::vector<T> A(static_cast<size_t>(n * n)), w(static_cast<size_t>(n)), work(static_cast<size_t>(lwork));
        std::vector<int> iwork(static_cast<size_t>(liwork));
        load_matrix(in, nb, b, A.data(), n);
        int status = 0;
        L.syevd(&jobz, &uplo, &in_, A.data(), &in_, w.data(), work.data(), &lwork, iwork.data(), &liwork, &status, 1, 1);
        store_vector<T>(out, nb, b, w.data());
        if (vectors) store_matrix(*a.more_outputs[0], nb, b, A.data(), n);
        store_info(a, D, info, nb, b, status);
      });
    }
  }
};

}  // namespace

void add_linalg_kernels(KernelList& list) { add_kernels_of_kind<LinalgKernel, TSR_OP_KIND_LINALG>(list); }

}  // namespace tessera::cpu_tbb
