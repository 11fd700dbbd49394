/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/dlpack_exchange.h — DLPack 1.x exchange (public API, since ABI 1.11).
 *
 * Included by tessera.h. Tensors handed to and taken from other libraries
 * (PyTorch >= 2.3, NumPy >= 2.1, CuPy, JAX, ...) as DLPack's versioned
 * managed tensor, DLManagedTensorVersioned. The types below are declared
 * here under tessera names, written from the DLPack 1.1 specification
 * (dlpack.h of dmlc/dlpack v1.1, https://dmlc.github.io/dlpack/latest/
 * c_api.html); they are layout-compatible with it, field for field, so a
 * pointer to one is a pointer to the other. They are frozen foreign
 * layouts: no struct_size, never appended to (DLPack changes them only
 * with a new major version). Tessera does not need <dlpack/dlpack.h>, and a
 * program may include both.
 *
 * Who owns what (as in dlpack.h):
 *   A tsr_dlpack_versioned is owned by whoever holds it last: the producer
 *   makes it and hands it over; the consumer reads dl_tensor and, when it is
 *   done with the memory, calls `deleter(self)` exactly once (unless the
 *   deleter is NULL), which frees the struct, its shape and strides, and
 *   releases what manager_ctx holds. After that nothing in it may be read.
 *   The memory dl_tensor.data points at stays valid until then.
 *
 * Export (tsr_to_dlpack_versioned): one malloc'd block holds the struct,
 *   its shape and its strides; manager_ctx holds one reference on the
 *   exported tensor (or on its copy), which keeps the storage alive until
 *   the consumer calls the deleter. The deleter may run on any thread,
 *   before or after the tensor's other handles are released, but before
 *   tsr_runtime_destroy (a reference it holds keeps the runtime from being
 *   destroyed, as any tensor does). dl_tensor.data includes the view's
 *   offset (byte_offset is 0); strides are in elements, never negative
 *   (Note [Negative steps] in tessera/ops.h), never NULL. dtypes: bool as
 *   kDLBool (6) of 8 bits, the unsigned integers as kDLUInt, bfloat16 as
 *   kDLBfloat, complex64/complex128 as kDLComplex of 64/128 bits (one
 *   (real, imaginary) pair per element), the rest as kDLInt / kDLFloat; one
 *   lane. Devices: the cpu, and any device whose memory the host can
 *   address, is (kDLCPU, 0); cuda:N is (kDLCUDA, N); a plugin device whose
 *   memory the host cannot address has no DLPack device and is refused
 *   (TSR_ERR_UNSUPPORTED) unless exported to the cpu by a copy.
 *
 * Import (tsr_from_dlpack_versioned): Note [Importing DLPack 1.x] below.
 *
 * Threads: both functions may run on any thread, as the rest of the API.
 */
#ifndef TESSERA_DLPACK_EXCHANGE_H
#define TESSERA_DLPACK_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/device.h"
#include "tessera/export.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tsr_runtime;
struct tsr_tensor;

/* The DLPack version Tessera writes into what it exports, and the only
 * major version it imports (any minor of it). */
#define TSR_DLPACK_MAJOR_VERSION 1
#define TSR_DLPACK_MINOR_VERSION 0

/* tsr_dlpack_versioned.flags (DLPACK_FLAG_BITMASK_*). */
#define TSR_DLPACK_FLAG_READ_ONLY ((uint64_t)1 << 0) /* the consumer must not write the memory */
#define TSR_DLPACK_FLAG_IS_COPIED ((uint64_t)1 << 1) /* a copy made for the consumer alone */

/* DLDeviceType values Tessera reads or writes. */
#define TSR_DLPACK_DEVICE_CPU 1
#define TSR_DLPACK_DEVICE_CUDA 2
#define TSR_DLPACK_DEVICE_EXT 12 /* kDLExtDev: "another device", never exported */

/* DLDataTypeCode values. */
#define TSR_DLPACK_INT 0
#define TSR_DLPACK_UINT 1
#define TSR_DLPACK_FLOAT 2
#define TSR_DLPACK_BFLOAT 4
#define TSR_DLPACK_COMPLEX 5
#define TSR_DLPACK_BOOL 6

/* DLPackVersion. */
typedef struct tsr_dlpack_version {
  uint32_t major;
  uint32_t minor;
} tsr_dlpack_version;

/* DLDevice: device_type is DLPack's enum DLDeviceType (an int). */
typedef struct tsr_dlpack_device {
  int32_t device_type; /* TSR_DLPACK_DEVICE_* */
  int32_t device_id;   /* the device's ordinal; 0 for kDLCPU */
} tsr_dlpack_device;

/* DLDataType. */
typedef struct tsr_dlpack_dtype {
  uint8_t code;   /* TSR_DLPACK_INT .. TSR_DLPACK_BOOL */
  uint8_t bits;   /* bits per lane: 8, 16, 32, 64, 128 */
  uint16_t lanes; /* 1 (vector types are not exchanged) */
} tsr_dlpack_dtype;

/* DLTensor. */
typedef struct tsr_dlpack_tensor {
  void* data;                /* the memory on `device`; NULL allowed when there are no elements */
  tsr_dlpack_device device;
  int32_t ndim;              /* 0 .. TSR_MAX_DIMS on import */
  tsr_dlpack_dtype dtype;
  int64_t* shape;            /* ndim sizes; owned by the managed tensor */
  int64_t* strides;          /* ndim strides in elements; NULL: row-major; owned by the managed tensor */
  uint64_t byte_offset;      /* bytes from data to the first element */
} tsr_dlpack_tensor;

/* DLManagedTensorVersioned. */
typedef struct tsr_dlpack_versioned {
  tsr_dlpack_version version; /* TSR_DLPACK_MAJOR_VERSION.TSR_DLPACK_MINOR_VERSION on export */
  void* manager_ctx;          /* the producer's; Tessera's export: a tsr_tensor reference */
  /* Frees this struct and releases manager_ctx; called once by the
   * consumer. May be NULL (nothing to release). */
  void (*deleter)(struct tsr_dlpack_versioned* self);
  uint64_t flags;             /* TSR_DLPACK_FLAG_* */
  tsr_dlpack_tensor dl_tensor;
} tsr_dlpack_versioned;

/* ---- export ---------------------------------------------------------------- */

/* tsr_dlpack_options.copy: the Array API's copy=None / True / False. */
typedef enum tsr_dlpack_copy {
  TSR_DLPACK_COPY_IF_NEEDED = 0, /* share the memory; copy only for another device */
  TSR_DLPACK_COPY_ALWAYS = 1,    /* export a copy (flag IS_COPIED) */
  TSR_DLPACK_COPY_NEVER = 2      /* share, or fail with TSR_ERR_UNSUPPORTED when a copy would be needed */
} tsr_dlpack_copy;

/* The options of tsr_to_dlpack_versioned. Start from TSR_DLPACK_OPTIONS_INIT. */
typedef struct tsr_dlpack_options {
  size_t struct_size;  /* TSR_DLPACK_OPTIONS_STRUCT_SIZE */
  int32_t copy;        /* a tsr_dlpack_copy; default TSR_DLPACK_COPY_IF_NEEDED */
  /* Nonzero (default): wait for the device's queued work (tsr_synchronize)
   * before handing the memory over; 0: the caller orders the consumer's
   * reads after Tessera's writes itself (DLPack's stream -1). */
  int32_t synchronize;
  /* Flags the export carries besides the IS_COPIED Tessera sets: 0, or
   * TSR_DLPACK_FLAG_READ_ONLY to tell the consumer not to write. */
  uint64_t flags;
  /* Nonzero: export on `device` rather than the tensor's own (a copy unless
   * it is the same device; the Array API's dl_device). */
  int32_t to_device;
  tsr_device device;
} tsr_dlpack_options;

#define TSR_DLPACK_OPTIONS_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_dlpack_options, device)
#define TSR_DLPACK_OPTIONS_INIT \
  {TSR_DLPACK_OPTIONS_STRUCT_SIZE, TSR_DLPACK_COPY_IF_NEEDED, 1, 0, 0, {0, 0}}

/* Exports t (a view of any layout and dtype) as a new DLPack 1.x managed
 * tensor over its memory, or over a copy (options->copy, a device other
 * than t's). options NULL: TSR_DLPACK_OPTIONS_INIT's. *out is the caller's
 * to hand to a consumer, whose deleter call ends it (see the ownership
 * rules above); t is borrowed for the call. Fails with TSR_ERR_UNSUPPORTED
 * for a device DLPack cannot name (a plugin device the host cannot
 * address) and for COPY_NEVER when a copy would be needed. */
TSR_API tsr_status tsr_to_dlpack_versioned(struct tsr_tensor* t, const tsr_dlpack_options* options,
                                           tsr_dlpack_versioned** out);

/* ---- import ---------------------------------------------------------------- */

/* Note [Importing DLPack 1.x]
 *   tsr_from_dlpack_versioned(rt, managed, out) takes `managed` over from
 *   the call on: on success the tensor's storage calls managed->deleter
 *   once its last view goes, or, when the import copied, before the call
 *   returns; on failure the deleter has run before the call returns. Only
 *   managed == NULL (TSR_ERR_INVALID_ARGUMENT) leaves nothing to delete.
 *   Checks, each a clear error naming what is wrong:
 *     - version.major must be TSR_DLPACK_MAJOR_VERSION (1): another major
 *       may lay out the fields after the deleter differently, so nothing
 *       but version and deleter is read (TSR_ERR_UNSUPPORTED); any minor
 *       of major 1 is accepted;
 *     - dl_tensor: 0 <= ndim <= TSR_MAX_DIMS, shape not NULL when ndim > 0,
 *       sizes >= 0 (TSR_ERR_INVALID_ARGUMENT); one lane of a dtype Tessera
 *       has (TSR_ERR_UNSUPPORTED); kDLCPU or kDLCUDA memory of a device the
 *       runtime has (TSR_ERR_UNSUPPORTED otherwise); data + byte_offset
 *       aligned to the element size (TSR_ERR_INVALID_ARGUMENT).
 *   Zero copy: the tensor views the producer's memory (writes on either
 *   side are seen by the other), except in two cases, which copy into new
 *   memory on the same device, wait for the copy (tsr_synchronize), then
 *   call the deleter:
 *     - negative strides: Tessera's views never have them (Note [Negative
 *       steps] in tessera/ops.h), so the import reads the memory through
 *       a view with the dims reversed and flips them back into a copy, as
 *       a negative step is a copy everywhere else;
 *     - TSR_DLPACK_FLAG_READ_ONLY: Tessera tensors have no read-only
 *       state (every op with out= or in place writes), so a read-only
 *       capsule is imported by copying. The producer's memory can never
 *       be written through Tessera; the copy is the caller's, writable.
 *   The caller of a copying import sees a tensor whose memory is its own
 *   (what DLPACK_FLAG_BITMASK_IS_COPIED means for an export).
 *   No synchronisation with the producer happens here: as DLPack's C
 *   exchange has no stream, the producer must have finished writing (the
 *   Python binding waits for a CUDA producer first: Note [DLPack streams]
 *   in bindings/python/tessera/_dlpack.py). */
TSR_API tsr_status tsr_from_dlpack_versioned(struct tsr_runtime* rt, tsr_dlpack_versioned* managed,
                                             struct tsr_tensor** out);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_DLPACK_EXCHANGE_H */
