/* SPDX-License-Identifier: Apache-2.0 */
/* good_minimal.so: the smallest correct plugin, in C99. One device type
 * named "null" ("null:0"), memory from the host heap, one kernel (FILL for
 * float32). Options: "devices" (default 1), "destroy_counter" (see
 * test_plugin_common.h). Every table lives in the instance's context, so two
 * instances of the library can coexist. */
#include "test_plugin_common.h"

typedef struct instance {
  test_ctx base; /* first, so that test_destroy's cast works */
  tsr_device_iface device;
  tsr_kernel_entry entries[1];
  tsr_kernel_table kernels;
  tsr_plugin_api api;
} instance;

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  instance* self;
  const test_ctx* parsed;
  if (TSR_VERSION_MAJOR(args->abi_version) != TSR_ABI_VERSION_MAJOR) {
    args->host->set_error(TSR_ERR_VERSION, "good_minimal: built for ABI 1.x");
    return TSR_ERR_VERSION;
  }
  self = (instance*)calloc(1, sizeof(instance));
  parsed = test_ctx_create(args);
  if (self == NULL || parsed == NULL) {
    free(self);
    free((void*)parsed);
    args->host->set_error(TSR_ERR_OUT_OF_MEMORY, "good_minimal: out of memory");
    return TSR_ERR_OUT_OF_MEMORY;
  }
  self->base = *parsed;
  free((void*)parsed);
  self->device = test_device_iface();
  self->entries[0].op = TSR_OP_FILL;
  self->entries[0].dtype = TSR_FLOAT32;
  self->entries[0].fn = test_fill_f32;
  self->kernels.struct_size = TSR_KERNEL_TABLE_STRUCT_SIZE;
  self->kernels.count = 1;
  self->kernels.entries = self->entries;
  self->api = test_api(self, &self->device, &self->kernels);
  self->api.destroy = test_destroy;
  self->api.plugin_name = "good_minimal";
  self->api.plugin_version = "1.0.0";
  args->host->log(TSR_LOG_DEBUG, "good_minimal: initialised");
  *out = &self->api;
  return TSR_OK;
}
