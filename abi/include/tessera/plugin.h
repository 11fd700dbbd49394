/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/plugin.h — what a device plugin exports and what the runtime gives it.
 *
 * A plugin is a shared library that exports one C symbol,
 * TSR_PLUGIN_ENTRY_SYMBOL ("tsr_plugin_init"), of type tsr_plugin_init_fn.
 * Following ggml's backend interface, each object is an interface table (a
 * struct of function pointers) plus an opaque context that is passed back as
 * the first argument of every slot.
 *
 * Life cycle:
 *   1. The runtime loads the library and calls tsr_plugin_init once, passing
 *      its ABI version, a host API table and the plugin's options.
 *   2. The plugin checks the major version; on a mismatch it returns
 *      TSR_ERR_VERSION (after host->set_error with both versions) and keeps
 *      nothing alive. Otherwise it returns a pointer to its tsr_plugin_api,
 *      which it owns and keeps valid until `destroy` returns. The runtime
 *      independently refuses an api whose abi_version has another major
 *      version.
 *   3. The runtime reads at most min(api->struct_size, its own sizeof) bytes
 *      of each table (Note [Extensible structs] in tessera/status.h).
 *   4. At shutdown, after every storage the plugin allocated has been
 *      freed, the runtime calls destroy(ctx) and then unloads the library.
 *
 * When the runtime rejects what init returned, destroy runs as follows:
 *   - init failed (a status other than TSR_OK), or returned TSR_OK with a
 *     NULL api: destroy is never called; the plugin frees what it made
 *     before returning.
 *   - the api names another ABI major: destroy is NOT called, because the
 *     runtime cannot know where that major keeps it; nothing past
 *     abi_version is read. So a plugin must refuse another major in init
 *     (step 2) rather than return an api for it.
 *   - the api is of this major but unusable (struct_size too small for the
 *     smallest known layout, a NULL or incomplete device table, a NULL or
 *     bad kernel table, an incomplete communicator table): the runtime calls destroy(ctx) once, when destroy
 *     is not NULL and struct_size covers it, then unloads the library.
 *   - init threw a C++ exception (which breaks the ABI): nothing is called
 *     and the library stays mapped.
 *
 * An older minor (tsr_plugin_api.abi_version below the runtime's): the
 * plugin is handed nothing its minor predates. tessera/version.h's history
 * says what each minor added; the runtime
 *   - refuses, at load, a kernel table entry whose op or dtype is newer than
 *     the plugin's abi_version (so abi_version must be the TSR_ABI_VERSION of
 *     the headers the plugin was built with);
 *   - never calls a kernel with an input, output or further output of a
 *     newer dtype (a cast's source included: a 1.4 plugin's float32 COPY
 *     never reads uint64), a newer MATH function or a newer scalar kind:
 *     such a call runs on the CPU fallback where the plugin's config says
 *     "fallback": true, and otherwise fails with TSR_ERR_UNSUPPORTED naming
 *     the plugin, its ABI and what it predates;
 *   - sets tsr_kernel_args.struct_size to the plugin's minor's layout (a 1.5
 *     plugin's args end before more_outputs) and passes a 1.0 .. 1.2 plugin
 *     MATMUL's precision MEDIUM as 1 (TF32 allowed, which MEDIUM includes);
 *   - never hands a communicator (tessera/comm.h) a tensor of a newer dtype:
 *     the collective fails, naming it.
 * A newer plugin on an older runtime needs no such care: that runtime
 * ignores its entries for what it does not know.
 *
 * Threading: every slot may be called from several threads at once, on the
 * same or different devices; a plugin synchronises its own state.
 * Errors: a slot that returns a tsr_status other than TSR_OK first calls
 * host->set_error with a message naming what failed. A slot never throws,
 * aborts or exits.
 */
#ifndef TESSERA_PLUGIN_H
#define TESSERA_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/comm.h"
#include "tessera/device.h"
#include "tessera/dtype.h"
#include "tessera/export.h"
#include "tessera/ops.h"
#include "tessera/scalar.h"
#include "tessera/status.h"
#include "tessera/tensor_desc.h"
#include "tessera/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An opaque queue of work on one device; NULL is the device's default stream.
 * Work on one stream runs in submission order. */
typedef void* tsr_stream;

/* ---- values passed to kernels ------------------------------------------- */

/* tsr_scalar: tessera/scalar.h. */

/* Everything one kernel call needs. Owned by the runtime, valid for the call. */
typedef struct tsr_kernel_args {
  size_t struct_size;                    /* TSR_KERNEL_ARGS_STRUCT_SIZE */
  int32_t op;                            /* a tsr_op */
  int32_t device_index;                  /* which of the plugin's devices */
  const tsr_tensor_desc* const* inputs;  /* num_inputs pointers; borrowed */
  int32_t num_inputs;
  int32_t num_scalars;
  const tsr_tensor_desc* output;         /* the (first) output; borrowed */
  const tsr_scalar* scalars;             /* num_scalars values; borrowed */
  const int64_t* params;                 /* num_params integers; borrowed */
  int32_t num_params;
  int32_t reserved;
  tsr_stream stream;                     /* where to enqueue the work */
  /* ---- since ABI 1.6 ---- */
  /* The results after `output` of an op with several (kind LINALG, Note
   * [Kernel contracts]): num_more_outputs pointers, borrowed, the kernel
   * writes their elements as it writes output's. NULL and 0 for every other
   * kind; a 1.5 runtime's args end before them (check struct_size). */
  const tsr_tensor_desc* const* more_outputs;
  int32_t num_more_outputs;
  int32_t reserved2;
} tsr_kernel_args;

#define TSR_KERNEL_ARGS_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_kernel_args, reserved2)

/* One uniform signature for every kernel. `ctx` is tsr_plugin_api.ctx. A
 * kernel may return before the work is done (asynchronous devices); the
 * runtime synchronises before the host reads. */
typedef tsr_status (*tsr_kernel_fn)(void* ctx, const tsr_kernel_args* args);

/* A frozen value type: one (op, dtype) -> function entry. */
typedef struct tsr_kernel_entry {
  int32_t op;    /* a tsr_op */
  int32_t dtype; /* the key dtype of Note [Kernel contracts] */
  tsr_kernel_fn fn; /* never NULL */
} tsr_kernel_entry;

typedef struct tsr_kernel_table {
  size_t struct_size;               /* TSR_KERNEL_TABLE_STRUCT_SIZE */
  size_t count;                     /* entries in `entries` */
  const tsr_kernel_entry* entries;  /* owned by the plugin, static */
} tsr_kernel_table;

#define TSR_KERNEL_TABLE_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_kernel_table, entries)

/* ---- devices ------------------------------------------------------------- */

/* Filled by the plugin's get_properties. The CALLER (the runtime) sets
 * struct_size to the size it knows before the call; the plugin writes only
 * the fields that fit in that size (TSR_STRUCT_HAS) and never changes
 * struct_size. */
typedef struct tsr_device_properties {
  size_t struct_size;          /* set by the caller to its sizeof; read-only for the plugin */
  char name[128];              /* NUL-terminated, e.g. "NVIDIA H200" */
  uint64_t total_memory;       /* bytes; 0 if unknown */
  uint64_t free_memory;        /* bytes; 0 if unknown */
  /* 1 if the host may read and write the device's memory through the
   * pointers allocate returns, at any time outside a running kernel (as
   * for the cpu). The runtime then treats the memory like the cpu's: NumPy
   * and DLPack share it without a copy (Python's .numpy(),
   * __dlpack__), tsr_device_is_host_accessible answers 1, and cross-device
   * copies may read or write it with memcpy. 0: device memory; every host
   * access goes through the copy slots. */
  int32_t host_accessible;
  int32_t compute_units;       /* threads, SMs, ...; 0 if unknown */
  int32_t capability_major;    /* e.g. CUDA compute capability; 0 if none */
  int32_t capability_minor;
} tsr_device_properties;

#define TSR_DEVICE_PROPERTIES_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_device_properties, capability_minor)

/* The memory and copy interface of one kind of device. Slots marked
 * "optional" may be NULL; the runtime then uses the fallback written beside
 * them. All sizes are in bytes. `device` is an index < device_count(). */
typedef struct tsr_device_iface {
  size_t struct_size; /* TSR_DEVICE_IFACE_STRUCT_SIZE */

  /* How many devices of this type exist; 0 is valid (no GPU, no driver). */
  int32_t (*device_count)(void* ctx);
  /* Optional: when device_count() is 0, why (a static or ctx-owned string). */
  const char* (*unavailable_reason)(void* ctx);
  /* Fills up to props->struct_size bytes. */
  tsr_status (*get_properties)(void* ctx, int32_t device, tsr_device_properties* props);

  /* Allocates nbytes (> 0) aligned to at least 64 bytes; *out is owned by the
   * caller until deallocate. Out of memory: TSR_ERR_OUT_OF_MEMORY. */
  tsr_status (*allocate)(void* ctx, int32_t device, size_t nbytes, void** out);
  /* Returns memory from allocate (with the same nbytes). Never fails. */
  void (*deallocate)(void* ctx, int32_t device, void* ptr, size_t nbytes);

  /* Copies. Host pointers are ordinary CPU memory owned by the caller. When a
   * copy to or from the host returns, the host buffer may be reused (the
   * plugin stages or waits as needed). device_to_device may be queued on
   * `stream`; src and dst may be on different devices of this plugin. */
  tsr_status (*copy_host_to_device)(void* ctx, int32_t device, void* dst, const void* src,
                                    size_t nbytes, tsr_stream stream);
  tsr_status (*copy_device_to_host)(void* ctx, int32_t device, void* dst, const void* src,
                                    size_t nbytes, tsr_stream stream);
  tsr_status (*copy_device_to_device)(void* ctx, int32_t dst_device, void* dst,
                                      int32_t src_device, const void* src, size_t nbytes,
                                      tsr_stream stream);
  /* Waits for all work queued on the device. */
  tsr_status (*synchronize)(void* ctx, int32_t device);

  /* Optional streams; when NULL the device has only its default stream. */
  tsr_status (*stream_create)(void* ctx, int32_t device, tsr_stream* out);
  tsr_status (*stream_destroy)(void* ctx, int32_t device, tsr_stream stream);
  tsr_status (*stream_synchronize)(void* ctx, int32_t device, tsr_stream stream);

  /* Optional: returns cached, unused memory to the system; fallback: no-op. */
  tsr_status (*empty_cache)(void* ctx, int32_t device);

  /* ---- since ABI 1.1 ---- */
  /* Optional: bytes of `device` in live allocations (*in_use) and held by
   * the plugin, in use or cached for reuse (*reserved; >= *in_use), as
   * PyTorch's memory_allocated / memory_reserved. Fallback: the runtime
   * reports the statistics as unavailable. */
  tsr_status (*memory_stats)(void* ctx, int32_t device, uint64_t* in_use, uint64_t* reserved);
} tsr_device_iface;

#define TSR_DEVICE_IFACE_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_device_iface, memory_stats)

/* ---- the handshake ------------------------------------------------------- */

typedef enum tsr_log_level { TSR_LOG_DEBUG = 0, TSR_LOG_INFO = 1, TSR_LOG_WARNING = 2, TSR_LOG_ERROR = 3 } tsr_log_level;

/* Services the runtime offers a plugin. Owned by the runtime; valid until
 * the plugin's destroy returns. */
typedef struct tsr_host_api {
  size_t struct_size;     /* TSR_HOST_API_STRUCT_SIZE */
  uint32_t abi_version;   /* the runtime's TSR_ABI_VERSION */
  uint32_t reserved;
  /* Stores `message` (copied; may be NULL) as the calling thread's error. */
  void (*set_error)(tsr_status status, const char* message);
  /* Writes a line to the runtime's log (stderr) when `level` is at least
   * $TESSERA_LOG_LEVEL (default warning). A line written while the runtime
   * is calling into the plugin on that thread (init, destroy, a kernel, a
   * device slot) names the plugin: `tessera: warning: plugin "cpu_tbb":
   * ...`; a line from a thread of the plugin's own names no plugin, so
   * such a message should say who it is. `message` is borrowed. */
  void (*log)(int32_t level, const char* message);
} tsr_host_api;

#define TSR_HOST_API_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_host_api, log)

typedef struct tsr_plugin_init_args {
  size_t struct_size;          /* TSR_PLUGIN_INIT_ARGS_STRUCT_SIZE */
  uint32_t abi_version;        /* the runtime's TSR_ABI_VERSION */
  uint32_t reserved;
  const tsr_host_api* host;    /* owned by the runtime; outlives the plugin */
  /* The plugin's "options" object from the config, as JSON text ("{}" when
   * absent). Owned by the runtime; valid during the init call only. */
  const char* options_json;
  /* The plugin's "name" from the config. Valid during the init call only. */
  const char* instance_name;
} tsr_plugin_init_args;

#define TSR_PLUGIN_INIT_ARGS_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_plugin_init_args, instance_name)

/* What a plugin is. Owned by the plugin; valid until destroy(ctx) returns. */
typedef struct tsr_plugin_api {
  size_t struct_size;              /* TSR_PLUGIN_API_STRUCT_SIZE */
  uint32_t abi_version;            /* TSR_ABI_VERSION the plugin was built against */
  int32_t device_type;             /* TSR_DEVICE_CPU, TSR_DEVICE_CUDA, or
                                      TSR_DEVICE_UNDEFINED for a named type */
  const char* device_type_name;    /* "cpu", "cuda", "arena": the prefix of
                                      device strings ("arena:0"); static */
  const char* plugin_name;         /* e.g. "cpu_tbb"; static */
  const char* plugin_version;      /* the plugin's own version; static */
  void* ctx;                       /* passed back to every slot */
  const tsr_device_iface* device;  /* required, unless `comm` is given */
  const tsr_kernel_table* kernels; /* required (count may be 0), unless `comm` is
                                      given and `device` is NULL */
  /* Frees ctx. Called once, at shutdown, after all its storages are freed
   * and every communicator handle and request is released. */
  void (*destroy)(void* ctx);
  /* ---- since ABI 1.5 ---- */
  /* Optional: the plugin's communicator (tessera/comm.h); NULL: none.
   * Owned by the plugin, valid until destroy returns. A plugin that is
   * only a communicator sets device and kernels to NULL and
   * device_type_name to "" (or NULL). */
  const tsr_comm_iface* comm;
} tsr_plugin_api;

#define TSR_PLUGIN_API_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_plugin_api, comm)

#define TSR_PLUGIN_ENTRY_SYMBOL "tsr_plugin_init"

/* The one exported entry point. On success *out points at the plugin's api. */
typedef tsr_status (*tsr_plugin_init_fn)(const tsr_plugin_init_args* args, const tsr_plugin_api** out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_PLUGIN_H */
