// SPDX-License-Identifier: Apache-2.0
// The iteration plan of a reduction, shared by the CPU and GPU backends.
// Host code.
#pragma once

#include <cstdint>
#include <utility>

#include "kernel_support.hpp"
#include "tessera/tensor_desc.h"

namespace tessera::backend {

// Kept dims (one output element each) and reduced dims, innermost first, with
// size-1 dims dropped and adjacent dims merged where memory allows.
struct ReducePlan {
  int nkeep = 0, nred = 0;
  int64_t keep_size[TSR_MAX_DIMS], keep_in[TSR_MAX_DIMS], keep_out[TSR_MAX_DIMS];
  int64_t red_size[TSR_MAX_DIMS], red_in[TSR_MAX_DIMS];
  int64_t n_out = 1, count = 1;  // output elements, elements reduced into each
};

inline ReducePlan make_reduce_plan(const tsr_tensor_desc& in, const tsr_tensor_desc& out, const bool* reduced, bool keep_red_order) {
  ReducePlan p;
  for (int d = in.ndim - 1; d >= 0; --d) {
    if (in.shape[d] == 1) continue;
    if (reduced[d]) {
      p.red_size[p.nred] = in.shape[d];
      p.red_in[p.nred++] = in.strides[d];
      p.count *= in.shape[d];
    } else {
      p.keep_size[p.nkeep] = in.shape[d];
      p.keep_in[p.nkeep] = in.strides[d];
      p.keep_out[p.nkeep++] = out.strides[d];
      p.n_out *= in.shape[d];
    }
  }
  // Kept dims in input-memory order, innermost first (stable insertion sort).
  for (int i = 1; i < p.nkeep; ++i) {
    for (int j = i; j > 0 && p.keep_in[j] < p.keep_in[j - 1]; --j) {
      std::swap(p.keep_size[j], p.keep_size[j - 1]);
      std::swap(p.keep_in[j], p.keep_in[j - 1]);
      std::swap(p.keep_out[j], p.keep_out[j - 1]);
    }
  }
  // Reduced dims too, unless the reducer needs row-major positions (ARGMAX).
  if (!keep_red_order) {
    for (int i = 1; i < p.nred; ++i) {
      for (int j = i; j > 0 && p.red_in[j] < p.red_in[j - 1]; --j) {
        std::swap(p.red_size[j], p.red_size[j - 1]);
        std::swap(p.red_in[j], p.red_in[j - 1]);
      }
    }
  }
  if (p.nkeep > 0) {
    int m = 0;
    for (int i = 1; i < p.nkeep; ++i) {
      if (p.keep_in[i] == p.keep_in[m] * p.keep_size[m] && p.keep_out[i] == p.keep_out[m] * p.keep_size[m]) {
        p.keep_size[m] *= p.keep_size[i];
      } else {
        ++m;
        p.keep_size[m] = p.keep_size[i];
        p.keep_in[m] = p.keep_in[i];
        p.keep_out[m] = p.keep_out[i];
      }
    }
    p.nkeep = m + 1;
  }
  if (p.nred > 0) {
    int m = 0;
    for (int i = 1; i < p.nred; ++i) {
      if (p.red_in[i] == p.red_in[m] * p.red_size[m]) {
        p.red_size[m] *= p.red_size[i];
      } else {
        ++m;
        p.red_size[m] = p.red_size[i];
        p.red_in[m] = p.red_in[i];
      }
    }
    p.nred = m + 1;
  } else {  // nothing to reduce: one element per output
    p.nred = 1;
    p.red_size[0] = 1;
    p.red_in[0] = 0;
  }
  return p;
}

// Which dims of `in` the reduction `op` folds into `out` (reduced[d], for
// d < in.ndim), read off the shapes: a 0-d output (or ARGMAX's params[0] = 1)
// reduces everything, a dim of size 1 in out where in's is larger is reduced,
// ARGMAX's params[1] names its one dim. TSR_ERR_SHAPE / TSR_ERR_INDEX when the
// shapes or params say nothing consistent.
// ARGMAX and ARGMIN: their params name the reduced dim (Note [Kernel contracts]).
constexpr bool is_arg_reduction(int op) { return op == TSR_OP_ARGMAX || op == TSR_OP_ARGMIN; }

inline void find_reduced_dims(const char* plugin, const tsr_kernel_args& a, int op, int key, const tsr_tensor_desc& in,
                              const tsr_tensor_desc& out, bool* reduced) {
  const bool all = out.ndim == 0 || in.ndim == 0 || (is_arg_reduction(op) && a.num_params >= 1 && a.params[0] == 1);
  if (all) {
    if (numel_of(out) != 1) fail(TSR_ERR_SHAPE, where(plugin, a, key) + "a full reduction needs an output of one element");
    for (int d = 0; d < in.ndim; ++d) reduced[d] = true;
  } else {
    if (out.ndim != in.ndim) fail(TSR_ERR_SHAPE, where(plugin, a, key) + "output ndim differs from the input's");
    int dim = -1;
    if (is_arg_reduction(op) && a.num_params >= 2) {
      dim = static_cast<int>(a.params[1]);
      if (a.params[1] < 0 || a.params[1] >= in.ndim) fail(TSR_ERR_INDEX, where(plugin, a, key) + "dim " + std::to_string(a.params[1]) + " out of range");
    }
    for (int d = 0; d < in.ndim; ++d) {
      if (dim >= 0) {
        reduced[d] = d == dim;
        if (out.shape[d] != (reduced[d] ? 1 : in.shape[d])) fail(TSR_ERR_SHAPE, where(plugin, a, key) + "output shape does not match dim");
      } else if (out.shape[d] == in.shape[d]) {
        reduced[d] = false;
      } else if (out.shape[d] == 1) {
        reduced[d] = true;
      } else {
        fail(TSR_ERR_SHAPE, where(plugin, a, key) + "output dim " + std::to_string(d) + " is neither the input's size nor 1");
      }
    }
    if (is_arg_reduction(op) && dim < 0) {
      int nontrivial = 0;
      for (int d = 0; d < in.ndim; ++d) nontrivial += reduced[d] && in.shape[d] != 1;
      if (nontrivial > 1) fail(TSR_ERR_INVALID_ARGUMENT, where(plugin, a, key) + "an arg reduction takes one dim or all of them (params[0] = 1)");
    }
  }
}

}  // namespace tessera::backend
