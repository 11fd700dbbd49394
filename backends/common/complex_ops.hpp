// SPDX-License-Identifier: Apache-2.0
// The complex forms of the elementwise functions (Note [Complex dtypes] in
// tessera/ops.h), on the compute type complex_t<T> of Note [Complex element
// types] (element_types.hpp): the complex library's functions (glibc's C99
// Annex G implementations on the CPU, libcu++'s on the GPU) with their
// special cases for infinities, NaNs and signed zeros, plus the few that
// neither library has (expm1, log1p, sign, pow's exact cases) written here to
// the Array API standard 2022.12's special cases. Host and device code.
#pragma once

#include <cmath>
#include <complex>

#include "element_types.hpp"
#include "tessera/ops.h"

namespace tessera::backend {

// exp(z) - 1 without cancellation for small |z|:
// Re = expm1(x) cos(y) - 2 sin^2(y / 2), Im = exp(x) sin(y).
template <class T> TSR_HD complex_t<T> complex_expm1(complex_t<T> z) {
  const T x = z.real(), y = z.imag();
  if (!cx::isfinite(x) || !cx::isfinite(y) || cx::abs(x) > T(1)) return cx::exp(z) - T(1);
  const T half_sin = cx::sin(y / T(2));
  return {cx::expm1(x) * cx::cos(y) - T(2) * half_sin * half_sin, cx::exp(x) * cx::sin(y)};
}

// log(1 + z) without cancellation for small |z|: Re = log1p(2x + x^2 + y^2) / 2.
template <class T> TSR_HD complex_t<T> complex_log1p(complex_t<T> z) {
  const T x = z.real(), y = z.imag();
  if (!cx::isfinite(x) || !cx::isfinite(y) || cx::abs(x) > T(0.5) || cx::abs(y) > T(0.5))
    return cx::log(T(1) + z);
  return {cx::log1p(x * (T(2) + x) + y * y) / T(2), cx::atan2(y, T(1) + x)};
}

// z / |z|, 0 at 0; NaN when either part is NaN.
template <class T> TSR_HD complex_t<T> complex_sign(complex_t<T> z) {
  const T x = z.real(), y = z.imag();
  if (cx::isnan(x) || cx::isnan(y)) return {cx::numeric_limits<T>::quiet_NaN(), cx::numeric_limits<T>::quiet_NaN()};
  if (x == T(0) && y == T(0)) return {T(0), T(0)};
  if (cx::isinf(x) || cx::isinf(y)) {  // the direction of the infinite part(s)
    const T ux = cx::isinf(x) ? cx::copysign(T(1), x) : T(0), uy = cx::isinf(y) ? cx::copysign(T(1), y) : T(0);
    return complex_t<T>(ux, uy) / cx::abs(complex_t<T>(ux, uy));
  }
  return z / cx::abs(z);
}

// a ** b: 1 for b = 0 (NaN bases included), 0 for a = 0 with a real
// positive exponent, else exp(b log a) (glibc's cpow).
template <class T> TSR_HD complex_t<T> complex_pow(complex_t<T> a, complex_t<T> b) {
  if (b.real() == T(0) && b.imag() == T(0)) return {T(1), T(0)};
  if (a.real() == T(0) && a.imag() == T(0) && b.imag() == T(0) && b.real() > T(0)) return {T(0), T(0)};
  return cx::pow(a, b);
}

// MATH's function Fn on a complex value; FLOOR, CEIL and TRUNC are not
// defined on complex numbers (the kernels refuse them before calling this).
template <int Fn, class T> TSR_HD complex_t<T> complex_math(complex_t<T> z) {
  if constexpr (Fn == TSR_MATH_SIN) return cx::sin(z);
  else if constexpr (Fn == TSR_MATH_COS) return cx::cos(z);
  else if constexpr (Fn == TSR_MATH_TAN) return cx::tan(z);
  else if constexpr (Fn == TSR_MATH_ASIN) return cx::asin(z);
  else if constexpr (Fn == TSR_MATH_ACOS) return cx::acos(z);
  else if constexpr (Fn == TSR_MATH_ATAN) return cx::atan(z);
  else if constexpr (Fn == TSR_MATH_SINH) return cx::sinh(z);
  else if constexpr (Fn == TSR_MATH_COSH) return cx::cosh(z);
  else if constexpr (Fn == TSR_MATH_ASINH) return cx::asinh(z);
  else if constexpr (Fn == TSR_MATH_ACOSH) return cx::acosh(z);
  else if constexpr (Fn == TSR_MATH_ATANH) return cx::atanh(z);
  else if constexpr (Fn == TSR_MATH_EXPM1) return complex_expm1(z);
  else if constexpr (Fn == TSR_MATH_LOG1P) return complex_log1p(z);
  else if constexpr (Fn == TSR_MATH_LOG2) return cx::log(z) / T(0.693147180559945309417232121458176568L);
  else if constexpr (Fn == TSR_MATH_LOG10) return cx::log10(z);
  else if constexpr (Fn == TSR_MATH_ROUND) return {cx::nearbyint(z.real()), cx::nearbyint(z.imag())};
  else if constexpr (Fn == TSR_MATH_SIGN) return complex_sign(z);
  else if constexpr (Fn == TSR_MATH_CONJ) return cx::conj(z);
  else return z;  // FLOOR, CEIL, TRUNC: refused before (complex_math_defined)
}

// Whether MATH's function fn is defined on complex numbers.
constexpr bool complex_math_defined(int64_t fn) {
  return fn != TSR_MATH_FLOOR && fn != TSR_MATH_CEIL && fn != TSR_MATH_TRUNC;
}

}  // namespace tessera::backend
