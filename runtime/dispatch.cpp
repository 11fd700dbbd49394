// SPDX-License-Identifier: Apache-2.0
#include <string>

#include "abi_history.hpp"
#include "composite.hpp"
#include "error.hpp"
#include "fallback.hpp"
#include "ops.hpp"
#include "plugin_call.hpp"
#include "runtime.hpp"
#include "shape.hpp"

namespace tessera::rt {

void check_op_takes_dtype(int32_t op, int32_t dtype) {
  if (tsr_op_takes_dtype(op, dtype)) return;
  fail(TSR_ERR_TYPE, std::string(tsr_op_name(op)) + " is not defined for " + tsr_dtype_name(dtype) + " tensors" +
                         (tsr_dtype_is_complex(dtype) && tsr_op_takes_dtype(op, TSR_FLOAT32) &&
                                  tsr_op_takes_dtype(op, TSR_BOOL)
                              ? " (complex numbers have no order)"
                              : ""));
}

namespace {
[[noreturn]] void missing_kernel(const tsr_runtime& rt, tsr_device device, int32_t op, int32_t dtype) {
  check_op_takes_dtype(op, dtype);
  fail(TSR_ERR_UNSUPPORTED, std::string(tsr_op_name(op)) + ": not supported on device " +
                                rt.registry.device_name(device) + " for dtype " + tsr_dtype_name(dtype) +
                                "; supported on: " + rt.registry.devices_with_kernel(op, dtype));
}
// The device type whose missing or declined kernels run on the CPU fallback
// (Note [CPU fallback]); nullptr when its config does not allow it.
const DeviceType* fallback_target(const tsr_runtime& rt, tsr_device device) {
  const DeviceType* type = rt.registry.device_type(device.type);
  if (type == nullptr || type->plugin == nullptr || !type->plugin->config().fallback || device.type == TSR_DEVICE_CPU)
    return nullptr;
  return type;
}
}  // namespace

void kernel_failed(const tsr_runtime& rt, tsr_device device, int32_t op, int32_t key_dtype, const LoadedPlugin* plugin,
                   tsr_status status, const std::string& why, const char* where) {
  fail(status, std::string(tsr_op_name(op)) + " (" + tsr_dtype_name(key_dtype) + ") failed " + where +
                   rt.registry.device_name(device) + " (plugin \"" +
                   (plugin != nullptr ? plugin->config().name : std::string("?")) + "\"): " + why);
}

tsr_status call_kernel(const tsr_runtime& rt, tsr_device device, int32_t op, int32_t key_dtype, const KernelSlot& k,
                       const tsr_kernel_args& args, const char* where) {
  PluginCall call(k.plugin);
  try {
    return k.fn(k.ctx, &args);
  } catch (const std::exception& e) {
    // A kernel must return a status (plugin.h); a C++ one that throws is
    // still reported like any other failure.
    kernel_failed(rt, device, op, key_dtype, k.plugin, TSR_ERR_INTERNAL,
                  std::string("the kernel threw a C++ exception (kernels must return a status): ") + e.what(), where);
  } catch (...) {
    kernel_failed(rt, device, op, key_dtype, k.plugin, TSR_ERR_INTERNAL,
                  "the kernel threw a C++ exception not derived from std::exception (kernels must return a status)",
                  where);
  }
}

namespace {
// After k returned st != TSR_OK: a kernel may decline arguments it does not
// know (a newer MATH function, Note [Kernel contracts]), and the CPU fallback
// then runs the call; any other status is the call's error. Out of line, so
// that launch's path for TSR_OK stays short.
[[gnu::noinline]] void kernel_returned(tsr_runtime& rt, tsr_device device, int32_t op, int32_t key_dtype,
                                       const KernelSlot& k, tsr_status st,
                                       std::initializer_list<const tsr_tensor_desc*> inputs,
                                       const tsr_tensor_desc& output, const tsr_kernel_args& args) {
  const std::string why = plugin_message();
  if (st == TSR_ERR_UNSUPPORTED)
    if (const DeviceType* type = fallback_target(rt, device))
      return launch_on_cpu(rt, *type, device, op, key_dtype, inputs, output, args);
  kernel_failed(rt, device, op, key_dtype, k.plugin, st, why, "on ");
}

// k's plugin is of an older minor than the runtime: nothing it predates
// reaches it (Note [What an older plugin is handed]).
void run_older_kernel(tsr_runtime& rt, tsr_device device, int32_t op, int32_t key_dtype, const KernelSlot& k,
                      std::initializer_list<const tsr_tensor_desc*> inputs, const tsr_tensor_desc& output,
                      tsr_kernel_args& args) {
  if (const NewerThing newer = newer_than(k.minor, args)) {
    const std::string why = built_before(k.plugin->config().name, k.minor, newer);
    if (const DeviceType* type = fallback_target(rt, device))
      return launch_on_cpu(rt, *type, device, op, key_dtype, inputs, output, args, why);
    fail(TSR_ERR_UNSUPPORTED, std::string(tsr_op_name(op)) + " (" + tsr_dtype_name(key_dtype) + ") on " +
                                  rt.registry.device_name(device) + ": " + why +
                                  ", and its config does not allow the CPU fallback (\"fallback\": false)");
  }
  args.struct_size = kernel_args_size(k.minor);
  // MATMUL's precision grew MEDIUM (2) in ABI 1.3; before, nonzero meant
  // "TF32 allowed", which MEDIUM allows too.
  int64_t precision = 1;
  if (op == TSR_OP_MATMUL && k.minor < 3 && args.num_params == 1 && args.params[0] > 1) args.params = &precision;
  const tsr_status st = call_kernel(rt, device, op, key_dtype, k, args, "on ");
  if (st != TSR_OK) kernel_returned(rt, device, op, key_dtype, k, st, inputs, output, args);
}
}  // namespace

void launch(tsr_runtime& rt, tsr_device device, int32_t op, int32_t key_dtype,
            std::initializer_list<const tsr_tensor_desc*> inputs, const tsr_tensor_desc& output,
            const KernelParams& extra) {
  const KernelSlot& k = rt.registry.kernel(device.type, op, key_dtype);
  tsr_kernel_args args{};
  args.struct_size = TSR_KERNEL_ARGS_STRUCT_SIZE;
  args.op = op;
  args.device_index = device.index;
  args.inputs = inputs.begin();
  args.num_inputs = static_cast<int32_t>(inputs.size());
  args.output = &output;
  args.scalars = extra.scalars.data();
  args.num_scalars = static_cast<int32_t>(extra.scalars.size());
  args.params = extra.params.data();
  args.num_params = static_cast<int32_t>(extra.params.size());
  args.stream = nullptr;
  args.more_outputs = extra.more_outputs.empty() ? nullptr : extra.more_outputs.data();
  args.num_more_outputs = static_cast<int32_t>(extra.more_outputs.size());
  if (k.fn == nullptr) {
    // Note [Composites]: built from primitives on the device itself.
    if (tsr_op_role(op) == TSR_OP_ROLE_COMPOSITE) return run_composite(rt, device, op, key_dtype, inputs, output, extra);
    // Primitives and optional ops (LINALG) a device lacks: the CPU fallback.
    const DeviceType* type = fallback_target(rt, device);
    if (type == nullptr) missing_kernel(rt, device, op, key_dtype);
    return launch_on_cpu(rt, *type, device, op, key_dtype, inputs, output, args);
  }
  if (k.minor < kPluginFacingMinor) [[unlikely]]
    return run_older_kernel(rt, device, op, key_dtype, k, inputs, output, args);
  const tsr_status st = call_kernel(rt, device, op, key_dtype, k, args, "on ");
  if (st != TSR_OK) [[unlikely]]
    kernel_returned(rt, device, op, key_dtype, k, st, inputs, output, args);
}

void check_same_device(const tsr_tensor& a, const tsr_tensor& b) {
  if (same_device(a.device, b.device)) return;
  fail(TSR_ERR_INVALID_ARGUMENT,
       "Expected all tensors to be on the same device, but found at least two devices, " +
           a.rt->registry.device_name(a.device) + " and " + a.rt->registry.device_name(b.device) + "!");
}

void check_no_internal_overlap(const tsr_tensor& t) {
  if (t.layout.numel() == 0) return;  // nothing is written
  for (int32_t i = 0; i < t.layout.ndim; ++i)
    if (t.layout.strides[static_cast<size_t>(i)] == 0 && t.layout.shape[static_cast<size_t>(i)] > 1)
      fail(TSR_ERR_INVALID_ARGUMENT,
           "unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location. Please clone() the tensor before performing the operation.");
}

bool may_share_memory(const tsr_tensor& a, const tsr_tensor& b) {
  if (a.storage != b.storage || a.layout.numel() == 0 || b.layout.numel() == 0) return false;
  const int64_t a_end = storage_extent(a.layout), b_end = storage_extent(b.layout);
  return a.layout.offset < b_end && b.layout.offset < a_end;
}

std::string op_label(int32_t op) {
  if (op >= 0 && op < TSR_OP_COUNT) return std::string(tsr_op_name(op)) + " (op " + std::to_string(op) + ")";
  return "op " + std::to_string(op) + " (not an op of ABI " + std::to_string(TSR_ABI_VERSION_MAJOR) + "." +
         std::to_string(TSR_ABI_VERSION_MINOR) + ")";
}

tsr_scalar make_scalar(double v) {
  tsr_scalar s{};
  s.kind = TSR_SCALAR_FLOAT;
  s.f = v;
  return s;
}

tsr_scalar make_scalar_int(int64_t v) {
  tsr_scalar s{};
  s.kind = TSR_SCALAR_INT;
  s.i = v;
  s.f = static_cast<double>(v);
  return s;
}

}  // namespace tessera::rt
