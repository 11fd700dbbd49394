/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/safetensors.h — weights on disk (public API, since ABI 1.10).
 *
 * Included by tessera.h. Named tensors saved to and loaded from files in
 * Hugging Face's safetensors format, which PyTorch, JAX, candle and others
 * read:
 *
 *   8 bytes   N, the header's length, an unsigned little-endian integer
 *   N bytes   UTF-8 JSON: an object mapping each tensor's name to
 *             {"dtype": "F32", "shape": [2, 3], "data_offsets": [b, e]},
 *             plus an optional "__metadata__" object of strings to strings
 *   the rest  the data buffer: each tensor's elements, row-major and
 *             little-endian, at bytes [b, e) of the buffer
 *
 * dtypes: BOOL U8 I8 I16 U16 I32 U32 I64 U64 F16 BF16 F32 F64, one Tessera
 * dtype each. complex64 and complex128 have no safetensors dtype and are
 * refused on save; F8_* and any other dtype are refused on load. Both
 * refusals are TSR_ERR_TYPE naming the tensor.
 *
 * Writing (tsr_safetensors_save) follows the reference writer: the header
 * is padded with spaces to a multiple of 8 bytes, "__metadata__" comes
 * first, and the data is ordered by decreasing element size (the caller's
 * order within one size), so that every tensor's data starts at a multiple
 * of its element size in the file. The file is written to a temporary file
 * in the destination's directory and renamed over the destination only
 * when complete and flushed: a failure leaves the destination as it was.
 *
 * Reading (tsr_safetensors_open) reads and checks the whole file before it
 * hands anything out, as the reference reader does and more: a header
 * length within the file and at most 100,000,000 bytes, JSON that starts
 * with '{' (trailing whitespace allowed), no key written twice, each
 * tensor's dtype, shape (at most TSR_MAX_DIMS non-negative integers) and
 * data_offsets (two integers, end - begin = numel * element size, computed
 * without overflow), and offsets that, in order, tile the data buffer
 * exactly: no gap, no overlap, nothing left over at the end; BOOL bytes are
 * 0 or 1. Unknown keys inside a tensor's entry are ignored, as the
 * reference reader ignores them. Any failure is TSR_ERR_INVALID_ARGUMENT
 * (TSR_ERR_TYPE for a dtype) with a message that starts with the path and
 * names what is wrong and where: "model.safetensors: tensor 'w'
 * data_offsets [0, 12] out of range of the 8-byte data buffer". A file that
 * cannot be opened, read or written is TSR_ERR_INVALID_ARGUMENT naming the
 * path and the system's reason.
 *
 * Ownership: strings passed in are borrowed for the call (UTF-8, NUL
 * terminated); tensors passed in are borrowed. A tsr_safetensors holds a
 * copy of the file's bytes in host memory until tsr_safetensors_free; the
 * strings it returns live as long as it. tsr_safetensors_get hands out a
 * new tensor (one reference, end it with tsr_tensor_release) that owns its
 * own memory, independent of the collection.
 *
 * Threads: a tsr_safetensors is read-only after opening; any number of
 * threads may call its getters at once.
 */
#ifndef TESSERA_SAFETENSORS_H
#define TESSERA_SAFETENSORS_H

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
/* An opened, checked file: its tensors' names, dtypes, shapes and bytes,
 * and its metadata. */
typedef struct tsr_safetensors tsr_safetensors;

/* ---- saving ---------------------------------------------------------------- */

/* Writes `count` tensors (count >= 0) under `names` to `path`. Each tensor
 * may live on any device and be any view (it is copied to the host and
 * written row-major); names must be distinct, not "__metadata__", valid
 * UTF-8. metadata_count (>= 0) pairs of metadata_keys/metadata_values,
 * distinct keys, go into "__metadata__" (none when 0; the arrays may then
 * be NULL). Replaces an existing file at `path` atomically. */
TSR_API tsr_status tsr_safetensors_save(const char* path, int64_t count, const char* const* names,
                                        struct tsr_tensor* const* tensors, int64_t metadata_count,
                                        const char* const* metadata_keys, const char* const* metadata_values);

/* ---- loading --------------------------------------------------------------- */

/* Reads and checks the file at `path`; *out gets the collection, whose
 * tensors tsr_safetensors_get makes in `rt` (which must outlive every get
 * call; the collection itself holds no tensor). On failure *out is NULL. */
TSR_API tsr_status tsr_safetensors_open(struct tsr_runtime* rt, const char* path, tsr_safetensors** out);
/* The same from `nbytes` bytes at `data` (copied; borrowed for the call),
 * a whole file's contents; `label` (may be NULL: "<memory>") stands for the
 * path in messages. */
TSR_API tsr_status tsr_safetensors_open_memory(struct tsr_runtime* rt, const void* data, size_t nbytes,
                                               const char* label, tsr_safetensors** out);
/* Frees the collection and its bytes; NULL is a no-op. Tensors handed out
 * stay valid. */
TSR_API void tsr_safetensors_free(tsr_safetensors* st);

/* How many tensors the file holds (0 for NULL). */
TSR_API int64_t tsr_safetensors_count(const tsr_safetensors* st);
/* The name of tensor i, 0 <= i < count, in the order of their data in the
 * file; NULL when i is out of range. Lives as long as st. */
TSR_API const char* tsr_safetensors_name_at(const tsr_safetensors* st, int64_t i);
/* The index of the tensor called `name`, or -1 when there is none. */
TSR_API int64_t tsr_safetensors_find(const tsr_safetensors* st, const char* name);
/* Tensor i's dtype and shape without making it: *dtype, *ndim, and
 * shape[0 .. ndim) (shape holds TSR_MAX_DIMS entries; any out-pointer may
 * be NULL). TSR_ERR_INDEX when i is out of range. */
TSR_API tsr_status tsr_safetensors_info(const tsr_safetensors* st, int64_t i, int32_t* dtype, int32_t* ndim,
                                        int64_t* shape);
/* A new tensor holding tensor `name`'s values on `device`: contiguous, the
 * file's dtype and shape. TSR_ERR_INDEX naming the file when it has no
 * tensor called `name`. */
TSR_API tsr_status tsr_safetensors_get(tsr_safetensors* st, const char* name, tsr_device device,
                                       struct tsr_tensor** out);

/* How many "__metadata__" entries the file has; their keys, in the file's
 * order, by index (NULL out of range); and the value of `key` (NULL when
 * absent). The strings live as long as st. */
TSR_API int64_t tsr_safetensors_metadata_count(const tsr_safetensors* st);
TSR_API const char* tsr_safetensors_metadata_key_at(const tsr_safetensors* st, int64_t i);
TSR_API const char* tsr_safetensors_metadata_get(const tsr_safetensors* st, const char* key);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_SAFETENSORS_H */
