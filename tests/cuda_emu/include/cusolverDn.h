/* SPDX-License-Identifier: Apache-2.0 */
// cuSOLVER's dense routines as the CUDA backend calls them (linalg.cu),
// emulated on the host for cuda_emu.so over LAPACK (OpenBLAS's, whose
// thread settings it leaves to the process, as cpu_tbb does): potrf,
// potrfBatched, getrf, getrs, geqrf, orgqr, gesvd and syevd, float and
// double, and for complex matrices (cuComplex, cuDoubleComplex) the same
// with ungqr and heevd, with their _bufferSize queries; the batched Jacobi
// routines syevjBatched (heevjBatched) and gesvdjBatched over the same
// LAPACK routines, matrix by matrix, with their size limits (32); and the
// 64-bit API's cusolverDnXgeev (geev, with its device and host workspaces,
// left eigenvectors refused as cuSOLVER refuses them). Each call checks its arguments
// as cuSOLVER documents them (CUSOLVER_STATUS_INVALID_VALUE: a bad size or
// leading dimension, a workspace smaller than its query said, gesvd with
// m < n), then queues the routine on the handle's stream (Note [Emulated
// streams] in cuda_runtime.h), which writes *devInfo in "device" memory
// when it runs, as cuSOLVER does. Slow and plain: the point is the
// backend's packing, argument mapping and info handling.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cublas_v2.h"
#include "cuda_runtime.h"
#include "lapack_host.hpp"

enum cusolverStatus_t {
  CUSOLVER_STATUS_SUCCESS = 0,
  CUSOLVER_STATUS_NOT_INITIALIZED = 1,
  CUSOLVER_STATUS_ALLOC_FAILED = 2,
  CUSOLVER_STATUS_INVALID_VALUE = 3,
  CUSOLVER_STATUS_ARCH_MISMATCH = 4,
  CUSOLVER_STATUS_EXECUTION_FAILED = 6,
  CUSOLVER_STATUS_INTERNAL_ERROR = 7,
  CUSOLVER_STATUS_NOT_SUPPORTED = 9,
};
enum cusolverEigMode_t { CUSOLVER_EIG_MODE_NOVECTOR = 0, CUSOLVER_EIG_MODE_VECTOR = 1 };
struct cusolverDnContext {
  cudaStream_t stream;
};
typedef cusolverDnContext* cusolverDnHandle_t;
// The Jacobi routines' parameters: only the sort order is kept (LAPACK's
// results, which the stand-ins return, are sorted).
struct syevjInfo {
  int sort = 1;
};
typedef syevjInfo* syevjInfo_t;
struct gesvdjInfo : syevjInfo {};
typedef gesvdjInfo* gesvdjInfo_t;

namespace tessera_cuda_emu {

// The work sizes the queries report for potrf, getrf, geqrf and orgqr (real
// cuSOLVER's differ; the backend must allocate what the query says).
inline int panel_work(int n) { return std::max(1, n) * 64; }

inline bool bad_matrix(int m, int n, int lda) { return m < 0 || n < 0 || lda < std::max(1, m); }

// A _bufferSize query of potrf, getrf, geqrf or orgqr: the handle and the
// matrix checked, then panel_work(n).
inline cusolverStatus_t panel_query(const void* handle, bool bad, int n, int* lwork) {
  if (handle == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (bad || lwork == nullptr) return CUSOLVER_STATUS_INVALID_VALUE;
  *lwork = panel_work(n);
  return CUSOLVER_STATUS_SUCCESS;
}

// LAPACK's own optimal lwork (a query, lwork = -1) for gesvd and syevd
// (heevd for complex matrices: with its real workspace's size, lrwork).
template <class T> int gesvd_work(int m, int n) {
  using R = real_of_t<T>;
  T q = 0, dummy = 0;
  R rdummy = 0;
  int info = 0, minus1 = -1, ld = std::max(1, m), ldv = std::max(1, n);
  if constexpr (is_complex_v<T>)
    Lapack<T>::gesvd("A", "A", &m, &n, &dummy, &ld, &rdummy, &dummy, &ld, &dummy, &ldv, &q, &minus1, &rdummy, &info, 1, 1);
  else
    Lapack<T>::gesvd("A", "A", &m, &n, &dummy, &ld, &dummy, &dummy, &ld, &dummy, &ldv, &q, &minus1, &info, 1, 1);
  return std::max(1, static_cast<int>(std::real(q)));
}
template <class T> void syevd_work(char jobz, int n, int& lwork, int& liwork, int& lrwork) {
  using R = real_of_t<T>;
  T q = 0, dummy = 0;
  R rq = 0, rdummy = 0;
  int iq = 0, info = 0, minus1 = -1, ld = std::max(1, n);
  if constexpr (is_complex_v<T>)
    Lapack<T>::syevd(&jobz, "L", &n, &dummy, &ld, &rdummy, &q, &minus1, &rq, &minus1, &iq, &minus1, &info, 1, 1);
  else
    Lapack<T>::syevd(&jobz, "L", &n, &dummy, &ld, &dummy, &q, &minus1, &iq, &minus1, &info, 1, 1);
  lwork = std::max(1, static_cast<int>(std::real(q)));
  liwork = std::max(1, iq);
  lrwork = std::max(1, static_cast<int>(rq));
}
// The routines themselves, each with the workspaces LAPACK needs.
template <class T>
void lapack_gesvd(char ju, char jv, int m, int n, T* A, int lda, real_of_t<T>* S, T* U, int ldu, T* VT, int ldvt, int* info) {
  const int lw = gesvd_work<T>(m, n);
  std::vector<T> w(static_cast<size_t>(lw));
  if constexpr (is_complex_v<T>) {
    std::vector<real_of_t<T>> rw(static_cast<size_t>(std::max(1, 5 * std::min(m, n))));
    Lapack<T>::gesvd(&ju, &jv, &m, &n, A, &lda, S, U, &ldu, VT, &ldvt, w.data(), &lw, rw.data(), info, 1, 1);
  } else {
    Lapack<T>::gesvd(&ju, &jv, &m, &n, A, &lda, S, U, &ldu, VT, &ldvt, w.data(), &lw, info, 1, 1);
  }
}
template <class T> void lapack_syevd(char jz, char ul, int n, T* A, int lda, real_of_t<T>* W, int* info) {
  int lw = 0, liw = 0, lrw = 0;
  syevd_work<T>(jz, n, lw, liw, lrw);
  std::vector<T> w(static_cast<size_t>(lw));
  std::vector<int> iw(static_cast<size_t>(liw));
  if constexpr (is_complex_v<T>) {
    std::vector<real_of_t<T>> rw(static_cast<size_t>(lrw));
    Lapack<T>::syevd(&jz, &ul, &n, A, &lda, W, w.data(), &lw, rw.data(), &lrw, iw.data(), &liw, info, 1, 1);
  } else {
    Lapack<T>::syevd(&jz, &ul, &n, A, &lda, W, w.data(), &lw, iw.data(), &liw, info, 1, 1);
  }
}

}  // namespace tessera_cuda_emu

inline cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t* handle) {
  if (handle == nullptr) return CUSOLVER_STATUS_INVALID_VALUE;
  *handle = new cusolverDnContext{nullptr};
  return CUSOLVER_STATUS_SUCCESS;
}
inline cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle) {
  delete handle;
  return CUSOLVER_STATUS_SUCCESS;
}
inline cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t stream) {
  if (handle == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return CUSOLVER_STATUS_SUCCESS;
}
namespace tessera_cuda_emu {
template <class Info> cusolverStatus_t jacobi_create(Info** info) {
  if (info == nullptr) return CUSOLVER_STATUS_INVALID_VALUE;
  *info = new Info;
  return CUSOLVER_STATUS_SUCCESS;
}
template <class Info> cusolverStatus_t jacobi_destroy(Info* info) {
  delete info;
  return CUSOLVER_STATUS_SUCCESS;
}
template <class Info> cusolverStatus_t jacobi_sort(Info* info, int sort) {
  if (info == nullptr) return CUSOLVER_STATUS_INVALID_VALUE;
  info->sort = sort;
  return CUSOLVER_STATUS_SUCCESS;
}
}  // namespace tessera_cuda_emu
inline cusolverStatus_t cusolverDnCreateSyevjInfo(syevjInfo_t* info) { return tessera_cuda_emu::jacobi_create(info); }
inline cusolverStatus_t cusolverDnDestroySyevjInfo(syevjInfo_t info) { return tessera_cuda_emu::jacobi_destroy(info); }
inline cusolverStatus_t cusolverDnXsyevjSetSortEig(syevjInfo_t info, int sort) { return tessera_cuda_emu::jacobi_sort(info, sort); }
inline cusolverStatus_t cusolverDnCreateGesvdjInfo(gesvdjInfo_t* info) { return tessera_cuda_emu::jacobi_create(info); }
inline cusolverStatus_t cusolverDnDestroyGesvdjInfo(gesvdjInfo_t info) { return tessera_cuda_emu::jacobi_destroy(info); }
inline cusolverStatus_t cusolverDnXgesvdjSetSortEig(gesvdjInfo_t info, int sort) { return tessera_cuda_emu::jacobi_sort(info, sort); }

namespace tessera_cuda_emu {
// The batched Jacobi routines' limits (cuSOLVER: n <= 32 for syevjBatched,
// m, n <= 32 for gesvdjBatched), and an unsorted request, which the
// stand-ins (LAPACK, sorted) do not emulate.
inline bool bad_jacobi(const void* params, int m, int n, int lda, int batch, int sort) {
  return params == nullptr || m > 32 || n > 32 || bad_matrix(m, n, lda) || batch < 0 || sort == 0;
}
// One matrix of gesvdjBatched: A = U S V^H, U m x m and V n x n (V, not V^H).
template <class T>
void jacobi_svd(bool vectors, int m, int n, T* A, int lda, real_of_t<T>* S, T* U, int ldu, T* V, int ldv, int* info) {
  std::vector<T> vt(static_cast<size_t>(std::max(1, n * n)));
  const int ldvt = std::max(1, n);
  lapack_gesvd<T>(vectors ? 'A' : 'N', vectors ? 'A' : 'N', m, n, A, lda, S, U, ldu, vt.data(), ldvt, info);
  if (*info > 0) *info = std::min(m, n) + 1;  // cuSOLVER's "did not converge"
  if (!vectors) return;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      const T x = vt[static_cast<size_t>(c + r * ldvt)];  // V^H(c, r)
      if constexpr (is_complex_v<T>) V[r + static_cast<int64_t>(c) * ldv] = std::conj(x);
      else V[r + static_cast<int64_t>(c) * ldv] = x;
    }
}
}  // namespace tessera_cuda_emu

#define TSR_EMU_SOLVER(T, R, P, ORGQR, SYEVD, SYEVJ)                                                                                             \
  inline cusolverStatus_t cusolverDn##P##potrf_bufferSize(cusolverDnHandle_t h, cublasFillMode_t, int n, T*, int lda,  \
                                                          int* lwork) {                                                \
    using namespace tessera_cuda_emu;                                                                                  \
    return panel_query(h, bad_matrix(n, n, lda), n, lwork);                                                            \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T* A, int lda, T*,  \
                                               int lwork, int* info) {                                                 \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    if (bad_matrix(n, n, lda) || lwork < panel_work(n) || info == nullptr) return CUSOLVER_STATUS_INVALID_VALUE;       \
    enqueue(h->stream, [=] {                                                                                           \
      const char u = uplo == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L';                                                       \
      Lapack<T>::potrf(&u, &n, A, &lda, info, 1);                                                                      \
    });                                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##potrfBatched(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T* Aarray[], \
                                                      int lda, int* info, int batch) {                                 \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    if (bad_matrix(n, n, lda) || batch < 0 || Aarray == nullptr || info == nullptr) return CUSOLVER_STATUS_INVALID_VALUE;\
    enqueue(h->stream, [=] { /* the pointer array is read when the stream runs, as the GPU reads it */                 \
      const char u = uplo == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L';                                                       \
      for (int b = 0; b < batch; ++b) Lapack<T>::potrf(&u, &n, Aarray[b], &lda, info + b, 1);                          \
    });                                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##getrf_bufferSize(cusolverDnHandle_t h, int m, int n, T*, int lda,             \
                                                          int* lwork) {                                                \
    using namespace tessera_cuda_emu;                                                                                  \
    return panel_query(h, bad_matrix(m, n, lda), std::max(m, n), lwork);                                               \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##getrf(cusolverDnHandle_t h, int m, int n, T* A, int lda, T* work, int* ipiv,  \
                                               int* info) {                                                            \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    if (bad_matrix(m, n, lda) || work == nullptr || info == nullptr) return CUSOLVER_STATUS_INVALID_VALUE;             \
    enqueue(h->stream, [=] {                                                                                           \
      std::vector<int> piv(static_cast<size_t>(std::max(1, std::min(m, n))));                                          \
      Lapack<T>::getrf(&m, &n, A, &lda, ipiv != nullptr ? ipiv : piv.data(), info);                                    \
    });                                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##getrs(cusolverDnHandle_t h, cublasOperation_t trans, int n, int nrhs,         \
                                               const T* A, int lda, const int* ipiv, T* B, int ldb, int* info) {       \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    if (bad_matrix(n, n, lda) || nrhs < 0 || ldb < std::max(1, n) || ipiv == nullptr || info == nullptr)               \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    enqueue(h->stream, [=] {                                                                                           \
      const char t = trans == CUBLAS_OP_T ? 'T' : 'N';                                                                 \
      Lapack<T>::getrs(&t, &n, &nrhs, A, &lda, ipiv, B, &ldb, info, 1);                                                \
    });                                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##geqrf_bufferSize(cusolverDnHandle_t h, int m, int n, T*, int lda,             \
                                                          int* lwork) {                                                \
    using namespace tessera_cuda_emu;                                                                                  \
    return panel_query(h, bad_matrix(m, n, lda), n, lwork);                                                            \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##geqrf(cusolverDnHandle_t h, int m, int n, T* A, int lda, T* tau, T*,          \
                                               int lwork, int* info) {                                                 \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    if (bad_matrix(m, n, lda) || lwork < panel_work(n) || tau == nullptr || info == nullptr)                           \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    enqueue(h->stream, [=] {                                                                                           \
      const int lw = std::max(1, n) * 64;                                                                              \
      std::vector<T> w(static_cast<size_t>(lw));                                                                       \
      Lapack<T>::geqrf(&m, &n, A, &lda, tau, w.data(), &lw, info);                                                     \
    });                                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##ORGQR##_bufferSize(cusolverDnHandle_t h, int m, int n, int k, const T*, int lda, \
                                                          const T*, int* lwork) {                                      \
    using namespace tessera_cuda_emu;                                                                                  \
    return panel_query(h, bad_matrix(m, n, lda) || n > m || k < 0 || k > n, n, lwork);                                 \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##ORGQR(cusolverDnHandle_t h, int m, int n, int k, T* A, int lda, const T* tau,  \
                                               T*, int lwork, int* info) {                                             \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    if (bad_matrix(m, n, lda) || n > m || k < 0 || k > n || lwork < panel_work(n) || info == nullptr)                  \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    enqueue(h->stream, [=] {                                                                                           \
      const int lw = std::max(1, n) * 64;                                                                              \
      std::vector<T> w(static_cast<size_t>(lw));                                                                       \
      Lapack<T>::orgqr(&m, &n, &k, A, &lda, tau, w.data(), &lw, info);                                                 \
    });                                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##gesvd_bufferSize(cusolverDnHandle_t h, int m, int n, int* lwork) {            \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    if (m < n || n < 0 || lwork == nullptr) return CUSOLVER_STATUS_INVALID_VALUE;                                      \
    *lwork = tessera_cuda_emu::gesvd_work<T>(m, n);                                                                    \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##gesvd(cusolverDnHandle_t h, signed char jobu, signed char jobvt, int m, int n, \
                                               T* A, int lda, R* S, T* U, int ldu, T* VT, int ldvt, T*, int lwork, R*, \
                                               int* info) {                                                            \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    const bool vu = jobu == 'A' || jobu == 'S', vv = jobvt == 'A' || jobvt == 'S';                                     \
    if (m < n || bad_matrix(m, n, lda) || S == nullptr || info == nullptr || (vu && ldu < std::max(1, m)) ||           \
        (vv && ldvt < std::max(1, jobvt == 'A' ? n : std::min(m, n))) || lwork < gesvd_work<T>(m, n))                  \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    enqueue(h->stream, [=] {                                                                                           \
      lapack_gesvd<T>(static_cast<char>(jobu), static_cast<char>(jobvt), m, n, A, lda, S, U, ldu, VT, ldvt, info);    \
    });                                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##SYEVD##_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t jobz,                \
                                                          cublasFillMode_t, int n, const T*, int lda, const R*,        \
                                                          int* lwork) {                                                \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    if (bad_matrix(n, n, lda) || lwork == nullptr) return CUSOLVER_STATUS_INVALID_VALUE;                               \
    int liwork = 0, lrwork = 0;                                                                                        \
    tessera_cuda_emu::syevd_work<T>(jobz == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', n, *lwork, liwork, lrwork);          \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##SYEVD(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo,    \
                                               int n, T* A, int lda, R* W, T*, int lwork, int* info) {                 \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    const char jz = jobz == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N';                                                      \
    int need = 0, liwork = 0, lrwork = 0;                                                                              \
    syevd_work<T>(jz, n, need, liwork, lrwork);                                                                        \
    if (bad_matrix(n, n, lda) || W == nullptr || info == nullptr || lwork < need) return CUSOLVER_STATUS_INVALID_VALUE; \
    enqueue(h->stream, [=] {                                                                                           \
      lapack_syevd<T>(jz, uplo == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L', n, A, lda, W, info);                           \
    });                                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##SYEVJ##Batched_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t jobz,       \
      cublasFillMode_t, int n, const T*, int lda, const R*, int* lwork, syevjInfo_t params, int batch) {               \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    if (bad_jacobi(params, n, n, lda, batch, params != nullptr ? params->sort : 0) || lwork == nullptr)                \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    int liwork = 0, lrwork = 0;                                                                                        \
    syevd_work<T>(jobz == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', n, *lwork, liwork, lrwork);                            \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##SYEVJ##Batched(cusolverDnHandle_t h, cusolverEigMode_t jobz,                  \
      cublasFillMode_t uplo, int n, T* A, int lda, R* W, T*, int lwork, int* info, syevjInfo_t params, int batch) {    \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    const char jz = jobz == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N';                                                      \
    int need = 0, liwork = 0, lrwork = 0;                                                                              \
    syevd_work<T>(jz, n, need, liwork, lrwork);                                                                        \
    if (bad_jacobi(params, n, n, lda, batch, params != nullptr ? params->sort : 0) || W == nullptr || info == nullptr || \
        lwork < need)                                                                                                  \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    enqueue(h->stream, [=] {                                                                                           \
      for (int b = 0; b < batch; ++b) {                                                                                \
        lapack_syevd<T>(jz, uplo == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L', n, A + static_cast<int64_t>(b) * lda * n, lda, \
                        W + static_cast<int64_t>(b) * n, info + b);                                                    \
        if (info[b] > 0) info[b] = n + 1; /* cuSOLVER's "did not converge" */                                          \
      }                                                                                                                \
    });                                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##gesvdjBatched_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t, int m,      \
      int n, const T*, int lda, const R*, const T*, int ldu, const T*, int ldv, int* lwork, gesvdjInfo_t params,       \
      int batch) {                                                                                                     \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    if (bad_jacobi(params, m, n, lda, batch, params != nullptr ? params->sort : 0) || ldu < std::max(1, m) ||          \
        ldv < std::max(1, n) || lwork == nullptr)                                                                      \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    *lwork = panel_work(std::max(m, n));                                                                               \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##gesvdjBatched(cusolverDnHandle_t h, cusolverEigMode_t jobz, int m, int n,     \
      T* A, int lda, R* S, T* U, int ldu, T* V, int ldv, T*, int lwork, int* info, gesvdjInfo_t params, int batch) {   \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    const bool vectors = jobz == CUSOLVER_EIG_MODE_VECTOR;                                                             \
    if (bad_jacobi(params, m, n, lda, batch, params != nullptr ? params->sort : 0) || ldu < std::max(1, m) ||          \
        ldv < std::max(1, n) || S == nullptr || info == nullptr || (vectors && (U == nullptr || V == nullptr)) ||      \
        lwork < panel_work(std::max(m, n)))                                                                            \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    enqueue(h->stream, [=] {                                                                                           \
      const int k = std::min(m, n);                                                                                    \
      for (int b = 0; b < batch; ++b)                                                                                  \
        jacobi_svd<T>(vectors, m, n, A + static_cast<int64_t>(b) * lda * n, lda, S + static_cast<int64_t>(b) * k,      \
                      vectors ? U + static_cast<int64_t>(b) * ldu * m : U, ldu,                                        \
                      vectors ? V + static_cast<int64_t>(b) * ldv * n : V, ldv, info + b);                             \
    });                                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }
TSR_EMU_SOLVER(float, float, S, orgqr, syevd, syevj)
TSR_EMU_SOLVER(double, double, D, orgqr, syevd, syevj)
TSR_EMU_SOLVER(cuComplex, float, C, ungqr, heevd, heevj)
TSR_EMU_SOLVER(cuDoubleComplex, double, Z, ungqr, heevd, heevj)
#undef TSR_EMU_SOLVER

// ---- the 64-bit API: cusolverDnXgeev (EIG) ---------------------------------
// The parameters object of the 64-bit routines: nothing is kept (the
// stand-ins have one algorithm).
struct cusolverDnParams {};
typedef cusolverDnParams* cusolverDnParams_t;
inline cusolverStatus_t cusolverDnCreateParams(cusolverDnParams_t* params) {
  if (params == nullptr) return CUSOLVER_STATUS_INVALID_VALUE;
  *params = new cusolverDnParams;
  return CUSOLVER_STATUS_SUCCESS;
}
inline cusolverStatus_t cusolverDnDestroyParams(cusolverDnParams_t params) {
  delete params;
  return CUSOLVER_STATUS_SUCCESS;
}

namespace tessera_cuda_emu {
// Xgeev's workspaces: the device one holds LAPACK's work (its own optimal
// lwork, a query) and, for complex matrices, rwork (2n reals); the host one
// stands for the host workspace cuSOLVER's geev asks: written when the
// routine runs on the stream, so a caller that frees it before then is
// caught (AddressSanitizer).
template <class T> int geev_lwork(char jobvr, int n) {
  using R = real_of_t<T>;
  T q = 0, dummy = 0;
  R rdummy = 0;
  int info = 0, minus1 = -1, one = 1, ld = std::max(1, n);
  if constexpr (is_complex_v<T>)
    Lapack<T>::geev("N", &jobvr, &n, &dummy, &ld, &dummy, &dummy, &one, &dummy, &ld, &q, &minus1, &rdummy, &info, 1, 1);
  else
    Lapack<T>::geev("N", &jobvr, &n, &dummy, &ld, &rdummy, &rdummy, &dummy, &one, &dummy, &ld, &q, &minus1, &info, 1, 1);
  return std::max(1, static_cast<int>(std::real(q)));
}
template <class T> size_t geev_device_bytes(char jobvr, int n) {
  return sizeof(T) * static_cast<size_t>(geev_lwork<T>(jobvr, n)) +
         (is_complex_v<T> ? sizeof(real_of_t<T>) * 2 * static_cast<size_t>(std::max(1, n)) : 0);
}
inline size_t geev_host_bytes(int n) { return 64 * static_cast<size_t>(std::max(1, n)); }

// geev on one matrix: W is 2n reals (real parts, then imaginary parts) for
// a real A, n complex values for a complex one; work is the device workspace.
template <class T> void lapack_geev(char jobvr, int n, T* A, int lda, void* W, T* VR, int ldvr, void* work, int* info) {
  const int lwork = geev_lwork<T>(jobvr, n), one = 1;
  T dummy = 0;
  T* vr = VR != nullptr ? VR : &dummy;
  if constexpr (is_complex_v<T>) {
    auto* rwork = reinterpret_cast<real_of_t<T>*>(static_cast<T*>(work) + lwork);
    Lapack<T>::geev("N", &jobvr, &n, A, &lda, static_cast<T*>(W), &dummy, &one, vr, &ldvr, static_cast<T*>(work), &lwork,
                    rwork, info, 1, 1);
  } else {
    T* wr = static_cast<T*>(W);
    Lapack<T>::geev("N", &jobvr, &n, A, &lda, wr, wr + n, &dummy, &one, vr, &ldvr, static_cast<T*>(work), &lwork, info, 1, 1);
  }
}

// The element type of Xgeev's arguments, one of cuSOLVER's combinations
// (A, VL, VR and the compute type alike; W the same for a real A, as 2n
// reals): 'S', 'D', 'C', 'Z', or 0 for any other. cuSOLVER's other form
// for a real A, W complex, is not emulated (the backend does not use it).
inline char geev_type(cudaDataType_t a, cudaDataType_t w, cudaDataType_t vl, cudaDataType_t vr, cudaDataType_t c) {
  if (a != w || a != vl || a != vr || a != c) return 0;
  switch (a) {
    case CUDA_R_32F: return 'S';
    case CUDA_R_64F: return 'D';
    case CUDA_C_32F: return 'C';
    case CUDA_C_64F: return 'Z';
    default: return 0;
  }
}
template <class F> void with_geev_type(char t, F&& f) {
  switch (t) {
    case 'S': f(float{}); break;
    case 'D': f(double{}); break;
    case 'C': f(cuComplex{}); break;
    default: f(cuDoubleComplex{}); break;
  }
}
// What cuSOLVER refuses (CUSOLVER_STATUS_INVALID_VALUE): left eigenvectors
// (jobvl must be CUSOLVER_EIG_MODE_NOVECTOR), n < 0, lda < max(1, n),
// ldvl < 1, ldvr < 1 (< n with the vectors); sizes beyond LAPACK's int.
inline bool bad_geev(cusolverEigMode_t jobvl, cusolverEigMode_t jobvr, int64_t n, int64_t lda, int64_t ldvl, int64_t ldvr) {
  return jobvl != CUSOLVER_EIG_MODE_NOVECTOR || n < 0 || n > INT32_MAX || lda < std::max<int64_t>(1, n) ||
         lda > INT32_MAX || ldvl < 1 || ldvr < (jobvr == CUSOLVER_EIG_MODE_VECTOR ? std::max<int64_t>(1, n) : 1) ||
         ldvr > INT32_MAX;
}
}  // namespace tessera_cuda_emu

inline cusolverStatus_t cusolverDnXgeev_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, cusolverEigMode_t jobvl,
                                                   cusolverEigMode_t jobvr, int64_t n, cudaDataType_t dataTypeA,
                                                   const void*, int64_t lda, cudaDataType_t dataTypeW, const void*,
                                                   cudaDataType_t dataTypeVL, const void*, int64_t ldvl,
                                                   cudaDataType_t dataTypeVR, const void*, int64_t ldvr,
                                                   cudaDataType_t computeType, size_t* device_bytes, size_t* host_bytes) {
  using namespace tessera_cuda_emu;
  if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (params == nullptr || bad_geev(jobvl, jobvr, n, lda, ldvl, ldvr) || device_bytes == nullptr || host_bytes == nullptr)
    return CUSOLVER_STATUS_INVALID_VALUE;
  const char t = geev_type(dataTypeA, dataTypeW, dataTypeVL, dataTypeVR, computeType);
  if (t == 0) return CUSOLVER_STATUS_NOT_SUPPORTED;
  const char jv = jobvr == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N';
  with_geev_type(t, [&](auto x) { *device_bytes = geev_device_bytes<decltype(x)>(jv, static_cast<int>(n)); });
  *host_bytes = geev_host_bytes(static_cast<int>(n));
  return CUSOLVER_STATUS_SUCCESS;
}

inline cusolverStatus_t cusolverDnXgeev(cusolverDnHandle_t h, cusolverDnParams_t params, cusolverEigMode_t jobvl,
                                        cusolverEigMode_t jobvr, int64_t n, cudaDataType_t dataTypeA, void* A, int64_t lda,
                                        cudaDataType_t dataTypeW, void* W, cudaDataType_t dataTypeVL, void*, int64_t ldvl,
                                        cudaDataType_t dataTypeVR, void* VR, int64_t ldvr, cudaDataType_t computeType,
                                        void* device_work, size_t device_bytes, void* host_work, size_t host_bytes,
                                        int* info) {
  using namespace tessera_cuda_emu;
  if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
  const bool vectors = jobvr == CUSOLVER_EIG_MODE_VECTOR;
  if (params == nullptr || bad_geev(jobvl, jobvr, n, lda, ldvl, ldvr) || A == nullptr || W == nullptr || info == nullptr ||
      (vectors && VR == nullptr))
    return CUSOLVER_STATUS_INVALID_VALUE;
  const char t = geev_type(dataTypeA, dataTypeW, dataTypeVL, dataTypeVR, computeType);
  if (t == 0) return CUSOLVER_STATUS_NOT_SUPPORTED;
  const char jv = vectors ? 'V' : 'N';
  const int in = static_cast<int>(n), ilda = static_cast<int>(lda), ildvr = static_cast<int>(ldvr);
  size_t need = 0;
  with_geev_type(t, [&](auto x) { need = geev_device_bytes<decltype(x)>(jv, in); });
  if (device_work == nullptr || device_bytes < need || host_work == nullptr || host_bytes < geev_host_bytes(in))
    return CUSOLVER_STATUS_INVALID_VALUE;
  enqueue(h->stream, [=] {
    std::fill_n(static_cast<char*>(host_work), geev_host_bytes(in), char{0});
    with_geev_type(t, [&](auto x) {
      using T = decltype(x);
      lapack_geev<T>(jv, in, static_cast<T*>(A), ilda, W, static_cast<T*>(VR), ildvr, device_work, info);
    });
  });
  return CUSOLVER_STATUS_SUCCESS;
}
