/* SPDX-License-Identifier: Apache-2.0 */
/* good_older_minor.so: a plugin built against ABI 1.0, before
 * tsr_device_iface.memory_stats was appended in 1.1. Its device interface
 * says struct_size = the 1.0 layout; the bytes after it hold a poisoned
 * function pointer, as whatever memory follows a shorter struct might. A
 * newer runtime must treat the slot as absent (its fallback) and never call
 * what lies past struct_size: the poison adds 1000 to the destroy counter,
 * so a test sees any call. Options as test_plugin_common.h. */
#include <stddef.h>

#include "test_plugin_common.h"

static long long* poison_counter;

static tsr_status poisoned_memory_stats(void* ctx, int32_t device, uint64_t* in_use, uint64_t* reserved) {
  (void)ctx, (void)device;
  *in_use = *reserved = 0;
  if (poison_counter) *poison_counter += 1000;
  return TSR_OK;
}

static tsr_device_iface device;
static tsr_kernel_entry entries[1];
static tsr_kernel_table kernels;
static tsr_plugin_api api;

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  test_ctx* ctx = test_static_ctx(args);
  if (TSR_VERSION_MAJOR(args->abi_version) != 1) {
    args->host->set_error(TSR_ERR_VERSION, "good_older_minor: built for ABI 1.0");
    return TSR_ERR_VERSION;
  }
  poison_counter = ctx->destroy_counter;
  device = test_device_iface();
  device.struct_size = TSR_STRUCT_SIZE(tsr_device_iface, empty_cache); /* the 1.0 layout */
  device.memory_stats = poisoned_memory_stats;                        /* past struct_size */
  entries[0].op = TSR_OP_FILL;
  entries[0].dtype = TSR_FLOAT32;
  entries[0].fn = test_fill_f32;
  kernels.struct_size = TSR_KERNEL_TABLE_STRUCT_SIZE;
  kernels.count = 1;
  kernels.entries = entries;
  api = test_api(ctx, &device, &kernels);
  api.abi_version = TSR_MAKE_VERSION(1, 0);
  api.plugin_name = "good_older_minor";
  *out = &api;
  return TSR_OK;
}
