// Element types of the CPU plugin: a C++ storage type per tsr_dtype, the type
// each one computes in, and the conversions between them (PyTorch's rules).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "tessera/dtype.h"
#include "tessera/half.h"

namespace tessera::cpu_tbb {

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
#define TSR_CPU_DTYPE(D, Storage, Compute)         \
  template <> struct DTypeTraits<D> {              \
    using storage = Storage;                       \
    using compute = Compute;                       \
  };
TSR_CPU_DTYPE(TSR_FLOAT32, float, float)
TSR_CPU_DTYPE(TSR_FLOAT64, double, double)
TSR_CPU_DTYPE(TSR_FLOAT16, Half, float)
TSR_CPU_DTYPE(TSR_BFLOAT16, BFloat16, float)
TSR_CPU_DTYPE(TSR_INT8, int8_t, int8_t)
TSR_CPU_DTYPE(TSR_UINT8, uint8_t, uint8_t)
TSR_CPU_DTYPE(TSR_INT16, int16_t, int16_t)
TSR_CPU_DTYPE(TSR_INT32, int32_t, int32_t)
TSR_CPU_DTYPE(TSR_INT64, int64_t, int64_t)
TSR_CPU_DTYPE(TSR_BOOL, Bool, bool)
#undef TSR_CPU_DTYPE

template <int D> using storage_t = typename DTypeTraits<D>::storage;
template <int D> using compute_t = typename DTypeTraits<D>::compute;

template <int D> inline constexpr bool is_floating_v = D == TSR_FLOAT32 || D == TSR_FLOAT64 || D == TSR_FLOAT16 || D == TSR_BFLOAT16;
template <int D> inline constexpr bool is_integral_v = D >= TSR_INT8 && D <= TSR_INT64;

// Calls f(std::integral_constant<int, D>{}) for every dtype, in enum order.
template <class F> constexpr void for_each_dtype(F&& f) {
  [&]<int... D>(std::integer_sequence<int, D...>) { (f(std::integral_constant<int, D>{}), ...); }(
      std::make_integer_sequence<int, TSR_DTYPE_COUNT>{});
}

// ---- storage -> compute ---------------------------------------------------
inline float load(Half h) { return tsr_float16_to_float(h.bits); }
inline float load(BFloat16 h) { return tsr_bfloat16_to_float(h.bits); }
inline bool load(Bool b) { return b.value != 0; }
template <class T>
  requires std::is_arithmetic_v<T>
inline T load(T x) {
  return x;
}

// ---- conversions, PyTorch's static_cast rules ------------------------------
// Float -> integer truncates toward zero. Out of range (and NaN) is undefined
// in C++; we reproduce what PyTorch does on x86-64 instead, without UB:
// int8/int16/int32 go through a 32-bit conversion (out of range -> INT32_MIN,
// then wrap), int64 and uint8 through a 64-bit one (-> INT64_MIN, then wrap).
// So -1.0 -> uint8 255, 300.0 -> int8 44, 1e10 -> int16 0, NaN -> int32 INT32_MIN.
template <class I> inline I float_to_int(double x) {
  if constexpr (std::is_signed_v<I> && sizeof(I) <= 4) {
    if (!(x > -2147483649.0 && x < 2147483648.0)) return static_cast<I>(std::numeric_limits<int32_t>::min());
    return static_cast<I>(static_cast<int32_t>(x));
  } else {
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return static_cast<I>(std::numeric_limits<int64_t>::min());
    return static_cast<I>(static_cast<int64_t>(x));
  }
}

// Converts a storage or compute value `x` to the storage type To.
template <class To, class From> inline To convert(From x) {
  if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16> || std::is_same_v<From, Bool>) {
    return convert<To>(load(x));
  } else if constexpr (std::is_same_v<To, Bool>) {
    return Bool{static_cast<uint8_t>(x != From(0))};
  } else if constexpr (std::is_same_v<To, Half>) {
    return Half{tsr_float_to_float16(static_cast<float>(x))};  // double -> float -> half, as c10::Half
  } else if constexpr (std::is_same_v<To, BFloat16>) {
    return BFloat16{tsr_float_to_bfloat16(static_cast<float>(x))};
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return float_to_int<To>(static_cast<double>(x));
  } else {
    return static_cast<To>(x);  // int -> int wraps (defined since C++20)
  }
}

// Stores a compute value into storage type S (the common case of convert).
template <class S, class C> inline S store(C v) { return convert<S>(v); }

// Wrapping integer arithmetic without signed-overflow UB: the operation is
// done in an unsigned type of at least 32 bits and wrapped back.
template <class T> using wide_unsigned_t = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;
template <class T> inline T wrap_add(T a, T b) { return static_cast<T>(wide_unsigned_t<T>(a) + wide_unsigned_t<T>(b)); }
template <class T> inline T wrap_sub(T a, T b) { return static_cast<T>(wide_unsigned_t<T>(a) - wide_unsigned_t<T>(b)); }
template <class T> inline T wrap_mul(T a, T b) { return static_cast<T>(wide_unsigned_t<T>(a) * wide_unsigned_t<T>(b)); }
template <class T> inline T wrap_neg(T a) { return static_cast<T>(wide_unsigned_t<T>(0) - wide_unsigned_t<T>(a)); }

}  // namespace tessera::cpu_tbb
