/* SPDX-License-Identifier: Apache-2.0 */
/* bad_null_kernel.so: entry 3 of its kernel table has no function. */
#include "test_plugin_common.h"

static tsr_device_iface device;
static tsr_kernel_entry entries[4];
static tsr_kernel_table kernels;
static tsr_plugin_api api;

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  static const int32_t ops[4] = {TSR_OP_FILL, TSR_OP_COPY, TSR_OP_ADD, TSR_OP_ADD};
  static const int32_t dtypes[4] = {TSR_FLOAT32, TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT32};
  int i;
  for (i = 0; i < 4; ++i) {
    entries[i].op = ops[i];
    entries[i].dtype = dtypes[i];
    entries[i].fn = i == 3 ? NULL : test_fill_f32;
  }
  device = test_device_iface();
  kernels.struct_size = TSR_KERNEL_TABLE_STRUCT_SIZE;
  kernels.count = 4;
  kernels.entries = entries;
  api = test_api(test_static_ctx(args), &device, &kernels);
  *out = &api;
  return TSR_OK;
}
