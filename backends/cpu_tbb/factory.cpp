// SPDX-License-Identifier: Apache-2.0
// Creation kernels whose values depend on the element's position: ARANGE,
// LINSPACE (PyTorch's CPU arithmetic), RAND_UNIFORM and RAND_NORMAL (Note
// [Counter-based random numbers] in tessera/random.h). Positions are row-major
// indices, so any output layout gets the same values.
#include <type_traits>

#include "elementwise.hpp"
#include "kernels.hpp"
#include "philox.hpp"

namespace tessera::cpu_tbb {

namespace {

// ARANGE: out[i] = start + i * step in PyTorch's accumulate type: int64 for
// integral dtypes (the scalars truncated first), float for float16/bfloat16,
// double for float32/float64.
template <int Op, int D> struct ArangeKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 0, 2, 0);
    check_dtype(a, D, *a.output, D, "output");
    using S = storage_t<D>;
    if constexpr (is_integral_v<D>) {
      const uint64_t start = static_cast<uint64_t>(scalar_as_int(a.scalars[0]));
      const uint64_t step = static_cast<uint64_t>(scalar_as_int(a.scalars[1]));
      generate<S>(ctx, *a.output, [=](int64_t i) { return static_cast<S>(static_cast<int64_t>(start + step * static_cast<uint64_t>(i))); });
    } else {
      using Acc = std::conditional_t<std::is_same_v<compute_t<D>, float> && D != TSR_FLOAT32, float, double>;
      const Acc start = static_cast<Acc>(scalar_as_double(a.scalars[0]));
      const Acc step = static_cast<Acc>(scalar_as_double(a.scalars[1]));
      generate<S>(ctx, *a.output, [=](int64_t i) { return convert<S>(start + step * static_cast<Acc>(i)); });
    }
  }
};

// LINSPACE over n = numel(out) points: the front half counts up from start,
// the back half down from end. Floating dtypes compute in their own type
// (float for float16/bfloat16) from start/end rounded to the dtype; integral
// dtypes truncate start/end to the dtype and step in double.
template <int Op, int D> struct LinspaceKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 0, 2, 0);
    const tsr_tensor_desc& out = *a.output;
    check_dtype(a, D, out, D, "output");
    using S = storage_t<D>;
    const int64_t n = numel_of(out);
    const int64_t halfway = n / 2;
    using T = std::conditional_t<is_integral_v<D>, double, compute_t<D>>;
    const T start = static_cast<T>(load(scalar_to<S>(a.scalars[0])));
    const T end = static_cast<T>(load(scalar_to<S>(a.scalars[1])));
    if (n == 1) {
      generate<S>(ctx, out, [=](int64_t) { return convert<S>(start); });
      return;
    }
    const T step = (end - start) / static_cast<T>(n - 1);
    generate<S>(ctx, out, [=](int64_t i) {
      return convert<S>(i < halfway ? start + step * static_cast<T>(i) : end - step * static_cast<T>(n - 1 - i));
    });
  }
};

template <int Op, int D> struct RandKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 0, 2, 2);
    check_dtype(a, D, *a.output, D, "output");
    using S = storage_t<D>;
    const uint64_t seed = static_cast<uint64_t>(a.params[0]);
    const uint64_t offset = static_cast<uint64_t>(a.params[1]);
    const double s0 = scalar_as_double(a.scalars[0]), s1 = scalar_as_double(a.scalars[1]);
    if constexpr (Op == TSR_OP_RAND_UNIFORM) {
      generate<S>(ctx, *a.output, [=](int64_t i) {
        return convert<S>(backend::philox_uniform(D, seed, offset + static_cast<uint64_t>(i), s0, s1));
      });
    } else {
      generate<S>(ctx, *a.output, [=](int64_t i) {
        return convert<S>(backend::philox_normal(seed, offset + static_cast<uint64_t>(i), s0, s1));
      });
    }
  }
};

}  // namespace

void add_factory_kernels(KernelList& list) {
  add_kernels<ArangeKernel, TSR_OP_ARANGE>(list);
  add_kernels<LinspaceKernel, TSR_OP_LINSPACE>(list);
  add_kernels_of_kind<RandKernel, TSR_OP_KIND_RANDOM>(list);
}

}  // namespace tessera::cpu_tbb
