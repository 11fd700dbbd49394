// MATMUL: out[..., m, n] = sum_k a[..., m, k] * b[..., k, n], batch dims
// already broadcast (they may have stride 0).
//
// float32, float64, float16 and bfloat16 go to cuBLAS
// (cublasGemmStridedBatchedEx): float32 in FP32, or TF32 when the op's
// params[0] or the plugin's "allow_tf32" option allows it (off by default,
// as in PyTorch); float16/bfloat16 with float accumulation (the CPU
// backend's); float64 in FP64. Operands are read in place whenever each
// matrix is row- or column-major (a transposed view costs nothing); others
// are packed first. Batch dims that walk memory as one become one strided
// batch; the rest loop on the host.
//
// The integer dtypes use a plain kernel accumulating in wrapping 64-bit
// integers (the same result as PyTorch's native accumulation modulo 2^bits).
// Rate: compute-bound in cuBLAS: 8192^3 bf16 at the ~790 TFLOP/s the H200
// reaches through PyTorch; fp32 ~50, tf32 ~380 (estimates).
#include <climits>
#include <optional>
#include <vector>

#include "elementwise.cuh"
#include "kernels.hpp"

namespace tessera::cuda {

namespace {

// One operand's matrix dims: element (r, c) of batch t at base + off_t + r*rs + c*cs.
struct Mat {
  int64_t rows, cols, rs, cs;
};

Mat matrix_of(const tsr_tensor_desc& d) {
  const int n = d.ndim;
  return {d.shape[n - 2], d.shape[n - 1], d.strides[n - 2], d.strides[n - 1]};
}

// How BLAS can read a matrix in place: column- or row-major with leading
// dimension ld; a size-1 dim's stride does not matter (the CPU backend's rule).
struct BlasLayout {
  bool col_major;
  int64_t ld;
};

std::optional<BlasLayout> blas_layout(const Mat& m) {
  if (m.cols == 1 || m.cs == 1) {
    const int64_t ld = m.rows == 1 ? std::max<int64_t>(1, m.cols) : m.rs;
    if (ld >= std::max<int64_t>(1, m.cols) && ld <= INT_MAX) return BlasLayout{false, ld};
  }
  if (m.rows == 1 || m.rs == 1) {
    const int64_t ld = m.cols == 1 ? std::max<int64_t>(1, m.rows) : m.cs;
    if (ld >= std::max<int64_t>(1, m.rows) && ld <= INT_MAX) return BlasLayout{true, ld};
  }
  return std::nullopt;
}

// A row-major contiguous descriptor of d's shape over `data`.
tsr_tensor_desc contiguous_like(const tsr_tensor_desc& d, void* data) {
  tsr_tensor_desc c = d;
  c.data = data;
  c.offset = 0;
  int64_t stride = 1;
  for (int i = d.ndim - 1; i >= 0; --i) {
    c.strides[i] = stride;
    stride *= std::max<int64_t>(1, d.shape[i]);
  }
  return c;
}

void check_blas(const Exec& ex, cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  fail(s == CUBLAS_STATUS_ALLOC_FAILED ? TSR_ERR_OUT_OF_MEMORY : TSR_ERR_DEVICE,
       ex.where() + what + " failed (" + cublasGetStatusName(s) + ": " + cublasGetStatusString(s) + ")");
}

// The device's cuBLAS handle, created on first use with a 32 MiB workspace
// (PyTorch's size on Hopper) from the caching allocator. Call with the
// device's blas_mutex held.
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

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
};

GemmTypes gemm_types(int dtype, bool tf32) {
  switch (dtype) {
    case TSR_FLOAT32: return {CUDA_R_32F, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F};
    case TSR_FLOAT64: return {CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case TSR_FLOAT16: return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
    default: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
  }
}

// A batch dim after merging: its size and the three operands' strides.
struct BatchDim {
  int64_t size, sa, sb, sc;
};

// Batch dims of (a, b, out), size-1 dims dropped and adjacent dims merged
// where all three step over the inner one exactly; innermost last.
std::vector<BatchDim> batch_dims(const tsr_tensor_desc& a, const tsr_tensor_desc& b, const tsr_tensor_desc& c) {
  std::vector<BatchDim> dims;
  for (int d = 0; d < c.ndim - 2; ++d) {
    if (c.shape[d] == 1) continue;
    const BatchDim next{c.shape[d], a.strides[d], b.strides[d], c.strides[d]};
    if (!dims.empty()) {
      BatchDim& last = dims.back();
      if (last.sa == next.sa * next.size && last.sb == next.sb * next.size && last.sc == next.sc * next.size) {
        last = BatchDim{last.size * next.size, next.sa, next.sb, next.sc};
        continue;
      }
    }
    dims.push_back(next);
  }
  return dims;
}

void cublas_matmul(const Exec& ex, const tsr_tensor_desc& a_in, const tsr_tensor_desc& b_in, const tsr_tensor_desc& c_out, bool tf32) {
  const int64_t elsize = static_cast<int64_t>(tsr_dtype_size(c_out.dtype));
  // Operands BLAS cannot read in place are packed row-major first.
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
  const Mat A = matrix_of(a), B = matrix_of(b), C = matrix_of(c);
  const BlasLayout la = *blas_layout(A), lb = *blas_layout(B), lc = *blas_layout(C);
  const int64_t M = C.rows, N = C.cols, K = A.cols;

  // cuBLAS is column-major: a row-major C is computed as C^T = B^T A^T.
  const bool cm = lc.col_major;
  auto op = [cm](const BlasLayout& l) { return l.col_major == cm ? CUBLAS_OP_N : CUBLAS_OP_T; };
  const GemmTypes types = gemm_types(c.dtype, tf32);
  const float one_f = 1.0f, zero_f = 0.0f;
  const double one_d = 1.0, zero_d = 0.0;
  const void* alpha = c.dtype == TSR_FLOAT64 ? static_cast<const void*>(&one_d) : static_cast<const void*>(&one_f);
  const void* beta = c.dtype == TSR_FLOAT64 ? static_cast<const void*>(&zero_d) : static_cast<const void*>(&zero_f);

  std::vector<BatchDim> dims = batch_dims(a, b, c);
  BatchDim inner{1, 0, 0, 0};
  if (!dims.empty()) {
    inner = dims.back();
    dims.pop_back();
  }
  if (inner.size > INT_MAX) fail(TSR_ERR_INVALID_ARGUMENT, ex.where() + "batch too large for cuBLAS");
  int64_t outer = 1;
  for (const BatchDim& d : dims) outer *= d.size;

  const char* abase = static_cast<const char*>(a.data) + a.offset * elsize;
  const char* bbase = static_cast<const char*>(b.data) + b.offset * elsize;
  char* cbase = static_cast<char*>(c.data) + c.offset * elsize;

  std::lock_guard<std::mutex> lock(ex.dev.blas_mutex);
  cublasHandle_t h = blas_handle(ex);
  check_blas(ex, cublasSetStream(h, ex.stream), "cublasSetStream");
  for (int64_t t = 0; t < outer; ++t) {
    int64_t oa = 0, ob = 0, oc = 0, rest = t;
    for (size_t i = dims.size(); i-- > 0;) {
      const int64_t idx = rest % dims[i].size;
      rest /= dims[i].size;
      oa += idx * dims[i].sa;
      ob += idx * dims[i].sb;
      oc += idx * dims[i].sc;
    }
    const void* pa = abase + oa * elsize;
    const void* pb = bbase + ob * elsize;
    void* pc = cbase + oc * elsize;
    cublasStatus_t s;
    if (cm) {
      s = cublasGemmStridedBatchedEx(h, op(la), op(lb), static_cast<int>(M), static_cast<int>(N), static_cast<int>(K), alpha,
                                     pa, types.data, static_cast<int>(la.ld), inner.sa, pb, types.data,
                                     static_cast<int>(lb.ld), inner.sb, beta, pc, types.data, static_cast<int>(lc.ld),
                                     inner.sc, static_cast<int>(inner.size), types.compute, CUBLAS_GEMM_DEFAULT);
    } else {
      s = cublasGemmStridedBatchedEx(h, op(lb), op(la), static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), alpha,
                                     pb, types.data, static_cast<int>(lb.ld), inner.sb, pa, types.data,
                                     static_cast<int>(la.ld), inner.sa, beta, pc, types.data, static_cast<int>(lc.ld),
                                     inner.sc, static_cast<int>(inner.size), types.compute, CUBLAS_GEMM_DEFAULT);
    }
    check_blas(ex, s, "cublasGemmStridedBatchedEx");
  }
  if (c_ws) copy_same_dtype(ex, c_out, c);
}

// ---- the plain kernel (integers; floats beyond cuBLAS's int limits) ----------------

template <class S>
using matmul_acc_t = std::conditional_t<std::is_integral_v<S>, uint64_t, std::conditional_t<std::is_same_v<S, double>, double, float>>;

template <class S> __device__ matmul_acc_t<S> to_acc(S x) {
  if constexpr (std::is_integral_v<S>) return static_cast<uint64_t>(static_cast<int64_t>(x));
  else return static_cast<matmul_acc_t<S>>(load(x));
}
template <class S> __device__ S from_acc(matmul_acc_t<S> v) {
  if constexpr (std::is_integral_v<S>) return static_cast<S>(static_cast<int64_t>(v));
  else return store<S>(v);
}

struct PlainParams {
  const char* a;
  const char* b;
  char* c;  // bases, offsets included
  int64_t M, N, K, batches;
  int nb;   // batch dims
  int64_t batch_shape[TSR_MAX_DIMS], sa[TSR_MAX_DIMS], sb[TSR_MAX_DIMS], sc[TSR_MAX_DIMS];
  Mat A, B, C;
};

inline constexpr int kPlainTile = 16;

// A 16 x 16 output tile per block through shared memory; one element per
// thread. Rate is no concern here (integer matmul is rare); exact wrapping is.
template <class S> __global__ void __launch_bounds__(kPlainTile* kPlainTile) plain_matmul_kernel(const PlainParams p) {
  using Acc = matmul_acc_t<S>;
  __shared__ Acc as[kPlainTile][kPlainTile], bs[kPlainTile][kPlainTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t m = static_cast<int64_t>(blockIdx.y) * kPlainTile + ty, n = static_cast<int64_t>(blockIdx.x) * kPlainTile + tx;
  for (int64_t t = blockIdx.z; t < p.batches; t += gridDim.z) {
    int64_t oa = 0, ob = 0, oc = 0, rest = t;
    for (int d = p.nb - 1; d >= 0; --d) {
      const int64_t idx = rest % p.batch_shape[d];
      rest /= p.batch_shape[d];
      oa += idx * p.sa[d];
      ob += idx * p.sb[d];
      oc += idx * p.sc[d];
    }
    const S* A = reinterpret_cast<const S*>(p.a) + oa;
    const S* B = reinterpret_cast<const S*>(p.b) + ob;
    Acc acc = 0;
    for (int64_t k0 = 0; k0 < p.K; k0 += kPlainTile) {
      const int64_t ka = k0 + tx, kb = k0 + ty;
      as[ty][tx] = (m < p.M && ka < p.K) ? to_acc(A[m * p.A.rs + ka * p.A.cs]) : Acc(0);
      bs[ty][tx] = (kb < p.K && n < p.N) ? to_acc(B[kb * p.B.rs + n * p.B.cs]) : Acc(0);
      __syncthreads();
      for (int k = 0; k < kPlainTile; ++k) acc += as[ty][k] * bs[k][tx];
      __syncthreads();
    }
    if (m < p.M && n < p.N) reinterpret_cast<S*>(p.c)[oc + m * p.C.rs + n * p.C.cs] = from_acc<S>(acc);
  }
}

template <class S>
void plain_matmul(const Exec& ex, const tsr_tensor_desc& a, const tsr_tensor_desc& b, const tsr_tensor_desc& c, int64_t batches) {
  PlainParams p{};
  p.a = static_cast<const char*>(a.data) + a.offset * static_cast<int64_t>(sizeof(S));
  p.b = static_cast<const char*>(b.data) + b.offset * static_cast<int64_t>(sizeof(S));
  p.c = static_cast<char*>(c.data) + c.offset * static_cast<int64_t>(sizeof(S));
  p.A = matrix_of(a);
  p.B = matrix_of(b);
  p.C = matrix_of(c);
  p.M = p.C.rows;
  p.N = p.C.cols;
  p.K = p.A.cols;
  p.batches = batches;
  p.nb = c.ndim - 2;
  for (int d = 0; d < p.nb; ++d) {
    p.batch_shape[d] = c.shape[d];
    p.sa[d] = a.strides[d];
    p.sb[d] = b.strides[d];
    p.sc[d] = c.strides[d];
  }
  const int64_t gx = (p.N + kPlainTile - 1) / kPlainTile, gy = (p.M + kPlainTile - 1) / kPlainTile;
  if (gx > 0x7FFFFFFF || gy > 65535) fail(TSR_ERR_INVALID_ARGUMENT, ex.where() + "matrix too large for the plain kernel");
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy), static_cast<unsigned>(std::min<int64_t>(batches, 65535)));
  plain_matmul_kernel<S><<<grid, dim3(kPlainTile, kPlainTile), 0, ex.stream>>>(p);
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
    if constexpr (is_floating_v<D>) {
      if (M <= INT_MAX && N <= INT_MAX && K <= INT_MAX) {
        const bool tf32 = D == TSR_FLOAT32 && (ex.ctx.options.allow_tf32 || (a.num_params >= 1 && a.params != nullptr && a.params[0] != 0));
        cublas_matmul(ex, x, y, out, tf32);
        return;
      }
    }
    plain_matmul<storage_t<D>>(ex, x, y, out, batches);
  }
};

}  // namespace

void add_matmul_kernels(KernelList& list) { add_kernels<MatmulKernel, TSR_OP_MATMUL>(list); }

}  // namespace tessera::cuda
