// SPDX-License-Identifier: Apache-2.0
// The FFT kind (Note [Kernel contracts] in tessera/ops.h, ABI 1.11) on
// cuFFT: FFT (C2C / Z2Z), RFFT (R2C / D2Z) and IRFFT (C2R / Z2D) along
// params[0], scaled by scalars[0]. The CPU backend's fft.cpp is the
// reference (`tessera conformance`).
//
// cuFFT's batched 1-D plans want each line contiguous and the lines evenly
// spaced. Each call therefore sees the input with the transformed dim moved
// last: when that view is row-major already (the common case: a
// transform along the last dim of a contiguous tensor) cuFFT reads it where
// it lies, else copy_same_dtype packs it into a buffer from the caching
// allocator; the output likewise, written in place when its moved view is
// row-major, else through a buffer unpacked by copy_same_dtype. C2R always
// reads a packed copy, whose X[0] and X[n/2] imaginary parts are zeroed
// first (the contract ignores them; cuFFT may not, and it may overwrite a
// C2R input). The scale is one more pass over the output, skipped for 1.
//
// Plans are cached per (n, batch, type) in the plugin instance's Device
// (Device::fft_plans, at most kCachedPlans each): making one costs far more
// than a transform of a few lines. A plan is not safe to use from two
// threads (cufftSetStream changes it), so the device's one mutex
// (Device::fft_mutex) covers the cache, setting the stream and queueing
// the transform; nothing waits for the GPU. ~Device destroys the plans
// (FftPlansDeleter) after the device's queued work, ignoring cuFFT's
// statuses there: teardown never throws. Every other cuFFT call's status
// is checked and named (TSR_ERR_DEVICE, or TSR_ERR_OUT_OF_MEMORY for
// CUFFT_ALLOC_FAILED).
#include <cufft.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>

#include "elementwise.cuh"
#include "gemm_plan.hpp"  // contiguous_like
#include "kernels.hpp"

namespace tessera::cuda {

// A device's plan cache (Device::fft_plans; the lock is Device::fft_mutex).
struct FftPlans {
  std::map<std::tuple<int, int, int>, cufftHandle> plans;  // (n, batch, type)
};

// ~Device calls this with the device current, after its stream's work;
// noexcept: statuses are dropped, nothing is thrown.
void FftPlansDeleter::operator()(FftPlans* p) const noexcept {
  if (!p->plans.empty()) {
    (void)cudaDeviceSynchronize();  // transforms queued on other streams too
    (void)cudaGetLastError();
    for (const auto& entry : p->plans) (void)cufftDestroy(entry.second);
  }
  delete p;
}

namespace {

constexpr size_t kCachedPlans = 64;  // per device: plans hold device workspace

const char* fft_status_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "a cuFFT error";
  }
}

void check_fft(const Exec& ex, cufftResult r, const char* what) {
  if (r == CUFFT_SUCCESS) return;
  fail(r == CUFFT_ALLOC_FAILED ? TSR_ERR_OUT_OF_MEMORY : TSR_ERR_DEVICE,
       ex.where() + what + " failed (" + fft_status_name(r) + " " + std::to_string(static_cast<int>(r)) + ")");
}
#define TSR_CUFFT_CHECK(ex, call) check_fft((ex), (call), #call)

// The plan for (n, batch, type) on ex's device; call with ex.dev.fft_mutex held.
cufftHandle plan_for(const Exec& ex, int n, int batch, cufftType type) {
  if (!ex.dev.fft_plans) ex.dev.fft_plans.reset(new FftPlans);
  auto& plans = ex.dev.fft_plans->plans;
  const auto key = std::make_tuple(n, batch, static_cast<int>(type));
  if (auto it = plans.find(key); it != plans.end()) return it->second;
  if (plans.size() >= kCachedPlans) {
    // A bounded cache: the device's plans go, once the transforms queued
    // with them have run.
    ex.check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before freeing cuFFT plans)");
    for (const auto& entry : plans) (void)cufftDestroy(entry.second);
    plans.clear();
  }
  cufftHandle h = 0;
  int len = n;
  TSR_CUFFT_CHECK(ex, cufftPlanMany(&h, 1, &len, nullptr, 1, 0, nullptr, 1, 0, type, batch));
  try {
    plans.emplace(key, h);
  } catch (...) {
    (void)cufftDestroy(h);
    throw;
  }
  return h;
}

#if defined(TSR_KERNELS)
// p[i] *= s over count reals (a complex array as twice as many).
template <class R> __global__ void __launch_bounds__(kPointwiseBlock) scale_kernel(R* p, uint64_t count, R s) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * kPointwiseBlock + threadIdx.x;
  if (i < count) p[i] *= s;
}
// C2R's input lines (of len complex values, 2 reals each): the imaginary
// parts of X[0] and, for even n, X[n/2] set to 0.
template <class R>
__global__ void __launch_bounds__(kPointwiseBlock) hermitian_kernel(R* p, uint64_t lines, uint64_t len, bool even) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * kPointwiseBlock + threadIdx.x;
  if (i >= lines) return;
  p[2 * i * len + 1] = R(0);
  if (even) p[2 * (i * len + len - 1) + 1] = R(0);
}
#endif

// d with dim moved last; whether that view is row-major (stride 1 last, each
// dim's stride the product of the sizes after it; size-1 dims any stride).
tsr_tensor_desc moved_last(const tsr_tensor_desc& d, int dim) {
  tsr_tensor_desc m = d;
  for (int i = dim; i + 1 < d.ndim; ++i) {
    m.shape[i] = d.shape[i + 1];
    m.strides[i] = d.strides[i + 1];
  }
  m.shape[d.ndim - 1] = d.shape[dim];
  m.strides[d.ndim - 1] = d.strides[dim];
  return m;
}
bool row_major(const tsr_tensor_desc& d) {
  int64_t expected = 1;
  for (int i = d.ndim - 1; i >= 0; --i) {
    if (d.shape[i] != 1 && d.strides[i] != expected) return false;
    expected *= d.shape[i];
  }
  return true;
}

template <int Op, int D> struct FftKernel {
  static constexpr int key = D;
  using R = std::conditional_t<D == TSR_FLOAT64 || D == TSR_COMPLEX128, double, float>;
  static constexpr bool kDouble = std::is_same_v<R, double>;
  static constexpr int kComplexDtype = kDouble ? TSR_COMPLEX128 : TSR_COMPLEX64;
  static constexpr int kRealDtype = kDouble ? TSR_FLOAT64 : TSR_FLOAT32;
  using Cx = std::conditional_t<kDouble, cufftDoubleComplex, cufftComplex>;
  using Re = std::conditional_t<kDouble, cufftDoubleReal, cufftReal>;

  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 1, 1, Op == TSR_OP_FFT ? 2 : 1);
    const tsr_tensor_desc& in = *a.inputs[0];
    const tsr_tensor_desc& out = *a.output;
    check_dtype(a, D, in, Op == TSR_OP_RFFT ? kRealDtype : kComplexDtype, "input 0");
    check_dtype(a, D, out, Op == TSR_OP_IRFFT ? kRealDtype : kComplexDtype, "output");
    const int64_t dim = a.params[0];
    if (in.ndim < 1 || dim < 0 || dim >= in.ndim || out.ndim != in.ndim)
      fail(TSR_ERR_INDEX, where(a, D) + "dim " + std::to_string(dim) + " is not a dim of a " +
                              std::to_string(in.ndim) + "-d input and " + std::to_string(out.ndim) + "-d output");
    const int64_t n = Op == TSR_OP_IRFFT ? out.shape[dim] : in.shape[dim];
    const int64_t in_len = Op == TSR_OP_IRFFT ? n / 2 + 1 : n, out_len = Op == TSR_OP_RFFT ? n / 2 + 1 : n;
    bool ok = n >= 1 && in.shape[dim] == in_len && out.shape[dim] == out_len;
    int64_t lines = 1;
    for (int d = 0; d < in.ndim; ++d) {
      if (d != dim && in.shape[d] != out.shape[d]) ok = false;
      if (d != dim) lines *= out.shape[d];
    }
    if (!ok)
      fail(TSR_ERR_SHAPE, where(a, D) + "input of " + std::to_string(in.shape[dim]) + " and output of " +
                              std::to_string(out.shape[dim]) + " elements on dim " + std::to_string(dim) +
                              " do not make a transform (or their other dims differ)");
    if (lines == 0) return;
    if (n > INT32_MAX || lines > INT32_MAX)
      fail(TSR_ERR_INVALID_ARGUMENT, where(a, D) + "cuFFT takes at most 2^31 - 1 elements per line and lines per "
                                                   "plan; this transform has " + std::to_string(lines) +
                                                   " lines of " + std::to_string(n));
    const bool inverse = Op == TSR_OP_IRFFT || (Op == TSR_OP_FFT && a.params[1] != 0);
    const double scale = scalar_as_double(a.scalars[0]);

    // The moved views, and where cuFFT reads and writes (Note at the top).
    const tsr_tensor_desc in_moved = moved_last(in, static_cast<int>(dim));
    const tsr_tensor_desc out_moved = moved_last(out, static_cast<int>(dim));
    const size_t in_elem = tsr_dtype_size(in.dtype), out_elem = tsr_dtype_size(out.dtype);
    const bool in_direct = Op != TSR_OP_IRFFT && row_major(in_moved);
    const bool out_direct = row_major(out_moved);
    const Workspace in_buf(ex, in_direct ? 0 : static_cast<size_t>(lines * in_len) * in_elem);
    const Workspace out_buf(ex, out_direct ? 0 : static_cast<size_t>(lines * out_len) * out_elem);
    void* src = in_direct ? static_cast<char*>(in.data) + in.offset * static_cast<int64_t>(in_elem) : in_buf.get();
    void* dst = out_direct ? static_cast<char*>(out.data) + out.offset * static_cast<int64_t>(out_elem) : out_buf.get();
    if (!in_direct) copy_same_dtype(ex, contiguous_like(in_moved, src), in_moved);
    if constexpr (Op == TSR_OP_IRFFT) {
      TSR_LAUNCH(blocks_for(static_cast<uint64_t>(lines), "irfft"), kPointwiseBlock, ex.stream, hermitian_kernel<R>)(
          static_cast<R*>(src), static_cast<uint64_t>(lines), static_cast<uint64_t>(in_len), n % 2 == 0);
      ex.check_launch("hermitian_kernel");
    }
    {
      std::lock_guard<std::mutex> lock(ex.dev.fft_mutex);
      const cufftType type = Op == TSR_OP_FFT ? (kDouble ? CUFFT_Z2Z : CUFFT_C2C)
                             : Op == TSR_OP_RFFT ? (kDouble ? CUFFT_D2Z : CUFFT_R2C)
                                                 : (kDouble ? CUFFT_Z2D : CUFFT_C2R);
      const cufftHandle h = plan_for(ex, static_cast<int>(n), static_cast<int>(lines), type);
      TSR_CUFFT_CHECK(ex, cufftSetStream(h, ex.stream));
      if constexpr (Op == TSR_OP_FFT) {
        if constexpr (kDouble)
          TSR_CUFFT_CHECK(ex, cufftExecZ2Z(h, static_cast<Cx*>(src), static_cast<Cx*>(dst),
                                           inverse ? CUFFT_INVERSE : CUFFT_FORWARD));
        else
          TSR_CUFFT_CHECK(ex, cufftExecC2C(h, static_cast<Cx*>(src), static_cast<Cx*>(dst),
                                           inverse ? CUFFT_INVERSE : CUFFT_FORWARD));
      } else if constexpr (Op == TSR_OP_RFFT) {
        if constexpr (kDouble) TSR_CUFFT_CHECK(ex, cufftExecD2Z(h, static_cast<Re*>(src), static_cast<Cx*>(dst)));
        else TSR_CUFFT_CHECK(ex, cufftExecR2C(h, static_cast<Re*>(src), static_cast<Cx*>(dst)));
      } else {
        if constexpr (kDouble) TSR_CUFFT_CHECK(ex, cufftExecZ2D(h, static_cast<Cx*>(src), static_cast<Re*>(dst)));
        else TSR_CUFFT_CHECK(ex, cufftExecC2R(h, static_cast<Cx*>(src), static_cast<Re*>(dst)));
      }
    }
    if (scale != 1.0) {
      const uint64_t reals = static_cast<uint64_t>(lines * out_len) * (Op == TSR_OP_IRFFT ? 1 : 2);
      TSR_LAUNCH(blocks_for(reals, "fft scale"), kPointwiseBlock, ex.stream, scale_kernel<R>)(
          static_cast<R*>(dst), reals, static_cast<R>(scale));
      ex.check_launch("scale_kernel");
    }
    if (!out_direct) copy_same_dtype(ex, out_moved, contiguous_like(out_moved, dst));
  }
};

}  // namespace

void add_fft_kernels(KernelList& list) { add_kernels_of_kind<FftKernel, TSR_OP_KIND_FFT>(list); }

}  // namespace tessera::cuda
