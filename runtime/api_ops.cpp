// SPDX-License-Identifier: Apache-2.0
// The C API: ops, reading values, printing, assert_close.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "api_support.hpp"
#include "derivatives.hpp"
#include "close.hpp"
#include "format.hpp"
#include "host_values.hpp"
#include "layout_picture.hpp"
#include "ops.hpp"
#include "promotion.hpp"
#include "shape.hpp"
#include "tessera/half.h"

using namespace tessera::rt;

namespace {

std::vector<unsigned char> host_copy(const tsr_tensor& t) {
  std::vector<unsigned char> bytes(static_cast<size_t>(t.layout.numel()) * tsr_dtype_size(t.dtype));
  read_to_host(t, bytes.data(), bytes.size());
  return bytes;
}

HostTensor host_view(const tsr_tensor& t, const std::vector<unsigned char>& bytes) {
  return HostTensor{t.dtype, t.layout.ndim, t.layout.shape.data(), bytes.data()};
}

// One storage cell as the layout picture shows it: short, never wider than needed.
std::string cell_text(int32_t dtype, const unsigned char* data, int64_t i) {
  double v = value_as_double(dtype, data, i);
  char buf[32];
  if (dtype == TSR_BOOL) return v != 0 ? "T" : "F";
  if (!tsr_dtype_is_floating(dtype)) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// The function an out= form is named by in PyTorch's message ("add").
const char* op_name(int32_t op) { return op >= 0 && op < TSR_OP_COUNT ? tsr_op_name(op) : "op"; }

}  // namespace

extern "C" {

tsr_status tsr_binary(tsr_op op, tsr_tensor* a, tsr_tensor* b, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(binary(op, require(a, "a"), require(b, "b")), out);
  });
}

tsr_status tsr_binary_scalar(tsr_op op, tsr_tensor* a, tsr_scalar b, int32_t reversed, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(binary_scalar(op, require(a, "a"), b, reversed != 0), out);
  });
}

tsr_status tsr_binary_(tsr_op op, tsr_tensor* a, tsr_tensor* b) {
  return guard([&] {
    tsr_tensor& target = require(a, "a");
    const tsr_tensor& other = require(b, "b");
    autograd::InplaceWrite write(target, {&other});
    binary_inplace(op, target, other);
    write.finish([&](tsr_tensor& r) { autograd::record_binary(op, write.old(), other, r); });
  });
}

tsr_status tsr_binary_out(tsr_op op, tsr_tensor* a, tsr_tensor* b, tsr_tensor* out) {
  return guard([&] {
    const tsr_tensor& o = require(out, "out");
    autograd::check_out(op_name(op), o, {&require(a, "a"), &require(b, "b")});
    binary_out(op, require(a, "a"), require(b, "b"), o);
    autograd::bump_version(o);
  });
}

tsr_status tsr_binary_scalar_out(tsr_op op, tsr_tensor* a, tsr_scalar b, int32_t reversed, tsr_tensor* out) {
  return guard([&] {
    const tsr_tensor& o = require(out, "out");
    autograd::check_out(op_name(op), o, {&require(a, "a")});
    binary_scalar_out(op, require(a, "a"), b, reversed != 0, o);
    autograd::bump_version(o);
  });
}

tsr_status tsr_binary_scalar_(tsr_op op, tsr_tensor* a, tsr_scalar b) {
  return guard([&] {
    tsr_tensor& target = require(a, "a");
    autograd::InplaceWrite write(target, {});
    binary_scalar_inplace(op, target, b);
    write.finish([&](tsr_tensor& r) { autograd::record_binary_scalar(op, write.old(), b, false, r); });
  });
}

tsr_status tsr_unary(tsr_op op, tsr_tensor* a, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(unary(op, require(a, "a")), out);
  });
}

tsr_status tsr_unary_out(tsr_op op, tsr_tensor* a, tsr_tensor* out) {
  return guard([&] {
    const tsr_tensor& o = require(out, "out");
    autograd::check_out(op_name(op), o, {&require(a, "a")});
    unary_out(op, require(a, "a"), o);
    autograd::bump_version(o);
  });
}

tsr_status tsr_unary_(tsr_op op, tsr_tensor* a) {
  return guard([&] {
    tsr_tensor& target = require(a, "a");
    autograd::InplaceWrite write(target, {});
    unary_inplace(op, target);
    write.finish([&](tsr_tensor& r) { autograd::record_unary(op, write.old(), r); });
  });
}

tsr_status tsr_clamp(tsr_tensor* x, tsr_tensor* min, tsr_tensor* max, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(clamp(require(x, "x"), min, max), out);
  });
}

tsr_status tsr_where(tsr_tensor* cond, tsr_tensor* a, tsr_tensor* b, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(where(require(cond, "cond"), require(a, "a"), require(b, "b")), out);
  });
}

tsr_status tsr_reduce(tsr_op op, tsr_tensor* t, int32_t num_dims, const int32_t* dims, int32_t keepdim,
                      tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(reduce(op, require(t, "tensor"), num_dims, dims, keepdim != 0), out);
  });
}

tsr_status tsr_softmax(tsr_tensor* x, int64_t dim, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(softmax(require(x, "x"), dim, false), out);
  });
}

tsr_status tsr_log_softmax(tsr_tensor* x, int64_t dim, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(softmax(require(x, "x"), dim, true), out);
  });
}

tsr_status tsr_logsumexp(tsr_tensor* x, int32_t num_dims, const int32_t* dims, int32_t keepdim, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    if (num_dims < 0) fail(TSR_ERR_INVALID_ARGUMENT, "num_dims must be >= 0");
    hand_out(logsumexp(require(x, "x"), num_dims, dims, keepdim != 0), out);
  });
}

tsr_status tsr_reduce_ex(tsr_op op, tsr_tensor* t, const tsr_reduce_options* options, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    tsr_reduce_options o = TSR_REDUCE_OPTIONS_INIT;
    if (options != nullptr) {
      if (options->struct_size < TSR_STRUCT_SIZE(tsr_reduce_options, keepdim))
        fail(TSR_ERR_INVALID_ARGUMENT, "tsr_reduce_ex: options->struct_size " + std::to_string(options->struct_size) +
                                           " is smaller than any tsr_reduce_options (set it to "
                                           "TSR_REDUCE_OPTIONS_STRUCT_SIZE)");
      std::memcpy(&o, options, std::min(options->struct_size, sizeof o));
    }
    hand_out(reduce(op, require(t, "tensor"), o.num_dims, o.dims, o.keepdim != 0, o.correction), out);
  });
}

tsr_status tsr_math(int32_t fn, tsr_tensor* a, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(math(fn, require(a, "a")), out);
  });
}

tsr_status tsr_math_out(int32_t fn, tsr_tensor* a, tsr_tensor* out) {
  return guard([&] {
    const tsr_tensor& o = require(out, "out");
    autograd::check_out("math", o, {&require(a, "a")});
    math_out(fn, require(a, "a"), o);
    autograd::bump_version(o);
  });
}

tsr_status tsr_matmul(tsr_tensor* a, tsr_tensor* b, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(matmul(require(a, "a"), require(b, "b")), out);
  });
}

tsr_status tsr_matmul_out(tsr_tensor* a, tsr_tensor* b, tsr_tensor* out) {
  return guard([&] {
    const tsr_tensor& o = require(out, "out");
    autograd::check_out("matmul", o, {&require(a, "a"), &require(b, "b")});
    matmul_out(require(a, "a"), require(b, "b"), o);
    autograd::bump_version(o);
  });
}

tsr_status tsr_copy_(tsr_tensor* dst, tsr_tensor* src) {
  return guard([&] {
    tsr_tensor& target = require(dst, "dst");
    const tsr_tensor& from = require(src, "src");
    autograd::InplaceWrite write(target, {&from}, false);
    copy_into(target, from);
    write.finish([&](tsr_tensor& r) { autograd::record_copy(from, r, "CopyBackwards"); });
  });
}

tsr_status tsr_fill_(tsr_tensor* t, tsr_scalar value) {
  return guard([&] {
    tsr_tensor& target = require(t, "tensor");
    autograd::InplaceWrite write(target, {}, false);
    fill(target, value);
    write.finish([&](tsr_tensor& r) { autograd::record_fill(r); });
  });
}

tsr_status tsr_broadcast_shapes(int32_t ndim_a, const int64_t* shape_a, int32_t ndim_b, const int64_t* shape_b,
                                int32_t* out_ndim, int64_t* out_shape) {
  return guard([&] {
    require_out(out_ndim);
    require_out(out_shape);
    if ((ndim_a > 0 && shape_a == nullptr) || (ndim_b > 0 && shape_b == nullptr))
      fail(TSR_ERR_INVALID_ARGUMENT, "shape is NULL");
    int64_t shape[TSR_MAX_DIMS];
    int32_t n = broadcast_shapes(ndim_a, shape_a, ndim_b, shape_b, shape);
    std::memcpy(out_shape, shape, sizeof(int64_t) * static_cast<size_t>(n));
    *out_ndim = n;
  });
}

tsr_dtype tsr_promote_types(tsr_dtype a, tsr_dtype b) {
  if (a < 0 || a >= TSR_DTYPE_COUNT || b < 0 || b >= TSR_DTYPE_COUNT) return TSR_DTYPE_UNDEFINED;
  return static_cast<tsr_dtype>(promote_types(a, b));
}

tsr_status tsr_read(tsr_tensor* t, void* dst, size_t nbytes) {
  return guard([&] { read_to_host(require(t, "tensor"), dst, nbytes); });
}

tsr_status tsr_item(tsr_tensor* t, tsr_scalar* out) {
  return guard([&] {
    require_out(out);
    const tsr_tensor& tt = require(t, "tensor");
    int64_t n = tt.layout.numel();
    if (n != 1)
      fail(TSR_ERR_INVALID_ARGUMENT, "a Tensor with " + std::to_string(n) + " elements cannot be converted to Scalar");
    *out = read_item(tt);
  });
}

tsr_status tsr_format(tsr_tensor* t, char** out) {
  return guard([&] {
    require_out(out);
    const tsr_tensor& tt = require(t, "tensor");
    auto bytes = host_copy(tt);
    PrintOptions opts;
    opts.precision = tt.rt->print_precision.load();
    // PyTorch's suffix for autograd: the node that made t, else the leaf's flag.
    std::string grad_suffix;
    if (const auto fn = autograd::grad_fn(const_cast<tsr_tensor&>(tt)))
      grad_suffix = std::string("grad_fn=<") + fn->display_name() + ">";
    else if (autograd::requires_grad(tt))
      grad_suffix = "requires_grad=True";
    *out = copy_string(
        format_tensor(host_view(tt, bytes), opts, tt.rt->registry.device_name(tt.device), grad_suffix));
  });
}

tsr_status tsr_format_layout(tsr_tensor* t, char** out) {
  return guard([&] {
    require_out(out);
    const tsr_tensor& tt = require(t, "tensor");
    size_t elem = tsr_dtype_size(tt.dtype);
    int64_t cells = static_cast<int64_t>(tt.storage->nbytes / elem);
    // Show the storage's values too when the strip is small enough to draw.
    std::vector<std::string> values;
    if (cells <= 256) {
      Layout whole = contiguous_layout(1, &cells);
      TensorRef strip = make_view(tt, whole);
      auto bytes = host_copy(*strip);
      for (int64_t i = 0; i < cells; ++i) values.push_back(cell_text(tt.dtype, bytes.data(), i));
    }
    LayoutPictureInput in{tt.layout.ndim, tt.layout.shape.data(), tt.layout.strides.data(), tt.layout.offset, cells,
                          values.empty() ? nullptr : values.data()};
    *out = copy_string(format_layout_picture(in));
  });
}

tsr_status tsr_get_finfo(tsr_dtype dtype, tsr_finfo* out) {
  return guard([&] {
    require_out(out);
    if (out->struct_size < TSR_STRUCT_SIZE(tsr_finfo, tiny))
      fail(TSR_ERR_INVALID_ARGUMENT, "tsr_finfo.struct_size is too small; set it to TSR_FINFO_STRUCT_SIZE");
    switch (tsr_dtype_real(dtype)) {  // a complex dtype: its parts' (the Array API's finfo)
      case TSR_FLOAT32: out->bits = 32, out->eps = FLT_EPSILON, out->max = FLT_MAX, out->tiny = FLT_MIN; break;
      case TSR_FLOAT64: out->bits = 64, out->eps = DBL_EPSILON, out->max = DBL_MAX, out->tiny = DBL_MIN; break;
      case TSR_FLOAT16: out->bits = 16, out->eps = 0.0009765625, out->max = 65504.0, out->tiny = 6.103515625e-05; break;
      case TSR_BFLOAT16:
        out->bits = 16, out->eps = 0.0078125, out->max = 3.3895313892515355e+38, out->tiny = 1.1754943508222875e-38;
        break;
      default:
        fail(TSR_ERR_TYPE, std::string("finfo: ") + tsr_dtype_name(dtype) + " is not a floating point dtype");
    }
    out->min = -out->max;
  });
}

tsr_status tsr_assert_close(tsr_tensor* actual, tsr_tensor* expected, double rtol, double atol, int32_t equal_nan) {
  return guard([&] {
    const tsr_tensor& a = require(actual, "actual");
    const tsr_tensor& e = require(expected, "expected");
    std::string meta = compare_metadata(a.dtype, a.layout.ndim, a.layout.shape.data(), a.rt->registry.device_name(a.device),
                                        e.dtype, e.layout.ndim, e.layout.shape.data(), e.rt->registry.device_name(e.device));
    if (!meta.empty()) fail(TSR_ERR_INVALID_ARGUMENT, meta);
    CloseTolerance tol = default_tolerance(a.dtype);
    if (rtol >= 0) tol.rtol = rtol;
    if (atol >= 0) tol.atol = atol;
    auto ab = host_copy(a), eb = host_copy(e);
    std::string msg = compare_close(host_view(a, ab), host_view(e, eb), tol.rtol, tol.atol, equal_nan != 0);
    if (!msg.empty()) fail(TSR_ERR_INVALID_ARGUMENT, msg);
  });
}

}  // extern "C"
