// SPDX-License-Identifier: Apache-2.0
// MATH: the elementwise functions of one floating argument chosen by
// params[0] (enum tsr_math_fn; backends/common/math_ops.hpp, shared with
// cpu_tbb). The function is chosen on the host, once per call: one kernel
// instantiation per (function, dtype). Bandwidth: one read and one write
// per element (elementwise.cuh); the transcendental ones are compute-bound
// in double.
#include "elementwise.cuh"
#include "kernels.hpp"
#include "math_ops.hpp"

namespace tessera::cuda {

namespace {

template <int Fn, class S> struct MathFn {
  TSR_HD S operator()(S u) const { return store<S>(backend::apply_math<Fn>(load(u))); }
};

template <int Op, int D> struct MathKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 1, 0, 1);
    backend::check_unary_operands("cuda", a, D, D);
    const tsr_tensor_desc& out = *a.output;
    const tsr_tensor_desc& x = *a.inputs[0];
    using S = storage_t<D>;
    if constexpr (is_complex_v<D>) {
      if (!backend::complex_math_defined(a.params[0]))
        fail(TSR_ERR_TYPE, where(a, D) + tsr_math_fn_name(static_cast<int>(a.params[0])) + " is not defined for complex numbers");
    }
    const bool known = backend::with_math_fn(a.params[0], [&]<int Fn>(std::integral_constant<int, Fn>) {
      pointwise<S, S>(ex, out, {&x}, MathFn<Fn, S>{});
    });
    if (!known)
      fail(TSR_ERR_UNSUPPORTED, where(a, D) + "math function " + std::to_string(a.params[0]) + " is not one this plugin knows");
  }
};

}  // namespace

void add_math_kernels(KernelList& list) { add_kernels<MathKernel, TSR_OP_MATH>(list); }

}  // namespace tessera::cuda
