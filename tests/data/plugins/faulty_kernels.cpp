// SPDX-License-Identifier: Apache-2.0
// faulty_kernels.so: a vendor-style plugin ("vec") whose kernels fail in the
// ways tests/api/test_plugin_faults.cpp checks the runtime reports well:
//   add float32  fails with TSR_ERR_DEVICE and sets no message;
//   mul float32  lets a C++ exception out (against plugin.h's rules);
//   sub float32  logs a warning through host->log, then computes a - b;
//   fill float32 is correct.
// init logs a warning too. Every other op falls back to the cpu when the
// config says "fallback": true. Memory is host memory, but the device says
// host_accessible = 0, as a real accelerator would.
#include <cstring>
#include <stdexcept>

#include "test_plugin_common.h"

namespace {

const tsr_host_api* host = nullptr;

tsr_status add_silently_fails(void*, const tsr_kernel_args*) { return TSR_ERR_DEVICE; }

tsr_status mul_throws(void*, const tsr_kernel_args*) { throw std::runtime_error("vec: kernel threw"); }

tsr_status sub_logs(void*, const tsr_kernel_args* a) {
  host->log(TSR_LOG_WARNING, "sub ran");
  const tsr_tensor_desc& x = *a->inputs[0];
  const tsr_tensor_desc& y = *a->inputs[1];
  const tsr_tensor_desc& out = *a->output;
  int64_t index[TSR_MAX_DIMS] = {0};
  int64_t n = 1;
  for (int32_t d = 0; d < out.ndim; ++d) n *= out.shape[d];
  for (int64_t i = 0; i < n; ++i) {
    int64_t ox = x.offset, oy = y.offset, oo = out.offset;
    for (int32_t d = 0; d < out.ndim; ++d) {
      ox += index[d] * x.strides[d];
      oy += index[d] * y.strides[d];
      oo += index[d] * out.strides[d];
    }
    static_cast<float*>(out.data)[oo] = static_cast<const float*>(x.data)[ox] - static_cast<const float*>(y.data)[oy];
    for (int32_t d = out.ndim - 1; d >= 0; --d) {
      if (++index[d] < out.shape[d]) break;
      index[d] = 0;
    }
  }
  return TSR_OK;
}

tsr_status private_properties(void* ctx, int32_t device, tsr_device_properties* props) {
  tsr_status st = test_get_properties(ctx, device, props);
  if (TSR_STRUCT_HAS(props, tsr_device_properties, host_accessible)) props->host_accessible = 0;
  return st;
}

struct Instance {
  test_ctx base;
  tsr_device_iface device;
  tsr_kernel_entry entries[4];
  tsr_kernel_table kernels;
  tsr_plugin_api api;
};

}  // namespace

extern "C" TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  if (TSR_VERSION_MAJOR(args->abi_version) != TSR_ABI_VERSION_MAJOR) {
    args->host->set_error(TSR_ERR_VERSION, "faulty_kernels: built for ABI 1.x");
    return TSR_ERR_VERSION;
  }
  host = args->host;
  static Instance self;
  self = Instance{};
  self.base = *test_static_ctx(args);
  self.device = test_device_iface();
  self.device.get_properties = private_properties;
  self.entries[0] = {TSR_OP_FILL, TSR_FLOAT32, test_fill_f32};
  self.entries[1] = {TSR_OP_ADD, TSR_FLOAT32, add_silently_fails};
  self.entries[2] = {TSR_OP_MUL, TSR_FLOAT32, mul_throws};
  self.entries[3] = {TSR_OP_SUB, TSR_FLOAT32, sub_logs};
  self.kernels = {TSR_KERNEL_TABLE_STRUCT_SIZE, 4, self.entries};
  self.api = test_api(&self, &self.device, &self.kernels);
  self.api.device_type_name = "vec";
  self.api.plugin_name = "faulty_kernels";
  args->host->log(TSR_LOG_WARNING, "init ran");
  *out = &self.api;
  return TSR_OK;
}
