// SPDX-License-Identifier: Apache-2.0
// A stable LSD radix sort of unsigned keys, optionally carrying a payload
// (ARGSORT's positions), in parallel over fixed chunks.
//
// Note [Radix sort]
//   SORT's and ARGSORT's long lines sort order-preserving unsigned keys
//   (sort.cpp), which is what an LSD radix sort needs: 8-bit digits from
//   the lowest, each pass a stable counting scatter, so ties keep their
//   positions' order (ARGSORT is stable whatever it is asked). Cost: one
//   pass that finds the digits in which the keys differ (their OR and AND),
//   then per differing digit one read for the chunks' histograms and one
//   read plus one write for the scatter. A digit where every key agrees is
//   skipped, so int32 values below 2^16 take two passes and a bool one:
//   sort 2^24 float32 moves about 1 GiB, where a comparison sort compares
//   24 times per element.
//   Parallel form: the line is cut into P chunks (P fixed by the length, not
//   the thread count, so the work is the same whatever runs it); chunk c's
//   elements of digit b go to offset(b, c), the prefix over (b, c) in that
//   order, which keeps stability. Scratch memory comes from the plugin's
//   caching allocator (Note [Why the CPU plugin caches memory]): fresh
//   pages of a 64 MiB buffer would cost more than the sort.
//   Keys without a payload (SORT) whose differing bits are the low 16 or
//   fewer, at 4 keys a bin or more (unique's small integers), are counted
//   instead: one histogram read and one write of the runs.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>

#include "parallel.hpp"
#include "scratch.hpp"

namespace tessera::cpu_tbb {

// Lines at least this long are radix sorted; shorter ones compare.
inline constexpr int64_t kRadixSortLength = 2048;
// Keys alone that differ in at most this many low bits are counted.
inline constexpr int kCountingSortBits = 16;

// body(c) for every chunk c of `chunks`, in parallel when there are several.
template <class F> void for_each_chunk(Context& ctx, int64_t chunks, F&& body) {
  if (chunks == 1) {
    body(int64_t{0});
    return;
  }
  ctx.parallel([&] { tbb::parallel_for(int64_t{0}, chunks, [&](int64_t c) { body(c); }); });
}

// Keys alone whose differing bits `differ` all lie in the low 16: counted
// (one histogram read, one write), not scattered digit by digit. Returns
// false, and leaves keys alone, when the range is too wide for n.
template <class K> bool counting_sort(Context& ctx, K* keys, K differ, int64_t n, bool parallel) {
  const int width = std::bit_width(static_cast<std::make_unsigned_t<K>>(differ));
  if (width > kCountingSortBits || (int64_t{4} << width) > n) return false;
  const int64_t bins = int64_t{1} << width;
  const K mask = static_cast<K>(bins - 1), high = static_cast<K>(keys[0] & ~mask);
  // Chunks: fixed by n and the width, each at least 8 elements a bin.
  const int64_t chunks = parallel ? std::clamp<int64_t>(n / std::max<int64_t>(65536, 8 * bins), 1, 64) : 1;
  const auto bound = [&](int64_t c) { return n * c / chunks; };
  Scratch count_space(ctx, static_cast<size_t>((chunks + 1) * bins + 1) * sizeof(int64_t));
  int64_t* counts = count_space.as<int64_t>();  // chunks rows of bins, then the starts
  int64_t* starts = counts + chunks * bins;
  for_each_chunk(ctx, chunks, [&](int64_t c) {
    int64_t* h = counts + c * bins;
    std::fill(h, h + bins, int64_t{0});
    for (int64_t i = bound(c), end = bound(c + 1); i < end; ++i) ++h[keys[i] & mask];
  });
  int64_t at = 0;
  for (int64_t b = 0; b < bins; ++b) {
    starts[b] = at;
    for (int64_t c = 0; c < chunks; ++c) at += counts[c * bins + b];
  }
  starts[bins] = at;
  // The output in equal parts; each finds its first bin and writes runs.
  for_each_chunk(ctx, chunks, [&](int64_t c) {
    int64_t pos = bound(c);
    const int64_t end = bound(c + 1);
    int64_t b = std::upper_bound(starts, starts + bins + 1, pos) - starts - 1;
    for (; pos < end; ++b) {
      const int64_t stop = std::min(end, starts[b + 1]);
      std::fill(keys + pos, keys + std::max(pos, stop), static_cast<K>(high | static_cast<K>(b)));
      pos = std::max(pos, stop);
    }
  });
  return true;
}

// Sorts keys[0, n) (and pay[0, n) along) stably. keys2/pay2 are scratch of
// n elements. Returns true when the sorted data ended in keys2/pay2 (an odd
// number of passes), false when in keys/pay. P = void: no payload.
template <class K, class P>
bool radix_sort(Context& ctx, K* keys, K* keys2, P* pay, P* pay2, int64_t n, bool parallel) {
  constexpr int kDigits = static_cast<int>(sizeof(K));
  constexpr bool kPay = !std::is_void_v<P>;
  // Chunks: a function of n only (deterministic), each at least 64 Ki elements.
  const int64_t chunks = parallel ? std::clamp<int64_t>(n / 65536, 1, 64) : 1;
  const auto bound = [&](int64_t c) { return n * c / chunks; };
  // Which digits differ among the keys.
  std::vector<std::array<K, 2>> span(static_cast<size_t>(chunks), {K(0), static_cast<K>(~K(0))});
  for_each_chunk(ctx, chunks, [&](int64_t c) {
    K any = 0, all = static_cast<K>(~K(0));
    for (int64_t i = bound(c), end = bound(c + 1); i < end; ++i) {
      any |= keys[i];
      all &= keys[i];
    }
    span[static_cast<size_t>(c)] = {any, all};
  });
  K differ = 0;
  {
    K any = 0, all = static_cast<K>(~K(0));
    for (const auto& s : span) {
      any |= s[0];
      all &= s[1];
    }
    differ = any ^ all;
  }
  if constexpr (!kPay) {
    if (counting_sort(ctx, keys, differ, n, parallel)) return false;
  }
  std::vector<std::array<int64_t, 256>> offsets(static_cast<size_t>(chunks));
  bool swapped = false;
  for (int d = 0; d < kDigits; ++d) {
    const int shift = 8 * d;
    if (((differ >> shift) & K(0xFF)) == 0) continue;
    for_each_chunk(ctx, chunks, [&](int64_t c) {
      std::array<int64_t, 256>& h = offsets[static_cast<size_t>(c)];
      h.fill(0);
      for (int64_t i = bound(c), end = bound(c + 1); i < end; ++i) ++h[(keys[i] >> shift) & 0xFF];
    });
    int64_t at = 0;
    for (int b = 0; b < 256; ++b)
      for (int64_t c = 0; c < chunks; ++c) {
        const int64_t count = offsets[static_cast<size_t>(c)][b];
        offsets[static_cast<size_t>(c)][b] = at;
        at += count;
      }
    for_each_chunk(ctx, chunks, [&](int64_t c) {
      std::array<int64_t, 256>& o = offsets[static_cast<size_t>(c)];
      for (int64_t i = bound(c), end = bound(c + 1); i < end; ++i) {
        const int64_t to = o[(keys[i] >> shift) & 0xFF]++;
        keys2[to] = keys[i];
        if constexpr (kPay) pay2[to] = pay[i];
      }
    });
    std::swap(keys, keys2);
    if constexpr (kPay) std::swap(pay, pay2);
    swapped = !swapped;
  }
  return swapped;
}

}  // namespace tessera::cpu_tbb
