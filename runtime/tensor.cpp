// SPDX-License-Identifier: Apache-2.0
#include "tensor.hpp"

#include <algorithm>
#include <climits>
#include <memory>
#include <string>

#include "error.hpp"
#include "plugin_call.hpp"
#include "shape.hpp"

// Note [Tensor records are recycled]
//   Every view, every op's result and every x[i] from Python allocates one
//   tsr_tensor record and frees it soon after: malloc and free were a fifth
//   of a view's instructions (callgrind, tsr_as_strided + release). Each
//   thread keeps up to kCapacity freed records and hands them out again.
//   Sanitizer builds allocate every record afresh, so that a use after free
//   is still caught.
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kRecordCacheCapacity = 0;
#else
constexpr int kRecordCacheCapacity = 32;
#endif

struct RecordCache {
  void* records[kRecordCacheCapacity > 0 ? kRecordCacheCapacity : 1];
  int count = 0;
  bool alive = true;  // false once the thread's cache is gone: frees go to the heap
  ~RecordCache() {
    alive = false;
    while (count > 0) ::operator delete(records[--count]);
  }
};
thread_local RecordCache record_cache;

}  // namespace

void* tsr_tensor::operator new(std::size_t size) {
  RecordCache& cache = record_cache;
  if (size == sizeof(tsr_tensor) && cache.count > 0) return cache.records[--cache.count];
  return ::operator new(size);
}

void tsr_tensor::operator delete(void* p, std::size_t size) noexcept {
  RecordCache& cache = record_cache;
  if (size == sizeof(tsr_tensor) && cache.alive && cache.count < kRecordCacheCapacity) {
    cache.records[cache.count++] = p;
    return;
  }
  ::operator delete(p);
}

namespace tessera::rt {

void Storage::release() noexcept {
  // The last reference needs no atomic write (as TensorRef::reset's).
  if (refs.load(std::memory_order_acquire) != 1 && refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (external) {
    if (deleter) deleter(deleter_ctx, data);
  } else if (data != nullptr) {
    PluginCall call(device_type->plugin);
    device_type->iface->deallocate(device_type->ctx, device.index, data, nbytes);
  }
  rt->live_storages.fetch_sub(1, std::memory_order_relaxed);
  delete this;
}

Storage* allocate_storage(tsr_runtime& rt, tsr_device device, size_t nbytes) {
  return allocate_storage(rt, rt.registry.require_device(device), device, nbytes);
}

Storage* allocate_storage(tsr_runtime& rt, const DeviceType& type, tsr_device device, size_t nbytes) {
  auto s = std::make_unique<Storage>();  // first, so that a failure here cannot leak the device memory
  void* data = nullptr;
  if (nbytes > 0) {
    tsr_status st;
    {
      PluginCall call(type.plugin);
      st = type.iface->allocate(type.ctx, device.index, nbytes, &data);
    }
    if (st != TSR_OK || data == nullptr)
      fail(st == TSR_OK ? TSR_ERR_OUT_OF_MEMORY : st,
           "allocating " + std::to_string(nbytes) + " bytes on " + rt.registry.device_name(device) + " failed: " +
               (st == TSR_OK ? std::string("the plugin returned TSR_OK but no memory") : plugin_message()));
  }
  s->rt = &rt;
  s->device_type = &type;
  s->device = device;
  s->data = data;
  s->nbytes = nbytes;
  rt.live_storages.fetch_add(1, std::memory_order_relaxed);
  return s.release();
}

void TensorRef::reset() noexcept {
  if (t_ == nullptr) return;
  // The last reference needs no atomic write: no one else can take one
  // (a reference is only copied from another), so a count of 1 read with
  // acquire is ours alone. Most records die so (x[1:] from Python).
  if (t_->refs.load(std::memory_order_acquire) == 1 || t_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    if (t_->autograd != nullptr) [[unlikely]]
      autograd::destroy(t_->autograd);  // out of line: reset stays small
    // Note [A view's storage is its base's]
    if (t_->base != nullptr) {
      TensorRef drop(t_->base);
    } else {
      t_->rt->live_tensors.fetch_sub(1, std::memory_order_relaxed);
      t_->storage->release();
    }
    delete t_;
  }
  t_ = nullptr;
}

TensorRef make_view(const tsr_tensor& t, const Layout& layout) {
  // Built with its layout in place: a default-constructed record would zero
  // the layout's 256 bytes of dims first, a third of a view's cost
  // (tsr_slice, x[1:] from Python).
  return make_view_with(t, [&]() -> const Layout& { return layout; });
}

TensorRef make_tensor(tsr_runtime& rt, const Layout& layout, int32_t dtype, tsr_device device) {
  size_t elem = tsr_dtype_size(dtype);
  if (elem == 0) fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype " + std::to_string(dtype));
  checked_numel(layout.ndim, layout.shape.data(), elem);
  int64_t extent = storage_extent(layout);
  return adopt_storage(allocate_storage(rt, device, static_cast<size_t>(extent) * elem), layout, dtype);
}

TensorRef make_result(const tsr_tensor& like, int32_t ndim, const int64_t* shape, int32_t dtype) {
  const size_t elem = tsr_dtype_size(dtype);
  Layout layout;
  layout.ndim = ndim;
  uint64_t stride = 1, numel = 1;  // row-major strides: a size-0 dim counts as 1, as in contiguous_layout
  bool overflow = elem == 0;
  for (int32_t i = ndim - 1; i >= 0; --i) {
    layout.shape[static_cast<size_t>(i)] = shape[i];
    layout.strides[static_cast<size_t>(i)] = static_cast<int64_t>(stride);
    stride *= static_cast<uint64_t>(std::max<int64_t>(shape[i], 1));
    overflow |= shape[i] < 0 || __builtin_mul_overflow(numel, static_cast<uint64_t>(shape[i]), &numel);
  }
  uint64_t nbytes = 0;
  overflow |= __builtin_mul_overflow(numel, static_cast<uint64_t>(elem), &nbytes) || nbytes > uint64_t{INT64_MAX};
  if (overflow) return make_tensor(*like.rt, contiguous_layout(ndim, shape), dtype, like.device);  // throws the usual message
  const DeviceType& type = *like.storage->device_type;
  return adopt_storage(allocate_storage(*like.rt, type, like.device, static_cast<size_t>(nbytes)), layout, dtype);
}

TensorRef adopt_storage(Storage* s, const Layout& layout, int32_t dtype) {
  auto* t = new tsr_tensor;
  t->rt = s->rt;
  t->storage = s;
  t->layout = layout;
  t->dtype = dtype;
  t->device = s->device;
  s->rt->live_tensors.fetch_add(1, std::memory_order_relaxed);
  return TensorRef(t);
}

void fill_desc(const tsr_tensor& t, const Layout& layout, tsr_tensor_desc& desc) noexcept {
  desc.struct_size = sizeof desc;
  desc.data = t.storage->data;
  desc.offset = layout.offset;
  desc.ndim = layout.ndim;
  desc.dtype = t.dtype;
  desc.device = t.device;
  for (int32_t i = 0; i < layout.ndim; ++i) {
    desc.shape[i] = layout.shape[static_cast<size_t>(i)];
    desc.strides[i] = layout.strides[static_cast<size_t>(i)];
  }
}

void fill_desc(const tsr_tensor& t, tsr_tensor_desc& desc) noexcept { fill_desc(t, t.layout, desc); }

void fill_desc_broadcast(const tsr_tensor& t, int32_t ndim, const int64_t* shape, tsr_tensor_desc& desc) noexcept {
  desc.struct_size = sizeof desc;
  desc.data = t.storage->data;
  desc.offset = t.layout.offset;
  desc.ndim = ndim;
  desc.dtype = t.dtype;
  desc.device = t.device;
  const int32_t lead = ndim - t.layout.ndim;
  for (int32_t i = 0; i < ndim; ++i) {
    desc.shape[i] = shape[i];
    const size_t d = static_cast<size_t>(i - lead);
    desc.strides[i] = i < lead || t.layout.shape[d] != shape[i] ? 0 : t.layout.strides[d];
  }
}

}  // namespace tessera::rt
