// SPDX-License-Identifier: Apache-2.0
// MATH's functions (enum tsr_math_fn, tessera/ops.h) on the compute type
// (float for float16 and bfloat16, rounded once on store): one definition
// for the CPU and GPU backends, host and device code.
#pragma once

#include <type_traits>
#include <utility>

#include "complex_ops.hpp"
#include "element_types.hpp"
#include "tessera/ops.h"

namespace tessera::backend {

#define TSR_MATH_OVERLOADS_(name)                                \
  TSR_HD float m_##name(float x) { return ::name##f(x); }       \
  TSR_HD double m_##name(double x) { return ::name(x); }
TSR_MATH_OVERLOADS_(sin)
TSR_MATH_OVERLOADS_(cos)
TSR_MATH_OVERLOADS_(tan)
TSR_MATH_OVERLOADS_(asin)
TSR_MATH_OVERLOADS_(acos)
TSR_MATH_OVERLOADS_(atan)
TSR_MATH_OVERLOADS_(sinh)
TSR_MATH_OVERLOADS_(cosh)
TSR_MATH_OVERLOADS_(asinh)
TSR_MATH_OVERLOADS_(acosh)
TSR_MATH_OVERLOADS_(atanh)
TSR_MATH_OVERLOADS_(expm1)
TSR_MATH_OVERLOADS_(log2)
TSR_MATH_OVERLOADS_(log10)
TSR_MATH_OVERLOADS_(ceil)
TSR_MATH_OVERLOADS_(trunc)
TSR_MATH_OVERLOADS_(rint)
TSR_MATH_OVERLOADS_(erf)
#undef TSR_MATH_OVERLOADS_

template <int Fn, class C> TSR_HD C apply_real_math(C x) {
  if constexpr (Fn == TSR_MATH_SIN) return m_sin(x);
  else if constexpr (Fn == TSR_MATH_COS) return m_cos(x);
  else if constexpr (Fn == TSR_MATH_TAN) return m_tan(x);
  else if constexpr (Fn == TSR_MATH_ASIN) return m_asin(x);
  else if constexpr (Fn == TSR_MATH_ACOS) return m_acos(x);
  else if constexpr (Fn == TSR_MATH_ATAN) return m_atan(x);
  else if constexpr (Fn == TSR_MATH_SINH) return m_sinh(x);
  else if constexpr (Fn == TSR_MATH_COSH) return m_cosh(x);
  else if constexpr (Fn == TSR_MATH_ASINH) return m_asinh(x);
  else if constexpr (Fn == TSR_MATH_ACOSH) return m_acosh(x);
  else if constexpr (Fn == TSR_MATH_ATANH) return m_atanh(x);
  else if constexpr (Fn == TSR_MATH_EXPM1) return m_expm1(x);
  else if constexpr (Fn == TSR_MATH_LOG1P) return m_log1p(x);
  else if constexpr (Fn == TSR_MATH_LOG2) return m_log2(x);
  else if constexpr (Fn == TSR_MATH_LOG10) return m_log10(x);
  else if constexpr (Fn == TSR_MATH_FLOOR) return m_floor(x);
  else if constexpr (Fn == TSR_MATH_CEIL) return m_ceil(x);
  else if constexpr (Fn == TSR_MATH_TRUNC) return m_trunc(x);
  else if constexpr (Fn == TSR_MATH_ROUND) return m_rint(x);  // ties to even in the default rounding mode
  else if constexpr (Fn == TSR_MATH_CONJ) return x;  // real: the identity
  else if constexpr (Fn == TSR_MATH_ERF) return m_erf(x);
  else {
    static_assert(Fn == TSR_MATH_SIGN);
    if (x > C(0)) return C(1);
    if (x < C(0)) return C(-1);
    return x == x ? C(0) : x;  // +-0 -> +0, NaN stays
  }
}

// MATH's function Fn on a value of a compute type.
template <int Fn, class C> TSR_HD C apply_math(C x) {
  if constexpr (is_complex_type_v<C>) {
    return complex_math<Fn>(x);  // complex_ops.hpp
  } else {
    static_assert(std::is_floating_point_v<C>);
    return apply_real_math<Fn>(x);
  }
}

// The fused activations GELU, GELU_TANH and SILU (ABI 1.10, tessera/ops.h)
// on a real compute type, operation for operation as PyTorch 1.13's CPU
// kernels write them (the runtime's composite, runtime/composite.cpp,
// composes the same formulas from primitives where a device has no kernel).
template <int Op, class C> TSR_HD C apply_activation(C x) {
  static_assert(std::is_floating_point_v<C>);
  if constexpr (Op == TSR_OP_GELU) {
    return x * C(0.5) * (C(1) + m_erf(x * C(0.70710678118654752440)));  // x/2 (1 + erf(x / sqrt 2))
  } else if constexpr (Op == TSR_OP_GELU_TANH) {
    const C beta = C(0.79788456080286535588), kappa = C(0.044715);  // sqrt(2/pi)
    const C inner = beta * (x + kappa * (x * x * x));
    return C(0.5) * x * (C(1) + m_tanh(inner));
  } else {
    static_assert(Op == TSR_OP_SILU);
    return x / (C(1) + m_exp(-x));
  }
}

// Calls f(std::integral_constant<int, Fn>{}) for fn's value; false when fn
// is not a function this build knows (the kernel then reports
// TSR_ERR_UNSUPPORTED, and the runtime falls back).
template <class F> bool with_math_fn(int64_t fn, F&& f) {
  bool found = false;
  [&]<int... Fn>(std::integer_sequence<int, Fn...>) {
    ((fn == Fn ? (f(std::integral_constant<int, Fn>{}), found = true) : false), ...);
  }(std::make_integer_sequence<int, TSR_MATH_FN_COUNT>{});
  return found;
}

}  // namespace tessera::backend
