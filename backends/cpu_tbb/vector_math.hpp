// SPDX-License-Identifier: Apache-2.0
// exp and sigmoid for float32 without libm: a polynomial the compiler
// vectorises (the loops over contiguous runs are in cloned_loops.cpp).
//
// Note [Vectorised transcendentals]
//   libm's expf is scalar (one call per element, ~3x slower than PyTorch's
//   Sleef kernels on one thread). exp_f32 below is Cody-Waite range
//   reduction plus a degree-6 polynomial (Cephes' expf): at most 1 ulp from
//   the correctly rounded result on normal outputs, exact 0 / inf / NaN at the
//   edges, and subnormal results (x down to -103.97) by scaling in two
//   halves. It uses only +, *, selects, conversions and bit moves, compiled
//   without FMA contraction (-ffp-contract=off, CMakeLists.txt), so every loop — the SSE2 default,
//   the AVX2 and AVX-512 clones, and the strided scalar path — gives the same
//   bits for the same input: a result never depends on the machine's vector
//   width or on the operand's layout.
#pragma once

#include <cstdint>

namespace tessera::cpu_tbb {

inline float exp_f32(float x) {
  constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
  constexpr float kMax = 88.7228394f, kMin = -103.972084f;  // exp(kMax) < FLT_MAX, exp(kMin) < half the least subnormal
  float xc = x < kMax ? x : kMax;  // (two plain selects: minps / maxps; NaN is fixed at the end)
  xc = xc > kMin ? xc : kMin;
  // Round to the nearest integer by adding and removing 1.5 * 2^23 (exact
  // for |v| < 2^22; also what rint gives, but needs no SSE4.1 round).
  constexpr float kRound = 12582912.0f;
  const float n = (xc * kLog2e + kRound) - kRound;
  float r = xc - n * kLn2Hi;  // exact: kLn2Hi has 9 significant bits and |n| <= 150
  r = r - n * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // 2^n in two factors, each a normal float even when 2^n itself is not.
  const int32_t ni = static_cast<int32_t>(n), n1 = ni >> 1, n2 = ni - n1;
  const float s1 = __builtin_bit_cast(float, (n1 + 127) << 23), s2 = __builtin_bit_cast(float, (n2 + 127) << 23);
  float y = p * s1 * s2;
  y = x > kMax ? __builtin_inff() : y;
  y = x < kMin ? 0.0f : y;
  return x != x ? x : y;  // NaN stays NaN
}

// 1 / (1 + e^-x) for x >= 0 and e^x / (1 + e^x) below: e = exp(-|x|) <= 1
// never overflows, and tiny results keep their precision.
inline float sigmoid_f32(float x) {
  const float e = exp_f32(x >= 0.0f ? -x : x);
  const float s = 1.0f / (1.0f + e);
  return x >= 0.0f ? s : e * s;  // NaN: e is NaN, so is the result
}

}  // namespace tessera::cpu_tbb
