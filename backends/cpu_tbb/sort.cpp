// SPDX-License-Identifier: Apache-2.0
// SORT and ARGSORT along params[0], descending when params[1] is 1 (Note
// [Kernel contracts], kind SORT). Each element becomes an unsigned key whose
// order is the contract's (backends/common/sort_keys.hpp). ARGSORT sorts
// (key, position) pairs, so it is always stable; SORT sorts the keys alone
// and maps them back. Lines of kRadixSortLength elements or more are radix sorted (Note
// [Radix sort]; one long line in parallel), shorter ones compared with
// std::sort; many lines: one task per run of lines.
#include <algorithm>
#include <utility>
#include <vector>

#include "kernels.hpp"
#include "parallel.hpp"
#include "radix_sort.hpp"
#include "sort_keys.hpp"

namespace tessera::cpu_tbb {

namespace {

constexpr int64_t kParallelSortLength = 1 << 16;

// body(begin, end) over a line's n elements, in parallel when `parallel`.
template <class F> void over_line(Context& ctx, int64_t n, bool parallel, F&& body) {
  if (parallel) maybe_parallel(ctx, n, n, 4096, body);
  else body(int64_t{0}, n);
}

template <int Op, int D> struct SortKernel {
  static constexpr bool kArg = Op == TSR_OP_ARGSORT;
  using S = storage_t<D>;
  using KeyT = backend::SortKey<D>;
  using K = typename KeyT::K;
  // ARGSORT's entries: a 32-bit key and position packed in one word, else a pair.
  using Entry = std::conditional_t<(sizeof(K) == 4), uint64_t, std::pair<uint64_t, int64_t>>;

  // A line of n >= kRadixSortLength elements (Note [Radix sort]).
  static void radix_line(Context& ctx, const S* x, int64_t si, void* out, int64_t so, int64_t n, bool descending,
                         bool parallel) {
    const size_t un = static_cast<size_t>(n);
    Scratch key_space(ctx, 2 * un * sizeof(K));
    K* keys = key_space.as<K>();
    over_line(ctx, n, parallel, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        keys[i] = KeyT::map(load(x[i * si]), kArg, descending);
      }
    });
    if constexpr (!kArg) {
      const K* sorted = radix_sort<K, void>(ctx, keys, keys + n, nullptr, nullptr, n, parallel) ? keys + n : keys;
      S* y = static_cast<S*>(out);
      over_line(ctx, n, parallel, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) {
          const K k = sorted[i];
          y[i * so] = store<S>(KeyT::unmap(k, descending));
        }
      });
    } else {
      Scratch position_space(ctx, 2 * un * sizeof(uint32_t));
      uint32_t* pos = position_space.as<uint32_t>();
      over_line(ctx, n, parallel, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) pos[i] = static_cast<uint32_t>(i);
      });
      const uint32_t* sorted =
          radix_sort<K, uint32_t>(ctx, keys, keys + n, pos, pos + n, n, parallel) ? pos + n : pos;
      int64_t* y = static_cast<int64_t*>(out);
      over_line(ctx, n, parallel, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) y[i * so] = sorted[i];
      });
    }
  }

  static void line(Context& ctx, const S* x, int64_t si, void* out, int64_t so, int64_t n, bool descending,
                   bool parallel, std::vector<K>& keys, std::vector<Entry>& entries) {
    if (n >= kRadixSortLength && n <= int64_t{0xFFFFFFFF}) {
      radix_line(ctx, x, si, out, so, n, descending, parallel);
      return;
    }
    if constexpr (!kArg) {
      keys.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        keys[static_cast<size_t>(i)] = KeyT::map(load(x[i * si]), false, descending);
      }
      std::sort(keys.begin(), keys.end());
      S* y = static_cast<S*>(out);
      for (int64_t i = 0; i < n; ++i) {
        const K k = keys[static_cast<size_t>(i)];
        y[i * so] = store<S>(KeyT::unmap(k, descending));
      }
    } else {
      entries.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const K k = KeyT::map(load(x[i * si]), true, descending);
        if constexpr (sizeof(K) == 4) entries[static_cast<size_t>(i)] = (uint64_t{k} << 32) | static_cast<uint64_t>(i);
        else entries[static_cast<size_t>(i)] = {k, i};
      }
      std::sort(entries.begin(), entries.end());
      int64_t* y = static_cast<int64_t*>(out);
      for (int64_t i = 0; i < n; ++i) {
        const Entry& e = entries[static_cast<size_t>(i)];
        if constexpr (sizeof(K) == 4) y[i * so] = static_cast<int64_t>(e & 0xFFFFFFFFu);
        else y[i * so] = e.second;
      }
    }
  }

  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 1, 0, 2);
    backend::check_unary_operands("cpu_tbb", a, D, kArg ? TSR_INT64 : D);
    const tsr_tensor_desc& in = *a.inputs[0];
    const tsr_tensor_desc& out = *a.output;
    const AlongDim along(a, D, in, out, a.params[0]);
    const LineSet& lines = along.lines;
    const int64_t dim = along.dim;
    const bool descending = a.params[1] != 0;
    const int64_t n = lines.length;
    if (lines.count == 0 || n == 0) return;
    if constexpr (kArg && sizeof(K) == 4) {
      if (n > int64_t{0xFFFFFFFF}) fail(TSR_ERR_INVALID_ARGUMENT, where(a, D) + "a line longer than 2^32 - 1 elements");
    }
    const S* x = static_cast<const S*>(in.data) + in.offset;
    char* y = static_cast<char*>(out.data) + out.offset * static_cast<int64_t>(kArg ? sizeof(int64_t) : sizeof(S));
    const size_t out_item = kArg ? sizeof(int64_t) : sizeof(S);
    const bool one_long_line = lines.count == 1 && n >= kParallelSortLength && ctx.threads > 1;
    maybe_parallel(ctx, one_long_line ? 1 : lines.count, lines.count * n * 8, 1, [&](int64_t l0, int64_t l1) {
      std::vector<K> keys;
      std::vector<Entry> entries;
      StridedWalk<2> w(lines.ndim, lines.shape, {along.in_strides, along.out_strides}, l0);
      for (int64_t l = l0; l < l1; ++l) {
        line(ctx, x + w.off[0], in.strides[dim], y + w.off[1] * static_cast<int64_t>(out_item), out.strides[dim], n,
             descending, one_long_line, keys, entries);
        if (l + 1 < l1) w.next();
      }
    });
  }
};

}  // namespace

void add_sort_kernels(KernelList& list) { add_kernels<SortKernel, TSR_OP_SORT, TSR_OP_ARGSORT>(list); }

}  // namespace tessera::cpu_tbb
