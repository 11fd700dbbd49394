// SPDX-License-Identifier: Apache-2.0
// SEARCHSORTED (ABI 1.11; Note [Kernel contracts], kind SEARCH): one binary
// search per value (backends/common/search_sorted.hpp), in parallel over the
// values. Random probes into a row larger than the caches are latency
// bound, so where every value searches the same row (a 1-d sorted, the
// common case) kLanes searches run in lockstep: their probes are independent
// loads the core overlaps, instead of one miss at a time.
#include <algorithm>
#include <array>

#include "elementwise.hpp"
#include "kernels.hpp"
#include "parallel.hpp"
#include "search_sorted.hpp"

namespace tessera::cpu_tbb {

namespace {

constexpr int kLanes = 16;

template <int Op, int D> struct SearchKernel {
  using S = storage_t<D>;
  using Search = backend::SearchSorted<D>;
  using K = typename Search::K;

  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 2, 0, 1);
    const int64_t m = backend::check_search_operands("cpu_tbb", a, D);
    const tsr_tensor_desc& sorted = *a.inputs[0];
    const tsr_tensor_desc& values = *a.inputs[1];
    const tsr_tensor_desc& out = *a.output;
    const bool right = a.params[0] == 1;
    const S* s = static_cast<const S*>(sorted.data) + sorted.offset;
    const S* v = static_cast<const S*>(values.data) + values.offset;
    int64_t* o = static_cast<int64_t*>(out.data) + out.offset;
    const int nd = out.ndim;
    const int64_t step = sorted.strides[nd - 1];
    const int64_t total = numel_of(out);
    // The row of each value: sorted's strides with its last dim's dropped.
    int64_t row_strides[TSR_MAX_DIMS];
    for (int d = 0; d < nd; ++d) row_strides[d] = d == nd - 1 ? 0 : sorted.strides[d];
    bool one_row = true;
    for (int d = 0; d + 1 < nd; ++d) one_row = one_row && (out.shape[d] == 1 || sorted.strides[d] == 0);
    if (one_row) {
      auto key_at = [&](int64_t i) { return Search::key(load(s[i * step])); };
      maybe_parallel(ctx, total, total * 8, kLanes * 64, [&](int64_t e0, int64_t e1) {
        StridedWalk<2> w(nd, out.shape, {values.strides, out.strides}, e0);
        std::array<K, kLanes> key;
        std::array<int64_t, kLanes> base, where;
        for (int64_t e = e0; e < e1; e += kLanes) {
          const int lanes = static_cast<int>(std::min<int64_t>(kLanes, e1 - e));
          for (int l = 0; l < lanes; ++l) {
            key[l] = Search::key(load(v[w.off[0]]));
            where[l] = w.off[1];
            base[l] = 0;
            if (e + l + 1 < e1) w.next();
          }
          int64_t n = m;
          while (n > 1) {
            const int64_t half = n / 2;
            for (int l = 0; l < lanes; ++l)  // arithmetic, not a select: a branch here mispredicts half the time
              base[l] += half & -static_cast<int64_t>(Search::past(key_at(base[l] + half), key[l], right));
            n -= half;
          }
          for (int l = 0; l < lanes; ++l)
            o[where[l]] = base[l] + (Search::past(key_at(base[l]), key[l], right) ? 1 : 0);
        }
      });
      return;
    }
    maybe_parallel(ctx, total, total * 8, kLanes * 64, [&](int64_t e0, int64_t e1) {
      StridedWalk<3> w(nd, out.shape, {values.strides, out.strides, row_strides}, e0);
      for (int64_t e = e0; e < e1; ++e) {
        const S* row = s + w.off[2];
        o[w.off[1]] = Search::search([&](int64_t i) { return Search::key(load(row[i * step])); }, m,
                                     Search::key(load(v[w.off[0]])), right);
        if (e + 1 < e1) w.next();
      }
    });
  }
};

}  // namespace

void add_search_kernels(KernelList& list) { add_kernels<SearchKernel, TSR_OP_SEARCHSORTED>(list); }

}  // namespace tessera::cpu_tbb
