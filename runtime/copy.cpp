// SPDX-License-Identifier: Apache-2.0
#include <cstring>
#include <string>
#include <vector>

#include "derivatives.hpp"
#include "error.hpp"
#include "plugin_call.hpp"
#include "ops.hpp"
#include "shape.hpp"

namespace tessera::rt {

namespace {

bool same_layout(const Layout& a, const Layout& b) {
  if (a.ndim != b.ndim || a.offset != b.offset) return false;
  for (int32_t i = 0; i < a.ndim; ++i)
    if (a.shape[static_cast<size_t>(i)] != b.shape[static_cast<size_t>(i)] ||
        a.strides[static_cast<size_t>(i)] != b.strides[static_cast<size_t>(i)])
      return false;
  return true;
}

// The address range of the bytes used by a view, to detect overlap.
void byte_span(const tsr_tensor& t, const char*& lo, const char*& hi) {
  size_t elem = tsr_dtype_size(t.dtype);
  lo = static_cast<const char*>(t.storage->data) + static_cast<size_t>(t.layout.offset) * elem;
  hi = lo + static_cast<size_t>(storage_extent(t.layout) - t.layout.offset) * elem;
}

// Moves the bytes of `src` (row-major contiguous, on its own device) into
// `dst` (row-major contiguous, same dtype and shape, on another device):
// directly between two devices of one plugin or when one side is host
// memory, else through a host staging buffer. No kernel runs, so this works
// for a plugin that implements no ops at all.
void transfer_bytes(const tsr_tensor& src, const tsr_tensor& dst) {
  tsr_runtime& rt = *src.rt;
  size_t elem = tsr_dtype_size(src.dtype);
  size_t nbytes = static_cast<size_t>(src.layout.numel()) * elem;
  if (nbytes == 0) return;
  const DeviceType& from = *src.storage->device_type;
  const DeviceType& to_type = *dst.storage->device_type;
  const char* src_ptr = static_cast<const char*>(src.storage->data) + static_cast<size_t>(src.layout.offset) * elem;
  char* dst_ptr = static_cast<char*>(dst.storage->data) + static_cast<size_t>(dst.layout.offset) * elem;
  tsr_status st;
  // The plugin that runs the copy (both sides' calls are attributed to `from`
  // when staging through the host; the message names both devices).
  PluginCall call(&from == &to_type || !from.host_accessible(src.device.index) ? from.plugin : to_type.plugin);
  if (&from == &to_type) {
    st = from.iface->copy_device_to_device(from.ctx, dst.device.index, dst_ptr, src.device.index, src_ptr, nbytes,
                                           nullptr);
  } else if (from.host_accessible(src.device.index)) {
    st = to_type.iface->copy_host_to_device(to_type.ctx, dst.device.index, dst_ptr, src_ptr, nbytes, nullptr);
  } else if (to_type.host_accessible(dst.device.index)) {
    st = from.iface->copy_device_to_host(from.ctx, src.device.index, dst_ptr, src_ptr, nbytes, nullptr);
  } else {
    std::vector<char> staging(nbytes);
    st = from.iface->copy_device_to_host(from.ctx, src.device.index, staging.data(), src_ptr, nbytes, nullptr);
    if (st == TSR_OK)
      st = to_type.iface->copy_host_to_device(to_type.ctx, dst.device.index, dst_ptr, staging.data(), nbytes, nullptr);
  }
  if (st != TSR_OK)
    fail(st, "copy from " + rt.registry.device_name(src.device) + " to " + rt.registry.device_name(dst.device) +
                 " failed: " + plugin_message());
}

}  // namespace

void copy_into(const tsr_tensor& dst, const tsr_tensor& src) {
  check_no_internal_overlap(dst);
  Layout src_layout = broadcast_to(src.layout, dst.layout.ndim, dst.layout.shape.data());
  if (dst.layout.numel() == 0) return;
  TensorRef staged;
  const tsr_tensor* from = &src;
  if (!same_device(src.device, dst.device)) {
    TensorRef c = contiguous(TensorRef::share(const_cast<tsr_tensor*>(&src)));
    if (src.dtype == dst.dtype && same_shape(src.layout, dst.layout) && is_contiguous(dst.layout)) {
      transfer_bytes(*c, dst);  // a plain move: no kernel needed on either side
      return;
    }
    // Move the (smaller, unbroadcast) source to dst's device, then let dst's
    // COPY kernel broadcast, cast and scatter it.
    staged = make_tensor(*dst.rt, contiguous_layout(c->layout.ndim, c->layout.shape.data()), c->dtype, dst.device);
    transfer_bytes(*c, *staged);
    from = staged.get();
    src_layout = broadcast_to(staged->layout, dst.layout.ndim, dst.layout.shape.data());
  } else if (src.storage == dst.storage && !same_layout(src_layout, dst.layout)) {
    // A partial overlap would read elements already overwritten: copy first.
    const char *slo, *shi, *dlo, *dhi;
    byte_span(src, slo, shi);
    byte_span(dst, dlo, dhi);
    if (slo < dhi && dlo < shi) {
      staged = clone(src);
      from = staged.get();
      src_layout = broadcast_to(staged->layout, dst.layout.ndim, dst.layout.shape.data());
    }
  }
  tsr_tensor_desc in, out;
  fill_desc(*from, src_layout, in);
  fill_desc(dst, out);
  launch(*dst.rt, dst.device, TSR_OP_COPY, dst.dtype, {&in}, out);
}

TensorRef contiguous(const TensorRef& t) {
  if (is_contiguous(t->layout)) return t;
  TensorRef out = make_tensor(*t->rt, contiguous_layout(t->layout.ndim, t->layout.shape.data()), t->dtype, t->device);
  copy_into(*out, *t);
  if (autograd::should_record({t.get()})) autograd::record_copy(*t, *out, "CloneBackward0");
  return out;
}

TensorRef clone(const tsr_tensor& t) {
  TensorRef out = make_tensor(*t.rt, dense_like(t.layout), t.dtype, t.device);
  copy_into(*out, t);
  if (autograd::should_record({&t})) autograd::record_copy(t, *out, "CloneBackward0");
  return out;
}

TensorRef to(const TensorRef& t, int32_t dtype, tsr_device device) {
  if (dtype < 0 || dtype >= TSR_DTYPE_COUNT) fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype " + std::to_string(dtype));
  t->rt->registry.require_device(device);
  if (t->dtype == dtype && same_device(t->device, device)) return t;
  // Across devices the result is row-major, so a plain byte move can fill it.
  Layout layout = same_device(t->device, device) ? dense_like(t->layout)
                                                 : contiguous_layout(t->layout.ndim, t->layout.shape.data());
  TensorRef out = make_tensor(*t->rt, layout, dtype, device);
  copy_into(*out, *t);
  if (autograd::should_record({t.get()})) autograd::record_copy(*t, *out, "ToCopyBackward0");
  return out;
}

void read_to_host(const tsr_tensor& t, void* dst, size_t nbytes) {
  size_t elem = tsr_dtype_size(t.dtype);
  size_t need = static_cast<size_t>(t.layout.numel()) * elem;
  if (nbytes < need)
    fail(TSR_ERR_INVALID_ARGUMENT, "destination holds " + std::to_string(nbytes) + " bytes; the tensor needs " +
                                       std::to_string(need));
  if (need == 0) return;
  if (dst == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "destination is NULL");
  TensorRef c = contiguous(TensorRef::share(const_cast<tsr_tensor*>(&t)));
  const DeviceType& type = *c->storage->device_type;
  const char* src = static_cast<const char*>(c->storage->data) + static_cast<size_t>(c->layout.offset) * elem;
  tsr_status st;
  {
    PluginCall call(type.plugin);
    st = type.iface->copy_device_to_host(type.ctx, c->device.index, dst, src, need, nullptr);
  }
  if (st != TSR_OK)
    fail(st, "copy from " + t.rt->registry.device_name(c->device) + " to the host failed: " + plugin_message());
}

}  // namespace tessera::rt
