// SPDX-License-Identifier: Apache-2.0
// The unary functors NEG..TANH on the compute type, the CPU backend's
// (backends/cpu_tbb/unary.cpp) arithmetic rule for rule. Transcendentals use
// CUDA's libdevice (within 1-2 ulp of glibc's, not bit-equal).
#pragma once

#include <type_traits>

#include "dtypes.cuh"
#include "tessera/ops.h"

namespace tessera::cuda {

template <int Op, class C> TSR_HD C apply_unary(C a) {
  constexpr bool is_int = std::is_integral_v<C>;
  if constexpr (Op == TSR_OP_NEG) {
    if constexpr (is_int) return wrap_neg(a);
    else return -a;
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
  } else {
    static_assert(Op == TSR_OP_TANH);
    return m_tanh(a);
  }
}

template <int Op, class S> struct UnaryFn {
  TSR_HD S operator()(S u) const { return store<S>(apply_unary<Op>(load(u))); }
};

template <class S> struct FillFn {
  S value;
  TSR_HD S operator()() const { return value; }
};

template <class S> struct WhereFn {
  TSR_HD S operator()(Bool c, S u, S v) const { return c.value != 0 ? u : v; }
};

}  // namespace tessera::cuda
