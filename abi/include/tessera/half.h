/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/half.h — float16 and bfloat16 conversions for plugin authors and
 * the runtime, so every backend rounds the same way.
 *
 * float -> float16 and float -> bfloat16 round to nearest, ties to even;
 * NaN stays NaN (quiet), infinities and signed zeros are kept, float16
 * overflow gives infinity, underflow gives subnormals or zero.
 */
#ifndef TESSERA_HALF_H
#define TESSERA_HALF_H

#include <stdint.h>
#include <string.h>

#include "tessera/export.h"

TSR_INLINE float tsr_bits_to_float(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

TSR_INLINE uint32_t tsr_float_to_bits(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  return bits;
}

TSR_INLINE float tsr_bfloat16_to_float(uint16_t h) { return tsr_bits_to_float((uint32_t)h << 16); }

TSR_INLINE uint16_t tsr_float_to_bfloat16(float f) {
  uint32_t bits = tsr_float_to_bits(f);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((bits >> 16) | 0x0040u); /* quiet NaN */
  bits += 0x7FFFu + ((bits >> 16) & 1u);                                             /* ties to even */
  return (uint16_t)(bits >> 16);
}

TSR_INLINE float tsr_float16_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1Fu;
  uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1Fu) return tsr_bits_to_float(sign | 0x7F800000u | (mantissa << 13)); /* inf, NaN */
  if (exponent == 0) {
    /* zero or subnormal: mantissa * 2^-24 */
    float magnitude = (float)mantissa * 5.9604644775390625e-08f;
    return sign ? -magnitude : magnitude;
  }
  return tsr_bits_to_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

TSR_INLINE uint16_t tsr_float_to_float16(float f) {
  uint32_t bits = tsr_float_to_bits(f);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
  uint32_t abs_bits = bits & 0x7FFFFFFFu;
  if (abs_bits > 0x7F800000u) return (uint16_t)(sign | 0x7E00u);   /* NaN */
  if (abs_bits >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u);  /* rounds to >= 65520: inf */
  if (abs_bits < 0x38800000u) {                                     /* below 2^-14: subnormal */
    /* Adding 0.5 makes the FPU round the mantissa to 2^-24 steps, ties to even. */
    float shifted = tsr_bits_to_float(abs_bits) + 0.5f;
    return (uint16_t)(sign | (uint16_t)(tsr_float_to_bits(shifted) - 0x3F000000u));
  }
  {
    uint32_t mantissa_odd = (abs_bits >> 13) & 1u;
    abs_bits += 0xC8000FFFu + mantissa_odd; /* rebias exponent (-112 << 23) and round */
    return (uint16_t)(sign | (uint16_t)(abs_bits >> 13));
  }
}

#endif /* TESSERA_HALF_H */
