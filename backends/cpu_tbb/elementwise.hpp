// SPDX-License-Identifier: Apache-2.0
// The one strided N-d elementwise driver every pointwise kernel goes through.
//
// A plan describes the iteration space of one output plus inputs of the same
// shape: size-1 dims are dropped, dims are ordered innermost first (by the
// operands' strides, output first, as PyTorch's TensorIterator does), and
// adjacent dims that walk memory as one dim for every operand are merged. The
// space is then a flat range [0, numel) that Context::parallel_for splits for large
// tensors; each piece walks runs of the innermost dim. A run whose output is
// unit-stride and whose inputs are unit-stride or broadcast (stride 0) takes a
// plain loop over raw pointers that the compiler vectorises; other runs take
// a strided loop. A plan that transposes an operand is walked in tiles
// instead (execute_tiled).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "context.hpp"
#include "isa.hpp"
#include "pointwise_plan.hpp"
#include "tessera/tensor_desc.h"

namespace tessera::cpu_tbb {

using backend::make_plan;
using backend::numel_of;
using backend::Plan;

// Below this many elements a pointwise op runs on the calling thread.
inline constexpr int64_t kParallelThreshold = 32768;
// The smallest piece a parallel pointwise op is cut into.
inline constexpr int64_t kParallelGrain = 16384;

// Note [Parallel pieces]
//   A parallel loop over n elements is cut into pieces of piece_size(n)
//   elements (simple_partitioner): about eight per thread, at most 2^18
//   (~0.1 ms of streaming), at least kParallelGrain. Small pieces keep the
//   threads balanced when the machine is shared: a thread that loses its
//   core to another process holds up one piece, and the others take the
//   rest (with a few large pieces, the op would wait for the preempted one).
//   Results never depend on the cut (reductions use fixed blocks of their
//   own, see reduce.cpp).
inline int64_t piece_size(int64_t n, int threads) {
  return std::clamp<int64_t>(n / (8 * std::max(threads, 1)), kParallelGrain, int64_t{1} << 18);
}


// Walks flat positions [begin, end) of the plan as runs of the innermost dim:
// inner(n, ptrs, position) with ptrs[k] the address of operand k at the run's
// first element and `position` its flat position.
template <size_t N, class Inner> void run_range(const Plan<N>& p, int64_t begin, int64_t end, Inner&& inner) {
  int64_t idx[TSR_MAX_DIMS];
  int64_t off[N] = {};
  int64_t rest = begin;
  for (int d = 0; d < p.ndim; ++d) {
    idx[d] = rest % p.shape[d];
    rest /= p.shape[d];
    for (size_t k = 0; k < N; ++k) off[k] += idx[d] * p.stride[d][k];
  }
  int64_t pos = begin;
  while (pos < end) {
    const int64_t n = std::min(p.shape[0] - idx[0], end - pos);
    char* ptrs[N];
    for (size_t k = 0; k < N; ++k) ptrs[k] = p.base[k] + off[k] * p.elsize[k];
    inner(n, ptrs, pos);
    pos += n;
    if (pos >= end) break;
    idx[0] += n;
    for (size_t k = 0; k < N; ++k) off[k] += n * p.stride[0][k];
    for (int d = 0; idx[d] == p.shape[d] && d + 1 < p.ndim; ++d) {
      for (size_t k = 0; k < N; ++k) off[k] += p.stride[d + 1][k] - p.shape[d] * p.stride[d][k];
      idx[d] = 0;
      ++idx[d + 1];
    }
  }
}

// Runs the whole plan, in parallel when it is large (Note [Parallel pieces]).
template <size_t N, class Inner> void execute(Context& ctx, const Plan<N>& p, Inner&& inner) {
  if (p.numel <= 0) return;
  auto range = [&](int64_t begin, int64_t end) {
    if (p.ndim > 1) return run_range(p, begin, end, inner);
    char* ptrs[N];  // one dim: the range is one run
    for (size_t k = 0; k < N; ++k) ptrs[k] = p.base[k] + begin * p.stride[0][k] * p.elsize[k];
    inner(end - begin, ptrs, begin);
  };
  if (p.numel < kParallelThreshold || ctx.threads <= 1) {
    range(0, p.numel);
    return;
  }
  ctx.parallel_for(p.numel, piece_size(p.numel, ctx.threads), range);
}

// Edge of the square tiles a transposing plan is walked in.
inline constexpr int64_t kTile = 32;

// True when some operand walks dim 0 with a stride other than 0 / 1 but is
// unit-stride along dim 1 (a transpose): walking dims 0 and 1 in small tiles
// then keeps that operand's cache lines in L1 between uses.
template <size_t N> bool wants_tiles(const Plan<N>& p) {
  if (p.ndim < 2 || p.shape[0] < kTile || p.shape[1] < kTile) return false;
  for (size_t k = 0; k < N; ++k)
    if (p.stride[0][k] != 0 && p.stride[0][k] != 1 && p.stride[1][k] == 1) return true;
  return false;
}

// Walks the plan tile by tile: runs of up to kTile elements along dim 0 for
// kTile consecutive indices of dim 1, tiles in parallel when large.
template <size_t N, class Inner> void execute_tiled(Context& ctx, const Plan<N>& p, Inner&& inner) {
  const int64_t b0 = (p.shape[0] + kTile - 1) / kTile, b1 = (p.shape[1] + kTile - 1) / kTile;
  const int64_t tiles = p.numel / (p.shape[0] * p.shape[1]) * b0 * b1;
  auto body = [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      int64_t outer = t / (b0 * b1);
      const int64_t j0 = (t / b0 % b1) * kTile, i0 = (t % b0) * kTile;
      int64_t off[N];
      for (size_t k = 0; k < N; ++k) off[k] = i0 * p.stride[0][k] + j0 * p.stride[1][k];
      for (int d = 2; d < p.ndim; ++d) {
        const int64_t idx = outer % p.shape[d];
        outer /= p.shape[d];
        for (size_t k = 0; k < N; ++k) off[k] += idx * p.stride[d][k];
      }
      const int64_t n = std::min(kTile, p.shape[0] - i0), rows = std::min(kTile, p.shape[1] - j0);
      for (int64_t j = 0; j < rows; ++j) {
        char* ptrs[N];
        for (size_t k = 0; k < N; ++k) ptrs[k] = p.base[k] + (off[k] + j * p.stride[1][k]) * p.elsize[k];
        inner(n, ptrs, int64_t{-1});
      }
    }
  };
  if (p.numel < kParallelThreshold || ctx.threads <= 1) {
    body(0, tiles);
    return;
  }
  ctx.parallel_for(tiles, std::max<int64_t>(1, piece_size(p.numel, ctx.threads) / (kTile * kTile)), body);
}

namespace detail {

// An input of a unit-stride run: either a pointer (stride 1) or a value
// loaded once (stride 0), so the loop body is the same for both.
template <class T, bool Broadcast> struct Source;
template <class T> struct Source<T, false> {
  const T* p;
  T operator[](int64_t i) const { return p[i]; }
};
template <class T> struct Source<T, true> {
  T v;
  explicit Source(const T* p) : v(*p) {}
  T operator[](int64_t) const { return v; }
};

template <unsigned Mask, class Out, class... In, size_t... I, class F>
void unit_loop(std::index_sequence<I...>, int64_t n, char* const* ptrs, F& f) {
  Out* o = reinterpret_cast<Out*>(ptrs[0]);
  std::tuple<Source<In, ((Mask >> I) & 1u) != 0>...> src{
      Source<In, ((Mask >> I) & 1u) != 0>{reinterpret_cast<const In*>(ptrs[1 + I])}...};
  // Out never overlaps an input except as the very same elements (in-place
  // ops; Note [Kernel contracts] in tessera/ops.h): no loop-carried
  // dependence, so no run-time alias check before each run.
  TSR_IVDEP
  for (int64_t i = 0; i < n; ++i) o[i] = f(std::get<I>(src)[i]...);
}

// Note [One copy of each loop]
//   A pointwise kernel reaches its unit-stride loops from three walks: rows
//   of a two-dim plan (dispatch_rows), runs of run_range (execute) and tiles
//   (execute_tiled), and inlined into each, every loop was compiled and
//   vectorised once per walk, for every op x dtype. Now each loop has one
//   out-of-line copy, unit_rows<Mask> (a run is one row of it), and the
//   strided walk one, inner_loop: f is still inlined into the loop, which
//   vectorises as before, and a call per run or block of rows costs
//   nanoseconds against the run's prologue. Measured with Note [One
//   parallel loop] (context.hpp), which saved more: binary.cpp 209 s ->
//   89 s, copy.cpp 122 s -> 55 s at -O3 (2026-12-04).

// Rows [r0, r1) of a two-dim plan, each one unit-stride run of n: the loop
// for `Mask` is chosen once for all of them.
template <unsigned Mask, class Out, class... In, size_t... I, class F>
[[gnu::noinline]] void unit_rows(std::index_sequence<I...> seq, int64_t n, int64_t r0, int64_t r1, char* const* base,
               const int64_t* step, F& f) {
  constexpr size_t N = 1 + sizeof...(In);
  for (int64_t r = r0; r < r1; ++r) {
    char* ptrs[N];
    for (size_t k = 0; k < N; ++k) ptrs[k] = base[k] + r * step[k];
    unit_loop<Mask, Out, In...>(seq, n, ptrs, f);
  }
}

// One unit-stride run: row 0 of unit_rows.
template <class Out, class... In, size_t... I, unsigned... M, class F>
void dispatch_unit(unsigned mask, std::index_sequence<I...> seq, std::integer_sequence<unsigned, M...>, int64_t n,
                   char* const* ptrs, F& f) {
  const int64_t no_step[1 + sizeof...(In)] = {};  // one row: never stepped
  (void)((mask == M ? (unit_rows<M, Out, In...>(seq, n, 0, 1, ptrs, no_step, f), true) : false) || ...);
}

template <class Out, class... In, size_t... I, unsigned... M, class F>
void dispatch_rows(unsigned mask, std::index_sequence<I...> seq, std::integer_sequence<unsigned, M...>, int64_t n,
                   int64_t r0, int64_t r1, char* const* base, const int64_t* step, F& f) {
  (void)((mask == M ? (unit_rows<M, Out, In...>(seq, n, r0, r1, base, step, f), true) : false) || ...);
}

// Out of line, so that execute and execute_tiled share one copy (Note [One copy of each loop]).
template <class Out, class... In, size_t... I, class F>
[[gnu::noinline]] void inner_loop(std::index_sequence<I...> seq, int64_t n, char* const* ptrs, const int64_t* s, F& f) {
  if (s[0] == 1 && ((s[1 + I] == 0 || s[1 + I] == 1) && ...)) {
    const unsigned mask = (0u | ... | (static_cast<unsigned>(s[1 + I] == 0) << I));
    dispatch_unit<Out, In...>(mask, seq, std::make_integer_sequence<unsigned, (1u << sizeof...(In))>{}, n, ptrs, f);
    return;
  }
  Out* o = reinterpret_cast<Out*>(ptrs[0]);
  const int64_t so = s[0];
  std::tuple<const In*...> in{reinterpret_cast<const In*>(ptrs[1 + I])...};
  for (int64_t i = 0; i < n; ++i) o[i * so] = f(std::get<I>(in)[i * s[1 + I]]...);
}

}  // namespace detail

// A walk of memory with no structure to find: every operand row-major over
// the output's shape (size-1 dims aside) or, for an input, one value read
// everywhere (all strides 0). Then the plan is one flat dim, built without
// make_plan's sorting and merging: the common case of an op, cheap for tiny
// tensors (Note [The op fast path] in runtime/elementwise.cpp).
template <size_t N> bool flat_plan(const std::array<const tsr_tensor_desc*, N>& ops, Plan<N>& p) {
  const tsr_tensor_desc& out = *ops[0];
  p.numel = numel_of(out);
  for (size_t k = 0; k < N; ++k) {
    const tsr_tensor_desc& d = *ops[k];
    bool dense = true, single = k > 0;
    int64_t expected = 1;
    for (int i = d.ndim - 1; i >= 0; --i) {
      if (d.shape[i] == 1) continue;
      dense = dense && d.strides[i] == expected;
      single = single && d.strides[i] == 0;
      expected *= d.shape[i];
    }
    if (!dense && !single) return false;
    p.elsize[k] = static_cast<int64_t>(tsr_dtype_size(d.dtype));
    p.base[k] = static_cast<char*>(d.data) + d.offset * p.elsize[k];
    p.stride[0][k] = dense ? 1 : 0;
  }
  p.ndim = 1;
  p.shape[0] = p.numel;
  return true;
}

// For pointwise: no whole-run function, every element goes through f.
struct NoRunFn {};

// out[...] = f(ins[0][...], ...) over one shape; Out and In are storage types
// (dtypes.hpp) matching the descriptors' dtypes. `run`, when given, takes
// the places where every operand is unit-stride: run(n, rows, ptrs, step)
// does `rows` runs of n elements, run r at ptrs[k] + r * step[k] bytes
// (step is unused when rows is 1). It must compute exactly what f does (it
// is a vectorised loop, see cloned_loops.hpp).
template <class Out, class... In, class F, class R = NoRunFn>
void pointwise(Context& ctx, const tsr_tensor_desc& out, const std::array<const tsr_tensor_desc*, sizeof...(In)>& ins,
               F f, R run = {}) {
  std::array<const tsr_tensor_desc*, 1 + sizeof...(In)> ops{};
  ops[0] = &out;
  for (size_t k = 0; k < sizeof...(In); ++k) ops[k + 1] = ins[k];
  Plan<1 + sizeof...(In)> plan;
  if (!flat_plan(ops, plan)) plan = make_plan(ops, true);
  const int64_t* s = plan.stride[0];
  constexpr size_t N = 1 + sizeof...(In);
  bool unit_inner = s[0] == 1;  // every inner stride 1, or 0 for an input
  for (size_t k = 1; k < N; ++k) unit_inner = unit_inner && (s[k] == 0 || s[k] == 1);
  if (plan.ndim == 2 && unit_inner) {
    // Two dims with unit-stride rows (a matrix plus a broadcast row, whole
    // rows of a slice): row after row with the loop chosen once, instead of
    // run_range's bookkeeping per run.
    unsigned mask = 0;
    for (size_t k = 1; k < N; ++k) mask |= static_cast<unsigned>(s[k] == 0) << (k - 1);
    const int64_t n = plan.shape[0], rows = plan.shape[1];
    int64_t step[N];
    for (size_t k = 0; k < N; ++k) step[k] = plan.stride[1][k] * plan.elsize[k];
    auto body = [&](int64_t r0, int64_t r1) {
      if constexpr (!std::is_same_v<R, NoRunFn>) {
        if (mask == 0) {
          char* ptrs[N];
          for (size_t k = 0; k < N; ++k) ptrs[k] = plan.base[k] + r0 * step[k];
          run(n, r1 - r0, ptrs, step);
          return;
        }
      }
      detail::dispatch_rows<Out, In...>(mask, std::index_sequence_for<In...>{},
                                        std::make_integer_sequence<unsigned, (1u << sizeof...(In))>{}, n, r0, r1,
                                        plan.base, step, f);
    };
    if (plan.numel < kParallelThreshold || ctx.threads <= 1) {
      body(0, rows);
    } else {
      ctx.parallel_for(rows, std::max<int64_t>(1, piece_size(plan.numel, ctx.threads) / n), body);
    }
    return;
  }
  auto inner = [&](int64_t n, char* const* ptrs, int64_t) {
    if constexpr (!std::is_same_v<R, NoRunFn>) {
      bool unit = s[0] == 1;
      for (size_t k = 1; k <= sizeof...(In); ++k) unit = unit && s[k] == 1;
      if (unit) return run(n, int64_t{1}, ptrs, static_cast<const int64_t*>(nullptr));
    }
    detail::inner_loop<Out, In...>(std::index_sequence_for<In...>{}, n, ptrs, s, f);
  };
  if (plan.numel > 0 && wants_tiles(plan)) {
    execute_tiled(ctx, plan, inner);
  } else {
    execute(ctx, plan, inner);
  }
}

// out[i] = g(i) where i is the element's row-major index.
template <class Out, class G> void generate(Context& ctx, const tsr_tensor_desc& out, G g) {
  const auto plan = make_plan(std::array<const tsr_tensor_desc*, 1>{&out}, false);
  const int64_t s = plan.stride[0][0];
  execute(ctx, plan, [&](int64_t n, char* const* ptrs, int64_t pos) {
    Out* o = reinterpret_cast<Out*>(ptrs[0]);
    if (s == 1) {
      for (int64_t i = 0; i < n; ++i) o[i] = g(pos + i);
    } else {
      for (int64_t i = 0; i < n; ++i) o[i * s] = g(pos + i);
    }
  });
}

}  // namespace tessera::cpu_tbb
