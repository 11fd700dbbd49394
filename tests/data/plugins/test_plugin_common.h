/* SPDX-License-Identifier: Apache-2.0 */
/* Shared parts of the test plugins: a "null" device whose memory is host
 * malloc, and a context that counts destroy calls into a counter the test
 * passes by address in the options ({"destroy_counter": 1234567}), so that a
 * test can tell whether the runtime called destroy. Plain C99, like a
 * third-party plugin built against the ABI headers alone. */
#ifndef TESSERA_TEST_PLUGIN_COMMON_H
#define TESSERA_TEST_PLUGIN_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/plugin.h"

typedef struct test_ctx {
  long long* destroy_counter; /* borrowed from the test; may be NULL */
  int32_t devices;
  char instance[64];
} test_ctx;

/* The integer after "key": in a flat JSON object, or `fallback`. Enough for
 * the options the tests write; not a JSON parser. */
static inline long long test_option_int(const char* json, const char* key, long long fallback) {
  char quoted[64];
  const char* at;
  snprintf(quoted, sizeof quoted, "\"%s\"", key);
  at = json ? strstr(json, quoted) : NULL;
  if (at == NULL) return fallback;
  at = strchr(at + strlen(quoted), ':');
  return at ? strtoll(at + 1, NULL, 10) : fallback;
}

static inline test_ctx* test_ctx_create(const tsr_plugin_init_args* args) {
  test_ctx* ctx = (test_ctx*)calloc(1, sizeof(test_ctx));
  if (ctx == NULL) return NULL;
  ctx->destroy_counter = (long long*)(uintptr_t)test_option_int(args->options_json, "destroy_counter", 0);
  ctx->devices = (int32_t)test_option_int(args->options_json, "devices", 1);
  snprintf(ctx->instance, sizeof ctx->instance, "%s", args->instance_name ? args->instance_name : "");
  return ctx;
}

static inline void test_destroy(void* ctx) {
  test_ctx* c = (test_ctx*)ctx;
  if (c->destroy_counter) ++*c->destroy_counter;
  free(c);
}

/* For the bad plugins, whose context is static so that nothing leaks
 * whether or not the runtime (rightly) calls destroy: only counts. */
static inline void test_count_destroy(void* ctx) {
  test_ctx* c = (test_ctx*)ctx;
  if (c->destroy_counter) ++*c->destroy_counter;
}

/* Fills a static context from the options. */
static inline test_ctx* test_static_ctx(const tsr_plugin_init_args* args) {
  static test_ctx ctx;
  ctx.destroy_counter = (long long*)(uintptr_t)test_option_int(args->options_json, "destroy_counter", 0);
  ctx.devices = (int32_t)test_option_int(args->options_json, "devices", 1);
  snprintf(ctx.instance, sizeof ctx.instance, "%s", args->instance_name ? args->instance_name : "");
  return &ctx;
}

static inline int32_t test_device_count(void* ctx) { return ((test_ctx*)ctx)->devices; }

static inline const char* test_unavailable_reason(void* ctx) {
  (void)ctx;
  return "configured with \"devices\": 0";
}

/* Writes only as much of props as its writer knew (Note [Extensible structs]). */
static inline tsr_status test_get_properties(void* ctx, int32_t device, tsr_device_properties* props) {
  tsr_device_properties full;
  size_t n = props->struct_size < sizeof full ? props->struct_size : sizeof full;
  memset(&full, 0, sizeof full);
  full.struct_size = props->struct_size;
  snprintf(full.name, sizeof full.name, "null device %d of %s", (int)device, ((test_ctx*)ctx)->instance);
  full.host_accessible = 1;
  full.compute_units = 1;
  memcpy(props, &full, n);
  return TSR_OK;
}

static inline tsr_status test_allocate(void* ctx, int32_t device, size_t nbytes, void** out) {
  (void)ctx;
  (void)device;
  /* 64 bytes of slack past the end, as a device allocator's rounded blocks
   * have: bad_conformance's planted fill bug writes one element past a
   * tensor, which must corrupt a neighbour (what conformance detects), not
   * crash a sanitizer build that runs it through `tessera bench`. */
  return posix_memalign(out, 64, nbytes + 64) == 0 ? TSR_OK : TSR_ERR_OUT_OF_MEMORY;
}

static inline void test_deallocate(void* ctx, int32_t device, void* ptr, size_t nbytes) {
  (void)ctx;
  (void)device;
  (void)nbytes;
  free(ptr);
}

static inline tsr_status test_copy(void* ctx, int32_t device, void* dst, const void* src, size_t nbytes,
                                   tsr_stream stream) {
  (void)ctx;
  (void)device;
  (void)stream;
  memcpy(dst, src, nbytes);
  return TSR_OK;
}

static inline tsr_status test_copy_d2d(void* ctx, int32_t dst_device, void* dst, int32_t src_device,
                                       const void* src, size_t nbytes, tsr_stream stream) {
  (void)src_device;
  return test_copy(ctx, dst_device, dst, src, nbytes, stream);
}

static inline tsr_status test_synchronize(void* ctx, int32_t device) {
  (void)ctx;
  (void)device;
  return TSR_OK;
}

/* A complete device interface with every required slot. */
static inline tsr_device_iface test_device_iface(void) {
  tsr_device_iface d;
  memset(&d, 0, sizeof d);
  d.struct_size = TSR_DEVICE_IFACE_STRUCT_SIZE;
  d.device_count = test_device_count;
  d.unavailable_reason = test_unavailable_reason;
  d.get_properties = test_get_properties;
  d.allocate = test_allocate;
  d.deallocate = test_deallocate;
  d.copy_host_to_device = test_copy;
  d.copy_device_to_host = test_copy;
  d.copy_device_to_device = test_copy_d2d;
  d.synchronize = test_synchronize;
  return d;
}

/* FILL for float32: any shape, any non-negative strides. */
static inline tsr_status test_fill_f32(void* ctx, const tsr_kernel_args* args) {
  const tsr_tensor_desc* out = args->output;
  int64_t index[TSR_MAX_DIMS] = {0};
  int64_t n = 1;
  int64_t i;
  int32_t d;
  float value = (float)(args->scalars[0].kind == TSR_SCALAR_FLOAT ? args->scalars[0].f : (double)args->scalars[0].i);
  (void)ctx;
  for (d = 0; d < out->ndim; ++d) n *= out->shape[d];
  for (i = 0; i < n; ++i) {
    int64_t at = out->offset;
    for (d = 0; d < out->ndim; ++d) at += index[d] * out->strides[d];
    ((float*)out->data)[at] = value;
    for (d = out->ndim - 1; d >= 0; --d) { /* row-major odometer */
      if (++index[d] < out->shape[d]) break;
      index[d] = 0;
    }
  }
  return TSR_OK;
}

/* An api around `device` and `kernels` whose only flaw is what the caller
 * changes; its destroy only counts (the context is test_static_ctx's). */
static inline tsr_plugin_api test_api(void* ctx, const tsr_device_iface* device, const tsr_kernel_table* kernels) {
  tsr_plugin_api api;
  memset(&api, 0, sizeof api);
  api.struct_size = TSR_PLUGIN_API_STRUCT_SIZE;
  api.abi_version = TSR_ABI_VERSION;
  api.device_type = TSR_DEVICE_UNDEFINED;
  api.device_type_name = "null";
  api.plugin_name = "test";
  api.plugin_version = "0";
  api.ctx = ctx;
  api.device = device;
  api.kernels = kernels;
  api.destroy = test_count_destroy;
  return api;
}

#endif /* TESSERA_TEST_PLUGIN_COMMON_H */
