// SPDX-License-Identifier: Apache-2.0
// Element types of the in-tree backends: a storage type per tsr_dtype, the
// type each one computes in, and the conversions between them (PyTorch's
// rules). One definition for the CPU and the GPU, so that both store the
// same bits: everything is __host__ __device__ under nvcc and plain inline
// C++ elsewhere. The float16 / bfloat16 conversions repeat tessera/half.h
// statement for statement (device code cannot call its static functions);
// tests/cuda/test_cuda_host_dtypes.cpp checks them against it bit for bit.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "tessera/dtype.h"

#if defined(TESSERA_DEVICE_COMPLEX)
#include <cuda/std/cmath>
#include <cuda/std/complex>
#include <cuda/std/limits>
#endif

#if defined(__CUDACC__)
#define TSR_HD __host__ __device__ __forceinline__
#else
#define TSR_HD inline
#endif
// #pragma unroll for device code only (the host compiler warns about it).
#if defined(__CUDA_ARCH__)
#define TSR_UNROLL _Pragma("unroll")
#else
#define TSR_UNROLL
#endif

namespace tessera::backend {

// Note [Complex element types]
// complex64 and complex128 elements are (real, imaginary) pairs, the layout
// of tessera/dtype.h. Each backend computes on them with a complex type whose
// functions keep C99 Annex G's special cases (infinities, NaNs, signed zeros):
//   - cpu_tbb: std::complex, whose functions libstdc++ takes from glibc (cexp,
//     clog, csqrt, ...); it is both the storage and the compute type;
//   - cuda.so and cuda_emu.so (built with TESSERA_DEVICE_COMPLEX): libcu++'s
//     cuda::std::complex, usable in __host__ __device__ code, as compute
//     type, with thrust's functions (Note [Complex functions on the GPU] in
//     complex_ops.hpp: libcu++'s lose accuracy); the storage type is ComplexPair<T>, a trivial struct of the same
//     layout, because __shared__ arrays and vector loads take only trivially
//     constructible types (as Half is the storage of float16, computed in
//     float).
// `cx` names the namespace of the compute type's functions (cx::exp,
// cx::isfinite, ...), so complex_ops.hpp is written once for both.
#if defined(TESSERA_DEVICE_COMPLEX)
namespace cx = ::cuda::std;
#else
namespace cx = ::std;
#endif
template <class T> using complex_t = cx::complex<T>;

template <class T> inline constexpr bool is_complex_type_v = false;  // a compute type
template <class T> inline constexpr bool is_complex_type_v<cx::complex<T>> = true;

template <class T> struct alignas(2 * sizeof(T)) ComplexPair {
  T re, im;
};
template <class T> inline constexpr bool is_complex_pair_v = false;  // the GPU's storage type
template <class T> inline constexpr bool is_complex_pair_v<ComplexPair<T>> = true;

// Distinct wrapper types so that float16, bfloat16 and bool storage are not
// confused with uint16_t / uint8_t (and a bool byte that is not 0/1 is never
// read through C++ `bool`).
struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};
struct Bool {
  uint8_t value;
};

template <int D> struct DTypeTraits;
#define TSR_CUDA_DTYPE(D, Storage, Compute) \
  template <> struct DTypeTraits<D> {       \
    using storage = Storage;                \
    using compute = Compute;                \
  };
TSR_CUDA_DTYPE(TSR_FLOAT32, float, float)
TSR_CUDA_DTYPE(TSR_FLOAT64, double, double)
TSR_CUDA_DTYPE(TSR_FLOAT16, Half, float)
TSR_CUDA_DTYPE(TSR_BFLOAT16, BFloat16, float)
TSR_CUDA_DTYPE(TSR_INT8, int8_t, int8_t)
TSR_CUDA_DTYPE(TSR_UINT8, uint8_t, uint8_t)
TSR_CUDA_DTYPE(TSR_INT16, int16_t, int16_t)
TSR_CUDA_DTYPE(TSR_INT32, int32_t, int32_t)
TSR_CUDA_DTYPE(TSR_INT64, int64_t, int64_t)
TSR_CUDA_DTYPE(TSR_BOOL, Bool, bool)
TSR_CUDA_DTYPE(TSR_UINT16, uint16_t, uint16_t)
TSR_CUDA_DTYPE(TSR_UINT32, uint32_t, uint32_t)
TSR_CUDA_DTYPE(TSR_UINT64, uint64_t, uint64_t)
#if defined(TESSERA_DEVICE_COMPLEX)
TSR_CUDA_DTYPE(TSR_COMPLEX64, ComplexPair<float>, complex_t<float>)
TSR_CUDA_DTYPE(TSR_COMPLEX128, ComplexPair<double>, complex_t<double>)
#else
TSR_CUDA_DTYPE(TSR_COMPLEX64, std::complex<float>, std::complex<float>)
TSR_CUDA_DTYPE(TSR_COMPLEX128, std::complex<double>, std::complex<double>)
#endif
#undef TSR_CUDA_DTYPE

template <int D> using storage_t = typename DTypeTraits<D>::storage;
template <int D> using compute_t = typename DTypeTraits<D>::compute;

template <int D> inline constexpr bool is_floating_v = D == TSR_FLOAT32 || D == TSR_FLOAT64 || D == TSR_FLOAT16 || D == TSR_BFLOAT16;
template <int D> inline constexpr bool is_integral_v = tsr_dtype_is_integral(D);
template <int D> inline constexpr bool is_complex_v = tsr_dtype_is_complex(D);

// SUM's output dtype (Note [Kernel contracts] in tessera/ops.h): the input's
// for floating and complex dtypes, uint64 for uint16/uint32/uint64 (NumPy),
// else int64.
constexpr int sum_dtype(int dtype) {
  if (tsr_dtype_is_floating(dtype) || tsr_dtype_is_complex(dtype)) return dtype;
  return dtype == TSR_UINT16 || dtype == TSR_UINT32 || dtype == TSR_UINT64 ? TSR_UINT64 : TSR_INT64;
}

// ---- bits ------------------------------------------------------------------
TSR_HD uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}
TSR_HD float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

// The same arithmetic as tessera/half.h, statement for statement.
TSR_HD float bfloat16_to_float(uint16_t h) { return bits_float(static_cast<uint32_t>(h) << 16); }

TSR_HD uint16_t float_to_bfloat16(float f) {
  uint32_t bits = float_bits(f);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);  // quiet NaN
  bits += 0x7FFFu + ((bits >> 16) & 1u);                                                          // ties to even
  return static_cast<uint16_t>(bits >> 16);
}

TSR_HD float float16_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  const uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1Fu) return bits_float(sign | 0x7F800000u | (mantissa << 13));  // inf, NaN
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-08f;  // exact
    return sign ? -magnitude : magnitude;
  }
  return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

TSR_HD uint16_t float_to_float16(float f) {
  const uint32_t bits = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t abs_bits = bits & 0x7FFFFFFFu;
  if (abs_bits > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);   // NaN
  if (abs_bits >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to >= 65520: inf
  if (abs_bits < 0x38800000u) {                                               // below 2^-14: subnormal
    const float shifted = bits_float(abs_bits) + 0.5f;  // the FPU rounds to 2^-24 steps, ties to even
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(float_bits(shifted) - 0x3F000000u));
  }
  const uint32_t mantissa_odd = (abs_bits >> 13) & 1u;
  abs_bits += 0xC8000FFFu + mantissa_odd;  // rebias exponent (-112 << 23) and round
  return static_cast<uint16_t>(sign | static_cast<uint16_t>(abs_bits >> 13));
}

// ---- storage -> compute ---------------------------------------------------
TSR_HD float load(Half h) { return float16_to_float(h.bits); }
TSR_HD float load(BFloat16 h) { return bfloat16_to_float(h.bits); }
TSR_HD bool load(Bool b) { return b.value != 0; }
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0> TSR_HD T load(T x) { return x; }
template <class T> TSR_HD complex_t<T> load(complex_t<T> x) { return x; }
template <class T> TSR_HD complex_t<T> load(ComplexPair<T> x) { return complex_t<T>(x.re, x.im); }

// ---- conversions, PyTorch's static_cast rules ------------------------------------
// Float -> integer truncates toward zero; out of range and NaN give what
// PyTorch gives on x86-64: int8/int16/int32 through a 32-bit conversion (out
// of range -> INT32_MIN, then wrap), int64, uint8 (and uint16, uint32 as
// NumPy) through a 64-bit one; uint64 exactly on [0, 2^64) (Note [Casts]).
template <class I> TSR_HD I float_to_int(double x) {
  if constexpr (std::is_signed_v<I> && sizeof(I) <= 4) {
    if (!(x > -2147483649.0 && x < 2147483648.0)) return static_cast<I>(INT32_MIN);
    return static_cast<I>(static_cast<int32_t>(x));
  } else if constexpr (std::is_same_v<I, uint64_t>) {
    constexpr uint64_t kTop = uint64_t{1} << 63;
    if (x >= 9223372036854775808.0) {  // [2^63, 2^64) exactly (x - 2^63 is exact there); above: 0
      const double low = x - 9223372036854775808.0;
      return low < 9223372036854775808.0 ? (static_cast<uint64_t>(static_cast<int64_t>(low)) | kTop) : 0;
    }
    if (!(x > -9223372036854775808.0)) return kTop;  // NaN, -inf, -2^63 and below
    return static_cast<uint64_t>(static_cast<int64_t>(x));  // negatives wrap
  } else {
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return static_cast<I>(INT64_MIN);
    return static_cast<I>(static_cast<int64_t>(x));
  }
}

// Converts a storage or compute value `x` to the storage type To.
template <class To, class From> TSR_HD To convert(From x) {
  if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16> || std::is_same_v<From, Bool> ||
                is_complex_pair_v<From>) {
    return convert<To>(load(x));
  } else if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (is_complex_type_v<From>) {  // Note [Complex dtypes] (tessera/ops.h)
    if constexpr (is_complex_type_v<To>) {
      using T = typename To::value_type;
      return To(static_cast<T>(x.real()), static_cast<T>(x.imag()));
    } else if constexpr (is_complex_pair_v<To>) {
      using T = decltype(To::re);
      return To{static_cast<T>(x.real()), static_cast<T>(x.imag())};
    } else if constexpr (std::is_same_v<To, Bool>) {
      return Bool{static_cast<uint8_t>(x.real() != 0 || x.imag() != 0)};
    } else {
      return convert<To>(x.real());
    }
  } else if constexpr (is_complex_type_v<To>) {
    using T = typename To::value_type;
    return To(convert<T>(x), T(0));
  } else if constexpr (is_complex_pair_v<To>) {
    using T = decltype(To::re);
    return To{convert<T>(x), T(0)};
  } else if constexpr (std::is_same_v<To, Bool>) {
    return Bool{static_cast<uint8_t>(x != From(0))};
  } else if constexpr (std::is_same_v<To, Half>) {
    return Half{float_to_float16(static_cast<float>(x))};  // double -> float -> half, as c10::Half
  } else if constexpr (std::is_same_v<To, BFloat16>) {
    return BFloat16{float_to_bfloat16(static_cast<float>(x))};
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return float_to_int<To>(static_cast<double>(x));
  } else {
    return static_cast<To>(x);  // int -> int wraps (defined since C++20)
  }
}

// Stores a compute value into storage type S.
template <class S, class C> TSR_HD S store(C v) { return convert<S>(v); }

// Wrapping integer arithmetic without signed-overflow UB.
template <class T> using wide_unsigned_t = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;
template <class T> TSR_HD T wrap_add(T a, T b) { return static_cast<T>(wide_unsigned_t<T>(a) + wide_unsigned_t<T>(b)); }
template <class T> TSR_HD T wrap_sub(T a, T b) { return static_cast<T>(wide_unsigned_t<T>(a) - wide_unsigned_t<T>(b)); }
template <class T> TSR_HD T wrap_mul(T a, T b) { return static_cast<T>(wide_unsigned_t<T>(a) * wide_unsigned_t<T>(b)); }
template <class T> TSR_HD T wrap_neg(T a) { return static_cast<T>(wide_unsigned_t<T>(0) - wide_unsigned_t<T>(a)); }

// ---- math on the compute types (float and double overloads) -----------------
TSR_HD float m_exp(float x) { return ::expf(x); }
TSR_HD double m_exp(double x) { return ::exp(x); }
TSR_HD float m_log(float x) { return ::logf(x); }
TSR_HD double m_log(double x) { return ::log(x); }
TSR_HD float m_sqrt(float x) { return ::sqrtf(x); }
TSR_HD double m_sqrt(double x) { return ::sqrt(x); }
TSR_HD float m_tanh(float x) { return ::tanhf(x); }
TSR_HD double m_tanh(double x) { return ::tanh(x); }
TSR_HD float m_pow(float x, float y) { return ::powf(x, y); }
TSR_HD double m_pow(double x, double y) { return ::pow(x, y); }
TSR_HD float m_abs(float x) { return ::fabsf(x); }
TSR_HD double m_abs(double x) { return ::fabs(x); }
TSR_HD float m_atan2(float y, float x) { return ::atan2f(y, x); }
TSR_HD double m_atan2(double y, double x) { return ::atan2(y, x); }
TSR_HD float m_fmod(float x, float y) { return ::fmodf(x, y); }
TSR_HD double m_fmod(double x, double y) { return ::fmod(x, y); }
TSR_HD float m_floor(float x) { return ::floorf(x); }
TSR_HD double m_floor(double x) { return ::floor(x); }
TSR_HD float m_copysign(float x, float y) { return ::copysignf(x, y); }
TSR_HD double m_copysign(double x, double y) { return ::copysign(x, y); }
TSR_HD float m_log1p(float x) { return ::log1pf(x); }
TSR_HD double m_log1p(double x) { return ::log1p(x); }

// Calls f(std::integral_constant<int, D>{}) for every dtype, in enum order.
template <class F> constexpr void for_each_dtype(F&& f) {
  [&]<int... D>(std::integer_sequence<int, D...>) { (f(std::integral_constant<int, D>{}), ...); }(
      std::make_integer_sequence<int, TSR_DTYPE_COUNT>{});
}

// The same for the real dtypes only (all but complex64 and complex128, the
// last two).
template <class F> constexpr void for_each_real_dtype(F&& f) {
  [&]<int... D>(std::integer_sequence<int, D...>) { (f(std::integral_constant<int, D>{}), ...); }(
      std::make_integer_sequence<int, TSR_COMPLEX64>{});
}

}  // namespace tessera::backend
