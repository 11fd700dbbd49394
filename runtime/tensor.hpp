// SPDX-License-Identifier: Apache-2.0
// Storages and tensors (the C API's tsr_tensor).
//
// Note [Storage and views]
//   A Storage is one allocation on one device, reference counted; every view
//   (tsr_tensor) holds one reference. The bytes are owned by the plugin that
//   allocated them (freed through its deallocate) or, for external memory, by
//   a deleter that runs exactly once when the last reference goes. A
//   tsr_tensor is an immutable record — layout, dtype, device — over a
//   storage; a "view" is a new record over the same storage.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "layout.hpp"
#include "registry.hpp"
#include "runtime.hpp"
#include "tessera/tessera.h"

namespace tessera::rt {

struct Storage {
  std::atomic<int64_t> refs{1};
  tsr_runtime* rt = nullptr;
  const DeviceType* device_type = nullptr;
  tsr_device device{};
  void* data = nullptr;
  size_t nbytes = 0;
  tsr_deleter_fn deleter = nullptr;  // external memory when set or when external
  void* deleter_ctx = nullptr;
  bool external = false;
  // In-place writes into this storage through any view (PyTorch's version
  // counter, Note [Saved tensors and versions] in autograd.hpp).
  std::atomic<uint32_t> version{0};

  void retain() noexcept { refs.fetch_add(1, std::memory_order_relaxed); }
  void release() noexcept;
};

// Allocates nbytes on a device through its plugin (throws on failure).
Storage* allocate_storage(tsr_runtime& rt, tsr_device device, size_t nbytes);
// The same on a device whose type is already known valid (device.index too).
Storage* allocate_storage(tsr_runtime& rt, const DeviceType& type, tsr_device device, size_t nbytes);

inline bool same_device(tsr_device a, tsr_device b) noexcept { return a.type == b.type && a.index == b.index; }

namespace autograd {
struct AutogradMeta;            // autograd.hpp
void destroy(AutogradMeta* m);  // autograd.cpp
}

}  // namespace tessera::rt

struct tsr_tensor {
  std::atomic<int64_t> refs{1};
  tsr_runtime* rt = nullptr;
  tessera::rt::Storage* storage = nullptr;
  tessera::rt::Layout layout;
  int32_t dtype = TSR_FLOAT32;
  tsr_device device{};
  // Owned; null unless the tensor requires grad (Note [Autograd]). A view
  // record starts without one.
  tessera::rt::autograd::AutogradMeta* autograd = nullptr;
  // A view made by the C API's view functions holds a reference to the
  // tensor it views (the first one over the storage, never a view), so
  // that an in-place write through it can rewrite that tensor's history
  // (Note [In-place ops]); null otherwise.
  //
  // Note [A view's storage is its base's]
  //   A record with a base holds no reference to the storage of its own:
  //   its base, which it keeps alive, holds one. Nor is it counted in the
  //   runtime's live_tensors: its base is counted while it lives, which is
  //   all tsr_runtime_destroy and the leak checks need. That saves four
  //   atomic operations per view, which cost more than the rest of a
  //   view's record keeping (x[1:] from Python). `storage` and `base` are
  //   set when the record is made and never change.
  tsr_tensor* base = nullptr;

  // Records are recycled per thread (Note [Tensor records are recycled]).
  static void* operator new(std::size_t size);
  static void operator delete(void* p, std::size_t size) noexcept;
};

namespace tessera::rt {

// An owning reference to a tsr_tensor, for code inside the runtime.
class TensorRef {
 public:
  TensorRef() = default;
  explicit TensorRef(tsr_tensor* adopt) noexcept : t_(adopt) {}
  TensorRef(const TensorRef& o) noexcept : t_(o.t_) { retain(); }
  TensorRef(TensorRef&& o) noexcept : t_(std::exchange(o.t_, nullptr)) {}
  TensorRef& operator=(TensorRef o) noexcept {
    std::swap(t_, o.t_);
    return *this;
  }
  ~TensorRef() { reset(); }
  static TensorRef share(tsr_tensor* t) noexcept {
    TensorRef r(t);
    r.retain();
    return r;
  }
  void reset() noexcept;
  tsr_tensor* get() const noexcept { return t_; }
  tsr_tensor* operator->() const noexcept { return t_; }
  tsr_tensor& operator*() const noexcept { return *t_; }
  explicit operator bool() const noexcept { return t_ != nullptr; }
  tsr_tensor* release() noexcept { return std::exchange(t_, nullptr); }

 private:
  void retain() noexcept {
    if (t_) t_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  tsr_tensor* t_ = nullptr;
};

// A new view record over t's storage.
TensorRef make_view(const tsr_tensor& t, const Layout& layout);
// The same with the layout `make()` returns built in the record itself (no
// copy of its 272 bytes: views are made on every x[i] from Python).
template <class MakeLayout>
TensorRef make_view_with(const tsr_tensor& t, MakeLayout&& make) {
  auto* v = new tsr_tensor{.rt = t.rt, .storage = t.storage, .layout = make(), .dtype = t.dtype, .device = t.device};
  v->storage->retain();
  t.rt->live_tensors.fetch_add(1, std::memory_order_relaxed);
  return TensorRef(v);
}
// A view record of t that holds t's base (t's own, or t) instead of a
// storage reference (Note [A view's storage is its base's]).
template <class MakeLayout>
TensorRef make_based_view(const tsr_tensor& t, MakeLayout&& make) {
  tsr_tensor* base = t.base != nullptr ? t.base : const_cast<tsr_tensor*>(&t);
  auto* v = new tsr_tensor{
      .rt = t.rt, .storage = t.storage, .layout = make(), .dtype = t.dtype, .device = t.device, .base = base};
  base->refs.fetch_add(1, std::memory_order_relaxed);
  return TensorRef(v);
}
// A new tensor with fresh, uninitialised memory viewed through `layout`
// (its shape, strides and offset as given; contiguous_layout() gives the
// row-major one); the storage spans the layout's extent.
TensorRef make_tensor(tsr_runtime& rt, const Layout& layout, int32_t dtype, tsr_device device);
// The first view of a new storage; takes over the storage's one reference.
TensorRef adopt_storage(Storage* s, const Layout& layout, int32_t dtype);
// An op's result: a new row-major tensor of `shape` on `like`'s device. The
// fast form of make_tensor for shapes that came from existing tensors (the
// sizes are known valid; only the byte count is checked).
TensorRef make_result(const tsr_tensor& like, int32_t ndim, const int64_t* shape, int32_t dtype);
// The descriptor a kernel reads.
void fill_desc(const tsr_tensor& t, tsr_tensor_desc& desc) noexcept;
void fill_desc(const tsr_tensor& t, const Layout& layout, tsr_tensor_desc& desc) noexcept;
// The descriptor of t read as `shape` (ndim >= t's): stride 0 on the dims it
// is broadcast along. The caller knows that t's shape broadcasts to `shape`.
void fill_desc_broadcast(const tsr_tensor& t, int32_t ndim, const int64_t* shape, tsr_tensor_desc& desc) noexcept;

}  // namespace tessera::rt
