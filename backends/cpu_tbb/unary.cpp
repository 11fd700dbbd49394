// SPDX-License-Identifier: Apache-2.0
// FILL, the unary pointwise ops (NEG..TANH and the fused activations GELU,
// GELU_TANH, SILU), and the ops of three inputs: WHERE and CLAMP (ABI 1.11:
// one pass where the runtime's composite makes two).
#include <cmath>
#include <type_traits>

#include "binary_ops.hpp"
#include "elementwise.hpp"
#include "kernels.hpp"
#include "math_ops.hpp"
#include "cloned_loops.hpp"
#include "complex_ops.hpp"
#include "vector_math.hpp"

namespace tessera::cpu_tbb {

namespace {

template <int Op, class C> auto apply(C a) {
  constexpr bool is_int = std::is_integral_v<C>;
  if constexpr (Op == TSR_OP_NEG) {
    if constexpr (is_int) return wrap_neg(a);
    else return -a;
  } else if constexpr (Op == TSR_OP_ABS) {
    if constexpr (std::is_unsigned_v<C>) return a;
    else if constexpr (is_int) return a < 0 ? wrap_neg(a) : a;  // abs(INT_MIN) wraps to INT_MIN
    else return std::abs(a);  // complex: |z| (hypot), a real value
  } else if constexpr (Op == TSR_OP_RELU) {
    if constexpr (std::is_unsigned_v<C>) return a;
    else return a < C(0) ? C(0) : a;  // NaN and -0.0 pass through, as PyTorch
  } else if constexpr (Op == TSR_OP_EXP) {
    if constexpr (std::is_same_v<C, float>) return exp_f32(a);  // float32, float16, bfloat16
    else return std::exp(a);
  } else if constexpr (Op == TSR_OP_LOG) {
    return std::log(a);
  } else if constexpr (Op == TSR_OP_SQRT) {
    return std::sqrt(a);
  } else if constexpr (Op == TSR_OP_SIGMOID) {
    if constexpr (std::is_same_v<C, float>) return sigmoid_f32(a);
    else if constexpr (is_complex_type_v<C>) return C(1) / (C(1) + std::exp(-a));
    else {
      // exp of a non-positive argument only: no overflow for large |a|.
      if (a >= C(0)) return C(1) / (C(1) + std::exp(-a));
      const C e = std::exp(a);
      return e / (C(1) + e);
    }
  } else if constexpr (Op == TSR_OP_GELU || Op == TSR_OP_GELU_TANH || Op == TSR_OP_SILU) {
    return backend::apply_activation<Op>(a);  // one pass where the composite takes six to nine
  } else {
    static_assert(Op == TSR_OP_TANH);
    if constexpr (is_complex_type_v<C>) return complex_tanh(a);  // the standard's special cases
    else return std::tanh(a);
  }
}

template <int Op, int D> struct UnaryKernel {
  // ABS of a complex dtype writes its real dtype (Note [Complex dtypes]).
  static constexpr int kOut = Op == TSR_OP_ABS ? tsr_dtype_real(D) : D;
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 1, 0, 0);
    backend::check_unary_operands("cpu_tbb", a, D, kOut);
    const tsr_tensor_desc& out = *a.output;
    const tsr_tensor_desc& x = *a.inputs[0];
    using S = storage_t<D>;
    using O = storage_t<kOut>;
    auto f = [](S u) { return store<O>(apply<Op>(load(u))); };
    if constexpr (D == TSR_FLOAT32 && has_unary_loop_f32(Op)) {
      // Unit-stride runs take the loops cloned per ISA level (same results as f).
      pointwise<S, S>(ctx, out, {&x}, f, [](int64_t n, int64_t rows, char* const* p, const int64_t* step) {
        const int64_t so = rows > 1 ? step[0] / 4 : 0, sa = rows > 1 ? step[1] / 4 : 0;
        unary_rows_f32(Op, reinterpret_cast<float*>(p[0]), reinterpret_cast<const float*>(p[1]), n, rows, so, sa);
      });
    } else {
      pointwise<O, S>(ctx, out, {&x}, f);
    }
  }
};

template <int Op, int D> struct FillKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 0, 1, 0);
    check_dtype(a, D, *a.output, D, "output");
    using S = storage_t<D>;
    const S value = scalar_to<S>(a.scalars[0]);
    pointwise<S>(ctx, *a.output, {}, [value] { return value; });
  }
};

template <int Op, int D> struct WhereKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 3, 0, 0);
    const tsr_tensor_desc& out = *a.output;
    using S = storage_t<D>;
    check_dtype(a, D, *a.inputs[0], TSR_BOOL, "condition");
    check_dtype(a, D, *a.inputs[1], D, "input 1");
    check_dtype(a, D, *a.inputs[2], D, "input 2");
    check_dtype(a, D, out, D, "output");
    for (int i = 0; i < 3; ++i) check_same_shape(a, D, *a.inputs[i], "input");
    pointwise<S, Bool, S, S>(ctx, out, {a.inputs[0], a.inputs[1], a.inputs[2]},
                             [](Bool c, S u, S v) { return c.value != 0 ? u : v; });
  }
};

template <int Op, int D> struct ClampKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 3, 0, 0);
    const tsr_tensor_desc& out = *a.output;
    using S = storage_t<D>;
    for (int i = 0; i < 3; ++i) {
      check_dtype(a, D, *a.inputs[i], D, "input");
      check_same_shape(a, D, *a.inputs[i], "input");
    }
    check_dtype(a, D, out, D, "output");
    pointwise<S, S, S, S>(ctx, out, {a.inputs[0], a.inputs[1], a.inputs[2]}, [](S x, S lo, S hi) {
      return store<S>(backend::minimum(backend::maximum(load(x), load(lo)), load(hi)));
    });
  }
};

}  // namespace

void add_unary_kernels(KernelList& list) {
  add_kernels<FillKernel, TSR_OP_FILL>(list);
  add_kernels_of_kind<UnaryKernel, TSR_OP_KIND_UNARY>(list);
  add_kernels<WhereKernel, TSR_OP_WHERE>(list);
  add_kernels<ClampKernel, TSR_OP_CLAMP>(list);
}

}  // namespace tessera::cpu_tbb
