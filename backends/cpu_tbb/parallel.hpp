// SPDX-License-Identifier: Apache-2.0
// Running a loop over items in parallel inside the plugin's arena, and
// walking a strided index space: what the reduction, scan, gather, sort and
// compaction kernels share.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "context.hpp"
#include "elementwise.hpp"

namespace tessera::cpu_tbb {

// body(begin, end) over [0, items), in parallel when `work` (elements
// touched in all) is worth it: items of about work / items elements each,
// cut into pieces of at least `grain` items and about piece_size elements
// (Note [Parallel pieces]).
template <class F> void maybe_parallel(Context& ctx, int64_t items, int64_t work, int64_t grain, F&& body) {
  if (work < kParallelThreshold || ctx.threads <= 1 || items <= 1) {
    body(int64_t{0}, items);
    return;
  }
  const int64_t per_item = std::max<int64_t>(1, work / items);
  const int64_t piece = std::max<int64_t>({int64_t{1}, grain, piece_size(work, ctx.threads) / per_item});
  ctx.parallel_for(items, piece, body);
}

// A row-major walk over `ndim` dims of sizes `shape`, tracking N element
// offsets (one per stride array). Start anywhere, then step by one.
template <size_t N> struct StridedWalk {
  int ndim = 0;
  const int64_t* shape = nullptr;
  std::array<const int64_t*, N> strides{};
  int64_t idx[TSR_MAX_DIMS] = {};
  std::array<int64_t, N> off{};

  StridedWalk(int ndim_, const int64_t* shape_, std::array<const int64_t*, N> strides_, int64_t start)
      : ndim(ndim_), shape(shape_), strides(strides_) {
    for (int d = ndim - 1; d >= 0; --d) {
      idx[d] = start % shape[d];
      start /= shape[d];
      for (size_t k = 0; k < N; ++k) off[k] += idx[d] * strides[k][d];
    }
  }
  void next() {
    for (int d = ndim - 1; d >= 0; --d) {
      ++idx[d];
      for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
      if (idx[d] < shape[d]) return;
      for (size_t k = 0; k < N; ++k) off[k] -= idx[d] * strides[k][d];
      idx[d] = 0;
    }
  }
};

// The lines of a tensor along one dim: every index of the other dims, in
// row-major order. `shape` and the stride arrays have the dim removed.
struct LineSet {
  int ndim = 0;  // the other dims
  int64_t shape[TSR_MAX_DIMS] = {};
  int64_t count = 1;  // lines
  int64_t length = 0;  // elements per line

  // Drops `dim` from desc-shaped arrays.
  static void drop(const int64_t* from, int n, int dim, int64_t* to) {
    for (int d = 0, k = 0; d < n; ++d)
      if (d != dim) to[k++] = from[d];
  }
  LineSet(const tsr_tensor_desc& like, int dim) {
    ndim = like.ndim - 1;
    drop(like.shape, like.ndim, dim, shape);
    for (int d = 0; d < ndim; ++d) count *= shape[d];
    length = like.shape[dim];
  }
};

// The lines of `in` and `out` (one shape) along dim, with each one's strides
// off that dim: what SCAN and SORT walk. Refuses a dim out of range.
struct AlongDim {
  LineSet lines;
  int64_t dim;
  int64_t in_strides[TSR_MAX_DIMS] = {}, out_strides[TSR_MAX_DIMS] = {};
  AlongDim(const tsr_kernel_args& a, int key, const tsr_tensor_desc& in, const tsr_tensor_desc& out, int64_t d)
      : lines(check(a, key, in, d), static_cast<int>(d)), dim(d) {
    LineSet::drop(in.strides, in.ndim, static_cast<int>(d), in_strides);
    LineSet::drop(out.strides, out.ndim, static_cast<int>(d), out_strides);
  }
  static const tsr_tensor_desc& check(const tsr_kernel_args& a, int key, const tsr_tensor_desc& in, int64_t d) {
    if (in.ndim < 1 || d < 0 || d >= in.ndim)
      fail(TSR_ERR_INDEX, backend::where("cpu_tbb", a, key) + "dim " + std::to_string(d) +
                              " is not a dim of a " + std::to_string(in.ndim) + "-d input (0-d inputs arrive as 1-d)");
    return in;
  }
};

}  // namespace tessera::cpu_tbb
