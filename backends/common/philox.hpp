// SPDX-License-Identifier: Apache-2.0
// Note [Counter-based random numbers]
//
// RAND_UNIFORM and RAND_NORMAL give every element its own random number, so
// the result depends only on (seed, offset, element) — never on the device,
// the thread count or the layout — and every backend must reproduce these
// formulas bit for bit. This header is written to compile as CUDA too.
//
//   Generator: Philox4x32-10 (Salmon et al., Random123), multipliers
//     M0 = 0xD2511F53, M1 = 0xCD9E8D57, Weyl key increments W0 = 0x9E3779B9,
//     W1 = 0xBB67AE85; 10 rounds.
//   key     = (seed & 0xffffffff, seed >> 32)     with seed = (uint64) params[0]
//   counter = (c & 0xffffffff, c >> 32, 0, 0)     with c = (uint64) params[1] + i,
//     i the element's row-major index in the output; outputs x0 x1 x2 x3.
//   Uniform u in [0, 1), by dtype:
//     float32  (x0 >> 8) * 2^-24          float16  (x0 >> 21) * 2^-11
//     bfloat16 (x0 >> 24) * 2^-8          float64  ((x0 << 32 | x1) >> 11) * 2^-53
//     value = low + u * (high - low), in double (scalars = (low, high)).
//   Normal: u1 = ((((x0 << 32) | x1) >> 11) + 1) * 2^-53, in (0, 1]
//           u2 = (((x2 << 32) | x3) >> 11) * 2^-53
//           z = sqrt(-2 ln u1) * cos(2 pi u2), in double
//     value = mean + std * z, in double (scalars = (mean, std)).
//   The double value is then stored as the dtype: float32 by a C cast (round
//   to nearest); float16 / bfloat16 through that float and tsr_float_to_float16
//   / tsr_float_to_bfloat16 (tessera/half.h).
//   (A device whose double log/cos differ from glibc's in the last bit may
//   differ there in float64 normals; float32 and narrower are unaffected but
//   for a rounding tie.)
#pragma once

#include <cmath>
#include <cstdint>

#include "tessera/dtype.h"

#if defined(__CUDACC__)
#define TSR_PHILOX_HD __host__ __device__
#else
#define TSR_PHILOX_HD
#endif

namespace tessera::backend {

struct Philox4x32 {
  uint32_t x[4];
};

// Philox4x32-10 of counter c under key k.
TSR_PHILOX_HD inline Philox4x32 philox4x32_10(Philox4x32 c, uint32_t k0, uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c.x[0];
    const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c.x[2];
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    c = Philox4x32{{hi1 ^ c.x[1] ^ k0, lo1, hi0 ^ c.x[3] ^ k1, lo0}};
  }
  return c;
}

// The four words for random number number `counter` of seed `seed`.
TSR_PHILOX_HD inline Philox4x32 philox_draw(uint64_t seed, uint64_t counter) {
  const Philox4x32 c{{static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0u, 0u}};
  return philox4x32_10(c, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

// u in [0, 1) with the dtype's resolution (see the note).
TSR_PHILOX_HD inline double philox_uniform01(int32_t dtype, const Philox4x32& r) {
  switch (dtype) {
    case TSR_FLOAT16: return static_cast<double>(r.x[0] >> 21) * 0x1p-11;
    case TSR_BFLOAT16: return static_cast<double>(r.x[0] >> 24) * 0x1p-8;
    case TSR_FLOAT64: return static_cast<double>(((static_cast<uint64_t>(r.x[0]) << 32) | r.x[1]) >> 11) * 0x1p-53;
    default: return static_cast<double>(r.x[0] >> 8) * 0x1p-24;  // float32
  }
}

TSR_PHILOX_HD inline double philox_uniform(int32_t dtype, uint64_t seed, uint64_t counter, double low, double high) {
  return low + philox_uniform01(dtype, philox_draw(seed, counter)) * (high - low);
}

TSR_PHILOX_HD inline double philox_normal(uint64_t seed, uint64_t counter, double mean, double stddev) {
  const Philox4x32 r = philox_draw(seed, counter);
  const double u1 = static_cast<double>((((static_cast<uint64_t>(r.x[0]) << 32) | r.x[1]) >> 11) + 1) * 0x1p-53;
  const double u2 = static_cast<double>(((static_cast<uint64_t>(r.x[2]) << 32) | r.x[3]) >> 11) * 0x1p-53;
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586476925286766559 * u2);
  return mean + stddev * z;
}

}  // namespace tessera::backend
