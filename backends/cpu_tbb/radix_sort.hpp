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
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "parallel.hpp"

namespace tessera::cpu_tbb {

// Bytes from the plugin's caching allocator, for the life of one kernel call.
class Scratch {
 public:
  Scratch(Context& ctx, size_t nbytes) : memory_(ctx.memory.get()), nbytes_(nbytes) {
    if (nbytes_ == 0) return;
    data_ = memory_->allocate(nbytes_);
    if (data_ == nullptr) fail(TSR_ERR_OUT_OF_MEMORY, "cpu_tbb: no memory for " + std::to_string(nbytes_) + " bytes of scratch");
  }
  ~Scratch() {
    if (data_ != nullptr) memory_->deallocate(data_, nbytes_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <class T> T* as() const { return static_cast<T*>(data_); }

 private:
  HostAllocator* memory_;
  size_t nbytes_;
  void* data_ = nullptr;
};

// Lines at least this long are radix sorted; shorter ones compare.
inline constexpr int64_t kRadixSortLength = 2048;

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
  const auto for_chunks = [&](auto&& body) {
    if (chunks == 1) {
      body(int64_t{0});
      return;
    }
    ctx.parallel([&] {
      tbb::parallel_for(int64_t{0}, chunks, [&](int64_t c) { body(c); });
    });
  };
  // Which digits differ among the keys.
  std::vector<std::array<K, 2>> span(static_cast<size_t>(chunks), {K(0), static_cast<K>(~K(0))});
  for_chunks([&](int64_t c) {
    K any = 0, all = static_cast<K>(~K(0));
    for (int64_t i = bound(c); i < bound(c + 1); ++i) {
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
  std::vector<std::array<int64_t, 256>> offsets(static_cast<size_t>(chunks));
  bool swapped = false;
  for (int d = 0; d < kDigits; ++d) {
    const int shift = 8 * d;
    if (((differ >> shift) & K(0xFF)) == 0) continue;
    for_chunks([&](int64_t c) {
      std::array<int64_t, 256>& h = offsets[static_cast<size_t>(c)];
      h.fill(0);
      for (int64_t i = bound(c); i < bound(c + 1); ++i) ++h[(keys[i] >> shift) & 0xFF];
    });
    int64_t at = 0;
    for (int b = 0; b < 256; ++b)
      for (int64_t c = 0; c < chunks; ++c) {
        const int64_t count = offsets[static_cast<size_t>(c)][b];
        offsets[static_cast<size_t>(c)][b] = at;
        at += count;
      }
    for_chunks([&](int64_t c) {
      std::array<int64_t, 256>& o = offsets[static_cast<size_t>(c)];
      for (int64_t i = bound(c); i < bound(c + 1); ++i) {
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
