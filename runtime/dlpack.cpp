// SPDX-License-Identifier: Apache-2.0
// DLPack 1.x exchange (ABI 1.11, tessera/dlpack_exchange.h): the C API's
// tsr_to_dlpack_versioned and tsr_from_dlpack_versioned. Export is one
// malloc'd block holding a tensor reference; import wraps the producer's
// memory with tsr_from_external, or copies it (Note [Importing DLPack 1.x]
// in the header).
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "api_support.hpp"
#include "autograd.hpp"
#include "ops.hpp"
#include "runtime.hpp"

using namespace tessera::rt;

namespace {

// The declarations are DLPack 1.x's layout (DLManagedTensorVersioned,
// DLTensor on LP64): check what a consumer compiled against dlpack.h reads.
static_assert(sizeof(tsr_dlpack_version) == 8 && sizeof(tsr_dlpack_device) == 8 && sizeof(tsr_dlpack_dtype) == 4);
static_assert(offsetof(tsr_dlpack_tensor, device) == 8 && offsetof(tsr_dlpack_tensor, ndim) == 16 &&
              offsetof(tsr_dlpack_tensor, dtype) == 20 && offsetof(tsr_dlpack_tensor, shape) == 24 &&
              offsetof(tsr_dlpack_tensor, strides) == 32 && offsetof(tsr_dlpack_tensor, byte_offset) == 40 &&
              sizeof(tsr_dlpack_tensor) == 48);
static_assert(offsetof(tsr_dlpack_versioned, manager_ctx) == 8 && offsetof(tsr_dlpack_versioned, deleter) == 16 &&
              offsetof(tsr_dlpack_versioned, flags) == 24 && offsetof(tsr_dlpack_versioned, dl_tensor) == 32 &&
              sizeof(tsr_dlpack_versioned) == 80);

struct DLType {
  uint8_t code, bits;
};

// Tessera dtype code -> DLPack type; every dtype has one.
constexpr DLType kToDL[TSR_DTYPE_COUNT] = {
    /* FLOAT32 */ {TSR_DLPACK_FLOAT, 32},    /* FLOAT64 */ {TSR_DLPACK_FLOAT, 64},
    /* FLOAT16 */ {TSR_DLPACK_FLOAT, 16},    /* BFLOAT16 */ {TSR_DLPACK_BFLOAT, 16},
    /* INT8 */ {TSR_DLPACK_INT, 8},          /* UINT8 */ {TSR_DLPACK_UINT, 8},
    /* INT16 */ {TSR_DLPACK_INT, 16},        /* INT32 */ {TSR_DLPACK_INT, 32},
    /* INT64 */ {TSR_DLPACK_INT, 64},        /* BOOL */ {TSR_DLPACK_BOOL, 8},
    /* UINT16 */ {TSR_DLPACK_UINT, 16},      /* UINT32 */ {TSR_DLPACK_UINT, 32},
    /* UINT64 */ {TSR_DLPACK_UINT, 64},      /* COMPLEX64 */ {TSR_DLPACK_COMPLEX, 64},
    /* COMPLEX128 */ {TSR_DLPACK_COMPLEX, 128},
};
static_assert(TSR_FLOAT32 == 0 && TSR_BFLOAT16 == 3 && TSR_BOOL == 9 && TSR_UINT64 == 12 && TSR_COMPLEX128 == 14 &&
              TSR_DTYPE_COUNT == 15);

tsr_dtype from_dl(tsr_dlpack_dtype t) {
  if (t.lanes != 1) return TSR_DTYPE_UNDEFINED;
  for (int c = 0; c < TSR_DTYPE_COUNT; ++c)
    if (kToDL[c].code == t.code && kToDL[c].bits == t.bits) return static_cast<tsr_dtype>(c);
  return TSR_DTYPE_UNDEFINED;
}

std::string device_name(tsr_runtime* rt, tsr_device d) {
  char buf[64] = {};
  tsr_device_format(rt, d, buf, sizeof buf);
  return buf;
}


// The DLPack device of a Tessera device (the header's export rules).
tsr_dlpack_device dl_device_of(tsr_runtime* rt, tsr_device d) {
  if (d.type == TSR_DEVICE_CPU || tsr_device_is_host_accessible(rt, d)) return {TSR_DLPACK_DEVICE_CPU, 0};
  if (d.type == TSR_DEVICE_CUDA) return {TSR_DLPACK_DEVICE_CUDA, d.index};
  fail(TSR_ERR_UNSUPPORTED, "tsr_to_dlpack_versioned: a tensor on " + device_name(rt, d) +
                                " cannot be shared through DLPack: its memory is not host-accessible and DLPack "
                                "has no device type for it; export it to the cpu (a copy)");
}

void sync(tsr_runtime* rt, tsr_device d, const char* fn) {
  const tsr_status st = tsr_synchronize(rt, d);
  if (st != TSR_OK) fail(st, std::string(fn) + ": " + last_error_message());
}

// The export's deleter: the consumer's single call.
void export_deleter(tsr_dlpack_versioned* self) {
  tsr_tensor_release(static_cast<tsr_tensor*>(self->manager_ctx));
  std::free(self);
}

// tsr_from_external's deleter for zero-copy imports.
void import_deleter(void* ctx, void*) {
  auto* m = static_cast<tsr_dlpack_versioned*>(ctx);
  if (m->deleter != nullptr) m->deleter(m);
}

// Runs the producer's deleter once, unless ownership moved on.
struct ManagedGuard {
  tsr_dlpack_versioned* m;
  ~ManagedGuard() {
    if (m != nullptr && m->deleter != nullptr) m->deleter(m);
  }
};

}  // namespace

extern "C" {

tsr_status tsr_to_dlpack_versioned(tsr_tensor* t, const tsr_dlpack_options* options, tsr_dlpack_versioned** out) {
  return guard([&] {
    require_out(out);
    *out = nullptr;
    tsr_tensor& src = require(t, "tensor");
    tsr_dlpack_options o = TSR_DLPACK_OPTIONS_INIT;
    if (options != nullptr) {
      // Note [Extensible structs]: an older caller's smaller struct keeps the defaults of what it lacks.
      constexpr size_t smallest = TSR_STRUCT_SIZE(tsr_dlpack_options, copy);
      if (options->struct_size < smallest)
        fail(TSR_ERR_INVALID_ARGUMENT, "tsr_dlpack_options.struct_size " + std::to_string(options->struct_size) +
                                           " is smaller than the smallest layout (" + std::to_string(smallest) +
                                           " bytes); set it to TSR_DLPACK_OPTIONS_STRUCT_SIZE");
      std::memcpy(&o, options, std::min(options->struct_size, sizeof o));
      o.struct_size = sizeof o;
    }
    if (o.copy < TSR_DLPACK_COPY_IF_NEEDED || o.copy > TSR_DLPACK_COPY_NEVER)
      fail(TSR_ERR_INVALID_ARGUMENT, "tsr_dlpack_options.copy " + std::to_string(o.copy) +
                                         " is not a tsr_dlpack_copy (0, 1 or 2)");
    if ((o.flags & ~TSR_DLPACK_FLAG_READ_ONLY) != 0)
      fail(TSR_ERR_INVALID_ARGUMENT, "tsr_dlpack_options.flags " + std::to_string(o.flags) +
                                         ": only TSR_DLPACK_FLAG_READ_ONLY may be asked for (Tessera sets IS_COPIED)");
    tsr_runtime* rt = src.rt;
    const tsr_device target = o.to_device ? o.device : src.device;
    uint64_t flags = o.flags;
    TensorRef x = TensorRef::share(&src);
    const bool other = !same_device(target, src.device);
    if (other || o.copy == TSR_DLPACK_COPY_ALWAYS) {
      if (o.copy == TSR_DLPACK_COPY_NEVER)
        fail(TSR_ERR_UNSUPPORTED, "tsr_to_dlpack_versioned: the tensor is on " + device_name(rt, src.device) +
                                      "; exporting it on " + device_name(rt, target) +
                                      " needs a copy, and copy is TSR_DLPACK_COPY_NEVER");
      if (other) rt->registry.require_device(target);
      autograd::GradModeGuard no_grad(false);  // the copy is data for another library, not a recorded result
      x = other ? to(x, src.dtype, target) : clone(src);
      flags |= TSR_DLPACK_FLAG_IS_COPIED;
      // A copy between devices may still be queued on the source's device.
      if (other) sync(rt, src.device, "tsr_to_dlpack_versioned");
    }
    const tsr_dlpack_device dl_dev = dl_device_of(rt, target);
    if (o.synchronize || (flags & TSR_DLPACK_FLAG_IS_COPIED) != 0) sync(rt, target, "tsr_to_dlpack_versioned");

    const int32_t n = x->layout.ndim;
    void* block = std::malloc(sizeof(tsr_dlpack_versioned) + 2 * static_cast<size_t>(n) * sizeof(int64_t));
    if (block == nullptr) fail(TSR_ERR_OUT_OF_MEMORY, "tsr_to_dlpack_versioned: out of host memory");
    auto* m = static_cast<tsr_dlpack_versioned*>(block);
    auto* dims = reinterpret_cast<int64_t*>(m + 1);  // 80 bytes in: aligned for int64_t
    std::memset(m, 0, sizeof *m);
    for (int32_t i = 0; i < n; ++i) {
      dims[i] = x->layout.shape[static_cast<size_t>(i)];
      dims[n + i] = x->layout.strides[static_cast<size_t>(i)];
    }
    m->version = {TSR_DLPACK_MAJOR_VERSION, TSR_DLPACK_MINOR_VERSION};
    m->flags = flags;
    tsr_dlpack_tensor& dl = m->dl_tensor;
    char* base = static_cast<char*>(x->storage->data);
    // The data pointer includes the view's offset (byte_offset 0), as PyTorch exports.
    dl.data = base == nullptr ? nullptr : base + x->layout.offset * static_cast<int64_t>(tsr_dtype_size(x->dtype));
    dl.device = dl_dev;
    dl.ndim = n;
    dl.dtype = {kToDL[x->dtype].code, kToDL[x->dtype].bits, 1};
    dl.shape = dims;
    dl.strides = dims + n;
    dl.byte_offset = 0;
    m->manager_ctx = x.release();
    m->deleter = export_deleter;
    *out = m;
  });
}

tsr_status tsr_from_dlpack_versioned(tsr_runtime* rt, tsr_dlpack_versioned* managed, tsr_tensor** out) {
  ManagedGuard owner{managed};  // ours from here on: deleted on failure, or after a copy
  return guard([&] {
    if (out != nullptr) *out = nullptr;
    require_out(out);
    require(rt, "runtime");
    require(managed, "the managed tensor");
    constexpr const char* fn = "tsr_from_dlpack_versioned";
    if (managed->version.major != TSR_DLPACK_MAJOR_VERSION)
      fail(TSR_ERR_UNSUPPORTED, std::string(fn) + ": DLPack version " + std::to_string(managed->version.major) + "." +
                                    std::to_string(managed->version.minor) +
                                    " is not supported: tessera imports DLPack 1.x (major version 1)");
    const tsr_dlpack_tensor& dl = managed->dl_tensor;
    if (dl.ndim < 0 || dl.ndim > TSR_MAX_DIMS)
      fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": the DLPack tensor has " + std::to_string(dl.ndim) +
                                         " dims; tensors have 0 to " + std::to_string(TSR_MAX_DIMS) +
                                         " (TSR_MAX_DIMS)");
    const int32_t n = dl.ndim;
    if (n > 0 && dl.shape == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": the DLPack shape is NULL");
    for (int32_t i = 0; i < n; ++i)
      if (dl.shape[i] < 0)
        fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": the DLPack shape has size " +
                                           std::to_string(dl.shape[i]) + " at dim " + std::to_string(i));
    const tsr_dtype dtype = from_dl(dl.dtype);
    if (dtype == TSR_DTYPE_UNDEFINED)
      fail(TSR_ERR_UNSUPPORTED, std::string(fn) + ": unsupported DLPack dtype (code " + std::to_string(dl.dtype.code) +
                                    ", bits " + std::to_string(dl.dtype.bits) + ", lanes " +
                                    std::to_string(dl.dtype.lanes) + ")");
    tsr_device device{};
    if (dl.device.device_type == TSR_DLPACK_DEVICE_CPU) {
      device = {TSR_DEVICE_CPU, 0};
    } else if (dl.device.device_type == TSR_DLPACK_DEVICE_CUDA) {
      device = {TSR_DEVICE_CUDA, dl.device.device_id};
    } else {
      fail(TSR_ERR_UNSUPPORTED, std::string(fn) + ": DLPack device type " + std::to_string(dl.device.device_type) +
                                    " is not supported: tessera imports kDLCPU (1) and kDLCUDA (2) memory");
    }
    const int64_t elem = static_cast<int64_t>(tsr_dtype_size(dtype));
    const uintptr_t address = reinterpret_cast<uintptr_t>(dl.data) + static_cast<uintptr_t>(dl.byte_offset);
    if (address % static_cast<uintptr_t>(elem) != 0)
      fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": the DLPack data address (data + byte_offset) is not " +
                                         "aligned to the " + std::to_string(elem) + "-byte elements of " +
                                         tsr_dtype_name(dtype));
    bool empty = false;
    for (int32_t i = 0; i < n; ++i) empty = empty || dl.shape[i] == 0;
    // Negative strides: read through the reversed dims, flipped back into a copy (Note [Negative steps]).
    int64_t strides[TSR_MAX_DIMS];
    std::vector<int64_t> flipped;
    char* base = reinterpret_cast<char*>(address);
    if (dl.strides != nullptr) {
      for (int32_t i = 0; i < n; ++i) {
        int64_t s = dl.strides[i];
        if (s < 0) {
          if (s == INT64_MIN)
            fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": the DLPack stride at dim " + std::to_string(i) +
                                               " overflows");
          if (!empty && dl.shape[i] > 1) {
            int64_t back = 0;
            if (__builtin_mul_overflow(dl.shape[i] - 1, -s, &back) || __builtin_mul_overflow(back, elem, &back))
              fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + ": the DLPack strides overflow 64-bit offsets");
            base -= back;
            flipped.push_back(i);
          }
          s = -s;
        }
        strides[i] = s;
      }
    }
    const bool read_only = (managed->flags & TSR_DLPACK_FLAG_READ_ONLY) != 0;
    const int64_t* strides_arg = dl.strides != nullptr ? strides : nullptr;
    if (!read_only && flipped.empty()) {
      // Zero copy: tsr_from_external owns the managed tensor from here (its deleter runs also when it fails).
      tsr_tensor* t = nullptr;
      const tsr_status st = tsr_from_external(rt, base, n, dl.shape, strides_arg, 0, dtype, device, import_deleter,
                                              std::exchange(owner.m, nullptr), &t);
      if (st != TSR_OK) fail(st, std::string(fn) + ": " + last_error_message());
      *out = t;
      return;
    }
    // A copy (Note [Importing DLPack 1.x]): the producer's memory borrowed for the call only.
    tsr_tensor* borrowed = nullptr;
    const tsr_status st =
        tsr_from_external(rt, base, n, dl.shape, strides_arg, 0, dtype, device, nullptr, nullptr, &borrowed);
    if (st != TSR_OK) fail(st, std::string(fn) + ": " + last_error_message());
    TensorRef view(borrowed);
    TensorRef copy;
    {
      autograd::GradModeGuard no_grad(false);
      copy = flipped.empty() ? clone(*view) : flip(*view, flipped);
    }
    view.reset();
    sync(rt, device, fn);  // the copy has read the memory before the producer's deleter runs
    hand_out(std::move(copy), out);
  });
}

}  // extern "C"
