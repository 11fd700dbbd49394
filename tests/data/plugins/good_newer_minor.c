/* SPDX-License-Identifier: Apache-2.0 */
/* good_newer_minor.so: a plugin from a future 1.7 runtime. Its structs are
 * longer than ours (fields appended), its kernel table has an op and a dtype
 * this runtime does not know, and it leaves an optional slot NULL. The
 * runtime must accept it and use only what it knows. */
#include "test_plugin_common.h"

typedef struct api_1_7 {
  tsr_plugin_api base;
  void* (*future_slot)(void* ctx); /* appended in "1.7" */
} api_1_7;

typedef struct device_1_7 {
  tsr_device_iface base;
  tsr_status (*future_device_slot)(void* ctx);
} device_1_7;

static device_1_7 device;
static tsr_kernel_entry entries[4];
static tsr_kernel_table kernels;
static api_1_7 api;

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  test_ctx* ctx = test_static_ctx(args);
  memset(&device, 0, sizeof device);
  device.base = test_device_iface();
  device.base.struct_size = sizeof device;
  device.base.unavailable_reason = NULL;
  entries[0].op = TSR_OP_FILL;
  entries[0].dtype = TSR_FLOAT32;
  entries[0].fn = test_fill_f32;
  entries[1].op = TSR_OP_COUNT + 5; /* an op of a later minor version */
  entries[1].dtype = TSR_FLOAT32;
  entries[1].fn = NULL;             /* never looked at */
  entries[2].op = TSR_OP_FILL;
  entries[2].dtype = TSR_DTYPE_COUNT + 1; /* a dtype of a later minor version */
  entries[2].fn = test_fill_f32;
  entries[3].op = -1;
  entries[3].dtype = TSR_FLOAT32;
  entries[3].fn = test_fill_f32;
  kernels.struct_size = TSR_KERNEL_TABLE_STRUCT_SIZE;
  kernels.count = 4;
  kernels.entries = entries;
  memset(&api, 0, sizeof api);
  api.base = test_api(ctx, &device.base, &kernels);
  api.base.struct_size = sizeof api;
  api.base.abi_version = TSR_MAKE_VERSION(TSR_ABI_VERSION_MAJOR, 7);
  api.base.plugin_name = NULL; /* optional to read: the runtime shows "" */
  *out = &api.base;
  return TSR_OK;
}
