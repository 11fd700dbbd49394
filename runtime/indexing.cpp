// SPDX-License-Identifier: Apache-2.0
// The device-agnostic half of the ops that move elements by index: cumsum
// and cumprod (SCAN), searchsorted (SEARCH), gather, take and index_select (GATHER), scatter_ (SCATTER),
// nonzero (COMPACT) and sort / argsort (SORT). Checks, dtypes and shapes,
// 0-d inputs read as 1-d, then one kernel per result. Index checks run on
// the device: the index's min and max are reduced there and only those two
// numbers come back (as for nonzero's count, which decides the shape).
#include <algorithm>
#include <string>
#include <vector>

#include "derivatives.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "promotion.hpp"
#include "shape.hpp"

namespace tessera::rt {

namespace {

// t read as 1-d when it is 0-d (a kernel along a dim needs one).
Layout at_least_1d(const Layout& l) {
  if (l.ndim > 0) return l;
  const int64_t one = 1;
  return view(l, 1, &one);
}

// index as int64 (int32 etc. are converted; floating and bool refused).
TensorRef index_tensor(const tsr_tensor& index, const char* fn) {
  if (!tsr_dtype_is_integral(index.dtype))
    fail(TSR_ERR_TYPE, std::string(fn) + "(): expected an integer index tensor, got " + tsr_dtype_name(index.dtype));
  TensorRef ref = TensorRef::share(const_cast<tsr_tensor*>(&index));
  return index.dtype == TSR_INT64 ? ref : to(ref, TSR_INT64, index.device);
}

// Every index in [-n, n): the index's min and max, reduced on its device.
void check_index_range(const tsr_tensor& index, int64_t n, int32_t dim, const char* fn) {
  if (index.layout.numel() == 0) return;
  const int64_t lo = read_item(*reduce(TSR_OP_MIN, index, 0, nullptr, false)).i;
  const int64_t hi = read_item(*reduce(TSR_OP_MAX, index, 0, nullptr, false)).i;
  const int64_t bad = lo < -n ? lo : hi >= n ? hi : 0;
  if (lo < -n || hi >= n)
    fail(TSR_ERR_INDEX, std::string(fn) + "(): index " + std::to_string(bad) + " is out of bounds for dimension " +
                            std::to_string(dim) + " with size " + std::to_string(n));
}

}  // namespace

namespace {

// CUMSUM or CUMPROD along dim: SUM's dtype, 0-d read as 1-d.
TensorRef scan(int32_t op, const tsr_tensor& t, int64_t dim, int32_t dtype) {
  TensorRef in = TensorRef::share(const_cast<tsr_tensor*>(&t));
  if (dtype != TSR_DTYPE_UNDEFINED && dtype != t.dtype) in = to(in, dtype, t.device);
  const int32_t d = wrap_dim(dim, t.layout.ndim);
  const Layout l = at_least_1d(in->layout);
  TensorRef out = empty(*t.rt, l.ndim, l.shape.data(), sum_dtype(in->dtype), t.device);
  if (out->layout.numel() > 0) {
    tsr_tensor_desc din, dout;
    fill_desc(*in, l, din);
    fill_desc(*out, dout);
    const int64_t params[1] = {d};
    launch(*t.rt, t.device, op, in->dtype, {&din}, dout, {.params = params});
  }
  if (autograd::should_record({in.get()})) [[unlikely]] {
    if (op == TSR_OP_CUMSUM) autograd::record_cumsum(*in, d, *out);
    else autograd::record_cumprod(*in, d, *out);
  }
  if (t.layout.ndim > 0) return out;
  return autograd::view_of(*out, [](const Layout& l) { return view(l, 0, nullptr); }, "SqueezeBackward0");
}

}  // namespace

TensorRef cumsum(const tsr_tensor& t, int64_t dim, int32_t dtype) { return scan(TSR_OP_CUMSUM, t, dim, dtype); }
TensorRef cumprod(const tsr_tensor& t, int64_t dim, int32_t dtype) { return scan(TSR_OP_CUMPROD, t, dim, dtype); }

TensorRef searchsorted(const tsr_tensor& sorted, const tsr_tensor& values, bool right, const tsr_tensor* sorter) {
  check_same_device(sorted, values);
  const Layout& ls = sorted.layout;
  const Layout lv = at_least_1d(values.layout);
  auto mismatch = [&] {
    fail(TSR_ERR_SHAPE,
         "searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor "
         "and input value tensor must match, but we got boundaries tensor " +
             shape_string(ls) + " and input value tensor " + shape_string(values.layout));
  };
  if (ls.ndim == 0) mismatch();
  if (ls.ndim > 1) {
    if (values.layout.ndim != ls.ndim) mismatch();
    for (int32_t k = 0; k + 1 < ls.ndim; ++k)
      if (ls.shape[static_cast<size_t>(k)] != lv.shape[static_cast<size_t>(k)]) mismatch();
  }
  if (tsr_dtype_is_complex(sorted.dtype) || tsr_dtype_is_complex(values.dtype))
    fail(TSR_ERR_TYPE, std::string("searchsorted(): complex numbers are not ordered: got ") +
                           tsr_dtype_name(sorted.dtype) + " and " + tsr_dtype_name(values.dtype));
  TensorRef s = TensorRef::share(const_cast<tsr_tensor*>(&sorted));
  const int64_t m = ls.shape[static_cast<size_t>(ls.ndim - 1)];
  if (sorter != nullptr) {
    check_same_device(sorted, *sorter);
    if (sorter->layout.ndim != ls.ndim ||
        !std::equal(ls.shape.begin(), ls.shape.begin() + ls.ndim, sorter->layout.shape.begin()))
      fail(TSR_ERR_SHAPE, "searchsorted(): boundary and sorter must have the same size, but got boundary tensor " +
                              shape_string(ls) + "and got sorter tensor " + shape_string(sorter->layout));
    TensorRef idx = index_tensor(*sorter, "searchsorted");
    if (idx->layout.numel() > 0) {
      const int64_t lo = read_item(*reduce(TSR_OP_MIN, *idx, 0, nullptr, false)).i;
      const int64_t hi = read_item(*reduce(TSR_OP_MAX, *idx, 0, nullptr, false)).i;
      if (lo < 0 || hi >= m) fail(TSR_ERR_INDEX, "searchsorted(): sorter index out of range");
    }
    autograd::GradModeGuard no_grad(false);  // indices have no gradient
    s = gather(*s, -1, *idx);
  }
  const int32_t dtype = promote_types(sorted.dtype, values.dtype);
  if (s->dtype != dtype) s = to(s, dtype, sorted.device);
  TensorRef v = TensorRef::share(const_cast<tsr_tensor*>(&values));
  if (v->dtype != dtype) v = to(v, dtype, values.device);
  TensorRef out = empty(*values.rt, lv.ndim, lv.shape.data(), TSR_INT64, values.device);
  if (out->layout.numel() > 0) {
    if (m == 0) {
      fill(*out, make_scalar_int(0));
    } else {
      // A 1-d sorted serves every line of values: stride 0 on the leading dims.
      std::vector<int64_t> shape(lv.shape.begin(), lv.shape.begin() + lv.ndim);
      shape.back() = m;
      const Layout sl = broadcast_to(s->layout, lv.ndim, shape.data());
      tsr_tensor_desc ds, dv, dout;
      fill_desc(*s, sl, ds);
      fill_desc(*v, lv, dv);
      fill_desc(*out, dout);
      const int64_t params[1] = {right ? 1 : 0};
      launch(*values.rt, values.device, TSR_OP_SEARCHSORTED, dtype, {&ds, &dv}, dout, {.params = params});
    }
  }
  if (values.layout.ndim > 0) return out;
  return make_view(*out, view(out->layout, 0, nullptr));
}

TensorRef gather(const tsr_tensor& x, int64_t dim, const tsr_tensor& index) {
  check_same_device(x, index);
  TensorRef idx = index_tensor(index, "gather");
  const Layout lx = at_least_1d(x.layout), li = at_least_1d(idx->layout);
  const int32_t d = wrap_dim(dim, x.layout.ndim);
  if (idx->layout.ndim != x.layout.ndim)
    fail(TSR_ERR_SHAPE, "gather(): Index tensor must have the same number of dimensions as input tensor");
  for (int32_t k = 0; k < lx.ndim; ++k)
    if (k != d && li.shape[static_cast<size_t>(k)] > lx.shape[static_cast<size_t>(k)])
      fail(TSR_ERR_SHAPE, "gather(): Size does not match at dimension " + std::to_string(k) +
                              " expected index " + shape_string(li) + " to be smaller than self " +
                              shape_string(lx) + " apart from dimension " + std::to_string(d));
  const int64_t n = lx.shape[static_cast<size_t>(d)];
  check_index_range(*idx, n, d, "gather");
  TensorRef out = empty(*x.rt, li.ndim, li.shape.data(), x.dtype, x.device);
  if (out->layout.numel() > 0) {
    if (n == 0) fail(TSR_ERR_INDEX, "gather(): cannot gather from an empty dimension " + std::to_string(d));
    tsr_tensor_desc dx, di, dout;
    fill_desc(x, lx, dx);
    fill_desc(*idx, li, di);
    fill_desc(*out, dout);
    const int64_t params[1] = {d};
    launch(*x.rt, x.device, TSR_OP_GATHER, x.dtype, {&dx, &di}, dout, {.params = params});
  }
  if (autograd::should_record({&x})) [[unlikely]]
    autograd::record_gather(x, d, idx, *out);
  if (idx->layout.ndim > 0) return out;
  return autograd::view_of(*out, [](const Layout& l) { return view(l, 0, nullptr); }, "SqueezeBackward0");
}

// x's elements at `indices` (1-d) along `dim`: the result has x's shape with
// indices' length on dim (the Array API's take, PyTorch's index_select).
TensorRef take(const tsr_tensor& x, const tsr_tensor& indices, int64_t dim) {
  check_same_device(x, indices);
  if (indices.layout.ndim > 1)
    fail(TSR_ERR_SHAPE, "take(): indices must be 0-d or 1-d, got " + std::to_string(indices.layout.ndim) + " dims");
  TensorRef idx = index_tensor(indices, "take");
  const Layout lx = at_least_1d(x.layout);
  const int32_t d = wrap_dim(dim, x.layout.ndim);
  const int64_t m = idx->layout.numel();
  // indices as [1, .., m, .., 1], broadcast (stride 0) to x's shape but m on d.
  Layout spread_layout;
  spread_layout.ndim = lx.ndim;
  spread_layout.offset = idx->layout.offset;
  for (int32_t k = 0; k < lx.ndim; ++k) {
    const size_t uk = static_cast<size_t>(k);
    spread_layout.shape[uk] = k == d ? m : lx.shape[uk];
    spread_layout.strides[uk] = k == d && idx->layout.ndim == 1 ? idx->layout.strides[0] : 0;
  }
  TensorRef spread = make_view(*idx, spread_layout);
  TensorRef out = x.layout.ndim > 0 ? gather(x, d, *spread)
                                    : gather(*autograd::view_of(x, [](const Layout& l) { return at_least_1d(l); },
                                                                "UnsqueezeBackward0"),
                                             d, *spread);
  autograd::name_result(*out, "IndexSelectBackward0", {&x});
  return out;
}

void scatter_(const tsr_tensor& out, int64_t dim, const tsr_tensor& index, const tsr_tensor& src, bool add) {
  check_same_device(out, index);
  check_same_device(out, src);
  check_no_internal_overlap(out);
  if (add && out.dtype == TSR_BOOL) fail(TSR_ERR_TYPE, "scatter_add_(): not defined for bool tensors");
  TensorRef idx = index_tensor(index, add ? "scatter_add_" : "scatter_");
  const Layout lo = at_least_1d(out.layout), li = at_least_1d(idx->layout);
  const int32_t d = wrap_dim(dim, out.layout.ndim);
  if (li.ndim != lo.ndim)
    fail(TSR_ERR_SHAPE, "scatter_(): Index tensor must have the same number of dimensions as self tensor");
  const Layout ls = at_least_1d(src.layout);
  if (ls.ndim != li.ndim)
    fail(TSR_ERR_SHAPE, "scatter_(): Index tensor must have the same number of dimensions as src tensor");
  for (int32_t k = 0; k < lo.ndim; ++k) {
    const size_t uk = static_cast<size_t>(k);
    if ((k != d && li.shape[uk] > lo.shape[uk]) || li.shape[uk] > ls.shape[uk])
      fail(TSR_ERR_SHAPE, "scatter_(): Expected index " + shape_string(li) + " to be smaller than self " +
                              shape_string(lo) + " apart from dimension " + std::to_string(d) +
                              " and to be smaller size than src " + shape_string(ls));
  }
  if (li.numel() == 0) return;
  check_index_range(*idx, lo.shape[static_cast<size_t>(d)], d, add ? "scatter_add_" : "scatter_");
  // src read over index's shape (its leading part), in out's dtype.
  TensorRef s = TensorRef::share(const_cast<tsr_tensor*>(&src));
  if (src.dtype != out.dtype) s = to(s, out.dtype, out.device);
  Layout src_part = at_least_1d(s->layout);
  for (int32_t k = 0; k < li.ndim; ++k) src_part.shape[static_cast<size_t>(k)] = li.shape[static_cast<size_t>(k)];
  // The source must not change while out is written: copy it when they share memory.
  TensorRef src_view = make_view(*s, src_part);
  if (may_share_memory(*src_view, out)) src_view = clone(*src_view);
  if (may_share_memory(*idx, out)) idx = clone(*idx);
  tsr_tensor_desc di, ds, dout;
  fill_desc(*idx, li, di);
  fill_desc(*src_view, at_least_1d(src_view->layout), ds);
  fill_desc(out, lo, dout);
  const int64_t params[2] = {d, add ? 1 : 0};
  launch(*out.rt, out.device, TSR_OP_SCATTER, out.dtype, {&di, &ds}, dout, {.params = params});
}

TensorRef nonzero(const tsr_tensor& x) {
  const Layout lx = at_least_1d(x.layout);
  // The count decides the shape: SUM of x != 0 (of x itself when bool), one number read back.
  int64_t count = 0;
  if (x.layout.numel() > 0) {
    const TensorRef flags =
        x.dtype == TSR_BOOL ? TensorRef::share(const_cast<tsr_tensor*>(&x)) : binary_scalar(TSR_OP_NE, x, tsr_scalar_int(0), false);
    count = read_item(*reduce(TSR_OP_SUM, *flags, 0, nullptr, false)).i;
  }
  const int64_t shape[2] = {count, x.layout.ndim};
  TensorRef out = empty(*x.rt, 2, shape, TSR_INT64, x.device);
  if (count > 0 && x.layout.ndim > 0) {
    tsr_tensor_desc dx, dout;
    fill_desc(x, lx, dx);
    fill_desc(*out, dout);
    launch(*x.rt, x.device, TSR_OP_NONZERO, x.dtype, {&dx}, dout);
  }
  return out;
}

void sort(const tsr_tensor& x, int64_t dim, bool descending, bool stable, TensorRef* values, TensorRef* indices) {
  const Layout lx = at_least_1d(x.layout);
  const int32_t d = wrap_dim(dim, x.layout.ndim);
  auto run = [&](int32_t op, int32_t dtype) {
    TensorRef out = empty(*x.rt, lx.ndim, lx.shape.data(), dtype, x.device);
    if (out->layout.numel() > 0) {
      tsr_tensor_desc dx, dout;
      fill_desc(x, lx, dx);
      fill_desc(*out, dout);
      const int64_t params[3] = {d, descending ? 1 : 0, stable ? 1 : 0};
      launch(*x.rt, x.device, op, x.dtype, {&dx}, dout, {.params = params});
    }
    if (x.layout.ndim > 0) return out;
    return make_view(*out, view(out->layout, 0, nullptr));
  };
  if (values != nullptr) *values = run(TSR_OP_SORT, x.dtype);
  if (indices != nullptr) *indices = run(TSR_OP_ARGSORT, TSR_INT64);
  if (values != nullptr && autograd::should_record({&x})) [[unlikely]] {
    // The values' gradient goes back through the permutation: argsort's
    // indices, computed here when the caller asked for the values alone.
    TensorRef order = indices != nullptr ? *indices : run(TSR_OP_ARGSORT, TSR_INT64);
    if (x.layout.ndim > 0) autograd::record_gather(x, d, order, **values, "SortBackward0");
  }
}

}  // namespace tessera::rt
