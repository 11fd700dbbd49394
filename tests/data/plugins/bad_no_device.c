/* SPDX-License-Identifier: Apache-2.0 */
/* bad_no_device.so: its api has no device interface. */
#include "test_plugin_common.h"

static tsr_kernel_table kernels;
static tsr_plugin_api api;

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  kernels.struct_size = TSR_KERNEL_TABLE_STRUCT_SIZE;
  api = test_api(test_static_ctx(args), NULL, &kernels);
  *out = &api;
  return TSR_OK;
}
