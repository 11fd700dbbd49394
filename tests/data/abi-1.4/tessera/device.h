/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/device.h — where a storage lives.
 *
 * A device is a (type, index) pair, a frozen value type (see Note
 * [Extensible structs] in tessera/status.h). Type numbers below 64 follow
 * DLPack's DLDeviceType (CPU = 1, CUDA = 2), so a tsr_device converts to a
 * DLDevice by copying both fields. A plugin for a kind of device with no
 * number here declares its type by name ("arena") and the runtime assigns it
 * a number >= TSR_DEVICE_DYNAMIC_BASE at load time; that number is stable for
 * the life of a runtime, not across runs.
 */
#ifndef TESSERA_DEVICE_H
#define TESSERA_DEVICE_H

#include <stdint.h>

typedef enum tsr_device_type {
  TSR_DEVICE_UNDEFINED = 0,
  TSR_DEVICE_CPU = 1,  /* DLPack kDLCPU */
  TSR_DEVICE_CUDA = 2, /* DLPack kDLCUDA */
  TSR_DEVICE_DYNAMIC_BASE = 64
} tsr_device_type;

typedef struct tsr_device {
  int32_t type;  /* a tsr_device_type, or a runtime-assigned dynamic type */
  int32_t index; /* 0-based ordinal among the devices of that type */
} tsr_device;

#endif /* TESSERA_DEVICE_H */
