// SPDX-License-Identifier: Apache-2.0
// The in-tree backends' names for the reference random numbers of
// tessera/random.h (Note [Counter-based random numbers] is written there,
// in the installed header, because every plugin must reproduce it).
#pragma once

#include <cstdint>

#include "tessera/random.h"

namespace tessera::backend {

using Philox4x32 = tsr_philox4x32;

TSR_RANDOM_HD inline Philox4x32 philox4x32_10(Philox4x32 c, uint32_t k0, uint32_t k1) {
  return tsr_philox4x32_10(c, k0, k1);
}

TSR_RANDOM_HD inline double philox_uniform(int32_t dtype, uint64_t seed, uint64_t counter, double low, double high) {
  return tsr_random_uniform(dtype, seed, counter, low, high);
}

TSR_RANDOM_HD inline double philox_normal(uint64_t seed, uint64_t counter, double mean, double stddev) {
  return tsr_random_normal(seed, counter, mean, stddev);
}

}  // namespace tessera::backend
