// SPDX-License-Identifier: Apache-2.0
// SORT's order as unsigned integer keys (Note [Kernel contracts], kind
// SORT), for radix sorts on every backend: floats by their bits with the
// negative ones flipped, every NaN the largest key, integers with the sign
// bit flipped, bool as 0/1; a descending sort flips the key. ARGSORT maps
// -0 and +0 to one key (they are equal, so a stable sort keeps their
// order); SORT keeps -0 below +0 and maps every NaN back as one quiet NaN.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "element_types.hpp"

namespace tessera::backend {

template <int D> struct SortKey {
  using C = compute_t<D>;
  using K = std::conditional_t<(sizeof(C) > 4), uint64_t, uint32_t>;
  static constexpr K kSign = K(1) << (sizeof(K) * 8 - 1);
  static constexpr bool kFloating = std::is_floating_point_v<C>;

  // zero_equal: -0 and +0 get one key (ARGSORT).
  static TSR_HD K map(C c, bool zero_equal, bool descending) {
    K k;
    if constexpr (kFloating) {
      if (c != c) {
        k = static_cast<K>(~K(0));
      } else {
        if (zero_equal && c == C(0)) c = C(0);
        K b;
        memcpy(&b, &c, sizeof b);
        k = (b & kSign) != 0 ? static_cast<K>(~b) : static_cast<K>(b | kSign);
      }
    } else if constexpr (std::is_same_v<C, bool>) {
      k = K(c);
    } else if constexpr (std::is_signed_v<C>) {
      k = static_cast<K>(static_cast<std::make_signed_t<K>>(c)) ^ kSign;
    } else {
      k = static_cast<K>(c);
    }
    return descending ? static_cast<K>(~k) : k;
  }
  static TSR_HD C unmap(K k, bool descending) {
    if (descending) k = static_cast<K>(~k);
    if constexpr (kFloating) {
      const K b = (k & kSign) != 0 ? static_cast<K>(k ^ kSign) : static_cast<K>(~k);
      C c;
      memcpy(&c, &b, sizeof c);
      return c;
    } else if constexpr (std::is_same_v<C, bool>) {
      return k != 0;
    } else if constexpr (std::is_signed_v<C>) {
      return static_cast<C>(static_cast<std::make_signed_t<K>>(k ^ kSign));
    } else {
      return static_cast<C>(k);
    }
  }
};

}  // namespace tessera::backend
