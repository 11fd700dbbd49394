// SPDX-License-Identifier: Apache-2.0
// The LINALG kind (Note [Kernel contracts] in tessera/ops.h, ABI 1.6) on
// cuSOLVER's dense routines, float32 and float64: CHOLESKY (potrf), LU
// (getrf), SOLVE (getrf + getrs), QR (geqrf + orgqr), SVD (gesvd, on A^T
// for a wide A: cuSOLVER's gesvd takes m >= n only), EIGH (syevd) and INV
// (getrf + getrs against the identity: cuSOLVER has no getri), and EIG
// (ABI 1.11: Xgeev, the 64-bit API of CUDA 12.6, with its host workspace;
// the call waits for the stream before that is freed). The CPU
// backend's linalg.cpp is the reference (`tessera conformance`).
//
// Each call packs the operands into column-major buffers from the caching
// allocator (copy_same_dtype: any input strides, a broadcast batch too),
// runs one cuSOLVER call per matrix on the call's stream, and copies the
// results out through the outputs' strides, triangles the contract zeroes
// masked first. Every cuSOLVER routine writes its info to device memory, so
// nothing waits for the GPU here: info reaches the host when the runtime
// reads it. Cost: the copies in and out move each matrix twice more (a
// 4096 x 4096 float64 matrix is 128 MiB: ~0.1 ms each at 3 TB/s against
// potrf's ~10 ms). A batch pays one call sequence per matrix, except a
// batch (or a matrix alone) of small ones where cuSOLVER or cuBLAS has a
// batched routine: CHOLESKY, SOLVE and INV up to 64 x 64 (kBatchedN below),
// EIGH and SVD up to 32 x 32 (the Jacobi routines, kJacobiN). QR has none that would help:
// cuBLAS's geqrfBatched factors, but forming Q (orgqr) has no batched form.
//
// Complex matrices run cuSOLVER's C and Z routines (ungqr and heevd where
// real ones take orgqr and syevd) and cuBLAS's batched C/Z LU: the same
// packing, with plain transposes (A^T's factors, as for real matrices, are
// A's transposed: (A^T)'s lower Cholesky factor is U^T, a wide A's SVD is
// A^T's with U and V^H swapped and transposed).
#include <cusolverDn.h>

#include <algorithm>
#include <climits>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "blas_handle.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"

namespace tessera::cuda {

namespace {

const char* solver_status_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "a cuSOLVER error";
  }
}

void check_solver(const Exec& ex, cusolverStatus_t s, const char* what) {
  if (s == CUSOLVER_STATUS_SUCCESS) return;
  fail(s == CUSOLVER_STATUS_ALLOC_FAILED ? TSR_ERR_OUT_OF_MEMORY : TSR_ERR_DEVICE,
       ex.where() + what + " failed (" + solver_status_name(s) + " " + std::to_string(static_cast<int>(s)) + ")");
}
#define TSR_SOLVER_CHECK(ex, call) check_solver((ex), (call), #call)

// The device's cuSOLVER handle, created on first use. Call with the device's
// solver_mutex held: a handle serves one thread at a time.
cusolverDnHandle_t solver_handle(const Exec& ex) {
  Device& dev = ex.dev;
  if (dev.solver == nullptr) {
    cusolverDnHandle_t h = nullptr;
    TSR_SOLVER_CHECK(ex, cusolverDnCreate(&h));
    dev.solver = h;
  }
  TSR_SOLVER_CHECK(ex, cusolverDnSetStream(dev.solver, ex.stream));
  return dev.solver;
}

// cuSOLVER's routines by storage type T: S for float, D for double, C and Z
// for complex64 and complex128, whose ComplexPair storage cuSOLVER reads as
// cuComplex and cuDoubleComplex (X: the same layout). R is the real type of
// singular values and eigenvalues; ungqr and heevd stand for orgqr and syevd
// (Q unitary, A Hermitian).
#define TSR_SOLVER_ROUTINES(T, X, R, P, ORGQR, SYEVD, SYEVJ)                                                                                   \
  cusolverStatus_t potrf_size(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a, int lda, int* lw) {          \
    return cusolverDn##P##potrf_bufferSize(h, u, n, reinterpret_cast<X*>(a), lda, lw);                                                    \
  }                                                                                                                 \
  cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a, int lda, T* w, int lw, int* info) { \
    return cusolverDn##P##potrf(h, u, n, reinterpret_cast<X*>(a), lda, reinterpret_cast<X*>(w), lw, info);                                                      \
  }                                                                                                                 \
  cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, T* a, int lda, int* lw) {                        \
    return cusolverDn##P##getrf_bufferSize(h, m, n, reinterpret_cast<X*>(a), lda, lw);                                                    \
  }                                                                                                                 \
  cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, T* a, int lda, T* w, int* ipiv, int* info) {          \
    return cusolverDn##P##getrf(h, m, n, reinterpret_cast<X*>(a), lda, reinterpret_cast<X*>(w), ipiv, info);                                                    \
  }                                                                                                                 \
  cusolverStatus_t getrs(cusolverDnHandle_t h, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb, \
                         int* info) {                                                                               \
    return cusolverDn##P##getrs(h, CUBLAS_OP_N, n, nrhs, reinterpret_cast<const X*>(a), lda, ipiv, reinterpret_cast<X*>(b), ldb, info);                               \
  }                                                                                                                 \
  cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, T* a, int lda, int* lw) {                        \
    return cusolverDn##P##geqrf_bufferSize(h, m, n, reinterpret_cast<X*>(a), lda, lw);                                                    \
  }                                                                                                                 \
  cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, T* a, int lda, T* tau, T* w, int lw, int* info) {     \
    return cusolverDn##P##geqrf(h, m, n, reinterpret_cast<X*>(a), lda, reinterpret_cast<X*>(tau), reinterpret_cast<X*>(w), lw, info);                                                 \
  }                                                                                                                 \
  cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int n, int k, const T* a, int lda, const T* tau,        \
                              int* lw) {                                                                            \
    return cusolverDn##P##ORGQR##_bufferSize(h, m, n, k, reinterpret_cast<const X*>(a), lda, reinterpret_cast<const X*>(tau), lw);                                            \
  }                                                                                                                 \
  cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, T* a, int lda, const T* tau, T* w, int lw,     \
                         int* info) {                                                                               \
    return cusolverDn##P##ORGQR(h, m, n, k, reinterpret_cast<X*>(a), lda, reinterpret_cast<const X*>(tau), reinterpret_cast<X*>(w), lw, info);                                              \
  }                                                                                                                 \
  cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, T*, int* lw) {                                   \
    return cusolverDn##P##gesvd_bufferSize(h, m, n, lw);                                                            \
  }                                                                                                                 \
  cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char ju, signed char jv, int m, int n, T* a, int lda, R* s,   \
                         T* u, int ldu, T* vt, int ldvt, T* w, int lw, R* rw, int* info) {                          \
    return cusolverDn##P##gesvd(h, ju, jv, m, n, reinterpret_cast<X*>(a), lda, s, reinterpret_cast<X*>(u), ldu, reinterpret_cast<X*>(vt), ldvt, reinterpret_cast<X*>(w), lw, rw, info);                     \
  }                                                                                                                 \
  cusolverStatus_t syevd_size(cusolverDnHandle_t h, cusolverEigMode_t j, int n, const T* a, int lda, const R* w,   \
                              int* lw) {                                                                            \
    return cusolverDn##P##SYEVD##_bufferSize(h, j, CUBLAS_FILL_MODE_LOWER, n, reinterpret_cast<const X*>(a), lda, w, lw);                         \
  }                                                                                                                 \
  cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t j, int n, T* a, int lda, R* w, T* work, int lw,   \
                         int* info) {                                                                               \
    return cusolverDn##P##SYEVD(h, j, CUBLAS_FILL_MODE_LOWER, n, reinterpret_cast<X*>(a), lda, w, reinterpret_cast<X*>(work), lw, info);                        \
  }                                                                                                                 \
  cusolverStatus_t potrf_batched(cusolverDnHandle_t h, int n, T** a, int lda, int* info, int batch) {              \
    return cusolverDn##P##potrfBatched(h, CUBLAS_FILL_MODE_LOWER, n, reinterpret_cast<X**>(a), lda, info, batch);                          \
  }                                                                                                                 \
  cublasStatus_t getrf_batched(cublasHandle_t h, int n, T** a, int lda, int* ipiv, int* info, int batch) {         \
    return cublas##P##getrfBatched(h, n, reinterpret_cast<X**>(a), lda, ipiv, info, batch);                                                \
  }                                                                                                                 \
  cublasStatus_t getri_batched(cublasHandle_t h, int n, T** a, int lda, const int* ipiv, T** c, int ldc, int* info, \
                               int batch) {                                                                         \
    return cublas##P##getriBatched(h, n, reinterpret_cast<X**>(a), lda, ipiv, reinterpret_cast<X**>(c), ldc, info, batch);                                        \
  }                                                                                                                 \
  cusolverStatus_t syevj_batched_size(cusolverDnHandle_t h, cusolverEigMode_t j, int n, const T* a, int lda,      \
                                      const R* w, int* lw, syevjInfo_t p, int batch) {                              \
    return cusolverDn##P##SYEVJ##Batched_bufferSize(h, j, CUBLAS_FILL_MODE_LOWER, n, reinterpret_cast<const X*>(a), \
                                                    lda, w, lw, p, batch);                                          \
  }                                                                                                                 \
  cusolverStatus_t syevj_batched(cusolverDnHandle_t h, cusolverEigMode_t j, int n, T* a, int lda, R* w, T* work,   \
                                 int lw, int* info, syevjInfo_t p, int batch) {                                     \
    return cusolverDn##P##SYEVJ##Batched(h, j, CUBLAS_FILL_MODE_LOWER, n, reinterpret_cast<X*>(a), lda, w,          \
                                         reinterpret_cast<X*>(work), lw, info, p, batch);                           \
  }                                                                                                                 \
  cusolverStatus_t gesvdj_batched_size(cusolverDnHandle_t h, cusolverEigMode_t j, int m, int n, const T* a, int lda, \
                                       const R* s, const T* u, int ldu, const T* v, int ldv, int* lw, gesvdjInfo_t p,  \
                                       int batch) {                                                                 \
    return cusolverDn##P##gesvdjBatched_bufferSize(h, j, m, n, reinterpret_cast<const X*>(a), lda, s,              \
                                                   reinterpret_cast<const X*>(u), ldu, reinterpret_cast<const X*>(v), \
                                                   ldv, lw, p, batch);                                              \
  }                                                                                                                 \
  cusolverStatus_t gesvdj_batched(cusolverDnHandle_t h, cusolverEigMode_t j, int m, int n, T* a, int lda, R* s,    \
                                  T* u, int ldu, T* v, int ldv, T* work, int lw, int* info, gesvdjInfo_t p,         \
                                  int batch) {                                                                      \
    return cusolverDn##P##gesvdjBatched(h, j, m, n, reinterpret_cast<X*>(a), lda, s, reinterpret_cast<X*>(u), ldu, \
                                        reinterpret_cast<X*>(v), ldv, reinterpret_cast<X*>(work), lw, info, p,      \
                                        batch);                                                                     \
  }                                                                                                                 \
  cublasStatus_t getrs_batched(cublasHandle_t h, int n, int nrhs, T** a, int lda, const int* ipiv, T** b, int ldb, \
                               int* info, int batch) {                                                              \
    return cublas##P##getrsBatched(h, CUBLAS_OP_N, n, nrhs, reinterpret_cast<X**>(a), lda, ipiv, reinterpret_cast<X**>(b), ldb, info, batch);                     \
  }
TSR_SOLVER_ROUTINES(float, float, float, S, orgqr, syevd, syevj)
TSR_SOLVER_ROUTINES(double, double, double, D, orgqr, syevd, syevj)
TSR_SOLVER_ROUTINES(ComplexPair<float>, cuComplex, float, C, ungqr, heevd, heevj)
TSR_SOLVER_ROUTINES(ComplexPair<double>, cuDoubleComplex, double, Z, ungqr, heevd, heevj)
#undef TSR_SOLVER_ROUTINES

// What a masking pass writes over a batch of column-major rows x cols
// matrices (back to back): keep the lower or upper triangle (zeroing the
// rest), or write the identity.
enum class Mask { KeepLower, KeepUpper, Identity };

template <class T> TSR_HD void mask_thread(T* a, uint64_t total, int64_t rows, int64_t cols, Mask mode, uint64_t i) {
  if (i >= total) return;
  const int64_t within = static_cast<int64_t>(i % static_cast<uint64_t>(rows * cols));
  const int64_t r = within % rows, c = within / rows;
  if (mode == Mask::Identity) a[i] = convert<T>(r == c ? 1 : 0);
  else if (mode == Mask::KeepLower ? r < c : r > c) a[i] = convert<T>(0);
}

#if defined(TSR_KERNELS)
template <class T>
__global__ void __launch_bounds__(kPointwiseBlock) mask_kernel(T* a, uint64_t total, int64_t rows, int64_t cols, Mask mode) {
  mask_thread(a, total, rows, cols, mode, static_cast<uint64_t>(blockIdx.x) * kPointwiseBlock + threadIdx.x);
}
#endif

template <class T> void mask(const Exec& ex, T* a, int64_t count, int64_t rows, int64_t cols, Mask mode) {
  const uint64_t total = static_cast<uint64_t>(count * rows * cols);
  if (total == 0) return;
  TSR_LAUNCH(blocks_for(total, "mask"), kPointwiseBlock, ex.stream, mask_kernel<T>)(a, total, rows, cols, mode);
  ex.check_launch("mask_kernel");
}

// Matrices of at most kBatchedN x kBatchedN take the batched routines:
// cuSOLVER's potrfBatched (CHOLESKY), cuBLAS's getrfBatched with
// getriBatched (INV) or getrsBatched (SOLVE), one call for the whole batch
// where the loop makes a call sequence per matrix (cuBLAS's batched LU is
// meant for small matrices). A matrix alone takes them too, as a batch of
// one: a matrix's result is then the same alone as in a stack (the Array
// API suite checks it bit for bit; getri and getrs round differently, and
// give zeros different signs).
constexpr int64_t kBatchedN = 64;

// Matrices of at most kJacobiN rows and columns, alone or in a batch (as
// above: the same result either way), take cuSOLVER's batched Jacobi routines (syevjBatched / heevjBatched for
// EIGH, gesvdjBatched for SVD: their size limit), with their default
// tolerance (machine accuracy) and sweeps (100), results sorted as LAPACK's.
constexpr int64_t kJacobiN = 32;

// A Jacobi routine's parameters (syevjInfo_t or gesvdjInfo_t), destroyed
// when the call has queued its work (cuSOLVER reads them at the call).
template <class Info, cusolverStatus_t (*Create)(Info*), cusolverStatus_t (*Destroy)(Info), cusolverStatus_t (*Sort)(Info, int)>
class JacobiParams {
 public:
  explicit JacobiParams(const Exec& ex) {
    TSR_SOLVER_CHECK(ex, Create(&info_));
    const cusolverStatus_t s = Sort(info_, 1);
    if (s != CUSOLVER_STATUS_SUCCESS) {
      (void)Destroy(info_);
      check_solver(ex, s, "the Jacobi parameters' sort order");
    }
  }
  ~JacobiParams() { (void)Destroy(info_); }
  JacobiParams(const JacobiParams&) = delete;
  JacobiParams& operator=(const JacobiParams&) = delete;
  Info get() const { return info_; }

 private:
  Info info_ = nullptr;
};
using SyevjParams = JacobiParams<syevjInfo_t, cusolverDnCreateSyevjInfo, cusolverDnDestroySyevjInfo, cusolverDnXsyevjSetSortEig>;
using GesvdjParams =
    JacobiParams<gesvdjInfo_t, cusolverDnCreateGesvdjInfo, cusolverDnDestroyGesvdjInfo, cusolverDnXgesvdjSetSortEig>;

// x = conj(x) over a buffer (gesvdjBatched's V to V^H for complex matrices).
template <class S> struct ConjFn {
  TSR_HD S operator()(S u) const { return store<S>(cx::conj(load(u))); }
};

template <class T> TSR_HD void pointers_thread(T** out, T* base, int64_t stride, uint64_t count, uint64_t i) {
  if (i < count) out[i] = base + static_cast<int64_t>(i) * stride;
}

#if defined(TSR_KERNELS)
template <class T>
__global__ void __launch_bounds__(kPointwiseBlock) pointers_kernel(T** out, T* base, int64_t stride, uint64_t count) {
  pointers_thread(out, base, stride, count, static_cast<uint64_t>(blockIdx.x) * kPointwiseBlock + threadIdx.x);
}
#endif

// The batched routines' operand: a device array (in `space`, count
// pointers) of base + b * stride.
template <class T> T** pointer_array(const Exec& ex, const Workspace& space, T* base, int64_t stride, int64_t count) {
  T** out = static_cast<T**>(space.get());
  const uint64_t n = static_cast<uint64_t>(count);
  TSR_LAUNCH(blocks_for(n, "pointers"), kPointwiseBlock, ex.stream, pointers_kernel<T>)(out, base, stride, n);
  ex.check_launch("pointers_kernel");
  return out;
}

using backend::transposed;

// ---- EIG (cusolverDnXgeev) ---------------------------------------------------
// cuSOLVER's data type of storage type T (the 64-bit API is typeless).
template <class T> constexpr cudaDataType_t solver_type() {
  if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
  else if constexpr (std::is_same_v<T, double>) return CUDA_R_64F;
  else if constexpr (std::is_same_v<T, ComplexPair<float>>) return CUDA_C_32F;
  else return CUDA_C_64F;
}

// The 64-bit API's parameters object (default algorithms), destroyed when
// the calls have queued their work.
class SolverParams {
 public:
  explicit SolverParams(const Exec& ex) { TSR_SOLVER_CHECK(ex, cusolverDnCreateParams(&params_)); }
  ~SolverParams() { (void)cusolverDnDestroyParams(params_); }
  SolverParams(const SolverParams&) = delete;
  SolverParams& operator=(const SolverParams&) = delete;
  cusolverDnParams_t get() const { return params_; }

 private:
  cusolverDnParams_t params_ = nullptr;
};

// Note [Eigenvalues of a real matrix on cuSOLVER]
// For a real A, Xgeev is called with every type real: W holds 2n reals per
// matrix, the real parts and then the imaginary parts, and VR real columns
// as LAPACK's geev leaves them: a conjugate pair j, j + 1 (imaginary part
// > 0 first) has eigenvectors VR[:, j] +- i VR[:, j+1], of 2-norm 1. One
// pass makes the contract's complex w and V (as cpu_tbb's linalg.cpp does,
// Note [Eigenvalues of a real matrix] there): thread i is element r of
// column j of matrix b (rows = n with the vectors, 1 without), and the
// threads of row 0 write w.
template <class R>
TSR_HD void eig_complex_thread(const R* W, const R* VR, ComplexPair<R>* w, ComplexPair<R>* V, int64_t n, int64_t rows,
                               uint64_t total, uint64_t i) {
  if (i >= total) return;
  const int64_t per = n * rows, b = static_cast<int64_t>(i) / per, within = static_cast<int64_t>(i) % per;
  const int64_t j = within / rows, r = within % rows;
  const R* wr = W + b * 2 * n;
  const R* wi = wr + n;
  if (r == 0) w[b * n + j] = ComplexPair<R>{wr[j], wi[j]};
  if (V == nullptr) return;
  const R* x = VR + b * n * n;
  ComplexPair<R> v{x[r + j * n], R(0)};
  if (wi[j] > R(0) && j + 1 < n) v.im = x[r + (j + 1) * n];
  else if (wi[j] < R(0) && j > 0) v = ComplexPair<R>{x[r + (j - 1) * n], -x[r + j * n]};
  V[b * n * n + j * n + r] = v;
}

#if defined(TSR_KERNELS)
template <class R>
__global__ void __launch_bounds__(kPointwiseBlock) eig_complex_kernel(const R* W, const R* VR, ComplexPair<R>* w,
                                                                      ComplexPair<R>* V, int64_t n, int64_t rows,
                                                                      uint64_t total) {
  eig_complex_thread(W, VR, w, V, n, rows, total, static_cast<uint64_t>(blockIdx.x) * kPointwiseBlock + threadIdx.x);
}
#endif

template <class R>
void eig_complex(const Exec& ex, const R* W, const R* VR, ComplexPair<R>* w, ComplexPair<R>* V, int64_t count, int64_t n) {
  const int64_t rows = V != nullptr ? n : 1;
  const uint64_t total = static_cast<uint64_t>(count * n * rows);
  if (total == 0) return;
  TSR_LAUNCH(blocks_for(total, "eig"), kPointwiseBlock, ex.stream, eig_complex_kernel<R>)(W, VR, w, V, n, rows, total);
  ex.check_launch("eig_complex_kernel");
}

// The scratch buffers of one call: `count` matrices (or vectors) back to
// back, described with the output's batch dims (its first nb) so that
// copy_same_dtype moves a whole batch at once.
struct Batch {
  const tsr_tensor_desc& like;  // the output: its device and batch dims
  int nb;
  int64_t count;

  tsr_tensor_desc desc(void* data, int dtype, std::initializer_list<int64_t> dims, std::initializer_list<int64_t> strides,
                       int64_t per_item) const {
    tsr_tensor_desc d{};
    d.struct_size = TSR_TENSOR_DESC_STRUCT_SIZE;
    d.data = data;
    d.ndim = nb + static_cast<int32_t>(dims.size());
    d.dtype = dtype;
    d.device = like.device;
    int64_t step = per_item;
    for (int k = nb - 1; k >= 0; --k) {
      d.shape[k] = like.shape[k];
      d.strides[k] = step;
      step *= like.shape[k];
    }
    int k = nb;
    for (int64_t s : dims) d.shape[k++] = s;
    k = nb;
    for (int64_t s : strides) d.strides[k++] = s;
    return d;
  }
  // rows x cols column-major matrices, ld rows apart, `per_item` elements apart.
  tsr_tensor_desc matrices(void* data, int dtype, int64_t rows, int64_t cols, int64_t ld, int64_t per_item) const {
    return desc(data, dtype, {rows, cols}, {1, ld}, per_item);
  }
  tsr_tensor_desc matrices(void* data, int dtype, int64_t rows, int64_t cols) const {
    return matrices(data, dtype, rows, cols, rows, rows * cols);
  }
  tsr_tensor_desc vectors(void* data, int dtype, int64_t len) const { return desc(data, dtype, {len}, {1}, len); }
  tsr_tensor_desc scalars(void* data) const { return desc(data, TSR_INT32, {}, {}, 1); }
};

// LAPACK-style routines count in int: every matrix a call reaches.
int solver_int(const Exec& ex, int64_t rows, int64_t cols) {
  if (rows > INT_MAX || cols > INT_MAX || rows * cols > INT_MAX)
    fail(TSR_ERR_UNSUPPORTED, ex.where() + "a " + std::to_string(rows) + " x " + std::to_string(cols) +
                                  " matrix is beyond cuSOLVER's int indexing");
  return static_cast<int>(rows);
}

template <int Op, int D> struct LinalgKernel {
  static constexpr int key = D;
  // Complex keys: transposes read as conjugate transposes, and S and w are
  // real (kReal), as Note [Kernel contracts] states for LINALG.
  static constexpr int kReal = tsr_dtype_real(D);
  using T = storage_t<D>;
  using R = storage_t<kReal>;
  static constexpr int kParams = Op == TSR_OP_SVD ? 2 : (Op == TSR_OP_CHOLESKY || Op == TSR_OP_QR || Op == TSR_OP_EIGH || Op == TSR_OP_EIG) ? 1 : 0;
  static constexpr int kInputs = Op == TSR_OP_SOLVE ? 2 : 1;

  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, kInputs, 0, kParams);
    const tsr_tensor_desc& in = *a.inputs[0];
    const tsr_tensor_desc& out = *a.output;
    const int nb = in.ndim - 2;
    if (nb < 0) fail(TSR_ERR_SHAPE, ex.where() + "the input has fewer than 2 dims");
    const int64_t m = in.shape[nb], n = in.shape[nb + 1], k = std::min(m, n), big = std::max(m, n);
    int64_t count = 1;
    for (int i = 0; i < nb; ++i) count *= in.shape[i];
    const int im = solver_int(ex, m, big), in_ = solver_int(ex, n, big), ik = static_cast<int>(k);
    auto shape_of = [&](const tsr_tensor_desc& d, int dtype, std::initializer_list<int64_t> dims, const char* what) {
      backend::check_linalg_shape("cuda", a, D, d, dtype, nb, dims, what);
    };
    auto more = [&](int c) { backend::check_more_outputs("cuda", a, D, c, TSR_DEVICE_CUDA); };
    auto info_of = [&](int i) -> const tsr_tensor_desc& {
      shape_of(*a.more_outputs[i], TSR_INT32, {}, "info");
      return *a.more_outputs[i];
    };
    const Batch batch{out, nb, count};
    std::lock_guard<std::mutex> lock(ex.dev.solver_mutex);
    cusolverDnHandle_t h = solver_handle(ex);
    // Scratch: one block per role, returned to the cache in stream order.
    auto scratch = [&](size_t bytes) { return Workspace(ex, std::max<size_t>(bytes, 1)); };
    Workspace infos = scratch(sizeof(int) * static_cast<size_t>(count));
    int* info = static_cast<int*>(infos.get());
    auto store_info = [&](const tsr_tensor_desc& d) { copy_same_dtype(ex, d, batch.scalars(info)); };

    if constexpr (Op == TSR_OP_CHOLESKY) {
      more(1);
      if (m != n) fail(TSR_ERR_SHAPE, ex.where() + "the input is not square");
      shape_of(out, D, {n, n}, "output");
      const tsr_tensor_desc& info_out = info_of(0);
      const bool upper = a.params[0] != 0;
      const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
      Workspace buf = scratch(sizeof(T) * count * n * n);
      T* A = static_cast<T*>(buf.get());
      if (count > 0 && n <= kBatchedN) {
        // potrfBatched on the lower triangle; the upper factor U of A is
        // the transpose of the lower one of A^T (A's upper triangle read as
        // a lower one), written through out^T.
        copy_same_dtype(ex, batch.matrices(A, D, n, n), upper ? transposed(in) : in);
        Workspace ptrs = scratch(sizeof(T*) * count);
        TSR_SOLVER_CHECK(ex, potrf_batched(h, in_, pointer_array(ex, ptrs, A, n * n, count), in_, info,
                                           solver_int(ex, count, 1)));
        mask(ex, A, count, n, n, Mask::KeepLower);
        copy_same_dtype(ex, upper ? transposed(out) : out, batch.matrices(A, D, n, n));
        store_info(info_out);
        return;
      }
      copy_same_dtype(ex, batch.matrices(A, D, n, n), in);
      int lwork = 0;
      TSR_SOLVER_CHECK(ex, potrf_size(h, uplo, in_, A, in_, &lwork));
      Workspace work = scratch(sizeof(T) * lwork);
      for (int64_t b = 0; b < count; ++b)
        TSR_SOLVER_CHECK(ex, potrf(h, uplo, in_, A + b * n * n, in_, static_cast<T*>(work.get()), lwork, info + b));
      mask(ex, A, count, n, n, upper ? Mask::KeepUpper : Mask::KeepLower);
      copy_same_dtype(ex, out, batch.matrices(A, D, n, n));
      store_info(info_out);
    } else if constexpr (Op == TSR_OP_LU) {
      more(2);
      shape_of(out, D, {m, n}, "output");
      shape_of(*a.more_outputs[0], TSR_INT32, {k}, "pivots");
      const tsr_tensor_desc& info_out = info_of(1);
      Workspace buf = scratch(sizeof(T) * count * m * n), pivots = scratch(sizeof(int) * count * k);
      T* A = static_cast<T*>(buf.get());
      int* ipiv = static_cast<int*>(pivots.get());
      copy_same_dtype(ex, batch.matrices(A, D, m, n), in);
      int lwork = 0;
      TSR_SOLVER_CHECK(ex, getrf_size(h, im, in_, A, im, &lwork));
      Workspace work = scratch(sizeof(T) * lwork);
      for (int64_t b = 0; b < count; ++b)
        TSR_SOLVER_CHECK(ex, getrf(h, im, in_, A + b * m * n, im, static_cast<T*>(work.get()), ipiv + b * k, info + b));
      copy_same_dtype(ex, out, batch.matrices(A, D, m, n));
      copy_same_dtype(ex, *a.more_outputs[0], batch.vectors(ipiv, TSR_INT32, k));
      store_info(info_out);
    } else if constexpr (Op == TSR_OP_SOLVE || Op == TSR_OP_INV) {
      more(1);
      if (m != n) fail(TSR_ERR_SHAPE, ex.where() + (Op == TSR_OP_SOLVE ? "A is not square" : "the input is not square"));
      const int64_t nrhs = Op == TSR_OP_INV ? n : out.ndim == nb + 2 ? out.shape[nb + 1] : -1;
      shape_of(out, D, {n, nrhs}, "output");
      if constexpr (Op == TSR_OP_SOLVE) shape_of(*a.inputs[1], D, {n, nrhs}, "B");
      const tsr_tensor_desc& info_out = info_of(0);
      const int ir = solver_int(ex, nrhs, n);
      // INV factors A^T where A is contiguous, and A otherwise, as PyTorch
      // 1.13 does (and cpu_tbb): a singular matrix's info, the zero
      // diagonal element its message names, follows the same rule;
      // inv(A^T) written through out^T is inv(A).
      // For complex matrices PyTorch factors A itself (so cpu_tbb too).
      const bool flip = Op == TSR_OP_INV && !is_complex_v<D> && backend::is_row_major(in);
      Workspace abuf = scratch(sizeof(T) * count * n * n), bbuf = scratch(sizeof(T) * count * n * nrhs),
                pivots = scratch(sizeof(int) * count * n), rs_infos = scratch(sizeof(int) * count);
      T *A = static_cast<T*>(abuf.get()), *B = static_cast<T*>(bbuf.get());
      int* ipiv = static_cast<int*>(pivots.get());
      copy_same_dtype(ex, batch.matrices(A, D, n, n), flip ? transposed(in) : in);
      if constexpr (Op == TSR_OP_SOLVE) copy_same_dtype(ex, batch.matrices(B, D, n, nrhs), *a.inputs[1]);
      if (count > 0 && n <= kBatchedN) {
        const int ib = solver_int(ex, count, 1);
        Workspace aptrs = scratch(sizeof(T*) * count), bptrs = scratch(sizeof(T*) * count);
        T** Ap = pointer_array(ex, aptrs, A, n * n, count);
        T** Bp = pointer_array(ex, bptrs, B, n * nrhs, count);
        std::lock_guard<std::mutex> blas_lock(ex.dev.blas_mutex);
        cublasHandle_t hb = blas_handle(ex);
        check_blas(ex, cublasSetStream(hb, ex.stream), "cublasSetStream");
        check_blas(ex, getrf_batched(hb, in_, Ap, in_, ipiv, info, ib), "getrfBatched");
        if constexpr (Op == TSR_OP_INV) {
          // getriBatched: out of place, into B; its info repeats getrf's.
          check_blas(ex, getri_batched(hb, in_, Ap, in_, ipiv, Bp, in_, static_cast<int*>(rs_infos.get()), ib),
                     "getriBatched");
        } else {
          int arg = 0;  // a host value: the bad argument's position, negated
          check_blas(ex, getrs_batched(hb, in_, ir, Ap, in_, ipiv, Bp, in_, &arg, ib), "getrsBatched");
          if (arg != 0) fail(TSR_ERR_INTERNAL, ex.where() + "getrsBatched rejected argument " + std::to_string(-arg));
        }
        copy_same_dtype(ex, flip ? transposed(out) : out, batch.matrices(B, D, n, nrhs));
        store_info(info_out);
        return;
      }
      if constexpr (Op == TSR_OP_INV) mask(ex, B, count, n, n, Mask::Identity);
      int lwork = 0;
      TSR_SOLVER_CHECK(ex, getrf_size(h, in_, in_, A, in_, &lwork));
      Workspace work = scratch(sizeof(T) * lwork);
      for (int64_t b = 0; b < count; ++b) {
        TSR_SOLVER_CHECK(ex, getrf(h, in_, in_, A + b * n * n, in_, static_cast<T*>(work.get()), ipiv + b * n, info + b));
        // getrs's own info names a bad argument only: kept apart from getrf's.
        TSR_SOLVER_CHECK(ex, getrs(h, in_, ir, A + b * n * n, in_, ipiv + b * n, B + b * n * nrhs, in_,
                                   static_cast<int*>(rs_infos.get()) + b));
      }
      copy_same_dtype(ex, flip ? transposed(out) : out, batch.matrices(B, D, n, nrhs));
      store_info(info_out);
    } else if constexpr (Op == TSR_OP_QR) {
      more(1);
      const bool complete = a.params[0] != 0;
      const int64_t c = complete ? m : k;
      shape_of(out, D, {m, c}, "Q");
      shape_of(*a.more_outputs[0], D, {c, n}, "R");
      Workspace abuf = scratch(sizeof(T) * count * m * n), qbuf = scratch(sizeof(T) * count * m * c),
                taus = scratch(sizeof(T) * count * k);
      T *A = static_cast<T*>(abuf.get()), *Q = static_cast<T*>(qbuf.get()), *tau = static_cast<T*>(taus.get());
      copy_same_dtype(ex, batch.matrices(A, D, m, n), in);
      int lwork_qr = 0, lwork_q = 0;
      TSR_SOLVER_CHECK(ex, geqrf_size(h, im, in_, A, im, &lwork_qr));
      TSR_SOLVER_CHECK(ex, orgqr_size(h, im, static_cast<int>(c), ik, Q, im, tau, &lwork_q));
      const int lwork = std::max(lwork_qr, lwork_q);
      Workspace work = scratch(sizeof(T) * lwork);
      for (int64_t b = 0; b < count; ++b)
        TSR_SOLVER_CHECK(ex, geqrf(h, im, in_, A + b * m * n, im, tau + b * k, static_cast<T*>(work.get()), lwork, info + b));
      // Q: the identity's c columns with the k reflectors over the first k
      // (orgqr then applies them; the identity columns past k make a
      // complete Q whatever orgqr assumes of them).
      mask(ex, Q, count, m, c, Mask::Identity);
      copy_same_dtype(ex, batch.matrices(Q, D, m, k, m, m * c), batch.matrices(A, D, m, k, m, m * n));
      for (int64_t b = 0; b < count; ++b)
        TSR_SOLVER_CHECK(ex, orgqr(h, im, static_cast<int>(c), ik, Q + b * m * c, im, tau + b * k,
                                   static_cast<T*>(work.get()), lwork, info + b));
      copy_same_dtype(ex, out, batch.matrices(Q, D, m, c));
      // R: A's first c rows, zero below the diagonal.
      mask(ex, A, count, m, n, Mask::KeepUpper);
      copy_same_dtype(ex, *a.more_outputs[0], batch.matrices(A, D, c, n, m, m * n));
    } else if constexpr (Op == TSR_OP_SVD) {
      const bool vectors = a.params[0] != 0, full = vectors && a.params[1] != 0;
      more(vectors ? 3 : 1);
      shape_of(out, kReal, {k}, "S");
      const int64_t uc = full ? m : k, vr = full ? n : k;
      if (vectors) {
        shape_of(*a.more_outputs[0], D, {m, uc}, "U");
        shape_of(*a.more_outputs[1], D, {vr, n}, "Vh");
      }
      const tsr_tensor_desc& info_out = info_of(vectors ? 2 : 0);
      if (count > 0 && k > 0 && big <= kJacobiN) {
        // gesvdjBatched: A = U S V^H with U m x m, V n x n; Vh's rows are V's
        // first vr columns, conjugated and transposed.
        const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
        const int ib = solver_int(ex, count, 1);
        Workspace abuf = scratch(sizeof(T) * count * m * n), sbuf = scratch(sizeof(R) * count * k),
                  ubuf = scratch(vectors ? sizeof(T) * count * m * m : 1), vbuf = scratch(vectors ? sizeof(T) * count * n * n : 1);
        T *A = static_cast<T*>(abuf.get()), *U = static_cast<T*>(ubuf.get()), *V = static_cast<T*>(vbuf.get());
        R* S = static_cast<R*>(sbuf.get());
        copy_same_dtype(ex, batch.matrices(A, D, m, n), in);
        const GesvdjParams params(ex);
        int lwork = 0;
        TSR_SOLVER_CHECK(ex, gesvdj_batched_size(h, jobz, im, in_, A, im, S, U, im, V, in_, &lwork, params.get(), ib));
        Workspace work = scratch(sizeof(T) * lwork);
        TSR_SOLVER_CHECK(ex, gesvdj_batched(h, jobz, im, in_, A, im, S, U, im, V, in_, static_cast<T*>(work.get()), lwork, info,
                                            params.get(), ib));
        copy_same_dtype(ex, out, batch.vectors(S, kReal, k));
        if (vectors) {
          copy_same_dtype(ex, *a.more_outputs[0], batch.matrices(U, D, m, uc, m, m * m));
          const tsr_tensor_desc v = batch.matrices(V, D, n, n);
          if constexpr (is_complex_v<D>) pointwise<T, T>(ex, v, {&v}, ConjFn<T>{});
          copy_same_dtype(ex, transposed(*a.more_outputs[1]), batch.matrices(V, D, n, vr, n, n * n));
        }
        store_info(info_out);
        return;
      }
      // cuSOLVER's gesvd takes m >= n: a wide A is done as A^T = V S U^T,
      // whose U^T and V are A's Vh and U (written through transposed views).
      const bool wide = m < n;
      const int64_t xm = big, xn = k, xuc = full ? big : k;  // X = A or A^T: xm x xn, xm >= xn
      const int ixm = static_cast<int>(xm), ixn = static_cast<int>(xn);
      const signed char job = !vectors ? 'N' : full ? 'A' : 'S';
      Workspace xbuf = scratch(sizeof(T) * count * xm * xn), sbuf = scratch(sizeof(R) * count * k),
                ubuf = scratch(vectors ? sizeof(T) * count * xm * xuc : 1),
                vbuf = scratch(vectors ? sizeof(T) * count * xn * xn : 1), rbuf = scratch(sizeof(R) * k);
      T *X = static_cast<T*>(xbuf.get()), *U = static_cast<T*>(ubuf.get()), *VT = static_cast<T*>(vbuf.get());
      R* S = static_cast<R*>(sbuf.get());
      copy_same_dtype(ex, batch.matrices(X, D, xm, xn), wide ? transposed(in) : in);
      int lwork = 0;
      TSR_SOLVER_CHECK(ex, gesvd_size(h, ixm, ixn, X, &lwork));
      Workspace work = scratch(sizeof(T) * lwork);
      for (int64_t b = 0; b < count; ++b)
        TSR_SOLVER_CHECK(ex, gesvd(h, job, job, ixm, ixn, X + b * xm * xn, ixm, S + b * k, vectors ? U + b * xm * xuc : U,
                                   ixm, vectors ? VT + b * xn * xn : VT, ixn, static_cast<T*>(work.get()), lwork,
                                   static_cast<R*>(rbuf.get()), info + b));
      copy_same_dtype(ex, out, batch.vectors(S, kReal, k));
      if (vectors) {
        const tsr_tensor_desc u_of_x = batch.matrices(U, D, xm, xuc), vt_of_x = batch.matrices(VT, D, xn, xn);
        copy_same_dtype(ex, wide ? transposed(*a.more_outputs[1]) : *a.more_outputs[0], u_of_x);
        copy_same_dtype(ex, wide ? transposed(*a.more_outputs[0]) : *a.more_outputs[1], vt_of_x);
      }
      store_info(info_out);
    } else if constexpr (Op == TSR_OP_EIGH) {
      const bool vectors = a.params[0] != 0;
      more(vectors ? 2 : 1);
      if (m != n) fail(TSR_ERR_SHAPE, ex.where() + "the input is not square");
      shape_of(out, kReal, {n}, "eigenvalues");
      if (vectors) shape_of(*a.more_outputs[0], D, {n, n}, "eigenvectors");
      const tsr_tensor_desc& info_out = info_of(vectors ? 1 : 0);
      const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
      Workspace abuf = scratch(sizeof(T) * count * n * n), wbuf = scratch(sizeof(R) * count * n);
      T* A = static_cast<T*>(abuf.get());
      R* W = static_cast<R*>(wbuf.get());
      copy_same_dtype(ex, batch.matrices(A, D, n, n), in);
      int lwork = 0;
      if (count > 0 && n > 0 && n <= kJacobiN) {
        const int ib = solver_int(ex, count, 1);
        const SyevjParams params(ex);
        TSR_SOLVER_CHECK(ex, syevj_batched_size(h, jobz, in_, A, in_, W, &lwork, params.get(), ib));
        Workspace work = scratch(sizeof(T) * lwork);
        TSR_SOLVER_CHECK(ex, syevj_batched(h, jobz, in_, A, in_, W, static_cast<T*>(work.get()), lwork, info, params.get(), ib));
      } else {
        TSR_SOLVER_CHECK(ex, syevd_size(h, jobz, in_, A, in_, W, &lwork));
        Workspace work = scratch(sizeof(T) * lwork);
        for (int64_t b = 0; b < count; ++b)
          TSR_SOLVER_CHECK(ex, syevd(h, jobz, in_, A + b * n * n, in_, W + b * n, static_cast<T*>(work.get()), lwork, info + b));
      }
      copy_same_dtype(ex, out, batch.vectors(W, kReal, n));
      if (vectors) copy_same_dtype(ex, *a.more_outputs[0], batch.matrices(A, D, n, n));
      store_info(info_out);
    } else if constexpr (Op == TSR_OP_EIG) {
      // Xgeev (CUDA 12.6's 64-bit API) matrix by matrix: no batched form.
      constexpr int kOut = tsr_dtype_complex(D);
      using C = storage_t<kOut>;
      const bool vectors = a.params[0] != 0;
      more(vectors ? 2 : 1);
      if (m != n) fail(TSR_ERR_SHAPE, ex.where() + "the input is not square");
      shape_of(out, kOut, {n}, "eigenvalues");
      if (vectors) shape_of(*a.more_outputs[0], kOut, {n, n}, "eigenvectors");
      const tsr_tensor_desc& info_out = info_of(vectors ? 1 : 0);
      const cusolverEigMode_t jobvr = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
      constexpr cudaDataType_t type = solver_type<T>();
      // W: n complex values per matrix, or 2n reals for a real A (Note
      // [Eigenvalues of a real matrix on cuSOLVER]).
      const int64_t wlen = is_complex_v<D> ? n : 2 * n, ld = std::max<int64_t>(n, 1);
      Workspace abuf = scratch(sizeof(T) * count * n * n), wbuf = scratch(sizeof(T) * count * wlen),
                vbuf = scratch(vectors ? sizeof(T) * count * n * n : 1);
      T *A = static_cast<T*>(abuf.get()), *W = static_cast<T*>(wbuf.get());
      T* VR = vectors ? static_cast<T*>(vbuf.get()) : nullptr;
      copy_same_dtype(ex, batch.matrices(A, D, n, n), in);
      const SolverParams params(ex);
      size_t device_bytes = 0, host_bytes = 0;
      TSR_SOLVER_CHECK(ex, cusolverDnXgeev_bufferSize(h, params.get(), CUSOLVER_EIG_MODE_NOVECTOR, jobvr, n, type, A, ld,
                                                      type, W, type, nullptr, 1, type, VR, ld, type, &device_bytes,
                                                      &host_bytes));
      Workspace work = scratch(device_bytes);
      // The host workspace lives until the queued work has run (below).
      std::vector<char> host(std::max<size_t>(host_bytes, 1));
      for (int64_t b = 0; b < count; ++b)
        TSR_SOLVER_CHECK(ex, cusolverDnXgeev(h, params.get(), CUSOLVER_EIG_MODE_NOVECTOR, jobvr, n, type, A + b * n * n, ld,
                                             type, W + b * wlen, type, nullptr, 1, type, vectors ? VR + b * n * n : nullptr,
                                             ld, type, work.get(), device_bytes, host.data(), host_bytes, info + b));
      if constexpr (is_complex_v<D>) {
        copy_same_dtype(ex, out, batch.vectors(W, kOut, n));
        if (vectors) copy_same_dtype(ex, *a.more_outputs[0], batch.matrices(VR, kOut, n, n));
      } else {
        Workspace cw = scratch(sizeof(C) * count * n), cv = scratch(vectors ? sizeof(C) * count * n * n : 1);
        C *w = static_cast<C*>(cw.get()), *V = vectors ? static_cast<C*>(cv.get()) : nullptr;
        eig_complex(ex, W, VR, w, V, count, n);
        copy_same_dtype(ex, out, batch.vectors(w, kOut, n));
        if (vectors) copy_same_dtype(ex, *a.more_outputs[0], batch.matrices(V, kOut, n, n));
      }
      store_info(info_out);
      if (host_bytes > 0) ex.check(cudaStreamSynchronize(ex.stream), "waiting for cusolverDnXgeev's host workspace");
    }
  }
};

}  // namespace

void add_linalg_kernels(KernelList& list) { add_kernels_of_kind<LinalgKernel, TSR_OP_KIND_LINALG>(list); }

}  // namespace tessera::cuda
