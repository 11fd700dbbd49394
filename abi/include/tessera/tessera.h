/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/tessera.h — the runtime's public C API (libtessera.so).
 *
 * Objects:
 *   tsr_runtime  one loaded configuration: plugins, devices, the registry,
 *                the random generator and print options. Created by
 *                tsr_runtime_create, ended by tsr_runtime_destroy (the
 *                explicit shutdown: plugins are unloaded there, never before).
 *   tsr_tensor   a handle to one view record (shape, strides, offset, dtype,
 *                device) over a reference-counted storage. Every function
 *                that returns a tensor through `tsr_tensor** out` gives the
 *                caller one reference, which it ends with tsr_tensor_release.
 *                A view holds its storage alive; the storage is freed when
 *                the last view goes. All tensors must be released before
 *                their runtime is destroyed (a tensor that outlives it is a
 *                leak, reported at destroy).
 *
 * Errors: see Note [Errors are values] in tessera/status.h. After a failed
 * call, tsr_last_error_message() describes it on the same thread.
 *
 * Threading: a runtime and its tensors may be used from many threads at
 * once: any call may run concurrently with any other, except
 * tsr_runtime_destroy, which must come after every other call on that
 * runtime and its tensors has returned. Several runtimes may be created,
 * used and destroyed on different threads at once. A handle's record never
 * changes after creation (views are new handles), so reading metadata
 * concurrently is safe. Reference counts are atomic: threads may retain and
 * release one handle at once, but a thread may use a handle only while a
 * reference keeps it alive (release the last one only after the other
 * threads are done with it). Writes into a storage (in-place ops, copy_,
 * fill_) concurrent with reads or writes of the same elements from another
 * thread are a data race the caller must avoid, as in PyTorch; threads may
 * write disjoint elements of one storage at once. The error message is per
 * thread. manual_seed and print options are per runtime and atomic;
 * concurrent rand/randn calls never draw the same numbers, but which thread
 * gets which depends on their order, so only draws made in a fixed order
 * repeat after manual_seed.
 *
 * Units: sizes and indices are element counts; strides and storage offsets
 * are in elements; byte counts say "bytes".
 */
#ifndef TESSERA_TESSERA_H
#define TESSERA_TESSERA_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/autograd.h"
#include "tessera/device.h"
#include "tessera/distributed.h"
#include "tessera/dlpack_exchange.h"
#include "tessera/dtype.h"
#include "tessera/fft.h"
#include "tessera/nn.h"
#include "tessera/optim.h"
#include "tessera/export.h"
#include "tessera/ops.h"
#include "tessera/plugin.h"
#include "tessera/safetensors.h"
#include "tessera/scalar.h"
#include "tessera/status.h"
#include "tessera/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsr_runtime tsr_runtime;
typedef struct tsr_tensor tsr_tensor;

/* ---- errors ---------------------------------------------------------------- */

/* The calling thread's last error message ("" if none). Valid until the next
 * failing call on this thread. A successful call leaves it as it was: read
 * it only after a call returned a status other than TSR_OK. */
TSR_API const char* tsr_last_error_message(void);
/* The status of the calling thread's last failed call (TSR_OK if none). */
TSR_API tsr_status tsr_last_error_status(void);
/* Since ABI 1.4. Empties the calling thread's error slot: afterwards
 * tsr_last_error_status() is TSR_OK and the message "" until a call fails. */
TSR_API void tsr_clear_last_error(void);
/* A short constant name for a status ("TSR_ERR_SHAPE"). */
TSR_API const char* tsr_status_name(tsr_status status);
/* The runtime's TSR_ABI_VERSION (the library's, not the header's). An
 * application checks that it runs on a library of its own major with
 * TSR_VERSION_MAJOR(tsr_abi_version()) == TSR_ABI_VERSION_MAJOR; and
 * tsr_runtime_create refuses a caller of another major (see
 * tsr_runtime_options.abi_version). */
TSR_API uint32_t tsr_abi_version(void);

/* ---- facts for callers through an FFI (since ABI 1.4) -------------------- */
/* Exported twins of the header's inline helpers, for languages that bind
 * symbols rather than compile C (Rust, Fortran, Python's ctypes). */

/* Bytes per element of a dtype (tsr_dtype_size); 0 for an unknown value. */
TSR_API size_t tsr_dtype_itemsize(int32_t dtype);
/* "float32", "int64", ... (tsr_dtype_name); "?" for an unknown value. Static. */
TSR_API const char* tsr_dtype_get_name(int32_t dtype);
/* "add", "matmul", ... (tsr_op_name); "?" for an unknown value. Static. */
TSR_API const char* tsr_op_get_name(int32_t op);
/* How many ops this library knows (its TSR_OP_COUNT, which may exceed the
 * header's): the ops are 0 .. tsr_op_count() - 1, each named by
 * tsr_op_get_name. Since ABI 1.4. */
TSR_API int32_t tsr_op_count(void);
/* The structs of this header and of tensor_desc.h. */
typedef enum tsr_struct_kind {
  TSR_STRUCT_RUNTIME_OPTIONS = 0,
  TSR_STRUCT_MEMORY_STATS = 1,
  TSR_STRUCT_FINFO = 2,
  TSR_STRUCT_TENSOR_DESC = 3,
  TSR_STRUCT_SCALAR = 4, /* frozen: sizeof(tsr_scalar), 24 */
  TSR_STRUCT_DEVICE = 5, /* frozen: sizeof(tsr_device), 8 */
  TSR_STRUCT_REDUCE_OPTIONS = 6, /* since ABI 1.5 */
  TSR_STRUCT_SORT_OPTIONS = 7,   /* since ABI 1.5 */
  TSR_STRUCT_AUTOGRAD_OPTIONS = 8, /* tessera/autograd.h, since ABI 1.8 */
  TSR_STRUCT_LOSS_OPTIONS = 9,     /* tessera/nn.h, since ABI 1.10 */
  TSR_STRUCT_OPTIMIZER_OPTIONS = 10, /* tessera/optim.h, since ABI 1.10 */
  TSR_STRUCT_SEARCHSORTED_OPTIONS = 11, /* since ABI 1.11 */
  TSR_STRUCT_FFT_OPTIONS = 12,          /* tessera/fft.h, since ABI 1.11 */
  TSR_STRUCT_DLPACK_OPTIONS = 13        /* tessera/dlpack_exchange.h, since ABI 1.11 */
} tsr_struct_kind;
/* The size in bytes this library gives a struct (its TSR_*_STRUCT_SIZE, or
 * sizeof for the frozen ones); 0 for an unknown kind. A caller that lays a
 * struct out by hand compares its own size with this one. */
TSR_API size_t tsr_struct_size(int32_t kind);

/* ---- the runtime --------------------------------------------------------- */

typedef struct tsr_runtime_options {
  size_t struct_size;      /* TSR_RUNTIME_OPTIONS_STRUCT_SIZE */
  /* Config file path; NULL: $TESSERA_CONFIG, else the default config beside
   * the library (build tree or install tree). Borrowed for the call. */
  const char* config_path;
  /* Config text (JSON) used instead of a file when not NULL; relative
   * library paths then resolve against config_base_dir (or the current
   * directory). Borrowed for the call. */
  const char* config_json;
  const char* config_base_dir;
  /* 1: a plugin that fails to load makes tsr_runtime_create fail.
   * 0 (default): it is recorded (see tsr_runtime_describe) and skipped. */
  int32_t strict_plugins;
  int32_t reserved;        /* 0 */
  /* Since ABI 1.4: the TSR_ABI_VERSION the caller was compiled against
   * (TSR_RUNTIME_OPTIONS_INIT sets it). tsr_runtime_create refuses another
   * major with TSR_ERR_VERSION and a message naming both versions. 0, or a
   * struct_size from before 1.4: not stated (accepted). */
  uint32_t abi_version;
  uint32_t reserved2;      /* 0 */
} tsr_runtime_options;

#define TSR_RUNTIME_OPTIONS_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_runtime_options, reserved2)
/* Defaults, with this header's version:
 *     tsr_runtime_options o = TSR_RUNTIME_OPTIONS_INIT;  o.config_path = ...; */
#define TSR_RUNTIME_OPTIONS_INIT {TSR_RUNTIME_OPTIONS_STRUCT_SIZE, NULL, NULL, NULL, 0, 0, TSR_ABI_VERSION, 0}

/* Loads the config and its plugins. `options` may be NULL (defaults). A
 * config that cannot be read or parsed fails with TSR_ERR_CONFIG, naming the
 * file and the field as a JSON pointer. A plugin that fails to load does not
 * fail the call unless strict_plugins is set. A caller compiled against
 * another ABI major (options->abi_version) gets TSR_ERR_VERSION. */
TSR_API tsr_status tsr_runtime_create(const tsr_runtime_options* options, tsr_runtime** out);
/* The explicit shutdown: frees the registry and unloads every plugin. NULL
 * is a no-op (TSR_OK). When tensors of the runtime are still alive nothing is
 * freed: the runtime stays usable (release them, then call this again) and
 * the call returns TSR_ERR_INVALID_ARGUMENT with a message giving the
 * counts. Returned void before ABI 1.4; callers that ignore the status are
 * unaffected. */
TSR_API tsr_status tsr_runtime_destroy(tsr_runtime* rt);

/* What loaded, from where, with which version; what failed and why; the
 * devices and their properties. `json` != 0 gives a JSON document, else
 * text. *out is owned by the caller: free it with tsr_string_free. */
TSR_API tsr_status tsr_runtime_describe(tsr_runtime* rt, int32_t json, char** out);
TSR_API void tsr_string_free(char* s);

/* The config's default device, and whether it is available (1) or not (0);
 * `available` may be NULL. */
TSR_API tsr_status tsr_runtime_default_device(tsr_runtime* rt, tsr_device* out, int32_t* available);
/* Parses "cpu", "cpu:0", "cuda:1", an alias from the config, ... */
TSR_API tsr_status tsr_device_parse(tsr_runtime* rt, const char* text, tsr_device* out);
/* Writes "cpu" / "cuda:0" style text into buf (always NUL-terminated).
 * Returns the length it needs, excluding the NUL. */
TSR_API size_t tsr_device_format(tsr_runtime* rt, tsr_device device, char* buf, size_t buf_size);
/* How many devices are enabled and available, and the i-th of them. */
TSR_API int32_t tsr_runtime_device_count(tsr_runtime* rt);
TSR_API tsr_status tsr_runtime_device_at(tsr_runtime* rt, int32_t i, tsr_device* out);
/* 1 if `device`'s own plugin has a native kernel for (op, dtype); 0 when it
 * has none (the op may still run there through the CPU fallback, see
 * tsr_runtime_describe), the device is unknown or rt is NULL. */
TSR_API int32_t tsr_runtime_has_kernel(tsr_runtime* rt, tsr_device device, tsr_op op, tsr_dtype dtype);
/* Waits for all queued work on a device. */
TSR_API tsr_status tsr_synchronize(tsr_runtime* rt, tsr_device device);
/* Since ABI 1.4. 1 when the host may read and write the device's memory
 * through the pointers of its storages (tsr_tensor_storage_data) directly:
 * the cpu, and plugin devices whose properties say host_accessible; 0 for
 * device memory (cuda, arena), for an unknown device and for a NULL runtime.
 * Memory of a device that answers 0 must not be dereferenced by the host:
 * copy it out with tsr_read or tsr_copy_to_host. */
TSR_API int32_t tsr_device_is_host_accessible(tsr_runtime* rt, tsr_device device);

/* Since ABI 1.1. Returns the device's cached, unused memory to the system
 * (a no-op for plugins that keep no cache). Memory of live tensors stays. */
TSR_API tsr_status tsr_empty_cache(tsr_runtime* rt, tsr_device device);

/* Since ABI 1.1. Memory use of one device, in bytes. */
typedef struct tsr_memory_stats {
  size_t struct_size; /* set by the caller: TSR_MEMORY_STATS_STRUCT_SIZE */
  uint64_t in_use;    /* bytes in live allocations (PyTorch's memory_allocated) */
  uint64_t reserved;  /* bytes the plugin holds, in use or cached (memory_reserved) */
} tsr_memory_stats;
#define TSR_MEMORY_STATS_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_memory_stats, reserved)
/* Fills up to out->struct_size bytes. TSR_ERR_UNSUPPORTED when the device's
 * plugin does not report memory use (the message names the plugin). */
TSR_API tsr_status tsr_get_memory_stats(tsr_runtime* rt, tsr_device device, tsr_memory_stats* out);

/* Seeds the runtime's counter-based generator (Philox-4x32-10): rand and
 * randn then produce the same numbers on every device and thread count. */
TSR_API void tsr_manual_seed(tsr_runtime* rt, uint64_t seed);
/* Digits after the point when printing floating values (default 4). */
TSR_API tsr_status tsr_set_print_precision(tsr_runtime* rt, int32_t precision);

/* The internal precision of float32 matmuls (ABI 1.3), as PyTorch's
 * torch.set_float32_matmul_precision: HIGHEST (the default) computes in
 * float32; HIGH lets a plugin use TF32 tensor cores (inputs rounded to 10
 * mantissa bits, accumulation in float32) or its own similar mode; MEDIUM
 * also allows a bfloat16-based one, and is HIGH where there is none (as in
 * PyTorch, and in both plugins here). A plugin's config option "allow_tf32":
 * true allows TF32 for every matmul on that plugin whatever this says. Per
 * runtime; applies to matmuls launched after the call. Other values:
 * TSR_ERR_INVALID_ARGUMENT. Kernels see it as MATMUL's params[0] (ops.h). */
typedef enum tsr_matmul_precision {
  TSR_MATMUL_PRECISION_HIGHEST = 0,
  TSR_MATMUL_PRECISION_HIGH = 1,
  TSR_MATMUL_PRECISION_MEDIUM = 2
} tsr_matmul_precision;
TSR_API tsr_status tsr_set_float32_matmul_precision(tsr_runtime* rt, int32_t precision);
/* The current value; TSR_MATMUL_PRECISION_HIGHEST for a NULL runtime. */
TSR_API int32_t tsr_get_float32_matmul_precision(tsr_runtime* rt);

/* ---- creation ------------------------------------------------------------ */
/* `shape` points at `ndim` sizes (ndim 0: a scalar; shape may then be NULL).
 * Sizes must be >= 0 and their product must fit in int64 and in bytes. */

TSR_API tsr_status tsr_empty(tsr_runtime* rt, int32_t ndim, const int64_t* shape, tsr_dtype dtype,
                             tsr_device device, tsr_tensor** out);
TSR_API tsr_status tsr_zeros(tsr_runtime* rt, int32_t ndim, const int64_t* shape, tsr_dtype dtype,
                             tsr_device device, tsr_tensor** out);
TSR_API tsr_status tsr_ones(tsr_runtime* rt, int32_t ndim, const int64_t* shape, tsr_dtype dtype,
                            tsr_device device, tsr_tensor** out);
/* dtype TSR_DTYPE_UNDEFINED: from the scalar (float -> float32, int -> int64, bool -> bool). */
TSR_API tsr_status tsr_full(tsr_runtime* rt, int32_t ndim, const int64_t* shape, tsr_scalar value,
                            tsr_dtype dtype, tsr_device device, tsr_tensor** out);
/* Values start, start+step, ... below end (above, for a negative step).
 * dtype TSR_DTYPE_UNDEFINED: int64 if all three are ints, else float32. */
TSR_API tsr_status tsr_arange(tsr_runtime* rt, tsr_scalar start, tsr_scalar end, tsr_scalar step,
                              tsr_dtype dtype, tsr_device device, tsr_tensor** out);
/* `steps` evenly spaced values from start to end inclusive (float32 if UNDEFINED). */
TSR_API tsr_status tsr_linspace(tsr_runtime* rt, double start, double end, int64_t steps,
                                tsr_dtype dtype, tsr_device device, tsr_tensor** out);
/* Uniform on [0, 1) and standard normal; floating dtypes (float32 if UNDEFINED). */
TSR_API tsr_status tsr_rand(tsr_runtime* rt, int32_t ndim, const int64_t* shape, tsr_dtype dtype,
                            tsr_device device, tsr_tensor** out);
TSR_API tsr_status tsr_randn(tsr_runtime* rt, int32_t ndim, const int64_t* shape, tsr_dtype dtype,
                             tsr_device device, tsr_tensor** out);
/* Copies numel * element size bytes of row-major host data into a new
 * tensor on `device`. `data` is borrowed for the call. */
TSR_API tsr_status tsr_from_host(tsr_runtime* rt, const void* data, int32_t ndim, const int64_t* shape,
                                 tsr_dtype dtype, tsr_device device, tsr_tensor** out);

/* Called exactly once, when the last view of an external storage goes (or
 * when tsr_from_external fails after taking ownership, see below). */
typedef void (*tsr_deleter_fn)(void* deleter_ctx, void* data);

/* Wraps memory the caller owns, without a copy. `data` is the base address
 * on `device`, aligned to the dtype's size; `strides` (NULL: row-major) and
 * `offset` are in elements and must be >= 0. From the call on, the deleter
 * (may be NULL) owns `data`: it runs exactly once, also when this call
 * fails. */
TSR_API tsr_status tsr_from_external(tsr_runtime* rt, void* data, int32_t ndim, const int64_t* shape,
                                     const int64_t* strides, int64_t offset, tsr_dtype dtype,
                                     tsr_device device, tsr_deleter_fn deleter, void* deleter_ctx,
                                     tsr_tensor** out);

/* ---- handles and metadata ------------------------------------------------ */

TSR_API void tsr_tensor_retain(tsr_tensor* t);
TSR_API void tsr_tensor_release(tsr_tensor* t); /* NULL is a no-op */

/* Getters never fail on a valid handle. Pointers returned are owned by the
 * handle and valid while it lives. */
TSR_API tsr_runtime* tsr_tensor_runtime(const tsr_tensor* t);
TSR_API int32_t tsr_tensor_ndim(const tsr_tensor* t);
TSR_API const int64_t* tsr_tensor_shape(const tsr_tensor* t);
TSR_API const int64_t* tsr_tensor_strides(const tsr_tensor* t); /* in elements */
TSR_API int64_t tsr_tensor_storage_offset(const tsr_tensor* t); /* in elements */
TSR_API tsr_dtype tsr_tensor_dtype(const tsr_tensor* t);
TSR_API tsr_device tsr_tensor_device(const tsr_tensor* t);
TSR_API int64_t tsr_tensor_numel(const tsr_tensor* t);
TSR_API size_t tsr_tensor_element_size(const tsr_tensor* t); /* bytes */
TSR_API int32_t tsr_tensor_is_contiguous(const tsr_tensor* t);
/* The storage's base address on its device (PyTorch's
 * untyped_storage().data_ptr()); equal for two views of one storage. It is
 * an address the host may dereference only when
 * tsr_tensor_is_host_accessible(t) is 1; on other devices (cuda, arena) it is
 * the device's own address, or a token that means nothing to the host:
 * read such memory with tsr_read or tsr_copy_to_host. */
TSR_API void* tsr_tensor_storage_data(const tsr_tensor* t);
TSR_API size_t tsr_tensor_storage_nbytes(const tsr_tensor* t);
/* Since ABI 1.4: tsr_device_is_host_accessible for the tensor's device. */
TSR_API int32_t tsr_tensor_is_host_accessible(const tsr_tensor* t);
/* Fills a descriptor for DLPack-style export. The caller sets
 * out->struct_size (TSR_TENSOR_DESC_STRUCT_SIZE as it compiled it); the
 * library writes min(struct_size, its own size) bytes, so a caller built
 * before fields were appended keeps working; smaller than the fields up to
 * `data` is TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_tensor_describe(const tsr_tensor* t, tsr_tensor_desc* out);

/* ---- one element (since ABI 1.4) ----------------------------------------- */
/* The element at `index` (ndim indices, one per dim; negative ones count
 * from the end; ndim must equal the tensor's; index may be NULL for a 0-d
 * tensor). Reads through the device's copy slots where the host cannot
 * address the memory. get: *out as in tsr_item (FLOAT, INT or BOOL). set:
 * the value is cast to the tensor's dtype as tsr_fill_ casts, and the write
 * reaches every view of the storage. Out-of-range indices: TSR_ERR_INDEX,
 * naming the dim. */
TSR_API tsr_status tsr_tensor_get_item(tsr_tensor* t, int32_t ndim, const int64_t* index, tsr_scalar* out);
TSR_API tsr_status tsr_tensor_set_item(tsr_tensor* t, int32_t ndim, const int64_t* index, tsr_scalar value);

/* ---- views (no data moves) ------------------------------------------------ */

/* Sentinels for tsr_slice: an absent start or stop, as in x[::2]. */
#define TSR_SLICE_NONE INT64_MIN

TSR_API tsr_status tsr_view(tsr_tensor* t, int32_t ndim, const int64_t* shape, tsr_tensor** out);
/* A view when one exists, else a copy. One size may be -1 (also for view). */
TSR_API tsr_status tsr_reshape(tsr_tensor* t, int32_t ndim, const int64_t* shape, tsr_tensor** out);
TSR_API tsr_status tsr_transpose(tsr_tensor* t, int32_t dim0, int32_t dim1, tsr_tensor** out);
/* Since ABI 1.7: the real or imaginary part of a complex64 / complex128
 * tensor, a view of its storage in float32 / float64 (strides and offset
 * counted in the real dtype: twice the complex ones, the imaginary part one
 * further), as torch.real and torch.imag; writing through it writes the
 * complex tensor. tsr_real of a real tensor is a view of it; tsr_imag of one
 * is TSR_ERR_TYPE. The conjugate is tsr_math(TSR_MATH_CONJ, ...). */
TSR_API tsr_status tsr_real(tsr_tensor* t, tsr_tensor** out);
TSR_API tsr_status tsr_imag(tsr_tensor* t, tsr_tensor** out);
/* Since ABI 1.11: t's storage read as `dtype`, an element of the same size
 * (torch's Tensor.view(dtype) between dtypes of one itemsize: float32 as
 * int32, float64 as uint64, ...): a view of t's shape, strides and offset
 * whose elements are t's bytes. Another size: TSR_ERR_TYPE. */
TSR_API tsr_status tsr_view_dtype(tsr_tensor* t, tsr_dtype dtype, tsr_tensor** out);
/* x.T: reverses all dims (PyTorch 1.13's Tensor.T). */
TSR_API tsr_status tsr_t(tsr_tensor* t, tsr_tensor** out);
TSR_API tsr_status tsr_permute(tsr_tensor* t, int32_t ndim, const int32_t* dims, tsr_tensor** out);
/* x[start:stop:step] on `dim`; negative start/stop count from the end; step > 0. */
TSR_API tsr_status tsr_slice(tsr_tensor* t, int32_t dim, int64_t start, int64_t stop, int64_t step,
                             tsr_tensor** out);
/* x[..., index, ...]: removes `dim`; a negative index counts from the end. */
TSR_API tsr_status tsr_select(tsr_tensor* t, int32_t dim, int64_t index, tsr_tensor** out);
TSR_API tsr_status tsr_unsqueeze(tsr_tensor* t, int32_t dim, tsr_tensor** out);
/* Removes `dim` if its size is 1 (else returns the same view). */
TSR_API tsr_status tsr_squeeze(tsr_tensor* t, int32_t dim, tsr_tensor** out);
/* Removes every dim of size 1. */
TSR_API tsr_status tsr_squeeze_all(tsr_tensor* t, tsr_tensor** out);
/* Size -1 keeps a dim; new leading dims are allowed; stride 0 on expanded dims. */
TSR_API tsr_status tsr_expand(tsr_tensor* t, int32_t ndim, const int64_t* shape, tsr_tensor** out);
TSR_API tsr_status tsr_flatten(tsr_tensor* t, int32_t start_dim, int32_t end_dim, tsr_tensor** out);
/* A view with any shape, strides (>= 0, elements) and offset that stays inside the storage. */
TSR_API tsr_status tsr_as_strided(tsr_tensor* t, int32_t ndim, const int64_t* shape,
                                  const int64_t* strides, int64_t offset, tsr_tensor** out);
/* Since ABI 1.9: x.diagonal(offset, dim1, dim2), torch's: dims dim1 and
 * dim2 removed, the diagonal `offset` (> 0 above the main one, < 0 below)
 * of the matrices they held as a new last dim (empty when the offset is
 * past the matrix). */
TSR_API tsr_status tsr_diagonal(tsr_tensor* x, int64_t offset, int32_t dim1, int32_t dim2, tsr_tensor** out);

/* ---- copies ----------------------------------------------------------------- */

/* `t` itself (a new reference) when contiguous, else a row-major copy. */
TSR_API tsr_status tsr_contiguous(tsr_tensor* t, tsr_tensor** out);
/* A copy; keeps the strides of a dense (non-overlapping, gap-free) tensor. */
TSR_API tsr_status tsr_clone(tsr_tensor* t, tsr_tensor** out);
/* `t` itself when dtype and device already match, else a copy. */
TSR_API tsr_status tsr_to(tsr_tensor* t, tsr_dtype dtype, tsr_device device, tsr_tensor** out);
TSR_API tsr_status tsr_to_dtype(tsr_tensor* t, tsr_dtype dtype, tsr_tensor** out);
TSR_API tsr_status tsr_to_device(tsr_tensor* t, tsr_device device, tsr_tensor** out);

/* ---- ops ------------------------------------------------------------------ */

/* Binary ops (ADD .. GE) with broadcasting and PyTorch's type promotion. */
TSR_API tsr_status tsr_binary(tsr_op op, tsr_tensor* a, tsr_tensor* b, tsr_tensor** out);
/* A binary op with a Python-style scalar on the right (reversed = 0) or the
 * left (reversed = 1); the scalar promotes as a Python number does. */
TSR_API tsr_status tsr_binary_scalar(tsr_op op, tsr_tensor* a, tsr_scalar b, int32_t reversed,
                                     tsr_tensor** out);
/* In-place: a = a (op) b; the result must be castable to a's dtype and b must
 * broadcast to a's shape. Writes through views reach their base. A comparison
 * writes 1 or 0 in a's dtype (PyTorch's lt_, eq_, ...). */
TSR_API tsr_status tsr_binary_(tsr_op op, tsr_tensor* a, tsr_tensor* b);
TSR_API tsr_status tsr_binary_scalar_(tsr_op op, tsr_tensor* a, tsr_scalar b);
/* Unary ops (NEG .. TANH). Integer inputs to exp/log/sqrt/sigmoid/tanh give float32. */
TSR_API tsr_status tsr_unary(tsr_op op, tsr_tensor* a, tsr_tensor** out);
TSR_API tsr_status tsr_unary_(tsr_op op, tsr_tensor* a);
/* Into an existing tensor (ABI 1.2): out = a (op) b and out = op(a), as
 * PyTorch's and NumPy's out= forms. The inputs broadcast to out's shape, which
 * never changes (NumPy's rule: an output smaller than the broadcast shape is
 * an error); the result must be castable to out's dtype (comparisons give bool,
 * which casts to any dtype); all tensors on one device; out may not hold one
 * element twice (an expanded view). `out` is borrowed: it stays the caller's
 * reference, and its elements are written through to its storage. out may be
 * an input exactly; an input that shares memory with out in any other way is
 * read from a copy taken first, so the result is as if every input were read
 * before out is written. */
TSR_API tsr_status tsr_binary_out(tsr_op op, tsr_tensor* a, tsr_tensor* b, tsr_tensor* out);
TSR_API tsr_status tsr_binary_scalar_out(tsr_op op, tsr_tensor* a, tsr_scalar b, int32_t reversed,
                                         tsr_tensor* out);
TSR_API tsr_status tsr_unary_out(tsr_op op, tsr_tensor* a, tsr_tensor* out);
TSR_API tsr_status tsr_where(tsr_tensor* cond, tsr_tensor* a, tsr_tensor* b, tsr_tensor** out);
/* Reductions (ops of kind TSR_OP_KIND_REDUCE: SUM, MEAN, MAX, MIN, ARGMAX,
 * and since ABI 1.5 PROD, ARGMIN, VAR, STD) over `dims` (num_dims 0 or dims
 * NULL: all dims). ARGMAX and ARGMIN accept at most one dim. VAR and STD
 * use correction 1 here (tsr_reduce_ex takes another). */
TSR_API tsr_status tsr_reduce(tsr_op op, tsr_tensor* t, int32_t num_dims, const int32_t* dims,
                              int32_t keepdim, tsr_tensor** out);

/* Since ABI 1.5: the options of tsr_reduce_ex. Start from
 * TSR_REDUCE_OPTIONS_INIT and set what differs. */
typedef struct tsr_reduce_options {
  size_t struct_size;   /* TSR_REDUCE_OPTIONS_STRUCT_SIZE */
  /* The dims to reduce: num_dims entries of dims, each in [-ndim, ndim)
   * (negative counts from the end), no dim twice. num_dims 0 or dims NULL:
   * every dim. `dims` is borrowed for the call. */
  const int32_t* dims;
  int32_t num_dims;
  int32_t keepdim;      /* nonzero: reduced dims stay, with size 1 */
  /* VAR and STD: the squared deviations are summed and divided by
   * max(0, count - correction), as NumPy's ddof and the Array API's
   * correction (1 is Bessel's; 0 the population variance). >= 0. Ignored
   * by the other reductions. */
  double correction;
} tsr_reduce_options;

#define TSR_REDUCE_OPTIONS_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_reduce_options, correction)
#define TSR_REDUCE_OPTIONS_INIT {TSR_REDUCE_OPTIONS_STRUCT_SIZE, NULL, 0, 0, 1.0}

/* Since ABI 1.5: tsr_reduce with options (NULL: TSR_REDUCE_OPTIONS_INIT's).
 * A struct_size smaller than this header's reads the fields it covers. */
TSR_API tsr_status tsr_reduce_ex(tsr_op op, tsr_tensor* t, const tsr_reduce_options* options, tsr_tensor** out);

/* Since ABI 1.5: the elementwise function `fn` (enum tsr_math_fn,
 * tessera/ops.h: sin .. sign) of a, as the Array API defines it: floating
 * input keeps its dtype; integer input to floor, ceil, trunc, round and
 * sign keeps its dtype (the first four return a copy); the other
 * functions of an integer compute in float32; bool is refused. Complex
 * input (ABI 1.7) keeps its dtype; floor, ceil and trunc refuse it, and
 * conj (TSR_MATH_CONJ) of a real tensor is a copy. The result has a's dense
 * layout. */
TSR_API tsr_status tsr_math(int32_t fn, tsr_tensor* a, tsr_tensor** out);
/* tsr_math into an existing tensor of the result's shape (out= never
 * resizes; the result is cast to out's dtype where that is a safe cast, as
 * tsr_unary_out). out may be a itself. `out` is borrowed. */
TSR_API tsr_status tsr_math_out(int32_t fn, tsr_tensor* a, tsr_tensor* out);

/* ---- ops that move elements by index (since ABI 1.5) ----------------------
 * Results are new tensors the caller owns (one reference each); inputs are
 * borrowed. Index tensors are any integer dtype (converted to int64); an
 * index i addresses element i of its dim, and a negative one counts from
 * the end, as in Python: every index must be in [-n, n) for a dim of size
 * n (TSR_ERR_INDEX names the first one out of range). Those checks reduce
 * the index on its device and read two numbers back; nonzero reads its
 * count back, since the count decides the result's shape. 0-d inputs act
 * as 1-d ones of one element and give 0-d results. */

/* The cumulative sum along dim ([-ndim, ndim)). dtype TSR_DTYPE_UNDEFINED
 * sums t's dtype; another dtype casts t first (PyTorch's dtype=). The
 * result has SUM's dtype: uint64 for uint16, uint32 and uint64, int64 for
 * the other integers and bool, else t's. */
TSR_API tsr_status tsr_cumsum(tsr_tensor* t, int64_t dim, tsr_dtype dtype, tsr_tensor** out);
/* torch.gather: out[i..][j][k..] = x[i..][index[i..][j][k..]][k..] with j on
 * dim; index has x's ndim and, off dim, no larger sizes; out has index's
 * shape and x's dtype. */
TSR_API tsr_status tsr_gather(tsr_tensor* x, int64_t dim, tsr_tensor* index, tsr_tensor** out);
/* The Array API's take (PyTorch's index_select): x's elements at the 0-d or
 * 1-d `indices` along dim; out has x's shape with len(indices) on dim. */
TSR_API tsr_status tsr_take(tsr_tensor* x, tsr_tensor* indices, int64_t dim, tsr_tensor** out);
/* torch.Tensor.scatter_ (add 0) and scatter_add_ (add 1), in place on out:
 * out[i..][index[i..][j][k..]][k..] = (or +=) src[i..][j][k..] along dim.
 * index and src have out's ndim; index is no larger than src, nor than out
 * off dim. src is cast to out's dtype. Which of two stores to one element
 * wins is unspecified. scatter-add is refused for bool. */
TSR_API tsr_status tsr_scatter_(tsr_tensor* out, int64_t dim, tsr_tensor* index, tsr_tensor* src, int32_t add);
/* torch.nonzero: an int64 tensor of shape (count, ndim) holding, row by row
 * in row-major order, the index of each element that is not zero (NaN is
 * not zero, -0 is). */
TSR_API tsr_status tsr_nonzero(tsr_tensor* x, tsr_tensor** out);

/* The options of tsr_sort. Start from TSR_SORT_OPTIONS_INIT. */
typedef struct tsr_sort_options {
  size_t struct_size;  /* TSR_SORT_OPTIONS_STRUCT_SIZE */
  int64_t dim;         /* the dim to sort along, in [-ndim, ndim); default -1 (the last) */
  int32_t descending;  /* nonzero: largest first */
  int32_t stable;      /* nonzero: equal elements keep their order (the indices show it) */
} tsr_sort_options;

#define TSR_SORT_OPTIONS_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_sort_options, stable)
#define TSR_SORT_OPTIONS_INIT {TSR_SORT_OPTIONS_STRUCT_SIZE, -1, 0, 0}

/* torch.sort / the Array API's sort and argsort along options->dim (NULL:
 * TSR_SORT_OPTIONS_INIT's): *values gets the sorted values (x's dtype),
 * *indices the int64 indices that sort x; either pointer may be NULL when
 * that result is not wanted, not both. NaN sorts above every number (last
 * ascending, first descending); -0 and +0 are equal. */
TSR_API tsr_status tsr_sort(tsr_tensor* x, const tsr_sort_options* options, tsr_tensor** values,
                            tsr_tensor** indices);

/* The Array API's unique_all in one call: *values the distinct values of x,
 * sorted (every NaN distinct, -0 equal to +0); *indices (int64) the index in
 * flattened x of each one's first occurrence; *inverse (int64, x's shape)
 * each element's position in *values; *counts (int64) how often each
 * occurs. Any of the four pointers may be NULL when that result is not
 * wanted (unique_values, unique_counts, unique_inverse), not all. */
TSR_API tsr_status tsr_unique(tsr_tensor* x, tsr_tensor** values, tsr_tensor** indices, tsr_tensor** inverse,
                              tsr_tensor** counts);

/* ---- since ABI 1.11 ---- */

/* torch.clamp and the Array API's clip: min(max(x, min), max) elementwise,
 * min or max NULL for no bound (not both). The three broadcast and promote
 * as tsr_binary's operands (a 0-d bound as a number); NaN in x or a bound
 * gives NaN; min > max gives max. Complex and bool are TSR_ERR_TYPE. One
 * pass where the device has a CLAMP kernel (ops.h). */
TSR_API tsr_status tsr_clamp(tsr_tensor* x, tsr_tensor* min, tsr_tensor* max, tsr_tensor** out);

/* The cumulative product along dim ([-ndim, ndim)), as tsr_cumsum sums:
 * dtype TSR_DTYPE_UNDEFINED multiplies t's dtype, another casts t first;
 * the result has SUM's dtype (integers wrap in int64 or uint64). */
TSR_API tsr_status tsr_cumprod(tsr_tensor* t, int64_t dim, tsr_dtype dtype, tsr_tensor** out);

/* The options of tsr_searchsorted. Start from TSR_SEARCHSORTED_OPTIONS_INIT. */
typedef struct tsr_searchsorted_options {
  size_t struct_size; /* TSR_SEARCHSORTED_OPTIONS_STRUCT_SIZE */
  int32_t right;      /* 0: the first index i with v <= sorted[i] ("left"); 1: with v < sorted[i] ("right") */
  int32_t reserved;   /* 0 */
  /* Borrowed, may be NULL: int64 (or any integer dtype) indices of sorted's
   * shape that sort it along its last dim (torch's and NumPy's sorter);
   * sorted is then read through them. */
  tsr_tensor* sorter;
} tsr_searchsorted_options;

#define TSR_SEARCHSORTED_OPTIONS_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_searchsorted_options, sorter)
#define TSR_SEARCHSORTED_OPTIONS_INIT {TSR_SEARCHSORTED_OPTIONS_STRUCT_SIZE, 0, 0, NULL}

/* torch.searchsorted and the Array API's: for each element of values, the
 * index at which inserting it keeps sorted's last dim sorted: the number of
 * sorted's elements below it ("left"), or not above it ("right"). sorted is
 * ascending along its last dim (NaN last, as tsr_sort leaves it) and is
 * 1-d, or has values' ndim and values' leading dims (a row per line of
 * values). values may be 0-d with a 1-d sorted. The two are compared in
 * the dtype they promote to; the result is int64 of values' shape, on their
 * one device. Out of order input gives unspecified indices in [0, m]. */
TSR_API tsr_status tsr_searchsorted(tsr_tensor* sorted, tsr_tensor* values, const tsr_searchsorted_options* options,
                                    tsr_tensor** out);

/* ---- manipulation and creation built from views, copies and primitives
 * (since ABI 1.5). Results are new tensors; inputs are borrowed. */

/* The `count` tensors joined along dim (the Array API's concat, torch.cat):
 * one ndim (>= 1), equal sizes off dim, one device; the dtype they promote
 * to. `tensors` is an array of count borrowed handles. */
TSR_API tsr_status tsr_concat(tsr_tensor* const* tensors, int32_t count, int64_t dim, tsr_tensor** out);
/* The `count` tensors of one shape stacked along a new dim, in [-ndim-1, ndim]. */
TSR_API tsr_status tsr_stack(tsr_tensor* const* tensors, int32_t count, int64_t dim, tsr_tensor** out);
/* x's elements shifted along dims[i] by shifts[i] (count of each), wrapping
 * around; dims NULL: the flattened tensor shifted by shifts[0], in x's
 * shape (the Array API's roll). */
TSR_API tsr_status tsr_roll(tsr_tensor* x, int32_t count, const int64_t* shifts, const int64_t* dims,
                            tsr_tensor** out);
/* x with the order of each of the `count` dims reversed, as a copy (Tessera's
 * views keep non-negative strides: Note [Negative steps] in tessera/ops.h). */
TSR_API tsr_status tsr_flip(tsr_tensor* x, int32_t count, const int64_t* dims, tsr_tensor** out);
/* The lower (tril) or upper (triu) triangle of the last two dims from
 * diagonal k (0 the main one, > 0 above it); the rest zero. */
TSR_API tsr_status tsr_tril(tsr_tensor* x, int64_t k, tsr_tensor** out);
TSR_API tsr_status tsr_triu(tsr_tensor* x, int64_t k, tsr_tensor** out);
/* An n x m tensor with ones on diagonal k and zeros elsewhere (dtype
 * TSR_DTYPE_UNDEFINED: float32). */
TSR_API tsr_status tsr_eye(tsr_runtime* rt, int64_t n, int64_t m, int64_t k, tsr_dtype dtype, tsr_device device,
                           tsr_tensor** out);
/* PyTorch's matmul: 1-D and N-D operands, batch dims broadcast. */
TSR_API tsr_status tsr_matmul(tsr_tensor* a, tsr_tensor* b, tsr_tensor** out);
/* matmul into an existing tensor (ABI 1.2): out must have the result's shape
 * and dtype exactly (it is never resized); any layout without repeated
 * elements. `out` is borrowed, as in tsr_binary_out; inputs that share memory
 * with it are read from copies taken first. */
TSR_API tsr_status tsr_matmul_out(tsr_tensor* a, tsr_tensor* b, tsr_tensor* out);

/* ---- linear algebra (ABI 1.6) ---------------------------------------------
 * torch.linalg's functions on stacks of matrices: the last two dims are the
 * matrix, the others a batch. Inputs are float32, float64, complex64 or
 * complex128 (the complex two since ABI 1.7; the others are refused with
 * TSR_ERR_TYPE, as torch.linalg refuses them). For a complex matrix read
 * the transposes below as conjugate transposes (L L^H, V^H, Hermitian a),
 * as torch.linalg does. They run on the
 * input's device: its plugin's LINALG kernels, or the CPU fallback's LAPACK
 * (Note [Primitives] in tessera/ops.h). Errors name the batch element as
 * torch.linalg does ("linalg.inv: (Batch element 3): The diagonal element 2
 * is zero, the inversion could not be completed because the input matrix
 * is singular.", status TSR_ERR_LINALG); no function returns NaN in place
 * of an error. Results are
 * new tensors of the input's dtype unless stated; every out pointer is
 * required unless stated. */

/* The Cholesky factor of a symmetric positive-definite a: lower L with
 * a = L L^T, read from a's lower triangle; upper != 0: the upper factor
 * U = L^T, read from the upper triangle. */
TSR_API tsr_status tsr_linalg_cholesky(tsr_tensor* a, int32_t upper, tsr_tensor** out);
/* LU with partial pivoting, as torch.linalg.lu_factor: *lu packs L (unit
 * diagonal, below it) and U; *pivots (int32, [.., min(m, n)]) are LAPACK's
 * 1-based row interchanges. A zero on U's diagonal is an error, as there. */
TSR_API tsr_status tsr_linalg_lu_factor(tsr_tensor* a, tsr_tensor** lu, tsr_tensor** pivots);
/* x with a x = b for square a: b is [.., n, k], or a vector [n] (or a's
 * shape without its last dim: torch's vector case), x then a vector too;
 * the batch dims broadcast, and the dtypes promote (the Array API's rule;
 * torch refuses two dtypes). */
TSR_API tsr_status tsr_linalg_solve(tsr_tensor* a, tsr_tensor* b, tsr_tensor** out);
/* The inverse of square a (LINALG's INV: getrf and getri on the CPU). */
TSR_API tsr_status tsr_linalg_inv(tsr_tensor* a, tsr_tensor** out);
/* The determinant of square a (0 for a singular one), shape [..]. */
TSR_API tsr_status tsr_linalg_det(tsr_tensor* a, tsr_tensor** out);
/* sign and log|det| of square a, each of shape [..]: sign 0 and logabsdet
 * -inf for a singular matrix. Of a complex a, sign is det / |det| (complex,
 * of modulus 1) and logabsdet real (float32 for complex64), as torch's. */
TSR_API tsr_status tsr_linalg_slogdet(tsr_tensor* a, tsr_tensor** sign, tsr_tensor** logabsdet);
/* a = q r by Householder QR: complete == 0 ("reduced"): q [.., m, k], r
 * [.., k, n] with k = min(m, n); complete != 0: q [.., m, m], r [.., m, n]. */
TSR_API tsr_status tsr_linalg_qr(tsr_tensor* a, int32_t complete, tsr_tensor** q, tsr_tensor** r);
/* a = u diag(s) vh: s [.., k] descending (real: float32 for complex64),
 * k = min(m, n); u [.., m, k] and vh
 * [.., k, n], or [.., m, m] and [.., n, n] when full_matrices != 0. u and vh
 * may both be NULL: the singular values alone (svdvals). */
TSR_API tsr_status tsr_linalg_svd(tsr_tensor* a, int32_t full_matrices, tsr_tensor** u, tsr_tensor** s,
                                  tsr_tensor** vh);
/* The eigenvalues (ascending, [.., n]; real: float32 for complex64) and
 * eigenvectors (the columns of [.., n, n]) of symmetric (complex: Hermitian)
 * a, read from its lower triangle; eigenvectors may be NULL (eigvalsh). */
TSR_API tsr_status tsr_linalg_eigh(tsr_tensor* a, tsr_tensor** eigenvalues, tsr_tensor** eigenvectors);
/* Since ABI 1.9: torch.linalg.vector_norm: (sum |x|^ord)^(1/ord) over
 * `dims` (num_dims entries, or num_dims 0: all), keepdim as tsr_reduce;
 * ord = +-INFINITY the max / min of |x|, ord 0 the count of nonzeros.
 * Floating or complex x (the norm of a complex x is real). An empty x
 * refuses ord < 0 and +-INFINITY (no identity), as torch. Its gradient is
 * PyTorch's (0 where the norm is 0; the max shared among ties). */
TSR_API tsr_status tsr_linalg_vector_norm(tsr_tensor* x, double ord, int32_t num_dims, const int32_t* dims,
                                          int32_t keepdim, tsr_tensor** out);

/* Since ABI 1.9: torch.linalg.pinv: the pseudo-inverse [.., n, m] of a
 * [.., m, n] from its SVD (hermitian != 0: from its eigendecomposition, a
 * read as symmetric from its lower triangle), the singular values (or
 * |eigenvalues|) at or below max(atol, rtol * the largest) taken as 0.
 * atol and rtol are borrowed tensors of a's batch shape (or 0-d), or NULL
 * for torch's defaults: atol 0, rtol eps * max(m, n) (0 where atol is
 * given and positive). Its gradient is torch's pinv_backward. */
TSR_API tsr_status tsr_linalg_pinv(tsr_tensor* a, tsr_tensor* atol, tsr_tensor* rtol, int32_t hermitian,
                                   tsr_tensor** out);

/* Since ABI 1.11: torch.linalg.eig: the eigenvalues [.., n] and right
 * eigenvectors [.., n, n] (column j that of eigenvalue j, of 2-norm 1) of a
 * general square a, a V = V diag(w), in LAPACK's geev order. Both results
 * are complex whatever a is: complex64 for float32 and complex64,
 * complex128 for float64 and complex128. Integer a is TSR_ERR_TYPE (cast it
 * first); a with an infinity or NaN is TSR_ERR_LINALG, as torch.linalg.eig
 * refuses it. Its gradient is not implemented: backward through the
 * results of an a that requires grad fails naming the function. */
TSR_API tsr_status tsr_linalg_eig(tsr_tensor* a, tsr_tensor** eigenvalues, tsr_tensor** eigenvectors);
/* torch.linalg.eigvals: the eigenvalues of tsr_linalg_eig alone. */
TSR_API tsr_status tsr_linalg_eigvals(tsr_tensor* a, tsr_tensor** eigenvalues);

/* ---- the softmax family (since ABI 1.9) ------------------------------------ */

/* softmax and log_softmax of floating x along `dim` (torch.softmax,
 * torch.log_softmax), and logsumexp over `dims` (num_dims 0: all; keepdim
 * as tsr_reduce): computed with the max subtracted first, so that large
 * values do not overflow; a row of -inf gives NaN (softmax) as torch's.
 * Integer x is TSR_ERR_TYPE: cast it first. Their gradients are fused
 * (one node each). */
TSR_API tsr_status tsr_softmax(tsr_tensor* x, int64_t dim, tsr_tensor** out);
TSR_API tsr_status tsr_log_softmax(tsr_tensor* x, int64_t dim, tsr_tensor** out);
TSR_API tsr_status tsr_logsumexp(tsr_tensor* x, int32_t num_dims, const int32_t* dims, int32_t keepdim,
                                 tsr_tensor** out);

/* dst[...] = src, broadcasting src to dst's shape, casting, across devices. */
TSR_API tsr_status tsr_copy_(tsr_tensor* dst, tsr_tensor* src);
/* The value must fit the dtype, as PyTorch checks ("value cannot be converted
 * to type int8_t without overflow"); a FLOAT truncates into an integer dtype.
 * Into uint8/16/32 an INT may also be negative, down to -(2^bits - 1), and
 * wraps (c10's uint8 rule); into uint64 (ABI 1.5) every INT wraps modulo
 * 2^64, the way to write values from 2^63 on (-1 is 2^64 - 1), and a FLOAT
 * must lie in [0, 2^64). */
TSR_API tsr_status tsr_fill_(tsr_tensor* t, tsr_scalar value);

/* The result shape of broadcasting shapes a and b (NumPy's rule). out_shape
 * has room for TSR_MAX_DIMS sizes. */
TSR_API tsr_status tsr_broadcast_shapes(int32_t ndim_a, const int64_t* shape_a, int32_t ndim_b,
                                        const int64_t* shape_b, int32_t* out_ndim, int64_t* out_shape);
/* The dtype PyTorch's promotion gives two tensors of these dtypes. */
TSR_API tsr_dtype tsr_promote_types(tsr_dtype a, tsr_dtype b);

/* ---- reading ------------------------------------------------------------- */

/* Copies the elements, in row-major order, to host memory: `nbytes` must be
 * at least numel * element size. */
TSR_API tsr_status tsr_read(tsr_tensor* t, void* dst, size_t nbytes);
/* Since ABI 1.4: copies between a tensor and host memory of any layout,
 * e.g. a Fortran (column-major) array. Host element (i_0, ..., i_{n-1}) of
 * the tensor's shape lives at byte
 *     (i_0 * host_strides[0] + ... + i_{n-1} * host_strides[n-1]) * itemsize
 * of `host`, in the tensor's dtype; host_strides are in ELEMENTS, >= 0, and
 * NULL means row-major. Every element reached must lie within
 * host_nbytes bytes of `host` (checked: TSR_ERR_INVALID_ARGUMENT otherwise);
 * host memory is borrowed for the call, which returns when the copy is
 * done. to_host writes only the elements it reaches; from_host writes every
 * element of `t` (any view, on any device), casting nothing. Host strides
 * of 0 are allowed for from_host (one host value read many times) and not
 * for to_host. */
TSR_API tsr_status tsr_copy_to_host(tsr_tensor* t, void* host, size_t host_nbytes, const int64_t* host_strides);
TSR_API tsr_status tsr_copy_from_host(tsr_tensor* t, const void* host, size_t host_nbytes,
                                      const int64_t* host_strides);
/* The value of a one-element tensor, exact: FLOAT for floating dtypes, INT
 * for integral, BOOL for bool, COMPLEX for complex (since ABI 1.7). A uint64 (since ABI 1.5) is an INT whose `i`
 * holds the value's 64 bits (values from 2^63 on read as negative: cast `i`
 * to uint64_t) and whose `f` holds the value rounded to double. */
TSR_API tsr_status tsr_item(tsr_tensor* t, tsr_scalar* out);
/* PyTorch's repr: "tensor([1., 2.])". Free *out with tsr_string_free. */
TSR_API tsr_status tsr_format(tsr_tensor* t, char** out);
/* The layout picture: the storage strip, the cells the view reads and the
 * order it reads them. Free *out with tsr_string_free. */
TSR_API tsr_status tsr_format_layout(tsr_tensor* t, char** out);

/* Limits of a floating dtype (PyTorch's finfo); of a complex dtype, its parts' (ABI 1.7). */
typedef struct tsr_finfo {
  size_t struct_size; /* set by the caller */
  int32_t bits;
  int32_t reserved;
  double eps, max, min, tiny;
} tsr_finfo;
#define TSR_FINFO_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_finfo, tiny)
TSR_API tsr_status tsr_get_finfo(tsr_dtype dtype, tsr_finfo* out);

/* PyTorch's torch.testing.assert_close: same shape, dtype and device, and
 * |a - b| <= atol + rtol * |b| everywhere (NaN equal to NaN when equal_nan).
 * rtol/atol < 0: the defaults for the dtype. On a mismatch returns
 * TSR_ERR_INVALID_ARGUMENT and the message names the worst element. */
TSR_API tsr_status tsr_assert_close(tsr_tensor* actual, tsr_tensor* expected, double rtol, double atol,
                                    int32_t equal_nan);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_TESSERA_H */
