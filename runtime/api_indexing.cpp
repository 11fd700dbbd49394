// SPDX-License-Identifier: Apache-2.0
// The C API of ABI 1.5's index ops and manipulation functions: tsr_cumsum,
// tsr_cumprod and tsr_searchsorted (ABI 1.11), tsr_gather, tsr_take, tsr_scatter_, tsr_nonzero, tsr_sort
// (runtime/indexing.cpp does the work), tsr_concat, tsr_stack, tsr_roll,
// tsr_flip, tsr_tril, tsr_triu, tsr_eye (runtime/manipulation.cpp),
// tsr_unique (runtime/sets.cpp).
#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "api_support.hpp"
#include "derivatives.hpp"
#include "ops.hpp"

using namespace tessera::rt;

tsr_status tsr_cumsum(tsr_tensor* t, int64_t dim, tsr_dtype dtype, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(cumsum(require(t, "tensor"), dim, dtype), out);
  });
}

tsr_status tsr_cumprod(tsr_tensor* t, int64_t dim, tsr_dtype dtype, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(cumprod(require(t, "tensor"), dim, dtype), out);
  });
}

tsr_status tsr_searchsorted(tsr_tensor* sorted, tsr_tensor* values, const tsr_searchsorted_options* options,
                            tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    tsr_searchsorted_options o = TSR_SEARCHSORTED_OPTIONS_INIT;
    if (options != nullptr) {
      if (options->struct_size < TSR_STRUCT_SIZE(tsr_searchsorted_options, right))
        fail(TSR_ERR_INVALID_ARGUMENT, "tsr_searchsorted: options->struct_size " +
                                           std::to_string(options->struct_size) +
                                           " is smaller than any tsr_searchsorted_options (set it to "
                                           "TSR_SEARCHSORTED_OPTIONS_STRUCT_SIZE)");
      std::memcpy(&o, options, std::min(options->struct_size, sizeof o));
    }
    hand_out(searchsorted(require(sorted, "sorted"), require(values, "values"), o.right != 0, o.sorter), out);
  });
}

tsr_status tsr_gather(tsr_tensor* x, int64_t dim, tsr_tensor* index, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(gather(require(x, "x"), dim, require(index, "index")), out);
  });
}

tsr_status tsr_take(tsr_tensor* x, tsr_tensor* indices, int64_t dim, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(take(require(x, "x"), require(indices, "indices"), dim), out);
  });
}

tsr_status tsr_scatter_(tsr_tensor* out, int64_t dim, tsr_tensor* index, tsr_tensor* src, int32_t add) {
  return guard([&] {
    tsr_tensor& target = require(out, "out");
    const tsr_tensor& from = require(src, "src");
    autograd::InplaceWrite write(target, {&from});
    scatter_(target, dim, require(index, "index"), from, add != 0);
    write.finish([&](tsr_tensor& r) {
      autograd::record_scatter(write.old(), from, dim, require(index, "index"), add != 0, r);
    });
  });
}

tsr_status tsr_nonzero(tsr_tensor* x, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(nonzero(require(x, "x")), out);
  });
}

tsr_status tsr_sort(tsr_tensor* x, const tsr_sort_options* options, tsr_tensor** values, tsr_tensor** indices) {
  return guard([&] {
    if (values == nullptr && indices == nullptr)
      fail(TSR_ERR_INVALID_ARGUMENT, "tsr_sort: values and indices are both NULL (ask for at least one)");
    if (values != nullptr) *values = nullptr;
    if (indices != nullptr) *indices = nullptr;
    tsr_sort_options o = TSR_SORT_OPTIONS_INIT;
    if (options != nullptr) {
      if (options->struct_size < TSR_STRUCT_SIZE(tsr_sort_options, dim))
        fail(TSR_ERR_INVALID_ARGUMENT, "tsr_sort: options->struct_size " + std::to_string(options->struct_size) +
                                           " is smaller than any tsr_sort_options (set it to "
                                           "TSR_SORT_OPTIONS_STRUCT_SIZE)");
      std::memcpy(&o, options, std::min(options->struct_size, sizeof o));
    }
    TensorRef v, i;
    sort(require(x, "x"), o.dim, o.descending != 0, o.stable != 0, values != nullptr ? &v : nullptr,
         indices != nullptr ? &i : nullptr);
    if (values != nullptr) hand_out(std::move(v), values);
    if (indices != nullptr) hand_out(std::move(i), indices);
  });
}

namespace {
std::vector<const tsr_tensor*> tensor_list(tsr_tensor* const* tensors, int32_t count, const char* fn) {
  if (count < 0 || (count > 0 && tensors == nullptr))
    fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": tensors is NULL or count (" + std::to_string(count) + ") < 0");
  std::vector<const tsr_tensor*> list;
  for (int32_t i = 0; i < count; ++i)
    list.push_back(&require(tensors[i], (std::string("tensors[") + std::to_string(i) + "]").c_str()));
  return list;
}
std::span<const int64_t> int_list(const int64_t* values, int32_t count, const char* what) {
  if (count < 0 || (count > 0 && values == nullptr))
    fail(TSR_ERR_INVALID_ARGUMENT, std::string(what) + " is NULL or its count (" + std::to_string(count) + ") < 0");
  return {values, static_cast<size_t>(count)};
}
}  // namespace

tsr_status tsr_concat(tsr_tensor* const* tensors, int32_t count, int64_t dim, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(concat(tensor_list(tensors, count, "tsr_concat"), dim), out);
  });
}

tsr_status tsr_stack(tsr_tensor* const* tensors, int32_t count, int64_t dim, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(stack(tensor_list(tensors, count, "tsr_stack"), dim), out);
  });
}

tsr_status tsr_roll(tsr_tensor* x, int32_t count, const int64_t* shifts, const int64_t* dims, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    const std::span<const int64_t> s = int_list(shifts, dims == nullptr ? 1 : count, "shifts");
    hand_out(roll(require(x, "x"), s, dims == nullptr ? std::span<const int64_t>{} : int_list(dims, count, "dims")), out);
  });
}

tsr_status tsr_flip(tsr_tensor* x, int32_t count, const int64_t* dims, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(flip(require(x, "x"), int_list(dims, count, "dims")), out);
  });
}

tsr_status tsr_tril(tsr_tensor* x, int64_t k, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(triangle(require(x, "x"), k, true), out);
  });
}

tsr_status tsr_triu(tsr_tensor* x, int64_t k, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(triangle(require(x, "x"), k, false), out);
  });
}

tsr_status tsr_eye(tsr_runtime* rt, int64_t n, int64_t m, int64_t k, tsr_dtype dtype, tsr_device device,
                   tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    if (rt == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "tsr_eye: rt is NULL");
    hand_out(eye(*rt, n, m, k, dtype == TSR_DTYPE_UNDEFINED ? TSR_FLOAT32 : dtype, device), out);
  });
}

tsr_status tsr_unique(tsr_tensor* x, tsr_tensor** values, tsr_tensor** indices, tsr_tensor** inverse,
                      tsr_tensor** counts) {
  return guard([&] {
    if (values == nullptr && indices == nullptr && inverse == nullptr && counts == nullptr)
      fail(TSR_ERR_INVALID_ARGUMENT, "tsr_unique: every output pointer is NULL (ask for at least one)");
    for (tsr_tensor** o : {values, indices, inverse, counts})
      if (o != nullptr) *o = nullptr;
    TensorRef v, i, inv, c;
    const tsr_tensor& in = require(x, "x");
    const autograd::NoFormulaYet pending("_unique2", in);  // PyTorch has none either
    unique(in, values ? &v : nullptr, indices ? &i : nullptr, inverse ? &inv : nullptr, counts ? &c : nullptr);
    if (values != nullptr) hand_out(pending(std::move(v)), values);
    if (indices != nullptr) hand_out(std::move(i), indices);
    if (inverse != nullptr) hand_out(std::move(inv), inverse);
    if (counts != nullptr) hand_out(std::move(c), counts);
  });
}
