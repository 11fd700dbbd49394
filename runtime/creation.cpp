// SPDX-License-Identifier: Apache-2.0
#include <cmath>
#include <string>

#include "error.hpp"
#include "plugin_call.hpp"
#include "ops.hpp"
#include "shape.hpp"

namespace tessera::rt {

namespace {
void check_dtype(int32_t dtype) {
  if (dtype < 0 || dtype >= TSR_DTYPE_COUNT) fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype " + std::to_string(dtype));
}

double scalar_value(const tsr_scalar& s) {
  return s.kind == TSR_SCALAR_FLOAT || s.kind == TSR_SCALAR_COMPLEX ? s.f : static_cast<double>(s.i);
}
}  // namespace

int32_t scalar_dtype(const tsr_scalar& s) {
  switch (s.kind) {
    case TSR_SCALAR_FLOAT: return TSR_FLOAT32;
    case TSR_SCALAR_INT: return TSR_INT64;
    case TSR_SCALAR_BOOL: return TSR_BOOL;
    case TSR_SCALAR_COMPLEX: return TSR_COMPLEX64;  // the default complex dtype
    default: fail(TSR_ERR_INVALID_ARGUMENT, "invalid scalar kind " + std::to_string(s.kind));
  }
}

TensorRef empty(tsr_runtime& rt, int32_t ndim, const int64_t* shape, int32_t dtype, tsr_device device) {
  check_dtype(dtype);
  if (ndim > 0 && shape == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "shape is NULL but ndim is " + std::to_string(ndim));
  return make_tensor(rt, contiguous_layout(ndim, shape), dtype, device);
}

// PyTorch refuses a fill value the dtype cannot hold ("value cannot be
// converted to type int8_t without overflow"); floats truncate into ints.
// The C++ type names PyTorch's messages use.
static const char* c10_type_name(int32_t dtype) {
  switch (dtype) {
    case TSR_INT8: return "int8_t";
    case TSR_UINT8: return "uint8_t";
    case TSR_INT16: return "int16_t";
    case TSR_INT32: return "int";
    case TSR_INT64: return "int64_t";
    case TSR_UINT16: return "uint16_t";
    case TSR_UINT32: return "uint32_t";
    case TSR_UINT64: return "uint64_t";
    case TSR_FLOAT16: return "at::Half";
    case TSR_BFLOAT16: return "at::BFloat16";
    case TSR_FLOAT32: return "float";
    default: return tsr_dtype_name(dtype);
  }
}

static void check_fits(const tsr_scalar& value, int32_t dtype) {
  if (dtype == TSR_BOOL || tsr_dtype_is_complex(dtype)) return;
  // c10's checked conversion: a complex value fits a real dtype only without
  // an imaginary part.
  if (value.kind == TSR_SCALAR_COMPLEX && tsr_scalar_imag(value) != 0.0)
    fail(TSR_ERR_INVALID_ARGUMENT, std::string("value cannot be converted to type ") + c10_type_name(dtype) +
                                       " without overflow");
  double lo = 0, hi = 0;
  switch (dtype) {
    case TSR_INT8: lo = -128.0, hi = 127.0; break;
    case TSR_UINT8: lo = -255.0, hi = 255.0; break;  // c10 lets -1 wrap to 255
    case TSR_INT16: lo = -32768.0, hi = 32767.0; break;
    case TSR_INT32: lo = -2147483648.0, hi = 2147483647.0; break;
    case TSR_INT64: lo = -9223372036854775808.0, hi = 9223372036854775807.0; break;
    // The new unsigned dtypes follow uint8's rule (tsr_fill_ in tessera.h);
    // any int64 wraps into uint64, and a float must be below 2^64.
    case TSR_UINT16: lo = -65535.0, hi = 65535.0; break;
    case TSR_UINT32: lo = -4294967295.0, hi = 4294967295.0; break;
    case TSR_UINT64: lo = -9223372036854775808.0, hi = 18446744073709551616.0; break;
    case TSR_FLOAT16: lo = -65504.0, hi = 65504.0; break;
    case TSR_BFLOAT16: lo = -3.3895313892515355e+38, hi = 3.3895313892515355e+38; break;
    case TSR_FLOAT32: lo = -3.4028234663852886e+38, hi = 3.4028234663852886e+38; break;
    default: return;
  }
  bool ok;
  if (value.kind == TSR_SCALAR_FLOAT || value.kind == TSR_SCALAR_COMPLEX) {
    // c10 compares the float itself with the limits (127.9 overflows int8),
    // and only whole numbers may wrap into uint8 (and uint16/32/64).
    double v = value.f;
    if (tsr_dtype_is_floating(dtype)) {
      ok = !std::isfinite(v) || (v >= lo && v <= hi);
    } else {
      if (tsr_dtype_is_unsigned(dtype)) lo = 0.0;
      ok = std::isfinite(v) && v >= lo && (dtype == TSR_INT64 || dtype == TSR_UINT64 ? v < hi : v <= hi);
    }
  } else {
    ok = dtype == TSR_INT64 || dtype == TSR_UINT64 || tsr_dtype_is_floating(dtype) ||
         (static_cast<double>(value.i) >= lo && static_cast<double>(value.i) <= hi);
  }
  if (!ok)
    fail(TSR_ERR_INVALID_ARGUMENT, std::string("value cannot be converted to type ") + c10_type_name(dtype) +
                                       " without overflow");
}

void fill(const tsr_tensor& t, tsr_scalar value) {
  check_fits(value, t.dtype);
  fill_wrapping(t, value);
}

// Writing one value through an expanded view is well defined, so unlike
// other in-place ops fill_ allows internal overlap (as PyTorch does).
void fill_wrapping(const tsr_tensor& t, tsr_scalar value) {
  scalar_dtype(value);  // rejects an invalid kind
  if (t.layout.numel() == 0) return;
  // Each cell once: a stride-0 dim reads (and so writes) one cell.
  Layout cells = t.layout;
  for (int32_t d = 0; d < cells.ndim; ++d)
    if (cells.strides[static_cast<size_t>(d)] == 0) cells.shape[static_cast<size_t>(d)] = 1;
  tsr_tensor_desc out;
  fill_desc(t, cells, out);
  launch(*t.rt, t.device, TSR_OP_FILL, t.dtype, {}, out, {.scalars = {&value, 1}});
}

TensorRef full(tsr_runtime& rt, int32_t ndim, const int64_t* shape, tsr_scalar value, int32_t dtype,
               tsr_device device) {
  if (dtype == TSR_DTYPE_UNDEFINED) dtype = scalar_dtype(value);
  TensorRef t = empty(rt, ndim, shape, dtype, device);
  fill(*t, value);
  return t;
}

TensorRef arange(tsr_runtime& rt, tsr_scalar start, tsr_scalar end, tsr_scalar step, int32_t dtype,
                 tsr_device device) {
  if (start.kind == TSR_SCALAR_COMPLEX || end.kind == TSR_SCALAR_COMPLEX || step.kind == TSR_SCALAR_COMPLEX ||
      tsr_dtype_is_complex(dtype))
    fail(TSR_ERR_TYPE, "arange is not defined for complex numbers");
  bool all_int = start.kind != TSR_SCALAR_FLOAT && end.kind != TSR_SCALAR_FLOAT && step.kind != TSR_SCALAR_FLOAT;
  if (dtype == TSR_DTYPE_UNDEFINED) dtype = all_int ? TSR_INT64 : TSR_FLOAT32;
  check_dtype(dtype);
  double s = scalar_value(start), e = scalar_value(end), d = scalar_value(step);
  if (!std::isfinite(s) || !std::isfinite(e)) fail(TSR_ERR_INVALID_ARGUMENT, "unsupported range: " + std::to_string(s) + " -> " + std::to_string(e));
  if (d == 0) fail(TSR_ERR_INVALID_ARGUMENT, "step must be nonzero");
  if ((d > 0 && e < s) || (d < 0 && e > s))
    fail(TSR_ERR_INVALID_ARGUMENT, "upper bound and larger bound inconsistent with step sign");
  int64_t n;
  if (all_int) {
    // Exact for every int64: ceil((end - start) / step).
    __int128 span = static_cast<__int128>(end.i) - start.i;
    __int128 k = step.i > 0 ? (span + step.i - 1) / step.i : (span + step.i + 1) / step.i;
    n = static_cast<int64_t>(k < 0 ? 0 : k);
  } else {
    double k = std::ceil((e - s) / d);
    if (!(k < 9.2e18)) fail(TSR_ERR_INVALID_ARGUMENT, "arange: too many elements");
    n = static_cast<int64_t>(k < 0 ? 0 : k);
  }
  TensorRef t = empty(rt, 1, &n, dtype, device);
  if (n == 0) return t;
  tsr_scalar scalars[2] = {start, step};
  if (!all_int) scalars[0] = make_scalar(s), scalars[1] = make_scalar(d);
  tsr_tensor_desc out;
  fill_desc(*t, out);
  launch(rt, device, TSR_OP_ARANGE, dtype, {}, out, {.scalars = scalars});
  return t;
}

TensorRef linspace(tsr_runtime& rt, double start, double end, int64_t steps, int32_t dtype, tsr_device device) {
  if (dtype == TSR_DTYPE_UNDEFINED) dtype = TSR_FLOAT32;
  check_dtype(dtype);
  if (tsr_dtype_is_complex(dtype)) fail(TSR_ERR_TYPE, "linspace is not defined for complex dtypes here yet");
  if (steps < 0) fail(TSR_ERR_INVALID_ARGUMENT, "number of steps must be non-negative");
  TensorRef t = empty(rt, 1, &steps, dtype, device);
  if (steps == 0) return t;
  tsr_scalar scalars[2] = {make_scalar(start), make_scalar(end)};
  tsr_tensor_desc out;
  fill_desc(*t, out);
  launch(rt, device, TSR_OP_LINSPACE, dtype, {}, out, {.scalars = scalars});
  return t;
}

// Note [Counter-based random numbers]: element i of a draw takes Philox
// number (counter + i) of the seed, so the numbers depend only on the seed
// and on how many numbers were drawn before — not on the device or the
// thread count. The runtime reserves numel counters per draw.
TensorRef random(tsr_runtime& rt, int32_t op, int32_t ndim, const int64_t* shape, int32_t dtype, tsr_device device) {
  if (dtype == TSR_DTYPE_UNDEFINED) dtype = TSR_FLOAT32;
  check_dtype(dtype);
  if (!tsr_dtype_is_floating(dtype))
    fail(TSR_ERR_TYPE, std::string(op == TSR_OP_RAND_NORMAL ? "randn" : "rand") +
                           " expects a floating point dtype, got " + tsr_dtype_name(dtype));
  TensorRef t = empty(rt, ndim, shape, dtype, device);
  int64_t n = t->layout.numel();
  if (n == 0) return t;
  uint64_t counter = rt.rng_counter.fetch_add(static_cast<uint64_t>(n));
  int64_t params[2] = {static_cast<int64_t>(rt.seed.load()), static_cast<int64_t>(counter)};
  // (low, high) = (0, 1) for rand, (mean, std) = (0, 1) for randn.
  tsr_scalar scalars[2] = {make_scalar(0.0), make_scalar(1.0)};
  tsr_tensor_desc out;
  fill_desc(*t, out);
  launch(rt, device, op, dtype, {}, out, {.scalars = scalars, .params = params});
  return t;
}

TensorRef from_host(tsr_runtime& rt, const void* data, int32_t ndim, const int64_t* shape, int32_t dtype,
                    tsr_device device) {
  TensorRef t = empty(rt, ndim, shape, dtype, device);
  size_t nbytes = static_cast<size_t>(t->layout.numel()) * tsr_dtype_size(dtype);
  if (nbytes == 0) return t;
  if (data == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "host data is NULL");
  const DeviceType& type = *t->storage->device_type;
  tsr_status st;
  {
    PluginCall call(type.plugin);
    st = type.iface->copy_host_to_device(type.ctx, device.index, t->storage->data, data, nbytes, nullptr);
  }
  if (st != TSR_OK) fail(st, "copy from host to " + rt.registry.device_name(device) + " failed: " + plugin_message());
  return t;
}

}  // namespace tessera::rt
