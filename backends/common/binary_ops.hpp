// SPDX-License-Identifier: Apache-2.0
// The binary ops ADD..POW and EQ..GE on the compute type (float for float16
// and bfloat16, rounded once per element on store): one definition of their
// arithmetic for the CPU and GPU backends (host and device code).
#pragma once

#include <type_traits>

#include "element_types.hpp"
#include "tessera/ops.h"

namespace tessera::backend {

// PyTorch's integer pow: repeated squaring with wrapping products; a negative
// exponent gives 1 for base 1, +-1 for base -1, else 0.
template <class T> TSR_HD T int_pow(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent % 2 != 0) ? T(-1) : T(1);
      return 0;
    }
  }
  T result = 1;
  while (exponent != 0) {
    if (exponent & 1) result = wrap_mul(result, base);
    exponent = static_cast<T>(exponent / 2);
    base = wrap_mul(base, base);
  }
  return result;
}

// NaN-propagating max / min (either NaN -> NaN).
template <class C> TSR_HD C maximum(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a > b ? a : b;
}
template <class C> TSR_HD C minimum(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? a : b;
}

template <int Op, class C> TSR_HD auto apply_binary(C a, C b) {
  constexpr bool is_bool = std::is_same_v<C, bool>;
  constexpr bool is_int = std::is_integral_v<C> && !is_bool;
  if constexpr (Op == TSR_OP_ADD) {
    if constexpr (is_bool) return C(a || b);
    else if constexpr (is_int) return wrap_add(a, b);
    else return C(a + b);
  } else if constexpr (Op == TSR_OP_SUB) {
    if constexpr (is_int) return wrap_sub(a, b);
    else return C(a - b);
  } else if constexpr (Op == TSR_OP_MUL) {
    if constexpr (is_bool) return C(a && b);
    else if constexpr (is_int) return wrap_mul(a, b);
    else return C(a * b);
  } else if constexpr (Op == TSR_OP_DIV) {
    return C(a / b);
  } else if constexpr (Op == TSR_OP_MAXIMUM) {
    return maximum(a, b);
  } else if constexpr (Op == TSR_OP_MINIMUM) {
    return minimum(a, b);
  } else if constexpr (Op == TSR_OP_POW) {
    if constexpr (is_int) return int_pow(a, b);
    else return C(m_pow(a, b));
  } else if constexpr (Op == TSR_OP_EQ) {
    return a == b;
  } else if constexpr (Op == TSR_OP_NE) {
    return a != b;
  } else if constexpr (Op == TSR_OP_LT) {
    return a < b;
  } else if constexpr (Op == TSR_OP_LE) {
    return a <= b;
  } else if constexpr (Op == TSR_OP_GT) {
    return a > b;
  } else {
    static_assert(Op == TSR_OP_GE);
    return a >= b;
  }
}

template <int Op, class S> struct BinaryFn {
  TSR_HD S operator()(S u, S v) const { return store<S>(apply_binary<Op>(load(u), load(v))); }
};
template <int Op, class S> struct CompareFn {
  TSR_HD Bool operator()(S u, S v) const { return Bool{static_cast<uint8_t>(apply_binary<Op>(load(u), load(v)))}; }
};

}  // namespace tessera::backend
