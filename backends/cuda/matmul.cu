// SPDX-License-Identifier: Apache-2.0
// MATMUL: out[..., m, n] = sum_k a[..., m, k] * b[..., k, n], batch dims
// already broadcast (they may have stride 0).
//
// float32, float64, float16, bfloat16, complex64 and complex128 go to cuBLAS
// (cublasGemmStridedBatchedEx): float32 in FP32, or TF32 when the op's
// params[0] (tsr_set_float32_matmul_precision: "high" or "medium") or the
// plugin's "allow_tf32" option allows it (off by default, as in PyTorch); float16/bfloat16 with float accumulation (the CPU
// backend's); float64 in FP64; complex64 and complex128 as cuBLAS's
// CGEMM and ZGEMM (CUDA_C_32F, CUDA_C_64F). Operands are read in place whenever each
// matrix is row- or column-major (a transposed view costs nothing); others
// are packed first. Batch dims that walk memory as one become one strided
// batch; the rest loop on the host.
//
// The integer dtypes use a plain kernel accumulating in wrapping 64-bit
// integers (the same result as PyTorch's native accumulation modulo 2^bits;
// matmul_plain.cuh).
// Rate: compute-bound in cuBLAS: 8192^3 bf16 at the ~790 TFLOP/s the H200
// reaches through PyTorch; fp32 ~50, tf32 ~380 (estimates).
#include <climits>
#include <optional>
#include <vector>

#include "blas_handle.hpp"
#include "elementwise.cuh"
#include "gemm_plan.hpp"
#include "kernels.hpp"
#include "matmul_plain.cuh"

namespace tessera::cuda {

void check_blas(const Exec& ex, cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  fail(s == CUBLAS_STATUS_ALLOC_FAILED ? TSR_ERR_OUT_OF_MEMORY : TSR_ERR_DEVICE,
       ex.where() + what + " failed (" + cublasGetStatusName(s) + ": " + cublasGetStatusString(s) + ")");
}

// The device's cuBLAS handle (blas_handle.hpp), created on first use with a
// 32 MiB workspace (PyTorch's size on Hopper) from the caching allocator.
cublasHandle_t blas_handle(const Exec& ex) {
  Device& dev = ex.dev;
  if (dev.blas == nullptr) {
    cublasHandle_t h = nullptr;
    check_blas(ex, cublasCreate(&h), "cublasCreate");
    constexpr size_t kWorkspace = size_t{32} << 20;
    void* ws = nullptr;
    try {
      ws = dev.allocator->allocate(kWorkspace, dev.stream);
    } catch (...) {
      (void)cublasDestroy(h);
      throw;
    }
    const cublasStatus_t s = cublasSetWorkspace(h, ws, kWorkspace);
    if (s != CUBLAS_STATUS_SUCCESS) {
      (void)cublasDestroy(h);
      dev.allocator->deallocate(ws);
      check_blas(ex, s, "cublasSetWorkspace");
    }
    dev.blas = h;
    dev.blas_workspace = ws;
  }
  return dev.blas;
}

namespace {

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
};

GemmTypes gemm_types(int dtype, bool tf32) {
  switch (dtype) {
    case TSR_FLOAT32: return {CUDA_R_32F, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F};
    case TSR_FLOAT64: return {CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case TSR_FLOAT16: return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case TSR_COMPLEX64: return {CUDA_C_32F, CUBLAS_COMPUTE_32F};
    case TSR_COMPLEX128: return {CUDA_C_64F, CUBLAS_COMPUTE_64F};
    default: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
  }
}

void cublas_matmul(const Exec& ex, const tsr_tensor_desc& a_in, const tsr_tensor_desc& b_in, const tsr_tensor_desc& c_out, bool tf32) {
  const int64_t elsize = static_cast<int64_t>(tsr_dtype_size(c_out.dtype));
  // Operands cuBLAS cannot read in place are packed row-major first.
  std::optional<Workspace> a_ws, b_ws, c_ws;
  tsr_tensor_desc a = a_in, b = b_in, c = c_out;
  if (!blas_layout(matrix_of(a))) {
    a_ws.emplace(ex, static_cast<size_t>(numel_of(a) * elsize));
    a = contiguous_like(a_in, a_ws->get());
    copy_same_dtype(ex, a, a_in);
  }
  if (!blas_layout(matrix_of(b))) {
    b_ws.emplace(ex, static_cast<size_t>(numel_of(b) * elsize));
    b = contiguous_like(b_in, b_ws->get());
    copy_same_dtype(ex, b, b_in);
  }
  if (!blas_layout(matrix_of(c))) {
    c_ws.emplace(ex, static_cast<size_t>(numel_of(c) * elsize));
    c = contiguous_like(c_out, c_ws->get());
  }
  const std::optional<GemmPlan> plan = plan_gemm(a, b, c);
  if (!plan) fail(TSR_ERR_INVALID_ARGUMENT, ex.where() + "batch too large for cuBLAS (more than INT_MAX matrices in one strided batch)");
  const GemmPlan& p = *plan;
  const GemmTypes types = gemm_types(c.dtype, tf32);
  // alpha = 1 and beta = 0 as host values of the compute type (complex: the
  // imaginary part follows the real one).
  const float one_f[2] = {1.0f, 0.0f}, zero_f[2] = {0.0f, 0.0f};
  const double one_d[2] = {1.0, 0.0}, zero_d[2] = {0.0, 0.0};
  const bool f64 = types.compute == CUBLAS_COMPUTE_64F;
  const void* alpha = f64 ? static_cast<const void*>(one_d) : static_cast<const void*>(one_f);
  const void* beta = f64 ? static_cast<const void*>(zero_d) : static_cast<const void*>(zero_f);
  const auto op = [](bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; };

  const char* abase = static_cast<const char*>(a.data) + a.offset * elsize;
  const char* bbase = static_cast<const char*>(b.data) + b.offset * elsize;
  char* cbase = static_cast<char*>(c.data) + c.offset * elsize;

  std::lock_guard<std::mutex> lock(ex.dev.blas_mutex);
  cublasHandle_t h = blas_handle(ex);
  check_blas(ex, cublasSetStream(h, ex.stream), "cublasSetStream");
  for (int64_t t = 0; t < p.outer_count; ++t) {
    int64_t oa, ob, oc;
    p.offsets(t, oa, ob, oc);
    const void* pa = abase + oa * elsize;
    const void* pb = bbase + ob * elsize;
    check_blas(ex,
               cublasGemmStridedBatchedEx(h, op(p.trans_first), op(p.trans_second), p.m, p.n, p.k, alpha, p.swapped ? pb : pa,
                                          types.data, p.ld_first, p.stride_first, p.swapped ? pa : pb, types.data, p.ld_second,
                                          p.stride_second, beta, cbase + oc * elsize, types.data, p.ldc, p.stride_c, p.batch_count,
                                          types.compute, CUBLAS_GEMM_DEFAULT),
               "cublasGemmStridedBatchedEx");
  }
  if (c_ws) copy_same_dtype(ex, c_out, c);
}

// ---- the plain kernel (matmul_plain.cuh) --------------------------------------------

// Threads along n (coalesced in row-major B and C), then m; batches and rows
// beyond the grid's limits by grid-stride loops.
inline constexpr int kPlainX = 32, kPlainY = 8;

#if defined(TSR_KERNELS)
template <class S> __global__ void __launch_bounds__(kPlainX* kPlainY) plain_matmul_kernel(const PlainParams p) {
  const int64_t n = static_cast<int64_t>(blockIdx.x) * kPlainX + threadIdx.x;
  if (n >= p.N) return;
  for (int64_t t = blockIdx.z; t < p.batches; t += gridDim.z)
    for (int64_t m = static_cast<int64_t>(blockIdx.y) * kPlainY + threadIdx.y; m < p.M; m += static_cast<int64_t>(gridDim.y) * kPlainY)
      plain_matmul_element<S>(p, t, m, n);
}
#endif

template <class S> void plain_matmul(const Exec& ex, const tsr_tensor_desc& a, const tsr_tensor_desc& b, const tsr_tensor_desc& c) {
  const PlainParams p = plan_plain<S>(a, b, c);
  const int64_t gx = (p.N + kPlainX - 1) / kPlainX, gy = (p.M + kPlainY - 1) / kPlainY;
  if (gx > 0x7FFFFFFF) fail(TSR_ERR_INVALID_ARGUMENT, ex.where() + "matrix too large for the plain kernel");
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(std::min<int64_t>(gy, 65535)),
                  static_cast<unsigned>(std::min<int64_t>(p.batches, 65535)));
  TSR_LAUNCH(grid, dim3(kPlainX, kPlainY), ex.stream, plain_matmul_kernel<S>)(p);
  ex.check_launch("plain_matmul_kernel");
}

template <int Op, int D> struct MatmulKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 2, 0, 0);
    const tsr_tensor_desc& x = *a.inputs[0];
    const tsr_tensor_desc& y = *a.inputs[1];
    const tsr_tensor_desc& out = *a.output;
    for (const tsr_tensor_desc* d : {&x, &y, &out}) check_dtype(a, D, *d, D, d == &out ? "output" : "input");
    const int n = out.ndim;
    if (n < 2 || x.ndim != n || y.ndim != n) fail(TSR_ERR_SHAPE, where(a, D) + "operands need one ndim >= 2");
    const int64_t M = out.shape[n - 2], N = out.shape[n - 1], K = x.shape[n - 1];
    bool ok = x.shape[n - 2] == M && y.shape[n - 2] == K && y.shape[n - 1] == N;
    int64_t batches = 1;
    for (int d = 0; d < n - 2; ++d) {
      ok = ok && x.shape[d] == out.shape[d] && y.shape[d] == out.shape[d];
      batches *= out.shape[d];
    }
    if (!ok) fail(TSR_ERR_SHAPE, where(a, D) + "shapes do not match [..., M, K] x [..., K, N] -> [..., M, N]");
    if (batches == 0 || M == 0 || N == 0) return;
    if (K == 0) {
      fill_zero(ex, out);
      return;
    }
    if constexpr (is_floating_v<D> || is_complex_v<D>) {
      if (M <= INT_MAX && N <= INT_MAX && K <= INT_MAX) {
        const bool tf32 = D == TSR_FLOAT32 && (ex.ctx.options.allow_tf32 || (a.num_params >= 1 && a.params != nullptr && a.params[0] != 0));
        cublas_matmul(ex, x, y, out, tf32);
        return;
      }
    }
    if constexpr (is_complex_v<D>)  // the plain kernel is the integers' (and the huge float matrices')
      fail(TSR_ERR_UNSUPPORTED, where(a, D) + "a matrix side over INT_MAX: cuBLAS cannot take it (the CPU fallback can)");
    else plain_matmul<storage_t<D>>(ex, x, y, out);
  }
};

}  // namespace

void add_matmul_kernels(KernelList& list) { add_kernels<MatmulKernel, TSR_OP_MATMUL>(list); }

}  // namespace tessera::cuda
