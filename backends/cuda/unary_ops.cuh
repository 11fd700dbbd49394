// SPDX-License-Identifier: Apache-2.0
// The unary functors (NEG..TANH, GELU, GELU_TANH, SILU) on the compute type, the CPU backend's
// (backends/cpu_tbb/unary.cpp) arithmetic rule for rule. Transcendentals use
// CUDA's libdevice (within 1-2 ulp of glibc's, not bit-equal); complex ones
// libcu++'s cuda::std::complex (Note [Complex element types]).
#pragma once

#include <type_traits>

#include "complex_ops.hpp"
#include "dtypes.cuh"
#include "math_ops.hpp"
#include "tessera/ops.h"

namespace tessera::cuda {

// The complex forms: ABS gives |z| (hypot), a real value (Note [Complex
// dtypes]); the functions are thrust's (Note [Complex functions on the GPU]).
template <int Op, class C> TSR_HD auto apply_complex_unary(C a) {
  if constexpr (Op == TSR_OP_NEG) return -a;
  else if constexpr (Op == TSR_OP_ABS) return cx::abs(a);
  else if constexpr (Op == TSR_OP_EXP) return complex_exp(a);
  else if constexpr (Op == TSR_OP_LOG) return complex_log(a);
  else if constexpr (Op == TSR_OP_SQRT) return complex_sqrt(a);
  else if constexpr (Op == TSR_OP_SIGMOID) return C(1) / (C(1) + complex_exp(-a));
  else {
    static_assert(Op == TSR_OP_TANH);
    return complex_tanh(a);
  }
}

template <int Op, class C> TSR_HD auto apply_unary(C a) {
  constexpr bool is_int = std::is_integral_v<C>;
  if constexpr (is_complex_type_v<C>) {
    return apply_complex_unary<Op>(a);
  } else if constexpr (Op == TSR_OP_NEG) {
    if constexpr (is_int) return wrap_neg(a);
    else return C(-a);
  } else if constexpr (Op == TSR_OP_ABS) {
    if constexpr (std::is_unsigned_v<C>) return a;
    else if constexpr (is_int) return a < 0 ? wrap_neg(a) : a;  // abs(INT_MIN) wraps to INT_MIN
    else return m_abs(a);
  } else if constexpr (Op == TSR_OP_RELU) {
    if constexpr (std::is_unsigned_v<C>) return a;
    else return a < C(0) ? C(0) : a;  // NaN and -0.0 pass through, as PyTorch
  } else if constexpr (Op == TSR_OP_EXP) {
    return m_exp(a);
  } else if constexpr (Op == TSR_OP_LOG) {
    return m_log(a);
  } else if constexpr (Op == TSR_OP_SQRT) {
    return m_sqrt(a);
  } else if constexpr (Op == TSR_OP_SIGMOID) {
    // exp of a non-positive argument only: no overflow for large |a|.
    if (a >= C(0)) return C(1) / (C(1) + m_exp(-a));
    const C e = m_exp(a);
    return e / (C(1) + e);
  } else if constexpr (Op == TSR_OP_GELU || Op == TSR_OP_GELU_TANH || Op == TSR_OP_SILU) {
    return backend::apply_activation<Op>(a);  // fused: one read, one write
  } else {
    static_assert(Op == TSR_OP_TANH);
    return m_tanh(a);
  }
}

// O: the output's storage type (ABS of a complex dtype: its real dtype's).
template <int Op, class O, class S = O> struct UnaryFn {
  TSR_HD O operator()(S u) const { return store<O>(apply_unary<Op>(load(u))); }
};

template <class S> struct FillFn {
  S value;
  TSR_HD S operator()() const { return value; }
};

template <class S> struct WhereFn {
  TSR_HD S operator()(Bool c, S u, S v) const { return c.value != 0 ? u : v; }
};

}  // namespace tessera::cuda
