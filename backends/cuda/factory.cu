// SPDX-License-Identifier: Apache-2.0
// Creation kernels whose values depend on the element's position: ARANGE,
// LINSPACE (the CPU backend's arithmetic), RAND_UNIFORM and RAND_NORMAL (Note
// [Counter-based random numbers] in tessera/random.h, whose
// functions this file runs on the GPU, so that a seed gives the same numbers
// on both devices). Positions are row-major indices, so any output layout
// gets the same values.
//
// This file is compiled with --fmad=false: the CPU computes start + step * i
// and low + u * (high - low) as a multiply and an add, each rounded, and a
// fused multiply-add would round once and differ in the last bit.
//
// Bandwidth: one write per element; randn is compute-bound in double-
// precision log/sqrt/cos (~1 ms per 2^28 elements, estimate).
#include <type_traits>

#include "philox.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"

namespace tessera::cuda {

namespace {

struct GenParams {
  char* base;  // data + offset, bytes
  uint64_t numel;
  int ndim;  // dims innermost first, size-1 dropped, merged; 0: contiguous
  uint64_t shape[TSR_MAX_DIMS];
  int64_t stride[TSR_MAX_DIMS];
};

// Thread i: element i in row-major order (dims innermost first in p).
template <class S, class G> TSR_HD void generate_thread(const GenParams& p, const G& g, uint64_t i) {
  if (i >= p.numel) return;
  uint64_t off = i;
  if (p.ndim > 0) {
    off = 0;
    uint64_t rest = i;
    for (int d = 0; d < p.ndim; ++d) {
      const uint64_t q = rest / p.shape[d];
      off += (rest - q * p.shape[d]) * static_cast<uint64_t>(p.stride[d]);
      rest = q;
    }
  }
  reinterpret_cast<S*>(p.base)[off] = g(static_cast<int64_t>(i));
}

#if defined(TSR_KERNELS)
template <class S, class G> __global__ void __launch_bounds__(kPointwiseBlock) generate_kernel(const GenParams p, const G g) {
  generate_thread<S>(p, g, static_cast<uint64_t>(blockIdx.x) * kPointwiseBlock + threadIdx.x);
}
#endif

// out[i] = g(i), i the element's row-major index.
template <class S, class G> void generate(const Exec& ex, const tsr_tensor_desc& out, const G& g) {
  const Plan<1> plan = make_plan(std::array<const tsr_tensor_desc*, 1>{&out}, false);
  if (plan.numel <= 0) return;
  GenParams p{};
  p.base = plan.base[0];
  p.numel = static_cast<uint64_t>(plan.numel);
  const bool contiguous = plan.ndim == 1 && (plan.stride[0][0] == 1 || plan.numel == 1);
  p.ndim = contiguous ? 0 : plan.ndim;
  for (int d = 0; d < plan.ndim; ++d) {
    p.shape[d] = static_cast<uint64_t>(plan.shape[d]);
    p.stride[d] = plan.stride[d][0];
  }
  TSR_LAUNCH(blocks_for(p.numel, "generate"), kPointwiseBlock, ex.stream, generate_kernel<S, G>)(p, g);
  ex.check_launch("generate_kernel");
}

// ARANGE: out[i] = start + i * step in PyTorch's accumulate type: int64 for
// integral dtypes (the scalars truncated first), float for float16/bfloat16,
// double for float32/float64.
template <class S> struct ArangeInt {
  uint64_t start, step;
  __device__ S operator()(int64_t i) const { return static_cast<S>(static_cast<int64_t>(start + step * static_cast<uint64_t>(i))); }
};
template <class S, class Acc> struct ArangeFloat {
  Acc start, step;
  __device__ S operator()(int64_t i) const { return convert<S>(start + step * static_cast<Acc>(i)); }
};

template <int Op, int D> struct ArangeKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 0, 2, 0);
    check_dtype(a, D, *a.output, D, "output");
    using S = storage_t<D>;
    if constexpr (is_integral_v<D>) {
      const uint64_t start = static_cast<uint64_t>(scalar_as_int(a.scalars[0]));
      const uint64_t step = static_cast<uint64_t>(scalar_as_int(a.scalars[1]));
      generate<S>(ex, *a.output, ArangeInt<S>{start, step});
    } else {
      using Acc = std::conditional_t<std::is_same_v<compute_t<D>, float> && D != TSR_FLOAT32, float, double>;
      generate<S>(ex, *a.output,
                  ArangeFloat<S, Acc>{static_cast<Acc>(scalar_as_double(a.scalars[0])), static_cast<Acc>(scalar_as_double(a.scalars[1]))});
    }
  }
};

// LINSPACE over n = numel(out) points: the front half counts up from start,
// the back half down from end (the CPU backend's formula).
template <class S, class T> struct LinspaceFn {
  T start, end, step;
  int64_t n, halfway;
  __device__ S operator()(int64_t i) const {
    if (n == 1) return convert<S>(start);
    return convert<S>(i < halfway ? start + step * static_cast<T>(i) : end - step * static_cast<T>(n - 1 - i));
  }
};

template <int Op, int D> struct LinspaceKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 0, 2, 0);
    const tsr_tensor_desc& out = *a.output;
    check_dtype(a, D, out, D, "output");
    using S = storage_t<D>;
    using T = std::conditional_t<is_integral_v<D>, double, compute_t<D>>;
    const int64_t n = numel_of(out);
    const T start = static_cast<T>(load(scalar_to<S>(a.scalars[0])));
    const T end = static_cast<T>(load(scalar_to<S>(a.scalars[1])));
    const T step = n > 1 ? (end - start) / static_cast<T>(n - 1) : T(0);
    generate<S>(ex, out, LinspaceFn<S, T>{start, end, step, n, n / 2});
  }
};

template <class S, int D> struct UniformFn {
  uint64_t seed, offset;
  double low, high;
  __device__ S operator()(int64_t i) const {
    return convert<S>(backend::philox_uniform(D, seed, offset + static_cast<uint64_t>(i), low, high));
  }
};
template <class S> struct NormalFn {
  uint64_t seed, offset;
  double mean, stddev;
  __device__ S operator()(int64_t i) const {
    return convert<S>(backend::philox_normal(seed, offset + static_cast<uint64_t>(i), mean, stddev));
  }
};

template <int Op, int D> struct RandKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 0, 2, 2);
    check_dtype(a, D, *a.output, D, "output");
    using S = storage_t<D>;
    const uint64_t seed = static_cast<uint64_t>(a.params[0]);
    const uint64_t offset = static_cast<uint64_t>(a.params[1]);
    const double s0 = scalar_as_double(a.scalars[0]), s1 = scalar_as_double(a.scalars[1]);
    if constexpr (Op == TSR_OP_RAND_UNIFORM) generate<S>(ex, *a.output, UniformFn<S, D>{seed, offset, s0, s1});
    else generate<S>(ex, *a.output, NormalFn<S>{seed, offset, s0, s1});
  }
};

}  // namespace

void add_factory_kernels(KernelList& list) {
  add_kernels<ArangeKernel, TSR_OP_ARANGE>(list);
  add_kernels<LinspaceKernel, TSR_OP_LINSPACE>(list);
  add_kernels_of_kind<RandKernel, TSR_OP_KIND_RANDOM>(list);
}

}  // namespace tessera::cuda
