// SPDX-License-Identifier: Apache-2.0
// The C API: creation, metadata, views and copies.
#include <algorithm>
#include <cstring>
#include <memory>

#include "api_support.hpp"
#include "derivatives.hpp"
#include "ops.hpp"
#include "shape.hpp"

using namespace tessera::rt;

namespace {
// Runs the deleter exactly once unless ownership moved to a storage.
struct DeleterGuard {
  tsr_deleter_fn fn;
  void* ctx;
  void* data;
  ~DeleterGuard() {
    if (fn) fn(ctx, data);
  }
};

// A list the caller passes with its length (sizes, strides, dims): NULL
// only when empty.
template <class T>
const T* list_arg(int32_t n, const T* values, const char* what) {
  if (n > 0 && values == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, std::string(what) + " is NULL");
  return values;
}

}  // namespace

extern "C" {

tsr_status tsr_empty(tsr_runtime* rt, int32_t ndim, const int64_t* shape, tsr_dtype dtype, tsr_device device,
                     tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(empty(require(rt, "runtime"), ndim, shape, dtype, device), out);
  });
}

tsr_status tsr_zeros(tsr_runtime* rt, int32_t ndim, const int64_t* shape, tsr_dtype dtype, tsr_device device,
                     tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(full(require(rt, "runtime"), ndim, shape, make_scalar_int(0), dtype, device), out);
  });
}

tsr_status tsr_ones(tsr_runtime* rt, int32_t ndim, const int64_t* shape, tsr_dtype dtype, tsr_device device,
                    tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(full(require(rt, "runtime"), ndim, shape, make_scalar_int(1), dtype, device), out);
  });
}

tsr_status tsr_full(tsr_runtime* rt, int32_t ndim, const int64_t* shape, tsr_scalar value, tsr_dtype dtype,
                    tsr_device device, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(full(require(rt, "runtime"), ndim, shape, value, dtype, device), out);
  });
}

tsr_status tsr_arange(tsr_runtime* rt, tsr_scalar start, tsr_scalar end, tsr_scalar step, tsr_dtype dtype,
                      tsr_device device, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(arange(require(rt, "runtime"), start, end, step, dtype, device), out);
  });
}

tsr_status tsr_linspace(tsr_runtime* rt, double start, double end, int64_t steps, tsr_dtype dtype, tsr_device device,
                        tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(linspace(require(rt, "runtime"), start, end, steps, dtype, device), out);
  });
}

tsr_status tsr_rand(tsr_runtime* rt, int32_t ndim, const int64_t* shape, tsr_dtype dtype, tsr_device device,
                    tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(random(require(rt, "runtime"), TSR_OP_RAND_UNIFORM, ndim, shape, dtype, device), out);
  });
}

tsr_status tsr_randn(tsr_runtime* rt, int32_t ndim, const int64_t* shape, tsr_dtype dtype, tsr_device device,
                     tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(random(require(rt, "runtime"), TSR_OP_RAND_NORMAL, ndim, shape, dtype, device), out);
  });
}

tsr_status tsr_from_host(tsr_runtime* rt, const void* data, int32_t ndim, const int64_t* shape, tsr_dtype dtype,
                         tsr_device device, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(from_host(require(rt, "runtime"), data, ndim, shape, dtype, device), out);
  });
}

tsr_status tsr_from_external(tsr_runtime* rt, void* data, int32_t ndim, const int64_t* shape, const int64_t* strides,
                             int64_t offset, tsr_dtype dtype, tsr_device device, tsr_deleter_fn deleter,
                             void* deleter_ctx, tsr_tensor** out) {
  DeleterGuard owner{deleter, deleter_ctx, data};
  return guard([&] {
    require_out(out);
    tsr_runtime& r = require(rt, "runtime");
    size_t elem = tsr_dtype_size(dtype);
    if (elem == 0) fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype " + std::to_string(dtype));
    const DeviceType& type = r.registry.require_device(device);
    check_ndim(ndim);
    Layout layout = contiguous_layout(ndim, list_arg(ndim, shape, "shape"));
    if (strides != nullptr) {
      for (int32_t i = 0; i < ndim; ++i) {
        if (strides[i] < 0)
          fail(TSR_ERR_INVALID_ARGUMENT, "negative stride " + std::to_string(strides[i]) + " at dim " +
                                             std::to_string(i) + " (external memory needs strides >= 0)");
        layout.strides[static_cast<size_t>(i)] = strides[i];
      }
    }
    if (offset < 0) fail(TSR_ERR_INVALID_ARGUMENT, "negative storage offset " + std::to_string(offset));
    layout.offset = offset;
    checked_numel(ndim, shape, elem);
    int64_t extent = storage_extent(layout);
    // The bytes the view spans must be addressable too.
    size_t nbytes = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(extent), elem, &nbytes) ||
        nbytes > static_cast<size_t>(INT64_MAX))
      fail(TSR_ERR_INVALID_ARGUMENT, "external memory of " + std::to_string(extent) + " elements of " +
                                         tsr_dtype_name(dtype) + " overflows a 64-bit byte size");
    if (extent > 0 && data == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "external data is NULL");
    if (reinterpret_cast<uintptr_t>(data) % elem != 0)
      fail(TSR_ERR_INVALID_ARGUMENT, "external data at " + std::to_string(reinterpret_cast<uintptr_t>(data)) +
                                         " is not aligned to the " + std::to_string(elem) + "-byte elements of " +
                                         tsr_dtype_name(dtype));
    auto s = std::make_unique<Storage>();
    s->rt = &r;
    s->device_type = &type;
    s->device = device;
    s->data = data;
    s->nbytes = nbytes;
    s->external = true;
    s->deleter = owner.fn;
    s->deleter_ctx = deleter_ctx;
    // Should adopting throw (out of host memory), `owner` still runs the deleter.
    TensorRef t = adopt_storage(s.get(), layout, dtype);
    s.release();
    owner.fn = nullptr;  // the storage owns the memory now
    r.live_storages.fetch_add(1);
    hand_out(std::move(t), out);
  });
}

void tsr_tensor_retain(tsr_tensor* t) {
  if (t) t->refs.fetch_add(1, std::memory_order_relaxed);
}

void tsr_tensor_release(tsr_tensor* t) { TensorRef drop(t); }

tsr_runtime* tsr_tensor_runtime(const tsr_tensor* t) { return t ? t->rt : nullptr; }
int32_t tsr_tensor_ndim(const tsr_tensor* t) { return t ? t->layout.ndim : 0; }
const int64_t* tsr_tensor_shape(const tsr_tensor* t) { return t ? t->layout.shape.data() : nullptr; }
const int64_t* tsr_tensor_strides(const tsr_tensor* t) { return t ? t->layout.strides.data() : nullptr; }
int64_t tsr_tensor_storage_offset(const tsr_tensor* t) { return t ? t->layout.offset : 0; }
tsr_dtype tsr_tensor_dtype(const tsr_tensor* t) { return t ? static_cast<tsr_dtype>(t->dtype) : TSR_DTYPE_UNDEFINED; }
tsr_device tsr_tensor_device(const tsr_tensor* t) { return t ? t->device : tsr_device{TSR_DEVICE_UNDEFINED, 0}; }
int64_t tsr_tensor_numel(const tsr_tensor* t) { return t ? t->layout.numel() : 0; }
size_t tsr_tensor_element_size(const tsr_tensor* t) { return t ? tsr_dtype_size(t->dtype) : 0; }
int32_t tsr_tensor_is_contiguous(const tsr_tensor* t) { return t && is_contiguous(t->layout) ? 1 : 0; }
void* tsr_tensor_storage_data(const tsr_tensor* t) { return t ? t->storage->data : nullptr; }
size_t tsr_tensor_storage_nbytes(const tsr_tensor* t) { return t ? t->storage->nbytes : 0; }

tsr_status tsr_tensor_describe(const tsr_tensor* t, tsr_tensor_desc* out) {
  return guard([&] {
    require_out(out);
    const tsr_tensor& tt = require(t, "tensor");
    // Note [Extensible structs]: an older caller's smaller struct gets the
    // fields it knows; the struct_size it set stays as it was.
    constexpr size_t smallest = TSR_STRUCT_SIZE(tsr_tensor_desc, data);
    if (out->struct_size < smallest)
      fail(TSR_ERR_INVALID_ARGUMENT, "tsr_tensor_desc.struct_size " + std::to_string(out->struct_size) +
                                         " is smaller than the smallest layout (" + std::to_string(smallest) +
                                         " bytes); set it to TSR_TENSOR_DESC_STRUCT_SIZE");
    tsr_tensor_desc full{};
    fill_desc(tt, full);
    const size_t caller_size = out->struct_size;
    std::memcpy(out, &full, std::min(caller_size, sizeof full));
    out->struct_size = caller_size;
  });
}

// ---- views ------------------------------------------------------------------

// A view, recorded for autograd with PyTorch's name of its node.
// expr: the view's layout from the source's, `l`.
#define TSR_VIEW_FN_KIND(name, kind, expr)                                                   \
  return guard([&] {                                                                         \
    require_out(out);                                                                        \
    const tsr_tensor& src = require(t, "tensor");                                            \
    hand_out(autograd::view_of(src, [&](const Layout& l) { return expr; }, name, kind), out); \
  })
#define TSR_VIEW_FN(name, expr) TSR_VIEW_FN_KIND(name, autograd::ViewKind::kPlain, expr)

tsr_status tsr_view(tsr_tensor* t, int32_t ndim, const int64_t* shape, tsr_tensor** out) {
  TSR_VIEW_FN("ViewBackward0", view(l, ndim, list_arg(ndim, shape, "shape")));
}

tsr_status tsr_transpose(tsr_tensor* t, int32_t dim0, int32_t dim1, tsr_tensor** out) {
  TSR_VIEW_FN("TransposeBackward0", transpose(l, dim0, dim1));
}

tsr_status tsr_t(tsr_tensor* t, tsr_tensor** out) { TSR_VIEW_FN("TBackward0", reverse_dims(l)); }

tsr_status tsr_diagonal(tsr_tensor* t, int64_t offset, int32_t dim1, int32_t dim2, tsr_tensor** out) {
  TSR_VIEW_FN("DiagonalBackward0", diagonal(l, offset, dim1, dim2));
}

tsr_status tsr_real(tsr_tensor* t, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(complex_part(require(t, "tensor"), false), out);
  });
}

tsr_status tsr_imag(tsr_tensor* t, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(complex_part(require(t, "tensor"), true), out);
  });
}

tsr_status tsr_view_dtype(tsr_tensor* t, tsr_dtype dtype, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(view_dtype(require(t, "tensor"), dtype), out);
  });
}

tsr_status tsr_permute(tsr_tensor* t, int32_t ndim, const int32_t* dims, tsr_tensor** out) {
  TSR_VIEW_FN("PermuteBackward0", permute(l, ndim, list_arg(ndim, dims, "dims")));
}

tsr_status tsr_slice(tsr_tensor* t, int32_t dim, int64_t start, int64_t stop, int64_t step, tsr_tensor** out) {
  TSR_VIEW_FN("SliceBackward0", slice(l, dim, start, stop, step));
}

tsr_status tsr_select(tsr_tensor* t, int32_t dim, int64_t index, tsr_tensor** out) {
  TSR_VIEW_FN("SelectBackward0", select(l, dim, index));
}

tsr_status tsr_unsqueeze(tsr_tensor* t, int32_t dim, tsr_tensor** out) { TSR_VIEW_FN("UnsqueezeBackward0", unsqueeze(l, dim)); }
tsr_status tsr_squeeze(tsr_tensor* t, int32_t dim, tsr_tensor** out) { TSR_VIEW_FN("SqueezeBackward1", squeeze_dim(l, dim)); }
tsr_status tsr_squeeze_all(tsr_tensor* t, tsr_tensor** out) { TSR_VIEW_FN("SqueezeBackward0", squeeze_all(l)); }

tsr_status tsr_expand(tsr_tensor* t, int32_t ndim, const int64_t* shape, tsr_tensor** out) {
  TSR_VIEW_FN_KIND("ExpandBackward0", autograd::ViewKind::kExpand, expand(l, ndim, list_arg(ndim, shape, "shape")));
}

tsr_status tsr_as_strided(tsr_tensor* t, int32_t ndim, const int64_t* shape, const int64_t* strides, int64_t offset,
                          tsr_tensor** out) {
  TSR_VIEW_FN_KIND("AsStridedBackward0", autograd::ViewKind::kStrided, as_strided(l, ndim, list_arg(ndim, shape, "shape"), list_arg(ndim, strides, "strides"), offset,
                         static_cast<int64_t>(src.storage->nbytes),
                         tsr_dtype_size(src.dtype)));
}

#undef TSR_VIEW_FN
#undef TSR_VIEW_FN_KIND

tsr_status tsr_reshape(tsr_tensor* t, int32_t ndim, const int64_t* shape, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    const tsr_tensor& src = require(t, "tensor");
    check_ndim(ndim);
    int64_t sizes[TSR_MAX_DIMS];
    if (ndim > 0) std::memcpy(sizes, &require(shape, "shape"), sizeof(int64_t) * static_cast<size_t>(ndim));
    infer_size(src.layout.numel(), ndim, sizes);
    if (view_strides(src.layout, ndim, sizes)) {
      hand_out(autograd::view_of(src, [&](const Layout& l) { return view(l, ndim, sizes); }, "ReshapeAliasBackward0"),
               out);
      return;
    }
    TensorRef c = contiguous(borrow(t, "tensor"));
    hand_out(autograd::view_of(*c, [&](const Layout& l) { return view(l, ndim, sizes); }, "UnsafeViewBackward0"), out);
  });
}

tsr_status tsr_flatten(tsr_tensor* t, int32_t start_dim, int32_t end_dim, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    const tsr_tensor& src = require(t, "tensor");
    auto flat = [&](const Layout& l) { return *flatten(l, start_dim, end_dim); };
    if (flatten(src.layout, start_dim, end_dim)) {
      hand_out(autograd::view_of(src, flat, "ReshapeAliasBackward0"), out);
      return;
    }
    TensorRef c = contiguous(borrow(t, "tensor"));
    hand_out(autograd::view_of(*c, flat, "UnsafeViewBackward0"), out);
  });
}

// ---- copies -------------------------------------------------------------------

tsr_status tsr_contiguous(tsr_tensor* t, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(contiguous(borrow(t, "tensor")), out);
  });
}

tsr_status tsr_clone(tsr_tensor* t, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(clone(require(t, "tensor")), out);
  });
}

tsr_status tsr_to(tsr_tensor* t, tsr_dtype dtype, tsr_device device, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(to(borrow(t, "tensor"), dtype, device), out);
  });
}

tsr_status tsr_to_dtype(tsr_tensor* t, tsr_dtype dtype, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    TensorRef ref = borrow(t, "tensor");
    hand_out(to(ref, dtype, ref->device), out);
  });
}

tsr_status tsr_to_device(tsr_tensor* t, tsr_device device, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    TensorRef ref = borrow(t, "tensor");
    hand_out(to(ref, ref->dtype, device), out);
  });
}

}  // extern "C"
