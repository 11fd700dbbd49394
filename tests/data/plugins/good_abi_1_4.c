/* SPDX-License-Identifier: Apache-2.0 */
/* good_abi_1_4.so: a vendor's plugin built against the ABI 1.4 headers
 * (tests/data/abi-1.4, before the uint and complex dtypes and ops 34..60),
 * so TSR_ABI_VERSION here is 1.4. Device type "old14", host memory as
 * test_plugin_common.h's. Kernels, for float32 only: FILL, ADD and COPY from
 * the ten dtypes 1.4 knows; COPY refuses any other source the way such a
 * plugin would ("copy from unknown dtype 12"), so a test sees the runtime
 * hand it something newer. Options (as test_plugin_common.h, plus):
 * "calls_counter": the address of a long long that counts kernel calls;
 * "bad_entry": 1 adds an entry for op 34 (MATH, ABI 1.5), 2 one for dtype 12
 * (uint64, ABI 1.5), which 1.4 cannot mean. */
#include <stdio.h>

#include "test_plugin_common.h"

#if TSR_ABI_VERSION_MINOR != 4
#error "good_abi_1_4.c must be built against tests/data/abi-1.4"
#endif
typedef char abi_1_4_has_ten_dtypes[TSR_DTYPE_COUNT == 10 ? 1 : -1];

static long long* calls;
static const tsr_host_api* host;

/* The element offset of row-major index i of d. */
static int64_t element_at(const tsr_tensor_desc* d, int64_t i) {
  int64_t at = d->offset;
  int32_t k;
  for (k = d->ndim - 1; k >= 0; --k) {
    at += (i % d->shape[k]) * d->strides[k];
    i /= d->shape[k];
  }
  return at;
}

static int64_t numel(const tsr_tensor_desc* d) {
  int64_t n = 1;
  int32_t k;
  for (k = 0; k < d->ndim; ++k) n *= d->shape[k];
  return n;
}

static tsr_status fill_f32(void* ctx, const tsr_kernel_args* args) {
  if (calls) ++*calls;
  return test_fill_f32(ctx, args);
}

static tsr_status add_f32(void* ctx, const tsr_kernel_args* args) {
  const tsr_tensor_desc* a = args->inputs[0];
  const tsr_tensor_desc* b = args->inputs[1];
  const tsr_tensor_desc* out = args->output;
  int64_t i, n = numel(out);
  (void)ctx;
  if (calls) ++*calls;
  for (i = 0; i < n; ++i)
    ((float*)out->data)[element_at(out, i)] =
        ((const float*)a->data)[element_at(a, i)] + ((const float*)b->data)[element_at(b, i)];
  return TSR_OK;
}

static float source_value(const tsr_tensor_desc* in, int64_t at, int* known) {
  *known = 1;
  switch (in->dtype) {
    case TSR_FLOAT32: return ((const float*)in->data)[at];
    case TSR_FLOAT64: return (float)((const double*)in->data)[at];
    case TSR_INT8: return (float)((const int8_t*)in->data)[at];
    case TSR_UINT8: return (float)((const uint8_t*)in->data)[at];
    case TSR_INT16: return (float)((const int16_t*)in->data)[at];
    case TSR_INT32: return (float)((const int32_t*)in->data)[at];
    case TSR_INT64: return (float)((const int64_t*)in->data)[at];
    case TSR_BOOL: return ((const uint8_t*)in->data)[at] ? 1.0f : 0.0f;
    default: *known = 0; return 0.0f; /* float16, bfloat16: not needed by the tests */
  }
}

static tsr_status copy_f32(void* ctx, const tsr_kernel_args* args) {
  const tsr_tensor_desc* in = args->inputs[0];
  const tsr_tensor_desc* out = args->output;
  int64_t i, n = numel(out);
  int known = 1;
  (void)ctx;
  if (calls) ++*calls;
  for (i = 0; i < n && known; ++i) ((float*)out->data)[element_at(out, i)] = source_value(in, element_at(in, i), &known);
  if (!known) {
    char message[64];
    snprintf(message, sizeof message, "copy from unknown dtype %d", (int)in->dtype);
    host->set_error(TSR_ERR_INVALID_ARGUMENT, message);
    return TSR_ERR_INVALID_ARGUMENT;
  }
  return TSR_OK;
}

static tsr_device_iface device;
static tsr_kernel_entry entries[4];
static tsr_kernel_table kernels;
static tsr_plugin_api api;

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  test_ctx* ctx = test_static_ctx(args);
  const long long bad_entry = test_option_int(args->options_json, "bad_entry", 0);
  host = args->host;
  calls = (long long*)(uintptr_t)test_option_int(args->options_json, "calls_counter", 0);
  device = test_device_iface();
  entries[0].op = TSR_OP_FILL;
  entries[0].dtype = TSR_FLOAT32;
  entries[0].fn = fill_f32;
  entries[1].op = TSR_OP_ADD;
  entries[1].dtype = TSR_FLOAT32;
  entries[1].fn = add_f32;
  entries[2].op = TSR_OP_COPY;
  entries[2].dtype = TSR_FLOAT32;
  entries[2].fn = copy_f32;
  entries[3].op = bad_entry == 1 ? 34 : TSR_OP_FILL;
  entries[3].dtype = bad_entry == 2 ? 12 : TSR_FLOAT64;
  entries[3].fn = fill_f32;
  kernels.struct_size = TSR_KERNEL_TABLE_STRUCT_SIZE;
  kernels.count = bad_entry ? 4 : 3;
  kernels.entries = entries;
  api = test_api(ctx, &device, &kernels); /* abi_version: TSR_ABI_VERSION of these headers, 1.4 */
  api.device_type_name = "old14";
  api.plugin_name = "good_abi_1_4";
  *out = &api;
  return TSR_OK;
}
