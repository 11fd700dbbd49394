// SPDX-License-Identifier: Apache-2.0
// SEARCHSORTED's comparisons and binary search (Note [Kernel contracts],
// kind SEARCH), shared by every backend: elements compare as SORT orders
// them, through backend::SortKey with -0 and +0 one key and every NaN the
// largest, so a NaN value lands after the numbers and a NaN in the sorted
// row is equal to it.
#pragma once

#include <cstdint>
#include <string>

#include "kernel_support.hpp"
#include "sort_keys.hpp"

namespace tessera::backend {

template <int D> struct SearchSorted {
  using Key = SortKey<D>;
  using K = typename Key::K;
  static TSR_HD K key(compute_t<D> c) { return Key::map(c, true, false); }

  // Whether the insertion point of v lies past a row key k.
  static TSR_HD bool past(K k, K v, bool right) { return right ? !(v < k) : k < v; }

  // How many of the row's m >= 1 keys (key_at(0 .. m-1), ascending) are
  // below v (right: not above v): the insertion index. Branch-free halving
  // whose trip count depends on m alone (ceil(log2 m) probes, then one), so
  // that several searches of one row can run in lockstep.
  template <class KeyAt> static TSR_HD int64_t search(KeyAt key_at, int64_t m, K v, bool right) {
    int64_t base = 0, n = m;
    while (n > 1) {
      const int64_t half = n / 2;
      base += half & -static_cast<int64_t>(past(key_at(base + half), v, right));  // no branch to mispredict
      n -= half;
    }
    return base + (past(key_at(base), v, right) ? 1 : 0);
  }
};

// SEARCHSORTED's operands, after the backend's own check_args: (sorted,
// values) of `key`, an int64 output of values' shape, sorted of the same
// ndim (>= 1) with values' leading dims and a last dim of m >= 1, params[0]
// 0 or 1. Returns m.
inline int64_t check_search_operands(const char* plugin, const tsr_kernel_args& a, int key) {
  const tsr_tensor_desc& sorted = *a.inputs[0];
  const tsr_tensor_desc& values = *a.inputs[1];
  check_dtype(plugin, a, key, sorted, key, "input 0");
  check_dtype(plugin, a, key, values, key, "input 1");
  check_dtype(plugin, a, key, *a.output, TSR_INT64, "output");
  check_same_shape(plugin, a, key, values, "input 1");
  bool ok = sorted.ndim == values.ndim && sorted.ndim >= 1 && sorted.shape[sorted.ndim - 1] >= 1;
  for (int d = 0; ok && d + 1 < sorted.ndim; ++d) ok = sorted.shape[d] == values.shape[d];
  if (!ok)
    fail(TSR_ERR_SHAPE, where(plugin, a, key) +
                            "sorted must have values' ndim (>= 1), its leading dims and a last dim of size >= 1");
  if (a.params[0] != 0 && a.params[0] != 1)
    fail(TSR_ERR_INVALID_ARGUMENT,
         where(plugin, a, key) + "params[0] must be 0 (left) or 1 (right), not " + std::to_string(a.params[0]));
  return sorted.shape[sorted.ndim - 1];
}

}  // namespace tessera::backend
