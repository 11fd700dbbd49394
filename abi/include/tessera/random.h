/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/random.h — the random numbers of RAND_UNIFORM and RAND_NORMAL.
 *
 * Note [Counter-based random numbers]
 *   RAND_UNIFORM and RAND_NORMAL give every element its own random number,
 *   so a result depends only on (seed, counter, element): never on the
 *   device, the thread count or the layout. Every plugin reproduces the
 *   formulas below bit for bit (`tessera conformance` checks it); the
 *   inline functions here are the reference, written to compile as C89, C++
 *   and CUDA (host and device).
 *
 *   Generator: Philox4x32-10 (Salmon et al., "Parallel random numbers: as
 *     easy as 1, 2, 3", SC 2011), multipliers M0 = 0xD2511F53,
 *     M1 = 0xCD9E8D57, Weyl key increments W0 = 0x9E3779B9,
 *     W1 = 0xBB67AE85, 10 rounds (tsr_philox4x32_10).
 *   key     = (seed & 0xffffffff, seed >> 32), seed = (uint64) params[0];
 *   counter = (c & 0xffffffff, c >> 32, 0, 0), c = (uint64) params[1] + i,
 *     i the element's row-major index in the output; outputs x0 x1 x2 x3.
 *   Uniform u in [0, 1), by dtype (tsr_random_uniform01):
 *     float32  (x0 >> 8) * 2^-24          float16  (x0 >> 21) * 2^-11
 *     bfloat16 (x0 >> 24) * 2^-8          float64  ((x0 << 32 | x1) >> 11) * 2^-53
 *     value = low + u * (high - low), in double (scalars = (low, high)).
 *   Normal (tsr_random_normal):
 *     u1 = ((((x0 << 32) | x1) >> 11) + 1) * 2^-53, in (0, 1]
 *     u2 = (((x2 << 32) | x3) >> 11) * 2^-53
 *     z = sqrt(-2 ln u1) * cos(2 pi u2), in double
 *     value = mean + std * z, in double (scalars = (mean, std)).
 *   The double value is then stored as the dtype: float32 by a C cast (round
 *   to nearest); float16 and bfloat16 through that float and
 *   tsr_float_to_float16 / tsr_float_to_bfloat16 (tessera/half.h).
 *   A device whose double log and cos differ from glibc's in the last bit
 *   may differ there in float64 normals; float32 and narrower are then
 *   unaffected but for a rounding tie.
 */
#ifndef TESSERA_RANDOM_H
#define TESSERA_RANDOM_H

#include <math.h>
#include <stdint.h>

#include "tessera/dtype.h"
#include "tessera/export.h"

#if defined(__CUDACC__)
#define TSR_RANDOM_HD __host__ __device__
#else
#define TSR_RANDOM_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Four 32-bit words: a Philox counter, or one draw's output. A value type. */
typedef struct tsr_philox4x32 {
  uint32_t x[4];
} tsr_philox4x32;

/* Philox4x32-10 of counter c under key (k0, k1). */
TSR_INLINE TSR_RANDOM_HD tsr_philox4x32 tsr_philox4x32_10(tsr_philox4x32 c, uint32_t k0, uint32_t k1) {
  int round;
  for (round = 0; round < 10; ++round) {
    uint64_t p0, p1;
    tsr_philox4x32 next;
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    p0 = (uint64_t)0xD2511F53u * c.x[0];
    p1 = (uint64_t)0xCD9E8D57u * c.x[2];
    next.x[0] = (uint32_t)(p1 >> 32) ^ c.x[1] ^ k0;
    next.x[1] = (uint32_t)p1;
    next.x[2] = (uint32_t)(p0 >> 32) ^ c.x[3] ^ k1;
    next.x[3] = (uint32_t)p0;
    c = next;
  }
  return c;
}

/* The four words of random number number `counter` of seed `seed`. */
TSR_INLINE TSR_RANDOM_HD tsr_philox4x32 tsr_philox_draw(uint64_t seed, uint64_t counter) {
  tsr_philox4x32 c;
  c.x[0] = (uint32_t)counter;
  c.x[1] = (uint32_t)(counter >> 32);
  c.x[2] = 0u;
  c.x[3] = 0u;
  return tsr_philox4x32_10(c, (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* u in [0, 1) with the resolution of `dtype` (a floating tsr_dtype). */
TSR_INLINE TSR_RANDOM_HD double tsr_random_uniform01(int32_t dtype, tsr_philox4x32 r) {
  switch (dtype) {
    case TSR_FLOAT16: return (double)(r.x[0] >> 21) * (1.0 / 2048.0);
    case TSR_BFLOAT16: return (double)(r.x[0] >> 24) * (1.0 / 256.0);
    case TSR_FLOAT64:
      return (double)((((uint64_t)r.x[0] << 32) | r.x[1]) >> 11) * (1.0 / 9007199254740992.0);
    default: return (double)(r.x[0] >> 8) * (1.0 / 16777216.0); /* float32 */
  }
}

/* RAND_UNIFORM's value for element counter `counter` (before the store). */
TSR_INLINE TSR_RANDOM_HD double tsr_random_uniform(int32_t dtype, uint64_t seed, uint64_t counter, double low,
                                                   double high) {
  return low + tsr_random_uniform01(dtype, tsr_philox_draw(seed, counter)) * (high - low);
}

/* RAND_NORMAL's value for element counter `counter` (before the store). */
TSR_INLINE TSR_RANDOM_HD double tsr_random_normal(uint64_t seed, uint64_t counter, double mean, double stddev) {
  const tsr_philox4x32 r = tsr_philox_draw(seed, counter);
  const double u1 = (double)(((((uint64_t)r.x[0] << 32) | r.x[1]) >> 11) + 1) * (1.0 / 9007199254740992.0);
  const double u2 = (double)((((uint64_t)r.x[2] << 32) | r.x[3]) >> 11) * (1.0 / 9007199254740992.0);
  const double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925286766559 * u2);
  return mean + stddev * z;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_RANDOM_H */
