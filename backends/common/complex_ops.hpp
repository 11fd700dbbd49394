// SPDX-License-Identifier: Apache-2.0
// The complex forms of the elementwise functions (Note [Complex dtypes] in
// tessera/ops.h), on the compute type complex_t<T> of Note [Complex element
// types] (element_types.hpp): a complex library's functions (glibc's C99
// Annex G implementations on the CPU, thrust's on the GPU: Note [Complex
// functions on the GPU]) with their special cases for infinities, NaNs and
// signed zeros, plus the few that neither library has (expm1, log1p, sign,
// pow's exact cases) written here to the Array API standard 2022.12's
// special cases. Host and device code.
#pragma once

#include <cmath>
#include <complex>

#include "element_types.hpp"
#include "tessera/ops.h"

#if defined(TESSERA_DEVICE_COMPLEX)
#include <thrust/complex.h>
#endif

namespace tessera::backend {

// Note [Complex functions on the GPU]
// libcu++'s cuda::std::complex (CUDA 13) computes its functions by the
// textbook formulas: asinh(z) as log(z + sqrt(z^2 + 1)) overflows from
// |z| = 1.8e19 in complex64 and cancels where Re z < 0 (asin(1 + 2731i)
// gave 1.5708 + 16.6i for 0.000366 + 8.61i), atanh(z) as
// log((1 + z) / (1 - z)) / 2 loses a tiny z, and tanh(+0 + inf i) is
// NaN + NaN i where C99 Annex G (and the Array API) say +0 + NaN i. On
// 200,000 values log-uniform in magnitude from 1e-20 to 1e20, against
// glibc: asin was off by more than 16 ulps (normwise) at 55 % of them,
// asinh, acos and acosh at 30 to 38 %, atan 22 %, atanh 11 %, tanh and tan
// 1 %, log near |z| = 1 0.5 %. thrust::complex, in the same toolkit
// (CCCL), carries FreeBSD msun's algorithms (Hull, Fairgrieve and Tang's
// for the inverse functions, Kahan's for tanh, log1p near |z| = 1) with
// their special cases, for host and device: 0 values beyond 16 ulps in
// complex64 and in complex128 (against long double), pow and the
// subnormal results of exp aside, whose error is the formula's.
// So the GPU's functions are thrust's, the value converted at the call
// (both are (real, imaginary) pairs); the CPU keeps glibc's. The emulated
// build (cuda_emu.so) compiles thrust for the host alone
// (THRUST_DEVICE_SYSTEM_CPP in tests/cuda_emu/CMakeLists.txt).
#if defined(TESSERA_DEVICE_COMPLEX)
// thrust's function `name` on a value of the compute type.
#define TSR_COMPLEX_LIBRARY_(name, z) \
  from_thrust(thrust::name(thrust::complex<T>((z).real(), (z).imag())))
template <class T> TSR_HD complex_t<T> from_thrust(const thrust::complex<T>& r) { return {r.real(), r.imag()}; }
#else
#define TSR_COMPLEX_LIBRARY_(name, z) std::name(z)
#endif
#define TSR_COMPLEX_FN_(name) \
  template <class T> TSR_HD complex_t<T> complex_##name(complex_t<T> z) { return TSR_COMPLEX_LIBRARY_(name, z); }
TSR_COMPLEX_FN_(exp)
TSR_COMPLEX_FN_(sqrt)
TSR_COMPLEX_FN_(sin)
TSR_COMPLEX_FN_(cos)
TSR_COMPLEX_FN_(asin)
TSR_COMPLEX_FN_(acos)
TSR_COMPLEX_FN_(atan)
TSR_COMPLEX_FN_(sinh)
TSR_COMPLEX_FN_(cosh)
TSR_COMPLEX_FN_(asinh)
TSR_COMPLEX_FN_(atanh)
#undef TSR_COMPLEX_FN_

template <class T> TSR_HD complex_t<T> complex_pow_of(complex_t<T> a, complex_t<T> b) {
#if defined(TESSERA_DEVICE_COMPLEX)
  return from_thrust(thrust::pow(thrust::complex<T>(a.real(), a.imag()), thrust::complex<T>(b.real(), b.imag())));
#else
  return std::pow(a, b);
#endif
}

// Where the Array API (2022.12) asks for other special cases than the
// library gives:
// - log(+-inf + NaN i) and log(NaN + inf i) are +inf + NaN i (thrust:
//   NaN + NaN i); log10 and log2 follow from log;
// - tanh(+-0 + inf i) and tanh(+-0 + NaN i) are +-0 + NaN i (C17; thrust:
//   NaN + NaN i), and tanh(+inf + y i), y finite, is 1 + 0i with the sign
//   of y on the zero (C99 and glibc take the sign of sin(2y)); tan follows,
//   as -i tanh(i z);
// - acosh(+-0 + NaN i) is NaN + pi/2 i (thrust: NaN + NaN i).
template <class T> TSR_HD complex_t<T> complex_log(complex_t<T> z) {
  if (cx::isinf(z.real()) || cx::isinf(z.imag()))
    return {cx::numeric_limits<T>::infinity(), cx::atan2(z.imag(), z.real())};
  return TSR_COMPLEX_LIBRARY_(log, z);
}
template <class T> TSR_HD complex_t<T> complex_log10(complex_t<T> z) {
  return complex_log(z) / T(2.30258509299404568401799145468436421L);
}
template <class T> TSR_HD complex_t<T> complex_tanh(complex_t<T> z) {
  const T x = z.real(), y = z.imag();
  if (x == T(0) && !cx::isfinite(y)) return {x, y - y};
  if (cx::isinf(x) && cx::isfinite(y)) return {cx::copysign(T(1), x), cx::copysign(T(0), y)};
  return TSR_COMPLEX_LIBRARY_(tanh, z);
}
template <class T> TSR_HD complex_t<T> complex_tan(complex_t<T> z) {
  const complex_t<T> t = complex_tanh(complex_t<T>(-z.imag(), z.real()));
  return {t.imag(), -t.real()};
}
template <class T> TSR_HD complex_t<T> complex_acosh(complex_t<T> z) {
  if (z.real() == T(0) && cx::isnan(z.imag())) return {z.imag(), T(1.57079632679489661923132169163975144L)};
  return TSR_COMPLEX_LIBRARY_(acosh, z);
}
#undef TSR_COMPLEX_LIBRARY_

// exp(z) - 1 without cancellation for small |z|:
// Re = expm1(x) cos(y) - 2 sin^2(y / 2), Im = exp(x) sin(y).
template <class T> TSR_HD complex_t<T> complex_expm1(complex_t<T> z) {
  const T x = z.real(), y = z.imag();
  if (x == T(0) && y == T(0)) return {T(0), y};  // +-0 +- 0i: the standard's 0 + 0i, as exp(z) - 1 gives
  if (!cx::isfinite(x) || !cx::isfinite(y) || cx::abs(x) > T(1)) return complex_exp(z) - T(1);
  const T half_sin = cx::sin(y / T(2));
  return {cx::expm1(x) * cx::cos(y) - T(2) * half_sin * half_sin, cx::exp(x) * cx::sin(y)};
}

// log(1 + z) without cancellation for small |z|: Re = log1p(2x + x^2 + y^2) / 2.
template <class T> TSR_HD complex_t<T> complex_log1p(complex_t<T> z) {
  const T x = z.real(), y = z.imag();
  if (!cx::isfinite(x) || !cx::isfinite(y) || cx::abs(x) > T(0.5) || cx::abs(y) > T(0.5))
    return complex_log(T(1) + z);
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
  return complex_pow_of(a, b);
}

// MATH's function Fn on a complex value; FLOOR, CEIL and TRUNC are not
// defined on complex numbers (the kernels refuse them before calling this).
template <int Fn, class T> TSR_HD complex_t<T> complex_math(complex_t<T> z) {
  if constexpr (Fn == TSR_MATH_SIN) return complex_sin(z);
  else if constexpr (Fn == TSR_MATH_COS) return complex_cos(z);
  else if constexpr (Fn == TSR_MATH_TAN) return complex_tan(z);
  else if constexpr (Fn == TSR_MATH_ASIN) return complex_asin(z);
  else if constexpr (Fn == TSR_MATH_ACOS) return complex_acos(z);
  else if constexpr (Fn == TSR_MATH_ATAN) return complex_atan(z);
  else if constexpr (Fn == TSR_MATH_SINH) return complex_sinh(z);
  else if constexpr (Fn == TSR_MATH_COSH) return complex_cosh(z);
  else if constexpr (Fn == TSR_MATH_ASINH) return complex_asinh(z);
  else if constexpr (Fn == TSR_MATH_ACOSH) return complex_acosh(z);
  else if constexpr (Fn == TSR_MATH_ATANH) return complex_atanh(z);
  else if constexpr (Fn == TSR_MATH_EXPM1) return complex_expm1(z);
  else if constexpr (Fn == TSR_MATH_LOG1P) return complex_log1p(z);
  else if constexpr (Fn == TSR_MATH_LOG2) return complex_log(z) / T(0.693147180559945309417232121458176568L);
  else if constexpr (Fn == TSR_MATH_LOG10) return complex_log10(z);
  else if constexpr (Fn == TSR_MATH_ROUND) return {cx::nearbyint(z.real()), cx::nearbyint(z.imag())};
  else if constexpr (Fn == TSR_MATH_SIGN) return complex_sign(z);
  else if constexpr (Fn == TSR_MATH_CONJ) return cx::conj(z);
  else return z;  // FLOOR, CEIL, TRUNC, ERF: refused before (complex_math_defined)
}

// Whether MATH's function fn is defined on complex numbers.
constexpr bool complex_math_defined(int64_t fn) {
  return fn != TSR_MATH_FLOOR && fn != TSR_MATH_CEIL && fn != TSR_MATH_TRUNC && fn != TSR_MATH_ERF;
}

}  // namespace tessera::backend
