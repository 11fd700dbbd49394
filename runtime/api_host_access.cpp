// SPDX-License-Identifier: Apache-2.0
// The C API's host-side access (ABI 1.4): host-accessibility, one element by
// index, and copies between a tensor and host memory of any layout. Users
// of other languages asked for these in place of chains of select/item and
// of row-major-only reads.
#include <cstring>
#include <string>

#include "api_support.hpp"
#include "derivatives.hpp"
#include "host_values.hpp"
#include "ops.hpp"
#include "runtime.hpp"
#include "shape.hpp"

using namespace tessera::rt;

namespace {

// The 0-d view of t at `index` (negative indices count from the end).
TensorRef element_view(const tsr_tensor& t, int32_t ndim, const int64_t* index, const char* fn) {
  if (ndim != t.layout.ndim)
    fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + std::to_string(ndim) + " indices for a tensor of " +
                                       std::to_string(t.layout.ndim) + " dims");
  if (ndim > 0 && index == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": index is NULL");
  Layout at;
  at.offset = t.layout.offset;
  for (int32_t d = 0; d < ndim; ++d) {
    const int64_t size = t.layout.shape[static_cast<size_t>(d)];
    const int64_t i = index[d] < 0 ? index[d] + size : index[d];
    if (i < 0 || i >= size)
      fail(TSR_ERR_INDEX, std::string(fn) + ": index " + std::to_string(index[d]) + " is out of bounds for dim " +
                              std::to_string(d) + " with size " + std::to_string(size));
    at.offset += i * t.layout.strides[static_cast<size_t>(d)];
  }
  return make_view(t, at);
}

// Host memory as a cpu tensor of t's shape and dtype (no copy, no owner),
// after checking that every element it reaches lies in host_nbytes.
TensorRef wrap_host(const tsr_tensor& t, const void* host, size_t host_nbytes, const int64_t* host_strides,
                    const char* fn) {
  tsr_runtime& rt = *t.rt;
  const tsr_device cpu{TSR_DEVICE_CPU, 0};
  if (rt.registry.device_type(TSR_DEVICE_CPU) == nullptr)
    fail(TSR_ERR_UNSUPPORTED, std::string(fn) + ": host copies go through the cpu device, which this runtime's "
                                                "config does not load");
  const size_t elem = tsr_dtype_size(t.dtype);
  Layout layout = contiguous_layout(t.layout.ndim, t.layout.shape.data());
  if (host_strides != nullptr)
    for (int32_t d = 0; d < layout.ndim; ++d) {
      if (host_strides[d] < 0)
        fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": host stride " + std::to_string(host_strides[d]) +
                                           " at dim " + std::to_string(d) + " is negative");
      layout.strides[static_cast<size_t>(d)] = host_strides[d];
    }
  if (layout.numel() == 0) return {};
  if (host == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": host memory is NULL");
  if (reinterpret_cast<uintptr_t>(host) % elem != 0)
    fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": host memory is not aligned to the " + std::to_string(elem) +
                                       "-byte elements of " + tsr_dtype_name(t.dtype));
  // The last element reached, in elements; overflow-checked.
  uint64_t last = 0;
  for (int32_t d = 0; d < layout.ndim; ++d) {
    uint64_t reach = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(layout.shape[static_cast<size_t>(d)] - 1),
                               static_cast<uint64_t>(layout.strides[static_cast<size_t>(d)]), &reach) ||
        __builtin_add_overflow(last, reach, &last))
      fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": the host strides overflow 64-bit offsets");
  }
  uint64_t need = 0;
  if (__builtin_mul_overflow(last + 1, static_cast<uint64_t>(elem), &need) || need > host_nbytes)
    fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": the host layout reaches byte " +
                                       std::to_string((last + 1) * elem) + " but host_nbytes is " +
                                       std::to_string(host_nbytes));
  tsr_tensor* wrapped = nullptr;
  tsr_status st = tsr_from_external(&rt, const_cast<void*>(host), layout.ndim, layout.shape.data(),
                                    layout.strides.data(), 0, static_cast<tsr_dtype>(t.dtype), cpu, nullptr, nullptr,
                                    &wrapped);
  if (st != TSR_OK) fail(st, std::string(fn) + ": " + last_error_message());
  return TensorRef(wrapped);
}

}  // namespace

namespace tessera::rt {

tsr_scalar read_item(const tsr_tensor& t) {
  unsigned char bytes[16] = {};  // the widest element: complex128
  read_to_host(t, bytes, sizeof bytes);
  tsr_scalar s{};
  if (tsr_dtype_is_complex(t.dtype)) {
    const std::complex<double> v = value_as_complex(t.dtype, bytes, 0);
    return tsr_scalar_complex(v.real(), v.imag());
  }
  if (tsr_dtype_is_floating(t.dtype)) {
    s.kind = TSR_SCALAR_FLOAT;
    s.f = value_as_double(t.dtype, bytes, 0);
    return s;
  }
  s.kind = t.dtype == TSR_BOOL ? TSR_SCALAR_BOOL : TSR_SCALAR_INT;
  switch (t.dtype) {
    case TSR_INT8: s.i = static_cast<int8_t>(bytes[0]); break;
    case TSR_UINT8: s.i = bytes[0]; break;
    case TSR_INT16: { int16_t v; std::memcpy(&v, bytes, 2); s.i = v; break; }
    case TSR_INT32: { int32_t v; std::memcpy(&v, bytes, 4); s.i = v; break; }
    case TSR_INT64: std::memcpy(&s.i, bytes, 8); break;
    case TSR_UINT16: { uint16_t v; std::memcpy(&v, bytes, 2); s.i = v; break; }
    case TSR_UINT32: { uint32_t v; std::memcpy(&v, bytes, 4); s.i = v; break; }
    case TSR_UINT64: {  // i holds the bits (from 2^63 on: negative), f the value (tsr_item)
      uint64_t v;
      std::memcpy(&v, bytes, 8);
      s.i = static_cast<int64_t>(v);
      s.f = static_cast<double>(v);
      return s;
    }
    default: s.i = bytes[0] != 0; break;
  }
  s.f = static_cast<double>(s.i);
  return s;
}

}  // namespace tessera::rt

extern "C" {

int32_t tsr_tensor_is_host_accessible(const tsr_tensor* t) {
  return t == nullptr ? 0 : tsr_device_is_host_accessible(t->rt, t->device);
}

tsr_status tsr_tensor_get_item(tsr_tensor* t, int32_t ndim, const int64_t* index, tsr_scalar* out) {
  return guard([&] {
    require_out(out);
    *out = read_item(*element_view(require(t, "tensor"), ndim, index, "tsr_tensor_get_item"));
  });
}

tsr_status tsr_tensor_set_item(tsr_tensor* t, int32_t ndim, const int64_t* index, tsr_scalar value) {
  return guard([&] {
    tsr_tensor& target = require(t, "tensor");
    TensorRef at = element_view(target, ndim, index, "tsr_tensor_set_item");
    // A recorded tensor's element is written as a view of it, so that the
    // tensor's history is rewritten (Note [In-place ops]).
    if (autograd::should_record({&target}))
      at = autograd::view_of(
          target,
          [&](const Layout& l) {
            Layout e = l;
            for (int32_t d = 0; d < ndim; ++d)
              e = select(e, 0, index[d] < 0 ? index[d] + l.shape[static_cast<size_t>(d)] : index[d]);
            return e;
          },
          "SelectBackward0");
    autograd::InplaceWrite write(*at, {}, false);
    fill(*at, value);
    write.finish([&](tsr_tensor& r) { autograd::record_fill(r); });
  });
}

tsr_status tsr_copy_to_host(tsr_tensor* t, void* host, size_t host_nbytes, const int64_t* host_strides) {
  return guard([&] {
    const tsr_tensor& src = require(t, "tensor");
    TensorRef dst = wrap_host(src, host, host_nbytes, host_strides, "tsr_copy_to_host");
    if (!dst) return;  // no elements
    copy_into(*dst, src);
    const tsr_status st = tsr_synchronize(src.rt, dst->device);
    if (st != TSR_OK) fail(st, std::string("tsr_copy_to_host: ") + last_error_message());
  });
}

tsr_status tsr_copy_from_host(tsr_tensor* t, const void* host, size_t host_nbytes, const int64_t* host_strides) {
  return guard([&] {
    tsr_tensor& dst = require(t, "tensor");
    TensorRef src = wrap_host(dst, host, host_nbytes, host_strides, "tsr_copy_from_host");
    if (!src) return;
    autograd::InplaceWrite write(dst, {}, false);
    copy_into(dst, *src);
    write.finish([&](tsr_tensor& r) { autograd::record_fill(r); });
    // The host buffer is borrowed for the call only: wait for dst's device.
    const tsr_status st = tsr_synchronize(dst.rt, dst.device);
    if (st != TSR_OK) fail(st, std::string("tsr_copy_from_host: ") + last_error_message());
  });
}

}  // extern "C"
