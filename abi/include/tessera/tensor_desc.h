/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/tensor_desc.h — the record a kernel reads a tensor through.
 *
 * Shaped like DLPack's DLTensor, self-contained so that no allocation is
 * needed per op: element (i_0 .. i_{ndim-1}) lives at
 *
 *     (char*)data + (offset + sum_j i_j * strides[j]) * tsr_dtype_size(dtype)
 *
 * Units: offset and strides are in ELEMENTS, never bytes. Strides may be 0
 * (expanded/broadcast dims, read-only) and, for descriptors built by the
 * runtime, are never negative. A dim of size 0 makes the tensor empty; ndim 0
 * is a scalar with one element.
 *
 * Ownership: `data` is the storage's base address on `device`, owned by the
 * storage (and so by the plugin that allocated it); the descriptor only
 * borrows it for the duration of the call it is passed to. A descriptor
 * itself is owned by its writer and valid for that call only.
 */
#ifndef TESSERA_TENSOR_DESC_H
#define TESSERA_TENSOR_DESC_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/device.h"
#include "tessera/dtype.h"
#include "tessera/status.h"

/* The most dims a tensor may have. Asking for more is TSR_ERR_INVALID_ARGUMENT.
 * It is fixed for ABI major 1: tsr_tensor_desc below holds shape and strides
 * in arrays of this size, so raising it would change the struct every
 * plugin reads, not append to it. The Array API's
 * __array_namespace_info__().capabilities()["max dimensions"] states it. */
#define TSR_MAX_DIMS 16

typedef struct tsr_tensor_desc {
  size_t struct_size;             /* TSR_TENSOR_DESC_STRUCT_SIZE */
  void* data;                     /* storage base on `device`; borrowed */
  int64_t offset;                 /* storage offset, in elements */
  int32_t ndim;                   /* 0 .. TSR_MAX_DIMS */
  int32_t dtype;                  /* a tsr_dtype */
  tsr_device device;              /* where `data` lives */
  int64_t shape[TSR_MAX_DIMS];    /* sizes; entries >= ndim are unspecified */
  int64_t strides[TSR_MAX_DIMS];  /* in elements; entries >= ndim are unspecified */
} tsr_tensor_desc;

#define TSR_TENSOR_DESC_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_tensor_desc, strides)

#endif /* TESSERA_TENSOR_DESC_H */
