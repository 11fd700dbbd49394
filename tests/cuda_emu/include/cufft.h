/* SPDX-License-Identifier: Apache-2.0 */
// cuFFT as the CUDA backend calls it (fft.cu), emulated on the host for
// cuda_emu.so over KissFFT (Debian's libkissfft-dev: its C library for
// float, its C++ template kissfft.hh for double): cufftPlanMany (rank 1,
// contiguous or with the advanced layout's strides and distances),
// cufftPlan1d, cufftSetStream, cufftExecC2C/Z2Z/R2C/D2Z/C2R/Z2D and
// cufftDestroy. Each call checks its arguments as cuFFT documents them
// (CUFFT_INVALID_PLAN: no such plan, or an exec of another type than the
// plan's; CUFFT_INVALID_SIZE: n or batch below 1; CUFFT_INVALID_VALUE: a
// NULL pointer or a direction other than CUFFT_FORWARD and CUFFT_INVERSE;
// CUFFT_NOT_SUPPORTED: a rank other than 1, which cuFFT has and the backend
// does not use), then queues the transform on the plan's stream (Note
// [Emulated streams] in cuda_runtime.h), which reads and writes the
// "device" memory when it runs. Transforms are unnormalised, as cuFFT's;
// C2R reads the Hermitian half (the imaginary parts of X[0] and X[n/2]
// drop out, as they do on the GPU). KissFFT's generic butterfly costs
// O(n p) for a prime factor p: slow for large primes, which is no matter
// here.
#pragma once

#include <complex>
#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <kiss_fft.h>
#include <kissfft.hh>

#include "cuda_runtime.h"

typedef int cufftHandle;
typedef float cufftReal;
typedef double cufftDoubleReal;
struct cufftComplex {
  float x, y;
};
struct cufftDoubleComplex {
  double x, y;
};

enum cufftResult {
  CUFFT_SUCCESS = 0,
  CUFFT_INVALID_PLAN = 1,
  CUFFT_ALLOC_FAILED = 2,
  CUFFT_INVALID_TYPE = 3,
  CUFFT_INVALID_VALUE = 4,
  CUFFT_INTERNAL_ERROR = 5,
  CUFFT_EXEC_FAILED = 6,
  CUFFT_SETUP_FAILED = 7,
  CUFFT_INVALID_SIZE = 8,
  CUFFT_UNALIGNED_DATA = 9,
  CUFFT_INCOMPLETE_PARAMETER_LIST = 10,
  CUFFT_INVALID_DEVICE = 11,
  CUFFT_PARSE_ERROR = 12,
  CUFFT_NO_WORKSPACE = 13,
  CUFFT_NOT_IMPLEMENTED = 14,
  CUFFT_LICENSE_ERROR = 15,
  CUFFT_NOT_SUPPORTED = 16,
};
enum cufftType {
  CUFFT_R2C = 0x2a,
  CUFFT_C2R = 0x2c,
  CUFFT_C2C = 0x29,
  CUFFT_D2Z = 0x6a,
  CUFFT_Z2D = 0x6c,
  CUFFT_Z2Z = 0x69,
};
#define CUFFT_FORWARD (-1)
#define CUFFT_INVERSE 1

namespace tessera_cuda_emu {

struct FftPlan {
  int n = 0, batch = 0;
  int istride = 1, idist = 0, ostride = 1, odist = 0;  // in elements of the input's and output's types
  cufftType type = CUFFT_C2C;
  cudaStream_t stream = nullptr;
};

struct FftPlans {
  std::mutex mutex;
  int next = 1;
  std::unordered_map<int, FftPlan> plans;
};
inline FftPlans& fft_plans() {
  static FftPlans p;
  return p;
}

inline bool fft_plan(cufftHandle h, FftPlan* out) {
  std::lock_guard<std::mutex> lock(fft_plans().mutex);
  auto it = fft_plans().plans.find(h);
  if (it == fft_plans().plans.end()) return false;
  *out = it->second;
  return true;
}

// One complex transform of n contiguous elements, out of place: KissFFT.
inline void kiss_transform(int n, bool inverse, const std::complex<float>* in, std::complex<float>* out) {
  if (n == 1) {
    *out = *in;
    return;
  }
  const std::unique_ptr<kiss_fft_state, void (*)(void*)> cfg(kiss_fft_alloc(n, inverse ? 1 : 0, nullptr, nullptr),
                                                             [](void* p) { kiss_fft_free(p); });
  kiss_fft(cfg.get(), reinterpret_cast<const kiss_fft_cpx*>(in), reinterpret_cast<kiss_fft_cpx*>(out));
}
inline void kiss_transform(int n, bool inverse, const std::complex<double>* in, std::complex<double>* out) {
  if (n == 1) {
    *out = *in;
    return;
  }
  const kissfft<double> fft(static_cast<size_t>(n), inverse);
  fft.transform(in, out);
}

// Queues plan p's transform: In and Out the element types of its input and
// output (R or complex<R>), sign -1 forward or +1 inverse.
template <class R, class In, class Out> cufftResult fft_exec(const FftPlan& p, const void* idata, void* odata, int sign) {
  if (idata == nullptr || odata == nullptr) return CUFFT_INVALID_VALUE;
  enqueue(p.stream, [p, in = static_cast<const In*>(idata), out = static_cast<Out*>(odata), sign] {
    using C = std::complex<R>;
    const int n = p.n;
    std::vector<C> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    for (int k = 0; k < p.batch; ++k) {
      const In* x = in + static_cast<ptrdiff_t>(k) * p.idist;
      Out* y = out + static_cast<ptrdiff_t>(k) * p.odist;
      if constexpr (std::is_same_v<In, R>) {  // R2C
        for (int j = 0; j < n; ++j) a[static_cast<size_t>(j)] = C(x[static_cast<ptrdiff_t>(j) * p.istride], 0);
      } else if constexpr (std::is_same_v<Out, R>) {  // C2R: the Hermitian half, then its mirror
        const int half = n / 2 + 1;
        for (int j = 0; j < half; ++j) {
          const In& v = x[static_cast<ptrdiff_t>(j) * p.istride];
          a[static_cast<size_t>(j)] = C(v.x, v.y);
        }
        for (int j = half; j < n; ++j) a[static_cast<size_t>(j)] = std::conj(a[static_cast<size_t>(n - j)]);
      } else {
        for (int j = 0; j < n; ++j) {
          const In& v = x[static_cast<ptrdiff_t>(j) * p.istride];
          a[static_cast<size_t>(j)] = C(v.x, v.y);
        }
      }
      kiss_transform(n, sign > 0, a.data(), b.data());
      if constexpr (std::is_same_v<Out, R>) {
        for (int j = 0; j < n; ++j) y[static_cast<ptrdiff_t>(j) * p.ostride] = b[static_cast<size_t>(j)].real();
      } else {
        const int len = std::is_same_v<In, R> ? n / 2 + 1 : n;
        for (int j = 0; j < len; ++j) {
          Out& v = y[static_cast<ptrdiff_t>(j) * p.ostride];
          v.x = b[static_cast<size_t>(j)].real();
          v.y = b[static_cast<size_t>(j)].imag();
        }
      }
    }
  });
  return CUFFT_SUCCESS;
}

template <class R, class In, class Out>
cufftResult fft_exec_checked(cufftHandle plan, cufftType type, const void* idata, void* odata, int sign) {
  FftPlan p;
  if (!fft_plan(plan, &p) || p.type != type) return CUFFT_INVALID_PLAN;
  if (sign != CUFFT_FORWARD && sign != CUFFT_INVERSE) return CUFFT_INVALID_VALUE;
  return fft_exec<R, In, Out>(p, idata, odata, sign);
}

}  // namespace tessera_cuda_emu

inline cufftResult cufftPlanMany(cufftHandle* plan, int rank, int* n, int* inembed, int istride, int idist,
                                 int* onembed, int ostride, int odist, cufftType type, int batch) {
  using namespace tessera_cuda_emu;
  if (plan == nullptr || n == nullptr) return CUFFT_INVALID_VALUE;
  if (rank != 1) return CUFFT_NOT_SUPPORTED;  // cuFFT has ranks 2 and 3; the backend uses 1
  if (n[0] < 1 || batch < 1) return CUFFT_INVALID_SIZE;
  if (type != CUFFT_C2C && type != CUFFT_Z2Z && type != CUFFT_R2C && type != CUFFT_D2Z && type != CUFFT_C2R &&
      type != CUFFT_Z2D)
    return CUFFT_INVALID_TYPE;
  FftPlan p;
  p.n = n[0];
  p.batch = batch;
  p.type = type;
  const bool r2c = type == CUFFT_R2C || type == CUFFT_D2Z, c2r = type == CUFFT_C2R || type == CUFFT_Z2D;
  const int in_len = c2r ? n[0] / 2 + 1 : n[0], out_len = r2c ? n[0] / 2 + 1 : n[0];
  if (inembed == nullptr || onembed == nullptr) {  // the basic layout: contiguous, the strides ignored
    p.idist = in_len;
    p.odist = out_len;
  } else {
    if (istride < 1 || ostride < 1 || idist < 1 || odist < 1) return CUFFT_INVALID_VALUE;
    p.istride = istride;
    p.idist = idist;
    p.ostride = ostride;
    p.odist = odist;
  }
  std::lock_guard<std::mutex> lock(fft_plans().mutex);
  *plan = fft_plans().next++;
  fft_plans().plans[*plan] = p;
  return CUFFT_SUCCESS;
}

inline cufftResult cufftPlan1d(cufftHandle* plan, int nx, cufftType type, int batch) {
  return cufftPlanMany(plan, 1, &nx, nullptr, 1, 0, nullptr, 1, 0, type, batch);
}

inline cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream) {
  using namespace tessera_cuda_emu;
  std::lock_guard<std::mutex> lock(fft_plans().mutex);
  auto it = fft_plans().plans.find(plan);
  if (it == fft_plans().plans.end()) return CUFFT_INVALID_PLAN;
  it->second.stream = stream;
  return CUFFT_SUCCESS;
}

inline cufftResult cufftDestroy(cufftHandle plan) {
  using namespace tessera_cuda_emu;
  std::lock_guard<std::mutex> lock(fft_plans().mutex);
  return fft_plans().plans.erase(plan) == 1 ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

inline cufftResult cufftExecC2C(cufftHandle plan, cufftComplex* idata, cufftComplex* odata, int direction) {
  return tessera_cuda_emu::fft_exec_checked<float, cufftComplex, cufftComplex>(plan, CUFFT_C2C, idata, odata, direction);
}
inline cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleComplex* odata, int direction) {
  return tessera_cuda_emu::fft_exec_checked<double, cufftDoubleComplex, cufftDoubleComplex>(plan, CUFFT_Z2Z, idata,
                                                                                            odata, direction);
}
inline cufftResult cufftExecR2C(cufftHandle plan, cufftReal* idata, cufftComplex* odata) {
  return tessera_cuda_emu::fft_exec_checked<float, cufftReal, cufftComplex>(plan, CUFFT_R2C, idata, odata,
                                                                            CUFFT_FORWARD);
}
inline cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal* idata, cufftDoubleComplex* odata) {
  return tessera_cuda_emu::fft_exec_checked<double, cufftDoubleReal, cufftDoubleComplex>(plan, CUFFT_D2Z, idata,
                                                                                         odata, CUFFT_FORWARD);
}
inline cufftResult cufftExecC2R(cufftHandle plan, cufftComplex* idata, cufftReal* odata) {
  return tessera_cuda_emu::fft_exec_checked<float, cufftComplex, cufftReal>(plan, CUFFT_C2R, idata, odata,
                                                                            CUFFT_INVERSE);
}
inline cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleReal* odata) {
  return tessera_cuda_emu::fft_exec_checked<double, cufftDoubleComplex, cufftDoubleReal>(plan, CUFFT_Z2D, idata,
                                                                                         odata, CUFFT_INVERSE);
}
