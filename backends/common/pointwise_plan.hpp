// SPDX-License-Identifier: Apache-2.0
// The iteration plan of a pointwise op, shared by the CPU and GPU backends:
// one output plus inputs of the same shape, with size-1 dims dropped, dims
// ordered innermost first (by the operands' strides, output first, as
// PyTorch's TensorIterator does) and adjacent dims that walk memory as one
// dim for every operand merged. Each backend then walks or launches over the
// flat range [0, numel) its own way. Host code.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernel_support.hpp"
#include "tessera/tensor_desc.h"

namespace tessera::backend {

// Entries at and past ndim are left unset (a plan is built per kernel call,
// so zeroing ~0.5 KiB each time would cost more than a tiny op's work).
template <size_t N> struct Plan {
  int ndim = 1;
  int64_t numel = 0;
  int64_t shape[TSR_MAX_DIMS];  // innermost first
  int64_t stride[TSR_MAX_DIMS][N];
  char* base[N] = {};
  int64_t elsize[N] = {};
};

// Operand 0 gives the shape. `reorder` = false keeps the row-major order, so
// the flat position of an element is its row-major index (generators need it).
template <size_t N> Plan<N> make_plan(const std::array<const tsr_tensor_desc*, N>& ops, bool reorder) {
  Plan<N> p;
  const tsr_tensor_desc& out = *ops[0];
  p.numel = numel_of(out);
  for (size_t k = 0; k < N; ++k) {
    p.elsize[k] = static_cast<int64_t>(tsr_dtype_size(ops[k]->dtype));
    p.base[k] = static_cast<char*>(ops[k]->data) + ops[k]->offset * p.elsize[k];
  }
  int n = 0;
  for (int d = out.ndim - 1; d >= 0; --d) {
    if (out.shape[d] == 1) continue;
    p.shape[n] = out.shape[d];
    for (size_t k = 0; k < N; ++k) p.stride[n][k] = ops[k]->strides[d];
    ++n;
  }
  if (reorder) {  // insertion sort: dim a goes inside dim b when the first operand with both strides non-zero says so
    auto inner_first = [&](int a, int b) {
      for (size_t k = 0; k < N; ++k) {
        int64_t sa = p.stride[a][k], sb = p.stride[b][k];
        if (sa == 0 || sb == 0 || sa == sb) continue;
        return sa < sb;
      }
      return false;
    };
    for (int i = 1; i < n; ++i) {
      for (int j = i; j > 0 && inner_first(j, j - 1); --j) {
        std::swap(p.shape[j], p.shape[j - 1]);
        for (size_t k = 0; k < N; ++k) std::swap(p.stride[j][k], p.stride[j - 1][k]);
      }
    }
  }
  if (n == 0) {  // 0-d or all size-1 dims: one element
    p.shape[0] = 1;
    for (size_t k = 0; k < N; ++k) p.stride[0][k] = 0;
    p.ndim = 1;
    return p;
  }
  int m = 0;  // coalesce dim i into dim m when every operand steps over m exactly into i
  for (int i = 1; i < n; ++i) {
    bool mergeable = true;
    for (size_t k = 0; k < N; ++k) mergeable = mergeable && p.stride[i][k] == p.stride[m][k] * p.shape[m];
    if (mergeable) {
      p.shape[m] *= p.shape[i];
    } else {
      ++m;
      p.shape[m] = p.shape[i];
      for (size_t k = 0; k < N; ++k) p.stride[m][k] = p.stride[i][k];
    }
  }
  p.ndim = m + 1;
  return p;
}

}  // namespace tessera::backend
