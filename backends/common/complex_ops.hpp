// SPDX-License-Identifier: Apache-2.0
// The complex forms of the elementwise functions (Note [Complex dtypes] in
// tessera/ops.h), host code only: std::complex's functions, which libstdc++
// takes from glibc's C99 Annex G implementations (cexp, clog, csqrt, csin,
// ...) with their special cases for infinities, NaNs and signed zeros, plus
// the few the C library lacks (expm1, log1p, sign, pow's exact cases) written
// here to the Array API standard 2022.12's special cases.
#pragma once

#include <cmath>
#include <complex>

#include "tessera/ops.h"

namespace tessera::backend {

// exp(z) - 1 without cancellation for small |z|:
// Re = expm1(x) cos(y) - 2 sin^2(y / 2), Im = exp(x) sin(y).
template <class T> std::complex<T> complex_expm1(std::complex<T> z) {
  const T x = z.real(), y = z.imag();
  if (!std::isfinite(x) || !std::isfinite(y) || std::abs(x) > T(1)) return std::exp(z) - T(1);
  const T half_sin = std::sin(y / T(2));
  return {std::expm1(x) * std::cos(y) - T(2) * half_sin * half_sin, std::exp(x) * std::sin(y)};
}

// log(1 + z) without cancellation for small |z|: Re = log1p(2x + x^2 + y^2) / 2.
template <class T> std::complex<T> complex_log1p(std::complex<T> z) {
  const T x = z.real(), y = z.imag();
  if (!std::isfinite(x) || !std::isfinite(y) || std::abs(x) > T(0.5) || std::abs(y) > T(0.5))
    return std::log(T(1) + z);
  return {std::log1p(x * (T(2) + x) + y * y) / T(2), std::atan2(y, T(1) + x)};
}

// z / |z|, 0 at 0; NaN when either part is NaN.
template <class T> std::complex<T> complex_sign(std::complex<T> z) {
  const T x = z.real(), y = z.imag();
  if (std::isnan(x) || std::isnan(y)) return {T(NAN), T(NAN)};
  if (x == T(0) && y == T(0)) return {T(0), T(0)};
  if (std::isinf(x) || std::isinf(y)) {  // the direction of the infinite part(s)
    const T ux = std::isinf(x) ? std::copysign(T(1), x) : T(0), uy = std::isinf(y) ? std::copysign(T(1), y) : T(0);
    return std::complex<T>(ux, uy) / std::abs(std::complex<T>(ux, uy));
  }
  return z / std::abs(z);
}

// a ** b: 1 for b = 0 (NaN bases included), 0 for a = 0 with a real
// positive exponent, else exp(b log a) (glibc's cpow).
template <class T> std::complex<T> complex_pow(std::complex<T> a, std::complex<T> b) {
  if (b.real() == T(0) && b.imag() == T(0)) return {T(1), T(0)};
  if (a.real() == T(0) && a.imag() == T(0) && b.imag() == T(0) && b.real() > T(0)) return {T(0), T(0)};
  return std::pow(a, b);
}

// MATH's function Fn on a complex value; FLOOR, CEIL and TRUNC are not
// defined on complex numbers (the kernels refuse them before calling this).
template <int Fn, class T> std::complex<T> complex_math(std::complex<T> z) {
  if constexpr (Fn == TSR_MATH_SIN) return std::sin(z);
  else if constexpr (Fn == TSR_MATH_COS) return std::cos(z);
  else if constexpr (Fn == TSR_MATH_TAN) return std::tan(z);
  else if constexpr (Fn == TSR_MATH_ASIN) return std::asin(z);
  else if constexpr (Fn == TSR_MATH_ACOS) return std::acos(z);
  else if constexpr (Fn == TSR_MATH_ATAN) return std::atan(z);
  else if constexpr (Fn == TSR_MATH_SINH) return std::sinh(z);
  else if constexpr (Fn == TSR_MATH_COSH) return std::cosh(z);
  else if constexpr (Fn == TSR_MATH_ASINH) return std::asinh(z);
  else if constexpr (Fn == TSR_MATH_ACOSH) return std::acosh(z);
  else if constexpr (Fn == TSR_MATH_ATANH) return std::atanh(z);
  else if constexpr (Fn == TSR_MATH_EXPM1) return complex_expm1(z);
  else if constexpr (Fn == TSR_MATH_LOG1P) return complex_log1p(z);
  else if constexpr (Fn == TSR_MATH_LOG2) return std::log(z) / T(0.693147180559945309417232121458176568L);
  else if constexpr (Fn == TSR_MATH_LOG10) return std::log10(z);
  else if constexpr (Fn == TSR_MATH_ROUND) return {std::nearbyint(z.real()), std::nearbyint(z.imag())};
  else if constexpr (Fn == TSR_MATH_SIGN) return complex_sign(z);
  else if constexpr (Fn == TSR_MATH_CONJ) return std::conj(z);
  else return z;  // FLOOR, CEIL, TRUNC: refused before (complex_math_defined)
}

// Whether MATH's function fn is defined on complex numbers.
constexpr bool complex_math_defined(int64_t fn) {
  return fn != TSR_MATH_FLOOR && fn != TSR_MATH_CEIL && fn != TSR_MATH_TRUNC;
}

}  // namespace tessera::backend
