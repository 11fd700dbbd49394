/* SPDX-License-Identifier: Apache-2.0 */
/* bad_duplicate_kernel.so: two entries claim (fill, float32). */
#include "test_plugin_common.h"

static tsr_device_iface device;
static tsr_kernel_entry entries[2];
static tsr_kernel_table kernels;
static tsr_plugin_api api;

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  int i;
  for (i = 0; i < 2; ++i) {
    entries[i].op = TSR_OP_FILL;
    entries[i].dtype = TSR_FLOAT32;
    entries[i].fn = test_fill_f32;
  }
  device = test_device_iface();
  kernels.struct_size = TSR_KERNEL_TABLE_STRUCT_SIZE;
  kernels.count = 2;
  kernels.entries = entries;
  api = test_api(test_static_ctx(args), &device, &kernels);
  *out = &api;
  return TSR_OK;
}
