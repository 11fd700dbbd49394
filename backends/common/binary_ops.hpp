// SPDX-License-Identifier: Apache-2.0
// The binary ops (ADD..POW, ATAN2..LOGADDEXP) and the comparisons EQ..GE on
// the compute type (float for float16 and bfloat16, rounded once per element
// on store): one definition of their arithmetic for the CPU and GPU backends
// (host and device code), as Note [Kernel contracts] states it.
#pragma once

#include <type_traits>

#include "complex_ops.hpp"
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

// Python's // and % on floats, as NumPy's npy_divmod: the quotient is
// floored, the remainder takes the divisor's sign, x // 0 is +-inf or NaN.
template <class C> TSR_HD C float_floor_divide(C a, C b) {
  if (b == C(0)) return a / b;
  C mod = m_fmod(a, b);
  C div = (a - mod) / b;
  if (mod != C(0)) {
    if ((b < C(0)) != (mod < C(0))) div -= C(1);
  }
  if (div == C(0)) return m_copysign(C(0), a / b);
  C floordiv = m_floor(div);
  if (div - floordiv > C(0.5)) floordiv += C(1);
  return floordiv;
}
template <class C> TSR_HD C float_remainder(C a, C b) {
  if (b == C(0)) return m_fmod(a, b);
  C mod = m_fmod(a, b);
  if (mod != C(0)) {
    if ((b < C(0)) != (mod < C(0))) mod += b;
  } else {
    mod = m_copysign(C(0), b);
  }
  return mod;
}
// Integers: floored, a zero divisor gives 0 (NumPy's), MIN // -1 wraps.
template <class T> TSR_HD T int_floor_divide(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return wrap_neg(a);
    T q = static_cast<T>(a / b);
    if (static_cast<T>(a % b) != 0 && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
    return q;
  } else {
    return static_cast<T>(a / b);
  }
}
template <class T> TSR_HD T int_remainder(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return 0;
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    return static_cast<T>(a % b);
  }
}
template <class T> TSR_HD bool is_negative(T v) {
  if constexpr (std::is_signed_v<T>) return v < 0;
  else return false;
}
// Shifts as NumPy's: a count outside [0, bits) shifts everything out.
template <class T> TSR_HD T shift_left(T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr int bits = static_cast<int>(sizeof(T) * 8);
  if (is_negative(b) || b >= T(bits)) return 0;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << static_cast<int>(b)));
}
template <class T> TSR_HD T shift_right(T a, T b) {
  constexpr int bits = static_cast<int>(sizeof(T) * 8);
  if (is_negative(b) || b >= T(bits)) return is_negative(a) ? T(-1) : T(0);
  return static_cast<T>(a >> static_cast<int>(b));  // arithmetic for signed T
}
// log(exp(a) + exp(b)) without overflow; equal infinities give themselves.
template <class C> TSR_HD C logaddexp(C a, C b) {
  if (a == b) return a + C(0.69314718055994530942);
  const C m = maximum(a, b);
  if (m != m) return m;
  const C d = a > b ? b - a : a - b;
  return m + m_log1p(m_exp(d));
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
    else if constexpr (is_complex_type_v<C>) return complex_pow(a, b);
    else return C(m_pow(a, b));
  } else if constexpr (Op == TSR_OP_ATAN2) {
    return C(m_atan2(a, b));
  } else if constexpr (Op == TSR_OP_FLOOR_DIVIDE) {
    if constexpr (is_int) return int_floor_divide(a, b);
    else return float_floor_divide(a, b);
  } else if constexpr (Op == TSR_OP_REMAINDER) {
    if constexpr (is_int) return int_remainder(a, b);
    else return float_remainder(a, b);
  } else if constexpr (Op == TSR_OP_BITWISE_AND) {
    return C(a & b);
  } else if constexpr (Op == TSR_OP_BITWISE_OR) {
    return C(a | b);
  } else if constexpr (Op == TSR_OP_BITWISE_XOR) {
    return C(a ^ b);
  } else if constexpr (Op == TSR_OP_SHIFT_LEFT) {
    return shift_left(a, b);
  } else if constexpr (Op == TSR_OP_SHIFT_RIGHT) {
    return shift_right(a, b);
  } else if constexpr (Op == TSR_OP_LOGADDEXP) {
    return logaddexp(a, b);
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
