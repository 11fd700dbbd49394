// SPDX-License-Identifier: Apache-2.0
// The lines of a tensor along one dim, for the kernels that work line by
// line (CUMSUM in scan.cu, SORT and ARGSORT in sort.cu): the other dims'
// shape with the input's and the output's strides over them, the line
// length and both strides along it.
#pragma once

#include <cstdint>
#include <string>

#include "elementwise.cuh"
#include "kernels.hpp"

namespace tessera::cuda {

struct Lines {
  int ndim = 0;  // the other dims
  int64_t shape[TSR_MAX_DIMS] = {};
  int64_t in_stride[TSR_MAX_DIMS] = {}, out_stride[TSR_MAX_DIMS] = {};
  int64_t lines = 1, n = 0, si = 0, so = 0;
};

// Lines of `in` and `out` (one shape) along dim; refuses a dim out of range.
inline Lines lines_along(const Exec& ex, const tsr_tensor_desc& in, const tsr_tensor_desc& out, int64_t dim) {
  if (in.ndim < 1 || dim < 0 || dim >= in.ndim)
    fail(TSR_ERR_INDEX, ex.where() + "dim " + std::to_string(dim) + " is not a dim of a " + std::to_string(in.ndim) +
                            "-d input (0-d inputs arrive as 1-d)");
  Lines p;
  for (int d = 0; d < in.ndim; ++d) {
    if (d == dim) continue;
    p.shape[p.ndim] = in.shape[d];
    p.in_stride[p.ndim] = in.strides[d];
    p.out_stride[p.ndim] = out.strides[d];
    p.lines *= in.shape[d];
    ++p.ndim;
  }
  p.n = in.shape[dim];
  p.si = in.strides[dim];
  p.so = out.strides[dim];
  return p;
}

// Element offsets of position j of line l in the input and the output.
TSR_HD void line_offsets(const Lines& p, int64_t l, int64_t j, int64_t& in, int64_t& out) {
  in = j * p.si;
  out = j * p.so;
  for (int d = p.ndim - 1; d >= 0; --d) {
    const int64_t c = l % p.shape[d];
    l /= p.shape[d];
    in += c * p.in_stride[d];
    out += c * p.out_stride[d];
  }
}

}  // namespace tessera::cuda
