/* SPDX-License-Identifier: Apache-2.0 */
/* bad_conformance.so: a plugin that loads and mostly works, with one planted
 * bug per check of `tessera conformance`, so that a test can prove each
 * check fires (tests/conformance/catches_bugs.sh lists what must fail):
 *   - init accepts any ABI major version;
 *   - get_properties writes its whole struct whatever struct_size says;
 *   - fill (float32) also writes the element after its last one;
 *   - neg (float32) negates its input in place as well;
 *   - add (float32) reads inputs with non-zero strides as if they were
 *     contiguous (right only when they are);
 *   - copy (float32) casts every input through a double, which rounds an
 *     int64 twice (2^60 + 2^36 + 1 becomes 2^60, not 2^60 + 2^37) and is
 *     right from every other dtype.
 * sub (float32) is correct and must pass. */
#include "test_plugin_common.h"
#include "tessera/element.h"

static tsr_status careless_properties(void* ctx, int32_t device, tsr_device_properties* props) {
  tsr_device_properties full;
  (void)ctx;
  memset(&full, 0, sizeof full);
  full.struct_size = sizeof full;
  snprintf(full.name, sizeof full.name, "careless %d", (int)device);
  full.host_accessible = 1;
  memcpy(props, &full, sizeof full); /* the planted bug */
  return TSR_OK;
}

static int64_t numel(const tsr_tensor_desc* d) {
  int64_t n = 1;
  int32_t i;
  for (i = 0; i < d->ndim; ++i) n *= d->shape[i];
  return n;
}

/* Storage offset of the row-major element `flat` of d. */
static int64_t offset_of(const tsr_tensor_desc* d, int64_t flat) {
  int64_t at = d->offset;
  int32_t i;
  for (i = d->ndim - 1; i >= 0; --i) {
    at += (flat % d->shape[i]) * d->strides[i];
    flat /= d->shape[i];
  }
  return at;
}

static tsr_status fill_past_end(void* ctx, const tsr_kernel_args* a) {
  const tsr_tensor_desc* out = a->output;
  float* p = (float*)out->data;
  int64_t n = numel(out), i;
  (void)ctx;
  for (i = 0; i < n; ++i) p[offset_of(out, i)] = (float)a->scalars[0].f;
  if (n > 0) p[offset_of(out, n - 1) + 1] = (float)a->scalars[0].f; /* the planted bug */
  return TSR_OK;
}

static tsr_status neg_in_place_too(void* ctx, const tsr_kernel_args* a) {
  const tsr_tensor_desc* in = a->inputs[0];
  const tsr_tensor_desc* out = a->output;
  int64_t n = numel(out), i;
  (void)ctx;
  for (i = 0; i < n; ++i) {
    float* x = (float*)in->data + offset_of(in, i);
    ((float*)out->data)[offset_of(out, i)] = -*x;
    *x = -*x; /* the planted bug */
  }
  return TSR_OK;
}

static tsr_status add_ignoring_strides(void* ctx, const tsr_kernel_args* a) {
  const tsr_tensor_desc* x = a->inputs[0];
  const tsr_tensor_desc* y = a->inputs[1];
  const tsr_tensor_desc* out = a->output;
  int64_t n = numel(out), i;
  int broadcast = 0;
  int32_t d;
  (void)ctx;
  for (d = 0; d < x->ndim; ++d) broadcast |= x->strides[d] == 0 || y->strides[d] == 0;
  for (i = 0; i < n; ++i) {
    /* The planted bug: unless broadcast, inputs are read as if contiguous. */
    int64_t xi = broadcast ? offset_of(x, i) : x->offset + i, yi = broadcast ? offset_of(y, i) : y->offset + i;
    ((float*)out->data)[offset_of(out, i)] = ((const float*)x->data)[xi] + ((const float*)y->data)[yi];
  }
  return TSR_OK;
}

static tsr_status sub_correct(void* ctx, const tsr_kernel_args* a) {
  const tsr_tensor_desc* x = a->inputs[0];
  const tsr_tensor_desc* y = a->inputs[1];
  const tsr_tensor_desc* out = a->output;
  int64_t n = numel(out), i;
  (void)ctx;
  for (i = 0; i < n; ++i)
    ((float*)out->data)[offset_of(out, i)] =
        ((const float*)x->data)[offset_of(x, i)] - ((const float*)y->data)[offset_of(y, i)];
  return TSR_OK;
}

static tsr_status copy_through_double(void* ctx, const tsr_kernel_args* a) {
  const tsr_tensor_desc* in = a->inputs[0];
  const tsr_tensor_desc* out = a->output;
  const size_t in_size = tsr_dtype_size(in->dtype);
  int64_t n = numel(out), i;
  (void)ctx;
  for (i = 0; i < n; ++i) {
    /* The planted bug: int64 -> double -> float32 rounds twice. */
    double v = tsr_element_to_double(in->dtype, (const char*)in->data + offset_of(in, i) * (int64_t)in_size);
    ((float*)out->data)[offset_of(out, i)] = (float)v;
  }
  return TSR_OK;
}

typedef struct instance {
  test_ctx base;
  tsr_device_iface device;
  tsr_kernel_entry entries[5];
  tsr_kernel_table kernels;
  tsr_plugin_api api;
} instance;

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  instance* self = (instance*)calloc(1, sizeof(instance));
  /* The planted bug: no check of args->abi_version. */
  if (self == NULL) return TSR_ERR_OUT_OF_MEMORY;
  self->base.devices = 1;
  self->device = test_device_iface();
  self->device.get_properties = careless_properties;
  self->entries[0].op = TSR_OP_FILL, self->entries[0].dtype = TSR_FLOAT32, self->entries[0].fn = fill_past_end;
  self->entries[1].op = TSR_OP_NEG, self->entries[1].dtype = TSR_FLOAT32, self->entries[1].fn = neg_in_place_too;
  self->entries[2].op = TSR_OP_ADD, self->entries[2].dtype = TSR_FLOAT32, self->entries[2].fn = add_ignoring_strides;
  self->entries[3].op = TSR_OP_SUB, self->entries[3].dtype = TSR_FLOAT32, self->entries[3].fn = sub_correct;
  self->kernels.struct_size = TSR_KERNEL_TABLE_STRUCT_SIZE;
  self->entries[4].op = TSR_OP_COPY, self->entries[4].dtype = TSR_FLOAT32, self->entries[4].fn = copy_through_double;
  self->kernels.count = 5;
  self->kernels.entries = self->entries;
  self->api = test_api(self, &self->device, &self->kernels);
  self->api.destroy = test_destroy;
  self->api.plugin_name = "bad_conformance";
  (void)args;
  *out = &self->api;
  return TSR_OK;
}
