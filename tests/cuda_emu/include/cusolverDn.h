/* SPDX-License-Identifier: Apache-2.0 */
// cuSOLVER's dense routines as the CUDA backend calls them (linalg.cu),
// emulated on the host for cuda_emu.so over LAPACK (OpenBLAS's, whose
// thread settings it leaves to the process, as cpu_tbb does): potrf,
// potrfBatched, getrf, getrs, geqrf, orgqr, gesvd and syevd, float and
// double, with their _bufferSize queries. Each call checks its arguments
// as cuSOLVER documents them (CUSOLVER_STATUS_INVALID_VALUE: a bad size or
// leading dimension, a workspace smaller than its query said, gesvd with
// m < n), then queues the routine on the handle's stream (Note [Emulated
// streams] in cuda_runtime.h), which writes *devInfo in "device" memory
// when it runs, as cuSOLVER does. Slow and plain: the point is the
// backend's packing, argument mapping and info handling.
#pragma once

#include <algorithm>
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

// LAPACK's own optimal lwork (a query, lwork = -1) for gesvd and syevd.
template <class T> int gesvd_work(int m, int n) {
  T q = 0, dummy = 0;
  int info = 0, minus1 = -1, ld = std::max(1, m), ldv = std::max(1, n);
  Lapack<T>::gesvd("A", "A", &m, &n, &dummy, &ld, &dummy, &dummy, &ld, &dummy, &ldv, &q, &minus1, &info, 1, 1);
  return std::max(1, static_cast<int>(q));
}
template <class T> void syevd_work(char jobz, int n, int& lwork, int& liwork) {
  T q = 0, dummy = 0;
  int iq = 0, info = 0, minus1 = -1, ld = std::max(1, n);
  Lapack<T>::syevd(&jobz, "L", &n, &dummy, &ld, &dummy, &q, &minus1, &iq, &minus1, &info, 1, 1);
  lwork = std::max(1, static_cast<int>(q));
  liwork = std::max(1, iq);
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

#define TSR_EMU_SOLVER(T, P)                                                                                             \
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
  inline cusolverStatus_t cusolverDn##P##orgqr_bufferSize(cusolverDnHandle_t h, int m, int n, int k, const T*, int lda, \
                                                          const T*, int* lwork) {                                      \
    using namespace tessera_cuda_emu;                                                                                  \
    return panel_query(h, bad_matrix(m, n, lda) || n > m || k < 0 || k > n, n, lwork);                                 \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##orgqr(cusolverDnHandle_t h, int m, int n, int k, T* A, int lda, const T* tau,  \
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
                                               T* A, int lda, T* S, T* U, int ldu, T* VT, int ldvt, T*, int lwork, T*, \
                                               int* info) {                                                            \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    const bool vu = jobu == 'A' || jobu == 'S', vv = jobvt == 'A' || jobvt == 'S';                                     \
    if (m < n || bad_matrix(m, n, lda) || S == nullptr || info == nullptr || (vu && ldu < std::max(1, m)) ||           \
        (vv && ldvt < std::max(1, jobvt == 'A' ? n : std::min(m, n))) || lwork < gesvd_work<T>(m, n))                  \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    enqueue(h->stream, [=] {                                                                                           \
      const char ju = static_cast<char>(jobu), jv = static_cast<char>(jobvt);                                          \
      const int lw = lwork;                                                                                            \
      std::vector<T> w(static_cast<size_t>(lw));                                                                       \
      Lapack<T>::gesvd(&ju, &jv, &m, &n, A, &lda, S, U, &ldu, VT, &ldvt, w.data(), &lw, info, 1, 1);                   \
    });                                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##syevd_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t jobz,                \
                                                          cublasFillMode_t, int n, const T*, int lda, const T*,        \
                                                          int* lwork) {                                                \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    if (bad_matrix(n, n, lda) || lwork == nullptr) return CUSOLVER_STATUS_INVALID_VALUE;                               \
    int liwork = 0;                                                                                                    \
    tessera_cuda_emu::syevd_work<T>(jobz == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', n, *lwork, liwork);                  \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t cusolverDn##P##syevd(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo,    \
                                               int n, T* A, int lda, T* W, T*, int lwork, int* info) {                 \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                          \
    const char jz = jobz == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N';                                                      \
    int need = 0, liwork = 0;                                                                                          \
    syevd_work<T>(jz, n, need, liwork);                                                                                \
    if (bad_matrix(n, n, lda) || W == nullptr || info == nullptr || lwork < need) return CUSOLVER_STATUS_INVALID_VALUE; \
    enqueue(h->stream, [=] {                                                                                           \
      const char ul = uplo == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L';                                                      \
      std::vector<T> w(static_cast<size_t>(need));                                                                     \
      std::vector<int> iw(static_cast<size_t>(liwork));                                                                \
      Lapack<T>::syevd(&jz, &ul, &n, A, &lda, W, w.data(), &need, iw.data(), &liwork, info, 1, 1);                     \
    });                                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }
TSR_EMU_SOLVER(float, S)
TSR_EMU_SOLVER(double, D)
#undef TSR_EMU_SOLVER
