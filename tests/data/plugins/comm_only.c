/* SPDX-License-Identifier: Apache-2.0 */
/* comm_only.so: a plugin that is only a communicator (ABI 1.5): no device
 * table, no kernel table, no device type name. A world of one rank whose
 * operations complete at once. Built with TEST_DROP_WAIT it leaves out the
 * required wait slot: that is bad_comm_missing_slot.so. The option
 * "abi_minor" makes it answer that minor (1.5 .. today's) as its version. */
#include "test_plugin_common.h"

static int32_t one_rank(void* ctx, tsr_comm_handle comm) {
  (void)ctx;
  (void)comm;
  return 0;
}
static int32_t one_size(void* ctx, tsr_comm_handle comm) {
  (void)ctx;
  (void)comm;
  return 1;
}
static tsr_status world(void* ctx, double timeout_s, tsr_comm_handle* out) {
  (void)timeout_s;
  *out = ctx;
  return TSR_OK;
}
static tsr_status split(void* ctx, tsr_comm_handle comm, int32_t color, int32_t key, double timeout_s,
                        tsr_comm_handle* out) {
  (void)ctx;
  (void)key;
  (void)timeout_s;
  *out = color < 0 ? NULL : comm;
  return TSR_OK;
}
static void release(void* ctx, tsr_comm_handle comm) {
  (void)ctx;
  (void)comm;
}
static tsr_status start(void* ctx, tsr_comm_handle comm, const tsr_comm_args* args, tsr_comm_request* out) {
  (void)comm;
  (void)args;
  *out = ctx;
  return TSR_OK;
}
static tsr_status wait(void* ctx, tsr_comm_request request) {
  (void)ctx;
  (void)request;
  return TSR_OK;
}
static tsr_status test(void* ctx, tsr_comm_request request, int32_t* done) {
  (void)ctx;
  (void)request;
  *done = 1;
  return TSR_OK;
}
static void request_free(void* ctx, tsr_comm_request request) {
  (void)ctx;
  (void)request;
}

static tsr_comm_iface comm;
static tsr_plugin_api api;

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  test_ctx* ctx = test_static_ctx(args);
  memset(&comm, 0, sizeof comm);
  comm.struct_size = TSR_COMM_IFACE_STRUCT_SIZE;
  comm.name = "single";
  comm.world = world;
  comm.rank = one_rank;
  comm.size = one_size;
  comm.split = split;
  comm.release = release;
  comm.start = start;
#ifndef TEST_DROP_WAIT
  comm.wait = wait;
#else
  (void)wait;
#endif
  comm.test = test;
  comm.request_free = request_free;
  memset(&api, 0, sizeof api);
  api.struct_size = TSR_PLUGIN_API_STRUCT_SIZE;
  api.abi_version =
      TSR_MAKE_VERSION(TSR_ABI_VERSION_MAJOR, test_option_int(args->options_json, "abi_minor", TSR_ABI_VERSION_MINOR));
  api.device_type = TSR_DEVICE_UNDEFINED;
  api.plugin_name = "comm_only";
  api.plugin_version = "1";
  api.ctx = ctx;
  api.destroy = test_count_destroy;
  api.comm = &comm;
  *out = &api;
  return TSR_OK;
}
