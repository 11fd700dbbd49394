/* SPDX-License-Identifier: Apache-2.0 */
// cuBLAS as the CUDA backend uses it (one GEMM entry point), emulated on the
// host for cuda_emu.so: cublasGemmStridedBatchedEx per its documented
// contract — column-major operands, op N or T, the leading-dimension checks
// that make real cuBLAS answer CUBLAS_STATUS_INVALID_VALUE, float
// accumulation for float16/bfloat16/float32 (float32 inputs rounded to TF32
// under CUBLAS_COMPUTE_32F_FAST_TF32) and double for float64. Slow and plain:
// the point is the backend's argument mapping, not speed.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

#include "column_major_gemm.hpp"
#include "cuda_runtime.h"
#include "lapack_host.hpp"
#include "tessera/half.h"

// cuComplex.h's types: (real, imaginary) pairs of float and double.
typedef std::complex<float> cuComplex;
typedef std::complex<double> cuDoubleComplex;
enum cudaDataType_t { CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_C_32F = 4, CUDA_C_64F = 5, CUDA_R_16BF = 14 };

enum cublasStatus_t {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
};
enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
enum cublasFillMode_t { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1 };  // cuSOLVER's triangles (cusolverDn.h)
enum cublasComputeType_t { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_TF32 = 77, CUBLAS_COMPUTE_64F = 70 };
enum cublasGemmAlgo_t { CUBLAS_GEMM_DEFAULT = -1 };

struct cublasContext {
  cudaStream_t stream;
  void* workspace;
  size_t workspace_bytes;
};
typedef cublasContext* cublasHandle_t;

inline cublasStatus_t cublasCreate(cublasHandle_t* handle) {
  *handle = new cublasContext{nullptr, nullptr, 0};
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetWorkspace(cublasHandle_t handle, void* workspace, size_t bytes) {
  handle->workspace = workspace;
  handle->workspace_bytes = bytes;
  return CUBLAS_STATUS_SUCCESS;
}
inline const char* cublasGetStatusName(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}
inline const char* cublasGetStatusString(cublasStatus_t s) {
  return s == CUBLAS_STATUS_SUCCESS ? "success" : "emulated cuBLAS error";
}

namespace tessera_cuda_emu {

inline double gemm_load(cudaDataType_t t, const void* base, int64_t i) {
  switch (t) {
    case CUDA_R_32F: { float v; std::memcpy(&v, static_cast<const char*>(base) + i * 4, 4); return v; }
    case CUDA_R_64F: { double v; std::memcpy(&v, static_cast<const char*>(base) + i * 8, 8); return v; }
    case CUDA_R_16F: { uint16_t v; std::memcpy(&v, static_cast<const char*>(base) + i * 2, 2); return tsr_float16_to_float(v); }
    case CUDA_R_16BF: { uint16_t v; std::memcpy(&v, static_cast<const char*>(base) + i * 2, 2); return tsr_bfloat16_to_float(v); }
    default: break;  // complex: complex_gemm
  }
  return 0;
}
inline void gemm_store(cudaDataType_t t, void* base, int64_t i, double v) {
  char* p = static_cast<char*>(base);
  switch (t) {
    case CUDA_R_32F: { float x = static_cast<float>(v); std::memcpy(p + i * 4, &x, 4); break; }
    case CUDA_R_64F: std::memcpy(p + i * 8, &v, 8); break;
    case CUDA_R_16F: { uint16_t x = tsr_float_to_float16(static_cast<float>(v)); std::memcpy(p + i * 2, &x, 2); break; }
    case CUDA_R_16BF: { uint16_t x = tsr_float_to_bfloat16(static_cast<float>(v)); std::memcpy(p + i * 2, &x, 2); break; }
    default: break;  // complex: complex_gemm
  }
}
// CGEMM / ZGEMM (CUDA_C_32F with CUBLAS_COMPUTE_32F, CUDA_C_64F with
// CUBLAS_COMPUTE_64F): products and sums in the element type; alpha and beta
// host complex values of it.
template <class T>
void complex_gemm(const GemmShape& g, const void* alpha, const void* A, const void* B, const void* beta, void* C) {
  using Z = std::complex<T>;
  const Z al = *static_cast<const Z*>(alpha), be = *static_cast<const Z*>(beta);
  const Z* a = static_cast<const Z*>(A);
  const Z* b = static_cast<const Z*>(B);
  Z* c = static_cast<Z*>(C);
  column_major_gemm<Z>(g, [&](int64_t i) { return a[i]; }, [&](int64_t i) { return b[i]; },
                       [&](int64_t ci, Z acc) { c[ci] = be == Z(0) ? al * acc : al * acc + be * c[ci]; });
}
// TF32: float32 with its mantissa rounded to 10 bits (ties away, as the tensor cores).
inline float tf32(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  if ((b & 0x7F800000u) != 0x7F800000u) b = (b + 0x1000u) & 0xFFFFE000u;
  std::memcpy(&x, &b, 4);
  return x;
}

}  // namespace tessera_cuda_emu

inline cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                                 int n, int k, const void* alpha, const void* A, cudaDataType_t Atype, int lda,
                                                 long long strideA, const void* B, cudaDataType_t Btype, int ldb, long long strideB,
                                                 const void* beta, void* C, cudaDataType_t Ctype, int ldc, long long strideC,
                                                 int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t) {
  using namespace tessera_cuda_emu;
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  const GemmShape g{transa == CUBLAS_OP_T, transb == CUBLAS_OP_T, m, n, k, lda, ldb, ldc, strideA, strideB, strideC, batchCount};
  if (!gemm_valid(g)) return CUBLAS_STATUS_INVALID_VALUE;
  if (Atype != Btype || Atype != Ctype) return CUBLAS_STATUS_NOT_SUPPORTED;
  const bool f64 = computeType == CUBLAS_COMPUTE_64F, fast_tf32 = computeType == CUBLAS_COMPUTE_32F_FAST_TF32;
  if (f64 != (Ctype == CUDA_R_64F || Ctype == CUDA_C_64F) || (fast_tf32 && Ctype != CUDA_R_32F)) return CUBLAS_STATUS_NOT_SUPPORTED;
  if (Ctype == CUDA_C_32F || Ctype == CUDA_C_64F) {
    // alpha and beta are read now, as cuBLAS reads host scalars at the call.
    const std::complex<double> al = Ctype == CUDA_C_64F ? *static_cast<const std::complex<double>*>(alpha)
                                                        : std::complex<double>(*static_cast<const std::complex<float>*>(alpha));
    const std::complex<double> be = Ctype == CUDA_C_64F ? *static_cast<const std::complex<double>*>(beta)
                                                        : std::complex<double>(*static_cast<const std::complex<float>*>(beta));
    enqueue(handle->stream, [=] {
      if (Ctype == CUDA_C_64F) {
        complex_gemm<double>(g, &al, A, B, &be, C);
      } else {
        const std::complex<float> alf(al), bef(be);
        complex_gemm<float>(g, &alf, A, B, &bef, C);
      }
    });
    return CUBLAS_STATUS_SUCCESS;
  }
  // alpha and beta are host values of the compute type.
  const double al = f64 ? *static_cast<const double*>(alpha) : *static_cast<const float*>(alpha);
  const double be = f64 ? *static_cast<const double*>(beta) : *static_cast<const float*>(beta);
  // The arguments are checked now; the product runs in stream order on the
  // handle's stream (Note [Emulated streams] in cuda_runtime.h).
  enqueue(handle->stream, [=] {
    // beta == 0: C is not read (it may hold anything, NaN included), as in cuBLAS.
    auto store = [&](int64_t ci, double acc) { gemm_store(Ctype, C, ci, be == 0 ? al * acc : al * acc + be * gemm_load(Ctype, C, ci)); };
    if (f64) {
      column_major_gemm<double>(g, [&](int64_t i) { return gemm_load(Atype, A, i); }, [&](int64_t i) { return gemm_load(Btype, B, i); },
                                store);
    } else {
      // float inputs (TF32: their mantissas rounded to 10 bits), float products and sums.
      auto in = [&](const void* base, int64_t i) {
        const float x = static_cast<float>(gemm_load(Atype, base, i));
        return fast_tf32 ? tf32(x) : x;
      };
      column_major_gemm<float>(g, [&](int64_t i) { return in(A, i); }, [&](int64_t i) { return in(B, i); }, store);
    }
  });
  return CUBLAS_STATUS_SUCCESS;
}

// cuBLAS's batched LU for small matrices (getrfBatched, getriBatched,
// getrsBatched) over LAPACK, each matrix in turn when the stream runs: the
// device arrays of matrix pointers are read then, as the GPU reads them.
// Pivoting is always on (a NULL pivot array, cuBLAS's unpivoted LU, is not
// emulated: CUBLAS_STATUS_NOT_SUPPORTED).
#define TSR_EMU_BATCHED_LU(T, P)                                                                                       \
  inline cublasStatus_t cublas##P##getrfBatched(cublasHandle_t h, int n, T* const A[], int lda, int* piv, int* info,   \
                                                int batch) {                                                           \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;                                                            \
    if (n < 0 || lda < std::max(1, n) || batch < 0 || A == nullptr || info == nullptr) return CUBLAS_STATUS_INVALID_VALUE;\
    if (piv == nullptr) return CUBLAS_STATUS_NOT_SUPPORTED;                                                            \
    enqueue(h->stream, [=] {                                                                                           \
      for (int b = 0; b < batch; ++b) Lapack<T>::getrf(&n, &n, A[b], &lda, piv + static_cast<int64_t>(b) * n, info + b);\
    });                                                                                                                \
    return CUBLAS_STATUS_SUCCESS;                                                                                      \
  }                                                                                                                    \
  inline cublasStatus_t cublas##P##getriBatched(cublasHandle_t h, int n, const T* const A[], int lda, const int* piv,  \
                                                T* const C[], int ldc, int* info, int batch) {                         \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;                                                            \
    if (n < 0 || lda < std::max(1, n) || ldc < std::max(1, n) || batch < 0 || A == nullptr || C == nullptr ||          \
        piv == nullptr || info == nullptr)                                                                             \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    enqueue(h->stream, [=] { /* out of place: C = inv(A) from A's LU, A unchanged */                                   \
      const int lwork = std::max(1, n) * 64;                                                                           \
      std::vector<T> work(static_cast<size_t>(lwork));                                                                 \
      for (int b = 0; b < batch; ++b) {                                                                                \
        for (int c = 0; c < n; ++c)                                                                                    \
          for (int r = 0; r < n; ++r) C[b][r + static_cast<int64_t>(c) * ldc] = A[b][r + static_cast<int64_t>(c) * lda];\
        Lapack<T>::getri(&n, C[b], &ldc, piv + static_cast<int64_t>(b) * n, work.data(), &lwork, info + b);            \
      }                                                                                                                \
    });                                                                                                                \
    return CUBLAS_STATUS_SUCCESS;                                                                                      \
  }                                                                                                                    \
  inline cublasStatus_t cublas##P##getrsBatched(cublasHandle_t h, cublasOperation_t trans, int n, int nrhs,            \
                                                const T* const A[], int lda, const int* piv, T* const B[], int ldb,    \
                                                int* info, int batch) {                                                \
    using namespace tessera_cuda_emu;                                                                                  \
    if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;                                                            \
    if (info == nullptr) return CUBLAS_STATUS_INVALID_VALUE;                                                           \
    /* info is a host value: the first bad argument's position, negated (cuBLAS's rule) */                             \
    *info = n < 0 ? -3 : nrhs < 0 ? -4 : A == nullptr ? -5 : lda < std::max(1, n) ? -6 : piv == nullptr ? -7           \
          : B == nullptr ? -8 : ldb < std::max(1, n) ? -9 : batch < 0 ? -11 : 0;                                       \
    if (*info != 0) return CUBLAS_STATUS_INVALID_VALUE;                                                                \
    enqueue(h->stream, [=] {                                                                                           \
      const char t = trans == CUBLAS_OP_T ? 'T' : 'N';                                                                 \
      int status = 0;                                                                                                  \
      for (int b = 0; b < batch; ++b)                                                                                  \
        Lapack<T>::getrs(&t, &n, &nrhs, A[b], &lda, piv + static_cast<int64_t>(b) * n, B[b], &ldb, &status, 1);        \
    });                                                                                                                \
    return CUBLAS_STATUS_SUCCESS;                                                                                      \
  }
TSR_EMU_BATCHED_LU(float, S)
TSR_EMU_BATCHED_LU(double, D)
TSR_EMU_BATCHED_LU(cuComplex, C)
TSR_EMU_BATCHED_LU(cuDoubleComplex, Z)
#undef TSR_EMU_BATCHED_LU
