// SPDX-License-Identifier: Apache-2.0
// What the in-tree backends' kernel tables share: the (op, dtype) support
// matrix, the walk that registers a kernel family for each supported pair,
// the prefix of every kernel error message, the argument checks that do
// not depend on the device, and the scalar conversions.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "element_types.hpp"
#include "plugin_error.hpp"
#include "tessera/plugin.h"

namespace tessera::backend {

// Which dtypes each op has a kernel for: the dtypes its contract defines
// (TSR_OP_TABLE's DTYPES column, tessera/ops.h), so the support matrix is
// the table's. The in-tree backends implement every primitive for all of
// them; composites they do not implement natively are built by the runtime.
constexpr bool op_supports(int op, int dtype) { return tsr_op_takes_dtype(op, dtype) != 0; }

// Note [Kernel dtypes of a build]
//   A build of a backend has kernels for every dtype, unless it is compiled
//   with TESSERA_KERNEL_DTYPES, a bitmask of dtypes (bit d: dtype d): then
//   only those get kernels, and the others are never instantiated. Only a
//   test build sets it: `make test-tsan` builds cuda_emu.so for the dtypes
//   its one test on the emulator (cuda_emu.threads) runs, so that
//   ThreadSanitizer's build does not compile, instrumented, the hundreds of
//   kernels no test of that build calls; that test's config has no CPU
//   fallback, so a kernel it needs and lacks fails it (tests/cuda_emu).
constexpr bool dtype_built(int dtype) {
#ifdef TESSERA_KERNEL_DTYPES
  return dtype >= 0 && dtype < 64 && ((static_cast<unsigned long long>(TESSERA_KERNEL_DTYPES) >> dtype) & 1u) != 0;
#else
  return dtype >= 0;
#endif
}

using KernelList = std::vector<tsr_kernel_entry>;

// Calls f(integral_constant<Op>, integral_constant<D>) for each Op in Ops and
// each dtype D that op_supports (and the build has, Note [Kernel dtypes of a
// build]), so unsupported pairs are never instantiated.
template <int... Ops, class F> void for_each_supported(F&& f) {
  auto one_op = [&]<int Op>(std::integral_constant<int, Op> op) {
    for_each_dtype([&]<int D>(std::integral_constant<int, D> dtype) {
      if constexpr (op_supports(Op, D) && dtype_built(D)) f(op, dtype);
    });
  };
  (one_op(std::integral_constant<int, Ops>{}), ...);
}

// Whether op's kind (tessera/ops.h) is one of Kinds.
template <int... Kinds> constexpr bool op_is_of_kind(int op) { return ((tsr_op_kind(op) == Kinds) || ...); }

// Calls f(integral_constant<Op>) for each op of the table (Note [The op table]
// in tessera/ops.h) whose kind is one of Kinds, in value order: a kernel
// family registers every op of its kinds, so a new op needs no list here.
template <int... Kinds, class F> void for_each_op_of_kind(F&& f) {
  [&]<int... Op>(std::integer_sequence<int, Op...>) {
    (
        [&] {
          if constexpr (op_is_of_kind<Kinds...>(Op)) f(std::integral_constant<int, Op>{});
        }(),
        ...);
  }(std::make_integer_sequence<int, TSR_OP_COUNT>{});
}

// "cpu_tbb: add(float32): " — the prefix of every kernel error message.
inline std::string where(const char* plugin, const tsr_kernel_args& a, int dtype) {
  return std::string(plugin) + ": " + tsr_op_name(a.op) + "(" + tsr_dtype_name(dtype) + "): ";
}

// `d` holds `dtype` (what = "output", "input 0", ...).
inline void check_dtype(const char* plugin, const tsr_kernel_args& a, int key, const tsr_tensor_desc& d, int dtype,
                        const char* what) {
  if (d.dtype != dtype)
    fail(TSR_ERR_TYPE,
         where(plugin, a, key) + what + " is " + tsr_dtype_name(d.dtype) + ", expected " + tsr_dtype_name(dtype));
}

// ---- the arguments every kernel relies on -------------------------------------------
// Counts and pointers as the op needs them, the device index below
// `device_count`, and descriptors a kernel can walk: non-negative sizes,
// strides and offset, a known dtype, data unless empty, and, where
// `device_type` is set (non-zero), a non-empty tensor on (device_type,
// a.device_index): a GPU kernel would fault on a host pointer. The common
// case costs a few compares; messages are built only when something is wrong.

inline bool desc_ok(const tsr_tensor_desc* d, const tsr_kernel_args& a, int32_t device_type) {
  if (d == nullptr || d->struct_size < TSR_TENSOR_DESC_STRUCT_SIZE || d->ndim < 0 || d->ndim > TSR_MAX_DIMS ||
      tsr_dtype_size(d->dtype) == 0 || d->offset < 0)
    return false;
  bool empty = false;
  for (int i = 0; i < d->ndim; ++i) {
    if (d->shape[i] < 0 || d->strides[i] < 0) return false;
    empty = empty || d->shape[i] == 0;
  }
  if (empty) return true;
  return d->data != nullptr && (device_type == 0 || (d->device.type == device_type && d->device.index == a.device_index));
}

[[gnu::cold, gnu::noinline]] inline void explain_bad_desc(const char* plugin, const tsr_kernel_args& a, int key,
                                                          const tsr_tensor_desc* d, const char* what, int32_t device_type) {
  const std::string at = where(plugin, a, key) + what;
  if (d == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, at + " is NULL");
  if (d->struct_size < TSR_TENSOR_DESC_STRUCT_SIZE) fail(TSR_ERR_INVALID_ARGUMENT, at + ": descriptor too small");
  if (d->ndim < 0 || d->ndim > TSR_MAX_DIMS) fail(TSR_ERR_INVALID_ARGUMENT, at + ": ndim " + std::to_string(d->ndim) + " out of range");
  if (tsr_dtype_size(d->dtype) == 0) fail(TSR_ERR_TYPE, at + ": unknown dtype " + std::to_string(d->dtype));
  bool empty = false;
  for (int i = 0; i < d->ndim; ++i) {
    if (d->shape[i] < 0) fail(TSR_ERR_INVALID_ARGUMENT, at + ": negative size");
    if (d->strides[i] < 0) fail(TSR_ERR_INVALID_ARGUMENT, at + ": negative stride");
    empty = empty || d->shape[i] == 0;
  }
  if (d->offset < 0) fail(TSR_ERR_INVALID_ARGUMENT, at + ": negative offset");
  if (!empty && d->data == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, at + ": NULL data");
  if (!empty && device_type != 0 && (d->device.type != device_type || d->device.index != a.device_index))
    fail(TSR_ERR_INVALID_ARGUMENT, at + " is not on " + plugin + ":" + std::to_string(a.device_index));
}

[[gnu::cold, gnu::noinline]] inline void explain_bad_args(const char* plugin, const tsr_kernel_args& a, int dtype, int num_inputs,
                                                          int num_scalars, int num_params, int32_t device_count,
                                                          int32_t device_type) {
  if (a.struct_size < TSR_STRUCT_SIZE(tsr_kernel_args, num_params))
    fail(TSR_ERR_INVALID_ARGUMENT, where(plugin, a, dtype) + "kernel args struct too small");
  if (a.device_index < 0 || a.device_index >= device_count)
    fail(TSR_ERR_INDEX, where(plugin, a, dtype) + "no device " + std::to_string(a.device_index));
  if (a.num_inputs != num_inputs || (num_inputs > 0 && a.inputs == nullptr))
    fail(TSR_ERR_INVALID_ARGUMENT, where(plugin, a, dtype) + "expects " + std::to_string(num_inputs) + " inputs, got " +
                                       std::to_string(a.num_inputs));
  if (a.num_scalars < num_scalars || (num_scalars > 0 && a.scalars == nullptr))
    fail(TSR_ERR_INVALID_ARGUMENT, where(plugin, a, dtype) + "expects " + std::to_string(num_scalars) + " scalars");
  if (a.num_params < num_params || (num_params > 0 && a.params == nullptr))
    fail(TSR_ERR_INVALID_ARGUMENT, where(plugin, a, dtype) + "expects " + std::to_string(num_params) + " params");
  explain_bad_desc(plugin, a, dtype, a.output, "output", device_type);
  for (int i = 0; i < num_inputs; ++i) explain_bad_desc(plugin, a, dtype, a.inputs[i], "input", device_type);
  fail(TSR_ERR_INTERNAL, where(plugin, a, dtype) + "bad arguments");  // unreachable: check_kernel_args found a problem
}

inline void check_kernel_args(const char* plugin, const tsr_kernel_args& a, int dtype, int num_inputs, int num_scalars,
                              int num_params, int32_t device_count, int32_t device_type) {
  bool ok = a.struct_size >= TSR_STRUCT_SIZE(tsr_kernel_args, num_params) && a.device_index >= 0 &&
            a.device_index < device_count && a.num_inputs == num_inputs && (num_inputs == 0 || a.inputs != nullptr) &&
            a.num_scalars >= num_scalars && (num_scalars == 0 || a.scalars != nullptr) && a.num_params >= num_params &&
            (num_params == 0 || a.params != nullptr) && desc_ok(a.output, a, device_type);
  for (int i = 0; ok && i < num_inputs; ++i) ok = desc_ok(a.inputs[i], a, device_type);
  if (!ok) explain_bad_args(plugin, a, dtype, num_inputs, num_scalars, num_params, device_count, device_type);
}

// LINALG's further results (Note [Kernel contracts], kind LINALG), after the
// backend's own check_args: args long enough to carry them, and exactly
// `count` well-formed descriptors on the kernel's device.
inline void check_more_outputs(const char* plugin, const tsr_kernel_args& a, int key, int count, int32_t device_type) {
  bool ok = a.struct_size >= TSR_STRUCT_SIZE(tsr_kernel_args, num_more_outputs) && a.num_more_outputs == count &&
            (count == 0 || a.more_outputs != nullptr);
  for (int i = 0; ok && i < count; ++i) ok = desc_ok(a.more_outputs[i], a, device_type);
  if (!ok)
    fail(TSR_ERR_INVALID_ARGUMENT, where(plugin, a, key) + "expected " + std::to_string(count) +
                                       " well-formed more_outputs (ABI 1.6 args), got " +
                                       std::to_string(a.struct_size >= TSR_STRUCT_SIZE(tsr_kernel_args, num_more_outputs)
                                                          ? a.num_more_outputs
                                                          : 0));
}

// d is `dtype`, with the first `batch_dims` dims of the output's sizes and
// then exactly `dims` (a LINALG operand's shape).
inline void check_linalg_shape(const char* plugin, const tsr_kernel_args& a, int key, const tsr_tensor_desc& d,
                               int dtype, int batch_dims, std::initializer_list<int64_t> dims, const char* what) {
  check_dtype(plugin, a, key, d, dtype, what);
  bool ok = batch_dims >= 0 && d.ndim == batch_dims + static_cast<int>(dims.size()) && a.output->ndim >= batch_dims;
  for (int i = 0; ok && i < batch_dims; ++i) ok = d.shape[i] == a.output->shape[i];
  int i = batch_dims;
  for (int64_t size : dims) ok = ok && d.shape[i++] == size;
  if (!ok) fail(TSR_ERR_SHAPE, where(plugin, a, key) + what + " does not have the shape the LINALG contract gives it");
}

// `in` has the output's shape (pointwise ops).
inline void check_same_shape(const char* plugin, const tsr_kernel_args& a, int key, const tsr_tensor_desc& in,
                             const char* what) {
  const tsr_tensor_desc& out = *a.output;
  bool same = in.ndim == out.ndim;
  for (int i = 0; same && i < out.ndim; ++i) same = in.shape[i] == out.shape[i];
  if (!same) fail(TSR_ERR_SHAPE, where(plugin, a, key) + what + " does not have the output's shape");
}

// A binary pointwise kernel's operands, after the backend's own check_args:
// both inputs hold `key`, the output `out_dtype`, and all have its shape.
inline void check_binary_operands(const char* plugin, const tsr_kernel_args& a, int key, int out_dtype) {
  check_dtype(plugin, a, key, *a.inputs[0], key, "input 0");
  check_dtype(plugin, a, key, *a.inputs[1], key, "input 1");
  check_dtype(plugin, a, key, *a.output, out_dtype, "output");
  check_same_shape(plugin, a, key, *a.inputs[0], "input 0");
  check_same_shape(plugin, a, key, *a.inputs[1], "input 1");
}

// One input of the key dtype and an output of `out_dtype`, of one shape
// (UNARY, MATH, SCAN, SORT).
inline void check_unary_operands(const char* plugin, const tsr_kernel_args& a, int key, int out_dtype) {
  check_dtype(plugin, a, key, *a.inputs[0], key, "input 0");
  check_dtype(plugin, a, key, *a.output, out_dtype, "output");
  check_same_shape(plugin, a, key, *a.inputs[0], "input 0");
}

// GATHER's and SCATTER's shapes (Note [Kernel contracts]): `idx` (index's
// shape) has the ndim of `target`, `dim` is one of its dims, and off `dim`
// idx is no larger than target.
inline void check_index_shape(const char* plugin, const tsr_kernel_args& a, int key, const tsr_tensor_desc& idx,
                              const tsr_tensor_desc& target, int64_t dim, const char* what) {
  if (idx.ndim != target.ndim || idx.ndim < 1 || dim < 0 || dim >= idx.ndim)
    fail(TSR_ERR_SHAPE, where(plugin, a, key) + "index has " + std::to_string(idx.ndim) + " dims, " + what + " " +
                            std::to_string(target.ndim) + ", dim " + std::to_string(dim));
  for (int d = 0; d < idx.ndim; ++d)
    if (d != dim && idx.shape[d] > target.shape[d])
      fail(TSR_ERR_SHAPE, where(plugin, a, key) + "index is larger than " + what + " on dim " + std::to_string(d));
}

// GATHER's operands, after the backend's own check_args: (x, index int64)
// -> out of index's shape, all of `key` but the index. Returns the dim.
inline int64_t check_gather_operands(const char* plugin, const tsr_kernel_args& a, int key) {
  const tsr_tensor_desc& x = *a.inputs[0];
  const tsr_tensor_desc& index = *a.inputs[1];
  check_dtype(plugin, a, key, x, key, "input 0");
  check_dtype(plugin, a, key, index, TSR_INT64, "index");
  check_dtype(plugin, a, key, *a.output, key, "output");
  check_same_shape(plugin, a, key, index, "index");
  check_index_shape(plugin, a, key, index, x, a.params[0], "x");
  return a.params[0];
}

// SCATTER's operands: (index int64, src) into out, index and src of one
// shape, params = (dim, 0 store | 1 add; no add for bool).
inline void check_scatter_operands(const char* plugin, const tsr_kernel_args& a, int key) {
  const tsr_tensor_desc& index = *a.inputs[0];
  const tsr_tensor_desc& src = *a.inputs[1];
  const tsr_tensor_desc& out = *a.output;
  check_dtype(plugin, a, key, index, TSR_INT64, "index");
  check_dtype(plugin, a, key, src, key, "src");
  check_dtype(plugin, a, key, out, key, "output");
  const int64_t dim = a.params[0], mode = a.params[1];
  check_index_shape(plugin, a, key, index, out, dim, "out");
  if (src.ndim != index.ndim) fail(TSR_ERR_SHAPE, where(plugin, a, key) + "src and index differ in ndim");
  for (int d = 0; d < src.ndim; ++d)
    if (src.shape[d] != index.shape[d]) fail(TSR_ERR_SHAPE, where(plugin, a, key) + "src and index differ in shape");
  if (mode != 0 && mode != 1)
    fail(TSR_ERR_INVALID_ARGUMENT, where(plugin, a, key) + "params[1] must be 0 (store) or 1 (add), not " + std::to_string(mode));
  if (mode == 1 && key == TSR_BOOL) fail(TSR_ERR_TYPE, where(plugin, a, key) + "scatter-add is not defined for bool");
}

// NONZERO's operands: an input of `key`, >= 1-d, and an int64 output of
// (count, the input's ndim).
inline void check_nonzero_operands(const char* plugin, const tsr_kernel_args& a, int key) {
  const tsr_tensor_desc& in = *a.inputs[0];
  const tsr_tensor_desc& out = *a.output;
  check_dtype(plugin, a, key, in, key, "input 0");
  check_dtype(plugin, a, key, out, TSR_INT64, "output");
  if (in.ndim < 1 || out.ndim != 2 || out.shape[1] != in.ndim)
    fail(TSR_ERR_SHAPE, where(plugin, a, key) + "the output must be (count, " + std::to_string(in.ndim) + ") for a " +
                            std::to_string(in.ndim) + "-d input (>= 1-d)");
}

// Whether the scalar's value is in `f` (a float, or a complex's real part).
inline bool scalar_in_f(const tsr_scalar& s) { return s.kind == TSR_SCALAR_FLOAT || s.kind == TSR_SCALAR_COMPLEX; }

// A scalar argument as a double / int64 (a float truncates toward zero,
// saturating; a complex gives its real part).
inline double scalar_as_double(const tsr_scalar& s) { return scalar_in_f(s) ? s.f : static_cast<double>(s.i); }
inline int64_t scalar_as_int(const tsr_scalar& s) {
  if (!scalar_in_f(s)) return s.i;
  if (std::isnan(s.f)) return 0;
  if (s.f >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (s.f <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(s.f);
}

// A scalar converted to storage type S as PyTorch's Scalar.to<S>() does.
template <class S> S scalar_to(const tsr_scalar& s) {
  if constexpr (is_complex_type_v<S> || is_complex_pair_v<S>) {
    if (s.kind == TSR_SCALAR_COMPLEX) return convert<S>(complex_t<double>(s.f, tsr_scalar_imag(s)));
  }
  if (scalar_in_f(s)) return convert<S>(s.f);
  return convert<S>(s.i);
}

inline int64_t numel_of(const tsr_tensor_desc& d) {
  int64_t n = 1;
  for (int i = 0; i < d.ndim; ++i) n *= d.shape[i];
  return n;
}

// A matrix transposed: d's last two dims swapped (a view; no data moves).
inline tsr_tensor_desc transposed(const tsr_tensor_desc& d) {
  tsr_tensor_desc t = d;
  std::swap(t.shape[d.ndim - 2], t.shape[d.ndim - 1]);
  std::swap(t.strides[d.ndim - 2], t.strides[d.ndim - 1]);
  return t;
}

// Whether d's elements lie in row-major order with no gaps (the strides of
// size-1 dims do not matter), as PyTorch's is_contiguous.
inline bool is_row_major(const tsr_tensor_desc& d) {
  int64_t step = 1;
  for (int i = d.ndim - 1; i >= 0; step *= d.shape[i], --i)
    if (d.shape[i] != 1 && d.strides[i] != step) return false;
  return true;
}

}  // namespace tessera::backend
