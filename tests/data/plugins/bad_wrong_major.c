/* SPDX-License-Identifier: Apache-2.0 */
/* bad_wrong_major.so: answers with ABI 2.0, so the runtime must refuse it
 * before reading or calling anything else (destroy included). */
#include "test_plugin_common.h"

static tsr_device_iface device;
static tsr_kernel_table kernels;
static tsr_plugin_api api;

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  device = test_device_iface();
  kernels.struct_size = TSR_KERNEL_TABLE_STRUCT_SIZE;
  api = test_api(test_static_ctx(args), &device, &kernels);
  api.abi_version = TSR_MAKE_VERSION(2, 0);
  *out = &api;
  return TSR_OK;
}
