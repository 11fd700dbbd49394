/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/status.h — status codes, and the conventions every boundary struct follows.
 *
 * Note [Errors are values]
 *   Every fallible call returns a tsr_status. TSR_OK (0) means success; any
 *   other value means the call failed, wrote nothing to its out-parameters,
 *   and left a message in the calling thread's error slot:
 *   tsr_last_error_message() in the public API, tsr_host_api.set_error for
 *   plugins. No C++ exception, abort() or exit() ever crosses this boundary.
 *
 * Note [Extensible structs]
 *   Every struct that crosses a library boundary starts with
 *   `size_t struct_size`, set by whoever fills it to sizeof(the struct) as
 *   they compiled it (use the TSR_*_STRUCT_SIZE macros, derived with
 *   offsetof, never a literal). Fields are only appended. A reader uses a
 *   field only when TSR_STRUCT_HAS(ptr, type, field) says the writer knew it.
 *   Small value types passed by value or in arrays (tsr_device, tsr_scalar,
 *   tsr_kernel_entry) are frozen instead: changing one is a major bump.
 */
#ifndef TESSERA_STATUS_H
#define TESSERA_STATUS_H

#include <stddef.h>
#include <stdint.h>

typedef enum tsr_status {
  TSR_OK = 0,
  TSR_ERR_INVALID_ARGUMENT = 1, /* a bad value: NULL handle, negative size, bad dim */
  TSR_ERR_INDEX = 2,            /* an index or dim out of range */
  TSR_ERR_SHAPE = 3,            /* shapes that do not broadcast, or an impossible view */
  TSR_ERR_TYPE = 4,             /* a dtype the operation does not accept */
  TSR_ERR_UNSUPPORTED = 5,      /* no kernel for (op, device, dtype) */
  TSR_ERR_OUT_OF_MEMORY = 6,    /* an allocation failed; the message gives the bytes */
  TSR_ERR_DEVICE = 7,           /* a device or driver failure */
  TSR_ERR_VERSION = 8,          /* ABI major versions differ */
  TSR_ERR_LOAD = 9,             /* a plugin library could not be loaded */
  TSR_ERR_CONFIG = 10,          /* a malformed or invalid config */
  TSR_ERR_INTERNAL = 11         /* a bug; the message says where */
} tsr_status;

/* The size a writer of `type` knew, up to and including `field`. */
#define TSR_STRUCT_SIZE(type, last_field) (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

/* True when the struct at `ptr` was written by someone who knew `field`. */
#define TSR_STRUCT_HAS(ptr, type, field) ((ptr)->struct_size >= TSR_STRUCT_SIZE(type, field))

#endif /* TESSERA_STATUS_H */
