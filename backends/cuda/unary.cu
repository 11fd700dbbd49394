// SPDX-License-Identifier: Apache-2.0
// FILL, the unary pointwise ops (NEG..TANH, GELU, GELU_TANH, SILU), and WHERE. Bandwidth: one read and
// one write per element (WHERE: three reads), FILL a write only, at the
// rates of elementwise.cuh.
#include "elementwise.cuh"
#include "kernels.hpp"
#include "unary_ops.cuh"

namespace tessera::cuda {

namespace {

template <int Op, int D> struct UnaryKernel {
  static constexpr int key = D;
  // ABS of a complex dtype writes its real dtype (Note [Complex dtypes]).
  static constexpr int kOut = Op == TSR_OP_ABS ? tsr_dtype_real(D) : D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 1, 0, 0);
    backend::check_unary_operands("cuda", a, D, kOut);
    const tsr_tensor_desc& out = *a.output;
    const tsr_tensor_desc& x = *a.inputs[0];
    using S = storage_t<D>;
    using O = storage_t<kOut>;
    pointwise<O, S>(ex, out, {&x}, UnaryFn<Op, O, S>{});
  }
};

template <int Op, int D> struct FillKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 0, 1, 0);
    check_dtype(a, D, *a.output, D, "output");
    using S = storage_t<D>;
    pointwise<S>(ex, *a.output, {}, FillFn<S>{scalar_to<S>(a.scalars[0])});
  }
};

template <int Op, int D> struct WhereKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 3, 0, 0);
    const tsr_tensor_desc& out = *a.output;
    check_dtype(a, D, *a.inputs[0], TSR_BOOL, "condition");
    check_dtype(a, D, *a.inputs[1], D, "input 1");
    check_dtype(a, D, *a.inputs[2], D, "input 2");
    check_dtype(a, D, out, D, "output");
    for (int i = 0; i < 3; ++i) check_same_shape(a, D, *a.inputs[i], "input");
    using S = storage_t<D>;
    pointwise<S, Bool, S, S>(ex, out, {a.inputs[0], a.inputs[1], a.inputs[2]}, WhereFn<S>{});
  }
};

}  // namespace

void fill_zero(const Exec& ex, const tsr_tensor_desc& out) {
  bool done = false;
  for_each_dtype([&]<int D>(std::integral_constant<int, D>) {
    if constexpr (dtype_built(D)) {  // Note [Kernel dtypes of a build]
      if (D != out.dtype) return;
      using S = storage_t<D>;
      pointwise<S>(ex, out, {}, FillFn<S>{convert<S>(0)});
      done = true;
    }
  });
  if (!done) fail(TSR_ERR_TYPE, ex.where() + "unknown dtype " + std::to_string(out.dtype));
}

void add_unary_kernels(KernelList& list) {
  add_kernels<FillKernel, TSR_OP_FILL>(list);
  add_kernels_of_kind<UnaryKernel, TSR_OP_KIND_UNARY>(list);
  add_kernels<WhereKernel, TSR_OP_WHERE>(list);
}

}  // namespace tessera::cuda
